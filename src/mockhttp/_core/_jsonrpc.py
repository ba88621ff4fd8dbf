"""JSON-RPC 2.0, the envelope MCP and A2A share: reading messages, writing answers.

Pure data in, data out (no I/O).  ``parse(body)`` reads a request body into a
:class:`Request` (a call, or a notification when it has no id), a :class:`Response` (a
client's answer to a server's request), an :class:`Invalid` (what to answer instead), or a
:class:`Batch` of them; ``result``, ``error`` and ``notification`` write messages.

Rule 1 (the spec, §4-§6): ``jsonrpc`` is ``"2.0"``; a request's ``method`` is a string;
``params`` is an object or an array when present; an id is a string, a number or null.
Rule 2: an error answers with the request's id whenever the id could be read (a string
or number, even in a message that is otherwise invalid); null only when it could not be
(a parse error, an id that is an object, an array or a boolean: -32600).
Rule 3: a batch is a non-empty array; each member is read by Rule 1 on its own, and an
empty array is one Invalid Request.  The notifications of a batch get no answer.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "METHOD_NOT_FOUND",
    "PARSE_ERROR",
    "Batch",
    "Invalid",
    "Message",
    "Request",
    "Response",
    "error",
    "is_id",
    "notification",
    "parse",
    "read",
    "readable_id",
    "result",
]

# §5.1: the codes the spec reserves
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

Id = str | int | float | None


@dataclass(frozen=True)
class Request:
    """A request (it has an ``id``) or a notification (``notification`` true, no id)."""

    method: str
    params: dict[str, Any] | list[Any] | None = None
    id: Id = None
    notification: bool = False

    @property
    def named(self) -> Mapping[str, Any]:
        """The params when they are an object (by-name), else an empty mapping."""
        return self.params if isinstance(self.params, dict) else {}

    def data(self) -> dict[str, Any]:
        """The message as JSON data again."""
        out: dict[str, Any] = {"jsonrpc": "2.0", "method": self.method}
        if self.params is not None:
            out["params"] = self.params
        if not self.notification:
            out["id"] = self.id
        return out


@dataclass(frozen=True)
class Response:
    """A response: ``result``, or ``error`` (``{code, message, data?}``) when it failed."""

    id: Id
    result: Any = None
    error: dict[str, Any] | None = None

    def data(self) -> dict[str, Any]:
        if self.error is not None:
            return {"jsonrpc": "2.0", "id": self.id, "error": self.error}
        return {"jsonrpc": "2.0", "id": self.id, "result": self.result}


@dataclass(frozen=True)
class Invalid:
    """A message that is not valid JSON-RPC: the error to answer it with (Rule 2)."""

    code: int
    message: str
    id: Id = None

    def answer(self) -> dict[str, Any]:
        """The error response to send."""
        return error(self.id, self.code, self.message)


Message = Request | Response | Invalid


@dataclass(frozen=True)
class Batch:
    """A JSON-RPC batch: its members in order (Rule 3)."""

    messages: tuple[Message, ...] = field(default_factory=tuple)

    @property
    def requests(self) -> tuple[Request, ...]:
        """The members that expect an answer (requests, not notifications)."""
        return tuple(m for m in self.messages if isinstance(m, Request) and not m.notification)


def is_id(value: Any) -> bool:
    """A valid request id: a string or a number (a boolean is not one); null is allowed
    by the spec but is not tested here."""
    return isinstance(value, str | int | float) and not isinstance(value, bool)


def readable_id(value: Any) -> Id:
    """The id of ``value`` (a message's data) when it could be read, else None."""
    if isinstance(value, Mapping):
        id_ = value.get("id")
        return id_ if is_id(id_) else None
    return None


def parse(body: bytes | str) -> Message | Batch:
    """A request body read as JSON-RPC (one message or a batch); a body that is not JSON
    is an :class:`Invalid` parse error (-32700)."""
    try:
        value = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        return Invalid(PARSE_ERROR, f"Parse error: {exc}")
    return read(value)


def read(value: Any) -> Message | Batch:
    """JSON data read as JSON-RPC: one message, or a batch when it is an array."""
    if isinstance(value, list):
        if not value:
            return Invalid(INVALID_REQUEST, "Invalid Request: an empty batch")
        return Batch(tuple(_message(m) for m in value))
    return _message(value)


def _message(value: Any) -> Message:
    if not isinstance(value, Mapping):
        return Invalid(INVALID_REQUEST, "Invalid Request: a message is a JSON object")
    id_ = value.get("id")
    if "id" in value and id_ is not None and not is_id(id_):
        text = f"an id is a string, a number or null, not {_json_type(id_)}"
        return Invalid(INVALID_REQUEST, f"Invalid Request: {text}")
    why = _problem(value)
    if why is not None:
        return Invalid(INVALID_REQUEST, f"Invalid Request: {why}", id_)
    if "method" in value:
        params = value.get("params")
        return Request(value["method"], params, id_, notification="id" not in value)
    err = value.get("error")
    return Response(id_, value.get("result"), dict(err) if isinstance(err, Mapping) else None)


def _problem(value: Mapping[str, Any]) -> str | None:
    """Why ``value`` (an object with a valid or no id) is not a message, or None."""
    if value.get("jsonrpc") != "2.0":
        return 'jsonrpc must be "2.0"'
    if "method" in value:
        if not isinstance(value["method"], str):
            return "method must be a string"
        params = value.get("params")
        if "params" in value and not isinstance(params, dict | list):
            return "params must be an object or an array"
        return None
    if "id" not in value:
        return "neither a request (method) nor a response (id)"
    has_result, err = "result" in value, value.get("error")
    if has_result == ("error" in value):
        return "a response has either result or error"
    code = err.get("code") if isinstance(err, Mapping) else None
    if not has_result and not (isinstance(code, int) and not isinstance(code, bool)):
        return "error must be an object with an integer code"
    return None


def _json_type(value: Any) -> str:
    """What JSON calls ``value``'s type."""
    if isinstance(value, bool):
        return "a boolean"
    return "an object" if isinstance(value, Mapping) else "an array"


def result(id_: Id, value: Any) -> dict[str, Any]:
    """A response carrying ``value``."""
    return {"jsonrpc": "2.0", "id": id_, "result": value}


def error(id_: Id, code: int, message: str, data: Any = None) -> dict[str, Any]:
    """An error response (``data`` left out when None)."""
    body: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        body["data"] = data
    return {"jsonrpc": "2.0", "id": id_, "error": body}


def notification(method: str, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A notification (no id)."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = dict(params)
    return message
