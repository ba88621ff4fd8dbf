"""gemini rules (contract/_gemini.py) on hand-written :streamGenerateContent?alt=sse
streams: Gemini's reference shape passes, each break is found with its message."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mockhttp.contract._gemini import GEMINI
from mockhttp.contract._rule import Hit
from mockhttp.contract._stream import Stream
from mockhttp.contract._transcript import Transcript

RULES = {r.id: r for r in GEMINI}


def response(
    parts: list[dict[str, Any]],
    finish: str | None = None,
    usage: Any = None,
    **kw: Any,
) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    out: dict[str, Any] = {
        "candidates": [candidate],
        "usageMetadata": usage
        or {"promptTokenCount": 3, "candidatesTokenCount": 1, "totalTokenCount": 4},
        "modelVersion": "gemini-2.0-flash",
        "responseId": "r1",
    }
    return {**out, **kw}


LAST_USAGE = {"promptTokenCount": 3, "candidatesTokenCount": 2, "totalTokenCount": 5}
GOOD = [response([{"text": "Hel"}]), response([{"text": "lo"}], "STOP", LAST_USAGE)]


def body(events: list[Any], ending: bytes = b"\r\n") -> bytes:
    return b"".join(b"data: " + json.dumps(e).encode() + ending + ending for e in events)


def hits(rule: str, events: list[Any], ending: bytes = b"\r\n") -> list[Hit]:
    stream = Stream(Transcript.from_body(body(events, ending)))
    return list(RULES[f"gemini.{rule}"].find(stream))


def test_the_reference_shape_passes_every_rule() -> None:
    for rule in RULES:
        assert hits(rule.removeprefix("gemini."), GOOD) == [], rule


def test_lf_framing_is_a_note_that_gemini_uses_crlf() -> None:
    [found] = hits("line-endings", GOOD, b"\n")
    assert found.message.startswith("events use LF line endings; Gemini frames with CRLF")
    assert RULES["gemini.line-endings"].severity == "note"


def test_a_done_sentinel_is_not_json() -> None:
    stream = Stream(Transcript.from_body(body(GOOD) + b"data: [DONE]\r\n\r\n"))
    [found] = RULES["gemini.json"].find(stream)
    assert found.message == 'data is not a JSON object: "[DONE]"'
    assert found.event == 2


@pytest.mark.parametrize(
    ("event", "message"),
    [
        ({"candidates": [], "promptFeedback": {"blockReason": "SAFETY"}},
         'a response without candidates (promptFeedback {"blockReason": "SAFETY"})'),
        ({"candidates": [{"content": "x"}]}, 'candidate 0: content was "x", expected an object'),
        ({"candidates": [{"index": 1, "content": {"role": "model"}}]},
         "candidate 1: content.parts was null, expected a list"),
        ({"candidates": [{"content": {"parts": [], "role": "assistant"}}]},
         'candidate 0: content.role was "assistant", expected "model"'),
    ],
)  # fmt: skip
def test_candidates(event: dict[str, Any], message: str) -> None:
    assert [h.message for h in hits("candidates", [event])] == [message]


def test_no_finish_reason_is_placed_at_the_end() -> None:
    events = [response([{"text": "a"}])]
    [found] = hits("finish", events)
    assert found.message == "the stream closed after event 0 without a finishReason"
    assert found.offset == len(body(events))


def test_a_finish_reason_before_the_last_event() -> None:
    events = [response([{"text": "a"}], "STOP"), response([{"text": "b"}])]
    [found] = hits("finish", events)
    assert found.message.startswith("candidate 0 finished on event 0, but events follow it")


def test_two_finish_reasons() -> None:
    [found] = hits("finish", [response([], "STOP"), response([], "STOP")])
    assert found.message == "candidate 0 has 2 finishReasons"
    assert found.event == 1


def test_usage_must_add_up_and_ride_on_the_last_event() -> None:
    no_usage = {k: v for k, v in GOOD[1].items() if k != "usageMetadata"}
    [missing] = hits("usage", [GOOD[0], no_usage])
    assert missing.message == "the last event carries no usageMetadata"
    bad = {"promptTokenCount": 3, "candidatesTokenCount": 2, "totalTokenCount": 9}
    [sum_] = hits("usage", [response([], "STOP", bad)])
    assert sum_.message.endswith("do not add up to totalTokenCount")
    with_thoughts = {**bad, "thoughtsTokenCount": 4}
    assert hits("usage", [response([], "STOP", with_thoughts)]) == []
    [lacks] = hits("usage", [response([], "STOP", {"promptTokenCount": 1})])
    assert lacks.message.startswith("usageMetadata lacks integer token counts")


def test_candidates_token_count_must_not_fall() -> None:
    high = {"promptTokenCount": 3, "candidatesTokenCount": 5, "totalTokenCount": 8}
    [found] = hits("usage", [response([], None, high), GOOD[1]])
    assert found.message == "candidatesTokenCount fell from 5 to 2"


def test_response_id_and_model_version_stay_the_same() -> None:
    events = [GOOD[0], {**GOOD[1], "responseId": "r2"}]
    [found] = hits("stable", events)
    assert found.message == 'responseId was "r2", expected "r1" as first'
    [empty] = hits("stable", [{**GOOD[1], "modelVersion": ""}])
    assert empty.message == 'modelVersion was "", expected a non-empty string'


def test_a_function_call_needs_a_name_and_args_object() -> None:
    good = response([{"functionCall": {"name": "f", "args": {"a": 1}}}], "STOP")
    assert hits("function-call", [good]) == []
    bad = response([{"functionCall": {"name": "f", "args": "a=1"}}], "STOP")
    [found] = hits("function-call", [bad])
    assert found.message == 'functionCall {"name": "f", "args": "a=1"} lacks a name or args object'


def test_an_error_payload_is_found() -> None:
    error = {"error": {"code": 503, "message": "overloaded", "status": "UNAVAILABLE"}}
    [found] = hits("error", [GOOD[0], error])
    assert found.message.startswith('a 200 stream carried an error payload: {"code": 503')
    assert found.event == 1
