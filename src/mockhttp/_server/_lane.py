"""The fast lane: routed answers kept for the requests they will answer again.

Most requests a test server gets are the same few requests over and over, answered by a
fixed reply that is written in one call (a ``Whole``).  When the route says such an
answer depends on nothing but the method and target (``_core._route.by_target``: a
stateless, fixed, fault-free mock that matches on the target alone, and no mock before
it that could match that target), the server keeps it here under the request's method,
target, HTTP version and keep-alive: a ``Hit``, which is a plan kind.  The server
answers another request of that key without a body (``Server._serve``) with the kept
``Hit``, the call journaled as a compact entry (``_journal.Kept``), with no
``Request``, ``Call``, route or framing built for it: the same entry, counts and bytes
as the long way gives (``tests/server/test_lane.py`` checks both ways give equal
journals).  The connection starts it as it starts any plan, in its turn.

Rule 1: loop thread only.  Rule 2: kept answers hold for one snapshot of the mocks
(``Ranked.snapshot()``): any change to the mocks empties the lane.  An ``on_call_end``
callback (``mockhttp serve`` logs each call with one) gets the call read back from its
compact entry, as a test reading the journal would.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._journal import Call, Kept
from ._runner import Line, Steps, Whole

if TYPE_CHECKING:
    from ._verify import ActiveMock

__all__ = ["SIZE", "Hit", "Key", "Lane"]

SIZE = 4096  # keys seen (and answers kept): emptied when full (a client walking targets)

#: method, target, HTTP version, keep-alive
Key = tuple[str, str, str, bool]


class Hit:
    """A kept answer, a plan: the mock that gives it, the bytes and what the journal
    records."""

    __slots__ = ("active", "entry", "whole")

    def __init__(
        self,
        active: ActiveMock,
        key: Key,
        status: int,
        params: tuple[tuple[str, str], ...],
        whole: Whole,
    ) -> None:
        self.active = active
        self.entry = Kept(active.mock, key[:3], status, params, whole)
        self.whole = whole

    def start(self, conn: Line, call: Call | None, keep_alive: bool) -> None:
        """Write the kept bytes (the call was journaled when the hit was taken); on a
        paused connection they wait on a runner, as a ``Whole``'s do."""
        transport = conn.transport
        if conn.paused or transport is None:
            Steps(iter(self.whole.steps)).start(conn, None, keep_alive)
            return
        transport.write(self.whole.data)
        conn.done(keep_alive)


class Lane:
    """Kept answers by ``Key``, for one snapshot of the mocks."""

    __slots__ = ("_for", "_hits", "_seen")

    def __init__(self) -> None:
        self._hits: dict[Key, Hit] = {}
        # keys seen once: an answer is kept the second time (a target asked once, such
        # as one with a different query each time, leaves no object to collect)
        self._seen: set[Key] = set()
        self._for: Any = None  # the snapshot the kept answers hold for

    def again(self, key: Key, snapshot: object) -> bool:
        """Whether ``key`` was seen before while the mocks are ``snapshot`` (and note it)."""
        if snapshot is not self._for or len(self._seen) >= SIZE:
            self._renew(snapshot)
        if key in self._seen:
            return True
        self._seen.add(key)
        return False

    def get(self, key: Key, snapshot: object) -> Hit | None:
        """The answer kept for ``key`` while the mocks are ``snapshot``, or None."""
        if snapshot is not self._for:
            self._renew(snapshot)
            return None
        return self._hits.get(key)

    def learn(self, key: Key, snapshot: object, hit: Hit) -> None:
        """Keep ``hit`` for ``key`` while the mocks are ``snapshot``."""
        if snapshot is not self._for:
            self._renew(snapshot)
        self._hits[key] = hit

    def clear(self) -> None:
        """Forget every kept answer."""
        self._renew(None)

    def __len__(self) -> int:
        return len(self._hits)

    def _renew(self, snapshot: object) -> None:
        self._hits = {}
        self._seen = set()
        self._for = snapshot
