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

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from importlib import metadata
from typing import Any, ClassVar, Generic, TypeVar

from ._errors import ConfigError, UnknownNameError
from ._reply import Reply
from ._request import Request

__all__ = [
    "ENTRY_POINT_GROUP",
    "REPLY_KINDS",
    "Registry",
    "ReplyKind",
    "register_reply_kind",
    "reply_kind",
]

T = TypeVar("T")


class Registry(Generic[T]):
    """A named set (faults, matchers, reply kinds, quirks, providers...): names to items.

    Every named set of mockhttp is one of these, so every lookup fails alike: ``get`` of an
    unknown name raises :class:`UnknownNameError` (a ``ConfigError``) that says what kind
    of name it was, the closest known one ("did you mean") and the known ones.  A registry
    with an entry-point ``group`` imports that group's modules the first time a name is
    missing or the names are listed, so installed packages add names without an import
    of their own.  Reads are a dict lookup: registries are filled at import time.
    """

    __slots__ = ("_discovered", "_items", "group", "what")

    def __init__(self, what: str, items: Mapping[str, T] | None = None, group: str = "") -> None:
        self.what = what
        self.group = group
        self._items: dict[str, T] = dict(items or {})
        self._discovered = not group

    def add(self, name: str, item: T) -> T:
        """Register ``item`` under ``name`` (the same name again replaces it); returns it."""
        if not isinstance(name, str) or not name:
            raise ConfigError(f"a {self.what} name must be a non-empty string, not {name!r}")
        self._items[name] = item
        return item

    def get(self, name: str) -> T:
        """The item named ``name``.

        Raises:
            UnknownNameError: no such name (with the closest known one, if any).
        """
        item = self.find(name)
        if item is None:
            raise UnknownNameError(self.what, name, self.names())
        return item

    def find(self, name: object) -> T | None:
        """The item named ``name``, or None."""
        if not isinstance(name, str):
            return None
        item = self._items.get(name)
        if item is None and not self._discovered:
            self.discover()
            item = self._items.get(name)
        return item

    def names(self) -> tuple[str, ...]:
        """The known names, in registration order (entry points discovered first)."""
        self.discover()
        return tuple(self._items)

    def discover(self) -> None:
        """Import the modules of this registry's entry-point group (once)."""
        if self._discovered:
            return
        self._discovered = True
        for entry in metadata.entry_points(group=self.group):
            entry.load()

    def __contains__(self, name: object) -> bool:
        return self.find(name) is not None

    def __getitem__(self, name: str) -> T:
        return self.get(name)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self.names())

    def keys(self) -> tuple[str, ...]:
        return self.names()

    def values(self) -> tuple[T, ...]:
        self.discover()
        return tuple(self._items.values())

    def items(self) -> tuple[tuple[str, T], ...]:
        self.discover()
        return tuple(self._items.items())

    def __repr__(self) -> str:
        return f"<Registry of {self.what}s: {', '.join(self._items)}>"


ENTRY_POINT_GROUP = "mockhttp.reply_kinds"

# The core's own keys under ``response:`` in mock files, which no kind may take.
RESPONSE_KEYS = ("status", "reason", "header", "body", "json", "event_stream", "delay", "pipe")
REPLY_KINDS: dict[str, Callable[..., ReplyKind]] = {}
"""The known kinds by file key (``openai_chat`` → its constructor)."""

_discovered = False


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
    if _discovered:
        return
    _discovered = True  # before loading: a module that looks a kind up does not recurse
    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
        entry.load()
