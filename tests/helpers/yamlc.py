"""YAML for the tests' own reading and writing, through PyYAML's C (libyaml) classes: the same
safe tags and resolver as ``yaml.safe_load``/``yaml.safe_dump``, read and written in C. The
tests edit copies of recipes/ thousands of times, and the pure-Python classes took a twelfth of
the suite's Python time. The engine reads YAML its own way (``macros.engine.yamlfile``, also
through libyaml); what a test writes here, the engine reads back as any maintainer's file."""

from __future__ import annotations

import yaml

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # a PyYAML built without libyaml: the same,
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)  # only slower


def load(text):
    """``yaml.safe_load``."""
    return yaml.load(text, Loader=_LOADER)


def load_all(text):
    """``yaml.safe_load_all``: the documents, one after the other."""
    return yaml.load_all(text, Loader=_LOADER)


def dump(data, stream=None, **options):
    """``yaml.safe_dump``, with its options."""
    return yaml.dump(data, stream, Dumper=_DUMPER, **options)
