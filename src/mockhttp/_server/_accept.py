"""Connections accepted all at once on uvloop, whose own server takes one a loop turn.

uvloop's server (libuv's ``uv_listen``) accepts one pending connection each turn of the
loop.  That is unseen while turns are short; when the streams already running fill a
turn (thousands of them, 20 ms apart), the connections that arrive meanwhile wait in the
kernel's queue and are taken one a turn: at 2,000 streams connecting over 500 ms, the
last of them were accepted 0.7 s after they connected, and their first event came that
late (asyncio's server takes every pending connection on each turn: 300 in 80 ms where
uvloop took one each 10 ms turn; ``tests/server/test_accept.py``).

Rule 1: on uvloop the listening socket is watched with ``add_reader`` and drained: every
pending connection (up to the backlog) is accepted on the turn it is seen, and handed to
the loop with ``connect_accepted_socket`` (a uvloop transport, as its server makes).
Rule 2: out of file descriptors (``EMFILE`` and the like), accepting pauses for a second
and the loop is told, as asyncio's own server does; other errors of one accept drop it.
Rule 3: :meth:`Listener.close` stops accepting and closes the socket; a connection
accepted but not yet handed over (or still in its TLS handshake) is closed with it, also
one accepted on the very turn the listener closes.
Rule 4: https too.  With ``ssl``, ``connect_accepted_socket`` makes uvloop's TLS transport
and awaits the handshake (``ssl_handshake_timeout``, then the connection is dropped); the
protocol's ``connection_made`` gets the TLS transport.  (uvloop's own server with a
handshake started in ``connection_made`` raced: uvloop resumes reading as
``connection_made`` returns, so a ClientHello could be read before ``start_tls`` and the
handshake hung; ``tests/server/test_tls_uvloop.py``.)
"""

from __future__ import annotations

import asyncio
import errno
import socket
import ssl
from collections.abc import Callable

__all__ = ["Listener"]

RETRY = 1.0  # seconds accepting pauses when the process is out of descriptors
_OUT_OF = {errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM}


class Listener:
    """Accepts every pending connection of ``sock`` on ``loop`` (Rule 1)."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        sock: socket.socket,
        factory: Callable[[], asyncio.Protocol],
        backlog: int,
        context: ssl.SSLContext | None = None,
        handshake_timeout: float | None = None,
    ) -> None:
        self._loop = loop
        self._context = context  # Rule 4
        self._handshake_timeout = handshake_timeout
        self._sock = sock
        self._factory = factory
        self._backlog = backlog
        self._pending: dict[asyncio.Task[object], socket.socket] = {}
        self._closed = False
        sock.setblocking(False)
        sock.listen(backlog)
        loop.add_reader(sock.fileno(), self._ready)

    def _ready(self) -> None:
        for _ in range(self._backlog):
            try:
                conn, _ = self._sock.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                if exc.errno in _OUT_OF:  # Rule 2
                    self._pause(exc)
                return  # (ECONNABORTED and the like: that one connection is gone)
            conn.setblocking(False)
            task = self._loop.create_task(self._hand_over(conn))
            self._pending[task] = conn
            task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[object]) -> None:
        conn = self._pending.pop(task, None)
        if conn is not None and task.cancelled():  # cancelled before it ran (Rule 3)
            conn.close()

    async def _hand_over(self, conn: socket.socket) -> None:
        try:
            if self._context is None:
                await self._loop.connect_accepted_socket(self._factory, sock=conn)
            else:  # Rule 4
                await self._loop.connect_accepted_socket(
                    self._factory,
                    sock=conn,
                    ssl=self._context,
                    ssl_handshake_timeout=self._handshake_timeout,
                )
        except asyncio.CancelledError:  # closed meanwhile (Rule 3)
            conn.close()
        except Exception as exc:  # the client went at once, or a bug: drop this one
            conn.close()
            if not isinstance(exc, OSError):
                self._loop.call_exception_handler(
                    {"message": "a connection could not be served", "exception": exc}
                )

    def _pause(self, exc: OSError) -> None:
        self._loop.call_exception_handler(
            {
                "message": "socket.accept() out of system resource",
                "exception": exc,
                "socket": self._sock,
            }
        )
        self._loop.remove_reader(self._sock.fileno())
        self._loop.call_later(RETRY, self._resume)

    def _resume(self) -> None:
        if not self._closed:
            self._loop.add_reader(self._sock.fileno(), self._ready)

    def close(self) -> None:
        """Stop accepting and close the socket (Rule 3); on the loop's thread."""
        if self._closed:
            return
        self._closed = True
        self._loop.remove_reader(self._sock.fileno())
        self._sock.close()
        for task in list(self._pending):
            task.cancel()  # (a task not yet run closes its socket in _done)
