"""What a mock MCP server offers: tools with scripted answers, resources and prompts.

Each is a frozen record built in Python (``tool("get_weather", answers=[...])``) or from a
mock file's data (``{name: get_weather, answers: [...]}``); ``to_data()`` gives that data
back (defaults left out), so a mock round-trips through its file form.

A tool's answers are tried in order: the answers whose ``when`` is a subset of the call's
arguments are the call's candidates (when none is, the answers without ``when``), and the
n-th call with the same candidates gets the n-th of them (the last one repeats).  An
answer is a result (``text`` or ``content`` blocks, ``structured`` content, ``is_error``)
or a JSON-RPC ``error``; it may send ``progress``, ``log`` and ``notify`` notifications
before it, and ``ask`` the client first (see :mod:`mockhttp.mcp._asking`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from .._core._errors import ConfigError
from ._asking import check_ask
from ._content import check_block
from ._fields import (
    check_keys,
    check_mapping,
    check_sequence,
    check_text,
    fail,
    record_data,
)
from ._spec import INTERNAL_ERROR, LIST_CHANGED, LOG_LEVELS

__all__ = ["Answer", "Tool", "answer", "error", "tool"]


@dataclass(frozen=True)
class Answer:
    """One scripted answer of a tool (see the module's docstring)."""

    text: str | None = None
    content: tuple[dict[str, Any], ...] = ()
    structured: dict[str, Any] | None = None
    is_error: bool = False
    error: dict[str, Any] | None = None
    when: dict[str, Any] | None = None
    progress: tuple[float | dict[str, Any], ...] = ()
    log: tuple[str | dict[str, Any], ...] = ()
    notify: tuple[str, ...] = ()
    ask: tuple[dict[str, Any], ...] = ()

    def __post_init__(self) -> None:
        self._check("")
        asks = tuple(check_ask(a, f"ask[{i}]") for i, a in enumerate(self.ask))
        object.__setattr__(self, "ask", asks)

    def _check(self, where: str) -> None:
        at = (where + ".") if where else ""
        if self.text is not None:
            check_text(self.text, at + "text")
        for i, block in enumerate(self.content):
            check_block(block, f"{at}content[{i}]")
        if self.error is not None:
            self._check_error(at + "error")
        for i, value in enumerate(self.progress):
            number = value.get("progress") if isinstance(value, Mapping) else value
            if isinstance(number, bool) or not isinstance(number, int | float):
                text = f"{value!r} must be a number or {{progress, total, message}}"
                raise fail(f"{at}progress[{i}]", text)
        for i, entry in enumerate(self.log):
            level = entry.get("level", "info") if isinstance(entry, Mapping) else "info"
            if not isinstance(entry, str | Mapping) or level not in LOG_LEVELS:
                raise fail(f"{at}log[{i}]", f"{entry!r} must be text or {{level, data}}")
        for i, name in enumerate(self.notify):
            if name not in LIST_CHANGED:
                raise fail(f"{at}notify[{i}]", f"{name!r} must be one of {', '.join(LIST_CHANGED)}")

    def _check_error(self, where: str) -> None:
        err = self.error or {}
        if not isinstance(err, Mapping):
            raise fail(where, f"{err!r} must be {{code: int, message: text}}")
        code = err.get("code", INTERNAL_ERROR)
        if isinstance(code, bool) or not isinstance(code, int) or "message" not in err:
            raise fail(where, f"{err!r} must be {{code: int, message: text}}")
        check_text(err["message"], where + ".message")

    @classmethod
    def of(cls, value: Any, where: str = "") -> Answer:
        """An answer from data: text, or a mapping of this class's fields."""
        if isinstance(value, Answer):
            return value
        if isinstance(value, str):
            return cls(text=value)
        data = check_mapping(value, where)
        check_keys(data, [f.name for f in fields(cls)], where)
        for name in ("content", "progress", "log", "notify", "ask"):
            if name in data:
                data[name] = check_sequence(data[name], f"{where}.{name}" if where else name)
        try:
            return cls(**data)
        except ConfigError as exc:
            raise fail(where, str(exc)) from None

    def result(self, tool: str) -> dict[str, Any]:
        """The ``CallToolResult`` this answer gives (it has no ``error``)."""
        content = list(self.content)
        if self.text is not None or not content:
            text = self.text
            if text is None:  # structured content is also sent as text (the spec's SHOULD)
                text = f"{tool}: ok" if self.structured is None else json.dumps(self.structured)
            content.insert(0, {"type": "text", "text": text})
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
        data = record_data(self)
        return data["text"] if list(data) == ["text"] else data


@dataclass(frozen=True)
class Tool:
    """A tool: what ``tools/list`` says of it and how ``tools/call`` answers it."""

    name: str
    description: str = ""
    input_schema: dict[str, Any] = field(default_factory=lambda: {"type": "object"})
    answers: tuple[Answer, ...] = ()
    output_schema: dict[str, Any] | None = None
    title: str = ""
    annotations: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        check_text(self.name, "name", empty=False)
        check_text(self.description, "description")
        check_text(self.title, "title")
        check_mapping(self.input_schema, "input_schema")
        for name in ("output_schema", "annotations"):
            if getattr(self, name) is not None:
                check_mapping(getattr(self, name), name)
        answers = check_sequence(self.answers, "answers")
        made = tuple(Answer.of(a, f"answers[{i}]") for i, a in enumerate(answers))
        object.__setattr__(self, "answers", made)

    def listing(self) -> dict[str, Any]:
        """The tool as ``tools/list`` gives it."""
        out: dict[str, Any] = {"name": self.name, "description": self.description}
        if self.title:
            out["title"] = self.title
        out["inputSchema"] = self.input_schema
        if self.output_schema is not None:
            out["outputSchema"] = self.output_schema
        if self.annotations is not None:
            out["annotations"] = self.annotations
        return out

    def to_data(self) -> dict[str, Any]:
        return {"name": self.name, **record_data(self)}


def tool(
    name: str,
    *,
    description: str = "",
    input_schema: Mapping[str, Any] | None = None,
    answers: Sequence[Answer | str | Mapping[str, Any]] = (),
    output_schema: Mapping[str, Any] | None = None,
    title: str = "",
    annotations: Mapping[str, Any] | None = None,
) -> Tool:
    """A tool named ``name`` whose calls get ``answers`` (see the module's docstring);
    ``output_schema`` declares the ``structured`` content its answers give.

    Raises:
        ConfigError: a bad name, schema or answer (the message says which).
    """
    schema = {"type": "object"} if input_schema is None else dict(input_schema)
    return Tool(
        name,
        description,
        schema,
        tuple(answers),  # type: ignore[arg-type]
        None if output_schema is None else dict(output_schema),
        title,
        None if annotations is None else dict(annotations),
    )


def answer(
    text: str | None = None,
    *,
    content: Sequence[Mapping[str, Any]] = (),
    structured: Mapping[str, Any] | None = None,
    is_error: bool = False,
    when: Mapping[str, Any] | None = None,
    progress: Sequence[float | Mapping[str, Any]] = (),
    log: Sequence[str | Mapping[str, Any]] = (),
    notify: Sequence[str] = (),
    ask: Sequence[Mapping[str, Any]] = (),
) -> Answer:
    """A tool's result: ``text`` (and ``content`` blocks, ``structured`` content), an
    ``isError`` result when ``is_error``; for calls whose arguments include ``when``;
    after ``progress`` values, ``log`` messages and ``notify`` list changes, and after
    the client answered each of ``ask`` (``mcp.sampling(...)``, ``mcp.elicitation(...)``,
    ``mcp.roots()``), whose answers ``text`` may quote as ``{reply}``."""
    return Answer(
        text=text,
        content=tuple(dict(b) for b in content),
        structured=None if structured is None else dict(structured),
        is_error=is_error,
        when=None if when is None else dict(when),
        progress=tuple(p if isinstance(p, int | float) else dict(p) for p in progress),
        log=tuple(e if isinstance(e, str) else dict(e) for e in log),
        notify=tuple(notify),
        ask=tuple(dict(a) for a in ask),
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
