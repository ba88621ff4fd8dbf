"""Server-to-client requests: a tool call that asks the client first, then answers.

An answer with ``ask=[...]`` sends each request (``sampling/createMessage``,
``elicitation/create``, ``roots/list``) on the call's SSE stream, waits for the client's
JSON-RPC response POSTed back, then sends the next one, and last the call's own response,
whose text may quote what the client answered (``{reply}``: the last answer,
``{reply[0]}``: the first).  Every answer is kept as a :class:`ClientResponse`.

Rule 1: a request goes only where the revision has it (elicitation from 2025-06-18) and
the client declared its capability in ``initialize``; else the call gets a JSON-RPC
error that says which.
Rule 2: the server's request ids are integers from 1, unique in a session.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._core._errors import ConfigError

__all__ = [
    "ASKS",
    "ClientResponse",
    "Exchange",
    "check_ask",
    "elicitation",
    "problem",
    "request_of",
    "roots",
    "sampling",
    "summary",
]

ASKS: dict[str, tuple[str, str]] = {
    # method: (the client capability it needs, the first revision that has it)
    "sampling/createMessage": ("sampling", "2025-03-26"),
    "roots/list": ("roots", "2025-03-26"),
    "elicitation/create": ("elicitation", "2025-06-18"),
}


def check_ask(value: Any, where: str) -> dict[str, Any]:
    """One ``ask`` entry as data: ``{method, params}`` with a method of :data:`ASKS`, and
    for revision 2026-07-28's ``InputRequiredResult`` its ``key`` in ``inputRequests``
    (default: its place) and its ``round`` (default 0: all in the first)."""
    if not isinstance(value, Mapping) or set(value) - {"method", "params", "key", "round"}:
        raise ConfigError(f"{where}: {value!r} must be {{method, params, key, round}}")
    method = value.get("method")
    if method not in ASKS:
        raise ConfigError(f"{where}.method: {method!r} must be one of {', '.join(ASKS)}")
    params = value.get("params", {})
    if not isinstance(params, Mapping):
        raise ConfigError(f"{where}.params: {params!r} must be a mapping")
    out = {"method": method, "params": dict(params)}
    if "key" in value:
        if not isinstance(value["key"], str) or not value["key"]:
            raise ConfigError(f"{where}.key: {value['key']!r} must be non-empty text")
        out["key"] = value["key"]
    if "round" in value:
        number = value["round"]
        if isinstance(number, bool) or not isinstance(number, int) or number < 0:
            raise ConfigError(f"{where}.round: {number!r} must be a whole number from 0")
        out["round"] = number
    return out


def request_of(ask: Mapping[str, Any]) -> dict[str, Any]:
    """The request an ``ask`` entry sends: its method and params."""
    return {"method": ask["method"], "params": ask["params"]}


def sampling(
    text: str, *, max_tokens: int = 100, system: str | None = None, **params: Any
) -> dict[str, Any]:
    """A ``sampling/createMessage`` request: one user message ``text``."""
    message = {"role": "user", "content": {"type": "text", "text": text}}
    body: dict[str, Any] = {"messages": [message], "maxTokens": max_tokens, **params}
    if system is not None:
        body["systemPrompt"] = system
    return {"method": "sampling/createMessage", "params": body}


def elicitation(message: str, schema: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """An ``elicitation/create`` request (form mode): ``message`` and the fields'
    ``requestedSchema`` (default: no fields)."""
    requested = {"type": "object", "properties": {}} if schema is None else dict(schema)
    return {
        "method": "elicitation/create",
        "params": {"message": message, "requestedSchema": requested},
    }


def roots() -> dict[str, Any]:
    """A ``roots/list`` request."""
    return {"method": "roots/list", "params": {}}


def problem(method: str, revision: str, capabilities: Mapping[str, Any]) -> str | None:
    """Why ``method`` cannot be sent in this session (Rule 1), or None."""
    capability, since = ASKS[method]
    if revision and revision < since:
        return f"{method} needs revision {since} or later (this session: {revision})"
    if capability not in capabilities:
        return f"the client did not declare the {capability!r} capability {method} needs"
    return None


@dataclass(frozen=True)
class ClientResponse:
    """What the client answered to one of the mock's requests.

    Attributes:
        session_id: the session ("" without sessions).
        id: the request's JSON-RPC id.
        method: what the mock asked (``sampling/createMessage`` ...).
        params: the request's params.
        result: the client's result (None when it answered with an error).
        error: the client's JSON-RPC error, if any.
    """

    session_id: str
    id: int
    method: str
    params: dict[str, Any]
    result: dict[str, Any] | None
    error: dict[str, Any] | None


def summary(response: Mapping[str, Any]) -> str:
    """A client's response as the text ``{reply}`` quotes: a sampled message's text, an
    elicitation's content (JSON) or action, the roots' URIs, or the error."""
    if "error" in response:
        err = response["error"] if isinstance(response["error"], Mapping) else {}
        return f"error {err.get('code')}: {err.get('message')}"
    value = response.get("result")
    value = value if isinstance(value, Mapping) else {}
    if "roots" in value:
        return ", ".join(str(r.get("uri")) for r in value["roots"] if isinstance(r, Mapping))
    if "action" in value:
        content = value.get("content")
        return json.dumps(content, ensure_ascii=False) if content else str(value["action"])
    content = value.get("content")
    blocks = content if isinstance(content, list) else [content]
    texts = [b["text"] for b in blocks if isinstance(b, Mapping) and "text" in b]
    return "".join(texts) if texts else json.dumps(value, ensure_ascii=False)


def quote(text: str, replies: Sequence[Mapping[str, Any]]) -> str:
    """``text`` with ``{reply}`` and ``{reply[N]}`` filled in from ``replies``."""
    for i, reply in enumerate(replies):
        text = text.replace(f"{{reply[{i}]}}", summary(reply))
    return text.replace("{reply}", summary(replies[-1])) if replies else text


@dataclass(frozen=True)
class Exchange:
    """The rest of a call that asks first: ``asks`` to send in order, and ``finish``,
    which makes the call's response from the client's responses."""

    asks: tuple[dict[str, Any], ...]
    finish: Callable[[list[dict[str, Any]]], dict[str, Any]]
    call_id: Any
