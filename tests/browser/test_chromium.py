"""A page from another origin reads the mocks in a real Chromium: fetch with a CORS
preflight, and an EventSource stream cut and resumed after Last-Event-ID."""

from __future__ import annotations

import json
import threading
from typing import Any

import mockhttp
from mockhttp import Event, fault, llm

PAGE = "<!doctype html><title>chat</title><p>a page from another origin</p>"


class _page_server(mockhttp.Server):
    """The page's own origin: a second mock server serving the HTML."""

    def __init__(self) -> None:
        super().__init__()
        page = mockhttp.ok().header("Content-Type", "text/html; charset=utf-8").body(PAGE)
        self.mock(mockhttp.get("/").reply(page))


def _on_page(chromium: Any, site: mockhttp.Server, script: str, url: str) -> Any:
    """Run ``script(url)`` in a new tab showing the site's page (the page's origin)."""
    page = chromium.new_page()
    try:
        page.goto(site.url_for("/"))
        return page.evaluate(script, url)
    finally:
        page.close()


FETCH_STREAM = """async (url) => {
  const response = await fetch(url, {
    method: "POST",
    headers: {"Content-Type": "application/json", "Authorization": "Bearer sk-test"},
    body: JSON.stringify({model: "gpt-4o", stream: true,
                          messages: [{role: "user", content: "Hi"}]}),
  });
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const {done, value} = await reader.read();
    if (done) break;
    text += decoder.decode(value, {stream: true});
  }
  return {status: response.status, text, requestId: response.headers.get("x-request-id")};
}"""


def test_fetch_reads_an_llm_stream_after_a_preflight(chromium: Any) -> None:
    """POST with JSON and Authorization from another origin: preflight, then the stream."""
    with _page_server() as site, mockhttp.Server(cors=True) as api:
        reply = llm.openai_chat("Hello from the mock")
        mock = api.mock(mockhttp.post("/v1/chat/completions").reply(reply))
        got = _on_page(chromium, site, FETCH_STREAM, api.url_for("/v1/chat/completions"))
        [preflight] = api.preflights
        assert preflight.request.headers["access-control-request-method"] == "POST"
        asked = preflight.request.headers["access-control-request-headers"]
        assert set(asked.split(",")) == {"authorization", "content-type"}
        assert preflight.request.headers["origin"] == site.url
        assert got["status"] == 200
        assert got["text"].endswith("data: [DONE]\n\n")
        assert _content(got["text"]) == "Hello from the mock"
        [call] = mock.calls
        assert call.request.headers["authorization"] == "Bearer sk-test"
        assert call.json()["messages"][0]["content"] == "Hi"
        api.check()


def _content(text: str) -> str:
    """The assistant's text in an OpenAI chat stream's ``data:`` lines."""
    pieces = []
    for line in text.splitlines():
        if line.startswith("data: {"):
            for choice in json.loads(line[6:])["choices"]:
                pieces.append(choice["delta"].get("content") or "")
    return "".join(pieces)


EVENT_SOURCE = """(url) => new Promise((resolve, reject) => {
  const got = [];
  const source = new EventSource(url);
  source.onmessage = (e) => {
    got.push([e.lastEventId, e.data]);
    if (got.length === 5) { source.close(); resolve(got); }
  };
  setTimeout(() => { source.close(); reject(new Error("got only " + JSON.stringify(got))); },
             8000);
})"""


EVENT_SOURCE_ACK = EVENT_SOURCE.replace(
    "got.push([e.lastEventId, e.data]);",
    'got.push([e.lastEventId, e.data]); if (got.length === 2) fetch(new URL("/ack", url));',
)
assert EVENT_SOURCE_ACK != EVENT_SOURCE


def test_event_source_resumes_after_a_cut(chromium: Any) -> None:
    """Cut after event 2; Chromium waits retry: 300 ms and comes back with Last-Event-ID 2;
    the journal proves it, and every event arrived once."""
    with _page_server() as site, mockhttp.Server(cors=[site.url]) as api:
        events = [Event(data=f"token {i}") for i in range(1, 6)]
        reply = mockhttp.ok().event_stream(*events, resumable=True, retry=300, event_delay=0.1)
        cut = fault.first(1, fault.close_after_events(2))
        mock = api.mock(mockhttp.get("/events").reply(reply).pipe(cut))
        got = _on_page(chromium, site, EVENT_SOURCE, api.url_for("/events"))
        assert got == [[str(i), f"token {i}"] for i in range(1, 6)]
        first, second = mock.calls
        assert second.wait() == "complete"
        assert (first.event_ids, first.outcome) == (["1", "2"], "closed")
        assert (second.last_event_id, second.event_ids) == ("2", ["3", "4", "5"])
        assert second.after_cut is not None
        assert 0.3 <= second.after_cut < 3.0
        mock.assert_resumed()


def test_event_source_reads_pushed_events_and_resumes(chromium: Any) -> None:
    """A pushed resumable stream: the test pushes while the page reads; the cut after 2
    takes the third's place, Chromium comes back with Last-Event-ID 2 and is sent 3 (it
    missed it) and then the events pushed after its return.

    Event 3 (and with it the cut) is pushed only once the page says it has 1 and 2 (a GET
    of /ack): sent in one read with the cut, Chromium sometimes drops them and reconnects
    without Last-Event-ID (docs/browsers.md)."""
    with _page_server() as site, mockhttp.Server(cors=[site.url]) as api:
        reply = mockhttp.pushed(resumable=True, retry=300)
        mock = api.mock(
            mockhttp.get("/events").reply(reply).pipe(fault.first(1, fault.close_after_events(2)))
        )

        ack = api.mock(mockhttp.get("/ack").reply(mockhttp.ok()))

        def feed() -> None:  # the test's side, while the page reads
            mock.wait_connected(timeout=10)
            mock.push(*(Event(data=f"token {i}") for i in (1, 2)))
            ack.wait_for_calls(1, timeout=10)
            mock.push(Event(data="token 3"))
            mock.wait_connected(2, timeout=10)
            mock.push(*(Event(data=f"token {i}") for i in (4, 5)))

        pusher = threading.Thread(target=feed)
        pusher.start()
        got = _on_page(chromium, site, EVENT_SOURCE_ACK, api.url_for("/events"))
        pusher.join(10)
        mock.close()
        assert got == [[str(i), f"token {i}"] for i in range(1, 6)]
        first, second = mock.streams[:2]
        assert first.call.event_ids == ["1", "2"]
        assert second.call.last_event_id == "2"
        assert second.call.event_ids[:3] == ["3", "4", "5"]
        mock.assert_resumed()
