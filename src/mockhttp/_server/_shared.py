"""State across the workers of ``mockhttp serve --workers``, in one place: the claims on
the mocks that keep state, the scenario states, and the capacities' pools (admission).

The supervisor keeps it (:class:`Keeper`); each worker asks it over a socketpair of its
own (:class:`StateChannel`, the server's ``tally``), one JSON line a question:

- ``claims``: which of the matching mocks that keep state answers, as which call
  (``_core._route.route_shared``): the supervisor chooses under one lock, so the order
  is exact across workers;
- ``states``: the scenario states now (the admin API's view);
- ``scenario``: a scenario moved to a state by hand (``set_scenario_state``, the admin
  API's ``PUT scenarios/{name}/state``): ``scenarios.move``, on every worker at once;
- a ``claims``, ``states`` or ``done`` that names a ``test`` (per-test isolation:
  ``_tests``) is about that test's own claims and states, kept apart from the shared
  ones and from every other test's (``Keeper.tests``);
- ``admission``: a capacity's ``admit`` and ``granted`` (``mockhttp.llm``'s
  ``capacity=``), so a ``max_running: 2`` backend runs 2 requests across all workers,
  and a key's ``rpm`` is spent once, whichever worker answers;
- and, told without an answer (``tell``): an admission's ``leave`` (a request ended: its
  place passes to the next in the queue) and a claim's ``done`` (its call ended).

Rule 1: what a worker holds, the supervisor knows.  Each claim given and each place in a
pool (running or queued) is a ticket held by the worker's session (its socketpair) until
the worker says ``done`` or ``leave``.  A session that ends (the worker died: the
socketpair reads its end) gives back what it held: a claim's call index is returned
(the next request takes the lowest returned index before a new one, so each index is
given once to a call that lived, and a ``times: 1`` mock answers again), a running place
passes to the next in the queue, a queued ticket leaves the queue.  A scenario moved by a
claim stays moved (others may have moved it since).
Rule 2: a worker asks two things of a pool, each one short round trip: ``admit`` (a
place and the buckets charged, or a refusal, with the buckets as read) and ``granted``
(which of the worker's waiting tickets were handed a place).  The supervisor takes a
worker's messages in the order they were sent, so the worker's next ``admit`` sees its
``leave``.  The supervisor cannot call a worker, so a worker with waiting requests polls
``granted`` every ``POLL`` seconds (:class:`SharedGate`, one thread per worker, only
while something waits).
Rule 3: a pool is named by its options (the same mapping in every worker's mock file is
the same pool), and buckets by the key's digest or the model (never the key itself);
the buckets read the time the worker sends (its capacity's clock).
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from .._core._errors import ConfigError
from .._core._kept import Change, Memory, R, test_scope
from .._core._mock import STARTED
from .._core._route import Choice, Claim, next_states

__all__ = [
    "MAX_TESTS",
    "POLL",
    "Admissions",
    "Bucket",
    "Claims",
    "Keeper",
    "SharedGate",
    "SharedKept",
    "StateChannel",
    "check_buckets",
    "join",
    "move_scenario",
    "scenario_in",
    "shared_gate",
    "with_scenario",
]

MAX_TESTS = 10_000  # tests whose state is kept at once (``_tests``): the oldest go first
_STATE_TIMEOUT = 10.0  # seconds for the supervisor to answer a state question

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
    """The supervisor's pools: every worker's capacity counts here (under one lock), and
    each ticket is held by the session of the worker that asked (Rule 1)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.pools: dict[str, _Pool] = {}
        self._tickets = itertools.count(1)
        self.held: dict[int, tuple[int, str]] = {}  # ticket -> (session, pool)

    def answer(self, asked: dict[str, Any], session: int = 0) -> dict[str, Any]:
        """One ``admission`` question (Rule 2) of ``session``'s worker, answered."""
        with self.lock:
            name = str(asked["pool"])
            pool = self.pools.setdefault(name, _Pool())
            if "admit" in asked:
                found = self._admit(pool, asked["admit"])
                if found["place"] is not None:
                    self.held[found["ticket"]] = (session, name)
                return found
            if "leave" in asked:
                self._leave(pool, int(asked["leave"]))
                return {}
            tickets = [t for t in asked["granted"] if t in pool.granted]
            pool.granted.difference_update(tickets)
            return {"granted": tickets}

    def release(self, session: int) -> int:
        """``session``'s worker is gone: each of its tickets leaves its pool (a running
        place passes to the next in the queue); how many there were (Rule 1)."""
        with self.lock:
            mine = [(t, name) for t, (s, name) in self.held.items() if s == session]
            for ticket, name in mine:
                self._leave(self.pools[name], ticket)
            return len(mine)

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

    def _leave(self, pool: _Pool, ticket: int) -> None:
        if self.held.pop(ticket, None) is None and ticket:  # (left already: a dead worker's)
            return
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


# -- the claims on the mocks that keep state ------------------------------------------------


class Claims:
    """Each mock's calls so far and the scenario states, for every worker, and who holds
    each claim given (Rule 1).  Not locked: the :class:`Keeper` holds its lock."""

    def __init__(self, tickets: Callable[[], int] | None = None) -> None:
        self.counts: dict[int, int] = {}  # mock id -> the next new call index
        self.returned: dict[int, list[int]] = {}  # mock id -> indices given back (a heap)
        self.held: dict[int, tuple[int, int, int]] = {}  # ticket -> (session, mock, index)
        self.states: dict[str, str] = {}
        # (a keeper's tests share its numbers: a ticket names one claim on the server)
        self._tickets = tickets or itertools.count(1).__next__

    def choose(self, claims: Sequence[Claim], session: int = 0) -> tuple[Choice, int]:
        """The first of ``claims`` not used up and in its scenario's state, as which call
        (``_core._route.choose``, with the returned indices first), and its ticket."""
        for position, claim in enumerate(claims):
            back = self.returned.get(claim.id)
            used = self.counts.get(claim.id, 0) - (len(back) if back else 0)
            if claim.limit is not None and used >= claim.limit:
                continue
            if claim.state is not None and self.states.get(claim.scenario or "", STARTED) != (
                claim.state
            ):
                continue
            if back:
                index = heapq.heappop(back)
            else:
                index = self.counts.get(claim.id, 0)
                self.counts[claim.id] = index + 1
            before = self.states
            self.states = dict(next_states(claim, before))
            ticket = self._tickets()
            self.held[ticket] = (session, claim.id, index)
            return Choice(position, index, before, {}, ticket), ticket
        return Choice(None, 0, self.states, {}), 0

    def done(self, ticket: int) -> None:
        """The call of ``ticket`` ended: its index is spent for good."""
        self.held.pop(ticket, None)

    def release(self, session: int) -> int:
        """``session``'s worker is gone: the indices of its calls that had not ended are
        returned (Rule 1); how many."""
        mine = [t for t, held in self.held.items() if held[0] == session]
        for ticket in mine:
            _, mock, index = self.held.pop(ticket)
            heapq.heappush(self.returned.setdefault(mock, []), index)
        return len(mine)

    def forget(self, counts: bool, states: bool) -> None:
        """An admin reset: forget the counts (and what is held) or the states."""
        if counts:
            self.counts, self.returned, self.held = {}, {}, {}
        if states:
            self.states = {}


class Keeper:
    """The supervisor's state for every worker (:class:`Claims`, :class:`Admissions`),
    served to each worker's :class:`StateChannel` in a session of its own."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self._tickets = itertools.count(1).__next__
        self.claims = Claims(self._tickets)
        self.tests: dict[str, Claims] = {}  # each test's own (``_tests``), by test id
        self.admissions = Admissions()  # the capacities' pools
        self.kept = Memory()  # what reply kinds keep (``_core._kept``)
        self._sessions = itertools.count(1)

    def _claims(self, test: str | None) -> Claims:
        """The shared claims, or ``test``'s (made when first asked; at most
        ``_tests.MAX_TESTS``: the oldest go first)."""
        if test is None:
            return self.claims
        found = self.tests.get(test)
        if found is None:
            if len(self.tests) >= MAX_TESTS:
                del self.tests[next(iter(self.tests))]
            found = self.tests[test] = Claims(self._tickets)
        return found

    @property
    def counts(self) -> dict[int, int]:
        return self.claims.counts

    @property
    def states(self) -> dict[str, str]:
        return self.claims.states

    def choose(self, claims: list[Claim], session: int = 0) -> Choice:
        with self.lock:
            return self.claims.choose(claims, session)[0]

    def after(self, method: str, target: str, test: str | None = None) -> None:
        """An admin write every worker applied: forget what it forgets (``test``: the
        test it named, by ``?test=`` or the test header: only that test's state)."""
        path, _, query = target.partition("?")
        path = path.rstrip("/")
        test = test or dict(parse_qsl(query)).get("test")
        with self.lock:
            counts = path == "/__mockhttp/reset" or (path, method) == (
                "/__mockhttp/journal",
                "DELETE",
            )
            states = path in ("/__mockhttp/reset", "/__mockhttp/scenarios/reset")
            if test is None:
                self.claims.forget(counts, states)
                for claims in self.tests.values():
                    claims.forget(counts, states)
            elif test in self.tests:
                self.tests[test].forget(counts, states)
            if path == "/__mockhttp/reset":
                if test is None:
                    self.kept.clear()
                    self.tests.clear()
                else:
                    self.kept.clear_under(test_scope(test))

    def answer(self, line: bytes, session: int = 0) -> bytes | None:
        """One question of ``session``'s worker (a JSON line), answered; None for a
        message that wants no answer (``{"tell": ...}``: a ``leave`` or a ``done``)."""
        asked = json.loads(line)
        told = asked.get("tell")
        if told is not None:
            if "done" in told:
                with self.lock:
                    self._claims(told.get("test")).done(int(told["done"]))
            else:
                self.admissions.answer(told["admission"], session)
            return None
        if "admission" in asked:
            found = self.admissions.answer(asked["admission"], session)
        elif "kept" in asked:
            found = self._kept(asked["kept"])
        elif "claims" in asked:
            rows = [Claim(*c) for c in asked["claims"]]
            with self.lock:
                choice, ticket = self._claims(asked.get("test")).choose(rows, session)
            found = {
                "position": choice.position,
                "index": choice.index,
                "states": choice.states,
                "ticket": ticket,
            }
        elif "scenario" in asked:
            name, state = asked["scenario"]
            with self.lock:
                claims = self._claims(asked.get("test"))
                claims.states = with_scenario(claims.states, name, state)
                found = {"states": dict(claims.states)}
        else:
            with self.lock:
                found = {"states": dict(self._claims(asked.get("test")).states)}
        return json.dumps(found, separators=(",", ":")).encode() + b"\n"

    def _kept(self, asked: dict[str, Any]) -> dict[str, Any]:
        """A ``kept`` question: ``get`` a key's version and value, or ``put`` a value if
        the key is still at the version read (``_core._kept.Memory.put``)."""
        with self.lock:
            if "put" in asked:
                ok, version, value = self.kept.put(
                    str(asked["put"]), int(asked["version"]), asked["value"]
                )
                return {"ok": ok, "version": version, "value": value}
            version, value = self.kept.read(str(asked["get"]))
            return {"version": version, "value": value}

    def serve(self, sock: socket.socket) -> None:
        """Answer one worker's questions until it goes (a thread per worker); then give
        back what it held (Rule 1)."""
        session = next(self._sessions)
        try:
            with sock, sock.makefile("rb") as lines:
                for line in lines:
                    try:
                        found = self.answer(line, session)
                        if found is not None:
                            sock.sendall(found)
                    except (OSError, ValueError, TypeError, KeyError):
                        return
        except OSError:
            pass
        finally:
            self.release(session)

    def release(self, session: int) -> tuple[int, int]:
        """Give back what ``session`` held: (claims, capacity tickets)."""
        with self.lock:
            claims = self.claims.release(session)
            claims += sum(c.release(session) for c in self.tests.values())
        return claims, self.admissions.release(session)


class StateChannel:
    """A worker's end of its socketpair to the ``Keeper`` (the server's ``tally``)."""

    def __init__(self, sock: socket.socket) -> None:
        sock.settimeout(_STATE_TIMEOUT)
        self.sock = sock
        self.lines = sock.makefile("rb")
        self.lock = threading.Lock()  # the loop asks; the admin thread reads the states
        self.broken: str | None = None

    def _ask(self, question: dict[str, Any]) -> Any:
        """One question and its answer; after a failure (a timeout, the supervisor gone)
        the channel is closed for good, so that a late answer is never taken for the
        answer to the next question."""
        data = json.dumps(question, separators=(",", ":")).encode() + b"\n"
        with self.lock:
            if self.broken is not None:
                raise ConnectionError(self.broken)
            try:
                self.sock.sendall(data)
                line = self.lines.readline()
                if not line:
                    raise ConnectionError("the supervisor is gone")
                return json.loads(line)
            except (OSError, ValueError) as exc:
                self.broken = f"the supervisor did not answer ({exc or type(exc).__name__})"
                self.sock.close()
                raise ConnectionError(self.broken) from None

    def ask(self, question: dict[str, Any]) -> Any:
        """One question of another kind (an ``admission``) and its answer."""
        return self._ask(question)

    def tell(self, message: dict[str, Any]) -> None:
        """One message the ``Keeper`` takes without answering (an admission's
        ``leave``): sent in order with the questions, and not waited for."""
        data = json.dumps({"tell": message}, separators=(",", ":")).encode() + b"\n"
        with self.lock:
            if self.broken is not None:
                raise ConnectionError(self.broken)
            try:
                self.sock.sendall(data)
            except OSError as exc:
                self.broken = f"the supervisor did not take a message ({exc})"
                self.sock.close()
                raise ConnectionError(self.broken) from None

    def __call__(self, claims: Sequence[Claim], test: str | None = None) -> Choice:
        rows = [[c.id, c.limit, c.scenario, c.state, c.next_state] for c in claims]
        question: dict[str, Any] = {"claims": rows}
        if test is not None:
            question["test"] = test
        found = self._ask(question)
        ticket = int(found.get("ticket", 0))
        return Choice(found["position"], found["index"], found["states"], {}, ticket)

    def done(self, ticket: int, test: str | None = None) -> None:
        """The call of the claim ``ticket`` ended (Rule 1); a channel that broke says
        nothing (the supervisor gives back what it held when the socketpair ends)."""
        with contextlib.suppress(ConnectionError):
            self.tell({"done": ticket} if test is None else {"done": ticket, "test": test})

    def states(self, test: str | None = None) -> dict[str, str]:
        """The scenario states now (``test``'s own)."""
        question: dict[str, Any] = {"states": True}
        if test is not None:
            question["test"] = test
        return dict(self._ask(question)["states"])

    def move(self, name: str, state: str, test: str | None = None) -> dict[str, str]:
        """Move scenario ``name`` to ``state`` (``test``'s own); the states after it."""
        question: dict[str, Any] = {"scenario": [name, state]}
        if test is not None:
            question["test"] = test
        return dict(self._ask(question)["states"])


def with_scenario(states: Mapping[str, str], name: str, state: str) -> dict[str, str]:
    """``states`` with scenario ``name`` in ``state`` (a new mapping: the states are
    replaced, never changed in place).

    Raises:
        ConfigError: ``name`` or ``state`` is not text, or empty."""
    if not (isinstance(name, str) and name and isinstance(state, str) and state):
        raise ConfigError(f"scenario name={name!r} and state={state!r} must be text")
    return {**states, name: state}


def scenario_in(
    states: Mapping[str, str], channel: StateChannel | None, test: str | None, name: str
) -> str:
    """The state of scenario ``name``: in ``states`` (this process's), or the
    supervisor's through ``channel`` (``serve --workers``; ``test``'s own)."""
    return (states if channel is None else channel.states(test)).get(name, STARTED)


def move_scenario(
    states: Mapping[str, str],
    channel: StateChannel | None,
    test: str | None,
    name: str,
    state: str,
) -> dict[str, str]:
    """Move scenario ``name`` to ``state``: ``states`` with it (this process's, returned),
    and the supervisor's through ``channel`` under ``serve --workers`` (``test``'s own),
    so that every worker's next request sees it (``Server.set_scenario_state`` and a
    test's).

    Raises:
        ConfigError: ``name`` or ``state`` is not text, or empty."""
    moved = with_scenario(states, name, state)
    if channel is not None:
        channel.move(name, state, test)
    return moved


class SharedKept:
    """What reply kinds keep (``_core._kept``), kept by the supervisor: a worker reads a
    key's version and value, runs the kind's pure ``change`` here, and the supervisor
    takes the new value only if nobody changed the key meanwhile; else the change runs
    again on what is there now (``_core._kept`` Rule 2)."""

    __slots__ = ("channel",)

    TRIES = 64  # changes of one key by other workers, in a row, before giving up

    def __init__(self, channel: StateChannel) -> None:
        self.channel = channel

    def get(self, key: str) -> Any:
        return self.channel.ask({"kept": {"get": key}})["value"]

    def update(self, key: str, change: Change[R]) -> R:
        found = self.channel.ask({"kept": {"get": key}})
        for _ in range(self.TRIES):
            new, result = change(found["value"])
            put = {"put": key, "version": found["version"], "value": new}
            found = self.channel.ask({"kept": put})
            if found["ok"]:
                return result
        raise ConnectionError(f"kept state {key!r}: changed by other workers {self.TRIES} times")
