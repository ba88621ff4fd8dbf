"""A run's script: what the agent does, as frozen records (``text``, ``tool_call``, ...).

Each record is built in Python (``text("Hello")``) or from a mock file's data, one key
per entry (``{text: Hello}``, ``{tool_call: {name: get_weather, arguments: {...}}}``);
``to_data()`` gives that data back (defaults left out), so a run round-trips through its
file form.  :mod:`._events` turns the records into AG-UI events.

Rule 1: an ``error`` ends the run: it is the script's last entry (the last of the last
step's entries counts: the steps around it are left open, as an agent that failed
mid-step leaves them).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, TypeAlias, cast

from .._core._errors import ConfigError
from .._core._units import Duration, format_seconds, seconds

__all__ = [
    "Custom",
    "Delta",
    "Error",
    "Item",
    "Messages",
    "Pause",
    "Reasoning",
    "State",
    "Step",
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


@dataclass(frozen=True)
class Text:
    """A text message: ``TEXT_MESSAGE_START``, a ``TEXT_MESSAGE_CONTENT`` per piece (words,
    or ``chunk_size`` characters), ``TEXT_MESSAGE_END``."""

    content: str
    role: str = "assistant"
    id: str | None = None
    chunk_size: int | None = None

    def __post_init__(self) -> None:
        _text(self.content, "text", empty=True)
        if self.role not in _ROLES:
            raise ConfigError(f"text.role={self.role!r} must be one of {', '.join(_ROLES)}")
        _optional_text(self.id, "text.id")
        _size(self.chunk_size, "text.chunk_size")


@dataclass(frozen=True)
class ToolCall:
    """A tool call: ``TOOL_CALL_START``, its arguments' JSON text in ``TOOL_CALL_ARGS``
    pieces, ``TOOL_CALL_END``; with a ``result``, then ``TOOL_CALL_RESULT``."""

    name: str
    arguments: Any = field(default_factory=dict)
    id: str | None = None
    parent_message_id: str | None = None
    result: str | None = None

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


@dataclass(frozen=True)
class State:
    """A ``STATE_SNAPSHOT``: the agent's whole state (any JSON value)."""

    snapshot: Any


@dataclass(frozen=True)
class Delta:
    """A ``STATE_DELTA``: JSON Patch operations (RFC 6902) on the state."""

    operations: Sequence[Mapping[str, Any]]

    def __post_init__(self) -> None:
        ops = self.operations
        if isinstance(ops, Mapping | str) or not isinstance(ops, Sequence):
            raise ConfigError(f"delta={ops!r} must be a list of JSON Patch operations")
        for i, op in enumerate(ops):
            _patch_op(op, f"delta[{i}]")
        object.__setattr__(self, "operations", tuple(dict(op) for op in ops))


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
    (``REASONING_MESSAGE_START/CONTENT/END``), ``REASONING_END``."""

    content: str
    id: str | None = None
    chunk_size: int | None = None

    def __post_init__(self) -> None:
        _text(self.content, "reasoning", empty=True)
        _optional_text(self.id, "reasoning.id")
        _size(self.chunk_size, "reasoning.chunk_size")


@dataclass(frozen=True)
class Step:
    """``STEP_STARTED``, the step's own entries, ``STEP_FINISHED``."""

    name: str
    events: Sequence[Any] = ()

    def __post_init__(self) -> None:
        _text(self.name, "step.name")
        object.__setattr__(self, "events", items(self.events, "step.events"))


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
    terminal event (the broken server a client must survive)."""

    message: str
    code: str | None = None
    drop: bool = False

    def __post_init__(self) -> None:
        _text(self.message, "error.message")
        _optional_text(self.code, "error.code")
        if not isinstance(self.drop, bool):
            raise ConfigError(f"error.drop={self.drop!r} must be true or false")


Item: TypeAlias = (
    Text | ToolCall | State | Delta | Messages | Reasoning | Step | Custom | Pause | Error
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
}
_KEY_OF = {cls: key for key, (cls, _) in _FIRST.items()}
_WHOLE = (State, Delta, Messages, Pause)  # their data is the value itself, never a mapping


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
        if cls in _WHOLE or not isinstance(data, Mapping):
            return cls(data)  # type: ignore[no-any-return]
        known = [f.name for f in fields(cls)]
        unknown = [k for k in data if k not in known]
        if unknown:
            raise ConfigError(f"{key}: unknown key {unknown[0]!r}, expected {', '.join(known)}")
        if first not in data:
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
        if isinstance(entry, Step):
            out += flatten(entry.events)
    return out


def to_data(entry: Item) -> dict[str, Any]:
    """An entry's file form (``{text: Hello}``; a mapping when it has more than one field)."""
    key = _KEY_OF[type(entry)]
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
            data[f.name] = [to_data(e) for e in value] if f.name == "events" else value
    return {key: data[_FIRST[key][1]] if len(data) == 1 else data}


CONSTRUCTORS: dict[str, Callable[..., Item]] = {k: cls for k, (cls, _) in _FIRST.items()}
