"""From one recorded exchange to a mock: the request matcher, the redacted reply.

The matcher is what identifies the exchange: the method, the path and, for a JSON body,
``$.model``, ``$.stream``, ``$.stream_options.include_usage`` and the last message
(``$.messages[-1]``, or ``$.input`` for the Responses API); for an LLM request also
whether it streamed (a buffered one matches only requests that do not stream) and its
turn (``turn_index``: the assistant turns in its history).  The mock is named after what
it holds (:mod:`._names`).  Request headers are never written.  Reply headers named in the
redaction list are written as ``REDACTED``, and the secret values the request carried
(an ``Authorization`` token, an ``x-api-key``) are replaced wherever the reply repeats
them, so no secret reaches a file.
"""

from __future__ import annotations

import bisect
import dataclasses
import itertools
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .. import fault
from .._core._match import Matcher, json_path, not_
from .._core._mock import Mock, request
from .._core._plan import EndHow
from .._core._reply import ok
from .._core._request import Request
from ..llm._history import history
from ..llm._matchers import turn_index
from ._names import describe, llm_body
from ._pieces import Write
from ._recording import Recording

__all__ = [
    "HOP_BY_HOP",
    "REDACT",
    "REDACTED",
    "Exchange",
    "criteria",
    "identity",
    "secrets_of",
    "to_mock",
]

REDACTED = "REDACTED"
# Header names whose values are secrets (case-insensitive); configurable per recorder.
REDACT: tuple[str, ...] = (
    "authorization",
    "proxy-authorization",
    "x-api-key",
    "api-key",
    "x-goog-api-key",
    "cookie",
    "set-cookie",
    "x-auth-token",
    "x-amz-security-token",
)
# Framing and connection headers: the replay frames the body itself.
HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "content-length",
    }
)
_BEARER = re.compile(r"^\s*(?:bearer|basic|token)\s+(.+)$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Exchange:
    """One request and what the upstream did: a reply (maybe cut), or a failure before it.

    ``failure`` is ``reset`` or ``empty_response`` when no head arrived.
    """

    request: Request
    status: int
    reason: str
    headers: tuple[tuple[str, str], ...]
    head_delay: float
    writes: tuple[Write, ...]
    length: int | None
    end: EndHow = "complete"
    failure: str | None = None


def identity(req: Request) -> list[tuple[str, Any]]:
    """The body fields that identify an exchange: ``[(jsonpath, value), ...]``."""
    try:
        body = json.loads(req.body) if req.body else None
    except ValueError:
        return []
    if not isinstance(body, dict):
        return []
    fields: list[tuple[str, Any]] = []
    for key in ("model", "stream"):
        if key in body:
            fields.append((f"$.{key}", body[key]))
    options = body.get("stream_options")
    if isinstance(options, dict) and "include_usage" in options:
        fields.append(("$.stream_options.include_usage", options["include_usage"]))
    messages = body.get("messages")
    if isinstance(messages, list) and messages:
        fields.append(("$.messages[-1]", messages[-1]))
    elif isinstance(body.get("input"), str):
        fields.append(("$.input", body["input"]))
    elif isinstance(body.get("input"), list) and body["input"]:
        fields.append(("$.input[-1]", body["input"][-1]))
    return fields


def criteria(req: Request) -> list[Matcher]:
    """The body matchers of a recorded exchange: the identity's fields and, for an LLM
    request, whether it streamed (``$.stream`` true, or not true for a buffered one, so a
    buffered recording never answers a streamed request) and its turn (``turn_index``)."""
    body = llm_body(req)
    fields = identity(req)
    if body is None or "contents" in body:  # Gemini streams by path, not by body
        return [json_path(path, value) for path, value in fields]
    out = [json_path(path, value) for path, value in fields if path != "$.stream"]
    stream = json_path("$.stream", True) if body.get("stream") is True else _not_streamed
    out.insert(1 if "model" in body else 0, stream)
    usage = "$.stream_options.include_usage"
    if body.get("stream") is True and all(path != usage for path, _ in fields):
        out.append(json_path(usage, not_(True)))  # a stream without usage answers no opt-in
    out.append(turn_index(history(body, req.path).turns))
    return out


_not_streamed = json_path("$.stream", not_(True))


def key_of(req: Request) -> str:
    """Equal for requests that the same matcher accepts (repeats of one request)."""
    matchers = [m.to_args() for m in criteria(req)]
    return json.dumps([req.method, req.path, matchers], sort_keys=True, default=str)


def secrets_of(req: Request, names: Iterable[str]) -> list[str]:
    """The secret values in ``req``'s headers named in ``names`` (tokens without their
    scheme too), longest first."""
    wanted = {n.lower() for n in names}
    found: set[str] = set()
    for name, value in req.headers.items_list:
        if name.lower() in wanted and value.strip():
            found.add(value.strip())
            bearer = _BEARER.match(value)
            if bearer and len(bearer.group(1)) >= 4:
                found.add(bearer.group(1).strip())
    return sorted(found, key=len, reverse=True)


def _scrub(data: bytes, secrets: Sequence[str]) -> bytes:
    for secret in secrets:
        data = data.replace(secret.encode("utf-8", "replace"), REDACTED.encode())
    return data


def _scrub_writes(writes: Sequence[Write], secrets: Sequence[str]) -> tuple[Write, ...]:
    """Replace secrets in the body.  Writes keep their boundaries, except that writes a
    secret spans are joined first (at the time of the last), so no part of it is left."""
    needles = [s.encode("utf-8", "replace") for s in secrets]
    body = b"".join(w.data for w in writes)
    if not any(n in body for n in needles):
        return tuple(writes)
    ends = list(itertools.accumulate(len(w.data) for w in writes))
    joined_to_next = [False] * len(writes)
    for needle in needles:
        start = body.find(needle)
        while start != -1:
            first = bisect.bisect_right(ends, start)
            last = bisect.bisect_right(ends, start + len(needle) - 1)
            for i in range(first, last):
                joined_to_next[i] = True
            start = body.find(needle, start + len(needle))
    out: list[Write] = []
    held = b""
    for w, join in zip(writes, joined_to_next, strict=True):
        held += w.data
        if not join:
            out.append(Write(w.at, _scrub(held, secrets)))
            held = b""
    return tuple(out)


def _headers(
    headers: Iterable[tuple[str, str]], redact: Iterable[str], secrets: Sequence[str]
) -> tuple[tuple[str, str], ...]:
    names = {n.lower() for n in redact}
    out = []
    for name, value in headers:
        if name.lower() in HOP_BY_HOP:
            continue
        if name.lower() in names:
            value = REDACTED
        for secret in secrets:
            value = value.replace(secret, REDACTED)
        out.append((name, value))
    return tuple(out)


def matcher_mock(req: Request) -> Mock:
    """A mock that answers requests like ``req``: method, path, identifying body fields."""
    mock = request(req.method, req.path)
    for m in criteria(req):
        mock = mock.body(m)
    return mock


def to_mock(
    exchange: Exchange,
    *,
    redact: Iterable[str] = REDACT,
    call: int = 0,
    name: str | None = None,
) -> Mock:
    """The mock that replays ``exchange``; ``call`` is its place among repeats of the same
    request (0 first): later calls rank lower, so the first answers first."""
    secrets = secrets_of(exchange.request, redact)
    base = matcher_mock(exchange.request)
    label = name or describe(exchange.request)
    if call:
        label += f" (call {call + 1})"
    mock = dataclasses.replace(base, name=label, priority=-call)
    if exchange.failure == "reset":
        return mock.reply(ok()).pipe(fault.reset())
    if exchange.failure is not None:
        return mock.reply(ok()).pipe(fault.empty_response())
    writes = _scrub_writes(exchange.writes, secrets)
    length = exchange.length
    if length is not None and writes != exchange.writes:
        length += sum(len(w.data) for w in writes) - sum(len(w.data) for w in exchange.writes)
    reply = Recording(
        status_code=exchange.status,
        reason=exchange.reason,
        headers=_headers(exchange.headers, redact, secrets),
        head_delay=round(exchange.head_delay, 6),
        writes=writes,
        length=length,
        end=exchange.end,
    )
    return mock.reply(reply)
