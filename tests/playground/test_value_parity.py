"""The Playground judges a flag value as the checker does where a bound allows a sentinel
(``also``: -1 turns chunked prefill off) and where SGLang refuses a decimal IEC size with a
reason of its own."""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess

import pytest

from helpers.models import ROOT
from macros.engine.catalog import value_problem

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None,
                                reason="node is not installed (apt-get install nodejs)")

CASES = [("--chunked-prefill-size", v) for v in ("-1", "-2", "0", "1", "8192", "-1.0")] + \
        [("--context-length", v) for v in ("1.5Mi", "1.5Ki", "007.25Gi", "1.5M", "2Mi")]


def _spec_as_exported(spec) -> dict:
    return {"takes_value": spec.takes_value, "nargs": spec.nargs, "type": spec.type,
            "choices": list(spec.choices) if spec.choices else None, "late_choices": None,
            "bound": dataclasses.asdict(spec.bound) if spec.bound else None}


def test_the_playground_gives_the_checkers_verdict_on_sentinels_and_decimal_iec_sizes(db,
                                                                                    tmp_path):
    value = [{"flag": flag, "values": [v], "spec": _spec_as_exported(db.catalog.flags[flag])}
             for flag, v in CASES]
    cases = {"fmt": [], "quote": [], "parse": [], "fill": [], "evaluate": [], "field": [],
             "value": value}
    (tmp_path / "cases.json").write_text(json.dumps(cases), encoding="utf-8")
    subprocess.run([NODE, str(ROOT / "tests" / "js" / "helpers.mjs"), str(tmp_path / "cases.json"),
                    str(tmp_path / "out.json")], check=True, capture_output=True, timeout=60)
    got = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))["value"]
    want = [value_problem(db.catalog.flags[flag], (v,)) for flag, v in CASES]
    assert got == want
    assert want[0] is None and want[1].startswith("--chunked-prefill-size -2: must be")
    assert want[8] == ("--context-length 007.25Gi: '007.25Gi' has a decimal with an IEC "
                       "suffix, which SGLang refuses: write an integer IEC size such as '7Gi' "
                       "or an SI size such as '007.25G'")
