"""Verification: a registered mock's handle, its calls, and assertions and waits on them.

The calls themselves (``Call``, ``CallList``) are the journal's (``_journal.py``).
"""

from __future__ import annotations

import asyncio
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from .._core._errors import (
    ConfigError,
    UnknownNameError,
    UnmatchedRequestError,
    VerificationError,
)
from .._core._explain import unmatched_report
from .._core._pushed import Pushed
from .._core._route import limit_of
from .._core._sse import Event
from ._journal import Call, CallList, unmatched_calls
from ._push import Hub, PushedStream, wait_stream, wait_stream_async
from ._resume import resume_problems

if TYPE_CHECKING:
    from .._core._mock import Mock

__all__ = ["ActiveMock", "Registry", "Verifying", "named"]


class Registry(Protocol):
    """What a mock's handle needs of its server (``Server`` is one): verification reads
    the server through this, and never imports it."""

    def remove(self, active: ActiveMock) -> None: ...

    def journal_text(self) -> str: ...

    def _on_its_loop(self) -> bool: ...


class ActiveMock:
    """A mock registered on a server: its calls, and assertions on them.

    Returned by ``server.mock(...)``.
    """

    def __init__(self, mock: Mock, server: Registry, seq: int) -> None:
        self.mock = mock
        self.calls = CallList()
        self._server = server
        self._seq = seq
        self._rank: float = seq  # order among equal priorities (newest first)
        self._count = 0  # exact, even when a journal limit trims ``calls``
        self._limit = limit_of(mock)  # how many requests it answers (None: any number)
        self._hub: Hub | None = None  # a pushed() mock's streams, made when first needed
        if mock.kind is not None:
            mock.kind.forget()  # a conversation reused by another test counts anew

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
        """True when it answers no more: it has answered its ``times`` requests, or every
        reply of its ``replies(..., exhausted="unmatched")``."""
        return self._limit is not None and self._count >= self._limit

    def _forget(self) -> None:
        """Forget the calls (``Server.clear_journal``), and a ``pushed()`` mock's streams
        (the open ones are closed), queue and log."""
        self.calls = CallList()
        self._count = 0
        if self.mock.kind is not None:
            self.mock.kind.forget()
        hub, self._hub = self._hub, None
        if hub is not None:
            hub.close()

    def wait_for_calls(self, n: int = 1, timeout: float = 5.0) -> CallList:
        """Wait until the mock has answered ``n`` requests; return its calls.

        For clients that call the server from another thread or process (a background
        worker, a subprocess), where the test cannot know when the request was made.

        Raises:
            VerificationError: ``timeout`` seconds passed first; the message lists what
                the server received.
        """
        __tracebackhide__ = True
        self._refuse_on_its_loop("wait_for_calls", "wait_for_calls_async")
        deadline = time.monotonic() + timeout
        while self._count < n:
            if time.monotonic() >= deadline:
                expected = f"to be called {_times(n)} within {timeout} s"
                self._fail(expected + _blocked_a_loop("wait_for_calls_async"), self._count)
            time.sleep(0.005)
        return self.calls

    async def wait_for_calls_async(self, n: int = 1, timeout: float = 5.0) -> CallList:
        """``wait_for_calls`` for async code: ``await mock.wait_for_calls_async(2)``.

        Waits without blocking the event loop, so a client running on the same loop can
        make its requests meanwhile.

        Raises:
            VerificationError: ``timeout`` seconds passed first.
        """
        __tracebackhide__ = True
        deadline = time.monotonic() + timeout
        while self._count < n:
            if time.monotonic() >= deadline:
                self._fail(f"to be called {_times(n)} within {timeout} s", self._count)
            await asyncio.sleep(0.005)
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

    def assert_resumed(self, *, retry: float | None = None, slack: float = 0.005) -> None:
        """Fail unless the client read this mock's resumable stream correctly across its
        reconnects: each reconnect carried the ``Last-Event-ID`` of the last event it
        was delivered whole, came no sooner than ``retry`` seconds after the cut (default:
        the stream's ``retry``, or the first ``retry:`` of its events), and every event
        was delivered exactly once.  Wait for the calls to end first
        (``mock.calls[-1].wait()``).

        Raises:
            VerificationError: what went wrong, call by call, with the journal.
            ConfigError: the mock's reply is not a resumable event stream.
        """
        __tracebackhide__ = True
        ids, asked = self._resumable()
        if retry is None:
            retry = None if asked is None else asked / 1000
        problems = resume_problems(list(self.calls), ids, retry, slack)
        if problems:
            lines = [f"mock {self.mock.describe()} was not resumed correctly:"]
            lines.extend(f"  {p}" for p in problems)
            lines.extend(
                f"  call {n}: Last-Event-ID {c.last_event_id!r}, sent {c.event_ids}, {c.outcome}"
                for n, c in enumerate(self.calls, 1)
            )
            raise VerificationError("\n".join(lines))

    # -- pushed streams (``mockhttp.pushed()``; ``_push.py``) ------------------------------

    @property
    def _pushes(self) -> Hub:
        hub = self._hub
        if hub is None:
            hub = self._hub = Hub()
        return hub

    def _pushed(self, what: str) -> Pushed:
        reply = self.mock.response
        if not isinstance(reply, Pushed):
            raise ConfigError(
                f"{what}(): mock {self.mock.describe()} does not reply with mockhttp.pushed()"
            )
        return reply

    @property
    def streams(self) -> list[PushedStream]:
        """The streams this ``pushed()`` mock opened, one per call, oldest first."""
        return list(self._pushes.streams)

    def push(self, *events: Event) -> int:
        """Send ``events`` to every open stream of this ``pushed()`` mock; with none open,
        they are queued for the next stream to open.  Returns how many streams they
        reached (0: queued).

        Raises:
            ConfigError: the mock does not reply with ``pushed()``, or an argument is not
                an ``Event``.
        """
        return self._pushes.push(self._pushed("push"), events)

    def close(self) -> int:
        """End every open stream of this ``pushed()`` mock cleanly (a client that
        reconnects opens a new one); returns how many were open."""
        self._pushed("close")
        return self._pushes.close()

    def wait_connected(self, n: int = 1, timeout: float = 5.0) -> PushedStream:
        """Wait until this ``pushed()`` mock has opened its ``n``-th stream (the first
        client, or ``n=2``: its reconnect); return that stream.

        Raises:
            VerificationError: ``timeout`` seconds passed first.
        """
        __tracebackhide__ = True
        self._pushed("wait_connected")
        self._refuse_on_its_loop("wait_connected", "wait_connected_async")
        try:
            return wait_stream(self._pushes, self.mock.describe(), n, timeout)
        except VerificationError as exc:
            raise VerificationError(str(exc) + _blocked_a_loop("wait_connected_async")) from None

    async def wait_connected_async(self, n: int = 1, timeout: float = 5.0) -> PushedStream:
        """``wait_connected`` for async code, without blocking the event loop."""
        __tracebackhide__ = True
        self._pushed("wait_connected_async")
        return await wait_stream_async(self._pushes, self.mock.describe(), n, timeout)

    def _resumable(self) -> tuple[list[str | None], int | None]:
        """The event ids of this mock's resumable stream (a ``pushed`` one's: those pushed
        so far) and the ``retry`` it asks (ms: the stream's, else its first event's)."""
        reply = self.mock.response
        if isinstance(reply, Pushed) and reply.resumable:
            return [e.id for e in self._pushes.log], reply.retry
        stream = reply.stream if reply is not None else None
        if stream is None or not stream.resumable:
            raise ConfigError(
                f"assert_resumed(): mock {self.mock.describe()} does not reply with "
                "event_stream(..., resumable=True) or pushed(resumable=True)"
            )
        asked = [e.retry for e in stream.events if e.retry is not None]
        return list(stream.ids), stream.retry if stream.retry is not None else (
            asked[0] if asked else None
        )

    def _refuse_on_its_loop(self, name: str, instead: str) -> None:
        """A blocking wait on the server's own loop thread (a handler's) would freeze the
        server it waits for: refuse it.  Any other thread may block, a running loop of its
        own or not (Playwright's sync API, Jupyter: their clients are elsewhere)."""
        if self._server._on_its_loop():
            raise ConfigError(
                f"{name}() blocks, and it was called on the server's own event loop (in a "
                f"handler?), which it would freeze: the requests it waits for could not "
                f"arrive; call it from the test, or `await mock.{instead}(n, timeout)`"
            )

    def _fail(self, expected: str, count: int) -> None:
        lines = [f"expected mock {self.mock.describe()} {expected}, it was called {_times(count)}"]
        lines.append(self._server.journal_text())
        raise VerificationError("\n".join(lines))

    def __repr__(self) -> str:
        return f"<ActiveMock {self.mock.describe()} calls={self._count}>"


def named(actives: Sequence[ActiveMock], name: str) -> ActiveMock:
    """The handle of the one mock in ``actives`` named ``name`` (``Server.named``).

    Raises:
        UnknownNameError: none is (the message names the closest, and those there are).
        ConfigError: several are.
    """
    found = [a for a in actives if a.mock.name == name]
    if not found:
        known = sorted({a.mock.name for a in actives if a.mock.name})
        raise UnknownNameError("mock name", name, known)
    if len(found) > 1:
        raise ConfigError(
            f"{len(found)} mocks are named {name!r}; give each its own name, or pick one "
            "from server.mocks"
        )
    return found[0]


def _blocked_a_loop(instead: str) -> str:
    """What a timed-out blocking wait adds when its thread has a running event loop: a
    client on that loop could not send meanwhile (the wait is allowed there: Playwright's
    sync API and Jupyter mark a loop running whose clients are elsewhere)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return ""
    return (
        " (this wait blocked the event loop running on its thread: a client on that loop "
        f"could not send meanwhile; there, use `await mock.{instead}(n, timeout)`)"
    )


def _times(n: int) -> str:
    return {0: "0 times", 1: "once", 2: "twice"}.get(n, f"{n} times")


def journal_text(calls: Sequence[Call]) -> str:
    """Every request received, one per line (used in assertion messages)."""
    if not calls:
        return "the server received no requests"
    lines = [f"the server received {len(calls)} request(s):"]
    lines.extend(f"  {i}. {c.summary()}" for i, c in enumerate(calls, 1))
    return "\n".join(lines)


def uncalled_report(mocks: Sequence[ActiveMock], received: str) -> str | None:
    """What ``assert_all_called`` says of the ``mocks`` never called (None: none is);
    ``received``: the journal's text."""
    uncalled = [a for a in mocks if not a.called]
    if not uncalled:
        return None
    names = "\n".join(f"  mock {a.mock.describe()}" for a in uncalled)
    count = f"{len(uncalled)} mock" if len(uncalled) == 1 else f"{len(uncalled)} mocks"
    return f"{count} of {len(mocks)} never called:\n{names}\n{received}"


class Verifying(ABC):
    """What a server, and a test's view of it (``_tests.ScopedServer``), say of their
    calls: :attr:`unmatched`, :meth:`check`, :meth:`assert_all_called`,
    :meth:`journal_text`, from the ``journal``, ``errors`` and mocks each has."""

    errors: list[BaseException]

    @property
    @abstractmethod
    def journal(self) -> CallList:
        """Every call received, oldest first."""

    @property
    @abstractmethod
    def mocks(self) -> tuple[ActiveMock, ...]:
        """The registered mocks (what ``assert_all_called`` asks about)."""

    @abstractmethod
    def _tried(self) -> list[Mock]:
        """The mocks an unmatched request was tried against (the closest are named)."""

    @property
    def unmatched(self) -> list[Call]:
        """Calls that no mock answered."""
        return unmatched_calls(self.journal)  # compact entries are all matched ones

    def check(self) -> None:
        """Raise what went wrong: errors in replies, unmatched requests.

        Raises:
            UnmatchedRequestError: some requests matched no mock (the message lists them
                with the closest mocks).
            BaseException: the first error raised while producing a reply.
        """
        __tracebackhide__ = True
        if self.errors:
            raise self.errors[0]
        unmatched = self.unmatched
        if unmatched:
            raise UnmatchedRequestError(self._unmatched_report(unmatched))

    def _unmatched_report(self, calls: Sequence[Call]) -> str:
        """What ``check()`` (and the pytest plugin) say of unmatched ``calls``."""
        return unmatched_report(calls, self._tried())

    def assert_all_called(self) -> None:
        """Fail unless every registered mock answered at least one request.

        Raises:
            VerificationError: some mocks were never called (the message names them and
                lists what was received).
        """
        __tracebackhide__ = True
        message = uncalled_report(self.mocks, self.journal_text())
        if message is not None:
            raise VerificationError(message)

    def journal_text(self) -> str:
        """Every request received, one per line (used in assertion messages)."""
        return journal_text(self.journal)
