"""Pushed streams: the open event streams of a ``pushed()`` mock, fed by the test.

Each call a ``pushed()`` mock answers gets a :class:`PushedStream` (a ``Feed`` inside):
its head and ``retry:`` go out at once, then each event the test pushes, until the test
closes it (or a fault, the client or the server ends it).  A mock's :class:`Hub` holds
its streams, in call order.

Rule 1: ``active.push(...)`` sends to every open stream of the mock; events pushed while
none is open are queued, and the next stream to open is sent them first.
Rule 2: a resumable mock numbers the events pushed to it (``"1"``, ``"2"``, ...: its
log); a stream opened with ``Last-Event-ID: K`` is sent the log after K first (an id not
in the log: the queue, as for a new client).  Events pushed to one stream
(``stream.push``) are that stream's alone: not logged, not replayed.
Rule 3: the stream's record is the call's: ``stream.pushed`` what the test pushed into
it, ``stream.delivered`` the events its client was sent whole (decoded from
``call.body_sent``).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from .._core._errors import ConfigError, VerificationError
from .._core._plan import Step
from .._core._pushed import Pushed
from .._core._reply import Reply
from .._core._sse import Event
from .._core._sse_decode import Message, decode
from ._feed import Feed
from ._journal import Call

__all__ = ["Hub", "PushedStream", "open_stream"]


class PushedStream:
    """One call's open event stream, answered by a ``pushed()`` mock.

    Attributes:
        call: the call (its request, ``outcome``, ``body_sent``).
        pushed: the events pushed into it, as sent (numbered when resumable).
    """

    def __init__(self, hub: Hub, call: Call, feed: Feed, number: int) -> None:
        self.call = call
        self.pushed: list[Event] = []
        self.number = number  # from 1, among the mock's streams
        self._hub = hub
        self._feed = feed
        self._ended = False

    @property
    def open(self) -> bool:
        """True until the stream ends (closed by the test, cut, or the client left)."""
        return not self._ended

    @property
    def delivered(self) -> list[Message]:
        """The events the client was sent whole (an event cut by a fault is not one)."""
        return [m for m in decode(bytes(self.call.body_sent)) if isinstance(m, Message)]

    def push(self, *events: Event) -> None:
        """Send ``events`` to this stream only (Rule 2: not logged, not replayed).

        Raises:
            ConfigError: an argument that is not an ``Event``, or the stream has ended.
        """
        _check(events)
        with self._hub.lock:
            if self._ended:
                raise ConfigError(f"stream {self.number} has ended ({self.call.outcome})")
            for event in events:
                self._send(event)

    def close(self) -> None:
        """End the stream cleanly (the chunked body's last chunk); no-op once ended."""
        with self._hub.lock:
            self._end()

    def _send(self, event: Event) -> None:
        """Put one event on the wire (the hub's lock held)."""
        self._feed.data(event.encode("\n", True), event=len(self.pushed))
        self.pushed.append(event)

    def _end(self) -> None:
        if not self._ended:
            self._ended = True
            self._feed.end()

    def __repr__(self) -> str:
        state = "open" if self.open else self.call.outcome
        return f"<PushedStream {self.number} {state}, {len(self.pushed)} pushed>"


class Hub:
    """The pushed streams of one mock, their queue and (resumable) their log."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.streams: list[PushedStream] = []
        self.queued: list[Event] = []
        self.log: list[Event] = []
        self._opened = threading.Condition(self.lock)

    @property
    def open_streams(self) -> list[PushedStream]:
        with self.lock:
            return [s for s in self.streams if s.open]

    def open(self, call: Call, reply: Pushed) -> Reply:
        """A new stream for ``call``: its head, ``retry:``, what it is owed (Rules 1-2)."""
        feed = Feed()
        head = reply.head()
        feed.head(head.status, head.headers, reason=head.reason)
        if reply.retry is not None:
            feed.data(reply.opening())
        with self.lock:
            if reply.resumable and self.streams:  # a reconnect's wait, as for any resumable
                cut = self.streams[-1].call.cut_time
                call.after_cut = None if cut is None else call.time - cut
            stream = PushedStream(self, call, feed, len(self.streams) + 1)
            for event in self._owed(call, reply):
                stream._send(event)
            self.streams.append(stream)
            self._opened.notify_all()
        return _Open(reply.status_code, reply.reason, reply.headers, hub=self, channel=stream)

    def _owed(self, call: Call, reply: Pushed) -> list[Event]:
        last = call.request.headers.get("last-event-id")
        ids = [e.id for e in self.log]
        owed, self.queued = self.queued, []  # the queue is the next stream's, however owed
        if reply.resumable and last is not None and last in ids:
            return self.log[ids.index(last) + 1 :]  # (the queued events are logged too)
        return owed

    def push(self, reply: Pushed, events: Sequence[Event]) -> int:
        """Send ``events`` to every open stream (queued when none is); returns how many
        streams they reached."""
        _check(events)
        with self.lock:
            numbered = [reply.number(e, len(self.log) + i) for i, e in enumerate(events, 1)]
            if reply.resumable:
                self.log.extend(numbered)
            reached = [s for s in self.streams if s.open]
            for stream in reached:
                for event in numbered:
                    stream._send(event)
            if not reached:
                self.queued.extend(numbered)
            return len(reached)

    def close(self) -> int:
        """End every open stream cleanly; returns how many."""
        with self.lock:
            reached = [s for s in self.streams if s.open]
            for stream in reached:
                stream._end()
            return len(reached)

    def wait(self, n: int, timeout: float) -> PushedStream | None:
        """The mock's ``n``-th stream, once it has opened (None after ``timeout``)."""
        with self.lock:
            self._opened.wait_for(lambda: len(self.streams) >= n, timeout)
            return self.streams[n - 1] if len(self.streams) >= n else None

    def ended(self, stream: PushedStream) -> None:
        """The stream's call ended, however (the server's end hook)."""
        with self.lock:
            stream._ended = True


@dataclass(frozen=True, slots=True)
class _Open(Reply):
    """One call's pushed stream, as the server sends it: its feed's steps; ``on_end``
    (the server's end hook, ``_answer.hold``) marks it ended."""

    hub: Hub | None = field(default=None, compare=False)
    channel: PushedStream | None = field(default=None, compare=False)

    def plan(self) -> Iterator[Step]:
        assert self.channel is not None
        return self.channel._feed.steps()

    def on_end(self, call: Call) -> None:
        assert self.hub is not None
        assert self.channel is not None
        self.hub.ended(self.channel)

    def describe(self) -> str:
        return f"{self.status_code} pushed event stream"


def open_stream(call: Call, hub: Hub, reply: Pushed) -> Reply:
    """The reply to ``call`` of a ``pushed()`` mock whose streams ``hub`` holds."""
    return hub.open(call, reply)


def wait_stream(hub: Hub, what: str, n: int, timeout: float) -> PushedStream:
    """``active.wait_connected``: the ``n``-th stream, or a clear failure."""
    if type(n) is not int or n < 1:
        raise ConfigError(f"wait_connected() n={n!r} must be a positive int")
    found = hub.wait(n, timeout)
    if found is None:
        count = len(hub.streams)
        raise VerificationError(
            f"expected mock {what} to open stream {n} within {timeout} s; {count} stream(s) opened"
        )
    return found


async def wait_stream_async(hub: Hub, what: str, n: int, timeout: float) -> PushedStream:
    """``wait_stream`` without blocking the event loop."""
    deadline = time.monotonic() + timeout
    while len(hub.streams) < n and time.monotonic() < deadline:
        await asyncio.sleep(0.005)
    return wait_stream(hub, what, n, 0)


def _check(events: Sequence[Event]) -> None:
    for i, event in enumerate(events):
        if not isinstance(event, Event):
            raise ConfigError(f"push() events[{i}]={event!r} must be an Event")
