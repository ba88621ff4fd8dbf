"""State a reply kind declares to the server: protocol sessions, tasks, ids it issued.

A reply kind's own rule is that it keeps nothing between calls.  A kind that must (an MCP
server's sessions, an A2A agent's tasks, the response ids a Responses reply streamed)
subclasses :class:`KeptKind`: the server builds its reply with
``build_kept(request, kept)``, and ``kept`` is the server's, next to the scenario states
and the mocks' call counts: in the server in one process, in the supervisor under
``mockhttp serve --workers`` (every worker sees the same sessions).

Rule 1: values are JSON (dicts, lists, text, numbers, booleans, None), so that they may
live in another process; a value read is the kind's to keep or drop, never to change in
place: a change goes through ``update``.
Rule 2: ``update(key, change)`` is atomic: ``change(old)`` returns ``(new, result)`` (new
None: the key is removed) and ``update`` returns ``result``.  It may run more than once
(under ``--workers`` it is retried when another worker changed the key meanwhile), so it
must be pure: no I/O, no clock, the same answer for the same ``old``.
Rule 3: a kind's keys are its own: the server hands each kind ``kept`` scoped to its
``state_key`` (kinds with the same key share their state, on purpose).
Rule 4: pure: ``Memory`` is a plain mapping that its owner reads and writes from one
thread (the server's loop); nothing here locks.
"""

from __future__ import annotations

import itertools
from abc import abstractmethod
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from ._errors import ConfigError
from ._registry import ReplyKind
from ._reply import Reply
from ._request import Request

__all__ = ["Change", "Kept", "KeptKind", "Memory", "R", "Scoped", "registered_key", "test_scope"]

R = TypeVar("R")
Change = Callable[[Any], tuple[Any, R]]


class Kept(Protocol):
    """The server's state for a kind (see the module's rules)."""

    def get(self, key: str) -> Any:
        """The value of ``key`` (None: none)."""

    def update(self, key: str, change: Change[R]) -> R:
        """Atomically: ``new, result = change(old)``; keep ``new``; return ``result``."""


class Memory:
    """Kept state in this process: a version and a value for each key (the versions let
    a keeper elsewhere take a change only if nothing changed the key since it was read)."""

    __slots__ = ("values",)

    def __init__(self) -> None:
        self.values: dict[str, tuple[int, Any]] = {}

    def get(self, key: str) -> Any:
        found = self.values.get(key)
        return None if found is None else found[1]

    def read(self, key: str) -> tuple[int, Any]:
        """``(version, value)`` of ``key`` (``(0, None)``: none yet)."""
        return self.values.get(key, (0, None))

    def put(self, key: str, version: int, value: Any) -> tuple[bool, int, Any]:
        """Keep ``value`` if ``key`` is still at ``version``: ``(True, new version,
        value)``; else ``(False, its version, its value)``, as they are now."""
        now, old = self.read(key)
        if now != version:
            return False, now, old
        if value is None:
            self.values.pop(key, None)
        else:
            self.values[key] = (now + 1, value)
        return True, now + 1, value

    def update(self, key: str, change: Change[R]) -> R:
        version, old = self.read(key)
        new, result = change(old)
        self.put(key, version, new)
        return result

    def clear(self) -> None:
        self.values.clear()

    def clear_under(self, scope: str) -> None:
        """Forget the keys under ``scope`` (a ``Scoped``'s: one test's state, its reset)."""
        prefix = scope + _SEP
        for key in [k for k in self.values if k.startswith(prefix)]:
            del self.values[key]


_SEP = "\x1f"  # between a scope and the keys under it (a separator no kind's key contains)


def test_scope(test: str) -> str:
    """The scope of test ``test``'s kept state (``_server/_tests``): its kinds' keys are
    under it, apart from the shared ones and from every other test's."""
    return "test" + _SEP + test


class Scoped:
    """``kept`` with every key under ``scope`` (Rule 3)."""

    __slots__ = ("kept", "scope")

    def __init__(self, kept: Kept, scope: str) -> None:
        self.kept = kept
        self.scope = scope + _SEP

    def get(self, key: str) -> Any:
        return self.kept.get(self.scope + key)

    def update(self, key: str, change: Change[R]) -> R:
        return self.kept.update(self.scope + key, change)


_REGISTERED = itertools.count(1)


def registered_key(prefix: str) -> str:
    """A new ``state_key`` for a kind being registered (its ``forget``): ``prefix#n``, n
    counting the keys given in this process.  Each registration has state of its own, and
    the workers of ``serve --workers``, which register the same mocks in the same order,
    give a mock the same key (they share its state, Rule 3)."""
    return f"{prefix}#{next(_REGISTERED)}"


class KeptKind(ReplyKind):
    """A reply kind whose state the server keeps (see the module's docstring).

    Subclasses set ``state_key`` (a class or instance attribute: which state is theirs)
    and implement ``build_kept``; ``build`` alone (outside a server) has no state to read.
    """

    __slots__ = ()
    state_key: str

    @abstractmethod
    def build_kept(self, request: Request, kept: Kept) -> Reply:
        """The reply to ``request``, reading and changing the state in ``kept``."""

    def build(self, request: Request) -> Reply:
        raise ConfigError(
            f"{self.describe()} keeps state on the server: register it with server.mock(...) "
            "(a server builds it with build_kept)"
        )
