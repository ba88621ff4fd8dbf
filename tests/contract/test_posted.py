"""One JSON body POSTed to an agent endpoint and checked (contract/_posted.py), against
our own AG-UI mock on a loopback socket."""

from __future__ import annotations

from typing import Any

import mockhttp
from mockhttp import agui
from mockhttp.contract._posted import check_posted
from mockhttp.contract._transcript import Transcript

INPUT = {"threadId": "t1", "runId": "r1", "messages": []}


def test_a_good_run_is_checked_with_the_profile(server: mockhttp.Server) -> None:
    server.mock(mockhttp.post("/agent").reply(agui.run(agui.text("Hello"))))
    seen: list[tuple[str, dict[str, Any], Transcript]] = []
    [outcome] = check_posted(
        server.url + "/agent",
        dict(INPUT),
        {},
        10.0,
        None,
        lambda url, body, t: seen.append((url, body, t)),
        profile="ag-ui",
        exchange="run",
    )
    assert outcome.exchange == "run"
    assert outcome.profiles == ("ag-ui",)
    assert [f for f in outcome.findings if f.severity == "violation"] == []
    [(url, body, transcript)] = seen
    assert url == server.url + "/agent"
    assert body == INPUT
    assert transcript.status == 200
    [call] = server.journal
    assert call.request.headers["accept"] == "text/event-stream"


def test_headers_override_accept_and_a_bad_stream_is_found(server: mockhttp.Server) -> None:
    server.mock(
        mockhttp.post("/agent").reply(
            mockhttp.Reply(
                headers=(("Content-Type", "text/event-stream"),),
                content=b'data: {"type": "TEXT_MESSAGE_CONTENT", "delta": "x"}\n\n',
            )
        )
    )
    [outcome] = check_posted(
        server.url + "/agent",
        dict(INPUT),
        {"accept": "*/*", "x-test": "1"},
        10.0,
        None,
        None,
        profile="ag-ui",
        exchange="run",
    )
    assert any(f.severity == "violation" for f in outcome.findings)
    [call] = server.journal
    assert call.request.headers["accept"] == "*/*"
    assert call.request.headers["x-test"] == "1"


def test_an_error_status_is_reported(server: mockhttp.Server) -> None:
    server.mock(mockhttp.post("/agent").reply(mockhttp.Reply(status_code=503)))
    [outcome] = check_posted(
        server.url + "/agent", {}, {}, 10.0, None, None, profile="ag-ui", exchange="run"
    )
    assert any("503" in f.message for f in outcome.findings)
