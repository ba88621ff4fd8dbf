"""stream-equals-buffered: the streamed answer against the same request sent buffered.

A metamorphic relation rather than an assertion on prose: at temperature 0 the joined
content deltas should equal ``message.content``.  Hosted models are only approximately
deterministic, so a difference is a warning to look at, with the first differing position.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ._openai import choice_entries
from ._rule import Hit, Rule, short
from ._stream import Stream

__all__ = ["BUFFERED_RECEIVED", "STREAM_EQUALS_BUFFERED", "first_difference"]


def first_difference(a: str, b: str) -> int:
    """The first index where ``a`` and ``b`` differ (the shorter length if one is a prefix)."""
    return next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )


def _buffered_choice(stream: Stream) -> dict[str, Any] | None:
    answer = stream.transcript.buffered
    choices = answer.get("choices") if isinstance(answer, dict) else None
    first = choices[0] if isinstance(choices, list) and choices else None
    return first if isinstance(first, dict) and isinstance(first.get("message"), dict) else None


def _streamed(stream: Stream) -> tuple[str, Any]:
    entries = [e for e in choice_entries(stream) if e.index == 0]
    text = "".join(c for e in entries if isinstance(c := e.delta.get("content"), str))
    finish = next((e.choice["finish_reason"] for e in entries if e.finished), None)
    return text, finish


def _answer(stream: Stream) -> Iterator[Hit]:
    answer = stream.transcript.buffered
    if answer is None:
        yield Hit("no buffered answer was given, so nothing was compared", severity="note")
    elif _buffered_choice(stream) is None:
        yield Hit(f"the buffered answer has no choices[0].message: {short(answer)}")


def _content(stream: Stream) -> Iterator[Hit]:
    choice = _buffered_choice(stream)
    if choice is None:
        return
    expected = choice["message"].get("content") or ""
    text, _ = _streamed(stream)
    if text != expected:
        at = first_difference(text, expected)
        yield Hit(
            f"the joined content deltas ({len(text)} characters) differ from message.content "
            f"({len(expected)}) at position {at}: streamed {short(text[at : at + 20])}, "
            f"buffered {short(expected[at : at + 20])}"
        )


def _finish(stream: Stream) -> Iterator[Hit]:
    choice = _buffered_choice(stream)
    if choice is None:
        return
    _, finish = _streamed(stream)
    if finish != choice.get("finish_reason"):
        yield Hit(
            f"the stream finished with {short(finish)}, the buffered answer with "
            f"{short(choice.get('finish_reason'))}"
        )


STREAM_EQUALS_BUFFERED = (
    Rule(
        "buffered.answer",
        "violation",
        "A buffered answer was given and has choices[0].message.",
        "Without it there is nothing to compare the stream with.",
        "None known.",
        _answer,
    ),
    Rule(
        "buffered.content",
        "warning",
        "The joined content deltas of choice 0 equal the buffered message.content.",
        "It is the one check that catches a provider dropping or duplicating a fragment.",
        "Any hosted model: determinism at temperature 0 is approximate, so look before blaming.",
        _content,
    ),
    Rule(
        "buffered.finish-reason",
        "warning",
        "The stream's finish_reason for choice 0 equals the buffered one.",
        "Clients branch on finish_reason (stop, length, tool_calls) the same way for both modes.",
        "Gemini compat reports 'stop' for tool calls (Q-FINISH-STOP-FOR-TOOLS).",
        _finish,
    ),
)


def _received(stream: Stream) -> Iterator[Hit]:
    answer = stream.transcript.buffered
    if isinstance(answer, str):  # live mode's sentence for a buffered request that failed
        yield Hit(answer or "the buffered answer is an empty string, not a JSON answer")


BUFFERED_RECEIVED = Rule(
    "buffered.received",
    "violation",
    "The same request sent buffered (live mode's stream: false, or Gemini's "
    ":generateContent) got status 200 and a JSON answer.",
    "Clients use both modes of one endpoint; a buffered answer that fails is a broken API "
    "even when the stream is fine (offline, without --buffered, nothing is checked).",
    "None known.",
    _received,
)
