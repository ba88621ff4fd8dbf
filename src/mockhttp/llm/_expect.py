"""A turn's expectations: what a request must hold when it arrives at that turn (pure).

``expect:`` is a mapping, the same in Python and in mock files:

- ``tool_result``: ``{name, call_id, content}`` (any of them), or a list of them: for
  each, a tool result since the last assistant turn with that name, call id and content;
- ``tool_offered``: a tool name, or a list of names: each among the tools offered;
- ``last_user_message``: text or a matcher, for the last user message;
- ``system_prompt``: text or a matcher, for the system prompt (instructions).

Rule 1: text means "contains" (``content: 18`` holds for ``It is 18 °C``); a matcher
(``match.regex(...)`` in Python, ``[regex, ...]`` in files) is applied to the text as is.
Rule 2: the request is read provider-neutrally (:mod:`._history`); a miss says the key,
what was expected and what arrived.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._core._errors import ConfigError, UnknownNameError
from .._core._forms import call_form, is_form
from .._core._match import MATCHERS, Contains, Matcher, contains
from ._history import History, Result

__all__ = ["EXPECT_KEYS", "Expect", "expectations"]

EXPECT_KEYS = ("tool_result", "tool_offered", "last_user_message", "system_prompt")
_RESULT_KEYS = ("name", "call_id", "content")


@dataclass(frozen=True)
class _WantResult:
    name: str | None
    call_id: str | None
    content: Matcher | None

    def accepts(self, result: Result) -> bool:
        return (
            (self.name is None or result.name == self.name)
            and (self.call_id is None or result.call_id == self.call_id)
            and (self.content is None or self.content.matches(result.content))
        )

    def show(self) -> str:
        parts = []
        if self.name is not None:
            parts.append(f"for {self.name!r}")
        if self.call_id is not None:
            parts.append(f"with call_id {self.call_id!r}")
        if self.content is not None:
            parts.append(f"{_show_matcher(self.content)}")
        return " ".join(parts)

    def to_file(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.name is not None:
            out["name"] = self.name
        if self.call_id is not None:
            out["call_id"] = self.call_id
        if self.content is not None:
            out["content"] = _matcher_file(self.content)
        return out


@dataclass(frozen=True)
class Expect:
    """The expectations of one turn (see the module's docstring)."""

    results: tuple[_WantResult, ...] = ()
    tools: tuple[str, ...] = ()
    last_user: Matcher | None = None
    system: Matcher | None = None

    def __bool__(self) -> bool:
        return bool(self.results or self.tools or self.last_user or self.system)

    def misses(self, history: History) -> list[str]:
        """What ``history`` lacks, one line per expectation missed."""
        found = [self._result_miss(want, history.pending) for want in self.results]
        offered = ", ".join(repr(t) for t in history.tools) or "none"
        found += [
            f"tool_offered: expected {tool!r} among the tools offered; offered: {offered}"
            for tool in self.tools
            if tool not in history.tools
        ]
        found.append(_text_miss("last_user_message", self.last_user, history.last_user))
        found.append(_text_miss("system_prompt", self.system, history.system))
        return [line for line in found if line]

    @staticmethod
    def _result_miss(want: _WantResult, results: list[Result]) -> str:
        if any(want.accepts(r) for r in results):
            return ""
        got = "; ".join(r.show() for r in results) or "none"
        return (
            f"tool_result: expected a tool result {want.show()}; "
            f"tool results since the last assistant turn: {got}"
        )

    def to_file(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.results:
            forms = [w.to_file() for w in self.results]
            out["tool_result"] = forms[0] if len(forms) == 1 else forms
        if self.tools:
            out["tool_offered"] = self.tools[0] if len(self.tools) == 1 else list(self.tools)
        if self.last_user is not None:
            out["last_user_message"] = _matcher_file(self.last_user)
        if self.system is not None:
            out["system_prompt"] = _matcher_file(self.system)
        return out


def expectations(value: Any, where: str) -> Expect:
    """``expect`` (a mapping, or an :class:`Expect`) checked; ``where`` starts messages.

    Raises:
        ConfigError: an unknown key (with a did-you-mean) or a value of the wrong shape.
    """
    if isinstance(value, Expect):
        return value
    if value is None:
        return Expect()
    if not isinstance(value, Mapping):
        raise ConfigError(f"{where}={value!r} must be a mapping such as {{tool_offered: name}}")
    for key in value:
        if key not in EXPECT_KEYS:
            raise ConfigError(f"{where}: {UnknownNameError('expect key', key, EXPECT_KEYS)}")
    results = value.get("tool_result", ())
    listed = results if isinstance(results, list | tuple) else [results]
    tools = value.get("tool_offered", ())
    tools = [tools] if isinstance(tools, str) else tools
    if not isinstance(tools, list | tuple) or not all(isinstance(t, str) and t for t in tools):
        raise ConfigError(f"{where}.tool_offered={tools!r} must be a tool name or a list of them")
    return Expect(
        tuple(_want(r, f"{where}.tool_result") for r in listed),
        tuple(tools),
        _text_matcher(value.get("last_user_message"), f"{where}.last_user_message"),
        _text_matcher(value.get("system_prompt"), f"{where}.system_prompt"),
    )


def _want(value: Any, where: str) -> _WantResult:
    if not isinstance(value, Mapping) or not value:
        raise ConfigError(f"{where}={value!r} must be a mapping with name, call_id or content")
    for key in value:
        if key not in _RESULT_KEYS:
            raise ConfigError(f"{where}: {UnknownNameError('tool_result key', key, _RESULT_KEYS)}")
    for key in ("name", "call_id"):
        given = value.get(key)
        if given is not None and (not isinstance(given, str) or not given):
            raise ConfigError(f"{where}.{key}={given!r} must be non-empty text")
    content = _text_matcher(value.get("content"), f"{where}.content")
    return _WantResult(value.get("name"), value.get("call_id"), content)


def _text_matcher(value: Any, where: str) -> Matcher | None:
    """Text (or a number) means contains (Rule 1); a matcher or its form is itself."""
    if value is None or isinstance(value, Matcher):
        return value
    if isinstance(value, bool):
        raise ConfigError(f"{where}={value!r} must be text or a matcher")
    if isinstance(value, str | int | float):
        return contains(str(value))
    if is_form(value):
        return call_form(value, MATCHERS, where, nested=_nested)
    raise ConfigError(f"{where}={value!r} must be text or a matcher such as [regex, '...']")


def _nested(_parameter: Any, value: Any) -> Any:
    return call_form(value, MATCHERS, nested=_nested) if is_form(value) else value


def _matcher_file(matcher: Matcher) -> Any:
    if isinstance(matcher, Contains) and isinstance(matcher.item, str):
        return matcher.item
    return matcher.to_args()


def _show_matcher(matcher: Matcher) -> str:
    if isinstance(matcher, Contains) and isinstance(matcher.item, str):
        return f"containing {matcher.item!r}"
    return f"matching {matcher!r}"


def _text_miss(key: str, want: Matcher | None, got: str | None) -> str:
    if want is None:
        return ""
    if got is None:
        return f"{key}: expected one {_show_matcher(want)}; the request has none"
    return "" if want.matches(got) else f"{key}: expected {_show_matcher(want)}, got {got!r}"
