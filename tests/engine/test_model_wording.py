"""Data contracts on a model's wording, per model: it says what each status its cells carry
means for it (the badges and the home page read that), and a pin's reason does not repeat the
flag the caveat is titled with."""

from __future__ import annotations

import pytest

from helpers import yamlc
from helpers.models import MODELS, edit_yaml
from macros.engine.database import load_database
from macros.engine.errors import RecipeError


def _problems(root) -> list[str]:
    with pytest.raises(RecipeError) as err:
        load_database(root)
    return [str(p) for p in err.value.problems]


@pytest.mark.parametrize("model_id", MODELS)
def test_a_status_the_model_does_not_word_is_a_load_error(recipes_copy, model_id):
    folder = recipes_copy / model_id
    cells = yamlc.load((folder / "cells.yaml").read_text(encoding="utf-8"))["cells"]
    status = cells[0]["status"]
    for lang in ("en", "ko"):
        path = folder / f"text.{lang}.yaml"
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        path.write_text("".join(x for x in lines if not x.startswith(f"status.{status}.title:")),
                        encoding="utf-8")
    [problem] = [p for p in _problems(recipes_copy) if "means for" in p]
    assert problem.startswith(f"{recipes_copy.name}/{model_id}/cells.yaml:") or \
        f"{model_id}/cells.yaml:" in problem
    assert f"no model text says what '{status}' means for {model_id}: add " \
           f"'status.{status}.title'" in problem


@pytest.mark.parametrize("model_id", MODELS)
def test_a_pin_reason_that_repeats_its_flag_is_a_load_error(recipes_copy, model_id):
    folder = recipes_copy / model_id
    data = yamlc.load((folder / "cells.yaml").read_text(encoding="utf-8"))
    i, cell = next((i, c) for i, c in enumerate(data["cells"]) if c.get("flags"))
    flag = cell["flags"][0].split()[0]

    def pin(doc):
        doc["cells"][i].setdefault("pins", {})[flag] = "pin.test-repeat"
    edit_yaml(folder / "cells.yaml", pin)
    for lang, words in (("en", f"Keep {flag} as it is."), ("ko", "이 값을 그대로 두세요.")):
        with open(folder / f"text.{lang}.yaml", "a", encoding="utf-8") as f:
            f.write(f'\npin.test-repeat: "{words}"\n')
    [problem] = [p for p in _problems(recipes_copy) if "names" in p and "again" in p]
    assert f"the reason text 'pin.test-repeat' names {flag} again (en)" in problem
