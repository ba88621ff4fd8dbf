"""gemini: rules for a Gemini ``:streamGenerateContent?alt=sse`` stream.

The reference shape: CRLF-framed ``data:`` events with no names and no sentinel; every event a
whole ``GenerateContentResponse`` (``candidates`` with ``content.parts`` and role ``model``,
``usageMetadata``, ``modelVersion``, ``responseId``); the last event adds ``finishReason`` to
each candidate.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .._core._sse_decode import Message
from ._common import _ENDINGS
from ._openai import after_last, error_payloads
from ._rule import Hit, Rule, hit, short
from ._stream import Stream

__all__ = ["GEMINI"]

_COUNTS = (
    "promptTokenCount",
    "candidatesTokenCount",
    "thoughtsTokenCount",
    "toolUsePromptTokenCount",
)
_OPTIONAL = frozenset({"thoughtsTokenCount", "toolUsePromptTokenCount"})


def _responses(stream: Stream) -> list[tuple[Message, dict[str, Any]]]:
    return [
        (p.message, p.obj) for p in stream.payloads if p.obj is not None and "error" not in p.obj
    ]


def _candidates(obj: dict[str, Any]) -> list[dict[str, Any]]:
    found = obj.get("candidates")
    return [c for c in found if isinstance(c, dict)] if isinstance(found, list) else []


def _json(stream: Stream) -> Iterator[Hit]:
    for p in stream.payloads:
        if p.obj is None:
            yield hit(p.message, f"data is not a JSON object: {short(p.message.data)}")


def _line_endings(stream: Stream) -> Iterator[Hit]:
    endings = {line.ending for m in stream.messages for line in m.lines}
    if endings and endings != {b"\r\n"}:
        names = "/".join(sorted(_ENDINGS[e] for e in endings))
        yield Hit(
            f"events use {names} line endings; Gemini frames with CRLF, so a client tested "
            "against this stream is not tested against Gemini's framing"
        )


def _candidate_shape(candidate: dict[str, Any]) -> str | None:
    content = candidate.get("content")
    if not isinstance(content, dict):
        return f"content was {short(content)}, expected an object"
    if not isinstance(content.get("parts"), list):
        return f"content.parts was {short(content.get('parts'))}, expected a list"
    if content.get("role") != "model":
        return f'content.role was {short(content.get("role"))}, expected "model"'
    return None


def _candidates_rule(stream: Stream) -> Iterator[Hit]:
    for message, obj in _responses(stream):
        candidates = _candidates(obj)
        if not candidates:
            feedback = obj.get("promptFeedback")
            why = f" (promptFeedback {short(feedback)})" if feedback else ""
            yield hit(message, f"a response without candidates{why}")
        for candidate in candidates:
            problem = _candidate_shape(candidate)
            if problem:
                yield hit(message, f"candidate {candidate.get('index', 0)}: {problem}")


def _finish(stream: Stream) -> Iterator[Hit]:
    seen = _responses(stream)
    finished: dict[Any, list[Message]] = {}
    for message, obj in seen:
        for candidate in _candidates(obj):
            if candidate.get("finishReason"):
                finished.setdefault(candidate.get("index", 0), []).append(message)
    if seen and not finished:
        yield Hit(
            f"the stream closed {after_last(stream)} without a finishReason",
            offset=len(stream.transcript.body),
        )
    last = seen[-1][0] if seen else None
    for index, messages in finished.items():
        if len(messages) > 1:
            yield hit(messages[1], f"candidate {index} has {len(messages)} finishReasons")
        elif messages[0] is not last:
            yield hit(
                messages[0],
                f"candidate {index} finished on event {messages[0].index}, but events "
                "follow it; the finishReason rides on the last event",
            )


def _usage_counts(message: Message, usage: Any) -> Iterator[Hit]:
    if not isinstance(usage, dict):
        yield hit(message, f"usageMetadata was {short(usage)}, expected an object")
        return
    counts = [usage.get(k, 0 if k in _OPTIONAL else None) for k in _COUNTS]
    counts.append(usage.get("totalTokenCount"))
    ints = [n for n in counts if isinstance(n, int) and not isinstance(n, bool)]
    if len(ints) != len(counts):
        yield hit(message, f"usageMetadata lacks integer token counts: {short(usage)}")
    elif sum(ints[:-1]) != ints[-1]:
        yield hit(message, f"the token counts of {short(usage)} do not add up to totalTokenCount")


def _usage(stream: Stream) -> Iterator[Hit]:
    seen = _responses(stream)
    if seen and "usageMetadata" not in seen[-1][1]:
        yield hit(seen[-1][0], "the last event carries no usageMetadata")
    previous = 0
    for message, obj in seen:
        if "usageMetadata" in obj:
            yield from _usage_counts(message, obj["usageMetadata"])
            count = (
                obj["usageMetadata"].get("candidatesTokenCount")
                if isinstance(obj["usageMetadata"], dict)
                else None
            )
            if isinstance(count, int) and count < previous:
                yield hit(message, f"candidatesTokenCount fell from {previous} to {count}")
            previous = count if isinstance(count, int) else previous


def _stable(stream: Stream) -> Iterator[Hit]:
    seen = _responses(stream)
    for key in ("responseId", "modelVersion"):
        values = [(m, obj.get(key)) for m, obj in seen]
        if values and not (isinstance(values[0][1], str) and values[0][1]):
            yield hit(values[0][0], f"{key} was {short(values[0][1])}, expected a non-empty string")
        for message, value in values[1:]:
            if value != values[0][1]:
                yield hit(
                    message, f"{key} was {short(value)}, expected {short(values[0][1])} as first"
                )


def _function_calls(stream: Stream) -> Iterator[Hit]:
    for message, obj in _responses(stream):
        for candidate in _candidates(obj):
            content = candidate.get("content")
            parts = content.get("parts") if isinstance(content, dict) else None
            for part in parts if isinstance(parts, list) else []:
                call = part.get("functionCall") if isinstance(part, dict) else None
                if call is not None and not (
                    isinstance(call, dict)
                    and isinstance(call.get("name"), str)
                    and isinstance(call.get("args", {}), dict)
                ):
                    yield hit(message, f"functionCall {short(call)} lacks a name or args object")


GEMINI = (
    Rule(
        "gemini.line-endings",
        "note",
        "Reports line endings other than CRLF, which Gemini's alt=sse stream uses.",
        "A client tested against an LF stream is not tested against Gemini's framing.",
        "Gemini and Vertex always frame with CRLF (Q-CRLF); proxies may re-frame with LF.",
        _line_endings,
    ),
    Rule(
        "gemini.json",
        "violation",
        "Every data payload is a JSON object (there is no [DONE] sentinel).",
        "Clients json-parse every data payload.",
        "None known.",
        _json,
    ),
    Rule(
        "gemini.candidates",
        "violation",
        "Every response has candidates, each with content.parts and role 'model'.",
        "Clients read candidates[0].content.parts; a blocked prompt (promptFeedback) has none.",
        "A blocked prompt answers with promptFeedback.blockReason and no candidates.",
        _candidates_rule,
    ),
    Rule(
        "gemini.finish",
        "violation",
        "Each candidate's finishReason arrives once, on the last event.",
        "It is the only end marker; a stream that just closes looks like a dropped connection.",
        "Any truncated connection (Q-ERR-TRUNCATE).",
        _finish,
    ),
    Rule(
        "gemini.usage",
        "violation",
        "The last event carries usageMetadata; its counts add up to totalTokenCount and "
        "candidatesTokenCount never falls.",
        "Clients keep the usageMetadata of the last event as the usage of the call.",
        "None known; Gemini sends usageMetadata on every event (Q-USAGE-EVERY-CHUNK).",
        _usage,
    ),
    Rule(
        "gemini.stable",
        "violation",
        "responseId and modelVersion are non-empty and the same on every event.",
        "Clients take them from any event.",
        "None known.",
        _stable,
    ),
    Rule(
        "gemini.error",
        "violation",
        "No payload carries an error object (an error inside a 200 stream).",
        "The status already said success; clients must read the body to see the failure.",
        "Errors mid-stream (Q-STATUS-200-ERROR).",
        error_payloads,
    ),
    Rule(
        "gemini.function-call",
        "violation",
        "Every functionCall part has a name and an args object.",
        "Clients call the function by name with args as keyword arguments.",
        "None known.",
        _function_calls,
    ),
)
