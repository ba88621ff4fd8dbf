"""Per-test isolation, the pure part: which test a request names, and the order in which
a test's mocks and the shared ones are tried (``_core/_isolation``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import pytest

import mockhttp
from mockhttp._core._isolation import (
    MAX_TEST_ID,
    TEST_HEADER,
    TEST_PREFIX,
    BadTest,
    ForTest,
    bad_test_id,
    ranked_for_test,
    which_test,
)
from mockhttp._core._mock import Mock
from mockhttp._core._request import Headers, Request
from mockhttp._core._route import Answer, Choice, Claim, Miss, choose, route_shared


def _request(target: str = "/v1/chat", *fields: tuple[str, str]) -> Request:
    return Request("GET", target, Headers(tuple(fields)), b"", "1.1")


# -- which_test: the header --------------------------------------------------------------


def test_a_request_without_a_test_names_none() -> None:
    assert which_test(_request("/v1/chat", ("Host", "x"), ("Accept", "*/*")), TEST_HEADER) is None


def test_the_header_names_the_test_in_any_case() -> None:
    request = _request("/v1/chat", ("Host", "x"), ("X-MockHTTP-Test", "gw0-abc"))
    found = which_test(request, TEST_HEADER)
    assert found == ForTest("gw0-abc", request, None)


def test_the_header_value_is_stripped_of_spaces() -> None:
    found = which_test(_request("/", ("x-mockhttp-test", "  t1 ")), TEST_HEADER)
    assert isinstance(found, ForTest)
    assert found.id == "t1"


def test_a_header_of_the_same_length_is_not_taken_for_it() -> None:
    # accept-encoding has the length of x-mockhttp-test: compared by name after length
    request = _request("/", ("accept-encoding", "gzip"), ("accept-language", "en"))
    assert which_test(request, TEST_HEADER) is None


def test_another_header_name_is_read_when_the_server_names_it() -> None:
    request = _request("/", ("x-test-id", "t9"), ("x-mockhttp-test", "other"))
    found = which_test(request, "x-test-id")
    assert isinstance(found, ForTest)
    assert found.id == "t9"


def test_the_first_of_repeated_headers_wins() -> None:
    request = _request("/", ("x-mockhttp-test", "first"), ("x-mockhttp-test", "second"))
    found = which_test(request, TEST_HEADER)
    assert isinstance(found, ForTest)
    assert found.id == "first"


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("", "empty"),
        ("a b", "characters other than"),
        ("a/b", "characters other than"),
        ("é", "characters other than"),
        ("x" * (MAX_TEST_ID + 1), f"at most {MAX_TEST_ID}"),
    ],
)
def test_a_bad_header_value_is_a_bad_test_saying_why(value: str, why: str) -> None:
    request = _request("/", ("x-mockhttp-test", value))
    found = which_test(request, TEST_HEADER)
    assert isinstance(found, BadTest)
    assert found.request is request
    assert why in found.message
    assert found.message.startswith("x-mockhttp-test: ")


def test_a_control_character_is_shown_escaped() -> None:
    why = bad_test_id("a\x1bb")
    assert why is not None
    assert "\\x1b" in why
    assert "\x1b" not in why


@pytest.mark.parametrize("value", ["t1", "gw0-0123abcd", "a.b_c-d:e@f+g=h~i", "x" * MAX_TEST_ID])
def test_good_ids(value: str) -> None:
    assert bad_test_id(value) is None


# -- which_test: the URL prefix ----------------------------------------------------------


def test_the_prefix_names_the_test_and_is_stripped() -> None:
    request = _request("/__test/t1/v1/chat/completions?stream=1", ("Host", "x"))
    found = which_test(request, TEST_HEADER)
    assert isinstance(found, ForTest)
    assert (found.id, found.prefix) == ("t1", "/__test/t1")
    inner = found.request
    assert inner.target == "/v1/chat/completions?stream=1"
    assert inner.path == "/v1/chat/completions"
    assert inner.query == (("stream", "1"),)
    assert inner.headers is request.headers
    assert inner.method == "GET"


@pytest.mark.parametrize(
    ("target", "stripped"), [("/__test/t1", "/"), ("/__test/t1/", "/"), ("/__test/t1?a=b", "/?a=b")]
)
def test_the_prefix_alone_is_the_root(target: str, stripped: str) -> None:
    found = which_test(_request(target), TEST_HEADER)
    assert isinstance(found, ForTest)
    assert found.request.target == stripped


def test_the_prefix_wins_over_the_header() -> None:
    found = which_test(_request("/__test/a/x", ("x-mockhttp-test", "b")), TEST_HEADER)
    assert isinstance(found, ForTest)
    assert found.id == "a"


def test_a_bad_prefix_id_is_a_bad_test() -> None:
    found = which_test(_request("/__test//x"), TEST_HEADER)
    assert isinstance(found, BadTest)
    assert f"URL prefix {TEST_PREFIX}ID/" in found.message
    found = which_test(_request("/__test/a%20b/x"), TEST_HEADER)
    assert isinstance(found, BadTest)
    assert "characters other than" in found.message


def test_a_path_that_only_looks_like_the_prefix_names_no_test() -> None:
    assert which_test(_request("/__tests/t1/x"), TEST_HEADER) is None
    assert which_test(_request("/x/__test/t1/"), TEST_HEADER) is None


def test_the_body_and_version_survive_the_strip() -> None:
    request = Request("POST", "/__test/t/v1", Headers(()), b'{"a":1}', "1.0")
    found = which_test(request, TEST_HEADER)
    assert isinstance(found, ForTest)
    assert (found.request.body, found.request.http_version) == (b'{"a":1}', "1.0")


# -- the scoping rule: a test's mocks first, then the shared ones ------------------------


@dataclass
class _Entry:
    mock: Mock
    id: int
    call_count: int = 0
    exhausted: bool = False


def _tally(
    counts: dict[int, int], states: Mapping[str, str] | None = None
) -> Callable[[Sequence[Claim]], Choice]:
    """A keeper of one test's counts, as the server keeps one per test (pure here)."""
    held = {"states": dict(states or {})}

    def tally(claims: Sequence[Claim]) -> Choice:
        found = choose(claims, counts, held["states"])
        counts.clear()
        counts.update(found.counts)
        return found

    return tally


def test_the_order_is_the_tests_then_the_shared() -> None:
    assert ranked_for_test((1, 2), (3, 4)) == (1, 2, 3, 4)
    assert ranked_for_test((), (3,)) == (3,)
    assert ranked_for_test((1,), ()) == (1,)


def test_a_tests_mock_overrides_a_shared_one_whatever_its_priority() -> None:
    shared = _Entry(mockhttp.get("/v1/models", priority=100).reply(mockhttp.ok().body("shared")), 1)
    own = _Entry(mockhttp.get("/v1/models").reply(mockhttp.ok().body("own")), 2)
    request = _request("/v1/models")
    found = route_shared(request, ranked_for_test([own], [shared]), _tally({}))
    assert isinstance(found, Answer)
    assert found.entry is own
    found = route_shared(request, ranked_for_test([], [shared]), _tally({}))
    assert isinstance(found, Answer)
    assert found.entry is shared


def test_the_shared_mocks_answer_what_the_tests_do_not_match() -> None:
    shared = _Entry(mockhttp.get("/health").reply(mockhttp.ok()), 1)
    own = _Entry(mockhttp.get("/v1/models").reply(mockhttp.ok()), 2)
    found = route_shared(_request("/health"), ranked_for_test([own], [shared]), _tally({}))
    assert isinstance(found, Answer)
    assert found.entry is shared


def test_each_test_counts_a_shared_sequence_from_its_start() -> None:
    seq = mockhttp.get("/next").replies(mockhttp.ok().body("1"), mockhttp.ok().body("2"))
    shared = _Entry(seq, 7)
    first: dict[int, int] = {}
    second: dict[int, int] = {}
    a1 = route_shared(_request("/next"), ranked_for_test([], [shared]), _tally(first))
    a2 = route_shared(_request("/next"), ranked_for_test([], [shared]), _tally(first))
    b1 = route_shared(_request("/next"), ranked_for_test([], [shared]), _tally(second))
    assert isinstance(a1, Answer)
    assert isinstance(a2, Answer)
    assert isinstance(b1, Answer)
    assert (a1.index, a2.index, b1.index) == (0, 1, 0)
    assert (first, second) == ({7: 2}, {7: 1})


def test_a_used_up_test_mock_falls_through_to_the_shared_one() -> None:
    once = _Entry(mockhttp.get("/x").times(1).reply(mockhttp.ok().body("own")), 2)
    shared = _Entry(mockhttp.get("/x").reply(mockhttp.ok().body("shared")), 1)
    counts: dict[int, int] = {}
    entries = ranked_for_test([once], [shared])
    first = route_shared(_request("/x"), entries, _tally(counts))
    second = route_shared(_request("/x"), entries, _tally(counts))
    assert isinstance(first, Answer)
    assert first.entry is once
    assert isinstance(second, Answer)
    assert second.entry is shared


def test_a_tests_scenario_state_is_its_own() -> None:
    step = mockhttp.get("/s").scenario("login", state="in", next_state="out")
    mock = _Entry(step.reply(mockhttp.ok()), 3)
    logged_in = _tally({}, {"login": "in"})  # one test's states
    found = route_shared(_request("/s"), [mock], logged_in)
    assert isinstance(found, Answer)
    assert found.states == {"login": "out"}
    fresh = _tally({})  # another test's: "Started"
    assert isinstance(route_shared(_request("/s"), [mock], fresh), Miss)
