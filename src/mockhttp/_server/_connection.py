"""One client connection: parse requests with httptools, run one reply at a time.

Pipelined requests queue up and are answered in order; past ``MAX_QUEUED`` of them the
connection stops reading (``pause_reading``) until the replies catch up.  A request that
cannot be parsed gets a 400 (431 for a head over ``MAX_HEAD``, 413 for a body over
``MAX_BODY`` or a ``Content-Length`` that promises one) and the connection closes; the
server goes on serving others.  A head that does not arrive within the server's
``header_timeout``, or a body that pauses that long, gets a 408 and a close; an idle
connection closes after ``idle_timeout``.
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

import httptools

from .._core._reply import error_reply, status
from .._core._request import Headers, Request
from .._core._wire import frame
from ._journal import Call, CallList
from ._lane import Key, Lane
from ._runner import Host, Plan, Runner, Steps, Whole

__all__ = ["MAX_BODY", "MAX_HEAD", "MAX_QUEUED", "Connection", "Server", "no_delay"]

MAX_HEAD = 64 * 1024
MAX_BODY = 64 * 1024 * 1024
MAX_QUEUED = 64  # pipelined requests waiting for their reply before reading pauses
MAX_PIECES = 1 << 20  # pieces (chunks) one request body may come in
_SLICE = 16 * 1024  # bytes parsed at a time, so that a full queue stops the parsing
_NO_TRAILERS = Headers()
_METHODS = {m.encode(): m for m in ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")}
RESET_WAIT = 10.0  # seconds a reset waits for written bytes to leave before it goes anyway
# the fields on_headers_complete reads (Content-Length, Expect), and those on_message_complete
# reads for an upgrade request with a body (Content-Length, Transfer-Encoding)
_SPECIAL = (len("content-length"), len("expect"), len("transfer-encoding"))
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

    def _dispatch(self, request: Request, keep_alive: bool) -> tuple[Call, Plan]:
        """The call to journal and the wire plan to run for ``request``."""
        ...

    @property
    def _lane(self) -> Lane | None: ...

    def _by_lane(self, key: Key, headers: list[tuple[str, str]]) -> Whole | None:
        """The answer kept for a bodiless request of ``key``, journaled; or None."""
        ...


class _Bad:
    """A request that could not be parsed: answer ``status`` and close."""

    __slots__ = ("message", "status")

    def __init__(self, status: int, message: str) -> None:
        self.status = status
        self.message = message


_BAD_TARGET = (
    "malformed request: the request target is not a valid URL "
    "(expected /path?query, or http://host/path)"
)


class _TooLarge(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class Connection(asyncio.Protocol):
    """One client connection: parse requests, run one reply at a time (pipelining kept)."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.parser = httptools.HttpRequestParser(self)
        self.transport: asyncio.Transport | None = None
        self.queue: deque[tuple[Request, bool] | _Bad] = deque()
        self.runner: Runner | None = None
        self.paused = False
        self.closed = False
        self._url = b""
        self._headers: list[tuple[str, str]] = []
        self._first = b""  # the body's first piece (most bodies come in one)
        self._body = bytearray()  # the pieces of a body in several (no object per piece)
        self._pieces = 0
        self._head_seen = 0  # bytes read while a head was unfinished (see data_received)
        self._next: asyncio.Handle | None = None  # replies to start on the next turn
        self._turn = MAX_QUEUED  # replies this callback may still start (see next)
        self._held = b""  # bytes read but not parsed while the queue is full
        self._release: asyncio.Handle | None = None  # parses them on a later turn
        self._head_size = 0
        self._body_size = 0
        self._special = False  # a field name as long as one of _SPECIAL's came
        self._broken = False
        self._continue = False  # a request head asked for "100 Continue" not yet sent
        self.server_closed = False
        self._eof = False  # the client shut down its side: close once the replies are done
        self._starting = False  # inside next(): replies that end at once don't recurse
        self._reading = True  # False while pause_reading holds back a pipelining client
        self._trailers: list[tuple[str, str]] = []  # fields after a chunked body
        self._upgraded: tuple[str, str, bytes, list[tuple[str, str]]] | None = None
        self._in_head = False  # between a request's first byte and the end of its head
        self._in_body = False  # between the end of a head and the end of its body
        # the server's sweep times out a head that takes too long, or a connection idle
        # for too long: ``ticks`` moves when a head begins or a reply ends (a new wait),
        # ``mark`` is (ticks, when the sweep first saw this wait)
        self.ticks = 0
        self.mark: tuple[int, float] | None = None

    # -- transport callbacks ------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # any loop's stream transport (uvloop's are not asyncio.Transport subclasses)
        self.transport = cast(asyncio.Transport, transport)
        no_delay(transport)
        self.server._connections.add(self)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.server._connections.discard(self)
        self._body.clear()  # a body cut off by the hang-up (the parser keeps us in a cycle)
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
        if self._broken:
            return
        if self._held:  # reading is paused: a loop may still hand over one last read
            self._held += data
            return
        self._turn = MAX_QUEUED  # a new callback of the loop: a new turn
        if len(data) > _SLICE:
            self._take(data)
            return
        # most reads: one slice (_parse, inlined: every read)
        if self._in_head:
            self._head_seen += len(data)
        try:
            self.parser.feed_data(data)
        except (_TooLarge, httptools.HttpParserUpgrade, httptools.HttpParserError) as exc:
            self._failed(exc, data)
        finally:
            if self._in_head and self._head_seen > MAX_HEAD and not self._broken:
                self._reject(431, f"request head is larger than {MAX_HEAD} bytes")

    def _take(self, data: bytes) -> None:
        """Parse ``data``, a slice at a time: once the queue is full, the rest is held
        back (and reading paused) until the replies catch up, so a read of thousands of
        pipelined requests is neither queued whole nor parsed in one callback."""
        for start in range(0, len(data), _SLICE):
            self._parse(data[start : start + _SLICE])
            if self._broken:
                return
            rest = start + _SLICE
            if rest < len(data) and len(self.queue) >= MAX_QUEUED:
                self._held = data[rest:]
                self._pause_reading()
                return

    def _parse(self, data: bytes) -> None:
        # httptools keeps a header's name and value until its line ends, before on_header
        # can count it: count here what arrives while a head is unfinished, so a line that
        # never ends is refused within MAX_HEAD and one slice (the slice in which the head
        # began is not counted: on_message_begin starts the count)
        if self._in_head:
            self._head_seen += len(data)
        try:
            self.parser.feed_data(data)  # (_feed, inlined: every read)
        except (_TooLarge, httptools.HttpParserUpgrade, httptools.HttpParserError) as exc:
            self._failed(exc, data)
        finally:
            if self._in_head and self._head_seen > MAX_HEAD and not self._broken:
                self._reject(431, f"request head is larger than {MAX_HEAD} bytes")

    def _feed(self, data: bytes) -> None:
        try:
            self.parser.feed_data(data)
        except (_TooLarge, httptools.HttpParserUpgrade, httptools.HttpParserError) as exc:
            self._failed(exc, data)

    def _failed(self, exc: Exception, data: bytes) -> None:
        """What parsing ``data`` raised: a request too large, an upgrade, a bad request."""
        if isinstance(exc, _TooLarge):
            self._reject(exc.status, str(exc))
        elif isinstance(exc, httptools.HttpParserUpgrade):
            # We answer an upgrade request like any other (no 101), so the connection stays
            # HTTP/1.1: parse what follows it with a fresh parser.  llhttp ends an upgrade
            # request at its head, so one with a body (curl --http2 sends h2c with its POST)
            # is parsed again with the Upgrade field hidden, and keeps its body.
            self.parser = httptools.HttpRequestParser(self)
            rest = data[exc.args[0] :] if exc.args else b""
            if self._upgraded is not None:
                rest = self._replayed_head() + rest
            if rest:
                self._feed(rest)
        else:
            # httptools wraps exceptions raised in callbacks; ours says what was too large
            cause = exc.__context__
            if isinstance(cause, _TooLarge):
                self._reject(cause.status, str(cause))
            elif isinstance(cause, ValueError):  # the URL parser's (a bad absolute target)
                self._reject(400, _BAD_TARGET)
            else:
                self._reject(400, f"malformed request: {exc}")

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

    # -- parser callbacks -----------------------------------------------------------------

    def on_message_begin(self) -> None:
        self._url = b""
        self._headers = []
        if self._pieces:  # what a body left (on_body counts a piece first)
            self._first = b""
            self._body.clear()
            self._pieces = 0
            self._body_size = 0
        if self._special:
            self._special = False
        self._head_seen = 0
        if self._trailers:
            self._trailers = []
        self._head_size = 0
        self._in_head = True
        self.ticks += 1

    def on_url(self, url: bytes) -> None:
        self._url += url
        self._head_size += len(url)  # _grow_head, inlined: every request
        if self._head_size > MAX_HEAD:
            raise _TooLarge(431, f"request head is larger than {MAX_HEAD} bytes")

    def on_header(self, name: bytes, value: bytes) -> None:
        if self._in_body:  # after the body: a trailer field, not a header
            self._trailers.append((name.decode("latin-1"), value.decode("latin-1")))
        else:
            self._headers.append((name.decode("latin-1"), value.decode("latin-1")))
            if len(name) in _SPECIAL:  # perhaps Content-Length or Expect (see below)
                self._special = True
        self._head_size += len(name) + len(value) + 4  # _grow_head, inlined: every header
        if self._head_size > MAX_HEAD:
            raise _TooLarge(431, f"request head is larger than {MAX_HEAD} bytes")

    def _grow_head(self, n: int) -> None:
        self._head_size += n
        if self._head_size > MAX_HEAD:
            raise _TooLarge(431, f"request head is larger than {MAX_HEAD} bytes")

    def on_headers_complete(self) -> None:
        self._in_head = False
        self._in_body = True
        if not self._special:
            return
        expect = False
        for name, value in self._headers:
            lower = name.lower()
            if lower == "content-length" and value.strip().isdigit():
                if int(value) > MAX_BODY:  # refused before the body (or a 100) is sent
                    raise _TooLarge(413, f"request body is larger than {MAX_BODY} bytes")
            elif lower == "expect" and value.lower() == "100-continue":
                expect = True
        # RFC 9110 §10.1.1: answer "Expect: 100-continue" (ignored from HTTP/1.0 clients)
        # when this request is next in line; behind a running reply, once that reply ends.
        if expect and self.parser.get_http_version() != "1.0":
            self._continue = True
            self._send_continue()

    def _send_continue(self) -> None:
        if self._continue and self.runner is None and not self.queue and not self._closing():
            self._continue = False
            assert self.transport is not None
            self.transport.write(b"HTTP/1.1 100 Continue\r\n\r\n")

    def on_body(self, body: bytes) -> None:
        self.ticks += 1  # progress: the header timeout counts from the last body bytes
        self._pieces += 1  # (first: on_message_begin resets the body only after a piece)
        self._body_size += len(body)
        if self._body_size > MAX_BODY:
            raise _TooLarge(413, f"request body is larger than {MAX_BODY} bytes")
        if self._pieces == 1:
            self._first = body
            return
        if self._pieces > MAX_PIECES:  # each piece is a call from the parser: bounded CPU
            raise _TooLarge(413, f"request body comes in more than {MAX_PIECES} chunks")
        if self._pieces == 2:
            self._body += self._first
            self._first = b""
        self._body += body

    def on_message_complete(self) -> None:
        self._continue = False  # the body came (the client did not wait for the 100)
        self._in_body = False
        raw = self.parser.get_method()
        method = _METHODS.get(raw) or raw.decode("ascii", "replace").upper()
        version = self.parser.get_http_version()
        headers = self._headers
        if self._upgraded is not None:  # the replayed head of an upgrade request
            headers = self._upgraded[3]
            self._upgraded = None
        elif self._special and self.parser.should_upgrade() and _has_body(headers):
            # llhttp skipped the body: parse the request again (see data_received)
            self._upgraded = (method, version, self._url, headers)
            return
        keep_alive = bool(self.parser.should_keep_alive()) and version != "1.0"
        if (
            not self._pieces
            and not self._trailers
            and self.runner is None
            and not self.queue
            and self._turn > 0
            and not self.paused
            and self.server._lane is not None
            and not self.closed
            and self.transport is not None
            and not self.transport.is_closing()  # (_closing, inlined)
        ):
            target = self._url.decode("latin-1")
            whole = self.server._by_lane((method, target, version, keep_alive), headers)
            if whole is not None:  # a kept answer (``_lane.py``), already journaled
                self._turn -= 1
                self.transport.write(whole.data)
                # (done, inlined: no runner, nothing queued, no 100 Continue to send)
                self.ticks += 1
                if not keep_alive or self._broken or self._eof:
                    self.close()
                elif not self._reading:
                    self._resume_reading()
                return
        body = self._first if self._pieces < 2 else bytes(self._body)
        self._first = b""
        self._body.clear()  # the pieces go now, not when the next request begins
        request = Request(  # positional: keywords cost more on every request
            method,
            self._url.decode("latin-1"),
            Headers(tuple(headers)),
            body,
            version,
            Headers(tuple(self._trailers)) if self._trailers else _NO_TRAILERS,
        )
        self.queue.append((request, keep_alive))
        if self.runner is None:
            self.next()
        if len(self.queue) >= MAX_QUEUED:
            self._pause_reading()  # a client pipelining faster than it reads: wait for it

    def _replayed_head(self) -> bytes:
        """The head of the upgrade request that had a body, without its Upgrade field."""
        assert self._upgraded is not None
        method, version, url, headers = self._upgraded
        lines = [f"{method} ".encode("latin-1") + url + f" HTTP/{version}".encode("latin-1")]
        lines.extend(
            f"{name}: {value}".encode("latin-1")
            for name, value in headers
            if name.lower() != "upgrade"
        )
        return b"\r\n".join(lines) + b"\r\n\r\n"

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

    def _start(self, item: tuple[Request, bool] | _Bad) -> None:
        """Start the reply to one queued request."""
        plan: Plan
        call: Call | None
        if isinstance(item, _Bad):
            reply = status(item.status).header("Content-Type", "text/plain; charset=utf-8")
            plan = Steps(frame(reply.body(item.message + "\n").plan(), keep_alive=False))
            call = None
            keep_alive = False
        else:
            request, keep_alive = item
            try:
                call, plan = self.server._dispatch(request, keep_alive)
            except Exception as exc:
                self.server.errors.append(exc)
                plan = Steps(frame(error_reply(exc).plan(), keep_alive=False))
                call = Call(request, None, 500)
                self.server.journal.append(call)
                keep_alive = False
        plan.start(self, call, keep_alive)

    def done(self, keep_alive: bool) -> None:
        """The current reply ended completely."""
        self.runner = None
        self.ticks += 1
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
        if self.closed or self.runner is not None or self.queue:
            return None
        if self._in_head or self._in_body:
            return self.server.header_timeout
        return self.server.idle_timeout

    def timed_out(self) -> None:
        """The wait took too long (the server's sweep calls this): a head that never
        finished, or a body that stopped coming, gets a 408; an idle connection is closed."""
        if self._closing() or self.waiting() is None:
            return
        if self._in_head or self._in_body:
            what = "head" if self._in_head else "body"
            self.parser = httptools.HttpRequestParser(self)  # whatever comes next is late
            self._in_head = self._in_body = False
            self._reject(408, f"the request {what} did not arrive in time")
        else:
            self.close()

    def shutdown(self) -> None:
        """The server is closing: end whatever runs (its call says "server closed")."""
        self.server_closed = True
        if self.transport is not None and not self.closed:
            self.transport.abort()


def _has_body(headers: list[tuple[str, str]]) -> bool:
    """A Content-Length over 0 or a Transfer-Encoding (the request has a body)."""
    for name, value in headers:
        lower = name.lower()
        if lower == "transfer-encoding" or (
            lower == "content-length" and value.strip() not in ("", "0")
        ):
            return True
    return False
