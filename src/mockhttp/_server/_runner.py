"""The executor: runs one wire plan on a connection.

``Runner`` pulls steps until a pause, writes what it collected in one ``transport.write``,
and schedules itself on the absolute deadline (the reply's start plus the pauses so far),
so a stream does not drift: in the loop's ``Ticker`` (``_loop.py``), which runs every
runner due in the same millisecond from one loop timer.  It honours ``pause_writing`` /
``resume_writing``, yields to the loop every 64 KiB when a plan has no pauses, keeps the
call's record (bytes, events, outcome) as bytes go out, and ends the connection as the
plan's ``End`` says.

A connection starts every reply the same way, ``plan.start(conn, call, keep_alive)``: a
``Steps`` plan runs on a ``Runner``; a ``Paced`` plan (a cached event stream, its steps
joined into the bursts between pauses) on a ``PacedRunner``; a ``Whole`` (a short reply
without pauses) is written in one call, with no runner; a ``Deferred`` (a reply computed
on another thread) holds the connection's place until it is ready.  Whatever path the
bytes take, the call's counters are written by ``_journal.count_sent``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
from collections.abc import Callable, Iterable, Iterator
from math import ceil
from time import time as _now
from typing import Protocol
from weakref import ref

from .._core._plan import End, Pause, Raw, Source, Step, Wait
from .._core._reply import Reply, error_reply
from .._core._wire import frame
from ._journal import (
    BODY_KEPT,
    EVENT_TIMES_KEPT,
    Call,
    Outcome,
    count_sent,
    event_began,
    mark_ended,
)
from ._loop import GRAIN, timing_of

__all__ = [
    "BURST",
    "Deferred",
    "Host",
    "Line",
    "Paced",
    "PacedRunner",
    "Plan",
    "Runner",
    "Steps",
    "Whole",
]


class Host(Protocol):
    """What the executor needs of the server: where errors go, and the end of a call."""

    errors: list[BaseException]

    def _finished(self, call: Call) -> None: ...


class Line(Protocol):
    """What the executor needs of a connection (``_connection.Connection`` is one)."""

    @property
    def server(self) -> Host: ...

    transport: asyncio.Transport | None
    runner: Runner | None
    paused: bool
    closed: bool
    server_closed: bool

    def done(self, keep_alive: bool) -> None: ...

    def close(self) -> None: ...

    def cut(self) -> None: ...

    def reset(self, waited: float = 0.0) -> None: ...


class Plan(Protocol):
    """A wire plan a connection can start: ``Steps``, ``Whole`` or ``Deferred``."""

    def start(self, conn: Line, call: Call | None, keep_alive: bool) -> None:
        """Send the reply on ``conn``, recording it in ``call``."""


class Cancel(Protocol):
    """A runner's pending run: a loop's handle, or ``TICKED``."""

    def cancel(self) -> None: ...


BURST = 64 * 1024  # bytes written before yielding to the loop when a plan has no pauses
_OUTCOMES: dict[str, Outcome] = {
    "complete": "complete",
    "close": "closed",
    "reset": "reset",
    "stall": "stalled",
}


def body_of(raw: Raw) -> bytes:
    """The body bytes inside a ``Raw`` step: all of it, or what a chunk frame wraps (after
    its ``size\\r\\n`` line; a cut frame may lack its end)."""
    if raw.body == len(raw.data):
        return raw.data
    if not raw.body:
        return b""
    start = raw.data.find(b"\r\n") + 2
    return raw.data[start : start + raw.body]


class Whole:
    """A short cached wire plan without pauses (``Raw`` steps, then ``End("complete")``),
    with what ``Runner`` would record for it: written in one call, no runner needed.

    Fixed small replies (JSON, errors) are most requests; this skips a ``Runner`` and its
    per-step bookkeeping for them.  ``steps`` is still there for when the connection is
    paused and a runner has to wait.
    """

    __slots__ = ("body", "body_bytes", "data", "events", "steps", "wire_bytes")

    def __init__(self, steps: tuple[Step, ...]) -> None:
        raws = [s for s in steps if type(s) is Raw]
        self.steps = steps
        self.data = b"".join(r.data for r in raws)
        self.wire_bytes = len(self.data)
        self.body = b"".join(body_of(r) for r in raws)
        self.body_bytes = sum(r.body for r in raws)
        self.events = max((r.event + 1 for r in raws if r.event is not None), default=0)

    def start(self, conn: Line, call: Call | None, keep_alive: bool) -> None:
        """Write the reply in one call, recording what ``Runner`` would (a paused
        connection, or no call to record, runs its steps on a ``Runner``)."""
        if call is None or conn.paused:
            Steps(iter(self.steps)).start(conn, call, keep_alive)
            return
        count_sent(call, self.wire_bytes, self.body_bytes, self.body, 0, self.events)
        call.outcome = "complete"  # final before the client can have the reply
        mark_ended(call)
        if conn.transport is not None:
            conn.transport.write(self.data)
        conn.server._finished(call)
        conn.done(keep_alive)

    @staticmethod
    def fits(steps: tuple[Step, ...]) -> bool:
        """True for ``Raw``... ``End("complete")`` under one burst, with at least one Raw."""
        if len(steps) < 2 or steps[-1] != End("complete"):
            return False
        body = steps[:-1]
        return all(type(s) is Raw for s in body) and (
            sum(len(s.data) for s in body if isinstance(s, Raw)) < BURST
        )


class Paced:
    """A cached wire plan of bytes and pauses (a fixed fault-free event stream), compiled
    once into *bursts*: the bytes between two pauses joined, with what the call's record
    gains when they go out, and the pause after them.  Its runner (``PacedRunner``) sends
    a burst with one write and one count per event, where a ``Runner`` walks two steps.

    ``bursts``: ``(data, wire bytes, body bytes, body, events begun, pause)``; the last
    burst's pause is None and ``end`` follows it.
    """

    __slots__ = ("bursts", "end", "steps")

    def __init__(self, steps: tuple[Step, ...]) -> None:
        self.steps = steps
        bursts: list[Burst] = []
        raws: list[Raw] = []
        for step in steps:
            if type(step) is Raw:
                assert isinstance(step, Raw)
                raws.append(step)
            elif type(step) is Pause:
                assert isinstance(step, Pause)
                if not raws and bursts:  # pauses in a row: one pause
                    last = bursts[-1]
                    bursts[-1] = (*last[:5], (last[5] or 0.0) + step.seconds)
                else:
                    bursts.append((*_joined(raws), step.seconds))
                raws = []
            else:
                assert isinstance(step, End)
                self.end = step
                bursts.append((*_joined(raws), None))
        self.bursts = tuple(bursts)

    @staticmethod
    def fits(steps: tuple[Step, ...]) -> bool:
        """True for ``Raw`` and ``Pause`` steps with at least one pause, then one ``End``,
        no more than a burst of bytes between two pauses."""
        if not steps or type(steps[-1]) is not End:
            return False
        size = 0
        pauses = 0
        for step in steps[:-1]:
            if type(step) is Raw:
                assert isinstance(step, Raw)
                size += len(step.data)
                if size >= BURST:
                    return False
            elif type(step) is Pause:
                pauses += 1
                size = 0
            else:
                return False
        return pauses > 0

    def start(self, conn: Line, call: Call | None, keep_alive: bool) -> None:
        runner = conn.runner = PacedRunner(conn, self, call, keep_alive)
        runner.run()


Burst = tuple[bytes, int, int, bytes, int, float | None]


def _joined(raws: list[Raw]) -> tuple[bytes, int, int, bytes, int]:
    """What a burst of ``raws`` writes and records: data, wire, body, body bytes, events."""
    events = max((r.event + 1 for r in raws if r.event is not None), default=0)
    data = b"".join(r.data for r in raws)
    body = b"".join(body_of(r) for r in raws)
    return data, len(data), sum(r.body for r in raws), body, events


class Deferred:
    """A reply computed on another thread (admin work): the connection waits for it."""

    __slots__ = ("frame", "future")

    def __init__(
        self,
        future: concurrent.futures.Future[Reply],
        frame: Callable[[Iterable[Step]], Iterator[Step]],
    ) -> None:
        self.future = future
        self.frame = frame

    def wire(self) -> tuple[int, Iterator[Step]]:
        """The status and wire plan of the finished reply (a 500 if it raised)."""
        try:
            reply = self.future.result()
        except Exception as exc:
            reply = error_reply(exc)
        return reply.status_code, self.frame(reply.plan())

    def start(self, conn: Line, call: Call | None, keep_alive: bool) -> None:
        """Hold the connection's place (a runner with no steps yet) until the reply is
        ready, then run it; a client that hangs up meanwhile ends the call as usual."""
        runner = conn.runner = Runner(conn, iter(()), call, keep_alive)
        loop = runner.loop

        def ready() -> None:
            if conn.runner is not runner or conn.closed:
                return
            runner.status, runner.steps = self.wire()
            runner.run()

        def wake(_: object) -> None:
            with contextlib.suppress(RuntimeError):  # the server closed meanwhile
                loop.call_soon_threadsafe(ready)

        self.future.add_done_callback(wake)


class Steps:
    """A wire plan run step by step on a ``Runner`` (pauses, long or endless streams,
    faults)."""

    __slots__ = ("steps",)

    def __init__(self, steps: Iterator[Step]) -> None:
        self.steps = steps

    def start(self, conn: Line, call: Call | None, keep_alive: bool) -> None:
        runner = conn.runner = Runner(conn, self.steps, call, keep_alive)
        runner.run()


class _Ticked:
    """A runner's ``handle`` while its next run waits in the loop's ``Ticker``."""

    __slots__ = ()

    def cancel(self) -> None:
        """Nothing to do: the ticker runs a runner only while this is its handle."""


TICKED = _Ticked()


class Runner:
    """Runs one wire plan on a connection, keeping the call's record up to date."""

    __slots__ = (
        "__weakref__",  # the loop's Ticker holds a waiting runner weakly
        "call",
        "conn",
        "deadline",
        "fed",
        "handle",
        "keep_alive",
        "loop",
        "now",
        "stalled",
        "status",
        "steps",
        "ticker",
        "waiting",
    )

    def __init__(
        self, conn: Line, steps: Iterator[Step], call: Call | None, keep_alive: bool
    ) -> None:
        self.conn = conn
        self.steps = steps
        self.call = call
        self.loop = loop = asyncio.get_running_loop()
        self.now, self.ticker = timing_of(loop)
        self.deadline = self.now()
        self.handle: Cancel | None = None
        self.waiting = False
        self.stalled = False
        self.keep_alive = keep_alive
        self.fed: Source | None = None  # the source of a fed plan, once it made us wait
        # the call's status counts as sent once the first byte (of the head) is written
        self.status = None if call is None else call.status
        if call is not None:
            call.status = None

    def run(self) -> None:
        self.handle = None
        self.waiting = False
        conn = self.conn
        if conn.closed:
            return
        if conn.paused:
            self.waiting = True
            return
        out: list[bytes] = []
        size = 0
        try:
            for step in self.steps:
                kind = type(step)
                if kind is Raw:
                    assert isinstance(step, Raw)
                    data = step.data
                    out.append(data)
                    size += len(data)
                    call = self.call
                    if call is not None:  # the call's record, inlined: every event sent
                        if call.status is None:
                            self._status_sent(call)
                        body = step.body
                        event = step.event
                        count_sent(  # a chunk frame's body follows its size line
                            call,
                            len(data),
                            body,
                            data,
                            data.find(b"\r\n") + 2 if 0 < body < len(data) else 0,
                            0 if event is None else event + 1,  # the events begun so far
                        )
                    if size >= BURST:
                        self._write(out)
                        self.waiting = self._paused()
                        if not self.waiting:
                            self.handle = self.loop.call_soon(self.run)
                        return
                elif kind is Pause:
                    assert isinstance(step, Pause)
                    self.deadline += step.seconds
                    if self.deadline > self.now():
                        self._write(out)
                        self.handle = TICKED
                        self.ticker.at(self.loop, self.deadline, self)
                        return
                elif kind is End:
                    assert isinstance(step, End)
                    self._end(step, out)
                    return
                elif kind is Wait:
                    assert isinstance(step, Wait)
                    self._write(out)
                    self.fed = step.source
                    step.source.wake(self._woken)
                    return
                else:
                    raise TypeError(f"unexpected step in a wire plan: {step!r}")
        except Exception as exc:
            self._write(out)
            self._failed(exc)
            return
        self._end(End("complete"), out)

    def tick(self) -> None:
        """The deadline the runner waits for in the loop's ``Ticker`` has come."""
        if self.handle is TICKED:  # not lost meanwhile
            self.run()

    def _woken(self) -> None:
        """A fed plan has more steps (called from any thread): go on, timing from now."""
        with contextlib.suppress(RuntimeError):  # the server has closed, and its loop
            self.loop.call_soon_threadsafe(self._resume)

    def _resume(self) -> None:
        self.deadline = max(self.deadline, self.now())
        if self.conn.runner is self:
            self.run()

    def _paused(self) -> bool:
        return self.conn.paused

    def _write(self, out: list[bytes]) -> None:
        if out and self.conn.transport is not None and not self.conn.closed:
            if len(out) == 1:
                self.conn.transport.write(out[0])
            else:  # an HTTP/2 stream keeps each piece as it is (no joined copy)
                self.conn.transport.writelines(out)
            out.clear()

    def _status_sent(self, call: Call) -> None:
        """The first byte (of the head) goes out: the call's status counts as sent."""
        fed = None if self.fed is None else self.fed.status
        call.status = self.status if fed is None else fed

    def _end(self, end: End, out: list[bytes]) -> None:
        """Write the last bytes ``out`` and end as ``end`` says.

        The call's outcome is recorded (and its waiters woken) *before* the last bytes
        leave, so a client that has the whole reply always reads a final record.
        """
        conn = self.conn
        call = self.call
        how = end.how
        if call is not None:
            call.outcome = _OUTCOMES[how]
            if how != "stall":
                mark_ended(call)
        self._write(out)
        if call is not None and how != "stall":
            conn.server._finished(call)
        if how == "complete":
            conn.done(self.keep_alive)
        elif how == "close":
            conn.runner = None
            conn.cut()
        elif how == "reset":
            conn.runner = None
            conn.reset()
        else:  # "stall": keep the runner; the client's hang-up (EOF or reset) ends it
            self.stalled = True

    def _failed(self, exc: Exception) -> None:
        """Producing the reply raised: keep the error for ``server.check()``; a client that
        has had no byte yet gets a 500 naming the error (no traceback), any other is cut off."""
        conn = self.conn
        conn.server.errors.append(exc)
        call = self.call
        untouched = call is None or call.wire_bytes == 0
        if call is not None:
            call.outcome = "complete" if untouched else "closed"
            if untouched:
                call.status = 500
            conn.server._finished(call)
        conn.runner = None
        if conn.transport is None:
            return
        if untouched:
            self._write(
                [
                    b"".join(
                        s.data
                        for s in frame(error_reply(exc).plan(), keep_alive=False)
                        if isinstance(s, Raw)
                    )
                ]
            )
            conn.close()
        else:
            conn.transport.abort()

    def lost(self) -> None:
        """The connection went away (the client hung up, or the server closed)."""
        if self.handle is not None:
            self.handle.cancel()
            self.handle = None
        call = self.call
        if call is not None and call.outcome == "in progress":
            call.outcome = "server closed" if self.conn.server_closed else "client hung up"
            self.conn.server._finished(call)
        elif call is not None and call.outcome == "stalled":
            self.conn.server._finished(call)
        close = getattr(self.steps, "close", None)
        if close is not None:
            close()


class PacedRunner(Runner):
    """Runs a ``Paced`` plan: a burst a write (the bursts due together in one), its
    record in one count, its next deadline in the loop's ``Ticker``."""

    __slots__ = ("at", "bursts", "end")

    def __init__(self, conn: Line, paced: Paced, call: Call | None, keep_alive: bool) -> None:
        super().__init__(conn, iter(()), call, keep_alive)
        self.bursts = paced.bursts
        self.end = paced.end
        self.at = 0

    def run(self) -> None:
        self.handle = None
        self.waiting = False
        conn = self.conn
        if conn.closed:
            return
        if conn.paused:
            self.waiting = True
            return
        call = self.call
        bursts = self.bursts
        at = self.at
        out: list[bytes] | None = None
        while True:
            data, wire, body, kept, events, pause = bursts[at]
            at += 1
            if wire and call is not None:
                if call.status is None:
                    self._status_sent(call)
                if body and len(call.body_sent) + body <= BODY_KEPT:
                    call.wire_bytes += wire  # count_sent, inlined: every burst
                    call.body_bytes += body
                    call.body_sent += kept
                    if events > call.events:
                        times = call.event_times  # (event_began's common case, inlined)
                        if times is not None and len(times) == call.events == events - 1:
                            call.events = events
                            if events <= EVENT_TIMES_KEPT:
                                times.append(_now())  # (no list made: no collector work)
                        else:
                            event_began(call, events)
                else:
                    count_sent(call, wire, body, kept, 0, events)
            if pause is None:
                self.at = at
                last = [] if out is None else out
                if data:
                    last.append(data)
                self._end(self.end, last)
                return
            deadline = self.deadline = self.deadline + pause
            if deadline > self.now():
                self.at = at
                transport = conn.transport
                if out is not None:
                    out.append(data)
                    data = b"".join(out)
                if data and transport is not None:
                    transport.write(data)
                self.handle = TICKED
                due = self.ticker.due.get(ceil(deadline * GRAIN))  # Ticker.at, inlined
                if due is None:
                    self.ticker.at(self.loop, deadline, self)
                else:
                    due.append(ref(self))
                return
            if out is None:
                out = [data]
            else:
                out.append(data)

    # The ticker runs it directly: Runner.tick's check, that the runner was not lost while
    # it waited, is run's own (a lost runner's connection is closed).
    tick = run
