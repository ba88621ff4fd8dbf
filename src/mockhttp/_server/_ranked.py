"""The mocks registered on a server, in the order they are tried.

Writers (test threads, the admin worker) change them under the server's lock; the loop
thread reads :meth:`Ranked.snapshot` without taking any lock.  A change costs O(1) (plus
O(log n) for the bookkeeping dicts): it publishes a new immutable ``_Version`` that links
the change to those made since the last sorted tuple.  The sorted tuple is rebuilt by the
first reader after a change (a copy of the tuple, and a binary search per mock added or
removed; past ``_FEW`` of them, one sort, which finds the already sorted runs), then read
for free until the next change.  A burst of N adds or removes so costs O(N log N) in all,
and a reader O(1) when nothing changed.  :meth:`Ranked.index` is the index by path of
that tuple (``_core._paths``), built by the first reader too; after a big batch both are
built by the writer (the admin thread), so the loop's next request does not (100,000
mocks: 0.24 s).  A chain of changes no reader has caught up with (a test thread changing
mocks in a loop while the loop thread waits for the interpreter) is folded into a sorted
tuple by the writer once it holds more than ``max(_FEW, n // 4)`` changes: it never
grows without bound, and neither does a read (amortised O(log n) a change).
"""

from __future__ import annotations

import bisect
import itertools
import threading
from collections.abc import Callable, Sequence
from typing import NamedTuple

from .._core._errors import ConfigError
from .._core._mock import Mock, as_mock
from .._core._paths import PathIndex
from ._verify import ActiveMock, Registry

__all__ = ["Ranked", "mocks_of"]

_FEW = 32  # up to this many changes are merged into the sorted tuple by binary search


class _Step(NamedTuple):
    """One change: mocks added and removed at once, and the change made before it."""

    added: tuple[ActiveMock, ...]
    removed: tuple[ActiveMock, ...]
    before: _Step | None
    depth: int  # how many changes the chain holds, this one included


class _Version(NamedTuple):
    """A state of the registry: a sorted tuple and the changes made since (newest first)."""

    base: tuple[ActiveMock, ...]
    last: _Step | None


class Ranked:
    """The registered mocks: the highest priority first, then the most recently added."""

    def __init__(self, numbers: Callable[[], int] | None = None) -> None:
        self._version = _Version((), None)
        # (the version it was built for, its sorted tuple): the cache readers share
        self._built: tuple[_Version, tuple[ActiveMock, ...]] = (self._version, ())
        self._members: dict[int, ActiveMock] = {}  # by id (``ActiveMock.id``)
        self._names: dict[str, dict[int, ActiveMock]] = {}  # by name, then id
        self._replies: dict[int, int] = {}  # id(reply) -> how many members give it
        self._indexed: PathIndex[ActiveMock] = PathIndex(())  # of the last tuple indexed
        self.lock = threading.Lock()  # the writers' (test threads, the admin worker)
        # told after each change, once it is published (the fast lane forgets: ``_lane``)
        self.on_change: Callable[[], None] | None = None
        # the numbers of the mocks added (``ActiveMock.id``): a server's tests share its own
        # (``_tests``), so that a number names one mock on the whole server
        self._numbers = numbers or itertools.count(1).__next__

    def add(self, mocks: Sequence[Mock], server: Registry) -> list[ActiveMock]:
        """Register ``mocks`` on ``server`` in one step, in O(1) each (a new mock ranks
        first among its priority; the tuple is brought up to date when next read)."""
        with self.lock:
            added = []
            for mock in mocks:
                added.append(ActiveMock(mock, server, self._numbers()))
            self.change(added, ())
        return added

    def swap(
        self, old: Sequence[ActiveMock], new: Sequence[Mock], server: Registry
    ) -> tuple[list[ActiveMock], set[int]]:
        """``old`` go, ``new`` come where they ranked, at once; the new mocks' handles and
        the ids of the replies no mock gives any more."""
        with self.lock:
            base = min((a._rank for a in old), default=0.0)
            created = []
            for i, mock in enumerate(new, 1):
                active = ActiveMock(mock, server, self._numbers())
                active._rank = base + i / (len(new) + 1)
                created.append(active)
            return created, self.change(created, old)

    def snapshot(self) -> tuple[ActiveMock, ...]:
        """The mocks in the order they are tried, as of now; lock-free."""
        built = self._built
        version = self._version
        if built[0] is version:
            return built[1]
        ordered = _rebuild(version)
        self._built = (version, ordered)  # a racing reader may store an older one: rebuilt
        return ordered

    def index(self, snapshot: tuple[ActiveMock, ...]) -> PathIndex[ActiveMock]:
        """The index by path of ``snapshot`` (a tuple ``snapshot()`` gave); lock-free."""
        indexed = self._indexed
        if indexed.entries is not snapshot:
            indexed = self._indexed = PathIndex(snapshot)  # (a racing reader: built twice)
        return indexed

    def __len__(self) -> int:
        return len(self._members)

    def get(self, mock_id: int) -> ActiveMock | None:
        """The registered mock numbered ``mock_id`` (``ActiveMock.id``); lock-free."""
        return self._members.get(mock_id)

    def named(self, name: str) -> list[ActiveMock]:
        """The registered mocks named ``name``, the first tried first; lock-free, O(1) for
        a name at most one mock has (the admin API's checks and lookups by name)."""
        found = list(self._names.get(name, {}).values())
        return sorted(found, key=order) if len(found) > 1 else found

    def gives(self, reply_id: int) -> bool:
        """Whether a registered mock answers with the reply whose ``id()`` this is."""
        return reply_id in self._replies

    def change(self, added: Sequence[ActiveMock], removed: Sequence[ActiveMock]) -> set[int]:
        """Register ``added`` and unregister ``removed`` (those registered) in one step;
        the ids of replies no registered mock gives any more.  Under the server's lock."""
        gone = []
        for active in removed:
            if self._members.get(active.id) is active:
                del self._members[active.id]
                gone.append(active)
                self._unname(active)
        for active in added:
            self._members[active.id] = active
            if active.mock.name is not None:
                self._names.setdefault(active.mock.name, {})[active.id] = active
            key = id(active.mock.response)
            self._replies[key] = self._replies.get(key, 0) + 1
        dropped = set()
        for active in gone:
            key = id(active.mock.response)
            left = self._replies[key] - 1
            if left:
                self._replies[key] = left
            else:
                del self._replies[key]
                dropped.add(key)
        if added or gone:
            self._publish(tuple(added), tuple(gone))
        return dropped

    def clear(self) -> set[int]:
        """Unregister every mock; the ids of the replies they gave.  Under the lock."""
        dropped = set(self._replies)
        self._members = {}
        self._names = {}
        self._replies = {}
        self._version = _Version((), None)
        if self.on_change is not None:
            self.on_change()
        return dropped

    def _unname(self, active: ActiveMock) -> None:
        name = active.mock.name
        if name is None:
            return
        same = self._names.get(name, {})
        same.pop(active.id, None)
        if not same:
            self._names.pop(name, None)

    def _publish(self, added: tuple[ActiveMock, ...], removed: tuple[ActiveMock, ...]) -> None:
        built = self._built
        version = self._version
        base, last = (built[1], None) if built[0] is version else version
        depth = 1 if last is None else last.depth + 1
        self._version = _Version(base, _Step(added, removed, last, depth))
        if depth > max(_FEW, len(self._members) // 4):
            # no reader has caught up for that many changes (a writer in a loop while the
            # loop thread waits for the interpreter): fold them in here, so no reader walks
            # a chain that keeps growing (each read was longer than the last: quadratic)
            ordered = _rebuild(self._version)
            self._version = _Version(ordered, None)
            self._built = (self._version, ordered)
        changes = len(added) + len(removed)
        if changes > _FEW and 8 * changes >= len(self._members):
            self.index(self.snapshot())  # a big batch (an admin POST): here, not on the loop
        if self.on_change is not None:
            self.on_change()


def order(active: ActiveMock) -> tuple[int, float]:
    """Where a mock is tried: the highest priority first, then the newest."""
    return (-active.mock.priority, -active._rank)


def _rebuild(version: _Version) -> tuple[ActiveMock, ...]:
    """The sorted tuple of ``version``: its base with the changes since applied."""
    steps = []
    step = version.last
    while step is not None:
        steps.append(step)
        step = step.before
    if not steps:
        return version.base
    steps.reverse()  # oldest first: among equal ranks, mocks added earlier stay first
    added = [a for s in steps for a in s.added]
    removed = [a for s in steps for a in s.removed]
    ordered = list(version.base)
    if removed:
        gone = {id(a) for a in removed}
        added = [a for a in added if id(a) not in gone]
        if len(removed) <= _FEW:
            for active in removed:
                _take_out(ordered, active)
        else:
            ordered = [a for a in ordered if id(a) not in gone]
    if len(added) <= _FEW:
        for active in added:
            bisect.insort(ordered, active, key=order)  # after equal ranks, as before
    else:
        ordered.extend(added)
        ordered.sort(key=order)  # stable: the base first among equal ranks
    return tuple(ordered)


def _take_out(ordered: list[ActiveMock], active: ActiveMock) -> None:
    """Remove ``active`` from the sorted ``ordered`` if it is there (binary search)."""
    key = order(active)
    i = bisect.bisect_left(ordered, key, key=order)
    while i < len(ordered) and order(ordered[i]) == key:
        if ordered[i] is active:
            del ordered[i]
            return
        i += 1


def mocks_of(items: Sequence[object]) -> list[Mock]:
    """``items`` as mocks (a reply kind that stands alone as its own mock).

    Raises:
        ConfigError: an item is not a mock.
    """
    mocks = [as_mock(m) for m in items]
    for mock in mocks:
        if not isinstance(mock, Mock):
            raise ConfigError(f"mock={mock!r} must be a Mock (mockhttp.get(...), ...)")
    return mocks
