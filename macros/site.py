"""The mkdocs-macros side: macros that render database content into a page's language.

Owns ``define_env`` (registers the macros; the database is loaded once per process), the
Markdown each macro returns, and the build-time notices for missing and outdated
translations. Every command a page shows comes from ``resolve`` through ``render``; a macro
whose command has an error finding fails the build. Must not write into docs/ or recipes/.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from . import calculator, render
from .database import Database, cached_database
from .errors import RecipeError
from .resolve import Resolution, resolve


class MacroError(Exception):
    """A macro was called with arguments that do not name a real selection."""


def _esc(text: str) -> str:
    """Text from the database placed in Markdown/HTML: inert, never markup."""
    return html.escape(str(text), quote=True)


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+!|~])")


def _md(text: str) -> str:
    """Reader text placed in Markdown: no HTML, no Markdown syntax (links, emphasis …)."""
    return _MD_SPECIAL.sub(r"\\\1", _esc(str(text)))


def _cell_text(text: str) -> str:
    """Inert text that also cannot break a Markdown table cell."""
    return _md(text).replace("\n", " ")


_CODE_WORD = re.compile(r"(--[a-z0-9][a-z0-9-]*|[A-Z][A-Z0-9]*_[A-Z0-9_]+(?:=[\w.:-]+)?)")


def _prose(text: str) -> str:
    """Inert reader text with flags and env vars set as inline code."""
    parts = _CODE_WORD.split(str(text))
    return "".join(f"`{p}`" if i % 2 else _md(p) for i, p in enumerate(parts))


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

    # -- helpers
    def t(self, text_id: str, model=None, **fields) -> str:
        return self.db.t(self.lang, text_id, model, **fields)

    def resolve(self, model_id: str, hw: str, role: str, strategy: str, **picks) -> Resolution:
        avg_len = picks.pop("avg_len", None)
        try:
            res = resolve(self.db, model_id, hw, role, strategy,
                          {k: str(v) for k, v in picks.items()}, avg_len)
        except RecipeError as exc:
            raise MacroError(f"{model_id} {hw}/{role}/{strategy} {picks}: {exc}") from None
        errors = [d for d in res.diagnostics if d.severity.value == "error"]
        if errors:
            model = self.db.model(model_id)
            raise MacroError(f"generated command for {hw}/{role}/{strategy} {picks} fails its "
                             "check: " + "; ".join(render.diagnostic_text(self.db, model, d, "en")
                                                    for d in errors))
        return res

    # -- macros
    def command(self, model_id: str, hw: str, role: str, strategy: str, router: bool = True,
                title: str | None = None, **picks) -> str:
        """The server command (and the router for PD roles) as fenced bash blocks."""
        res = self.resolve(model_id, hw, role, strategy, **picks)
        model = self.db.model(model_id)
        directive = _directive(model_id, res)
        attrs = f'title="{_esc(title)}"' if title else ""
        parts = [directive, "", _fence(render.command_text(self.db, model, res, self.lang),
                                       attrs=attrs)]
        router_text = render.router_text(res)
        if router and router_text:
            parts += ["", f"**{_md(self.t('ui.router'))}**", "",
                      _directive(model_id, res, program="router"), "", _fence(router_text)]
        return "\n".join(parts)

    def router(self, model_id: str) -> str:
        model = self.db.model(model_id)
        cell = next(c for c in model.cells if c.match.role == "decode")
        res = self.resolve(model_id, cell.match.hw, "decode", cell.match.strategy)
        return "\n".join([_directive(model_id, res, program="router"), "",
                          _fence(render.router_text(res))])

    def badge(self, model_id: str, hw: str, role: str, strategy: str) -> str:
        model = self.db.model(model_id)
        cell = model.cell(hw, role, strategy)
        if cell is None:
            known = ", ".join("/".join(k) for k in model.cell_index if k[0] == hw) or \
                ", ".join(model.info.hardware)
            raise MacroError(f"badge: {model_id} has no cell {hw}/{role}/{strategy} "
                             f"(cells on {hw}: {known})")
        return self._badge(cell.status.value)

    def _badge(self, status: str) -> str:
        label = render.status_label(self.db, status, self.lang)
        title = render.status_title(self.db, status, self.lang)
        return (f'<span class="recipe-badge recipe-badge--{_esc(status)}" '
                f'title="{_esc(title)}">{_esc(label)}</span>')

    def caveats(self, model_id: str, hw: str, role: str, strategy: str,
                diagnostics: bool = True, **picks) -> str:
        """Caveats (redirect, warning, pins with reasons, calculator) and rule warnings."""
        res = self.resolve(model_id, hw, role, strategy, **picks)
        model = self.db.model(model_id)
        blocks = []
        for c in res.caveats:
            kind = {"redirect": "info", "warn": "warning", "pin": "note",
                    "calculator": "info"}.get(c.kind, "note")
            body = render.text(self.db, model, c.text, self.lang)
            title = _esc(c.flag) if c.flag else _esc(self.t("ui.caveats"))  # HTML attribute-like
            blocks.append(f'!!! {kind} "{title}"\n\n    {_prose(body)}\n')
        if diagnostics:
            for d in res.diagnostics:
                if d.severity.value == "warning" and not d.rule.startswith("catalog."):
                    body = render.diagnostic_text(self.db, model, d, self.lang)
                    blocks.append(f'!!! warning "{_esc(self.t("ui.diagnostics"))}"\n\n'
                                  f'    {_prose(body)}\n')
        return "\n".join(blocks)

    def effective(self, model_id: str, hw: str, role: str, strategy: str, **picks) -> str:
        res = self.resolve(model_id, hw, role, strategy, **picks)
        model = self.db.model(model_id)
        rows = [f"| {self.t('table.knob')} | {self.t('table.value')} | {self.t('table.source')} "
                f"| {self.t('table.why')} |", "|---|---|---|---|"]
        for e in res.effective:
            value = f"`{_cell_text(e.value)}`" if e.value is not None \
                else f"*{_cell_text(self.t(e.value_text, model))}*"
            why = self.t(e.because, model) if e.because else ""
            flag = f" (`{e.flag}`)" if e.flag else ""
            rows.append(f"| {_cell_text(self.t(e.label, model))}{flag} | {value} | "
                        f"{_cell_text(self.t('source.' + e.source.value))} | "
                        f"{_prose(why).replace('|', '&#124;')} |")
        return "\n".join(rows)

    def matrix(self, model_id: str) -> str:
        """Hardware × role × strategy with nodes and status; each links to its command."""
        model = self.db.model(model_id)
        head = [self.t("table.hardware"), self.t("table.role"), self.t("table.strategy"),
                self.t("table.nodes"), self.t("table.status")]
        rows = ["| " + " | ".join(head) + " |", "|---|---|---|---|---|"]
        for hw in model.info.hardware:
            p = self.db.platforms[hw]
            for cell in (c for c in model.cells if c.match.hw == hw):
                m = cell.match
                role = self.t(next(r for r in model.info.roles if r.id == m.role).label, model)
                strategy = self.t(next(s for s in model.info.strategies
                                       if s.id == m.strategy).label, model)
                gpus = f"{cell.nodes}×{p.gpus_per_node}"
                rows.append(f"| {_cell_text(p.label)} | {_cell_text(role)} | "
                            f"[{_cell_text(strategy)}](#{cell_anchor(m.hw, m.role, m.strategy)}) | "
                            f"{gpus} | {self._badge(cell.status.value)} |")
        return "\n".join(rows)

    def cells(self, model_id: str, **picks) -> str:
        """Every cell's command, grouped by hardware in content tabs (no JavaScript needed)."""
        model = self.db.model(model_id)
        out = []
        for hw in model.info.hardware:
            p = self.db.platforms[hw]
            out.append(f'=== "{_esc(p.label)}"\n')  # a tab title is plain text
            for cell in (c for c in model.cells if c.match.hw == hw):
                m = cell.match
                role = self.t(next(r for r in model.info.roles if r.id == m.role).label, model)
                strategy = self.t(next(s for s in model.info.strategies
                                       if s.id == m.strategy).label, model)
                anchor = cell_anchor(m.hw, m.role, m.strategy)
                body = [f"#### {_md(p.label)} · {_md(role)} · {_md(strategy)} "
                        f"{self._badge(cell.status.value)} {{ #{anchor} }}", "",
                        self.command(model_id, m.hw, m.role, m.strategy, **picks), "",
                        self.caveats(model_id, m.hw, m.role, m.strategy, diagnostics=False,
                                     **picks), ""]
                out.append(_indent("\n".join(body)))
        return "\n".join(out)

    def benchmarks(self, model_id: str) -> str:
        model = self.db.model(model_id)
        if model.benchmarks is None:
            return ""
        out = []
        for rnd in model.info.rounds:
            results = [r for r in model.benchmarks.results if r.round == rnd.id]
            if not results:
                continue
            for res in results:
                m = res.match
                p = self.db.platforms[m["hw"]]
                role = self.t(f"role.{m['role']}", model)
                strategy = self.t(f"strategy.{m['strategy']}", model)
                quant = m.get("quant", "mxfp4").upper()
                spec = self.t(f"opt.spec.{m.get('spec', 'none')}", model)
                out.append(f"**{_md(p.label)} · {_md(role)} · {_md(strategy)} · {_md(quant)}"
                           f" · {_md(spec)}** ({self._badge_for(model, m)} "
                           f"SGLang {_md(rnd.version)})\n")
                out.append(f"| {self.t('table.isl')} | {self.t('table.osl')} | "
                           f"{self.t('table.concurrency')} | {self.t('table.ttft')} | "
                           f"{self.t('table.tpot')} | {self.t('table.throughput')} |")
                out.append("|---:|---:|---:|---:|---:|---:|")
                for row in res.rows:
                    out.append(f"| {row.isl:,} | {row.osl:,} | {row.concurrency:,} | "
                               f"{row.ttft_ms:,g} | {row.tpot_ms:g} | {row.tok_s_gpu:,g} |")
                out.append("")
            for note in rnd.notes:
                out.append(f"!!! note \"\"\n\n    {_prose(self.t(note, model))}\n")
        return "\n".join(out)

    def _badge_for(self, model, match: dict) -> str:
        cell = model.cell(match["hw"], match["role"], match["strategy"])
        return self._badge(cell.status.value) if cell else ""

    def ratio_table(self, model_id: str, hw: str, role: str, strategy: str, **picks) -> str:
        res = self.resolve(model_id, hw, role, strategy, **picks)
        model = self.db.model(model_id)
        if res.calculator is not None:
            return f"*{_md(self.t(res.calculator.id, model))}*"
        consts = model.info.calculator
        flags = {f.name: f.values for f in res.flags if f.name != "--mamba-full-memory-ratio"}
        inputs = calculator.read_inputs(flags, dict(e.split("=", 1) for e in res.env),
                                        res.role, consts)
        rows = [f"| {self.t('table.avg_len')} | `{self.t('table.ratio')}` |", "|---:|---:|"]
        for length in consts.common_lengths:
            value = calculator.ratio(inputs, length, consts)
            rows.append(f"| {length:,} | {calculator.fmt(value) if value else '—'} |")
        return "\n".join(rows)

    def preset_table(self, model_id: str) -> str:
        model = self.db.model(model_id)
        axis = model.axis_index["cluster"]
        eight = [h for h in model.info.hardware if self.db.platforms[h].arch == "blackwell"
                 and self.db.platforms[h].gpus_per_node == 8]
        four = [h for h in model.info.hardware if self.db.platforms[h].arch == "blackwell"
                and self.db.platforms[h].gpus_per_node == 4]
        l8 = _cell_text("/".join(self.db.platforms[h].label for h in eight))
        l4 = _cell_text("/".join(self.db.platforms[h].label for h in four))
        rows = [f"| {self.t('table.gpus')} | {self.t('table.layout')} ({l8}) | "
                f"{self.t('table.layout')} ({l4}) | {self.t('table.tp_ep')} | {self.t('table.dp')} |",
                "|---:|---:|---:|---:|---:|"]
        for option in axis.options:
            n = int(option.id)
            a = self.resolve(model_id, eight[0], "unified", "balanced", preset="serving",
                             cluster=option.id, spec="none")
            b = self.resolve(model_id, four[0], "unified", "balanced", preset="serving",
                             cluster=option.id, spec="none")
            tp = next(f.value for f in a.flags if f.name == "--tp-size")
            dp = next((f.value for f in a.flags if f.name == "--dp-size"), "1")
            rows.append(f"| {n} | {a.nodes}×8 | {b.nodes}×4 | {tp} | {dp} |")
        return "\n".join(rows)

    def status_badge(self, status: str) -> str:
        """A badge for a status by name (verified, in-progress, unverified)."""
        if status not in ("verified", "in-progress", "unverified"):
            raise MacroError(f"status_badge: '{status}' is not a status "
                             "(known: verified, in-progress, unverified)")
        return self._badge(status)

    def text(self, model_id: str, text_id: str) -> str:
        return _prose(self.t(text_id, self.db.model(model_id)))

    def playground(self, model_id: str) -> str:
        """Mount point of the Playground; the static matrix below it works without JS."""
        self.db.model(model_id)
        return (f'<div class="recipe-playground" data-model="{_esc(model_id)}" '
                f'data-lang="{_esc(self.lang)}" data-loading="{_esc(self.t("ui.loading"))}" '
                f'data-failed="{_esc(self.t("ui.load-failed"))}"></div>')


def cell_anchor(hw: str, role: str, strategy: str) -> str:
    return f"cell-{hw}-{role}-{strategy}"


def _directive(model_id: str, res: Resolution, program: str = "server") -> str:
    """A check directive translators keep verbatim: the context of the block below it."""
    picks = " ".join(f"{k}={v}" for k, v in res.picks.items() if v is not None)
    return (f"<!-- check: model={model_id} hw={res.hw} role={res.role} "
            f"strategy={res.strategy} {picks} generated -->")


def _indent(text: str, by: str = "    ") -> str:
    return "\n".join(by + line if line.strip() else "" for line in text.splitlines())


def define_env(env) -> None:
    """mkdocs-macros entry point."""
    lang = env.conf["extra"].get("recipes_lang") or env.conf["theme"]["language"]
    site = Site(cached_database(), lang)
    for name in ("command", "router", "badge", "caveats", "effective", "matrix", "cells",
                 "benchmarks", "ratio_table", "preset_table", "text", "playground",
                 "status_badge"):
        env.macro(getattr(site, name), name)
    env.variables["recipes_lang"] = lang


def on_pre_page_macros(env) -> None:
    """Inject the translation notices (never stored in the translated files)."""
    from .i18n import notice_for

    lang = env.conf["extra"].get("recipes_lang") or env.conf["theme"]["language"]
    if lang == "en":
        return
    note = notice_for(env.page, Path(env.conf["docs_dir"]), lang)
    if note:
        env.markdown = note + "\n\n" + env.markdown


__all__ = ["Site", "define_env", "on_pre_page_macros", "cell_anchor", "MacroError", "re"]
