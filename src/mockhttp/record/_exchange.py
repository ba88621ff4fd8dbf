"""From one recorded exchange to a mock: the request matcher, the redacted reply.

The matcher is what identifies the exchange: the method, the path and, for a JSON body,
``$.model``, ``$.stream``, ``$.stream_options.include_usage`` and the last message
(``$.messages[-1]``, or ``$.input`` for the Responses API); for an LLM request also
whether it streamed (a buffered one matches only requests that do not stream) and its
turn (``turn_index``: the assistant turns in its history).  The mock is named after what
it holds (:mod:`._names`).  Request headers are never written.  Secrets follow the one
rule of ``_core._redact``: reply headers with a secret name (``Set-Cookie``, ...) are
written as ``REDACTED``, and the secret values the request carried (an ``Authorization``
token, an ``x-api-key``, a ``?key=``) are replaced as whole tokens wherever the reply
repeats them, so no secret reaches a file.
"""

from __future__ import annotations

import bisect
import dataclasses
import itertools
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .. import fault
from .._core._match import Matcher, json_path, not_
from .._core._mock import Mock, request
from .._core._plan import EndHow
from .._core._redact import SECRET_NAMES, Redactor
from .._core._reply import ok
from .._core._request import Request
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
    "redactor_of",
    "secrets_of",
    "to_mock",
]

REDACTED = "REDACTED"
#: The well-known names whose values are secrets (the rule, ``_core._redact.is_secret``,
#: also takes names with a secret word: ``x-team-token``, ``x-api_key``, ...); a recorder's
#: ``redact`` adds more.
REDACT: tuple[str, ...] = tuple(sorted(SECRET_NAMES))
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


def criteria(req: Request, redactor: Redactor | None = None) -> list[Matcher]:
    """The body matchers of a recorded exchange: the identity's fields and, for an LLM
    request, whether it streamed (``$.stream`` true, or not true for a buffered one, so a
    buffered recording never answers a streamed request) and its turn (``turn_index``)."""
    body = llm_body(req)
    hide = redactor.value if redactor is not None else (lambda value: value)
    fields = [(path, hide(value)) for path, value in identity(req)]
    if body is None or "contents" in body:  # Gemini streams by path, not by body
        return [json_path(path, value) for path, value in fields]
    out = [json_path(path, value) for path, value in fields if path != "$.stream"]
    stream = json_path("$.stream", True) if body.get("stream") is True else _not_streamed
    out.insert(1 if "model" in body else 0, stream)
    usage = "$.stream_options.include_usage"
    if body.get("stream") is True and all(path != usage for path, _ in fields):
        out.append(json_path(usage, not_(True)))  # a stream without usage answers no opt-in
    from ..llm._history import api_of, read  # lazily: importing mockhttp imports no llm
    from ..llm._matchers import turn_index

    out.append(turn_index(len(read(api_of(body, req.path, req.headers), body).turns)))
    return out


_not_streamed = json_path("$.stream", not_(True))


def key_of(req: Request) -> str:
    """Equal for requests that the same matcher accepts (repeats of one request)."""
    matchers = [m.to_args() for m in criteria(req)]
    return json.dumps([req.method, req.path, matchers], sort_keys=True, default=str)


def redactor_of(req: Request, names: Iterable[str] = ()) -> Redactor:
    """The one redaction rule (``_core._redact``) for ``req``, with more header ``names``,
    writing ``REDACTED``."""
    return Redactor.of_request(req, names=names, mark=REDACTED)


def secrets_of(req: Request, names: Iterable[str] = ()) -> list[str]:
    """The secret values in ``req`` (its secret headers and query parameters, and those
    named in ``names``; tokens without their scheme), longest first."""
    return list(redactor_of(req, names).secrets)


def _scrub_writes(writes: Sequence[Write], redactor: Redactor) -> tuple[Write, ...]:
    """Replace secrets in the body.  Writes keep their boundaries, except that writes a
    secret spans are joined first (at the time of the last), so no part of it is left."""
    body = b"".join(w.data for w in writes)
    spans = redactor.spans(body)
    if not spans:
        return tuple(writes)
    ends = list(itertools.accumulate(len(w.data) for w in writes))
    joined_to_next = [False] * len(writes)
    for start, stop in spans:
        first = bisect.bisect_right(ends, start)
        last = bisect.bisect_right(ends, stop - 1)
        for i in range(first, last):
            joined_to_next[i] = True
    out: list[Write] = []
    held = b""
    for w, join in zip(writes, joined_to_next, strict=True):
        held += w.data
        if not join:
            out.append(Write(w.at, redactor.data(held)))
            held = b""
    return tuple(out)


def _headers(headers: Iterable[tuple[str, str]], redactor: Redactor) -> tuple[tuple[str, str], ...]:
    kept = ((n, v) for n, v in headers if n.lower() not in HOP_BY_HOP)
    return tuple((n, REDACTED if redactor.is_secret(n) else redactor.text(v)) for n, v in kept)


def matcher_mock(req: Request, redactor: Redactor | None = None) -> Mock:
    """A mock that answers requests like ``req``: method, path, identifying body fields
    (secrets in them hidden by ``redactor``)."""
    redactor = redactor or redactor_of(req)
    mock = request(req.method, redactor.text(req.path))
    for m in criteria(req, redactor):
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
    redactor = redactor_of(exchange.request, redact)
    base = matcher_mock(exchange.request, redactor)
    label = name or redactor.text(describe(exchange.request))
    if call:
        label += f" (call {call + 1})"
    mock = dataclasses.replace(base, name=label, priority=-call)
    if exchange.failure == "reset":
        return mock.reply(ok()).pipe(fault.reset())
    if exchange.failure is not None:
        return mock.reply(ok()).pipe(fault.empty_response())
    writes = _scrub_writes(exchange.writes, redactor)
    length = exchange.length
    if length is not None and writes != exchange.writes:
        length += sum(len(w.data) for w in writes) - sum(len(w.data) for w in exchange.writes)
    reply = Recording(
        status_code=exchange.status,
        reason=exchange.reason,
        headers=_headers(exchange.headers, redactor),
        head_delay=round(exchange.head_delay, 6),
        writes=writes,
        length=length,
        end=exchange.end,
    )
    return mock.reply(reply)
