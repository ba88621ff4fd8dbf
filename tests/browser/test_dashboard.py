"""The dashboard (``/__mockhttp/ui/``) in a real headless Chromium: the journal arrives live
over its event stream, the filters narrow it, a stream cut by a fault shows its timeline,
a saved journal opens from a file with no server, and a token is asked for.

With ``MOCKHTTP_DOCS_SCREENSHOTS=1`` the screenshots are also written to ``docs/img/``
(the pictures docs/dashboard.md shows).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

import mockhttp
from mockhttp import Event, fault, ok
from mockhttp._server._admin import AdminAPI
from mockhttp._server._dashboard import UI_DIR
from tests.helpers.cli_process import ROOT

WAIT = 30_000  # ms: a generous bound for what the page shows (a loaded machine)


def keep(name: str, shot: bytes) -> None:
    assert shot[:8] == b"\x89PNG\r\n\x1a\n"
    if os.environ.get("MOCKHTTP_DOCS_SCREENSHOTS") == "1":
        (ROOT / "docs" / "img" / name).write_bytes(shot)


@pytest.fixture
def server() -> Iterator[mockhttp.Server]:
    with mockhttp.Server(admin=True) as server:
        events = [Event(data=f'{{"delta": "part {i}"}}', id=str(i + 1)) for i in range(6)]
        stream = ok().event_stream(*events, event_delay=0.04)
        server.mock(
            mockhttp.get("/v1/stream", name="chat").reply(stream).pipe(fault.close_after_events(3))
        )
        server.mock(mockhttp.get("/v1/models", name="models").reply(ok().json({"data": []})))
        server.mock(mockhttp.post("/v1/files", name="upload").reply(mockhttp.status(201)).times(3))
        yield server


def open_live(page: Any, server: mockhttp.Server) -> None:
    page.goto(server.url + "/__mockhttp/ui/")
    live(page)


def live(page: Any) -> None:
    # (Playwright's expect, not wait_for_function: the page's CSP forbids eval)
    expect(page.locator("#status")).to_have_text(re.compile("^Live"), timeout=WAIT)


def rows(page: Any) -> Any:
    return page.locator("#call-table tbody tr")


def wait_rows(page: Any, n: int) -> None:
    expect(rows(page)).to_have_count(n, timeout=WAIT)


def cut_stream(server: mockhttp.Server) -> None:
    with pytest.raises(httpx.HTTPError):
        httpx.get(server.url + "/v1/stream")
    (chat,) = (a for a in server.mocks if a.mock.name == "chat")
    chat.calls.last.wait(10)


def test_a_call_shows_up_live(server: mockhttp.Server, page: Any) -> None:
    open_live(page, server)
    assert rows(page).count() == 0
    httpx.get(server.url + "/v1/models")
    wait_rows(page, 1)
    text = rows(page).first.inner_text()
    assert "GET /v1/models" in text
    assert "models" in text
    assert "complete" in text
    models = page.locator("#mock-table tbody tr", has_text="models")
    expect(models.locator("td").nth(2)).to_have_text("1", timeout=WAIT)  # the counts follow
    mocks = page.locator("#mock-table tbody tr").all_inner_texts()
    assert any("upload" in m and m.rstrip().endswith("3") for m in mocks)  # 3 replies left


def test_the_filters_narrow_the_calls(server: mockhttp.Server, page: Any) -> None:
    open_live(page, server)
    httpx.get(server.url + "/v1/models")
    httpx.get(server.url + "/v1/nothing-here")
    httpx.post(server.url + "/v1/files", content=b"report body text")
    cut_stream(server)
    wait_rows(page, 4)
    page.select_option("#f-status", "4")
    wait_rows(page, 1)
    expect(rows(page).first).to_contain_text("/v1/nothing-here", timeout=WAIT)  # (re-drawn: wait)
    expect(rows(page).first).to_contain_text("no match", timeout=WAIT)  # (re-drawn: wait)
    page.select_option("#f-status", "cut")
    wait_rows(page, 1)
    expect(rows(page).first).to_contain_text("/v1/stream", timeout=WAIT)  # (re-drawn: wait)
    page.select_option("#f-status", "")
    page.fill("#f-text", "report body")  # the request body is searched
    wait_rows(page, 1)
    expect(rows(page).first).to_contain_text("/v1/files", timeout=WAIT)  # (re-drawn: wait)
    page.fill("#f-text", "")
    page.select_option("#f-mock", "2")  # the models mock's id
    wait_rows(page, 1)
    expect(rows(page).first).to_contain_text("/v1/models", timeout=WAIT)  # (re-drawn: wait)
    page.select_option("#f-mock", "none")
    wait_rows(page, 1)
    expect(page.locator("#shown")).to_have_text("1 of 4 calls shown", timeout=WAIT)


def test_a_cut_stream_shows_its_timeline(server: mockhttp.Server, page: Any) -> None:
    open_live(page, server)
    httpx.get(server.url + "/v1/models")
    cut_stream(server)
    wait_rows(page, 2)
    expect(rows(page).filter(has_text="closed")).to_have_count(1, timeout=WAIT)  # its end too
    button = page.get_by_role("button", name="Show call", exact=False).first
    button.focus()
    page.wait_for_timeout(700)  # (calls re-render the table meanwhile: the focus stays)
    page.keyboard.press("Enter")  # by keyboard
    page.wait_for_selector("svg.timeline", timeout=WAIT)
    assert page.locator("#detail-title").inner_text().endswith("GET /v1/stream")
    assert page.locator("svg.timeline circle.written").count() == 3
    assert page.locator("svg.timeline circle.planned").count() == 3
    assert page.locator("svg.timeline line.mark.fault").count() == 1
    assert page.locator("svg.timeline line.mark.cut").count() == 1
    events = page.locator("table.events tbody tr").all_inner_texts()
    assert [e.split("\t")[3] for e in events] == ["1", "2", "3"]  # their ids
    marks = page.locator("ul.marks li").all_inner_texts()
    assert any("the plan closes the connection here" in m for m in marks)
    assert any("closed after 3 events" in m for m in marks)
    assert "close_after_events(3)" in page.locator(".timeline-box").inner_text()
    keep("dashboard-timeline.png", page.screenshot(full_page=True))


def test_a_miss_shows_why_and_its_near_misses(server: mockhttp.Server, page: Any) -> None:
    open_live(page, server)
    httpx.post(server.url + "/v1/models")  # the path of a GET mock, with POST
    wait_rows(page, 1)
    page.get_by_role("button", name="Show call", exact=False).first.click()
    page.wait_for_selector("ol.near", timeout=WAIT)
    assert "Why no mock matched" in page.locator("#detail-body").inner_text()
    assert "models" in page.locator("ol.near").inner_text()


def test_the_page_has_landmarks_labels_and_table_headers(
    server: mockhttp.Server, page: Any
) -> None:
    open_live(page, server)
    for role in ("banner", "navigation", "main", "search"):
        assert page.get_by_role(role).count() == 1, role
    for label in ("Mock", "Status", "Test", "Text", "Open a saved journal (JSON)"):
        assert page.get_by_label(label, exact=True).count() == 1, label
    headers = page.locator("#call-table thead th[scope=col]").count()
    assert headers == 9
    assert page.get_by_role("status").count() == 1


def test_a_saved_journal_opens_offline(server: mockhttp.Server, page: Any, tmp_path: Path) -> None:
    watch = page  # (the page first runs live, so that the stream's plan is kept)
    open_live(watch, server)
    httpx.get(server.url + "/v1/models")
    cut_stream(server)
    saved = tmp_path / "journal.json"
    journal = httpx.get(server.url + "/__mockhttp/journal").json()
    saved.write_text(json.dumps(journal))
    offline = page.context.new_page()
    try:
        offline.set_viewport_size({"width": 1400, "height": 900})
        offline.goto((UI_DIR / "index.html").as_uri())  # from the package, no server
        assert offline.locator("#status").inner_text().startswith("Offline")
        offline.set_input_files("#open-file", str(saved))
        wait_rows(offline, 2)
        assert offline.locator("#status").inner_text() == "Offline: journal.json (2 calls)"
        offline.get_by_role("button", name="Show call", exact=False).first.click()
        offline.wait_for_selector("svg.timeline", timeout=WAIT)
        assert offline.locator("svg.timeline circle.written").count() == 3
        keep("dashboard-offline.png", offline.screenshot(full_page=True))
    finally:
        offline.close()


def test_a_server_with_a_token_asks_for_it(page: Any) -> None:
    with mockhttp.Server() as server:
        server.admin = AdminAPI(server, token="t0ken-for-the-page")
        server.mock(mockhttp.get("/ping").reply(ok()))
        page.goto(server.url + "/__mockhttp/ui/")
        page.wait_for_selector("#token-form:not([hidden])", timeout=WAIT)
        page.fill("#token", "t0ken-for-the-page")
        page.click("#token-form button")
        live(page)
        httpx.get(server.url + "/ping")
        wait_rows(page, 1)
        keep("dashboard-live.png", page.screenshot(full_page=True))
