"""What a mock MCP server offers: tools with scripted answers, resources and prompts.

Each is a frozen record built in Python (``tool("get_weather", answers=[...])``) or from a
mock file's data (``{name: get_weather, answers: [...]}``); ``to_data()`` gives that data
back (defaults left out), so a mock round-trips through its file form.

A tool's answers are tried in order: the answers whose ``when`` is a subset of the call's
arguments are the call's candidates (when none is, the answers without ``when``), and the
n-th call with the same candidates gets the n-th of them (the last one repeats).  An
answer is a result (``text`` or ``content`` blocks, ``structured`` content, ``is_error``)
or a JSON-RPC ``error``; it may send ``progress``, ``log`` and ``notify`` notifications
before it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from .._core._errors import ConfigError
from ._spec import INTERNAL_ERROR, LIST_CHANGED, LOG_LEVELS

__all__ = ["Answer", "Prompt", "Resource", "Tool", "answer", "error", "prompt", "resource", "tool"]


_PATH = re.compile(r"^[A-Za-z_]\w*(?:\[\d+\]|\.[A-Za-z_]\w*)*: ")


def _fail(where: str, text: str) -> ConfigError:
    """An error at ``where`` (``tools[0]``); an inner place (``answers[1].progress: ...``)
    is joined to it, so a mock file's error points at the innermost node."""
    if not where:
        return ConfigError(text)
    return ConfigError(f"{where}.{text}" if _PATH.match(text) else f"{where}: {text}")


def _keys(data: Mapping[str, Any], known: Sequence[str], where: str) -> None:
    for key in data:
        if key not in known:
            raise _fail(where, f"unknown key {key!r}, expected one of {', '.join(known)}")


def _text(value: Any, where: str, *, empty: bool = True) -> str:
    if not isinstance(value, str) or (not empty and not value):
        raise _fail(where, f"{value!r} must be {'' if empty else 'non-empty '}text")
    return value


def _mapping(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise _fail(where, f"{value!r} must be a mapping")
    return dict(value)


def _data(record: Any) -> dict[str, Any]:
    """A record's fields that differ from their defaults, as data."""
    out: dict[str, Any] = {}
    for f in fields(record):
        value = getattr(record, f.name)
        default = f.default_factory() if callable(f.default_factory) else f.default
        if value != default:
            out[f.name] = [_as_data(v) for v in value] if isinstance(value, tuple) else value
    return out


def _as_data(value: Any) -> Any:
    return value.to_data() if hasattr(value, "to_data") else value


@dataclass(frozen=True)
class Answer:
    """One scripted answer of a tool (see the module's docstring)."""

    text: str | None = None
    content: tuple[dict[str, Any], ...] = ()
    structured: dict[str, Any] | None = None
    is_error: bool = False
    error: dict[str, Any] | None = None
    when: dict[str, Any] | None = None
    progress: tuple[float, ...] = ()
    log: tuple[str | dict[str, Any], ...] = ()
    notify: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        self._check("")

    def _check(self, where: str) -> None:
        at = (where + ".") if where else ""
        if self.text is not None:
            _text(self.text, at + "text")
        for i, block in enumerate(self.content):
            if not isinstance(block, Mapping) or not isinstance(block.get("type"), str):
                raise _fail(f"{at}content[{i}]", f"{block!r} must be a content block with a type")
        if self.error is not None:
            self._check_error(at + "error")
        for i, value in enumerate(self.progress):
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise _fail(f"{at}progress[{i}]", f"{value!r} must be a number")
        for i, entry in enumerate(self.log):
            level = entry.get("level", "info") if isinstance(entry, Mapping) else "info"
            if not isinstance(entry, str | Mapping) or level not in LOG_LEVELS:
                raise _fail(f"{at}log[{i}]", f"{entry!r} must be text or {{level, data}}")
        for i, name in enumerate(self.notify):
            if name not in LIST_CHANGED:
                raise _fail(
                    f"{at}notify[{i}]", f"{name!r} must be one of {', '.join(LIST_CHANGED)}"
                )

    def _check_error(self, where: str) -> None:
        err = self.error or {}
        if not isinstance(err, Mapping):
            raise _fail(where, f"{err!r} must be {{code: int, message: text}}")
        code = err.get("code", INTERNAL_ERROR)
        if isinstance(code, bool) or not isinstance(code, int) or "message" not in err:
            raise _fail(where, f"{err!r} must be {{code: int, message: text}}")
        _text(err["message"], where + ".message")

    @classmethod
    def of(cls, value: Any, where: str = "") -> Answer:
        """An answer from data: text, or a mapping of this class's fields."""
        if isinstance(value, Answer):
            return value
        if isinstance(value, str):
            return cls(text=value)
        data = _mapping(value, where)
        _keys(data, [f.name for f in fields(cls)], where)
        for name in ("content", "progress", "log", "notify"):
            if name in data:
                data[name] = _sequence(data[name], f"{where}.{name}" if where else name)
        try:
            return cls(**data)
        except ConfigError as exc:
            raise _fail(where, str(exc)) from None

    def result(self, tool: str) -> dict[str, Any]:
        """The ``CallToolResult`` this answer gives (it has no ``error``)."""
        content = list(self.content)
        if self.text is not None or not content:
            content.insert(
                0, {"type": "text", "text": f"{tool}: ok" if self.text is None else self.text}
            )
        value: dict[str, Any] = {"content": content, "isError": self.is_error}
        if self.structured is not None:
            value["structuredContent"] = self.structured
        return value

    def matches(self, arguments: Mapping[str, Any]) -> bool:
        """True when ``when`` is a subset of ``arguments`` (or there is no ``when``)."""
        return self.when is None or all(
            k in arguments and arguments[k] == v for k, v in self.when.items()
        )

    def to_data(self) -> Any:
        data = _data(self)
        return data["text"] if list(data) == ["text"] else data


def _sequence(value: Any, where: str) -> tuple[Any, ...]:
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Sequence):
        raise _fail(where, f"{value!r} must be a list")
    return tuple(value)


@dataclass(frozen=True)
class Tool:
    """A tool: what ``tools/list`` says of it and how ``tools/call`` answers it."""

    name: str
    description: str = ""
    input_schema: dict[str, Any] = field(default_factory=lambda: {"type": "object"})
    answers: tuple[Answer, ...] = ()

    def __post_init__(self) -> None:
        _text(self.name, "name", empty=False)
        _text(self.description, "description")
        _mapping(self.input_schema, "input_schema")
        answers = _sequence(self.answers, "answers")
        made = tuple(Answer.of(a, f"answers[{i}]") for i, a in enumerate(answers))
        object.__setattr__(self, "answers", made)

    def listing(self) -> dict[str, Any]:
        """The tool as ``tools/list`` gives it."""
        return {
            "name": self.name,
            "description": self.description,
            "inputSchema": self.input_schema,
        }

    def to_data(self) -> dict[str, Any]:
        return {"name": self.name, **_data(self)}


@dataclass(frozen=True)
class Resource:
    """A resource: what ``resources/list`` says of it and what ``resources/read`` reads."""

    uri: str
    text: str = ""
    name: str = ""
    mime_type: str = "text/plain"

    def __post_init__(self) -> None:
        _text(self.uri, "uri", empty=False)
        _text(self.text, "text")
        _text(self.name, "name")
        _text(self.mime_type, "mime_type", empty=False)

    def listing(self) -> dict[str, Any]:
        return {"uri": self.uri, "name": self.name or self.uri, "mimeType": self.mime_type}

    def contents(self) -> dict[str, Any]:
        return {"uri": self.uri, "mimeType": self.mime_type, "text": self.text}

    def to_data(self) -> dict[str, Any]:
        return {"uri": self.uri, **_data(self)}


@dataclass(frozen=True)
class Prompt:
    """A prompt: ``prompts/list`` lists it, ``prompts/get`` gives its one user message,
    ``text`` with ``{argument}`` replaced by the request's arguments."""

    name: str
    text: str = ""
    description: str = ""
    arguments: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _text(self.name, "name", empty=False)
        _text(self.text, "text")
        _text(self.description, "description")
        names = _sequence(self.arguments, "arguments")
        for i, name in enumerate(names):
            _text(name, f"arguments[{i}]", empty=False)
        object.__setattr__(self, "arguments", names)

    def listing(self) -> dict[str, Any]:
        arguments = [{"name": a, "required": True} for a in self.arguments]
        return {"name": self.name, "description": self.description, "arguments": arguments}

    def render(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        text = self.text
        for name in self.arguments:
            text = text.replace("{" + name + "}", str(arguments.get(name, "")))
        message = {"role": "user", "content": {"type": "text", "text": text}}
        return {"description": self.description, "messages": [message]}

    def to_data(self) -> dict[str, Any]:
        return {"name": self.name, **_data(self)}


def _record(cls: type[Any], value: Any, where: str) -> Any:
    """A record of ``cls`` from itself or from data (a mapping of its fields)."""
    if isinstance(value, cls):
        return value
    data = _mapping(value, where)
    _keys(data, [f.name for f in fields(cls)], where)
    try:
        return cls(**data)
    except (ConfigError, TypeError) as exc:
        text = str(exc).replace("__init__() ", "")
        raise _fail(where, text) from None


def records(cls: type[Any], values: Any, where: str) -> tuple[Any, ...]:
    """``values`` (records or their data) as a tuple of ``cls`` records."""
    return tuple(_record(cls, v, f"{where}[{i}]") for i, v in enumerate(_sequence(values, where)))


def tool(
    name: str,
    *,
    description: str = "",
    input_schema: Mapping[str, Any] | None = None,
    answers: Sequence[Answer | str | Mapping[str, Any]] = (),
) -> Tool:
    """A tool named ``name`` whose calls get ``answers`` (see the module's docstring).

    Raises:
        ConfigError: a bad name, schema or answer (the message says which).
    """
    schema = {"type": "object"} if input_schema is None else dict(input_schema)
    return Tool(name, description, schema, tuple(answers))  # type: ignore[arg-type]


def answer(
    text: str | None = None,
    *,
    content: Sequence[Mapping[str, Any]] = (),
    structured: Mapping[str, Any] | None = None,
    is_error: bool = False,
    when: Mapping[str, Any] | None = None,
    progress: Sequence[float] = (),
    log: Sequence[str | Mapping[str, Any]] = (),
    notify: Sequence[str] = (),
) -> Answer:
    """A tool's result: ``text`` (and ``content`` blocks, ``structured`` content), an
    ``isError`` result when ``is_error``; for calls whose arguments include ``when``;
    after ``progress`` values, ``log`` messages and ``notify`` list changes."""
    return Answer(
        text=text,
        content=tuple(dict(b) for b in content),
        structured=None if structured is None else dict(structured),
        is_error=is_error,
        when=None if when is None else dict(when),
        progress=tuple(progress),
        log=tuple(e if isinstance(e, str) else dict(e) for e in log),
        notify=tuple(notify),
    )


def error(
    message: str,
    *,
    code: int = INTERNAL_ERROR,
    data: Any = None,
    when: Mapping[str, Any] | None = None,
) -> Answer:
    """A tool's answer that is a JSON-RPC error (``code``, ``message``, ``data``)."""
    err: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    return Answer(error=err, when=None if when is None else dict(when))


def resource(
    uri: str, text: str = "", *, name: str = "", mime_type: str = "text/plain"
) -> Resource:
    """A resource at ``uri`` whose contents are ``text``."""
    return Resource(uri, text, name, mime_type)


def prompt(
    name: str, text: str = "", *, description: str = "", arguments: Sequence[str] = ()
) -> Prompt:
    """A prompt named ``name``: one user message, ``text`` with ``{argument}`` filled in."""
    return Prompt(name, text, description, tuple(arguments))
