"""The live sse-resume probe called directly (contract/_resume_live.py), against our own
server on loopback: what it sends, what it checks, and when it cannot probe."""

from __future__ import annotations

import mockhttp
from mockhttp import Event
from mockhttp.contract._resume import SSE_RESUME
from mockhttp.contract._resume_live import PROFILE, probe_resume


def test_a_resumable_stream_is_read_twice_and_passes(server: mockhttp.Server) -> None:
    reply = mockhttp.ok().event_stream(*(Event(data=f"t{i}") for i in range(1, 6)), resumable=True)
    stream = server.mock(mockhttp.get("/events").reply(reply))
    outcome = probe_resume(server.url + "/events", {"x-key": "k"}, 10.0)
    assert outcome.exchange == "resume after Last-Event-ID 3"
    assert outcome.profiles == (PROFILE,)
    assert outcome.findings == ()
    assert outcome.skipped == ()
    first, second = stream.calls
    assert first.request.method == "GET"
    assert first.request.headers["accept"] == "text/event-stream"
    assert first.request.headers["cache-control"] == "no-cache"
    assert first.request.headers["x-key"] == "k"
    assert "last-event-id" not in first.request.headers
    assert second.request.headers["last-event-id"] == "3"
    assert second.event_ids == ["4", "5"]
    assert outcome.transcript is not None
    assert outcome.transcript.last_event_id == "3"


def test_a_stream_without_ids_skips_every_rule_and_says_why(server: mockhttp.Server) -> None:
    server.mock(mockhttp.get("/events").reply(mockhttp.ok().event_stream(Event(data="x"))))
    outcome = probe_resume(server.url + "/events", {}, 10.0)
    assert outcome.findings == ()
    assert outcome.skipped == tuple(r.id for r in SSE_RESUME)
    assert outcome.why_skipped
    assert len(server.journal) == 1


def test_a_replay_from_the_start_is_found(server: mockhttp.Server) -> None:
    events = [Event(data=f"t{i}", id=str(i)) for i in range(1, 6)]
    server.mock(mockhttp.get("/events").reply(mockhttp.ok().event_stream(*events)))
    outcome = probe_resume(server.url + "/events", {"accept": "*/*"}, 10.0)
    assert {f.rule for f in outcome.findings} == {"resume.no-duplicate"}
    assert all(c.request.headers["accept"] == "*/*" for c in server.journal)
