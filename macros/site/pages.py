"""The page macros: what renders database content into a page's language.

Owns the macros (``Site``), the Markdown each macro returns, and how a page's template is
rendered (``PageTemplates``: a sandbox that exposes only the recipe macros, checks on the page's
source first, errors as page:line); the build's stage (``macros.site.stage``) runs it on every page
before either site engine sees the page, then adds the translation notices. Every command a
page shows comes from ``resolve`` through ``render`` (a benchmark's serve command through
``served``, its reproduce commands from ``bench_serving``, the docker, curl and client views of
a selection from ``runmodes``); a macro whose command has an error finding fails the build.
Must not write into docs/ or recipes/.

Size: the macros are the methods of one ``Site`` bound to a language, sharing its text lookup
and the memo tables kept from a model's page to its commands page; ``PageTemplates`` (the
sandbox) is the part to move out next when this file grows.
"""

from __future__ import annotations

import json
import math
import os
import re
import traceback
from collections.abc import Collection
from datetime import date, timedelta
from pathlib import Path

from jinja2 import StrictUndefined, TemplateError, TemplateSyntaxError, nodes
from jinja2.sandbox import ImmutableSandboxedEnvironment
from mkdocs.exceptions import PluginError

from macros.engine import bench_serving, records, served
from macros.site import render, runmodes, verification
from macros.engine.calculator import fmt as calc_fmt, of_command
from macros.engine.model import Database
from macros.engine.errors import Problem, RecipeError, choices_hint
from macros.engine.inert import cell_text as _cell_text, esc as _esc, inline as _inline, md as _md
from macros.i18n.pages import read_page
from macros.engine.resolve import resolve
from macros.engine.results import Resolution
from macros.engine.selection import Selection


class MacroError(Exception):
    """A macro was called with arguments that do not name a real selection."""


EXPIRY_NOTICE = timedelta(days=30)  # how long before a planned removal the build refuses it


def today() -> date:
    """The build's date; RECIPES_TODAY=YYYY-MM-DD stands in for it (tests, a dry run)."""
    given = os.environ.get("RECIPES_TODAY")
    if not given:
        return date.today()
    try:
        return date.fromisoformat(given)
    except ValueError:
        raise MacroError(f"RECIPES_TODAY={given!r} is not a date (write YYYY-MM-DD)") from None


def _warn_from(removal: str) -> date:
    return date.fromisoformat(removal) - EXPIRY_NOTICE


def expiring(removal: str, now: date) -> bool:
    """A planned removal (a date) is near enough that a printed command may not depend on it."""
    return now >= _warn_from(removal)


_BETTER = {"lower": "↓", "higher": "↑"}  # a metric's better direction, in its table's header


def _figure(written: str) -> str:
    """A measured figure as its file writes it, thousands grouped: "83578" → "83,578",
    "33.10" stays "33.10" (a float would print 33.1)."""
    whole, dot, fraction = written.partition(".")
    sign = "-" if whole.startswith("-") else ""
    digits = whole.lstrip("+-")
    return f"{sign}{int(digits):,}{dot}{fraction}" if digits.isdigit() else written


# A flag with the value that follows it when that value is a number or a snake_case id
# ("--tp-size 8", "--kv-cache-dtype fp8_e4m3", not "--moe-runner-backend unset"), or an
# environment variable with its value. ASCII only: a Korean particle right after it ("256을",
# "=4.5로") is prose, not part of the code.
_CODE_WORD = re.compile(r"(--[a-z0-9][a-z0-9-]*(?: (?:\d+(?:\.\d+)?|[a-z0-9]+_[a-z0-9_]+)"
                        r"(?![A-Za-z0-9_-]))?"
                        r"|[A-Z][A-Z0-9]*_[A-Z0-9_]+(?:=[A-Za-z0-9_.:-]*[A-Za-z0-9_:-])?)")


def _prose(text: str) -> str:
    """Inert reader text with flags and env vars set as inline code."""
    parts = _CODE_WORD.split(str(text))
    return "".join(f"`{p}`" if i % 2 else _md(p) for i, p in enumerate(parts))


def _avg_len_arg(value) -> int:
    """A page's avg_len: a whole number of tokens within the schema's bounds."""
    from macros.engine.schema import AVG_LEN_MAX, AVG_LEN_MIN

    text = str(value) if isinstance(value, int) and not isinstance(value, bool) else \
        value if isinstance(value, str) else ""
    if not re.fullmatch(r"[0-9]{1,9}", text) or not AVG_LEN_MIN <= int(text) <= AVG_LEN_MAX:
        raise MacroError(f"avg_len={value!r} is not a whole number of tokens from "
                         f"{AVG_LEN_MIN:,} to {AVG_LEN_MAX:,}")
    return int(text)


def _code(text: str) -> str:
    """Text as inline code: a code span escapes HTML itself; the fence is longer than any
    backtick run inside."""
    text = str(text).replace("\n", " ")
    ticks = "`" * (max((len(r) for r in re.findall(r"`+", text)), default=0) + 1)
    return f"{ticks} {text} {ticks}"


def _code_cell(text: str) -> str:
    """Inline code in a table cell, where a pipe would still split the cell."""
    return _code(str(text).replace("|", "/"))


def _fence(code: str, lang: str = "bash", attrs: str = "") -> str:
    ticks = "```"
    while ticks in code:
        ticks += "`"
    head = f"{ticks}{lang}" + (f" {attrs}" if attrs else "")
    return f"{head}\n{code}\n{ticks}"


class Site:
    """Macros bound to one build language."""

    def __init__(self, db: Database, lang: str):
        self.db, self.lang = db, lang
        self._recent: dict[tuple, Resolution] = {}  # see resolve
        self.published: set[str] = set()  # the models whose results a page has published

    # -- helpers
    def t(self, text_id: str, model=None, **fields) -> str:
        return self.db.t(self.lang, text_id, model, **fields)

    def th(self, text_id: str, model=None, **fields) -> str:
        """Database text as a table heading: inert, one line, no cell separator."""
        return _cell_text(self.t(text_id, model, **fields))

    def selection(self, model_id: str, dims: tuple, picks: dict) -> Selection:
        """A macro's arguments as a selection: positional values are the model's dimensions in
        order (hardware first); keywords are dimensions or Playground settings by id."""
        model = self.db.model(model_id)
        if len(dims) > len(model.dimensions):
            raise MacroError(f"{model_id} has {len(model.dimensions)} dimensions "
                             f"({', '.join(model.dimensions)}), got {len(dims)} values {dims}")
        values = dict(zip(model.dimensions, dims))
        for key, value in picks.items():
            if key in values:
                raise MacroError(f"{model_id}: '{key}' is given twice")
            values[key] = value
        avg_len = values.pop("avg_len", None)
        if avg_len is not None:
            avg_len = _avg_len_arg(avg_len)
        for key, value in values.items():
            if not isinstance(value, (str, int)) or isinstance(value, bool):
                raise MacroError(f"{model_id}: {key}={value!r} is not an option id (write it "
                                 "as text, e.g. {key}=\"…\")".replace("{key}", key))
        return Selection.flat(model, values, avg_len)

    # A page shows a selection's command, then its caveats or configuration (the cells table
    # does so for every cell): the last few resolutions are kept, and only those, since a
    # build goes on through every page of every model. What a page may print is judged on
    # every call (the date a removal comes near is read each time).
    RECENT = 16

    def resolve(self, model_id: str, *dims, **picks) -> Resolution:
        sel = self.selection(model_id, dims, picks)
        where = " ".join([*sel.match.values(), *(f"{k}={v}" for k, v in sel.picks.items())])
        key = (sel.model, tuple(sel.match.items()), tuple(sel.picks.items()), sel.avg_len)
        res = self._recent.get(key)
        if res is None:
            try:
                res = resolve(self.db, sel)
            except RecipeError as exc:
                raise MacroError(f"{model_id} {where}: {exc}") from None
            self._recent[key] = res
            if len(self._recent) > self.RECENT:
                del self._recent[next(iter(self._recent))]
        errors = [d for d in res.diagnostics if d.severity.value == "error"]
        if errors:
            model = self.db.model(model_id)
            raise MacroError(f"generated command for {where} fails its check: " +
                             "; ".join(render.diagnostic_text(self.db, model, d, "en")
                                       for d in errors))
        if res.sglang_span is None and not res.branch_only:
            raise MacroError(f"generated command for {where} is written for sglang {res.sglang}, "
                             "which refuses one of its flags: give its image the release it "
                             "ships (docker_images 'sglang') or change the command")
        releases = self.db.serving(self.db.model(res.model)).releases  # the model's CLI
        for flag in res.flags:
            removal = releases.removal(res.sglang, flag.name)
            if removal and expiring(removal, today()):
                raise MacroError(
                    f"generated command for {where} depends on {flag.name}, which sglang "
                    f"{res.sglang} plans to remove after {removal}; from "
                    f"{_warn_from(removal)} no printed command may: add its replacement to "
                    "recipes/catalog/migrations.yaml, or give the command's image the release it "
                    "ships (docker_images 'sglang')")
        return res

    # -- macros
    def command(self, model_id: str, *dims, router: bool = True, title: str | None = None,
                checks: bool = True, **picks) -> str:
        """The server command (and the router for PD servers) as fenced bash blocks, then the
        warnings its checks find, folded (``checks=False``: the caller prints them)."""
        res = self.resolve(model_id, *dims, **picks)
        model = self.db.model(model_id)
        directive = _directive(model_id, res)
        attrs = f'title="{_esc(title)}"' if title else ""
        parts = [directive, "", _fence(render.command_text(self.db, model, res, self.lang),
                                       attrs=attrs), "", f"*{_md(self._span_text(res))}*"]
        router_text = render.router_text(res)
        if router and router_text:
            parts += ["", f"**{_md(self.t('ui.router'))}**", "",
                      _directive(model_id, res, program="router"), "", _fence(router_text)]
        if checks:  # else the caller prints the caveats, these notes among them
            # where the command's release renamed a flag the recipe (and its verified run)
            # spells the old way, say so next to the command
            parts += [f"\n*{_md(render.text(self.db, model, c.text, self.lang))}*"
                      for c in res.caveats if c.kind == "migrated"]
            parts += ["", *self._check_blocks(model, res, collapsed=True)]
        return "\n".join(parts)

    def run_modes(self, model_id: str, *dims, **picks) -> str:
        """One selection four ways, as content tabs under its cell's name: the serve command
        (pip), the same command in the image of the selection (Docker), a curl request and an
        OpenAI client call against the server (the router for a PD server)."""
        res = self.resolve(model_id, *dims, **picks)
        model = self.db.model(model_id)
        title = " · ".join(_md(x) for x in self._labels(model, res.match))
        port = runmodes.client_port(self.db, model, res)
        tabs = [
            ("ui.run.pip", [_directive(model_id, res), "",
                            _fence(render.command_text(self.db, model, res, self.lang))]),
            ("ui.run.docker", [_prose(self.t("ui.run.docker-note")), "",
                               _directive(model_id, res), "",
                               _fence(runmodes.docker_text(self.db, model, res, self.lang))])
            if res.docker_image is not None else  # none published: the install route
            ("ui.run.install", [_prose(self.t("ui.run.install-note")), "",
                                _directive(model_id, res), "",
                                _fence(runmodes.install_text(self.db, model, res, self.lang))]),
            ("ui.run.curl", [_prose(self.t("ui.run.client-note", port=port)), "",
                             _directive(model_id, res, program="curl"), "",
                             _fence(runmodes.curl_text(self.db, model, res, self.lang))]),
            ("ui.run.python", [_fence(runmodes.python_text(self.db, model, res, self.lang),
                                      "python")]),
        ]
        out = [f"**{title}** {self._badge(res.status, model, res.record)}", ""]
        for text_id, body in tabs:
            out += [f'=== "{_esc(self.t(text_id))}"', "", _indent("\n".join(body)), ""]
        return "\n".join(out)

    def requests(self, model_id: str, *dims, **picks) -> str:
        """Every kind of request the selection's server takes (a diffusion model's
        ``request.tasks`` whose condition holds), one content tab each under its label: the
        curl request and the Python client call, each run against the docs stand-in."""
        model = self.db.model(model_id)
        if model.info.request is None or not model.info.request.tasks:
            raise MacroError(f"requests: {model_id} declares no request tasks ('request: "
                             "tasks:' in model.yaml)")
        res = self.resolve(model_id, *dims, **picks)
        if not res.requests:
            known = ", ".join(t.id for t in model.info.request.tasks)
            raise MacroError(f"requests: no request task of {model_id} is taken by "
                             f"{'/'.join(res.match.values())} {picks} (tasks: {known})")
        labels = {t.id: t.label for t in model.info.request.tasks}
        port = runmodes.client_port(self.db, model, res)
        title = " · ".join(_md(x) for x in self._labels(model, res.match))
        out = [f"**{title}** {self._badge(res.status, model, res.record)}", "",
               _prose(self.t("ui.run.client-note", port=port)), ""]
        for task in res.requests:
            body = [_directive(model_id, res, program="curl"), "",
                    _fence(runmodes.curl_text(self.db, model, res, self.lang, task)), "",
                    _fence(runmodes.python_text(self.db, model, res, self.lang, task), "python")]
            out += [f'=== "{_esc(self.t(labels[task], model))}"', "", _indent("\n".join(body)),
                    ""]
        return "\n".join(out)

    def _span_text(self, res: Resolution) -> str:
        if res.branch_only:  # a branch build's own value: that image, never a stock range
            return self.t("ui.sglang-image", image=res.sglang_image,
                          flags=", ".join(res.branch_only), release=res.sglang)
        first, last = res.sglang_span
        if first == last:
            return self.t("ui.sglang-one", release=res.sglang)
        return self.t("ui.sglang-span", first=first, last=last, release=res.sglang)

    def router(self, model_id: str) -> str:
        """The router in front of the model's PD servers (from its first decode cell)."""
        model = self.db.model(model_id)
        if model.info.pd is None:
            raise MacroError(f"router: {model_id} declares no PD disaggregation ('pd' in "
                             "model.yaml)")
        for cell in model.cells:
            res = self.resolve(model_id, **cell.match)
            if res.pd == "decode":
                return "\n".join([_directive(model_id, res, program="router"), "",
                                  _fence(render.router_text(res))])
        raise MacroError(f"router: no cell of {model_id} is a PD decode server")

    def badge(self, model_id: str, *dims, **kw) -> str:
        model = self.db.model(model_id)
        sel = self.selection(model_id, dims, kw)
        if sel.picks:
            raise MacroError(f"badge: takes the cell's dimensions only "
                             f"({', '.join(model.dimensions)}), got {', '.join(sel.picks)}")
        cell = model.cell(sel.match)
        if cell is None:
            hw = sel.match.get("hw")
            known = ", ".join("/".join(k) for k in model.cell_index if k[0] == hw) or \
                ", ".join(model.info.hardware)
            raise MacroError(f"badge: {model_id} has no cell {'/'.join(sel.match.values())} "
                             f"(cells on {hw}: {known})")
        return self._cell_badge(cell, model)

    def _cell_badge(self, cell, model) -> str:
        """A cell's badge: "stale" for a verified cell whose record is; the tooltip adds the
        record ("verified on 0.5.18 · date unknown · B300")."""
        rec = records.record(self.db, model, cell)
        status = "stale" if cell.status.value == "verified" and rec and rec.stale \
            else cell.status.value
        return self._badge(status, model, rec)

    def _badge(self, status: str, model=None, rec=None) -> str:
        """A status badge; its tooltip is ``model``'s own meaning of the status when the model
        words one (``status.<id>.title`` in its text files), else the catalog's; then the
        record of the cell, where it has one."""
        label = render.status_label(self.db, status, self.lang)
        title = render.status_title(self.db, status, self.lang, model)
        if rec is not None:
            title += " " + render.record_line(self.db, model, rec, self.lang)
        return (f'<span class="recipe-badge recipe-badge--{_esc(status)}" '
                f'title="{_esc(title)}">{_esc(label)}</span>')

    def caveats(self, model_id: str, *dims, diagnostics: bool = True, collapsed: bool = False,
                **picks) -> str:
        """Caveats (redirect, warning, pins with reasons, calculator) and rule warnings."""
        res = self.resolve(model_id, *dims, **picks)
        return "\n".join(self._caveat_blocks(model_id, res, diagnostics, collapsed))

    def _caveat_blocks(self, model_id: str, res: Resolution, diagnostics: bool = True,
                       collapsed: bool = False) -> list[str]:
        model = self.db.model(model_id)
        blocks = []
        for c in res.caveats:
            kind = {"derived": "info", "redirect": "info", "warn": "warning", "pin": "note",
                    "calculator": "info"}.get(c.kind, "note")
            body = render.text(self.db, model, c.text, self.lang)
            title = _esc(c.flag) if c.flag else _esc(self.t("ui.caveats"))  # HTML attribute-like
            blocks.append(f'!!! {kind} "{title}"\n\n    {_prose(body)}\n')
        if diagnostics:
            blocks += self._check_blocks(model, res, collapsed)
        return blocks

    def _check_blocks(self, model, res: Resolution, collapsed: bool) -> list[str]:
        """The rule warnings of a command, one admonition each."""
        marker = "???" if collapsed else "!!!"
        return [f'{marker} warning "{_esc(self.t("ui.diagnostics"))}"\n\n'
                f'    {_prose(render.diagnostic_text(self.db, model, d, self.lang))}\n'
                for d in res.diagnostics
                if d.severity.value == "warning" and not d.rule.startswith("catalog.")]

    def effective(self, model_id: str, *dims, **picks) -> str:
        res = self.resolve(model_id, *dims, **picks)
        model = self.db.model(model_id)
        rows = [f"| {self.th('table.knob')} | {self.th('table.value')} | {self.th('table.source')} "
                f"| {self.th('table.why')} |", "|---|---|---|---|"]
        for e in res.effective:
            value = _code_cell(e.value) if e.value is not None \
                else f"*{_cell_text(self.t(e.value_text, model))}*"
            why = self.t(e.because, model) if e.because else ""
            flag = f" (`{e.flag}`)" if e.flag else ""
            rows.append(f"| {_cell_text(self.t(e.label, model))}{flag} | {value} | "
                        f"{_cell_text(self.t('source.' + e.source.value))} | "
                        f"{_prose(why).replace('|', '&#124;')} |")
        return "\n".join(rows)

    def _labels(self, model, match: dict) -> list[str]:
        """The reader's names of a cell's dimension values, the platform first."""
        out = [self.db.platforms[match["hw"]].label]
        for dim in model.dimensions[1:]:
            label = next(lb for o, lb, _ in model.dimension_options[dim] if o == match[dim])
            out.append(self.t(label, model))
        return out

    def matrix(self, model_id: str, commands: str = "") -> str:
        """Hardware × the model's dimensions with nodes and status; each row links to its cell's
        command on ``commands``, the page of the model's ``cells`` (a link relative to this
        page; empty: this page). MkDocs checks the link and the anchor when it builds."""
        model = self.db.model(model_id)
        if not isinstance(commands, str) or any(c in commands for c in "#()[] \n"):
            raise MacroError(f"matrix: commands={commands!r} is not a page link (write the "
                             "commands page relative to this one, e.g. commands=\"model/commands.md\")")
        head = [self.th("table.hardware")] + [self.th(d.label, model) for d in model.info.dimensions] \
            + [self.th("table.nodes"), self.th("table.status")]
        rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for hw in model.info.hardware:
            p = self.db.platforms[hw]
            for cell in _ordered_cells(model, hw):
                labels = [_cell_text(x) for x in self._labels(model, cell.match)]
                labels[-1] = f"[{labels[-1]}]({commands}#{cell_anchor(model, cell.match)})"
                gpus = f"{cell.nodes}×{cell.gpus_per_node or p.gpus_per_node}"
                rows.append(f"| {' | '.join(labels)} | {gpus} | {self._cell_badge(cell, model)} |")
        # a class for its phone layout (recipes.css: a line per cell, the status in view)
        return '<div class="recipe-matrix" markdown>\n\n' + "\n".join(rows) + "\n\n</div>"


    def cells(self, model_id: str, **picks) -> str:
        """Every cell's command, a section per platform and a heading per cell, nothing hidden
        (a link, a search hit or a fresh load of a cell's anchor lands on its command without
        JavaScript). A caveat or check's warning that several cells share is printed once, as a
        numbered note at the end that names its cells (a whole platform as "every … cell"), and
        each of those cells links to it; a PD router likewise, once, with the cells it fronts."""
        model = self.db.model(model_id)
        groups = []  # (platform, [(cell, res, blocks)])
        for hw in model.info.hardware:
            rows = []
            for cell in _ordered_cells(model, hw):
                res = self.resolve(model_id, **cell.match, **picks)
                rows.append((cell, res, self._caveat_blocks(model_id, res, collapsed=True)))
            groups.append((self.db.platforms[hw], rows))
        holders: dict[str, list] = {}
        routers: dict[str, list] = {}
        for _, rows in groups:
            for cell, res, blocks in rows:
                for block in dict.fromkeys(blocks):
                    holders.setdefault(block, []).append(cell)
                text = render.router_text(res)
                if text:
                    routers.setdefault(text, []).append(cell)
        shared = [b for b, cells in holders.items() if len(cells) > 1]
        note = {b: i + 1 for i, b in enumerate(shared)}
        router_anchor = {text: "router" if i == 0 else f"router-{i + 1}"
                         for i, text in enumerate(routers)}
        out = []
        for platform, rows in groups:
            out += [f"## {_md(platform.label)} {{ #hw-{platform.id} }}", ""]
            for cell, res, blocks in rows:
                title = " · ".join(_md(x) for x in self._labels(model, cell.match))
                plain = " · ".join(self._labels(model, cell.match)).replace('"', "'")
                out += [f"### {title} {self._cell_badge(cell, model)} "
                        f"{{ #{cell_anchor(model, cell.match)} data-toc-label=\"{_esc(plain)}\" }}",
                        "",
                        self.command(model_id, **cell.match, router=False, checks=False,
                                     **picks), ""]
                links = []
                text = render.router_text(res)
                if text:
                    links.append(f"[{_md(self.t('ui.router'))}](#{router_anchor[text]})")
                links += [f"[{_md(self.t('ui.note', n=str(n)))}](#note-{n})"
                          for n in sorted(note[b] for b in dict.fromkeys(blocks) if b in note)]
                if links:
                    out += [f"{_md(self.t('ui.see-also'))} " + " · ".join(links), ""]
                out += [b for b in blocks if b not in note]
        for text, fronted in routers.items():
            out += [f"## {_md(self.t('ui.router'))} {{ #{router_anchor[text]} }}", "",
                    f"{_md(self.t('ui.applies-to'))} {self._cell_list(model, fronted)}", "",
                    _directive(model_id, self.resolve(model_id, **fronted[0].match, **picks),
                               program="router"), "", _fence(text), ""]
        if shared:
            out += [f"## {_md(self.t('ui.notes'))} {{ #notes }}", ""]
            for block in shared:
                out += [f"### {_md(self.t('ui.note', n=str(note[block])))} {{ #note-{note[block]} }}",
                        "", f"{_md(self.t('ui.applies-to'))} {self._cell_list(model, holders[block])}",
                        "", block]
        return "\n".join(out)

    def _cell_list(self, model, cells: list) -> str:
        """Cells as links, a platform all of whose cells are listed as "every … cell"."""
        parts = []
        for hw in model.info.hardware:
            mine = [c for c in cells if c.match["hw"] == hw]
            if not mine:
                continue
            label = self.db.platforms[hw].label
            if len(mine) == len(_ordered_cells(model, hw)) and len(mine) > 1:
                parts.append(f"[{_md(self.t('ui.every-cell', platform=label))}](#hw-{hw})")
            else:
                parts += [f"[{' · '.join(_md(x) for x in self._labels(model, c.match))}]"
                          f"(#{cell_anchor(model, c.match)})" for c in mine]
        return ", ".join(parts)

    def benchmarks(self, model_id: str) -> str:
        """Every published result: speed rows (TTFT and TPOT headed with their latency
        percentile), accuracy scores, the serve command the run ran with its difference from
        the recipe command, each row's reproduce command and the result's notes, under its
        cell, picks, status and SGLang build (its round's, else its release). Results follow
        their rounds' order, each round's notes after them; results that name no round come
        last."""
        model = self.db.model(model_id)
        bench = model.benchmarks
        if bench is None:
            return ""
        self.published.add(model_id)
        groups = [(rnd, [r for r in bench.results if r.round == rnd.id])
                  for rnd in model.info.rounds]
        groups.append((None, [r for r in bench.results if r.round is None]))
        out = []
        for rnd, results in groups:
            for res in results:
                out += self._bench_result(model, res, rnd)
            if results and rnd is not None:
                out += [f"!!! note \"\"\n\n    {_prose(self.t(note, model))}\n"
                        for note in rnd.notes]
        return "\n".join(out)

    def _bench_result(self, model, res, rnd) -> list[str]:
        """One result's title line, speed table, accuracy table and notes."""
        bench = model.benchmarks
        labels = self._labels(model, res.match)
        # the Playground settings it ran with, by their labels
        for axis_id, option in res.match.items():
            if axis_id not in model.dimensions:
                labels.append(self.t(next(o.label for o in model.axis_index[axis_id].options
                                          if o.id == option), model))
        if res.pending:  # announced upstream, no numbers yet
            return [f"**{_md(' · '.join(labels))}** ({self._badge_for(model, res)} "
                    f"{_md(self.t('bench.pending'))})\n"]
        version = _md(self.t(rnd.text, model) if rnd is not None and rnd.text else
                      f"SGLang {rnd.version if rnd is not None else res.sglang}")
        out = [f"**{_md(' · '.join(labels))}** ({self._badge_for(model, res)} {version})\n"]
        if res.rows:
            percentile = self.t(f"percentile.{res.latency_percentile or bench.latency_percentile}")
            out.append(f"| {self.th('table.isl')} | {self.th('table.osl')} | "
                       f"{self.th('table.concurrency')} | "
                       f"{self.th('table.ttft-pct', percentile=percentile)} | "
                       f"{self.th('table.tpot-pct', percentile=percentile)} | "
                       f"{self.th('table.throughput')} |")
            out.append("|---:|---:|---:|---:|---:|---:|")
            for row in res.rows:
                out.append(f"| {row.isl:,} | {row.osl:,} | {row.concurrency:,} | "
                           f"{_figure(row.written('ttft_ms'))} | "
                           f"{_figure(row.written('tpot_ms'))} | "
                           f"{_figure(row.written('tok_s_gpu'))} |")
            out.append("")
        if res.accuracy:
            out += [f"| {self.th('table.benchmark')} | {self.th('table.score')} |", "|---|---:|"]
            for item in res.accuracy:
                decl = bench.accuracy_benchmarks[item.benchmark]
                score = self.th(f"unit.{decl.unit}", score=_figure(item.written('score')))
                out.append(f"| {self.th(decl.label, model)} | {score} |")
            out.append("")
        if res.measured:
            out += self._measured_table(model, res)
        out += self._bench_commands(model, res)
        out += [f"!!! note \"\"\n\n    {_prose(self.t(note, model))}\n" for note in res.notes]
        return out

    def _measured_table(self, model, res) -> list[str]:
        """A result's measured rows as a table: what ran, then a column per metric any row
        gives, in the file's order, headed with its label, its unit and which way is better
        (an arrow, explained under the table); a value the row lacks is a dash."""
        metrics = model.benchmarks.metrics
        used = [m for m in metrics if any(m in row.values for row in res.measured)]
        head = [self.th("table.setup")]
        for m in used:
            unit = self.th(f"bench.unit.{metrics[m].unit}")
            head.append(f"{self.th(metrics[m].label, model)}{f' ({unit})' if unit else ''} "
                        f"{_BETTER[metrics[m].better]}")
        out = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * len(used)]
        for row in res.measured:
            cells = [_cell_text(self.t(row.text, model) if row.text else row.value)]
            for m in used:
                v = row.written(m)
                cells.append("—" if v is None else "–".join(map(_figure, v))
                             if isinstance(v, list) else _figure(v))
            out.append("| " + " | ".join(cells) + " |")
        ways = sorted({metrics[m].better for m in used}, reverse=True)  # lower first
        out += ["", " · ".join(f"{_BETTER[w]} {_md(self.t(f'bench.better.{w}'))}"
                               for w in ways), ""]
        return out

    def _bench_commands(self, model, res) -> list[str]:
        """What the run served, against the recipe command, then (collapsed) that command
        and each speed row's reproduce command, every one with the directive the docs
        tests check it by."""
        try:
            run = served.served(self.db, model, res)
        except (RecipeError, served.ServedError) as exc:
            raise MacroError(f"benchmarks: the result on {'/'.join(res.match.values())}: "
                             f"{exc}") from None
        errors = [d for d in run.command.diagnostics if d.severity.value == "error"]
        if errors:
            raise MacroError(f"benchmarks: the serve command of the result on "
                             f"{'/'.join(res.match.values())} fails its check: " +
                             "; ".join(render.diagnostic_text(self.db, model, d, "en")
                                       for d in errors))
        if run.refused:
            said = _prose(self.t("bench.serve.refused", release=run.command.sglang,
                                 flags=", ".join(run.refused)))
        elif run.changes:
            changes = "; ".join(f"+ {_code(c.now)}" if c.was is None
                                else f"{_code(c.was)} → {_code(c.now)}"
                                for c in run.changes)
            said = f"{_prose(self.t('bench.serve.changed'))} {changes}"
        else:
            said = _prose(self.t("bench.serve.same"))
        # labels, not fence titles: superfences ends a titled fence at a ``` inside it
        blocks = [f"*{_md(self.t('bench.serve'))}*", ""] if res.rows else []
        judged = self.db.serving(model).catalog.version if run.refused else None
        blocks += [_directive(model.id, run.command, release=judged), "",
                   _fence(render.command_text(self.db, model, run.command, self.lang))]
        release = f" sglang={res.sglang}" if res.sglang else ""
        for row, flags in zip(res.rows, served.reproduce(self.db, res, model.benchmarks,
                                                            run.command)):
            label = self.t("bench.reproduce", isl=f"{row.isl:,}", osl=f"{row.osl:,}",
                           concurrency=f"{row.concurrency:,}")
            blocks += ["", f"*{_md(label)}*", "", f"<!-- bench:{release} generated -->", "",
                       _fence(bench_serving.command_text(flags, bench_serving.program(
                           self.db.bench_releases, res.sglang)))]
        heading = self.t("bench.commands" if res.rows else "bench.serve")
        return [said, "", f'??? example "{_esc(heading)}"', "", _indent("\n".join(blocks)), ""]

    def _badge_for(self, model, res) -> str:
        cell = model.cell(res.match)
        return self._cell_badge(cell, model) if cell else ""

    def calculator_table(self, model_id: str, *dims, calculator: str | None = None,
                         **picks) -> str:
        """A calculator's value for the model's common request lengths (``calculator``: its
        id, needed when the model declares several)."""
        model = self.db.model(model_id)
        consts = self._calculator_of(model, calculator)
        res = self.resolve(model_id, *dims, **picks)
        reason = res.calculation(consts.id).reason
        if reason is not None:
            return f"*{_md(self.t(reason.id, model))}*"
        if model.info.request_length is None:  # a value that no request length moves
            value = of_command(consts, res.flags, res.env, res.pd, None)[1]
            return "\n".join([f"| {_code_cell(consts.pins)} |", "|---:|",
                              f"| {calc_fmt(value) if value else '—'} |"])
        rows = [f"| {self.th('table.avg_len')} | {_code_cell(consts.pins)} |", "|---:|---:|"]
        for length in model.info.request_length.common:
            value = of_command(consts, res.flags, res.env, res.pd, length)[1]
            rows.append(f"| {length:,} | {calc_fmt(value) if value else '—'} |")
        return "\n".join(rows)

    @staticmethod
    def _calculator_of(model, given: str | None):
        ids = [c.id for c in model.info.calculators]
        if not ids:
            raise MacroError(f"calculator_table: {model.id} declares no calculator")
        if given is None and len(ids) > 1:
            raise MacroError(f"calculator_table: {model.id} declares {len(ids)} calculators; "
                             f"name one with calculator=\"…\" (known: {', '.join(ids)})")
        calc = model.calculator(given if given is not None else ids[0])
        if calc is None:
            raise MacroError(f"calculator_table: {model.id} declares no calculator '{given}' "
                             f"(known: {', '.join(ids)})")
        return calc

    def scaling_table(self, model_id: str, axis: str, *dims, **picks) -> str:
        """How the command scales over the options of ``axis`` (e.g. the cluster size under a
        large-scale preset) on every platform: nodes per platform shape, and the TP/EP and DP
        sizes it sets. ``dims`` are the dimensions after the hardware."""
        model = self.db.model(model_id)
        if axis not in model.axis_index:
            raise MacroError(f"scaling_table: unknown axis '{axis}' (known: "
                             f"{', '.join(model.axis_index)})")
        groups: dict[int, list[str]] = {}
        for hw in model.info.hardware:
            try:
                self.resolve(model_id, hw, *dims, **picks)
            except MacroError:
                continue  # this platform has no such selection
            groups.setdefault(self.db.platforms[hw].gpus_per_node, []).append(hw)
        if not groups:
            raise MacroError(f"scaling_table: no platform offers {'/'.join(dims)} {picks}")
        shapes = sorted(groups.items(), reverse=True)
        head = [self.th("table.gpus")] + [
            f"{self.th('table.layout')} ({_cell_text('/'.join(self.db.platforms[h].label for h in hws))})"
            for _, hws in shapes] + [self.th("table.tp_ep"), self.th("table.dp")]
        rows = ["| " + " | ".join(head) + " |", "|" + "---:|" * len(head)]
        for option in model.axis_index[axis].options:
            results = [self.resolve(model_id, hws[0], *dims, **{**picks, axis: option.id})
                       for _, hws in shapes]
            flags = {f.name: f.value for f in results[0].flags}
            layout = [f"{r.nodes}×{per_node}" for r, (per_node, _) in zip(results, shapes)]
            sizes = [self.db.serving(model).catalog.role_value(flags, role) or "1"
                     for role in ("tensor-parallel", "data-parallel")]
            rows.append("| " + " | ".join([_cell_text(option.id), *layout,
                                           *map(_cell_text, sizes)]) + " |")
        return "\n".join(rows)

    def models(self) -> str:
        """Every model of the database with its summary, its platforms and how many of its
        cells are verified; links are relative to the docs root (the home page)."""
        rows = [f"| {self.th('table.model')} | {self.th('table.platforms')} | "
                f"{self.th('table.cells')} |", "|---|---|---:|"]
        for model_id, model in self.db.models.items():
            labels = ", ".join(self.db.platforms[h].label for h in model.info.hardware)
            verified = sum(c.status.value == "verified" for c in model.cells)
            count = self.t("ui.cells-verified", cells=str(len(model.cells)),
                           verified=str(verified))
            rows.append(f"| [{_cell_text(model.info.name)}](models/{model_id}.md): "
                        f"{_cell_text(self.t(model.info.summary, model))} | "
                        f"{_cell_text(labels)} | {_cell_text(count)} |")
        return "\n".join(rows)

    def about(self, model_id: str) -> str:
        """What the model is, in one paragraph: its facts (model.yaml ``about``) and the
        checkpoints its commands serve (every name of ``model_names``, in order)."""
        model = self.db.model(model_id)
        lines = []
        for fact in model.info.about:
            value = _prose(self.t(fact.text, model)) if fact.text else _inline(fact.value)
            lines.append(f"**{_inline(self.t(fact.label, model))}** {value}")
        names = list(dict.fromkeys(rule.name for rule in model.info.model_names))
        listed = ", ".join(_code(n) for n in names) if len(names) <= _CHECKPOINTS_LISTED else \
            _inline(self.t("about.checkpoints.many", count=str(len(names))))
        lines.append(f"**{_inline(self.t('about.checkpoints'))}** {listed}")
        return " · ".join(lines) + "\n{ .recipe-about }"

    def values(self, model_id: str) -> str:
        """The "Your values" panel: every placeholder the model's commands leave for the reader,
        what it stands for and, with JavaScript, a box that fills it into every command of the
        page (playground/values.js; kept in the browser). Folded; the table explains them without
        JavaScript."""
        from macros.engine.database import READER_TOKEN, reader_texts
        from macros.engine.schema import READER_KINDS

        model = self.db.model(model_id)
        used = {t for _, text in reader_texts(model) for t in re.findall(READER_TOKEN, text)}
        entries = [v for v in self.db.reader_values if used & set(v.tokens)]
        if not entries:
            raise MacroError(f"values: the commands of {model_id} leave nothing for the reader "
                             "to fill in (no <…> placeholder in model.yaml)")
        data = [{"id": v.id, "tokens": v.tokens, "pattern": READER_KINDS[v.kind],
                 "kind": self.t(f"values.kind.{v.kind}")} for v in entries]
        rows = [f"| {self.th('values.placeholder')} | {self.th('values.means')} | "
                f"{self.th('values.value')} |", "|---|---|---|"]
        for v in entries:
            rows.append(f"| {' '.join(_code(t) for t in v.tokens if t in used)} | "
                        f"{_prose(self.t(v.text)).replace('|', '&#124;')} | |")
        compact = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        return "\n".join([
            f'<details class="recipe-values" data-values="{_esc(compact)}" '
            f'data-invalid="{_esc(self.t("values.invalid"))}" '
            f'data-clear="{_esc(self.t("values.clear"))}" markdown="1">',
            f'<summary>{_esc(self.t("values.title"))}</summary>', "",
            _md(self.t("values.intro")), "", *rows, "", "</details>"])

    def status_badge(self, status: str, model_id: str | None = None) -> str:
        """A badge for a status by name (verified, in-progress, unverified); with ``model_id``
        its tooltip is that model's meaning of the status."""
        if status not in _STATUSES:
            raise MacroError(f"status_badge: '{status}' is not a status "
                             f"(known: {', '.join(_STATUSES)})")
        return self._badge(status, self.db.model(model_id) if model_id else None)

    def verify_report(self) -> str:
        """Every model's verified and in-progress cells with their records, stale ones first
        (``recipes verify-report``)."""
        return verification.as_markdown(self.db, self.lang, self._badge)

    def status_meanings(self) -> str:
        """What each status means, model by model: every status a model's cells carry (and
        "Derived from Verified" where it has a verified cell), each in that model's words."""
        rows = [f"| {self.th('table.model')} | {self.th('table.status')} | "
                f"{self.th('table.meaning')} |", "|---|---|---|"]
        for model in self.db.models.values():
            held = {c.status.value for c in model.cells}
            shown = [s for s in _STATUSES if s in held]
            if "verified" in held:
                shown.append("derived")
            for status in shown:
                rows.append(f"| {_cell_text(model.info.name)} | {self._badge(status, model)} | "
                            f"{_cell_text(render.status_title(self.db, status, self.lang, model))} |")
        return "\n".join(rows)

    def text(self, model_id: str, text_id: str) -> str:
        model = self.db.model(model_id)
        known = {**self.db.text[self.lang], **model.text[self.lang]}
        if text_id not in known:
            raise MacroError(f"text: {model_id} has no text '{text_id}' "
                             f"({choices_hint(str(text_id), sorted(known))})")
        return _prose(self.t(text_id, model))

    def playground(self, model_id: str) -> str:
        """Mount point of the Playground; the static matrix below it works without JS."""
        self.db.model(model_id)
        return (f'<div class="recipe-playground" data-model="{_esc(model_id)}" '
                f'data-lang="{_esc(self.lang)}" data-loading="{_esc(self.t("ui.loading"))}" '
                f'data-failed="{_esc(self.t("ui.load-failed"))}"></div>')


def _ordered_cells(model, hw: str):
    """A platform's cells in the order of the model's dimension options (not file order)."""
    order = {dim: {o: i for i, (o, _, _) in enumerate(opts)}
             for dim, opts in model.dimension_options.items()}
    cells = [c for c in model.cells if c.match["hw"] == hw]
    return sorted(cells, key=lambda c: [order[d][c.match[d]] for d in model.dimensions[1:]])


def cell_anchor(model, match: dict) -> str:
    return "cell-" + "-".join(model.key(match))


def _directive(model_id: str, res: Resolution, program: str = "server",
               release: str | None = None) -> str:
    """A check directive translators keep verbatim: the context of the block below it, and
    the release it is judged by (its own, or ``release``)."""
    context = [f"{k}={v}" for k, v in res.match.items()]
    context += [f"{k}={v}" for k, v in res.picks.items() if v is not None]
    if program == "server":
        context.append(f"sglang={release or res.sglang}")
    return f"<!-- check: model={model_id} {' '.join(context)} generated -->"


def _indent(text: str, by: str = "    ") -> str:
    return "\n".join(by + line if line.strip() else "" for line in text.splitlines())


# More checkpoints than this are counted, not listed, above the quick start (the Playground and
# every command name the one they serve).
_CHECKPOINTS_LISTED = 4
_STATUSES = ("verified", "in-progress", "unverified")

PAGE_MACROS = ("command", "router", "badge", "caveats", "effective", "matrix", "cells", "models",
               "benchmarks", "calculator_table", "scaling_table", "text", "playground", "status_badge",
               "status_meanings", "verify_report",
               "about", "values", "run_modes", "requests")

_STATEMENTS = {nodes.For: "for", nodes.If: "if", nodes.Assign: "set", nodes.AssignBlock: "set",
               nodes.Macro: "macro", nodes.CallBlock: "call", nodes.FilterBlock: "filter",
               nodes.With: "with", nodes.Include: "include", nodes.Import: "import",
               nodes.FromImport: "from", nodes.Extends: "extends", nodes.Block: "block",
               nodes.ExprStmt: "do", nodes.ScopedEvalContextModifier: "autoescape"}


def _describe(node: nodes.Node) -> str:
    for cls, tag in _STATEMENTS.items():
        if isinstance(node, cls):
            return f"'{{% {tag} %}}'"
    if isinstance(node, nodes.Call):
        return _describe(node.node)
    if isinstance(node, nodes.Getattr):
        return f"attribute access ('.{node.attr}')"
    if isinstance(node, nodes.Getitem):
        return "indexing ('[…]')"
    if isinstance(node, nodes.Filter):
        return f"a filter ('|{node.name}')"
    if isinstance(node, nodes.Test):
        return f"a test ('is {node.name}')"
    if isinstance(node, (nodes.BinExpr, nodes.UnaryExpr)):
        return f"the operator '{node.operator}'"
    return f"a {type(node).__name__} expression"


def _root_name(node: nodes.Node) -> str | None:
    while isinstance(node, (nodes.Call, nodes.Getattr, nodes.Getitem, nodes.Filter, nodes.Test)):
        node = node.node
    return node.name if isinstance(node, nodes.Name) else None


def _literal(node: nodes.Node) -> bool:
    """A plain constant a page may pass: text, a bool, None or a finite number (1e400 is
    infinity, which the compiled template cannot even spell)."""
    if isinstance(node, (nodes.Neg, nodes.Pos)):
        node = node.node
        if not isinstance(node, nodes.Const) or not isinstance(node.value, (int, float)):
            return False
    if not isinstance(node, nodes.Const):
        return False
    return not isinstance(node.value, float) or math.isfinite(node.value)


def _template_line(exc: BaseException) -> int | None:
    """The template line an error was raised from (Jinja maps its frames to the source)."""
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == "<template>":
            line = frame.lineno
    return line


class PageTemplates:
    """How the pages of one build are rendered: Markdown is a template for a sandbox that
    knows only the recipe macros and ``recipes_lang``, and may only call those macros with
    literal arguments (no attribute access, loops, filters or arithmetic: nothing a page could
    use to reach Python or to hang the build). The page's source is checked before it runs
    (``macros.i18n.contract.page_problems``) and the Markdown it produced after (the link and
    attribute rules, for what only the rendering shows). Errors name the page file and line."""

    def __init__(self, site: Site, root: Path, docs: Path, fallbacks: Collection[str] = ()):
        self.site, self.root, self.docs = site, root, docs
        self.fallbacks = fallbacks  # the pages this language publishes from the English folder
        self.macros = {name: getattr(site, name) for name in PAGE_MACROS}
        self.variables = {"recipes_lang": site.lang}
        self.sandbox = ImmutableSandboxedEnvironment(undefined=StrictUndefined)
        for table in (self.sandbox.globals, self.sandbox.filters, self.sandbox.tests):
            table.clear()
        self.sandbox.globals.update(self.macros, **self.variables)
        self.pending: list[str] = []  # what the page's source breaks, found before it ran
        self.source: str | None = None  # that page's source file, as read
        self.english: tuple[str, str] | None = None  # a translation's English page: text, name

    def page_name(self, page) -> str:
        path = page.file.abs_src_path or os.path.join(self.docs, page.file.src_uri)
        return Path(os.path.relpath(path, self.root)).as_posix()

    def _offset(self, page, markdown: str) -> int:
        """Lines of the source file before ``markdown`` (the front matter MkDocs took off)."""
        try:
            source = read_page(Path(page.file.abs_src_path), "")
        except (RecipeError, TypeError):
            return 0
        at = len(source) - len(markdown) if source.endswith(markdown) else source.find(markdown)
        return source.count("\n", 0, at) if at > 0 else 0

    def check_source(self, page) -> None:
        """Collect what the page's source file breaks (reported with the render's errors)."""
        from macros.i18n.pages import display
        from macros.i18n.contract import page_problems

        name = self.page_name(page)
        self.pending, self.source, self.english = [], None, None
        try:
            text = self.source = read_page(Path(page.file.abs_src_path), name)
            en_text = en_name = None
            en = self.docs.parent / "en" / page.file.src_uri
            if self.site.lang != "en" and page.file.src_uri not in self.fallbacks \
                    and en.is_file():
                en_name = display(en, self.docs.parent)
                en_text = read_page(en, en_name)
                self.english = (en_text, en_name)
            found = page_problems(text, name, en_text, en_name)
            self.pending = [str(Problem(f.file, f.line, f.col, f.message)) for f in found]
        except RecipeError as exc:
            self.pending = [str(p) for p in exc.problems]

    def page_done(self, uri: str | None = None) -> None:
        """Forget the models' memo tables (resolve.py, check.py): they serve the selections of
        one page, and a build goes on through every model's pages, so keeping them would grow
        with the catalogue. Kept: the tables of the model the page ``uri`` belongs to
        (``models/<id>.md``, ``models/<id>/…``), whose pages come one after the other."""
        parts = (uri or "").removesuffix(".md").split("/")
        keep = parts[1] if len(parts) > 1 and parts[0] == "models" else None
        for model_id, model in self.site.db.models.items():
            if model_id != keep:
                model.cache.clear()

    def check_rendered(self, page, markdown: str) -> None:
        """Refuse a link or attribute the rendered page would publish against the rules, for
        anything its source did not show (the source check ran first and names lines)."""
        from macros.i18n.contract import published_problems

        if self.source is None:
            return
        found = published_problems(markdown, self.source, self.page_name(page))
        if found:
            raise PluginError("\n".join(str(Problem(f.file, f.line, f.col, f.message))
                                        for f in found))

    def check_rendered_html(self, page, markdown: str) -> None:
        """Refuse raw HTML the rendered translation has that its English page, rendered by
        the same site, has not (``{% raw %}`` content included: the rendered page is what is
        published)."""
        from macros.i18n.contract import rendered_html_problems
        from macros.i18n.pages import split_front_matter

        if self.source is None or self.english is None:
            return
        en_text, en_name = self.english
        en_body = en_rendered = split_front_matter(en_text)[1]
        try:  # the English page's own build reports what breaks it; then its text is compared
            tree = self.sandbox.parse(en_body)
            if not self._refused(tree):
                en_rendered = self.sandbox.from_string(tree).render()  # the tree: not read again
        except Exception:  # noqa: BLE001
            pass
        found = rendered_html_problems(markdown, en_rendered, self.source,
                                       self.page_name(page), en_name)
        if found:
            raise PluginError("\n".join(str(Problem(f.file, f.line, f.col, f.message))
                                        for f in found))

    def _refused(self, ast: nodes.Template) -> list[tuple[int, str]]:
        out: list[tuple[int, str]] = []
        known_list = sorted(self.macros)
        known = ", ".join(known_list)

        def walk(node: nodes.Node) -> None:
            if isinstance(node, (nodes.Template, nodes.Output)):
                for child in node.iter_child_nodes():
                    walk(child)
            elif isinstance(node, (nodes.TemplateData, nodes.Const)):
                pass
            elif isinstance(node, nodes.Name) and node.name in self.variables:
                pass
            elif _root_name(node) not in (*self.macros, *self.variables, None):
                name = _root_name(node)
                hint = choices_hint(name, known_list, len(known_list))
                out.append((node.lineno, f"'{name}' is undefined (a page may call the recipe "
                                         f"macros only; {hint})"))
            elif isinstance(node, nodes.Call) and isinstance(node.node, nodes.Name) \
                    and node.node.name in self.macros:
                args = [*node.args, *(k.value for k in node.kwargs)]
                if node.dyn_args or node.dyn_kwargs or not all(_literal(a) for a in args):
                    out.append((node.lineno, f"{node.node.name}(): every argument must be a "
                                             "literal string, number or true/false"))
            else:
                out.append((node.lineno, f"{_describe(node)} is not allowed in a page: a page "
                                         f"may only call the recipe macros ({known}) with "
                                         "literal arguments"))
        walk(ast)
        return out

    def _at(self, page, markdown: str):
        """How a problem at a line of ``markdown`` is named: the page's file and source line."""
        name, offset = self.page_name(page), self._offset(page, markdown)

        def at(line: int | None, what: str) -> str:
            return f"{name}:{line + offset}: {what}" if line else f"{name}: {what}"
        return at

    def _parsed(self, markdown: str, at) -> tuple[object | None, list[str]]:
        """The page's template tree (None when it does not parse) and what the sandbox refuses
        in it, each named by ``at``."""
        try:
            ast = self.sandbox.parse(markdown)
        except TemplateSyntaxError as exc:
            return None, [at(exc.lineno, exc.message or "template syntax error")]
        return ast, [at(line, what) for line, what in self._refused(ast)]

    def source_problems(self, page, markdown: str) -> list[str]:
        """What the page breaks before anything is rendered: its source against the contract
        (``check_source``) and its template against the sandbox, as ``render`` reports them
        (render reports these too, with what rendering finds)."""
        self.check_source(page)
        problems, self.pending = self.pending, []
        self.source = self.english = None
        return list(dict.fromkeys(problems + self._parsed(markdown, self._at(page, markdown))[1]))

    def render(self, env, markdown: str) -> str:
        """The page ``env.page``'s Markdown with its macros rendered."""
        page = env.page
        at = self._at(page, markdown)
        problems, self.pending = self.pending, []
        ast, refused = self._parsed(markdown, at)
        problems += refused
        rendered = markdown
        if ast is not None and not refused:
            try:
                rendered = self.sandbox.from_string(ast).render()  # the tree: not read again
            except (MacroError, RecipeError, TemplateError) as exc:
                problems.append(at(_template_line(exc), str(exc)))
            except Exception as exc:  # a bug in a macro: still name the page and line
                problems.append(at(_template_line(exc), f"{type(exc).__name__}: {exc}"))
        if problems:
            raise PluginError("\n".join(dict.fromkeys(problems)))
        return rendered


__all__ = ["Site", "PageTemplates", "cell_anchor", "MacroError"]
