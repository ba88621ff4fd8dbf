"""Record a live exchange into a ``Transcript`` with httpx (the harness's thin shell).

An endpoint nobody controls may send forever, send one endless line, drip a byte now and
then, or say nothing: ``Limits`` bound the time and bytes one exchange may take, and going
past one ends the recording with an error (a finding, never a traceback or a hang).
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from ._transcript import KEPT_REQUEST_HEADERS, Chunk, Transcript

__all__ = ["Interrupted", "Limits", "record"]

# a blank line: two line endings in a row (LF, CR or CRLF each), the LF of a second CRLF
# taken in; LF then CR (or CRLF) is one too
_BLANK = (b"\n\n", b"\r\r", b"\n\r", b"\r\r\n", b"\n\r\n")
_CONNECTED = ("connect_tcp.complete", "connect_unix_socket.complete", "start_tls.complete")


@dataclass(frozen=True, slots=True)
class Limits:
    """What one recording may take.

    Attributes:
        deadline: a ``time.monotonic()`` time by which the exchange must end (None: none).
        max_bytes: body bytes read at most (None: no cap).
        max_event: bytes of one line or event at most (since the last blank line).
        max_lines: lines read at most (their endings counted: LF, CR or CRLF; a CRLF split
            between two reads counts twice): tiny or blank lines cost the decoder and the
            rules far more than their bytes (None: no cap).
    """

    deadline: float | None = None
    max_bytes: int | None = 64 * 1024 * 1024
    max_event: int | None = 1024 * 1024
    max_lines: int | None = 100_000


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a recording; ``transcript`` holds what arrived before it."""

    def __init__(self, transcript: Transcript) -> None:
        super().__init__("interrupted")
        self.transcript = transcript


def record(
    url: str,
    request: Any = None,
    *,
    headers: Mapping[str, str] | None = None,
    client: httpx.Client | None = None,
    timeout: float = 60.0,
    limits: Limits | None = None,
    method: str = "POST",
) -> Transcript:
    """POST ``request`` as JSON to ``url`` and record the reply byte for byte.

    Each body read is kept with its arrival time in seconds since the request was sent.
    A network failure does not raise: it is recorded in ``Transcript.error`` (with what
    arrived before it), so that checks report it as a finding; so is going past a limit.

    Args:
        url: the endpoint, e.g. ``http://127.0.0.1:8000/v1/chat/completions``.
        request: the JSON body to send (kept in the transcript for rules that need it);
            None sends an empty body.
        headers: extra request headers (authorization, API version).
        client: an httpx client to use (its base settings apply); a new one otherwise.
        timeout: seconds, for connecting and between reads.
        limits: a deadline, byte caps and a line cap (default: 64 MiB of body, 1 MiB per
            event, 100,000 lines, no deadline).  The deadline bounds the whole
            exchange: connecting, sending, the response head and the body (a head or a
            body dripped a byte at a time too).
            On a connection ``client`` kept alive from an earlier request, the wait for
            the head is bounded only per read (by ``timeout``, cut to the deadline).
        method: ``"GET"`` reads an event stream (no body, no content-type).

    Raises:
        Interrupted: Ctrl-C (a ``KeyboardInterrupt`` carrying the partial transcript).
    """
    limits = limits or Limits()
    if limits.deadline is not None:
        timeout = max(0.001, min(timeout, limits.deadline - time.monotonic()))
    own = client is None
    http = client or httpx.Client(timeout=timeout)
    body_type = {"content-type": "application/json"} if method == "POST" else {}
    sent = {**body_type, "accept-encoding": "identity", **(headers or {})}
    start = time.monotonic()
    reading = _Reading(limits)
    try:
        content = b"" if request is None else json.dumps(request).encode()
        body = content if method == "POST" else None
        with (
            reading.watch(),
            http.stream(
                method, url, content=body, headers=sent, timeout=timeout,
                extensions={"trace": reading.alarm.trace},
            ) as response,
        ):  # fmt: skip
            reading.status, reading.head = (
                response.status_code,
                tuple(response.headers.multi_items()),
            )
            reading.alarm.adopt(_socket_of(response))  # a kept-alive connection's
            for data in response.iter_raw():
                reading.chunks.append(Chunk(data, round(time.monotonic() - start, 6)))
                if reading.over(data):
                    break
    except httpx.HTTPError as exc:
        error = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        if isinstance(exc, httpx.TimeoutException) and reading.past_deadline():
            error = reading.late_error()
        reading.error = reading.error or error
    except KeyboardInterrupt:
        reading.error = "interrupted (Ctrl-C)"
        raise Interrupted(reading.transcript(request, sent)) from None
    finally:
        if own:
            http.close()
    return reading.transcript(request, sent)


class _Reading:
    """What has arrived so far, and the checks against the limits."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.status: int | None = None
        self.head: tuple[tuple[str, str], ...] = ()
        self.chunks: list[Chunk] = []
        self.error: str | None = None
        self.total = 0
        self.lines = 0  # line endings read (LF, CR or CRLF)
        self.event = 0  # bytes since the last blank line
        self.tail = b""  # the last bytes read, to find a blank line split across reads
        self.alarm = _Alarm(limits.deadline)

    def over(self, data: bytes) -> bool:
        """Count ``data``; True (with ``error`` set) when a limit is passed."""
        limits = self.limits
        self.total += len(data)
        if limits.max_bytes is not None and self.total > limits.max_bytes:
            self.error = (
                f"the body passed {limits.max_bytes:,} bytes (--max-bytes); stopped reading"
            )
            return True
        self.lines += data.count(b"\n") + data.count(b"\r") - data.count(b"\r\n")
        if limits.max_lines is not None and self.lines > limits.max_lines:
            self.error = (
                f"the body passed {limits.max_lines:,} lines (--max-lines); stopped reading"
            )
            return True
        joined = self.tail + data
        end = max((joined.rfind(b) + len(b) for b in _BLANK if b in joined), default=-1)
        if end >= 0:
            self.event = len(joined) - end
        else:
            self.event += len(data)
        self.tail = joined[-3:]
        if limits.max_event is not None and self.event > limits.max_event:
            self.error = (
                f"one line or event passed {limits.max_event:,} bytes without ending "
                "(--max-event-bytes); stopped reading"
            )
            return True
        if self.alarm.late or self.past_deadline(margin=0.0):
            self.error = self.late_error()
            return True
        return False

    def past_deadline(self, margin: float = 0.05) -> bool:
        deadline = self.limits.deadline
        return deadline is not None and time.monotonic() >= deadline - margin

    def late_error(self) -> str:
        """What was still to come when the deadline passed."""
        if self.status is None:
            return "the check's deadline passed (--deadline) while waiting for the response"
        return "the check's deadline passed (--deadline) while the body was still arriving"

    @contextlib.contextmanager
    def watch(self) -> Iterator[None]:
        """The alarm, armed for the whole exchange (connecting, the head, the body)."""
        self.alarm.arm()
        try:
            yield
        finally:
            self.alarm.disarm()
            if self.alarm.late and self.error is None:
                self.error = self.late_error()

    def transcript(self, request: Any, sent: Mapping[str, str]) -> Transcript:
        kept = tuple((k, v) for k, v in sent.items() if k.lower() in KEPT_REQUEST_HEADERS)
        return Transcript(self.status, self.head, tuple(self.chunks), request, None, self.error,
                          request_headers=kept)  # fmt: skip


class _Alarm:
    """At the deadline, shut the exchange's socket down, so that a read or a write that
    waits (a dripped head or body, a stall) returns at once.

    httpx's timeouts are per read: a byte now and then defeats them.  The socket is
    known from the moment it connects (httpcore's ``trace`` extension), before any byte
    of the request is sent; one that connects after the deadline is shut down at once.
    """

    def __init__(self, deadline: float | None) -> None:
        self.deadline = deadline
        self.late = False
        self._sock: socket.socket | None = None
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None

    def arm(self) -> None:
        if self.deadline is None:
            return
        wait = min(max(0.0, self.deadline - time.monotonic()), threading.TIMEOUT_MAX)
        self._timer = threading.Timer(wait, self._ring)
        self._timer.daemon = True
        self._timer.start()

    def disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()

    def trace(self, event: str, info: Mapping[str, Any]) -> None:
        """httpcore's ``trace`` callback: the socket, once connected (or wrapped in TLS)."""
        if event.endswith(_CONNECTED):
            stream = info.get("return_value")
            if stream is not None:
                self.adopt(stream.get_extra_info("socket"))

    def adopt(self, sock: object) -> None:
        if not isinstance(sock, socket.socket):
            return
        with self._lock:
            self._sock = sock
            late = self.late
        if late:
            _shut(sock)

    def _ring(self) -> None:
        with self._lock:
            self.late = True
            sock = self._sock
        if sock is not None:
            _shut(sock)


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


def _socket_of(response: httpx.Response) -> socket.socket | None:
    stream = response.extensions.get("network_stream")
    if stream is None:
        return None
    sock = stream.get_extra_info("socket")
    return sock if isinstance(sock, socket.socket) else None
