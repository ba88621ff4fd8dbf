"""Which mocks could match a request's path: an index of the mocks by literal path (pure).

Routing tries the mocks in order until one matches.  With thousands of mocks that is
thousands of tries per request (30 to 60 ms for 20,000), on the server's loop, for every
request that matches late or not at all.  Most mocks name one literal path
(``/v1/items/7``): a request for another path cannot match them, whatever else it
carries.  ``PathIndex.candidates(path)`` gives the entries that could match ``path``, in
their order: those whose literal path it is, and every mock whose path is a template, a
matcher or any path.  Routing them gives the same answer as routing them all
(``tests/core/test_paths.py``).

Rule 1: built once per ordered tuple of entries (the caller keeps it with the tuple);
immutable after that except for its cache of candidate tuples, which only grows (bounded).
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from typing import Generic, TypeVar

from ._route import Entry

__all__ = ["FEW", "PathIndex"]

E = TypeVar("E", bound=Entry)

FEW = 32  # up to this many entries, every request tries them all (no index is worth it)
_CACHED = 4096  # candidate tuples kept, by path (emptied when full)


class PathIndex(Generic[E]):
    """The entries in order, and the ones a request for a given path could match."""

    __slots__ = ("_by_path", "_cache", "_other", "entries")

    def __init__(self, entries: Sequence[E]) -> None:
        self.entries = entries
        by_path: dict[str, list[int]] = {}
        other: list[int] = []
        for at, entry in enumerate(entries):
            path = entry.mock.literal_path
            if path is None:
                other.append(at)
            else:
                by_path.setdefault(path, []).append(at)
        self._by_path = by_path
        self._other = other
        self._cache: dict[str, Sequence[E]] = {}

    def candidates(self, path: str) -> Sequence[E]:
        """The entries a request for ``path`` could match, in their order."""
        if len(self.entries) <= FEW:
            return self.entries
        found = self._cache.get(path)
        if found is None:
            if len(self._cache) >= _CACHED:
                self._cache = {}
            entries = self.entries
            named = self._by_path.get(path, ())
            found = self._cache[path] = tuple(entries[at] for at in heapq.merge(named, self._other))
        return found
