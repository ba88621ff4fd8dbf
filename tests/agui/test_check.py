"""``mockhttp check --profile ag-ui`` on our own runs: live (a RunAgentInput POSTed) and
offline (a saved stream); our streams pass, the broken ones fail with the rule named."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

import mockhttp
from mockhttp import agui, fault
from mockhttp.contract import check
from mockhttp.contract.__main__ import main
from mockhttp.contract._agui_live import RUN_ID, THREAD_ID
from mockhttp.contract._record import record
from tests.agui.test_wire import FULL

BROKEN = {
    "/drop": (agui.run(agui.text("Hi"), agui.error("boom", drop=True)), "ag-ui.run-error"),
    "/twice": (agui.run(agui.text("Hi"), duplicate_terminal=True), "ag-ui.terminal"),
}


@pytest.fixture
def server() -> Iterator[mockhttp.Server]:
    with mockhttp.Server() as s:
        s.mock(FULL.mock("/full"))
        s.mock(agui.run(agui.text("Hi"), agui.error("No weather", code="E1")).mock("/error"))
        s.mock(FULL.mock("/cut").pipe(fault.close_after_events(4)))
        for path, (run, _) in BROKEN.items():
            s.mock(run.mock(path))
        yield s


def rules_of(server: mockhttp.Server, path: str) -> set[str]:
    transcript = record(server.url + path, {"threadId": "t", "runId": "r", "messages": []})
    return {f.rule for f in check(transcript, "ag-ui") if f.severity == "violation"}


def test_our_runs_pass(server: mockhttp.Server) -> None:
    assert rules_of(server, "/full") == set()
    assert rules_of(server, "/error") == set()


def test_broken_runs_fail_by_name(server: mockhttp.Server) -> None:
    for path, (_, rule) in BROKEN.items():
        assert rule in rules_of(server, path), path
    assert rules_of(server, "/cut") == {"http.transport", "ag-ui.run-error"}


def test_live_mode(server: mockhttp.Server, capsys: pytest.CaptureFixture[str]) -> None:
    """Live: one RunAgentInput with the check's own ids; exit 0 passes, 1 names the rule."""
    assert main([server.url + "/full", "--profile", "ag-ui"]) == 0
    assert "0 violations" in capsys.readouterr().out
    sent = server.journal[-1].request.json()
    assert (sent["threadId"], sent["runId"]) == (THREAD_ID, RUN_ID)
    assert server.journal[-1].request.headers["accept"] == "text/event-stream"
    assert main([server.url + "/full", "--profile", "ag-ui-strict"]) == 0
    assert "ag-ui-strict: 26 rules checked" in capsys.readouterr().out
    assert main([server.url + "/drop", "--profile", "ag-ui"]) == 1
    out = capsys.readouterr().out
    assert "ag-ui.run-error" in out
    assert "http.transport" in out
    assert main([server.url + "/full", "--profile", "ag-ui", "--profile", "gemini"]) == 2
    assert "ag-ui on its own" in capsys.readouterr().err


def test_offline_mode(
    server: mockhttp.Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Offline: a saved stream is recognised as AG-UI and checked; with its request and
    ``ag-ui-strict``, the run ids are checked against it (the reference client does not)."""
    saved = tmp_path / "run.sse"
    request = tmp_path / "input.json"
    request.write_text(json.dumps({"threadId": "other", "runId": "r"}))
    saved.write_bytes(httpx.post(server.url + "/twice", json={"threadId": "t"}).content)
    assert main(["--body", str(saved)]) == 1
    captured = capsys.readouterr()
    assert "profile ag-ui (recognised" in captured.err
    assert "ag-ui.terminal" in captured.out
    saved.write_bytes(httpx.post(server.url + "/full", json={"threadId": "t"}).content)
    assert main(["--body", str(saved), "--profile", "ag-ui"]) == 0
    assert main(["--body", str(saved), "--request", str(request)]) == 0
    strict = ["--profile", "ag-ui-strict"]
    assert main(["--body", str(saved), "--request", str(request), *strict]) == 1
    assert "ag-ui.run-ids" in capsys.readouterr().out
