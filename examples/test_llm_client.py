"""Testing an LLM streaming client's failure paths with mockhttp.

``complete`` is the client under test. Run with ``pytest examples/test_llm_client.py``: the
``mockhttp_server`` fixture comes with mockhttp's pytest plugin.
"""

from __future__ import annotations

import json

import httpx
import pytest

import mockhttp
from mockhttp import Event, fault, match

# -- the client under test --------------------------------------------------------------


class StreamEnded(Exception):
    """The stream ended before [DONE]."""


def complete(url: str, prompt: str, *, timeout: float = 5.0) -> str:
    """Ask for a chat completion, streamed, and return the answer once the stream sends
    [DONE]."""
    body = {"model": "gpt-test", "stream": True, "messages": [{"role": "user", "content": prompt}]}
    headers = {"Accept": "text/event-stream", "Authorization": "Bearer sk-test"}
    with httpx.stream(
        "POST", url + "/v1/chat/completions", json=body, headers=headers, timeout=timeout
    ) as response:
        if response.status_code != 200:
            raise RuntimeError(f"status {response.status_code}")
        answer: list[str] = []
        for line in response.iter_lines():
            data = line.removeprefix("data: ")
            if data == line:
                continue  # a blank line between events, or another field
            if data == "[DONE]":
                return "".join(answer)
            chunk = json.loads(data)
            answer.extend(c["delta"].get("content", "") for c in chunk["choices"])
    raise StreamEnded("the stream ended before [DONE]")


# -- the mocks ----------------------------------------------------------------------------


def chunk(content: str) -> Event:
    """An event of a streamed chat completion, with a piece of the answer."""
    return Event(
        data={
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {"content": content}}],
        }
    )


def streamed_answer(event_delay: float = 0.020) -> mockhttp.Reply:
    """Three chunks of "Hello, world", 20 ms apart, then [DONE]."""
    return mockhttp.ok().event_stream(
        chunk("Hel"), chunk("lo, "), chunk("world"), Event(data="[DONE]"), event_delay=event_delay
    )


# -- the seed's three tests ---------------------------------------------------------------


def test_puts_the_answer_together(mockhttp_server: mockhttp.Server) -> None:
    """The client puts "Hello, world" together from the chunks of a streamed answer."""
    scoped = mockhttp_server.mock(
        mockhttp.post("/v1/chat/completions")
        .header("Authorization", match.equal("Bearer sk-test"))
        .body(match.json_path("$.stream", match.equal(True)))
        .reply(streamed_answer())
    )

    assert complete(mockhttp_server.url, "Say hello") == "Hello, world"
    scoped.assert_called()


def test_fails_when_the_stream_drops(mockhttp_server: mockhttp.Server) -> None:
    """After 100 bytes (the first chunk and part of the second) the connection closes:
    complete fails rather than hand on half an answer."""
    mockhttp_server.mock(
        mockhttp.post("/v1/chat/completions")
        .pipe(fault.limit_data(100))
        .reply(streamed_answer(event_delay=0))
    )

    with pytest.raises(httpx.RemoteProtocolError, match="incomplete chunked read"):
        complete(mockhttp_server.url, "Say hello")


def test_fails_on_a_rate_limit(mockhttp_server: mockhttp.Server) -> None:
    """A 429 before any stream is an error, not an empty answer."""
    mockhttp_server.mock(
        mockhttp.post("/v1/chat/completions").reply(
            mockhttp.status(429)
            .header("Retry-After", "1")
            .json({"error": {"type": "rate_limit_error", "message": "slow down"}})
        )
    )

    with pytest.raises(RuntimeError, match=r"^status 429$"):
        complete(mockhttp_server.url, "Say hello")


# -- more failure paths ------------------------------------------------------------------


def test_fails_when_the_stream_ends_early_but_cleanly(mockhttp_server: mockhttp.Server) -> None:
    """A whole HTTP body without [DONE] is still a broken answer: only the client's own
    check catches it."""
    mockhttp_server.mock(
        mockhttp.post("/v1/chat/completions").reply(
            mockhttp.ok().event_stream(chunk("Hel"), chunk("lo, "))
        )
    )

    with pytest.raises(StreamEnded):
        complete(mockhttp_server.url, "Say hello")


def test_fails_when_the_connection_resets(mockhttp_server: mockhttp.Server) -> None:
    """A reset after the first chunk surfaces as a read error."""
    mockhttp_server.mock(
        mockhttp.post("/v1/chat/completions")
        .pipe(fault.reset_after_events(1))
        .reply(streamed_answer())
    )

    with pytest.raises(httpx.ReadError):
        complete(mockhttp_server.url, "Say hello")


def test_gives_up_when_the_stream_stalls(mockhttp_server: mockhttp.Server) -> None:
    """A server that stops sending mid-stream trips the client's read timeout."""
    chat = mockhttp_server.mock(
        mockhttp.post("/v1/chat/completions")
        .pipe(fault.stall(after_events=1))
        .reply(streamed_answer())
    )

    with pytest.raises(httpx.ReadTimeout):
        complete(mockhttp_server.url, "Say hello", timeout=0.5)
    assert chat.calls.last.outcome == "stalled"


def test_reads_an_answer_split_anywhere(mockhttp_server: mockhttp.Server) -> None:
    """One byte per chunk, cutting lines, JSON and UTF-8: the answer is the same."""
    mockhttp_server.mock(
        mockhttp.post("/v1/chat/completions")
        .pipe(fault.slice(1))
        .reply(mockhttp.ok().event_stream(chunk("Hé"), chunk("llo"), Event(data="[DONE]")))
    )

    assert complete(mockhttp_server.url, "Say hello") == "Héllo"
