"""Revision 2026-07-28: stateless MCP, each request standing alone (SEP-2575).

No ``initialize``, no session: every request carries in ``params._meta`` the revision
(``io.modelcontextprotocol/protocolVersion``, equal to the ``MCP-Protocol-Version``
header), the client's capabilities for this request, and optionally its info and the
log level it opts in to.  The methods answer as in the stateful revisions, with a
``resultType`` on every result and caching hints (``ttlMs``, ``cacheScope``) on the
cacheable ones (SEP-2549); ``server/discover`` says what the server speaks; a call that
needs the client answers an ``InputRequiredResult`` the client retries with
``inputResponses`` (SEP-2322); ``subscriptions/listen`` opens the stream of list changes.

Rule 1: a request is stateless when it names no session and its ``_meta`` names a
revision, or its ``MCP-Protocol-Version`` is none of the stateful ones.
Rule 2, the refusals, in order, each with the request's id and HTTP 400 unless said:
``_meta`` without revision or capabilities (-32602); the header and ``_meta`` naming
different revisions (-32020 HeaderMismatch); a revision the mock does not speak (-32022,
``data: {supported, requested}``); ``Mcp-Method``/``Mcp-Name`` headers that disagree with
the body (-32020, SEP-2243); a method the revision removed (``initialize``, ``ping``,
``logging/setLevel``, ``resources/(un)subscribe``: 404, -32601); a call needing a client
capability the request did not declare (-32021, ``data.requiredCapabilities``).
Rule 3: nothing is kept between requests but the tools' script places: an
``InputRequiredResult``'s ``requestState`` carries the round and a digest of what was
asked, so a retry is checked without server state (a tampered state is -32602).
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from .._core import _jsonrpc as jsonrpc
from ._asking import ASKS, Exchange, request_of
from ._sessions import Session, State
from ._spec import INVALID_PARAMS, METHOD_NOT_FOUND, RESOURCE_NOT_FOUND, error, result

__all__ = [
    "REVISION",
    "Problem",
    "is_stateless",
    "refusal",
    "session_for",
    "shape",
]

REVISION = "2026-07-28"
META = "io.modelcontextprotocol/"
HEADER_MISMATCH = -32020
MISSING_CAPABILITY = -32021
UNSUPPORTED_VERSION = -32022
REMOVED = (
    "initialize",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
)
CACHEABLE = (
    "server/discover",
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
)
HTTP_STATUS = {MISSING_CAPABILITY: 400, METHOD_NOT_FOUND: 404}  # errors with their own status
NAMED_BY = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
TTL_MS = 0  # the hint a mock gives: its lists may change at any time (kind.list_changed)

Problem = tuple[int, dict[str, Any]]  # an HTTP status and a JSON-RPC error response


def meta_of(params: Mapping[str, Any]) -> Mapping[str, Any] | None:
    meta = params.get("_meta")
    return meta if isinstance(meta, Mapping) else None


def is_stateless(headers: Any, request: jsonrpc.Request, stateful: tuple[str, ...]) -> bool:
    """Rule 1."""
    if headers.get("mcp-session-id"):
        return False
    meta = meta_of(request.named)
    if meta is not None and META + "protocolVersion" in meta:
        return True
    version = headers.get("mcp-protocol-version")
    return version is not None and version.strip() not in stateful


def refusal(headers: Any, request: jsonrpc.Request, spoken: Sequence[str]) -> Problem | None:
    """Rule 2's refusals before the method runs, or None."""
    id_ = request.id
    meta = meta_of(request.named) or {}
    asked = meta.get(META + "protocolVersion")
    capabilities = meta.get(META + "clientCapabilities")
    if not isinstance(asked, str) or not isinstance(capabilities, Mapping):
        missing = "protocolVersion" if not isinstance(asked, str) else "clientCapabilities"
        text = f"Invalid params: _meta must carry {META}{missing} (revision {REVISION})"
        return 400, error(id_, INVALID_PARAMS, text)
    header = headers.get("mcp-protocol-version")
    if header is not None and header.strip() != asked:
        text = f"Header mismatch: MCP-Protocol-Version {header.strip()!r}, _meta {asked!r}"
        return 400, error(id_, HEADER_MISMATCH, text)
    if asked not in spoken:
        data = {"supported": list(spoken), "requested": asked}
        text = f"Unsupported protocol version: {asked}"
        return 400, error(id_, UNSUPPORTED_VERSION, text, data)
    mismatch = _header_mismatch(headers, request)
    if mismatch is not None:
        return 400, error(id_, HEADER_MISMATCH, mismatch)
    if request.method in REMOVED:
        text = f"Method not found: {request.method} (removed in revision {REVISION})"
        return 404, error(id_, METHOD_NOT_FOUND, text)
    return None


def _header_mismatch(headers: Any, request: jsonrpc.Request) -> str | None:
    """Why the ``Mcp-Method`` and ``Mcp-Name`` headers disagree with the body (SEP-2243)."""
    method = headers.get("mcp-method")
    if method is None:
        return "Header mismatch: no Mcp-Method header"
    if method.strip() != request.method:
        return f"Header mismatch: Mcp-Method {method.strip()!r}, body {request.method!r}"
    field = NAMED_BY.get(request.method)
    named = request.named.get(field) if field else None
    name = headers.get("mcp-name")
    if isinstance(named, str) and (name is None or name.strip() != named):
        return f"Header mismatch: Mcp-Name {name!r}, body {field} {named!r}"
    return None


def param_mismatch(
    headers: Any, arguments: Mapping[str, Any], schema: Mapping[str, Any]
) -> str | None:
    """Why the ``Mcp-Param-*`` headers disagree with a call's arguments (SEP-2243): each
    property with an ``x-mcp-header`` name has its value mirrored in ``Mcp-Param-<name>``,
    as it is or as ``=?base64?...?=`` (strict base64); or None."""
    properties = schema.get("properties")
    for name, spec in (properties if isinstance(properties, Mapping) else {}).items():
        header = spec.get("x-mcp-header") if isinstance(spec, Mapping) else None
        if not isinstance(header, str):
            continue
        sent = headers.get(f"mcp-param-{header}")
        if name not in arguments and sent is None:
            continue
        if sent is None:
            return f"Header mismatch: no Mcp-Param-{header} header for argument {name!r}"
        value = _decoded(sent.strip())
        if value is None:
            return f"Header mismatch: Mcp-Param-{header} is not valid base64"
        if name not in arguments or value != _as_header(arguments[name]):
            return f"Header mismatch: Mcp-Param-{header} {value!r}, argument {name!r}"
    return None


def _decoded(value: str) -> str | None:
    """A header value: ``=?base64?...?=`` decoded (None: invalid), else as it is."""
    if not (value.startswith("=?base64?") and value.endswith("?=") and len(value) >= 11):
        return value
    try:
        return base64.b64decode(value[9:-2], validate=True).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return None


def _as_header(value: Any) -> str:
    """An argument as a header carries it (JavaScript's ``String(value)``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return value if isinstance(value, str) else json.dumps(value)


def session_for(request: jsonrpc.Request) -> Session:
    """A session that lives for one request: its capabilities and log level from
    ``_meta`` (no level: no log messages)."""
    meta = meta_of(request.named) or {}
    capabilities = meta.get(META + "clientCapabilities")
    session = Session("", REVISION, capabilities=dict(capabilities or {}), kept=False)
    level = meta.get(META + "logLevel")
    session.level = level if isinstance(level, str) else None
    session.logs = isinstance(level, str)
    return session


def _key(ask: Mapping[str, Any], place: int) -> str:
    return str(ask.get("key", place))


def input_required(
    request: jsonrpc.Request, exchange: Exchange, session: Session, state: State
) -> dict[str, Any]:
    """A request that needs the client (Rule 3): an ``InputRequiredResult`` for each
    round of its ``ask`` requests (those whose capability the request declared; none:
    -32021), until a retry carries an answer to each of the last round; then the
    request's own response.  A retry that lacks an answer gets its round again; a
    ``requestState`` that is not the mock's own is -32602."""
    params = request.named
    asks = [
        (i, a) for i, a in enumerate(exchange.asks) if ASKS[a["method"]][0] in session.capabilities
    ]
    if not asks:
        needed: dict[str, Any] = {ASKS[a["method"]][0]: {} for a in exchange.asks}
        text = f"Missing required client capability: {', '.join(needed)}"
        return error(request.id, MISSING_CAPABILITY, text, {"requiredCapabilities": needed})
    rounds = sorted({a.get("round", 0) for _, a in asks})
    digest = _digest(request.method, params, exchange)
    given = params.get("requestState")
    done = 0
    if given is not None:
        done_or_none = _round_of(given, digest)
        if done_or_none is None or done_or_none > len(rounds):
            return error(request.id, INVALID_PARAMS, "Invalid params: requestState was not ours")
        done = done_or_none
    responses = params.get("inputResponses")
    responses = responses if isinstance(responses, Mapping) else {}
    if given is None and responses:  # answers to the first round, its state not echoed
        done = (
            1
            if all(_key(a, i) in responses for i, a in asks if a.get("round", 0) == rounds[0])
            else 0
        )
    elif done < len(rounds):
        current = [(i, a) for i, a in asks if a.get("round", 0) == rounds[done]]
        if given is not None and all(
            isinstance(responses.get(_key(a, i)), Mapping) for i, a in current
        ):
            done += 1
    if done < len(rounds):
        current = [(i, a) for i, a in asks if a.get("round", 0) == rounds[done]]
        value = {
            "resultType": "input_required",
            "inputRequests": {_key(a, i): request_of(a) for i, a in current},
            "requestState": _state(done, digest),
        }
        return result(request.id, value)
    return _finish(request, exchange, asks, responses, state)


def _finish(
    request: jsonrpc.Request,
    exchange: Exchange,
    asks: list[tuple[int, dict[str, Any]]],
    responses: Mapping[str, Any],
    state: State,
) -> dict[str, Any]:
    """The response once every round was answered; each answer kept."""
    replies: list[dict[str, Any]] = []
    for i, ask in asks:
        answer = responses.get(_key(ask, i))
        reply = (
            {"jsonrpc": "2.0", "id": i, "result": dict(answer)}
            if isinstance(answer, Mapping)
            else {"jsonrpc": "2.0", "id": i, "result": {}}
        )
        state.answered({"id": i, **request_of(ask)}, reply)
        replies.append(reply)
    return exchange.finish(replies)


def _digest(method: str, params: Mapping[str, Any], exchange: Exchange) -> str:
    asked = {"method": method, "name": params.get("name"), "asks": list(exchange.asks)}
    return hashlib.sha256(json.dumps(asked, sort_keys=True).encode()).hexdigest()[:32]


def _state(done: int, digest: str) -> str:
    """The opaque ``requestState``: rounds answered, and what was asked (its digest)."""
    return base64.urlsafe_b64encode(f"mockhttp:{done}:{digest}".encode()).decode()


def _round_of(state: Any, digest: str) -> int | None:
    """The rounds a ``requestState`` says were answered (None: not one of ours)."""
    try:
        text = base64.urlsafe_b64decode(str(state).encode()).decode()
    except (ValueError, UnicodeDecodeError):
        return None
    tag, _, rest = text.partition(":")
    done, _, found = rest.partition(":")
    if tag != "mockhttp" or not done.isdigit() or found != digest:
        return None
    return int(done) if state == _state(int(done), digest) else None  # (b64 skips junk)


def shape(method: str, message: dict[str, Any]) -> dict[str, Any]:
    """A response as revision 2026-07-28 writes it: ``resultType`` on each result,
    caching hints on the cacheable ones; resource not found is -32602."""
    if "error" in message:
        if message["error"].get("code") == RESOURCE_NOT_FOUND:
            message = {**message, "error": {**message["error"], "code": INVALID_PARAMS}}
        return message
    value = message.get("result")
    if not isinstance(value, dict):
        return message
    value = {"resultType": "complete", **value}
    if method in CACHEABLE:
        value.setdefault("ttlMs", TTL_MS)
        value.setdefault("cacheScope", "public")
    return {**message, "result": value}
