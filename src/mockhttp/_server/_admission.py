"""Admission to a capacity (``mockhttp.llm``'s ``capacity=``), one state for every worker.

A capacity admits a request to run, to wait in its queue, or refuses it (the queue is
full, a requests- or tokens-per-minute bucket is short).  In one process the capacity
counts by itself; under ``mockhttp serve --workers`` the counts and buckets of a pool are
the supervisor's (:class:`Admissions`, asked over each worker's ``StateChannel`` with an
``admission`` question: a message kind of its own), so a ``max_running: 2`` backend runs
2 requests across all workers, and a key's ``rpm`` is spent once, whichever worker
answers.

Rule 1: a worker asks two things of a pool, each one short round trip: ``admit`` (a
place and the buckets charged, or a refusal, with the buckets as read) and ``granted``
(which of the worker's waiting tickets were handed a place); and it tells it one, with no
answer to wait for: ``leave`` (a request ended: its place passes to the next in the
queue).  The supervisor takes a worker's messages in the order they were sent, so the
worker's next ``admit`` sees its ``leave``.  The supervisor cannot call a worker, so
a worker with waiting requests polls ``granted`` every ``POLL`` seconds
(:class:`SharedGate`, one thread per worker, only while something waits).
Rule 2: a pool is named by its options (the same mapping in every worker's mock file is
the same pool), and buckets by the key's digest or the model (never the key itself).
Rule 3: the buckets read the time the worker sends (its capacity's clock).
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["POLL", "Admissions", "Bucket", "SharedGate", "check_buckets", "join", "shared_gate"]

POLL = 0.005  # seconds between a worker's questions about its waiting tickets
Charge = tuple[str, int, int]  # (kind: "requests" | "tokens", limit, amount)


@dataclass
class Bucket:
    """A bucket of ``limit`` refilled at ``rate`` per second, read at time ``at``."""

    limit: int
    rate: float
    level: float
    at: float

    def read(self, now: float) -> float:
        self.level = min(float(self.limit), self.level + max(0.0, now - self.at) * self.rate)
        self.at = max(self.at, now)
        return self.level

    def wait_for(self, amount: float) -> float:
        """Seconds until ``amount`` (at most the limit) is in the bucket."""
        return max(0.0, (min(amount, self.limit) - self.level) / self.rate)

    def reset(self) -> float:
        """Seconds until the bucket is full again."""
        return (self.limit - self.level) / self.rate


def check_buckets(
    buckets: dict[tuple[str, str], Bucket],
    name: str,
    charges: Sequence[Charge],
    minute: float,
    now: float,
) -> tuple[tuple[str, float] | None, list[tuple[str, Bucket, int]]]:
    """The buckets of ``name`` for ``charges`` (made full on first use), read ``now``,
    and why they cannot take them: ``(reason, seconds to wait)``, or None."""
    found = []
    for kind, limit, amount in charges:
        bucket = buckets.get((kind, name))
        if bucket is None:
            bucket = buckets[(kind, name)] = Bucket(limit, limit / minute, float(limit), now)
        bucket.read(now)
        found.append((kind, bucket, amount))
    for kind, bucket, amount in found:
        if bucket.level < min(amount, bucket.limit):
            return ("rpm" if kind == "requests" else "tpm", bucket.wait_for(amount)), found
    return None, found


# -- the supervisor's side ------------------------------------------------------------------


@dataclass
class _Pool:
    running: int = 0
    queue: deque[int] = field(default_factory=deque)
    granted: set[int] = field(default_factory=set)  # handed a place, not yet told
    buckets: dict[tuple[str, str], Bucket] = field(default_factory=dict)


class Admissions:
    """The supervisor's pools: every worker's capacity counts here (under one lock)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.pools: dict[str, _Pool] = {}
        self._tickets = itertools.count(1)

    def answer(self, asked: dict[str, Any]) -> dict[str, Any]:
        """One ``admission`` question (Rule 1), answered."""
        with self.lock:
            pool = self.pools.setdefault(str(asked["pool"]), _Pool())
            if "admit" in asked:
                return self._admit(pool, asked["admit"])
            if "leave" in asked:
                self._leave(pool, int(asked["leave"]))
                return {}
            tickets = [t for t in asked["granted"] if t in pool.granted]
            pool.granted.difference_update(tickets)
            return {"granted": tickets}

    def _admit(self, pool: _Pool, asked: dict[str, Any]) -> dict[str, Any]:
        charges = [(str(k), int(limit), int(n)) for k, limit, n in asked["charges"]]
        now = float(asked["now"])
        refused, found = check_buckets(
            pool.buckets, str(asked["name"]), charges, float(asked["minute"]), now
        )
        place = None
        ticket = 0
        if refused is None:
            most = asked["max_running"]
            if most is None or pool.running < most:
                place, pool.running = "running", pool.running + 1
            elif len(pool.queue) < int(asked["max_waiting"]):
                place = "waiting"
            if place is not None:
                ticket = next(self._tickets)
                if place == "waiting":
                    pool.queue.append(ticket)
                for _, bucket, amount in found:
                    bucket.level -= min(amount, bucket.limit)
        rows = [[k, b.limit, b.rate, b.level, b.at] for k, b, _ in found]
        return {"place": place, "ticket": ticket, "refused": refused, "buckets": rows}

    @staticmethod
    def _leave(pool: _Pool, ticket: int) -> None:
        if ticket in pool.queue:
            pool.queue.remove(ticket)
            return
        pool.granted.discard(ticket)  # granted, ended before it was told: it ran
        pool.running = max(0, pool.running - 1)
        if pool.queue:
            nxt = pool.queue.popleft()
            pool.running += 1
            pool.granted.add(nxt)


# -- a worker's side ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Admitted:
    """The supervisor's answer to ``admit``: ``place`` is ``running``, ``waiting`` or
    None (refused: ``refused`` says why, ``(reason, wait)``; ``queue_full`` when the
    buckets took it but the queue is full)."""

    place: str | None
    ticket: int
    refused: tuple[str, float] | None
    buckets: list[tuple[str, Bucket]]


class SharedGate:
    """A worker's way to its supervisor's :class:`Admissions` (``ask``: one question and
    its answer, ``StateChannel.ask``; ``tell``: one message without an answer,
    ``StateChannel.tell``)."""

    def __init__(
        self,
        ask: Callable[[dict[str, Any]], Any],
        tell: Callable[[dict[str, Any]], None],
        poll: float = POLL,
    ) -> None:
        self._ask = ask
        self._tell = tell
        self.poll = poll
        self._lock = threading.Lock()
        self._waiting: dict[tuple[str, int], Callable[[], None]] = {}
        self._poller: threading.Thread | None = None

    def admit(
        self,
        pool: str,
        limits: tuple[int | None, int, float],
        name: str,
        charges: Sequence[Charge],
        now: float,
    ) -> Admitted:
        """Ask for a place in ``pool`` (``limits``: max_running, max_waiting, minute)."""
        most, waiting, minute = limits
        asked = {
            "max_running": most,
            "max_waiting": waiting,
            "minute": minute,
            "name": name,
            "charges": [list(c) for c in charges],
            "now": now,
        }
        found = self._ask({"admission": {"pool": pool, "admit": asked}})
        refused = found["refused"]
        buckets = [
            (k, Bucket(limit, rate, level, at)) for k, limit, rate, level, at in found["buckets"]
        ]
        why = (str(refused[0]), float(refused[1])) if refused is not None else None
        if why is None and found["place"] is None:
            why = ("queue_full", 0.0)
        return Admitted(found["place"], int(found["ticket"]), why, buckets)

    def leave(self, pool: str, ticket: int) -> None:
        """``ticket``'s request ended (or left the queue)."""
        with self._lock:
            self._waiting.pop((pool, ticket), None)
        self._tell({"admission": {"pool": pool, "leave": ticket}})  # (Rule 1: no answer)

    def watch(self, pool: str, ticket: int, granted: Callable[[], None]) -> None:
        """Call ``granted`` (from the poller's thread) once ``ticket`` has a place."""
        with self._lock:
            self._waiting[(pool, ticket)] = granted
            if self._poller is None:
                self._poller = threading.Thread(
                    target=self._poll, name="mockhttp-admission", daemon=True
                )
                self._poller.start()

    def _poll(self) -> None:
        while True:
            with self._lock:
                if not self._waiting:
                    self._poller = None
                    return
                pools: dict[str, list[int]] = {}
                for pool, ticket in self._waiting:
                    pools.setdefault(pool, []).append(ticket)
            time.sleep(self.poll)
            for pool, tickets in pools.items():
                try:
                    found = self._ask({"admission": {"pool": pool, "granted": tickets}})
                except ConnectionError:
                    with self._lock:  # the supervisor is gone: nothing will be granted
                        self._waiting.clear()
                        self._poller = None
                    return
                for ticket in found["granted"]:
                    with self._lock:
                        callback = self._waiting.pop((pool, ticket), None)
                    if callback is not None:
                        callback()


_JOINED: list[SharedGate] = []


def join(
    ask: Callable[[dict[str, Any]], Any], tell: Callable[[dict[str, Any]], None]
) -> SharedGate:
    """A worker of ``serve --workers``: from now on its capacities count in the
    supervisor (``ask`` and ``tell``: its ``StateChannel``'s)."""
    _JOINED[:] = [SharedGate(ask, tell)]
    return _JOINED[0]


def shared_gate() -> SharedGate | None:
    """The gate to the supervisor's admissions, in a worker; None in one process."""
    return _JOINED[0] if _JOINED else None
