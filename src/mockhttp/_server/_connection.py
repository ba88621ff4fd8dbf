"""One client connection: the ``asyncio.Protocol`` around the sans-I/O ``_http1.Http1``.

Bytes go in to ``Http1``, which gives events (``_http1.py``); each request is answered
by a plan the server gives (``Server._dispatch``), run one at a time in the order they
came.  Pipelined requests queue up; past ``MAX_QUEUED`` of them the connection stops
reading (``pause_reading``) until the replies catch up, and a read of thousands is
parsed a slice at a time.  A request that cannot be parsed is answered with the status
``Http1`` gives (400, 413, 431) and the connection closes; the server goes on serving
others.  A head that does not arrive within the server's ``header_timeout``, or a body
that pauses that long, gets a 408 and a close; an idle connection closes after
``idle_timeout``.

An ``Upgrade`` request stops the reading until its plan is known: a ``Switch`` plan
(``_upgrade.py``) hands the transport, with the bytes the client sent after the request,
to another protocol (``switch``); any other reply answers it as HTTP/1.1 and the bytes
that followed are parsed as requests.

A request the lane knows comes from ``Http1`` as a ``Known`` event (``_lane.py``): it is
journaled (``Server._known``) and its kept bytes written here, in its turn, with no
``Message`` or plan built (``Hit.start`` and ``done`` inlined in ``_handle``).  Measured
(``docs/performance.md``, "no cost, met"): 39.2k instructions a small keep-alive request,
against 46.7k when the lane was a plan the server gave for a ``Message``, and
40.2k before the house's sans-I/O parser.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import socket
import struct
import termios
from collections import deque
from typing import Any, Protocol, cast

from .._core._reply import error_reply, status
from .._core._request import Request
from .._core._wire import frame
from ._http1 import (
    MAX_BODY,
    MAX_HEAD,
    MAX_PIECES,
    Bad,
    Continue,
    Http1,
    Known,
    Message,
    Upgrade,
    request_of,
)
from ._journal import Call, CallList
from ._lane import Hit, Lane
from ._runner import Host, Plan, Runner, Steps
from ._upgrade import Switch

__all__ = [
    "MAX_BODY",
    "MAX_HEAD",
    "MAX_PIECES",
    "MAX_QUEUED",
    "Connection",
    "Server",
    "Switched",
    "no_delay",
]

MAX_QUEUED = 64  # pipelined requests waiting for their reply before reading pauses
_SLICE = 16 * 1024  # bytes parsed at a time, so that a full queue stops the parsing
RESET_WAIT = 10.0  # seconds a reset waits for written bytes to leave before it goes anyway
_TIOCOUTQ = getattr(termios, "TIOCOUTQ", None)  # Linux: bytes in a socket's send queue


def no_delay(transport: asyncio.BaseTransport) -> None:
    """Send small writes (an event) at once: no Nagle delay on the connection's socket."""
    sock = transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def _kernel_unsent(sock: socket.socket | None) -> int:
    """Bytes the kernel has not yet sent (or had acknowledged) on ``sock``; 0 if unknown."""
    if sock is None or _TIOCOUTQ is None:
        return 0
    try:
        queued: int = struct.unpack("i", fcntl.ioctl(sock.fileno(), _TIOCOUTQ, b"\0" * 4))[0]
    except OSError:
        return 0
    return queued


def _unsent(transport: asyncio.BaseTransport, sock: socket.socket | None) -> int:
    """Bytes written but not yet sent: the transport's buffer (under asyncio's TLS, the TCP
    transport's below it too) and the kernel's send queue."""
    size: int = cast(asyncio.WriteTransport, transport).get_write_buffer_size()
    below = getattr(getattr(transport, "_ssl_protocol", None), "_transport", None)
    if below is not None:
        size += below.get_write_buffer_size()
    return size + _kernel_unsent(sock)


class Server(Host, Protocol):
    """What a connection needs of the server (``_server.Server`` is one)."""

    header_timeout: float
    idle_timeout: float

    @property
    def journal(self) -> CallList: ...

    @property
    def _connections(self) -> set[Any]: ...  # (HTTP/2 connections too: ``_h2.py``)

    @property
    def _lane(self) -> Lane | None: ...  # the kept answers the parser asks (``_lane.py``)

    def _dispatch(self, request: Request, keep_alive: bool, tested: bool) -> tuple[Call, Plan]:
        """The call journaled and the plan to run for ``request`` (route → journal → plan)."""
        ...

    def _known(self, hit: Hit, headers: list[tuple[str, str]]) -> None:
        """Journal a request the lane answers with ``hit`` (a ``Known`` event)."""
        ...


class Connection(asyncio.Protocol):
    """One client connection: parse requests, run one reply at a time (pipelining kept)."""

    def __init__(self, server: Server) -> None:
        self.server = server
        lane = server._lane
        self.h1 = Http1(None if lane is None else lane.hits)
        self.transport: asyncio.Transport | None = None
        self.queue: deque[Message | Known | Bad] = deque()
        self.runner: Runner | None = None
        self.paused = False
        self.closed = False
        self._next: asyncio.Handle | None = None  # replies to start on the next turn
        self._turn = MAX_QUEUED  # replies this callback may still start (see next)
        self._held = b""  # bytes read but not parsed while the queue is full
        self._release: asyncio.Handle | None = None  # parses them on a later turn
        self._broken = False  # a Bad is queued: read and drop until the close
        self._continue = False  # a request head asked for "100 Continue" not yet sent
        self.server_closed = False
        self._eof = False  # the client shut down its side: close once the replies are done
        self._starting = False  # inside next(): replies that end at once don't recurse
        self._reading = True  # False while pause_reading holds back a pipelining client
        self.switched: asyncio.Protocol | None = None  # the protocol after an upgrade
        # the server's sweep times out a head that takes too long, or a connection idle
        # for too long: ``ticks`` moves when a head begins, body bytes come or a reply
        # ends (a new wait), ``mark`` is (ticks, when the sweep first saw this wait)
        self._ended = 0  # replies ended
        self.mark: tuple[int, float] | None = None

    @property
    def ticks(self) -> int:
        return self._ended + self.h1.progress

    # -- transport callbacks ------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # any loop's stream transport (uvloop's are not asyncio.Transport subclasses)
        self.transport = cast(asyncio.Transport, transport)
        no_delay(transport)
        self.server._connections.add(self)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.server._connections.discard(self)
        self.queue.clear()
        self._held = b""
        for handle in (self._next, self._release):
            if handle is not None:
                handle.cancel()
        self._next = self._release = None
        if self.runner is not None:
            self.runner.lost()
            self.runner = None

    def pause_writing(self) -> None:
        self.paused = True

    def resume_writing(self) -> None:
        self.paused = False
        runner = self.runner
        if runner is not None and runner.waiting:
            # Not run from here: resume_writing is called inside the transport's write
            # callback, and a reply that ends now would close the transport inside it
            # (asyncio then calls connection_lost twice).
            runner.waiting = False
            runner.handle = runner.loop.call_soon(runner.run)

    def data_received(self, data: bytes) -> None:
        if self._held:  # reading is paused: a loop may still hand over one last read
            self._held += data
            return
        self._turn = MAX_QUEUED  # a new callback of the loop: a new turn
        if len(data) > _SLICE:
            self._take(data)
            return
        events = self.h1.feed(data)  # most reads: one slice (_take, inlined)
        if events:
            self._handle(events)

    def _take(self, data: bytes) -> None:
        """Parse ``data``, a slice at a time: once the queue is full, the rest is held
        back (and reading paused) until the replies catch up, so a read of thousands of
        pipelined requests is neither queued whole nor parsed in one callback."""
        for start in range(0, len(data), _SLICE):
            events = self.h1.feed(data[start : start + _SLICE])
            if events:
                self._handle(events)
            if self._broken:
                return
            rest = start + _SLICE
            if rest < len(data) and len(self.queue) >= MAX_QUEUED:
                self._held = data[rest:]
                self._pause_reading()
                return

    def _handle(self, events: list[Message | Known | Continue | Bad]) -> None:
        """Act on what the bytes completed (``_http1.py``)."""
        for event in events:
            if type(event) is Known:  # the lane's kept answer (``_lane.py``): most requests
                self._continue = False
                transport = self.transport
                # next in line, within this turn's replies, writable and not closing:
                # journal it and write the kept bytes now (Hit.start and done, inlined)
                if (
                    self.runner is None
                    and not self.queue
                    and self._turn > 0
                    and not self.paused
                    and transport is not None
                    and not transport.is_closing()
                ):
                    self._turn -= 1
                    hit = event[0]
                    self.server._known(hit, event[1])
                    transport.write(hit.whole.data)
                    self._ended += 1
                    if not event[2] or self._broken or self._eof:
                        self.close()
                    elif not self._reading:
                        self._resume_reading()
                    continue
                self._queue(event)
            elif type(event) is Message:
                self._continue = False  # the body came (the client did not wait for the 100)
                transport = self.transport
                # next in line (nothing runs or waits: no next() is pending or under way
                # either), within this turn's replies and not closing: start its reply now
                # (next() and _start, inlined: most requests)
                if (
                    self.runner is None
                    and not self.queue
                    and self._turn > 0
                    and transport is not None
                    and not transport.is_closing()
                ):
                    self._turn -= 1
                    try:  # (Message: method, target, version, keep_alive, ..., tested)
                        call, plan = self.server._dispatch(request_of(event), event[3], event[7])
                    except Exception as exc:
                        call, plan = self._failed(event, exc)
                        plan.start(self, call, False)
                        continue
                    plan.start(self, call, event[3])  # (keep_alive)
                    continue
                self._queue(event)
            elif type(event) is Upgrade:
                self._continue = False
                self._pause_reading()  # read no more until its plan says what comes next
                self._queue(event)
            elif type(event) is Continue:
                # RFC 9110 §10.1.1: "100 Continue" when this request is next in line;
                # behind a running reply, once that reply ends
                self._continue = True
                self._send_continue()
            else:
                assert isinstance(event, Bad)
                self._reject(event)

    def _queue(self, message: Message | Known) -> None:
        """``message`` waits behind the replies before it."""
        self.queue.append(message)
        if self.runner is None:
            self.next()
        if len(self.queue) >= MAX_QUEUED:
            self._pause_reading()  # a client pipelining faster than it reads: wait for it

    def eof_received(self) -> bool:
        # Keep the connection half-open while a reply runs; the client may have shut down
        # its write side after sending the request (and is reading until our EOF: `done`
        # closes once the replies are out).  A stalled reply writes nothing that would
        # reveal a client that has gone, so there EOF counts as the hang-up.
        self._eof = True
        if self.runner is not None:
            eof = getattr(self.runner.fed, "eof", None)
            if eof is not None and eof():  # a fed reply may take an EOF for a hang-up:
                return False  # close (connection_lost ends the call)
            return not self.runner.stalled
        return bool(self.queue)  # pipelined requests still to answer (on a later turn)

    def _send_continue(self) -> None:
        if self._continue and self.runner is None and not self.queue and not self._closing():
            self._continue = False
            assert self.transport is not None
            self.transport.write(b"HTTP/1.1 100 Continue\r\n\r\n")

    # -- replies ------------------------------------------------------------------------

    def _reject(self, bad: Bad) -> None:
        # Keep reading (and discarding: ``Http1`` reads nothing more) until the close, so
        # unread bytes in our receive buffer do not turn the close into a reset that could
        # hide the error reply.
        self._broken = True
        self.queue.append(bad)
        if self.runner is None:
            self.next()

    def next(self) -> None:
        """Start queued replies until one is still running (or none is left).

        A loop, not recursion: a reply that ends at once calls ``done``, which leaves the
        next one to this loop, so thousands of pipelined requests don't nest calls.  At
        most ``MAX_QUEUED`` replies a turn of the loop: one read can hold thousands of
        pipelined requests, and answering them all in one callback kept every other
        connection waiting; the rest wait in the queue for the next turns.
        """
        if self._starting or self._next is not None:
            return
        self._starting = True
        try:
            while self.queue and self.runner is None and not self._closing():
                if self._turn <= 0:  # a turn's worth of replies: other connections go first
                    self._next = asyncio.get_running_loop().call_soon(self._next_turn)
                    return
                self._turn -= 1
                self._start(self.queue.popleft())
        finally:
            self._starting = False
        self._send_continue()
        if not self._reading and len(self.queue) < MAX_QUEUED // 2:
            self._resume_reading()

    def _next_turn(self) -> None:
        self._next = None
        self._turn = MAX_QUEUED
        if not self.closed:
            self.next()

    def _pause_reading(self) -> None:
        if self._reading and self.transport is not None:
            self._reading = False
            self.transport.pause_reading()

    def _resume_reading(self) -> None:
        if self.h1.trailing is not None:  # an upgrade request waits for its plan
            return
        if self._held:  # parse what was held back first, on a turn of its own
            if self._release is None:
                self._release = asyncio.get_running_loop().call_soon(self._release_held)
            return
        if self.transport is not None and not self._closing():
            self._reading = True
            self.transport.resume_reading()

    def _release_held(self) -> None:
        self._release = None
        held, self._held = self._held, b""
        if self.closed or self._broken:
            return
        self._turn = MAX_QUEUED
        self._take(held)
        if not self._held and len(self.queue) < MAX_QUEUED // 2:
            self._resume_reading()

    def _closing(self) -> bool:
        return self.closed or self.transport is None or self.transport.is_closing()

    def _start(self, item: Message | Known | Bad) -> None:
        """Start the reply to one queued request."""
        plan: Plan
        call: Call | None
        if type(item) is Known:
            hit = item[0]
            self.server._known(hit, item[1])
            hit.start(self, None, item[2])
            return
        if type(item) is Bad:
            reply = status(item.status).header("Content-Type", "text/plain; charset=utf-8")
            plan = Steps(frame(reply.body(item.message + "\n").plan(), keep_alive=False))
            call = None
            keep_alive = False
        else:
            assert isinstance(item, Message)
            keep_alive = item.keep_alive
            try:
                call, plan = self.server._dispatch(request_of(item), keep_alive, item.tested)
            except Exception as exc:
                call, plan = self._failed(item, exc)
                keep_alive = False
            if type(item) is Upgrade and type(plan) is not Switch:
                self._answered_upgrade()
        plan.start(self, call, keep_alive)

    def _failed(self, message: Message, exc: Exception) -> tuple[Call, Plan]:
        """The server raised while dispatching ``message``: a 500, and the call journaled."""
        self.server.errors.append(exc)
        call = Call(request_of(message), None, 500)
        self.server.journal.append(call)
        return call, Steps(frame(error_reply(exc).plan(), keep_alive=False))

    def _answered_upgrade(self) -> None:
        """An upgrade request is answered as HTTP/1.1: what the client sent after it is
        parsed as requests, on a turn of its own (``_release_held``)."""
        self._held = self.h1.resume() + self._held
        if not self._reading:
            self._resume_reading()

    def switch(self, protocol: asyncio.Protocol) -> bool:
        """Hand the transport to ``protocol`` after an upgrade request (a ``Switch`` plan,
        ``_runner.py``), with the bytes the client sent after the request; False when this
        request did not ask to switch (the plan answers otherwise).  The connection stays
        among the server's (its shutdown ends the transport) until the transport is lost.
        """
        transport = self.transport
        if not self.upgrading or transport is None:
            return False
        rest = self.h1.resume() + self._held
        self._held = b""
        self.queue.clear()  # (nothing can be queued behind the upgrade request)
        self.switched = protocol
        transport.set_protocol(Switched(self, protocol))
        protocol.connection_made(transport)
        if rest:
            protocol.data_received(rest)
        if not self._reading and not transport.is_closing():
            self._reading = True
            transport.resume_reading()
        return True

    @property
    def upgrading(self) -> bool:
        """True while an upgrade request is answered: ``switch`` may take the transport."""
        return self.h1.trailing is not None and not self._closing()

    def done(self, keep_alive: bool) -> None:
        """The current reply ended completely."""
        self.runner = None
        self._ended += 1
        if not keep_alive or ((self._broken or self._eof) and not self.queue):
            self.close()
        elif self.queue:
            self.next()
        else:
            if self._continue:
                self._send_continue()
            if not self._reading:
                self._resume_reading()

    def close(self) -> None:
        if self.transport is not None and not self.closed:
            self.transport.close()

    def reset(self, waited: float = 0.0) -> None:
        """Close with a TCP reset (RST) once what was written has reached the client.

        A reset throws away what is still queued, in asyncio's buffer or the kernel's send
        queue, so it waits for both to empty (polling; up to ``RESET_WAIT`` seconds for a
        client that does not read, then it resets anyway).
        """
        self._abort_when_sent(waited, rst=True)

    def cut(self) -> None:
        """End the connection in the middle of a reply (a fault): a close; under TLS an
        abort once what was written has left, without ``close_notify``, so the client
        sees a truncation rather than a clean end (``_tls.py``)."""
        if self.transport is not None and self.transport.get_extra_info("sslcontext"):
            self._abort_when_sent(0.0, rst=False)
        else:
            self.close()

    def _abort_when_sent(self, waited: float, *, rst: bool) -> None:
        transport = self.transport
        if transport is None or self.closed:
            return
        sock = transport.get_extra_info("socket")
        if _unsent(transport, sock) and waited < RESET_WAIT:
            pause = 0.001 if waited < 0.05 else 0.01
            loop = asyncio.get_running_loop()
            loop.call_later(pause, lambda: self._abort_when_sent(waited + pause, rst=rst))
            return
        if sock is not None and rst:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        transport.abort()

    def waiting(self) -> float | None:
        """How long the connection may wait for its client in its present state (a head
        begun, or a body that has stopped coming: the header timeout; nothing: the idle
        timeout), or None: no limit (a reply runs or is queued)."""
        if self.closed or self.runner is not None or self.queue or self.switched is not None:
            return None
        if self.h1.in_head or self.h1.in_body:
            return self.server.header_timeout
        return self.server.idle_timeout

    def timed_out(self) -> None:
        """The wait took too long (the server's sweep calls this): a head that never
        finished, or a body that stopped coming, gets a 408; an idle connection is closed."""
        if self._closing() or self.waiting() is None:
            return
        late = self.h1.expire()
        if late is not None:
            self._reject(late)
        else:
            self.close()

    def shutdown(self) -> None:
        """The server is closing: end whatever runs (its call says "server closed")."""
        self.server_closed = True
        if self.transport is not None and not self.closed:
            self.transport.abort()


class Switched(asyncio.Protocol):
    """The transport's protocol once a connection switched (``Connection.switch``): what
    the transport says goes to the new protocol; its loss to the connection too, which
    leaves the server's connections then."""

    __slots__ = ("conn", "protocol")

    def __init__(self, conn: Connection, protocol: asyncio.Protocol) -> None:
        self.conn = conn
        self.protocol = protocol

    def data_received(self, data: bytes) -> None:
        self.protocol.data_received(data)

    def eof_received(self) -> bool | None:
        return self.protocol.eof_received()

    def pause_writing(self) -> None:
        self.protocol.pause_writing()

    def resume_writing(self) -> None:
        self.protocol.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        self.conn.connection_lost(exc)
        self.protocol.connection_lost(exc)
