"""OpenAI-compatible stand-in for SGLang serving the models of the recipe database.

This module owns the fake server the docs test suite runs the docs' Python
snippets against.  It imitates ``sglang serve --model-path NAME
--reasoning-parser P --tool-call-parser T`` for every served name at once,
each one as the ``api`` block of its model's ``model.yaml`` describes it
(``ServedModel``; ``standin.served`` builds them from the database), closely
enough for the real ``openai`` client:

* ``GET /v1/models`` and ``GET /v1/models/{id}`` list the served names;
* ``POST /v1/chat/completions`` answers plainly or as an SSE stream, with the
  thinking in ``reasoning_content`` and the answer in ``content``, and with
  ``tool_calls`` when tools are declared.  SGLang's reasoning and tool-call
  parsers all give this OpenAI shape once they have parsed the model's output,
  so the parsers differ here only in what the API block says: which efforts
  there are, whether a ``chat_template_kwargs`` switch turns thinking on, and
  whether tool calls are parsed at all;
* ``GET /health`` answers 200 with an empty body, like SGLang;
* for a diffusion model's served names, its media job (``media.py``): ``POST /v1/videos``,
  ``GET /v1/videos/{id}`` and ``GET /v1/videos/{id}/content``; a chat request naming one is
  404, as the diffusion server has no chat route (``CHAT_CLIS``).

Requests are validated the way a real server of the named model would (model
id, roles, ``reasoning_effort`` among the model's efforts, ``n``, tool schemas,
content parts among the model's inputs) so that a docs snippet that would fail
against the real server also fails here.  Answers are deterministic: "X% of Y"
and simple two-operand arithmetic are computed for real, everything else gets a
fixed generic answer.  Tool arguments are synthesised from the declared JSON
schema and the user's words.

Pure standard library on purpose: the docs suite must not grow dependencies.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
import socket
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote, urlsplit

from . import media

# Fixed timestamp so that responses are byte-for-byte reproducible.
CREATED = 1_750_000_000
VALID_ROLES = ("system", "user", "assistant", "tool")
# The CLIs whose server has the chat route. SGLang 0.5.23's diffusion server
# (multimodal_gen/runtime/entrypoints/http_server.py) routes only its jobs (/v1/videos,
# /v1/images, /v1/meshes), /v1/models and its admin paths: a chat request to it is FastAPI's
# 404 Not Found, whatever the request holds.
CHAT_CLIS = ("llm",)
# The content part type that carries each input kind of an API block.
PART_TYPES = {"text": "text", "image": "image_url"}
_TOOL_NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_DATA_IMAGE_RE = re.compile(r"^data:image/[A-Za-z0-9.+-]+;base64,(?P<data>[A-Za-z0-9+/=\s]+)$")


# ---------------------------------------------------------------------------
# What is served


@dataclass(frozen=True)
class ServedModel:
    """One served name and how its server answers (its model's ``api`` block)."""

    served_name: str  # what a request puts in "model"
    model: str  # the model's id (its folder in recipes/)
    name: str  # the model's name, for messages
    inputs: tuple[str, ...]  # input kinds (keys of PART_TYPES)
    efforts: tuple[str, ...] = ()  # the reasoning_effort values; empty: it never thinks
    default_effort: str | None = None
    # A chat_template_kwargs key that must be true for the model to think; None: it always
    # thinks (when it has efforts).
    thinking_switch: str | None = None
    tool_calls: bool = True  # served with a tool-call parser
    # A diffusion server's job instead of chat (model.yaml ``request``): its endpoint and the
    # body it takes (media.py); None: the name serves the chat API.
    request: dict[str, Any] | None = None
    cli: str = "llm"  # the CLI that serves the name (model.yaml ``cli``): which routes it has


# ---------------------------------------------------------------------------
# Errors


class APIError(Exception):
    """A request error rendered as an OpenAI-shape JSON error body."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        type_: str = "invalid_request_error",
        code: str | None = None,
        param: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.type = type_
        self.code = code
        self.param = param
        self.headers = headers or {}

    def body(self) -> dict[str, Any]:
        return {
            "error": {
                "message": self.message,
                "type": self.type,
                "param": self.param,
                "code": self.code,
            }
        }


def _bad_request(
    message: str, *, param: str | None = None, code: str = "invalid_value"
) -> APIError:
    return APIError(400, message, code=code, param=param)


# ---------------------------------------------------------------------------
# Recording


@dataclass
class RecordedRequest:
    """One request as the server saw it, for tests to assert on."""

    method: str
    path: str
    body: Any  # parsed JSON, or None when there was no (valid) JSON body
    headers: dict[str, str] = field(default_factory=dict)
    status: int | None = None  # HTTP status the server answered with
    # The reasoning effort actually applied (request value or the default),
    # only set for chat completions that passed validation and think.
    reasoning_effort: str | None = None


# ---------------------------------------------------------------------------
# Small text helpers


def _words(text: str) -> int:
    # A crude whitespace "tokenizer": usage numbers only need to be plausible.
    return len(text.split())


def _fmt_number(value: float) -> str:
    if abs(value - round(value)) < 1e-9:
        return str(int(round(value)))
    return f"{value:.6f}".rstrip("0").rstrip(".")


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _split_chunks(text: str, words_per_chunk: int = 3) -> list[str]:
    # Stream in small word groups, keeping the whitespace, so that
    # "".join(chunks) == text exactly (what a client reassembling deltas sees).
    pieces = re.findall(r"\S+\s*|\s+", text)
    return [
        "".join(pieces[i : i + words_per_chunk]) for i in range(0, len(pieces), words_per_chunk)
    ]


_PERCENT_RE = re.compile(
    r"(?P<pct>\d+(?:\.\d+)?)\s*(?:%|percent)\s+of\s+\$?(?P<base>\d[\d,]*(?:\.\d+)?)", re.IGNORECASE
)
# Whole-question arithmetic only ("What is 12 * 7?"), so dates like 2025-01-01
# or version numbers inside longer prose are not mistaken for sums.
_ARITH_RE = re.compile(
    r"^\s*(?:what\s+is|what's|compute|calculate)?\s*"
    r"(?P<a>-?\d+(?:\.\d+)?)\s*(?P<op>[-+*/×x÷])\s*(?P<b>-?\d+(?:\.\d+)?)\s*[?=.]?\s*$",
    re.IGNORECASE,
)


def _solve(question: str) -> tuple[str, list[str]] | None:
    """Return (answer, reasoning steps) for questions we can really compute."""
    m = _PERCENT_RE.search(question)
    if m:
        pct = float(m["pct"])
        base = float(m["base"].replace(",", ""))
        result = pct * base / 100
        p, b, r = _fmt_number(pct), _fmt_number(base), _fmt_number(result)
        frac = _fmt_number(pct / 100)
        steps = [
            f"{p}% of {b} means {frac} × {b}.",
            f"{frac} × {b} = {r}.",
            f"Check: {r} / {b} = {frac}, which is {p}%, so the result is consistent.",
            f"No rounding is needed beyond the exact value {r}.",
        ]
        return f"{p}% of {b} is {r}.", steps
    m = _ARITH_RE.search(question)
    if m:
        a, b = float(m["a"]), float(m["b"])
        op = m["op"]
        if op == "+":
            result, word = a + b, "sum"
        elif op == "-":
            result, word = a - b, "difference"
        elif op in "*×x":
            result, word = a * b, "product"
        else:
            if b == 0:
                return None
            result, word = a / b, "quotient"
        sa, sb, r = _fmt_number(a), _fmt_number(b), _fmt_number(result)
        steps = [
            f"The {word} of {sa} and {sb} is required.",
            f"Computing it gives {r}.",
            f"Check: recomputing {sa} {op} {sb} again gives {r}.",
            "The answer is exact, so no rounding is needed.",
        ]
        return f"{sa} {op} {sb} = {r}.", steps
    return None


# ---------------------------------------------------------------------------
# JSON-schema helpers (just the subset tool declarations use)


def _schema_type(schema: dict[str, Any]) -> str | None:
    t = schema.get("type")
    if isinstance(t, list):
        non_null = [x for x in t if x != "null"]
        return non_null[0] if non_null else "null"
    if t is None and "properties" in schema:
        return "object"
    return t


def schema_errors(schema: Any, value: Any, path: str = "$") -> list[str]:
    """Return reasons ``value`` does not match ``schema`` (empty list = valid).

    Covers type, enum, const, required, properties, additionalProperties,
    items, min/max (length, items, value) and anyOf/oneOf -- enough to check
    the tool arguments this server produces, and reusable by tests.
    """
    if not isinstance(schema, dict) or not schema:
        return []
    errors: list[str] = []
    for key in ("anyOf", "oneOf"):
        if key in schema:
            branches = schema[key]
            if not any(not schema_errors(b, value, path) for b in branches):
                errors.append(f"{path}: matches no branch of {key}")
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{path}: {value!r} not in enum {schema['enum']!r}")
    if "const" in schema and value != schema["const"]:
        errors.append(f"{path}: {value!r} != const {schema['const']!r}")
    types = schema.get("type")
    if types is not None:
        types = types if isinstance(types, list) else [types]
        checks = {
            "string": lambda v: isinstance(v, str),
            "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
            "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
            "boolean": lambda v: isinstance(v, bool),
            "object": lambda v: isinstance(v, dict),
            "array": lambda v: isinstance(v, list),
            "null": lambda v: v is None,
        }
        if not any(checks.get(t, lambda v: True)(value) for t in types):
            errors.append(f"{path}: expected type {schema['type']!r}, got {type(value).__name__}")
            return errors
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            errors.append(f"{path}: shorter than minLength")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            errors.append(f"{path}: longer than maxLength")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            errors.append(f"{path}: does not match pattern {schema['pattern']!r}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            errors.append(f"{path}: below minimum")
        if "maximum" in schema and value > schema["maximum"]:
            errors.append(f"{path}: above maximum")
        if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
            errors.append(f"{path}: not above exclusiveMinimum")
        if "exclusiveMaximum" in schema and value >= schema["exclusiveMaximum"]:
            errors.append(f"{path}: not below exclusiveMaximum")
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for name in schema.get("required", []):
            if name not in value:
                errors.append(f"{path}: missing required property {name!r}")
        for name, sub in value.items():
            if name in props:
                errors.extend(schema_errors(props[name], sub, f"{path}.{name}"))
            elif schema.get("additionalProperties") is False:
                errors.append(f"{path}: unexpected property {name!r}")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            errors.append(f"{path}: fewer than minItems")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            errors.append(f"{path}: more than maxItems")
        items = schema.get("items")
        if isinstance(items, dict):
            for i, item in enumerate(value):
                errors.extend(schema_errors(items, item, f"{path}[{i}]"))
    return errors


_PLACE_NAMES = ("city", "location", "place", "country", "region", "town", "destination", "address")
_PLACE_RE = re.compile(
    r"\b(?:in|at|for|to|from|near)\s+(?P<place>[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*)*)"
)
_CAPITALISED_RE = re.compile(r"(?<![.?!]\s)(?<!^)\b(?P<word>[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)*)")
# Double quotes only: single quotes collide with apostrophes ("What's ... it's").
_QUOTED_RE = re.compile(r"[\"“](?P<q>[^\"”]{1,200})[\"”]")
_NUMBER_RE = re.compile(r"-?\d+(?:\.\d+)?")


class _ArgFiller:
    """Builds tool arguments that satisfy a declared ``parameters`` schema.

    Values come from the user's message where a heuristic can find one (a place
    after "in"/"for", a quoted string, a number), otherwise a fixed plausible
    default -- a real model would also fill required fields from context.
    """

    def __init__(self, user_text: str) -> None:
        self.text = user_text.strip()

    def fill(self, schema: Any, name: str = "") -> Any:
        if not isinstance(schema, dict):
            return self._string({}, name)
        if "const" in schema:
            return schema["const"]
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return self._enum(schema["enum"])
        for key in ("anyOf", "oneOf"):
            branches = [
                b for b in schema.get(key, []) if isinstance(b, dict) and b.get("type") != "null"
            ]
            if branches:
                return self.fill(branches[0], name)
        if "default" in schema and not schema_errors(schema, schema["default"]):
            return schema["default"]
        kind = _schema_type(schema) or "string"
        if kind == "object":
            return self.fill_object(schema)
        if kind == "array":
            item = self.fill(schema.get("items", {}), name)
            return [item] * max(1, int(schema.get("minItems", 1)))
        if kind in ("number", "integer"):
            return self._number(schema, integer=(kind == "integer"))
        if kind == "boolean":
            return bool(re.search(r"\b(yes|true|enable|enabled|on)\b", self.text, re.IGNORECASE))
        if kind == "null":
            return None
        return self._string(schema, name)

    def fill_object(self, schema: dict[str, Any]) -> dict[str, Any]:
        props = schema.get("properties") or {}
        # Only required properties: that is what validation needs, and optional
        # ones are usually left to their defaults by the model as well.
        return {key: self.fill(props.get(key, {}), key) for key in schema.get("required", [])}

    def _enum(self, options: list[Any]) -> Any:
        lowered = self.text.lower()
        for option in options:
            if isinstance(option, str) and re.search(rf"\b{re.escape(option.lower())}\b", lowered):
                return option
        return options[0]

    def _number(self, schema: dict[str, Any], *, integer: bool) -> int | float:
        lo = schema.get("minimum", schema.get("exclusiveMinimum"))
        hi = schema.get("maximum", schema.get("exclusiveMaximum"))
        candidates = [float(x) for x in _NUMBER_RE.findall(self.text)]
        if integer:
            candidates = [c for c in candidates if c == int(c)]
        candidates.append(float(lo) if lo is not None else 1.0)
        for value in candidates:
            v: int | float = int(value) if integer else value
            if "exclusiveMinimum" in schema and v <= schema["exclusiveMinimum"]:
                v = schema["exclusiveMinimum"] + 1
            if "exclusiveMaximum" in schema and v >= schema["exclusiveMaximum"]:
                continue
            if lo is not None and v < lo:
                continue
            if hi is not None and v > hi:
                continue
            return int(v) if integer else v
        return int(hi) if integer and hi is not None else (hi if hi is not None else 1)

    def _string(self, schema: dict[str, Any], name: str) -> str:
        fmt = schema.get("format")
        fixed = {
            "date": "2025-01-01",
            "date-time": "2025-01-01T00:00:00Z",
            "time": "00:00:00",
            "email": "user@example.com",
            "uri": "https://example.com",
            "url": "https://example.com",
            "uuid": "00000000-0000-4000-8000-000000000000",
        }
        if fmt in fixed:
            return fixed[fmt]
        value = self._guess_string(name.lower())
        # Respect length limits so the arguments still validate.
        max_len = schema.get("maxLength")
        if isinstance(max_len, int) and len(value) > max_len:
            value = value[:max_len]
        min_len = schema.get("minLength", 0)
        if isinstance(min_len, int) and len(value) < min_len:
            value = value + "x" * (min_len - len(value))
        return value

    def _guess_string(self, name: str) -> str:
        text = self.text
        if any(key in name for key in _PLACE_NAMES):
            m = _PLACE_RE.search(text)
            if m:
                return m["place"].rstrip(".'")
            m = _CAPITALISED_RE.search(text)
            if m:
                return m["word"]
            return "San Francisco"
        m = _QUOTED_RE.search(text)
        if m:
            return m["q"]
        if "unit" in name:
            return "celsius"
        if "lang" in name:
            return "en"
        if text:
            return _short(text, 200)
        return name or "value"


def _tool_score(tool: dict[str, Any], text: str) -> int:
    fn = tool["function"]
    vocab = set(re.split(r"[^a-z0-9]+", fn["name"].lower()))
    vocab |= set(re.findall(r"[a-z0-9]+", str(fn.get("description", "")).lower()))
    vocab -= {"", "a", "an", "the", "of", "for", "to", "in", "get", "and", "or", "is"}
    words = set(re.findall(r"[a-z0-9]+", text.lower()))
    return len(vocab & words)


# ---------------------------------------------------------------------------
# Request validation


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(
            p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"
        )
    return ""


def _validate_image_url(part: dict[str, Any], where: str) -> str:
    image = part.get("image_url")
    url = image.get("url") if isinstance(image, dict) else image if isinstance(image, str) else None
    if not isinstance(url, str) or not url:
        raise _bad_request(f"{where}: image_url part needs an image_url.url string", param=where)
    if url.startswith("data:"):
        m = _DATA_IMAGE_RE.match(url)
        if not m:
            raise _bad_request(
                f"{where}: data URL must look like data:image/<type>;base64,<data>", param=where
            )
        try:
            base64.b64decode("".join(m["data"].split()), validate=True)
        except (binascii.Error, ValueError):
            raise _bad_request(
                f"{where}: image data URL is not valid base64", param=where
            ) from None
        return "inline image"
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise _bad_request(
            f"{where}: image URL must be http(s) or a data:image/...;base64 URL, got {url!r}",
            param=where,
        )
    return parts.netloc


def _validate_messages(messages: Any, served: ServedModel) -> list[str]:
    """Validate ``messages``; return a description of each attached image."""
    if not isinstance(messages, list) or not messages:
        raise _bad_request(
            "'messages' must be a non-empty list of message objects", param="messages"
        )
    images: list[str] = []
    for i, msg in enumerate(messages):
        where = f"messages[{i}]"
        if not isinstance(msg, dict):
            raise _bad_request(f"{where} must be an object", param=where)
        role = msg.get("role")
        if role not in VALID_ROLES:
            raise _bad_request(
                f"{where}.role {role!r} is invalid; expected one of {', '.join(VALID_ROLES)}",
                param=f"{where}.role",
            )
        content = msg.get("content")
        if content is None:
            # Only an assistant turn that carries tool calls may omit content.
            if role == "assistant" and msg.get("tool_calls"):
                continue
            raise _bad_request(
                f"{where}.content is required for role {role!r}", param=f"{where}.content"
            )
        if isinstance(content, str):
            continue
        if not isinstance(content, list):
            raise _bad_request(
                f"{where}.content must be a string or a list of parts", param=f"{where}.content"
            )
        for j, part in enumerate(content):
            pwhere = f"{where}.content[{j}]"
            if not isinstance(part, dict) or not isinstance(part.get("type"), str):
                raise _bad_request(f"{pwhere} must be an object with a 'type'", param=pwhere)
            kind = part["type"]
            if kind not in (PART_TYPES[i] for i in served.inputs):
                # The model's processor refuses the part, whatever kind of input it is.
                raise _bad_request(
                    f"{pwhere}: unsupported content part type {kind!r}. "
                    f"{served.name} accepts {' and '.join(served.inputs)} input only "
                    f"(content parts: {', '.join(PART_TYPES[i] for i in served.inputs)}); "
                    "other inputs are rejected.",
                    param=pwhere,
                    code="unsupported_modality",
                )
            if kind == "text":
                if not isinstance(part.get("text"), str):
                    raise _bad_request(f"{pwhere}.text must be a string", param=pwhere)
            else:
                if role != "user":
                    raise _bad_request(
                        f"{pwhere}: image parts are only allowed in user messages", param=pwhere
                    )
                images.append(_validate_image_url(part, pwhere))
    return images


def _validate_reasoning(body: dict[str, Any], served: ServedModel) -> str | None:
    """The effort the request thinks at, or None when it does not think."""
    kwargs = body.get("chat_template_kwargs")
    if kwargs is not None and not isinstance(kwargs, dict):
        raise _bad_request("'chat_template_kwargs' must be an object", param="chat_template_kwargs")
    effort = body.get("reasoning_effort")
    if not served.efforts:
        if effort is not None:
            raise _bad_request(
                f"{served.name} does not think (it is served without a reasoning parser), "
                "so 'reasoning_effort' changes nothing; leave it out.",
                param="reasoning_effort",
            )
        return None
    if effort is not None and effort not in served.efforts:
        raise _bad_request(
            f"Invalid value for 'reasoning_effort': {effort!r}. Supported values for "
            f"{served.name} are: {', '.join(repr(e) for e in served.efforts)} "
            f"(default {served.default_effort!r}).",
            param="reasoning_effort",
        )
    switch = served.thinking_switch
    if switch is not None:
        on = (kwargs or {}).get(switch, False)
        if not isinstance(on, bool):
            raise _bad_request(
                f"'chat_template_kwargs.{switch}' must be true or false (got {on!r})",
                param="chat_template_kwargs",
            )
        if not on:
            return None
    return effort if effort is not None else served.default_effort


def _validate_tools(tools: Any) -> list[dict[str, Any]]:
    if tools is None:
        return []
    if not isinstance(tools, list):
        raise _bad_request("'tools' must be a list", param="tools")
    names: set[str] = set()
    for i, tool in enumerate(tools):
        where = f"tools[{i}]"
        if not isinstance(tool, dict):
            raise _bad_request(f"{where} must be an object", param=where)
        if tool.get("type") != "function":
            raise _bad_request(
                f"{where}.type must be 'function', got {tool.get('type')!r}", param=f"{where}.type"
            )
        fn = tool.get("function")
        if not isinstance(fn, dict):
            raise _bad_request(f"{where}.function must be an object", param=f"{where}.function")
        name = fn.get("name")
        if not isinstance(name, str) or not _TOOL_NAME_RE.match(name):
            raise _bad_request(
                f"{where}.function.name is required and must match "
                f"^[A-Za-z0-9_-]{{1,64}}$, got {name!r}",
                param=f"{where}.function.name",
            )
        if name in names:
            raise _bad_request(
                f"{where}.function.name {name!r} is declared twice", param=f"{where}.function.name"
            )
        names.add(name)
        if "parameters" in fn:
            params = fn["parameters"]
            pwhere = f"{where}.function.parameters"
            if not isinstance(params, dict) or params.get("type") != "object":
                raise _bad_request(
                    f"{pwhere} must be a JSON schema with type 'object'", param=pwhere
                )
            props = params.get("properties", {})
            if not isinstance(props, dict) or not all(isinstance(v, dict) for v in props.values()):
                raise _bad_request(f"{pwhere}.properties must map names to schemas", param=pwhere)
            required = params.get("required", [])
            if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
                raise _bad_request(
                    f"{pwhere}.required must be a list of property names", param=pwhere
                )
            missing = [r for r in required if r not in props]
            if missing:
                raise _bad_request(
                    f"{pwhere}.required names undeclared properties {missing!r}", param=pwhere
                )
    return tools


def _validate_tool_choice(choice: Any, tools: list[dict[str, Any]]) -> str | None:
    """Return None (no call), "auto", "required", or the forced tool name."""
    if choice is None:
        return "auto" if tools else None
    if choice == "none":
        return None
    if choice in ("auto", "required"):
        if not tools:
            if choice == "required":
                raise _bad_request("tool_choice 'required' needs 'tools'", param="tool_choice")
            return None
        return choice
    if isinstance(choice, dict) and choice.get("type") == "function":
        name = (choice.get("function") or {}).get("name")
        if name not in {t["function"]["name"] for t in tools}:
            raise _bad_request(f"tool_choice names undeclared tool {name!r}", param="tool_choice")
        return name
    raise _bad_request(
        "tool_choice must be 'none', 'auto', 'required' or "
        "{'type': 'function', 'function': {'name': ...}}",
        param="tool_choice",
    )


# ---------------------------------------------------------------------------
# Completion synthesis


@dataclass
class _Completion:
    reasoning: str | None  # None: the request did not think
    content: str | None
    tool_calls: list[dict[str, Any]]
    finish_reason: str
    prompt_tokens: int

    @property
    def completion_tokens(self) -> int:
        args = " ".join(c["function"]["arguments"] for c in self.tool_calls)
        return _words(self.reasoning or "") + _words(self.content or "") + _words(args)


def _reasoning_text(
    intro: str, steps: list[str], effort: str | None, served: ServedModel
) -> str | None:
    if effort is None:
        return None
    # Depth follows the effort's place in the model's list: the first keeps one step, the
    # last all, the others in between rounded up (low/high/max keep 1, 3 and 4 of 4).
    rank, last = served.efforts.index(effort), len(served.efforts) - 1
    keep = len(steps) if last == 0 else 1 + -(-(len(steps) - 1) * rank // last)
    return " ".join([intro, *steps[:keep]])


def _complete(
    body: dict[str, Any], effort: str | None, images: list[str], served: ServedModel
) -> _Completion:
    messages = body["messages"]
    tools = _validate_tools(body.get("tools"))
    choice = _validate_tool_choice(body.get("tool_choice"), tools)
    if not served.tool_calls:
        # Without a tool-call parser the server returns no tool_calls; the model answers in text.
        choice = None
    prompt_tokens = sum(_words(_text_of(m.get("content"))) for m in messages) + sum(
        _words(json.dumps(t)) for t in tools
    )
    user_msgs = [m for m in messages if m.get("role") == "user"]
    question = (
        _text_of(user_msgs[-1].get("content"))
        if user_msgs
        else _text_of(messages[-1].get("content"))
    )
    q = _short(question) or "(no text)"
    intro = f'The user asks: "{q}".'
    if images:
        intro += f" They attached {len(images)} image(s) ({', '.join(images)})."
    last = messages[-1]

    # Follow-up turn after a tool result: answer in text from that result.
    if last.get("role") == "tool" and choice in (None, "auto"):
        result = _short(_text_of(last.get("content")), 300)
        tool_name = _tool_name_for(messages, last.get("tool_call_id")) or "the tool"
        steps = [
            f"{tool_name} returned: {result}.",
            "That result answers the question directly, so no further tool call is needed.",
            "I should restate it clearly for the user.",
            "Double-check that nothing in the result contradicts the question.",
        ]
        content = f'Based on {tool_name}, here is the answer to "{q}": {result}'
        return _Completion(
            _reasoning_text(intro, steps, effort, served), content, [], "stop", prompt_tokens
        )

    if choice is not None:
        if choice in ("auto", "required"):
            # Best word overlap with the tool name/description; ties keep
            # declaration order, which is also what a model tends to do.
            tool = max(tools, key=lambda t: _tool_score(t, question))
        else:
            tool = next(t for t in tools if t["function"]["name"] == choice)
        fn = tool["function"]
        params = fn.get("parameters") or {"type": "object", "properties": {}}
        args = _ArgFiller(question).fill_object(params)
        # Self-check: a stand-in that emits invalid arguments would make the
        # docs tests lie, so fail loudly instead.
        problems = schema_errors(params, args)
        if problems:
            raise APIError(
                500, f"stand-in produced invalid arguments: {problems}", type_="server_error"
            )
        arguments = json.dumps(args, ensure_ascii=False)
        call_id = "call_" + hashlib.sha256(f"{fn['name']}:{arguments}".encode()).hexdigest()[:24]
        steps = [
            f"The tool {fn['name']} fits this request.",
            f"Its arguments should be {arguments}.",
            "I will call it and answer once the result comes back.",
            "No other tool is needed before that.",
        ]
        call = {
            "id": call_id,
            "type": "function",
            "function": {"name": fn["name"], "arguments": arguments},
        }
        return _Completion(
            _reasoning_text(intro, steps, effort, served), None, [call], "tool_calls", prompt_tokens
        )

    solved = _solve(question)
    if solved:
        answer, steps = solved
    else:
        answer = (
            f'Here is a short answer to "{q}": '
            f"this is a deterministic reply from the {served.name} stand-in."
        )
        steps = [
            "No calculation is involved, so a concise direct answer is best.",
            "I should keep the answer short and to the point.",
            "Re-reading the question confirms nothing else is asked.",
            "The answer can be given without tools.",
        ]
    if images:
        answer += f" (I received {len(images)} image(s).)"
    reasoning = _reasoning_text(intro, steps, effort, served)
    return _Completion(reasoning, answer, [], "stop", prompt_tokens)


def _tool_name_for(messages: list[dict[str, Any]], call_id: Any) -> str | None:
    for msg in reversed(messages):
        for call in msg.get("tool_calls") or []:
            if isinstance(call, dict) and (call_id is None or call.get("id") == call_id):
                return (call.get("function") or {}).get("name")
    return None


# ---------------------------------------------------------------------------
# HTTP layer


class _HTTPServer(ThreadingHTTPServer):
    # Non-daemon handler threads + block_on_close: server_close() joins them,
    # which is what makes shutdown clean (no handler left running).
    daemon_threads = False
    block_on_close = True
    allow_reuse_address = True

    def __init__(self, addr: tuple[str, int], handler: type, owner: StandInServer) -> None:
        self.owner = owner
        self._conns: set[socket.socket] = set()
        self._conns_lock = threading.Lock()
        super().__init__(addr, handler)

    def process_request(self, request: socket.socket, client_address: Any) -> None:
        with self._conns_lock:
            self._conns.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: socket.socket) -> None:
        with self._conns_lock:
            self._conns.discard(request)
        super().shutdown_request(request)

    def close_idle_connections(self) -> None:
        # httpx keeps connections alive; their handler threads sit in a blocking
        # read.  Shutting the sockets down wakes them so they can be joined.
        with self._conns_lock:
            conns = list(self._conns)
        for conn in conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive + chunked SSE, like uvicorn
    server_version = "sglang-standin/1.0"
    timeout = 30  # an abandoned keep-alive connection must not pin a thread forever
    # Headers and body go out as separate writes; with Nagle on, the client's
    # delayed ACK adds ~40 ms to every response.
    disable_nagle_algorithm = True
    server: _HTTPServer

    # Quiet: test output should not be flooded with access logs.
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def do_PUT(self) -> None:
        self._dispatch("PUT")

    def do_DELETE(self) -> None:
        self._dispatch("DELETE")

    def do_PATCH(self) -> None:
        self._dispatch("PATCH")

    # -- plumbing ----------------------------------------------------------

    _rec: RecordedRequest | None = None

    def send_response(self, code: int, message: str | None = None) -> None:
        # Record the status before any byte goes out: a test may inspect
        # srv.requests as soon as the client has the response in hand.
        if self._rec is not None:
            self._rec.status = code
        super().send_response(code, message)

    def _read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        # A stand-in bug (5xx) should fail fast, not be retried by the client.
        self.send_header("x-should-retry", "false")
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _send_chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _dispatch(self, method: str) -> None:
        owner = self.server.owner
        # Clients percent-encode the "/" in ids like org%2FModel.
        path = unquote(urlsplit(self.path).path).rstrip("/") or "/"
        raw = self._read_body() if method in ("POST", "PUT", "PATCH") else b""
        body: Any = None
        body_error: str | None = None
        if raw:
            try:
                body = json.loads(raw)
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                body_error = f"Request body is not valid JSON: {exc}"
        record = RecordedRequest(method, path, body, dict(self.headers.items()))
        owner._record(record)
        self._rec = record
        try:
            self._route(method, path, body, body_error, record)
        except APIError as err:
            self._send_json(err.status, err.body(), err.headers)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        except Exception as exc:  # a stand-in bug: report it, don't hang the client
            err = APIError(500, f"stand-in internal error: {exc!r}", type_="server_error")
            self._send_json(500, err.body())
        finally:
            self._rec = None

    def _route(
        self, method: str, path: str, body: Any, body_error: str | None, record: RecordedRequest
    ) -> None:
        owner = self.server.owner
        routes = {"/health": ("GET",), "/v1/models": ("GET",), "/v1/chat/completions": ("POST",)}
        endpoints = {m.request["endpoint"] for m in owner.models.values() if m.request}
        routes.update({e: ("POST",) for e in endpoints})
        allowed = routes.get(path)
        job_path = next(((e, path[len(e) + 1:]) for e in endpoints
                         if path.startswith(e + "/")), None)
        if allowed is None and job_path is not None:
            allowed = ("GET",)
        if allowed is None and path.startswith("/v1/models/"):
            allowed = ("GET",)
        if allowed is None:
            raise APIError(
                404, f"Not Found: {method} {path}", type_="not_found_error", code="not_found"
            )
        if method not in allowed:
            raise APIError(
                405,
                f"Method {method} not allowed for {path}; use {', '.join(allowed)}",
                type_="invalid_request_error",
                code="method_not_allowed",
                headers={"Allow": ", ".join(allowed)},
            )
        if owner.api_key is not None:
            if self.headers.get("Authorization") != f"Bearer {owner.api_key}":
                raise APIError(
                    401, "Invalid API key", type_="authentication_error", code="invalid_api_key"
                )
        if path == "/health":
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if path == "/v1/models":
            cards = [owner.model_card(name) for name in owner.models]
            self._send_json(200, {"object": "list", "data": cards})
            return
        if path.startswith("/v1/models/"):
            model_id = path[len("/v1/models/") :]
            if model_id not in owner.models:
                raise _model_not_found(model_id)
            self._send_json(200, owner.model_card(model_id))
            return
        if job_path is not None:
            self._job(*job_path)
            return
        if body_error:
            raise _bad_request(body_error, code="invalid_json")
        if path in endpoints:
            self._submit(path, body)
            return
        self._chat(body, record)

    def _submit(self, endpoint: str, body: Any) -> None:
        """A media job (media.py): a served name of this endpoint, the declared body's fields."""
        owner = self.server.owner
        model = body.get("model") if isinstance(body, dict) else None
        served = owner.models.get(model) if isinstance(model, str) else None
        if served is None:
            raise _model_not_found(model)
        if not served.request or served.request["endpoint"] != endpoint:
            raise _bad_request(f"{model} does not serve {endpoint}", param="model")
        errors = media.task_errors(served.request, body)
        if errors:
            raise _bad_request("; ".join(errors))
        self._send_json(200, owner.jobs.submit(model, endpoint))

    def _job(self, endpoint: str, rest: str) -> None:
        owner = self.server.owner
        job_id, _, tail = rest.partition("/")
        job = owner.jobs.get(endpoint, job_id)
        if job is None or tail not in ("", "content"):
            raise APIError(404, f"Not Found: {endpoint}/{rest}", type_="not_found_error",
                           code="not_found")
        if not tail:
            self._send_json(200, job)
            return
        self.send_response(200)
        self.send_header("Content-Type", "video/mp4")
        self.send_header("Content-Length", str(len(media.CONTENT)))
        self.end_headers()
        self.wfile.write(media.CONTENT)

    def _chat(self, body: Any, record: RecordedRequest) -> None:
        owner = self.server.owner
        if not isinstance(body, dict):
            raise _bad_request("Request body must be a JSON object")
        model = body.get("model")
        if not isinstance(model, str):
            raise _bad_request(
                "'model' is required", param="model", code="missing_required_parameter"
            )
        served = owner.models.get(model)
        if served is None:
            raise _model_not_found(model)
        if served.cli not in CHAT_CLIS:  # its server has no such route (CHAT_CLIS)
            takes = f"; it takes jobs at {served.request['endpoint']}" if served.request else ""
            raise APIError(404, f"Not Found: POST /v1/chat/completions: {model} is served by "
                           f"the {served.cli} server, which has no chat route{takes}",
                           type_="not_found_error", code="not_found")
        images = _validate_messages(body.get("messages"), served)
        effort = _validate_reasoning(body, served)
        n = body.get("n")
        if n is not None and (not isinstance(n, int) or isinstance(n, bool) or n != 1):
            raise _bad_request(
                f"'n' must be 1 (got {n!r}); this server returns a single choice", param="n"
            )
        stream = body.get("stream", False)
        if stream is not None and not isinstance(stream, bool):
            raise _bad_request("'stream' must be a boolean", param="stream")
        max_tokens = body.get("max_tokens", body.get("max_completion_tokens"))
        if max_tokens is not None and (not isinstance(max_tokens, int) or max_tokens < 1):
            raise _bad_request("'max_tokens' must be a positive integer", param="max_tokens")
        completion = _complete(body, effort, images, served)
        record.reasoning_effort = effort

        with owner._in_flight():
            if owner.latency:
                time.sleep(owner.latency)
            digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:24]
            base = {"id": f"chatcmpl-{digest}", "created": CREATED, "model": model}
            usage = {
                "prompt_tokens": completion.prompt_tokens,
                "completion_tokens": completion.completion_tokens,
                "total_tokens": completion.prompt_tokens + completion.completion_tokens,
            }
            if stream:
                include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
                self._stream(base, completion, usage if include_usage else None)
            else:
                message = {
                    "role": "assistant",
                    "content": completion.content,
                    "reasoning_content": completion.reasoning,
                    "tool_calls": completion.tool_calls or None,
                }
                payload = {
                    **base,
                    "object": "chat.completion",
                    "choices": [
                        {
                            "index": 0,
                            "message": message,
                            "logprobs": None,
                            "finish_reason": completion.finish_reason,
                        }
                    ],
                    "usage": usage,
                }
                self._send_json(200, payload)

    def _stream(
        self, base: dict[str, Any], completion: _Completion, usage: dict[str, int] | None
    ) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

        def event(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> None:
            chunk = {
                **base,
                "object": "chat.completion.chunk",
                "choices": [
                    {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
                ],
                **extra,
            }
            self._send_chunk(f"data: {json.dumps(chunk)}\n\n".encode())

        # Same order as SGLang: role first, then thinking, then answer/tool calls.
        event({"role": "assistant", "content": ""})
        for piece in _split_chunks(completion.reasoning or ""):
            event({"reasoning_content": piece})
        for piece in _split_chunks(completion.content or ""):
            event({"content": piece})
        for index, call in enumerate(completion.tool_calls):
            # OpenAI streaming shape: id/type/name once, then argument fragments.
            event(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": call["id"],
                            "type": "function",
                            "function": {"name": call["function"]["name"], "arguments": ""},
                        }
                    ]
                }
            )
            args = call["function"]["arguments"]
            for start in range(0, len(args), 8):
                event(
                    {
                        "tool_calls": [
                            {"index": index, "function": {"arguments": args[start : start + 8]}}
                        ]
                    }
                )
        event({}, completion.finish_reason)
        if usage is not None:
            chunk = {**base, "object": "chat.completion.chunk", "choices": [], "usage": usage}
            self._send_chunk(f"data: {json.dumps(chunk)}\n\n".encode())
        self._send_chunk(b"data: [DONE]\n\n")
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


def _model_not_found(model: Any) -> APIError:
    return APIError(
        404,
        f"The model {model!r} does not exist.",
        type_="invalid_request_error",
        code="model_not_found",
        param="model",
    )


# ---------------------------------------------------------------------------
# Public API


class StandInServer:
    """An SGLang stand-in on ``127.0.0.1:<free port>`` serving ``models``.

    >>> with StandInServer(served_models(db)) as srv:          # doctest: +SKIP
    ...     client = OpenAI(base_url=srv.base_url, api_key="EMPTY")

    Args:
        models: what is served, one entry per served name; requests for any
            other id get 404.
        host: interface to bind (loopback by default; never expose a fake).
        port: 0 picks a free port.
        api_key: if set, requests must send ``Authorization: Bearer <api_key>``
            (like ``sglang serve --api-key``); None accepts any key.
        latency: seconds each chat completion waits before answering, so tests
            can observe concurrency.
    """

    def __init__(
        self,
        models: Iterable[ServedModel],
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        api_key: str | None = None,
        latency: float = 0.0,
    ) -> None:
        self.models: dict[str, ServedModel] = {}
        for served in models:
            other = self.models.get(served.served_name)
            if other is not None:
                # One name, two API blocks: no request could say whose applies.
                raise ValueError(
                    f"served name {served.served_name!r} belongs to both {other.model} and "
                    f"{served.model}; the stand-in cannot tell whose API applies"
                )
            self.models[served.served_name] = served
        self.host = host
        self.api_key = api_key
        self.latency = latency
        self._requested_port = port
        self.requests: list[RecordedRequest] = []
        self.jobs = media.Jobs()  # the media jobs of diffusion names
        self.max_in_flight = 0  # most chat completions seen running at once
        self._lock = threading.Lock()
        self._active = 0
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------

    def start(self) -> StandInServer:
        if self._httpd is not None:
            raise RuntimeError("StandInServer already started")
        self._httpd = _HTTPServer((self.host, self._requested_port), _Handler, self)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},  # fast shutdown() response
            name=f"standin-server-{self.port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        httpd.shutdown()  # stop accepting; returns once serve_forever exits
        httpd.close_idle_connections()
        httpd.server_close()  # closes the listener and joins handler threads
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> StandInServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- addresses ---------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._httpd is not None

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("StandInServer is not running")
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        """Root URL, e.g. ``http://127.0.0.1:PORT`` (``/health`` lives here)."""
        return f"http://{self.host}:{self.port}"

    @property
    def base_url(self) -> str:
        """OpenAI ``base_url``: ``http://127.0.0.1:PORT/v1``."""
        return f"{self.url}/v1"

    # -- inspection --------------------------------------------------------

    def model_card(self, served_name: str) -> dict[str, Any]:
        return {
            "id": served_name,
            "object": "model",
            "created": CREATED,
            "owned_by": "sglang",
            "root": served_name,
        }

    def chat_requests(self) -> list[RecordedRequest]:
        """Recorded ``POST /v1/chat/completions`` requests, in arrival order."""
        with self._lock:
            return [
                r for r in self.requests if r.path == "/v1/chat/completions" and r.method == "POST"
            ]

    @property
    def last_request(self) -> RecordedRequest | None:
        with self._lock:
            return self.requests[-1] if self.requests else None

    def clear(self) -> None:
        with self._lock:
            self.requests.clear()
            self.max_in_flight = 0

    # -- internals used by the handler ---------------------------------------

    def _record(self, record: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(record)

    def _in_flight(self) -> _InFlight:
        return _InFlight(self)


class _InFlight:
    """Counts concurrently running completions (for ``max_in_flight``)."""

    def __init__(self, owner: StandInServer) -> None:
        self.owner = owner

    def __enter__(self) -> None:
        with self.owner._lock:
            self.owner._active += 1
            self.owner.max_in_flight = max(self.owner.max_in_flight, self.owner._active)

    def __exit__(self, *exc: object) -> None:
        with self.owner._lock:
            self.owner._active -= 1
