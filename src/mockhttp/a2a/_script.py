"""A task's script as data: status changes, artifact chunks, and the answers that are not
tasks (a plain message, a JSON-RPC error).

``a2a.task(a2a.status("working"), a2a.artifact("Hi"), a2a.status("completed"))`` is one
task's script.  Its steps run in order; a run stops after an interrupted status
(``input-required``, ``auth-required``: the next message to that task goes on from there)
or a terminal one.  In mock files a step is a mapping with one of the keys ``status`` or
``artifact`` (``{status: working, text: Thinking}``, ``{artifact: Hi, last_chunk: true}``),
a task a list of steps or a mapping ``{steps: [...], duplicate_final: true}``.

Rule: every record checks itself when built and says where a mistake is
(``tasks[0].steps[1].status: 'done' is not a task state``), so a mock file's error points
at its node.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, TypeVar

from .._core._errors import ConfigError
from ._spec import ERRORS, STATES

__all__ = [
    "Artifact",
    "Entry",
    "Error",
    "Message",
    "Status",
    "Step",
    "Task",
    "artifact",
    "entries",
    "error",
    "message",
    "status",
    "task",
]

_R = TypeVar("_R")
_PATH = re.compile(r"^[A-Za-z_]\w*(\[\d+\])*[.:]")


def fail(where: str, text: str) -> ConfigError:
    """An error at ``where``; an inner place in ``text`` is joined to it."""
    if not where:
        return ConfigError(text)
    return ConfigError(f"{where}.{text}" if _PATH.match(text) else f"{where}: {text}")


def _optional_text(value: Any, name: str) -> None:
    if value is not None and not isinstance(value, str):
        raise ConfigError(f"{name}: {value!r} must be text")


def _delay(value: Any) -> None:
    if value is not None and (
        isinstance(value, bool) or not isinstance(value, int | float) or value < 0
    ):
        raise ConfigError(f"delay: {value!r} must be a number of seconds (0 or more)")


@dataclass(frozen=True)
class Status:
    """A status update: the task goes to ``state``, with an agent message ``text``."""

    status: str
    text: str | None = None
    delay: float | None = None

    def __post_init__(self) -> None:
        if self.status not in STATES:
            raise ConfigError(
                f"status: {self.status!r} is not a task state; expected one of {', '.join(STATES)}"
            )
        _optional_text(self.text, "text")
        _delay(self.delay)


@dataclass(frozen=True)
class Artifact:
    """An artifact chunk: ``text`` (or ``data``, a JSON value) under ``id``; ``append``
    adds it to the chunks sent before under that id, ``last_chunk`` says it is the last."""

    artifact: str | None = None
    data: Any = None
    name: str | None = None
    id: str | None = None
    append: bool = False
    last_chunk: bool | None = None
    delay: float | None = None

    def __post_init__(self) -> None:
        if (self.artifact is None) == (self.data is None):
            raise ConfigError("artifact: give the text, or data (one of them)")
        for key in ("artifact", "name", "id"):
            _optional_text(getattr(self, key), key)
        if not isinstance(self.append, bool):
            raise ConfigError(f"append: {self.append!r} must be true or false")
        if self.last_chunk is not None and not isinstance(self.last_chunk, bool):
            raise ConfigError(f"last_chunk: {self.last_chunk!r} must be true or false")
        _delay(self.delay)

    @property
    def part(self) -> dict[str, Any]:
        """The part as 1.0 writes it (``{"text": ...}`` or ``{"data": ...}``)."""
        return {"text": self.artifact} if self.artifact is not None else {"data": self.data}


Step = Status | Artifact


@dataclass(frozen=True)
class Task:
    """One task's script: its steps, and the faults its answers carry.

    ``duplicate_final`` sends a stream's final status update twice; ``wrong_id`` answers
    each request of this task with another JSON-RPC id than the request's.
    """

    steps: tuple[Step, ...]
    duplicate_final: bool = False
    wrong_id: bool = False

    def __post_init__(self) -> None:
        steps = _sequence(self.steps, "steps")
        object.__setattr__(
            self, "steps", tuple(_step(s, f"steps[{i}]") for i, s in enumerate(steps))
        )
        if not self.steps:
            raise ConfigError("steps: a task needs at least one step")
        for key in ("duplicate_final", "wrong_id"):
            if not isinstance(getattr(self, key), bool):
                raise ConfigError(f"{key}: {getattr(self, key)!r} must be true or false")

    def to_data(self) -> Any:
        steps = [_plain(s) for s in self.steps]
        if not (self.duplicate_final or self.wrong_id):
            return steps
        out: dict[str, Any] = {"steps": steps}
        out.update({k: True for k in ("duplicate_final", "wrong_id") if getattr(self, k)})
        return out


@dataclass(frozen=True)
class Message:
    """An answer that is a message, not a task (the agent replies at once)."""

    message: str

    def __post_init__(self) -> None:
        if not isinstance(self.message, str):
            raise ConfigError(f"message: {self.message!r} must be text")

    def to_data(self) -> Any:
        return {"message": self.message}


@dataclass(frozen=True)
class Error:
    """An answer that is a JSON-RPC error (``code`` defaults to -32603 internal error)."""

    error: str
    code: int = ERRORS["internal"]

    def __post_init__(self) -> None:
        if not isinstance(self.error, str):
            raise ConfigError(f"error: {self.error!r} must be text (the error's message)")
        if isinstance(self.code, bool) or not isinstance(self.code, int):
            raise ConfigError(f"code: {self.code!r} must be an integer")

    def to_data(self) -> Any:
        return _plain(self)


Entry = Task | Message | Error


def status(state: str, text: str | None = None, *, delay: float | None = None) -> Status:
    """The task goes to ``state`` (``"working"``, ``"completed"``...), saying ``text``;
    ``delay``: seconds before this event (else the agent's ``event_delay``)."""
    return Status(state, text, delay)


def artifact(
    text: str | None = None,
    *,
    data: Any = None,
    name: str | None = None,
    id: str | None = None,
    append: bool = False,
    last_chunk: bool | None = None,
    delay: float | None = None,
) -> Artifact:
    """An artifact chunk (see :class:`Artifact`)."""
    return Artifact(text, data, name, id, append, last_chunk, delay)


def task(*steps: Step, duplicate_final: bool = False, wrong_id: bool = False) -> Task:
    """A task's script: ``steps`` in order (see :class:`Task` for the faults)."""
    return Task(steps, duplicate_final, wrong_id)


def message(text: str) -> Message:
    """An answer that is a message (no task)."""
    return Message(text)


def error(message: str, code: int = ERRORS["internal"]) -> Error:
    """An answer that is a JSON-RPC error."""
    return Error(message, code)


def entries(values: Any, where: str = "tasks") -> tuple[Entry, ...]:
    """``values`` (records or their data) as the agent's answers, in order."""
    return tuple(_entry(v, f"{where}[{i}]") for i, v in enumerate(_sequence(values, where)))


def _entry(value: Any, where: str) -> Entry:
    if isinstance(value, Task | Message | Error):
        return value
    if isinstance(value, Mapping) and ("message" in value or "error" in value):
        if "message" in value:
            return _build(Message, value, where)
        return _build(Error, value, where)
    if isinstance(value, Mapping):
        return _build(Task, value, where)
    try:  # a task written as its list of steps: its places are the list's
        return Task(value)
    except ConfigError as exc:
        text = str(exc)
        if text.startswith("steps["):
            raise ConfigError(where + text.removeprefix("steps")) from None
        raise fail(where, text) from None


def _step(value: Any, where: str) -> Step:
    if isinstance(value, Status | Artifact):
        return value
    if isinstance(value, Mapping) and ("status" in value) != (
        "artifact" in value or "data" in value
    ):
        if "status" in value:
            return _build(Status, value, where)
        return _build(Artifact, value, where)
    raise fail(where, f"{value!r} must be a step: a mapping with status: or artifact:")


def _build(cls: type[_R], data: Mapping[str, Any], where: str) -> _R:
    known = [f.name for f in fields(cls)]  # type: ignore[arg-type]
    for key in data:
        if key not in known:
            raise fail(where, f"unknown key {key!r}, expected one of {', '.join(known)}")
    try:
        return cls(**data)
    except ConfigError as exc:
        raise fail(where, str(exc)) from None


def _sequence(value: Any, where: str) -> tuple[Any, ...]:
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Sequence):
        raise fail(where, f"{value!r} must be a list")
    return tuple(value)


def _plain(record: Any) -> dict[str, Any]:
    """A record's fields that differ from their defaults, as data."""
    return {
        f.name: getattr(record, f.name)
        for f in fields(record)
        if getattr(record, f.name) != f.default
    }
