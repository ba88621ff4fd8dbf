"""The journal: the one writer of a call's counters, limits, compact entries, the budget."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import mockhttp
from mockhttp import VerificationError
from mockhttp._core._request import Headers, Request
from mockhttp._server._journal import (
    BODY_KEPT,
    Call,
    CallList,
    Journal,
    count_sent,
    seal,
    unmatched_calls,
)


def call(path: str = "/j", body: bytes = b"") -> Call:
    return Call(Request("POST", path, Headers((("X-A", "1"),)), body), None, 200)


def test_count_sent_counts_wire_and_body_bytes_and_keeps_the_body() -> None:
    c = call()
    count_sent(c, 20, 0, b"HTTP/1.1 200 OK\r\n\r\n", 0, 0)  # a head: no body
    frame = b"5\r\nhello\r\n"
    count_sent(c, len(frame), 5, frame, 3, 1)  # a chunk frame: the body after its size line
    count_sent(c, 3, 3, b"abc", 0, 1)
    assert (c.wire_bytes, c.body_bytes, bytes(c.body_sent), c.events) == (
        20 + len(frame) + 3,
        8,
        b"helloabc",
        1,
    )


def test_count_sent_keeps_at_most_body_kept_bytes_and_events_only_grow() -> None:
    c = call()
    count_sent(c, BODY_KEPT - 1, BODY_KEPT - 1, b"a" * (BODY_KEPT - 1), 0, 3)
    count_sent(c, 10, 10, b"b" * 10, 0, 2)
    assert len(c.body_sent) == BODY_KEPT
    assert c.body_sent.endswith(b"ab")
    assert c.body_bytes == BODY_KEPT + 9
    assert c.events == 3


def test_the_journal_keeps_about_its_limit_of_calls() -> None:
    journal = Journal(limit=8, nbytes=None)
    calls = [call(f"/{i}") for i in range(20)]
    for c in calls:
        journal.add(c)
    assert 8 <= len(journal.calls) <= 9
    assert journal.calls[-1] is calls[-1]


def test_a_sealed_call_is_compact_and_reads_back_equal() -> None:
    journal = Journal(limit=None, nbytes=None)
    mock = mockhttp.post("/j")
    c = Call(Request("POST", "/j", Headers((("X-A", "1"),)), b"{}"), mock, 201)
    journal.add(c)
    count_sent(c, 4, 2, b"ok", 0, 0)
    c.outcome = "complete"
    journal.ended(c, kept=True)
    seal(c)
    inside: object = list.__getitem__(journal.calls, 0)
    assert type(inside) is bytes  # compact inside
    back = journal.calls[0]
    assert back is not c
    assert (back.request, back.mock, back.status, back.wire_bytes) == (c.request, mock, 201, 4)
    assert (bytes(back.body_sent), back.outcome, back.finished.is_set()) == (
        b"ok",
        "complete",
        True,
    )


def test_unmatched_calls_stay_whole_and_are_listed() -> None:
    journal = Journal(limit=None, nbytes=None)
    missed = call("/none")
    journal.add(missed)
    journal.ended(missed, kept=True)
    seal(missed)
    assert unmatched_calls(journal.calls) == [missed]


def test_the_byte_budget_drops_the_oldest_bodies_and_keeps_their_digests() -> None:
    journal = Journal(limit=None, nbytes=100)
    mock = mockhttp.post("/j")
    first, second = (Call(Request("POST", "/j", body=b"x" * 60), mock, 200) for _ in range(2))
    for c in (first, second):
        journal.add(c)
        journal.ended(c, kept=True)
    assert first.request.body == b""
    assert first.dropped is not None
    assert first.dropped.request_bytes == 60
    assert second.request.body == b"x" * 60


def test_a_call_not_kept_is_not_counted_in_the_budget() -> None:
    journal = Journal(limit=None, nbytes=100)
    admin = [call("/__mockhttp/mocks", b"y" * 60) for _ in range(3)]
    for c in admin:
        journal.add(c)
        journal.ended(c, kept=False)
    assert all(c.request.body == b"y" * 60 and c.dropped is None for c in admin)
    assert len(journal.budget) == 0


def test_a_small_journal_limit_keeps_exactly_that_many_calls() -> None:
    """journal_limit=2 keeps the newest 2 calls after every request (not 2 or 3 by turns);
    POST /__mockhttp/requests/count says when its count is bounded by it."""
    import httpx

    from mockhttp import Server, get

    with Server(journal_limit=2, admin=True) as server:
        server.mock(get("/x"))
        seen = []
        for i in range(7):
            httpx.get(server.url + f"/x?i={i}")
            seen.append(len(server.journal))
        assert seen == [1, 2, 2, 2, 2, 2, 2]
        assert [c.request.query_value("i") for c in server.journal] == ["5", "6"]
        counted = httpx.post(
            server.url + "/__mockhttp/requests/count",
            headers={"Content-Type": "application/yaml"},
            content="request: {path: /x}",
        ).json()
        assert counted["count"] == 2
        assert counted["exact"] is False
        assert counted["dropped"] == 5
        assert "the 5 oldest were dropped" in counted["message"]
        assert server.mocks[0].call_count == 7
        server.clear_journal()
        httpx.get(server.url + "/x")
        exact = httpx.post(
            server.url + "/__mockhttp/requests/count",
            headers={"Content-Type": "application/yaml"},
            content="request: {path: /x}",
        ).json()
        assert exact == {"count": 1, "exact": True, "dropped": 0}


def test_each_event_keeps_its_first_write_time_up_to_the_bound(monkeypatch: Any) -> None:
    from mockhttp._server import _journal

    call = _journal.Call(Request("GET", "/s", Headers(()), b""))
    assert call.event_times is None  # (no event: nothing kept, nothing stored)
    _journal.count_sent(call, 20, 0, b"", 0, 0)
    assert call.__dict__.get("event_times") is None
    _journal.count_sent(call, 20, 9, b"data: a\n\n", 0, 1)
    _journal.count_sent(call, 40, 18, b"data: b\n\ndata: c\n\n", 0, 3)  # two in one write
    times: list[float] = list(call.event_times or ())
    assert len(times) == 3
    assert times[0] <= times[1]
    assert times[1] == times[2]
    monkeypatch.setattr(_journal, "EVENT_TIMES_KEPT", 4)
    _journal.event_began(call, 10)
    assert (call.events, len(call.event_times or ())) == (10, 4)


# -- a sealed call reads back equal, whatever it holds (a property) --------------------------

TOKEN = st.text("abcdefghijklmnopqrstuvwxyz-", min_size=1, max_size=12)
OUTCOMES = ["complete", "closed", "reset", "stalled", "client hung up", "server closed"]


@st.composite
def sealed_calls(draw: st.DrawFn) -> dict[str, Any]:
    return {
        "method": draw(st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH"])),
        "target": "/" + draw(TOKEN) + draw(st.sampled_from(["", "?a=1", "?q=x&q=y"])),
        "headers": tuple(draw(st.lists(st.tuples(TOKEN, st.text(max_size=20)), max_size=5))),
        "body": draw(st.binary(max_size=300)),
        "version": draw(st.sampled_from(["1.0", "1.1", "2"])),
        "status": draw(st.sampled_from([None, 200, 201, 404, 500])),
        "outcome": draw(st.sampled_from(OUTCOMES)),
        "sent": draw(st.binary(max_size=300)),
        "events": draw(st.integers(0, 50)),
        "params": draw(st.dictionaries(TOKEN, st.text(max_size=10), max_size=3)),
    }


@given(sealed_calls())
def test_any_sealed_call_reads_back_equal(made: dict[str, Any]) -> None:
    journal = Journal(limit=None, nbytes=None)
    mock = mockhttp.request(made["method"], "/x")
    request = Request(
        made["method"], made["target"], Headers(made["headers"]), made["body"],
        http_version=made["version"],
    )  # fmt: skip
    c = Call(request, mock, made["status"], path_params=made["params"])
    journal.add(c)
    count_sent(c, len(made["sent"]) + 40, len(made["sent"]), made["sent"], 0, made["events"])
    c.outcome = made["outcome"]
    journal.ended(c, kept=True)
    seal(c)
    inside: object = list.__getitem__(journal.calls, 0)
    assert isinstance(inside, bytes | tuple)  # compact inside
    back = journal.calls[0]
    assert back.request == request
    assert tuple(back.request.headers.items_list) == made["headers"]
    assert back.mock is mock
    assert (back.status, back.outcome, back.events) == (
        made["status"],
        made["outcome"],
        made["events"],
    )
    assert bytes(back.body_sent) == made["sent"]
    assert (back.body_bytes, back.wire_bytes) == (c.body_bytes, c.wire_bytes)
    assert back.path_params == made["params"]
    assert back.time == c.time
    assert back.finished.is_set()


# -- CallList: a list of calls, compact inside -----------------------------------------------


def _sealed_list(n: int) -> tuple[Journal, list[Call]]:
    journal = Journal(limit=None, nbytes=None)
    mock = mockhttp.get("/l")
    made = []
    for i in range(n):
        c = Call(Request("GET", f"/l?i={i}"), mock, 200)
        journal.add(c)
        made.append(c)
        _ = journal.calls[i]  # seen by user code before its end: it keeps its identity
        c.outcome = "complete"
        journal.ended(c, kept=True)
        seal(c)
    return journal, made


def test_calls_seen_before_their_end_keep_their_identity() -> None:
    journal, made = _sealed_list(3)
    assert list(journal.calls) == made
    assert journal.calls == made
    assert journal.calls != made[:2]
    assert journal.calls[-1] is made[-1]
    assert journal.calls.last is made[-1]
    assert journal.calls[1:] == made[1:]
    assert list(reversed(journal.calls)) == made[::-1]
    assert made[1] in journal.calls
    assert journal.calls.index(made[2]) == 2
    assert journal.calls.count(made[0]) == 1
    assert journal.calls.copy() == made
    assert [*journal.calls, made[0]] == [*made, made[0]]
    assert repr(journal.calls).startswith("CallList([<Call GET /l?i=0")


def test_a_call_not_in_the_list_is_not_found() -> None:
    journal, _ = _sealed_list(2)
    stranger = call("/other")
    assert stranger not in journal.calls
    assert journal.calls.count(stranger) == 0
    with pytest.raises(ValueError, match="is not in the list"):
        journal.calls.index(stranger)


def test_calls_unseen_before_their_end_read_back_equal_not_identical() -> None:
    journal = Journal(limit=None, nbytes=None)
    mock = mockhttp.get("/u")
    c = Call(Request("GET", "/u"), mock, 200)
    journal.add(c)
    c.outcome = "complete"
    journal.ended(c, kept=True)
    seal(c)
    back = journal.calls[0]
    assert back is not c
    assert (back.request, back.status, back.outcome) == (c.request, 200, "complete")


def test_an_empty_lists_last_says_no_calls() -> None:
    with pytest.raises(VerificationError, match="no calls were made"):
        _ = CallList().last
    assert CallList() == []
    assert CallList() != [call()]
    assert (CallList() == "x") is False


def test_a_call_knows_its_last_event_id_and_event_ids() -> None:
    c = Call(Request("GET", "/s", Headers((("Last-Event-ID", "7"),))), None, 200)
    sent = b"id: 8\ndata: a\n\nid: 9\ndata: b\n\nid: 10\ndata: cut"
    count_sent(c, len(sent), len(sent), sent, 0, 3)
    assert c.last_event_id == "7"
    assert c.event_ids == ["8", "9"]  # the cut event is not delivered
    assert c.summary().startswith("GET /s → no match (200), in progress")
