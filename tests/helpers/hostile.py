"""Hostile strings planted in a copy of recipes/: shared by the static-page and the browser
tests of the same poison."""

from __future__ import annotations

from pathlib import Path

import yaml

EVIL = ('<script>alert("x")</script> "><img src=x onerror=alert(2)> '
        '[click](javascript:alert(3)) <div onclick=alert(4)> ``` | --')
EVIL_VALUE = '{"enable_multithread_load": true, "x": "$(touch /tmp/pwned); `id`"}'


def poison(recipes: Path) -> None:
    # Every reader-visible string of the shared catalog and of every model, each one marked
    # with its own id so a test can see that it reached the page.
    for path in sorted(recipes.glob("*/text.*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for key in data:
            data[key] = f"{data[key]} {key} {EVIL}"
        path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    hw = recipes / "catalog" / "hardware.yaml"
    hw.write_text(hw.read_text().replace("label: B300\n", "label: 'B300<script>alert(5)</script>'\n"))
    cells = recipes / "kimi-k3" / "cells.yaml"
    text = cells.read_text()
    old = "'--model-loader-extra-config ''{\"enable_multithread_load\": true}'''"
    assert old in text or '{\\"enable_multithread_load\\": true}' in text
    text = text.replace('{\\"enable_multithread_load\\": true}',
                        EVIL_VALUE.replace('"', '\\"'), 1)
    cells.write_text(text)
