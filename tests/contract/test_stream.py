"""The decoded view rules read (contract/_stream.py): messages, comments, payloads, and
when a transcript has no stream to check."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from mockhttp.contract._stream import Stream
from mockhttp.contract._transcript import Chunk, Transcript

SSE = (("Content-Type", "text/event-stream; charset=utf-8"),)


def _stream(
    *pieces: bytes, status: int | None = 200, headers: tuple[tuple[str, str], ...] = SSE
) -> Stream:
    chunks = tuple(Chunk(p, at=i * 0.01) for i, p in enumerate(pieces))
    return Stream(Transcript(status=status, headers=headers, chunks=chunks))


def test_messages_comments_and_payloads_are_split() -> None:
    s = _stream(b': hi\n\ndata: {"a": 1}\n\n', b"data: [DONE]\n\nevent: x\ndata: [1]\n\n")
    assert [c.text for c in s.comments] == ["hi"]
    assert [m.data for m in s.messages] == ['{"a": 1}', "[DONE]", "[1]"]
    assert [p.valid for p in s.payloads] == [True, False, True]
    assert s.payloads[0].obj == {"a": 1}
    assert s.payloads[1].obj is None
    assert s.payloads[2].value == [1]
    assert s.payloads[2].obj is None  # valid JSON, not an object
    assert s.tail is None


def test_an_event_split_across_chunks_is_one_message() -> None:
    s = _stream(b'data: {"a"', b": 2}\n", b"\n")
    assert [p.obj for p in s.payloads] == [{"a": 2}]


def test_an_unterminated_event_is_the_tail() -> None:
    s = _stream(b"data: 1\n\ndata: 2")
    assert [m.data for m in s.messages] == ["1"]
    assert s.tail is not None


def test_json_nested_too_deep_is_not_json_and_does_not_raise() -> None:
    s = _stream(b"data: " + b"[" * 50_000 + b"]" * 50_000 + b"\n\n")
    assert [p.valid for p in s.payloads] == [False]


def test_content_type_is_the_lowercase_essence() -> None:
    s = _stream(headers=(("content-type", "Text/Event-Stream ; charset=utf-8"),))
    assert s.content_type == "text/event-stream"
    assert s.is_event_stream
    assert _stream(headers=()).content_type == ""


def test_failed_when_no_response_or_not_200_or_not_sse() -> None:
    assert not _stream(b"data: 1\n\n").failed
    assert _stream(b"data: 1\n\n", status=None).failed
    assert _stream(b"data: 1\n\n", status=500).failed
    assert _stream(b"{}", headers=(("Content-Type", "application/json"),)).failed


def test_a_stream_without_the_sse_type_is_checked_when_it_has_events() -> None:
    assert not _stream(b"data: 1\n\n", headers=(("Content-Type", "text/plain"),)).failed


def test_an_empty_transcript_has_nothing() -> None:
    s = _stream()
    assert (s.messages, s.comments, s.payloads, s.tail) == ((), (), (), None)


@given(
    st.lists(st.dictionaries(st.text(max_size=5), st.integers(), max_size=3), max_size=6),
    st.integers(1, 7),
)
def test_payloads_read_back_whatever_the_chunking(objs: list[dict[str, int]], cut: int) -> None:
    body = b"".join(b"data: " + json.dumps(o).encode() + b"\n\n" for o in objs)
    pieces = [body[i : i + cut] for i in range(0, len(body), cut)]
    assert [p.obj for p in _stream(*pieces).payloads] == objs
