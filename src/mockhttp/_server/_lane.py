"""The fast lane: routed answers kept for the requests they will answer again.

Most requests a test server gets are the same few requests over and over, answered by a
fixed reply that is written in one call (a ``Whole``).  When the route says such an
answer depends on nothing but the method and target (``_core._route.by_target``: a
stateless, fixed, fault-free mock that matches on the target alone, and no mock before
it that could match that target), the server keeps it here under the request's method,
target, HTTP version and keep-alive: a ``Hit``, which is a plan kind.  Another request
of that key without a body is answered with the kept ``Hit`` (below), the call
journaled as a compact entry (``_journal.Kept``), with no ``Request``, ``Call``, route
or framing built for it: the same entry, counts and bytes
as the long way gives (``tests/server/test_lane.py`` checks both ways give equal
journals).

The parser asks the lane (``_http1.Http1(kept)``): a request of a key it knows comes as a
``Known`` event with its ``Hit`` and header fields, and no ``Message``, ``Request`` or
plan is built for it; the connection journals it (``Answers.known``) and writes the
kept bytes in its turn, or queues it behind the replies before it as any request.
Measured (``docs/performance.md``, "Session eight"): this is the fastest honest form;
the lane as a plan the server gave for a ``Message`` cost 16% more instructions a
request than the old parser callbacks, this form costs less than they did.

Rule 1: learned on the loop thread only.  Rule 2: kept answers hold for one snapshot of
the mocks (``Ranked.snapshot()``): any change to the mocks empties the lane (Rule 3 at
``Lane``).  An ``on_call_end``
callback (``mockhttp serve`` logs each call with one) gets the call read back from its
compact entry, as a test reading the journal would.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._http1 import Key
from ._journal import Call, Kept
from ._runner import Line, Steps, Whole

if TYPE_CHECKING:
    from ._ranked import Ranked
    from ._verify import ActiveMock

__all__ = ["SIZE", "Hit", "Key", "Lane"]

SIZE = 4096  # keys seen (and answers kept): emptied when full (a client walking targets)


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
    """Kept answers by ``Key``, for the mocks as they are: ``ranked`` tells the lane when
    they change (``Ranked.on_change``), and it forgets every answer then.

    ``hits`` is the table the parser reads (``_http1.Http1(kept)``): a plain dict, so a
    request's lookup is one C call.  It is emptied in place, never replaced, so the
    parser's reference stays the lane's.  Rule 3: a change of the mocks (a writer's
    thread) empties it after the change is published, and ``learn`` (the loop thread)
    checks the snapshot it learned from is still current after it stored the hit, so an
    answer of older mocks never outlives the change, whichever thread runs first.
    """

    __slots__ = ("_ranked", "_seen", "hits")

    def __init__(self, ranked: Ranked) -> None:
        self._ranked = ranked
        self.hits: dict[Key, Hit] = {}
        # keys seen once: an answer is kept the second time (a target asked once, such
        # as one with a different query each time, leaves no object to collect)
        self._seen: set[Key] = set()
        ranked.on_change = self.clear

    def again(self, key: Key) -> bool:
        """Whether ``key`` was seen before since the mocks changed (and note it)."""
        seen = self._seen
        if len(seen) >= SIZE:
            self.clear()
        if key in seen:
            return True
        seen.add(key)
        return False

    def learn(self, key: Key, snapshot: object, hit: Hit) -> None:
        """Keep ``hit`` for ``key``, learned while the mocks were ``snapshot`` (Rule 3)."""
        hits = self.hits
        hits[key] = hit
        if snapshot is not self._ranked.snapshot():  # they changed meanwhile
            hits.pop(key, None)

    def clear(self) -> None:
        """Forget every kept answer (and the keys seen)."""
        self.hits.clear()
        self._seen.clear()

    def __len__(self) -> int:
        return len(self.hits)
