"""Sybil wiring for the docs: Python snippets run against the stand-in server, shell blocks go
through the engine's checker. Used by docs/conftest.py (source pages) and by
tests/test_docs_rendered.py (pages after the macros ran).

A lexer finds fenced blocks whatever their attributes (```bash title="…" is still bash); the
check context of a shell block comes from the ``<!-- check: k=v … -->`` directive right above
it, and a ``<!-- bench: sglang=RELEASE -->`` directive marks a bench_serving command, checked
against that release's arguments (every release's without one). Counts of what was checked
are kept per language for the end-of-run summary.
"""

from __future__ import annotations

import contextlib
import io
import re
import urllib.request
from collections import Counter
from pathlib import Path

import openai
import pytest
from sybil import Region, Sybil
from sybil.parsers.markdown.lexers import RawFencedCodeBlockLexer

from macros.engine import bench_serving
from macros.engine.check import check_text
from macros.engine.database import cached_database
from macros.engine.errors import RecipeError
from standin import StandInServer, served_models

SHELL_LANGS = ("bash", "shell", "sh", "console", "zsh")
COUNTS: Counter = Counter()
_DIRECTIVE = re.compile(r"<!--\s*check:(?P<args>[^>]*?)-->\s*\n(?:[ \t]*\n)*\Z")
_BENCH_DIRECTIVE = re.compile(r"<!--\s*bench:(?P<args>[^>]*?)-->\s*\n(?:[ \t]*\n)*\Z")
_ALLOWED_BASE_URLS = ("http://localhost:30000/v1", "http://localhost:8000/v1",
                      "http://127.0.0.1:30000/v1")
_NONE_PRINT = re.compile(r"^(?P<label>[A-Za-z][\w ]*): None$", re.M)


_DOCS = Path(__file__).resolve().parents[2] / "docs"
_PRINTED = False


def _lang_of(path: str) -> str:
    parts = Path(path).parts
    return "ko" if "ko" in parts else "en"


def _kind(path: str) -> str | None:
    """'source' for the repository's pages, 'rendered' for built copies, None for the
    mutated copies the tests of the tests make (not counted)."""
    p = Path(path).resolve()
    if p.is_relative_to(_DOCS):
        return "source"
    return "rendered" if p.name == "index.md" and "site" in p.parts else None


class _Block:
    def __init__(self, language: str, attrs: str, directive: dict | None,
                 bench: dict | None = None):
        self.language, self.attrs, self.directive = language, attrs, directive
        self.bench = bench


def _directive_before(text: str, start: int, pattern: re.Pattern = _DIRECTIVE) -> dict | None:
    m = pattern.search(text[max(0, start - 600):start])
    if not m:
        return None
    args: dict[str, str] = {}
    for word in m.group("args").split():
        key, eq, value = word.partition("=")
        args[key] = value if eq else "true"
    return args


class FenceParser:
    """Every fenced block of the given languages, with its fence attributes and directive."""

    def __init__(self, languages: tuple[str, ...], evaluator):
        pattern = "|".join(re.escape(lang) for lang in languages)
        self.lexer = RawFencedCodeBlockLexer(
            info_pattern=re.compile(rf"(?P<language>{pattern})(?P<attrs>(?:[ \t{{][^\n]*)?)$\n",
                                    re.MULTILINE))
        self.evaluator = evaluator

    def __call__(self, document):
        for region in self.lexer(document):
            lexemes = region.lexemes
            block = _Block(lexemes["language"], lexemes.get("attrs", ""),
                           _directive_before(document.text, region.start),
                           _directive_before(document.text, region.start, _BENCH_DIRECTIVE))
            yield Region(region.start, region.end, (block, lexemes["source"]), self.evaluator)


def evaluate_shell(example) -> str | None:
    block, source = example.parsed
    lang, kind = _lang_of(example.path), _kind(example.path)
    directive = block.directive or {}
    if directive.get("skip") == "true":
        COUNTS[(kind, lang, "shell-skipped")] += 1
        return None
    db = cached_database()
    if block.bench is not None:
        return _evaluate_bench(example, db, block.bench, str(source), kind, lang)
    own = {"model", "skip", "generated", "sglang"}
    known = set(own)
    model_id = directive.get("model")
    if model_id in db.models:
        known |= set(db.model(model_id).dimensions) | set(db.model(model_id).axis_index)
    unknown = sorted(set(directive) - known)
    if unknown:
        return (f"{example.path}:{example.line}: the check directive has unknown keys "
                f"{unknown} (known: model, skip, sglang and the model's dimensions and settings)")
    context = {k: v for k, v in directive.items() if k not in own}
    try:
        findings = check_text(db, str(source), model_id=model_id,
                              sglang=directive.get("sglang"), **context)
    except RecipeError as exc:
        return f"{example.path}:{example.line}: bad check directive: {exc}"
    if findings and findings[0].rule == "parse.no-command":
        if block.directive is not None:
            return f"{example.path}:{example.line}: the check directive names a command, but " \
                   "the block below it holds no sglang or router command"
        COUNTS[(kind, lang, "shell-other")] += 1
        return None
    COUNTS[(kind, lang, "shell")] += 1
    errors = [f for f in findings if f.severity.value == "error"]
    if not errors:
        return None
    lines = [f"{example.path}:{example.line + (f.line or 1)}: {f.message} ({f.rule}; "
             f"{', '.join(f.flags)})" for f in errors]
    return "command check failed:\n" + "\n".join(lines)


def _evaluate_bench(example, db, directive: dict, source: str, kind, lang) -> str | None:
    where = f"{example.path}:{example.line}"
    unknown = sorted(set(directive) - {"sglang", "generated"})
    release = directive.get("sglang")
    if unknown:
        return f"{where}: the bench directive has unknown keys {unknown} (known: sglang)"
    if release is not None and release not in db.bench_releases.order:
        return (f"{where}: the bench directive names sglang {release}, which the flag history "
                f"does not cover ({', '.join(db.bench_releases.order)})")
    try:
        program, flags = bench_serving.read_command(source)
    except ValueError as exc:
        return f"{where}: {exc}"
    COUNTS[(kind, lang, "bench")] += 1
    found = bench_serving.problems(db.bench_releases, program, flags, release)
    return "bench_serving command check failed:\n" + "\n".join(
        f"{where}: {message}" for message in found) if found else None


_LOCAL = re.compile(r"^http://(?:localhost|127\.0\.0\.1):[0-9]+(?P<path>/v1/.*)$")


class _Redirect:
    """Points every OpenAI client a snippet creates at the stand-in server, and every
    ``urllib.request`` call to a local server's ``/v1/`` (a diffusion model's job client)."""

    def __init__(self, server: StandInServer):
        self.server = server
        self.original = openai.OpenAI
        self.original_urlopen = urllib.request.urlopen
        self.base_urls: list[str | None] = []

    def __enter__(self):
        redirect = self

        def urlopen(url, *args, **kwargs):
            target = url.full_url if isinstance(url, urllib.request.Request) else url
            local = _LOCAL.match(target)
            if local is None:
                raise AssertionError(f"{target!r} is not a documented local server")
            moved = redirect.server.url.rstrip("/") + local.group("path")
            if isinstance(url, urllib.request.Request):
                url = urllib.request.Request(moved, data=url.data, headers=dict(url.headers),
                                             method=url.get_method())
            else:
                url = moved
            return redirect.original_urlopen(url, *args, **kwargs)

        urllib.request.urlopen = urlopen

        class RedirectedOpenAI(self.original):  # type: ignore[misc, valid-type]
            def __init__(self, *args, base_url=None, **kwargs):
                redirect.base_urls.append(base_url)
                kwargs.setdefault("max_retries", 0)
                super().__init__(*args, base_url=redirect.server.base_url, **kwargs)

        openai.OpenAI = RedirectedOpenAI
        return self

    def __exit__(self, *exc):
        openai.OpenAI = self.original
        urllib.request.urlopen = self.original_urlopen


def evaluate_python(example) -> str | None:
    block, source = example.parsed
    lang, kind = _lang_of(example.path), _kind(example.path)
    if (block.directive or {}).get("skip") == "true":
        COUNTS[(kind, lang, "python-skipped")] += 1
        return None
    COUNTS[(kind, lang, "python")] += 1
    server: StandInServer = example.namespace["__standin__"]
    before = len(server.requests)
    out = io.StringIO()
    code = compile(str(source), f"{example.path}:{example.line}", "exec")
    with _Redirect(server) as redirect, contextlib.redirect_stdout(out):
        exec(code, example.namespace)
    for url in redirect.base_urls:
        if url is not None and url not in _ALLOWED_BASE_URLS:
            return f"{example.path}:{example.line}: base_url {url!r} is not the documented " \
                   f"local server ({', '.join(_ALLOWED_BASE_URLS)})"
    sent = server.requests[before:]
    if not sent:
        return f"{example.path}:{example.line}: the snippet never reached the server"
    failed = [r for r in sent if (r.status or 200) >= 400]
    if failed:
        return f"{example.path}:{example.line}: the server answered {failed[0].status} " \
               f"to {failed[0].method} {failed[0].path}"
    none = _NONE_PRINT.search(out.getvalue())
    if none:
        return (f"{example.path}:{example.line}: the snippet printed None for "
                f"'{none.group('label')}': a field SGLang always returns was read under the "
                "wrong name")
    return None


def _setup(namespace):
    # One server for every served name of every model: a page's snippets may name any of them.
    server = StandInServer(served_models(cached_database())).start()
    namespace["__standin__"] = server


def _teardown(namespace):
    namespace["__standin__"].stop()


def make_sybil(**kwargs) -> Sybil:
    return Sybil(
        parsers=[FenceParser(("python", "py"), evaluate_python),
                 FenceParser(SHELL_LANGS, evaluate_shell)],
        setup=_setup, teardown=_teardown, **kwargs)


def summary_lines() -> list[str]:
    out = []
    for kind, what in (("source", "Markdown sources"), ("rendered", "rendered pages")):
        for lang in ("en", "ko"):
            py, sh = COUNTS[(kind, lang, "python")], COUNTS[(kind, lang, "shell")]
            other, bench = COUNTS[(kind, lang, "shell-other")], COUNTS[(kind, lang, "bench")]
            if py or sh or other or bench:
                out.append(f"docs {lang}, {what}: {py} Python snippets run, {sh} shell blocks "
                           f"with SGLang commands checked, {bench} bench_serving commands "
                           f"checked, {other} other shell blocks")
    return out


class _WorkerCounts:
    """Under pytest-xdist each worker counts its own examples: a worker hands its counts to the
    controller when it finishes, and the controller adds them up for the summary."""

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error) -> None:
        for *key, n in getattr(node, "workeroutput", {}).get("sybil_counts", []):
            COUNTS[tuple(key)] += n

    def pytest_sessionfinish(self, session) -> None:
        out = getattr(session.config, "workeroutput", None)
        if out is not None:  # a worker
            out["sybil_counts"] = [[*key, n] for key, n in COUNTS.items()]


def register_counts(config) -> None:
    """Called by both conftest files' pytest_configure; registers the plugin once per run."""
    if not config.pluginmanager.has_plugin("sybil-counts"):
        config.pluginmanager.register(_WorkerCounts(), "sybil-counts")


def print_summary(terminalreporter) -> None:
    """Called by both conftest files; prints once per run."""
    global _PRINTED
    if _PRINTED:
        return
    _PRINTED = True
    for line in summary_lines():
        terminalreporter.write_line(line)


def run_document(path: Path) -> tuple[int, list[str]]:
    """Evaluate every example of one Markdown file outside pytest's collection (for rendered
    pages and mutated copies). Returns (examples run, failure messages with file:line)."""
    sybil = make_sybil(path=str(Path(path).parent))
    document = sybil.parse(Path(path))
    sybil.setup(document.namespace)
    failures: list[str] = []
    count = 0
    try:
        for example in document:
            count += 1
            try:
                example.evaluate()
            except Exception as exc:  # SybilFailure or what the snippet raised
                message = str(exc).strip() or type(exc).__name__
                failures.append(f"{path}:{example.line}: {type(exc).__name__}: {message}")
    finally:
        sybil.teardown(document.namespace)
    return count, failures
