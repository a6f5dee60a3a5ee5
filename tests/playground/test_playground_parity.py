"""The Playground's JavaScript composes exactly what the Python engine composes.

Every reachable Deploy-panel selection (``deployment_selections``) and a seeded sample over
every Playground card (``sample_playground``) go to Node in one batch
(``tests/js/parity.mjs``); for each one the command text (English and Korean), the router
block, the docker, curl and Python client texts, the status, every calculator's value and the diagnostics must be identical to
``resolve(..., strict=False)`` rendered by ``macros.site.render``. One difference fails the test.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from macros.site import render, runmodes
from macros.site.export import export_model
from macros.engine.resolve import resolve
from macros.engine.selection import Selection
from macros.engine.selections import deployment_selections, sample_playground

from helpers.models import MODELS, rename_port
from helpers.walks import walked

ROOT = Path(__file__).resolve().parents[2]
RUNNER = ROOT / "tests" / "js" / "parity.mjs"
SAMPLES = 320
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(NODE is None,
                                reason="node is not installed (apt-get install nodejs)")


def _export(db, model_id: str, lang: str, path: Path) -> Path:
    """The export exactly as the build ships it (macros/site/hooks.py)."""
    data = export_model(db, model_id, lang)
    path.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True),
                    encoding="utf-8")
    return path


def _expected(db, model_id: str, selection: dict, res=None) -> dict:
    """What the Playground must show for ``selection``: ``res``, or its snapped resolution."""
    model = db.model(model_id)
    if res is None:
        given = {k: v for k, v in selection.items() if k != "sglang"}
        res = resolve(db, Selection.flat(model, given), strict=False,
                      release=db.releases.named(selection["sglang"])
                      if "sglang" in selection else None)
    return {
        "match": res.match, "pd": res.pd,
        "picks": {k: v for k, v in res.picks.items() if v is not None},
        "command_en": render.command_text(db, model, res, "en"),
        "command_ko": render.command_text(db, model, res, "ko"),
        "router": render.router_text(res),
        "docker_en": runmodes.docker_text(db, model, res, "en"),
        "docker_ko": runmodes.docker_text(db, model, res, "ko"),
        "curl_en": runmodes.curl_text(db, model, res, "en"),
        "curl_ko": runmodes.curl_text(db, model, res, "ko"),
        "python_ko": runmodes.python_text(db, model, res, "ko"),
        "status": res.status,
        "cell_status": res.cell_status,
        "sglang": res.sglang,
        "calculations": [[c.id, c.pins, c.value, c.reason.id if c.reason else None]
                         for c in res.calculations],
        "nodes": res.nodes,
        "footprint_en": render.footprint_text(db, res, "en"),
        "footprint_ko": render.footprint_text(db, res, "ko"),
        "rules": sorted({d.rule for d in res.diagnostics}),
        "diagnostics_en": [[d.severity.value, d.rule, render.diagnostic_text(db, model, d, "en")]
                           for d in res.diagnostics],
        "diagnostics_ko": [[d.severity.value, d.rule, render.diagnostic_text(db, model, d, "ko")]
                           for d in res.diagnostics],
        "effective": [[e.knob, e.value if e.value is not None
                       else render.label(db, model, e.value_text, "en"), e.source.value, e.because]
                      for e in res.effective],
        "record_ko": render.record_line(db, model, res.record, "ko") if res.record else None,
        "caveats": _sorted_caveats([c.kind, c.flag, render.text(db, model, c.text, "en")]
                                   for c in res.caveats),
    }


def _sorted_caveats(caveats) -> list:
    """Caveats in one order on both sides (a caveat of no flag has ``None``)."""
    return sorted((list(c) for c in caveats), key=lambda c: (c[0], c[1] or "", c[2]))


def _first_line_that_differs(a, b) -> str:
    if not isinstance(a, str) or not isinstance(b, str):
        return f"python={a!r}\n      js={b!r}"
    la, lb = a.splitlines(), b.splitlines()
    for i, (x, y) in enumerate(zip(la, lb), 1):
        if x != y:
            return f"line {i}: python={x!r}\n      js={y!r}"
    return f"python has {len(la)} lines, js has {len(lb)}"


@pytest.fixture(scope="module", params=MODELS)
def model_id(request):
    return request.param


@pytest.fixture(scope="module")
def selections(db, model_id):
    deploy = list(deployment_selections(db, model_id))
    sampled = sample_playground(db, model_id, SAMPLES, seed=11)
    # A few request lengths too, where the model's calculators read one: their values are
    # pinned into the command.
    lengths = [{**s, "avg_len": n} for s, n in zip(sampled[:40], [1, 777, 2048, 65536, 131072] * 8)]
    # And the reader's release: every release of the history, over sampled selections and
    # every cell's own, so each cell's command is spelt, refused and explained alike.
    order = db.releases.order
    releases = [{**s, "sglang": v} for s, v in zip(sampled[40:40 + 3 * len(order)],
                                                   [*order, "latest"] * 3)]
    releases += [{**s, "sglang": order[i % len(order)]} for i, s in enumerate(deploy)]
    return deploy, sampled + releases + (
        lengths if db.model(model_id).info.request_length else [])


@pytest.fixture(scope="module")
def js_results(db, model_id, selections, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("parity")
    deploy, sampled = selections
    batch = deploy + sampled
    (tmp / "selections.json").write_text(json.dumps(batch), encoding="utf-8")
    started = time.perf_counter()
    proc = subprocess.run(
        [NODE, str(RUNNER), str(_export(db, model_id, "en", tmp / "en.json")),
         str(_export(db, model_id, "ko", tmp / "ko.json")), str(tmp / "selections.json"),
         str(tmp / "out.json")],
        capture_output=True, text=True, timeout=600)
    elapsed = time.perf_counter() - started
    assert proc.returncode == 0, f"node failed:\n{proc.stdout}\n{proc.stderr}"
    out = json.loads((tmp / "out.json").read_text(encoding="utf-8"))
    print(f"\n{proc.stdout.strip()} (node wall time {elapsed:.1f}s)")
    return batch, out["results"]


def test_every_cell_is_among_the_compared_selections(db, model_id, selections):
    deploy, sampled = selections
    model = db.model(model_id)
    assert {model.key(s) for s in deploy} == set(model.cell_index), \
        "deployment_selections lost a cell: did the enumeration break?"
    assert len(sampled) >= SAMPLES


KEYS = ("match", "pd", "picks", "command_en", "command_ko", "router", "docker_en", "docker_ko",
        "curl_en", "curl_ko", "python_ko", "status", "cell_status",
        "sglang", "calculations",
        "nodes", "rules", "diagnostics_en", "diagnostics_ko", "effective", "caveats", "record_ko")


def test_js_matches_python_for_every_selection(db, model_id, selections, js_results):
    batch, results = js_results
    assert len(results) == len(batch)
    started = time.perf_counter()
    differences: list[str] = []
    compared = 0
    # the deployment selections lead the batch, in the order the walk resolves them
    walk = iter(walked(db, model_id))
    for i, (selection, got) in enumerate(zip(batch, results)):
        res = None
        if i < len(selections[0]):
            flat, res = next(walk)
            assert flat == selection
        want = _expected(db, model_id, selection, res)
        compared += 1
        if "error" in got:
            differences.append(f"{selection}\n  js raised: {got['error'].splitlines()[0]}")
            continue
        if "caveats" in got:
            got["caveats"] = _sorted_caveats(got["caveats"])
        for key in KEYS:
            if want[key] != got.get(key):
                differences.append(f"{selection}\n  {key} differs: "
                                   f"{_first_line_that_differs(want[key], got.get(key))}")
                break
    print(f"{model_id}: compared {compared} selections with Python in "
          f"{time.perf_counter() - started:.1f}s, {len(differences)} differences")
    assert not differences, (f"{len(differences)} of {compared} selections differ; "
                             "the first ones:\n" + "\n".join(differences[:5]))


def _js_on_first_cell(db, model_id, tmp_path, change) -> tuple[dict, dict]:
    """The Playground's results for the model's first cell from an export ``change`` edited,
    and that cell selection."""
    data = export_model(db, model_id, "en")
    change(data)
    (tmp_path / "en.json").write_text(json.dumps(data), encoding="utf-8")
    sel = dict(db.model(model_id).cells[0].match)
    (tmp_path / "sel.json").write_text(json.dumps([sel]), encoding="utf-8")
    subprocess.run([NODE, str(RUNNER), str(tmp_path / "en.json"), str(tmp_path / "en.json"),
                    str(tmp_path / "sel.json"), str(tmp_path / "out.json")],
                   check=True, capture_output=True, timeout=60)
    return json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))["results"][0], sel


def test_parity_catches_a_difference(db, model_id, tmp_path):
    """The comparison is not vacuous: a cell changed in the export only makes JS and Python
    disagree on that cell's command."""
    got, sel = _js_on_first_cell(db, model_id, tmp_path, lambda data: data["cells"][0]["flags"]
                                 .append(["--served-model-name", ["parity-probe"]]))
    assert "--served-model-name parity-probe" in got["command_en"]
    assert got["command_en"] != _expected(db, model_id, sel)["command_en"]


def test_parity_catches_a_difference_in_the_docker_line(db, model_id, tmp_path):
    """The run modes are compared too: a docker option added in the export only shows in the
    Playground's docker line, which then differs from Python's."""
    got, sel = _js_on_first_cell(db, model_id, tmp_path, lambda data: data["containers"]
                                 ["shared"].append("--ulimit memlock=-1"))
    assert "  --ulimit memlock=-1 \\\n" in got["docker_en"]
    assert got["docker_en"] != _expected(db, model_id, sel)["docker_en"]


def _helper_cases() -> dict:
    import random

    rng = random.Random(5)
    fmt = [0.125, 0.0125, 0.00125, 2.675, 1.005, 1.125, 9.995, 9.999, 10.05, 10.25, 0.95, 0.995,
           0.1, 1.0, 10.0, 0.0001234, 123456.789, 3.99, 0.086, 0.43, 5.125]
    fmt += [rng.uniform(0.001, 50) for _ in range(300)] + [2 ** -k for k in range(1, 20)]
    quote = ["", "plain", "a b", "it's", '{"enable_multithread_load": true}', "<rank>",
             "{x}", "}x", "x{y}", "<node0-ip>:20000", "a=b", "$HOME", "tab\there", "ünï", "a;b"]
    parse = ["--tp-size 8", "--a=1 --b 2 3", "--x 'a b' --y \"c \\\"d\\\"\"", "--m '{\"k\": 1}'",
             "bare --x", "--q 'open", "--e a\\ b"]
    fill = [{"text": t, "names": {"a": 3, "b": "16", "c": 2.5, "none": None, "t": True}}
            for t in ("--x {a}", "{b // a}", "{b / 4}", "{a * (a + 1) - 2}", "{{KEEP}} {a}",
                      "{c * 2}", "{c}", "{none}", "{t}", "{b}", "{missing}", "{a / 0}", "{a +}")]
    ctx = {"values": {"hw": "b200", "role": "decode", "tp": "16", "hidden": "", "n": 2, "f": True},
           "flags": {"--tp-size": ["16"], "--flag": [], "--algo": ["dspark"], "--ep-size": ["8"]},
           "cell_flags": {"--pp-size": ["2"]}, "env": {"SGLANG_X": "1"}}
    unknown = {"values": {}, "flags": None, "cell_flags": None, "env": None}
    conds = [{}, {"hw": "b200"}, {"hw": ["b300", "b200"]}, {"tp": {"gt": 8}}, {"tp": {"le": 8}},
             {"n": {"ge": 2, "lt": 3}}, {"f": True}, {"f": "true"}, {"hidden": ""},
             {"hidden": {"not_in": ["a", "b"]}}, {"missing": "x"}, {"not": {"missing": "x"}},
             {"any": [{"missing": "x"}, {"hw": "b200"}]}, {"any": [{"missing": "x"}, {"hw": "a3"}]},
             {"all": [{"hw": "b200"}, {"missing": 1}]}, {"has": ["--tp-size"]},
             {"lacks": ["--tp-size"]}, {"has_any": ["--no", "--flag"]},
             {"flag": {"--flag": True}}, {"flag": {"--algo": {"ieq": "DSPARK"}}},
             {"flag": {"--tp-size": {"gt": 8}, "--nope": 1}},
             {"cell_flag": {"--pp-size": {"gt": 1}}},
             {"cell_has": ["--pp-size"]}, {"env_has": ["SGLANG_X"]}, {"env": {"SGLANG_X": "1"}},
             {"env_has_any": ["A", "B"]}, {"role": {"ne_var": "hw"}},
             {"role": {"ne_var": "missing"}}, {"flag": {"--tp-size": {"gt_flag": "--algo"}}}, {"flag": {"--tp-size": {"gt_flag": "--ep-size"}}},
             {"flag": {"--ep-size": {"gt_flag": "--tp-size"}}},
             {"flag": {"--tp-size": {"gt_flag": "--nope"}}}, {"flag": {"--tp-size": {"gt_flag": "--flag"}}},
             {"cell_flag": {"--pp-size": {"gt_flag": "--tp-size"}}},
             {"flag": {"--tp-size": {"gt": 1, "gt_flag": "--tp-size"}}},
             {"tp": {"eq": 16}}, {"tp": {"in": [8, 16]}}, {"hw": {"gt": 1}}, {"role": None}]
    # the Playground walks the tree as the export ships it (Node.json); Python parses the mapping
    from macros.engine.conditions import parse as parse_condition
    evaluate = [{"written": c, "cond": parse_condition(c).json(), **known}
                for known in (ctx, unknown) for c in conds]
    numbers = ["8", "0", "-8", "+8", "1_6", " 8 ", "8.0", "NaN", "inf", "-inf", "1e3", "0.5", "1",
               "1.5", "0", "65536", "128k", "1.5k", "4.35k", "1Mi", "1.5Mi", "2Gi", "1T", "1K",
               "abc", "", "70000", "65535", "<rank>"]
    value = [{"flag": f, "values": [v]} for f in ("--tp-size", "--mem-fraction-static",
                                                   "--context-length", "--port", "--node-rank")
             for v in numbers]
    value += [{"flag": "--kv-cache-dtype", "values": v} for v in (["fp8_e4m3"], ["fp9"], [],
                                                                   ["auto", "fp8_e4m3"])]
    value += [{"flag": "--enable-metrics", "values": v} for v in ([], ["true"])]
    # a model's branch_values entry for the flag: those values pass, any other is judged
    branch = {"--kv-cache-dtype": {"fp9": "a branch"}, "--tp-size": {"eight": "a branch"},
              "--enable-metrics": {"true": "a branch"}}
    value += [{"flag": f, "values": v, "added": branch[f]}
              for f, v in (("--kv-cache-dtype", ["fp9"]), ("--kv-cache-dtype", ["fp10"]),
                           ("--kv-cache-dtype", ["fp9", "auto"]), ("--kv-cache-dtype", []),
                           ("--tp-size", ["eight"]), ("--tp-size", ["0"]),
                           ("--enable-metrics", ["true"]))]
    field = [8, 0, 0.5, 1.25, 2.35, 27648, 13824.5, 56171520, 4856.0, 0.05, 999.95, "auto"]
    return {"fmt": fmt, "quote": quote, "parse": parse, "fill": fill, "evaluate": evaluate,
            "value": value, "field": field}


def test_helpers_match_python(tmp_path, db):
    """Number formatting (Python's round-half-even ties), shell quoting, flag parsing,
    {expression} templates and three-valued conditions, case by case."""
    from macros.engine import calculator, conditions, templates
    from macros.engine.flags import parse_flag_text, quote

    from macros.engine.flags import READER_PLACEHOLDERS

    from macros.engine.model import branch_value_problem
    from macros.site.export import export_model

    cases = _helper_cases()
    cases["placeholders"] = sorted(READER_PLACEHOLDERS)
    exported = export_model(db, next(iter(db.models)), "en")["catalog"]["flags"]
    for case in cases["value"]:  # the spec as the Playground receives it
        spec = db.catalog.flags[case["flag"]]
        case["spec"] = exported.get(case["flag"]) or {
            "takes_value": spec.takes_value, "nargs": spec.nargs, "type": spec.type,
            "choices": list(spec.choices) if spec.choices else None, "late_choices": None,
            "bound": dataclasses.asdict(spec.bound) if spec.bound else None}
    (tmp_path / "cases.json").write_text(json.dumps(cases), encoding="utf-8")
    subprocess.run([NODE, str(ROOT / "tests" / "js" / "helpers.mjs"), str(tmp_path / "cases.json"),
                    str(tmp_path / "out.json")], check=True, capture_output=True, timeout=60)
    got = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))

    class Ctx:
        def __init__(self, c):
            self.c = c

        def value(self, key):
            return self.c["values"].get(key)

        def flags(self):
            f = self.c["flags"]
            return None if f is None else {k: tuple(v) for k, v in f.items()}

        def cell_flags(self):
            f = self.c["cell_flags"]
            return None if f is None else {k: tuple(v) for k, v in f.items()}

        def env(self):
            return self.c["env"]

    def safe(fn):
        try:
            return {"ok": fn()}
        except Exception:
            return {"error": True}

    want = {
        "fmt": [calculator.fmt(v) for v in cases["fmt"]],
        "quote": [quote(v) for v in cases["quote"]],
        "parse": [safe(lambda t=t: [[f.name, list(f.values)] for f in parse_flag_text(t)])
                  for t in cases["parse"]],
        "fill": [safe(lambda c=c: templates.fill(c["text"], lambda n: c["names"][n]))
                 for c in cases["fill"]],
        "evaluate": [conditions.parse(c["written"]).holds(Ctx(c)) for c in cases["evaluate"]],
        "value": [branch_value_problem(db.catalog.flags[c["flag"]], tuple(c["values"]),
                                       {c["flag"]: c["added"]} if "added" in c else {})
                  for c in cases["value"]],
        "field": [calculator.field(v) for v in cases["field"]],
    }
    for key, values in want.items():
        assert len(got[key]) == len(values) == len(cases[key]), f"{key}: JS answered " \
            f"{len(got[key])} of {len(cases[key])} cases"
        bad = [(case, w, g) for case, w, g in zip(cases[key], values, got[key]) if w != g]
        assert not bad, f"{key}: {len(bad)} differ, e.g. (case, python, js): {bad[:3]}"


def test_js_applies_the_catalogs_flag_bounds_and_negations_as_python_does(model_id, recipes_copy,
                                                                         tmp_path):
    """A server fact of flag-bounds.yaml (an EP wider than TP) and a negated flag (the --no-
    form of a BooleanOptionalAction flag no model names) in a cell: the Playground's command,
    diagnostics and effective configuration are Python's."""
    from helpers.models import edit_yaml
    from macros.engine.database import load_database

    base = load_database(recipes_copy)
    catalog = base.serving(base.model(model_id)).catalog  # the model's own CLI
    negation = next((s.negations[0] for _, s in sorted(catalog.flags.items()) if s.negations),
                    None)
    bound = next(((f, o) for f, (o, _, strict) in sorted(catalog.below.items()) if not strict),
                 None)
    if negation is None and bound is None:
        pytest.skip(f"{model_id}'s CLI has no --no-X flag and no at_most bound in flag-bounds.yaml")
    bounded, by = bound or (None, None)
    limit = next((int(f.value) for f in base.model(model_id).cell_flags[0]
                  if f.name == by and f.value.isdigit()), 1)

    def change(data):
        flags = [f for f in data["cells"][0]["flags"] if not (bounded and f.startswith(bounded))]
        flags[1:1] = ([f"{bounded} {limit * 2}"] if bounded else []) + ([negation] if negation
                                                                          else [])
        data["cells"][0]["flags"] = flags
    edit_yaml(recipes_copy / model_id / "cells.yaml", change)
    copy = load_database(recipes_copy)
    got, sel = _js_on_first_cell(copy, model_id, tmp_path, lambda data: None)
    want = _expected(copy, model_id, sel)
    if negation:
        assert negation in want["command_en"]
    if bounded:
        assert any(f"must be at most {by}" in d[2] for d in want["diagnostics_en"])
    for key in ("command_en", "diagnostics_en", "effective", "rules"):  # an English export
        assert got[key] == want[key], key


def test_a_renamed_port_flag_ends_the_playgrounds_commands_as_pythons(model_id, recipes_copy,
                                                                     tmp_path):
    """The Playground's splice and client port read the port role too: on a copy whose port
    flag is spelt otherwise, every cell's command and docker line are Python's."""
    from macros.engine.database import load_database

    new = rename_port(recipes_copy)[model_id]
    db = load_database(recipes_copy)
    batch = list(deployment_selections(db, model_id))[:60]
    (tmp_path / "sel.json").write_text(json.dumps(batch), encoding="utf-8")
    path = _export(db, model_id, "en", tmp_path / "en.json")
    subprocess.run([NODE, str(RUNNER), str(path), str(path), str(tmp_path / "sel.json"),
                    str(tmp_path / "out.json")], check=True, capture_output=True, timeout=300)
    results = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))["results"]
    for selection, got in zip(batch, results):
        want = _expected(db, model_id, selection)
        assert new in want["command_en"]
        assert got["command_en"] == want["command_en"], selection
        assert got["docker_en"] == want["docker_en"], selection
