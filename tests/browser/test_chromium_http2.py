"""HTTP/2 in a real Chromium: eight EventSource streams open at once to one https origin
(over HTTP/1.1 the browser holds six connections per origin, so the seventh waits for one
of them to close: the same page against an HTTP/1.1 server shows the cap)."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

import mockhttp
from mockhttp import Event

from .test_chromium import PAGE

pytest.importorskip("trustme")
pytest.importorskip("h2")

# Open `count` EventSources at once; resolve when every one has had 2 events, while all
# are still open (a source closes only then); reject after `wait` ms saying who starved.
EIGHT_SOURCES = """([url, count, wait]) => new Promise((resolve, reject) => {
  const got = Array.from({length: count}, () => []);
  const sources = got.map((events, i) => {
    const source = new EventSource(url + "?n=" + i);
    source.onmessage = (e) => {
      events.push(e.data);
      if (got.every((each) => each.length >= 2)) {
        sources.forEach((s) => s.close());
        resolve(got.map((each) => each.slice(0, 2)));
      }
    };
    return source;
  });
  setTimeout(() => {
    sources.forEach((s) => s.close());
    reject(new Error("events per source: " + JSON.stringify(got.map((e) => e.length))));
  }, wait);
})"""


def _eight(chromium: Any, certs: Any, http2: bool, wait: int) -> tuple[Any, mockhttp.Server]:
    api = mockhttp.Server(tls=str(certs.folder), http2=http2)
    ticks = mockhttp.ok().event_stream(Event(data="tick"), event_delay=0.1, repeat=True)
    api.mock(mockhttp.get("/events").reply(ticks))
    page = mockhttp.ok().header("Content-Type", "text/html; charset=utf-8").body(PAGE)
    api.mock(mockhttp.get("/").reply(page))  # the page on the same origin: no CORS needed
    with api:
        tab = chromium.new_page()
        try:
            tab.goto(api.url_for("/"))
            try:
                got = tab.evaluate(EIGHT_SOURCES, [api.url_for("/events"), 8, wait])
            except Exception as exc:  # playwright's Error: the page's rejection
                got = str(exc)
        finally:
            tab.close()
        # the page closed its sources: wait for the server to see each hang-up (an
        # RST_STREAM or a closed connection) before it closes, which would end a stream
        # whose hang-up it has not read yet as "server closed" (seen under load)
        deadline = time.monotonic() + 20
        for call in [c for c in api.journal if c.request.path == "/events"]:
            call.wait(max(0.0, deadline - time.monotonic()))
    return got, api


def test_eight_event_sources_share_one_http2_connection(chromium_tls: Any, certs: Any) -> None:
    got, api = _eight(chromium_tls, certs, http2=True, wait=8000)
    assert got == [["tick", "tick"]] * 8
    streams = [c for c in api.journal if c.request.path == "/events"]
    assert len(streams) == 8
    assert {c.request.http_version for c in api.journal} == {"2"}
    assert {c.outcome for c in streams} == {"client hung up"}


def test_over_http1_the_seventh_source_waits(chromium_tls: Any, certs: Any) -> None:
    got, api = _eight(chromium_tls, certs, http2=False, wait=1500)
    assert "events per source" in got, got
    counts = json.loads(got.split("events per source: ")[1].split("]")[0] + "]")
    assert sorted(counts)[:2] == [0, 0]  # two of them never got a byte
    assert min(sorted(counts)[2:]) >= 2  # while six streamed
    assert {c.request.http_version for c in api.journal} == {"1.1"}
