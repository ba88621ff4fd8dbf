"""The view of a response the contract rules read (``contract._stream``): its events,
comments and JSON payloads decoded once whatever the reads' split, its content type, and
when there is no stream to check at all."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mockhttp.contract import Transcript
from mockhttp.contract._stream import Stream

BODY = b': hello\n\ndata: {"a": 1}\n\nevent: x\ndata: [1, 2]\n\ndata: not json\n\ndata: {"b"'


def stream(body: bytes | list[bytes], **kw: object) -> Stream:
    return Stream(Transcript.from_body(body, **kw))  # type: ignore[arg-type]


def test_events_comments_payloads_and_the_unfinished_tail() -> None:
    seen = stream(BODY)
    assert [m.data for m in seen.messages] == ['{"a": 1}', "[1, 2]", "not json"]
    assert len(seen.comments) == 1
    assert [(p.valid, p.value) for p in seen.payloads] == [
        (True, {"a": 1}), (True, [1, 2]), (False, None),
    ]  # fmt: skip
    assert [p.obj for p in seen.payloads] == [{"a": 1}, None, None]  # only JSON objects
    assert seen.tail is not None  # 'data: {"b"' never ended


@given(st.lists(st.integers(min_value=1, max_value=len(BODY) - 1), max_size=8))
def test_the_view_is_the_same_however_the_body_was_read(cuts: list[int]) -> None:
    points = [0, *sorted(set(cuts)), len(BODY)]
    reads = [BODY[a:b] for a, b in itertools.pairwise(points)]
    whole, split = stream(BODY), stream(reads)
    assert [(m.data, m.event, m.offset) for m in split.messages] == [
        (m.data, m.event, m.offset) for m in whole.messages
    ]
    assert [p.value for p in split.payloads] == [p.value for p in whole.payloads]


def test_json_nested_too_deep_to_parse_is_not_json_not_a_crash() -> None:
    deep = b"data: " + b"[" * 100_000 + b"]" * 100_000 + b"\n\n"
    (payload,) = stream(deep).payloads
    assert not payload.valid


@pytest.mark.parametrize(
    ("value", "essence", "is_sse"),
    [
        ("text/event-stream", "text/event-stream", True),
        ("Text/Event-Stream; charset=utf-8", "text/event-stream", True),
        ("application/json", "application/json", False),
        ("text/event-streams", "text/event-streams", False),
    ],
)
def test_the_content_type_essence(value: str, essence: str, is_sse: bool) -> None:
    seen = stream(b"", headers={"Content-Type": value})
    assert (seen.content_type, seen.is_event_stream) == (essence, is_sse)


def test_no_content_type_is_empty() -> None:
    assert stream(b"", headers={}).content_type == ""


def test_what_is_not_a_stream_to_check() -> None:
    assert stream(b"data: x\n\n", status=500).failed
    assert stream(b'{"error": 1}', headers={"content-type": "application/json"}).failed
    assert not stream(b"data: x\n\n").failed
    # events without the header are still checked (the content-type rule reports it)
    assert not stream(b"data: x\n\n", headers={"content-type": "text/plain"}).failed
    assert Stream(Transcript(status=None, error="connection refused")).failed
