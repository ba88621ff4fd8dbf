"""The server: an asyncio.Protocol on its own loop in a background thread.

Request bytes are parsed by httptools (llhttp); response bytes come from a plan
(``_reply`` → faults → ``_wire.frame`` → faults) run by ``_Runner``, which writes ``Raw``
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
import contextlib
import itertools
import socket
import struct
import threading
import traceback
from collections import deque
from collections.abc import Callable, Iterator
from types import TracebackType

import httptools

from ._errors import ServerError, UnmatchedRequestError
from ._explain import no_match_json, no_match_text
from ._mock import Mock
from ._plan import End, FaultContext, Pause, Raw, Step
from ._reply import Reply, status
from ._request import Headers, Request
from ._verify import BODY_KEPT, ActiveMock, Call, CallList, Outcome, mark_ended
from ._wire import frame

__all__ = ["Server"]

MAX_HEAD = 64 * 1024
MAX_BODY = 64 * 1024 * 1024
_BURST = 64 * 1024  # bytes written before yielding to the loop when a plan has no pauses
_ADMIN_PREFIX = "/__mockhttp/"
_OUTCOMES: dict[str, Outcome] = {
    "complete": "complete",
    "close": "closed",
    "reset": "reset",
    "stall": "stalled",
}
_WIRE_CACHE_STEPS = 4096  # fault-free replies with at most this many wire steps are framed once
_WIRE_CACHE_SIZE = 256  # replies whose wire plans are kept (the cache is emptied when full)


class _Bad:
    """A request that could not be parsed: answer ``status`` and close."""

    __slots__ = ("message", "status")

    def __init__(self, status: int, message: str) -> None:
        self.status = status
        self.message = message


class _TooLarge(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class _Whole:
    """A short cached wire plan without pauses (``Raw`` steps, then ``End("complete")``),
    with what ``_Runner`` would record for it: written in one call, no runner needed.

    Fixed small replies (JSON, errors) are most requests; this skips a ``_Runner`` and its
    per-step bookkeeping for them.  ``steps`` is still there for when the connection is
    paused and a runner has to wait.
    """

    __slots__ = ("body", "body_bytes", "data", "events", "steps", "wire_bytes")

    def __init__(self, steps: tuple[Step, ...]) -> None:
        raws = [s for s in steps if type(s) is Raw]
        self.steps = steps
        self.data = b"".join(r.data for r in raws)
        self.wire_bytes = len(self.data)
        # the body bytes of each piece, as _Runner._record cuts them out
        pieces = []
        for r in raws:
            if r.body:
                data = r.data
                if r.body != len(data):
                    start = data.find(b"\r\n") + 2
                    data = data[start : start + r.body]
                pieces.append(data)
        self.body = b"".join(pieces)
        self.body_bytes = sum(r.body for r in raws)
        self.events = max((r.event + 1 for r in raws if r.event is not None), default=0)

    @staticmethod
    def fits(steps: tuple[Step, ...]) -> bool:
        """True for ``Raw``... ``End("complete")`` under one burst, with at least one Raw."""
        if len(steps) < 2 or steps[-1] != End("complete"):
            return False
        body = steps[:-1]
        return all(type(s) is Raw for s in body) and (
            sum(len(s.data) for s in body if isinstance(s, Raw)) < _BURST
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
    ) -> None:
        self.host = host
        self.port = port
        self.unmatched_status = unmatched_status
        self.backlog = backlog
        self.on_call_end = on_call_end
        self.journal = CallList()
        self.errors: list[BaseException] = []
        self.admin: Callable[[Request], Reply | None] | None = None
        if admin:
            from ._admin import AdminAPI

            self.admin = AdminAPI(self)
        self._active: tuple[ActiveMock, ...] = ()
        self._seq = 0
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._listener: asyncio.base_events.Server | None = None
        self._connections: set[_Connection] = set()
        # id(reply) -> (reply, {(head_only, http10, keep_alive): wire steps (a _Whole when
        # short and pause-free), or None when the reply is endless or too long to keep});
        # loop thread only
        self._wires: dict[
            int, tuple[Reply, dict[tuple[bool, bool, bool], tuple[Step, ...] | _Whole | None]]
        ] = {}

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
        except OSError as exc:
            sock.close()
            raise ServerError(f"cannot listen on {self.host}:{self.port}: {exc}") from None
        self.port = sock.getsockname()[1]
        loop = asyncio.new_event_loop()
        ready = threading.Event()
        failure: list[BaseException] = []

        def serve() -> None:
            asyncio.set_event_loop(loop)
            try:
                self._listener = loop.run_until_complete(
                    loop.create_server(lambda: _Connection(self), sock=sock, backlog=self.backlog)
                )
            except BaseException as exc:  # reported to start()
                failure.append(exc)
                ready.set()
                return
            ready.set()
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

    def close(self) -> None:
        """Stop serving: close the listener and every open connection (streams end)."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        self._thread = None

        def shutdown() -> None:
            if self._listener is not None:
                self._listener.close()
            for conn in list(self._connections):
                conn.shutdown()
            loop.call_soon(loop.stop)

        loop.call_soon_threadsafe(shutdown)
        thread.join(5)

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
        if not isinstance(mock, Mock):
            raise ServerError(f"mock={mock!r} must be a Mock (mockhttp.get(...), ...)")
        with self._lock:
            self._seq += 1
            active = ActiveMock(mock, self, self._seq)
            ranked = sorted((*self._active, active), key=lambda a: (-a.mock.priority, -a._seq))
            self._active = tuple(ranked)
        return active

    def remove(self, active: ActiveMock) -> None:
        """Unregister a mock (its calls stay readable)."""
        with self._lock:
            self._active = tuple(a for a in self._active if a is not active)

    @property
    def mocks(self) -> tuple[ActiveMock, ...]:
        """The registered mocks, in the order they are tried."""
        return self._active

    def reset(self) -> None:
        """Remove every mock and clear the journal and errors."""
        with self._lock:
            self._active = ()
        self.journal = CallList()
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

    def _dispatch(
        self, request: Request, keep_alive: bool
    ) -> tuple[Call, Iterator[Step] | _Whole]:
        head_only = request.method == "HEAD"
        http10 = request.http_version == "1.0"
        if self.admin is not None and request.path.startswith(_ADMIN_PREFIX):
            reply = self.admin(request)
            if reply is not None:
                call = Call(request, None, reply.status_code, outcome="in progress")
                wire = frame(
                    reply.plan(), head_only=head_only, http10=http10, keep_alive=keep_alive
                )
                return call, wire
        for active in self._active:
            mock = active.mock
            if active.exhausted or not mock.matches(request):
                continue
            params = mock.path_params(request) or {}
            call = Call(request, mock, None, params)
            active.calls.append(call)
            self.journal.append(call)
            try:
                reply = mock.reply_for(request)
            except Exception as exc:  # the user's handler: kept for server.check()
                self.errors.append(exc)
                reply = _error_reply(exc)
            call.status = reply.status_code
            if not mock.faults and reply is mock.response:  # fixed replies: framed once
                return call, self._wire(reply, head_only, http10, keep_alive)
            if not mock.faults:  # a handler's reply, likely built for this request
                return call, frame(
                    reply.plan(), head_only=head_only, http10=http10, keep_alive=keep_alive
                )
            ctx = FaultContext(call_index=len(active.calls) - 1)
            steps: Iterator[Step] = iter(reply.plan())
            for fault in mock.faults:
                steps = fault.body(steps, ctx)
            wire = frame(steps, head_only=head_only, http10=http10, keep_alive=keep_alive)
            for fault in mock.faults:
                wire = fault.wire(wire, ctx)
            return call, wire
        call = Call(request, None, self.unmatched_status)
        self.journal.append(call)
        mocks = [a.mock for a in self._active]
        accept = request.headers.get("accept", "")
        reply = status(self.unmatched_status)
        if "json" in accept and "text/plain" not in accept:
            reply = reply.json(no_match_json(request, mocks))
        else:
            reply = reply.header("Content-Type", "text/plain; charset=utf-8").body(
                no_match_text(request, mocks) + "\n"
            )
        return call, frame(reply.plan(), head_only=head_only, http10=http10, keep_alive=keep_alive)

    def _wire(
        self, reply: Reply, head_only: bool, http10: bool, keep_alive: bool
    ) -> Iterator[Step] | _Whole:
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
        key = (head_only, http10, keep_alive)
        plans = entry[1]
        if key in plans:
            steps = plans[key]
            if type(steps) is _Whole:
                return steps
            if steps is not None:
                assert isinstance(steps, tuple)
                return iter(steps)
        elif reply.stream is None or reply.stream.repeat is not None:
            wire = frame(reply.plan(), head_only=head_only, http10=http10, keep_alive=keep_alive)
            steps = tuple(itertools.islice(wire, _WIRE_CACHE_STEPS + 1))
            if _Whole.fits(steps):
                whole = plans[key] = _Whole(steps)
                return whole
            if len(steps) <= _WIRE_CACHE_STEPS:
                plans[key] = steps
                return iter(steps)
            plans[key] = None
        else:
            plans[key] = None
        return frame(reply.plan(), head_only=head_only, http10=http10, keep_alive=keep_alive)

    def _finished(self, call: Call) -> None:
        mark_ended(call)  # call.finished.set(), without building the view
        if self.on_call_end is not None:
            try:
                self.on_call_end(call)
            except Exception as exc:
                self.errors.append(exc)


def _error_reply(exc: BaseException) -> Reply:
    """A 500 whose body is the traceback, for errors raised while producing a reply."""
    text = "".join(traceback.format_exception(exc))
    return status(500).header("Content-Type", "text/plain; charset=utf-8").body(text)


class _Connection(asyncio.Protocol):
    """One client connection: parse requests, run one reply at a time (pipelining kept)."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.parser = httptools.HttpRequestParser(self)
        self.transport: asyncio.Transport | None = None
        self.queue: deque[tuple[Request, bool] | _Bad] = deque()
        self.runner: _Runner | None = None
        self.paused = False
        self.closed = False
        self._url = b""
        self._headers: list[tuple[str, str]] = []
        self._body: list[bytes] = []
        self._head_size = 0
        self._body_size = 0
        self._broken = False
        self._starting = False  # inside next(): replies that end at once don't recurse

    # -- transport callbacks ------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server._connections.add(self)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.server._connections.discard(self)
        if self.runner is not None:
            self.runner.lost()
            self.runner = None

    def pause_writing(self) -> None:
        self.paused = True

    def resume_writing(self) -> None:
        self.paused = False
        if self.runner is not None and self.runner.waiting:
            self.runner.run()

    def data_received(self, data: bytes) -> None:
        if self._broken:
            return
        try:
            self.parser.feed_data(data)
        except _TooLarge as exc:
            self._reject(exc.status, str(exc))
        except httptools.HttpParserUpgrade:
            pass  # upgrades are answered like any request; the rest is ignored
        except httptools.HttpParserError as exc:
            # httptools wraps exceptions raised in callbacks; ours says what was too large
            cause = exc.__context__
            if isinstance(cause, _TooLarge):
                self._reject(cause.status, str(cause))
            else:
                self._reject(400, f"malformed request: {exc}")

    def eof_received(self) -> bool:
        # Keep the connection half-open while a reply runs; the client may have shut down
        # its write side after sending the request.  A stalled reply writes nothing that
        # would reveal a client that has gone, so there EOF counts as the hang-up.
        return self.runner is not None and not self.runner.stalled

    # -- parser callbacks -----------------------------------------------------------------

    def on_message_begin(self) -> None:
        self._url = b""
        self._headers = []
        self._body = []
        self._head_size = 0
        self._body_size = 0

    def on_url(self, url: bytes) -> None:
        self._url += url
        self._grow_head(len(url))

    def on_header(self, name: bytes, value: bytes) -> None:
        self._headers.append((name.decode("latin-1"), value.decode("latin-1")))
        self._head_size += len(name) + len(value) + 4  # _grow_head, inlined: every header
        if self._head_size > MAX_HEAD:
            raise _TooLarge(431, f"request head is larger than {MAX_HEAD} bytes")

    def _grow_head(self, n: int) -> None:
        self._head_size += n
        if self._head_size > MAX_HEAD:
            raise _TooLarge(431, f"request head is larger than {MAX_HEAD} bytes")

    def on_headers_complete(self) -> None:
        if self.runner is None and not self.queue and self.transport is not None:
            for name, value in self._headers:
                if name.lower() == "expect" and value.lower() == "100-continue":
                    self.transport.write(b"HTTP/1.1 100 Continue\r\n\r\n")

    def on_body(self, body: bytes) -> None:
        self._body_size += len(body)
        if self._body_size > MAX_BODY:
            raise _TooLarge(413, f"request body is larger than {MAX_BODY} bytes")
        self._body.append(body)

    def on_message_complete(self) -> None:
        request = Request(
            method=self.parser.get_method().decode("ascii", "replace").upper(),
            target=self._url.decode("latin-1"),
            headers=Headers(tuple(self._headers)),
            body=b"".join(self._body),
            http_version=self.parser.get_http_version(),
        )
        keep_alive = bool(self.parser.should_keep_alive()) and request.http_version != "1.0"
        self.queue.append((request, keep_alive))
        if self.runner is None:
            self.next()

    # -- replies ------------------------------------------------------------------------

    def _reject(self, code: int, message: str) -> None:
        # Keep reading (and discarding) until the close, so unread bytes in our receive
        # buffer do not turn the close into a reset that could hide the error reply.
        self._broken = True
        self.queue.append(_Bad(code, message))
        if self.runner is None:
            self.next()

    def next(self) -> None:
        """Start queued replies until one is still running (or none is left).

        A loop, not recursion: a reply that ends at once calls ``done``, which leaves the
        next one to this loop, so thousands of pipelined requests don't nest calls.
        """
        if self._starting:
            return
        self._starting = True
        try:
            while self.queue and self.runner is None and not self._closing():
                self._start(self.queue.popleft())
        finally:
            self._starting = False

    def _closing(self) -> bool:
        return self.closed or self.transport is None or self.transport.is_closing()

    def _start(self, item: tuple[Request, bool] | _Bad) -> None:
        """Start the reply to one queued request."""
        wire: Iterator[Step] | _Whole
        if isinstance(item, _Bad):
            reply = status(item.status).header("Content-Type", "text/plain; charset=utf-8")
            wire = frame(reply.body(item.message + "\n").plan(), keep_alive=False)
            call = None
            keep_alive = False
        else:
            request, keep_alive = item
            try:
                call, wire = self.server._dispatch(request, keep_alive)
            except Exception as exc:
                self.server.errors.append(exc)
                wire = frame(_error_reply(exc).plan(), keep_alive=False)
                call = Call(request, None, 500)
                self.server.journal.append(call)
                keep_alive = False
        if type(wire) is _Whole:
            if call is not None and not self.paused:
                self._write_whole(wire, call, keep_alive)
                return
            wire = iter(wire.steps)
        assert not isinstance(wire, _Whole)
        self.runner = _Runner(self, wire, call, keep_alive)
        self.runner.run()

    def _write_whole(self, whole: _Whole, call: Call, keep_alive: bool) -> None:
        """Send a short pause-free reply in one write, recording what ``_Runner`` would."""
        call.wire_bytes += whole.wire_bytes
        if whole.body_bytes:
            call.body_bytes += whole.body_bytes
            if len(call.body_sent) < BODY_KEPT:
                call.body_sent += whole.body[: BODY_KEPT - len(call.body_sent)]
        if whole.events > call.events:
            call.events = whole.events
        if self.transport is not None:
            self.transport.write(whole.data)
        call.outcome = "complete"
        self.server._finished(call)
        self.done(keep_alive)

    def done(self, keep_alive: bool) -> None:
        """The current reply ended completely."""
        self.runner = None
        if not keep_alive or (self._broken and not self.queue):
            self.close()
        elif self.queue:
            self.next()

    def close(self) -> None:
        if self.transport is not None and not self.closed:
            self.transport.close()

    def reset(self) -> None:
        """Close with a TCP reset (RST) once what was written has left."""
        transport = self.transport
        if transport is None or self.closed:
            return
        if transport.get_write_buffer_size():
            asyncio.get_running_loop().call_later(0.001, self.reset)
            return
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        transport.abort()

    def shutdown(self) -> None:
        """The server is closing: end whatever runs."""
        if self.transport is not None and not self.closed:
            self.transport.abort()


class _Runner:
    """Runs one wire plan on a connection, keeping the call's record up to date."""

    __slots__ = (
        "call",
        "conn",
        "deadline",
        "handle",
        "keep_alive",
        "loop",
        "stalled",
        "status",
        "steps",
        "waiting",
    )

    def __init__(
        self, conn: _Connection, steps: Iterator[Step], call: Call | None, keep_alive: bool
    ) -> None:
        self.conn = conn
        self.steps = steps
        self.call = call
        self.loop = asyncio.get_running_loop()
        self.deadline = self.loop.time()
        self.handle: asyncio.TimerHandle | asyncio.Handle | None = None
        self.waiting = False
        self.stalled = False
        self.keep_alive = keep_alive
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
                    out.append(step.data)
                    size += len(step.data)
                    if self.call is not None:
                        self._record(step)
                    if size >= _BURST:
                        self._write(out)
                        self.waiting = self._paused()
                        if not self.waiting:
                            self.handle = self.loop.call_soon(self.run)
                        return
                elif kind is Pause:
                    assert isinstance(step, Pause)
                    self.deadline += step.seconds
                    if self.deadline > self.loop.time():
                        self._write(out)
                        self.handle = self.loop.call_at(self.deadline, self.run)
                        return
                elif kind is End:
                    assert isinstance(step, End)
                    self._write(out)
                    self._end(step)
                    return
                else:
                    raise TypeError(f"unexpected step in a wire plan: {step!r}")
        except Exception as exc:
            self._write(out)
            self._failed(exc)
            return
        self._write(out)
        self._end(End("complete"))

    def _paused(self) -> bool:
        return self.conn.paused

    def _write(self, out: list[bytes]) -> None:
        if out and self.conn.transport is not None and not self.conn.closed:
            self.conn.transport.write(out[0] if len(out) == 1 else b"".join(out))
            out.clear()

    def _record(self, step: Raw) -> None:
        call = self.call
        assert call is not None
        if call.status is None:
            call.status = self.status
        call.wire_bytes += len(step.data)
        if step.body:
            call.body_bytes += step.body
            if len(call.body_sent) < BODY_KEPT:
                data = step.data
                if step.body != len(data):
                    start = data.find(b"\r\n") + 2
                    data = data[start : start + step.body]
                call.body_sent += data[: BODY_KEPT - len(call.body_sent)]
        # events go out in order, and a piece spanning events carries its last byte's event
        if step.event is not None and step.event >= call.events:
            call.events = step.event + 1

    def _end(self, end: End) -> None:
        conn = self.conn
        call = self.call
        how = end.how
        if call is not None:
            call.outcome = _OUTCOMES[how]
            if how != "stall":
                self.conn.server._finished(call)
        if how == "complete":
            conn.done(self.keep_alive)
        elif how == "close":
            conn.runner = None
            conn.close()
        elif how == "reset":
            conn.runner = None
            conn.reset()
        else:  # "stall": keep the runner; the client's hang-up (EOF or reset) ends it
            self.stalled = True

    def _failed(self, exc: Exception) -> None:
        self.conn.server.errors.append(exc)
        if self.call is not None:
            self.call.outcome = "closed"
            self.conn.server._finished(self.call)
        self.conn.runner = None
        if self.conn.transport is not None:
            self.conn.transport.abort()

    def lost(self) -> None:
        """The connection went away (the client hung up, or the server closed)."""
        if self.handle is not None:
            self.handle.cancel()
            self.handle = None
        call = self.call
        if call is not None and call.outcome == "in progress":
            call.outcome = "client hung up"
            self.conn.server._finished(call)
        elif call is not None and call.outcome == "stalled":
            self.conn.server._finished(call)
        close = getattr(self.steps, "close", None)
        if close is not None:
            close()
