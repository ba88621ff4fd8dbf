"""A reply fed while it is sent: the head, body pieces and end arrive from another thread.

``Feed`` is the core's one way to answer with bytes that do not exist yet (a recording
proxy forwards an upstream's reply with it, a test can drive a stream by hand).  Its plan
yields the steps put so far and, when none are ready, a ``Wait`` step: the executor writes
what it has and parks until ``put`` wakes it, so each piece leaves when it arrives.

Rule 1: one feed answers one request.
Rule 2: the producer learns that the client went away from :attr:`Feed.gone`, and stops
(or from ``on_gone``, called once then, from the server's thread).
Rule 3: with a ``limit``, :meth:`Feed.data` blocks while that many body bytes wait to be
sent (a client that does not read stops the producer: backpressure).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from .._core._errors import ConfigError
from .._core._plan import Data, End, EndHow, Head, Step, Wait
from .._core._reply import Reply, status

__all__ = ["Feed"]

_ENDS = ("complete", "close", "reset", "stall")


class Feed:
    """A reply whose head and body are put while it is sent (from any thread).

    Answer a request with :meth:`reply` from a ``respond_with`` handler, then call
    :meth:`head` once, :meth:`data` for each piece and :meth:`end` once; each piece goes
    out as soon as it is put.

    ``limit``: at most this many body bytes wait to be sent; :meth:`data` blocks past it
    (None: no bound).  ``on_gone``: called once when the reply is over for the server
    (the client hung up, the server closed, or the end was sent), from its thread.
    ``on_eof``: called when the client ends its side of the connection before the head was
    put (a client that gave up waiting: HTTP/1.1 clients seldom half-close), from the
    server's thread.

    >>> feed = Feed()
    >>> feed.head(200, [("Content-Type", "text/event-stream")])
    >>> feed.data(b"data: hi\\n\\n", event=0)
    >>> feed.end()
    """

    def __init__(
        self,
        *,
        limit: int | None = None,
        on_gone: Callable[[], None] | None = None,
        on_eof: Callable[[], None] | None = None,
    ) -> None:
        if limit is not None and (type(limit) is not int or limit < 1):
            raise ConfigError(f"limit={limit!r} must be a positive int (bytes) or None")
        self._lock = threading.Lock()
        self._room = threading.Condition(self._lock)
        self._limit = limit
        self._queued = 0  # body bytes put and not yet taken by the server
        self._on_gone = on_gone
        self._on_eof = on_eof
        self._ready: deque[Step] = deque()
        self._callback: Callable[[], None] | None = None
        self._status: int | None = None
        self._state = "new"  # new -> head -> ended
        self._taken = False
        self._gone = threading.Event()

    # -- the producer's side -------------------------------------------------------------

    def head(
        self,
        code: int,
        headers: Sequence[tuple[str, str]] = (),
        *,
        reason: str | None = None,
        length: int | None = None,
    ) -> None:
        """Put the status line and headers; ``length`` is the body's length if known
        (a ``Content-Length``), else the body is chunked.

        Raises:
            ConfigError: a head was already put, or a bad status, header or length.
        """
        if self._state != "new":
            raise ConfigError("Feed.head() was already called: a reply has one head")
        if length is not None and (type(length) is not int or length < 0):
            raise ConfigError(f"length={length!r} must be a non-negative int or None")
        reply = status(code, reason)
        for name, value in headers:
            reply = reply.header(name, value)
        self._status = reply.status_code
        self._put(Head(reply.status_code, reply.reason, reply.headers, length), "head")

    def data(self, data: bytes, event: int | None = None) -> None:
        """Put body bytes (``event``: the index of the event they belong to, if any).

        With a ``limit``, first waits while ``limit`` bytes wait to be sent (returns
        without putting if the reply is :attr:`gone` meanwhile).

        Raises:
            ConfigError: no head yet, the feed has ended, or ``data`` is not bytes.
        """
        if not isinstance(data, bytes | bytearray | memoryview):
            raise ConfigError(f"Feed.data() data={data!r} must be bytes")
        if self._state != "head":
            raise ConfigError(f"Feed.data() needs a head first and no end yet (now: {self._state})")
        limit = self._limit
        if limit is not None:
            with self._room:
                self._room.wait_for(lambda: self._queued < limit or self.gone)
            if self.gone:
                return
        self._put(Data(bytes(data), event), "head")

    def end(self, how: EndHow = "complete") -> None:
        """End the reply: ``complete``, or cut it (``close``, ``reset``, ``stall``).

        Raises:
            ConfigError: no head yet (unless cutting), already ended, or an unknown ``how``.
        """
        if how not in _ENDS:
            raise ConfigError(f"Feed.end() how={how!r} must be one of {', '.join(_ENDS)}")
        if self._state == "ended":
            raise ConfigError("Feed.end() was already called")
        if self._state == "new" and how == "complete":
            raise ConfigError("Feed.end('complete') needs a head first")
        self._put(End(how), "ended")

    @property
    def gone(self) -> bool:
        """True once the reply is over for the server: the client hung up, the server
        closed, or the end was sent.  A producer stops putting then."""
        return self._gone.is_set()

    def wait_gone(self, timeout: float | None = None) -> bool:
        """Block until :attr:`gone` (or ``timeout`` seconds); returns :attr:`gone`."""
        return self._gone.wait(timeout)

    def _put(self, step: Step, state: str) -> None:
        with self._lock:
            self._ready.append(step)
            self._state = state
            if isinstance(step, Data):
                self._queued += len(step.data)
            callback, self._callback = self._callback, None
        if callback is not None:
            callback()

    # -- the server's side ---------------------------------------------------------------

    @property
    def status(self) -> int | None:
        """The status of the head put so far (None before it)."""
        return self._status

    def eof(self) -> None:
        """The client ended its side of the connection (the server calls this)."""
        if self._state == "new" and self._on_eof is not None:
            self._on_eof()

    def wake(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once when steps are ready (now, if they already are)."""
        with self._lock:
            if not self._ready:
                self._callback = callback
                return
        callback()

    def steps(self) -> Iterator[Step]:
        """The body plan: the steps put so far, a ``Wait`` whenever none are ready.

        Raises:
            ConfigError: the feed already answered a request.
        """
        with self._lock:
            if self._taken:
                raise ConfigError("a Feed answers one request; make one per request")
            self._taken = True
        return self._steps()

    def _steps(self) -> Iterator[Step]:
        try:
            while True:
                with self._lock:
                    step = self._ready.popleft() if self._ready else None
                    if isinstance(step, Data):
                        self._queued -= len(step.data)
                        self._room.notify_all()
                if step is None:
                    yield Wait(self)
                    continue
                yield step
                if isinstance(step, End):
                    return
        finally:
            with self._lock:
                self._gone.set()
                self._room.notify_all()
            if self._on_gone is not None:
                self._on_gone()

    def reply(self) -> Reply:
        """The reply to return from a ``respond_with`` handler: its plan is this feed."""
        return _FeedReply(feed=self)


@dataclass(frozen=True, slots=True)
class _FeedReply(Reply):
    """A reply whose plan comes from a :class:`Feed` (its status is the feed's head's)."""

    feed: Feed = field(default_factory=Feed, compare=False)

    def plan(self) -> Iterator[Step]:
        return self.feed.steps()

    def describe(self) -> str:
        code = self.feed.status
        return "a fed reply" + ("" if code is None else f" ({code})")
