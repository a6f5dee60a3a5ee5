"""``recipes check`` on the diffusion CLI: a ``sglang serve`` of a diffusion model is judged by
the diffusion server's catalog (recipes/catalog/sglang-diffusion.json), ``sglang generate`` by its
own, and the choice between the two CLIs is the one ``sglang serve`` makes (``--model-type``,
the diffusion registry's names, ``--pipeline-class-name``), else the command's flags."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from macros.engine import diffusion_check
from macros.engine.check import check_text

CATALOG = Path(__file__).resolve().parents[2] / "recipes" / "catalog"


def found(db, text: str, **kw) -> list[tuple[str, str, str]]:
    return [(f.severity.value, f.rule, f.message) for f in check_text(db, text, **kw)]


def rules(db, text: str, **kw) -> list[str]:
    return [rule for _, rule, _ in found(db, text, **kw)]


@pytest.mark.parametrize("args, cli, by", [
    (["--model-path", "MiniMaxAI/MiniMax-H3", "--num-gpus", "4"], "diffusion", "registry"),
    (["MiniMaxAI/MiniMax-H3"], "diffusion", "registry"),  # the positional model
    (["--model-path", "/data/hf/models--minimaxai--minimax-h3/snapshots/x"], "diffusion",
     "registry"),  # a Hugging Face cache folder of a registered pattern
    (["--model-path", "Qwen/Qwen-Image-Edit"], "diffusion", "registry"),  # short name inside
    (["--model-path", "Qwen/Qwen3-8B", "--tp-size", "2"], "llm", "fallback"),
    (["--model-path", "Qwen/Qwen3-8B", "--model-type", "diffusion"], "diffusion", "model-type"),
    (["--model-type=llm", "--model-path", "MiniMaxAI/MiniMax-H3"], "llm", "model-type"),
    (["--model-path", "/m", "--pipeline-class-name", "MiniMaxH3Pipeline"], "diffusion",
     "pipeline"),
    (["--model-path", "/m", "--num-gpus", "2", "--ulysses-degree", "2"], "diffusion", "flags"),
    (["--model-path", "/m", "--tp-size", "2"], "llm", "fallback"),  # both know it: the fallback
])
def test_cli_of_makes_the_choice_sglang_serve_makes(args, cli, by):
    assert diffusion_check.cli_of(args) == diffusion_check.Choice(cli, by)


def test_the_registry_names_come_from_the_catalog_file():
    doc = json.loads((CATALOG / "sglang-diffusion.json").read_text(encoding="utf-8"))
    patterns = {r["name"][len("pattern:"):] for r in doc["registry"] if r["kind"] == "pattern"}
    assert "minimaxai/minimax-h3" in patterns
    assert diffusion_check.registry_pipeline("minimax/minimax-h3") is not None
    assert diffusion_check.registry_pipeline("moonshotai/Kimi-K3") is None


def test_a_diffusion_server_is_judged_by_the_diffusion_catalog(db):
    text = ("sglang serve --model-path MiniMaxAI/MiniMax-H3 --model-variant fl2va --num-gpus 4 "
            "--ulysses-degree 4 --performance-mode speed --use-fsdp-inference true --port 30010")
    assert [r for r in rules(db, text) if r.startswith("catalog.")] == []
    bad = found(db, "sglang serve --model-path MiniMaxAI/MiniMax-H3 --mem-fraction-static 0.8")
    assert ("error", "catalog.unknown-flag", "unknown flag --mem-fraction-static for "
            "sglang-diffusion 0.5.23 (none of the 198 known names is close)") in bad


def test_its_values_are_its_own_choices(db):
    bad = found(db, "sglang serve MiniMaxAI/MiniMax-H3 --performance-mode fastest "
                    "--use-fsdp-inference maybe")
    messages = [m for s, r, m in bad if r.startswith("catalog.")]
    assert any("--performance-mode fastest" in m and "manual, auto, speed, memory" in m
               for m in messages)
    assert any("--use-fsdp-inference maybe" in m and "true, false" in m for m in messages)


def test_option_families_and_model_type_are_read_as_the_server_reads_them(db):
    text = ("sglang serve --model-type diffusion --model-path /models/x "
            "--component-paths.transformer MiniMaxAI/MiniMax-H3/transformer "
            "--transformer-weights-path /w.safetensors --text-encoder-path /te "
            "--component-quantization-ignored-layers.transformer blocks.0.attn token_refiner")
    assert [r for r in rules(db, text) if r.startswith("catalog.")] == []


def test_a_served_name_of_a_recipe_model_is_served_by_its_cli(db):
    """Kimi-K3 is no diffusion model the registry knows; the recipes say which CLI serves it,
    so a diffusion flag on its command is an unknown flag of the LLM server."""
    name = next(m for m in db.models.values() if m.info.cli == "llm").info.model_names[-1].name
    bad = found(db, f"sglang serve --model-path {name} --num-gpus 4")
    assert any(r == "catalog.unknown-flag" and "for sglang 0.5.23" in m for _, r, m in bad)
    assert "check.cli-by-flags" not in [r for _, r, _ in bad]


def test_sglang_generate_is_read_with_its_own_flags(db):
    text = ("sglang generate --model-path MiniMaxAI/MiniMax-H3 --model-variant fl2va "
            "--quantization convrot_int8 --attention-backend fa --performance-mode memory "
            "--prompt 'A cat walking on a sunny beach.' --save-output")
    assert [r for r in rules(db, text) if r.startswith(("catalog.", "parse."))] == []
    bad = found(db, "sglang generate --model-path MiniMaxAI/MiniMax-H3 --promt x")
    assert any(r == "catalog.unknown-flag" and "--promt" in m for _, r, m in bad)


def test_a_model_it_cannot_see_is_told_by_its_flags_with_a_note(db):
    got = found(db, "sglang serve --model-path /models/my-video --num-gpus 2 "
                    "--ulysses-degree 2 --use-fsdp-inference true")
    assert ("info", "check.cli-by-flags",
            "cannot tell whether /models/my-video is a diffusion model: sglang serve would look "
            "for its model_index.json, locally or on the Hub; judged by the diffusion CLI, whose "
            "flags it uses (add --model-type diffusion to say so)") in got
    assert not [r for _, r, _ in got if r.startswith("catalog.")]


def test_the_programs_are_listed_once_each():
    from macros.engine import programs
    names = programs.names()
    assert names.count("sglang serve") == 1 and "sglang generate" in names
