"""The ``a2a`` contract profile: the mock agent's streams pass, each broken one names its
rule, offline from saved files as well as from a recorded exchange."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import mockhttp
from mockhttp import a2a, fault
from mockhttp.contract import Transcript, check, record
from mockhttp.contract.__main__ import main

SCRIPT = a2a.task(a2a.status("working"), a2a.artifact("Hi"), a2a.status("completed"))


def ask(method: str, id_: Any = 1) -> dict[str, Any]:
    new = method[0].isupper()  # 1.0's method names
    part = {"text": "hi"} if new else {"kind": "text", "text": "hi"}
    message = {"messageId": "m1", "role": "ROLE_USER" if new else "user", "parts": [part]}
    return {"jsonrpc": "2.0", "id": id_, "method": method, "params": {"message": message}}


def recorded(script: a2a.Task, method: str = "message/stream", **pipe: Any) -> Transcript:
    """The agent's answer to one streaming request, recorded byte for byte."""
    with mockhttp.Server() as server:
        mock = a2a.agent([script])
        server.mock(mock.pipe(*pipe.values()) if pipe else mock)
        return record(server.url + "/", ask(method, "r-1"), timeout=5)


def ids(transcript: Transcript) -> list[str]:
    return [f.rule for f in check(transcript, "a2a")]


@pytest.mark.parametrize("method", ["message/stream", "SendStreamingMessage"])
def test_the_mocks_streams_pass(method: str) -> None:
    """Both versions' streams of a well-formed script break no rule of the profile."""
    assert ids(recorded(SCRIPT, method)) == []


def test_a_resubscribed_stream_passes() -> None:
    """tasks/resubscribe: the task as it stands, then its final status restated."""
    with mockhttp.Server() as server:
        server.mock(a2a.agent([SCRIPT]))
        record(server.url + "/", ask("message/send"), timeout=5)
        request = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tasks/resubscribe",
            "params": {"id": "task-1"},
        }
        transcript = record(server.url + "/", request, timeout=5)
    assert transcript.status == 200
    assert ids(transcript) == []


def test_the_faults_are_found() -> None:
    """A duplicate final, a wrong id and a cut stream each break their rule."""
    dup = check(recorded(a2a.task(*SCRIPT.steps, duplicate_final=True)), "a2a")
    assert [(f.rule, f.message) for f in dup] == [
        ("a2a.final", "a second final event (status-update): a stream has exactly one")
    ]
    wrong = check(recorded(a2a.task(*SCRIPT.steps, wrong_id=True)), "a2a")
    assert {f.rule for f in wrong} == {"a2a.id"}
    assert wrong[0].message == 'response id "r-1-other" is not the request\'s "r-1"'
    cut = ids(recorded(SCRIPT, fault=fault.close_after_events(2)))
    assert cut == ["http.transport", "a2a.final"]


HEAD = '{"jsonrpc":"2.0","id":1,"result":'


def body(*results: str) -> bytes:
    return "".join(f"data: {HEAD}{r}}}\n\n" for r in results).encode()


TASK = '{"kind":"task","id":"t","contextId":"c","status":{"state":"submitted"}}'


def status(state: str, final: bool = False, task: str = "t") -> str:
    return (
        f'{{"kind":"status-update","taskId":"{task}","contextId":"c",'
        f'"status":{{"state":"{state}"}},"final":{json.dumps(final)}}}'
    )


@pytest.mark.parametrize(
    ("stream", "rule", "message"),
    [
        (body(TASK, status("completed", True), status("working", True)), "a2a.transitions",
         "completed went to working; completed may go to nothing (it is terminal)"),
        (body(TASK, status("done", True)), "a2a.transitions", '"done" is not a task state'),
        (body(TASK, '{"kind":"progress"}', status("completed", True)), "a2a.kind",
         'result is not a task, message, status update or artifact update: {"kind": "progress"}'),
        (body(TASK, status("working")), "a2a.final", "the stream ended without a final event"),
        (body(TASK, status("completed", True), status("completed")), "a2a.final",
         "an event came after the final one"),
        (body(TASK, status("completed", True, task="u")), "a2a.one-task",
         'status-update names task "u"; the stream is "t"\'s'),
        (b'data: {"id":1,"result":{}}\n\n', "a2a.jsonrpc",
         'data is not a JSON-RPC 2.0 response (result or error): "{\\"id\\":1,\\"result\\":{}}"'),
    ],
)  # fmt: skip
def test_each_rule_names_what_it_found(stream: bytes, rule: str, message: str) -> None:
    """Each broken stream gets its rule's finding (a stream may break others too)."""
    findings = check(Transcript.from_body(stream), "a2a")
    assert (rule, message) in [(f.rule, f.message) for f in findings]


def test_offline_from_saved_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``mockhttp check --profile a2a --body --request``: a saved stream, checked."""
    transcript = recorded(a2a.task(*SCRIPT.steps, wrong_id=True))
    (tmp_path / "body.sse").write_bytes(transcript.body)
    (tmp_path / "request.json").write_text(json.dumps(ask("message/stream", "r-1")))
    argv = ["--profile", "a2a", "--body", str(tmp_path / "body.sse")]
    assert main(argv) == 0  # without the request, its id is not known
    assert main([*argv, "--request", str(tmp_path / "request.json")]) == 1
    out = capsys.readouterr().out
    assert "a2a.id" in out
    assert out.rstrip().endswith("4 violations, 0 warnings, 0 notes in 1 exchange(s)")


@pytest.mark.parametrize(
    ("method", "profile"),
    [("message/stream", "a2a"), ("SendStreamingMessage", "a2a"), ("tools/call", "mcp")],
)
def test_an_a2a_request_is_recognised_as_a2a_not_mcp(method: str, profile: str) -> None:
    from mockhttp.contract._recognise import recognise

    request = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {}}
    body = b'data: {"jsonrpc": "2.0", "id": 1, "result": {}}\n\n'
    assert recognise(Transcript.from_body(body, request=request)) == profile


def live(script: a2a.Task, *extra: str) -> tuple[int, mockhttp.Server]:
    """``mockhttp check URL --profile a2a`` against the mock agent."""
    with mockhttp.Server() as server:
        server.mock(a2a.agent([script]))
        return main([server.url + "/", "--profile", "a2a", *extra]), server


def test_live_a_good_agent_passes(capsys: pytest.CaptureFixture[str]) -> None:
    """Live: one message/stream (0.3 form) asking for the event stream; exit 0."""
    code, server = live(SCRIPT)
    assert code == 0
    assert "0 violations" in capsys.readouterr().out
    sent = server.journal[-1].request
    assert sent.headers["accept"] == "text/event-stream"
    assert sent.json() == {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "message/stream",
        "params": {
            "message": {
                "kind": "message",
                "messageId": "m1",
                "role": "user",
                "parts": [{"kind": "text", "text": "Hello"}],
            }
        },
    }


@pytest.mark.parametrize(
    ("fault_", "rule"), [("duplicate_final", "a2a.final"), ("wrong_id", "a2a.id")]
)
def test_live_a_broken_agent_fails_by_name(
    fault_: str, rule: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Live: the agent's second final event, or a response id not the request's, exit 1."""
    code, _ = live(a2a.task(*SCRIPT.steps, **{fault_: True}))
    out = capsys.readouterr().out
    assert code == 1
    assert rule in out


def test_live_request_file_is_laid_over(tmp_path: Path) -> None:
    """``--request``: 1.0's SendStreamingMessage sent in place of message/stream; passes."""
    path = tmp_path / "request.json"
    path.write_text(json.dumps(ask("SendStreamingMessage", "r-9")))
    code, server = live(SCRIPT, "--request", str(path))
    assert code == 0
    sent = server.journal[-1].request.json()
    assert (sent["method"], sent["id"]) == ("SendStreamingMessage", "r-9")
    assert sent["params"]["message"]["parts"] == [{"text": "hi"}]
    assert main([server.url + "/", "--profile", "a2a", "--profile", "mcp"]) == 2
