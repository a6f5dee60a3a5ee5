"""Tests for the Kimi-K3 SGLang stand-in (tests/standin), driven by the real openai client.

The stand-in is only useful if it accepts what the real server accepts and
rejects what it rejects, so these tests run the recipe's section 3.1/3.2/3.5
examples against it and check both the happy paths and the errors.
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
from openai import OpenAI

from standin import StandInServer, schema_errors

MODEL = "moonshotai/Kimi-K3"
PNG_1X1 = (  # a valid 1x1 PNG
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)

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
    with StandInServer(model=MODEL) as server:
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


def test_base_url_and_models_list(srv, client):
    assert srv.base_url == f"http://127.0.0.1:{srv.port}/v1"
    models = client.models.list()
    assert [m.id for m in models.data] == [MODEL]
    assert client.models.retrieve(MODEL).id == MODEL
    assert srv.requests[0].method == "GET" and srv.requests[0].path == "/v1/models"


def test_health(srv):
    status, body = _raw(srv, "GET", "/health")
    assert (status, body) == (200, b"")


def test_reasoning_example_high_effort(srv, client):
    # Section 3.1 example, verbatim apart from base_url.
    resp = client.chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": "What is 15% of 240?"}],
        reasoning_effort="high",
    )
    msg = resp.choices[0].message
    reasoning = getattr(msg, "reasoning_content", None)
    assert reasoning and "15% of 240" in reasoning
    assert "36" in msg.content
    assert resp.choices[0].finish_reason == "stop"
    assert resp.model == MODEL and resp.object == "chat.completion"
    assert resp.usage.total_tokens == resp.usage.prompt_tokens + resp.usage.completion_tokens > 0
    rec = srv.chat_requests()[-1]
    assert rec.body["reasoning_effort"] == "high" and rec.reasoning_effort == "high"
    assert rec.status == 200


def test_default_effort_is_max_and_deeper(srv, client):
    question = [{"role": "user", "content": "What is 15% of 240?"}]
    default = client.chat.completions.create(model=MODEL, messages=question)
    low = client.chat.completions.create(model=MODEL, messages=question, reasoning_effort="low")
    first, second = srv.chat_requests()
    assert "reasoning_effort" not in first.body and first.reasoning_effort == "max"
    assert second.reasoning_effort == "low"
    assert len(default.choices[0].message.reasoning_content) > len(
        low.choices[0].message.reasoning_content
    )
    # Determinism: identical requests give identical responses.
    again = client.chat.completions.create(model=MODEL, messages=question)
    assert again.model_dump() == default.model_dump()


def test_invalid_effort_is_400_naming_valid_values(srv, client):
    with pytest.raises(openai.BadRequestError) as exc:
        client.chat.completions.create(
            model=MODEL,
            messages=[{"role": "user", "content": "What is 15% of 240?"}],
            reasoning_effort="extreme",
        )
    assert exc.value.status_code == 400
    text = str(exc.value)
    assert "extreme" in text
    for valid in ("low", "high", "max"):
        assert repr(valid) in text
    assert srv.requests[-1].status == 400


def test_streaming_separates_reasoning_and_content(srv, client):
    stream = client.chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": "What is 15% of 240?"}],
        stream=True,
        stream_options={"include_usage": True},
    )
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
    plain = (
        client.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": "What is 15% of 240?"}]
        )
        .choices[0]
        .message
    )
    assert "".join(reasoning) == plain.reasoning_content and "".join(content) == plain.content


def test_tool_example_calls_get_weather_beijing(srv, client):
    # Section 3.2 example.
    resp = client.chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": "What's the weather in Beijing?"}],
        tools=WEATHER_TOOLS,
    )
    choice = resp.choices[0]
    msg = choice.message
    assert getattr(msg, "reasoning_content", None)
    assert choice.finish_reason == "tool_calls"
    (call,) = msg.tool_calls
    assert call.id.startswith("call_") and call.type == "function"
    assert call.function.name == "get_weather"
    args = json.loads(call.function.arguments)
    assert args == {"city": "Beijing"}
    assert schema_errors(WEATHER_TOOLS[0]["function"]["parameters"], args) == []


def test_tool_picks_best_match_and_fills_schema(client):
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
    resp = client.chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": "3 day weather forecast for New York in fahrenheit"}],
        tools=tools,
    )
    call = resp.choices[0].message.tool_calls[0]
    args = json.loads(call.function.arguments)
    assert call.function.name == "get_forecast"
    assert args == {"location": "New York", "days": 3, "unit": "fahrenheit", "hourly": False}
    assert schema_errors(tools[1]["function"]["parameters"], args) == []


def test_tool_choice_none_answers_in_text(client):
    resp = client.chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": "What's the weather in Beijing?"}],
        tools=WEATHER_TOOLS,
        tool_choice="none",
    )
    assert resp.choices[0].message.tool_calls is None and resp.choices[0].message.content


def test_tool_follow_up_turn_answers_in_text(client):
    messages = [{"role": "user", "content": "What's the weather in Beijing?"}]
    first = client.chat.completions.create(model=MODEL, messages=messages, tools=WEATHER_TOOLS)
    call = first.choices[0].message.tool_calls[0]
    messages.append(first.choices[0].message.model_dump(exclude_none=True))
    messages.append(
        {"role": "tool", "tool_call_id": call.id, "content": '{"temp_c": 21, "sky": "clear"}'}
    )
    resp = client.chat.completions.create(model=MODEL, messages=messages, tools=WEATHER_TOOLS)
    msg = resp.choices[0].message
    assert resp.choices[0].finish_reason == "stop" and msg.tool_calls is None
    assert msg.reasoning_content and "get_weather" in msg.reasoning_content
    assert "21" in msg.content


def test_streaming_tool_call_deltas(client):
    stream = client.chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": "What's the weather in Beijing?"}],
        tools=WEATHER_TOOLS,
        stream=True,
    )
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
            model=MODEL, messages=[{"role": "user", "content": "hi"}], tools=tools
        )


@pytest.mark.parametrize(
    "url",
    ["https://example.com/cat.png", f"data:image/png;base64,{PNG_1X1}"],
)
def test_image_input_accepted(client, url):
    resp = client.chat.completions.create(
        model=MODEL,
        messages=[
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Describe this image."},
                    {"type": "image_url", "image_url": {"url": url}},
                ],
            }
        ],
    )
    msg = resp.choices[0].message
    assert msg.content and msg.reasoning_content and "image" in msg.reasoning_content


@pytest.mark.parametrize(
    "part",
    [
        {"type": "video_url", "video_url": {"url": "https://example.com/clip.mp4"}},
        {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}},
        {"type": "audio_url", "audio_url": {"url": "https://example.com/a.wav"}},
    ],
)
def test_video_and_audio_rejected(client, part):
    with pytest.raises(openai.BadRequestError) as exc:
        client.chat.completions.create(
            model=MODEL,
            messages=[
                {"role": "user", "content": [{"type": "text", "text": "What is this?"}, part]}
            ],
        )
    assert exc.value.status_code == 400
    assert "image input only" in str(exc.value)


def test_bad_image_url_rejected(client):
    with pytest.raises(openai.BadRequestError):
        client.chat.completions.create(
            model=MODEL,
            messages=[
                {
                    "role": "user",
                    "content": [
                        {"type": "image_url", "image_url": {"url": "ftp://example.com/x.png"}}
                    ],
                }
            ],
        )


def test_wrong_model_is_404(client):
    with pytest.raises(openai.NotFoundError) as exc:
        client.chat.completions.create(
            model="moonshotai/Kimi-K2", messages=[{"role": "user", "content": "hi"}]
        )
    assert exc.value.status_code == 404 and "Kimi-K2" in str(exc.value)
    assert exc.value.body["code"] == "model_not_found"


@pytest.mark.parametrize(
    "kwargs",
    [
        {"messages": []},
        {"messages": [{"role": "wizard", "content": "hi"}]},
        {"messages": ["hi"]},
        {"messages": [{"role": "user", "content": "hi"}], "n": 2},
    ],
)
def test_invalid_requests_are_400(client, kwargs):
    with pytest.raises(openai.BadRequestError):
        client.chat.completions.create(model=MODEL, **kwargs)


def test_common_sampling_params_accepted(srv, client):
    resp = client.chat.completions.create(
        model=MODEL,
        messages=[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hello"}],
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


def test_wrong_endpoint_and_method(srv, client):
    with pytest.raises(openai.NotFoundError):
        client.completions.create(model=MODEL, prompt="hi")  # /v1/completions is not served
    status, body = _raw(srv, "GET", "/v1/nope")
    assert status == 404 and set(json.loads(body)["error"]) >= {"message", "type", "code"}
    status, body = _raw(srv, "GET", "/v1/chat/completions")
    assert status == 405 and json.loads(body)["error"]["code"] == "method_not_allowed"
    status, _ = _raw(srv, "POST", "/v1/models", {})
    assert status == 405


def test_invalid_json_is_400(srv):
    status, body = _raw(srv, "POST", "/v1/chat/completions", b"{not json")
    assert status == 400 and json.loads(body)["error"]["code"] == "invalid_json"


def test_nonexistent_field_is_not_there_but_real_ones_are(client):
    # A docs snippet reading msg.reasoning (a field name other servers use)
    # would silently print None against the real K3 server; make that visible.
    msg = (
        client.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": "What is 15% of 240?"}]
        )
        .choices[0]
        .message
    )
    with pytest.raises(AttributeError):
        msg.reasoning  # noqa: B018
    assert getattr(msg, "reasoning", None) is None
    assert msg.reasoning_content and msg.content
    assert "reasoning_content" in msg.model_dump()


def test_api_key_enforced_when_configured():
    with StandInServer(api_key="secret") as srv:
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
    with StandInServer(latency=0.25) as srv:
        port = srv.port
        client = OpenAI(base_url=srv.base_url, api_key="EMPTY", max_retries=0)
        results = []

        def ask(q):
            r = client.chat.completions.create(
                model=MODEL, messages=[{"role": "user", "content": q}]
            )
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
