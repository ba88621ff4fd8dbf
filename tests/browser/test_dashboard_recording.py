"""A recording opened in the dashboard, in a real headless Chromium: ``mockhttp ui`` turns
what the recording proxy wrote into a saved journal, and the page opened from the package
(no server) shows each exchange with its timeline, its file and its matcher."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

import mockhttp
from mockhttp import Event, fault, ok
from mockhttp._server._dashboard import UI_DIR
from mockhttp.record import Recorder
from tests.browser.test_dashboard import keep
from tests.helpers.cli_process import run

WAIT = 30_000  # ms: a generous bound for what the page shows (a loaded machine)


def test_a_recording_opens_with_its_timeline(page: Any, tmp_path: Path) -> None:
    out = tmp_path / "recorded"
    events = [Event(data=f'{{"delta": "part {i}"}}', id=str(i + 1)) for i in range(5)]
    with mockhttp.Server() as upstream:
        stream = ok().event_stream(*events, event_delay=0.03)
        upstream.mock(mockhttp.get("/v1/stream").reply(stream).pipe(fault.close_after_events(3)))
        upstream.mock(mockhttp.get("/v1/models").reply(ok().json({"data": []})))
        with Recorder(upstream.url, out) as recorder:
            assert httpx.get(recorder.url + "/v1/models", timeout=60).status_code == 200
            with pytest.raises(httpx.HTTPError):
                httpx.get(recorder.url + "/v1/stream", timeout=60)
            recorder.wait(2)
    journal = tmp_path / "recorded.json"
    done = run("ui", str(out), "--out", str(journal))
    assert done.returncode == 0, done.stderr
    page.goto((UI_DIR / "index.html").as_uri())  # from the package, no server
    expect(page.locator("#status")).to_contain_text("or of mockhttp ui", timeout=WAIT)
    page.set_input_files("#open-file", str(journal))
    rows = page.locator("#call-table tbody tr")
    expect(rows).to_have_count(2, timeout=WAIT)
    expect(page.locator("#status")).to_have_text("Offline: recorded.json (2 calls)", timeout=WAIT)
    rows.filter(has_text="closed").locator("button").click()
    page.wait_for_selector("svg.timeline", timeout=WAIT)
    assert page.locator("#detail-title").inner_text() == "Call 2: GET /v1/stream"
    assert page.locator("svg.timeline circle.written").count() == 3
    assert page.locator("svg.timeline line.mark.cut").count() == 1
    detail = page.locator("#detail-body").inner_text()
    assert "002-get-v1-stream.yaml" in detail
    assert '"path": "/v1/stream"' in page.get_by_label("Request matcher").inner_text()
    assert "text/event-stream" in detail  # (the reply headers, as recorded)
    keep("dashboard-recording.png", page.screenshot(full_page=True))
