"""Big JSON answers read and written a slice at a time (the hub of ``--workers``).

Under ``--workers`` the supervisor's hub reads every worker's answer to an admin request
and writes the merged one (``_workers.py``).  The ``201`` to a POST of 100,000 small mocks
is 21 MiB of JSON: one ``json.loads`` of it held the supervisor's interpreter for 0.5 to
1.7 s (and the state of the mocks that keep one is asked of that process, on the workers'
loops), one ``json.dumps`` of the merge for 0.3 s more.  :func:`loads` reads the lists of
a big JSON object an item at a time, :func:`dumps` writes them so; each item is one short
C call, so other threads run between them.  The values and bytes are those of
``json.loads`` and ``json.dumps(value, separators=(",", ":"))``.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["BIG", "dumps", "loads"]

BIG = 1 << 20  # a shorter text is read in one call
_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")


def loads(raw: bytes) -> Any:
    """``json.loads(raw)``; a big object's values an item at a time when they are lists."""
    if len(raw) < BIG:
        return json.loads(raw)
    text = raw.decode("utf-8")  # (a ValueError when it is not UTF-8, as json.loads says)
    try:
        value = _object(text)
    except (ValueError, RecursionError):
        value = None
    return json.loads(text) if value is None else value


def dumps(value: Any) -> bytes:
    """``json.dumps(value, separators=(",", ":")).encode()``, a big object's lists an item
    at a time."""
    if type(value) is not dict or not all(type(k) is str for k in value):
        return _compact(value).encode()
    parts = (f"{_compact(key)}:{_value(item)}" for key, item in value.items())
    return ("{" + ",".join(parts) + "}").encode()


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _value(value: Any) -> str:
    if type(value) is list:
        return "[" + ",".join(map(_compact, value)) + "]"
    return _compact(value)


def _skip(text: str, at: int) -> int:
    return _SPACE.match(text, at).end()  # type: ignore[union-attr]


def _object(text: str) -> dict[str, Any] | None:
    """The JSON object ``text`` holds, its list values read an item at a time; None when
    it is no object or not read this way (``json.loads`` then reads it, or says why not)."""
    at = _skip(text, 0)
    if not text.startswith("{", at):
        return None
    found: dict[str, Any] = {}
    at = _skip(text, at + 1)
    if text.startswith("}", at):
        return None
    while True:
        if not text.startswith('"', at):
            return None
        key, at = _DECODER.raw_decode(text, at)
        at = _skip(text, at)
        if not text.startswith(":", at):
            return None
        at = _skip(text, at + 1)
        found[key], at = _list(text, at) if text.startswith("[", at) else _one(text, at)
        at = _skip(text, at)
        if text.startswith(",", at):
            at = _skip(text, at + 1)
        elif text.startswith("}", at) and not text[at + 1 :].strip(" \t\n\r"):
            return found
        else:
            return None


def _one(text: str, at: int) -> tuple[Any, int]:
    value, end = _DECODER.raw_decode(text, at)
    return value, end


def _list(text: str, at: int) -> tuple[list[Any], int]:
    """The list at ``text[at]`` (a ``[``), read an item at a time, and where it ends."""
    items: list[Any] = []
    at = _skip(text, at + 1)
    if text.startswith("]", at):
        return items, at + 1
    while True:
        item, at = _DECODER.raw_decode(text, at)
        items.append(item)
        at = _skip(text, at)
        if text.startswith(",", at):
            at = _skip(text, at + 1)
        elif text.startswith("]", at):
            return items, at + 1
        else:
            raise ValueError("not a JSON list")
