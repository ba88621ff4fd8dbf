"""Rules as data: a ``Rule`` names its id, severity, documentation and finder function."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from .._core._sse_decode import Message
from ._finding import Severity
from ._stream import Stream

__all__ = ["Hit", "Rule", "hit", "json_terms", "short"]


@dataclass(frozen=True, slots=True)
class Hit:
    """What a finder returns; ``check`` turns it into a ``Finding`` with the rule's id."""

    message: str
    event: int | None = None
    offset: int | None = None
    severity: Severity | None = None  # None: the rule's own severity


@dataclass(frozen=True, slots=True)
class Rule:
    """One contract rule.

    Attributes:
        id: stable id, ``<area>.<name>`` (``http.status``, ``openai.done``, ...).
        severity: the severity of what it finds (a finder may lower it for one hit).
        checks: what it checks, one sentence (docs/contract.md is generated from these).
        why: why clients depend on it.
        differs: which providers are known to differ (``Q-*`` ids from docs/wire-format.md).
        find: the pure function that looks for it in a decoded stream.
        always: run even when there is no stream to check (transport and status rules).
        needs_response: skipped ("not checked") when no response arrived at all: a status
            or a content type that never came cannot pass.
    """

    id: str
    severity: Severity
    checks: str
    why: str
    differs: str
    find: Callable[[Stream], Iterable[Hit]]
    always: bool = False
    needs_response: bool = True


def hit(message: Message, text: str, severity: Severity | None = None) -> Hit:
    """A hit located at ``message`` (its event index and byte offset)."""
    return Hit(text, message.index, message.offset, severity)


def short(value: object, limit: int = 60) -> str:
    """``value`` in JSON terms (``"text"``, ``null``, ``{"a": 1}``; bytes as the JSON string
    of their UTF-8 text) cut to ``limit`` characters, for quoting wire data in messages.
    A long text or bytes is cut before it is quoted (a 64 MiB body is not copied twice
    to show 60 characters of it): the quote of the start is the start of the quote."""
    if isinstance(value, str) and len(value) > limit:
        value = value[:limit]
    elif isinstance(value, (bytes, bytearray, memoryview)) and len(value) > 4 * limit:
        value = bytes(value[: 4 * limit])  # at least `limit` characters of UTF-8
    text = json_terms(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def json_terms(value: object) -> str:
    """``value`` as JSON shows it: reports speak the wire's language, not Python's."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        value = bytes(value).decode("utf-8", "backslashreplace")
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):  # not JSON data: its text, quoted
        return json.dumps(str(value), ensure_ascii=False)
