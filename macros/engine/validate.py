"""Cross-file checks of one model: every reference between its files, every condition and
template against the model's vocabulary, every flag against the catalogs, each at its place.

Owns ``Validator`` (run once per model by ``database.load_database``, after each file parsed
against its schema) and the dry context a check evaluates conditions in (one cell known, the
picks and the command not). Must not read files: the loader hands over the parsed documents
with their positions (``yamlfile.Marked``).

Size: one class, ``Validator``, whose checks all read the model's vocabulary (axes, options,
flags, texts, releases) built once per model; split by file, each part would rebuild that
vocabulary or be handed it whole.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from functools import cached_property
from typing import Any

from macros.engine import bench_serving, condition_check, conditions, templates
from macros.engine.catalog import Catalog, FlagSpec, value_problem
from macros.engine.model import (EXPORTED_TEXT_ID, HINT_FIELDS, LANGS, RESERVED_KEYS, Model, _flag_problem,
                       branch_value_problem, likely_typo)
from macros.engine.errors import choices_hint
from macros.engine.docker import compose_problem, option_problem, read as read_options
from macros.engine.flags import Flag, parse_flag_text
from macros.engine.releases import Releases
from macros.engine.schema import BranchValue, Cell, Platform, Status, constant_problem


_RELEASE = re.compile(r"(?<![\w.])v?(\d+\.\d+\.\d+(?:\.post\d+)?)(?![\w.])")


def _release_named(version_text: str, releases) -> str | None:
    """The release a round's version text names ("v0.5.18 @ 71de97b2" names 0.5.18), if it
    is one of ``releases``; None for a build between releases ("main @ 273d978bed")."""
    m = _RELEASE.search(version_text)
    return m.group(1) if m and m.group(1) in releases else None


def _shown(number: float) -> str:
    """A constant as written: 128 rather than 128.0, 1e+308 rather than 309 digits."""
    return str(int(number)) if number.is_integer() and abs(number) < 1e15 else repr(number)


def _is_int(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True


class _DryContext:
    """A condition's context at load: one cell (its platform, role, strategy and flags) is
    known; the picks, the command's flags and env are not. Without a cell only one fact is
    known, that calculator ``idle`` does not apply, so a rule that needs it can be told apart."""

    def __init__(self, cell: Cell | None = None, platform: Platform | None = None,
                 cell_flags: dict[str, tuple[str, ...]] | None = None, idle: str = ""):
        self.cell, self.platform, self._cell_flags = cell, platform, cell_flags
        self.idle = idle

    def value(self, key: str) -> Any:
        if self.cell is None:
            return "not_applicable" if key == f"calculator.{self.idle}" else None
        if key in self.cell.match:
            return self.cell.match[key]
        if key.startswith("hw."):
            return conditions.attr(self.platform, key[3:])
        if key.startswith("cell."):
            return conditions.attr(self.cell, key[5:])
        return None

    def flags(self) -> None:
        return None

    def cell_flags(self) -> dict[str, tuple[str, ...]] | None:
        return self._cell_flags

    def env(self) -> None:
        return None


class Validator:
    """Cross-file checks for one model; every finding points into the file that is wrong."""

    def __init__(self, out, model: Model, docs, platforms, catalog, router, releases,
                 bench_releases: bench_serving.BenchReleases | None = None, containers=None):
        self.out, self.m, self.docs = out, model, docs
        self.containers = containers  # hardware.yaml's, for the images' docker options
        self.platforms, self.catalog, self.router = platforms, catalog, router
        self.releases: Releases = releases
        self.bench_releases = bench_releases  # needed by run(), not by the vocabulary
        self.text_used: set[str] = set()
        self.reported: set[str] = set()

    def run(self) -> None:
        m = self.m
        self._model_file()
        self._branch_env()
        self._branch_values()
        self._axes()
        self._cells()
        self._option_templates()
        self._rules()
        self._benchmarks()
        m.axis_index = {a.id: a for a in m.axes}

    # -- helpers
    def axis_place(self, ai: int) -> tuple[str, tuple]:
        """The file and path of the model's axis ``ai``: overlays.yaml's axes come first, then
        playground.yaml's (by position: an id may be declared twice)."""
        first = len(self.m.overlay_ids)
        return ("overlays", ("axes", ai)) if ai < first else ("playground", ("axes", ai - first))

    def text(self, doc: str, path: tuple, text_id: str | None) -> None:
        if text_id is None:
            return
        self.text_used.add(text_id)
        if not EXPORTED_TEXT_ID.match(text_id):
            self.out.add(self.docs[doc], path, f"text id '{text_id}' must be a kind and a name "
                         "joined by '.' or '-', e.g. 'role.unified' (the Playground looks "
                         "texts up by such ids)")
            return
        missing = [lang for lang in LANGS if text_id not in self.m.text[lang]]
        if len(missing) == len(LANGS):
            self.out.add(self.docs[doc], path, f"unknown text id '{text_id}' "
                         f"({choices_hint(text_id, self.m.text['en'])})")
        elif missing and text_id not in self.reported:
            self.reported.add(text_id)  # once per id; the text file names it too
            name = {"en": "English", "ko": "Korean"}[missing[0]]
            folder = self.docs["model"].file.rsplit("/", 1)[0]
            self.out.add(self.docs[doc], path, f"text id '{text_id}' has no {name} text "
                         f"(add it to {folder}/text.{missing[0]}.yaml)")

    def flag_name(self, doc: str, path: tuple, name: str, catalog: Catalog | None = None) -> None:
        catalog = catalog or self.catalog
        if catalog.lookup(name).kind not in ("exact", "negated"):
            self.out.add(self.docs[doc], path, _flag_problem(name, catalog))

    def flag_text(self, doc: str, path: tuple, text: str, *, one: bool = True,
                  catalog: Catalog | None = None) -> list[Flag]:
        try:
            flags = parse_flag_text(text)
        except ValueError as exc:
            self.out.add(self.docs[doc], path, f"cannot read flag '{text}': {exc}")
            return []
        if one and len(flags) != 1:
            self.out.add(self.docs[doc], path, f"'{text}' holds {len(flags)} flags; write one "
                         "flag per list entry")
        catalog = catalog or self.catalog
        for f in flags:
            self.flag_name(doc, path, f.name, catalog)
            spec = catalog.lookup(f.name).spec
            if spec is not None and not templates.TEMPLATE.search(" ".join(f.values)):
                bad = self.value_problem(spec, f.values, catalog)
                if bad:
                    self.out.add(self.docs[doc], path, bad)
        return flags

    def value_problem(self, spec: FlagSpec, values: tuple[str, ...],
                      catalog: Catalog | None = None) -> str | None:
        """The catalog's verdict on a flag's values, with this model's branch values accepted
        (they extend the server catalog only)."""
        if (catalog or self.catalog) is not self.catalog:
            return value_problem(spec, values)
        return branch_value_problem(spec, values, self.m.info.branch_values)

    def option_of(self, doc: str, path: tuple, axis_id: str, option: str) -> None:
        choices = self.axis_options(axis_id)
        if choices is None:
            self.out.add(self.docs[doc], path, f"unknown axis '{axis_id}' "
                         f"({choices_hint(axis_id, self.axis_ids())})")
        elif str(option) not in choices:
            self.out.add(self.docs[doc], path, f"axis '{axis_id}' has no option '{option}' "
                         f"({choices_hint(str(option), choices)})")

    def axis_ids(self) -> list[str]:
        return list(self.m.dimensions) + [a.id for a in self.m.axes]

    def axis_options(self, axis_id: str) -> list[str] | None:
        options = self.m.dimension_options.get(axis_id)
        if options is not None:
            return [o for o, _, _ in options]
        for a in self.m.axes:
            if a.id == axis_id:
                return [o.id for o in a.options]
        return None

    def condition(self, doc: str, path: tuple, cond: conditions.Node) -> bool:
        """Report every problem of one ``when`` mapping; True when it has none."""
        found = condition_check.check(cond, self.vocabulary)
        for rel, message in found:
            self.out.add(self.docs[doc], path + rel, message)
        return not found

    @cached_property
    def vocabulary(self) -> condition_check.Vocabulary:
        """Every context key a condition may read, with the values it can take: the options
        of each axis, the values the platform catalog has for each hw attribute, and the
        fixed keys of the engine."""
        D = condition_check.Domain
        keys = {a: D(f"axis '{a}'", tuple(self.axis_options(a)), noun="option")
                for a in self.axis_ids()}
        platforms = list(self.platforms.values())
        for name in Platform.model_fields:
            values = tuple(dict.fromkeys(conditions.attr(p, name) for p in platforms))
            keys[f"hw.{name}"] = D(f"hw.{name}", values or None, note="a platform without "
                                   "the attribute reads as ''" if "" in values else "")
        keys["cell.collapse_pp"] = D("cell.collapse_pp", (True, False))
        keys["cell.nodes"] = D("cell.nodes", number=True, whole=True, low=1)
        keys["cell.status"] = D("cell.status", tuple(s.value for s in Status))
        keys["nodes"] = D("nodes", number=True, whole=True, low=1)
        for c in self.m.info.calculators:
            keys[f"calculator.{c.id}"] = D(f"calculator.{c.id}", ("applicable", "not_applicable"))
        keys["program"] = D("program", ("server", "router"))
        for port in ("router_bootstrap", "server_bootstrap"):
            keys[port] = D(port, number=True, whole=True, low=1, high=65535)
        return condition_check.Vocabulary(keys, self.flag_domain)

    def flag_domain(self, name: str, of_cell: bool) -> condition_check.Domain | str:
        """The values a condition sees for flag ``name`` (its first value; a flag without a
        value reads as 'true'), or why the name is wrong. Cells hold server flags only."""
        catalogs = (self.catalog,) if of_cell else (self.catalog, self.router)
        hit = next((h for c in catalogs if (h := c.lookup(name)).kind in ("exact", "negated")),
                   None)
        spec = hit.spec if hit is not None else None
        if spec is None:
            return _flag_problem(name, self.catalog)
        D, what = condition_check.Domain, f"flag '{name}'"
        if not spec.takes_value or hit.kind == "negated":
            return D(what, ("true",), note="a flag without a value reads as 'true'; test that it "
                     "is absent with 'lacks'")
        added = tuple(self.m.info.branch_values.get(name, {})) \
            if spec is self.catalog.flags.get(name) else ()
        if spec.choices:
            return D(what, spec.choices + added, noun="choice")
        if spec.late_choices:
            return D(what, spec.late_choices + added, noun="choice", fold=True)
        if spec.type in ("int", "float"):
            return D(what, number=True, whole=spec.type == "int")
        return D(what)

    def cells_for(self, when: conditions.Node | None) -> list[tuple[Cell, dict[str, tuple[str, ...]]]]:
        """The cells (with their flags) a rule with this valid ``when`` can fire on; every
        cell for None."""
        m = self.m
        cells = [(c, {f.name: f.values for f in fl}) for c, fl in zip(m.cells, m.cell_flags)
                 if c.match["hw"] in self.platforms]
        if when is None:
            return cells
        return [(c, fl) for c, fl in cells
                if when.holds(_DryContext(c, self.platforms[c.match["hw"]], fl)) is not False]

    def template_names(self, when: conditions.Node | None):
        """What each ``{name}`` can be worth where a rule with this ``when`` runs: the cells
        (and so the platforms) it can fire on, and which calculators surely apply.
        ``when`` None: the condition did not validate, so nothing is narrowed or demanded."""
        m = self.m
        cells = self.cells_for(when)
        calculators = [c.id for c in m.info.calculators]

        def applies(calc_id: str) -> bool:  # the rule holds only where the calculator applies
            return when is None or when.holds(_DryContext(idle=calc_id)) is False
        hws = [h for h in m.info.hardware if any(c.match["hw"] == h for c, _ in cells)]
        axes = {a.id: a for a in m.axes}
        ports = m.info.pd.ports if m.info.pd else {}
        Known = templates.Known

        def names(name: str) -> templates.Known | str:
            if name == "nodes":
                return Known(low=1, whole=True)
            head, _, rest = name.partition(".")
            if head == "calc":
                if rest not in calculators:
                    known = choices_hint(rest, calculators) if calculators \
                        else "the model declares none"
                    return f"unknown calculator '{rest}' in '{{{name}}}' ({known})"
                return Known(low=0) if applies(rest) else (
                    f"'{{{name}}}' has a value only where the calculator applies; add "
                    f"'calculator.{rest}: applicable' to this rule's when")
            if head == "sel":
                if rest not in axes:
                    return f"unknown axis '{rest}' in '{{{name}}}' ({choices_hint(rest, axes)})"
                return Known(tuple(o.id for o in axes[rest].options))
            if head == "hw":
                if rest not in Platform.model_fields:
                    return (f"unknown hardware attribute '{rest}' in '{{{name}}}' "
                            f"({choices_hint(rest, list(Platform.model_fields))})")
                values = {h: conditions.attr(self.platforms[h], rest) for h in hws}
                missing = [h for h, v in values.items() if v == ""]
                return Known(tuple(dict.fromkeys(v for v in values.values() if v != "")),
                             missing=f"on {', '.join(missing)}" if missing else "")
            if name.startswith("pd.ports."):
                port = name[len("pd.ports."):]
                if port not in ports:
                    return f"unknown port '{port}' in '{{{name}}}' ({choices_hint(port, ports)})"
                return Known((ports[port],))
            if head == "cell" and rest.endswith("_size"):
                flag = "--" + rest.replace("_", "-")
                spec = self.catalog.flags.get(flag)
                if spec is None or spec.type != "int":
                    return (f"'{{{name}}}' reads flag '{flag}' of the cell, which is not an "
                            f"integer flag of the {self.catalog.package} catalog")
                if self.cell_problems:  # the cells' own errors say it; no follow-on errors here
                    return Known(low=1, whole=True)
                given = [fl.get(flag) for _, fl in cells]  # a cell without the flag reads 1
                # a value that is no integer is the cell's own error, reported with the cells
                return Known(tuple(sorted({int(v[0]) if v else 1 for v in given
                                           if not v or _is_int(v[0])})))
            return (f"unknown name '{name}' in a template (known: nodes, calc.<calculator>, sel.<axis>, "
                    "hw.<attribute>, pd.ports.<name>, cell.<flag>_size)")
        return names

    def template(self, doc: str, path: tuple, text: str, names) -> templates.DryFill | None:
        """Check the ``{expression}``s of a text the engine fills; None when it has none."""
        if "{" not in text and "}" not in text:
            return None
        dry = templates.dry_fill(text, names)
        for problem in dry.problems:
            self.out.add(self.docs[doc], path, problem)
        return dry

    def flag_template(self, doc: str, path: tuple, text: str, names) -> None:
        """A flag entry with templates, checked with every value its templates can give."""
        dry = self.template(doc, path, text, names)
        if dry is None or dry.problems:
            return
        for filled in dry.texts:
            try:
                flags = parse_flag_text(filled)
            except ValueError as exc:
                self.out.add(self.docs[doc], path, f"'{text}' can give '{filled}', which "
                             f"cannot be read: {exc}")
                return
            for f in flags:
                spec = self.catalog.lookup(f.name).spec
                bad = self.value_problem(spec, f.values) if spec is not None else None
                if bad:
                    self.out.add(self.docs[doc], path, f"'{text}' can give '{filled}': {bad}")
                    return

    def node_template(self, doc: str, path: tuple, text: str, names) -> None:
        """A transform's node count: one template that gives whole numbers ≥ 1 only."""
        if not templates.TEMPLATE.fullmatch(text.strip()):
            self.out.add(self.docs[doc], path, "'nodes' is a node count written as one "
                         "{expression}, e.g. '{sel.cluster // hw.gpus_per_node}' "
                         f"(got '{text}')")
            return
        dry = self.template(doc, path, text.strip(), names)
        if dry is None or dry.problems:
            return
        span = dry.spans[0]
        if span is None or not span.whole or span.low < 1:
            bad = [t for t in dry.texts if not (_is_int(t) and int(t) >= 1)] or dry.texts
            self.out.add(self.docs[doc], path, f"'{text}' must give a whole number of nodes "
                         f"≥ 1, but it can give '{bad[0]}'")

    def env_entry(self, doc: str, path: tuple, entry: str) -> None:
        name, eq, value = entry.partition("=")
        if not eq or not conditions.ENV_NAME.match(name):
            self.out.add(self.docs[doc], path, f"env entry '{entry}' is not NAME=VALUE")
        elif set("{}") & set(templates.PLACEHOLDER.sub("", value)):
            self.out.add(self.docs[doc], path, f"env entry '{entry}' has a brace, but env values "
                         "are not templates (only {{PLACEHOLDER}}s are filled in)")

    def text_fields(self, doc: str, path: tuple, text_id: str, fields: set[str],
                    what: str) -> None:
        """A text that the engine fills with ``fields`` must name no other ``{field}``: it
        would reach the page as written."""
        used: dict[str, list[str]] = {}
        for lang in LANGS:
            for field_name in templates.expression_fields(self.m.text[lang].get(text_id, "")):
                if field_name not in fields:
                    used.setdefault(field_name, []).append({"en": "English", "ko": "Korean"}[lang])
        for field_name, langs in used.items():
            known = ", ".join(f"{{{f}}}" for f in sorted(fields)) or "none"
            self.out.add(self.docs[doc], path, f"{what} '{text_id}' writes '{{{field_name}}}' in "
                         f"its {' and '.join(dict.fromkeys(langs))} text, which nothing fills in "
                         f"(fields it can use: {known})")

    def platform_problem(self, hw: str, of_model: bool) -> str:
        """Why ``hw`` is not a platform of the catalog (or, ``of_model``, of this model). A
        suggestion only for a slip of the keyboard (``likely_typo``): the nearest id is often
        another GPU, and a new GPU needs its facts written down before a cell can use it."""
        catalog = list(self.platforms)
        ours = list(self.m.info.hardware) if of_model else catalog
        hardware_file = os.path.join(os.path.dirname(os.path.dirname(self.docs["model"].file)),
                                     "catalog", "hardware.yaml")
        near = likely_typo(hw, ours)
        if near:
            where = "a platform of this model" if of_model else f"in {hardware_file}"
            return f"hw '{hw}' is not {where} (did you mean '{near}'? known: {', '.join(ours)})"
        if of_model and hw in self.platforms:
            return (f"hw '{hw}' is not a platform of this model (known: {', '.join(ours)}); add "
                    "it to 'hardware' in model.yaml first")
        then = ", then to 'hardware' in model.yaml" if of_model else ""
        return (f"hw '{hw}' is not in {hardware_file} (known: {', '.join(catalog)}); add the "
                f"platform there first{then}")

    def _image(self, path: tuple, rule) -> None:
        """An image is a published one: a repository and a tag that is not a stand-in (no
        <…>, {{…}}, TODO …); where none is published the rule leaves 'image' out, and then
        gives no release and no docker options."""
        d = "model"
        if rule.image is None:
            for key in ("sglang", "args"):
                if getattr(rule, key):
                    self.out.add(self.docs[d], path + (key,), f"'{key}' belongs to an image; "
                                 "this rule names none (the Python form only)")
            return
        tag = _PLACEHOLDER_TAG.search(rule.image)
        if tag is not None or not _IMAGE_REF.fullmatch(rule.image):
            what = f"a placeholder '{tag.group(0)}'" if tag else "no repository[:tag] reference"
            self.out.add(self.docs[d], path + ("image",), f"image '{rule.image}' has {what}: "
                         "name the image published for these selections, or leave 'image' out "
                         "where none is published (the pages then print the model's 'install' "
                         "route; valid: REPOSITORY:TAG such as lmsysorg/sglang:v0.5.23-cu129)")

    def release(self, doc: str, path: tuple, given: str | None, image: bool = False) -> None:
        """A release the history covers (an image may also follow the newest: 'latest')."""
        if given is None or given in self.releases.order or (image and given == "latest"):
            return
        known = self.releases.order + (["latest"] if image else [])
        self.out.add(self.docs[doc], path, f"sglang '{given}' is no release of the flag history "
                     f"({choices_hint(given, known)}); a build that is no release leaves "
                     "'sglang' out")

    # -- files
    def _branch_env(self) -> None:
        """Each branch_env entry is a variable the pinned release does not read, and says who
        does: one the release reads is no branch's, and the checker judges it as the release
        does (a deprecated one warns)."""
        d, catalog = "model", self.catalog
        for name, reader in self.m.info.branch_env.items():
            p = ("branch_env", name)
            how = catalog.stock_read(name)
            if how is not None:
                self.out.add(self.docs[d], p, f"{name} is read by stock {catalog.package} "
                             f"{catalog.version} {how}, so it is not branch-only; delete it "
                             "from branch_env")
            elif not reader.strip():
                self.out.add(self.docs[d], p, f"branch_env {name} gives no reader: say which "
                             "branch or image reads it")

    def _branch_values(self) -> None:
        """Each branch value extends a flag the pinned catalog has, which refuses the value,
        and says who reads it: anything else would let a typo through as a branch value."""
        d, catalog = "model", self.catalog
        for name, values in self.m.info.branch_values.items():
            p = ("branch_values", name)
            hit = catalog.lookup(name)
            if hit.kind != "exact":
                self.out.add(self.docs[d], p, _flag_problem(name, catalog))
                continue
            if not hit.spec.takes_value:
                self.out.add(self.docs[d], p, f"flag '{name}' takes no value, so a branch "
                             "cannot add one")
                continue
            for value, reason in values.items():
                if value_problem(hit.spec, (value,)) is None:
                    self.out.add(self.docs[d], p + (value,), f"'{value}' is already a valid "
                                 f"value of {name} in {catalog.package} {catalog.version}; "
                                 "delete it from branch_values")
                if isinstance(reason, BranchValue):
                    branch = {r.image for r in self.m.info.docker_images
                              if r.sglang is None and r.image is not None}
                    if reason.image not in branch:
                        self.out.add(self.docs[d], p + (value, "image"), f"branch value "
                                     f"'{value}' of {name}: '{reason.image}' is not a branch "
                                     "image of the model (a docker_images entry without "
                                     f"'sglang'; {choices_hint(reason.image, sorted(branch))})")
                elif reason is None or not reason.strip():
                    self.out.add(self.docs[d], p + (value,), f"branch value '{value}' of {name} "
                                 "gives no reason: say who reads it (the branch or image that "
                                 "accepts it)")

    def _calculators(self) -> None:
        """Each calculator's flags, conditions, expressions and texts, each at its place: its
        conditions may read ``pd`` and the values worked out before them; an expression may
        name constants, earlier number values and ``avg_len`` (the model's request length)."""
        info, d = self.m.info, "model"
        reads_avg_len: list[tuple] = []
        ids: set[str] = set()
        pinned: dict[str, str] = {}
        for i, calc in enumerate(info.calculators):
            p = ("calculators", i)
            if calc.id in ids:
                self.out.add(self.docs[d], p + ("id",), f"calculator id '{calc.id}' is used twice")
            ids.add(calc.id)
            if calc.pins in pinned:
                self.out.add(self.docs[d], p + ("pins",), f"'{calc.pins}' is pinned by "
                             f"calculator '{pinned[calc.pins]}' already; a flag has one value")
            pinned.setdefault(calc.pins, calc.id)
            reads_avg_len += self._calculator(calc, p)
        if reads_avg_len and info.request_length is None:
            self.out.add(self.docs[d], reads_avg_len[0], "this reads avg_len, but model.yaml "
                         "declares no request_length (add request_length: {default: N, "
                         "common: [N, …]})")
        if info.request_length is not None and not reads_avg_len:
            self.out.add(self.docs[d], ("request_length",), "no calculator reads avg_len, so "
                         "request_length has no reader; remove it")

    def _calculator(self, calc, p: tuple) -> list[tuple]:
        """One calculator's checks; returns the paths of its expressions that read avg_len."""
        d = "model"
        self.text(d, p + ("label",), calc.label)
        self.flag_name(d, p + ("pins",), calc.pins)
        D = condition_check.Domain
        keys = {"pd": D("pd", ("prefill", "decode", ""))}
        numbers: set[str] = set(calc.constants)
        for name, number in calc.constants.items():
            why = constant_problem(number)
            if why:
                self.out.add(self.docs[d], p + ("constants", name), f"calculator '{calc.id}': "
                             f"constant '{name}' is {_shown(number)}; {why}")
        seen: set[str] = set()
        reads: list[tuple] = []

        def when(path: tuple, cond) -> None:
            vocab = condition_check.Vocabulary(dict(keys), self.flag_domain)
            for rel, message in condition_check.check(cond, vocab):
                self.out.add(self.docs[d], path + rel, message)

        def expression(path: tuple, given, where: str) -> None:
            if not isinstance(given, str):
                return
            try:
                tree = templates.parse_expr(given)
            except templates.ExprError as exc:
                self.out.add(self.docs[d], path, f"cannot read the expression '{given}': {exc}")
                return
            for name in sorted(templates.expr_names(tree)):
                if name == "avg_len":
                    reads.append(path)
                elif name not in numbers:
                    known = ", ".join(sorted(numbers | {"avg_len"}))
                    where_ = f" {where}" if where else ""
                    self.out.add(self.docs[d], path, f"'{name}' in '{given}' is no constant, "
                                 f"number value{where_} or avg_len (known: {known})")

        for i, v in enumerate(calc.values):
            q = p + ("values", i)
            if v.id in seen or v.id in calc.constants or v.id in ("pd", "avg_len"):
                self.out.add(self.docs[d], q + ("id",), f"value id '{v.id}' is used twice (values, "
                             "constants, pd and avg_len share one set of names)")
            seen.add(v.id)
            if v.flag is not None:
                self.flag_name(d, q + ("flag",), v.flag)
            for j, case in enumerate(v.cases):
                when(q + ("cases", j, "when"), case.when)
                if not v.text:
                    expression(q + ("cases", j, "value"), case.value, "before it")
            if not v.text:
                expression(q + ("default",), v.default, "before it")
            keys[v.id] = D(f"value '{v.id}'") if v.text else D(f"value '{v.id}'", number=True)
            if not v.text:
                numbers.add(v.id)
        when(p + ("applies_when",), calc.applies_when)
        expression(p + ("formula",), calc.formula, "")
        for i, text_id in enumerate(calc.explain):
            self.text(d, p + ("explain", i), text_id)
            self.text_fields(d, p + ("explain", i), text_id, {v.id for v in calc.values},
                             "explanation text")
        return reads

    def _model_file(self) -> None:
        info, d = self.m.info, "model"
        self._calculators()
        for i, hw in enumerate(info.hardware):
            if self.platforms and hw not in self.platforms:
                self.out.add(self.docs[d], ("hardware", i), self.platform_problem(hw, False))
        seen: set[str] = set()
        for i, dim in enumerate(info.dimensions):
            p = ("dimensions", i)
            if dim.id in seen or dim.id == "hw" or dim.id in RESERVED_KEYS:
                why = "the hardware is always the first dimension" if dim.id == "hw" else \
                    "a context key of the engine" if dim.id in RESERVED_KEYS else "declared twice"
                self.out.add(self.docs[d], p + ("id",), f"dimension id '{dim.id}' cannot be used "
                             f"({why})")
            seen.add(dim.id)
            self.text(d, p + ("label",), dim.label)
            ids: set[str] = set()
            for j, opt in enumerate(dim.options):
                if opt.id in ids:
                    self.out.add(self.docs[d], p + ("options", j, "id"), f"duplicate option "
                                 f"'{opt.id}' in dimension '{dim.id}'")
                ids.add(opt.id)
                self.text(d, p + ("options", j, "label"), opt.label)
                earlier = [x.id for x in info.dimensions[:i]]
                if self.condition(d, p + ("options", j, "when"), opt.when):
                    late = sorted(k for k in opt.when.keys() - {"hw", *earlier}
                                  if not k.startswith("hw."))
                    if late:
                        self.out.add(self.docs[d], p + ("options", j, "when"), f"an option's "
                                     f"'when' may read only the hardware and earlier dimensions "
                                     f"(hw, {', '.join(earlier) or 'none yet'}), not "
                                     f"{', '.join(late)}")
        if info.pd:
            for role, server in info.pd.servers().items():
                self.condition(d, ("pd", role, "when"), server.when)
                self.text(d, ("pd", role, "label"), server.label)
        for i, r in enumerate(info.rounds):
            for j, n in enumerate(r.notes):
                self.text(d, ("rounds", i, "notes", j), n)
            self.text(d, ("rounds", i, "text"), r.text)
        self.text(d, ("summary",), info.summary)
        for i, fact in enumerate(info.about):
            self.text(d, ("about", i, "label"), fact.label)
            self.text(d, ("about", i, "text"), fact.text)
        axis_ids = [a.id for a in self.m.axes]
        for i, axis_id in enumerate(info.enumerate):
            if axis_id not in axis_ids:
                self.out.add(self.docs[d], ("enumerate", i), f"unknown axis '{axis_id}' "
                             f"({choices_hint(axis_id, axis_ids)})")
        for i, rule in enumerate(info.model_names):
            self.condition(d, ("model_names", i, "when"), rule.when)
        self._cli()
        for i, rule in enumerate(info.docker_images):
            self.condition(d, ("docker_images", i, "when"), rule.when)
            self.release(d, ("docker_images", i, "sglang"), rule.sglang, image=True)
            for j, arg in enumerate(rule.args):
                self.docker_arg(d, ("docker_images", i, "args", j), arg)
            self._image(("docker_images", i), rule)
        for i, rule in enumerate(info.install):
            self.condition(d, ("install", i, "when"), rule.when)
        if not info.install and any(r.image is None for r in info.docker_images):
            at = next(i for i, r in enumerate(info.docker_images) if r.image is None)
            self.out.add(self.docs[d], ("docker_images", at), "a rule without an image (the "
                         "Python form only) needs the model's 'install' route: the commands "
                         "its pages print in place of docker run")
        for i, r in enumerate(info.rounds):
            self.release(d, ("rounds", i, "sglang"), r.sglang)
            named = _release_named(r.version, self.releases.order)
            if r.sglang is not None and named is not None and named != r.sglang:
                self.out.add(self.docs[d], ("rounds", i, "sglang"), f"round '{r.id}' ran "
                             f"{r.version}, which names release {named}, not {r.sglang}")
            for j, hw in enumerate(r.hardware):  # the record's platforms are the model's
                if hw not in info.hardware:
                    self.out.add(self.docs[d], ("rounds", i, "hardware", j), f"round "
                                 f"'{r.id}' ran on hardware '{hw}', not a platform of the model "
                                 f"({choices_hint(hw, info.hardware)})")
        for i, f in enumerate(info.pd.router.flags if info.pd else []):
            self.flag_text(d, ("pd", "router", "flags", i), f, one=False, catalog=self.router)

    def docker_arg(self, doc: str, path: tuple, text: str) -> None:
        """One docker run option an image rule adds: an option ``recipes check`` knows
        (hardware.yaml's containers.run_flags), written as it takes a value, and one a Docker
        Compose service has a key for (the deployment files carry it)."""
        if self.containers is None:  # hardware.yaml did not load: reported there
            return
        problem = option_problem(text, self.containers.run_flags)
        if problem:
            self.out.add(self.docs[doc], path, f"{problem} (run_flags: "
                         f"{', '.join(self.containers.run_flags)})")
            return
        for option in read_options(shlex.split(text), self.containers.run_flags).options:
            problem = compose_problem(option)  # "Deploy as" Compose writes every option
            if problem:
                self.out.add(self.docs[doc], path, f"'{text}': {problem}")

    def _cli(self) -> None:
        """What the model's CLI serves: an LLM answers the OpenAI API (``api``), a diffusion
        server takes a media job (``request``); neither takes the other's block, and only the
        LLM server has a PD router (sglang_router fronts LLM servers only)."""
        info, doc = self.m.info, self.docs["model"]
        wants, other = ("api", "request") if info.cli == "llm" else ("request", "api")
        if getattr(info, wants) is None:
            self.out.add(doc, ("cli",), f"a model served by the {info.cli} CLI needs '{wants}': "
                         + ("the OpenAI API its server answers (inputs, reasoning, tool calls)"
                            if wants == "api" else "the request its server takes (kind "
                            "video-job, endpoint, body)"))
        if getattr(info, other) is not None:
            self.out.add(doc, (other,), f"'{other}' is for a model of the "
                         f"{'diffusion' if other == 'request' else 'llm'} CLI; this one's cli "
                         f"is {info.cli} (write '{wants}' instead)")
        if info.cli != "llm" and info.pd is not None:
            self.out.add(doc, ("pd",), f"the {info.cli} CLI has no PD router "
                         "(python3 -m sglang_router.launch_router fronts LLM servers): "
                         "delete 'pd'")
        if info.request is not None and "model" in info.request.body:
            self.out.add(doc, ("request", "body", "model"), "leave 'model' out of the body: "
                         "it is the served name of the selection (model_names)")
        if info.request is not None:
            self._request_tasks(info.request)
        if info.api is not None:
            self._api()

    def _request_tasks(self, request) -> None:
        """Each kind of request has an id of its own, a label worded in both languages, a
        condition of the model's vocabulary, and fields the real request can carry (no
        'model', the served name)."""
        doc, seen = self.docs["model"], {}
        for i, task in enumerate(request.tasks):
            p = ("request", "tasks", i)
            if task.id in seen:
                self.out.add(doc, p + ("id",), f"request task '{task.id}' is declared twice "
                             f"(first at line {doc.where(('request', 'tasks', seen[task.id]))[0]})")
            seen.setdefault(task.id, i)
            self.text("model", p + ("label",), task.label)
            self.condition("model", p + ("when",), task.when)
            if "model" in task.body:
                self.out.add(doc, p + ("body", "model"), "leave 'model' out of the body: it "
                             "is the served name of the selection (model_names)")

    def _api(self) -> None:
        """The API block names parsers the pinned release (or the model's branch) has, efforts
        with their default among them, and inputs that include text, for served names the
        model has: the docs stand-in serves each served name by it."""
        api, doc = self.m.info.api, self.docs["model"]
        served = list(dict.fromkeys(rule.name for rule in self.m.info.model_names))
        lists = [(("api", "inputs"), api.inputs)]
        for name, inputs in api.inputs_by_name.items():
            if name not in served:
                self.out.add(doc, ("api", "inputs_by_name", name), f"'{name}' is not a served "
                             f"name of this model (its model_names; {choices_hint(name, served)})")
            lists.append((("api", "inputs_by_name", name), inputs))
        for p, inputs in lists:
            if "text" not in inputs:
                self.out.add(doc, p, f"inputs must include 'text': every chat request carries "
                             f"text (got: {', '.join(inputs)})")
            for i, kind in enumerate(inputs):
                if kind in inputs[:i]:
                    self.out.add(doc, p + (i,), f"input '{kind}' is listed twice")
        parsers = [(("api", "tool_call_parser"), "--tool-call-parser", api.tool_call_parser)]
        if api.reasoning:
            r, p = api.reasoning, ("api", "reasoning")
            parsers.insert(0, (p + ("parser",), "--reasoning-parser", r.parser))
            for i, effort in enumerate(r.efforts):
                if effort in r.efforts[:i]:
                    self.out.add(doc, p + ("efforts", i), f"effort '{effort}' is listed twice")
            if r.default_effort not in r.efforts:
                self.out.add(doc, p + ("default_effort",), f"default_effort "
                             f"'{r.default_effort}' is not one of the efforts "
                             f"({choices_hint(r.default_effort, r.efforts)})")
        for p, flag, parser in parsers:
            if parser is None:
                continue
            hit = self.catalog.lookup(flag)
            if hit.kind != "exact":
                self.out.add(doc, p, _flag_problem(flag, self.catalog))
            elif self.value_problem(hit.spec, (parser,)) is not None:
                self.out.add(doc, p, f"parser '{parser}' is not a choice of {flag} in "
                             f"{self.catalog.package} {self.catalog.version} "
                             f"({choices_hint(parser, hit.spec.choices or ())}); a parser "
                             "only the model's branch has goes into branch_values")

    def _axes(self) -> None:
        seen: dict[str, int] = {}
        for ai, axis in enumerate(self.m.axes):
            doc, base = self.axis_place(ai)
            if axis.id in self.m.dimensions:
                self.out.add(self.docs[doc], base + ("id",), f"duplicate axis id '{axis.id}': "
                             f"'{axis.id}' is a dimension of the model (model.yaml)")
            elif axis.id in seen:
                first_doc, first_path = self.axis_place(seen[axis.id])
                first = self.docs[first_doc]
                self.out.add(self.docs[doc], base + ("id",), f"duplicate axis id '{axis.id}' "
                             f"(first declared at {first.file}:{first.where(first_path)[0]})")
            seen.setdefault(axis.id, ai)
            self.text(doc, base + ("label",), axis.label)
            if axis.card is not None:  # the card's title
                self.text(doc, base + ("card",), f"ui.card.{axis.card}")
            ids = [o.id for o in axis.options]
            if axis.default is None and not axis.default_by:
                self.out.add(self.docs[doc], base, f"axis '{axis.id}' needs 'default' or 'default_by'")
            if axis.default is not None and axis.default not in ids:
                self.out.add(self.docs[doc], base + ("default",), f"default '{axis.default}' is "
                             f"not an option of '{axis.id}' ({choices_hint(axis.default, ids)})")
            for di, rule in enumerate(axis.default_by):
                if rule.value not in ids:
                    self.out.add(self.docs[doc], base + ("default_by", di, "value"),
                                 f"'{rule.value}' is not an option of '{axis.id}' "
                                 f"({choices_hint(rule.value, ids)})")
                self.condition(doc, base + ("default_by", di, "when"), rule.when)
            self.condition(doc, base + ("show_when",), axis.show_when)
            opt_seen = set()
            for oi, opt in enumerate(axis.options):
                p = base + ("options", oi)
                if opt.id in opt_seen:
                    self.out.add(self.docs[doc], p + ("id",), f"duplicate option '{opt.id}' in "
                                 f"axis '{axis.id}'")
                opt_seen.add(opt.id)
                self.text(doc, p + ("label",), opt.label)
                for i, name in enumerate(opt.strip):
                    self.flag_name(doc, p + ("strip", i), name)
                for i, f in enumerate(opt.add):
                    self.flag_text(doc, p + ("add", i), f)
                for i, h in enumerate(opt.hints):
                    self.text(doc, p + ("hints", i), h)
                for i, e in enumerate(opt.env):
                    if "=" not in e:
                        self.out.add(self.docs[doc], p + ("env", i), f"env entry '{e}' is not NAME=VALUE")

    def _match(self, p: tuple, cell: Cell) -> bool:
        """A cell's match names the hardware and one offered option of every dimension."""
        m, d = self.m, "cells"
        ok = True
        for key in cell.match:
            if key not in m.dimensions:
                self.out.add(self.docs[d], p + ("match", key), f"'{key}' is not a dimension of "
                             f"this model (dimensions: {', '.join(m.dimensions)})")
                ok = False
        for dim in m.dimensions:
            value = cell.match.get(dim)
            if value is None:
                self.out.add(self.docs[d], p + ("match",), f"the match gives no '{dim}' "
                             f"(dimensions: {', '.join(m.dimensions)})")
                ok = False
                continue
            options = m.dimension_options[dim]
            ids = [o for o, _, _ in options]
            if dim == "hw" and value not in ids:
                self.out.add(self.docs[d], p + ("match", dim), self.platform_problem(value, True))
                ok = False
            elif value not in ids:
                self.out.add(self.docs[d], p + ("match", dim), f"{dim} '{value}' is not known "
                             f"({choices_hint(value, ids)})")
                ok = False
            elif ok:
                ctx = _DryContext(cell, self.platforms.get(cell.match["hw"]))
                offered = [o for o, _, when in options
                           if when.holds(ctx) is not False]
                if value not in offered:
                    earlier = ", ".join(f"{k} '{cell.match[k]}'"
                                        for k in m.dimensions[:m.dimensions.index(dim)])
                    self.out.add(self.docs[d], p + ("match", dim), f"{dim} '{value}' is not "
                                 f"offered with {earlier} ({choices_hint(value, offered)})")
                    ok = False
        return ok

    def _cells(self) -> None:
        before = len(self.out.problems)
        self._cells_inner()
        self.cell_problems = len(self.out.problems) - before

    def _cells_inner(self) -> None:
        info, d, m = self.m.info, "cells", self.m
        rounds = [r.id for r in info.rounds]
        joined_keys: dict[tuple[str, str], int] = {}
        for i, cell in enumerate(self.m.cells):
            p = ("cells", i)
            if self._match(p, cell):
                key = m.key(cell.match)
                if key in m.cell_index:
                    first = m.cell_index[key]
                    line = self.docs[d].where(("cells", first))[0]
                    self.out.add(self.docs[d], p + ("match",), f"duplicate cell {'/'.join(key)} "
                                 f"(first defined at line {line})")
                else:
                    m.cell_index[key] = i
                    # the pages and the Playground key a cell by its ids joined: ids that join
                    # alike would give two cells one key (site.cell_anchor, the commands page links)
                    for sep, what in (("-", "page anchor 'cell-{}'"), ("|", "Playground key '{}'")):
                        joined = sep.join(key)
                        other = joined_keys.setdefault((sep, joined), i)
                        if other != i:
                            line = self.docs[d].where(("cells", other))[0]
                            self.out.add(self.docs[d], p + ("match",), f"cell {'/'.join(key)} "
                                         f"has the {what.format(joined)} of cell "
                                         f"{'/'.join(m.key(m.cells[other].match))} (line "
                                         f"{line}): their option ids join alike; rename one")
                            break
            platform = self.platforms.get(cell.match.get("hw", ""))
            if cell.gpus_per_node is not None and platform is not None and \
                    cell.gpus_per_node > platform.gpus_per_node:
                self.out.add(self.docs[d], p + ("gpus_per_node",), f"gpus_per_node "
                             f"{cell.gpus_per_node} is more than a {platform.label} node has "
                             f"(valid: 1 to {platform.gpus_per_node}; hardware.yaml)")
            if "nodes" in m.dimensions and cell.match.get("nodes") not in (None, str(cell.nodes)):
                self.out.add(self.docs[d], p + ("nodes",), f"nodes {cell.nodes} differs from "
                             f"the cell's nodes dimension '{cell.match['nodes']}' (the option "
                             "ids of a nodes dimension are node counts)")
            for j, picks in enumerate(cell.verified_with):
                for axis_id, option in picks.items():
                    self.option_of(d, p + ("verified_with", j, axis_id), axis_id, option)
            if cell.verified_with and cell.status.value != "verified":
                self.out.add(self.docs[d], p + ("verified_with",), "'verified_with' names the "
                             "settings a verifying round ran with; this cell is "
                             f"{cell.status.value}, not verified")
            if cell.status.value == "verified" and not cell.verified_in:
                self.out.add(self.docs[d], p + ("status",), "a verified cell names the round "
                             f"that verified it in 'verified_in' (known: {', '.join(rounds)})")
            if cell.verified_in and cell.verified_in not in rounds:
                self.out.add(self.docs[d], p + ("verified_in",), f"unknown round "
                             f"'{cell.verified_in}' ({choices_hint(cell.verified_in, rounds)})")
            self.text(d, p + ("redirect",), cell.redirect)
            self.text(d, p + ("warn",), cell.warn)
            flags: list[Flag] = []
            for j, text in enumerate(cell.flags):
                parsed = self.flag_text(d, p + ("flags", j), text)
                flags.extend(parsed)
            names = [f.name for f in flags]
            for name in {n for n in names if names.count(n) > 1}:
                self.out.add(self.docs[d], p + ("flags", names.index(name)),
                             f"flag '{name}' appears twice in one cell")
            for name, reason in cell.pins.items():
                if name not in names:
                    self.out.add(self.docs[d], p + ("pins", name), f"pin '{name}' is not a flag "
                                 f"of this cell ({choices_hint(name, names)})")
                self.text(d, p + ("pins", name), reason)
                for lang in LANGS:  # the caveat's title is the flag: its text need not repeat it
                    if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])",
                                 self.m.text[lang].get(reason, "")):
                        self.out.add(self.docs[d], p + ("pins", name), f"the reason text "
                                     f"'{reason}' names {name} again ({lang}); the caveat's title "
                                     "is the flag already: say 'this value' instead")
                        break
            self.m.cell_flags.append(flags)

    def _option_templates(self) -> None:
        """An option's added flags and hints are filled like a transform's (after the cells,
        whose flags tell what ``{cell.<flag>_size}`` can be)."""
        names = self.template_names(conditions.ALWAYS)
        for ai, axis in enumerate(self.m.axes):
            doc, base = self.axis_place(ai)
            for oi, opt in enumerate(axis.options):
                p = base + ("options", oi)
                for i, f in enumerate(opt.add):
                    self.flag_template(doc, p + ("add", i), f, names)
                for i, h in enumerate(opt.hints):
                    self.text_fields(doc, p + ("hints", i), h, HINT_FIELDS, "hint")
                for i, e in enumerate(opt.env):
                    if "=" in e:  # _axes reports the rest
                        self.env_entry(doc, p + ("env", i), e)

    def _gates_leave_options(self) -> None:
        """A setting some option of which is left on at least one cell: gates that surely hold
        there (their when is true whatever is picked) and disable or hide every option of a
        setting on every cell leave the Playground nothing to pick."""
        r, d = self.m.rules, "rules"
        cells = self.cells_for(None)
        if not cells:
            return
        for axis in self.m.axes:
            gates = [(i, g) for i, g in enumerate(r.gates)
                     if axis.id in g.disable or axis.id in g.hide]
            if not gates:
                continue
            used: dict[int, None] = {}
            for cell, flags in cells:
                ctx = _DryContext(cell, self.platforms[cell.match["hw"]], flags)
                holding = [(i, g) for i, g in gates if g.when.holds(ctx) is True]
                off = {o for _, g in holding for o in (*g.disable.get(axis.id, ()),
                                                       *g.hide.get(axis.id, ()))}
                if any(o.id not in off for o in axis.options):
                    break
                used.update((i, None) for i, _ in holding)
            else:
                names = ", ".join(f"'{r.gates[i].id}'" for i in sorted(used))
                self.out.add(self.docs[d], ("gates", min(used), "when"),
                             f"gates {names} disable or hide every option of setting "
                             f"'{axis.id}' ({', '.join(o.id for o in axis.options)}) on every "
                             "cell, so it has nothing to pick; narrow their when or leave an "
                             "option on")

    def _rules(self) -> None:
        d, r = "rules", self.m.rules
        for i, g in enumerate(r.gates):
            p = ("gates", i)
            self.condition(d, p + ("when",), g.when)
            if not g.disable and not g.hide:
                self.out.add(self.docs[d], p, f"gate '{g.id}' neither disables nor hides anything")
            if g.disable and not g.reason:
                self.out.add(self.docs[d], p, f"gate '{g.id}' disables options but gives no reason")
            self.text(d, p + ("reason",), g.reason)
            for kind in ("disable", "hide"):
                for axis_id, options in getattr(g, kind).items():
                    for option in options:
                        self.option_of(d, p + (kind, axis_id), axis_id, option)
        if not self.cell_problems:
            self._gates_leave_options()
        axis_ids = {a.id for a in self.m.axes}
        for i, t in enumerate(r.transforms):
            p = ("transforms", i)
            when = t.when if self.condition(d, p + ("when",), t.when) else None
            names = self.template_names(when)
            if when is not None and not self.cell_problems and not self.cells_for(when):
                self.out.add(self.docs[d], p + ("when",), f"transform '{t.id}' can fire on no "
                             "cell of this model: its when is false for every cell")
            if t.nodes is not None:
                self.node_template(d, p + ("nodes",), t.nodes, names)
            for j, e in enumerate(t.env):
                self.env_entry(d, p + ("env", j), e)
            for axis_id, options in (t.for_ or {}).items():
                for option in options if isinstance(options, list) else [options]:
                    if axis_id not in axis_ids:
                        self.out.add(self.docs[d], p + ("for",), f"'for' names unknown axis "
                                     f"'{axis_id}' ({choices_hint(axis_id, sorted(axis_ids))})")
                    else:
                        self.option_of(d, p + ("for", axis_id), axis_id, option)
            for j, name in enumerate(t.strip + t.insert_after):
                self.flag_name(d, p + ("strip" if j < len(t.strip) else "insert_after",), name)
            for j, f in enumerate(t.add):
                self.flag_text(d, p + ("add", j), f)
                self.flag_template(d, p + ("add", j), f, names)
            for j, h in enumerate(t.hints):
                self.text(d, p + ("hints", j), h)
                self.text_fields(d, p + ("hints", j), h, HINT_FIELDS, "hint")
        calculators = [c.id for c in self.m.info.calculators]
        for i, c in enumerate(r.calculator):
            if c.calculator not in calculators:
                known = choices_hint(c.calculator, calculators) if calculators \
                    else "model.yaml declares none"
                self.out.add(self.docs[d], ("calculator", i, "calculator"),
                             f"unknown calculator '{c.calculator}' ({known})")
            self.condition(d, ("calculator", i, "when"), c.when)
            self.text(d, ("calculator", i, "reason"), c.reason)
        for i, c in enumerate(r.checks):
            p = ("checks", i)
            if self.condition(d, p + ("when",), c.when):
                self.text_fields(d, p + ("message",), c.message,
                                 c.when.keys(), "check message")
            self.text(d, p + ("message",), c.message)
            for j, name in enumerate(c.flags):
                if self.catalog.lookup(name).kind != "exact" and self.router.lookup(name).kind != "exact":
                    self.flag_name(d, p + ("flags", j), name)
        knob_ids = [k.id for k in r.knobs]
        for i, k in enumerate(r.knobs):
            self.text(d, ("knobs", i, "label"), k.label)
            if k.flag:
                self.flag_name(d, ("knobs", i, "flag"), k.flag)
            self.condition(d, ("knobs", i, "show_when"), k.show_when)
        for i, e in enumerate(r.effective):
            p = ("effective", i)
            if e.knob not in knob_ids:
                self.out.add(self.docs[d], p + ("knob",), f"unknown knob '{e.knob}' "
                             f"({choices_hint(e.knob, knob_ids)})")
            if (e.value is None) == (e.value_text is None):
                self.out.add(self.docs[d], p, "give exactly one of 'value' or 'value_text'")
            self.text(d, p + ("value_text",), e.value_text)
            self.text(d, p + ("because",), e.because)
            self.condition(d, p + ("when",), e.when)

    def _benchmarks(self) -> None:
        bench, d = self.m.benchmarks, "benchmarks"
        if bench is None:
            return
        doc = self.docs[d]
        rounds = [r.id for r in self.m.info.rounds]
        for bid, decl in bench.accuracy_benchmarks.items():
            self.text(d, ("accuracy_benchmarks", bid, "label"), decl.label)
        for mid, metric in bench.metrics.items():
            self.text(d, ("metrics", mid, "label"), metric.label)
        if bench.latency_percentile is None and any(r.rows for r in bench.results):
            self.out.add(doc, ("results",), "speed rows give TTFT and TPOT at a percentile: "
                         "name it in 'latency_percentile' (p50, mean)")
        for i, res in enumerate(bench.results):
            p = ("results", i)
            if res.pending:
                given = [k for k in ("round", "sglang", "rows", "accuracy", "measured",
                                     "extra_flags",
                                     "extra_env", "latency_percentile")
                         if getattr(res, k) not in (None, [])]
                if given:
                    self.out.add(doc, p + (given[0],), f"a pending result has no numbers and "
                                 f"no run yet; remove '{given[0]}' or 'pending: true'")
            elif res.round is None and res.sglang is None:
                self.out.add(doc, p, "a result names its 'round' or the 'sglang' version it ran "
                             f"on (rounds: {', '.join(rounds) or 'none in model.yaml'})")
            elif res.round is not None and res.round not in rounds:
                self.out.add(doc, p + ("round",), f"unknown round '{res.round}' "
                             f"({choices_hint(res.round, rounds)})")
            if not res.rows and not res.accuracy and not res.measured and not res.pending:
                self.out.add(doc, p, "a result gives speed 'rows', 'accuracy' scores, "
                             "'measured' rows or several; this one gives none (one announced "
                             "without numbers yet is 'pending: true')")
            if res.latency_percentile is not None and not res.rows:
                self.out.add(doc, p + ("latency_percentile",), "'latency_percentile' says what "
                             "the TTFT and TPOT of speed rows are, and this result has no rows")
            self._accuracy(p, res)
            self._measured(p, res)
            self._bench_release(p, res)
            self._bench_extras(p, res)
            self._reproduce(p, res)
            for j, note in enumerate(res.notes):
                self.text(d, p + ("notes", j), note)
            for key, value in res.match.items():
                self.option_of(d, p + ("match", key), key, value)
            # a broken cells file would only make every benchmark look orphaned
            if not self.cell_problems and self.m.cell(res.match) is None:
                self.out.add(doc, p + ("match",),
                             f"no cell matches {'/'.join(self.m.key(res.match))}")

    def _bench_release(self, path: tuple, res) -> None:
        """The release a result names is one the flag history covers, and the one its round
        ran where the round's build is a release."""
        doc, order = self.docs["benchmarks"], self.bench_releases.order
        if res.sglang is not None and res.sglang not in order:
            self.out.add(doc, path + ("sglang",), f"unknown sglang release '{res.sglang}' "
                         f"(the flag history's: {choices_hint(res.sglang, order, len(order))})")
        rnd = next((r for r in self.m.info.rounds if r.id == res.round), None)
        named = (rnd.sglang or _release_named(rnd.version, order)) if rnd is not None else None
        if named is not None and res.sglang != named:
            if res.sglang is None:
                self.out.add(doc, path + ("round",), f"round '{rnd.id}' ran SGLang "
                             f"{rnd.version}: name its release with 'sglang: {named}'")
            else:
                self.out.add(doc, path + ("sglang",), f"round '{rnd.id}' ran SGLang "
                             f"{rnd.version}, not release {res.sglang}")

    def _bench_extras(self, path: tuple, res) -> None:
        """What a run set on top of its recipe command is checked as any flag and variable
        of a command: one catalog flag per entry with values it takes, NAME=VALUE with a
        name the pinned registry (or the model's branch) reads."""
        d = "benchmarks"
        for j, text in enumerate(res.extra_flags):
            self.flag_text(d, path + ("extra_flags", j), text)
        for j, entry in enumerate(res.extra_env):
            p = path + ("extra_env", j)
            self.env_entry(d, p, entry)
            name = entry.partition("=")[0]
            known = set(self.catalog.env) | set(self.m.info.branch_env)
            if name.startswith("SGLANG_") and name not in known:
                self.out.add(self.docs[d], p, f"{name} is not in the {self.catalog.package} "
                             f"{self.catalog.version} environment registry nor the model's "
                             f"branch_env ({choices_hint(name, sorted(known))})")

    def _reproduce(self, path: tuple, res) -> None:
        """Each speed row's reproduce command can be composed and is one bench_serving of the
        result's release takes (of every release when the build is between releases)."""
        bench, doc = self.m.benchmarks, self.docs["benchmarks"]
        if not res.rows:
            return
        if bench.workload is None:
            self.out.add(doc, path + ("rows",), "speed rows need the file's 'workload' (the "
                         "dataset, range ratio, warm-up and cache flush bench_serving ran with)")
            return
        if res.sglang is not None and res.sglang not in self.bench_releases.order:
            return  # reported with the release
        where = path + (("sglang",) if res.sglang is not None else ())
        for j, row in enumerate(res.rows):
            prompts = bench_serving.num_prompts(row, bench.num_prompts_by_concurrency)
            if prompts is None:
                given = ", ".join(map(str, bench.num_prompts_by_concurrency)) or "none"
                self.out.add(doc, path + ("rows", j, "concurrency"), f"no prompt count for "
                             f"concurrency {row.concurrency}: give the row 'num_prompts' or add "
                             f"{row.concurrency} to num_prompts_by_concurrency (given: {given})")
                continue
            flags = bench_serving.reproduce(bench.workload, row, prompts, "{{MODEL_NAME}}",
                                            "{{PORT}}")
            way = bench_serving.program(self.bench_releases, res.sglang)
            for message in bench_serving.problems(self.bench_releases, way, flags, res.sglang):
                self.out.add(doc, where, f"the reproduce command of row {j + 1}: {message}")

    def _measured(self, path: tuple, res) -> None:
        """Each measured row labels what ran and gives values of declared metrics only, a
        range low to high, a percentage between 0 and 100."""
        declared = self.m.benchmarks.metrics
        doc, d = self.docs["benchmarks"], "benchmarks"
        for j, row in enumerate(res.measured):
            p = path + ("measured", j)
            if row.text is not None:
                self.text(d, p + ("text",), row.text)
            for name, value in row.values.items():
                q = p + ("values", name)
                metric = declared.get(name)
                if metric is None:
                    hint = choices_hint(name, declared) if declared else "none is declared: " \
                        "add it to 'metrics' with a label, a unit and which way is better"
                    self.out.add(doc, q, f"unknown metric '{name}' ({hint})")
                    continue
                low, high = value if isinstance(value, list) else (value, value)
                if low > high:
                    self.out.add(doc, q, f"the range of '{name}' runs from low to high, "
                                 f"not {low:g} to {high:g}")
                if metric.unit == "percent" and not (0 <= low and high <= 100):
                    self.out.add(doc, q, f"'{name}' is a percentage: it lies between 0 and 100")

    def _accuracy(self, path: tuple, res) -> None:
        """Each score names a declared benchmark once, in its unit and within its bounds."""
        declared = self.m.benchmarks.accuracy_benchmarks
        doc = self.docs["benchmarks"]
        first: dict[str, int] = {}
        for j, item in enumerate(res.accuracy):
            p, name = path + ("accuracy", j), item.benchmark
            decl = declared.get(name)
            if decl is None:
                hint = choices_hint(name, declared) if declared else \
                    "none is declared: add it to 'accuracy_benchmarks' with a label and a unit"
                self.out.add(doc, p + ("benchmark",), f"unknown benchmark '{name}' ({hint})")
                continue
            if name in first:
                line = doc.where(path + ("accuracy", first[name]))[0]
                self.out.add(doc, p + ("benchmark",), f"benchmark '{name}' is scored twice in "
                             f"one result (first at line {line})")
            first.setdefault(name, j)
            if item.unit is not None and item.unit != decl.unit:
                self.out.add(doc, p + ("unit",), f"benchmark '{name}' is scored in "
                             f"'{decl.unit}' (its accuracy_benchmarks entry), not '{item.unit}'")
            if decl.unit == "percent" and not 0 <= item.score <= 100:
                self.out.add(doc, p + ("score",), f"score {item.score:g} of '{name}' is a "
                             "percentage: it lies between 0 and 100")


# a docker image reference (registry/repository:tag or @digest), and the tags that stand in for
# one: a template, an angle-bracket placeholder, a to-do word
_IMAGE_REF = re.compile(r"[a-z0-9]+(?:[._-][a-z0-9]+)*(?::[0-9]+)?(?:/[a-z0-9]+(?:[._-][a-z0-9]+)*)*"
                        r"(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[0-9a-f]{64})?")
_PLACEHOLDER_TAG = re.compile(r"<[^>]*>|\{\{[^}]*\}\}|\$\{?[A-Za-z_]|"
                              r"(?<=:)(?:todo|tbd|tbc|placeholder|changeme|none|null|unknown|x+|"
                              r"fixme|image|tag)$", re.IGNORECASE)


def check_calculator_cells(db, out, base, keys: dict[str, bytes | None]) -> None:
    """Every calculator dry-run on every cell whose command it pins: the cell's own command
    (resolved with its defaults) at the shortest, the default and the longest request length,
    and with each flag the calculator reads at its declared extremes. A try that gives no value
    (a division by zero, a value too large, a result that is not positive or is out of the
    pinned flag's bounds) is an error at the cell, naming the calculator and why; a cell where
    a rule says the calculator does not apply, or that sets the pinned flag itself, is skipped.
    The findings are kept under the model's key (``keys``, by model id: the digest of the
    model's files and of the catalog folder, ``kept.model_key``), so loading the same data again
    (the build's languages, the preview's reloads, the tests' copies) does not compose them
    again; a model without a key is dry-run at every load."""
    from macros.engine import kept

    for model in db.models.values():
        if not model.info.calculators:
            continue
        key = keys.get(model.id)
        found = kept.dry_runs.get(key) if key is not None else None
        if found is None:
            found = _dry_run(db, model)
            if key is not None:
                kept.keep(kept.dry_runs, key, found)
        if found:
            doc = out.load(model.dir / "cells.yaml", base)
            for i, message in found:
                out.add(doc, ("cells", i), message)


def _dry_run(db, model) -> list[tuple[int, str]]:
    from macros.engine import calculator
    from macros.engine.errors import RecipeError
    from macros.engine.resolve import resolve
    from macros.engine.schema import AVG_LEN_MAX, AVG_LEN_MIN
    from macros.engine.selection import Selection

    found: list[tuple[int, str]] = []
    bounds = {name: spec.bound for name, spec in db.catalog.flags.items() if spec.bound}
    rl = model.info.request_length
    lengths = [AVG_LEN_MIN, rl.default, AVG_LEN_MAX] if rl else [None]
    # a calculator no rule writes ({calc.<id>} in a transform) pins nothing
    written = json.dumps([t.model_dump(mode="json") for t in model.rules.transforms])
    calcs = [c for c in model.info.calculators
             if re.search(r"\bcalc\." + re.escape(c.id) + r"\b", written)]
    for i, cell in enumerate(model.cells):
        try:
            res = resolve(db, Selection(model.id, dict(cell.match)), strict=False)
        except calculator.CalculatorError as exc:  # too large a value to compose with
            pins = model.calculator(exc.calc_id).pins
            found.append((i, f"calculator '{exc.calc_id}' gives this cell no value to pin as "
                             f"{pins}: {exc.why}"))
            continue
        except RecipeError:  # a cell the loader or check reports in its own words
            continue
        own = {f.name for f in model.cell_flags[i]} if i < len(model.cell_flags) else set()
        for calc in calcs:
            c = res.calculation(calc.id)
            if c.reason is not None or calc.pins in own:
                continue
            flags = {f.name: f.values for f in res.flags if f.name != calc.pins}
            env = dict(e.split("=", 1) for e in res.env)
            why = calculator.dry_run(calc, flags, env, res.pd, lengths, bounds,
                                     bounds.get(calc.pins))
            if why:
                found.append((i, f"calculator '{calc.id}' gives this cell no value to pin as "
                                 f"{calc.pins}: {why}"))
    return found
