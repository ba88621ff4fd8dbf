"""openai-responses rules (contract/_responses.py) on a hand-written Responses API stream:
the reference shape passes, each break is found with its message."""

from __future__ import annotations

import json
from typing import Any

from mockhttp.contract._responses import OPENAI_RESPONSES
from mockhttp.contract._rule import Hit
from mockhttp.contract._stream import Stream
from mockhttp.contract._transcript import Transcript

RULES = {r.id: r for r in OPENAI_RESPONSES}
USAGE = {"input_tokens": 5, "output_tokens": 2, "total_tokens": 7}
ITEM = {"id": "msg_1", "type": "message", "role": "assistant"}


def ev(kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, **fields}


def text(kind: str, **fields: Any) -> dict[str, Any]:
    return ev(kind, item_id="msg_1", output_index=0, content_index=0, **fields)


GOOD = [
    ev("response.created", response={"id": "resp_1"}),
    ev("response.in_progress", response={"id": "resp_1"}),
    ev("response.output_item.added", output_index=0, item=ITEM),
    text("response.output_text.delta", delta="Hel"),
    text("response.output_text.delta", delta="lo"),
    text("response.output_text.done", text="Hello"),
    ev("response.output_item.done", output_index=0, item=ITEM),
    ev("response.completed", response={"id": "resp_1", "usage": USAGE}),
]


def body(events: list[dict[str, Any]], numbered: bool = True) -> bytes:
    out = b""
    for n, e in enumerate(events):
        data = {**e, "sequence_number": n} if numbered else e
        out += f"event: {e['type']}\ndata: {json.dumps(data)}\n\n".encode()
    return out


def hits(rule: str, events: list[dict[str, Any]], tail: bytes = b"", **kw: Any) -> list[Hit]:
    stream = Stream(Transcript.from_body(body(events, **kw) + tail))
    return list(RULES[f"responses.{rule}"].find(stream))


def test_the_reference_shape_passes_every_rule() -> None:
    for rule in RULES:
        assert hits(rule.removeprefix("responses."), GOOD) == [], rule


def test_sequence_numbers_count_from_zero() -> None:
    found = hits("sequence", GOOD[:2], numbered=False)
    assert found[0].message.startswith("response.created has sequence_number null, expected 0")
    assert len(found) == 2


def test_created_then_in_progress_come_first() -> None:
    found, _ = hits("created", GOOD[1:])
    assert found.message == "the first event is response.in_progress, expected response.created"
    [second] = hits("created", [GOOD[0], *GOOD[2:]])
    assert second.message == (
        "the second event is response.output_item.added, expected response.in_progress"
    )


def test_the_terminal_event_ends_the_stream() -> None:
    [missing] = hits("terminal", GOOD[:-1])
    assert missing.message.startswith(
        "the stream closed after event 6 without response.completed, response.failed"
    )
    [late] = hits("terminal", [*GOOD, text("response.output_text.delta", delta="x")])
    assert (
        late.message
        == "response.output_text.delta arrived after response.completed (event 7), the end"
    )


def test_items_must_be_added_before_use_and_closed_before_completion() -> None:
    stray = [*GOOD[:3], {**GOOD[3], "item_id": "msg_2"}, *GOOD[4:]]
    assert [h.message for h in hits("items", stray)] == [
        'response.output_text.delta names item "msg_2", which is not an open item'
    ]
    open_ = [*GOOD[:6], GOOD[7]]
    assert [h.message for h in hits("items", open_)] == [
        'response.completed came while item(s) ["msg_1"] were still open'
    ]
    wrong = [*GOOD[:2], {**GOOD[2], "output_index": 3}, *GOOD[3:]]
    assert hits("items", wrong)[0].message == 'output item "msg_1" has output_index 3, expected 0'


def test_done_text_repeats_the_joined_deltas() -> None:
    bad = [*GOOD[:5], text("response.output_text.done", text="Help"), *GOOD[6:]]
    [found] = hits("done-text", bad)
    assert (
        found.message
        == 'response.output_text.done repeats "Help", but the deltas joined to "Hello"'
    )


def test_usage_must_add_up() -> None:
    usage = {"input_tokens": 5, "output_tokens": 2, "total_tokens": 9}
    events = [*GOOD[:-1], ev("response.completed", response={"id": "r", "usage": usage})]
    [found] = hits("usage", events)
    assert found.message == "input_tokens 5 + output_tokens 2 = 7, but total_tokens was 9"
    events = [*GOOD[:-1], ev("response.completed", response={"id": "r"})]
    [none] = hits("usage", events)
    assert none.message == "response.completed has usage null, expected an object"


def test_errors_nested_flat_and_failed() -> None:
    nested = ev("error", error={"code": "server_error"})
    flat = ev("error", code="rate_limit", message="slow down")
    failed = ev("response.failed", response={"error": {"code": "x"}})
    assert [h.message for h in hits("error", [GOOD[0], nested, flat, failed])] == [
        'a 200 stream carried an error event (nested): {"code": "server_error"}',
        'a 200 stream carried an error event (flat): "slow down"',
        'the response failed: {"code": "x"}',
    ]


def test_a_done_sentinel_is_reported_but_is_not_bad_json() -> None:
    [found] = hits("done-sentinel", GOOD, b"data: [DONE]\n\n")
    assert found.message.startswith("data: [DONE] arrived; the Responses stream ends")
    assert hits("json", GOOD, b"data: [DONE]\n\n") == []


def test_function_call_arguments_must_be_json() -> None:
    done = ev("response.function_call_arguments.done", item_id="fc", output_index=0,
              arguments="{bad")  # fmt: skip
    [found] = hits("arguments", [done])
    assert found.message == 'function call arguments "{bad" are not JSON'


def test_an_unknown_type_is_named() -> None:
    [found] = hits("unknown-event", [GOOD[0], ev("response.teleported")])
    assert found.message == 'unknown event type "response.teleported"; clients must ignore it'
