"""The server's loop thread: the listening socket, what serves each connection, the
sweep of late connections, and the shutdown.

``Server.start`` binds (``bind``) and hands the socket to ``serve``, which runs the loop on
a daemon thread of its own; ``Server.close`` asks ``shut_down`` to close the listener and
every open connection on that loop, and waits for the thread.

Rule 1: everything here but ``bind``, ``serve`` and ``shut_down`` runs on the loop thread.
Rule 2: running out of file descriptors is said in one line a second, never a traceback;
the header and idle timeouts (``sweep``) free what slow or idle clients hold.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import socket
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from .._core._errors import ConfigError, ServerError
from ._accept import Listener
from ._connection import Connection
from ._fds import make_room
from ._loop import loop_name
from ._tls import ByAlpn, Certs, Handshake

__all__ = [
    "bind",
    "certs_of",
    "check_args",
    "check_seconds",
    "require_h2",
    "serve",
    "shut_down",
    "sweep",
    "url_of",
]

_LOG = logging.getLogger("mockhttp")
_OUT_OF_FDS = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)


class Swept(Protocol):
    """A connection as the sweep and the shutdown see it (``Connection``, HTTP/2's)."""

    mark: tuple[int, float] | None
    ticks: int

    def waiting(self) -> float | None: ...

    def timed_out(self) -> None: ...

    def shutdown(self) -> None: ...


class Stoppable(Protocol):
    """What has worker threads to stop (``_answer.Answers``)."""

    def stop(self) -> None: ...


class Served(Protocol):
    """What the loop thread needs of the server (``_server.Server`` is one)."""

    host: str
    port: int
    backlog: int
    http2: bool
    header_timeout: float
    idle_timeout: float
    _tls: Certs | None
    _handshakes: set[asyncio.Transport]
    _connections: set[Connection]
    _thread: threading.Thread | None
    _listener: asyncio.base_events.Server | Listener | None
    _fds_warned: float

    @property
    def _answers(self) -> Stoppable: ...

    def _new_loop(self) -> asyncio.AbstractEventLoop: ...


def bind(host: str, port: int, reuse_port: bool) -> socket.socket:
    """A socket bound to ``host:port`` (not listening yet).

    Raises:
        ServerError: the address cannot be bound.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuse_port:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host, port))
    except (OSError, UnicodeError) as exc:
        sock.close()
        raise ServerError(f"cannot listen on {host}:{port}: {exc}") from None
    return sock


def serve(
    server: Served, sock: socket.socket
) -> tuple[asyncio.AbstractEventLoop, threading.Thread]:
    """Serve ``sock`` on a new loop in a thread of its own, once it listens.

    Raises:
        ServerError: the loop could not listen on ``sock``.
    """
    make_room()  # before the loop thread: growing the table later stalls it (_fds.py)
    loop = server._new_loop()
    ready = threading.Event()
    failure: list[BaseException] = []

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.set_exception_handler(lambda lp, context: _loop_error(server, lp, context))
        try:
            if loop_name(loop) == "uvloop":  # (_accept.py)
                server._listener = _accepting(server, loop, sock)
            else:
                server._listener = loop.run_until_complete(
                    loop.create_server(_protocol(server), sock=sock, backlog=server.backlog)
                )
        except BaseException as exc:  # reported to start()
            failure.append(exc)
            ready.set()
            return
        ready.set()
        sweep(server, loop)
        loop.run_forever()
        loop.close()

    thread = threading.Thread(target=run, name=f"mockhttp:{server.port}", daemon=True)
    thread.start()
    ready.wait()
    if failure:
        raise ServerError(f"cannot serve on {server.host}:{server.port}: {failure[0]}")
    return loop, thread


def shut_down(
    server: Served, loop: asyncio.AbstractEventLoop, thread: threading.Thread, timeout: float
) -> bool:
    """Close the listener and every connection on ``loop``, stop it, and wait up to
    ``timeout`` seconds for ``thread``; False when it was still running.  Then the
    server's worker threads stop, and its run's certificates go."""

    def shutdown() -> None:
        if server._listener is not None:
            server._listener.close()
        for conn in list(server._connections):
            conn.shutdown()
        for raw in list(server._handshakes):  # (TLS: not yet a Connection)
            raw.abort()
        loop.call_soon(loop.stop)

    loop.call_soon_threadsafe(shutdown)
    thread.join(timeout)
    server._answers.stop()
    if server._tls is not None:
        server._tls.remove()
    return not thread.is_alive()


def _accepting(server: Served, loop: asyncio.AbstractEventLoop, sock: socket.socket) -> Listener:
    """uvloop: every pending connection accepted each turn, https included."""
    tls = server._tls
    if tls is None:
        return Listener(loop, sock, _protocol(server), server.backlog)
    h2 = None
    if server.http2:
        from ._h2 import Http2Connection  # (h2 is an optional dependency)

        h2 = lambda: Http2Connection(server)  # type: ignore[arg-type]  # noqa: E731
    context = tls.server_context(server.http2)
    by_alpn = lambda: ByAlpn(lambda: Connection(server), h2)  # type: ignore[arg-type]  # noqa: E731
    return Listener(loop, sock, by_alpn, server.backlog, context, server.header_timeout)


def _protocol(server: Served) -> Callable[[], asyncio.Protocol]:
    """What serves a new connection: a Connection, or under TLS its handshake first."""
    h2 = None
    if server.http2:
        from ._h2 import Http2Connection, Sniff  # (h2 is an optional dependency)

        h2 = lambda: Http2Connection(server)  # type: ignore[arg-type]  # noqa: E731
    tls = server._tls
    if tls is None:
        if h2 is not None:
            return lambda: Sniff(Connection(server), h2)  # type: ignore[arg-type]
        return lambda: Connection(server)  # type: ignore[arg-type]
    context, pending = tls.server_context(server.http2), server._handshakes
    return lambda: Handshake(
        Connection(server),  # type: ignore[arg-type]
        context,
        pending,
        server.header_timeout,
        h2,
    )


def sweep(server: Served, loop: asyncio.AbstractEventLoop) -> None:
    """Time out connections whose head (or next request) is late; runs periodically."""
    now = time.monotonic()
    late = []
    for conn in server._connections:
        limit = conn.waiting()
        if limit is None:
            conn.mark = None
        elif conn.mark is None or conn.mark[0] != conn.ticks:
            conn.mark = (conn.ticks, now)  # a new wait: from now
        elif now - conn.mark[1] >= limit:
            late.append(conn)
    for conn in late:
        conn.timed_out()
    every = min(1.0, server.header_timeout / 4, server.idle_timeout / 4)
    loop.call_later(every, sweep, server, loop)


def _loop_error(
    server: Served, loop: asyncio.AbstractEventLoop, context: dict[str, object]
) -> None:
    """Out of file descriptors (EMFILE): asyncio retries accept() in a second; say so in
    one line a second (Rule 2)."""
    exc = context.get("exception")
    if isinstance(exc, OSError) and exc.errno in _OUT_OF_FDS:
        now = time.monotonic()
        if now - server._fds_warned >= 1.0:
            server._fds_warned = now
            _LOG.warning(
                "mockhttp: cannot accept connections (%s; %d open), trying again",
                exc.strerror or exc,
                len(server._connections),
            )
        return
    if server._thread is None and (
        "_start_serving" in repr(context.get("handle"))  # accept() retried after close
        or "Task was destroyed" in str(context.get("message"))  # an accept cut by close
    ):
        return
    loop.default_exception_handler(context)


# -- the server's address and arguments ----------------------------------------------------


def url_of(host: str, port: int | None, tls: Certs | None) -> str:
    """The base URL of a server listening on ``host:port`` (None: not yet).

    Raises:
        ServerError: the server was never started (its port is not known yet).
    """
    if port is None:
        raise ServerError(
            "server.url is known once the server listens: call server.start() first "
            "(or use `with mockhttp.Server() as server:`)"
        )
    where = f"[{host}]" if ":" in host else host
    return f"{'http' if tls is None else 'https'}://{where}:{port}"


def certs_of(tls: Certs | None) -> Certs:
    """The run's certificates.

    Raises:
        ServerError: the server does not serve https.
    """
    if tls is None:
        raise ServerError("this server serves plain http: Server(tls=True) serves https")
    return tls


def require_h2() -> None:
    try:
        import h2  # noqa: F401
    except ImportError:
        raise ConfigError(
            "http2=True needs the h2 package: pip install 'mockhttp[http2]'"
        ) from None


def check_args(
    host: object, port: object, unmatched_status: object, counts: Mapping[str, object]
) -> None:
    """Refuse arguments that would fail later, or turn every unmatched request into a 500:
    ``counts`` are positive ints or None (``journal_limit``)."""
    if not isinstance(host, str) or not host:
        raise ConfigError(f"host={host!r} must be an address such as '127.0.0.1'")
    if type(port) is not int or not 0 <= port <= 65535:
        raise ConfigError(f"port={port!r} must be an int from 0 to 65535 (0: a free port)")
    if type(unmatched_status) is not int or not 100 <= unmatched_status <= 999:
        raise ConfigError(f"unmatched_status={unmatched_status!r} must be an int from 100 to 999")
    for name, value in counts.items():
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int) or value < 1
        ):
            raise ConfigError(f"{name}={value!r} must be a positive int or None")


def check_seconds(timeouts: Sequence[tuple[str, object]]) -> None:
    """Refuse timeouts that are not a positive number of seconds."""
    for name, seconds in timeouts:
        if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds <= 0:
            raise ConfigError(f"{name}={seconds!r} must be a positive number of seconds")
