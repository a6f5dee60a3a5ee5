"""Executable, bilingual recipe docs: the recipe engine, its build stage and the CLI.

The engine modules are imported lazily (nothing here imports them) so ``recipes`` CLI start-up
stays fast.
"""
