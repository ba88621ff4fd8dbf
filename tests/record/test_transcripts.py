"""A contract check's transcript as a mock (``record/_transcripts.py``, behind
``mockhttp check --save``): the request it answers and the reply it replays."""

from __future__ import annotations

import httpx

import mockhttp
from mockhttp._core._fault import EmptyResponse, Reset
from mockhttp._core._request import Headers, Request
from mockhttp.contract import Chunk, Transcript
from mockhttp.record import Recording, Write, from_transcript

CHAT = "/v1/chat/completions"
ASK = {"model": "gpt-test", "stream": True, "messages": [{"role": "user", "content": "hi"}]}
HEADERS = (("content-type", "text/event-stream"), ("x-request-id", "req_1"))


def _transcript(*chunks: Chunk, error: str | None = None) -> Transcript:
    return Transcript(status=200, headers=HEADERS, chunks=chunks, error=error)


def _asked(body: object, method: str = "POST") -> Request:
    raw = httpx.Request(method, "http://x" + CHAT, json=body).content
    return Request(method, CHAT, Headers((("content-type", "application/json"),)), raw)


def test_the_chunks_become_writes_at_their_times() -> None:
    chunks = (Chunk(b"data: a\n\n", 0.2), Chunk(b"data: [DONE]\n\n", 0.35))
    mock = from_transcript(_transcript(*chunks), ASK, CHAT)
    reply = mock.response
    assert isinstance(reply, Recording)
    assert reply.writes == (Write(0.2, b"data: a\n\n"), Write(0.35, b"data: [DONE]\n\n"))
    assert (reply.status_code, reply.headers, reply.end, reply.head_delay) == (
        200,
        HEADERS,
        "complete",
        0.0,
    )


def test_a_chunk_of_unknown_time_is_written_at_zero() -> None:
    reply = from_transcript(_transcript(Chunk(b"data: a\n\n")), ASK, CHAT).response
    assert isinstance(reply, Recording)
    assert reply.writes == (Write(0.0, b"data: a\n\n"),)


def test_the_mock_answers_the_request_the_check_sent() -> None:
    mock = from_transcript(_transcript(), ASK, CHAT)
    assert mock.matches(_asked(ASK))
    other = {**ASK, "messages": [{"role": "user", "content": "bye"}]}
    assert not mock.matches(_asked(other))
    assert not mock.matches(_asked(ASK, "PUT"))
    assert from_transcript(_transcript(), ASK, CHAT, method="PUT").matches(_asked(ASK, "PUT"))


def test_a_repeat_is_named_and_ranked_after_the_first() -> None:
    mock = from_transcript(_transcript(), ASK, CHAT, call=1)
    assert (mock.name, mock.priority) == ('openai chat stream "hi" (call 2)', -1)


def test_a_stream_cut_by_an_error_ends_with_a_close() -> None:
    cut = _transcript(Chunk(b"data: a\n\n", 0.1), error="peer closed connection mid-body")
    reply = from_transcript(cut, ASK, CHAT).response
    assert isinstance(reply, Recording)
    assert reply.end == "close"


def test_no_response_becomes_a_reset_or_an_empty_response() -> None:
    reset = Transcript(status=None, error="ConnectionResetError: Connection reset by peer")
    closed = Transcript(status=None, error="Server disconnected without sending a response")
    assert [type(f) for f in from_transcript(reset, ASK, CHAT).faults] == [Reset]
    assert [type(f) for f in from_transcript(closed, ASK, CHAT).faults] == [EmptyResponse]


def test_a_request_without_a_body_matches_by_method_and_path() -> None:
    mock = from_transcript(_transcript(), None, "/v1/models", method="GET")
    assert mock.matches(Request("GET", "/v1/models"))
    assert mock.criteria == ()


def test_the_saved_mock_replays_the_transcript_on_the_wire(server: mockhttp.Server) -> None:
    chunks = (Chunk(b"data: a\n\n", 0.0), Chunk(b"data: [DONE]\n\n", 0.01))
    server.mock(mockhttp.loads(mockhttp.dump(from_transcript(_transcript(*chunks), ASK, CHAT)))[0])
    answer = httpx.post(server.url + CHAT, json=ASK)
    assert answer.content == b"data: a\n\ndata: [DONE]\n\n"
    assert answer.headers["x-request-id"] == "req_1"
