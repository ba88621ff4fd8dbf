"""A real Chromium ``WebSocket`` against a ``websocket`` mock: messages both ways, the
close code the page sees, and the journal of the frames; over ws:// and wss://."""

from __future__ import annotations

from typing import Any

import mockhttp
from mockhttp import match, ws

PAGE = "<!doctype html><title>ws</title>"

TALK = """async (url) => await new Promise((resolve) => {
  const seen = [];
  const socket = new WebSocket(url, ["chat"]);
  socket.binaryType = "arraybuffer";
  socket.onmessage = (e) => {
    const data = typeof e.data === "string" ? e.data : Array.from(new Uint8Array(e.data));
    seen.push(data);
    if (data === "hello") socket.send(JSON.stringify({type: "ping", n: 1}));
    if (seen.length === 2) socket.send("echo me");
  };
  socket.onclose = (e) => resolve({seen, code: e.code, reason: e.reason,
                                   protocol: socket.protocol, clean: e.wasClean});
  setTimeout(() => resolve({seen, code: "timeout"}), 8000);
})"""


def endpoint() -> ws.WebSocket:
    return ws.websocket(
        ws.send("hello"),
        ws.expect(match.json_path("$.type", match.equal("ping"))),
        ws.send(b"\x01\x02"),
        ws.echo(1),
        ws.close(1001, "going"),
        subprotocol="chat",
    )


def talk(context: Any, site: mockhttp.Server, url: str) -> Any:
    page = context.new_page()
    try:
        page.goto(site.url_for("/"))
        return page.evaluate(TALK, url)
    finally:
        page.close()


def check(got: Any, chat: ws.WebSocket, origin: str) -> None:
    assert got == {
        "seen": ["hello", [1, 2], "echo me"],
        "code": 1001,
        "reason": "going",
        "protocol": "chat",
        "clean": True,
    }
    (session,) = chat.wait_ended()
    assert session.received == ['{"type":"ping","n":1}', "echo me"]
    assert session.request.headers["origin"] == origin
    assert [f.kind for f in session.frames if f.direction == "received"][-1] == "close"


def test_chromium_talks_to_a_websocket_mock(chromium: Any) -> None:
    page = mockhttp.ok().header("Content-Type", "text/html; charset=utf-8").body(PAGE)
    with mockhttp.Server() as site, mockhttp.Server() as api:
        site.mock(mockhttp.get("/").reply(page))
        chat = endpoint()
        api.mock(chat.mock("/ws"))
        got = talk(chromium, site, f"ws://127.0.0.1:{api.port}/ws")
        check(got, chat, site.url.rstrip("/"))


CLOSE_CODE = """async (url) => await new Promise((resolve) => {
  const socket = new WebSocket(url);
  const seen = [];
  socket.onmessage = (e) => seen.push(e.data);
  socket.onclose = (e) => resolve({seen, code: e.code, clean: e.wasClean});
  setTimeout(() => resolve({seen, code: "timeout"}), 8000);
})"""


def test_chromium_sees_1006_when_the_mock_drops_or_sends_bad_utf8(chromium: Any) -> None:
    page = mockhttp.ok().header("Content-Type", "text/html; charset=utf-8").body(PAGE)
    with mockhttp.Server() as site, mockhttp.Server() as api:
        site.mock(mockhttp.get("/").reply(page))
        api.mock(ws.websocket(ws.send("one"), ws.drop()).mock("/drop"))
        bad = ws.websocket(ws.send("one"), ws.invalid_utf8())
        api.mock(bad.mock("/bad"))
        tab = chromium.new_page()
        try:
            tab.goto(site.url_for("/"))
            dropped = tab.evaluate(CLOSE_CODE, f"ws://127.0.0.1:{api.port}/drop")
            invalid = tab.evaluate(CLOSE_CODE, f"ws://127.0.0.1:{api.port}/bad")
        finally:
            tab.close()
        assert dropped == {"seen": ["one"], "code": 1006, "clean": False}
        assert invalid["seen"] == ["one"]
        assert invalid["code"] == 1006  # Chromium fails the connection (no close it reads)
        (session,) = bad.wait_ended()
        # Chromium closes 1002 (not RFC 6455's 1007) and tells its page 1006
        assert session.close_code == 1002
        assert session.frames[-2].data == "Invalid UTF-8 in text frame"


FIRST = """async (url) => await new Promise((resolve) => {
  const socket = new WebSocket(url);
  socket.onmessage = (e) => { resolve(e.data); socket.close(1000); };
  socket.onerror = () => resolve("error");
  setTimeout(() => resolve("timeout"), 8000);
})"""


def test_chromium_names_its_test_by_the_url_prefix(chromium: Any) -> None:
    """A page's ``new WebSocket(url)`` can set no header: ``/__test/ID/`` names the test
    (per-test isolation, ``docs/isolation.md``); each test's mock answers its page."""
    page = mockhttp.ok().header("Content-Type", "text/html; charset=utf-8").body(PAGE)
    with mockhttp.Server() as site, mockhttp.Server() as api:
        site.mock(mockhttp.get("/").reply(page))
        api.mock(ws.websocket(ws.send("shared")).mock("/ws"))
        for test in ("a", "b"):
            api.test(test).mock(ws.websocket(ws.send(f"for {test}")).mock("/ws"))
        tab = chromium.new_page()
        try:
            tab.goto(site.url_for("/"))
            ws_url = api.url.replace("http://", "ws://")
            got = [tab.evaluate(FIRST, f"{ws_url}/__test/{t}/ws") for t in ("a", "b", "c")]
            got.append(tab.evaluate(FIRST, f"{ws_url}/ws"))
        finally:
            tab.close()
        assert got == ["for a", "for b", "shared", "shared"]
        for test in ("a", "b", "c"):
            (call,) = api.test(test).journal
            assert (call.status, call.test, call.test_prefix) == (101, test, f"/__test/{test}")
            assert call.request.headers["origin"] == site.url.rstrip("/")
        assert [c.test for c in api.journal] == [None]
