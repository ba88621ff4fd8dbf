"""What the agent refuses in a request's params, as the specification says, in one place.

Each reader takes the params (or a part of them) and returns the value it read, or raises
:class:`Invalid` with the message of the ``-32602`` (invalid params) error to answer with:

- a message needs a non-empty ``messageId``, the user's ``role`` (0.3 ``user``, 1.0
  ``ROLE_USER``; ``ROLE_UNSPECIFIED`` is not one) and at least one part; each part carries
  one content (0.3: its ``kind`` says which: ``text``, ``file``, ``data``; 1.0: exactly
  one of ``text``, ``raw``, ``url``, ``data``);
- ``historyLength`` is an integer, 0 or more (0: no history);
- a task id is a non-empty string.

Pure: no I/O, no state.
"""

from __future__ import annotations

import re
from typing import Any

from ._spec import Version

__all__ = ["Invalid", "camel", "history_length", "message", "task_id", "whole"]

_ROLES = {"0.3": ("user", "agent"), "1.0": ("ROLE_USER", "ROLE_AGENT")}
_CONTENT_1_0 = ("text", "raw", "url", "data")
_KINDS_0_3 = ("text", "file", "data")


_SNAKE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)+$")
_FREE = frozenset({"data", "metadata"})  # JSON the client owns: its keys are left alone


def camel(value: Any) -> Any:
    """1.0's params with proto field names (``message_id``) as their JSON names
    (``messageId``): ProtoJSON parsers take both, and clients send both (the TCK's REST
    client sends the proto names).  The JSON under ``data`` and ``metadata`` is kept."""
    if isinstance(value, list):
        return [camel(item) for item in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for key, item in value.items():
        name = _camelized(key) if isinstance(key, str) and _SNAKE.match(key) else key
        out[name] = item if name in _FREE else camel(item)
    return out


def _camelized(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(word.capitalize() for word in rest)


class Invalid(ValueError):
    """Params the agent refuses: the message of the ``-32602`` error."""


def whole(value: Any, field: str) -> int:
    """A JSON integer (not a boolean, not a fraction)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
        raise Invalid(f"Invalid params: {field} must be an integer, not {value!r}")
    return int(value)


def history_length(holder: Any, field: str = "historyLength") -> int | None:
    """``holder[field]`` as a history length (None: absent, no limit)."""
    value = holder.get(field) if isinstance(holder, dict) else None
    if value is None:
        return None
    number = whole(value, field)
    if number < 0:
        raise Invalid(f"Invalid params: {field} must be 0 or more, not {number}")
    return number


def task_id(params: dict[str, Any], field: str = "id") -> str:
    value = params.get(field)
    if not isinstance(value, str) or not value:
        raise Invalid(f"Invalid params: params.{field} must be a task id (text)")
    return value


def message(value: Any, version: Version) -> dict[str, Any]:
    """The client's message in the neutral form (parts as 1.0 writes them, no ``kind``)."""
    if not isinstance(value, dict):
        raise Invalid("Invalid params: params.message must be a message object")
    message_id = value.get("messageId")
    if not isinstance(message_id, str) or not message_id:
        raise Invalid("Invalid params: params.message.messageId is required (text)")
    role = value.get("role")
    if role not in _ROLES[version]:
        raise Invalid(
            f"Invalid params: params.message.role must be {' or '.join(_ROLES[version])}, "
            f"not {role!r}"
        )
    parts = value.get("parts")
    if not isinstance(parts, list) or not parts:
        raise Invalid("Invalid params: params.message.parts must hold at least one part")
    return {
        "messageId": message_id,
        "role": "user",
        "parts": [_part(p, i, version) for i, p in enumerate(parts)],
    }


def _part(value: Any, index: int, version: Version) -> dict[str, Any]:
    where = f"params.message.parts[{index}]"
    if not isinstance(value, dict):
        raise Invalid(f"Invalid params: {where} must be a part object")
    if version == "0.3":
        kind = value.get("kind")
        if kind not in _KINDS_0_3 or kind not in value:
            raise Invalid(
                f"Invalid params: {where} needs kind ({', '.join(_KINDS_0_3)}) and that field"
            )
        return {k: v for k, v in value.items() if k != "kind"}
    content = [key for key in _CONTENT_1_0 if key in value]
    if len(content) != 1:
        raise Invalid(f"Invalid params: {where} needs exactly one of {', '.join(_CONTENT_1_0)}")
    if content == ["text"] and not isinstance(value["text"], str):
        raise Invalid(f"Invalid params: {where}.text must be text")
    return dict(value)
