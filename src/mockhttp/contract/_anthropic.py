"""anthropic-messages: rules for a Messages API stream (``stream: true``).

The order is a table (``ORDER``): state -> {event type: next state}.  ``ping`` may come
anywhere and ``error`` is reported by its own rule, so neither moves the state; unknown
event types are reported as notes, as clients must ignore them.
"""

from __future__ import annotations

from collections.abc import Iterator

from ._buffered import first_difference
from ._openai import after_last
from ._rule import Hit, Rule, hit, short
from ._stream import Stream
from ._typed import event_name, typed, untyped

__all__ = ["ANTHROPIC_MESSAGES", "ORDER"]

ORDER: dict[str, dict[str, str]] = {
    "start": {"message_start": "message"},
    "message": {"content_block_start": "block", "message_delta": "delta"},
    "block": {"content_block_delta": "block", "content_block_stop": "message"},
    "delta": {"message_delta": "delta", "message_stop": "end"},
    "end": {},
}
_ANYWHERE = frozenset({"ping", "error"})
_KNOWN = frozenset(t for table in ORDER.values() for t in table) | _ANYWHERE


def _order(stream: Stream) -> Iterator[Hit]:
    state, previous = "start", "the start"
    for message, kind, _ in typed(stream):
        if kind in _ANYWHERE or kind not in _KNOWN:
            continue
        following = ORDER[state].get(kind)
        if following is None:
            allowed = ", ".join(ORDER[state]) or "nothing"
            yield hit(message, f"{kind} came after {previous}; expected {allowed}")
            continue
        state, previous = following, kind


def _block_index(stream: Stream) -> Iterator[Hit]:
    started, open_index = 0, None
    for message, kind, obj in typed(stream):
        index = obj.get("index")
        if kind == "content_block_start":
            if index != started:
                yield hit(
                    message, f"content_block_start has index {short(index)}, expected {started}"
                )
            started, open_index = started + 1, index
        elif kind in ("content_block_delta", "content_block_stop"):
            if open_index is None:
                yield hit(message, f"{kind} has index {short(index)}, but no block is open")
            elif index != open_index:
                yield hit(
                    message,
                    f"{kind} has index {short(index)}, expected {open_index} (the open block)",
                )
            if kind == "content_block_stop":
                open_index = None


def _stop_reason(stream: Stream) -> Iterator[Hit]:
    for message, kind, obj in typed(stream):
        delta = obj.get("delta")
        if kind == "message_delta" and not (isinstance(delta, dict) and delta.get("stop_reason")):
            yield hit(message, f"message_delta has delta {short(delta)}, expected a stop_reason")


def _message_stop(stream: Stream) -> Iterator[Hit]:
    if not any(kind == "message_stop" for _, kind, _ in typed(stream)):
        yield Hit(
            f"the stream closed {after_last(stream)} without message_stop",
            offset=len(stream.transcript.body),
        )


def _error(stream: Stream) -> Iterator[Hit]:
    for message, kind, obj in typed(stream):
        if kind == "error":
            yield hit(message, f"a 200 stream carried an error event: {short(obj.get('error'))}")


def _ping(stream: Stream) -> Iterator[Hit]:
    events = typed(stream)
    kinds = [kind for _, kind, _ in events]
    usual = kinds.index("content_block_start") + 1 if "content_block_start" in kinds else -1
    pings = [m for i, (m, kind, _) in enumerate(events) if kind == "ping" and i != usual]
    if pings:
        yield hit(
            pings[0],
            f"{len(pings)} ping event(s) besides the one after the first content_block_start; "
            "tolerated anywhere in the stream",
        )


def _unknown(stream: Stream) -> Iterator[Hit]:
    for message, kind, _ in typed(stream):
        if kind not in _KNOWN:
            yield hit(message, f"unknown event type {short(kind)}; clients must ignore it")


def _buffered_text(stream: Stream) -> Iterator[Hit]:
    answer = stream.transcript.buffered
    if answer is None:
        yield Hit("no buffered answer was given, so nothing was compared", severity="note")
        return
    blocks = answer.get("content") if isinstance(answer, dict) else None
    if not isinstance(blocks, list):
        yield Hit(f"the buffered answer has no content list: {short(answer)}", severity="violation")
        return
    expected = "".join(
        b["text"] for b in blocks if isinstance(b, dict) and isinstance(b.get("text"), str)
    )
    text = "".join(
        d["text"]
        for _, kind, obj in typed(stream)
        if kind == "content_block_delta"
        and isinstance(d := obj.get("delta"), dict)
        and d.get("type") == "text_delta"
        and isinstance(d.get("text"), str)
    )
    if text != expected:
        at = first_difference(text, expected)
        yield Hit(
            f"the joined text deltas ({len(text)} characters) differ from the buffered text "
            f"({len(expected)}) at position {at}: streamed {short(text[at : at + 20])}, "
            f"buffered {short(expected[at : at + 20])}"
        )


ANTHROPIC_MESSAGES = (
    Rule(
        "anthropic.json",
        "violation",
        "Every data payload is a JSON object with a string type.",
        "Clients dispatch on data.type.",
        "None known; Anthropic pads JSON with spaces before the final brace (Q-JSON-PADDING), "
        "which is still valid JSON.",
        untyped,
    ),
    Rule(
        "anthropic.event-name",
        "violation",
        "The event: name equals the data's type on every event.",
        "The SDK and EventSource listeners dispatch on the SSE event name.",
        "OpenRouter's Responses stream sends no event: line (Q-RESP-NO-EVENT-LINE).",
        event_name,
    ),
    Rule(
        "anthropic.order",
        "violation",
        "message_start, then per block content_block_start, deltas, content_block_stop, then "
        "message_delta, then message_stop last (ping and error anywhere).",
        "Accumulating clients build the message in exactly this order.",
        "None known.",
        _order,
    ),
    Rule(
        "anthropic.block-index",
        "violation",
        "Content blocks are numbered 0, 1, 2, ... and deltas and stop name the open block.",
        "Clients append each delta to the block with its index.",
        "None known.",
        _block_index,
    ),
    Rule(
        "anthropic.stop-reason",
        "violation",
        "message_delta carries delta.stop_reason.",
        "Clients decide whether to continue (tool_use, max_tokens, pause_turn) from it.",
        "None known.",
        _stop_reason,
    ),
    Rule(
        "anthropic.message-stop",
        "violation",
        "message_stop arrives (the stream does not just close).",
        "It is the only end marker; there is no [DONE].",
        "After an error event the connection closes without it (Q-ERR-EVENT-NAMED).",
        _message_stop,
    ),
    Rule(
        "anthropic.error",
        "violation",
        "No error event arrives inside the 200 stream.",
        "The status already said success; the SDK raises APIStatusError carrying status 200.",
        "Anthropic overloaded_error, api_error (Q-ERR-EVENT-NAMED).",
        _error,
    ),
    Rule(
        "anthropic.ping",
        "note",
        "Reports ping events other than the one right after the first content_block_start "
        "(where Anthropic sends it): tolerated anywhere.",
        "Clients that dispatch on type must skip them.",
        "Anthropic documents that pings may come anywhere, and several (Q-PING-POSITION).",
        _ping,
    ),
    Rule(
        "anthropic.unknown-event",
        "note",
        "Reports event types outside the documented set.",
        "The docs warn new types may be added and clients must ignore unknown events.",
        "New Anthropic event types (Q-UNKNOWN-EVENT).",
        _unknown,
    ),
    Rule(
        "anthropic.buffered-text",
        "warning",
        "The joined text deltas equal the text blocks of the buffered answer.",
        "It catches a dropped or duplicated fragment; determinism is approximate, so look first.",
        "Any hosted model at temperature 0.",
        _buffered_text,
    ),
)
