"""MCP server mocks on the Streamable HTTP transport (revisions 2025-03-26 onward).

```python
import mockhttp
from mockhttp import mcp

with mockhttp.Server() as server:
    server.mock(mcp.server(tools=[mcp.tool("get_weather", answers=["Sunny, 21 °C"])]))
```

:func:`server` makes a mock answering every method at ``/mcp`` with an
:class:`McpServer`, a reply kind (``response: {mcp: {tools: [...]}}`` in mock files) that
answers each JSON-RPC message: ``initialize`` (a session, a negotiated revision),
``tools/*``, ``resources/*``, ``prompts/*``, ``ping``; as JSON or an SSE stream whose
notifications (progress, log messages, list changes) come before the response; the GET
stream; resumption after ``Last-Event-ID``.  Its sessions and script places live in the
state it owns (``_sessions``); the core knows none of this.

Modules: ``_spec`` (revisions, headers, error codes), ``_fields`` (the records' checks),
``_catalog`` (tools and their answers), ``_content`` (content blocks), ``_resources``
(resources and templates), ``_prompts``, ``_asking`` (server-to-client requests),
``_faults`` (faults aimed at one method), ``_guard`` (Host and Origin), ``_methods`` (one
function per JSON-RPC method), ``_sessions`` (the state), ``_kind`` (the transport).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from .._core._mock import Mock
from .._core._registry import register_reply_kind
from ._asking import ClientResponse as ClientResponse
from ._asking import elicitation as elicitation
from ._asking import roots as roots
from ._asking import sampling as sampling
from ._catalog import Answer as Answer
from ._catalog import Tool as Tool
from ._catalog import answer as answer
from ._catalog import error as error
from ._catalog import tool as tool
from ._content import audio as audio
from ._content import embedded as embedded
from ._content import image as image
from ._content import link as link
from ._content import text as text
from ._faults import MethodFault as MethodFault
from ._faults import method_fault as method_fault
from ._kind import McpServer as McpServer
from ._prompts import Prompt as Prompt
from ._prompts import prompt as prompt
from ._resources import Resource as Resource
from ._resources import ResourceTemplate as ResourceTemplate
from ._resources import resource as resource
from ._resources import template as template
from ._sessions import Cancelled as Cancelled
from ._spec import REVISIONS as REVISIONS
from ._spec import STATEFUL as STATEFUL

register_reply_kind(McpServer.file_key, McpServer)


def server(
    tools: Sequence[Tool | Mapping[str, Any]] = (),
    *,
    path: str = "/mcp",
    **options: Any,
) -> Mock:
    """A mock answering every method at ``path`` with ``McpServer(tools, **options)``
    (see :class:`McpServer` for the options); ``mock.kind`` is that server.

    Raises:
        ConfigError: a bad tool, resource, prompt or option (the message says which).
    """
    return McpServer(tools, **options).mock(path)


def allowing(
    mocks: Sequence[Mock], hosts: Sequence[str] = (), origins: Sequence[str] = ()
) -> list[Mock]:
    """``mocks`` with each MCP server's ``allow_hosts`` and ``allow_origins`` widened by
    ``hosts`` and ``origins`` (what ``mockhttp serve --allow-host/--allow-origin`` does);
    the other mocks as they are."""
    if not hosts and not origins:
        return list(mocks)
    out = []
    for mock in mocks:
        kind = mock.kind
        if isinstance(kind, McpServer):
            wider = dataclasses.replace(
                kind,
                allow_hosts=(*kind.allow_hosts, *hosts),
                allow_origins=(*kind.allow_origins, *origins),
            )
            mock = dataclasses.replace(mock, kind=wider)
        out.append(mock)
    return out


__all__ = [  # noqa: RUF022 (plain sorted order, as tests/test_exports.py checks)
    "Answer",
    "Cancelled",
    "ClientResponse",
    "McpServer",
    "MethodFault",
    "Prompt",
    "REVISIONS",
    "Resource",
    "ResourceTemplate",
    "STATEFUL",
    "Tool",
    "allowing",
    "answer",
    "audio",
    "elicitation",
    "embedded",
    "error",
    "image",
    "link",
    "method_fault",
    "prompt",
    "resource",
    "roots",
    "sampling",
    "server",
    "template",
    "text",
    "tool",
]
