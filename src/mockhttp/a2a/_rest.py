"""A2A 1.0's HTTP+JSON binding: each route read as the operation and params the JSON-RPC
binding would carry, and each JSON-RPC error code as the HTTP status it answers with.

Rule 1 (the specification's routes, under the agent's path): ``POST /message:send`` and
``/message:stream`` (body: the ``SendMessageRequest``), ``GET /tasks/{id}``
(``?historyLength=``), ``GET /tasks`` (the ``ListTasks`` params in the query), ``POST
/tasks/{id}:cancel``, ``GET|POST /tasks/{id}:subscribe``, ``POST|GET
/tasks/{id}/pushNotificationConfigs`` and ``GET|DELETE
/tasks/{id}/pushNotificationConfigs/{configId}``, ``GET /extendedAgentCard``.
Rule 2: an answer is the JSON-RPC ``result`` itself (a stream's events are
``StreamResponse`` objects); an error is ``{"error": {code, status, message, details}}``
with the HTTP status of its kind (google.rpc.Status, as the specification maps them).

Pure: :func:`route` and :func:`status_of`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ._spec import ERRORS
from ._validate import camel

__all__ = ["PATTERN", "rest_error", "route", "status_of"]

PATTERN = (
    r"/(message:(send|stream)|extendedAgentCard|tasks"
    r"(/[^/:]+(:cancel|:subscribe|/pushNotificationConfigs(/[^/]+)?)?)?)"
)
"""The routes under the agent's path (a regular expression, anchored by the caller)."""

_ROUTES: tuple[tuple[str, re.Pattern[str], str], ...] = tuple(
    (method, re.compile(path), operation)
    for method, path, operation in (
        ("POST", r"/message:send", "send"),
        ("POST", r"/message:stream", "stream"),
        ("GET", r"/tasks", "list_tasks"),
        ("GET", r"/tasks/(?P<id>[^/:]+)", "get"),
        ("POST", r"/tasks/(?P<id>[^/:]+):cancel", "cancel"),
        ("GET", r"/tasks/(?P<id>[^/:]+):subscribe", "resubscribe"),
        ("POST", r"/tasks/(?P<id>[^/:]+):subscribe", "resubscribe"),
        ("POST", r"/tasks/(?P<taskId>[^/:]+)/pushNotificationConfigs", "push_set"),
        ("GET", r"/tasks/(?P<taskId>[^/:]+)/pushNotificationConfigs", "push_list"),
        ("GET", r"/tasks/(?P<taskId>[^/:]+)/pushNotificationConfigs/(?P<id>[^/]+)", "push_get"),
        (
            "DELETE",
            r"/tasks/(?P<taskId>[^/:]+)/pushNotificationConfigs/(?P<id>[^/]+)",
            "push_delete",
        ),
        ("GET", r"/extendedAgentCard", "extended_card"),
    )
)

_NUMBERS = ("historyLength", "pageSize")
_FLAGS = ("includeArtifacts",)

_STATUS = {  # JSON-RPC code: (HTTP status, google.rpc code name, the ErrorInfo reason)
    ERRORS["task_not_found"]: (404, "NOT_FOUND", "TASK_NOT_FOUND"),
    ERRORS["task_not_cancelable"]: (409, "FAILED_PRECONDITION", "TASK_NOT_CANCELABLE"),
    ERRORS["push_not_supported"]: (400, "UNIMPLEMENTED", "PUSH_NOTIFICATION_NOT_SUPPORTED"),
    ERRORS["unsupported_operation"]: (400, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION"),
    ERRORS["content_type_not_supported"]: (415, "INVALID_ARGUMENT", "CONTENT_TYPE_NOT_SUPPORTED"),
    ERRORS["extended_card_not_configured"]: (
        400,
        "FAILED_PRECONDITION",
        "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
    ),
    ERRORS["version_not_supported"]: (400, "INVALID_ARGUMENT", "VERSION_NOT_SUPPORTED"),
    ERRORS["invalid_params"]: (400, "INVALID_ARGUMENT", "INVALID_PARAMS"),
    ERRORS["invalid_request"]: (400, "INVALID_ARGUMENT", "INVALID_REQUEST"),
    ERRORS["parse"]: (400, "INVALID_ARGUMENT", "PARSE_ERROR"),
    ERRORS["method_not_found"]: (404, "NOT_FOUND", "METHOD_NOT_FOUND"),
}


def route(
    method: str, path: str, query: Mapping[str, str], body: Any
) -> tuple[str, dict[str, Any]] | None:
    """The operation and params of a request to ``path`` (under the agent's path), or None
    when no route matches."""
    for verb, pattern, operation in _ROUTES:
        found = pattern.fullmatch(path)
        if found is None or verb != method:
            continue
        params: dict[str, Any] = dict(body) if isinstance(body, dict) else {}
        for key, value in camel(dict(query)).items():
            params[key] = _query_value(key, value)
        params.update({k: v for k, v in found.groupdict().items() if v is not None})
        return operation, params
    return None


def _query_value(key: str, value: str) -> Any:
    if key in _NUMBERS:
        try:
            return int(value)
        except ValueError:
            return value  # refused by the operation's own check, with its message
    if key in _FLAGS:
        return {"true": True, "false": False}.get(value, value)
    return value


def status_of(code: int) -> int:
    """The HTTP status of a JSON-RPC error code (500 for one not in the table)."""
    return _STATUS.get(code, (500, "INTERNAL", "INTERNAL_ERROR"))[0]


def rest_error(code: int, message: str) -> dict[str, Any]:
    """The error body: google.rpc.Status with an ErrorInfo naming the A2A error."""
    status, name, reason = _STATUS.get(code, (500, "INTERNAL", "INTERNAL_ERROR"))
    info = {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        "reason": reason,
        "domain": "a2a-protocol.org",
    }
    return {"error": {"code": status, "status": name, "message": message, "details": [info]}}
