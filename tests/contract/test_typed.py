"""Typed event streams (contract/_typed.py): each data a JSON object whose type the
``event:`` line repeats."""

from __future__ import annotations

from mockhttp.contract._stream import Stream
from mockhttp.contract._transcript import Chunk, Transcript
from mockhttp.contract._typed import event_name, typed, untyped


def _stream(body: bytes) -> Stream:
    return Stream(
        Transcript(headers=(("Content-Type", "text/event-stream"),), chunks=(Chunk(body, 0.0),))
    )


GOOD = (
    b'event: message_start\ndata: {"type": "message_start", "n": 1}\n\n'
    b'event: ping\ndata: {"type": "ping"}\n\n'
)


def test_typed_reads_type_and_object() -> None:
    found = typed(_stream(GOOD))
    assert [(kind, obj) for _, kind, obj in found] == [
        ("message_start", {"type": "message_start", "n": 1}),
        ("ping", {"type": "ping"}),
    ]


def test_a_good_stream_has_no_hits() -> None:
    assert list(untyped(_stream(GOOD))) == []
    assert list(event_name(_stream(GOOD))) == []


def test_untyped_names_each_data_without_a_text_type() -> None:
    body = b'data: {"type": 3}\n\ndata: [1]\n\ndata: nope\n\ndata: {"type": "x"}\n\n'
    hits = list(untyped(_stream(body)))
    assert [h.event for h in hits] == [0, 1, 2]
    assert all(h.message.startswith("data is not a JSON object with a type: ") for h in hits)
    assert "nope" in hits[2].message


def test_untyped_lets_allowed_data_through() -> None:
    body = b'data: [DONE]\n\ndata: {"type": "x"}\n\n'
    assert list(untyped(_stream(body), frozenset({"[DONE]"}))) == []
    assert len(list(untyped(_stream(body)))) == 1


def test_event_name_reports_a_missing_or_wrong_event_line() -> None:
    body = b'data: {"type": "ping"}\n\nevent: pong\ndata: {"type": "ping"}\n\n'
    hits = list(event_name(_stream(body)))
    assert [h.event for h in hits] == [0, 1]
    assert hits[0].message == 'no event: line on data of type "ping", expected event: ping'
    assert hits[1].message == 'event: pong on data of type "ping", expected event: ping'
