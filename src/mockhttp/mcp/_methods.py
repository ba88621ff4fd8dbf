"""The JSON-RPC methods a mock MCP server answers: each gives the messages to send.

A method returns its notifications (sent first, in an SSE answer) and then its response
as one list; ``METHODS`` maps the method names of the spec to them.  The list methods
page with an opaque cursor when the server has a ``page_size`` (``basic/utilities/
pagination``); a bad cursor is ``-32602``.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any, Protocol

from ._asking import Exchange, quote
from ._catalog import Answer, Tool
from ._prompts import Prompt
from ._resources import Resource, ResourceTemplate
from ._sessions import Session, State
from ._spec import (
    INVALID_PARAMS,
    LOG_LEVELS,
    METHOD_NOT_FOUND,
    RESOURCE_NOT_FOUND,
    error,
    notification,
    result,
)

__all__ = ["METHODS", "answer"]

STATELESS_FROM = "2026-07-28"
COMPLETIONS_AT_MOST = 100  # server/utilities/completion: "MUST NOT exceed 100 items"


class McpServer(Protocol):
    """What the methods read of the server (``_kind.McpServer`` is one)."""

    @property
    def name(self) -> str: ...

    @property
    def state(self) -> State: ...

    @property
    def page_size(self) -> int | None: ...

    @property
    def offered_tools(self) -> tuple[Tool, ...]: ...

    @property
    def offered_resources(self) -> tuple[Resource, ...]: ...

    @property
    def offered_templates(self) -> tuple[ResourceTemplate, ...]: ...

    @property
    def offered_prompts(self) -> tuple[Prompt, ...]: ...


Message = dict[str, Any]


@dataclasses.dataclass(frozen=True)
class Call:
    """One request being answered: the server, the session, its id and params."""

    server: McpServer
    session: Session
    id: Any
    params: Mapping[str, Any]


Method = Callable[[Call], list[Any]]


def answer(server: McpServer, session: Session, message: Mapping[str, Any]) -> list[Any]:
    """The messages that answer the request ``message``: its response last, or an
    :class:`~mockhttp.mcp._asking.Exchange` that makes it once the client answered."""
    method = message.get("method")
    handler = METHODS.get(method) if isinstance(method, str) else None
    if handler is None:
        return [error(message.get("id"), METHOD_NOT_FOUND, f"Method not found: {method}")]
    params = message.get("params")
    params = params if isinstance(params, Mapping) else {}
    return handler(Call(server, session, message.get("id"), params))


def _empty(call: Call) -> list[Message]:
    return [result(call.id, {})]


# -- pages ------------------------------------------------------------------------------


def _page(call: Call, key: str, items: Sequence[Any]) -> list[Message]:
    """``items`` listed under ``key``, one page of ``page_size`` from the cursor."""
    cursor = call.params.get("cursor")
    start = 0
    if cursor is not None:
        start_or_none = _offset(cursor, key)
        if start_or_none is None or start_or_none > len(items):
            return [error(call.id, INVALID_PARAMS, f"Invalid params: no such cursor {cursor!r}")]
        start = start_or_none
    size = call.server.page_size or len(items) or 1
    value: dict[str, Any] = {key: [i.listing() for i in items[start : start + size]]}
    if start + size < len(items):
        value["nextCursor"] = base64.urlsafe_b64encode(f"{key}:{start + size}".encode()).decode()
    return [result(call.id, value)]


def _offset(cursor: Any, key: str) -> int | None:
    """The place a cursor of the ``key`` list points at, or None."""
    try:
        text = base64.urlsafe_b64decode(str(cursor).encode()).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    name, _, number = text.partition(":")
    return int(number) if name == key and number.isdigit() else None


# -- tools ------------------------------------------------------------------------------


def _tools_list(call: Call) -> list[Message]:
    return _page(call, "tools", call.server.offered_tools)


def _tools_call(call: Call) -> list[Any]:
    server, id_, params = call.server, call.id, call.params
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
    before: list[Any] = _before(call, chosen)
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


def _before(call: Call, chosen: Answer) -> list[Message]:
    """An answer's notifications: progress (when the request has a ``progressToken``),
    log messages (at or above the session's level), list changes."""
    out = []
    meta = call.params.get("_meta")
    token = meta.get("progressToken") if isinstance(meta, Mapping) else None
    if token is not None:
        for value in chosen.progress:
            body = dict(value) if isinstance(value, Mapping) else {"progress": value}
            out.append(notification("notifications/progress", {"progressToken": token, **body}))
    floor = LOG_LEVELS.index(call.session.level) if call.session.level in LOG_LEVELS else 0
    for entry in chosen.log if call.session.logs else ():
        entry = {"data": entry} if isinstance(entry, str) else entry
        level = entry.get("level", "info")
        if LOG_LEVELS.index(level) >= floor:
            body = {"level": level, "logger": call.server.name, "data": entry.get("data")}
            out.append(notification("notifications/message", body))
    changes = [notification(f"notifications/{what}/list_changed") for what in chosen.notify]
    if call.session.revision >= STATELESS_FROM:  # on the subscriptions/listen streams
        for change in changes:
            call.server.state.tell_listeners(change["method"])
    else:
        out.extend(changes)
    return out


# -- resources --------------------------------------------------------------------------


def _resources_list(call: Call) -> list[Message]:
    return _page(call, "resources", call.server.offered_resources)


def _templates_list(call: Call) -> list[Message]:
    return _page(call, "resourceTemplates", call.server.offered_templates)


def _read(server: McpServer, uri: Any) -> dict[str, Any] | None:
    """The contents at ``uri``: a resource's, or the first template's that matches."""
    found = next((r for r in server.offered_resources if r.uri == uri), None)
    if found is not None:
        return found.contents()
    for template in server.offered_templates if isinstance(uri, str) else ():
        variables = template.match(uri)
        if variables is not None:
            return template.contents(uri, variables)
    return None


def _resources_read(call: Call) -> list[Message]:
    uri = call.params.get("uri")
    contents = _read(call.server, uri)
    if contents is None:
        return [error(call.id, RESOURCE_NOT_FOUND, "Resource not found", {"uri": uri})]
    return [result(call.id, {"contents": [contents]})]


def _subscription(on: bool, call: Call) -> list[Message]:
    uri = call.params.get("uri")
    if not isinstance(uri, str) or _read(call.server, uri) is None:
        return [error(call.id, RESOURCE_NOT_FOUND, "Resource not found", {"uri": uri})]
    call.server.state.subscribe(call.session, uri, on)
    return [result(call.id, {})]


# -- prompts ----------------------------------------------------------------------------


def _prompts_list(call: Call) -> list[Message]:
    return _page(call, "prompts", call.server.offered_prompts)


def _prompts_get(call: Call) -> list[Any]:
    name = call.params.get("name")
    found = next((p for p in call.server.offered_prompts if p.name == name), None)
    if found is None:
        return [error(call.id, INVALID_PARAMS, f"Unknown prompt: {name}")]
    arguments = call.params.get("arguments")
    arguments = arguments if isinstance(arguments, Mapping) else {}
    missing = found.missing(arguments)
    if missing:
        text = f"Invalid params: prompt {name!r} needs the argument {missing[0]!r}"
        return [error(call.id, INVALID_PARAMS, text)]
    if found.ask:
        rendered = partial(_rendered, call.id, found, dict(arguments))
        return [Exchange(found.ask, rendered, call.id)]
    return [result(call.id, found.render(arguments))]


def _rendered(
    id_: Any, prompt: Prompt, arguments: dict[str, Any], replies: list[Message]
) -> Message:
    return result(id_, prompt.render(arguments, replies))


# -- utilities --------------------------------------------------------------------------


def _complete(call: Call) -> list[Message]:
    """``completion/complete``: the values offered for a prompt's argument or a
    template's variable that start with what the client typed."""
    ref, argument = call.params.get("ref"), call.params.get("argument")
    if not isinstance(ref, Mapping) or not isinstance(argument, Mapping):
        return [error(call.id, INVALID_PARAMS, "Invalid params: ref and argument are objects")]
    offered = _offered(call.server, ref, str(argument.get("name")))
    if offered is None:
        return [error(call.id, INVALID_PARAMS, f"Invalid params: no such ref {dict(ref)!r}")]
    typed = str(argument.get("value", ""))
    values = [v for v in offered if v.startswith(typed)]
    completion = {
        "values": values[:COMPLETIONS_AT_MOST],
        "total": len(values),
        "hasMore": len(values) > COMPLETIONS_AT_MOST,
    }
    return [result(call.id, {"completion": completion})]


def _offered(server: McpServer, ref: Mapping[str, Any], name: str) -> tuple[str, ...] | None:
    """The values offered for argument ``name`` of ``ref`` (None: no such ref)."""
    if ref.get("type") == "ref/prompt":
        found = next((p for p in server.offered_prompts if p.name == ref.get("name")), None)
        return None if found is None else found.completions(name)
    if ref.get("type") == "ref/resource":
        uri = ref.get("uri")
        template = next((t for t in server.offered_templates if t.uri_template == uri), None)
        return None if template is None else tuple(template.complete.get(name, ()))
    return None


def _set_level(call: Call) -> list[Message]:
    level = call.params.get("level")
    if level not in LOG_LEVELS:
        text = f"Invalid params: level {level!r} is none of {', '.join(LOG_LEVELS)}"
        return [error(call.id, INVALID_PARAMS, text)]
    call.server.state.set_level(call.session, level)
    return [result(call.id, {})]


METHODS: dict[str, Method] = {
    "ping": _empty,
    "logging/setLevel": _set_level,
    "completion/complete": _complete,
    "tools/list": _tools_list,
    "tools/call": _tools_call,
    "resources/list": _resources_list,
    "resources/templates/list": _templates_list,
    "resources/read": _resources_read,
    "resources/subscribe": partial(_subscription, True),
    "resources/unsubscribe": partial(_subscription, False),
    "prompts/list": _prompts_list,
    "prompts/get": _prompts_get,
}
"""The request methods after ``initialize`` (which the server answers itself: it opens
the session)."""
