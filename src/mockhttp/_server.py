"""The server: an asyncio.Protocol on its own loop in a background thread.

Request bytes are parsed by httptools (llhttp); response bytes come from a plan
(``_reply`` → faults → ``_wire.frame`` → faults) run by ``Runner``, which writes ``Raw``
steps, waits out ``Pause`` steps on absolute deadlines (``loop.call_at``), and ends the
connection as ``End`` says.

Rule 1: everything that touches a socket runs on the loop thread.  Other threads change the
registry (mocks) under a lock, by swapping an immutable tuple that the loop reads.
Rule 2: a bad request never takes the server down: it gets a 400/413/431 and the
connection closes; errors raised while producing a reply are kept in ``server.errors``
and re-raised by ``server.check()``.
"""

from __future__ import annotations

import asyncio
import bisect
import concurrent.futures
import errno
import itertools
import logging
import queue
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from types import TracebackType
from typing import NamedTuple

from ._budget import LIBRARY_DEFAULT, Budget
from ._connection import Connection
from ._errors import ConfigError, ServerError, UnmatchedRequestError
from ._explain import no_match_json, no_match_text
from ._mock import Mock
from ._plan import FaultContext, Step
from ._reply import Reply, error_reply, status
from ._request import Request
from ._runner import Deferred, Whole
from ._verify import ActiveMock, Call, CallList, append_call, mark_ended
from ._wire import frame

__all__ = ["Server"]

_ADMIN_PREFIX = "/__mockhttp/"
_WIRE_CACHE_STEPS = 4096  # fault-free replies with at most this many wire steps are framed once
_WIRE_CACHE_SIZE = 256  # replies whose wire plans are kept (the cache is emptied when full)
_LOG = logging.getLogger("mockhttp")
_OUT_OF_FDS = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)


class _Framing(NamedTuple):
    """How replies to one request are framed (see ``_wire.frame``)."""

    head_only: bool
    http10: bool
    keep_alive: bool

    def frame(self, steps: Iterable[Step]) -> Iterator[Step]:
        return frame(
            steps, head_only=self.head_only, http10=self.http10, keep_alive=self.keep_alive
        )


class Server:
    """A mock HTTP/1.1 server on 127.0.0.1 and a free port, in a background thread.

    Use it as a context manager (``with Server() as server:`` or ``async with``), or call
    :meth:`start` and :meth:`close`.  Register mocks with :meth:`mock`; read every request
    in :attr:`journal`.

    Args:
        host: address to listen on.
        port: port (0 picks a free one).
        unmatched_status: the status sent when no mock matches (404).
        backlog: the listen backlog.
        on_call_end: called on the server thread with each finished :class:`Call`
            (the CLI logs with it).
        admin: serve the admin API under ``/__mockhttp/`` (add, list and remove mocks,
            read the journal over HTTP; see ``docs/cli.md``), as ``mockhttp serve`` does.
        journal_limit: keep only about the newest this many calls in :attr:`journal` and
            in each mock's ``calls`` (None: all).  Counts (``call_count``, ``times``) stay
            exact.  For long-running servers; ``mockhttp serve`` keeps 10,000.
        journal_bytes: keep request bodies and sent reply bodies of finished calls up to
            this many bytes (256 MiB; None: all); past it the oldest are dropped, keeping
            their lengths and SHA-256 in ``call.dropped``.  ``mockhttp serve``: 64 MiB.
        header_timeout: seconds a request head may take from its first byte (10); a slower
            one gets a 408 and the connection closes.
        idle_timeout: seconds a connection may wait, with no reply running, for its next
            request (300) before it is closed.
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        unmatched_status: int = 404,
        backlog: int = 4096,
        on_call_end: Callable[[Call], None] | None = None,
        admin: bool = False,
        journal_limit: int | None = None,
        journal_bytes: int | None = LIBRARY_DEFAULT,
        header_timeout: float = 10.0,
        idle_timeout: float = 300.0,
    ) -> None:
        for name, value in (("journal_limit", journal_limit), ("journal_bytes", journal_bytes)):
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or value < 1
            ):
                raise ConfigError(f"{name}={value!r} must be a positive int or None")
        for name, seconds in (("header_timeout", header_timeout), ("idle_timeout", idle_timeout)):
            if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds <= 0:
                raise ConfigError(f"{name}={seconds!r} must be a positive number of seconds")
        self.journal_limit = journal_limit
        self.journal_bytes = journal_bytes
        self.header_timeout = float(header_timeout)
        self.idle_timeout = float(idle_timeout)
        self._budget = Budget(journal_bytes, journal_limit)
        _check_server_args(host, port, unmatched_status)
        self.host = host
        self.port = port
        self.unmatched_status = unmatched_status
        self.backlog = backlog
        self.on_call_end = on_call_end
        self.journal = CallList()
        self.errors: list[BaseException] = []
        self.admin: Callable[[Request], Reply] | None = None
        if admin:
            from ._admin import AdminAPI

            self.admin = AdminAPI(self)
        self._active: tuple[ActiveMock, ...] = ()
        self._seq = 0
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._listener: asyncio.base_events.Server | None = None
        self._connections: set[Connection] = set()
        # id(reply) -> (reply, {(head_only, http10, keep_alive): wire steps (a Whole when
        # short and pause-free), or None when the reply is endless or too long to keep});
        # loop thread only
        self._wires: dict[int, tuple[Reply, dict[_Framing, tuple[Step, ...] | Whole | None]]] = {}
        self._admin_worker: _Worker | None = None
        self._fds_warned = -1.0  # when running out of descriptors was last logged

    # -- lifecycle ----------------------------------------------------------------------

    def start(self) -> Server:
        """Bind and start serving; returns the server.

        Raises:
            ServerError: the address cannot be bound, or the server is already running.
        """
        if self._thread is not None:
            raise ServerError("server is already running")
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((self.host, self.port))
        except (OSError, UnicodeError) as exc:
            sock.close()
            raise ServerError(f"cannot listen on {self.host}:{self.port}: {exc}") from None
        self.port = sock.getsockname()[1]
        loop = asyncio.new_event_loop()
        ready = threading.Event()
        failure: list[BaseException] = []

        def serve() -> None:
            asyncio.set_event_loop(loop)
            loop.set_exception_handler(self._loop_error)
            try:
                self._listener = loop.run_until_complete(
                    loop.create_server(lambda: Connection(self), sock=sock, backlog=self.backlog)
                )
            except BaseException as exc:  # reported to start()
                failure.append(exc)
                ready.set()
                return
            ready.set()
            self._sweep()
            loop.run_forever()
            loop.close()

        self._loop = loop
        self._thread = threading.Thread(target=serve, name=f"mockhttp:{self.port}", daemon=True)
        self._thread.start()
        ready.wait()
        if failure:
            self._thread = None
            raise ServerError(f"cannot serve on {self.host}:{self.port}: {failure[0]}")
        return self

    def close(self, timeout: float = 5.0) -> bool:
        """Stop serving: close the listener and every open connection (streams end).

        Waits up to ``timeout`` seconds for the server's thread to stop (a handler stuck
        on it keeps it; it is a daemon thread, so it does not keep the process alive).
        Returns False when the thread was still running after ``timeout``.
        """
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return True
        self._thread = None

        def shutdown() -> None:
            if self._listener is not None:
                self._listener.close()
            for conn in list(self._connections):
                conn.shutdown()
            loop.call_soon(loop.stop)

        loop.call_soon_threadsafe(shutdown)
        thread.join(timeout)
        if self._admin_worker is not None:
            self._admin_worker.stop()
            self._admin_worker = None
        return not thread.is_alive()

    def __enter__(self) -> Server:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    async def __aenter__(self) -> Server:
        return self.start()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await asyncio.to_thread(self.close)

    @property
    def running(self) -> bool:
        """True between :meth:`start` and :meth:`close`."""
        return self._thread is not None

    @property
    def url(self) -> str:
        """The base URL, e.g. ``http://127.0.0.1:54321``."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def url_for(self, path: str) -> str:
        """``url`` + ``path``."""
        return self.url + (path if path.startswith("/") else "/" + path)

    # -- mocks ----------------------------------------------------------------------------

    def mock(self, mock: Mock) -> ActiveMock:
        """Register ``mock``; returns its handle (``.calls``, ``assert_called()``, ...).

        When several mocks match a request, the highest ``priority`` wins, and among
        equal priorities the most recently added one.
        """
        return self._add([mock])[0]

    def _add(self, mocks: Sequence[Mock]) -> list[ActiveMock]:
        """Register ``mocks`` in one step: each goes in its place by binary search (a new
        mock ranks first among its priority), so adding many is not quadratic."""
        for mock in mocks:
            if not isinstance(mock, Mock):
                raise ConfigError(f"mock={mock!r} must be a Mock (mockhttp.get(...), ...)")
        with self._lock:
            ordered = list(self._active)
            added = []
            for mock in mocks:
                self._seq += 1
                active = ActiveMock(mock, self, self._seq)
                bisect.insort(ordered, active, key=_order)
                added.append(active)
            self._active = tuple(ordered)
        return added

    def replace(self, old: Sequence[ActiveMock], new: Sequence[Mock]) -> list[ActiveMock]:
        """Swap mocks at once: ``old`` go, ``new`` come in their place.

        The new mocks rank where the old ones did (among mocks of equal priority, mocks
        added after the old ones still win), so reloading a file does not put its mocks
        above those added since.  No request sees a moment with neither.
        """
        for mock in new:
            if not isinstance(mock, Mock):
                raise ConfigError(f"mock={mock!r} must be a Mock (mockhttp.get(...), ...)")
        with self._lock:
            base = min((a._rank for a in old), default=0.0)
            created = []
            for i, mock in enumerate(new, 1):
                self._seq += 1
                active = ActiveMock(mock, self, self._seq)
                active._rank = base + i / (len(new) + 1)
                created.append(active)
            gone = {id(a) for a in old}
            self._rerank([a for a in self._active if id(a) not in gone] + created)
        return created

    def _rerank(self, actives: list[ActiveMock]) -> None:
        kept = {id(a.mock.response) for a in actives}
        gone = [a.mock.response for a in self._active if id(a.mock.response) not in kept]
        self._active = tuple(sorted(actives, key=_order))
        self._forget(gone)

    def remove(self, active: ActiveMock) -> None:
        """Unregister a mock (its calls stay readable)."""
        with self._lock:
            self._rerank([a for a in self._active if a is not active])

    def _forget(self, replies: Sequence[Reply]) -> None:
        """Drop the cached wire plans of replies no registered mock gives any more."""
        if not replies:
            return
        ids = {id(r) for r in replies}
        loop = self._loop
        if loop is None or self._thread is None or loop.is_closed():
            self._drop_wires(ids)
            return
        try:
            loop.call_soon_threadsafe(self._drop_wires, ids)
        except RuntimeError:  # the loop closed meanwhile: nothing is served any more
            self._drop_wires(ids)

    def _drop_wires(self, ids: set[int]) -> None:
        live = {id(a.mock.response) for a in self._active}
        for key in ids - live:
            self._wires.pop(key, None)

    @property
    def mocks(self) -> tuple[ActiveMock, ...]:
        """The registered mocks, in the order they are tried."""
        return self._active

    def reset(self) -> None:
        """Remove every mock and clear the journal and errors."""
        with self._lock:
            self._rerank([])
        self.journal = CallList()
        self._budget = Budget(self.journal_bytes, self.journal_limit)
        self.errors = []

    # -- verification ---------------------------------------------------------------------

    @property
    def unmatched(self) -> list[Call]:
        """Calls that no mock answered."""
        return [c for c in self.journal if c.mock is None]

    def check(self) -> None:
        """Raise what went wrong on the server: errors in replies, unmatched requests.

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
            mocks = [a.mock for a in self._active]
            reports = [no_match_text(c.request, mocks) for c in unmatched]
            raise UnmatchedRequestError(
                f"{len(unmatched)} request(s) matched no mock:\n" + "\n".join(reports)
            )

    def journal_text(self) -> str:
        """Every request received, one per line (used in assertion messages)."""
        if not self.journal:
            return "the server received no requests"
        lines = [f"the server received {len(self.journal)} request(s):"]
        lines.extend(f"  {i}. {c.summary()}" for i, c in enumerate(self.journal, 1))
        return "\n".join(lines)

    # -- on the loop thread ----------------------------------------------------------

    def _sweep(self) -> None:
        """Time out connections whose head (or next request) is late; runs periodically."""
        assert self._loop is not None
        now = time.monotonic()
        late = []
        for conn in self._connections:
            limit = conn.waiting()
            if limit is None:
                conn.mark = None
            elif conn.mark is None or conn.mark[0] != conn.ticks:
                conn.mark = (conn.ticks, now)  # a new wait: from now
            elif now - conn.mark[1] >= limit:
                late.append(conn)
        for conn in late:
            conn.timed_out()
        every = min(1.0, self.header_timeout / 4, self.idle_timeout / 4)
        self._loop.call_later(every, self._sweep)

    def _loop_error(self, loop: asyncio.AbstractEventLoop, context: dict[str, object]) -> None:
        """Out of file descriptors (EMFILE): asyncio retries accept() in a second; say so in
        one line a second (no traceback).  The header and idle timeouts free the
        descriptors that slow or idle clients hold."""
        exc = context.get("exception")
        if isinstance(exc, OSError) and exc.errno in _OUT_OF_FDS:
            now = time.monotonic()
            if now - self._fds_warned >= 1.0:
                self._fds_warned = now
                _LOG.warning(
                    "mockhttp: cannot accept connections (%s; %d open), trying again",
                    exc.strerror or exc,
                    len(self._connections),
                )
            return
        if self._thread is None and (
            "_start_serving" in repr(context.get("handle"))  # accept() retried after close
            or "Task was destroyed" in str(context.get("message"))  # an accept cut by close
        ):
            return
        loop.default_exception_handler(context)

    def _dispatch(
        self, request: Request, keep_alive: bool
    ) -> tuple[Call, Iterator[Step] | Whole | Deferred]:
        """The call to journal and the wire plan to run for ``request``."""
        framing = _Framing(request.method == "HEAD", request.http_version == "1.0", keep_alive)
        if self.admin is not None and request.path.startswith(_ADMIN_PREFIX):
            return Call(request, None, None), self._admin_reply(request, framing)
        if not request.body:
            return self._answer(request, framing)
        request._matching(True)  # parse a JSON body once for every matcher
        try:
            return self._answer(request, framing)
        finally:
            request._matching(False)  # the journal keeps the bytes, not the parsed tree

    def _admin_reply(self, request: Request, framing: _Framing) -> Deferred:
        """Admin work runs on a worker thread, so parsing a big body never stalls streams;
        one worker, so admin requests still take effect in the order they came."""
        if self._admin_worker is None:
            self._admin_worker = _Worker(f"mockhttp-admin:{self.port}")
        admin = self.admin
        assert admin is not None
        return Deferred(self._admin_worker.submit(admin, request), framing.frame)

    def _answer(self, request: Request, framing: _Framing) -> tuple[Call, Iterator[Step] | Whole]:
        active = self._find(request, request.method)
        if active is None and request.method == "HEAD":
            active = self._find(request, "GET")  # HEAD is GET without the content (RFC 9110)
        if active is None:
            return self._unmatched(request, framing)
        mock = active.mock
        call = Call(request, mock, None, mock.path_params(request) or {})
        index = active._record(call, self.journal_limit)
        append_call(self.journal, call, self.journal_limit)
        try:
            reply = mock.reply_for(request)
            call.status = reply.status_code
            return call, self._planned(mock, reply, index, framing)
        except Exception as exc:  # a handler, or a reply that cannot be framed: for check()
            self.errors.append(exc)
            call.status = 500
            return call, framing.frame(error_reply(exc).plan())

    def _find(self, request: Request, method: str) -> ActiveMock | None:
        """The mock that answers ``request`` as if its method were ``method``."""
        for active in self._active:
            if not active.exhausted and active.mock.matches(request, method):
                return active
        return None

    def _planned(
        self, mock: Mock, reply: Reply, index: int, framing: _Framing
    ) -> Iterator[Step] | Whole:
        """The wire plan of ``reply``, with the mock's faults applied."""
        if not mock.faults:
            if reply is mock.response:  # a fixed reply: framed once, replayed
                return self._wire(reply, framing)
            return framing.frame(reply.plan())  # a handler's reply, built for this request
        ctx = FaultContext(call_index=index)
        steps: Iterator[Step] = iter(reply.plan())
        for fault in mock.faults:
            steps = fault.body(steps, ctx)
        wire = framing.frame(steps)
        for fault in mock.faults:
            wire = fault.wire(wire, ctx)
        return wire

    def _unmatched(self, request: Request, framing: _Framing) -> tuple[Call, Iterator[Step]]:
        """Journal an unmatched request; answer with the closest mocks explained."""
        call = Call(request, None, self.unmatched_status)
        append_call(self.journal, call, self.journal_limit)
        mocks = [a.mock for a in self._active]
        accept = request.headers.get("accept", "")
        reply = status(self.unmatched_status)
        if "json" in accept and "text/plain" not in accept:
            reply = reply.json(no_match_json(request, mocks))
        else:
            reply = reply.header("Content-Type", "text/plain; charset=utf-8").body(
                no_match_text(request, mocks) + "\n"
            )
        return call, framing.frame(reply.plan())

    def _wire(self, reply: Reply, framing: _Framing) -> Iterator[Step] | Whole:
        """The wire plan of a fault-free reply.

        A reply's plan depends only on the reply and the framing options, and steps are
        frozen, so the framed steps are computed once and replayed (no generators, no
        per-event framing).  Endless streams and very long plans are framed per request.
        """
        entry = self._wires.get(id(reply))
        if entry is None or entry[0] is not reply:
            if len(self._wires) >= _WIRE_CACHE_SIZE:
                self._wires.clear()
            entry = (reply, {})
            self._wires[id(reply)] = entry
        key = framing
        plans = entry[1]
        if key in plans:
            steps = plans[key]
            if type(steps) is Whole:
                return steps
            if steps is not None:
                assert isinstance(steps, tuple)
                return iter(steps)
        elif reply.stream is None or reply.stream.repeat is not None:
            steps = tuple(itertools.islice(framing.frame(reply.plan()), _WIRE_CACHE_STEPS + 1))
            if Whole.fits(steps):
                whole = plans[key] = Whole(steps)
                return whole
            if len(steps) <= _WIRE_CACHE_STEPS:
                plans[key] = steps
                return iter(steps)
            plans[key] = None
        else:
            plans[key] = None
        return framing.frame(reply.plan())

    def _finished(self, call: Call) -> None:
        mark_ended(call)  # call.finished.set(), without building the view
        size = len(call.request.body) + len(call.body_sent)
        budget = self._budget
        if (
            size
            and budget.limit is not None
            and call._dropped is None
            and (call.mock is not None or not call.request.path.startswith(_ADMIN_PREFIX))
        ):
            budget.keep(call, size)  # the journal's byte budget (see _budget.py)
        if self.on_call_end is not None:
            try:
                self.on_call_end(call)
            except Exception as exc:
                self.errors.append(exc)


class _Worker:
    """One daemon thread running admin requests in order (a stuck one cannot keep the
    process from exiting, as a ``ThreadPoolExecutor``'s thread would)."""

    def __init__(self, name: str) -> None:
        self._jobs: queue.SimpleQueue[
            tuple[concurrent.futures.Future[Reply], Callable[[Request], Reply], Request] | None
        ] = queue.SimpleQueue()
        threading.Thread(target=self._run, name=name, daemon=True).start()

    def submit(
        self, work: Callable[[Request], Reply], request: Request
    ) -> concurrent.futures.Future[Reply]:
        future: concurrent.futures.Future[Reply] = concurrent.futures.Future()
        self._jobs.put((future, work, request))
        return future

    def stop(self) -> None:
        self._jobs.put(None)

    def _run(self) -> None:
        while (job := self._jobs.get()) is not None:
            future, work, request = job
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(work(request))
            except BaseException as exc:  # the connection answers 500 (Deferred.wire)
                future.set_exception(exc)


def _order(active: ActiveMock) -> tuple[int, float]:
    """Where a mock is tried: the highest priority first, then the newest."""
    return (-active.mock.priority, -active._rank)


def _check_server_args(host: object, port: object, unmatched_status: object) -> None:
    """Refuse arguments that would fail later, or turn every unmatched request into a 500."""
    if not isinstance(host, str) or not host:
        raise ConfigError(f"host={host!r} must be an address such as '127.0.0.1'")
    if type(port) is not int or not 0 <= port <= 65535:
        raise ConfigError(f"port={port!r} must be an int from 0 to 65535 (0: a free port)")
    if type(unmatched_status) is not int or not 100 <= unmatched_status <= 999:
        raise ConfigError(f"unmatched_status={unmatched_status!r} must be an int from 100 to 999")
