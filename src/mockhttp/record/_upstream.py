"""The recording proxy's client to its upstream: httpcore, with requests that can be
cancelled from another thread.

Rule 1: each request is made on its own thread; :meth:`Upstream.cancel` shuts the socket
that thread is using down (``shutdown``, which wakes a blocked ``recv``), so a request
whose client went away ends at once: waiting for a head that never comes, or for the
next read of a stream, its thread and sockets are freed, not leaked.
Rule 2: the reply's body is read as it arrives (``iter_stream``), one read at a time.
Rule 3: a chunk header with whitespace before its extension (``5 ;ext=1``), which RFC 9112
allows (``BWS``), is read as the RFC says: h11 (under httpcore) refuses it, so its chunk
header pattern is widened to the RFC's at import; it accepts more legal input, never less.
"""

from __future__ import annotations

import contextlib
import re
import socket
import ssl
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import httpcore
from h11 import _readers

__all__ = ["Cancelled", "Unreachable", "Upstream", "UpstreamError"]

# Rule 3: chunk-size [ BWS ";" chunk-ext ] OWS CRLF (h11's own pattern has no BWS)
_readers.chunk_header_re = re.compile(
    rb"(?P<chunk_size>[0-9A-Fa-f]{1,20})(?:[ \t]*(?P<chunk_ext>;.*))?[ \t]*\r\n"
)

#: What a failed upstream raises (its cause chain says whether it was a reset).
#: No connection was made (``_proxy``'s Rule 5: a 502, not recorded).
Unreachable = (httpcore.ConnectError, httpcore.ConnectTimeout)
UpstreamError = (
    httpcore.RemoteProtocolError,
    httpcore.LocalProtocolError,
    httpcore.NetworkError,
    httpcore.TimeoutException,
)


class Cancelled(Exception):
    """The request was cancelled (:meth:`Upstream.cancel`): its client went away."""


class Upstream:
    """A connection pool whose requests :meth:`cancel` can end from any thread."""

    def __init__(self, *, connect_timeout: float, verify: bool | str) -> None:
        self._timeout = connect_timeout
        self._lock = threading.Lock()
        # Keyed by the Thread itself, never its ident: an ident is reused once a thread
        # ends, and a late cancel of a finished request must not reach a newer one.
        self._using: dict[threading.Thread, socket.socket] = {}  # the socket it is on
        self._cancelled: set[threading.Thread] = set()
        self._active: set[threading.Thread] = set()  # threads inside stream()
        self._pool = httpcore.ConnectionPool(
            ssl_context=_ssl_context(verify),
            network_backend=_Backend(self),
            max_keepalive_connections=20,
            keepalive_expiry=5.0,
        )

    @contextmanager
    def stream(
        self, method: str, url: str, headers: Iterable[tuple[str, str]], body: bytes
    ) -> Iterator[httpcore.Response]:
        """The reply to one request (its body read with ``iter_stream``), on this thread."""
        me = threading.current_thread()
        extensions = {"timeout": {"connect": self._timeout, "read": None, "write": None}}
        with self._lock:
            self._active.add(me)
        try:
            with self._pool.stream(
                method, url, headers=list(headers), content=body, extensions=extensions
            ) as resp:
                yield resp
        except UpstreamError as exc:
            with self._lock:
                cancelled = me in self._cancelled
            if cancelled:
                raise Cancelled("the client went away") from exc
            raise
        finally:
            with self._lock:
                self._active.discard(me)
                self._using.pop(me, None)
                self._cancelled.discard(me)

    def cancel(self, thread: threading.Thread) -> None:
        """End the request ``thread`` is making: its socket is shut down (the thread's
        read or write fails at once, and so does any later one of this request)."""
        with self._lock:
            if thread not in self._active:
                return  # not (or no more) in a request
            self._cancelled.add(thread)
            sock = self._using.get(thread)
        if sock is not None:
            _shut(sock)

    def close(self) -> None:
        self._pool.close()

    def _using_now(self, sock: socket.socket) -> None:
        """The calling thread is reading or writing ``sock`` (shut it if cancelled)."""
        me = threading.current_thread()
        with self._lock:
            self._using[me] = sock
            cancelled = me in self._cancelled
        if cancelled:
            _shut(sock)


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):  # already closed
        sock.shutdown(socket.SHUT_RDWR)


def _ssl_context(verify: bool | str) -> ssl.SSLContext:
    import httpx  # its default context (certifi's CAs), as the client had before

    if isinstance(verify, str):
        return ssl.create_default_context(cafile=verify)
    return httpx.create_ssl_context(verify=verify)


class _Backend(httpcore.NetworkBackend):
    """httpcore's sync backend, whose streams tell :class:`Upstream` their socket."""

    def __init__(self, owner: Upstream) -> None:
        self._inner = httpcore.SyncBackend()
        self._owner = owner

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        stream = self._inner.connect_tcp(host, port, timeout, local_address, socket_options)
        return _Stream(stream, stream.get_extra_info("socket"), self._owner)

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class _Stream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream, sock: socket.socket, owner: Upstream):
        self._inner = inner
        self._sock = sock
        self._owner = owner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        self._owner._using_now(self._sock)
        return self._inner.read(max_bytes, timeout)

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._owner._using_now(self._sock)
        self._inner.write(buffer, timeout)

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        inner = self._inner.start_tls(ssl_context, server_hostname, timeout)
        return _Stream(inner, self._sock, self._owner)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)
