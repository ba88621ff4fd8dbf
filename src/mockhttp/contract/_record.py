"""Record a live exchange into a ``Transcript`` with httpx (the harness's thin shell)."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any

import httpx

from ._transcript import Chunk, Transcript

__all__ = ["record"]


def record(
    url: str,
    request: Any = None,
    *,
    headers: Mapping[str, str] | None = None,
    client: httpx.Client | None = None,
    timeout: float = 60.0,
) -> Transcript:
    """POST ``request`` as JSON to ``url`` and record the reply byte for byte.

    Each body read is kept with its arrival time in seconds since the request was sent.
    A network failure does not raise: it is recorded in ``Transcript.error`` (with what
    arrived before it), so that checks report it as a finding.

    Args:
        url: the endpoint, e.g. ``http://127.0.0.1:8000/v1/chat/completions``.
        request: the JSON body to send (kept in the transcript for rules that need it);
            None sends an empty body.
        headers: extra request headers (authorization, API version).
        client: an httpx client to use (its base settings apply); a new one otherwise.
        timeout: seconds, for connecting and between reads.
    """
    own = client is None
    http = client or httpx.Client(timeout=timeout)
    sent = {"content-type": "application/json", "accept-encoding": "identity", **(headers or {})}
    start = time.monotonic()
    status: int | None = None
    head: tuple[tuple[str, str], ...] = ()
    chunks: list[Chunk] = []
    try:
        content = b"" if request is None else json.dumps(request).encode()
        with http.stream("POST", url, content=content, headers=sent) as response:
            status, head = response.status_code, tuple(response.headers.multi_items())
            for data in response.iter_raw():
                chunks.append(Chunk(data, round(time.monotonic() - start, 6)))
    except httpx.HTTPError as exc:
        error = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        return Transcript(status, head, tuple(chunks), request, None, error)
    finally:
        if own:
            http.close()
    return Transcript(status, head, tuple(chunks), request)
