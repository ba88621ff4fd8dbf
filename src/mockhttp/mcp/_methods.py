"""The JSON-RPC methods a mock MCP server answers: each gives the messages to send.

A method returns its notifications (sent first, in an SSE answer) and then its response
as one list; ``METHODS`` maps the method names of the spec to them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any, Protocol

from ._asking import Exchange, quote
from ._catalog import Answer, Prompt, Resource, Tool
from ._sessions import State
from ._spec import (
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    RESOURCE_NOT_FOUND,
    error,
    notification,
    result,
)


class McpServer(Protocol):
    """What the methods read of the server (``_kind.McpServer`` is one)."""

    @property
    def name(self) -> str: ...

    @property
    def state(self) -> State: ...

    @property
    def offered_tools(self) -> tuple[Tool, ...]: ...

    @property
    def offered_resources(self) -> tuple[Resource, ...]: ...

    @property
    def offered_prompts(self) -> tuple[Prompt, ...]: ...


__all__ = ["METHODS", "answer"]

Message = dict[str, Any]
Method = Callable[[McpServer, Any, Mapping[str, Any]], list[Any]]


def _params(message: Mapping[str, Any]) -> Mapping[str, Any]:
    params = message.get("params")
    return params if isinstance(params, Mapping) else {}


def answer(server: McpServer, message: Mapping[str, Any]) -> list[Any]:
    """The messages that answer the request ``message``: its response last, or an
    :class:`~mockhttp.mcp._asking.Exchange` that makes it once the client answered."""
    method = message.get("method")
    handler = METHODS.get(method) if isinstance(method, str) else None
    if handler is None:
        return [error(message.get("id"), METHOD_NOT_FOUND, f"Method not found: {method}")]
    return handler(server, message.get("id"), _params(message))


def _empty(server: McpServer, id_: Any, params: Mapping[str, Any]) -> list[Message]:
    return [result(id_, {})]


def _tools_list(server: McpServer, id_: Any, params: Mapping[str, Any]) -> list[Message]:
    return [result(id_, {"tools": [t.listing() for t in server.offered_tools]})]


def _tools_call(server: McpServer, id_: Any, params: Mapping[str, Any]) -> list[Any]:
    name = params.get("name")
    tool = next((t for t in server.offered_tools if t.name == name), None)
    if tool is None:
        return [error(id_, INVALID_PARAMS, f"Unknown tool: {name}")]
    arguments = params.get("arguments")
    arguments = arguments if isinstance(arguments, Mapping) else {}
    answers = tool.answers or (Answer(),)
    candidates = tuple(i for i, a in enumerate(answers) if a.when and a.matches(arguments))
    candidates = candidates or tuple(i for i, a in enumerate(answers) if a.when is None)
    if not candidates:
        text = f"no answer of tool {tool.name!r} is for the arguments {dict(arguments)!r}"
        return [error(id_, INVALID_PARAMS, text)]
    n = server.state.take(tool.name, candidates)
    chosen = answers[candidates[min(n, len(candidates) - 1)]]
    before: list[Any] = _before(server, chosen, params)
    if chosen.ask:
        return [*before, Exchange(chosen.ask, partial(_response, id_, tool.name, chosen), id_)]
    return [*before, _response(id_, tool.name, chosen, [])]


def _response(id_: Any, tool: str, chosen: Answer, replies: list[Message]) -> Message:
    """The call's response: the answer's error, or its result (``{reply}`` quoted)."""
    if chosen.error is not None:
        err = chosen.error
        return error(id_, err.get("code", -32603), err["message"], err.get("data"))
    if chosen.text is not None and replies:
        chosen = dataclasses.replace(chosen, text=quote(chosen.text, replies))
    return result(id_, chosen.result(tool))


def _before(server: McpServer, chosen: Answer, params: Mapping[str, Any]) -> list[Message]:
    """An answer's notifications: progress (when the request has a ``progressToken``),
    log messages, list changes."""
    out = []
    meta = params.get("_meta")
    token = meta.get("progressToken") if isinstance(meta, Mapping) else None
    if token is not None:
        for value in chosen.progress:
            out.append(
                notification("notifications/progress", {"progressToken": token, "progress": value})
            )
    for entry in chosen.log:
        entry = {"data": entry} if isinstance(entry, str) else entry
        body = {
            "level": entry.get("level", "info"),
            "logger": server.name,
            "data": entry.get("data"),
        }
        out.append(notification("notifications/message", body))
    out.extend(notification(f"notifications/{what}/list_changed") for what in chosen.notify)
    return out


def _resources_list(server: McpServer, id_: Any, params: Mapping[str, Any]) -> list[Message]:
    return [result(id_, {"resources": [r.listing() for r in server.offered_resources]})]


def _resources_read(server: McpServer, id_: Any, params: Mapping[str, Any]) -> list[Message]:
    uri = params.get("uri")
    found = next((r for r in server.offered_resources if r.uri == uri), None)
    if found is None:
        return [error(id_, RESOURCE_NOT_FOUND, "Resource not found", {"uri": uri})]
    return [result(id_, {"contents": [found.contents()]})]


def _prompts_list(server: McpServer, id_: Any, params: Mapping[str, Any]) -> list[Message]:
    return [result(id_, {"prompts": [p.listing() for p in server.offered_prompts]})]


def _prompts_get(server: McpServer, id_: Any, params: Mapping[str, Any]) -> list[Message]:
    name = params.get("name")
    found = next((p for p in server.offered_prompts if p.name == name), None)
    if found is None:
        return [error(id_, INVALID_PARAMS, f"Unknown prompt: {name}")]
    arguments = params.get("arguments")
    return [result(id_, found.render(arguments if isinstance(arguments, Mapping) else {}))]


METHODS: dict[str, Method] = {
    "ping": _empty,
    "logging/setLevel": _empty,
    "tools/list": _tools_list,
    "tools/call": _tools_call,
    "resources/list": _resources_list,
    "resources/read": _resources_read,
    "prompts/list": _prompts_list,
    "prompts/get": _prompts_get,
}
"""The request methods after ``initialize`` (which the server answers itself: it opens
the session)."""
