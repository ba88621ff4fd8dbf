"""A request's conversation read for a conversation's script: its assistant turns (with their
calls), tool results, tools offered, system prompt and last user message, in the four API
shapes. (The matchers read the same bodies through ``_history``: to be merged into one
reader.)

A conversation (:mod:`._conversation`) picks its turn, checks a turn's expectations and
spots a looping agent from the request alone; this module reads the request into one
provider-neutral :class:`History`:

- ``openai_chat``: assistant entries are ``role: assistant`` messages, tool results
  ``role: tool`` messages, tools ``tools[].function.name``, the system ``system`` and
  ``developer`` messages;
- ``openai_responses``: ``function_call``, ``reasoning`` and assistant ``message`` items;
  ``function_call_output`` items; ``tools[].name``; ``instructions`` and ``system`` /
  ``developer`` items;
- ``anthropic_messages``: ``role: assistant`` messages; ``tool_result`` blocks;
  ``tools[].name``; ``system``;
- ``gemini``: ``role: model`` contents; ``functionResponse`` parts;
  ``tools[].functionDeclarations[].name``; ``systemInstruction``.

Rule 1: an assistant *turn* is a run of consecutive assistant entries (a Responses turn
sends back a message item and its function calls as separate items; each is one turn).
Rule 2: a trailing Anthropic assistant message is a prefill, the start of the answer
being asked for, not a turn.
Rule 3: anything not in an API's shape is skipped, never an error: the mock answers what
it can read.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .._core._request import Request

__all__ = ["API_KINDS", "AssistantTurn", "Call", "History", "Result", "api_of", "read"]

API_KINDS = ("openai_chat", "openai_responses", "anthropic_messages", "gemini")


@dataclass(frozen=True)
class Call:
    """A tool call of an assistant turn: its name, canonical JSON arguments and id."""

    name: str
    arguments: str
    id: str | None = None

    def show(self) -> str:
        return f"{self.name}({self.arguments})"


@dataclass(frozen=True)
class Result:
    """A tool result: the call it answers (id and, when known, the tool's name) and its text."""

    call_id: str | None
    name: str | None
    content: str

    def show(self) -> str:
        who = self.name or "?"
        if self.call_id:
            who += f" ({self.call_id})"
        return f"{who}: {self.content!r}"


@dataclass
class AssistantTurn:
    """An assistant turn of the history, and the tool results that came after it."""

    calls: list[Call] = field(default_factory=list)
    text: str = ""
    results: list[Result] = field(default_factory=list)


@dataclass
class History:
    """A request read as a conversation (see the module's docstring)."""

    api: str
    turns: list[AssistantTurn] = field(default_factory=list)
    pending: list[Result] = field(default_factory=list)  # results after the last turn
    tools: list[str] = field(default_factory=list)
    system: str = ""
    last_user: str | None = None
    previous_response_id: str | None = None
    _open: AssistantTurn | None = field(default=None, init=False, repr=False)

    def assistant(self) -> AssistantTurn:
        """Open a new turn, or add to the one being read (Rule 1)."""
        if self._open is None:
            self._open = AssistantTurn()
            self.turns.append(self._open)
            self.pending = []
        return self._open

    def other(self) -> None:
        """An entry that is not the assistant's ends the turn being read."""
        self._open = None

    def result(self, call_id: str | None, name: str | None, content: str) -> None:
        self.other()
        if name is None and call_id is not None:
            name = next((c.name for t in self.turns for c in t.calls if c.id == call_id), None)
        found = Result(call_id, name, content)
        self.pending.append(found)
        if self.turns:
            self.turns[-1].results.append(found)

    def user(self, text: str) -> None:
        self.other()
        self.last_user = text


def api_of(request: Request, body: Mapping[str, Any]) -> str:
    """Which API a request speaks: by its path, else by the shape of its body."""
    path = request.path
    if path.endswith((":generateContent", ":streamGenerateContent")):
        return "gemini"
    for suffix, api in (
        ("/chat/completions", "openai_chat"),
        ("/responses", "openai_responses"),
        ("/messages", "anthropic_messages"),
    ):
        if path.endswith(suffix):
            return api
    if "contents" in body:
        return "gemini"
    if "input" in body:
        return "openai_responses"
    if request.headers.get("anthropic-version") is not None:
        return "anthropic_messages"
    return "openai_chat"


def read(api: str, body: Mapping[str, Any]) -> History:
    """The history of a request ``body`` of ``api``."""
    history = History(api)
    _READERS[api](history, body)
    return history


def arguments(value: Any) -> str:
    """Tool-call arguments as canonical JSON (keys sorted), text kept when it is no JSON."""
    if isinstance(value, str):
        text: str = value
        try:
            value = json.loads(text)
        except ValueError:
            return text
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def text_of(value: Any) -> str:
    """The text of a content value: text, or the text parts of a list of parts."""
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        inner = value.get("text")
        if isinstance(inner, str):
            return inner
        return text_of(value.get("content")) if "content" in value else ""
    if isinstance(value, list):
        return "".join(text_of(part) for part in value)
    return ""


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _dicts(value: Any) -> Iterable[Mapping[str, Any]]:
    return (item for item in _list(value) if isinstance(item, Mapping))


# -- the four readers ------------------------------------------------------------------------


def _chat(history: History, body: Mapping[str, Any]) -> None:
    for message in _dicts(body.get("messages")):
        role = message.get("role")
        if role == "assistant":
            turn = history.assistant()
            turn.text += text_of(message.get("content"))
            for call in _dicts(message.get("tool_calls")):
                fn = call.get("function")
                if isinstance(fn, Mapping) and isinstance(fn.get("name"), str):
                    args = arguments(fn.get("arguments", ""))
                    turn.calls.append(Call(fn["name"], args, _text(call.get("id"))))
        elif role in ("tool", "function"):
            history.result(
                _text(message.get("tool_call_id")),
                _text(message.get("name")),
                text_of(message.get("content")),
            )
        elif role in ("system", "developer"):
            history.other()
            history.system += text_of(message.get("content"))
        elif role == "user":
            history.user(text_of(message.get("content")))
    for tool in _dicts(body.get("tools")):
        fn = tool.get("function")
        name = fn.get("name") if isinstance(fn, Mapping) else tool.get("name")
        if isinstance(name, str):
            history.tools.append(name)


def _responses(history: History, body: Mapping[str, Any]) -> None:
    history.previous_response_id = _text(body.get("previous_response_id"))
    if isinstance(body.get("instructions"), str):
        history.system += body["instructions"]
    given = body.get("input")
    if isinstance(given, str):
        history.user(given)
    for item in _dicts(given):
        _responses_item(history, item)
    for tool in _dicts(body.get("tools")):
        if isinstance(tool.get("name"), str):
            history.tools.append(tool["name"])


def _responses_item(history: History, item: Mapping[str, Any]) -> None:
    kind = item.get("type", "message")
    role = item.get("role")
    if kind == "function_call" and isinstance(item.get("name"), str):
        call = Call(item["name"], arguments(item.get("arguments", "")), _text(item.get("call_id")))
        history.assistant().calls.append(call)
    elif kind == "reasoning" or (kind == "message" and role == "assistant"):
        history.assistant().text += text_of(item.get("content"))
    elif kind == "function_call_output":
        history.result(_text(item.get("call_id")), None, text_of(item.get("output")))
    elif kind == "message" and role in ("system", "developer"):
        history.other()
        history.system += text_of(item.get("content"))
    elif kind == "message" and role == "user":
        history.user(text_of(item.get("content")))


def _anthropic(history: History, body: Mapping[str, Any]) -> None:
    history.system = text_of(body.get("system"))
    messages = list(_dicts(body.get("messages")))
    if messages and messages[-1].get("role") == "assistant":
        messages.pop()  # a prefill (Rule 2)
    for message in messages:
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        if message.get("role") == "assistant":
            _anthropic_assistant(history, blocks)
        elif message.get("role") == "user":
            _anthropic_user(history, blocks)
    for tool in _dicts(body.get("tools")):
        if isinstance(tool.get("name"), str):
            history.tools.append(tool["name"])


def _anthropic_assistant(history: History, blocks: list[Any]) -> None:
    turn = history.assistant()
    for block in _dicts(blocks):
        if block.get("type") == "tool_use" and isinstance(block.get("name"), str):
            args = arguments(block.get("input", {}))
            turn.calls.append(Call(block["name"], args, _text(block.get("id"))))
        elif block.get("type") == "text":
            turn.text += text_of(block)


def _anthropic_user(history: History, blocks: list[Any]) -> None:
    texts = []
    for block in _dicts(blocks):
        if block.get("type") == "tool_result":
            content = block.get("content")
            history.result(_text(block.get("tool_use_id")), None, text_of(content))
        elif block.get("type") == "text":
            texts.append(text_of(block))
    if texts:
        history.user("".join(texts))


def _gemini(history: History, body: Mapping[str, Any]) -> None:
    system = body.get("systemInstruction", body.get("system_instruction"))
    history.system = text_of(system.get("parts")) if isinstance(system, Mapping) else ""
    for content in _dicts(body.get("contents")):
        parts = list(_dicts(content.get("parts")))
        if content.get("role") == "model":
            turn = history.assistant()
            for part in parts:
                call = part.get("functionCall", part.get("function_call"))
                if isinstance(call, Mapping) and isinstance(call.get("name"), str):
                    args = arguments(call.get("args", {}))
                    turn.calls.append(Call(call["name"], args, _text(call.get("id"))))
                turn.text += _text(part.get("text")) or ""
            continue
        _gemini_user(history, parts)
    for tool in _dicts(body.get("tools")):
        for fn in _dicts(tool.get("functionDeclarations", tool.get("function_declarations"))):
            if isinstance(fn.get("name"), str):
                history.tools.append(fn["name"])


def _gemini_user(history: History, parts: list[Mapping[str, Any]]) -> None:
    texts = []
    for part in parts:
        answer = part.get("functionResponse", part.get("function_response"))
        if isinstance(answer, Mapping):
            response = answer.get("response")
            content = response if isinstance(response, str) else json.dumps(response)
            history.result(_text(answer.get("id")), _text(answer.get("name")), content)
        elif isinstance(part.get("text"), str):
            texts.append(part["text"])
    if texts:
        history.user("".join(texts))


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


_READERS = {
    "openai_chat": _chat,
    "openai_responses": _responses,
    "anthropic_messages": _anthropic,
    "gemini": _gemini,
}
