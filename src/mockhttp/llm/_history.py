"""What an LLM request's conversation holds, read from its body in the four API shapes.

:func:`history` reads the body of a Chat Completions, Responses, Anthropic Messages or
Gemini request into one provider-neutral :class:`History`: the user messages' text, the
system prompt, the assistant turns already taken, the tool results and the tools offered.
The conversation matchers (``_matchers``) read it.

Rule 1: the shape comes from the request path when it names an API (``/chat/completions``,
``/responses``, ``/messages``, ``:generateContent``), else from the body: ``contents`` is
Gemini, ``input`` Responses, ``messages`` with ``system`` Anthropic, else Chat Completions.
Chat and Anthropic messages are read by one reader (their blocks do not collide), so a
request sent to an unusual path is still read right.
Rule 2: an assistant *turn* is a run of assistant-side entries (an assistant message, a
``function_call`` or ``reasoning`` item, a ``model`` content): a turn with parallel tool
calls counts once.  ``turns`` is how many the history holds: 0 for the first request.
Rule 3: the *latest* tool results are those after the last assistant turn: what the
client brings back for the turn it is answering.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["History", "Shape", "ToolResult", "history", "shape_of"]

Shape = Literal["chat", "responses", "anthropic", "gemini"]

_PATHS: tuple[tuple[str, Shape], ...] = (
    ("/chat/completions", "chat"),
    ("/responses", "responses"),
    ("/messages", "anthropic"),
    ("enerateContent", "gemini"),  # :generateContent, :streamGenerateContent
)


@dataclass(frozen=True)
class ToolResult:
    """A tool's result the client sends back: the tool's ``name`` (looked up by call id in
    the assistant's calls when the result does not say it), the ``call_id`` and the
    result as text (JSON text for a structured result)."""

    name: str | None
    call_id: str | None
    content: str

    def __str__(self) -> str:
        return f"{self.name or '?'} ({self.call_id or 'no id'}): {self.content!r}"


@dataclass(frozen=True)
class History:
    """A request's conversation (see the module's docstring)."""

    shape: Shape
    user_texts: tuple[str, ...]
    system: str | None
    turns: int
    results: tuple[ToolResult, ...]
    latest_results: tuple[ToolResult, ...]
    tools: tuple[str, ...]

    @property
    def last_user_message(self) -> str | None:
        return self.user_texts[-1] if self.user_texts else None


def shape_of(body: Mapping[str, Any], path: str = "") -> Shape:
    """The API shape of a request (Rule 1)."""
    for ending, shape in _PATHS:
        if ending in path:
            return shape
    if "contents" in body:
        return "gemini"
    if "input" in body:
        return "responses"
    return "anthropic" if "messages" in body and "system" in body else "chat"


def history(body: Mapping[str, Any], path: str = "") -> History:
    """The conversation of a request whose JSON body is ``body``."""
    shape = shape_of(body, path)
    reader = _Reader(shape)
    if shape == "gemini":
        reader.gemini(body)
    elif shape == "responses":
        reader.responses(body)
    else:
        reader.messages(body)
    return reader.done(_tools(body))


class _Reader:
    """Walks a conversation's entries in order, collecting what :class:`History` holds."""

    def __init__(self, shape: Shape) -> None:
        self.shape = shape
        self.users: list[str] = []
        self.system: list[str] = []
        self.turns = 0
        self.results: list[ToolResult] = []
        self.latest: list[ToolResult] = []
        self.names: dict[str, str] = {}  # call id -> tool name, from the assistant's calls
        self._in_turn = False

    def assistant(self) -> None:
        if not self._in_turn:
            self.turns += 1
            self._in_turn = True
        self.latest = []

    def other(self) -> None:
        self._in_turn = False

    def result(self, name: Any, call_id: Any, content: Any) -> None:
        self.other()
        cid = call_id if isinstance(call_id, str) else None
        known = name if isinstance(name, str) else self.names.get(cid or "")
        found = ToolResult(known, cid, _text(content, whole=True))
        self.results.append(found)
        self.latest.append(found)

    def user(self, content: Any) -> None:
        self.other()
        text = _text(content)
        if text or isinstance(content, str):
            self.users.append(text)

    def done(self, tools: tuple[str, ...]) -> History:
        system = "\n".join(self.system) if self.system else None
        return History(
            self.shape,
            tuple(self.users),
            system,
            self.turns,
            tuple(self.results),
            tuple(self.latest),
            tools,
        )

    # -- Chat Completions and Anthropic Messages ----------------------------------------------

    def messages(self, body: Mapping[str, Any]) -> None:
        system = body.get("system")
        if system is not None:
            self.system.append(_text(system))
        for message in _list(body.get("messages")):
            if isinstance(message, Mapping):
                self._message(message)

    def _message(self, message: Mapping[str, Any]) -> None:
        role = message.get("role")
        content = message.get("content")
        if role in ("system", "developer"):
            self.system.append(_text(content))
        elif role == "assistant":
            self.assistant()
            for call in _list(message.get("tool_calls")):  # chat
                if isinstance(call, Mapping):
                    self._named(call.get("id"), _get(call, "function", "name"))
            for block in _blocks(content, "tool_use"):  # anthropic
                self._named(block.get("id"), block.get("name"))
        elif role == "tool":  # chat
            self.result(message.get("name"), message.get("tool_call_id"), content)
        elif role == "user":
            for block in _blocks(content, "tool_result"):  # anthropic
                self.result(None, block.get("tool_use_id"), block.get("content"))
            if not _blocks(content, "tool_result") or _text(content):
                self.user(content)

    def _named(self, call_id: Any, name: Any) -> None:
        if isinstance(call_id, str) and isinstance(name, str):
            self.names[call_id] = name

    # -- Responses -------------------------------------------------------------------------

    def responses(self, body: Mapping[str, Any]) -> None:
        instructions = body.get("instructions")
        if isinstance(instructions, str):
            self.system.append(instructions)
        given = body.get("input")
        if isinstance(given, str):
            self.user(given)
            return
        for item in _list(given):
            if isinstance(item, Mapping):
                self._item(item)

    def _item(self, item: Mapping[str, Any]) -> None:
        kind = item.get("type")
        role = item.get("role")
        if role in ("system", "developer"):
            self.system.append(_text(item.get("content")))
        elif role == "user":
            self.user(item.get("content"))
        elif isinstance(kind, str) and kind.endswith("_call_output"):
            self.result(None, item.get("call_id"), item.get("output"))
        elif role == "assistant" or kind in ("reasoning", "message") or _is_call(kind):
            self.assistant()
            if kind == "function_call":
                self._named(item.get("call_id"), item.get("name"))

    # -- Gemini ----------------------------------------------------------------------------

    def gemini(self, body: Mapping[str, Any]) -> None:
        system = body.get("systemInstruction", body.get("system_instruction"))
        if system is not None:
            parts = system.get("parts") if isinstance(system, Mapping) else system
            self.system.append(_text(parts))
        for content in _list(body.get("contents")):
            if isinstance(content, Mapping):
                self._content(content)

    def _content(self, content: Mapping[str, Any]) -> None:
        parts = [p for p in _list(content.get("parts")) if isinstance(p, Mapping)]
        if content.get("role") == "model":
            self.assistant()
            return
        for part in parts:
            found = part.get("functionResponse", part.get("function_response"))
            if isinstance(found, Mapping):
                self.result(found.get("name"), found.get("id"), found.get("response"))
        texts = [p for p in parts if "text" in p]
        if texts or not parts:
            self.user(texts)


def _is_call(kind: Any) -> bool:
    """A Responses output item the model made: ``function_call``, ``web_search_call``..."""
    return isinstance(kind, str) and kind.endswith("_call")


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _get(value: Any, *keys: str) -> Any:
    for key in keys:
        value = value.get(key) if isinstance(value, Mapping) else None
    return value


def _blocks(content: Any, kind: str) -> list[Mapping[str, Any]]:
    """The content blocks of type ``kind`` (a text content has none)."""
    return [b for b in _list(content) if isinstance(b, Mapping) and b.get("type") == kind]


def _text(content: Any, whole: bool = False) -> str:
    """The text of a content: itself when text; the text parts of a list of parts
    (``text``, ``input_text``, ``output_text`` blocks; Gemini's ``{text}`` parts), joined;
    with ``whole``, anything else as compact JSON (a structured tool result)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [
            p["text"] for p in content if isinstance(p, Mapping) and isinstance(p.get("text"), str)
        ]
        if texts or not whole:
            return "".join(texts)
    if content is None:
        return ""
    return json.dumps(content, ensure_ascii=False, separators=(",", ":")) if whole else ""


def _tools(body: Mapping[str, Any]) -> tuple[str, ...]:
    """The names of the functions a request offers, in every API's spelling."""
    names: list[Any] = []
    for tool in _list(body.get("tools")):
        if not isinstance(tool, Mapping):
            continue
        names.append(_get(tool, "function", "name") or tool.get("name"))  # chat; others
        for decl in _list(tool.get("functionDeclarations", tool.get("function_declarations"))):
            names.append(_get(decl, "name"))  # gemini
    names.extend(_get(f, "name") for f in _list(body.get("functions")))  # chat's legacy form
    return tuple(n for n in names if isinstance(n, str))
