"""SGLang's ``--config FILE``: its keys are checked as the flags each server makes of them (the
LLM server's merger: a key is the flag; the diffusion server's ServerArgs: a key is the field
a flag stores) when the file is beside the checked text; otherwise a note says so once. The
model it names is the command's for ``python3 -m sglang.launch_server``; ``sglang serve`` picks
its server by the model on its command line before any file is read, so there it must be."""

from __future__ import annotations

from macros.engine.check import check_text


def _rules(findings):
    return [(f.severity.value, f.rule) for f in findings]


def _model_path(db, model_id):
    return db.model(model_id).info.model_names[0].name


def test_the_config_files_keys_are_checked_as_flags(db, tmp_path):
    (tmp_path / "serve.yaml").write_text("model-path: m\ntp-size: 2\nkv-cache-dtype: fp8\n"
                                         "trust-remote-code: true\n")
    found = check_text(db, "sglang serve --model-path m --config serve.yaml --port 30000",
                       base_dir=tmp_path)
    [bad] = [f for f in found if f.severity.value == "error"]
    assert bad.rule == "catalog.bad-value" and bad.flags == ["--kv-cache-dtype"]
    assert "from --config serve.yaml, line 3" in bad.message


def test_the_command_line_wins_over_the_file_without_a_repeated_flag(db, tmp_path):
    (tmp_path / "serve.yaml").write_text("model-path: m\nport: 8000\n")
    found = check_text(db, "sglang serve --config serve.yaml --port 30000", base_dir=tmp_path)
    assert [f for f in found if f.rule == "catalog.repeated-flag"] == []


def test_the_model_is_taken_from_the_config_file_by_launch_server(db, tmp_path):
    """With several models, the served name in the file tells whose rules apply: the same
    findings as with the model given on the command line."""
    model_id = next(iter(db.models))
    name = _model_path(db, model_id)
    (tmp_path / "serve.yaml").write_text(f"model-path: {name}\n")
    program = "python3 -m sglang.launch_server"
    from_file = check_text(db, f"{program} --config serve.yaml", base_dir=tmp_path)
    on_line = check_text(db, f"{program} --model-path {name}")
    assert _rules(from_file) == _rules(on_line)
    if len(db.models) > 1:
        assert "check.model-unknown" not in [f.rule for f in from_file]


def test_sglang_serve_needs_its_model_on_the_command_line(db, tmp_path):
    """sglang serve looks for the model on its command line to pick its server, before it
    reads --config: a model only in the file, or only as an abbreviation, stops it."""
    name = _model_path(db, next(iter(db.models)))
    (tmp_path / "serve.yaml").write_text(f"port: 30000\nmodel-path: {name}\n")
    [bad] = [f for f in check_text(db, "sglang serve --config serve.yaml", base_dir=tmp_path)
             if f.severity.value == "error"]
    assert bad.rule == "catalog.missing-model" and "--config serve.yaml, line 2" in bad.message
    assert "on the command line" in bad.message
    short = db.catalog.roles["model"][0][:-2]
    found = check_text(db, f"sglang serve {short} {name}")
    assert "catalog.missing-model" in [f.rule for f in found]
    for text in (f"sglang serve --model-path {name} --config serve.yaml",
                 f"sglang serve {name} --config serve.yaml"):
        assert [f for f in check_text(db, text, base_dir=tmp_path)
                if f.severity.value == "error"] == [], text


def test_a_config_file_not_beside_the_text_is_a_note_said_once(db, tmp_path):
    text = ("sglang serve --model-path m --config a.yaml\n"
            "python -m sglang.launch_server --config b.yaml\n")
    found = check_text(db, text, base_dir=tmp_path)
    assert [f.rule for f in found if f.rule == "check.config-unread"] == ["check.config-unread"]
    assert [f for f in found if f.severity.value == "error"] == []  # no missing --model-path
    # without a folder to look in (text on stdin) it is the same note
    assert "check.config-unread" in [f.rule for f in check_text(db, text)]
    # the file cannot give sglang serve its model, read or not
    assert "catalog.missing-model" in [f.rule for f in check_text(db, "sglang serve --config "
                                                                  "a.yaml", base_dir=tmp_path)]


def _diffusion(db):
    """A diffusion model of the recipes (its served name) and its server's catalog."""
    from macros.engine import diffusion_check
    model = next((m for m in db.models.values() if m.info.cli == "diffusion"), None)
    if model is None:
        import pytest
        pytest.skip("no diffusion model in the recipes")
    return model.info.model_names[0].name, diffusion_check.serve_parser(db, db.serving(
        model).catalog.version)


def test_the_diffusion_servers_config_keys_are_the_fields_its_flags_store(db, tmp_path):
    """ServerArgs takes a key as a field: the flag's dest is read and checked as the flag; the
    flag's own spelling is a key it ignores, an error naming the key to write."""
    name, catalog = _diffusion(db)
    number = next(s for s in catalog.flags.values() if s.type == "int" and s.takes_value
                  and s.bound is None and s.choices is None and "-" in s.name[2:])
    other = next(s for s in catalog.flags.values() if s.dest and s.dest != s.name[2:].replace(
        "-", "_") and s.takes_value)  # a flag stored under another name than its own
    (tmp_path / "serve.yaml").write_text(f"{number.stored_as}: 2\n{other.stored_as}: 1\n")
    found = check_text(db, f"sglang serve --model-path {name} --config serve.yaml",
                       base_dir=tmp_path)
    assert [f for f in found if f.rule in ("check.config", "catalog.unknown-flag")] == [], found
    (tmp_path / "serve.yaml").write_text(f"{number.name[2:]}: 2\n{number.stored_as}: two\n")
    found = check_text(db, f"sglang serve --model-path {name} --config serve.yaml",
                       base_dir=tmp_path)
    [ignored] = [f for f in found if f.rule == "check.config"]
    assert "line 1" in ignored.message and f"write {number.stored_as}" in ignored.message
    [bad] = [f for f in found if f.rule == "catalog.bad-value"]
    assert bad.flags == [number.name] and "from --config serve.yaml, line 2" in bad.message


def test_an_option_the_merger_refuses_is_an_error(db, tmp_path):
    (tmp_path / "serve.yaml").write_text("model-path: m\nenable-dp-attention: true\n")
    [bad] = [f for f in check_text(db, "python3 -m sglang.launch_server --config serve.yaml",
                                   base_dir=tmp_path) if f.severity.value == "error"]
    assert bad.rule == "check.config" and "line 2" in bad.message
    assert "on the command line" in bad.message


def test_a_config_file_that_is_no_mapping_is_an_error(db, tmp_path):
    (tmp_path / "serve.yaml").write_text("- model-path\n")
    found = check_text(db, "sglang serve --config serve.yaml", base_dir=tmp_path)
    assert ("error", "check.config") in _rules(found)


def test_the_cli_reads_the_config_beside_the_checked_file(cli, tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "serve.yaml").write_text("model-path: m\ntp-size: zero\n")
    page = tmp_path / "docs" / "serve.sh"
    page.write_text("sglang serve --model-path m --config serve.yaml\n")
    r = cli("check", "--format", "json", "--file", str(page))
    assert r.code == 1
    [bad] = [d for d in r.json()["diagnostics"] if d["severity"] == "error"]
    assert bad["flags"] == ["--tp-size"] and "serve.yaml, line 2" in bad["message"]


def _docker(image):
    return (f"docker run --gpus all --shm-size 32g -p 30000:30000 {image} "
            "sglang serve --model-path m --tp-size 2")


def _repository(db):
    return next(iter(db.models.values())).info.docker_images[0].image.rsplit(":", 1)[0]


def test_a_release_image_of_the_official_repository_is_no_foreign_image(db):
    repo = _repository(db)
    for tag in ("latest", f"v{db.catalog.version}-cu129", db.releases.order[0]):
        found = [f.rule for f in check_text(db, _docker(f"{repo}:{tag}"))]
        assert "docker.foreign-image" not in found, tag
    for tag in ("nonsense", f"v{db.catalog.version}-cu129-foreign"):
        assert "docker.foreign-image" in [f.rule for f in check_text(db, _docker(f"{repo}:{tag}"))]
    assert "docker.foreign-image" in [f.rule for f in check_text(db, _docker("example/x:1"))]


def test_an_official_release_image_is_judged_as_its_release(db):
    old = db.releases.order[0]
    gone = next(n for n in db.catalog.flags if db.releases.catalog(old).lookup(n).spec is None
                and not db.catalog.flags[n].takes_value and db.catalog.flags[n].programs is None)
    text = _docker(f"{_repository(db)}:v{old}-cu129").replace("--tp-size 2", gone)
    assert "catalog.unknown-flag" in [f.rule for f in check_text(db, text)]
    assert "catalog.unknown-flag" not in [f.rule for f in check_text(db, text.replace(
        f"v{old}-cu129", "latest"))]
