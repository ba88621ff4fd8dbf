"""sse-resume: does an event stream honour ``Last-Event-ID``?  A live probe and its rules.

The probe reads the stream once (GET, as ``EventSource`` does), picks K, the id of the
event in the middle, and reads it again with ``Last-Event-ID: K``.  The second read should
be exactly the events after K: none of those up to K again (a duplicate), none missing
(a gap), each with the data it had the first time.  The rules read the second read's
``Stream``; its transcript carries the first read (``before``) and K (``last_event_id``).

Rule 1: pure rules over two transcripts; ``_resume_live.probe_resume`` sends the requests.
Rule 2: an event is known by its id (the last event ID at dispatch, as a browser sees
it); events that set no id of their own are compared by position after K.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from .._core._sse_decode import Message
from ._rule import Hit, Rule, hit, short
from ._stream import Stream

__all__ = ["SSE_RESUME", "Plan", "plan"]


@dataclass(frozen=True, slots=True)
class Plan:
    """What the first read allows: K and the events expected after it.

    Attributes:
        last_event_id: K, the id the reconnect sends.
        expected: the first read's events after the last one dispatched with id K.
    """

    last_event_id: str
    expected: tuple[Message, ...]


def plan(first: Stream) -> Plan | str:
    """K (the id of the event in the middle of the first read) and the events after it;
    or why the stream cannot be probed, one sentence."""
    t = first.transcript
    if t.status is None:
        return f"the first GET got no response: {t.error}"
    if t.status != 200:
        return (
            f"the first GET got status {t.status}: the endpoint is not a GET-able event "
            "stream (Last-Event-ID is an EventSource reconnect, always a GET)"
        )
    if not first.messages:
        return "the first GET read no event"
    with_ids = [m for m in first.messages if m.id]
    if not with_ids:
        return (
            f"the stream's {len(first.messages)} events carry no id: a client has no "
            "Last-Event-ID to reconnect with"
        )
    k = with_ids[(len(with_ids) - 1) // 2].id
    last = max(m.index for m in first.messages if m.id == k)
    return Plan(k, first.messages[last + 1 :])


def _before(stream: Stream) -> tuple[Stream, Plan] | None:
    first = stream.transcript.before
    if first is None:
        return None
    made = plan(Stream(first))
    return None if isinstance(made, str) else (Stream(first), made)


def _status(stream: Stream) -> Iterator[Hit]:
    t = stream.transcript
    if t.status is None:
        yield Hit(f"the reconnect got no response: {t.error}")
    elif stream.failed:
        yield Hit(
            f"the reconnect with Last-Event-ID {short(t.last_event_id)} got status "
            f"{t.status}, content-type {short(stream.content_type)}: expected 200 and "
            "text/event-stream"
        )


def _up_to_k(first: Stream, made: Plan) -> dict[str, Message]:
    ids = [m for m in first.messages if m.id]
    position = max(i for i, m in enumerate(ids) if m.id == made.last_event_id)
    return {m.id: m for m in ids[: position + 1]}


def _duplicate(stream: Stream) -> Iterator[Hit]:
    found = _before(stream)
    if found is None:
        return
    first, made = found
    early = _up_to_k(first, made)
    for m in stream.messages:
        if m.id in early:
            yield hit(
                m,
                f"event id {short(m.id)} was sent again: it is at or before "
                f"Last-Event-ID {short(made.last_event_id)} (event {early[m.id].index} of "
                "the first read)",
            )


def _gap(stream: Stream) -> Iterator[Hit]:
    found = _before(stream)
    if found is None:
        return
    _, made = found
    got = {m.id for m in stream.messages}
    missing = [m for m in made.expected if m.id and m.id not in got]
    if missing:
        ids = ", ".join(short(m.id) for m in missing[:5])
        yield Hit(
            f"{len(missing)} of the {len(made.expected)} events after Last-Event-ID "
            f"{short(made.last_event_id)} never arrived: id {ids} (event "
            f"{missing[0].index} of the first read first)"
        )
    elif len(stream.messages) < len(made.expected):
        yield Hit(
            f"the reconnect sent {len(stream.messages)} events, the first read had "
            f"{len(made.expected)} after Last-Event-ID {short(made.last_event_id)}"
        )


def _same_data(stream: Stream) -> Iterator[Hit]:
    found = _before(stream)
    if found is None:
        return
    _, made = found
    expected = {m.id: m for m in made.expected if m.id}
    for m in stream.messages:
        was = expected.get(m.id)
        if was is not None and (was.data, was.event) != (m.data, m.event):
            yield hit(
                m,
                f"event id {short(m.id)} came back as {short(m.event)} {short(m.data)}; the "
                f"first read had {short(was.event)} {short(was.data)}",
            )


SSE_RESUME = (
    Rule(
        "resume.status",
        "violation",
        "A reconnect with Last-Event-ID: K gets 200 and an event stream.",
        "EventSource gives up for good on any other answer to a reconnect.",
        "None known.",
        _status,
        always=True,
    ),
    Rule(
        "resume.no-duplicate",
        "violation",
        "The reconnect sends no event at or before K again.",
        "A client appends what it reads: a replay from the start shows the text twice.",
        "Servers that ignore Last-Event-ID and replay the whole stream.",
        _duplicate,
    ),
    Rule(
        "resume.no-gap",
        "violation",
        "Every event after K arrives in the reconnect.",
        "A client cannot ask for an event twice: one skipped is lost for good.",
        "None known.",
        _gap,
    ),
    Rule(
        "resume.same-data",
        "violation",
        "Each event after K has the same type and data as in the first read.",
        "An id names one event: a client resuming trusts it means the same thing.",
        "Streams generated anew per request (an LLM answer sampled again).",
        _same_data,
    ),
)
