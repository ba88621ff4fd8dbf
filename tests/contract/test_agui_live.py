"""Live ag-ui called directly (contract/_agui_live.py): the RunAgentInput it sends and
the run it checks, against our own AG-UI mock on loopback."""

from __future__ import annotations

import json

import mockhttp
from mockhttp import agui
from mockhttp.contract._agui_live import RUN_ID, THREAD_ID, agui_request, run_agui_live


def test_the_request_is_a_run_agent_input_with_one_user_message() -> None:
    body = agui_request()
    assert (body["threadId"], body["runId"]) == (THREAD_ID, RUN_ID)
    [message] = body["messages"]
    assert message["role"] == "user"
    assert message["content"]
    for key in ("state", "tools", "context", "forwardedProps"):
        assert key in body


def test_the_users_json_is_laid_over_it() -> None:
    body = agui_request({"runId": "mine", "tools": [{"name": "f"}]})
    assert body["runId"] == "mine"
    assert body["tools"] == [{"name": "f"}]
    assert body["threadId"] == THREAD_ID


def test_a_good_run_passes_and_echoes_the_ids(server: mockhttp.Server) -> None:
    server.mock(mockhttp.post("/agent").reply(agui.run(agui.text("Hello"))))
    seen = []
    [outcome] = run_agui_live(
        server.url + "/agent", {}, 10.0, on_exchange=lambda u, b, t: seen.append(t)
    )
    assert outcome.exchange == "run"
    assert outcome.profiles == ("ag-ui",)
    assert [f for f in outcome.findings if f.severity == "violation"] == []
    [call] = server.journal
    assert json.loads(call.request.body) == agui_request()
    [transcript] = seen
    assert f'"threadId":"{THREAD_ID}"'.encode() in transcript.body


def test_the_strict_profile_is_used_when_asked(server: mockhttp.Server) -> None:
    server.mock(mockhttp.post("/agent").reply(agui.run(agui.text("Hello"))))
    [outcome] = run_agui_live(server.url + "/agent", {}, 10.0, profile="ag-ui-strict")
    assert outcome.profiles == ("ag-ui-strict",)
    assert len(outcome.rules) > len(run_agui_live(server.url + "/agent", {}, 10.0)[0].rules)


def test_a_run_that_never_finishes_is_reported(server: mockhttp.Server) -> None:
    started = b'data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\n\n'
    server.mock(
        mockhttp.post("/agent").reply(
            mockhttp.Reply(headers=(("Content-Type", "text/event-stream"),), content=started)
        )
    )
    [outcome] = run_agui_live(server.url + "/agent", {}, 10.0)
    [found] = outcome.findings
    assert (found.rule, found.severity) == ("ag-ui.run-error", "warning")
    assert found.message.startswith("the stream ended after RUN_STARTED (event 0) without")


def test_a_run_that_does_not_start_is_a_violation(server: mockhttp.Server) -> None:
    content = b'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x"}\n\n'
    server.mock(
        mockhttp.post("/agent").reply(
            mockhttp.Reply(headers=(("Content-Type", "text/event-stream"),), content=content)
        )
    )
    [outcome] = run_agui_live(server.url + "/agent", {}, 10.0)
    violations = [f for f in outcome.findings if f.severity == "violation"]
    assert [(f.rule, f.message) for f in violations] == [
        ("ag-ui.run-started", "the first event is TEXT_MESSAGE_CONTENT, expected RUN_STARTED")
    ]
