"""Response kinds that subpackages add to mock files (``response: {recording: ...}``).

The core reads ``body``, ``json`` and ``event_stream``; a subpackage that builds its own
``Reply`` subclass registers a key for it here, with how to read the key's value onto the
reply built so far (status, reason, headers) and how to write such a reply back, so its
replies load, validate and round-trip with ``dump`` like the core's.  The core never
imports a subpackage: the subpackage registers itself when it is imported.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .._core._errors import ConfigError
from .._core._reply import Reply
from ._nodes import At

__all__ = ["RESPONSE_KINDS", "ResponseKind", "register_response_kind"]


@dataclass(frozen=True)
class ResponseKind:
    """A response key: ``read(reply, at)`` returns the reply with the key's value (at
    ``at``) applied, failing through ``at`` on bad input; ``write(reply)`` returns the value
    to write under ``key`` for a reply of type ``kind``."""

    key: str
    kind: type[Reply]
    read: Callable[[Reply, At], Reply]
    write: Callable[[Reply], Any]


RESPONSE_KINDS: dict[str, ResponseKind] = {}
_CORE_KEYS = ("status", "reason", "header", "body", "json", "event_stream", "delay", "pipe")


def register_response_kind(kind: ResponseKind) -> None:
    """Add ``kind`` to the mock-file format (registering the same key again replaces it).

    Raises:
        ConfigError: the key is one of the core's response keys.
    """
    if kind.key in _CORE_KEYS:
        raise ConfigError(f"response key {kind.key!r} is the core's; choose another name")
    RESPONSE_KINDS[kind.key] = kind


def kind_of(reply: Reply) -> ResponseKind | None:
    """The registered kind whose type ``reply`` is, if any."""
    for kind in RESPONSE_KINDS.values():
        if isinstance(reply, kind.kind):
            return kind
    return None
