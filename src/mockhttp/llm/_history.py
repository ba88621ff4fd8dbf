"""What an LLM request's conversation holds, read from its body in the four API shapes.

:func:`read` reads the body of a Chat Completions, Responses, Anthropic Messages or Gemini
request into one provider-neutral :class:`History`: its assistant turns (with their calls
and text), the tool results (each under the turn it answers), the user messages' text, the
system prompt and the tools offered.  The conversation matchers (``_matchers``), a
conversation's script (``_conversation``) and its expectations (``_expect``) read it.

- ``openai_chat``: assistant entries are ``role: assistant`` messages, tool results
  ``role: tool`` (or legacy ``function``) messages, tools ``tools[].function.name`` (and
  legacy ``functions[].name``), the system ``system`` and ``developer`` messages;
- ``openai_responses``: ``function_call`` (and other ``*_call``), ``reasoning`` and
  assistant ``message`` items; ``*_call_output`` items; ``tools[].name``;
  ``instructions`` and ``system`` / ``developer`` items;
- ``anthropic_messages``: ``role: assistant`` messages; ``tool_result`` blocks;
  ``tools[].name``; ``system``;
- ``gemini``: ``role: model`` contents; ``functionResponse`` parts;
  ``tools[].functionDeclarations[].name``; ``systemInstruction``.

Rule 1: the API comes from the request path when it names one (``/chat/completions``,
``/responses``, ``/messages``, ``:generateContent``), else from the body: ``contents`` is
Gemini, ``input`` Responses, ``messages`` with ``system`` (or an ``anthropic-version``
header) Anthropic, else Chat Completions.
Rule 2: an assistant *turn* is a run of consecutive assistant-side entries (a Responses
turn sends back a message item and its function calls as separate items; a turn with
parallel tool calls counts once): ``len(turns)`` is 0 for the first request.
Rule 3: a trailing Anthropic assistant message is a prefill, the start of the answer being
asked for, not a turn.
Rule 4: the *pending* tool results are those after the last assistant turn: what the
client brings back for the turn it is answering.
Rule 5: anything not in an API's shape is skipped, never an error: the mock answers what
it can read.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["API_KINDS", "AssistantTurn", "Call", "History", "Result", "api_of", "read"]

API_KINDS = ("openai_chat", "openai_responses", "anthropic_messages", "gemini")

_PATHS = (
    (":generateContent", "gemini"),
    (":streamGenerateContent", "gemini"),
    ("/chat/completions", "openai_chat"),
    ("/responses", "openai_responses"),
    ("/messages", "anthropic_messages"),
)


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
    """A tool result: the call it answers (id and, when known, the tool's name, looked up
    by call id in the assistant's calls when the result does not say it) and its text (JSON
    text for a structured result)."""

    call_id: str | None
    name: str | None
    content: str

    def show(self) -> str:
        who = self.name or "?"
        if self.call_id:
            who += f" ({self.call_id})"
        return f"{who}: {self.content!r}"

    def __str__(self) -> str:
        return f"{self.name or '?'} ({self.call_id or 'no id'}): {self.content!r}"


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
    results: list[Result] = field(default_factory=list)  # every result, in order
    pending: list[Result] = field(default_factory=list)  # results after the last turn
    tools: list[str] = field(default_factory=list)
    system_parts: list[str] = field(default_factory=list)
    last_user: str | None = None
    previous_response_id: str | None = None
    _open: AssistantTurn | None = field(default=None, init=False, repr=False)

    @property
    def system(self) -> str | None:
        """The system prompt: its parts joined by line ends (None: there is none)."""
        return "\n".join(self.system_parts) if self.system_parts else None

    def assistant(self) -> AssistantTurn:
        """Open a new turn, or add to the one being read (Rule 2)."""
        if self._open is None:
            self._open = AssistantTurn()
            self.turns.append(self._open)
            self.pending = []
        return self._open

    def other(self) -> None:
        """An entry that is not the assistant's ends the turn being read."""
        self._open = None

    def result(self, call_id: Any, name: Any, content: str) -> None:
        self.other()
        cid = _text(call_id)
        known = _text(name)
        if known is None and cid is not None:
            known = next((c.name for t in self.turns for c in t.calls if c.id == cid), None)
        found = Result(cid, known, content)
        self.results.append(found)
        self.pending.append(found)
        if self.turns:
            self.turns[-1].results.append(found)

    def user(self, content: Any) -> None:
        """A user message: its text is the last user message (a content with no text and
        no string, an image alone, is none)."""
        self.other()
        text = text_of(content)
        if text or isinstance(content, str):
            self.last_user = text

    def add_system(self, content: Any) -> None:
        self.other()
        self.system_parts.append(text_of(content))


def api_of(
    body: Mapping[str, Any], path: str = "", headers: Mapping[str, str] | None = None
) -> str:
    """Which API a request speaks (Rule 1)."""
    for suffix, api in _PATHS:
        if path.endswith(suffix):
            return api
    if "contents" in body:
        return "gemini"
    if "input" in body:
        return "openai_responses"
    if headers is not None and headers.get("anthropic-version") is not None:
        return "anthropic_messages"
    return "anthropic_messages" if "messages" in body and "system" in body else "openai_chat"


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
    """The text of a content value: text, or the text parts of a list of parts (``text``,
    ``input_text``, ``output_text`` blocks; Gemini's ``{text}`` parts), joined."""
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


def result_text(value: Any) -> str:
    """A tool result's content as text: its text, else (a structured result) compact JSON."""
    text = text_of(value)
    if text or isinstance(value, str) or value is None:
        return text
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


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
            content = result_text(message.get("content"))
            history.result(message.get("tool_call_id"), message.get("name"), content)
        elif role in ("system", "developer"):
            history.add_system(message.get("content"))
        elif role == "user":
            history.user(message.get("content"))
    for tool in _dicts(body.get("tools")):
        fn = tool.get("function")
        name = fn.get("name") if isinstance(fn, Mapping) else tool.get("name")
        if isinstance(name, str):
            history.tools.append(name)
    for fn in _dicts(body.get("functions")):  # the legacy form
        if isinstance(fn.get("name"), str):
            history.tools.append(fn["name"])


def _responses(history: History, body: Mapping[str, Any]) -> None:
    history.previous_response_id = _text(body.get("previous_response_id"))
    if isinstance(body.get("instructions"), str):
        history.system_parts.append(body["instructions"])
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
    if role in ("system", "developer"):
        history.add_system(item.get("content"))
    elif role == "user":
        history.user(item.get("content"))
    elif isinstance(kind, str) and kind.endswith("_call_output"):
        history.result(item.get("call_id"), None, result_text(item.get("output")))
    elif kind == "function_call" and isinstance(item.get("name"), str):
        call = Call(item["name"], arguments(item.get("arguments", "")), _text(item.get("call_id")))
        history.assistant().calls.append(call)
    elif kind in ("reasoning", "message") or role == "assistant":
        history.assistant().text += text_of(item.get("content"))
    elif isinstance(kind, str) and kind.endswith("_call"):  # web_search_call...
        history.assistant()


def _anthropic(history: History, body: Mapping[str, Any]) -> None:
    if body.get("system") is not None:
        history.system_parts.append(text_of(body.get("system")))
    messages = list(_dicts(body.get("messages")))
    if messages and messages[-1].get("role") == "assistant":
        messages.pop()  # a prefill (Rule 3)
    for message in messages:
        content = message.get("content")
        role = message.get("role")
        if role == "assistant":
            _anthropic_assistant(history, content)
        elif role == "user":
            _anthropic_user(history, content)
        elif role in ("system", "developer"):
            history.add_system(content)
    for tool in _dicts(body.get("tools")):
        if isinstance(tool.get("name"), str):
            history.tools.append(tool["name"])


def _anthropic_assistant(history: History, content: Any) -> None:
    turn = history.assistant()
    if isinstance(content, str):
        turn.text += content
    for block in _dicts(content):
        if block.get("type") == "tool_use" and isinstance(block.get("name"), str):
            args = arguments(block.get("input", {}))
            turn.calls.append(Call(block["name"], args, _text(block.get("id"))))
        elif block.get("type") == "text":
            turn.text += text_of(block)


def _anthropic_user(history: History, content: Any) -> None:
    results = [b for b in _dicts(content) if b.get("type") == "tool_result"]
    for block in results:
        history.result(block.get("tool_use_id"), None, result_text(block.get("content")))
    texts = [b for b in _dicts(content) if b.get("type") != "tool_result"]
    if not results or text_of(texts):
        history.user(content if isinstance(content, str) else texts)


def _gemini(history: History, body: Mapping[str, Any]) -> None:
    system = body.get("systemInstruction", body.get("system_instruction"))
    if system is not None:
        history.system_parts.append(
            text_of(system.get("parts") if isinstance(system, Mapping) else system)
        )
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
    for part in parts:
        answer = part.get("functionResponse", part.get("function_response"))
        if isinstance(answer, Mapping):
            content = result_text(answer.get("response"))
            history.result(answer.get("id"), answer.get("name"), content)
    texts = [p for p in parts if isinstance(p.get("text"), str)]
    if texts or not parts:
        history.user([p["text"] for p in texts])


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


_READERS = {
    "openai_chat": _chat,
    "openai_responses": _responses,
    "anthropic_messages": _anthropic,
    "gemini": _gemini,
}
