"""The SGLang stand-in (tests/standin), driven by the real openai client.

The stand-in is only useful if it accepts what a real server of each model accepts and rejects
what it rejects, so these tests run the recipe pages' reasoning, tool-calling and image examples
against every served name of every model in recipes/, each held to its model's ``api`` block,
and check the happy paths and the errors. The last part checks that block's validation.
"""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.request

import openai
import pytest
from helpers.models import MODELS as ALL_MODELS, add_twin, edit_yaml
from openai import OpenAI

from macros.engine.database import cached_database, load_database
from macros.engine.errors import RecipeError
from standin import StandInServer, schema_errors, served_models
from standin.server import CHAT_CLIS, PART_TYPES

DB = cached_database()
SERVED = served_models(DB)
# The models whose servers answer the OpenAI chat API (their api block): this file's subject.
# A diffusion model's job (its request block) is test_standin_media.py's.
MODELS = [m for m in ALL_MODELS if DB.model(m).info.api is not None]


def _fallback(model_id):
    """The name the model's last model_names rule gives (its catch-all), as served."""
    name = DB.model(model_id).info.model_names[-1].name
    return next(s for s in SERVED if s.served_name == name)


BY_MODEL = {m: _fallback(m) for m in MODELS}
THINKING = [m for m in MODELS if BY_MODEL[m].efforts]
TOOLS = [m for m in MODELS if BY_MODEL[m].tool_calls]
WITH_IMAGES = [s for s in SERVED if "image" in s.inputs]
ANY = SERVED[0].served_name  # for what every server does alike
QUESTION = [{"role": "user", "content": "What is 15% of 240?"}]
PNG_1X1 = (  # a valid 1x1 PNG
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)
# Content parts of every kind a client may send, for the kinds a model does not take.
PARTS = [
    {"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}},
    {"type": "video_url", "video_url": {"url": "https://example.com/clip.mp4"}},
    {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}},
    {"type": "audio_url", "audio_url": {"url": "https://example.com/a.wav"}},
]

WEATHER_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the current weather for a city",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
]


@pytest.fixture(scope="module")
def srv():
    with StandInServer(SERVED) as server:
        yield server


@pytest.fixture(scope="module")
def _shared_client(srv):
    # One client for the module: building one costs ~50 ms (SSL context).
    # max_retries=0: an error must surface at once, not after backoff sleeps.
    with OpenAI(base_url=srv.base_url, api_key="EMPTY", max_retries=0) as c:
        yield c


@pytest.fixture()
def client(srv, _shared_client):
    srv.clear()  # each test sees only its own recorded requests
    return _shared_client


def _ask(client, served, messages, *, extra_body=None, **kwargs):
    """A chat completion for ``served``, with thinking turned on where a switch is needed,
    as the model's page tells its readers."""
    body = dict(extra_body or {})
    if served.thinking_switch and served.efforts:
        body.setdefault("chat_template_kwargs", {})[served.thinking_switch] = True
    return client.chat.completions.create(
        model=served.served_name, messages=messages, extra_body=body or None, **kwargs
    )


def _raw(srv, method, path, body=None):
    """Plain urllib request, for endpoints/methods the openai client won't send."""
    data = (
        body if isinstance(body, bytes) else json.dumps(body).encode() if body is not None else None
    )
    req = urllib.request.Request(srv.url + path, data=data, method=method)
    req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as err:
        with err:  # closes the socket (no ResourceWarning)
            return err.code, err.read()


# --- what every server does alike


def test_models_list_holds_every_served_name_of_every_model(srv, client):
    assert srv.base_url == f"http://127.0.0.1:{srv.port}/v1"
    models = client.models.list()
    expected = [rule.name for m in DB.models.values() for rule in m.info.model_names]
    assert [m.id for m in models.data] == list(dict.fromkeys(expected))
    for name in expected:
        assert client.models.retrieve(name).id == name
    assert srv.requests[0].method == "GET" and srv.requests[0].path == "/v1/models"


def test_health(srv):
    status, body = _raw(srv, "GET", "/health")
    assert (status, body) == (200, b"")


def test_wrong_endpoint_and_method(srv, client):
    with pytest.raises(openai.NotFoundError):
        client.completions.create(model=ANY, prompt="hi")  # /v1/completions is not served
    status, body = _raw(srv, "GET", "/v1/nope")
    assert status == 404 and set(json.loads(body)["error"]) >= {"message", "type", "code"}
    status, body = _raw(srv, "GET", "/v1/chat/completions")
    assert status == 405 and json.loads(body)["error"]["code"] == "method_not_allowed"
    status, _ = _raw(srv, "POST", "/v1/models", {})
    assert status == 405


def test_invalid_json_is_400(srv):
    status, body = _raw(srv, "POST", "/v1/chat/completions", b"{not json")
    assert status == 400 and json.loads(body)["error"]["code"] == "invalid_json"


def test_a_name_no_model_serves_is_404_naming_it(client):
    unknown = f"{ANY}-unknown"
    with pytest.raises(openai.NotFoundError) as exc:
        client.chat.completions.create(model=unknown, messages=[{"role": "user", "content": "hi"}])
    assert exc.value.status_code == 404 and unknown in str(exc.value)
    assert exc.value.body["code"] == "model_not_found"


@pytest.mark.parametrize(
    "tools",
    [
        [{"type": "retrieval"}],
        [{"type": "function", "function": {"description": "no name"}}],
        [{"type": "function", "function": {"name": "f", "parameters": {"type": "array"}}}],
        [
            {
                "type": "function",
                "function": {
                    "name": "f",
                    "parameters": {"type": "object", "properties": {}, "required": ["x"]},
                },
            }
        ],
    ],
)
def test_malformed_tools_rejected(client, tools):
    with pytest.raises(openai.BadRequestError):
        client.chat.completions.create(
            model=ANY, messages=[{"role": "user", "content": "hi"}], tools=tools
        )


@pytest.mark.parametrize(
    "kwargs",
    [
        {"messages": []},
        {"messages": [{"role": "wizard", "content": "hi"}]},
        {"messages": ["hi"]},
        {"messages": [{"role": "user", "content": "hi"}], "n": 2},
        {"messages": [{"role": "user", "content": "hi"}], "extra_body": {
            "chat_template_kwargs": ["thinking"]}},
    ],
)
def test_invalid_requests_are_400(client, kwargs):
    with pytest.raises(openai.BadRequestError):
        client.chat.completions.create(model=ANY, **kwargs)


def test_api_key_enforced_when_configured():
    with StandInServer(SERVED, api_key="secret") as srv:
        with OpenAI(base_url=srv.base_url, api_key="EMPTY", max_retries=0) as wrong:
            with pytest.raises(openai.AuthenticationError):
                wrong.models.list()
        with OpenAI(base_url=srv.base_url, api_key="secret", max_retries=0) as right:
            assert right.models.list().data


def _port_open(port):
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def test_concurrent_requests_and_clean_shutdown():
    before = {t.ident for t in threading.enumerate()}
    with StandInServer(SERVED, latency=0.25) as srv:
        port = srv.port
        client = OpenAI(base_url=srv.base_url, api_key="EMPTY", max_retries=0)
        results = []

        def ask(q):
            r = client.chat.completions.create(model=ANY, messages=[{"role": "user", "content": q}])
            results.append(r.choices[0].message.content)

        workers = [threading.Thread(target=ask, args=(f"What is {p}% of 200?",)) for p in (10, 20)]
        for w in workers:
            w.start()
        for w in workers:
            w.join(5)
        assert sorted(results) == ["10% of 200 is 20.", "20% of 200 is 40."]
        # Both completions were inside the server at the same time (each one
        # waits 0.25 s), i.e. requests are handled concurrently, not queued.
        assert srv.max_in_flight == 2
        # The client still holds keep-alive connections when the server stops.
    assert not srv.running
    assert not _port_open(port)
    time.sleep(0.05)
    leftover = [t for t in threading.enumerate() if t.ident not in before and t.is_alive()]
    assert leftover == []
    client.close()


# --- each model as its api block says


@pytest.mark.parametrize(
    "model_id,effort", [(m, e) for m in THINKING for e in BY_MODEL[m].efforts]
)
def test_reasoning_example_thinks_at_each_effort_of_the_model(srv, client, model_id, effort):
    # The pages' reasoning example, apart from base_url.
    served = BY_MODEL[model_id]
    resp = _ask(client, served, QUESTION, reasoning_effort=effort)
    msg = resp.choices[0].message
    reasoning = getattr(msg, "reasoning_content", None)
    assert reasoning and "15% of 240" in reasoning
    assert "36" in msg.content
    assert resp.choices[0].finish_reason == "stop"
    assert resp.model == served.served_name and resp.object == "chat.completion"
    assert resp.usage.total_tokens == resp.usage.prompt_tokens + resp.usage.completion_tokens > 0
    rec = srv.chat_requests()[-1]
    assert rec.body["reasoning_effort"] == effort and rec.reasoning_effort == effort
    assert rec.status == 200


@pytest.mark.parametrize("model_id", THINKING)
def test_a_request_without_an_effort_thinks_at_the_models_default(srv, client, model_id):
    served = BY_MODEL[model_id]
    default = _ask(client, served, QUESTION)
    explicit = _ask(client, served, QUESTION, reasoning_effort=served.default_effort)
    first, _ = srv.chat_requests()
    assert "reasoning_effort" not in first.body
    assert first.reasoning_effort == served.default_effort
    assert default.choices[0].message.reasoning_content == \
        explicit.choices[0].message.reasoning_content


@pytest.mark.parametrize("model_id", THINKING)
def test_a_later_effort_of_the_model_thinks_deeper(client, model_id):
    served = BY_MODEL[model_id]
    if len(served.efforts) < 2:
        pytest.skip(f"{model_id} has one effort")
    lengths = [len(_ask(client, served, QUESTION, reasoning_effort=e)
                   .choices[0].message.reasoning_content) for e in served.efforts]
    assert lengths == sorted(lengths) and lengths[0] < lengths[-1]


@pytest.mark.parametrize("model_id", MODELS)
def test_identical_requests_give_identical_responses(client, model_id):
    served = BY_MODEL[model_id]
    first = _ask(client, served, QUESTION)
    assert _ask(client, served, QUESTION).model_dump() == first.model_dump()


@pytest.mark.parametrize("model_id", THINKING)
def test_an_effort_outside_the_models_list_is_400_naming_the_valid_ones(srv, client, model_id):
    served = BY_MODEL[model_id]
    with pytest.raises(openai.BadRequestError) as exc:
        _ask(client, served, QUESTION, reasoning_effort="extreme")
    assert exc.value.status_code == 400
    assert exc.value.body["message"] == (
        f"Invalid value for 'reasoning_effort': 'extreme'. Supported values for {served.name} "
        f"are: {', '.join(repr(e) for e in served.efforts)} "
        f"(default {served.default_effort!r}).")
    assert srv.requests[-1].status == 400


@pytest.mark.parametrize("model_id", THINKING)
def test_streaming_separates_reasoning_and_content(client, model_id):
    served = BY_MODEL[model_id]
    stream = _ask(client, served, QUESTION, stream=True, stream_options={"include_usage": True})
    reasoning, content, finish, usage, n_chunks = [], [], None, None, 0
    for chunk in stream:
        n_chunks += 1
        if chunk.usage:
            usage = chunk.usage
        if not chunk.choices:
            continue
        delta = chunk.choices[0].delta
        if getattr(delta, "reasoning_content", None):
            reasoning.append(delta.reasoning_content)
        if delta.content:
            content.append(delta.content)
        finish = chunk.choices[0].finish_reason or finish
    assert n_chunks > 5  # really streamed, not one blob
    assert "15% of 240" in "".join(reasoning)
    assert "36" in "".join(content) and "The user asks" not in "".join(content)
    assert finish == "stop" and usage.total_tokens > 0
    # Streamed text equals the non-streamed message exactly.
    plain = _ask(client, served, QUESTION).choices[0].message
    assert "".join(reasoning) == plain.reasoning_content and "".join(content) == plain.content


@pytest.mark.parametrize("model_id", TOOLS)
def test_tool_example_calls_get_weather_beijing(client, model_id):
    # The pages' tool-calling example.
    served = BY_MODEL[model_id]
    resp = _ask(client, served, [{"role": "user", "content": "What's the weather in Beijing?"}],
                tools=WEATHER_TOOLS)
    choice = resp.choices[0]
    msg = choice.message
    assert bool(getattr(msg, "reasoning_content", None)) == bool(served.efforts)
    assert choice.finish_reason == "tool_calls"
    (call,) = msg.tool_calls
    assert call.id.startswith("call_") and call.type == "function"
    assert call.function.name == "get_weather"
    args = json.loads(call.function.arguments)
    assert args == {"city": "Beijing"}
    assert schema_errors(WEATHER_TOOLS[0]["function"]["parameters"], args) == []


@pytest.mark.parametrize("model_id", TOOLS)
def test_tool_picks_best_match_and_fills_schema(client, model_id):
    tools = [
        {
            "type": "function",
            "function": {
                "name": "send_email",
                "description": "Send an email",
                "parameters": {"type": "object", "properties": {}},
            },
        },
        {
            "type": "function",
            "function": {
                "name": "get_forecast",
                "description": "Weather forecast for a location",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "location": {"type": "string"},
                        "days": {"type": "integer", "minimum": 1, "maximum": 7},
                        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                        "hourly": {"type": "boolean"},
                    },
                    "required": ["location", "days", "unit", "hourly"],
                },
            },
        },
    ]
    resp = _ask(
        client, BY_MODEL[model_id],
        [{"role": "user", "content": "3 day weather forecast for New York in fahrenheit"}],
        tools=tools,
    )
    call = resp.choices[0].message.tool_calls[0]
    args = json.loads(call.function.arguments)
    assert call.function.name == "get_forecast"
    assert args == {"location": "New York", "days": 3, "unit": "fahrenheit", "hourly": False}
    assert schema_errors(tools[1]["function"]["parameters"], args) == []


@pytest.mark.parametrize("model_id", TOOLS)
def test_tool_choice_none_answers_in_text(client, model_id):
    resp = _ask(client, BY_MODEL[model_id],
                [{"role": "user", "content": "What's the weather in Beijing?"}],
                tools=WEATHER_TOOLS, tool_choice="none")
    assert resp.choices[0].message.tool_calls is None and resp.choices[0].message.content


@pytest.mark.parametrize("model_id", TOOLS)
def test_tool_follow_up_turn_answers_in_text(client, model_id):
    served = BY_MODEL[model_id]
    messages = [{"role": "user", "content": "What's the weather in Beijing?"}]
    first = _ask(client, served, messages, tools=WEATHER_TOOLS)
    call = first.choices[0].message.tool_calls[0]
    messages.append(first.choices[0].message.model_dump(exclude_none=True))
    messages.append(
        {"role": "tool", "tool_call_id": call.id, "content": '{"temp_c": 21, "sky": "clear"}'}
    )
    resp = _ask(client, served, messages, tools=WEATHER_TOOLS)
    msg = resp.choices[0].message
    assert resp.choices[0].finish_reason == "stop" and msg.tool_calls is None
    if served.efforts:
        assert msg.reasoning_content and "get_weather" in msg.reasoning_content
    assert "21" in msg.content


@pytest.mark.parametrize("model_id", TOOLS)
def test_streaming_tool_call_deltas(client, model_id):
    stream = _ask(client, BY_MODEL[model_id],
                  [{"role": "user", "content": "What's the weather in Beijing?"}],
                  tools=WEATHER_TOOLS, stream=True)
    name, call_id, arguments, finish = None, None, "", None
    for chunk in stream:
        choice = chunk.choices[0]
        for tc in choice.delta.tool_calls or []:
            assert tc.index == 0
            call_id = tc.id or call_id
            name = tc.function.name or name
            arguments += tc.function.arguments or ""
        finish = choice.finish_reason or finish
    assert name == "get_weather" and call_id.startswith("call_") and finish == "tool_calls"
    assert json.loads(arguments) == {"city": "Beijing"}


def _image_request(url):
    return [{"role": "user", "content": [
        {"type": "text", "text": "Describe this image."},
        {"type": "image_url", "image_url": {"url": url}},
    ]}]


@pytest.mark.parametrize("url", ["https://example.com/cat.png",
                                 f"data:image/png;base64,{PNG_1X1}"])
@pytest.mark.parametrize("served", WITH_IMAGES, ids=lambda s: s.served_name)
def test_image_input_accepted_by_a_served_name_that_takes_images(client, served, url):
    msg = _ask(client, served, _image_request(url)).choices[0].message
    assert msg.content and "(I received 1 image(s).)" in msg.content
    if served.efforts:
        assert msg.reasoning_content and "image" in msg.reasoning_content


@pytest.mark.parametrize("served", WITH_IMAGES, ids=lambda s: s.served_name)
def test_bad_image_url_rejected(client, served):
    with pytest.raises(openai.BadRequestError) as exc:
        _ask(client, served, [{"role": "user", "content": [
            {"type": "image_url", "image_url": {"url": "ftp://example.com/x.png"}}]}])
    assert "image URL must be http(s) or a data:image/...;base64 URL" in str(exc.value)


@pytest.mark.parametrize("served,part", [
    (s, p) for s in SERVED for p in PARTS if p["type"] not in (PART_TYPES[i] for i in s.inputs)
], ids=lambda x: getattr(x, "served_name", None) or x["type"])
def test_a_part_outside_the_served_names_inputs_is_refused_as_its_server_refuses_it(client, served, part):
    """As the name's own server answers: the LLM server's processor refuses the part (400);
    a server of a CLI without the chat route (the diffusion server) has no such path (404)."""
    content = [{"type": "text", "text": "What is this?"}, part]
    if served.cli not in CHAT_CLIS:
        with pytest.raises(openai.NotFoundError) as exc:
            _ask(client, served, [{"role": "user", "content": content}])
        assert exc.value.status_code == 404 and exc.value.body["code"] == "not_found"
        assert "no chat route" in exc.value.body["message"], exc.value.body
        return
    with pytest.raises(openai.BadRequestError) as exc:
        _ask(client, served, [{"role": "user", "content": content}])
    assert exc.value.status_code == 400 and exc.value.body["code"] == "unsupported_modality"
    assert exc.value.body["message"] == (
        f"messages[0].content[1]: unsupported content part type {part['type']!r}. "
        f"{served.name} accepts {' and '.join(served.inputs)} input only (content parts: "
        f"{', '.join(PART_TYPES[i] for i in served.inputs)}); other inputs are rejected.")


@pytest.mark.parametrize("model_id", MODELS)
def test_common_sampling_params_accepted(srv, client, model_id):
    resp = _ask(
        client, BY_MODEL[model_id],
        [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hello"}],
        temperature=1.0,
        top_p=0.95,
        presence_penalty=0,
        frequency_penalty=0,
        max_tokens=256,
        seed=1,
        stop=["</s>"],
        n=1,
        extra_body={"top_k": 20, "separate_reasoning": True},
    )
    assert resp.choices[0].message.content
    assert srv.chat_requests()[-1].body["top_k"] == 20


@pytest.mark.parametrize("model_id", THINKING)
def test_nonexistent_field_is_not_there_but_real_ones_are(client, model_id):
    # A docs snippet reading msg.reasoning (a field name other servers use)
    # would silently print None against the real server; make that visible.
    msg = _ask(client, BY_MODEL[model_id], QUESTION).choices[0].message
    with pytest.raises(AttributeError):
        msg.reasoning  # noqa: B018
    assert getattr(msg, "reasoning", None) is None
    assert msg.reasoning_content and msg.content
    assert "reasoning_content" in msg.model_dump()


# --- a second model: each served name held to its own model's api block


@pytest.fixture(params=MODELS)
def twin(request, recipes_copy):
    """(recipes copy, model id, its twin): the model saved under another id, with its own
    served names; a test edits the twin's api block and serves both."""
    return recipes_copy, request.param, add_twin(recipes_copy, request.param)


def _edit_api(root, model_id, change):
    edit_yaml(root / model_id / "model.yaml", lambda data: change(data["api"]))


def _serving(root):
    """A stand-in (not started) for every model of the copy, and a function giving a model's
    catch-all served name as served."""
    db = load_database(root)
    server = StandInServer(served_models(db))
    return server, lambda model_id: server.models[db.model(model_id).info.model_names[-1].name]


def _client(server):
    return OpenAI(base_url=server.base_url, api_key="EMPTY", max_retries=0)


def test_the_stand_in_serves_every_served_name_of_both_models(twin):
    root, model_id, twin_id = twin
    server, served = _serving(root)
    db = load_database(root)
    names = {m: [rule.name for rule in db.model(m).info.model_names] for m in db.models}
    with server, _client(server) as client:
        listed = [m.id for m in client.models.list().data]
        assert listed == list(dict.fromkeys(n for m in names.values() for n in m))
        assert set(names[model_id]) | set(names[twin_id]) <= set(listed)
        for m in (model_id, twin_id):
            assert _ask(client, served(m), QUESTION).model == served(m).served_name


def test_each_served_name_is_held_to_its_own_models_efforts(twin):
    root, model_id, twin_id = twin
    if not BY_MODEL[model_id].efforts:
        pytest.skip(f"{model_id} does not think")
    own = BY_MODEL[model_id].efforts
    assert "deep" not in own

    def deep(api):
        api["reasoning"].update(efforts=["deep", "deeper"], default_effort="deeper")
    _edit_api(root, twin_id, deep)
    server, served = _serving(root)
    with server, _client(server) as client:
        model, other = served(model_id), served(twin_id)
        with pytest.raises(openai.BadRequestError) as exc:
            _ask(client, other, QUESTION, reasoning_effort=own[0])
        assert "Supported values for" in exc.value.body["message"]
        assert "are: 'deep', 'deeper' (default 'deeper')." in exc.value.body["message"]
        with pytest.raises(openai.BadRequestError) as exc:
            _ask(client, model, QUESTION, reasoning_effort="deep")
        assert f"are: {', '.join(repr(e) for e in own)} " in exc.value.body["message"]
        _ask(client, other, QUESTION, reasoning_effort="deep")
        _ask(client, model, QUESTION, reasoning_effort=own[0])
        assert [r.reasoning_effort for r in server.chat_requests() if r.status == 200] == \
            ["deep", own[0]]


def test_inputs_by_name_gives_one_served_name_its_own_inputs(twin):
    root, model_id, twin_id = twin
    vision = f"{twin_id}/vision"

    def names(data):
        first_hw = data["hardware"][0]
        data["model_names"].insert(0, {"when": {"hw": first_hw}, "name": vision})
        data["api"].update(inputs=["text"], inputs_by_name={vision: ["text", "image"]})
    edit_yaml(root / twin_id / "model.yaml", names)
    url = f"data:image/png;base64,{PNG_1X1}"
    server, served = _serving(root)
    with server, _client(server) as client:
        seeing, blind = server.models[vision], served(twin_id)
        assert "(I received 1 image(s).)" in _ask(client, seeing, _image_request(url)) \
            .choices[0].message.content
        with pytest.raises(openai.BadRequestError) as exc:
            _ask(client, blind, _image_request(url))
        assert f"{blind.name} accepts text input only (content parts: text)" in \
            exc.value.body["message"]


def test_a_thinking_switch_makes_the_model_think_only_when_the_request_sets_it(twin):
    root, model_id, twin_id = twin
    if not BY_MODEL[model_id].efforts:
        pytest.skip(f"{model_id} does not think")
    _edit_api(root, twin_id, lambda api: api["reasoning"].update(switch="thinking"))
    server, served = _serving(root)
    with server, _client(server) as client:
        name = served(twin_id).served_name
        off = client.chat.completions.create(model=name, messages=QUESTION).choices[0].message
        on = client.chat.completions.create(model=name, messages=QUESTION, extra_body={
            "chat_template_kwargs": {"thinking": True}}).choices[0].message
        assert off.reasoning_content is None and "36" in off.content
        assert on.reasoning_content and "15% of 240" in on.reasoning_content
        default = served(twin_id).default_effort
        assert [r.reasoning_effort for r in server.chat_requests()] == [None, default]
        with pytest.raises(openai.BadRequestError) as exc:
            client.chat.completions.create(model=name, messages=QUESTION, extra_body={
                "chat_template_kwargs": {"thinking": "yes"}})
        assert exc.value.body["message"] == \
            "'chat_template_kwargs.thinking' must be true or false (got 'yes')"


def test_a_model_without_reasoning_never_thinks_and_refuses_an_effort(twin):
    root, model_id, twin_id = twin
    _edit_api(root, twin_id, lambda api: api.pop("reasoning", None))
    server, served = _serving(root)
    with server, _client(server) as client:
        plain = served(twin_id)
        msg = _ask(client, plain, QUESTION).choices[0].message
        assert msg.reasoning_content is None and "36" in msg.content
        with pytest.raises(openai.BadRequestError) as exc:
            _ask(client, plain, QUESTION, reasoning_effort="high")
        assert exc.value.body["message"] == (
            f"{plain.name} does not think (it is served without a reasoning parser), so "
            "'reasoning_effort' changes nothing; leave it out.")


def test_a_model_without_a_tool_call_parser_answers_tools_in_text(twin):
    root, model_id, twin_id = twin
    _edit_api(root, twin_id, lambda api: api.pop("tool_call_parser", None))
    server, served = _serving(root)
    with server, _client(server) as client:
        resp = _ask(client, served(twin_id),
                    [{"role": "user", "content": "What's the weather in Beijing?"}],
                    tools=WEATHER_TOOLS)
        assert resp.choices[0].message.tool_calls is None
        assert resp.choices[0].finish_reason == "stop" and resp.choices[0].message.content


def test_a_served_name_two_models_share_cannot_be_served(twin):
    root, model_id, twin_id = twin
    shared = BY_MODEL[model_id].served_name
    edit_yaml(root / twin_id / "model.yaml", lambda data: data["model_names"].insert(
        0, {"when": {"hw": data["hardware"][0]}, "name": shared}))
    with pytest.raises(ValueError) as exc:
        _serving(root)
    assert str(exc.value) == (f"served name {shared!r} belongs to both {model_id} and {twin_id}; "
                              "the stand-in cannot tell whose API applies")


# --- the api block is validated


def _problems(root, model_id):
    """The load problems in the model's model.yaml, as (line known, message)."""
    with pytest.raises(RecipeError) as exc:
        load_database(root)
    return [(p.line is not None, p.message) for p in exc.value.problems
            if p.file == f"recipes/{model_id}/model.yaml"]


@pytest.fixture(params=MODELS)
def copy(request, recipes_copy):
    return recipes_copy, request.param


RELEASE = f"{DB.catalog.package} {DB.catalog.version}"


def _parser(model_id, flag):
    """The model's parser for ``flag``, else the catalog's last choice of it."""
    api = DB.model(model_id).info.api
    own = api.reasoning.parser if flag == "--reasoning-parser" and api.reasoning else \
        api.tool_call_parser if flag == "--tool-call-parser" else None
    return own or DB.catalog.flags[flag].choices[-1]


def _with_reasoning(root, model_id, **fields):
    """The model's reasoning block (a plain one where it has none) with ``fields`` changed."""
    _edit_api(root, model_id, lambda api: api.setdefault("reasoning", {
        "parser": _parser(model_id, "--reasoning-parser"), "efforts": ["high"],
        "default_effort": "high"}).update(fields))


@pytest.mark.parametrize("flag", ["--reasoning-parser", "--tool-call-parser"])
def test_a_parser_sglang_lacks_is_reported_with_the_nearest_choice(copy, flag):
    root, model_id = copy
    good = _parser(model_id, flag)
    if flag == "--reasoning-parser":
        _with_reasoning(root, model_id, parser=good + "x")
    else:
        _edit_api(root, model_id, lambda api: api.update(tool_call_parser=good + "x"))
    [(located, message)] = _problems(root, model_id)
    assert located and message.startswith(
        f"parser '{good}x' is not a choice of {flag} in {RELEASE} (did you mean '{good}'")
    assert message.endswith("); a parser only the model's branch has goes into branch_values")


def test_a_parser_the_models_branch_values_add_is_accepted(copy):
    root, model_id = copy
    _with_reasoning(root, model_id, parser="branch_parser")
    edit_yaml(root / model_id / "model.yaml", lambda data: data.setdefault(
        "branch_values", {}).update({"--reasoning-parser": {"branch_parser": "a test branch"}}))
    assert load_database(root).model(model_id).info.api.reasoning.parser == "branch_parser"


def test_a_default_effort_outside_the_efforts_is_reported(copy):
    root, model_id = copy
    _with_reasoning(root, model_id, efforts=["low", "high"], default_effort="hihg")
    assert _problems(root, model_id) == [(True, "default_effort 'hihg' is not one of the efforts "
                                         "(did you mean 'high'? known: low, high)")]


def test_an_effort_listed_twice_is_reported(copy):
    root, model_id = copy
    _with_reasoning(root, model_id, efforts=["high", "high"], default_effort="high")
    assert _problems(root, model_id) == [(True, "effort 'high' is listed twice")]


def test_no_efforts_is_reported(copy):
    root, model_id = copy
    _with_reasoning(root, model_id, efforts=[], default_effort="high")
    assert _problems(root, model_id) == [(True, "'api.reasoning.efforts': List should have at "
                                         "least 1 item after validation, not 0 (got list)")]


def test_inputs_without_text_are_reported(copy):
    root, model_id = copy
    _edit_api(root, model_id, lambda api: api.update(inputs=["image"]))
    assert _problems(root, model_id) == [(True, "inputs must include 'text': every chat request "
                                         "carries text (got: image)")]


def test_an_input_the_stand_in_cannot_take_is_reported_with_the_ones_it_can(copy):
    root, model_id = copy
    _edit_api(root, model_id, lambda api: api.update(inputs=["text", "video"]))
    assert _problems(root, model_id) == [(True, "'api.inputs.1': Input should be 'text' or "
                                         "'image' (got 'video')")]


def test_inputs_for_a_name_the_model_does_not_serve_are_reported(copy):
    root, model_id = copy
    _edit_api(root, model_id, lambda api: api.update(inputs_by_name={"someone/else": ["text"]}))
    [(located, message)] = _problems(root, model_id)
    assert located and message.startswith(
        "'someone/else' is not a served name of this model (its model_names; known: ")


def test_a_model_without_an_api_block_is_reported(copy):
    root, model_id = copy
    cli = []
    edit_yaml(root / model_id / "model.yaml",
              lambda data: (data.pop("api"), cli.append(data.get("cli", "llm"))))
    assert _problems(root, model_id) == [(True, f"a model served by the {cli[0]} CLI needs 'api': "
                                          "the OpenAI API its server answers (inputs, reasoning, "
                                          "tool calls)")]
