"""Issue #20, second hardening pass: ``recipes check`` knows what docker does with a run line
(another vendor's options, mounts of the host's root or a home folder, published ports out of
range or away from the server's --port, other commands chained on the line or substituted into
it), holds a curl request to the host port docker publishes, and holds its context to every
model when none is chosen; ``--set`` given twice with two values is refused by every command
that reads it.

Every command comes from the engine, for every model: its docker run mode and its curl request
as ``recipes command --format json`` prints them; options and values come from hardware.yaml's
``containers`` and the models' own data."""

from __future__ import annotations

import pytest
from helpers.models import CALCULATED, MEASURED, MODELS

from macros.site import runmodes
from macros.engine.resolve import resolve
from macros.engine.selection import Selection


def _sets(selection: dict[str, str]) -> list[str]:
    return [word for key, value in selection.items() for word in ("--set", f"{key}={value}")]


def _resolution(db, model_id, match):
    model = db.model(model_id)
    return model, resolve(db, Selection.flat(model, match))


def _imaged(db, model, cell) -> bool:
    """Whether the cell runs in a published image (a selection without one is installed with
    pip and has no docker line to check)."""
    return resolve(db, Selection.flat(model, dict(cell.match))).docker_image is not None


def _vendor_cells():
    """(model, the first cell with a docker line on each vendor the model runs on)."""
    from macros.engine.database import cached_database

    db = cached_database()
    out = []
    for model_id in MODELS:
        seen = set()
        model = db.model(model_id)
        for cell in model.cells:
            vendor = db.platforms[cell.match["hw"]].vendor.value
            if vendor not in seen and _imaged(db, model, cell):
                seen.add(vendor)
                out.append((model_id, dict(cell.match)))
    return out


def _published_cells():
    """(model, its first cell whose docker line publishes the server's port with -p)."""
    from macros.engine.database import cached_database

    db = cached_database()
    out = []
    for model_id in MODELS:
        model = db.model(model_id)
        for cell in model.cells:
            res = resolve(db, Selection.flat(model, dict(cell.match)))
            if res.docker_image is not None and not runmodes.host_network(db, res):
                out.append((model_id, dict(cell.match)))
                break
    return out


def _first_cells():
    from macros.engine.database import cached_database

    db = cached_database()
    return [(m, next(dict(c.match) for c in db.model(m).cells if _imaged(db, db.model(m), c)))
            for m in MODELS]


VENDOR_CELLS, PUBLISHED, FIRST = _vendor_cells(), _published_cells(), _first_cells()


def _ids(cases):
    return [f"{m}-{'-'.join(c.values())}" for m, c in cases]


def _run_modes(cli, model_id, match) -> dict:
    """The selection's run modes as ``recipes command --format json`` prints them."""
    r = cli("command", model_id, *_sets(match), "--format", "json")
    return r.json()


def _check(cli, text, *args) -> list[tuple[str, str, str]]:
    """(severity, rule, message) of each finding ``recipes check`` prints for ``text``."""
    r = cli("check", *args, "--format", "json", "--", text)
    assert r.code in (0, 1) and not r.err, r.err
    return [(d["severity"], d["rule"], d["message"]) for d in r.json()["diagnostics"]]


def _in_context(model_id, match) -> list[str]:
    return ["--model", model_id, *_sets(match)]


def _with_options(docker_text: str, options: list[str]) -> str:
    """The docker line with ``options`` put right after ``docker run``."""
    assert "\ndocker run \\\n" in "\n" + docker_text
    return ("\n" + docker_text).replace("\ndocker run \\\n",
                                        f"\ndocker run {' '.join(options)} \\\n", 1)[1:]


def _publish(db, port: str) -> str:
    return runmodes._option(db.containers.publish.replace("{port}", port))


def _server_port(db, model_id, match) -> str:
    return runmodes.server_port(db, _resolution(db, model_id, match)[1])


def _republished(db, model_id, match, docker_text: str, options: str) -> str:
    """The docker line with its published port replaced by ``options``."""
    published = _publish(db, _server_port(db, model_id, match))
    assert f"  {published} \\\n" in docker_text
    return docker_text.replace(f"  {published} \\\n", f"  {options} \\\n", 1)


def _other_host_port(port: str) -> str:
    return "8000" if port != "8000" else "8001"


# --- 6. docker semantics ---------------------------------------------------------------------

def _foreign_options(db, vendor: str) -> list[tuple[str, str]]:
    """(option as hardware.yaml writes it, the vendor that declares it) for every option of
    every other vendor that ``vendor`` does not declare itself."""
    c = db.containers
    own = set(c.vendors[vendor].args)
    out = []
    for other, run in c.vendors.items():
        if other == vendor:
            continue
        texts = list(run.args) + ([run.per_device.replace("{index}", "0")]
                                  if run.per_device else [])
        out += [(text, other) for text in texts if text not in own]
    return out


@pytest.mark.parametrize("model_id,match", VENDOR_CELLS, ids=_ids(VENDOR_CELLS))
def test_another_vendors_docker_options_are_each_an_error_naming_whose_they_are(
        cli, db, model_id, match):
    platform = db.platforms[match["hw"]]
    vendor = platform.vendor.value
    foreign = _foreign_options(db, vendor)
    assert foreign, "hardware.yaml declares one vendor only"
    docker_text = _run_modes(cli, model_id, match)["docker"]
    text = _with_options(docker_text, [t for t, _ in foreign])
    found = [(s, m) for s, rule, m in _check(cli, text, *_in_context(model_id, match))
             if rule == "docker.foreign-vendor-option"]
    assert [s for s, _ in found] == ["error"] * len(foreign)
    for (option, owner), (_, message) in zip(foreign, found):
        assert message.startswith(
            f"{option} is an option of {owner} containers (hardware.yaml "
            f"containers.vendors.{owner}), not of a container on {platform.label} ({vendor}): ")
        assert ", ".join(db.containers.vendors[vendor].args) in message


MOUNTS = [("-v /:/host", "root"), ("-v //:/host", "root"),
          ("--mount type=bind,source=/,target=/host", "root"),
          ("-v ~:/x", "home"), ("-v $HOME:/x", "home"), ("--volume=${HOME}/:/x", "home")]


@pytest.mark.parametrize("mount,kind", MOUNTS, ids=[m for m, _ in MOUNTS])
@pytest.mark.parametrize("model_id,match", FIRST, ids=_ids(FIRST))
def test_a_mount_of_the_hosts_root_or_a_home_folder_is_an_error(cli, model_id, match, mount,
                                                                kind):
    docker_text = _run_modes(cli, model_id, match)["docker"]
    found = [(s, m) for s, rule, m in
             _check(cli, _with_options(docker_text, [mount]), *_in_context(model_id, match))
             if rule == "docker.host-mount"]
    what = "the host's root folder (/)" if kind == "root" else "a home folder ("
    assert len(found) == 1 and found[0][0] == "error"
    assert found[0][1].startswith(f"{mount} mounts {what}")
    assert "can read and change every file" in found[0][1]


@pytest.mark.parametrize("side", ["host", "container"])
@pytest.mark.parametrize("bad", ["99999", "0", "65536"])
@pytest.mark.parametrize("model_id,match", PUBLISHED, ids=_ids(PUBLISHED))
def test_a_published_port_out_of_range_is_an_error(cli, db, model_id, match, bad, side):
    port = _server_port(db, model_id, match)
    value = f"{bad}:{port}" if side == "host" else f"{port}:{bad}"
    docker_text = _republished(db, model_id, match, _run_modes(cli, model_id, match)["docker"],
                               f"-p {value}")
    found = [(s, m) for s, rule, m in _check(cli, docker_text, *_in_context(model_id, match))
             if rule == "docker.publish"]
    assert found == [("error", f"-p {value}: the {side} port {bad} is out of range (a port is "
                               "1-65535); docker refuses the line")]


@pytest.mark.parametrize("model_id,match", PUBLISHED, ids=_ids(PUBLISHED))
def test_a_published_port_away_from_the_servers_port_is_an_error_naming_it(cli, db, model_id,
                                                                          match):
    port = _server_port(db, model_id, match)
    other = str(int(port) + 1)
    docker_text = _republished(db, model_id, match, _run_modes(cli, model_id, match)["docker"],
                               f"-p {port}:{other}")
    found = [(s, m) for s, rule, m in _check(cli, docker_text, *_in_context(model_id, match))
             if rule == "docker.publish"]
    assert len(found) == 1 and found[0][0] == "error"
    assert found[0][1].startswith(f"-p {port}:{other} publishes the container's port {other}, "
                                  "but the server listens on ")
    assert f"{port} in the container" in found[0][1]
    assert found[0][1].endswith(f"publish its port (-p HOST:{port})")


OPERATORS = [";", "&&", "||", "|", "&"]


@pytest.mark.parametrize("mode", ["docker", "command"])
@pytest.mark.parametrize("op", OPERATORS)
@pytest.mark.parametrize("model_id,match", FIRST, ids=_ids(FIRST))
def test_a_command_chained_after_the_server_is_an_error(cli, model_id, match, op, mode):
    text = _run_modes(cli, model_id, match)[mode] + f" {op} rm -rf ~"
    found = [(s, m) for s, rule, m in _check(cli, text, *_in_context(model_id, match))
             if rule == "check.chained-command"]
    assert len(found) == 1 and found[0][0] == "error"
    assert found[0][1].startswith(f"'{op}' chains rm onto the server command on this line: ")
    assert found[0][1].endswith("so whoever copies the line runs rm too; put each command on "
                                "a line of its own")


@pytest.mark.parametrize("op", OPERATORS)
@pytest.mark.parametrize("model_id,match", FIRST, ids=_ids(FIRST))
def test_a_command_chained_before_the_docker_line_is_an_error(cli, model_id, match, op):
    text = ("\n" + _run_modes(cli, model_id, match)["docker"]).replace(
        "\ndocker run ", f"\nrm -rf ~ {op} docker run ", 1)[1:]
    found = [(s, m) for s, rule, m in _check(cli, text, *_in_context(model_id, match))
             if rule == "check.chained-command"]
    assert len(found) == 1 and found[0][0] == "error"
    assert found[0][1].startswith(f"'{op}' chains rm onto the server command on this line: "
                                  "the shell ")


@pytest.mark.parametrize("word", ["$(whoami)", "`whoami`"])
@pytest.mark.parametrize("model_id,match", FIRST, ids=_ids(FIRST))
def test_a_command_substitution_on_a_docker_line_is_reported(cli, db, model_id, match, word):
    name = next(n for n, takes in db.containers.run_flags.items()
                if takes and n.startswith("--name"))  # the container's name: no meaning here
    text = _with_options(_run_modes(cli, model_id, match)["docker"], [f"{name} {word}"])
    found = [(s, m) for s, rule, m in _check(cli, text, *_in_context(model_id, match))
             if rule == "check.command-substitution"]
    assert found == [("warning", f"'{word}' holds a command substitution: the shell runs whoami "
                                 "before the server starts and puts its output in its place, so "
                                 "neither this check nor the reader sees the value the server "
                                 "gets; write the value itself")]


def _curl_findings(cli, model_id, match, docker_text: str, curl: str):
    return [(s, r, m) for s, r, m in _check(cli, docker_text + "\n" + curl,
                                            *_in_context(model_id, match))
            if r == "curl.port" or r.startswith("docker.")]


@pytest.mark.parametrize("model_id,match", PUBLISHED, ids=_ids(PUBLISHED))
def test_a_curl_must_target_the_host_port_docker_publishes(cli, db, model_id, match):
    modes = _run_modes(cli, model_id, match)
    port = _server_port(db, model_id, match)
    host = _other_host_port(port)
    docker_text = _republished(db, model_id, match, modes["docker"], f"-p {host}:{port}")
    assert f":{port}/" in modes["curl"]
    to_host = modes["curl"].replace(f":{port}/", f":{host}/", 1)
    assert _curl_findings(cli, model_id, match, docker_text, to_host) == []
    [(severity, rule, message)] = _curl_findings(cli, model_id, match, docker_text,
                                                 modes["curl"])
    assert (severity, rule) == ("error", "curl.port")
    assert message.endswith(f"(port {port}), but the host port docker publishes the server's "
                            f"--port {port} on (-p {host}:{port}) is {host}")


@pytest.mark.parametrize("model_id,match", PUBLISHED, ids=_ids(PUBLISHED))
def test_beside_the_hosts_network_a_published_port_is_discarded_and_curl_targets_the_servers(
        cli, db, model_id, match):
    modes = _run_modes(cli, model_id, match)
    port = _server_port(db, model_id, match)
    host = _other_host_port(port)
    network = runmodes._option(db.containers.host_network)
    docker_text = _republished(db, model_id, match, modes["docker"],
                               f"{network} -p {host}:{port}")
    found = _curl_findings(cli, model_id, match, docker_text, modes["curl"])
    assert [(s, r) for s, r, _ in found] == [("warning", "docker.publish")]
    assert found[0][2].startswith(f"-p {host}:{port} does nothing beside {network}: docker "
                                  "discards published ports")
    to_host = modes["curl"].replace(f":{port}/", f":{host}/", 1)
    assert sorted(r for _, r, _ in _curl_findings(cli, model_id, match, docker_text,
                                                  to_host)) == ["curl.port", "docker.publish"]


# --- 7. the context, with two or more models and none chosen ---------------------------------

@pytest.fixture
def several(db):
    if len(db.models) < 2:
        pytest.skip("recipes/ has one model: the model is always chosen")
    return db


SERVE = "sglang serve --model-path /models/unnamed"  # names no model: none is told


@pytest.mark.parametrize("spelling", [["--hw", "nosuch"], ["--set", "hw=nosuch"]])
def test_check_without_a_model_refuses_a_platform_no_model_has(cli, several, spelling):
    known = list(dict.fromkeys(hw for m in several.models.values() for hw in m.info.hardware))
    r = cli("check", *spelling, "--", SERVE)
    assert (r.code, r.err) == (1, "error: <check context>: hw 'nosuch' is not a platform of any "
                                  f"model (known: {', '.join(known)})\n")


def test_check_without_a_model_refuses_a_setting_no_model_has(cli, several):
    r = cli("check", "--set", "nosuch=1", "--", SERVE)
    assert r.code == 1
    assert r.err.startswith("error: <check context>: 'nosuch' is not a dimension or setting of "
                            "any model (")


def test_check_without_a_model_refuses_a_value_no_model_has_and_takes_one_any_model_has(
        cli, several):
    keys = {}
    for model in several.models.values():
        for key in model.dimensions:
            keys.setdefault(key, model.dimension_options[key][0][0])
        for key, axis in model.axis_index.items():
            keys.setdefault(key, axis.options[0].id)
    for key, value in keys.items():
        r = cli("check", "--set", f"{key}=nosuch", "--", SERVE)
        where = "a platform" if key == "hw" else "an option"
        assert r.code == 1 and r.err.startswith(
            f"error: <check context>: {key} 'nosuch' is not {where} of any model ("), (key, r.err)
        r = cli("check", "--set", f"{key}={value}", "--", SERVE)  # one model has it: taken
        assert "<check context>" not in r.err, (key, r.err)


def _two_options(db, model_id) -> list[tuple[str, str, str]]:
    """(dimension, two of its options) for each dimension of the model with two or more."""
    model = db.model(model_id)
    return [(d, opts[0][0], opts[1][0]) for d, opts in model.dimension_options.items()
            if len(opts) > 1]


VERBS = [("command", m, ()) for m in MODELS] + [("check", m, ("--model", m)) for m in MODELS] \
    + [("check", m, ()) for m in MODELS] + [("calc", m, ()) for m in CALCULATED]


@pytest.mark.parametrize("verb,model_id,extra", VERBS,
                         ids=[f"{v}-{m}-{'model' if e else 'none'}" for v, m, e in VERBS])
def test_a_set_key_given_twice_with_two_values_is_an_error(cli, db, verb, model_id, extra):
    pairs = _two_options(db, model_id)
    assert pairs, f"{model_id} has no dimension with two options"
    tail = ["--", SERVE] if verb == "check" else []
    head = [verb, *extra] if verb == "check" else [verb, model_id]
    for key, a, b in pairs:
        r = cli(*head, "--set", f"{key}={a}", "--set", f"{key}={b}", *tail)
        assert (r.code, r.err) == (1, f"error: <command line>: --set {key}={a} and --set "
                                      f"{key}={b} disagree; give {key} once\n"), (key, r.err)
    if verb == "command":  # the same value twice is one value
        match = dict(db.model(model_id).cells[0].match)
        once = cli("command", model_id, *_sets(match))
        twice = cli("command", model_id, *_sets(match), *_sets(match))
        assert (twice.code, twice.out, twice.err) == (once.code, once.out, once.err)


@pytest.mark.parametrize("model_id", MEASURED)
def test_avg_len_given_twice_with_two_values_is_an_error(cli, db, model_id):
    common = db.model(model_id).info.request_length.common
    a, b = str(common[0]), str(common[0] + 1)
    r = cli("command", model_id, "--set", f"avg_len={a}", "--set", f"avg_len={b}")
    assert (r.code, r.err) == (1, f"error: <command line>: --set avg_len={a} and --set "
                                  f"avg_len={b} disagree; give avg_len once\n")


@pytest.mark.parametrize("with_model", [True, False], ids=["model", "none"])
@pytest.mark.parametrize("model_id", MODELS)
def test_check_refuses_a_shortcut_that_disagrees_with_set(cli, db, model_id, with_model):
    hardware = db.model(model_id).info.hardware
    if len(hardware) < 2:
        pytest.skip(f"{model_id} runs on one platform")
    a, b = hardware[0], hardware[1]
    extra = ["--model", model_id] if with_model else []
    r = cli("check", *extra, "--hw", a, "--set", f"hw={b}", "--", SERVE)
    assert (r.code, r.err) == (1, f"error: <command line>: --hw {a} and --set hw={b} "
                                  "disagree\n")
