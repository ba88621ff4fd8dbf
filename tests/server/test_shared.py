"""The state across ``--workers`` (``_server/_shared.py``), in this process: the claims
and the capacities' tickets each held by a worker's session, and given back when the
session ends (a worker that died), with nothing leaked and nothing counted twice."""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import pytest

from mockhttp._core._errors import ConfigError
from mockhttp._core._route import Claim
from mockhttp._server._shared import (
    Admissions,
    Claims,
    Keeper,
    SharedGate,
    StateChannel,
    move_scenario,
    scenario_in,
    with_scenario,
)

ONE = (1, 0, 60.0)  # max_running 1, no queue, a 60 s minute


def test_a_claim_held_by_a_worker_that_died_is_returned_and_given_once_more() -> None:
    claims = Claims()
    once = [Claim(7, limit=1)]
    choice, ticket = claims.choose(once, session=1)
    assert (choice.position, choice.index, choice.ticket) == (0, 0, ticket)
    assert claims.choose(once, session=2)[0].position is None  # used up
    assert claims.release(1) == 1  # worker 1 died mid-call
    again, kept = claims.choose(once, session=2)
    assert (again.position, again.index) == (0, 0)
    claims.done(kept)
    assert claims.release(2) == 0  # its call ended: nothing to give back
    assert claims.choose(once, session=3)[0].position is None  # once in all


def test_returned_indices_of_a_sequence_go_first_and_each_index_lives_once() -> None:
    claims = Claims()
    three = [Claim(1, limit=3)]
    tickets = [claims.choose(three, session=s)[1] for s in (1, 2, 1)]  # indices 0, 1, 2
    claims.done(tickets[1])
    assert claims.release(1) == 2  # indices 0 and 2 come back
    given = [claims.choose(three, session=3) for _ in range(3)]
    assert [c.index for c, _ in given[:2]] == [0, 2]
    assert given[2][0].position is None  # 0, 1, 2 each went once to a call that lived
    assert claims.counts == {1: 3}


def test_a_scenario_moved_by_a_claim_stays_moved() -> None:
    claims = Claims()
    move = [Claim(1, None, "flow", None, "two")]
    choice, _ = claims.choose(move, session=1)
    assert choice.states == {}  # the states before
    claims.release(1)
    assert claims.states == {"flow": "two"}


def test_a_reset_forgets_the_claims_held() -> None:
    claims = Claims()
    claims.choose([Claim(1, limit=1)], session=1)
    claims.forget(counts=True, states=False)
    assert claims.release(1) == 0
    assert claims.choose([Claim(1, limit=1)], session=2)[0].index == 0


def admit(admissions: Admissions, session: int, limits: tuple[int, int] = (1, 0)) -> dict[str, Any]:
    most, waiting = limits
    asked = {
        "max_running": most,
        "max_waiting": waiting,
        "minute": 60.0,
        "name": "k",
        "charges": [],
        "now": 0.0,
    }
    return admissions.answer({"pool": "p", "admit": asked}, session)


def test_a_dead_workers_running_place_passes_to_the_next_in_the_queue() -> None:
    admissions = Admissions()
    running = admit(admissions, 1, (1, 2))
    queued = admit(admissions, 2, (1, 2))
    assert (running["place"], queued["place"]) == ("running", "waiting")
    assert admissions.release(1) == 1
    pool = admissions.pools["p"]
    assert (pool.running, list(pool.queue), pool.granted) == (1, [], {queued["ticket"]})
    # a late ``leave`` of the dead worker's ticket changes nothing (not counted twice)
    admissions.answer({"pool": "p", "leave": running["ticket"]}, 1)
    assert pool.running == 1


def test_a_dead_workers_queued_ticket_leaves_the_queue_and_is_never_granted() -> None:
    admissions = Admissions()
    running = admit(admissions, 1, (1, 2))
    admit(admissions, 2, (1, 2))  # queued on the worker that dies
    assert admissions.release(2) == 1
    pool = admissions.pools["p"]
    assert not pool.queue
    admissions.answer({"pool": "p", "leave": running["ticket"]}, 1)
    assert (pool.running, pool.granted) == (0, set())  # handed to no one
    assert admit(admissions, 3)["place"] == "running"


def test_a_keeper_gives_back_what_a_workers_channel_held_when_it_ends() -> None:
    """Two workers' channels to one keeper; the first holds a ``times: 1`` claim and the
    only capacity place when its socketpair ends (the process died): both come back."""
    keeper = Keeper()
    served = []
    channels = []
    for _ in range(2):
        ours, theirs = socket.socketpair()
        thread = threading.Thread(target=keeper.serve, args=(ours,), daemon=True)
        thread.start()
        served.append(thread)
        channels.append(StateChannel(theirs))
    dying, living = channels
    once = [Claim(3, limit=1)]
    assert dying(once).position == 0
    assert living(once).position is None
    gate = SharedGate(dying.ask, dying.tell)
    assert gate.admit("p", ONE, "k", [], time.time()).place == "running"
    other = SharedGate(living.ask, living.tell)
    assert other.admit("p", ONE, "k", [], time.time()).place is None
    dying.lines.close()
    dying.sock.close()  # the worker is gone
    served[0].join(5)
    assert not served[0].is_alive()
    kept = living(once)
    assert (kept.position, kept.index) == (0, 0)
    living.done(kept.ticket)
    assert living(once).position is None  # once in all: not double-counted
    assert other.admit("p", ONE, "k", [], time.time()).place == "running"
    living.sock.close()


def _channel_to(keeper: Keeper) -> StateChannel:
    """A worker's channel to ``keeper`` (a socketpair, served on a thread as
    ``Supervisor._spawn`` serves it)."""
    ours, theirs = socket.socketpair()
    threading.Thread(target=keeper.serve, args=(ours,), daemon=True).start()
    return StateChannel(theirs)


def test_with_scenario_replaces_the_states_and_checks_the_names() -> None:
    before = {"auth": "in"}
    after = with_scenario(before, "cart", "full")
    assert after == {"auth": "in", "cart": "full"}
    assert before == {"auth": "in"}  # replaced, never changed in place
    for name, state in (("", "x"), ("auth", ""), (1, "x"), ("auth", None)):
        with pytest.raises(ConfigError, match="must be text"):
            with_scenario(before, name, state)  # type: ignore[arg-type]


def test_a_scenario_moved_through_a_channel_is_the_keepers_for_every_worker() -> None:
    keeper = Keeper()
    one, other = _channel_to(keeper), _channel_to(keeper)
    local = move_scenario({}, one, None, "auth", "in")
    assert local == {"auth": "in"}  # (this process's too)
    assert scenario_in({}, other, None, "auth") == "in"  # the other worker reads it
    assert other([Claim(1, scenario="auth", state="in", next_state="out")]).position == 0
    assert scenario_in(local, one, None, "auth") == "out"  # the keeper's, not the local copy
    assert keeper.states == {"auth": "out"}
    one.sock.close()
    other.sock.close()


def test_a_tests_scenario_moved_through_a_channel_is_that_tests_alone() -> None:
    keeper = Keeper()
    one, other = _channel_to(keeper), _channel_to(keeper)
    move_scenario({}, one, "a", "auth", "in")
    assert scenario_in({}, other, "a", "auth") == "in"
    assert scenario_in({}, other, "b", "auth") == "Started"
    assert scenario_in({}, other, None, "auth") == "Started"
    claim = [Claim(1, scenario="auth", state="in")]
    assert other(claim, "a").position == 0
    assert other(claim, "b").position is None
    keeper.after("POST", "/__mockhttp/scenarios/reset?test=a")
    assert scenario_in({}, one, "a", "auth") == "Started"
    with pytest.raises(ConfigError, match="must be text"):
        move_scenario({}, one, "a", "auth", "")  # refused before anything is asked
    one.sock.close()
    other.sock.close()


def test_without_a_channel_the_state_is_this_processs() -> None:
    assert move_scenario({"x": "1"}, None, "a", "auth", "in") == {"x": "1", "auth": "in"}
    assert scenario_in({"auth": "in"}, None, "a", "auth") == "in"
    assert scenario_in({}, None, None, "auth") == "Started"
