"""openai-responses: rules for an OpenAI Responses API stream (``POST /v1/responses``).

The reference shape: named events (``event:`` equal to the data's ``type``), each with a
``sequence_number`` counting from 0; ``response.created`` first, then ``response.in_progress``;
per output item ``response.output_item.added`` ... ``response.output_item.done`` with the
content parts, deltas and ``.done`` events in between; last ``response.completed`` (or
``response.failed`` / ``response.incomplete``) carrying the response and its usage.  There is
no ``[DONE]``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from .._core._sse_decode import Message
from ._openai import after_last
from ._rule import Hit, Rule, hit, short
from ._stream import Stream
from ._typed import event_name, typed, untyped

__all__ = ["OPENAI_RESPONSES", "TERMINAL"]

TERMINAL = frozenset({"response.completed", "response.failed", "response.incomplete"})
_DONE = "[DONE]"
_KNOWN = TERMINAL | {
    "response.created",
    "response.in_progress",
    "response.queued",
    "response.output_item.added",
    "response.output_item.done",
    "response.content_part.added",
    "response.content_part.done",
    "response.output_text.delta",
    "response.output_text.done",
    "response.output_text.annotation.added",
    "response.refusal.delta",
    "response.refusal.done",
    "response.function_call_arguments.delta",
    "response.function_call_arguments.done",
    "response.reasoning_summary_part.added",
    "response.reasoning_summary_part.done",
    "response.reasoning_summary_text.delta",
    "response.reasoning_summary_text.done",
    "response.reasoning_text.delta",
    "response.reasoning_text.done",
    "error",
}
_KNOWN_PREFIXES = (
    "response.web_search_call.",
    "response.file_search_call.",
    "response.code_interpreter_call",
    "response.image_gen_call.",
    "response.mcp_",
    "response.custom_tool_call_input.",
    "response.shell_call",
)
# .delta event -> (.done event, the .done field that repeats the joined deltas)
_PAIRS = {
    "response.output_text.delta": ("response.output_text.done", "text"),
    "response.function_call_arguments.delta": (
        "response.function_call_arguments.done",
        "arguments",
    ),
    "response.refusal.delta": ("response.refusal.done", "refusal"),
    "response.reasoning_summary_text.delta": ("response.reasoning_summary_text.done", "text"),
    "response.reasoning_text.delta": ("response.reasoning_text.done", "text"),
}
_DONE_FIELD = {done: field for done, field in _PAIRS.values()}


def _known(kind: str) -> bool:
    return kind in _KNOWN or kind.startswith(_KNOWN_PREFIXES)


def _json(stream: Stream) -> Iterator[Hit]:
    return untyped(stream, frozenset({_DONE}))


def _sequence(stream: Stream) -> Iterator[Hit]:
    for expected, (message, kind, obj) in enumerate(typed(stream)):
        number = obj.get("sequence_number")
        if number != expected:
            yield hit(
                message,
                f"{kind} has sequence_number {short(number)}, expected {expected} "
                "(numbers count from 0 in stream order)",
            )


def _created(stream: Stream) -> Iterator[Hit]:
    events = typed(stream)
    if events and events[0][1] != "response.created":
        yield hit(events[0][0], f"the first event is {events[0][1]}, expected response.created")
    kinds = [kind for _, kind, _ in events]
    if len(kinds) > 1 and kinds[1] not in ("response.in_progress", *TERMINAL, "error"):
        yield hit(events[1][0], f"the second event is {kinds[1]}, expected response.in_progress")


def _terminal(stream: Stream) -> Iterator[Hit]:
    events = typed(stream)
    ends = [(m, kind) for m, kind, _ in events if kind in TERMINAL]
    if not ends:
        yield Hit(
            f"the stream closed {after_last(stream)} without response.completed, "
            "response.failed or response.incomplete",
            offset=len(stream.transcript.body),
        )
        return
    first, kind = ends[0]
    for message, later, _ in events:
        if message.index > first.index:
            yield hit(message, f"{later} arrived after {kind} (event {first.index}), the end")


def _open_item(
    items: dict[Any, int], message: Message, kind: str, obj: dict[str, Any]
) -> Iterator[Hit]:
    item_id = obj.get("item_id")
    if not isinstance(item_id, str):
        yield hit(message, f"{kind} names item {short(item_id)}, which is not a string id")
    elif item_id not in items:
        yield hit(message, f"{kind} names item {short(item_id)}, which is not an open item")
    elif obj.get("output_index") != items[item_id]:
        yield hit(
            message,
            f"{kind} has output_index {short(obj.get('output_index'))}, but item "
            f"{short(item_id)} was added at {items[item_id]}",
        )


def _items(stream: Stream) -> Iterator[Hit]:
    items: dict[Any, int] = {}  # open items: id -> output_index
    added = 0
    for message, kind, obj in typed(stream):
        item = obj.get("item")
        item_id = item.get("id") if isinstance(item, dict) else None
        if kind in ("response.output_item.added", "response.output_item.done") and not (
            isinstance(item_id, str)
        ):
            yield hit(message, f"{kind}: output item id {short(item_id)} is not a string")
            added += kind == "response.output_item.added"
        elif kind == "response.output_item.added":
            if obj.get("output_index") != added:
                yield hit(
                    message,
                    f"output item {short(item_id)} has output_index "
                    f"{short(obj.get('output_index'))}, expected {added}",
                )
            items[item_id] = added
            added += 1
        elif kind == "response.output_item.done":
            if item_id not in items:
                yield hit(message, f"output item {short(item_id)} is done but was never added")
            items.pop(item_id, None)
        elif "item_id" in obj:
            yield from _open_item(items, message, kind, obj)
        elif kind == "response.completed" and items:
            yield hit(message, f"{kind} came while item(s) {short(list(items))} were still open")


def _done_text(stream: Stream) -> Iterator[Hit]:
    joined: dict[tuple[str, Any, Any], str] = {}
    for message, kind, obj in typed(stream):
        key = (kind, obj.get("item_id"), obj.get("content_index", obj.get("summary_index")))
        if not all(isinstance(part, (str, int, float, type(None))) for part in key[1:]):
            continue  # an id or index that is not a scalar: responses.items reports the id
        if kind in _PAIRS and isinstance(obj.get("delta"), str):
            done = (_PAIRS[kind][0], *key[1:])
            joined[done] = joined.get(done, "") + obj["delta"]
        elif kind in _DONE_FIELD:
            value = obj.get(_DONE_FIELD[kind])
            expected = joined.get(key, "")
            if value != expected:
                yield hit(
                    message,
                    f"{kind} repeats {short(value)}, but the deltas joined to {short(expected)}",
                )


def _completed(stream: Stream) -> list[tuple[Message, dict[str, Any]]]:
    return [
        (m, obj["response"])
        for m, kind, obj in typed(stream)
        if kind == "response.completed" and isinstance(obj.get("response"), dict)
    ]


def _usage(stream: Stream) -> Iterator[Hit]:
    for message, response in _completed(stream):
        usage = response.get("usage")
        if not isinstance(usage, dict):
            yield hit(message, f"response.completed has usage {short(usage)}, expected an object")
            continue
        counts = [usage.get(k) for k in ("input_tokens", "output_tokens", "total_tokens")]
        match counts:
            case [int(given), int(made), int(total)] if given + made != total:
                yield hit(
                    message,
                    f"input_tokens {given} + output_tokens {made} = {given + made}, "
                    f"but total_tokens was {total}",
                )
            case [int(), int(), int()]:
                pass
            case _:
                yield hit(message, f"usage lacks integer token counts: {short(usage)}")


def _error(stream: Stream) -> Iterator[Hit]:
    for message, kind, obj in typed(stream):
        if kind == "error":
            shape = "nested" if isinstance(obj.get("error"), dict) else "flat"
            detail = obj.get("error") if shape == "nested" else obj.get("message")
            yield hit(message, f"a 200 stream carried an error event ({shape}): {short(detail)}")
        elif kind == "response.failed":
            response = obj.get("response")
            error = response.get("error") if isinstance(response, dict) else None
            yield hit(message, f"the response failed: {short(error)}")


def _done_sentinel(stream: Stream) -> Iterator[Hit]:
    for message in stream.messages:
        if message.data == _DONE:
            yield hit(
                message,
                "data: [DONE] arrived; the Responses stream ends at its terminal event, and "
                "clients that parse every data payload as JSON throw on the sentinel",
            )


def _unknown(stream: Stream) -> Iterator[Hit]:
    for message, kind, _ in typed(stream):
        if not _known(kind):
            yield hit(message, f"unknown event type {short(kind)}; clients must ignore it")


def _arguments_json(stream: Stream) -> Iterator[Hit]:
    for message, kind, obj in typed(stream):
        if kind == "response.function_call_arguments.done":
            try:
                json.loads(obj.get("arguments") or "")
            except (TypeError, ValueError, RecursionError):
                yield hit(
                    message, f"function call arguments {short(obj.get('arguments'))} are not JSON"
                )


OPENAI_RESPONSES = (
    Rule(
        "responses.json",
        "violation",
        "Every data payload is a JSON object with a string type.",
        "Clients dispatch on data.type.",
        "None known; a [DONE] sentinel is reported by responses.done-sentinel.",
        _json,
    ),
    Rule(
        "responses.event-name",
        "violation",
        "The event: name equals the data's type on every event.",
        "The SDKs and EventSource listeners dispatch on the SSE event name.",
        "OpenRouter's Responses stream sends data-only frames (Q-RESP-NO-EVENT-LINE).",
        event_name,
    ),
    Rule(
        "responses.sequence",
        "violation",
        "sequence_number counts 0, 1, 2, ... in stream order on every event.",
        "Clients that resume or reorder by sequence_number see gaps as lost events.",
        "Gaps or a start at 1 from re-framing proxies (Q-SEQNO).",
        _sequence,
    ),
    Rule(
        "responses.created",
        "violation",
        "response.created is the first event, and response.in_progress the second.",
        "Clients take the response id and model from response.created.",
        "None known.",
        _created,
    ),
    Rule(
        "responses.terminal",
        "violation",
        "The stream ends with one response.completed, response.failed or response.incomplete, "
        "and nothing follows it.",
        "It is the only end marker; there is no [DONE], and a stream that just closes looks "
        "like a dropped connection.",
        "After an error event the stream may close without it (Q-ERR-EVENT-NAMED); any "
        "truncated connection (Q-ERR-TRUNCATE).",
        _terminal,
    ),
    Rule(
        "responses.items",
        "violation",
        "Output items are added at output_index 0, 1, 2, ..., events name an open item, and "
        "every item is done before response.completed.",
        "Clients build each output item from the events that name it.",
        "None known.",
        _items,
    ),
    Rule(
        "responses.done-text",
        "violation",
        "Each .done event (text, arguments, refusal, reasoning) repeats exactly its joined deltas.",
        "Clients that accumulate deltas and clients that read the .done event must agree.",
        "None known.",
        _done_text,
    ),
    Rule(
        "responses.arguments",
        "violation",
        "Each function call's final arguments are valid JSON.",
        "Clients json.loads the arguments to call the function.",
        "None known.",
        _arguments_json,
    ),
    Rule(
        "responses.usage",
        "violation",
        "response.completed carries usage with input_tokens + output_tokens = total_tokens.",
        "Billing and quota code reads usage from the completed response.",
        "None known.",
        _usage,
    ),
    Rule(
        "responses.error",
        "violation",
        "No error event and no response.failed arrive inside the 200 stream.",
        "The status already said success; the SDKs raise on the error event.",
        "OpenAI sends a flat error event, recordings show a nested one followed by "
        "response.failed (Q-RESP-ERROR-SHAPES, Q-ERR-EVENT-NAMED).",
        _error,
    ),
    Rule(
        "responses.done-sentinel",
        "warning",
        "No data: [DONE] arrives (the Responses stream has no sentinel).",
        "Clients written for the Responses stream parse every payload as JSON.",
        "OpenRouter ends its Responses stream with [DONE] (Q-RESP-NO-EVENT-LINE).",
        _done_sentinel,
    ),
    Rule(
        "responses.unknown-event",
        "note",
        "Reports event types outside the documented set.",
        "New event types are added often; clients must ignore unknown ones.",
        "New Responses event types (Q-UNKNOWN-EVENT).",
        _unknown,
    ),
)
