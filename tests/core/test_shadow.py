"""Which mocks can never answer: a mock ranked above takes every request they match."""

from __future__ import annotations

import mockhttp
from mockhttp import llm, match
from mockhttp._core._mock import as_mock
from mockhttp._core._shadow import shadowed, takes_every_request


def test_a_later_plain_mock_of_the_same_method_and_path_hides_the_earlier() -> None:
    mocks = [mockhttp.get("/a"), mockhttp.get("/b"), mockhttp.get("/a")]
    assert shadowed(mocks) == [(0, 2)]


def test_a_mock_with_anything_that_can_turn_a_request_down_hides_nothing() -> None:
    takers = [
        mockhttp.get("/a").header("x-team", "1"),
        mockhttp.get("/a").query("v", "2"),
        mockhttp.get("/a").body(match.contains("x")),
        mockhttp.get("/a", times=1),
        mockhttp.get("/a").scenario("s", "Started"),
        mockhttp.request(match.any_of("GET", "POST"), "/a"),
    ]
    for later in takers:
        assert not takes_every_request(later)
        assert shadowed([mockhttp.get("/a"), later]) == []


def test_rank_decides_priority_first_then_the_latest() -> None:
    low, high = mockhttp.get("/a", priority=-1), mockhttp.get("/a")
    assert shadowed([high, low]) == [(1, 0)]  # added later, but ranked lower
    assert shadowed([mockhttp.get("/a", priority=5), mockhttp.get("/a")]) == [(1, 0)]


def test_any_method_or_any_path_hides_the_more_specific() -> None:
    catch_all = mockhttp.request(None, None)
    assert shadowed([mockhttp.post("/x"), mockhttp.get("/y"), catch_all]) == [(0, 2), (1, 2)]
    assert shadowed([mockhttp.post("/x"), mockhttp.request(None, "/x")]) == [(0, 1)]
    assert shadowed([mockhttp.post("/x"), mockhttp.get("/x")]) == []  # another method


def test_two_conversations_with_no_request_hide_one_another() -> None:
    first = as_mock(llm.conversation(llm.turn("from a")))
    second = as_mock(llm.conversation(llm.turn("from b")))
    told_apart = first.header("x-agent", "a")
    assert shadowed([first, second]) == [(0, 1)]
    assert shadowed([told_apart, second]) == [(0, 1)]  # b still takes a's requests
    assert shadowed([second, told_apart]) == []  # a's header: b answers the rest
