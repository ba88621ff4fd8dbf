"""``mockhttp serve --ui``: the dashboard's URL printed, and the journal watched from the
first call (a stream's timeline has its plan); refused where there is no admin API."""

from __future__ import annotations

import contextlib
from pathlib import Path

import httpx

from tests.helpers.cli_process import Serving, run

STREAM = """\
name: chat
request: {method: GET, path: /stream}
response:
  status: 200
  event_stream:
    event_delay: 10ms
    events: [{id: "1", data: a}, {id: "2", data: b}, {id: "3", data: c}]
  pipe: [[close_after_events, 2]]
"""


def test_serve_ui_prints_the_dashboard_and_keeps_each_plan(tmp_path: Path) -> None:
    mocks = tmp_path / "mocks.yaml"
    mocks.write_text(STREAM)
    with Serving(str(mocks), "--ui") as serving:
        line = serving.wait_for_log("dashboard at")
        assert line.strip() == f"mockhttp: dashboard at {serving.url}/__mockhttp/ui/"
        page = httpx.get(serving.url + "/__mockhttp/ui/")
        assert page.status_code == 200
        assert "<title>mockhttp dashboard</title>" in page.text
        # cut after 2 events, as planned (any error: after pytester runs in this process,
        # httpcore's may no longer be the class httpx maps)
        with contextlib.suppress(Exception):
            httpx.get(serving.url + "/stream")
        calls = []
        for _ in range(100):  # the call ends as the client sees the close: wait for it
            calls = httpx.get(serving.url + "/__mockhttp/journal").json()["calls"]
            if calls and calls[0]["outcome"] != "in progress":
                break
            serving.wait_for_log("GET /stream", timeout=30)
        (call,) = calls
        line = call["timeline"]
        assert [e["planned_ms"] for e in line["events"]] == [0.0, 10.0]
        assert [m["kind"] for m in line["marks"]] == ["fault", "cut"]
        assert serving.stop() == 0


def test_serve_ui_with_a_token_says_the_page_asks_for_it(tmp_path: Path) -> None:
    with Serving("--ui", "--admin-token", "tok-123456") as serving:
        line = serving.wait_for_log("dashboard at")
        assert "(it asks for the admin token)" in line
        assert "tok-123456" not in "".join(serving.log)
        assert serving.stop() == 0


def test_serve_ui_without_the_admin_api_is_refused() -> None:
    done = run("serve", "--port", "0", "--ui", "--no-admin")
    assert done.returncode == 2
    assert "--ui: the dashboard is part of the admin API (--no-admin turns it off)" in done.stderr
