"""Conversations: a script of assistant turns, answered in whichever API asks.

```python
from mockhttp import llm

weather = llm.conversation(
    llm.turn(tool_calls=[llm.tool_call("get_weather", {"city": "Paris"})]),
    llm.turn("It is 18 °C.", expect={"tool_result": {"name": "get_weather", "content": "18"}}),
    name="weather-agent",
)
```

A :class:`Conversation` is a standalone reply kind: ``server.mock(conversation)`` answers
``POST`` on every LLM API mockhttp speaks (``LLM_PATHS``), ``mockhttp.post(path).reply(...)``
on one path.  For each request:

1. the API is read from the path (else the body's shape) and the request is read as a
   history (:mod:`._history`);
2. the turn is the number of assistant turns already in that history, plus, for a
   Responses request with ``previous_response_id``, the turn that id was issued for (the
   mock's response ids carry their turn: ``resp_`` + the conversation's salt + the turn
   in four digits + a digest of the request).  No state is kept in the server, so parallel
   conversations, retries of a turn and ``serve --workers`` all get their own turn;
3. the turn is checked (past the script, its expectations, the loop rule) and rendered
   by the API's own reply class (:class:`OpenAIChat`, ...), so everything those render
   (streamed or buffered, tool calls, usage, quirks, presets) applies.

Rule 1 (past the script): a request at turn n + 1 of an n-turn script is refused, unless
``repeat_last``: then the last turn answers again.
Rule 2 (loops): a tool-calling turn is answered at most ``max_repeats`` times in a row
(default 3).  The request is refused as a loop (a) when its history already ends with
``max_repeats`` assistant turns making exactly the calls this turn makes (same names, same
arguments) each followed by the same tool results, so the agent is getting the same
answer to the same call with no progress; or (b) with ``repeat_last``, when the last turn
(making tool calls) has been answered ``max_repeats`` times already (the turn index says
so).  ``max_repeats=None`` turns the rule off.
Rule 4 (fresh ids): a turn answered again past the script (``repeat_last``) makes its tool
calls with ids of their own, never the ids of an earlier answer: an agent that keeps calls
by id (openai-agents) would drop a repeated id, answer nothing, and never reach Rule 2.
Rule 5 (errors, then the answer): a turn with ``error`` and ``times=N`` is no turn of the
history (an error adds no assistant message): it answers the first N requests of the same
body at its place (a client's retries), and the turn after it answers the next.  The count
is kept per conversation and process (forgotten when it is registered again or the journal
is cleared); ``serve --workers`` counts in each worker.
Rule 3 (refusals): a refused request gets a 400 in its API's error shape whose message
says which turn and why (what was expected, what arrived), and ``server.check()`` (the
pytest fixture at teardown) raises it as a :class:`ConversationError`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, ClassVar, NoReturn

from .._core._errors import ConfigError, RefusedRequest, UnknownNameError
from .._core._match import regex
from .._core._mock import Mock
from .._core._registry import ReplyKind
from .._core._reply import Reply, status
from .._core._request import Request
from .._core._units import Duration
from ..contract._catalogue import quirk
from ..contract._providers import provider
from ._anthropic import AnthropicMessages
from ._base import LLMReply, ToolCall, _json_body, _tool_call, tool_calls_of
from ._expect import Expect, expectations
from ._gemini import Gemini
from ._history import API_KINDS, History, api_of, arguments, read
from ._openai_chat import OpenAIChat
from ._openai_responses import OpenAIResponses
from ._text import make_id

__all__ = [
    "LLM_PATHS",
    "TURN_KEYS",
    "Conversation",
    "ConversationError",
    "Turn",
    "conversation",
    "tool_call",
    "turn",
]

LLM_PATHS = (
    r"^/v1/(chat/completions|responses|messages)$"
    r"|^/v1(beta)?/models/[^/:]+:(generateContent|streamGenerateContent)$"
)
"""The paths a conversation answers on its own: Chat Completions, Responses, Anthropic
Messages and Gemini (``/v1beta/`` and ``/v1/``)."""

_CLASSES: dict[str, type[LLMReply]] = {
    k.file_key: k for k in (OpenAIChat, OpenAIResponses, AnthropicMessages, Gemini)
}
_CALL_PREFIX = {
    "openai_chat": "call_",
    "openai_responses": "call_",
    "anthropic_messages": "toolu_",
    "gemini": "",
}
_USAGE_NAMES = {  # the neutral names of a turn's usage, as each API spells them
    "openai_chat": ("prompt_tokens", "completion_tokens"),
    "openai_responses": ("input_tokens", "output_tokens"),
    "anthropic_messages": ("input_tokens", "output_tokens"),
    "gemini": ("promptTokenCount", "candidatesTokenCount"),
}


class ConversationError(RefusedRequest):
    """A request a conversation refused (past its turns, an expectation missed, a loop);
    the client got the message in its API's error shape, and ``server.check()`` raises
    this.  Fix the agent (or the script): the message says which turn and why."""


def tool_call(name: str, arguments: Any = None, id: str | None = None) -> ToolCall:
    """A tool call a turn makes: ``tool_call("get_weather", {"city": "Paris"})``.

    ``arguments`` is a mapping (or its JSON text); ``id`` the call id to send (default:
    derived from the conversation, the turn and the call's place, in the API's style).

    Raises:
        ConfigError: no name, arguments that are no mapping or JSON text, an empty id.
    """
    return _tool_call(
        0, {"name": name, "arguments": {} if arguments is None else arguments, "id": id}
    )


TURN_KEYS = ("text", "tool_calls", "reasoning", "usage", "error", "retry_after", "times", "expect")
_COUNTED = 4096  # requests whose error turns a conversation counts (the oldest forgotten)


@dataclass(frozen=True)
class Turn:
    """One assistant turn of a conversation (see :func:`turn`)."""

    text: str | Sequence[str] = ""
    _: KW_ONLY
    tool_calls: Sequence[Any] = field(default=(), hash=False)
    reasoning: str | None = None
    usage: Mapping[str, Any] | None = field(default=None, hash=False)
    error: str | None = None
    retry_after: Duration | None = None
    times: int | None = None
    expect: Any = field(default=None, hash=False)

    def __post_init__(self) -> None:
        if not self.text:  # None too (``text: null`` in a file)
            object.__setattr__(self, "text", "")
        if self.times is not None:
            if isinstance(self.times, bool) or not isinstance(self.times, int) or self.times < 1:
                raise ConfigError(f"times={self.times!r} must be a positive int")
            if self.error is None:
                raise ConfigError(
                    f"times={self.times} needs error: an error turn answered that many times "
                    "before the turn after it (a turn with an answer is one turn of the history)"
                )
        object.__setattr__(self, "tool_calls", tool_calls_of(self.tool_calls))
        if self.reasoning is not None and not isinstance(self.reasoning, str):
            raise ConfigError(f"reasoning={self.reasoning!r} must be text")
        object.__setattr__(self, "expect", expectations(self.expect, "expect"))

    @property
    def calls(self) -> tuple[ToolCall, ...]:
        return self.tool_calls  # type: ignore[return-value]

    def to_file(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.text:
            out["text"] = list(self.text) if isinstance(self.text, tuple) else self.text
        if self.calls:
            out["tool_calls"] = [c.to_file() for c in self.calls]
        for key in ("reasoning", "usage", "error", "retry_after", "times"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.expect:
            out["expect"] = self.expect.to_file()
        return out

    @classmethod
    def of(cls, i: int, value: Any) -> Turn:
        """A turn, or its mapping form (``{text: ..., tool_calls: [...]}``)."""
        where = f"turns[{i}]"
        if isinstance(value, Turn):
            return value
        if not isinstance(value, Mapping):
            raise ConfigError(
                f"{where}={value!r} must be a turn: a mapping with text, tool_calls..."
            )
        for key in value:
            if key not in TURN_KEYS:
                raise ConfigError(f"{where}: {UnknownNameError('turn key', key, TURN_KEYS)}")
        try:
            return cls(**value)
        except ConfigError as exc:
            raise ConfigError(f"{where}.{exc}") from None


def turn(
    text: str | Sequence[str] | None = None,
    *,
    tool_calls: Sequence[ToolCall | Mapping[str, Any]] = (),
    reasoning: str | None = None,
    usage: Mapping[str, Any] | None = None,
    error: str | None = None,
    retry_after: Duration | None = None,
    times: int | None = None,
    expect: Mapping[str, Any] | None = None,
) -> Turn:
    """One assistant turn: its text and/or tool calls (several: parallel calls).

    Args:
        text: the answer's text (or the exact pieces to stream).
        tool_calls: :func:`tool_call` objects (or ``{name, arguments, id?}`` mappings).
        reasoning: reasoning to send first (Anthropic ``thinking``; the other APIs' own
            reasoning where their reply classes have it).
        usage: token counts; ``input_tokens`` and ``output_tokens`` are spelt as each
            API spells them, other keys are sent as given.
        error: answer this turn with a provider error instead (``rate_limit``, ...).
        retry_after: with ``error``, the ``retry-after`` the error carries (seconds, or
            ``"2s"``), which SDKs wait before their retry.
        times: with ``error``, answer the error only to the first ``times`` requests at
            this point of the conversation (a client's retries), then go on to the next
            turn for the same request: ``turn(error="rate_limit", times=1)``, then the
            answer, is a 429 and a successful retry within one turn of the history.
        expect: what the request must hold at this turn (see :mod:`mockhttp.llm._expect`):
            ``{"tool_result": {"name": "get_weather", "content": "18"},
            "tool_offered": "get_weather"}``.

    Raises:
        ConfigError: a bad tool call, an unknown expectation key (with a did-you-mean).
    """
    return Turn(
        "" if text is None else text,
        tool_calls=tool_calls,
        reasoning=reasoning,
        usage=usage,
        error=error,
        retry_after=retry_after,
        times=times,
        expect=expect,
    )


@dataclass(frozen=True)
class Conversation(ReplyKind):
    """A script of assistant turns, each answering the request at its turn (see the
    module's docstring for how the turn is chosen and when a request is refused).

    Args:
        turns: the turns, in order (:func:`turn` objects, or their mapping form).
        name: named in messages (and the mock's name with ``server.mock(conversation)``).
        repeat_last: answer requests past the last turn with the last turn again.
        max_repeats: how many times in a row a tool-calling turn may be answered before
            the request is refused as a loop (None: no limit).
        model, chunk_size, chunks_per_second, ttft: as the provider replies take them.
        quirks, as_: provider quirks and preset; each applies to the APIs it concerns.
    """

    file_key: ClassVar[str] = "conversation"
    standalone: ClassVar[bool] = True

    turns: Sequence[Any]
    _: KW_ONLY
    name: str | None = None
    repeat_last: bool = False
    max_repeats: int | None = 3
    model: str | None = None
    chunk_size: int | None = None
    chunks_per_second: float | None = None
    ttft: Duration = 0.0
    quirks: Sequence[str] = field(default=(), hash=False)
    as_: str | None = None
    _replies: dict[tuple[int, str], LLMReply] = field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False
    )
    _answering: tuple[int, ...] = field(
        default=(), init=False, repr=False, compare=False, hash=False
    )
    _before: tuple[tuple[int, ...], ...] = field(
        default=(), init=False, repr=False, compare=False, hash=False
    )
    _counted: dict[tuple[int, str, str | None], int] = field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False
    )
    _lock: threading.Lock = field(
        default_factory=threading.Lock, init=False, repr=False, compare=False, hash=False
    )

    def __post_init__(self) -> None:
        if isinstance(self.turns, str | Mapping) or not isinstance(self.turns, Sequence):
            raise ConfigError(f"turns={self.turns!r} must be a list of turns")
        if not self.turns:
            raise ConfigError("a conversation needs at least one turn")
        object.__setattr__(self, "turns", tuple(Turn.of(i, t) for i, t in enumerate(self.turns)))
        if self.name is not None and (not isinstance(self.name, str) or not self.name):
            raise ConfigError(f"name={self.name!r} must be non-empty text")
        if not isinstance(self.repeat_last, bool):
            raise ConfigError(f"repeat_last={self.repeat_last!r} must be true or false")
        limit = self.max_repeats
        if limit is not None and (
            isinstance(limit, bool) or not isinstance(limit, int) or limit < 1
        ):
            raise ConfigError(f"max_repeats={limit!r} must be a positive int or None")
        if isinstance(self.quirks, str) or not isinstance(self.quirks, Sequence):
            raise ConfigError(f"quirks={self.quirks!r} must be a list of quirk ids")
        object.__setattr__(self, "quirks", tuple(self.quirks))
        self._place_error_turns()
        for i in range(len(self.turns)):
            for api in API_KINDS:
                self._replies[(i, api)] = self._make(i, api)
        self._check_quirks()

    def _place_error_turns(self) -> None:
        """Rule 5: which turns answer a turn of the history (``_answering``, script
        indices), and which error turns with ``times`` come before each (``_before``)."""
        answering: list[int] = []
        before: list[tuple[int, ...]] = []
        waiting: list[int] = []
        for i, t in enumerate(self.turns):
            if t.times is None:
                answering.append(i)
                before.append(tuple(waiting))
                waiting = []
            else:
                waiting.append(i)
        if waiting:
            raise ConfigError(
                f"turns[{waiting[0]}]: an error turn with times= answers before the turn "
                "after it (a client's retries, then that turn's answer); add the turn that "
                "answers the retry after it"
            )
        object.__setattr__(self, "_answering", tuple(answering))
        object.__setattr__(self, "_before", tuple(before))

    def forget(self) -> None:
        """Forget the requests counted for error turns with ``times`` (the conversation
        is registered again, or the server's journal cleared)."""
        with self._lock:
            self._counted.clear()

    def _delayed(self, position: int, body: bytes, test: str | None = None) -> int | None:
        """Rule 5: the error turn this request still gets before the answer at
        ``position`` (each answers its first ``times`` requests of the same body, of the
        same ``test``: per-test isolation), or None: answer it."""
        waiting = self._before[position]
        if not waiting:
            return None
        digest = hashlib.sha256(body).hexdigest()
        with self._lock:
            for i in waiting:
                seen = self._counted.get((i, digest, test), 0)
                if seen < (self.turns[i].times or 0):
                    self._counted[(i, digest, test)] = seen + 1
                    if len(self._counted) > _COUNTED:
                        del self._counted[next(iter(self._counted))]
                    return i
        return None

    def _check_quirks(self) -> None:
        for q in self.quirks:
            if not set(quirk(q).kinds) & set(API_KINDS):
                raise ConfigError(f"quirks: {q} concerns none of the APIs a conversation speaks")
        if self.as_ is not None and provider(self.as_).kind not in API_KINDS:
            raise ConfigError(f"as={self.as_!r} is a preset for no API a conversation speaks")

    # -- the replies of each turn in each API ----------------------------------------------

    def _make(self, i: int, api: str, again: int = 0) -> LLMReply:
        """Turn ``i`` as ``api``'s reply (built once, at construction: bad options fail now),
        or as answered ``again`` more times past the script (``repeat_last``: fresh ids)."""
        t = self.turns[i]
        options: dict[str, Any] = {
            "tool_calls": [
                {"name": c.name, "arguments": c.arguments, "id": self._id_of(c, i, j, api, again)}
                for j, c in enumerate(t.calls)
            ],
            "usage": _usage(api, t.usage),
            "error": t.error,
            "retry_after": t.retry_after,
            "model": self.model,
            "chunk_size": self.chunk_size,
            "chunks_per_second": self.chunks_per_second,
            "ttft": self.ttft,
            "seed": i,
            "quirks": [q for q in self.quirks if api in quirk(q).kinds],
            "as_": self.as_ if self.as_ and provider(self.as_).kind == api else None,
        }
        cls = _CLASSES[api]
        if t.reasoning is not None:
            names = {f.name for f in dataclasses.fields(cls)}
            key = "thinking" if api == "anthropic_messages" else "reasoning"
            if key in names:
                options[key] = t.reasoning
        try:
            return cls(t.text, **options)
        except ConfigError as exc:
            raise ConfigError(f"turns[{i}].{exc}") from None

    def call_id(self, i: int, j: int, api: str) -> str:
        """The id of call ``j`` of turn ``i`` in ``api`` (when the script gives none)."""
        return _CALL_PREFIX[api] + make_id("", f"{self.salt}:{i}:{j}", 0, 24)

    def _id_of(self, call: ToolCall, i: int, j: int, api: str, again: int) -> str:
        """Call ``j`` of turn ``i``'s id, answered ``again`` more times past the script.
        Rule 4: such an answer gets fresh ids (a scripted id gets ``_2``, ``_3`` ... for
        its second, third answer)."""
        if not again:
            return call.id or self.call_id(i, j, api)
        if call.id:
            return f"{call.id}_{again + 1}"
        return _CALL_PREFIX[api] + make_id("", f"{self.salt}:{i}:{j}:{again}", 0, 24)

    def _ids(self, upto: int, api: str) -> dict[str, str]:
        """The ids of every call of the history's turns 0 .. ``upto`` (past the script:
        the last turn's, answered again), to their tool's name."""
        answering = self._answering
        last = len(answering) - 1
        return {
            self._id_of(c, answering[min(at, last)], j, api, max(0, at - last)): c.name
            for at in range(max(upto, last) + 1)
            for j, c in enumerate(self.turns[answering[min(at, last)]].calls)
        }

    @property
    def salt(self) -> str:
        """Ten characters drawn from the script: this conversation's mark in its ids."""
        cached = self.__dict__.get("_salt")
        if cached is None:
            text = json.dumps(self.to_args(), sort_keys=True, default=str)
            cached = hashlib.sha256(text.encode()).hexdigest()[:10]
            object.__setattr__(self, "_salt", cached)
        return cached

    # -- answering ------------------------------------------------------------------------

    def build(self, request: Request) -> Reply:
        body = _json_body(request)
        api = api_of(body, request.path, request.headers)
        history = read(api, body)
        at = self._turn_at(history, api)
        position = self._check(at, history, api)
        delayed = self._delayed(position, request.body, request.test)  # Rule 5
        index = self._answering[position] if delayed is None else delayed
        reply = self._replies[(index, api)]
        if at > position and reply.calls:  # Rule 4
            reply = self._make(index, api, at - position)
        if api == "openai_responses" and reply.id is None:
            reply = dataclasses.replace(reply, id=self.response_id(at, request.body))
        return reply.build(request)

    def turn_for(self, history: History, api: str) -> tuple[Turn, tuple[ToolCall, ...]]:
        """The turn answering ``history`` (a realtime session's items so far, read as
        ``api``'s request) and its tool calls with their ids, by the rules ``build``
        follows (Rules 1, 2 and 4 and the expectations; an error turn answers once).

        Raises:
            ConversationError: the session's history is refused (its reply is the HTTP
                one: a realtime session sends its own).
        """
        at = self._turn_at(history, api)
        position = self._check(at, history, api)
        index = self._answering[position]
        again = max(0, at - position)
        chosen = self.turns[index]
        calls = tuple(
            ToolCall(c.name, c.arguments, self._id_of(c, index, j, api, again))
            for j, c in enumerate(chosen.calls)
        )
        return chosen, calls

    def response_id(self, at: int, body: bytes) -> str:
        """The Responses id for turn ``at`` (0-based): the turn can be read back from it."""
        digest = hashlib.sha256(body).hexdigest()[:16]
        return f"resp_{self.salt}{at:04d}{digest}"

    def turn_of_id(self, response_id: str) -> int | None:
        """The turn a response id of this conversation was issued for (None: not ours)."""
        found = re.fullmatch(rf"resp_{self.salt}(\d{{4}})[0-9a-f]{{16}}", response_id)
        return int(found.group(1)) if found else None

    def _turn_at(self, history: History, api: str) -> int:
        """The 0-based turn of the request: its assistant turns, and its previous response."""
        at = len(history.turns)
        previous = history.previous_response_id
        if api == "openai_responses" and previous is not None:
            before = self.turn_of_id(previous)
            if before is None:
                self._refuse(
                    api,
                    f"{self.label} cannot tell the turn of this request: its "
                    f"previous_response_id={previous!r} was not issued by this conversation",
                )
            at += before + 1
        return at

    def _check(self, at: int, history: History, api: str) -> int:
        """The answering turn (its place among the turns without ``times``) for turn
        ``at``, after Rules 1 and 2 and the expectations."""
        answering = self._answering
        count = len(answering)
        index = min(at, count - 1)
        if at >= count and not self.repeat_last:
            self._refuse(
                api,
                f"{self.label} has {_turns(count)}; this request is at turn {at + 1} "
                f"(it holds {_turns(len(history.turns))} of the assistant)",
            )
        self._check_loop(at, index, history, api)
        expect: Expect = self.turns[answering[index]].expect
        if expect:
            self._name_results(at, history, api)
        misses = expect.misses(history) if expect else []
        if misses:
            lines = "\n".join(f"  {m}" for m in misses)
            self._refuse(
                api,
                f"{self.label}, turn {at + 1} of {count}: the request does not hold what "
                f"the turn expects\n{lines}",
            )
        return index

    def _name_results(self, at: int, history: History, api: str) -> None:
        """Name the tool results whose call is not in the request (a Responses request
        after ``previous_response_id``) from this conversation's own call ids."""
        ids = self._ids(at, api)
        history.pending = [
            r if r.name or r.call_id not in ids else dataclasses.replace(r, name=ids[r.call_id])
            for r in history.pending
        ]

    def _check_loop(self, at: int, index: int, history: History, api: str) -> None:
        answering = self._answering
        calls = [(c.name, arguments(c.arguments)) for c in self.turns[answering[index]].calls]
        if self.max_repeats is None or not calls:
            return
        repeated = 0
        last = history.turns[-1].results if history.turns else []
        for past in reversed(history.turns):
            same_calls = [(c.name, c.arguments) for c in past.calls] == calls
            if not same_calls or [r.content for r in past.results] != [r.content for r in last]:
                break
            repeated += 1
        shown = ", ".join(f"{n}({a})" for n, a in calls)
        if repeated >= self.max_repeats:
            self._refuse(
                api,
                f"{self.label}, turn {at + 1}: the agent is looping: its history ends with "
                f"{_times(repeated)} the same call {shown}, each with the same tool result, "
                f"and this turn would make it again (max_repeats={self.max_repeats})",
            )
        over = at - (len(answering) - 1)  # Rule 2 (b): the last turn answered already
        if over >= self.max_repeats:
            self._refuse(
                api,
                f"{self.label}, turn {at + 1}: the agent is looping: the last turn "
                f"({shown}) has been answered {_times(over)} (repeat_last, "
                f"max_repeats={self.max_repeats})",
            )

    def _refuse(self, api: str, message: str) -> NoReturn:
        raise ConversationError(message, _refusal(api, message))

    @property
    def label(self) -> str:
        return f"conversation {self.name!r}" if self.name else "the conversation"

    # -- a kind of its own ----------------------------------------------------------------

    def own_mock(self) -> Mock:
        """``POST`` on every LLM API path (``LLM_PATHS``), answered by this conversation."""
        return Mock("POST", regex(LLM_PATHS), response=None, kind=self, name=self.name)

    def to_args(self) -> dict[str, Any]:
        args: dict[str, Any] = {"turns": [t.to_file() for t in self.turns]}
        for f in dataclasses.fields(self):
            if not f.init or f.name == "turns":
                continue
            value = getattr(self, f.name)
            if value != f.default and not (f.name == "quirks" and not value):
                args["as" if f.name == "as_" else f.name] = (
                    list(value) if isinstance(value, tuple) else value
                )
        return args

    def describe(self) -> str:
        return f"{self.label} ({_turns(len(self.turns))})"


def conversation(
    *turns: Turn | Mapping[str, Any],
    name: str | None = None,
    repeat_last: bool = False,
    max_repeats: int | None = 3,
    model: str | None = None,
    chunk_size: int | None = None,
    chunks_per_second: float | None = None,
    ttft: Duration = 0.0,
    quirks: Sequence[str] = (),
    as_: str | None = None,
) -> Conversation:
    """A conversation of ``turns`` (see :class:`Conversation`): ``server.mock(it)`` answers
    every LLM API; ``mockhttp.post(path).reply(it)`` one path.

    Raises:
        ConfigError: no turn, or a bad turn or option (the message names the turn).
    """
    return Conversation(
        turns,
        name=name,
        repeat_last=repeat_last,
        max_repeats=max_repeats,
        model=model,
        chunk_size=chunk_size,
        chunks_per_second=chunks_per_second,
        ttft=ttft,
        quirks=quirks,
        as_=as_,
    )


def _usage(api: str, usage: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if usage is None:
        return None
    if not isinstance(usage, Mapping):
        raise ConfigError(f"usage={usage!r} must be a mapping of token counts")
    names = dict(zip(("input_tokens", "output_tokens"), _USAGE_NAMES[api], strict=True))
    return {names.get(k, k): v for k, v in usage.items()}


def _times(n: int) -> str:
    return "once" if n == 1 else f"{n} times"


def _turns(n: int) -> str:
    return f"{n} turn" if n == 1 else f"{n} turns"


def _refusal(api: str, message: str) -> Reply:
    """A 400 in ``api``'s error shape, so each SDK raises its own error with ``message``."""
    if api == "anthropic_messages":
        body: dict[str, Any] = {
            "type": "error",
            "error": {"type": "invalid_request_error", "message": message},
        }
    elif api == "gemini":
        body = {"error": {"code": 400, "message": message, "status": "INVALID_ARGUMENT"}}
    else:
        body = {
            "error": {
                "message": message,
                "type": "invalid_request_error",
                "param": None,
                "code": "conversation_refused",
            }
        }
    return status(400).json(body)
