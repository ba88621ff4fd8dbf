"""The registered mocks in the order they are tried (``_server/_ranked.py``): the highest
priority first, then the newest; changes seen by the next snapshot, however many."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

import mockhttp
from mockhttp._server._ranked import Ranked
from mockhttp._server._verify import ActiveMock


@pytest.fixture
def owner() -> Iterator[mockhttp.Server]:
    """The server the handles belong to (never started: ranking needs no socket)."""
    server = mockhttp.Server()
    yield server
    server.close()


class Handles:
    """Numbered handles for mocks, as ``Server.mock`` makes them (seq 1, 2, ...)."""

    def __init__(self, owner: mockhttp.Server) -> None:
        self.owner = owner
        self.seq = 0

    def __call__(self, priority: int = 0, reply: mockhttp.Reply | None = None) -> ActiveMock:
        self.seq += 1
        mock = mockhttp.get(f"/{self.seq}", priority=priority)
        if reply is not None:
            mock = mock.reply(reply)
        return ActiveMock(mock, self.owner, self.seq)


@pytest.fixture
def handle(owner: mockhttp.Server) -> Handles:
    return Handles(owner)


def _expected(members: list[ActiveMock]) -> tuple[ActiveMock, ...]:
    """The order spelled out: priority descending, then the newest (highest rank) first."""
    return tuple(sorted(members, key=lambda a: (a.mock.priority, a._rank), reverse=True))


def test_the_highest_priority_comes_first_then_the_newest(handle: Handles) -> None:
    ranked = Ranked()
    old, high, new, low, newest_high = handle(0), handle(5), handle(0), handle(-1), handle(5)
    ranked.change([old, high, new, low, newest_high], ())
    assert ranked.snapshot() == (newest_high, high, new, old, low)


def test_a_rank_between_two_mocks_puts_a_replacement_where_the_old_one_was(
    handle: Handles,
) -> None:
    """``Server.replace`` gives new mocks fractional ranks: they keep the old one's place."""
    ranked = Ranked()
    first, second, third = handle(), handle(), handle()
    ranked.change([first, second, third], ())
    replacement = handle()
    replacement._rank = second._rank + 0.5
    ranked.change([replacement], [second])
    assert ranked.snapshot() == (third, replacement, first)


def test_a_snapshot_is_the_same_tuple_until_something_changes(handle: Handles) -> None:
    ranked = Ranked()
    ranked.change([handle(), handle(1)], ())
    before = ranked.snapshot()
    assert ranked.snapshot() is before
    ranked.change([handle()], ())
    after = ranked.snapshot()
    assert after is not before
    assert len(after) == 3
    assert ranked.snapshot() is after


def test_adds_and_removes_are_seen_by_the_next_snapshot(handle: Handles) -> None:
    ranked = Ranked()
    a, b = handle(), handle()
    ranked.change([a], ())
    assert ranked.snapshot() == (a,)
    ranked.change([b], ())
    assert ranked.snapshot() == (b, a)
    ranked.change([], [a])
    assert ranked.snapshot() == (b,)
    assert (len(ranked), ranked.get(a.id), ranked.get(b.id)) == (1, None, b)


def test_an_add_and_a_remove_in_one_change_swap_at_once(handle: Handles) -> None:
    ranked = Ranked()
    a, b = handle(), handle()
    ranked.change([a], ())
    ranked.snapshot()
    ranked.change([b], [a])
    assert ranked.snapshot() == (b,)


def test_removing_what_is_not_registered_changes_nothing(handle: Handles) -> None:
    ranked = Ranked()
    a, never = handle(), handle()
    ranked.change([a], ())
    before = ranked.snapshot()
    assert ranked.change([], [never]) == set()
    assert ranked.snapshot() is before  # no new version was published
    ranked.change([], [a])
    assert ranked.change([], [a]) == set()  # a second remove: nothing left to remove
    assert ranked.snapshot() == ()


def test_a_handle_with_a_registered_id_but_another_object_is_not_removed(
    owner: mockhttp.Server, handle: Handles
) -> None:
    ranked = Ranked()
    a = handle()
    impostor = ActiveMock(a.mock, owner, a.id)
    ranked.change([a], ())
    ranked.change([], [impostor])
    assert ranked.snapshot() == (a,)
    assert ranked.get(a.id) is a


def test_a_mock_added_and_removed_between_snapshots_never_shows(handle: Handles) -> None:
    ranked = Ranked()
    kept, brief = handle(), handle()
    ranked.change([kept], ())
    ranked.snapshot()
    ranked.change([brief], ())
    ranked.change([], [brief])
    assert ranked.snapshot() == (kept,)


@pytest.mark.parametrize("size", [5, 32, 33, 200])
def test_a_burst_of_changes_without_a_snapshot_between_ends_in_order(
    handle: Handles, size: int
) -> None:
    """Each change is one step; the reader after the burst applies them all (by binary
    search up to 32 changes, by one sort past that)."""
    ranked = Ranked()
    members = [handle(i % 3) for i in range(size)]
    for m in members:
        ranked.change([m], ())
    assert ranked.snapshot() == _expected(members)
    removed = members[::2]
    for m in removed:
        ranked.change([], [m])
    later = [handle(i % 4 - 1) for i in range(size // 2)]
    ranked.change(later, ())
    left = [m for m in members if m not in removed] + later
    assert ranked.snapshot() == _expected(left)
    assert len(ranked) == len(left)


def test_random_changes_and_reads_always_give_the_spelled_out_order(handle: Handles) -> None:
    """A seeded walk of adds, removes (some of mocks not registered) and snapshots, each
    snapshot compared with the order computed from scratch."""
    rng = random.Random(17)
    ranked = Ranked()
    members: list[ActiveMock] = []
    for _ in range(400):
        roll = rng.random()
        if roll < 0.45:
            new = [handle(rng.randint(-2, 2)) for _ in range(rng.choice([1, 1, 3, 40]))]
            ranked.change(new, ())
            members += new
        elif roll < 0.8 and members:
            gone = rng.sample(members, min(len(members), rng.choice([1, 2, 50])))
            ranked.change([], [*gone, handle()])  # and one that was never registered
            members = [m for m in members if m not in gone]
        else:
            assert ranked.snapshot() == _expected(members)
    assert ranked.snapshot() == _expected(members)
    assert {m.id for m in members} == {m.id for m in ranked.snapshot()}


def test_gives_says_whether_a_registered_mock_still_answers_with_a_reply(
    handle: Handles,
) -> None:
    shared = mockhttp.ok().body("shared")
    a, b, other = handle(reply=shared), handle(reply=shared), handle()
    ranked = Ranked()
    assert ranked.change([a, b, other], ()) == set()
    assert ranked.gives(id(shared))
    assert ranked.change([], [a]) == set()  # b still gives it
    assert ranked.gives(id(shared))
    assert ranked.change([], [b]) == {id(shared)}
    assert not ranked.gives(id(shared))
    assert ranked.gives(id(other.mock.response))


def test_clear_unregisters_everything_and_names_every_reply(handle: Handles) -> None:
    a, b = handle(reply=mockhttp.ok().body("a")), handle(reply=mockhttp.ok().body("b"))
    ranked = Ranked()
    ranked.change([a, b], ())
    ranked.snapshot()
    assert ranked.clear() == {id(a.mock.response), id(b.mock.response)}
    assert (ranked.snapshot(), len(ranked), ranked.get(a.id)) == ((), 0, None)
    assert not ranked.gives(id(a.mock.response))
    c = handle()
    ranked.change([c], ())
    assert ranked.snapshot() == (c,)


def _chain(ranked: Ranked) -> int:
    """How many changes a reader would walk now (the steps since the last sorted tuple)."""
    step, n = ranked._version.last, 0
    while step is not None:
        step, n = step.before, n + 1
    return n


def test_a_writer_no_reader_catches_up_with_keeps_the_chain_short(handle: Handles) -> None:
    """A test thread adding and removing mocks in a loop while the loop thread waits for the
    interpreter: no read stored a tuple of the current state, so each change was chained
    to all the others since the start, and each read walked them all (a read slower than
    the one before: requests timed out).  The writer now folds them in past a bound."""
    ranked = Ranked()
    stable = handle()
    ranked.change([stable], ())
    for _ in range(5_000):
        extra = handle(-1)
        ranked.change([extra], ())
        ranked.change([], [extra])
        assert _chain(ranked) <= 32
    assert ranked.snapshot() == (stable,)


def test_named_follows_adds_removes_and_clear(owner: mockhttp.Server) -> None:
    """``named``: the mocks of a name, the first tried first, kept up to date by each change
    (the admin API's name checks and lookups, in O(1))."""
    ranked = Ranked()
    a = ActiveMock(mockhttp.get("/a", name="chat"), owner, 1)
    b = ActiveMock(mockhttp.get("/b", name="chat", priority=-1), owner, 2)
    c = ActiveMock(mockhttp.get("/c", name="chat"), owner, 3)
    plain = ActiveMock(mockhttp.get("/d"), owner, 4)
    ranked.change([a, b, plain], ())
    assert ranked.named("chat") == [a, b]
    ranked.change([c], [a])
    assert ranked.named("chat") == [c, b]
    ranked.change([], [b, c, b])
    assert ranked.named("chat") == []
    ranked.change([a], [])
    ranked.clear()
    assert ranked.named("chat") == []
    assert ranked.named("nothing") == []


def test_on_change_is_told_after_each_change_is_published(handle: Handles) -> None:
    ranked = Ranked()
    seen: list[tuple[ActiveMock, ...]] = []
    ranked.on_change = lambda: seen.append(ranked.snapshot())
    a, b = handle(), handle()
    ranked.change([a], ())
    ranked.change([b], [a])
    ranked.change((), [a])  # not registered: no change, nothing told
    ranked.clear()
    assert seen == [(a,), (b,), ()]
