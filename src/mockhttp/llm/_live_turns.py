"""Where a realtime session's answers come from: one line, or a conversation's script.

A realtime session (OpenAI Realtime, Gemini Live) answers each ``response.create`` (or
each complete Gemini turn) with a :class:`Said`: text, tool calls, or an error.
:class:`Turns` gives them:

- from one line (``text`` and ``tool_calls``): the session's first answer makes the tool
  calls (when there are any), every later answer says ``text``;
- from a :class:`~mockhttp.llm.Conversation`: the session's items so far are read as a
  request of ``api`` (``openai_responses`` for OpenAI Realtime items, ``gemini`` for Gemini
  Live contents) and the conversation picks the turn as it does for HTTP requests: the
  number of assistant turns in the session, its expectations, its loop rule.

Rule 1: a refused turn raises :class:`~mockhttp.llm.ConversationError` (the protocol
module turns it into its own error frames).
Rule 2: calls without an id get one from the protocol module (``call_id``); a
conversation's calls carry the conversation's ids (a scripted id, or one derived from it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from .._core._errors import ConfigError
from ._base import ToolCall
from ._conversation import Conversation
from ._history import read

__all__ = ["Said", "Turns", "conversation_of"]


@dataclass(frozen=True)
class Said:
    """One answer of a realtime session: its ``text``, its tool ``calls`` (ids set), an
    ``error`` name (``rate_limit``, ...: the answer fails) and the turn's ``usage``."""

    text: str
    calls: tuple[ToolCall, ...] = ()
    error: str | None = None
    usage: Mapping[str, Any] | None = None


@dataclass
class Turns:
    """A session's source of answers (see the module's docstring)."""

    text: str
    tool_calls: Sequence[ToolCall] = ()
    conversation: Conversation | None = None
    api: str = "openai_responses"
    answered: int = 0

    def next(self, body: Mapping[str, Any], call_id: Callable[[], str]) -> Said:
        """The next answer, for a session whose items so far are ``body`` (a request of
        ``api``); ``call_id`` makes the id of a call that has none.

        Raises:
            ConversationError: the conversation refuses the session's history.
        """
        if self.conversation is not None:
            turn, calls = self.conversation.turn_for(read(self.api, body), self.api)
            text = turn.text if isinstance(turn.text, str) else "".join(turn.text)
            said = Said(text, calls, turn.error, turn.usage)
        elif self.tool_calls and self.answered == 0:
            said = Said("", tuple(self.tool_calls))
        else:
            said = Said(self.text)
        self.answered += 1
        calls = tuple(c if c.id else replace(c, id=call_id()) for c in said.calls)
        return replace(said, calls=calls)


def conversation_of(value: Any, where: str) -> Conversation | None:
    """A conversation, or its file form (``{turns: [...], name: ...}``)."""
    if value is None or isinstance(value, Conversation):
        return value
    if isinstance(value, Mapping) and "turns" in value:
        try:
            return Conversation(**value)
        except TypeError as exc:
            raise ConfigError(f"{where}.conversation: {exc}") from None
    raise ConfigError(f"{where} conversation={value!r} must be a conversation ({{turns: [...]}})")
