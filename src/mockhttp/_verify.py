"""Verification: the calls a mock received, and assertions on them."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ._budget import Dropped
from ._errors import VerificationError
from ._request import Request

if TYPE_CHECKING:
    from ._mock import Mock
    from ._server import Server

__all__ = ["ActiveMock", "Call", "CallList", "Done", "Outcome", "mark_ended"]

Outcome = Literal[
    "in progress", "complete", "closed", "reset", "stalled", "client hung up", "server closed"
]

#: How much of each reply's body a call keeps (so tests can read what was delivered).
BODY_KEPT = 1 << 20


# Every Call shares one condition: waiters are rare (a test waiting for a stream to end)
# and calls are many, so a call holds no lock or Event of its own (cheaper to build, and
# fewer objects for the garbage collector to scan as the journal grows).
_ENDED = threading.Condition()
_waiting = [0]  # threads inside Done.wait; the server notifies only when there are some


def mark_ended(call: Call) -> None:
    """The server's end of :class:`Done`: mark ``call`` ended and wake its waiters."""
    call._ended = True
    if _waiting[0]:  # read after the flag is set: a waiter that came later sees it
        with _ENDED:
            _ENDED.notify_all()


class Done:
    """Whether a call's reply has ended, shaped like ``threading.Event``: ``is_set()``,
    ``wait(timeout)``, and ``set()`` (which the server calls)."""

    __slots__ = ("_call",)

    def __init__(self, call: Call) -> None:
        self._call = call

    def is_set(self) -> bool:
        """True once the reply has ended."""
        return self._call._ended

    def set(self) -> None:
        """Mark the reply ended and wake the waiters (idempotent)."""
        mark_ended(self._call)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the reply has ended or ``timeout`` seconds passed; True when ended."""
        call = self._call
        if call._ended:
            return True
        with _ENDED:
            _waiting[0] += 1
            try:
                return _ENDED.wait_for(lambda: call._ended, timeout)
            finally:
                _waiting[0] -= 1


@dataclass(eq=False)
class Call:
    """One request and what the server did with it (an entry of the journal).

    Attributes:
        request: the request as received.
        mock: the mock that answered, or None when no mock matched.
        status: the status code sent (None when a fault cut the reply before the head).
        path_params: values of the mock path's ``{name}`` parts.
        body_bytes: body bytes written (before transfer coding).
        wire_bytes: bytes written on the wire (head and framing included).
        events: events of which at least one byte was written.
        body_sent: the body bytes written (the first MiB of them).
        outcome: how the reply ended: ``complete``, ``closed`` (clean close before the end),
            ``reset``, ``stalled``, ``client hung up``, ``server closed`` (the server was
            closed mid-reply), or ``in progress``.
        dropped: None, or what the journal's byte budget dropped (see the property).
    """

    request: Request
    mock: Mock | None = None
    status: int | None = None
    path_params: dict[str, str] = field(default_factory=dict)
    body_bytes: int = 0
    wire_bytes: int = 0
    events: int = 0
    body_sent: bytearray = field(default_factory=bytearray)
    outcome: Outcome = "in progress"
    # what the byte budget dropped, as plain values (cheap to keep): see ``dropped``
    _dropped: tuple[int, str, int, str] | None = field(default=None, init=False, repr=False)
    _ended: bool = field(default=False, init=False, repr=False)

    @property
    def dropped(self) -> Dropped | None:
        """None, or what the journal's byte budget dropped of the request body and
        ``body_sent``: their lengths and SHA-256 digests (see docs/limits.md)."""
        return None if self._dropped is None else Dropped(*self._dropped)

    @property
    def finished(self) -> Done:
        """Whether the reply has ended (``.wait(timeout)``, ``.is_set()``)."""
        return Done(self)

    def __repr__(self) -> str:
        return f"<Call {self.summary()}, {self.body_bytes} body bytes, {self.events} events>"

    def json(self) -> Any:
        """The request body parsed as JSON (parsed on each call: the journal keeps bytes)."""
        return self.request.json()

    def wait(self, timeout: float = 5.0) -> Outcome:
        """Wait until the reply has ended; return its outcome."""
        self.finished.wait(timeout)
        return self.outcome

    def summary(self) -> str:
        """One line: the request and what answered it."""
        who = "no match" if self.mock is None else f"mock {self.mock.describe()}"
        status = "" if self.status is None else f" ({self.status})"
        return f"{self.request.summary()} → {who}{status}, {self.outcome}"


class CallList(list[Call]):
    """The calls of a mock (or of the server), oldest first."""

    @property
    def last(self) -> Call:
        """The most recent call.

        Raises:
            VerificationError: there is no call.
        """
        if not self:
            raise VerificationError("no calls were made")
        return self[-1]


class ActiveMock:
    """A mock registered on a server: its calls, and assertions on them.

    Returned by ``server.mock(...)``.
    """

    def __init__(self, mock: Mock, server: Server, seq: int) -> None:
        self.mock = mock
        self.calls = CallList()
        self._server = server
        self._seq = seq
        self._rank: float = seq  # order among equal priorities (newest first)
        self._count = 0  # exact, even when a journal limit trims ``calls``

    def _record(self, call: Call, limit: int | None) -> int:
        """Add a call (keeping at most about ``limit`` of them); return its 0-based index."""
        self._count += 1
        append_call(self.calls, call, limit)
        return self._count - 1

    @property
    def id(self) -> int:
        """The mock's number on its server (1 for the first mock added, and so on)."""
        return self._seq

    @property
    def call_count(self) -> int:
        """How many requests this mock answered (whatever a journal limit dropped)."""
        return self._count

    @property
    def called(self) -> bool:
        """True when it answered at least one request."""
        return self._count > 0

    @property
    def exhausted(self) -> bool:
        """True when it has answered its ``times`` requests."""
        return self.mock.times is not None and self._count >= self.mock.times

    def wait_for_calls(self, n: int = 1, timeout: float = 5.0) -> CallList:
        """Wait until the mock has answered ``n`` requests; return its calls.

        For clients that call the server from another thread or process (a background
        worker, a subprocess), where the test cannot know when the request was made.

        Raises:
            VerificationError: ``timeout`` seconds passed first; the message lists what
                the server received.
        """
        __tracebackhide__ = True
        deadline = time.monotonic() + timeout
        while self._count < n:
            if time.monotonic() >= deadline:
                self._fail(f"to be called {_times(n)} within {timeout} s", self._count)
            time.sleep(0.005)
        return self.calls

    def remove(self) -> None:
        """Stop answering requests (calls stay readable)."""
        self._server.remove(self)

    def assert_called(self) -> None:
        """Fail unless the mock answered at least one request."""
        __tracebackhide__ = True
        if not self._count:
            self._fail("to be called", 0)

    def assert_called_once(self) -> None:
        """Fail unless the mock answered exactly one request."""
        __tracebackhide__ = True
        self.assert_called_times(1)

    def assert_called_times(self, n: int) -> None:
        """Fail unless the mock answered exactly ``n`` requests."""
        __tracebackhide__ = True
        if self._count != n:
            self._fail(f"to be called {_times(n)}", self._count)

    def assert_not_called(self) -> None:
        """Fail if the mock answered any request."""
        __tracebackhide__ = True
        if self._count:
            self._fail("not to be called", self._count)

    def _fail(self, expected: str, count: int) -> None:
        lines = [f"expected mock {self.mock.describe()} {expected}, it was called {_times(count)}"]
        lines.append(self._server.journal_text())
        raise VerificationError("\n".join(lines))

    def __repr__(self) -> str:
        return f"<ActiveMock {self.mock.describe()} calls={self._count}>"


def _times(n: int) -> str:
    return {0: "0 times", 1: "once", 2: "twice"}.get(n, f"{n} times")


def append_call(calls: CallList, call: Call, limit: int | None) -> None:
    """Append ``call``; past ``limit`` (and an eighth of slack), drop the oldest at once."""
    calls.append(call)
    if limit is not None and len(calls) > limit + max(1, limit // 8):
        del calls[: len(calls) - limit]
