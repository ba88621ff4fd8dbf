"""stream-equals-buffered (contract/_buffered.py): the streamed answer against the same
request sent buffered."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from mockhttp.contract._buffered import (
    BUFFERED_RECEIVED,
    STREAM_EQUALS_BUFFERED,
    first_difference,
)
from mockhttp.contract._rule import Hit
from mockhttp.contract._stream import Stream
from mockhttp.contract._transcript import Chunk, Transcript

RULES = {r.id: r for r in STREAM_EQUALS_BUFFERED}


def _chat(*deltas: str, finish: str | None = "stop") -> bytes:
    out = b""
    for text in deltas:
        chunk = {
            "id": "c1",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "m",
            "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}],
        }
        out += b"data: " + json.dumps(chunk).encode() + b"\n\n"
    last = {
        "id": "c1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "delta": {}, "finish_reason": finish}],
    }
    return out + b"data: " + json.dumps(last).encode() + b"\n\ndata: [DONE]\n\n"


def _stream(body: bytes, buffered: Any) -> Stream:
    return Stream(
        Transcript(
            headers=(("Content-Type", "text/event-stream"),),
            chunks=(Chunk(body, 0.0),),
            buffered=buffered,
        )
    )


def _answer(content: str | None, finish: str = "stop") -> dict[str, Any]:
    message = {"role": "assistant", "content": content}
    return {"choices": [{"index": 0, "message": message, "finish_reason": finish}]}


def _hits(rule: str, stream: Stream) -> list[Hit]:
    return list(RULES[rule].find(stream))


def test_first_difference() -> None:
    assert first_difference("abc", "abd") == 2
    assert first_difference("abc", "abc") == 3
    assert first_difference("ab", "abc") == 2
    assert first_difference("", "x") == 0


@given(st.text(max_size=20), st.text(max_size=20))
def test_first_difference_is_where_the_common_prefix_ends(a: str, b: str) -> None:
    i = first_difference(a, b)
    assert a[:i] == b[:i]
    assert i == min(len(a), len(b)) or a[i] != b[i]


def test_equal_answers_have_no_hits() -> None:
    s = _stream(_chat("Hel", "lo"), _answer("Hello"))
    for rule in RULES:
        assert _hits(rule, s) == []


def test_no_buffered_answer_is_a_note_and_nothing_else_is_compared() -> None:
    s = _stream(_chat("Hi"), None)
    [note] = _hits("buffered.answer", s)
    assert note.severity == "note"
    assert _hits("buffered.content", s) == []
    assert _hits("buffered.finish-reason", s) == []


def test_an_answer_without_a_message_is_a_violation() -> None:
    [found] = _hits("buffered.answer", _stream(_chat("Hi"), {"choices": []}))
    assert found.message == 'the buffered answer has no choices[0].message: {"choices": []}'


def test_a_dropped_fragment_is_found_at_its_position() -> None:
    [found] = _hits("buffered.content", _stream(_chat("Hel", "lo"), _answer("Hello there")))
    assert found.message.startswith(
        "the joined content deltas (5 characters) differ from message.content (11) at position 5"
    )
    assert 'buffered " there"' in found.message


def test_null_content_equals_no_deltas() -> None:
    assert _hits("buffered.content", _stream(_chat(), _answer(None))) == []


def test_a_different_finish_reason_is_named() -> None:
    s = _stream(_chat("Hi", finish="length"), _answer("Hi", finish="stop"))
    [found] = _hits("buffered.finish-reason", s)
    assert found.message == 'the stream finished with "length", the buffered answer with "stop"'


def test_buffered_received_reports_live_modes_failure_sentence() -> None:
    assert list(BUFFERED_RECEIVED.find(_stream(b"", _answer("x")))) == []
    assert list(BUFFERED_RECEIVED.find(_stream(b"", None))) == []
    [found] = BUFFERED_RECEIVED.find(_stream(b"", "status 500 for the buffered request"))
    assert found.message == "status 500 for the buffered request"
    [empty] = BUFFERED_RECEIVED.find(_stream(b"", ""))
    assert "empty string" in empty.message
