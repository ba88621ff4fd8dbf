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
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from ._transcript import Chunk, Transcript

__all__ = ["Interrupted", "Limits", "record"]

_BLANK = (b"\n\n", b"\r\r", b"\r\n\r\n")


@dataclass(frozen=True, slots=True)
class Limits:
    """What one recording may take.

    Attributes:
        deadline: a ``time.monotonic()`` time by which the exchange must end (None: none).
        max_bytes: body bytes read at most (None: no cap).
        max_event: bytes of one line or event at most (since the last blank line).
    """

    deadline: float | None = None
    max_bytes: int | None = 64 * 1024 * 1024
    max_event: int | None = 1024 * 1024


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
        limits: a deadline and byte caps (default: 64 MiB of body, 1 MiB per event, no
            deadline).

    Raises:
        Interrupted: Ctrl-C (a ``KeyboardInterrupt`` carrying the partial transcript).
    """
    limits = limits or Limits()
    if limits.deadline is not None:
        timeout = max(0.001, min(timeout, limits.deadline - time.monotonic()))
    own = client is None
    http = client or httpx.Client(timeout=timeout)
    sent = {"content-type": "application/json", "accept-encoding": "identity", **(headers or {})}
    start = time.monotonic()
    reading = _Reading(limits)
    try:
        content = b"" if request is None else json.dumps(request).encode()
        with http.stream("POST", url, content=content, headers=sent, timeout=timeout) as response:
            reading.status, reading.head = (
                response.status_code,
                tuple(response.headers.multi_items()),
            )
            with reading.watch(response):
                for data in response.iter_raw():
                    reading.chunks.append(Chunk(data, round(time.monotonic() - start, 6)))
                    if reading.over(data):
                        break
    except httpx.HTTPError as exc:
        error = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        if isinstance(exc, httpx.TimeoutException) and reading.past_deadline():
            error = "the check's deadline passed (--deadline) while waiting for the response"
        reading.error = reading.error or error
    except KeyboardInterrupt:
        reading.error = "interrupted (Ctrl-C)"
        raise Interrupted(reading.transcript(request)) from None
    finally:
        if own:
            http.close()
    return reading.transcript(request)


class _Reading:
    """What has arrived so far, and the checks against the limits."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.status: int | None = None
        self.head: tuple[tuple[str, str], ...] = ()
        self.chunks: list[Chunk] = []
        self.error: str | None = None
        self.total = 0
        self.event = 0  # bytes since the last blank line
        self.tail = b""  # the last bytes read, to find a blank line split across reads
        self.late = False

    def over(self, data: bytes) -> bool:
        """Count ``data``; True (with ``error`` set) when a limit is passed."""
        limits = self.limits
        self.total += len(data)
        if limits.max_bytes is not None and self.total > limits.max_bytes:
            self.error = (
                f"the body passed {limits.max_bytes:,} bytes (--max-bytes); stopped reading"
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
        if self.late:
            self.error = self._late()
            return True
        if limits.deadline is not None and time.monotonic() > limits.deadline:
            self.error = self._late()
            return True
        return False

    def past_deadline(self) -> bool:
        deadline = self.limits.deadline
        return deadline is not None and time.monotonic() >= deadline - 0.05

    def _late(self) -> str:
        return "the check's deadline passed (--deadline) while the body was still arriving"

    @contextlib.contextmanager
    def watch(self, response: httpx.Response) -> Any:
        """Past the deadline, shut the socket down, so a read that waits (a drip, a stall)
        returns at once."""
        deadline = self.limits.deadline
        sock = _socket_of(response)
        if deadline is None or sock is None:
            yield
            return

        def expire() -> None:
            self.late = True
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

        timer = threading.Timer(max(0.0, deadline - time.monotonic()), expire)
        timer.daemon = True
        timer.start()
        try:
            yield
        finally:
            timer.cancel()
            if self.late and self.error is None:
                self.error = self._late()

    def transcript(self, request: Any) -> Transcript:
        return Transcript(self.status, self.head, tuple(self.chunks), request, None, self.error)


def _socket_of(response: httpx.Response) -> socket.socket | None:
    stream = response.extensions.get("network_stream")
    if stream is None:
        return None
    sock = stream.get_extra_info("socket")
    return sock if isinstance(sock, socket.socket) else None
