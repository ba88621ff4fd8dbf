"""The journal's byte budget on its own (pure: sizes and places in, places to drop out)."""

from __future__ import annotations

import random

from mockhttp._server import _budget
from mockhttp._server._budget import Budget


def test_the_oldest_go_first_until_the_kept_bytes_fit() -> None:
    dropped: list[tuple[int, ...]] = []
    budget = Budget(100, drop=dropped.append)
    budget.keep(60, (1, 7, 0))
    budget.keep(30, (2, 7, 1, 9, 0))
    assert dropped == []
    assert (budget.kept, len(budget)) == (90, 2)
    budget.keep(50, (3,))
    assert dropped == [(1, 7, 0)]
    assert (budget.kept, len(budget)) == (80, 2)
    budget.keep(200, (4, 1, 1))  # larger than the whole budget: everything goes, itself too
    assert dropped == [(1, 7, 0), (2, 7, 1, 9, 0), (3,), (4, 1, 1)]
    assert (budget.kept, len(budget)) == (0, 0)


def test_a_long_run_drops_in_order_and_keeps_a_bounded_array() -> None:
    """Records of every length, a million bytes through a small budget: the drops come in
    the order kept, and the array is compacted as it goes (amortised O(1) a call)."""
    rng = random.Random(7)
    dropped: list[tuple[int, ...]] = []
    budget = Budget(1_000, drop=dropped.append)
    kept: list[tuple[int, tuple[int, ...]]] = []
    for seq in range(20_000):
        where = (seq, *(rng.randrange(1 << 40) for _ in range(rng.choice((0, 2, 4)))))
        size = rng.randrange(1, 120)
        kept.append((size, where))
        budget.keep(size, where)
        assert budget.kept <= 1_000
    assert dropped == [where for _, where in kept[: len(dropped)]]
    assert budget.kept == sum(size for size, _ in kept[len(dropped) :])
    assert len(budget) == len(kept) - len(dropped)
    assert len(budget._flat) <= 2 * 7 * (len(budget) + 1)  # not every record ever kept


def test_most_bounds_the_calls_tracked() -> None:
    dropped: list[tuple[int, ...]] = []
    budget = Budget(10**9, most=10, drop=dropped.append)  # tracks 2 * 10 + 16 calls
    for seq in range(100):
        budget.keep(1, (seq,))
    assert len(budget) == 36
    assert dropped == [(seq,) for seq in range(64)]


def test_add_of_two_is_keep_with_five_places() -> None:
    """A lane answer's record (``add`` of ``two``) is ``keep``'s with its five places:
    the same array, the same drops in the same order."""
    one_dropped: list[tuple[int, ...]] = []
    two_dropped: list[tuple[int, ...]] = []
    one = Budget(100, most=3, drop=one_dropped.append)
    two = Budget(100, most=3, drop=two_dropped.append)
    for seq in range(40):
        size = 7 + seq % 30
        one.keep(size, (seq, 11, seq, 12, 2 * seq))
        two.add(size, _budget.two(size, 5, seq, 11, seq, 12, 2 * seq))
        assert (one.kept, len(one)) == (two.kept, len(two))
    assert one._flat == two._flat
    assert one_dropped == two_dropped
    assert len(two_dropped) > 10
