"""A run's script: what the agent does, as frozen records (``text``, ``tool_call``, ...).

Each record is built in Python (``text("Hello")``) or from a mock file's data, one key
per entry (``{text: Hello}``, ``{tool_call: {name: get_weather, arguments: {...}}}``);
``to_data()`` gives that data back (defaults left out), so a run round-trips through its
file form.  :mod:`._events` turns the records into AG-UI events.

Rule 1: an ``error`` ends its run: it is the run's last entry (the last of the last
step's entries counts: the steps around it are left open, as an agent that failed
mid-step leaves them); ``new_run`` starts the next run on the same stream, at the top
level of the script only.  An error ``before_start`` is its run's first entry (no
``RUN_STARTED``); one ``after_finished`` is at its run's top level (nothing open).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, TypeAlias, cast

from .._core._errors import ConfigError
from .._core._units import Duration, format_seconds, seconds

__all__ = [
    "Activity",
    "Custom",
    "Delta",
    "Error",
    "Item",
    "Messages",
    "NewRun",
    "Pause",
    "Raw",
    "Reasoning",
    "State",
    "Step",
    "Subagent",
    "Text",
    "ToolCall",
    "flatten",
    "item",
    "items",
]

_PATH = re.compile(r"^[A-Za-z_]\w*(?:\[\d+\]|\.[A-Za-z_]\w*)*(?:: |=)")
_ROLES = ("assistant", "developer", "system", "user")
_OPS = ("add", "remove", "replace", "move", "copy", "test")
_POINTER = re.compile(r"^(/([^/~]|~[01])*)*$")


def _fail(where: str, text: str) -> ConfigError:
    """An error at ``where`` (``events[0]``), joined to an inner place when there is one."""
    return ConfigError(f"{where}.{text}" if _PATH.match(text) else f"{where}: {text}")


def _text(value: Any, where: str, *, empty: bool = False) -> str:
    if not isinstance(value, str) or (not empty and not value):
        raise _fail(where, f"{value!r} must be {'' if empty else 'non-empty '}text")
    return value


def _optional_text(value: Any, where: str) -> str | None:
    return None if value is None else _text(value, where)


def _size(value: Any, where: str) -> int | None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise _fail(where, f"{value!r} must be a positive int")
    return value


def _flag(value: Any, where: str) -> None:
    if not isinstance(value, bool):
        raise ConfigError(f"{where}={value!r} must be true or false")


@dataclass(frozen=True)
class Text:
    """A text message: ``TEXT_MESSAGE_START``, a ``TEXT_MESSAGE_CONTENT`` per piece (words,
    or ``chunk_size`` characters), ``TEXT_MESSAGE_END``; ``chunked``: one
    ``TEXT_MESSAGE_CHUNK`` a piece instead (the first names the message, the next event
    closes it)."""

    content: str
    role: str = "assistant"
    id: str | None = None
    chunk_size: int | None = None
    chunked: bool = False

    def __post_init__(self) -> None:
        _text(self.content, "text", empty=True)
        if self.role not in _ROLES:
            raise ConfigError(f"text.role={self.role!r} must be one of {', '.join(_ROLES)}")
        _optional_text(self.id, "text.id")
        _size(self.chunk_size, "text.chunk_size")
        _flag(self.chunked, "text.chunked")


@dataclass(frozen=True)
class ToolCall:
    """A tool call: ``TOOL_CALL_START``, its arguments' JSON text in ``TOOL_CALL_ARGS``
    pieces, ``TOOL_CALL_END``; with a ``result``, then ``TOOL_CALL_RESULT``; ``chunked``:
    ``TOOL_CALL_CHUNK`` pieces instead of the start, arguments and end."""

    name: str
    arguments: Any = field(default_factory=dict)
    id: str | None = None
    parent_message_id: str | None = None
    result: str | None = None
    chunked: bool = False

    def __post_init__(self) -> None:
        _text(self.name, "tool_call.name")
        if not isinstance(self.arguments, str | Mapping):
            raise ConfigError(
                f"tool_call.arguments={self.arguments!r} must be a mapping or JSON text"
            )
        if isinstance(self.arguments, Mapping):
            object.__setattr__(self, "arguments", dict(self.arguments))
        _optional_text(self.id, "tool_call.id")
        _optional_text(self.parent_message_id, "tool_call.parent_message_id")
        if self.result is not None:
            _text(self.result, "tool_call.result", empty=True)
        _flag(self.chunked, "tool_call.chunked")


@dataclass(frozen=True)
class State:
    """A ``STATE_SNAPSHOT``: the agent's whole state (any JSON value)."""

    snapshot: Any


@dataclass(frozen=True)
class Delta:
    """A ``STATE_DELTA``: JSON Patch operations (RFC 6902) on the state."""

    operations: Sequence[Mapping[str, Any]]

    def __post_init__(self) -> None:
        object.__setattr__(self, "operations", _operations(self.operations, "delta"))


def _operations(ops: Any, where: str) -> tuple[dict[str, Any], ...]:
    if isinstance(ops, Mapping | str) or not isinstance(ops, Sequence):
        raise ConfigError(f"{where}={ops!r} must be a list of JSON Patch operations")
    for i, op in enumerate(ops):
        _patch_op(op, f"{where}[{i}]")
    return tuple(dict(op) for op in ops)


def _patch_op(op: Any, where: str) -> None:
    if not isinstance(op, Mapping):
        raise ConfigError(f"{where}={op!r} must be a mapping such as {{op: add, path: /a}}")
    if op.get("op") not in _OPS:
        raise ConfigError(f"{where}.op={op.get('op')!r} must be one of {', '.join(_OPS)}")
    for key in ("path", *(("from",) if op["op"] in ("move", "copy") else ())):
        pointer = op.get(key)
        if not isinstance(pointer, str) or not _POINTER.match(pointer):
            raise ConfigError(f"{where}.{key}={pointer!r} must be a JSON pointer such as /a/0")
    if op["op"] in ("add", "replace", "test") and "value" not in op:
        raise ConfigError(f"{where}: a {op['op']} operation needs a value")


@dataclass(frozen=True)
class Messages:
    """A ``MESSAGES_SNAPSHOT``: the conversation's messages (AG-UI message objects)."""

    messages: Sequence[Mapping[str, Any]]

    def __post_init__(self) -> None:
        messages = self.messages
        if isinstance(messages, Mapping | str) or not isinstance(messages, Sequence):
            raise ConfigError(f"messages={messages!r} must be a list of messages")
        for i, m in enumerate(messages):
            if not isinstance(m, Mapping) or not isinstance(m.get("id"), str):
                raise ConfigError(f"messages[{i}]={m!r} must be a mapping with an id")
            if not isinstance(m.get("role"), str):
                raise ConfigError(f"messages[{i}].role={m.get('role')!r} must be a role (text)")
        object.__setattr__(self, "messages", tuple(dict(m) for m in messages))


@dataclass(frozen=True)
class Reasoning:
    """The agent's reasoning: ``REASONING_START``, a reasoning message in pieces
    (``REASONING_MESSAGE_START/CONTENT/END``, or ``REASONING_MESSAGE_CHUNK`` pieces when
    ``chunked``), an ``encrypted`` value if given (``REASONING_ENCRYPTED_VALUE``),
    ``REASONING_END``."""

    content: str
    id: str | None = None
    chunk_size: int | None = None
    chunked: bool = False
    encrypted: str | None = None

    def __post_init__(self) -> None:
        _text(self.content, "reasoning", empty=True)
        _optional_text(self.id, "reasoning.id")
        _size(self.chunk_size, "reasoning.chunk_size")
        _flag(self.chunked, "reasoning.chunked")
        _optional_text(self.encrypted, "reasoning.encrypted")


@dataclass(frozen=True)
class Step:
    """``STEP_STARTED``, the step's own entries, ``STEP_FINISHED``."""

    name: str
    events: Sequence[Any] = ()

    def __post_init__(self) -> None:
        _text(self.name, "step.name")
        object.__setattr__(self, "events", items(self.events, "step.events"))
        _no_step_inside_its_namesake(self.events, self.name)


def _no_step_inside_its_namesake(entries: Sequence[Any], name: str) -> None:
    """A step may not open inside an open step of its name (a subagent's steps are its
    own): the protocol's client refuses the second ``STEP_STARTED``."""
    for entry in entries:
        if isinstance(entry, Step):
            if entry.name == name:
                raise ConfigError(
                    f"step {name!r} inside a step of the same name: the protocol's "
                    "clients refuse a step that is already open"
                )
            _no_step_inside_its_namesake(entry.events, name)


@dataclass(frozen=True)
class Custom:
    """A ``CUSTOM`` event: an application's own ``name`` and ``value``."""

    name: str
    value: Any = None

    def __post_init__(self) -> None:
        _text(self.name, "custom.name")


@dataclass(frozen=True)
class Pause:
    """No event: the next event waits ``duration`` (instead of the run's interval)."""

    duration: Duration

    def __post_init__(self) -> None:
        object.__setattr__(self, "duration", seconds(self.duration, "pause"))


@dataclass(frozen=True)
class Error:
    """The run fails: ``RUN_ERROR`` with ``message`` (and ``code``) instead of
    ``RUN_FINISHED``; ``drop=True`` closes the connection there instead, with no
    terminal event (the broken server a client must survive).  ``before_start``: the run
    fails before it starts (``RUN_ERROR`` with no ``RUN_STARTED``); ``after_finished``: it
    fails after ``RUN_FINISHED`` (``RUN_FINISHED``, then ``RUN_ERROR``)."""

    message: str
    code: str | None = None
    drop: bool = False
    before_start: bool = False
    after_finished: bool = False

    def __post_init__(self) -> None:
        _text(self.message, "error.message")
        _optional_text(self.code, "error.code")
        for name in ("drop", "before_start", "after_finished"):
            _flag(getattr(self, name), f"error.{name}")
        if self.before_start and self.after_finished:
            raise ConfigError("error: before_start and after_finished exclude each other")


@dataclass(frozen=True)
class NewRun:
    """The run so far ends (``RUN_FINISHED``, unless an error ended it) and the next run
    starts on the same stream: ``RUN_STARTED`` with ``run_id`` (default: the first run's
    id and the run's number, ``run-1-2``) and ``thread_id`` (default: the first run's)."""

    run_id: str | None = None
    thread_id: str | None = None

    def __post_init__(self) -> None:
        _optional_text(self.run_id, "new_run.run_id")
        _optional_text(self.thread_id, "new_run.thread_id")


@dataclass(frozen=True)
class Activity:
    """An ``ACTIVITY_SNAPSHOT`` (structured progress a front end renders: its
    ``activity_type`` and ``content``, an object), then an ``ACTIVITY_DELTA`` with
    ``patch`` (JSON Patch on the content) if given; ``replace`` as the protocol has it."""

    activity_type: str
    content: Mapping[str, Any] = field(default_factory=dict)
    id: str | None = None
    patch: Sequence[Mapping[str, Any]] | None = None
    replace: bool | None = None

    def __post_init__(self) -> None:
        _text(self.activity_type, "activity.activity_type")
        if not isinstance(self.content, Mapping):
            raise ConfigError(f"activity.content={self.content!r} must be a mapping")
        object.__setattr__(self, "content", dict(self.content))
        _optional_text(self.id, "activity.id")
        if self.patch is not None:
            object.__setattr__(self, "patch", _operations(self.patch, "activity.patch"))
        if self.replace is not None:
            _flag(self.replace, "activity.replace")


@dataclass(frozen=True)
class Raw:
    """A ``RAW`` event: a provider's own ``event`` passed through, from ``source``."""

    event: Any
    source: str | None = None

    def __post_init__(self) -> None:
        _optional_text(self.source, "raw.source")


@dataclass(frozen=True)
class Subagent:
    """``SUBAGENT_STARTED``, the subagent's entries (each event attributed to it by its
    ``subagentRunId``; a subagent inside names its parent), then ``SUBAGENT_FINISHED``,
    or ``SUBAGENT_ERROR`` with ``error`` (the run goes on)."""

    name: str
    events: Sequence[Any] = ()
    id: str | None = None
    error: str | None = None

    def __post_init__(self) -> None:
        _text(self.name, "subagent.name")
        _optional_text(self.id, "subagent.id")
        _optional_text(self.error, "subagent.error")
        entries = items(self.events, "subagent.events")
        for entry in flatten(entries):
            if isinstance(entry, Error | NewRun | Messages):
                raise ConfigError(
                    f"subagent.events: a {_KEY_OF[type(entry)]} entry is the run's, not a "
                    "subagent's (a subagent fails with error=...)"
                )
        object.__setattr__(self, "events", entries)


Item: TypeAlias = (
    Text
    | ToolCall
    | State
    | Delta
    | Messages
    | Reasoning
    | Step
    | Custom
    | Pause
    | Error
    | NewRun
    | Activity
    | Raw
    | Subagent
)

_FIRST: dict[str, tuple[type[Any], str]] = {
    # file key: the record, and the field a bare value fills
    "text": (Text, "content"),
    "tool_call": (ToolCall, "name"),
    "state": (State, "snapshot"),
    "delta": (Delta, "operations"),
    "messages": (Messages, "messages"),
    "reasoning": (Reasoning, "content"),
    "step": (Step, "name"),
    "custom": (Custom, "name"),
    "pause": (Pause, "duration"),
    "error": (Error, "message"),
    "new_run": (NewRun, "run_id"),
    "activity": (Activity, "activity_type"),
    "raw": (Raw, "event"),
    "subagent": (Subagent, "name"),
}
_KEY_OF = {cls: key for key, (cls, _) in _FIRST.items()}
_WHOLE = (State, Delta, Messages, Pause)  # their data is the value itself, never a mapping
_OPTIONAL_FIRST = (NewRun,)  # ``{new_run: {}}`` and ``{new_run: null}`` are whole entries


def item(value: Any, where: str = "events[0]") -> Item:
    """A record, or its file form: ``{text: Hello}``, ``{tool_call: {name: f, ...}}``."""
    if isinstance(value, tuple(_KEY_OF)):
        return cast("Item", value)
    if not isinstance(value, Mapping) or len(value) != 1:
        raise ConfigError(
            f"{where}={value!r} must be one entry such as {{text: Hello}} (one of "
            f"{', '.join(_FIRST)})"
        )
    ((key, data),) = value.items()
    if key not in _FIRST:
        from .._core._errors import UnknownNameError

        raise _fail(where, str(UnknownNameError("entry key", key, tuple(_FIRST))))
    cls, first = _FIRST[key]
    try:
        if cls in _OPTIONAL_FIRST and data is None:
            return cls()  # type: ignore[no-any-return]
        if cls is Raw and not (isinstance(data, Mapping) and "event" in data):
            return Raw(data)  # the event itself, a mapping or not
        if cls in _WHOLE or not isinstance(data, Mapping):
            return cls(data)  # type: ignore[no-any-return]
        known = [f.name for f in fields(cls)]
        unknown = [k for k in data if k not in known]
        if unknown:
            raise ConfigError(f"{key}: unknown key {unknown[0]!r}, expected {', '.join(known)}")
        if first not in data and cls not in _OPTIONAL_FIRST:
            raise ConfigError(f"{key}: {first} is missing")
        return cls(**data)  # type: ignore[no-any-return]
    except ConfigError as exc:
        raise _fail(where, str(exc)) from None
    except TypeError as exc:  # a bare value for a record that takes more
        raise _fail(where, f"{key}: {exc}") from None


def items(values: Any, where: str = "events") -> tuple[Item, ...]:
    """The records of a list of entries (records or their file forms)."""
    if isinstance(values, Mapping | str) or not isinstance(values, Sequence):
        raise ConfigError(f"{where}={values!r} must be a list of entries such as {{text: Hi}}")
    return tuple(item(v, f"{where}[{i}]") for i, v in enumerate(values))


def flatten(script: Sequence[Item]) -> list[Item]:
    """Every record in the order it plays, steps' entries inside (steps kept too)."""
    out: list[Item] = []
    for entry in script:
        out.append(entry)
        if isinstance(entry, Step | Subagent):
            out += flatten(entry.events)
    return out


def to_data(entry: Item) -> dict[str, Any]:
    """An entry's file form (``{text: Hello}``; a mapping when it has more than one field)."""
    key = _KEY_OF[type(entry)]
    if isinstance(entry, NewRun) and entry == NewRun():
        return {key: None}
    if isinstance(entry, Pause):
        return {key: format_seconds(seconds(entry.duration, "pause"))}
    if isinstance(entry, _WHOLE):
        value = getattr(entry, _FIRST[key][1])
        return {key: list(value) if isinstance(value, tuple) else value}
    data: dict[str, Any] = {}
    for f in fields(entry):
        value = getattr(entry, f.name)
        default = f.default_factory() if callable(f.default_factory) else f.default
        if f.name == _FIRST[key][1] or value != default:
            if f.name == "events":
                value = [to_data(e) for e in value]
            elif isinstance(value, tuple):
                value = list(value)
            data[f.name] = value
    first = data.get(_FIRST[key][1])
    if len(data) == 1 and not (isinstance(entry, Raw) and isinstance(first, Mapping)):
        return {key: first}
    return {key: data}


CONSTRUCTORS: dict[str, Callable[..., Item]] = {k: cls for k, (cls, _) in _FIRST.items()}
