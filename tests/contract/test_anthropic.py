"""anthropic-messages rules (contract/_anthropic.py), each on a hand-written Messages API
stream: the documented order passes, each break is found with its message."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mockhttp.contract._anthropic import ANTHROPIC_MESSAGES, ORDER
from mockhttp.contract._rule import Hit
from mockhttp.contract._stream import Stream
from mockhttp.contract._transcript import Transcript

RULES = {r.id: r for r in ANTHROPIC_MESSAGES}


def start() -> dict[str, Any]:
    return {"type": "message_start", "message": {"id": "msg_1", "role": "assistant"}}


def block_start(i: int) -> dict[str, Any]:
    return {"type": "content_block_start", "index": i, "content_block": {"type": "text"}}


def delta(i: int, text: str) -> dict[str, Any]:
    return {
        "type": "content_block_delta",
        "index": i,
        "delta": {"type": "text_delta", "text": text},
    }


def block_stop(i: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": i}


MESSAGE_DELTA = {"type": "message_delta", "delta": {"stop_reason": "end_turn"}}
STOP = {"type": "message_stop"}
PING = {"type": "ping"}
GOOD = [start(), block_start(0), PING, delta(0, "Hel"), delta(0, "lo"), block_stop(0),
        block_start(1), delta(1, "!"), block_stop(1), MESSAGE_DELTA, STOP]  # fmt: skip


def body(events: list[dict[str, Any]], named: bool = True) -> bytes:
    out = b""
    for e in events:
        line = f"event: {e['type']}\n" if named else ""
        out += f"{line}data: {json.dumps(e, separators=(',', ':'))}\n\n".encode()
    return out


def hits(rule: str, events: list[dict[str, Any]], buffered: Any = None, **kw: Any) -> list[Hit]:
    t = Transcript.from_body(body(events, **kw), buffered=buffered)
    return list(RULES[f"anthropic.{rule}"].find(Stream(t)))


def test_the_documented_stream_passes_every_rule() -> None:
    answer = {"content": [{"type": "text", "text": "Hello"}, {"type": "text", "text": "!"}]}
    for rule in RULES:
        assert hits(rule.removeprefix("anthropic."), GOOD, answer) == [], rule


def test_the_order_table_ends_at_message_stop() -> None:
    assert ORDER["end"] == {}
    assert ORDER["delta"]["message_stop"] == "end"


def test_json_and_event_name() -> None:
    t = Transcript.from_body(b'event: ping\ndata: {"type":"ping"}\n\ndata: [1]\n\n')
    [untyped] = RULES["anthropic.json"].find(Stream(t))
    assert untyped.event == 1
    [unnamed] = hits("event-name", [start()], named=False)
    assert unnamed.message.startswith("no event: line on data of type")


def test_a_delta_before_its_block_is_out_of_order() -> None:
    found, *_ = hits("order", [start(), delta(0, "x"), block_stop(0), MESSAGE_DELTA, STOP])
    assert found.message == (
        "content_block_delta came after message_start; expected content_block_start, message_delta"
    )
    assert found.event == 1


def test_anything_after_message_stop_is_out_of_order() -> None:
    found = hits("order", [*GOOD, MESSAGE_DELTA])
    assert [h.message for h in found] == ["message_delta came after message_stop; expected nothing"]


def test_ping_error_and_unknown_types_do_not_move_the_order() -> None:
    events = [start(), {"type": "error", "error": {}}, {"type": "future"}, *GOOD[1:]]
    assert hits("order", events) == []


@pytest.mark.parametrize(
    ("events", "message"),
    [
        ([start(), block_start(1)], "content_block_start has index 1, expected 0"),
        ([start(), block_start(0), delta(1, "x")],
         "content_block_delta has index 1, expected 0 (the open block)"),
        ([start(), block_start(0), block_stop(0), delta(0, "x")],
         "content_block_delta has index 0, but no block is open"),
    ],
)  # fmt: skip
def test_block_indexes(events: list[dict[str, Any]], message: str) -> None:
    assert [h.message for h in hits("block-index", events)] == [message]


def test_message_delta_needs_a_stop_reason() -> None:
    [found] = hits("stop-reason", [{"type": "message_delta", "delta": {"stop_reason": None}}])
    assert found.message == 'message_delta has delta {"stop_reason": null}, expected a stop_reason'


def test_a_missing_message_stop_is_placed_at_the_end() -> None:
    events = GOOD[:-1]
    [found] = hits("message-stop", events)
    assert found.message == f"the stream closed after event {len(events) - 1} without message_stop"
    assert found.offset == len(body(events))
    [empty] = hits("message-stop", [])
    assert empty.message == "the stream closed before any event without message_stop"


def test_an_error_event_is_quoted() -> None:
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    [found] = hits("error", [start(), error])
    assert found.message.startswith('a 200 stream carried an error event: {"type": "overloaded')


def test_pings_besides_the_usual_one_are_counted() -> None:
    assert hits("ping", GOOD) == []
    [found] = hits("ping", [PING, *GOOD, PING])
    assert found.message.startswith("2 ping event(s) besides the one after the first")
    assert found.event == 0


def test_an_unknown_type_is_named() -> None:
    [found] = hits("unknown-event", [start(), {"type": "thinking_summary"}])
    assert found.message == 'unknown event type "thinking_summary"; clients must ignore it'


def test_buffered_text_compares_the_joined_text_deltas() -> None:
    [note] = hits("buffered-text", GOOD)
    assert note.severity == "note"
    [bad] = hits("buffered-text", GOOD, {"id": "x"})
    assert bad.severity == "violation"
    assert bad.message.startswith("the buffered answer has no content list")
    [diff] = hits("buffered-text", GOOD, {"content": [{"type": "text", "text": "Help!"}]})
    assert diff.message.startswith(
        "the joined text deltas (6 characters) differ from the buffered text (5) at position 3"
    )
