"""route(request, entries, states): which mock answers, with which reply and faults.

Real mocks and requests; the entries are the plain records the server's ``ActiveMock``
stands for (a mock and its count), kept here as the caller keeps them: an answer counts
only when the caller records it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pytest

import mockhttp
from mockhttp import fault
from mockhttp._core._errors import ConfigError, VerificationError
from mockhttp._core._mock import Mock
from mockhttp._core._request import Headers, Request
from mockhttp._core._route import Answer, Miss, limit_of, route


@dataclass
class Entry:
    mock: Mock
    call_count: int = 0

    @property
    def exhausted(self) -> bool:
        limit = limit_of(self.mock)
        return limit is not None and self.call_count >= limit


def served(
    request: Request, entries: Sequence[Entry], states: Mapping[str, str] | None = None
) -> tuple[Answer[Entry] | Miss, Mapping[str, str]]:
    """Route, then record the answer as the server does (count, states)."""
    states = {} if states is None else states
    found = route(request, entries, states)
    if isinstance(found, Answer):
        found.entry.call_count += 1
        states = found.states
    return found, states


def answered(found: Answer[Entry] | Miss) -> Answer[Entry]:
    assert isinstance(found, Answer), found
    return found


def body(found: Answer[Entry] | Miss) -> bytes:
    reply = answered(found).reply
    assert reply is not None
    return reply.content


def test_the_first_entry_that_matches_answers_in_the_order_given() -> None:
    a = Entry(mockhttp.get("/x").reply(mockhttp.ok().body("a")))
    b = Entry(mockhttp.get("/x").reply(mockhttp.ok().body("b")))
    other = Entry(mockhttp.get("/y").reply(mockhttp.ok().body("y")))
    assert body(route(Request("GET", "/x"), [other, a, b], {})) == b"a"
    assert body(route(Request("GET", "/x"), [b, a], {})) == b"b"
    found = answered(route(Request("GET", "/y?q=1"), [a, other], {}))
    assert found.entry is other
    assert found.index == 0
    assert found.error is None


def test_head_is_answered_by_a_get_mock_when_no_head_mock_matches() -> None:
    get = Entry(mockhttp.get("/x").reply(mockhttp.ok().body("got")))
    head = Entry(mockhttp.request("HEAD", "/x").reply(mockhttp.status(204)))
    assert answered(route(Request("HEAD", "/x"), [get], {})).entry is get
    assert answered(route(Request("HEAD", "/x"), [get, head], {})).entry is head
    assert isinstance(route(Request("POST", "/x"), [get], {}), Miss)


def test_a_scenario_moves_as_data_and_the_mapping_given_is_never_changed() -> None:
    first = Entry(
        mockhttp.get("/s").scenario("flow", "Started", "second").reply(mockhttp.ok().body("1"))
    )
    second = Entry(mockhttp.get("/s").scenario("flow", "second").reply(mockhttp.ok().body("2")))
    start: dict[str, str] = {}
    found, states = served(Request("GET", "/s"), [first, second], start)
    assert body(found) == b"1"
    assert states == {"flow": "second"}
    assert start == {}  # in and out as data
    found, after = served(Request("GET", "/s"), [first, second], states)
    assert body(found) == b"2"
    assert after is states  # no move: the same mapping back


def test_a_sequence_gives_its_replies_by_index_then_repeats_the_last() -> None:
    entry = Entry(mockhttp.get("/q").replies(mockhttp.ok().body("one"), mockhttp.ok().body("two")))
    got = [body(served(Request("GET", "/q"), [entry])[0]) for _ in range(3)]
    assert got == [b"one", b"two", b"two"]
    assert entry.call_count == 3


def test_a_sequence_that_ends_unmatched_stops_matching() -> None:
    entry = Entry(mockhttp.get("/q").replies(mockhttp.ok(), exhausted="unmatched"))
    fallback = Entry(mockhttp.get("/q").reply(mockhttp.status(410)))
    assert answered(served(Request("GET", "/q"), [entry, fallback])[0]).entry is entry
    assert answered(served(Request("GET", "/q"), [entry, fallback])[0]).entry is fallback


def test_a_sequence_that_ends_in_error_counts_the_call_and_says_why() -> None:
    entry = Entry(mockhttp.get("/q").replies(mockhttp.ok(), exhausted="error"))
    served(Request("GET", "/q"), [entry])
    found = answered(served(Request("GET", "/q"), [entry])[0])
    assert found.reply is None
    assert isinstance(found.error, VerificationError)
    assert "was called 2 times, and it has 1 reply (exhausted='error')" in str(found.error)
    assert entry.call_count == 2


def test_times_exhausts_an_entry_and_the_miss_says_it_has_answered_them() -> None:
    entry = Entry(mockhttp.get("/t", times=2).reply(mockhttp.ok()))
    for _ in range(2):
        assert isinstance(served(Request("GET", "/t"), [entry])[0], Answer)
    miss = served(Request("GET", "/t"), [entry])[0]
    assert isinstance(miss, Miss)
    assert "has answered all its `times` or `replies`" in miss.explanation.text


def test_faults_are_chosen_per_index_the_replys_own_then_the_mocks() -> None:
    cut = fault.close_after_events(1)
    slow = fault.latency(0.5)
    mock = (
        mockhttp.get("/f")
        .replies((mockhttp.ok().body("a"), [cut]), mockhttp.ok().body("b"))
        .pipe(slow)
    )
    entry = Entry(mock)
    assert answered(served(Request("GET", "/f"), [entry])[0]).faults == (cut, slow)
    second = answered(served(Request("GET", "/f"), [entry])[0])
    assert second.faults == (slow,)
    assert second.index == 1


def test_a_handler_is_asked_for_the_reply_and_its_error_is_kept() -> None:
    def handler(request: Request, name: str) -> mockhttp.Reply:
        return mockhttp.ok().body(f"hi {name} {request.query}")

    entry = Entry(mockhttp.get("/hi/{name}").respond_with(handler))
    assert body(route(Request("GET", "/hi/ann?x=1"), [entry], {})) == b"hi ann (('x', '1'),)"

    def wrong(request: Request) -> object:
        return "not a reply"

    broken = Entry(mockhttp.get("/bad").respond_with(wrong))  # type: ignore[arg-type]
    found = answered(route(Request("GET", "/bad"), [broken], {}))
    assert isinstance(found.error, ConfigError)
    assert found.reply is None


def test_a_miss_carries_its_report_and_replies_with_it_as_text_or_json() -> None:
    entries = [Entry(mockhttp.post("/v1/chat").reply(mockhttp.ok()))]
    miss = route(Request("GET", "/v1/chat"), entries, {})
    assert isinstance(miss, Miss)
    assert miss.explanation.text.startswith("no mock matched GET /v1/chat")
    assert "closest: mock POST /v1/chat" in miss.explanation.text
    text = miss.reply(404)
    assert text.status_code == 404
    assert text.content == miss.explanation.text.encode() + b"\n"
    wants_json = Request("GET", "/v1/chat", Headers((("Accept", "application/json"),)))
    miss = route(wants_json, entries, {})
    assert isinstance(miss, Miss)
    teapot = miss.reply(418)
    assert ("Content-Type", "application/json") in teapot.headers
    assert json.loads(teapot.content) == miss.explanation.to_json()


@pytest.mark.parametrize(
    ("times", "replies", "exhausted", "limit"),
    [
        (None, 0, "repeat", None),
        (3, 0, "repeat", 3),
        (None, 2, "unmatched", 2),
        (1, 2, "unmatched", 1),
    ],
)
def test_limit_of(times: int | None, replies: int, exhausted: str, limit: int | None) -> None:
    mock = mockhttp.get("/l", times=times)
    if replies:
        mock = mock.replies(*[mockhttp.ok()] * replies, exhausted=exhausted)  # type: ignore[arg-type]
    assert limit_of(mock) == limit


def test_a_replys_own_faults_come_before_the_mocks() -> None:
    """A reply kind may aim faults at one answer (``Reply.pipe``); the route gives them
    first, then the mock's own."""

    class Aimed(mockhttp.ReplyKind):
        file_key = "aimed"

        def to_args(self) -> dict[str, object]:
            return {}

        def build(self, request: Request) -> mockhttp.Reply:
            reply = mockhttp.ok().body("x")
            return reply.pipe(fault.latency(0.5)) if request.path == "/cut" else reply

    mock = mockhttp.request("GET", None).reply(Aimed()).pipe(fault.limit_data(1))
    entries = [Entry(mock)]
    cut = answered(served(Request("GET", "/cut"), entries)[0])
    assert cut.faults == (fault.latency(0.5), fault.limit_data(1))
    plain = answered(served(Request("GET", "/plain"), entries)[0])
    assert plain.faults == (fault.limit_data(1),)
    assert mockhttp.ok().pipe(fault.reset()).pipe(fault.reset()).faults == (fault.reset(),) * 2
