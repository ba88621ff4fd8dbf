"""The state held elsewhere (``serve --workers``): ``route_shared`` asks a tally, ``choose``
is what the keeper runs (pure: state in, state out)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import mockhttp
from mockhttp._core._mock import Mock
from mockhttp._core._request import Request
from mockhttp._core._route import (
    Answer,
    Choice,
    Claim,
    Miss,
    choose,
    keeps_state,
    next_states,
    route_shared,
)


@dataclass
class Entry:
    mock: Mock
    id: int
    call_count: int = 0  # a worker's own count: route_shared never reads it for state
    exhausted: bool = False


@dataclass
class Keeper:
    """The keeper as the supervisor runs it: choose, then keep the counts and states."""

    counts: Mapping[int, int] = field(default_factory=dict)
    states: Mapping[str, str] = field(default_factory=dict)
    asked: list[list[Claim]] = field(default_factory=list)

    def __call__(self, claims: Sequence[Claim]) -> Choice:
        self.asked.append(list(claims))
        choice = choose(claims, self.counts, self.states)
        if choice.position is not None:
            self.counts = choice.counts
            self.states = next_states(claims[choice.position], self.states)
        return choice


def text(found: Answer[Entry] | Miss) -> str:
    assert isinstance(found, Answer), found
    assert found.reply is not None
    return found.reply.content.decode()


def test_choose_skips_used_up_and_out_of_state_claims_and_changes_nothing_given() -> None:
    claims = [Claim(1, limit=1), Claim(2, scenario="s", state="open"), Claim(3)]
    counts = {1: 1}
    states: dict[str, str] = {}
    choice = choose(claims, counts, states)
    assert (choice.position, choice.index, dict(choice.counts)) == (2, 0, {1: 1, 3: 1})
    assert counts == {1: 1}
    assert states == {}
    assert choose([Claim(1, limit=1)], counts, states).position is None
    assert next_states(Claim(2, None, "s", None, "open"), states) == {"s": "open"}


def test_a_mock_that_keeps_no_state_answers_without_asking() -> None:
    keeper = Keeper()
    fixed = Entry(mockhttp.get("/x").reply(mockhttp.ok().body("fixed")), 1)
    assert not keeps_state(fixed.mock)
    assert text(route_shared(Request("GET", "/x"), [fixed], keeper)) == "fixed"
    assert keeper.asked == []


def test_a_sequence_walks_the_keepers_count_whatever_the_entrys_own() -> None:
    keeper = Keeper()
    seq = Entry(mockhttp.get("/q").replies(mockhttp.status(503), mockhttp.ok().body("ok")), 7)
    fallback = Entry(mockhttp.get("/q").reply(mockhttp.ok().body("fallback")), 8)
    got = [route_shared(Request("GET", "/q"), [seq, fallback], keeper) for _ in range(3)]
    assert [a.reply.status_code for a in got if isinstance(a, Answer) and a.reply] == [
        503,
        200,
        200,
    ]
    assert seq.call_count == 0  # the worker's own count is not read
    assert keeper.counts == {7: 3}
    # the claims stop at the first mock that keeps no state: it would answer anyway
    assert [c.id for c in keeper.asked[0]] == [7, 8]


def test_times_used_up_falls_through_and_a_miss_reports_the_keepers_states() -> None:
    keeper = Keeper()
    once = Entry(mockhttp.get("/o", times=1).reply(mockhttp.ok().body("once")), 1)
    door = Entry(mockhttp.get("/o").scenario("door", "open").reply(mockhttp.ok().body("door")), 2)
    assert text(route_shared(Request("GET", "/o"), [once, door], keeper)) == "once"
    missed = route_shared(Request("GET", "/o"), [once, door], keeper)
    assert isinstance(missed, Miss)
    assert "scenario 'door' is in state 'Started', expected 'open'" in missed.explanation.text
    keeper.states = {"door": "open"}
    assert text(route_shared(Request("HEAD", "/o"), [once, door], keeper)) == "door"


def test_a_scenario_moves_once_in_the_keeper() -> None:
    keeper = Keeper()
    first = Entry(
        mockhttp.get("/s").scenario("flow", "Started", "next").reply(mockhttp.ok().body("1")), 1
    )
    second = Entry(mockhttp.get("/s").scenario("flow", "next").reply(mockhttp.ok().body("2")), 2)
    found = route_shared(Request("GET", "/s"), [first, second], keeper)
    assert text(found) == "1"
    assert isinstance(found, Answer)
    assert found.states == {"flow": "next"}
    assert keeper.states == {"flow": "next"}
    assert text(route_shared(Request("GET", "/s"), [first, second], keeper)) == "2"
