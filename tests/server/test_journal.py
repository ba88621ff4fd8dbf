"""The journal: the one writer of a call's counters, limits, compact entries, the budget."""

from __future__ import annotations

from typing import Any

import mockhttp
from mockhttp._core._request import Headers, Request
from mockhttp._server._journal import BODY_KEPT, Call, Journal, count_sent, seal, unmatched_calls


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
