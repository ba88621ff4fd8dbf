"""Prompts (``server/prompts``): listed with their arguments, got as messages.

A prompt's messages are ``text`` (one user message) or ``messages``: ``{role, content}``
with any content block (image, audio, an embedded resource...).  ``prompts/get`` fills
each ``{argument}`` in the messages' text (every string of them, a resource's URI
included) from the request's arguments.  An argument is a name, or ``{name,
description, required, complete}``, where ``complete`` lists the values
``completion/complete`` offers for it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ._asking import check_ask, summary
from ._content import check_block
from ._fields import check_keys, check_mapping, check_sequence, check_text, fail, record_data
from ._resources import check_completions

__all__ = ["ROLES", "Prompt", "prompt"]

ROLES = ("user", "assistant")
_PLACE = re.compile(r"\{([^{}]*)\}")
_ARGUMENT_KEYS = ("name", "description", "required", "complete")


def _argument(value: Any, where: str) -> dict[str, Any]:
    """An argument as data: ``{name, required}`` and what else it has."""
    if isinstance(value, str):
        value = {"name": value}
    data = check_mapping(value, where)
    check_keys(data, _ARGUMENT_KEYS, where)
    check_text(data.get("name"), f"{where}.name", empty=False)
    check_text(data.get("description", ""), f"{where}.description")
    required = data.setdefault("required", True)
    if not isinstance(required, bool):
        raise fail(f"{where}.required", f"{required!r} must be true or false")
    if "complete" in data:
        values = check_completions({"complete": data["complete"]}, where)["complete"]
        data["complete"] = values
    return data


def _message(value: Any, where: str) -> dict[str, Any]:
    data = check_mapping(value, where)
    check_keys(data, ("role", "content"), where)
    if data.get("role") not in ROLES:
        raise fail(f"{where}.role", f"{data.get('role')!r} must be one of {', '.join(ROLES)}")
    return {"role": data["role"], "content": check_block(data.get("content"), f"{where}.content")}


@dataclass(frozen=True)
class Prompt:
    """A prompt: ``prompts/list`` lists it, ``prompts/get`` gives its messages (see the
    module's docstring)."""

    name: str
    text: str = ""
    description: str = ""
    arguments: tuple[str | dict[str, Any], ...] = ()
    messages: tuple[dict[str, Any], ...] = ()
    title: str = ""
    ask: tuple[dict[str, Any], ...] = ()

    def __post_init__(self) -> None:
        check_text(self.name, "name", empty=False)
        for name in ("text", "description", "title"):
            check_text(getattr(self, name), name)
        arguments = check_sequence(self.arguments, "arguments")
        made = tuple(_argument(a, f"arguments[{i}]") for i, a in enumerate(arguments))
        object.__setattr__(self, "arguments", made)
        messages = check_sequence(self.messages, "messages")
        checked = tuple(_message(m, f"messages[{i}]") for i, m in enumerate(messages))
        object.__setattr__(self, "messages", checked)
        if self.text and checked:
            raise fail("messages", "a prompt has text or messages, not both")
        asks = check_sequence(self.ask, "ask")
        object.__setattr__(
            self, "ask", tuple(check_ask(a, f"ask[{i}]") for i, a in enumerate(asks))
        )

    @property
    def argument_list(self) -> tuple[dict[str, Any], ...]:
        """The arguments as data (each a mapping with ``name`` and ``required``)."""
        return tuple(a for a in self.arguments if isinstance(a, dict))

    def listing(self) -> dict[str, Any]:
        arguments = [
            {k: a[k] for k in ("name", "description", "required") if k in a}
            for a in self.argument_list
        ]
        out = {"name": self.name, "description": self.description, "arguments": arguments}
        if self.title:
            out["title"] = self.title
        return out

    def completions(self, argument: str) -> tuple[str, ...]:
        """The values ``completion/complete`` offers for ``argument``."""
        found = next((a for a in self.argument_list if a["name"] == argument), {})
        return tuple(found.get("complete", ()))

    def missing(self, arguments: Mapping[str, Any]) -> list[str]:
        """The required arguments ``arguments`` lacks."""
        return [
            a["name"] for a in self.argument_list if a["required"] and a["name"] not in arguments
        ]

    def render(
        self, arguments: Mapping[str, Any], replies: Sequence[Mapping[str, Any]] = ()
    ) -> dict[str, Any]:
        """The ``GetPromptResult``: the messages with the arguments filled in, and
        ``{reply}`` with the client's answers when the prompt asked it first."""
        values = {a["name"]: str(arguments.get(a["name"], "")) for a in self.argument_list}
        if replies:
            values["reply"] = summary(replies[-1])
            values.update({f"reply[{i}]": summary(r) for i, r in enumerate(replies)})
        messages = self.messages or (
            {"role": "user", "content": {"type": "text", "text": self.text}},
        )
        return {"description": self.description, "messages": _fill(list(messages), values)}

    def to_data(self) -> dict[str, Any]:
        data = record_data(self)
        if self.arguments:
            data["arguments"] = [_argument_data(a) for a in self.argument_list]
        return {"name": self.name, **data}


def _argument_data(argument: Mapping[str, Any]) -> Any:
    if set(argument) == {"name", "required"} and argument["required"]:
        return argument["name"]
    data = dict(argument)
    if "complete" in data:
        data["complete"] = list(data["complete"])
    return data


def _fill(value: Any, values: Mapping[str, str]) -> Any:
    """``value`` with each ``{name}`` of ``values`` filled in, in every string inside."""
    if isinstance(value, str):  # one pass: a value given is put in as it is, never read
        return _PLACE.sub(lambda found: values.get(found[1], found[0]), value)  # as a place
    if isinstance(value, list | tuple):
        return [_fill(v, values) for v in value]
    if isinstance(value, Mapping):
        return {k: _fill(v, values) for k, v in value.items()}
    return value


def prompt(
    name: str,
    text: str = "",
    *,
    description: str = "",
    arguments: Sequence[str | Mapping[str, Any]] = (),
    messages: Sequence[Mapping[str, Any]] = (),
    title: str = "",
    ask: Sequence[Mapping[str, Any]] = (),
) -> Prompt:
    """A prompt named ``name``: one user message ``text``, or ``messages`` (``{role,
    content}`` with any content block), ``{argument}`` filled in; after the client
    answered ``ask`` (``mcp.elicitation(...)``...), quoted as ``{reply}``."""
    return Prompt(
        name,
        text,
        description,
        tuple(a if isinstance(a, str) else dict(a) for a in arguments),
        tuple(dict(m) for m in messages),
        title,
        tuple(dict(a) for a in ask),
    )
