"""Sequences of replies and named scenarios (WireMock's), in Python and in mock files."""

from __future__ import annotations

import httpx
import pytest

import mockhttp
from mockhttp import Event, fault


def test_replies_answer_in_order_then_the_last_repeats(server: mockhttp.Server) -> None:
    chat = server.mock(
        mockhttp.post("/v1/chat").replies(
            mockhttp.ok().json({"turn": "tool call"}),
            mockhttp.ok().json({"turn": "text"}),
        )
    )
    turns = [httpx.post(server.url + "/v1/chat").json()["turn"] for _ in range(4)]
    assert turns == ["tool call", "text", "text", "text"]
    assert chat.call_count == 4


def test_exhausted_replies_can_stop_matching(server: mockhttp.Server) -> None:
    server.mock(mockhttp.get("/x", name="fallback").reply(mockhttp.status(503)))
    server.mock(
        mockhttp.get("/x", name="seq").replies(
            mockhttp.ok().body("1"), mockhttp.ok().body("2"), exhausted="unmatched"
        )
    )
    got = [httpx.get(server.url + "/x") for _ in range(3)]
    assert [(r.status_code, r.text) for r in got[:2]] == [(200, "1"), (200, "2")]
    assert got[2].status_code == 503


def test_exhausted_replies_can_be_an_error(server: mockhttp.Server) -> None:
    server.mock(mockhttp.get("/x", name="seq").replies(mockhttp.ok(), exhausted="error"))
    assert httpx.get(server.url + "/x").status_code == 200
    assert httpx.get(server.url + "/x").status_code == 500
    with pytest.raises(mockhttp.VerificationError, match="called 2 times, and it has 1 reply"):
        server.check()


def test_each_reply_may_have_its_own_faults(server: mockhttp.Server) -> None:
    stream = mockhttp.ok().event_stream(Event(data="a"), Event(data="b"))
    mock = server.mock(
        mockhttp.get("/s").replies(
            (stream, [fault.close_after_events(1)]), stream, exhausted="error"
        )
    )
    with httpx.Client() as client:
        with pytest.raises(httpx.RemoteProtocolError):
            client.get(server.url + "/s").read()
        assert client.get(server.url + "/s").text == "data: a\n\ndata: b\n\n"
    assert [c.events for c in mock.calls] == [1, 2]


def test_scenario_states_move_and_reset_with_the_server(server: mockhttp.Server) -> None:
    def agent() -> list[mockhttp.ActiveMock]:
        return server.mock(
            mockhttp.post("/v1/chat", name="tool turn")
            .scenario("agent", state="Started", next_state="tool done")
            .reply(mockhttp.ok().json({"turn": "tool"})),
            mockhttp.post("/v1/chat", name="text turn")
            .scenario("agent", state="tool done", next_state="finished")
            .reply(mockhttp.ok().json({"turn": "text"})),
        )

    agent()

    def post() -> httpx.Response:
        return httpx.post(server.url + "/v1/chat")

    assert post().json() == {"turn": "tool"}
    assert server.scenario_state("agent") == "tool done"
    assert post().json() == {"turn": "text"}
    assert server.scenario_state("agent") == "finished"
    miss = post()
    assert miss.status_code == 404
    assert "scenario: scenario 'agent' is in state 'finished', expected" in miss.text
    server.reset()
    assert server.scenario_state("agent") == "Started"
    agent()
    assert post().json() == {"turn": "tool"}
    server.set_scenario_state("agent", "tool done")
    assert post().json() == {"turn": "text"}
    server.reset_scenarios()
    assert post().json() == {"turn": "tool"}


def test_clear_journal_keeps_mocks_and_starts_sequences_over(server: mockhttp.Server) -> None:
    seq = server.mock(mockhttp.get("/x").replies(mockhttp.ok().body("1"), mockhttp.ok().body("2")))
    assert httpx.get(server.url + "/x").text == "1"
    server.clear_journal()
    assert (seq.call_count, len(seq.calls), len(server.journal)) == (0, 0, 0)
    assert server.mocks == (seq,)
    assert httpx.get(server.url + "/x").text == "1"


def test_replies_and_scenarios_in_a_mock_file(server: mockhttp.Server) -> None:
    mocks = mockhttp.loads(
        """
name: turns
request: {method: POST, path: /v1/chat}
scenario: {name: agent, state: Started, next_state: answered}
replies:
  - json: {turn: tool}
  - status: 200
    event_stream:
      events: [{data: a}, {data: b}]
    pipe: [[close_after_events, 1]]
exhausted: error
---
request: {method: POST, path: /v1/chat}
scenario: {name: agent, state: answered}
response: {json: {turn: after}}
"""
    )
    turns = mocks[0]
    assert turns.exhausted == "error"
    assert len(turns.sequence) == 2
    assert turns.scenario_of == turns.scenario("agent", "Started", "answered").scenario_of
    again = mockhttp.loads(mockhttp.dump(mocks))
    assert again == mocks
    server.mock(mocks)
    assert httpx.post(server.url + "/v1/chat").json() == {"turn": "tool"}
    assert httpx.post(server.url + "/v1/chat").json() == {"turn": "after"}
    server.reset_scenarios()
    with pytest.raises(httpx.RemoteProtocolError):  # the second reply, cut after one event
        httpx.post(server.url + "/v1/chat").read()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "request: {path: /x}\nresponse: {}\nreplies: [{}]\n",
            "found both 'response' and 'replies', expected one of them",
        ),
        ("request: {path: /x}\nreplies: []\n", "replies: found an empty list"),
        ("request: {path: /x}\nresponse: {}\nexhausted: error\n", "exhausted: goes with replies"),
        ("request: {path: /x}\nreplies: [{}]\nexhausted: never\n", "exhausted="),
        ("request: {path: /x}\nscenario: {state: a}\n", "scenario: missing key 'name'"),
    ],
)
def test_mock_file_errors_for_replies_and_scenarios(text: str, message: str) -> None:
    with pytest.raises(mockhttp.MockfileError) as raised:
        mockhttp.loads(text, "m.yaml")
    assert message in str(raised.value)


def test_an_exhausted_sequence_is_explained(server: mockhttp.Server) -> None:
    server.mock(mockhttp.get("/x", name="seq").replies(mockhttp.ok(), exhausted="unmatched"))
    httpx.get(server.url + "/x")
    miss = httpx.get(server.url + "/x")
    assert miss.status_code == 404
    assert "mock 'seq'\n    (matches, but has answered all its `times` or `replies`)" in miss.text
