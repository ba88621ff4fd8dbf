"""A contract check's transcript as a mock file (``mockhttp check --save FILE``)."""

from __future__ import annotations

import json
from typing import Any, Protocol

from .._core._mock import Mock
from .._core._request import Headers, Request
from ._exchange import Exchange, to_mock
from ._pieces import Write

__all__ = ["from_transcript"]


class _Chunk(Protocol):
    data: bytes
    at: float | None


class _Transcript(Protocol):
    @property
    def status(self) -> int | None: ...
    @property
    def headers(self) -> tuple[tuple[str, str], ...]: ...
    @property
    def chunks(self) -> Any: ...
    @property
    def error(self) -> str | None: ...


def from_transcript(
    transcript: _Transcript,
    request: Any,
    path: str,
    *,
    method: str = "POST",
    call: int = 0,
    headers: tuple[tuple[str, str], ...] = (),
) -> Mock:
    """The mock that replays ``transcript`` (a ``mockhttp.contract`` transcript) for the
    JSON ``request`` sent to ``path`` with ``headers`` (never written: their secrets are
    hidden wherever the reply repeats them).  Chunk times count from the request (the
    head's own arrival is not in a transcript), so they become the writes' times."""
    body = json.dumps(request).encode() if request is not None else b""
    sent = Headers((("content-type", "application/json"), *headers))
    req = Request(method, path, sent, body)
    if transcript.status is None:
        failure = "reset" if "reset" in (transcript.error or "").lower() else "empty_response"
        return to_mock(Exchange(req, 0, "", (), 0.0, (), None, failure=failure), call=call)
    writes = tuple(Write(c.at or 0.0, c.data) for c in transcript.chunks)
    exchange = Exchange(
        req,
        transcript.status,
        "",
        transcript.headers,
        0.0,
        writes,
        None,
        "close" if transcript.error else "complete",
    )
    return to_mock(exchange, call=call)
