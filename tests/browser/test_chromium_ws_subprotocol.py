"""A real Chromium ``WebSocket`` offering OpenAI's browser subprotocols (``realtime`` and
``openai-insecure-api-key.<key>``, as openai-node's ``OpenAIRealtimeWebSocket`` offers
them) through the recording proxy: the upstream's choice reaches the page, the key reaches
the upstream and no recording; the replay chooses the same.  Chromium is the referee of the
handshake: it fails a connection whose server chose none of the offered protocols."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mockhttp
from mockhttp import llm, record, ws

KEY = "sk-proj-chromium-key-8086"
PAGE = "<!doctype html><title>realtime</title>"

TALK = """async ([url, protocols]) => await new Promise((resolve) => {
  const types = [];
  const socket = new WebSocket(url, protocols);
  socket.onmessage = (e) => {
    const type = JSON.parse(e.data).type;
    types.push(type);
    if (type === "session.created") socket.send(JSON.stringify({type: "response.create"}));
    if (type === "response.done") socket.close(1000);
  };
  socket.onclose = (e) => resolve({protocol: socket.protocol, types, code: e.code});
  setTimeout(() => resolve({types, code: "timeout"}), 20000);
})"""


def _talk(context: Any, site: mockhttp.Server, url: str, protocols: list[str]) -> Any:
    page = context.new_page()
    try:
        page.goto(site.url_for("/"))
        return page.evaluate(TALK, [url, protocols])
    finally:
        page.close()


def _site() -> mockhttp.Server:
    site = mockhttp.Server().start()
    html = mockhttp.ok().header("Content-Type", "text/html; charset=utf-8").body(PAGE)
    site.mock(mockhttp.get("/").reply(html))
    return site


def test_chromium_gets_the_upstreams_subprotocol_through_the_recorder_and_the_replay(
    chromium: Any, tmp_path: Path
) -> None:
    offers = ["realtime", f"openai-insecure-api-key.{KEY}"]
    endpoint = llm.openai_realtime("Hi from upstream")
    site = _site()
    try:
        with mockhttp.Server() as upstream:
            upstream.mock(endpoint.mock())
            with record.record(upstream.url, tmp_path) as recorder:
                url = f"ws://127.0.0.1:{recorder.server.port}/v1/realtime?model=gpt-realtime"
                live = _talk(chromium, site, url, offers)
                recorder.wait(1, timeout=30)
        assert live["protocol"] == "realtime"
        assert live["types"][0] == "session.created"
        assert live["types"][-1] == "response.done"
        (session,) = endpoint.wait_ended()
        assert KEY in session.request.headers["sec-websocket-protocol"]  # it reached upstream
        (path,) = tmp_path.glob("*.yaml")
        assert KEY not in path.read_text()
        with mockhttp.Server() as replay:
            replay.mock(*mockhttp.load(path))
            again = _talk(chromium, site, f"ws://127.0.0.1:{replay.port}/v1/realtime", offers)
        assert again == live
    finally:
        site.close()


def test_chromium_fails_a_server_that_chooses_none_of_its_subprotocols(chromium: Any) -> None:
    """Why the choice must reach the page: without it the browser drops the connection."""
    site = _site()
    try:
        with mockhttp.Server() as server:
            server.mock(ws.websocket(ws.send('{"type": "session.created"}')).mock("/none"))
            got = _talk(chromium, site, f"ws://127.0.0.1:{server.port}/none", ["realtime"])
    finally:
        site.close()
    assert got["code"] == 1006
    assert got["types"] == []
