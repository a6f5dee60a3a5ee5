"""The run modes of a selection: its server command inside ``docker run``, a curl smoke test
and an OpenAI client call against that server.

Owns the three texts exactly as the pages, ``recipes command --format json`` and the Playground
print them (``playground/render.js`` builds the same; the parity test compares them): the docker
options a selection gets from hardware.yaml's ``containers`` (the vendor's, the shared ones, the
published port or the host's network, the cache and token, the command's environment), the
image and the serve command; and the port a client reaches (the router's for a PD server). Must
not compose or check the server command (``resolve.py``, ``check.py``).
"""

from __future__ import annotations

import json

from macros.site import render
from macros.engine.model import Database
from macros.engine.model import Model
from macros.engine.flags import env_text, quote, split_words
from macros.engine.results import Resolution

# The smoke test and the client run where the server's node 0 (or the router) listens.
HOST = "localhost"
PER_LINE = 4  # per-device options (Ascend's davinci dies) per printed line


def word(text: str) -> str:
    """One docker word for the shell: quoted like a flag value, except that a leading ``~/``
    stays bare so the shell expands it to the reader's home folder."""
    if text.startswith("~/") and quote(text[1:]) == text[1:]:
        return text
    return quote(text)


def _option(text: str) -> str:
    return " ".join(word(w) for w in split_words(text))


def server_port(db: Database, res: Resolution) -> str:
    db = db.serving(db.model(res.model))  # the port role of the model's CLI
    names = db.catalog.role_flags("port")
    given = [f.value for f in res.flags if f.name in names and f.value]
    return given[-1] if given else str(db.catalog.flags[names[0]].default)


def client_port(db: Database, model: Model, res: Resolution) -> str:
    """Where clients send requests: the router in front of a PD server, else the server."""
    if res.pd is None:
        return server_port(db, res)
    return str(model.info.pd.router.port)


def host_network(db: Database, res: Resolution) -> bool:
    """Nodes of one server, and PD servers with their peers, meet on ports chosen at run time
    (distributed init, NCCL, KV transfer), which no port mapping can name in advance."""
    vendor = db.platforms[res.hw].vendor.value
    return res.nodes > 1 or res.pd is not None or db.containers.vendors[vendor].host_network


def docker_options(db: Database, res: Resolution) -> list[str]:
    """The docker run options of the selection, one printed line each."""
    c = db.containers
    platform = db.platforms[res.hw]
    run = c.vendors[platform.vendor.value]
    lines = [_option(a) for a in run.args] + [_option(a) for a in res.docker_args]
    if run.per_device:
        devices = platform.gpus_per_node * (platform.devices_per_card or 1)
        each = [_option(run.per_device.replace("{index}", str(i))) for i in range(devices)]
        lines += [" ".join(each[i:i + PER_LINE]) for i in range(0, len(each), PER_LINE)]
    lines += [_option(a) for a in c.shared]
    if host_network(db, res):
        lines.append(_option(c.host_network))
    else:
        lines.append(_option(c.publish.replace("{port}", server_port(db, res))))
    lines += [_option(a) for a in c.cache]
    lines += [f"{_option(c.env)} {env_text(e)}" for e in res.env]
    return lines


def install_text(db: Database, model: Model, res: Resolution, lang: str) -> str:
    """Where no image is published for the selection (the Python form only): why, the model's
    install commands for it (``model.yaml`` ``install``), then the server command."""
    lines = [f"# {part}".rstrip() for part in render.wrap(db.t(lang, "ui.run.no-image", model))]
    return "\n".join(lines + list(res.install) + [""] +
                     [render.command_text(db, model, res, lang)])


def docker_text(db: Database, model: Model, res: Resolution, lang: str) -> str:
    """The server command as the image of the selection runs it (``docker run … IMAGE
    sglang serve …``), under the same hint comments as the command; where no image is
    published, the install route instead (``install_text``), never a made-up image."""
    if res.docker_image is None:
        return install_text(db, model, res, lang)
    body = ["docker run"] + [render.INDENT + line for line in docker_options(db, res)]
    body += [render.INDENT + word(res.docker_image), render.INDENT + res.program]
    body += [render.INDENT * 2 + f.text() for f in res.flags]
    lines = render.hint_lines(db, model, res, lang)
    return "\n".join(lines + [line + " \\" for line in body[:-1]] + [body[-1]])


def _message(db: Database, model: Model, lang: str) -> str:
    return json.dumps(db.t(lang, "ui.run.message", model), ensure_ascii=False)


def literal(value, python: bool = False) -> str:
    """A JSON value as one line (``", "`` and ``": "`` between items, keys sorted), or as the
    Python literal of the same value (``True``, ``None``); ``render.js`` writes the same text."""
    if isinstance(value, dict):  # keys in sorted order, as the export ships them
        return "{" + ", ".join(f"{json.dumps(k, ensure_ascii=False)}: {literal(v, python)}"
                               for k, v in sorted(value.items())) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(literal(v, python) for v in value) + "]"
    if python and (value is None or isinstance(value, bool)):
        return repr(value)
    return json.dumps(value, ensure_ascii=False)


def _job_body(model: Model, res: Resolution, task: str | None = None) -> dict:
    """The job ``task`` submits (None: the selection's own request), with the served name."""
    return {"model": res.model_name, **model.info.request.body_of(task or res.request)}


# The chat endpoint of the OpenAI-compatible server an LLM's smoke test sends to.
CHAT_ENDPOINT = "/v1/chat/completions"


def request_url(db: Database, model: Model, res: Resolution) -> str:
    """The URL the selection's curl and client send to: the job endpoint a diffusion model's
    ``request`` names, else the LLM server's chat endpoint (the router's for a PD server)."""
    path = model.info.request.endpoint if model.info.request is not None else CHAT_ENDPOINT
    return f"http://{HOST}:{client_port(db, model, res)}{path}"


def curl_text(db: Database, model: Model, res: Resolution, lang: str,
              task: str | None = None) -> str:
    """One chat request to the server (the router for a PD server) with the served name; for a
    diffusion model, the job its request submits (``model.yaml`` ``request``)."""
    if model.info.request is not None:
        lines = [f"curl -sS -X POST {quote(request_url(db, model, res))}",
                 f"{render.INDENT}-H {quote('Content-Type: application/json')}",
                 f"{render.INDENT}-d {quote(literal(_job_body(model, res, task)))}"]
        return "\n".join([line + " \\" for line in lines[:-1]] + [lines[-1]])
    url = request_url(db, model, res)
    body = (f'{{"model": {json.dumps(res.model_name, ensure_ascii=False)}, "messages": '
            f'[{{"role": "user", "content": {_message(db, model, lang)}}}]}}')
    lines = [f"curl {quote(url)}", f"{render.INDENT}-H {quote('Content-Type: application/json')}",
             f"{render.INDENT}-d {quote(body)}"]
    return "\n".join([line + " \\" for line in lines[:-1]] + [lines[-1]])


def python_text(db: Database, model: Model, res: Resolution, lang: str,
                task: str | None = None) -> str:
    """The same request through the OpenAI Python client; for a diffusion model's job, with
    the standard library: submit, poll until it is done, download what it made."""
    if model.info.request is not None:
        body = _job_body(model, res, task)
        return "\n".join([
            "import json",
            "import time",
            "import urllib.request",
            "",
            f"url = {json.dumps(request_url(db, model, res))}",
            "body = {",
            *[f"    {json.dumps(k, ensure_ascii=False)}: {literal(v, True)},"
              for k, v in sorted(body.items())],
            "}",
            "request = urllib.request.Request(url, data=json.dumps(body).encode(),",
            '                                 headers={"Content-Type": "application/json"})',
            "job = json.load(urllib.request.urlopen(request))",
            'while job["status"] not in ("completed", "failed"):',
            "    time.sleep(5)",
            "    job = json.load(urllib.request.urlopen(f\"{url}/{job['id']}\"))",
            'if job["status"] == "failed":',
            '    raise SystemExit(f"generation failed: {job}")',
            "content = urllib.request.urlopen(f\"{url}/{job['id']}/content\").read()",
            'print(job["id"], len(content), "bytes")',
        ])
    base = f"http://{HOST}:{client_port(db, model, res)}/v1"
    return "\n".join([
        "from openai import OpenAI",
        "",
        f'client = OpenAI(base_url={json.dumps(base)}, api_key="EMPTY")',
        "response = client.chat.completions.create(",
        f"    model={json.dumps(res.model_name, ensure_ascii=False)},",
        f'    messages=[{{"role": "user", "content": {_message(db, model, lang)}}}],',
        ")",
        "print(response.choices[0].message.content)",
    ])
