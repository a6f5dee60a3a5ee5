"""What the stand-in serves, read from the recipe database.

Owns the step from each model's ``api`` block (or a diffusion model's ``request``) and
``model_names`` to the
``ServedModel`` entries the server takes: one per served name, with the inputs
of ``inputs_by_name`` where the block gives that name its own. Must not import
the engine: it reads the database object it is handed, so the server stays
standard library only.
"""

from __future__ import annotations

from typing import Any

from .server import ServedModel


def served_models(db: Any) -> list[ServedModel]:
    """Every served name of every model in ``db``, in model and ``model_names`` order."""
    out: list[ServedModel] = []
    for model in db.models.values():
        info = model.info
        names = dict.fromkeys(rule.name for rule in info.model_names)
        if info.request is not None:  # a diffusion server: its media job, no chat
            request = {"endpoint": info.request.endpoint, "body": dict(info.request.body),
                       "tasks": [{"id": t.id, "body": info.request.body_of(t.id)}
                                 for t in info.request.tasks]}
            out += [ServedModel(served_name=name, model=model.id, name=info.name, inputs=(),
                                tool_calls=False, request=request, cli=info.cli) for name in names]
            continue
        api, reasoning = info.api, info.api.reasoning
        for name in names:
            out.append(
                ServedModel(
                    served_name=name,
                    model=model.id,
                    name=info.name,
                    inputs=tuple(api.inputs_by_name.get(name, api.inputs)),
                    efforts=tuple(reasoning.efforts) if reasoning else (),
                    default_effort=reasoning.default_effort if reasoning else None,
                    thinking_switch=reasoning.switch if reasoning else None,
                    tool_calls=api.tool_call_parser is not None,
                    cli=info.cli,
                )
            )
    return out
