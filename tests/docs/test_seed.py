"""The user's guide ("Testing an LLM streaming client") in Python, with real clients.

Each of the guide's tests runs against the server with a hand-written raw client (the
guide's ``complete``), httpx, and the official SDK.
"""

from __future__ import annotations

import json

import httpx
import openai
import pytest

import mockhttp
from mockhttp import Event, match
from tests.helpers.clients import anthropic_sdk_text, anthropic_text, complete


def chunk(content: str) -> Event:
    """An event of a streamed chat completion, with a piece of the answer."""
    return Event(
        data={
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {"content": content}}],
        }
    )


def streamed_answer() -> mockhttp.Mock:
    return (
        mockhttp.post("/v1/chat/completions")
        .header("Authorization", match.equal("Bearer sk-test"))
        .body(match.json_path("$.stream", match.equal(True)))
        .reply(
            mockhttp.ok().event_stream(
                chunk("Hel"), chunk("lo, "), chunk("world"), Event(data="[DONE]"), event_delay=0.020
            )
        )
    )


def rate_limit() -> mockhttp.Mock:
    return mockhttp.post("/v1/chat/completions").reply(
        mockhttp.status(429)
        .header("Retry-After", "1")
        .json({"error": {"type": "rate_limit_error", "message": "slow down"}})
    )


# -- a streamed answer ---------------------------------------------------------------------


def test_puts_the_answer_together_raw_client(server: mockhttp.Server) -> None:
    """The guide's complete() puts "Hello, world" together from three chunks."""
    scoped = server.mock(streamed_answer())
    assert complete(server.url, "Say hello") == "Hello, world"
    scoped.assert_called()
    assert scoped.calls.last.json()["messages"][0]["content"] == "Say hello"


def test_puts_the_answer_together_httpx(server: mockhttp.Server) -> None:
    """httpx reads each chunk as one data: line of compact JSON, then [DONE]."""
    scoped = server.mock(streamed_answer())
    lines = []
    with httpx.stream(
        "POST",
        server.url + "/v1/chat/completions",
        json={"model": "gpt-test", "stream": True, "messages": []},
        headers={"Authorization": "Bearer sk-test"},
    ) as response:
        assert response.headers["content-type"] == "text/event-stream"
        lines = [line for line in response.iter_lines() if line]
    assert lines[0] == (
        'data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hel"}}]}'
    )
    assert lines[-1] == "data: [DONE]"
    answer = "".join(json.loads(line[6:])["choices"][0]["delta"]["content"] for line in lines[:-1])
    assert answer == "Hello, world"
    scoped.assert_called_once()


def test_puts_the_answer_together_openai_sdk(server: mockhttp.Server) -> None:
    """The official openai SDK streams the same answer."""
    scoped = server.mock(streamed_answer())
    with openai.OpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=0) as client:
        stream = client.chat.completions.create(
            model="gpt-test", messages=[{"role": "user", "content": "Say hello"}], stream=True
        )
        assert "".join(c.choices[0].delta.content or "" for c in stream) == "Hello, world"
    scoped.assert_called_once()


def test_stream_false_does_not_match_the_streaming_mock(server: mockhttp.Server) -> None:
    """A request with "stream": false gets the 404 explaining $.stream."""
    server.mock(streamed_answer())
    with (
        openai.OpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=0) as client,
        pytest.raises(openai.NotFoundError) as info,
    ):
        client.chat.completions.create(model="gpt-test", messages=[], stream=False)
    assert "$.stream: got false, expected true" in str(info.value)
    server.reset()


# -- a rate limit ---------------------------------------------------------------------------


def test_fails_on_a_rate_limit_raw_client(server: mockhttp.Server) -> None:
    """complete() fails with "status 429" instead of reading an empty stream."""
    server.mock(rate_limit())
    with pytest.raises(RuntimeError, match=r"^status 429$"):
        complete(server.url, "Say hello")


def test_fails_on_a_rate_limit_httpx(server: mockhttp.Server) -> None:
    """httpx sees 429, Retry-After: 1 and the JSON error."""
    server.mock(rate_limit())
    response = httpx.post(server.url + "/v1/chat/completions", json={"stream": True})
    assert response.status_code == 429
    assert response.headers["retry-after"] == "1"
    assert response.json() == {"error": {"type": "rate_limit_error", "message": "slow down"}}


def test_fails_on_a_rate_limit_openai_sdk(server: mockhttp.Server) -> None:
    """The openai SDK raises RateLimitError carrying the message."""
    mock = server.mock(rate_limit())
    with (
        openai.OpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=0) as client,
        pytest.raises(openai.RateLimitError, match="slow down"),
    ):
        client.chat.completions.create(model="gpt-test", messages=[], stream=True)
    mock.assert_called_once()


def test_rate_limit_once_then_the_stream(server: mockhttp.Server) -> None:
    """429 once, then 200: the SDK's own retry (after Retry-After) gets the answer."""
    server.mock(streamed_answer())
    limited = server.mock(
        mockhttp.post("/v1/chat/completions", times=1).reply(
            mockhttp.status(429).header("Retry-After", "0").json({"error": {"message": "x"}})
        )
    )
    with openai.OpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=1) as client:
        stream = client.chat.completions.create(model="gpt-test", messages=[], stream=True)
        assert "".join(c.choices[0].delta.content or "" for c in stream) == "Hello, world"
    limited.assert_called_once()


# -- named events ---------------------------------------------------------------------------

NAMED = [
    (
        "message_start",
        {"type": "message_start", "message": {"id": "msg_1", "role": "assistant", "content": []}},
    ),
    (
        "content_block_start",
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    ),
    ("ping", {"type": "ping"}),
    (
        "content_block_delta",
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "text_delta", "text": "Hello"},
        },
    ),
    (
        "content_block_delta",
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "text_delta", "text": ", world"},
        },
    ),
    ("content_block_stop", {"type": "content_block_stop", "index": 0}),
    ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"}}),
    ("message_stop", {"type": "message_stop"}),
]


def named_events() -> mockhttp.Mock:
    return (
        mockhttp.post("/v1/messages")
        .header("x-api-key", "test-key")
        .header("anthropic-version", "2023-06-01")
        .body(match.json_path("$.stream", match.equal(True)))
        .reply(mockhttp.ok().event_stream(*(Event(data=d, event=e) for e, d in NAMED)))
    )


def test_named_events_raw_bytes(server: mockhttp.Server) -> None:
    """Each event is an event: line then a data: line, as Anthropic sends them."""
    mock = server.mock(named_events())
    assert anthropic_text(server.url) == "Hello, world"
    sent = bytes(mock.calls.last.body_sent)
    assert sent.startswith(
        b'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1",'
    )
    assert b'event: ping\ndata: {"type":"ping"}\n\n' in sent
    assert sent.endswith(b'event: message_stop\ndata: {"type":"message_stop"}\n\n')


def test_named_events_anthropic_sdk(server: mockhttp.Server) -> None:
    """The official anthropic SDK dispatches on the names and gets "Hello, world"."""
    mock = server.mock(named_events())
    assert anthropic_sdk_text(server.url) == "Hello, world"
    mock.assert_called_once()
