"""A recorded HTTP exchange: status, headers, timestamped raw body chunks (pure data)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["KEPT_REQUEST_HEADERS", "Chunk", "Transcript", "parse_head"]

#: The request headers a recorded transcript keeps (protocol state, never a credential).
KEPT_REQUEST_HEADERS = frozenset(
    {"mcp-session-id", "mcp-protocol-version", "last-event-id", "mcp-method", "mcp-name",
     "a2a-version", "accept", "content-type"}
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Chunk:
    """One read of the response body.

    Attributes:
        data: the bytes of the read, exactly as they arrived.
        at: seconds since the request was sent, or None when unknown (a file).
    """

    data: bytes
    at: float | None = None


@dataclass(frozen=True, slots=True)
class Transcript:
    """What one request got back, kept as raw bytes so that rules see the wire.

    Attributes:
        status: the HTTP status, or None when no response arrived.
        headers: ``(name, value)`` pairs in arrival order; names keep their case.
        chunks: the response body as it was read.
        request: the JSON body that was sent, if known (rules such as usage opt-in use it).
        buffered: the answer to the same request sent with ``stream: false``, if known.
        error: why no (complete) response arrived: a network or protocol failure.
        before: for a reconnect (the ``sse-resume`` probe), the first read of the stream.
        last_event_id: the ``Last-Event-ID`` this request carried, if any.
        request_headers: the protocol headers the request carried, as ``(name, value)``
            pairs (``record`` keeps those in ``KEPT_REQUEST_HEADERS`` only: never a
            credential), for rules that compare an answer with its request.
    """

    status: int | None = 200
    headers: tuple[tuple[str, str], ...] = ()
    chunks: tuple[Chunk, ...] = ()
    request: Any = None
    buffered: Any = None
    error: str | None = None
    before: Transcript | None = None
    last_event_id: str | None = None
    request_headers: tuple[tuple[str, str], ...] = ()

    @classmethod
    def from_body(
        cls,
        body: bytes | Iterable[bytes],
        *,
        status: int = 200,
        headers: Mapping[str, str] | Iterable[tuple[str, str]] = (
            ("content-type", "text/event-stream"),
        ),
        request: Any = None,
        buffered: Any = None,
    ) -> Transcript:
        """A transcript from body bytes (one chunk) or a list of chunks, without timings."""
        parts = [body] if isinstance(body, bytes) else list(body)
        pairs = headers.items() if isinstance(headers, Mapping) else headers
        return cls(
            status,
            tuple((str(k), str(v)) for k, v in pairs),
            tuple(Chunk(part) for part in parts),
            request,
            buffered,
        )

    @property
    def body(self) -> bytes:
        """The whole body, chunks joined."""
        return b"".join(chunk.data for chunk in self.chunks)

    def header(self, name: str) -> str | None:
        """The first value of header ``name`` (case-insensitive), or None."""
        wanted = name.lower()
        return next((v for k, v in self.headers if k.lower() == wanted), None)

    def request_header(self, name: str) -> str | None:
        """The first value of request header ``name`` (case-insensitive), or None."""
        wanted = name.lower()
        return next((v for k, v in self.request_headers if k.lower() == wanted), None)

    def json(self) -> Any:
        """The body parsed as JSON (for a buffered answer).

        Raises:
            ValueError: the body is not JSON; look at ``body`` to see what came instead.
        """
        return json.loads(self.body)


def parse_head(text: str) -> tuple[int, tuple[tuple[str, str], ...]]:
    """Status and headers from a response head as ``curl -D`` writes it.

    When the text holds several heads (``100 Continue``, a proxy's ``200 Connection
    established``), the last one is the response.

    Raises:
        ValueError: no status line was found; the message quotes the first line.
    """
    heads = [block for block in text.replace("\r\n", "\n").split("\n\n") if block.strip()]
    if not heads:
        raise ValueError("head file is empty; expected a status line such as 'HTTP/1.1 200 OK'")
    status_line, *lines = heads[-1].strip("\n").split("\n")
    parts = status_line.split()
    if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
        raise ValueError(f"not a status line: {status_line!r} (expected 'HTTP/1.1 200 OK')")
    headers = tuple(
        (name.strip(), value.strip())
        for name, sep, value in (line.partition(":") for line in lines)
        if sep
    )
    return int(parts[1]), headers
