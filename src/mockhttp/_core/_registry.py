"""Named sets (:class:`Registry`) and the one extension of replies (:class:`ReplyKind`).

A :class:`Registry` maps names to items with one lookup and one error style; every named
set of mockhttp is one (faults, matchers, reply kinds, variants, quirks, providers...).

A fixed :class:`Reply` answers every request alike; a handler (``Mock.respond_with``)
follows the request but is Python only.  A *reply kind* is a reply with a key of its own
under ``response:`` in mock files: ``response: {openai_chat: {text: Hi}}``.  The key's
mapping holds the parameters of the kind's factory (read off its signature, like faults'
and matchers'), and a single value instead of a mapping is its first parameter
(``response: {openai_chat: Hi}``).  One flag tells the two sorts apart:

- ``composes = False`` (``openai_chat``): the kind builds the whole reply, per request
  (``build(request)``); ``status``, ``header`` and ``delay`` do not go with its key.
  ``mock.reply(kind)`` keeps it in ``mock.kind``.
- ``composes = True`` (``recording``): the kind is a :class:`Reply` subclass whose body is
  its own; ``status``, ``reason``, ``header`` and ``delay`` under ``response:`` compose
  with it.  Its factory takes the reply they make as its first argument.

Either writes its file form with ``to_args()`` (JSON values; ``_mockfile._forms``' style
markers for flow lists or quoted text).

A kind may also stand on its own (``standalone = True``, ``llm.conversation``): it knows the
requests it answers (``own_mock()``, the mock ``server.mock(kind)`` registers), and in mock
files its key stands at the top of a mock in place of ``response:`` (``conversation: [...]``),
a ``request:`` beside it narrowing the kind's own mock.

Rule 1: the core knows no kind by name.  A kind is registered with
:func:`register_reply_kind`; a package that defines kinds declares a module in the
``mockhttp.reply_kinds`` entry-point group whose import registers them, and the first
lookup of an unknown key imports those modules (``mockhttp.llm``, ``mockhttp.record._file``).
Rule 2: a kind's ``build`` runs on the server thread for each request, so it must not
block; anything it keeps between calls (a call counter) is excluded from equality.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from importlib import metadata
from typing import Any, ClassVar, Generic, TypeVar

from ._errors import ConfigError, UnknownNameError
from ._reply import Reply
from ._request import Request

__all__ = [
    "ENTRY_POINT_GROUP",
    "REPLY_KINDS",
    "RESPONSE_KEYS",
    "KindEntry",
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

    def remove(self, name: str) -> None:
        """Forget ``name`` (a test's own registration); an unknown name is no error."""
        self._items.pop(name, None)

    def get(self, name: object) -> T:
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

RESPONSE_KEYS = ("status", "reason", "header", "body", "json", "event_stream", "delay", "pipe")
"""The core's own keys under ``response:`` in mock files, which no reply kind may take."""


class ReplyKind(ABC):
    """A reply with a key of its own in mock files (see the module's docstring).

    Subclasses set ``file_key`` (their key under ``response:``) and ``composes``, and
    implement ``build`` and ``to_args`` (the factory's arguments that make an equal
    object, defaults left out).  ``mock.reply(kind)`` answers with ``kind.build(request)``.
    """

    __slots__ = ()
    file_key: ClassVar[str]
    composes: ClassVar[bool] = False
    standalone: ClassVar[bool] = False

    @abstractmethod
    def build(self, request: Request) -> Reply:
        """The reply to ``request``."""

    @abstractmethod
    def to_args(self) -> dict[str, Any]:
        """The keyword arguments (JSON values) that rebuild this object."""

    def __call__(self, request: Request) -> Reply:
        return self.build(request)

    def own_mock(self) -> Any:
        """The :class:`~mockhttp.Mock` that answers with this kind on its own, for a
        ``standalone`` kind (the requests it knows it answers); None for the others.
        (Typed ``Any``: ``_mock`` imports this module.)"""
        return None

    def describe(self) -> str:
        """A short summary for messages: ``openai_chat reply``."""
        return f"{self.file_key} reply"

    def forget(self) -> None:  # noqa: B027 (a hook: most kinds count nothing)
        """Forget what the kind counted of past requests, if anything: called when its mock
        is registered and when the server's journal is cleared (a conversation's error
        turns with ``times``)."""


@dataclass(frozen=True)
class KindEntry:
    """A registered reply kind: its key, its factory, whether it composes and whether it
    stands on its own (a top-level key of a mock in files)."""

    key: str
    make: Callable[..., Any]
    composes: bool
    standalone: bool = False


REPLY_KINDS: Registry[KindEntry] = Registry("reply kind", group=ENTRY_POINT_GROUP)
"""The known kinds by file key (``openai_chat`` → its entry), entry points discovered."""


def register_reply_kind(
    key: str,
    factory: Callable[..., Any],
    *,
    composes: bool | None = None,
    standalone: bool | None = None,
) -> None:
    """Make ``factory`` the kind read from ``response: {<key>: ...}`` in mock files.

    ``composes`` defaults to the factory's own ``composes`` attribute (a
    :class:`ReplyKind` subclass has one; False otherwise).  A composing factory gets the
    reply of ``status``, ``reason``, ``header`` and ``delay`` as its first argument.

    Raises:
        ConfigError: ``key`` is not a plain name, or clashes with a response key.
    """
    named = isinstance(key, str) and key.replace("-", "_").isidentifier()
    if not named or key.startswith("-") or key.endswith("-"):  # a name, or a-hyphenated-one
        raise ConfigError(f"reply kind key={key!r} must be a name such as 'openai_chat'")
    if key in RESPONSE_KEYS:
        raise ConfigError(f"reply kind key={key!r} is already a response key")
    if not callable(factory):
        raise ConfigError(f"reply kind {key!r} factory={factory!r} must be callable")
    flag = bool(getattr(factory, "composes", False)) if composes is None else composes
    alone = bool(getattr(factory, "standalone", False)) if standalone is None else standalone
    if flag and alone:
        raise ConfigError(f"reply kind {key!r} cannot both compose and stand alone")
    REPLY_KINDS.add(key, KindEntry(key, factory, flag, alone))


def reply_kind(key: str) -> KindEntry | None:
    """The kind registered under ``key`` (importing the entry points' modules once)."""
    return REPLY_KINDS.find(key)
