"""Reading ``docker run`` options as the docker CLI groups them.

Owns which words of a docker run line are its options and their values, by the vocabulary
hardware.yaml declares (``containers.run_flags``: each option and whether it takes a value),
and which word is the image; what docker makes of an option's value: the ports ``-p`` publishes
(``publish``), the host folder ``-v``/``--mount`` hands the container (``mount_source``) and
whether that folder is the host's root or a home folder (``host_folder``); which key of a Docker
Compose service each option is (``COMPOSE``, ``compose_problem``; ``site/deploy.py`` writes
the service). The loader holds the data's own options to that vocabulary,
``runmodes.py`` prints lines made of them and ``check.py`` reads a hand-written line with it.
Must not know SGLang's programs or flags, or read shell syntax (``shell.py``).
"""

from __future__ import annotations

import posixpath
import re
import shlex
from dataclasses import dataclass

# docker's own names for what an option does (its aliases: `docker run --help`)
PUBLISH = ("-p", "--publish")
VOLUME = ("-v", "--volume")
MOUNT = ("--mount",)
NETWORK = ("--network", "--net")
PORT_MAX = 65535


@dataclass(frozen=True)
class Option:
    name: str
    value: str | None
    at: int  # index of the word it starts at


@dataclass(frozen=True)
class Read:
    options: list[Option]
    unknown: list[tuple[str, int]]  # (option as written, index of its word)
    image: int | None  # index of the first word that is no option: the image


def read(words: list[str], run_flags: dict[str, bool]) -> Read:
    """The options in front of the image, as docker's parser groups them: ``--name value``,
    ``--name=value``, ``-p8000:8000`` and clusters of single-letter switches (``-it``)."""
    options: list[Option] = []
    unknown: list[tuple[str, int]] = []
    i = 0
    while i < len(words):
        word = words[i]
        if not word.startswith("-") or word == "-":
            return Read(options, unknown, i)
        name, eq, inline = word.partition("=")
        if name in run_flags:
            if eq or not run_flags[name]:
                options.append(Option(name, inline if eq else None, i))
                i += 1
            else:
                options.append(Option(name, words[i + 1] if i + 1 < len(words) else None, i))
                i += 2
            continue
        short = word[:2]
        if not word.startswith("--") and len(word) > 2:
            if run_flags.get(short):  # -p30000:30000
                options.append(Option(short, word[2:], i))
                i += 1
                continue
            switches = [f"-{c}" for c in word[1:]]
            if all(run_flags.get(s) is False for s in switches):
                options += [Option(s, None, i) for s in switches]
                i += 1
                continue
        unknown.append((name, i))
        i += 1
    return Read(options, unknown, None)


def option_problem(text: str, run_flags: dict[str, bool]) -> str | None:
    """What is wrong with one option as the data writes it (``--group-add video``), or None."""
    try:
        words = shlex.split(text)
    except ValueError as exc:
        return f"'{text}': {exc}"
    found = read(words, run_flags)
    if found.unknown:
        return f"'{found.unknown[0][0]}' is not a docker run option run_flags declares"
    if found.image is not None:
        before = found.options[-1].name if found.options else None
        why = f"{before} takes no value" if before else "it does not start with -"
        return f"'{text}': '{words[found.image]}' is no option's value ({why})"
    if any(o.value is None and run_flags[o.name] for o in found.options):
        return f"'{text}': {found.options[-1].name} takes a value"
    return None


@dataclass(frozen=True)
class Publish:
    """One ``-p [IP:][HOST:]CONTAINER[/PROTO]``: each side as a first port and a count (a
    range ``8000-8001`` is two); ``host`` is None when docker picks the host's port."""

    host: tuple[int, int] | None
    container: tuple[int, int]

    def host_port(self, port: int) -> int | None:
        """The host's port that reaches the container's ``port``, or None (not published,
        or on a port docker picks)."""
        first, count = self.container
        if not first <= port < first + count or self.host is None:
            return None
        return self.host[0] + (port - first if self.host[1] == count else 0)


def _ports(text: str, side: str) -> tuple[int, int] | str:
    m = re.fullmatch(r"([0-9]+)(?:-([0-9]+))?", text)
    if m is None:
        return f"the {side} port '{text}' is not a port number (nor a range like 8000-8001)"
    first, last = int(m.group(1)), int(m.group(2) or m.group(1))
    for port in (first, last):
        if not 1 <= port <= PORT_MAX:
            return f"the {side} port {port} is out of range (a port is 1-{PORT_MAX})"
    if last < first:
        return f"the {side} port range {text} ends before it starts"
    return first, last - first + 1


def publish(value: str) -> Publish | str | None:
    """What ``-p value`` publishes, a sentence saying why docker refuses it, or None when the
    shell fills the value in at run time (``$PORT``)."""
    if "$" in value:
        return None
    body = value.rsplit("/", 1)[0] if "/" in value else value
    if body.startswith("["):  # an IPv6 address: [::1]:8000:30000
        end = body.find("]:")
        if end < 0:
            return f"'{value}' is no [IP]:HOST:CONTAINER port mapping"
        body = body[end + 2:]
        parts = body.split(":")
        parts = parts if len(parts) == 2 else [""] + parts
    else:
        parts = body.split(":")
        if len(parts) == 3:
            parts = parts[1:]  # IP:HOST:CONTAINER
    if len(parts) == 1:
        parts = [""] + parts
    if len(parts) != 2 or not parts[1]:
        return f"'{value}' is no [IP:][HOST:]CONTAINER port mapping"
    container = _ports(parts[1], "container")
    if isinstance(container, str):
        return container
    host = _ports(parts[0], "host") if parts[0] else None
    if isinstance(host, str):
        return host
    if host is not None and host[1] not in (1, container[1]):
        return f"'{value}' maps {host[1]} host ports onto {container[1]} container ports"
    return Publish(host, container)


def mount_source(name: str, value: str | None) -> str | None:
    """The host folder a ``-v``/``--volume``/``--mount`` option hands the container, or None
    (a named or anonymous volume, a tmpfs)."""
    if not value:
        return None
    if name in VOLUME:
        source = value.split(":", 1)[0] if ":" in value else None
        return source if source and source[0] in "/~$." else None
    if name in MOUNT:
        fields = dict(part.partition("=")[::2] for part in value.split(","))
        if fields.get("type", "volume") != "bind":
            return None
        return fields.get("source") or fields.get("src")
    return None


_HOME = re.compile(r"(~[^/]*|\$HOME|\$\{HOME\})(?=/|$)")


def host_folder(source: str) -> str | None:
    """``"root"`` when ``source`` is the host's root folder, ``"home"`` when it is a home
    folder (``~``, ``$HOME``, ``/root``, ``/home`` or one user's folder in it), else None."""
    home = _HOME.match(source)
    if home:
        rest = posixpath.normpath("/" + source[home.end():].lstrip("/"))
        return "home" if rest == "/" else None
    if not source.startswith("/"):
        return None
    path = "/" + posixpath.normpath(source).lstrip("/")
    if path in ("/", "/."):
        return "root"
    return "home" if re.fullmatch(r"/root|/home(/[^/]+)?", path) else None


# --- docker run options as a Compose service's keys ----------------------------------------------

# What each docker run option is in a service of the Compose specification, and how its value
# goes there: ``list`` adds it to a list, ``one`` sets it, ``switch`` sets true, ``ulimit`` reads
# NAME=SOFT[:HARD] into ``ulimits``, ``env`` adds it to ``environment``, ``gpus`` is a device
# reservation (deploy.resources.reservations.devices). An option missing here has no service key:
# --rm, -d and --name are what ``docker compose up`` decides itself, and --mount's long form is
# not read here. The Playground reads the same table from its export.
COMPOSE = {
    "--gpus": ("deploy", "gpus"),
    "--device": ("devices", "list"), "--group-add": ("group_add", "list"),
    "--cap-add": ("cap_add", "list"), "--security-opt": ("security_opt", "list"),
    "-v": ("volumes", "list"), "--volume": ("volumes", "list"),
    "-p": ("ports", "list"), "--publish": ("ports", "list"), "--env-file": ("env_file", "list"),
    "-e": ("environment", "env"), "--env": ("environment", "env"),
    "--shm-size": ("shm_size", "one"), "--ipc": ("ipc", "one"),
    "--network": ("network_mode", "one"), "--net": ("network_mode", "one"),
    "--entrypoint": ("entrypoint", "one"), "-w": ("working_dir", "one"), "-u": ("user", "one"),
    "--privileged": ("privileged", "switch"), "-i": ("stdin_open", "switch"),
    "-t": ("tty", "switch"),
    "--ulimit": ("ulimits", "ulimit"),
}

_ULIMIT = re.compile(r"([a-z]+)=(-?[0-9]+)(?::(-?[0-9]+))?")


def ulimit(value: str | None) -> tuple[str, int | dict] | str:
    """``--ulimit NAME=SOFT[:HARD]`` as Compose writes it (``-1``: unlimited): the name and
    the limit, or a sentence saying why docker refuses the value."""
    m = _ULIMIT.fullmatch(value or "")
    if m is None:
        return f"--ulimit '{value}' is no NAME=SOFT[:HARD] limit (like memlock=-1)"
    soft = int(m.group(2))
    return m.group(1), soft if m.group(3) is None else {"soft": soft, "hard": int(m.group(3))}


def compose_problem(option: Option) -> str | None:
    """Why a Compose service cannot carry the option as written, or None."""
    if option.name not in COMPOSE:
        return (f"the docker run option {option.name} has no key in a Docker Compose service "
                f"(options that have one: {', '.join(COMPOSE)})")
    if COMPOSE[option.name][1] == "ulimit":
        found = ulimit(option.value)
        return found if isinstance(found, str) else None
    return None
