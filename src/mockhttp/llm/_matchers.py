"""Conversation-aware body matchers: what an LLM request's conversation holds.

```python
from mockhttp import llm, match

mockhttp.post("/v1/chat/completions").body(llm.last_user_message(match.contains("weather")))
```

Each is a body matcher (``mock.body(...)``; ``request: {body: [last_user_message, ...]}``
in files) that reads the request in any of the four API shapes (:mod:`._history`) and
hands one value to an inner matcher: the last user message's text, the system prompt, the
number of assistant turns so far, the names of the tools offered, the latest tool
results.  A miss says which part of the conversation it read and what was there.

Rule 1: they register into the core's ``MATCHERS`` when :mod:`mockhttp.llm` is imported,
which the ``mockhttp.matchers`` entry point does the first time a mock file names one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from .._core._errors import ConfigError
from .._core._match import MATCHERS, MISSING, Equal, Matcher, Options, as_matcher, cut
from .._core._request import Request
from ._history import History, Result, api_of, read

__all__ = [
    "CONVERSATION_MATCHERS",
    "last_user_message",
    "system_prompt",
    "tool_offered",
    "tool_result",
    "turn_index",
]

RESULTS_SHOWN = 3  # tool results a tool_result miss lists


def _history_of(value: Any) -> History | str:
    """The conversation of a body (a request, or a JSON object), or why there is none."""
    if isinstance(value, Request):
        try:
            body = value.json()
        except ValueError:
            return f"body is not JSON (got {cut(value.text)})"
        path = value.path
    else:
        body, path = value, ""
    if not isinstance(body, dict):
        return f"got {cut(str(body))}, expected a JSON object with messages, input or contents"
    return read(api_of(body, path), body)


@dataclass(frozen=True, repr=False)
class _OnHistory(Matcher):
    """A matcher on one value read from the conversation (``read``), labelled ``label``."""

    matcher: Matcher
    label: ClassVar[str] = ""

    def read(self, found: History) -> Any:
        raise NotImplementedError

    def select(self, value: Any) -> Any:
        found = _history_of(value)
        return MISSING if isinstance(found, str) else self.read(found)

    def explain(self, value: Any) -> str | None:
        found = _history_of(value)
        if isinstance(found, str):
            return f"{self.label}: {found}"
        reason = self.matcher.explain(self.read(found))
        return None if reason is None else f"{self.label}: {reason}"

    def _args(self) -> tuple[Any, ...]:
        return (_plain(self.matcher),)


@dataclass(frozen=True, repr=False)
class LastUserMessage(_OnHistory):
    """The text of the last user message (a tool result is no user message)."""

    name: ClassVar[str] = "last_user_message"
    label: ClassVar[str] = "last user message"

    def read(self, found: History) -> Any:
        text = found.last_user
        return MISSING if text is None else text


@dataclass(frozen=True, repr=False)
class SystemPrompt(_OnHistory):
    """The system prompt's text (several system parts joined by line ends)."""

    name: ClassVar[str] = "system_prompt"
    label: ClassVar[str] = "system prompt"

    def read(self, found: History) -> Any:
        return MISSING if found.system is None else found.system


@dataclass(frozen=True, repr=False)
class TurnIndex(_OnHistory):
    """How many assistant turns the history holds (0 for the first request)."""

    name: ClassVar[str] = "turn_index"
    label: ClassVar[str] = "turn index"

    def read(self, found: History) -> Any:
        return len(found.turns)


@dataclass(frozen=True, repr=False)
class ToolOffered(_OnHistory):
    """A tool the request offers has a name that ``matcher`` matches."""

    name: ClassVar[str] = "tool_offered"
    label: ClassVar[str] = "tools offered"

    def read(self, found: History) -> Any:
        return list(found.tools)

    def explain(self, value: Any) -> str | None:
        found = _history_of(value)
        if isinstance(found, str):
            return f"{self.label}: {found}"
        if any(self.matcher.matches(n) for n in found.tools):
            return None
        return f"{self.label}: got {list(found.tools)!r}, expected one named {self.matcher!r}"

    def _args(self) -> tuple[Any, ...]:
        return (_plain(self.matcher),)


@dataclass(frozen=True, repr=False)
class ToolResultMatcher(Matcher):
    """One of the latest tool results (``anywhere``: any in the history) has a ``name``,
    ``call_id`` and ``content`` that the given matchers match (None: any)."""

    tool: Matcher | None
    call_id: Matcher | None
    content: Matcher | None
    anywhere: bool = False
    name: ClassVar[str] = "tool_result"

    def _fits(self, result: Result) -> bool:
        pairs = ((self.tool, result.name), (self.call_id, result.call_id))
        if any(m is not None and not m.matches(MISSING if v is None else v) for m, v in pairs):
            return False
        return self.content is None or self.content.matches(result.content)

    def select(self, value: Any) -> Any:
        found = _history_of(value)
        if isinstance(found, str):
            return MISSING
        return [str(r) for r in (found.results if self.anywhere else found.pending)]

    def explain(self, value: Any) -> str | None:
        found = _history_of(value)
        if isinstance(found, str):
            return f"tool results: {found}"
        results = found.results if self.anywhere else found.pending
        if any(self._fits(r) for r in results):
            return None
        where = "in the history" if self.anywhere else "since the last assistant turn"
        if not results:
            return f"tool results: got none {where}, expected {self!r}"
        shown = "; ".join(str(r) for r in results[:RESULTS_SHOWN])
        more = len(results) - RESULTS_SHOWN
        shown += f"; and {more} more" if more > 0 else ""
        return f"tool results: got {shown} ({where}), expected {self!r}"

    def _args(self) -> tuple[Any, ...]:
        given = {"name": self.tool, "call_id": self.call_id, "content": self.content}
        options = Options({k: _plain(v) for k, v in given.items() if v is not None})
        if self.anywhere:
            options["anywhere"] = True
        return (options,) if options else ()

    def to_args(self) -> list[Any]:
        args = self._args()
        if not args:
            return [self.name]
        return [self.name, {k: _form(v) for k, v in args[0].items()}]


def _plain(matcher: Matcher) -> Any:
    """A plain value for ``equal(value)`` (as it was given), else the matcher."""
    if isinstance(matcher, Equal) and not isinstance(matcher.expected, list | dict):
        return matcher.expected
    return matcher


def _form(value: Any) -> Any:
    return value.to_args() if isinstance(value, Matcher) else value


def _optional(value: Matcher | Any, what: str) -> Matcher | None:
    return None if value is None else as_matcher(value, what)


def last_user_message(matcher: Matcher | Any) -> Matcher:
    """Match a request whose last user message's text ``matcher`` matches (a plain value
    means ``equal``), in any LLM API's shape; absent when there is none."""
    return LastUserMessage(as_matcher(matcher, "last_user_message() matcher"))


def system_prompt(matcher: Matcher | Any) -> Matcher:
    """Match a request whose system prompt's text ``matcher`` matches: Chat's system and
    developer messages, Anthropic's ``system``, Responses' ``instructions``, Gemini's
    ``systemInstruction``; absent when there is none."""
    return SystemPrompt(as_matcher(matcher, "system_prompt() matcher"))


def turn_index(n: int | Matcher) -> Matcher:
    """Match a request at turn ``n``: the history holds ``n`` assistant turns (0: the
    first request of a conversation).  ``n`` may be a matcher (``match.any_of(1, 2)``).

    Raises:
        ConfigError: ``n`` is not a non-negative int nor a matcher.
    """
    if not isinstance(n, Matcher) and (isinstance(n, bool) or not isinstance(n, int) or n < 0):
        raise ConfigError(f"turn_index() n={n!r} must be a non-negative int or a matcher")
    return TurnIndex(as_matcher(n, "turn_index() n"))


def tool_offered(name: str | Matcher) -> Matcher:
    """Match a request that offers a tool (a function) named ``name`` (text or a matcher
    on the name), in any LLM API's ``tools`` spelling.

    Raises:
        ConfigError: ``name`` is neither text nor a matcher.
    """
    if not isinstance(name, str | Matcher) or name == "":
        raise ConfigError(f"tool_offered() name={name!r} must be a tool name or a matcher")
    return ToolOffered(as_matcher(name, "tool_offered() name"))


def tool_result(
    *,
    name: str | Matcher | None = None,
    call_id: str | Matcher | None = None,
    content: Matcher | Any = None,
    anywhere: bool = False,
) -> Matcher:
    """Match a request that brings back a tool result with this ``name`` (the tool's),
    ``call_id`` and ``content`` (its text; a structured result as JSON text): each a plain
    value (``equal``) or a matcher, None for any.

    Only the latest results count (those after the last assistant turn: what the client
    answers the turn with); ``anywhere=True`` looks at every result in the history.

    Raises:
        ConfigError: ``anywhere`` is not True or False, or a value is a callable.
    """
    if not isinstance(anywhere, bool):
        raise ConfigError(f"tool_result() anywhere={anywhere!r} must be True or False")
    return ToolResultMatcher(
        _optional(name, "tool_result() name"),
        _optional(call_id, "tool_result() call_id"),
        _optional(content, "tool_result() content"),
        anywhere,
    )


CONVERSATION_MATCHERS: dict[str, Callable[..., Matcher]] = {
    "last_user_message": last_user_message,
    "system_prompt": system_prompt,
    "tool_result": tool_result,
    "tool_offered": tool_offered,
    "turn_index": turn_index,
}
"""The file-form names of the conversation matchers, registered into ``MATCHERS``."""


def register() -> None:
    """Add the conversation matchers to the core's ``MATCHERS`` (idempotent)."""
    for key, make in CONVERSATION_MATCHERS.items():
        MATCHERS.add(key, make)
