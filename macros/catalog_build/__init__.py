"""The flag catalogs and the flag history, extracted from released wheels (``recipes catalog``).

Owns everything under ``recipes/catalog/`` that is generated: ``sglang.json`` and
``sglang-router.json`` (the pinned releases the engine checks against) and
``sglang-history.json`` (every release from 0.5.12 to 0.5.23). The pipeline, one module each:
``wheels`` (download, read sources) → ``evaluator`` (constants, statically) → ``fields`` /
``registrations`` (argparse rules) → ``sglang`` / ``router`` (per-release layouts) →
``history`` (fold, read back, compare) → ``command`` (the CLI).
Must not import or run anything from a wheel, nor be imported by the engine at run time.
"""
