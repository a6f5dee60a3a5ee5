"""Run modes: every selection as a docker run line, a curl request and an OpenAI client call,
generated from hardware.yaml's container data and the model's own data, and checked.

Every test walks every model, every platform it supports (one cell each) or every cell."""

from __future__ import annotations

import html
import re

import pytest

from macros.site import render, runmodes
from macros.engine.check import check_text
from macros.engine.database import load_database
from macros.engine.errors import RecipeError
from macros.engine.flags import env_text, quote
from macros.engine.resolve import resolve
from macros.engine.selection import Selection
from macros.site.pages import Site

from helpers.models import MODELS, edit_yaml


def _resolution(db, model_id, match):
    model = db.model(model_id)
    return model, resolve(db, Selection.flat(model, match))


def _one_cell_per_platform():
    """(model, the first cell of each platform the model runs on)."""
    from macros.engine.database import cached_database

    db = cached_database()
    out = []
    for model_id in MODELS:
        model = db.model(model_id)
        for hw in model.info.hardware:
            cell = next((c for c in model.cells if c.match["hw"] == hw), None)
            if cell is not None:
                out.append((model_id, dict(cell.match)))
    return out


PLATFORM_CELLS = _one_cell_per_platform()
IDS = [f"{m}-{'-'.join(c.values())}" for m, c in PLATFORM_CELLS]


def _has_image(model_id: str, match: dict) -> bool:
    """An image is published for the cell; where none is, its docker text is the install
    route (tests/engine/test_python_only.py), with no docker line to test here."""
    from macros.engine.database import cached_database

    db = cached_database()
    return resolve(db, Selection.flat(db.model(model_id), match)).docker_image is not None


IMAGED = [(m, c) for m, c in PLATFORM_CELLS if _has_image(m, c)]
IMAGED_IDS = [f"{m}-{'-'.join(c.values())}" for m, c in IMAGED]


def _every_cell(imaged: bool = False):
    from macros.engine.database import cached_database

    db = cached_database()
    return [(m, dict(c.match)) for m in MODELS for c in db.model(m).cells
            if not imaged or _has_image(m, dict(c.match))]


def _option(text: str) -> str:
    return runmodes._option(text)


def _docker_lines(text: str) -> list[str]:
    """The docker run line without hint comments, its continuation marks and indents."""
    return [line.removesuffix(" \\").strip() for line in text.splitlines()
            if not line.startswith("#")]


@pytest.mark.parametrize("model_id,match", IMAGED, ids=IMAGED_IDS)
def test_docker_line_carries_the_vendors_options_then_the_image_then_the_serve_command(
        db, model_id, match):
    model, res = _resolution(db, model_id, match)
    platform = db.platforms[res.hw]
    run = db.containers.vendors[platform.vendor.value]
    lines = _docker_lines(runmodes.docker_text(db, model, res, "en"))
    image_at = lines.index(res.docker_image)
    assert lines[0] == "docker run"
    options = lines[1:image_at]
    assert options[:len(run.args)] == [_option(a) for a in run.args]
    for shared in [*db.containers.shared, *db.containers.cache]:
        assert _option(shared) in options
    assert lines[image_at + 1] == "sglang serve"
    assert lines[image_at + 2:] == [f.text() for f in res.flags]


@pytest.mark.parametrize("model_id,match", IMAGED, ids=IMAGED_IDS)
def test_docker_line_maps_every_accelerator_device_a_vendor_names_one_by_one(
        db, model_id, match):
    model, res = _resolution(db, model_id, match)
    platform = db.platforms[res.hw]
    run = db.containers.vendors[platform.vendor.value]
    text = runmodes.docker_text(db, model, res, "en")
    devices = platform.gpus_per_node * (platform.devices_per_card or 1)
    if run.per_device is None:
        assert "{index}" not in text and "davinci0" not in text
        return
    for i in range(devices):
        assert f" {run.per_device.replace('{index}', str(i))}" in text
    assert run.per_device.replace("{index}", str(devices)) not in text


@pytest.mark.parametrize("model_id,match", _every_cell(imaged=True))
def test_docker_line_publishes_the_port_of_a_one_node_server_and_shares_the_host_network_otherwise(
        db, model_id, match):
    model, res = _resolution(db, model_id, match)
    options = _docker_lines(runmodes.docker_text(db, model, res, "en"))
    port = runmodes.server_port(db, res)
    published = _option(db.containers.publish.replace("{port}", port))
    host = _option(db.containers.host_network)
    vendor = db.containers.vendors[db.platforms[res.hw].vendor.value]
    if res.nodes > 1 or res.pd is not None or vendor.host_network:
        assert host in options and published not in options
    else:
        assert published in options and host not in options


@pytest.mark.parametrize("model_id,match", IMAGED, ids=IMAGED_IDS)
def test_docker_line_passes_the_commands_environment_in_its_order(db, model_id, match):
    model, res = _resolution(db, model_id, match)
    lines = _docker_lines(runmodes.docker_text(db, model, res, "en"))
    passed = [line.split(" ", 1)[1] for line in lines
              if line.startswith(db.containers.env + " ")]
    assert passed == [env_text(e) for e in res.env]


@pytest.mark.parametrize("model_id,match", IMAGED, ids=IMAGED_IDS)
def test_docker_line_keeps_the_home_folder_of_the_cache_mount_for_the_shell(db, model_id, match):
    model, res = _resolution(db, model_id, match)
    text = runmodes.docker_text(db, model, res, "en")
    assert "'~" not in text
    assert "-v ~/" in text


@pytest.mark.parametrize("model_id,match", _every_cell())
def test_curl_and_the_client_reach_the_server_or_the_router_of_a_pd_server(db, model_id, match):
    model, res = _resolution(db, model_id, match)
    port = str(model.info.pd.router.port) if res.pd else runmodes.server_port(db, res)
    curl = runmodes.curl_text(db, model, res, "en")
    assert f'"model": "{res.model_name}"' in curl
    client = runmodes.python_text(db, model, res, "en")
    if model.info.request is not None:  # a diffusion server's job (model.yaml request)
        url = f"http://{runmodes.HOST}:{port}{model.info.request.endpoint}"
        assert curl.splitlines()[0] == f"curl -sS -X POST {url} \\"
        assert f'url = "{url}"' in client and f'"model": "{res.model_name}",' in client
        return
    assert curl.splitlines()[0] == \
        f"curl http://{runmodes.HOST}:{port}/v1/chat/completions \\"
    assert f'base_url="http://{runmodes.HOST}:{port}/v1"' in client
    assert f'model="{res.model_name}",' in client


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("model_id", MODELS)
def test_curl_and_the_client_send_the_message_in_the_pages_language(db, model_id, lang):
    model = db.model(model_id)
    res = resolve(db, Selection.flat(model, model.cells[0].match))
    if model.info.request is not None:  # a job carries the model's declared body, no message
        body = {"model": res.model_name, **model.info.request.body_of(res.request)}
        assert runmodes.curl_text(db, model, res, lang).splitlines()[-1] == \
            "  -d " + quote(runmodes.literal(body))
        return
    message = db.t(lang, "ui.run.message", model)
    assert f'"content": "{message}"' in runmodes.python_text(db, model, res, lang)
    assert runmodes.curl_text(db, model, res, lang).splitlines()[-1] == \
        "  -d " + quote(f'{{"model": "{res.model_name}", "messages": [{{"role": "user", '
                        f'"content": "{message}"}}]}}')


@pytest.mark.parametrize("model_id", MODELS)
def test_command_json_carries_the_docker_curl_and_python_texts(cli, db, model_id):
    model = db.model(model_id)
    match = model.cells[0].match
    args = ["command", model_id, "--format", "json", "--lang", "ko"]
    for key, value in match.items():
        args += ["--set", f"{key}={value}"]
    got = cli(*args).json()
    res = resolve(db, Selection.flat(model, match))
    assert got["docker"] == runmodes.docker_text(db, model, res, "ko")
    assert got["curl"] == runmodes.curl_text(db, model, res, "ko")
    assert got["python"] == runmodes.python_text(db, model, res, "ko")


# --- the checker ------------------------------------------------------------------------------

def _context(res) -> dict:
    return {**res.match, **{k: v for k, v in res.picks.items() if v is not None}}


@pytest.mark.parametrize("model_id,match", _every_cell())
def test_every_generated_docker_line_and_curl_request_checks_clean(db, model_id, match):
    model, res = _resolution(db, model_id, match)
    text = runmodes.docker_text(db, model, res, "en") + "\n" + \
        runmodes.curl_text(db, model, res, "en")
    found = check_text(db, text, model_id=model_id, sglang=res.sglang, **_context(res))
    assert [f for f in found if f.severity.value == "error" or f.rule.startswith("docker.")] \
        == []


@pytest.mark.parametrize("model_id,match", IMAGED, ids=IMAGED_IDS)
def test_a_docker_line_may_start_the_server_as_python3_m_sglang_launch_server(
        db, model_id, match):
    model, res = _resolution(db, model_id, match)
    if model.info.cli != "llm":
        pytest.skip(f"python3 -m sglang.launch_server runs the LLM server only; {model_id}'s "
                    f"cli is {model.info.cli} (model.yaml)")
    text = runmodes.docker_text(db, model, res, "en").replace(
        "  sglang serve \\\n", "  python3 -m sglang.launch_server \\\n")
    found = check_text(db, text, model_id=model_id, sglang=res.sglang, **_context(res))
    assert "python3 -m sglang.launch_server" in text
    assert [f for f in found if f.severity.value == "error" or f.rule.startswith("docker.")] \
        == []


@pytest.mark.parametrize("model_id,match", IMAGED, ids=IMAGED_IDS)
def test_an_unknown_docker_option_is_an_error_with_the_nearest_one(db, model_id, match):
    model, res = _resolution(db, model_id, match)
    text = runmodes.docker_text(db, model, res, "en").replace("--shm-size", "--shm-sise", 1)
    found = [f for f in check_text(db, text, model_id=model_id, **_context(res))
             if f.rule == "docker.unknown-flag"]
    assert [(f.severity.value, f.flags) for f in found] == [("error", ["--shm-sise"])]
    assert found[0].message.startswith("unknown docker run option --shm-sise (did you mean "
                                       "'--shm-size'?")


@pytest.mark.parametrize("model_id,match", IMAGED, ids=IMAGED_IDS)
def test_an_image_the_model_does_not_name_is_an_error_listing_its_images(db, model_id, match):
    model, res = _resolution(db, model_id, match)
    text = runmodes.docker_text(db, model, res, "en").replace(
        f"  {res.docker_image} \\", f"  {res.docker_image}-foreign \\")
    found = [f for f in check_text(db, text, model_id=model_id, **_context(res))
             if f.rule == "docker.foreign-image"]
    images = ", ".join(dict.fromkeys(r.image for r in model.info.docker_images if r.image))
    assert [f.message for f in found] == [
        f"image {res.docker_image}-foreign is none of {model.info.name}'s docker_images "
        f"({images})"]


def _released_images():
    """(model, a cell whose image names a release other than the pinned one)."""
    from macros.engine.database import cached_database

    db = cached_database()
    out = []
    for model_id, match in _every_cell():
        res = resolve(db, Selection.flat(db.model(model_id), match))
        if res.sglang != db.catalog.version and model_id not in {m for m, _ in out}:
            out.append((model_id, match))
    return out


@pytest.mark.parametrize("model_id,match", _released_images())
def test_the_serve_command_in_docker_is_judged_as_the_images_release(db, model_id, match):
    model, res = _resolution(db, model_id, match)
    text = runmodes.docker_text(db, model, res, "en") + " \\\n    --tp-sizes 8"
    found = [f for f in check_text(db, text, model_id=model_id, **_context(res))
             if f.rule == "catalog.unknown-flag"]
    assert [f.flags for f in found] == [["--tp-sizes"]]
    assert found[0].message.startswith(f"unknown flag --tp-sizes for sglang {res.sglang} ")


@pytest.mark.parametrize("model_id,match", IMAGED, ids=IMAGED_IDS)
def test_a_docker_line_without_its_vendors_first_option_is_a_warning_naming_it(
        db, model_id, match):
    model, res = _resolution(db, model_id, match)
    platform = db.platforms[res.hw]
    first = db.containers.vendors[platform.vendor.value].args[0]
    text = runmodes.docker_text(db, model, res, "en").replace(f"  {_option(first)} \\\n", "", 1)
    found = [f for f in check_text(db, text, model_id=model_id, **_context(res))
             if f.rule == "docker.vendor-options"]
    assert [(f.severity.value, f.message) for f in found] == [(
        "warning", f"docker run lacks {first}, which a container on {platform.label} gets "
                   f"(hardware.yaml containers.vendors.{platform.vendor.value})")]


@pytest.mark.parametrize("model_id,match", IMAGED, ids=IMAGED_IDS)
def test_docker_run_without_an_image_is_an_error(db, model_id, match):
    model, res = _resolution(db, model_id, match)
    text = runmodes.docker_text(db, model, res, "en").replace(
        f"  {res.docker_image} \\\n", "")
    assert [f.message for f in check_text(db, text, model_id=model_id, **_context(res))
            if f.rule == "docker.no-image"] == \
        ["docker run names no image in front of the server command"]


@pytest.mark.parametrize("model_id,match", _every_cell())
def test_a_curl_request_to_another_port_is_an_error_naming_the_right_one(db, model_id, match):
    model, res = _resolution(db, model_id, match)
    port = runmodes.client_port(db, model, res)
    curl = runmodes.curl_text(db, model, res, "en").replace(f":{port}/", ":1234/", 1)
    found = check_text(db, curl, model_id=model_id, **_context(res))
    whose = "the router's --port (clients of a PD server reach it)" if res.pd \
        else "the server's --port"
    path = model.info.request.endpoint if model.info.request else "/v1/chat/completions"
    assert [(f.rule, f.message) for f in found] == [(
        "curl.port", f"curl sends to http://{runmodes.HOST}:1234{path} "
                     f"(port 1234), but {whose} is {port}")]


@pytest.mark.parametrize("model_id", MODELS)
def test_a_curl_request_next_to_a_router_must_use_the_routers_port(db, model_id):
    model = db.model(model_id)
    if model.info.pd is None:
        pytest.skip(f"{model_id} declares no PD")
    router = f"python3 -m sglang_router.launch_router --port {model.info.pd.router.port}"
    server_port = model.info.pd.prefill.port
    curl = f"curl http://localhost:{server_port}/v1/models"
    found = check_text(db, router + "\n" + curl, model_id=model_id)
    assert [f.message for f in found if f.rule == "curl.port"] == [
        f"curl sends to http://localhost:{server_port}/v1/models (port {server_port}), but "
        f"the router's --port is {model.info.pd.router.port}"]


def test_a_platform_vendor_without_container_options_is_a_load_error(recipes_copy):
    def drop(data):
        del data["containers"]["vendors"]["huawei"]

    edit_yaml(recipes_copy / "catalog" / "hardware.yaml", drop)
    with pytest.raises(RecipeError) as exc:
        load_database(recipes_copy)
    messages = [str(p) for p in exc.value.problems]
    assert any(re.fullmatch(r"recipes/catalog/hardware\.yaml:\d+:\d+: vendor 'huawei' has no "
                            r"entry under containers\.vendors \(entries: nvidia, amd\)", m)
               for m in messages), messages


# --- the pages --------------------------------------------------------------------------------

ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]
_CALL = re.compile(r"\{\{ run_modes\(([^)]*)\) \}\}")


def _calls(model_id: str, lang: str) -> list[tuple[str, list[str]]]:
    """Each ``run_modes`` call of the model's pages in one language: the page as the site serves
    it (``""`` for the model page, ``"commands/"`` …) and the call's arguments after the model."""
    base = ROOT / "docs" / lang / "models"
    sources = [(base / f"{model_id}.md", "")] + [
        (path, f"{path.stem}/") for path in sorted((base / model_id).glob("*.md"))]
    found = []
    for path, page in sources:
        for m in _CALL.finditer(path.read_text(encoding="utf-8")):
            args = [a.strip().strip('"') for a in m.group(1).split(",")]
            if args[0] == model_id:
                found.append((page, args[1:]))
    return found


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("model_id", MODELS)
def test_model_pages_run_one_cell_of_every_vendor_the_model_supports(db, model_id, lang):
    model = db.model(model_id)
    shown = [db.platforms[args[0]].vendor for _, args in _calls(model_id, lang)]
    assert sorted(shown) == sorted({db.platforms[h].vendor for h in model.info.hardware})


def _indented(text: str) -> str:
    return "\n".join("    " + line if line else "" for line in text.splitlines())


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("model_id", MODELS)
def test_model_pages_show_the_run_modes_of_each_call(db, built_site, model_id, lang):
    site = Site(db, lang)
    for page, args in _calls(model_id, lang):
        built = built_site / ("ko/" if lang == "ko" else "") / "models" / model_id / page
        assert site.run_modes(model_id, *args) in (built / "index.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("model_id,match", PLATFORM_CELLS, ids=IDS)
def test_run_modes_are_pip_docker_curl_and_python_tabs_with_checked_shell_blocks(
        db, model_id, match, lang):
    model, res = _resolution(db, model_id, match)
    out = Site(db, lang).run_modes(model_id, **match)
    tabs = out.split('\n=== "')[1:]
    want = [("ui.run.pip", render.command_text(db, model, res, lang), "bash"),
            ("ui.run.docker", runmodes.docker_text(db, model, res, lang), "bash")
            if res.docker_image is not None else  # none published: the install route
            ("ui.run.install", runmodes.install_text(db, model, res, lang), "bash"),
            ("ui.run.curl", runmodes.curl_text(db, model, res, lang), "bash"),
            ("ui.run.python", runmodes.python_text(db, model, res, lang), "python")]
    titles = [html.unescape(t.split('"', 1)[0]) for t in tabs]
    assert titles == [db.t(lang, text_id) for text_id, _, _ in want]
    for tab, (_, text, fence) in zip(tabs, want):
        assert f"    ```{fence}\n{_indented(text)}\n    ```" in tab
        assert ("<!-- check: model=" in tab) == (fence == "bash")
