"""Reply kinds: replies built for each request that still have a file form.

A fixed :class:`Reply` answers every request alike; a handler (``Mock.respond_with``)
follows the request but is Python only.  A *reply kind* is between the two: a frozen,
comparable object whose ``build(request)`` makes the reply for one request (echoing the
model the request asked for, say) and whose ``to_args()`` gives its file form, so a mock
answering with it loads from and dumps to a mock file like any other.

In a mock file a kind is a key under ``response``: ``response: {openai_chat: {text: Hi}}``.
The mapping's keys are the parameters of the kind's constructor (read off its signature,
like faults' and matchers'), and a single value instead of a mapping is its first
parameter (``response: {openai_chat: Hi}``).

Rule 1: the core knows no kind by name.  A kind is registered with
:func:`register_reply_kind`; a package that defines kinds declares a module in the
``mockhttp.reply_kinds`` entry-point group whose import registers them, and the first
lookup of an unknown key imports those modules (``mockhttp.llm`` is one).
Rule 2: a kind's ``build`` runs on the server thread for each request, so it must not
block; anything it keeps between calls (a call counter) is excluded from equality.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from importlib import metadata
from typing import Any, ClassVar

from ._errors import ConfigError
from ._reply import Reply
from ._request import Request

__all__ = ["ENTRY_POINT_GROUP", "REPLY_KINDS", "ReplyKind", "register_reply_kind", "reply_kind"]

ENTRY_POINT_GROUP = "mockhttp.reply_kinds"

# The core's own keys under ``response:`` in mock files, which no kind may take.
RESPONSE_KEYS = ("status", "reason", "header", "body", "json", "event_stream", "delay", "pipe")
REPLY_KINDS: dict[str, Callable[..., ReplyKind]] = {}
"""The known kinds by file key (``openai_chat`` → its constructor)."""

_discovered = False
_lock = threading.Lock()


class ReplyKind(ABC):
    """A reply made for each request, with a file form.

    Subclasses set ``file_key`` (their key under ``response:``), and implement ``build``
    and ``to_args`` (the constructor arguments that make an equal object, defaults left
    out).  ``mock.reply(kind)`` answers with ``kind.build(request)``.
    """

    file_key: ClassVar[str]

    @abstractmethod
    def build(self, request: Request) -> Reply:
        """The reply to ``request``."""

    @abstractmethod
    def to_args(self) -> dict[str, Any]:
        """The keyword arguments (JSON values) that rebuild this object."""

    def __call__(self, request: Request) -> Reply:
        return self.build(request)

    def describe(self) -> str:
        """A short summary for messages: ``openai_chat reply``."""
        return f"{self.file_key} reply"


def register_reply_kind(key: str, factory: Callable[..., ReplyKind]) -> None:
    """Make ``factory`` the kind read from ``response: {<key>: ...}`` in mock files.

    Raises:
        ConfigError: ``key`` is not a plain name, or clashes with a response key.
    """
    if not isinstance(key, str) or not key.isidentifier():
        raise ConfigError(f"reply kind key={key!r} must be a name such as 'openai_chat'")
    if key in RESPONSE_KEYS:
        raise ConfigError(f"reply kind key={key!r} is already a response key")
    if not callable(factory):
        raise ConfigError(f"reply kind {key!r} factory={factory!r} must be callable")
    REPLY_KINDS[key] = factory


def reply_kind(key: str) -> Callable[..., ReplyKind] | None:
    """The kind registered under ``key``, importing the entry points' modules once."""
    if key not in REPLY_KINDS:
        discover()
    return REPLY_KINDS.get(key)


def discover() -> None:
    """Import the modules of the ``mockhttp.reply_kinds`` entry points (once)."""
    global _discovered
    with _lock:
        if _discovered:
            return
        _discovered = True
        for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
            entry.load()
