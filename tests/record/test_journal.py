"""record/_journal: recordings as the dashboard's saved journal (pure: mocks in, JSON out),
and ``mockhttp ui`` on what a real recording proxy wrote."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import httpx
import pytest

import mockhttp
from mockhttp import Event, fault, ok
from mockhttp.record import Recorder, Recording
from mockhttp.record._journal import event_times, journal_of
from mockhttp.record._pieces import Write
from tests.helpers.cli_process import run

T0 = 1_700_000_000.0


def recorded(text: str) -> list[mockhttp.Mock]:
    return mockhttp.loads(textwrap.dedent(text), "recorded.yaml")


STREAM = """\
name: chat stream
request: {method: POST, path: /v1/chat/completions, body: [json_path, $.stream, [equal, true]]}
response:
  status: 200
  header: {Content-Type: text/event-stream}
  delay: 10ms
  recording:
    writes:
      - {at: 0ms, data: "data: one\\n\\n"}
      - {at: 50ms, data: "data: two\\n\\ndata: thr"}
      - {at: 120ms, data: "ee\\n\\n"}
"""


def test_each_event_is_timed_by_the_write_that_holds_its_first_byte() -> None:
    writes = [
        Write(0.0, b"data: one\n\n"),
        Write(0.05, b"data: two\n\ndata: thr"),
        Write(0.12, b"ee\n\n"),
    ]
    assert event_times(writes) == [0.0, 0.05, 0.05]
    assert event_times([Write(0.0, b"data: a"), Write(0.3, b"\n\n")]) == [0.0]
    assert event_times([Write(0.0, b"")]) == []
    assert event_times([]) == []
    assert event_times([Write(0.2, b"data: cut short")]) == [0.2]  # (unterminated: its own)


def test_a_recorded_stream_is_a_call_with_its_timeline() -> None:
    journal = journal_of(recorded(STREAM), T0, ["rec/001.yaml"])
    (call,) = journal["calls"]
    assert call["request"]["method"] == "POST"
    assert call["request"]["path"] == "/v1/chat/completions"
    assert call["request"]["header_pairs"] == []  # (Rule 2: no request was kept)
    assert (call["status"], call["outcome"], call["events"]) == (200, "complete", 3)
    assert call["mock"] == 1
    assert "chat stream" in call["mock_describe"]
    assert call["time"] == "2023-11-14T22:13:20.000+00:00"
    assert call["duration_ms"] == 130.0  # (the head's 10 ms, then the last write's 120 ms)
    events = call["timeline"]["events"]
    assert [(e["at_ms"], e["data"]) for e in events] == [
        (10.0, "one"),
        (60.0, "two"),
        (60.0, "three"),
    ]
    assert [m["kind"] for m in call["timeline"]["marks"]] == ["end"]
    recording = call["recording"]
    assert recording["file"] == "rec/001.yaml"
    assert json.loads(recording["matcher"]) == {
        "method": "POST",
        "path": "/v1/chat/completions",
        "body": ["json_path", "$.stream", ["equal", True]],
    }
    assert recording["headers"] == [["Content-Type", "text/event-stream"]]
    (mock,) = journal["mocks"]
    assert mock == {
        "id": 1,
        "name": "chat stream",
        "describe": call["mock_describe"],
        "call_count": 1,
        "remaining": None,
    }


def test_a_cut_and_a_failure_before_the_head() -> None:
    mocks = recorded("""\
        - request: {method: GET, path: /cut}
          response:
            status: 200
            header: {Content-Type: text/event-stream}
            recording:
              end: close
              writes: [{at: 0ms, data: "data: a\\n\\n"}, {at: 30ms, data: "data: b\\n\\n"}]
        - request: {method: GET, path: /reset}
          response: {status: 200, pipe: [[reset]]}
          times: 1
        - request: {method: GET, path: /json}
          response:
            status: 200
            header: {Content-Type: application/json}
            recording: {writes: [{at: 5ms, data: '{"ok": true}'}]}
        """)  # fmt: skip
    # (the reset is not a recording: a fault alone, as mockhttp record writes it)
    cut, *rest = journal_of(mocks, T0)["calls"]
    assert (cut["outcome"], cut["events"]) == ("closed", 2)
    assert cut["timeline"]["marks"][-1]["kind"] == "cut"
    (plain,) = rest
    assert (plain["request"]["path"], plain["events"], plain["status"]) == ("/json", 0, 200)
    assert plain["timeline"]["events"][0]["data"] == '{"ok": true}'
    assert plain["time"] > cut["time"]  # one after another (Rule 3)
    assert [c["id"] for c in (cut, plain)] == [1, 2]
    assert [m["id"] for m in journal_of(mocks, T0)["mocks"]] == [1, 3]  # (their places)


def test_a_recording_cut_before_its_head_has_no_status() -> None:
    mocks = recorded("""\
        request: {method: GET, path: /gone}
        response:
          status: 200
          recording: {writes: []}
          pipe: [[empty_response]]
        """)  # fmt: skip
    (call,) = journal_of(mocks, T0)["calls"]
    assert (call["status"], call["outcome"], call["timeline"]) == (None, "closed", None)


def test_mocks_that_are_no_recordings_are_left_out() -> None:
    assert journal_of([mockhttp.get("/x").reply(ok())], T0) == {"calls": [], "mocks": []}


def test_mockhttp_ui_reads_what_the_recording_proxy_wrote(tmp_path: Path) -> None:
    events = [Event(data=f"part {i}", id=str(i)) for i in range(4)]
    out = tmp_path / "recorded"
    with mockhttp.Server() as upstream:
        upstream.mock(
            mockhttp.get("/v1/stream").reply(ok().event_stream(*events, event_delay=0.05))
        )
        cut_short = ok().event_stream(*events, event_delay=0.01)
        upstream.mock(mockhttp.get("/v1/cut").reply(cut_short).pipe(fault.close_after_events(2)))
        with Recorder(upstream.url, out) as recorder:
            assert httpx.get(recorder.url + "/v1/stream", timeout=60).status_code == 200
            with pytest.raises(httpx.HTTPError):
                httpx.get(recorder.url + "/v1/cut", timeout=60)
            recorder.wait(2)
    journal_file = tmp_path / "journal.json"
    done = run("ui", str(out), "--out", str(journal_file))
    assert done.returncode == 0, done.stderr
    assert "2 recorded exchanges; open file://" in done.stderr
    assert f"choose {journal_file} with 'Open a saved journal'" in done.stderr
    stream, cut = json.loads(journal_file.read_text())["calls"]
    assert [e["id"] for e in stream["timeline"]["events"]] == ["0", "1", "2", "3"]
    assert stream["recording"]["file"].endswith("001-get-v1-stream.yaml")
    (mock,) = mockhttp.load(stream["recording"]["file"])
    reply = mock.response
    assert isinstance(reply, Recording)
    written = [round((reply.head_delay + t) * 1000, 1) for t in event_times(reply.writes)]
    shown = [e["at_ms"] for e in stream["timeline"]["events"]]
    assert shown == pytest.approx(written, abs=0.11)  # the pace recorded (to 0.1 ms)
    assert (cut["outcome"], cut["events"]) == ("closed", 2)
    to_stdout = run("ui", str(out))
    assert json.loads(to_stdout.stdout)["calls"][0]["request"]["path"] == "/v1/stream"


def test_mockhttp_ui_says_what_is_wrong(tmp_path: Path) -> None:
    missing = run("ui", str(tmp_path / "nothing"))
    assert missing.returncode == 1
    assert "no such file or directory" in missing.stderr
    plain = tmp_path / "plain.yaml"
    plain.write_text("request: {method: GET, path: /x}\nresponse: {status: 200}\n")
    empty = run("ui", str(plain))
    assert empty.returncode == 1
    assert f"mockhttp ui: no recordings in {plain}" in empty.stderr
