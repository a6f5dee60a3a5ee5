"""Every enumerated selection of every model as deployment files (macros/site/deploy.py,
kube.py): SGLang's config file reads back into exactly the command's flags and env, the
Compose file validates against the Compose specification's schema (as check-jsonschema
vendors it) and the Kubernetes manifests against the core kinds' schemas (kubernetes-validate)
and LeaderWorkerSet against our schema of its v1 API (tests/corpus/deploy, with the lws
release and source it was written from); each maps back to the command, its
environment and its ``docker run`` options.

Selections whose servers are the same (same flags, env, image, nodes and PD pair) are one
file; the files are checked once per distinct file."""

from __future__ import annotations

import argparse
import functools
import importlib.resources
import json
import re
import shlex
from collections import Counter
from pathlib import Path

import jsonschema
import kubernetes_validate
import kubernetes_validate.utils as kv_utils
import pytest

from helpers import yamlc
from macros.engine import check_config, docker
from macros.engine.check import check_text
from macros.engine.database import load_database
from macros.engine.errors import RecipeError
from macros.engine.flags import Flag, split_words
from macros.engine.resolve import resolve
from macros.engine.selection import Selection
from macros.engine.selections import resolve_all
from macros.site import deploy, kube, runmodes

from helpers.models import MODELS, edit_yaml
from helpers.walks import walked

LWS_SCHEMA = Path(__file__).resolve().parents[1] / "corpus" / "deploy" / \
    "leaderworkerset-v1.schema.json"
K8S_VERSION = "1.33.0"


@pytest.fixture(scope="module", params=MODELS)
def model_id(request):
    return request.param


def _key(res):
    """What the files of a selection read from its resolution."""
    return (res.hw, res.pd, res.nodes, tuple(res.flag_texts), tuple(res.env), res.docker_image,
            res.sglang, json.dumps([[f.text() for f in g] for g in res.router or []]),
            json.dumps([h.model_dump() for h in res.hints]))


def _shape(doc):
    """A document with its commands and values of variables left out: what a schema reads
    the same for every command (lists of strings), so each shape is validated once."""
    if isinstance(doc, dict):
        return {k: ("…" if k in ("command", "value") else _shape(v)) for k, v in doc.items()}
    if isinstance(doc, list):
        return [_shape(v) for v in doc]
    return doc


@pytest.fixture(scope="module")
def distinct(db, model_id):
    """One (selection, resolution) per distinct server command; a PD one per distinct pair."""
    model = db.model(model_id)
    seen: dict = {}
    for flat, res in walked(db, model_id):
        key = _key(res)
        if res.pd is not None:
            key += tuple(_key(r) for r in deploy.pd_pair(db, model, res).values())
        seen.setdefault(key, (flat, res))
    assert seen
    return list(seen.values())


# --- SGLang's config file ---------------------------------------------------------------------

_PARSERS: dict[int, argparse.ArgumentParser] = {}


def _parser(catalog) -> argparse.ArgumentParser:
    if id(catalog) not in _PARSERS:
        _PARSERS[id(catalog)] = _new_parser(catalog)
    return _PARSERS[id(catalog)]


def _new_parser(catalog) -> argparse.ArgumentParser:
    """The server's flags as argparse reads them: store_true, BooleanOptionalAction (its
    ``--no-X`` form), store with its nargs. Values stay text, so a number must come back
    written the same."""
    p = argparse.ArgumentParser(add_help=False, allow_abbrev=False, exit_on_error=False)
    for spec in catalog.flags.values():
        names = [spec.name] + [a for a in spec.aliases if a not in spec.negations]
        if spec.action == "boolean_optional":
            p.add_argument(spec.name, action=argparse.BooleanOptionalAction)
        elif not spec.takes_value:
            p.add_argument(*names, action="store_true")
        else:
            p.add_argument(*names, nargs=spec.nargs if spec.nargs in ("+", "*", "?") else None)
    return p


def _merged_words(data: dict, catalog) -> list[str]:
    """What SGLang makes of a ``--config`` YAML (server_args_config_parser, as released): a
    key is ``--key``; only store and store_true flags may be keys; a boolean sets a
    store_true flag when true; a list gives its items; anything else its text."""
    words: list[str] = []
    for key, value in data.items():
        spec = catalog.flags.get(f"--{key}")
        assert spec is not None and spec.action in ("store", "store_true"), \
            f"SGLang refuses the config key {key}"
        if isinstance(value, bool):
            if spec.action == "store_true":
                words += [f"--{key}"] if value else []
            else:
                words += [f"--{key}", str(value).lower()]
        elif isinstance(value, list):
            words += [f"--{key}", *map(str, value)] if value else []
        elif isinstance(value, dict):
            words += [f"--{key}", json.dumps(value)]
        else:
            words += [f"--{key}", str(value)]
    return words


def _field_words(data: dict, catalog) -> list[str]:
    """What SGLang's diffusion server makes of a ``--config`` file (ServerArgs.from_cli_args,
    as released), as the words of the flags it stands for: each key is the field a flag
    stores (its dest), taken with no argparse in between, so a number flag's value must be a
    YAML number; a switch is true."""
    by_field = {spec.stored_as: spec for spec in catalog.flags.values()}
    words: list[str] = []
    for key, value in data.items():
        spec = by_field.get(key)
        assert spec is not None, f"the diffusion server ignores the config key {key}"
        items = value if isinstance(value, list) else [value]
        if spec.type in ("int", "float"):
            assert all(isinstance(v, (int, float)) and not isinstance(v, bool)
                       for v in items), (key, value)
        if isinstance(value, bool):
            assert spec.action == "store_true", key
            words += [spec.name] if value else []
        else:
            words += [spec.name, *map(str, items)]
    return words


def _run_line(text: str) -> list[str]:
    """The command the config file's header says to run, as words after the program."""
    head = [line for line in text.splitlines() if line.startswith("#")]
    lines: list[str] = []
    for line in head:  # the last block of indented comment lines, after the hints
        lines = lines + [line[4:]] if line.startswith("#   ") else []
    joined = " ".join(line.rstrip("\\").strip() for line in lines if not line.startswith("set "))
    return shlex.split(joined)


def _read_back(db, res, files):
    """(the words SGLang parses, the environment) from a selection's config files."""
    catalog = deploy._catalog(db, res)
    yaml_file = files[0]
    assert yaml_file.name.endswith(".yaml")
    data = yamlc.load(yaml_file.text) or {}
    run = _run_line(yaml_file.text)
    program = split_words(res.program)
    assert run[:len(program)] == program
    rest = run[len(program):]
    assert rest[:2] == ["--config", yaml_file.name]
    fields = check_config.style(catalog) == check_config.FIELDS  # how its server reads it
    words = (_field_words if fields else _merged_words)(data, catalog) + rest[2:]
    env = []
    if len(files) > 1:
        assert files[1].name.endswith(".env") and f". ./{files[1].name};" in yaml_file.text
        env = files[1].text.splitlines()
    return words, env, data


def _command_words(res) -> list[str]:
    return [w for f in res.flags for w in f.words()]


def test_config_reads_back_into_the_command(db, model_id, distinct):
    model = db.model(model_id)
    db = db.serving(model)  # the file is read by the model's own CLI
    for flat, res in distinct:
        files = deploy.files(db, model, res, "config", "en")
        words, env, data = _read_back(db, res, files)
        parser = _parser(deploy._catalog(db, res))
        assert vars(parser.parse_args(words)) == vars(parser.parse_args(_command_words(res))), flat
        assert Counter(map(tuple, _flags_of(words))) == Counter(
            (f.name, *f.values) for f in res.flags), flat
        assert env == list(res.env), flat
        catalog = deploy._catalog(db, res)
        for f in res.flags:  # a switch is a YAML boolean, a list flag a YAML list
            spec = catalog.lookup(f.name).spec
            value = data.get(check_config.key_of(spec, catalog) if spec else f.name[2:])
            if value is not None and not f.values:
                assert value is True, (flat, f.name)
            if isinstance(value, list):
                assert [str(v) for v in value] == list(f.values), (flat, f.name)


def _flags_of(words: list[str]) -> list[list[str]]:
    out: list[list[str]] = []
    for w in words:
        if w.startswith("--"):
            out.append([w])
        else:
            out[-1].append(w)
    return out


def test_config_keeps_on_the_command_line_what_a_file_cannot_say(db):
    """A ``--no-X`` form, a BooleanOptionalAction, a flag given twice, a per-node value and a
    flag the catalog does not know stay on the command line; a switch becomes ``true``, a list
    flag a list, a number stays the number written."""
    model_id = MODELS[0]
    model = db.model(model_id)
    _, res = next(iter(resolve_all(db, model_id)))
    catalog = deploy._catalog(db, res)
    optional = next(s for s in catalog.flags.values() if s.action == "boolean_optional")
    switch = next(s for s in catalog.flags.values() if s.action == "store_true")
    listed = next(s for s in catalog.flags.values() if s.action == "store" and s.nargs == "+")
    rank = next(v.tokens[0] for v in db.reader_values if v.deploy == "rank")
    scalar = next(s for s in catalog.flags.values() if s.action == "store" and s.nargs is None
                  and s.type == "int")
    flags = [Flag(optional.negations[0]), Flag(optional.name), Flag(switch.name),
             Flag(listed.name, ("1", "2")), Flag("--not-a-flag-anywhere", ("x",)),
             Flag(scalar.name, ("0.50",)), Flag("--node-rank", (rank,)),
             Flag("--port", ("1",)), Flag("--port", ("2",))]
    res = res.model_copy(update={"flags": flags, "env": []})
    config, stay = deploy.config_split(db, res)
    assert config == {switch.name[2:]: True, listed.name[2:]: [deploy.Raw("1"), deploy.Raw("2")],
                      scalar.name[2:]: "0.50"}
    assert [f.name for f in stay] == [optional.negations[0], optional.name,
                                      "--not-a-flag-anywhere", "--node-rank", "--port", "--port"]
    text = deploy.config_files(db, model, res, "en")[0].text
    assert yamlc.load(text)[scalar.name[2:]] == "0.50"  # quoted: not the float 0.5
    assert f"{optional.negations[0]} \\" in text


def test_the_model_stays_on_the_run_line(db, model_id, distinct):
    """``sglang serve`` picks its server (LLM or diffusion) by the model on its command line
    before any server reads --config: the file's run line gives it, the file does not."""
    model = db.model(model_id)
    db = db.serving(model)
    names = db.catalog.roles["model"]
    for flat, res in distinct:
        text = deploy.files(db, model, res, "config", "en")[0].text
        run = _run_line(text)
        given = [f for f in res.flags if f.name in names]
        assert given and all(run[run.index(f.name) + 1] == f.values[0] for f in given), flat
        data = yamlc.load(text) or {}
        catalog = deploy._catalog(db, res)
        assert not {check_config.key_of(catalog.flags[n], catalog) for n in names} & set(data)


def test_check_reads_the_config_file_as_it_reads_the_command(db, model_id, distinct, tmp_path):
    """``recipes check`` of the config file's run line (the file written beside it, read by
    ``--config``) finds what it finds in the command: the same rules, the same severities;
    and its flags read back as SGLang reads them find the same too."""
    model = db.model(model_id)
    for flat, res in distinct[:: max(1, len(distinct) // 60)]:
        files = deploy.files(db, model, res, "config", "en")
        (tmp_path / files[0].name).write_text(files[0].text, encoding="utf-8")
        run = _run_line(files[0].text)
        words, _, _ = _read_back(db.serving(model), res, files)
        original = " ".join([res.program] + res.flag_texts)
        texts = {"command": original, "config": shlex.join(run),
                 "read back": " ".join([res.program] + [shlex.quote(w) for w in words])}
        sig = {k: Counter((f.severity.value, f.rule) for f in check_text(
            db, text, model_id=model_id, base_dir=tmp_path, **flat)) for k, text in texts.items()}
        assert sig["config"] == sig["command"] == sig["read back"], flat


# --- Docker Compose ---------------------------------------------------------------------------

@functools.lru_cache(maxsize=1)
def _compose_validator():
    vendor = importlib.resources.files("check_jsonschema.builtin_schemas.vendor")
    schema = json.loads((vendor / "compose-spec.json").read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema)


_OPTIONS: dict = {}


def _docker_options(db, res) -> list[docker.Option]:
    """The options of the page's ``docker run`` line (runmodes), read as docker reads them."""
    key = (res.hw, res.nodes, res.pd, runmodes.server_port(db, res), tuple(res.env))
    if key not in _OPTIONS:
        _OPTIONS[key] = _read_docker_options(db, res)
    return _OPTIONS[key]


def _read_docker_options(db, res) -> list[docker.Option]:
    words = []
    for line in runmodes.docker_options(db, res):
        words += split_words(line)
    return docker.read(words, db.containers.run_flags).options


def _placeholder_positions(db, original: list[str], filled: list[str]) -> list[int]:
    assert len(original) == len(filled)
    tokens = {t for v in db.reader_values if v.deploy for t in v.tokens}
    diff = [i for i, (a, b) in enumerate(zip(original, filled)) if a != b]
    for i in diff:
        assert any(t in original[i] for t in tokens), (original[i], filled[i])
    return diff


def _check_service(db, svc: dict, res, words: list[str]):
    assert svc["image"] == res.docker_image
    env = svc.get("environment", [])
    given = [e.replace("$$", "$") for e in env if "=" in e]
    _placeholder_positions(db, list(res.env), given)
    for o in _docker_options(db, res):
        if o.name == "--gpus":
            devices = svc["deploy"]["resources"]["reservations"]["devices"]
            assert [str(d["count"]) for d in devices] == [o.value]
        elif o.name in ("--device", "--group-add", "--cap-add", "--security-opt", "-v"):
            key = {"--device": "devices", "--group-add": "group_add", "--cap-add": "cap_add",
                   "--security-opt": "security_opt", "-v": "volumes"}[o.name]
            assert o.value in svc[key], (o.name, o.value)
        elif o.name == "--privileged":
            assert svc["privileged"] is True
        elif o.name == "--ulimit":  # NAME=SOFT[:HARD], -1 unlimited
            name, _, limit = o.value.partition("=")
            soft, _, hard = limit.partition(":")
            assert svc["ulimits"][name] == (int(soft) if not hard else
                                            {"soft": int(soft), "hard": int(hard)})
        elif o.name == "-w":
            assert svc["working_dir"] == o.value
        elif o.name == "--shm-size":
            assert svc["shm_size"] == o.value
        elif o.name == "--ipc":
            assert svc["ipc"] == o.value
        elif o.name == "--network":
            assert svc["network_mode"] == o.value
        elif o.name == "-p":
            assert svc["ports"] == [o.value]
        elif o.name in ("-e", "--env"):
            assert o.value in env
        else:
            raise AssertionError(f"no Compose check for {o.name}")
    assert [w.replace("$$", "$") for w in svc["command"]] == words


def _router_ports(words: list[str]) -> dict:
    prefill = words[words.index("--prefill") + 1: words.index("--prefill") + 3]
    decode = words[words.index("--decode") + 1]
    bootstrap = int(prefill[1]) if prefill[1:] and prefill[1].isdigit() else None
    return {"prefill": int(prefill[0].rsplit(":", 1)[1]), "bootstrap": bootstrap,
            "decode": int(decode.rsplit(":", 1)[1]),
            "hosts": (prefill[0].split("//")[1].rsplit(":", 1)[0],
                      decode.split("//")[1].rsplit(":", 1)[0])}


def test_compose_validates_and_maps_back(db, model_id, distinct):
    model = db.model(model_id)
    validator = _compose_validator()
    shapes: set[str] = set()
    for flat, res in distinct:
        if res.docker_image is None:  # no image published: no container file at all
            assert deploy.files(db, model, res, "compose", "en") == [], flat
            continue
        f = deploy.files(db, model, res, "compose", "en")[0]
        data = yamlc.load(f.text)
        shape = json.dumps(_shape(data), sort_keys=True)
        if shape not in shapes:
            shapes.add(shape)
            errors = sorted(validator.iter_errors(data), key=str)
            assert not errors, (flat, errors[0].message, list(errors[0].absolute_path))
        services = data["services"]
        groups = deploy.groups(db, model, res)
        expected = sum(g.res.nodes for g in groups) + (1 if res.pd else 0)
        assert len(services) == expected, flat
        for g in groups:
            names = deploy.service_names(g)
            original = deploy.server_words(g.res)
            for i, name in enumerate(names):
                svc = services[name]
                words = [w.replace("$$", "$") for w in svc["command"]]
                for at in _placeholder_positions(db, original, words):
                    if g.res.nodes > 1 and any(t in original[at] for v in db.reader_values
                                               if v.deploy == "rank" for t in v.tokens):
                        assert re.sub(r"<[a-z0-9.-]+>", str(i), original[at]) == words[at]
                _check_service(db, svc, g.res, words)
        if res.pd is not None:
            pair = deploy.pd_pair(db, model, res)
            ports = _router_ports(services["router"]["command"])
            for role, r in pair.items():
                assert r.pd == role and r.hw == res.hw
                assert ports[role] == int(runmodes.server_port(db, r))
            assert ports["bootstrap"] in (None, model.info.pd.bootstrap_port)
        assert f.placeholders == deploy.left_tokens(db, f.text)


# --- Kubernetes -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def k8s_validate():
    """kubernetes-validate, with its schema files read once per run instead of per call."""
    original = kv_utils.schema_contents
    kv_utils.schema_contents = functools.lru_cache(maxsize=None)(original)
    lws = jsonschema.Draft202012Validator(json.loads(LWS_SCHEMA.read_text(encoding="utf-8")))
    seen: set[str] = set()

    def check(doc: dict) -> None:
        key = json.dumps(_shape(doc), sort_keys=True)
        if key in seen:
            return
        seen.add(key)
        if doc["kind"] == "LeaderWorkerSet":
            errors = list(lws.iter_errors(doc))
            assert not errors, errors[0].message
            for part in ("leaderTemplate", "workerTemplate"):
                template = doc["spec"]["leaderWorkerTemplate"].get(part)
                if template is not None:
                    kubernetes_validate.validate(
                        {"apiVersion": "v1", "kind": "PodTemplate",
                         "metadata": {"name": doc["metadata"]["name"]}, "template": template},
                        K8S_VERSION, strict=True)
            for claim in doc["spec"]["leaderWorkerTemplate"].get("volumeClaimTemplates", []):
                kubernetes_validate.validate({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                                              **claim}, K8S_VERSION, strict=True)
        else:
            kubernetes_validate.validate(doc, K8S_VERSION, strict=True)
    yield check
    kv_utils.schema_contents = original


def _pods(docs: list[dict]) -> dict[str, dict]:
    out = {}
    for d in docs:
        if d["kind"] == "Deployment":
            out[d["metadata"]["name"]] = d["spec"]["template"]
        elif d["kind"] == "LeaderWorkerSet":
            out[d["metadata"]["name"]] = d["spec"]["leaderWorkerTemplate"]["workerTemplate"]
    return out


def test_kubernetes_validates_and_maps_back(db, model_id, distinct, k8s_validate):
    model = db.model(model_id)
    lws_vars = {"$(LWS_LEADER_ADDRESS)", "$(LWS_WORKER_INDEX)", "$(POD_IP)"}
    for flat, res in distinct:
        if res.docker_image is None:  # no image published: no container file at all
            assert deploy.files(db, model, res, "k8s", "en") == [], flat
            continue
        f = deploy.files(db, model, res, "k8s", "en")[0]
        docs = [d for d in yamlc.load_all(f.text) if d is not None]
        for doc in docs:
            k8s_validate(doc)
        pods = _pods(docs)
        services = {d["metadata"]["name"]: d for d in docs if d["kind"] == "Service"}
        groups = deploy.groups(db, model, res)
        for g in groups:
            name = kube.dns_name(model.id) + ("" if g.role == "server" else f"-{g.role}")
            workload = next(d for d in docs if d["metadata"]["name"] == name
                            and d["kind"] != "Service")
            assert workload["kind"] == ("LeaderWorkerSet" if g.res.nodes > 1 else "Deployment")
            if g.res.nodes > 1:
                assert workload["spec"]["leaderWorkerTemplate"]["size"] == g.res.nodes
            container = pods[name]["spec"]["containers"][0]
            original = deploy.server_words(g.res)
            for at in _placeholder_positions(db, original, container["command"]):
                word = container["command"][at]
                assert any(v in word for v in lws_vars) or \
                    any(s in word for s in services), (flat, word)
            env = {e["name"]: e.get("value") for e in container.get("env", [])}
            _placeholder_positions(db, list(g.res.env), [f"{n}={env[n]}" for n in (
                e.split("=", 1)[0] for e in g.res.env)])
            platform = db.platforms[g.res.hw]
            resource = platform.resource or db.containers.vendors[platform.vendor.value].resource
            assert container["resources"]["limits"] == {resource: deploy.devices(db, g.res)}
            mounts = {m["mountPath"] for m in container["volumeMounts"]}
            assert "/dev/shm" in mounts
            assert services[name]["spec"]["ports"][0]["port"] == int(
                runmodes.server_port(db, g.res))
        if res.pd is not None:
            router = pods[f"{kube.dns_name(model.id)}-router"]["spec"]["containers"][0]
            ports = _router_ports(router["command"])
            for role, host in zip(("prefill", "decode"), ports["hosts"]):
                if role not in {g.role for g in groups}:  # not on this hardware: the reader's
                    assert host == deploy.hosts_for(db, role)[role] and role in f.text
                    continue
                svc_ports = [p["port"] for p in services[host]["spec"]["ports"]]
                assert ports[role] in svc_ports
                if role == "prefill":
                    assert ports["bootstrap"] in [None] + svc_ports
        deployable = {t for v in db.reader_values if v.deploy for t in v.tokens
                      if not (v.deploy in ("prefill", "decode") and len(groups) == 1
                              and res.pd is not None and groups[0].role != v.deploy)}
        assert not set(f.placeholders) & deployable, flat


def _full_lws() -> dict:
    """A LeaderWorkerSet that sets every field of its spec (lws v0.10.0)."""
    template = {"metadata": {"labels": {"a": "b"}, "annotations": {"c": "d"}},
                "spec": {"containers": [{"name": "c", "image": "i"}]}}
    return {"apiVersion": kube.LWS_API, "kind": "LeaderWorkerSet",
            "metadata": {"name": "x", "labels": {"a": "b"}},
            "spec": {"replicas": 2, "startupPolicy": "LeaderReady",
                     "networkConfig": {"subdomainPolicy": "UniquePerReplica"},
                     "rolloutStrategy": {"type": "RollingUpdate", "rollingUpdateConfiguration": {
                         "partition": 0, "maxUnavailable": 1, "maxSurge": "50%"}},
                     "leaderWorkerTemplate": {
                         "size": 4, "restartPolicy": "RecreateGroupAfterStart",
                         "leaderTemplate": template, "workerTemplate": template,
                         "subGroupPolicy": {"subGroupPolicyType": "LeaderExcluded",
                                            "subGroupSize": 3},
                         "volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": {
                             "accessModes": ["ReadWriteOnce"],
                             "resources": {"requests": {"storage": "1Gi"}}}}],
                         "persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Delete",
                                                                  "whenScaled": "Retain"}}}}


# (path under spec, value; None deletes it): each one a change the CRD or its webhook refuses
_LWS_REFUSED = {
    "unknown field in spec": (("startPolicy",), "LeaderReady"),
    "unknown field in the group": (("leaderWorkerTemplate", "sizes"), 2),
    "unknown field in the pod template": (("leaderWorkerTemplate", "workerTemplate", "specs"), {}),
    "unknown field in the rollout": (("rolloutStrategy", "rollingUpdateConfiguration", "surge"), 1),
    "restartPolicy enum": (("leaderWorkerTemplate", "restartPolicy"), "Always"),
    "startupPolicy enum": (("startupPolicy",), "PodReady"),
    "subdomainPolicy enum": (("networkConfig", "subdomainPolicy"), "Unique"),
    "rollout type enum": (("rolloutStrategy", "type"), "Recreate"),
    "subGroupPolicyType enum": (("leaderWorkerTemplate", "subGroupPolicy", "subGroupPolicyType"),
                                "WorkerOnly"),
    "size as a string": (("leaderWorkerTemplate", "size"), "4"),
    "size 0": (("leaderWorkerTemplate", "size"), 0),
    "replicas below 0": (("replicas",), -1),
    "replicas over 1000000": (("replicas",), 1000001),
    "maxSurge over 100%": (("rolloutStrategy", "rollingUpdateConfiguration", "maxSurge"), "150%"),
    "maxUnavailable negative": (("rolloutStrategy", "rollingUpdateConfiguration",
                                 "maxUnavailable"), -1),
    "partition as a string": (("rolloutStrategy", "rollingUpdateConfiguration", "partition"), "0"),
    "subGroupSize 0": (("leaderWorkerTemplate", "subGroupPolicy", "subGroupSize"), 0),
    "no worker template": (("leaderWorkerTemplate", "workerTemplate"), None),
    "no subdomainPolicy": (("networkConfig", "subdomainPolicy"), None),
    "no rollout type": (("rolloutStrategy", "type"), None),
    "no subGroupSize": (("leaderWorkerTemplate", "subGroupPolicy", "subGroupSize"), None),
    "a pod's own field": (("leaderWorkerTemplate", "workerTemplate", "spec", "containers"), [
        {"name": "c", "image": "i", "replica": 1}]),
    "a claim's own field": (("leaderWorkerTemplate", "volumeClaimTemplates"), [
        {"metadata": {"name": "d"}, "spec": {"accessModes": ["ReadWriteOnce"], "size": "1Gi"}}]),
}


def test_lws_schema_takes_every_field_of_the_spec(k8s_validate):
    k8s_validate(_full_lws())
    schema = json.loads(LWS_SCHEMA.read_text(encoding="utf-8"))
    assert schema["x-lws-version"] and schema["x-source"].startswith(
        "https://github.com/kubernetes-sigs/lws/")


@pytest.mark.parametrize("case", list(_LWS_REFUSED))
def test_lws_schema_refuses_what_the_crd_refuses(k8s_validate, case):
    """Our LeaderWorkerSet schema is no rubber stamp: a wrong field, enum, type, bound or a
    missing required field fails, in the spec and in the pod templates inside it."""
    path, value = _LWS_REFUSED[case]
    doc = _full_lws()
    at = doc["spec"]
    for key in path[:-1]:
        at = at[key]
    if value is None:
        at.pop(path[-1])
    else:
        at[path[-1]] = value
    with pytest.raises((AssertionError, kubernetes_validate.ValidationError)):
        k8s_validate(doc)


@pytest.mark.parametrize("model_id", MODELS)
def test_the_manifests_names_are_hardware_yaml_data(recipes_copy, db, model_id):
    """The cache claim (name, size, access), the token's Secret and the device plugin's
    resource (a platform's own before its vendor's) come from hardware.yaml: changed there,
    changed in every manifest."""
    def change(d):
        d["containers"]["kubernetes"] = {"cache_claim": "model-store", "cache_size": "5Ti",
                                         "cache_access": "ReadWriteOnce",
                                         "token_secret": "hub-token"}
        for p in d["platforms"]:
            p["resource"] = f"example.com/{p['id']}"
    edit_yaml(recipes_copy / "catalog" / "hardware.yaml", change)
    copy = load_database(recipes_copy)
    model = copy.model(model_id)
    flat, res = next(iter(resolve_all(copy, model_id)))
    docs = [d for d in yamlc.load_all(deploy.files(copy, model, res, "k8s", "en")[0].text)
            if d]
    claim = next(d for d in docs if d["kind"] == "PersistentVolumeClaim")
    assert claim["metadata"]["name"] == "model-store"
    assert claim["spec"] == {"accessModes": ["ReadWriteOnce"],
                             "resources": {"requests": {"storage": "5Ti"}}}
    text = json.dumps(docs)
    assert '"claimName": "model-store"' in text and "huggingface-cache" not in text
    assert '"name": "hub-token"' in text or "--env" not in " ".join(copy.containers.cache)
    pods = _pods(docs)
    limits = [p["spec"]["containers"][0].get("resources", {}).get("limits") for p in
              pods.values()]
    assert {k for lim in limits if lim for k in lim} == {f"example.com/{res.hw}"}


# --- a release the reader chose -----------------------------------------------------------------

def _release_pick(db, model_id):
    """A PD selection with both servers, else a multi-node one, else the first; and the oldest
    release other than its image's."""
    model = db.model(model_id)
    selections = walked(db, model_id)
    flat, res = next(((f, r) for f, r in selections if r.pd and len(deploy.groups(
        db, model, r)) == 2), None) or next(((f, r) for f, r in selections if r.nodes > 1),
                                            selections[0])
    release = next(v for v in db.releases.order if v != res.sglang_default)
    return flat, res, release


@pytest.mark.parametrize("model_id", MODELS)
def test_the_files_follow_the_release_chosen(db, cli, model_id):
    """With a release chosen (--sglang, the Playground's release select) every server of every
    file is spelt for it and runs in its image (the vendor's release_image, else the recipe's),
    as the command's docker line does; each file's header says so; the CLI prints the same."""
    model = db.model(model_id)
    flat, res, release = _release_pick(db, model_id)
    chosen = resolve(db, Selection.flat(model, flat, res.avg_len), release=release)
    vendor = db.containers.vendors[db.platforms[res.hw].vendor.value]
    image = vendor.release_image.replace("{release}", release) if vendor.release_image else \
        res.docker_image
    assert chosen.docker_image == image and image in runmodes.docker_text(db, model, chosen, "en")
    groups = deploy.groups(db, model, chosen)
    assert groups and all(g.res.sglang == release and g.res.docker_image == image
                          for g in groups)
    sets = [a for k, v in flat.items() for a in ("--set", f"{k}={v}")]
    for fmt in deploy.FORMATS:
        files = deploy.files(db, model, chosen, fmt, "en")
        head = " ".join(line[2:] for f in files for line in f.text.splitlines()
                        if line.startswith("# "))
        assert f"sglang {release}, the release you chose" in head, fmt
        out = cli("command", model_id, *sets, "--sglang", release, "--as", fmt,
                  "--format", "json")
        assert [f["text"] for f in out.json()["files"]] == [f.text for f in files], fmt
        if fmt == "compose":
            services = yamlc.load(files[0].text)["services"]
            for g in groups:
                for name in deploy.service_names(g):
                    assert services[name]["image"] == image
                    assert [w.replace("$$", "$") for w in services[name]["command"]] == [
                        deploy.fill(w, deploy.fills(db, g.role, i if g.res.nodes > 1 else None,
                                                    deploy.hosts_for(db, g.role)))
                        for i in [deploy.service_names(g).index(name)]
                        for w in deploy.server_words(g.res)]
        if fmt == "k8s":
            pods = _pods([d for d in yamlc.load_all(files[0].text) if d])
            assert {p["spec"]["containers"][0]["image"] for n, p in pods.items()
                    if not n.endswith("-router")} == {image}
        if fmt == "config":
            words, _, _ = _read_back(db.serving(model), chosen, files)
            assert Counter(map(tuple, _flags_of(words))) == Counter(
                (f.name, *f.values) for f in chosen.flags)


def test_a_release_image_is_one_the_checker_reads_as_that_release(db):
    """The data's release images are images ``recipes check`` takes for the release they name
    (no docker.foreign-image), so the docker line of a chosen release checks clean of it."""
    for model_id in MODELS:
        flat, res, release = _release_pick(db, model_id)
        vendor = db.containers.vendors[db.platforms[res.hw].vendor.value]
        if not vendor.release_image:
            continue
        model = db.model(model_id)
        chosen = resolve(db, Selection.flat(model, flat, res.avg_len), release=release)
        text = runmodes.docker_text(db, model, chosen, "en")
        rules = {f.rule for f in check_text(db, text, model_id=model_id, **flat)}
        assert "docker.foreign-image" not in rules, (model_id, release)
        return
    pytest.skip("no model has a selection on a vendor with a release image")


# --- a model's own docker options (docker_images args) ------------------------------------------

IMAGE_ARGS = ["--ulimit memlock=-1", "--ulimit nofile=1024:2048", "--cap-add IPC_LOCK",
              "-w /workspace"]


def _with_image_args(recipes, model_id: str, hw: str, args: list[str]) -> None:
    edit_yaml(recipes / model_id / "model.yaml", lambda d: d["docker_images"].insert(
        0, {"when": {"hw": hw}, "image": "example/test-image:1", "args": args}))


@pytest.mark.parametrize("model_id", MODELS)
def test_an_images_docker_options_reach_compose_and_kubernetes(recipes_copy, db, model_id):
    """A platform's image options become Compose keys (ulimits, cap_add, working_dir), valid
    against the Compose schema; in Kubernetes those a pod has a field for are set and the
    others (--ulimit) are named in the file's header, in both languages."""
    model = db.model(model_id)
    hw = model.cells[0].match["hw"]
    _with_image_args(recipes_copy, model_id, hw, IMAGE_ARGS)
    copy = load_database(recipes_copy)
    flat, res = next((f, r) for f, r in resolve_all(copy, model_id) if r.hw == hw)
    compose = yamlc.load(deploy.files(copy, model, res, "compose", "en")[0].text)
    errors = list(_compose_validator().iter_errors(compose))
    assert not errors, errors[0].message
    for svc in (v for k, v in compose["services"].items() if k != "router"):
        assert svc["ulimits"] == {"memlock": -1, "nofile": {"soft": 1024, "hard": 2048}}
        assert "IPC_LOCK" in svc["cap_add"] and svc["working_dir"] == "/workspace"
        _check_service(copy, svc, next(g.res for g in deploy.groups(copy, model, res)
                                       if g.res.hw == hw), [w.replace("$$", "$") for w in
                                                            svc["command"]])
    if "router" in compose["services"]:
        assert "ulimits" not in compose["services"]["router"]
    for lang in ("en", "ko"):
        text = deploy.files(copy, model, res, "k8s", lang)[0].text
        head = " ".join(line[2:] for line in text.splitlines() if line.startswith("# "))
        assert "--ulimit memlock=-1, --ulimit nofile=1024:2048" in head
        assert "IPC_LOCK" not in head and "-w" not in head
        docs = [d for d in yamlc.load_all(text) if d]
        container = next(d for d in docs if d["kind"] in ("Deployment", "LeaderWorkerSet"))
        pod = (container["spec"]["template"] if container["kind"] == "Deployment" else
               container["spec"]["leaderWorkerTemplate"]["workerTemplate"])["spec"]
        c = pod["containers"][0]
        assert "IPC_LOCK" in c["securityContext"]["capabilities"]["add"]
        assert c["workingDir"] == "/workspace"
        assert "ulimit" not in json.dumps(docs)


@pytest.mark.parametrize(("arg", "said"), [
    ("--rm", "--rm has no key in a Docker Compose service"),
    ("--name sglang", "--name has no key in a Docker Compose service"),
    ("--ulimit memlock", "no NAME=SOFT[:HARD] limit"),
    ("--ulimit memlock=lots", "no NAME=SOFT[:HARD] limit")])
def test_an_image_option_compose_cannot_carry_is_a_load_error(recipes_copy, db, arg, said):
    """The data contract: every option a model's image adds is one the deployment files can
    write; any other is a validate error at its line, naming the options that have a key."""
    model_id = MODELS[0]
    _with_image_args(recipes_copy, model_id, db.model(model_id).cells[0].match["hw"], [arg])
    with pytest.raises(RecipeError) as exc:
        load_database(recipes_copy)
    [problem] = [p for p in exc.value.problems if said in p.message]
    assert problem.file.endswith(f"{model_id}/model.yaml") and problem.line
    if "has no key" in said:
        assert "--ulimit" in problem.message and "--cap-add" in problem.message


# --- the YAML style and the command line ------------------------------------------------------

@pytest.mark.parametrize("text", ["30000:30000", "0.0.0.0", "yes", "No", "null", "8", "1e3",
                                  "<rank>", "a: b", "- x", "~", "--flag", "-1", "x#y", "'q'",
                                  "\"", "한국어", "tab\there", "", "#c", "*ref", "&a", "!t"])
def test_yaml_scalars_read_back_as_the_same_string(text):
    assert yamlc.load("\n".join(deploy.yaml_lines({"k": text, "l": [text]}))) == {
        "k": text, "l": [text]}


def test_command_as_prints_the_files(db, cli, model_id):
    model = db.model(model_id)
    flat, res = next(iter(resolve_all(db, model_id)))
    sets = [a for k, v in flat.items() for a in ("--set", f"{k}={v}")]
    for fmt in deploy.FORMATS:
        out = cli("command", model_id, *sets, "--as", fmt, "--format", "json")
        assert out.code == 0, out.err
        want = deploy.files(db, model, res, fmt, "en")
        assert [f["text"] for f in out.json()["files"]] == [f.text for f in want]
        text = cli("command", model_id, *sets, "--as", fmt)
        assert text.out == deploy.files_text(want)
