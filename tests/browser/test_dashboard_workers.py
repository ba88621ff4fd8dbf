"""The dashboard in a real headless Chromium on ``mockhttp serve --workers 2 --ui``, with an
admin token: the page comes from whichever worker, asks for the token, and shows every
worker's calls live (a call is ``worker.id``), a stream's timeline with its plan."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.browser.test_dashboard import keep
from tests.helpers.cli_process import Serving

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="SO_REUSEPORT spreading: Linux"
)

WAIT = 30_000  # ms: a generous bound for what the page shows (a loaded machine)
TRIES = 40  # fresh connections: both workers take one of them but 1 time in 2**39
TOKEN = "t0ken-of-the-workers"
MOCKS = """\
- request: {method: GET, path: /v1/models}
  response: {status: 200, body: "{}"}
- request: {method: GET, path: /v1/stream}
  response:
    status: 200
    event_stream:
      event_delay: 20ms
      events:
        - {data: one, id: "1"}
        - {data: two, id: "2"}
        - {data: three, id: "3"}
        - {data: four, id: "4"}
    pipe: [[close_after_events, 2]]
"""


@pytest.fixture(scope="module")
def serving(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serving]:
    mocks: Path = tmp_path_factory.mktemp("mocks") / "mocks.yaml"
    mocks.write_text(MOCKS)
    args = ("--workers", "2", "--ui", "--admin-token", TOKEN, "--quiet")
    with Serving(str(mocks), *args) as serving:
        serving.wait_for_log("dashboard at")
        yield serving


def rows(page: Any) -> Any:
    return page.locator("#call-table tbody tr")


def workers_shown(page: Any) -> set[str]:
    """The workers of the calls the table shows (a call's number is ``worker.id``)."""
    ids = page.locator("#call-table tbody tr button.row").all_inner_texts()
    return {i.partition(".")[0] for i in ids if "." in i}


def test_every_workers_calls_arrive_live(serving: Serving, page: Any) -> None:
    page.goto(serving.url + "/__mockhttp/ui/")
    page.wait_for_selector("#token-form:not([hidden])", timeout=WAIT)
    page.fill("#token", TOKEN)
    page.click("#token-form button")  # (its cookie, from the worker the page reached)
    expect(page.locator("#status")).to_have_text(re.compile("^Live"), timeout=WAIT)
    shown: set[str] = set()
    for n in range(TRIES):  # a fresh connection each: the kernel picks the worker
        assert httpx.get(serving.url + f"/v1/models?n={n}", timeout=60).status_code == 200
        expect(rows(page)).to_have_count(n + 1, timeout=WAIT)
        shown = workers_shown(page)
        if shown == {"0", "1"}:
            break
    assert shown == {"0", "1"}
    models = page.locator("#mock-table tbody tr", has_text="/v1/models")
    count = str(rows(page).count())
    expect(models.locator("td").nth(2)).to_have_text(count, timeout=WAIT)  # (added up)
    keep("dashboard-workers.png", page.screenshot(full_page=True))


def test_a_streams_timeline_shows_its_plan_from_a_worker(serving: Serving, page: Any) -> None:
    page.goto(serving.url + f"/__mockhttp/ui/#token={TOKEN}")
    expect(page.locator("#status")).to_have_text(re.compile("^Live"), timeout=WAIT)
    journal = httpx.get(  # ("Live" shows at the stream's open: its snapshot may follow)
        serving.url + "/__mockhttp/journal",
        headers={"Authorization": f"Bearer {TOKEN}"},
        timeout=60,
    )
    before = len(journal.json()["calls"])
    expect(rows(page)).to_have_count(before, timeout=WAIT)
    with pytest.raises(httpx.HTTPError):
        httpx.get(serving.url + "/v1/stream", timeout=60)  # closed after 2 events
    expect(rows(page).filter(has_text="closed")).to_have_count(1, timeout=WAIT)
    assert rows(page).count() == before + 1
    rows(page).filter(has_text="closed").locator("button").click()
    page.wait_for_selector("svg.timeline", timeout=WAIT)
    title = page.locator("#detail-title").inner_text()
    assert re.fullmatch(r"Call [01]\.\d+: GET /v1/stream", title), title
    assert page.locator("svg.timeline circle.written").count() == 2
    assert page.locator("svg.timeline circle.planned").count() == 2  # (--ui on each worker)
    assert page.locator("svg.timeline line.mark.cut").count() == 1
