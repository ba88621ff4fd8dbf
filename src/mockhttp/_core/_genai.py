"""The GenAI facts of one served exchange, read from its bytes, and their span attributes.

What a provider-shaped reply told its client (the model, the response id, the token usage,
the finish reasons, the tool calls) is read back here from the request and the body bytes
the server sent (a call's ``body_sent``): OpenAI Chat Completions, the OpenAI Responses
API, Anthropic Messages and Gemini, streamed or buffered.  ``serve --otel`` puts them on
its spans under OpenTelemetry's GenAI semantic conventions (``attributes``), and
``mockhttp.otel.verify`` holds a client's own spans against them.

Rule 1: the bytes decide, not the mock: a recording, a hand-written stream and an ``llm``
reply read alike; a stream cut short has what was sent before the cut (no finish reason,
no usage when they had not been sent).
Rule 2: an exchange that is no GenAI API's (by its path) is None: its span has the HTTP
server attributes alone.
Rule 3: finish reasons are the provider's own words (``stop``, ``tool_calls``,
``end_turn``, ``STOP``), as the instrumentations report them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ._sse_decode import Message, decode

__all__ = [
    "GenAI",
    "ToolUse",
    "api_of",
    "attributes",
    "genai_of",
    "http_attributes",
    "names",
    "span_name",
]

# (the provider and operation names of the GenAI semantic conventions)
OPENAI, ANTHROPIC, GEMINI = "openai", "anthropic", "gcp.gemini"
CHAT, GENERATE = "chat", "generate_content"


@dataclass(frozen=True)
class ToolUse:
    """A tool call the reply asked for: the function's ``name`` and the call's ``id``."""

    name: str
    id: str | None = None


@dataclass
class GenAI:
    """What one GenAI exchange served (Rule 1).

    Attributes:
        api: ``chat_completions``, ``responses``, ``anthropic_messages`` or ``gemini``.
        provider: ``gen_ai.provider.name`` (``openai``, ``anthropic``, ``gcp.gemini``).
        operation: ``gen_ai.operation.name`` (``chat``, ``generate_content``).
        request_model: the model the request named.
        response_model: the model the reply named.
        response_id: the reply's id.
        input_tokens, output_tokens: the usage the reply carried (None: none sent).
        finish_reasons: one per choice, in the provider's words (Rule 3).
        tool_calls: the tool calls the reply asked for, in order.
        streamed: the reply was an event stream.
        chunks: the stream's events (data messages) sent.
        error: the provider error the reply carried (its type or code), else None.
    """

    api: str
    provider: str
    operation: str
    request_model: str | None = None
    response_model: str | None = None
    response_id: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    finish_reasons: list[str] = field(default_factory=list)
    tool_calls: list[ToolUse] = field(default_factory=list)
    streamed: bool = False
    chunks: int = 0
    error: str | None = None


def api_of(path: str) -> tuple[str, str, str] | None:
    """The API, provider and operation a request path is for (None: no GenAI API's)."""
    if path.endswith("/chat/completions"):
        return "chat_completions", OPENAI, CHAT
    if path.endswith("/responses"):
        return "responses", OPENAI, CHAT
    if path.endswith("/messages"):
        return "anthropic_messages", ANTHROPIC, CHAT
    if path.endswith((":generateContent", ":streamGenerateContent")):
        return "gemini", GEMINI, GENERATE
    return None


def genai_of(method: str, path: str, request_body: bytes, body: bytes) -> GenAI | None:
    """The GenAI facts of an exchange: its request's method, path and body, and the reply
    body sent (None: no GenAI API's, Rule 2)."""
    found = api_of(path)
    if found is None or method != "POST":
        return None
    api, provider, operation = found
    facts = GenAI(api, provider, operation)
    asked = _json(request_body)
    if isinstance(asked, Mapping) and isinstance(asked.get("model"), str):
        facts.request_model = asked["model"]
    if api == "gemini":
        facts.request_model = path.rsplit("/models/", 1)[-1].split(":", 1)[0] or None
    events = _events(body)
    facts.streamed = events is not None
    items = events if events is not None else _as_list(_json(body))
    facts.chunks = len(events or ())
    _READERS[api](facts, [i for i in items if isinstance(i, Mapping)])
    return facts


def _json(data: bytes) -> Any:
    try:
        return json.loads(data) if data else None
    except ValueError:
        return None


def _as_list(value: Any) -> list[Any]:
    """A buffered body's objects: one, or Gemini's array of them."""
    if isinstance(value, list):
        return value
    return [] if value is None else [value]


def _events(body: bytes) -> list[Any] | None:
    """The JSON data of an event stream's messages (``[DONE]`` and non-JSON left out), or
    None when the body is no event stream."""
    start = body.lstrip()[:6]
    if not start.startswith((b"data:", b"event:", b":", b"id:")):
        return None
    found = []
    for item in decode(body):
        if isinstance(item, Message) and item.data and item.data != "[DONE]":
            value = _json(item.data.encode())
            if value is not None:
                found.append(value)
    return found


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _int(value: Any) -> int | None:
    return value if type(value) is int else None


def _error(facts: GenAI, item: Mapping[str, Any]) -> bool:
    """An ``{"error": ...}`` object (or Anthropic's ``type: error``): note it."""
    error = item.get("error")
    if not isinstance(error, Mapping):
        return False
    words = [error.get(k) for k in ("code", "type", "status")]  # (the most precise first)
    kind = next((w for w in words if isinstance(w, str) and w), error.get("code"))
    facts.error = str(kind) if kind is not None else "error"
    return True


# -- OpenAI Chat Completions ------------------------------------------------------------


def _chat(facts: GenAI, items: list[Mapping[str, Any]]) -> None:
    finish: dict[int, str] = {}
    tools: dict[tuple[int, int], ToolUse] = {}
    for item in items:
        if _error(facts, item):
            continue
        facts.response_id = _text(item.get("id")) or facts.response_id
        facts.response_model = _text(item.get("model")) or facts.response_model
        _chat_usage(facts, item.get("usage"))
        for n, choice in enumerate(item.get("choices") or ()):
            if not isinstance(choice, Mapping):
                continue
            index = choice.get("index", n)
            if _text(choice.get("finish_reason")):
                finish[index] = choice["finish_reason"]
            part = choice.get("delta") or choice.get("message")
            calls = part.get("tool_calls") if isinstance(part, Mapping) else None
            for m, call in enumerate(calls or ()):
                if isinstance(call, Mapping):
                    _chat_tool(tools, (index, call.get("index", m)), call)
    facts.finish_reasons = [finish[i] for i in sorted(finish)]
    facts.tool_calls = [tools[k] for k in sorted(tools)]


def _chat_usage(facts: GenAI, usage: Any) -> None:
    if isinstance(usage, Mapping):
        facts.input_tokens = _int(usage.get("prompt_tokens"))
        facts.output_tokens = _int(usage.get("completion_tokens"))


def _chat_tool(
    tools: dict[tuple[int, int], ToolUse], key: tuple[int, int], call: Mapping[str, Any]
) -> None:
    """A tool call, or a stream's piece of one (its name and id come on the first)."""
    function = _map(call.get("function"))
    name, call_id = _text(function.get("name")), _text(call.get("id"))
    known = tools.get(key)
    if known is None and name is not None:
        tools[key] = ToolUse(name, call_id)
    elif known is not None and known.id is None and call_id is not None:
        tools[key] = ToolUse(known.name, call_id)


# -- OpenAI Responses -------------------------------------------------------------------


def _responses(facts: GenAI, items: list[Mapping[str, Any]]) -> None:
    for item in items:
        if _error(facts, item):
            continue
        inner = item.get("response")
        response: Mapping[str, Any] = inner if isinstance(inner, Mapping) else item
        if response.get("object") == "response" or "output" in response:
            _response_object(facts, response)
        added = item.get("item")
        if item.get("type") == "response.output_item.added" and isinstance(added, Mapping):
            _response_tool(facts, added)


def _response_object(facts: GenAI, response: Mapping[str, Any]) -> None:
    facts.response_id = _text(response.get("id")) or facts.response_id
    facts.response_model = _text(response.get("model")) or facts.response_model
    usage = response.get("usage")
    if isinstance(usage, Mapping):
        facts.input_tokens = _int(usage.get("input_tokens"))
        facts.output_tokens = _int(usage.get("output_tokens"))
    status = _text(response.get("status"))
    if status is not None and status != "in_progress":
        facts.finish_reasons = [status]
    if isinstance(response.get("error"), Mapping):
        _error(facts, response)
    if not facts.streamed:
        for output in response.get("output") or ():
            if isinstance(output, Mapping):
                _response_tool(facts, output)


def _response_tool(facts: GenAI, output: Mapping[str, Any]) -> None:
    if output.get("type") == "function_call" and _text(output.get("name")):
        facts.tool_calls.append(ToolUse(output["name"], _text(output.get("call_id"))))


# -- Anthropic Messages -----------------------------------------------------------------


def _anthropic(facts: GenAI, items: list[Mapping[str, Any]]) -> None:
    for item in items:
        if _error(facts, item):
            continue
        kind = item.get("type")
        message = item.get("message") if kind == "message_start" else item
        if isinstance(message, Mapping) and message.get("type") == "message":
            _anthropic_message(facts, message)
        block = item.get("content_block")
        if kind == "content_block_start" and isinstance(block, Mapping):
            _anthropic_tool(facts, block)
        if kind == "message_delta":
            delta = _map(item.get("delta"))
            if _text(delta.get("stop_reason")):
                facts.finish_reasons = [delta["stop_reason"]]
            usage = item.get("usage")
            if isinstance(usage, Mapping) and _int(usage.get("output_tokens")) is not None:
                facts.output_tokens = usage["output_tokens"]
            if isinstance(usage, Mapping) and _int(usage.get("input_tokens")) is not None:
                facts.input_tokens = usage["input_tokens"]


def _anthropic_message(facts: GenAI, message: Mapping[str, Any]) -> None:
    facts.response_id = _text(message.get("id")) or facts.response_id
    facts.response_model = _text(message.get("model")) or facts.response_model
    usage = message.get("usage")
    if isinstance(usage, Mapping):
        facts.input_tokens = _int(usage.get("input_tokens"))
        facts.output_tokens = _int(usage.get("output_tokens"))
    if _text(message.get("stop_reason")):
        facts.finish_reasons = [message["stop_reason"]]
    for block in message.get("content") or ():
        if isinstance(block, Mapping):
            _anthropic_tool(facts, block)


def _anthropic_tool(facts: GenAI, block: Mapping[str, Any]) -> None:
    if block.get("type") == "tool_use" and _text(block.get("name")):
        facts.tool_calls.append(ToolUse(block["name"], _text(block.get("id"))))


# -- Gemini -----------------------------------------------------------------------------


def _gemini(facts: GenAI, items: list[Mapping[str, Any]]) -> None:
    finish: dict[int, str] = {}
    for item in items:
        if _error(facts, item):
            continue
        facts.response_id = _text(item.get("responseId")) or facts.response_id
        facts.response_model = _text(item.get("modelVersion")) or facts.response_model
        usage = item.get("usageMetadata")
        if isinstance(usage, Mapping):
            facts.input_tokens = _int(usage.get("promptTokenCount"))
            facts.output_tokens = _int(usage.get("candidatesTokenCount"))
        for n, candidate in enumerate(item.get("candidates") or ()):
            if isinstance(candidate, Mapping):
                _gemini_candidate(facts, finish, candidate.get("index", n), candidate)
    facts.finish_reasons = [finish[i] for i in sorted(finish)]


def _gemini_candidate(
    facts: GenAI, finish: dict[int, str], index: int, candidate: Mapping[str, Any]
) -> None:
    if _text(candidate.get("finishReason")):
        finish[index] = candidate["finishReason"]
    content = candidate.get("content")
    for part in content.get("parts") or () if isinstance(content, Mapping) else ():
        call = part.get("functionCall") if isinstance(part, Mapping) else None
        if isinstance(call, Mapping) and _text(call.get("name")):
            facts.tool_calls.append(ToolUse(call["name"], _text(call.get("id"))))


_READERS = {
    "chat_completions": _chat,
    "responses": _responses,
    "anthropic_messages": _anthropic,
    "gemini": _gemini,
}


# -- span attributes --------------------------------------------------------------------


def attributes(facts: GenAI, time_to_first_chunk: float | None) -> dict[str, Any]:
    """The GenAI semantic conventions' attributes of ``facts`` (None values left out);
    ``gen_ai.system`` too, the name the instrumentations of today still write."""
    found: dict[str, Any] = {
        "gen_ai.operation.name": facts.operation,
        "gen_ai.provider.name": facts.provider,
        "gen_ai.system": facts.provider,
        "gen_ai.request.model": facts.request_model,
        "gen_ai.response.model": facts.response_model,
        "gen_ai.response.id": facts.response_id,
        "gen_ai.usage.input_tokens": facts.input_tokens,
        "gen_ai.usage.output_tokens": facts.output_tokens,
        "gen_ai.response.finish_reasons": tuple(facts.finish_reasons) or None,
        "gen_ai.request.stream": facts.streamed,
        "gen_ai.response.time_to_first_chunk": time_to_first_chunk,
        "error.type": facts.error,
    }
    return {k: v for k, v in found.items() if v is not None}


def http_attributes(
    method: str,
    path: str,
    status: int | None,
    version: str,
    route: str | None,
    server: tuple[str, int, str],
) -> dict[str, Any]:
    """HTTP server span attributes (the HTTP semantic conventions): ``server`` is the
    host, port and scheme served."""
    host, port, scheme = server
    found: dict[str, Any] = {
        "http.request.method": method,
        "url.path": path,
        "url.scheme": scheme,
        "http.route": route,
        "http.response.status_code": status,
        "network.protocol.version": version,
        "server.address": host,
        "server.port": port,
    }
    if status is not None and status >= 500:
        found["error.type"] = str(status)
    return {k: v for k, v in found.items() if v is not None}


def span_name(method: str, route: str | None, facts: GenAI | None) -> str:
    """``chat gpt-4o`` for a GenAI exchange; ``POST /v1/things/{id}`` (the mock's path
    template), or the method alone, for the others."""
    if facts is not None:
        return " ".join(x for x in (facts.operation, facts.request_model) if x)
    return method if route is None else f"{method} {route}"


def names(tools: Iterable[ToolUse]) -> list[str]:
    """The tool names, in order (for messages)."""
    return [t.name for t in tools]
