"""HTTP/2 (opt-in, ``Server(http2=True)``): one connection, many streams, each a ``Line``.

The sans-I/O ``h2`` library parses frames and keeps the protocol's state; this module
turns its events into the same ``Request`` the HTTP/1.1 connection builds, and runs the
same dispatch and the same ``Runner`` on each stream.  A ``Stream`` is the runner's
connection: it frames replies without transfer coding (``Framing.http10``, a body as
it is), and its ``transport`` takes the bytes the runner writes, reads the head off
them (``HEADERS``) and sends the rest as ``DATA`` frames within the flow-control
windows, holding the runner (``paused``) while the window is shut, until the client's
``WINDOW_UPDATE``.  Pauses keep their exact timing (the runner's deadlines).

Rule 3: bounded (docs/limits.md, "HTTP/2").  A stream holds what the window keeps back as
views of the runner's bytes (a cached reply's bytes are shared by every stream sending
it, never copied), and its runner waits while anything is held; a stream that can send
nothing for ``idle_timeout`` is reset (``CANCEL``).  Control frames (PING, SETTINGS,
PRIORITY) spend a per-connection budget (``Calm``); a flood past it gets ``GOAWAY
ENHANCE_YOUR_CALM`` and the connection closes.  Input is read in ``_PIECE`` slices, so a
flood is cut off after one slice, not after all the socket had.

Rule 1: faults are per stream.  A cut (``End("close")``) is ``RST_STREAM`` with
``CANCEL``, a reset ``RST_STREAM`` with ``INTERNAL_ERROR``, each once the bytes before
it have been sent; the other streams of the connection go on.  A stall keeps the stream
open until the client resets it or hangs up.

Rule 2: reached by ALPN (``h2``, under TLS: ``_tls.Handshake``) or, on plain TCP, by
prior knowledge: ``Sniff`` reads the first bytes of a connection and hands it to HTTP/2
when they are the connection preface, to the HTTP/1.1 ``Connection`` otherwise.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol, cast

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.exceptions

from .._core._reply import error_reply, status
from .._core._request import Headers, Request
from .._core._wire import frame
from ._connection import MAX_BODY, MAX_HEAD, Connection, no_delay
from ._journal import Call, CallList, mark_ended
from ._runner import Host, Plan, Runner, Steps

__all__ = ["CONTROL_BURST", "CONTROL_RATE", "PREFACE", "Calm", "Http2Connection", "Sniff", "Stream"]

#: What an HTTP/2 client sends first (RFC 9113 §3.4).
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
_HOP_BY_HOP = frozenset(
    {b"connection", b"keep-alive", b"proxy-connection", b"transfer-encoding", b"upgrade"}
)
_NO_TRAILERS = Headers()
_OPEN = -1  # a stream not ending yet (``Stream.ending``)
#: Control frames (PING, SETTINGS, PRIORITY) a connection may send at once ...
CONTROL_BURST = 1000
#: ... and how many a second it earns back (``Calm``).
CONTROL_RATE = 100.0
_PIECE = 16 * 1024  # bytes handed to h2 at a time (a flood is seen after one piece)
_CONTROL = (h2.events.PingReceived, h2.events.RemoteSettingsChanged, h2.events.PriorityUpdated)


class Calm:
    """A connection's budget of control frames: a bucket of ``burst`` tokens refilled at
    ``rate`` a second.  ``spend(n)`` is False once the client has sent more than the
    bucket holds (a flood: nginx and Go's server answer it ``ENHANCE_YOUR_CALM``)."""

    __slots__ = ("at", "burst", "clock", "rate", "tokens")

    def __init__(
        self,
        burst: int = CONTROL_BURST,
        rate: float = CONTROL_RATE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.burst, self.rate, self.clock = burst, rate, clock
        self.tokens = float(burst)
        self.at = clock()

    def spend(self, n: int) -> bool:
        """Take ``n`` tokens; False when there were not enough (the flood's verdict)."""
        now = self.clock()
        self.tokens = min(float(self.burst), self.tokens + (now - self.at) * self.rate)
        self.at = now
        self.tokens -= n
        return self.tokens >= 0


class Server(Host, Protocol):
    """What an HTTP/2 connection needs of the server (``_server.Server`` is one)."""

    idle_timeout: float

    @property
    def journal(self) -> CallList: ...

    @property
    def _connections(self) -> set[Any]: ...

    def _dispatch(self, request: Request, keep_alive: bool) -> tuple[Call, Plan]: ...


class Sniff(asyncio.Protocol):
    """A plain TCP connection of an ``http2=True`` server: HTTP/1.1 (``first``, which
    has the connection from the start, so timeouts and shutdown apply) until its first
    bytes turn out to be the HTTP/2 preface, then an ``Http2Connection``."""

    def __init__(self, first: Connection, second: Callable[[], asyncio.Protocol]) -> None:
        self.first = first
        self.second = second
        self.transport: asyncio.Transport | None = None
        self.seen = b""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)
        self.first.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        seen = self.seen + data
        if len(seen) < len(PREFACE) and PREFACE.startswith(seen):
            self.seen = seen  # perhaps the preface: wait for the rest of it
            return
        self.seen = b""
        assert self.transport is not None
        chosen: asyncio.Protocol = self.first
        if seen.startswith(PREFACE):
            self.first.server._connections.discard(self.first)
            self.first.closed = True  # never used: the sweep and shutdown forget it
            chosen = self.second()
            chosen.connection_made(self.transport)
        self.transport.set_protocol(chosen)
        chosen.data_received(seen)

    def eof_received(self) -> bool | None:
        if self.seen:
            self.first.data_received(self.seen)
        return self.first.eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        self.first.connection_lost(exc)

    def pause_writing(self) -> None:
        self.first.pause_writing()

    def resume_writing(self) -> None:
        self.first.resume_writing()


class Http2Connection(asyncio.Protocol):
    """One HTTP/2 client connection: ``h2``'s state machine and a ``Stream`` per
    request."""

    def __init__(self, server: Server) -> None:
        self.server = server
        config = h2.config.H2Configuration(client_side=False, header_encoding=None)
        self.h2 = h2.connection.H2Connection(config=config)
        self.transport: asyncio.Transport | None = None
        self.streams: dict[int, Stream] = {}
        self.paused = False
        self.closed = False
        self.server_closed = False
        self.ticks = 0  # the sweep's (see Connection): moves when a stream ends
        self.mark: tuple[int, float] | None = None
        self.calm = Calm()
        self.stuck_timer: asyncio.TimerHandle | None = None  # see ``stuck``

    # -- transport callbacks ------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)
        no_delay(transport)
        self.server._connections.add(self)
        self.h2.initiate_connection()
        self.flush()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.server._connections.discard(self)
        if self.stuck_timer is not None:
            self.stuck_timer.cancel()
            self.stuck_timer = None
        for stream in list(self.streams.values()):
            stream.lost()
        self.streams.clear()

    def pause_writing(self) -> None:
        self.paused = True
        for stream in self.streams.values():
            stream.paused = True

    def resume_writing(self) -> None:
        self.paused = False
        for stream in list(self.streams.values()):
            stream.pump()

    def eof_received(self) -> bool | None:
        return None  # the client is gone: close (its streams end as hung up)

    def data_received(self, data: bytes) -> None:
        for at in range(0, len(data), _PIECE):
            if self.closed:
                return
            piece = data if len(data) <= _PIECE else data[at : at + _PIECE]
            try:
                events = self.h2.receive_data(piece)
            except h2.exceptions.ProtocolError:
                self.flush()  # the GOAWAY h2 queued says why
                self.close()
                return
            if not self.calm.spend(sum(isinstance(e, _CONTROL) for e in events)):
                self.calm_down()
                return
            for event in events:
                self._event(event)
            self.flush()

    def calm_down(self) -> None:
        """A control-frame flood: ``GOAWAY ENHANCE_YOUR_CALM``, then close (at once when
        the client does not read, so nothing waits on it)."""
        self.h2.close_connection(error_code=h2.errors.ErrorCodes.ENHANCE_YOUR_CALM)
        self.flush()
        transport = self.transport
        if transport is not None and not self.closed:
            self.closed = True
            if transport.get_write_buffer_size():
                transport.abort()
            else:
                transport.close()

    def _event(self, event: h2.events.Event) -> None:
        if isinstance(event, h2.events.RequestReceived):
            assert event.stream_id is not None
            assert event.headers is not None
            self.streams[event.stream_id] = Stream(self, event.stream_id, event.headers)
            self.ticks += 1
            return
        if isinstance(event, h2.events.DataReceived):
            assert event.stream_id is not None
            self.h2.acknowledge_received_data(event.flow_controlled_length or 0, event.stream_id)
        if isinstance(event, h2.events.WindowUpdated | h2.events.RemoteSettingsChanged):
            wanted = getattr(event, "stream_id", 0)
            for each in list(self.streams.values()):
                if not wanted or each.stream_id == wanted:
                    each.pump()
            return
        if isinstance(event, h2.events.ConnectionTerminated):
            self.close()
            return
        stream = self.streams.get(getattr(event, "stream_id", None) or 0)
        if stream is None:
            return
        if isinstance(event, h2.events.DataReceived):
            stream.received(event.data or b"")
        elif isinstance(event, h2.events.TrailersReceived):
            stream.trailers = _pairs(event.headers or [])
        elif isinstance(event, h2.events.StreamEnded):
            stream.start()
        elif isinstance(event, h2.events.StreamReset):
            stream.lost()

    # -- writing ------------------------------------------------------------------------

    def flush(self) -> None:
        data = self.h2.data_to_send()
        if data and self.transport is not None and not self.closed:
            self.transport.write(data)

    def ended(self, stream: Stream) -> None:
        self.streams.pop(stream.stream_id, None)
        self.ticks += 1

    def close(self) -> None:
        if self.transport is not None and not self.closed:
            self.transport.close()

    def stuck(self) -> None:
        """A stream holds bytes it cannot send: check on it once ``idle_timeout`` passes."""
        if self.stuck_timer is None and not self.closed:
            loop = asyncio.get_running_loop()
            self.stuck_timer = loop.call_later(self.server.idle_timeout, self._unstick)

    def _unstick(self) -> None:
        """Reset the streams stuck for ``idle_timeout``; check again for the others."""
        self.stuck_timer = None
        now = time.monotonic()
        limit = self.server.idle_timeout
        for stream in list(self.streams.values()):
            since = stream.stuck_since
            if since is not None and now - since >= limit:
                stream.timed_out()
        self.flush()
        waits = [s.stuck_since for s in self.streams.values() if s.stuck_since is not None]
        if waits and not self.closed:
            delay = max(0.0, min(waits) + limit - now)
            self.stuck_timer = asyncio.get_running_loop().call_later(delay, self._unstick)

    # -- the server's sweep and shutdown ------------------------------------------------

    def waiting(self) -> float | None:
        """The idle timeout while no stream is open; None (no limit) while one is."""
        if self.closed or self.streams:
            return None
        return self.server.idle_timeout

    def timed_out(self) -> None:
        if not self.closed and not self.streams:
            self.h2.close_connection()
            self.flush()
            self.close()

    def shutdown(self) -> None:
        self.server_closed = True
        if self.transport is not None and not self.closed:
            self.transport.abort()


class _Out(asyncio.Transport):
    """A stream's transport: what the runner writes goes to ``Stream.write``."""

    def __init__(self, stream: Stream) -> None:
        super().__init__()
        self.stream = stream

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.stream.write(data)

    def writelines(self, list_of_data: Any) -> None:
        for data in list_of_data:
            self.stream.write(data)

    def abort(self) -> None:
        self.stream.finish(h2.errors.ErrorCodes.INTERNAL_ERROR)

    def close(self) -> None:
        self.stream.finish(None)

    def is_closing(self) -> bool:
        return self.stream.closed or self.stream.ending != _OPEN

    def get_write_buffer_size(self) -> int:
        return self.stream.held

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        below = self.stream.conn.transport
        return default if below is None else below.get_extra_info(name, default)


class Stream:
    """One request and its reply on an HTTP/2 connection: the ``Line`` its runner runs
    on (``_runner.Line``)."""

    def __init__(
        self, conn: Http2Connection, stream_id: int, headers: list[tuple[bytes, bytes]]
    ) -> None:
        self.conn = conn
        self.server: Host = conn.server
        self.stream_id = stream_id
        self.headers = _pairs(headers)
        self.trailers: tuple[tuple[str, str], ...] = ()
        self.body = bytearray()
        self.transport: asyncio.Transport | None = _Out(self)
        self.runner: Runner | None = None
        self.paused = conn.paused
        self.closed = False
        self.head = b""  # the reply's head, until its blank line has been written
        self.head_sent = False
        # body bytes the flow-control window holds back: views of the runner's bytes
        self.pending: deque[memoryview] = deque()
        self.held = 0  # their length
        self.stuck_since: float | None = None  # since when ``pending`` could not move
        # how the stream ends once ``pending`` is out: _OPEN (not yet), None (END_STREAM),
        # or the error code of an RST_STREAM
        self.ending: int | None = _OPEN
        self.too_large = False

    @property
    def server_closed(self) -> bool:
        return self.conn.server_closed

    @server_closed.setter
    def server_closed(self, value: bool) -> None:
        self.conn.server_closed = value

    # -- the request ----------------------------------------------------------------------

    def received(self, data: bytes) -> None:
        if len(self.body) + len(data) > MAX_BODY:
            self.too_large = True
            self.body.clear()
        elif not self.too_large:
            self.body += data

    def start(self) -> None:
        """The request is whole: route it and start its reply."""
        if self.too_large:
            self._refuse(413, f"request body is larger than {MAX_BODY} bytes")
            return
        request = self.request()
        if request is None:
            self._refuse(400, "malformed request: no :method or :path")
            return
        try:
            call, plan = self.conn.server._dispatch(request, True)
        except Exception as exc:
            self.server.errors.append(exc)
            call = Call(request, None, 500)
            self.conn.server.journal.append(call)
            plan = Steps(frame(error_reply(exc).plan(), http10=True))
        plan.start(self, call, True)

    def request(self) -> Request | None:
        """The ``Request`` the HTTP/1.1 connection would build (``host`` from
        ``:authority``, pseudo-header fields left out), version ``"2"``."""
        pseudo = {name: value for name, value in self.headers if name.startswith(":")}
        fields = [(name, value) for name, value in self.headers if not name.startswith(":")]
        method, target = pseudo.get(":method"), pseudo.get(":path")
        if not method or not target:
            return None
        if ":authority" in pseudo and not any(name == "host" for name, _ in fields):
            fields.insert(0, ("host", pseudo[":authority"]))
        trailers = Headers(self.trailers) if self.trailers else _NO_TRAILERS
        return Request(method, target, Headers(tuple(fields)), bytes(self.body), "2", trailers)

    def _refuse(self, code: int, message: str) -> None:
        reply = status(code).header("Content-Type", "text/plain; charset=utf-8")
        Steps(frame(reply.body(message + "\n").plan(), http10=True)).start(self, None, True)

    # -- the reply ----------------------------------------------------------------------

    def write(self, data: bytes | bytearray | memoryview) -> None:
        """Bytes from the runner: the head (HTTP/1.1 text, read into ``HEADERS``), then
        body bytes, sent as DATA frames as the windows allow (held as views: the
        runner's bytes are not copied)."""
        if self.closed or self.ending != _OPEN:
            return
        if not self.head_sent:
            self.head += bytes(data)
            end = self.head.find(b"\r\n\r\n")
            if end < 0:
                if len(self.head) > MAX_HEAD:
                    self.finish(h2.errors.ErrorCodes.INTERNAL_ERROR)
                return
            data = self.head[end + 4 :]
            head = self._head_fields(self.head[:end])
            self.head = b""
            if head is None:  # a head broken on purpose (a quirk): nothing HTTP/2 can say
                self.finish(h2.errors.ErrorCodes.PROTOCOL_ERROR)
                return
            self.conn.h2.send_headers(self.stream_id, head)
            self.head_sent = True
        if data:
            if type(data) is bytearray:  # a buffer its writer may reuse: hold a copy
                data = bytes(data)
            view = memoryview(data).cast("B")
            self.pending.append(view)
            self.held += len(view)
        self.pump(wake=False)

    @staticmethod
    def _head_fields(head: bytes) -> list[tuple[bytes, bytes]] | None:
        lines = head.split(b"\r\n")
        parts = lines[0].split(b" ", 2)
        if len(parts) < 2 or not parts[1].isdigit():
            return None
        fields = [(b":status", parts[1])]
        for line in lines[1:]:
            name, sep, value = line.partition(b":")
            if not sep:
                return None
            name = name.strip().lower()
            if name not in _HOP_BY_HOP:
                fields.append((name, value.strip()))
        return fields

    def pump(self, *, wake: bool = True) -> None:
        """Send what the windows allow; end the stream once all is out; wake a runner
        that waits for the window (``wake``: not when called from the runner's write)."""
        if self.closed:
            return
        h2c = self.conn.h2
        pending = self.pending
        moved = False
        try:
            while pending and not self.conn.paused:
                window = h2c.local_flow_control_window(self.stream_id)
                room = min(window, h2c.max_outbound_frame_size)
                if room <= 0:
                    break
                first = pending[0]
                if len(first) <= room:
                    pending.popleft()
                else:
                    pending[0] = first[room:]
                    first = first[:room]
                h2c.send_data(self.stream_id, first)
                self.held -= len(first)
                moved = True
            if not pending and self.ending != _OPEN:
                self._end()
        except h2.exceptions.StreamClosedError:
            self.lost()
        self.conn.flush()
        if not pending or self.closed:
            self.stuck_since = None
        elif moved or self.stuck_since is None:
            self.stuck_since = time.monotonic()
            self.conn.stuck()
        self.paused = bool(pending) or self.conn.paused
        runner = self.runner
        if wake and not self.paused and runner is not None and runner.waiting:
            runner.run()

    def finish(self, code: int | None) -> None:
        """End the stream (None: END_STREAM; a code: RST_STREAM) once ``pending`` is out."""
        if self.closed or self.ending != _OPEN:
            return
        self.ending = code
        self.pump(wake=False)

    def _end(self) -> None:
        code = self.ending
        h2c = self.conn.h2
        if code is None and not self.head_sent:
            code = h2.errors.ErrorCodes.INTERNAL_ERROR  # ended before a head: nothing to end
        if code is None:
            h2c.end_stream(self.stream_id)
        else:
            h2c.reset_stream(self.stream_id, int(code))
        self.closed = True
        self.conn.ended(self)

    # -- the Line a runner runs on ------------------------------------------------------

    def done(self, keep_alive: bool) -> None:
        self.runner = None
        self.finish(None)

    def close(self) -> None:
        self.finish(None)

    def cut(self) -> None:
        self.finish(h2.errors.ErrorCodes.CANCEL)

    def reset(self, waited: float = 0.0) -> None:
        self.finish(h2.errors.ErrorCodes.INTERNAL_ERROR)

    def timed_out(self) -> None:
        """Nothing could be sent for ``idle_timeout`` (a window kept shut, a client that
        does not read): ``RST_STREAM CANCEL``; the call ends ``closed``."""
        runner = self.runner
        call = None if runner is None else runner.call
        if call is not None and call.outcome == "in progress":
            call.outcome = "closed"
            mark_ended(call)
            self.conn.server._finished(call)
        if not self.closed:
            with contextlib.suppress(h2.exceptions.StreamClosedError):
                self.conn.h2.reset_stream(self.stream_id, h2.errors.ErrorCodes.CANCEL)
        self.lost()

    def lost(self) -> None:
        """The client reset the stream, or the connection went away."""
        self.closed = True
        self.pending.clear()
        self.held = 0
        self.stuck_since = None
        self.conn.ended(self)
        runner, self.runner = self.runner, None
        if runner is not None:
            runner.lost()


def _pairs(headers: list[tuple[bytes, bytes]]) -> tuple[tuple[str, str], ...]:
    return tuple((bytes(n).decode("latin-1"), bytes(v).decode("latin-1")) for n, v in headers)
