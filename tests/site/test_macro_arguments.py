"""A page's macro call with a wrong argument is a MacroError naming what is wrong (the build
shows it at the page's line), never a Python error; run over every model."""

from __future__ import annotations

import pytest

from helpers.models import MODELS
from macros.site.pages import MacroError, Site


def _cell(db, model_id):
    return tuple(db.model(model_id).cells[0].match.values())


@pytest.mark.parametrize("model_id", MODELS)
@pytest.mark.parametrize("value", [float("inf"), 1e400, "x", 0, -5, True, 10**30, "1e3"])
def test_a_request_length_that_is_no_whole_number_of_tokens_is_refused(db, model_id, value):
    with pytest.raises(MacroError) as exc:
        Site(db, "en").command(model_id, *_cell(db, model_id), avg_len=value)
    assert str(exc.value) == (f"avg_len={value!r} is not a whole number of tokens from 1 to "
                              "10,000,000")


@pytest.mark.parametrize("model_id", MODELS)
def test_a_text_id_the_database_lacks_is_refused(db, model_id):
    with pytest.raises(MacroError) as exc:
        Site(db, "en").text(model_id, "__class__")
    assert str(exc.value).startswith(f"text: {model_id} has no text '__class__' (")


@pytest.mark.parametrize("model_id", MODELS)
def test_a_dimension_given_twice_is_refused(db, model_id):
    hw = _cell(db, model_id)[0]
    with pytest.raises(MacroError) as exc:
        Site(db, "en").badge(model_id, hw, hw=hw)
    assert str(exc.value) == f"{model_id}: 'hw' is given twice"


@pytest.mark.parametrize("model_id", MODELS)
def test_a_setting_that_is_not_text_is_refused(db, model_id):
    axis = next(iter(db.model(model_id).axis_index))
    with pytest.raises(MacroError) as exc:
        Site(db, "en").command(model_id, *_cell(db, model_id), **{axis: True})
    assert str(exc.value) == (f"{model_id}: {axis}=True is not an option id (write it as "
                              f"text, e.g. {axis}=\"…\")")
