"""``mockhttp check URL --profile sse-resume``: does the endpoint honour Last-Event-ID?"""

from __future__ import annotations

import json
import re

import pytest

import mockhttp
from mockhttp import Event
from mockhttp.contract.__main__ import main

EVENTS = [Event(data=f"token {i}", id=str(i)) for i in range(1, 6)]


def check(
    server: mockhttp.Server, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[int, str]:
    """Run the probe against ``/events`` in process: (exit status, stdout)."""
    status = main([server.url + "/events", "--profile", "sse-resume", *extra])
    return status, capsys.readouterr().out


def reconnect_gets(server: mockhttp.Server, again: mockhttp.Reply) -> None:
    """``/events`` sends EVENTS; a reconnect with ``Last-Event-ID: 3`` gets ``again``."""
    server.mock(mockhttp.get("/events").reply(mockhttp.ok().event_stream(*EVENTS)))
    server.mock(mockhttp.get("/events").header("last-event-id", "3").reply(again))


def findings(out: str) -> list[tuple[str, str]]:
    report = json.loads(out)
    return [(f["rule"], f["message"]) for e in report["exchanges"] for f in e["findings"]]


def test_a_resumable_stream_passes(
    server: mockhttp.Server, capsys: pytest.CaptureFixture[str]
) -> None:
    """K is the middle id ("3"); the reconnect gets 4 and 5 only: every rule passes."""
    reply = mockhttp.ok().event_stream(
        *(Event(data=f"token {i}") for i in range(1, 6)), resumable=True
    )
    stream = server.mock(mockhttp.get("/events").reply(reply))
    status, out = check(server, capsys, "--verbose")
    assert status == 0
    assert "== resume after Last-Event-ID 3" in out
    for rule in ("resume.status", "resume.no-duplicate", "resume.no-gap", "resume.same-data"):
        assert re.search(rf"^{re.escape(rule)} +pass", out, re.M), out
    first, second = stream.calls
    assert (first.last_event_id, second.last_event_id) == (None, "3")
    assert second.event_ids == ["4", "5"]
    assert first.request.headers["accept"] == "text/event-stream"


def test_a_replay_from_the_start_is_a_duplicate(
    server: mockhttp.Server, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ids but no resume: the reconnect repeats 1, 2 and 3, each a finding."""
    server.mock(mockhttp.get("/events").reply(mockhttp.ok().event_stream(*EVENTS)))
    status, out = check(server, capsys, "--json")
    assert status == 1
    assert findings(out) == [
        ("resume.no-duplicate", f'event id "{i}" was sent again: it is at or before '
         f'Last-Event-ID "3" (event {i - 1} of the first read)')
        for i in (1, 2, 3)
    ]  # fmt: skip


def test_a_skipped_event_is_a_gap(
    server: mockhttp.Server, capsys: pytest.CaptureFixture[str]
) -> None:
    """The reconnect sends event 5 but not 4."""
    reconnect_gets(server, mockhttp.ok().event_stream(EVENTS[4]))
    status, out = check(server, capsys, "--json")
    assert status == 1
    assert findings(out) == [
        ("resume.no-gap", '1 of the 2 events after Last-Event-ID "3" never arrived: id "4" '
         "(event 3 of the first read first)")
    ]  # fmt: skip


def test_other_data_under_the_same_id(
    server: mockhttp.Server, capsys: pytest.CaptureFixture[str]
) -> None:
    """An id that comes back with other data (a stream generated anew) is a finding."""
    again = [EVENTS[3], Event(data="token five", id="5")]
    reconnect_gets(server, mockhttp.ok().event_stream(*again))
    status, out = check(server, capsys, "--json")
    assert status == 1
    assert findings(out) == [
        ("resume.same-data", 'event id "5" came back as "message" "token five"; the first '
         'read had "message" "token 5"')
    ]  # fmt: skip


def test_a_refused_reconnect_is_a_status_finding(
    server: mockhttp.Server, capsys: pytest.CaptureFixture[str]
) -> None:
    """A 204 to the reconnect (EventSource stops for good) is resume.status."""
    reconnect_gets(server, mockhttp.status(204))
    status, out = check(server, capsys, "--json")
    assert status == 1
    [(rule, message)] = findings(out)
    assert rule == "resume.status"
    assert message.startswith('the reconnect with Last-Event-ID "3" got status 204')


@pytest.mark.parametrize(
    ("mock", "why"),
    [
        (
            mockhttp.get("/events").reply(
                mockhttp.ok().event_stream(Event(data="a"), Event(data="b"))
            ),
            "the stream's 2 events carry no id: a client has no Last-Event-ID to reconnect with",
        ),
        (
            mockhttp.post("/events").reply(mockhttp.ok().event_stream(*EVENTS)),
            "the first GET got status 404: the endpoint is not a GET-able event stream "
            "(Last-Event-ID is an EventSource reconnect, always a GET)",
        ),
    ],
)
def test_what_cannot_be_probed_is_skipped_with_the_reason(
    server: mockhttp.Server, capsys: pytest.CaptureFixture[str], mock: mockhttp.Mock, why: str
) -> None:
    """No ids, or no GET: every rule is skipped, the reason given; nothing is a violation."""
    server.mock(mock)
    status, out = check(server, capsys, "--json")
    report = json.loads(out)
    assert status == 0
    [exchange] = report["exchanges"]
    assert exchange["skipped"] == exchange["rules"]
    assert exchange["why_skipped"] == why
    status, out = check(server, capsys)
    assert f"4 not checked ({why})" in out
    assert len(server.journal) == 2  # one GET each time: no reconnect was tried


def test_sse_resume_is_live_only(tmp_path: object, capsys: pytest.CaptureFixture[str]) -> None:
    """Offline files cannot be reconnected to: a usage error, exit 2."""
    assert main(["--body", __file__, "--profile", "sse-resume"]) == 2
    assert "sse-resume is live only" in capsys.readouterr().err
