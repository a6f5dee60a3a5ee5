"""Executable, bilingual recipe docs: the recipe engine and the mkdocs-macros entry point.

mkdocs-macros imports this package (``module_name: macros``) and calls ``define_env`` and the
hooks around each page's rendering; the engine modules are imported lazily so ``recipes`` CLI
start-up stays fast.
"""


def define_env(env):  # pragma: no cover - exercised by the site build tests
    from .site import define_env as _define

    _define(env)


def on_pre_page_macros(env):  # pragma: no cover - exercised by the site build tests
    from .site import on_pre_page_macros as _pre

    _pre(env)


def on_post_page_macros(env):  # pragma: no cover - exercised by the site build tests
    from .site import on_post_page_macros as _post

    _post(env)
