"""Reading ``docker run`` options as the docker CLI groups them.

Owns which words of a docker run line are its options and their values, by the vocabulary
hardware.yaml declares (``containers.run_flags``: each option and whether it takes a value),
and which word is the image. The loader holds the data's own options to that vocabulary,
``runmodes.py`` prints lines made of them and ``check.py`` reads a hand-written line with it.
Must not know SGLang's programs or flags, or read shell syntax (``shell.py``).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass


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
