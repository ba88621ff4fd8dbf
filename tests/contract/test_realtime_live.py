"""A live realtime check (contract/_realtime_live.py): the scripted session over loopback
against our mocks (which pass) and against scripted WebSocket endpoints that break the
contract; then ``mockhttp check --profile openai-realtime / gemini-live`` in process."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

import mockhttp
from mockhttp import llm, ws
from mockhttp._cli._main import main
from mockhttp.contract._realtime import frames_of
from mockhttp.contract._realtime_live import Session, auth_headers, run_realtime_live

GEMINI_PATH = "/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent"


@pytest.fixture
def server() -> Iterator[mockhttp.Server]:
    with mockhttp.Server() as running:
        yield running


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("MOCKHTTP_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def test_our_openai_realtime_mock_passes_the_live_script(server: mockhttp.Server) -> None:
    realtime = llm.openai_realtime("Hello there")
    server.mock(realtime.mock())
    url = f"ws://127.0.0.1:{server.port}/v1/realtime"
    outcome, frames = run_realtime_live(url, "openai-realtime", timeout=10, headers={"a": "b"})
    assert outcome.findings == ()
    assert outcome.skipped == ()
    server_types = [
        json.loads(f.data)["type"] for f in frames if f.sender == "server" and f.kind == "text"
    ]
    assert server_types[0] == "session.created"
    assert "response.done" in server_types
    assert server_types[-1] == "error"
    (session,) = realtime.wait_ended()
    assert session.request.query == (("model", "gpt-realtime"),)
    assert session.request.headers["a"] == "b"
    assert session.close_code == 1000


def test_our_gemini_live_mock_passes_the_live_script(server: mockhttp.Server) -> None:
    live = llm.gemini_live("Hi there")
    server.mock(live.mock())
    url = f"ws://127.0.0.1:{server.port}{GEMINI_PATH}"
    outcome, _frames = run_realtime_live(url, "gemini-live", model="gemini-x", timeout=10)
    assert outcome.findings == ()
    (session,) = live.wait_ended()
    assert json.loads(session.received[0])["setup"]["model"] == "models/gemini-x"


def test_a_broken_endpoint_is_found_out(server: mockhttp.Server) -> None:
    broken = ws.websocket(
        ws.send({"type": "session.created", "event_id": "e1"}),
        ws.expect(mockhttp.match.json_path("$.type", mockhttp.match.equal("session.update"))),
        ws.send({"type": "session.updated", "event_id": "e1"}),  # the same id
        ws.drop(),
    )
    server.mock(broken.mock("/v1/realtime"))
    url = f"ws://127.0.0.1:{server.port}/v1/realtime?model=x"
    outcome, _frames = run_realtime_live(url, "openai-realtime", timeout=10)
    assert [f.rule for f in outcome.findings] == ["realtime.event-id"]


def test_a_turn_that_never_completes_is_found_out_without_a_hang(server: mockhttp.Server) -> None:
    silent = ws.websocket(
        ws.expect(mockhttp.match.contains("setup")),
        ws.send({"setupComplete": {}}),
        ws.expect(mockhttp.match.contains("clientContent")),
        ws.send({"serverContent": {"modelTurn": {"parts": [{"text": "Hi"}]}}}),
    )
    server.mock(silent.mock(GEMINI_PATH))
    url = f"ws://127.0.0.1:{server.port}{GEMINI_PATH}"
    outcome, _frames = run_realtime_live(url, "gemini-live", timeout=3)
    assert [f.rule for f in outcome.findings] == ["gemini-live.turn-complete"]


def test_a_refused_upgrade_and_a_bad_url_say_so(server: mockhttp.Server) -> None:
    with pytest.raises(ValueError, match="refused the WebSocket upgrade: 404"):
        Session(f"ws://127.0.0.1:{server.port}/nothing", {}, 5)
    with pytest.raises(ValueError, match="not a ws:// or wss:// URL"):
        Session("http://127.0.0.1/", {}, 5)


def test_keys_go_in_each_providers_header() -> None:
    assert auth_headers("openai-realtime", "k") == {"Authorization": "Bearer k"}
    assert auth_headers("gemini-live", "k") == {"x-goog-api-key": "k"}
    assert auth_headers("gemini-live", None) == {}


# -- mockhttp check ------------------------------------------------------------------------------


def test_check_live_passes_our_mock_and_keeps_the_key_out(
    server: mockhttp.Server, capsys: pytest.CaptureFixture[str]
) -> None:
    realtime = llm.openai_realtime("Hello")
    server.mock(realtime.mock())
    url = f"ws://127.0.0.1:{server.port}/v1/realtime"
    status = main(["check", "--profile", "openai-realtime", "--api-key", "sk-secret-1", url])
    out = capsys.readouterr().out
    assert status == 0
    assert "openai-realtime" in out
    assert "sk-secret-1" not in out
    (session,) = realtime.wait_ended()
    assert session.request.headers["authorization"] == "Bearer sk-secret-1"


def test_check_a_capture_of_frames(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    frames = [
        {"from": "server", "kind": "text", "data": json.dumps({"setupComplete": {}})},
        {
            "from": "server",
            "kind": "text",
            "data": json.dumps({"toolCall": {"functionCalls": [{}]}}),
        },
    ]
    capture = tmp_path / "session.json"
    capture.write_text(json.dumps(frames))
    status = main(["check", "--profile", "gemini-live", "--capture", str(capture)])
    out = capsys.readouterr().out
    assert status == 1
    assert "gemini-live.tool-call" in out


def test_check_a_mocks_journal_written_as_a_capture(
    server: mockhttp.Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    live = llm.gemini_live("Hi")
    server.mock(live.mock())
    run_realtime_live(f"ws://127.0.0.1:{server.port}{GEMINI_PATH}", "gemini-live", timeout=10)
    (session,) = live.wait_ended()
    kept = [
        {"from": f.sender, "kind": f.kind, "data": f.data, "at": f.at}
        for f in frames_of(session)
        if isinstance(f.data, str)
    ]
    capture = tmp_path / "journal.json"
    capture.write_text(json.dumps({"frames": kept}))
    assert main(["check", "--profile", "gemini-live", "--capture", str(capture)]) == 0
    capsys.readouterr()


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--profile", "openai-realtime"], "needs a ws:// URL"),
        (["--profile", "openai-realtime", "--profile", "gemini-live", "ws://x"], "on its own"),
        (["--profile", "gemini-live", "--capture", "/nonexistent/f.json"], "cannot read"),
        (["--profile", "gemini-live", "--capture", "/dev/null", "ws://x"], "either a ws://"),
        (["--profile", "openai-realtime", "http://127.0.0.1:1/"], "not a ws://"),
    ],
)
def test_check_usage_errors(argv: list[str], says: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", *argv]) == 2
    assert says in capsys.readouterr().err


def test_the_live_script_runs_over_wss() -> None:
    with mockhttp.Server(tls=True) as tls_server:
        tls_server.mock(llm.gemini_live("Hi").mock())
        url = f"wss://127.0.0.1:{tls_server.port}{GEMINI_PATH}"
        context = tls_server.ssl_context()
        outcome, frames = run_realtime_live(url, "gemini-live", timeout=10, context=context)
    assert outcome.findings == ()
    assert any(f.sender == "server" and "turnComplete" in str(f.data) for f in frames)


# -- the session's reading -------------------------------------------------------------------------


def test_fragmented_and_binary_messages_are_read_whole(server: mockhttp.Server) -> None:
    endpoint = ws.websocket(
        ws.send({"type": "session.created", "event_id": "e1"}, fragments=3),
        ws.send(b"\x00\x01"),
        ws.close(1001, "bye"),
    )
    server.mock(endpoint.mock("/v1/realtime"))
    url = f"ws://127.0.0.1:{server.port}/v1/realtime?model=m"
    outcome, frames = run_realtime_live(url, "openai-realtime", timeout=10)
    sent = [(f.kind, f.data, f.code) for f in frames if f.sender == "server"]
    assert sent[0] == ("text", '{"type":"session.created","event_id":"e1"}', None)
    assert sent[1] == ("binary", b"\x00\x01", None)
    assert sent[2] == ("close", "bye", 1001)
    assert [f.rule for f in outcome.findings] == ["realtime.json"]  # the binary frame


def test_pings_are_answered_while_waiting(server: mockhttp.Server) -> None:
    endpoint = ws.websocket(
        ws.Raw(b"\x89\x02hi"),  # a ping from the server, made by hand
        ws.send({"setupComplete": {}}),
        ws.expect(mockhttp.match.contains("clientContent")),
        ws.send({"serverContent": {"turnComplete": True}}),
    )
    server.mock(endpoint.mock(GEMINI_PATH))
    url = f"ws://127.0.0.1:{server.port}{GEMINI_PATH}"
    outcome, _frames = run_realtime_live(url, "gemini-live", timeout=10)
    assert outcome.findings == ()
    (session,) = endpoint.wait_ended()
    pongs = [f for f in session.frames if f.direction == "received" and f.kind == "pong"]
    assert [p.data for p in pongs] == [b"hi"]


def test_a_server_that_closes_before_its_101_says_so(server: mockhttp.Server) -> None:
    server.mock(mockhttp.get("/gone").pipe(mockhttp.fault.empty_response()).reply(mockhttp.ok()))
    with pytest.raises(ValueError, match="closed the connection before its 101"):
        Session(f"ws://127.0.0.1:{server.port}/gone", {}, 5)


def test_check_json_output_names_the_profile_and_rules(
    server: mockhttp.Server, capsys: pytest.CaptureFixture[str]
) -> None:
    server.mock(llm.gemini_live("Hi").mock())
    url = f"ws://127.0.0.1:{server.port}{GEMINI_PATH}"
    assert main(["check", "--profile", "gemini-live", "--json", url]) == 0
    report = json.loads(capsys.readouterr().out)
    text = json.dumps(report)
    assert "gemini-live.turn-complete" in text or "gemini-live" in text
