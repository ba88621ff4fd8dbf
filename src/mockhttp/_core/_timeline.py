"""A stream's timeline: each event at the time it was written, beside the time its plan
gave it, with the faults, the cut and the client's hang-up marked (the dashboard's view
of a call, docs/dashboard.md).

``planned`` walks a reply's wire plan (faults applied, as the server frames it) without a
clock: the time each event is due, its bytes, and how and when the plan ends.
``timeline`` lays what the journal recorded (the write time of each event, the end, the
outcome, the body sent) over that schedule.  ``resumed_from`` links the reconnects of a
list of calls to the call they resume.

Rule 1: pure (no clock, no I/O): times in, times out, in seconds after the request arrived.
Rule 2: bounded: a plan is read up to ``limit`` steps (plans may be endless), a timeline
keeps its events' text short (``PREVIEW`` characters).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ._plan import End, EndHow, Fault, FaultContext, Pause, Raw, Step, Wait
from ._sse_decode import Message, Unterminated, decode
from ._wire import frame

__all__ = [
    "LATE",
    "PREVIEW",
    "Event",
    "Mark",
    "Planned",
    "PlannedEvent",
    "Resumable",
    "Timeline",
    "planned",
    "resumed_from",
    "schedule",
    "timeline",
]

#: An event written this much later than its plan said marks where the stream fell behind
#: (a client that stopped reading, or a busy server).
LATE = 0.25
#: How many characters of an event's data a timeline keeps.
PREVIEW = 120
_STEPS = 20_000  # a plan is read up to this many steps

MarkKind = Literal["fault", "behind", "hung up", "cut", "stalled", "end"]


@dataclass(frozen=True, slots=True)
class PlannedEvent:
    """An event as its plan gives it: due ``at`` seconds after the reply began, ``data``
    its body bytes (as far as the plan sends them)."""

    at: float
    data: bytes


@dataclass(frozen=True, slots=True)
class Planned:
    """A reply's wire plan as a schedule.

    Attributes:
        events: the events in order, each with the time it is due and its bytes.
        end: how the plan ends (``complete``, ``close``, ``reset``, ``stall``), ``wait``
            for a plan fed while it is sent (its times are not known), or None when it
            was read no further than ``limit`` steps (an endless stream).
        end_at: when the plan ends (None with ``end`` None or ``wait``).
        body: the body bytes the plan sends before its end.
    """

    events: tuple[PlannedEvent, ...]
    end: EndHow | Literal["wait"] | None
    end_at: float | None
    body: int


def planned(steps: Iterable[Step], limit: int = _STEPS) -> Planned:
    """The schedule of a wire plan (``Raw``, ``Pause``, ``End``), read up to ``limit``
    steps."""
    at = 0.0
    body = 0
    events: list[tuple[float, bytearray]] = []
    for step in itertools.islice(steps, limit):
        kind = type(step)
        if kind is Pause:
            assert isinstance(step, Pause)
            at += step.seconds
        elif kind is Raw:
            assert isinstance(step, Raw)
            body += step.body
            if step.event is not None and step.body:
                while len(events) <= step.event:
                    events.append((at, bytearray()))
                events[step.event][1].extend(_body_of(step))
        elif kind is End:
            assert isinstance(step, End)
            return Planned(_frozen(events), step.how, at, body)
        elif kind is Wait:
            return Planned(_frozen(events), "wait", None, body)
    return Planned(_frozen(events), None, None, body)


def schedule(
    steps: Iterable[Step],
    faults: Sequence[Fault] = (),
    index: int = 0,
    *,
    http10: bool = False,
    limit: int = _STEPS,
) -> Planned:
    """The schedule of a reply's body plan (``Reply.plan()``) as the server sends it to
    the ``index``-th call: each fault's body transform, the framing, each fault's wire
    transform (as ``_server/_wires.py`` does), then ``planned``."""
    ctx = FaultContext(call_index=index)
    body: Iterator[Step] = iter(steps)
    for fault in faults:
        body = fault.body(body, ctx)
    wire = frame(body, http10=http10)
    for fault in faults:
        wire = fault.wire(wire, ctx)
    return planned(wire, limit)


def _body_of(raw: Raw) -> bytes:
    """The body bytes of a wire step (a chunk frame's, after its size line)."""
    if raw.body == len(raw.data):
        return raw.data
    start = raw.data.find(b"\r\n") + 2
    return raw.data[start : start + raw.body]


def _frozen(events: list[tuple[float, bytearray]]) -> tuple[PlannedEvent, ...]:
    return tuple(PlannedEvent(at, bytes(data)) for at, data in events)


@dataclass(frozen=True, slots=True)
class Event:
    """One event of a stream.

    Attributes:
        index: its place in the stream, from 0.
        at: when its first byte was written, seconds after the request arrived (None:
            not written, or not recorded).
        planned: when its plan said it was due (None: no plan known).
        id: its SSE ``id`` field, or None.
        name: its SSE ``event`` field, or None.
        data: its data (or its text, for a stream that is not SSE), cut to ``PREVIEW``.
        whole: the client was sent all of it (an event cut in the middle is not whole).
    """

    index: int
    at: float | None
    planned: float | None
    id: str | None
    name: str | None
    data: str
    whole: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "at_ms": _ms(self.at),
            "planned_ms": _ms(self.planned),
            "id": self.id,
            "event": self.name,
            "data": self.data,
            "whole": self.whole,
        }


@dataclass(frozen=True, slots=True)
class Mark:
    """Something that happened to the stream at a time: ``kind`` (``fault``: where the
    plan's faults cut it; ``behind``: from here events left later than planned; ``hung
    up``: the client closed; ``cut``: the server closed or reset it; ``stalled``: it
    stopped sending, on purpose; ``end``: it completed), ``at`` (seconds after the request
    arrived, or None), ``after`` (how many events had begun) and ``text``."""

    kind: MarkKind
    at: float | None
    after: int
    text: str

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "at_ms": _ms(self.at), "after": self.after, "text": self.text}


@dataclass(frozen=True, slots=True)
class Timeline:
    """A call's events and marks; ``duration`` is from the request's arrival to the end
    (None while in progress); ``faults`` the mock's faults, as their file forms say them."""

    events: tuple[Event, ...]
    marks: tuple[Mark, ...]
    duration: float | None
    faults: tuple[str, ...] = field(default=())
    planned_end: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "events": [e.to_json() for e in self.events],
            "marks": [m.to_json() for m in self.marks],
            "duration_ms": _ms(self.duration),
            "planned_end_ms": _ms(self.planned_end),
            "faults": list(self.faults),
        }


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 1)


_CUT_TEXT = {
    "close": "the plan closes the connection here",
    "reset": "the plan resets the connection here",
    "stall": "the plan stops sending here (the connection stays open)",
}


def timeline(
    *,
    arrived: float,
    event_times: Sequence[float] | None,
    end_time: float | None,
    outcome: str,
    body: bytes,
    body_bytes: int,
    plan: Planned | None = None,
    faults: Sequence[str] = (),
    late: float = LATE,
) -> Timeline:
    """The timeline of a call that arrived at ``arrived`` (``time.time()``), whose events
    were first written at ``event_times``, which ended at ``end_time`` (None: in progress)
    with ``outcome``, and sent ``body_bytes`` body bytes, of which ``body`` is the start
    kept; ``plan``: its reply's schedule, if known."""
    times = [t - arrived for t in event_times or ()]
    if plan is not None and plan.events:
        events = _from_plan(plan, times, body_bytes)
    else:
        events = _from_body(body, times)
    end = None if end_time is None else end_time - arrived
    marks = _marks(events, plan, outcome, end, late)
    return Timeline(
        tuple(events),
        tuple(marks),
        end,
        tuple(faults),
        None if plan is None else plan.end_at,
    )


def _from_plan(plan: Planned, times: list[float], body_bytes: int) -> list[Event]:
    """The events of the plan, as many as were written (or planned, for those not sent)."""
    found = []
    sent = 0
    for i, due in enumerate(plan.events):
        sent += len(due.data)
        at = times[i] if i < len(times) else None
        fields = _fields(due.data)
        whole = at is not None and sent <= body_bytes
        found.append(Event(i, at, due.at, *fields, whole))
    for i in range(len(plan.events), len(times)):  # written, beyond the plan read
        found.append(Event(i, times[i], None, None, None, "", False))
    return found


def _from_body(body: bytes, times: list[float]) -> list[Event]:
    """Without a plan: the events decoded from the body kept, in order (a body that is
    not SSE: its text as the first event)."""
    items = [i for i in decode(body) if isinstance(i, Message | Unterminated)]
    if not any(isinstance(i, Message) for i in items):
        text = _cut(body.decode("utf-8", "replace").strip())
        items = []
        found = [Event(0, times[0] if times else None, None, None, None, text, True)]
    else:
        found = []
    for i in range(len(found), max(len(items), len(times))):
        item = items[i] if i < len(items) else None
        at = times[i] if i < len(times) else None
        if isinstance(item, Message):
            found.append(
                Event(i, at, None, item.id or None, _name(item.event), _cut(item.data), True)
            )
        elif isinstance(item, Unterminated):
            text = body[item.offset :].decode("utf-8", "replace").strip()
            found.append(Event(i, at, None, None, None, _cut(text), False))
        else:
            found.append(Event(i, at, None, None, None, "", False))
    return found


def _fields(data: bytes) -> tuple[str | None, str | None, str]:
    """An event's ``id``, ``event`` and data (or text) from its bytes."""
    for item in decode(data):
        if isinstance(item, Message):
            return item.id or None, _name(item.event), _cut(item.data)
        if isinstance(item, Unterminated):
            return None, None, _cut(item.data)
    return None, None, _cut(data.decode("utf-8", "replace").strip())


def _name(event: str) -> str | None:
    return None if event in ("", "message") else event


def _cut(text: str) -> str:
    return text if len(text) <= PREVIEW else text[: PREVIEW - 1] + "…"


def _marks(
    events: list[Event], plan: Planned | None, outcome: str, end: float | None, late: float
) -> list[Mark]:
    marks = []
    begun = sum(1 for e in events if e.at is not None)
    if plan is not None and plan.end in _CUT_TEXT:
        marks.append(Mark("fault", plan.end_at, len(plan.events), _CUT_TEXT[plan.end]))
    for event in events:
        if event.at is not None and event.planned is not None and event.at - event.planned > late:
            text = (
                f"event {event.index} left {round((event.at - event.planned) * 1000)} ms after "
                "its plan: from here the client was not reading (or the server was busy)"
            )
            marks.append(Mark("behind", event.at, event.index, text))
            break
    if outcome == "client hung up":
        marks.append(Mark("hung up", end, begun, f"the client hung up after {_count(begun)}"))
    elif outcome in ("closed", "reset", "server closed"):
        marks.append(Mark("cut", end, begun, f"{outcome} after {_count(begun)}"))
    elif outcome == "stalled":
        last = max((e.at for e in events if e.at is not None), default=None)
        marks.append(Mark("stalled", last, begun, f"stalled after {_count(begun)}"))
    elif outcome == "complete":
        marks.append(Mark("end", end, begun, f"complete: {_count(begun)}"))
    return marks


def _count(n: int) -> str:
    return f"{n} event" + ("" if n == 1 else "s")


@dataclass(frozen=True, slots=True)
class Resumable:
    """What ``resumed_from`` reads of a call: its number, its mock (any key), the
    ``Last-Event-ID`` it sent, the ids of the events it delivered whole, and whether its
    reply was cut (did not complete)."""

    seq: int
    mock: object
    last_event_id: str | None
    event_ids: tuple[str, ...]
    cut: bool


def resumed_from(calls: Iterable[Resumable]) -> dict[int, int]:
    """For each reconnect among ``calls`` (oldest first), the number of the call it
    resumes: the latest earlier call of the same mock that delivered the event its
    ``Last-Event-ID`` names, else (no such id, or none sent) the latest earlier call of
    that mock that was cut, if the call came right after it."""
    found: dict[int, int] = {}
    last: dict[object, Resumable] = {}  # each mock's latest call so far
    delivered: dict[tuple[object, str], int] = {}  # (mock, event id) -> latest call
    for call in calls:
        if call.mock is None:
            continue
        previous = last.get(call.mock)
        if call.last_event_id:
            seq = delivered.get((call.mock, call.last_event_id))
            if seq is not None:
                found[call.seq] = seq
            elif previous is not None and previous.cut:
                found[call.seq] = previous.seq
        elif previous is not None and previous.cut:
            found[call.seq] = previous.seq
        for event_id in call.event_ids:
            delivered[(call.mock, event_id)] = call.seq
        last[call.mock] = call
    return found
