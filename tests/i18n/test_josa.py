"""Korean particles after a value are computed from its last syllable or digit (받침), in one
function (macros/engine/josa.py) that the Playground mirrors (playground/josa.js)."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from helpers.models import ROOT
from macros.engine import josa
from macros.engine.model import fill

NODE = shutil.which("node")

CASES = [
    # (word, particle as written, the form that must follow)
    ("`--attn-dp-size 1`", "를", "을"),          # 일
    ("`--enable-dp-attention`", "는", "은"),     # …션
    ("`--moe-runner-backend`", "을", "를"),      # …드
    ("`--dp-size 8`", "으로", "로"),             # 팔: ㄹ takes 로
    ("30000", "로", "으로"),                     # 삼만
    ("`--tp-size 10`", "를", "을"),              # 십
    ("100", "가", "이"),                         # 백
    ("2", "이에요", "예요"),                      # 이
    ("TP16", "예요", "이에요"),                   # 육
    ("0.90", "로", "으로"),                       # 영 점 구 영
    ("SGLang", "는", "은"),                      # …랭
    ("vLLM", "와", "과"),                        # …엠
    ("kimi_k3", "를", "을"),                     # 삼
    ("서버(server)", "을", "를"),                 # the word before the brackets
    ("[Blackwell DCP 참고](#blackwell-dcp)", "은", "는"),
    ("레시피", "이", "가"),
    ("명령", "가", "이"),
    ("50%", "이", "가"),
    ("`calculator_table`", "는", "은"),           # 테이블
    ("`inputs_by_name`", "는", "은"),             # 네임
    ("`--kv-cache-dtype`", "가", "이"),           # 타입
    ("`spec`", "를", "을"),                       # 스펙
    ("`--set`", "가", "이"),                      # 셋
    ("`--speculative-algorithm EAGLE`", "를", "을"),  # 이글
    ("DeepEP", "이", "가"),                       # 딥이피: letters
    ("`trtllm_mla`", "이고", "고"),               # 엠엘에이
    ("ROCm", "가", "이"),                         # 록엠
    ("`mode`", "을", "를"),                       # 모드
    ("parser", "을", "를"),                       # 파서
    ("`recipes check`", "은", "는"),              # 체크
    ("`recipes catalog`", "은", "는"),            # 카탈로그
    ("`{{MODEL_NAME}}`", "는", "은"),             # 네임
    ("`SGLANG_DSV4_COMPRESS_STATE_DTYPE`", "는", "은"),  # 디타입
    ("NCCL", "를", "을"),                         # 엔씨씨엘
]


@pytest.mark.parametrize("word, written, want", CASES)
def test_the_particle_follows_the_last_sound(word, written, want):
    assert josa.form(word, written) == want


def test_a_word_that_cannot_be_read_keeps_the_particle_as_written():
    assert josa.form("→", "를") == "를"
    assert josa.form("--tp-size", "에서") == "에서"  # no particle pair: left alone


def test_korean_text_gets_the_particle_its_filled_in_value_calls_for():
    raw = "{old} 대신 {new}를 써요. {old}는 지원 중단됐어요. 포트 {port}로 보내요."
    got = fill(raw, {"old": "--enable-dp-attention", "new": "--attn-dp-size 1", "port": "30000"},
               "ko")
    assert got == ("--enable-dp-attention 대신 --attn-dp-size 1을 써요. "
                   "--enable-dp-attention은 지원 중단됐어요. 포트 30000으로 보내요.")
    assert fill("{a}는 {a}는", {"a": "x"}, "en") == "x는 x는"  # English text: untouched


def test_a_particle_inside_a_longer_word_is_not_one():
    assert fill("{flag}이라면", {"flag": "--tp-size"}, "ko") == "--tp-size이라면"
    assert fill("{flag}가능", {"flag": "--tp-size 1"}, "ko") == "--tp-size 1가능"


@pytest.mark.skipif(NODE is None, reason="node is not installed (apt-get install nodejs)")
def test_the_playground_picks_the_same_particles(tmp_path):
    words = [w for w, _, _ in CASES] + ["→", "1000", "20000", "3.10", "x(y(z))", "eng"]
    fills = [["{a}를 {b}는 {a}로", {"a": w, "b": w}] for w in words]
    script = (
        "import { form } from '" + (ROOT / "overrides/assets/recipes/playground/josa.js").as_uri()
        + "';\nimport { fill } from '"
        + (ROOT / "overrides/assets/recipes/playground/render.js").as_uri() + "';\n"
        "import { readFileSync } from 'node:fs';\n"
        "const c = JSON.parse(readFileSync(process.argv[2], 'utf8'));\n"
        "console.log(JSON.stringify({forms: c.words.map((w) => ['를','은','으로','이에요','와']"
        ".map((p) => form(w, p))), fills: c.fills.map(([r, f]) => fill(r, f, 'ko'))}));\n")
    (tmp_path / "run.mjs").write_text(script, encoding="utf-8")
    (tmp_path / "cases.json").write_text(json.dumps({"words": words, "fills": fills}),
                                         encoding="utf-8")
    done = subprocess.run([NODE, str(tmp_path / "run.mjs"), str(tmp_path / "cases.json")],
                          check=True, capture_output=True, text=True, timeout=60)
    got = json.loads(done.stdout)
    assert got["forms"] == [[josa.form(w, p) for p in ("를", "은", "으로", "이에요", "와")]
                            for w in words]
    assert got["fills"] == [fill(r, f, "ko") for r, f in fills]
