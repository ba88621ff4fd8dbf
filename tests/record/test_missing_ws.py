"""``serve DIR --record-missing --upstream URL`` relays a WebSocket session no mock answers:
on the wire, a real ``serve`` process between a ``websockets`` client and a loopback
upstream (mockhttp's realtime mock, or a plain ``websockets`` server), the session written
into DIR as a ``websocket:`` mock and replayed, frame for frame, with the upstream gone."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect
from websockets.sync.connection import Connection
from websockets.sync.server import Server as WsServer
from websockets.sync.server import ServerConnection
from websockets.sync.server import serve as ws_serve
from websockets.typing import Subprotocol

import mockhttp
from mockhttp import llm, ws
from tests.helpers.cli_process import Serving

KEY = "sk-realtime-secret-7731"
WAIT = 30  # seconds: a bound on conditions, never a sleep (a loaded machine is slow)


def _ws(url: str, path: str) -> str:
    return url.replace("http://", "ws://").rstrip("/") + path


def _realtime(url: str) -> list[str]:
    """One realtime session: the events up to ``response.done`` after one ``response.create``."""
    target = _ws(url, "/v1/realtime?model=gpt-realtime")
    headers = {"Authorization": f"Bearer {KEY}"}
    with connect(target, additional_headers=headers, open_timeout=WAIT) as client:
        seen = [str(client.recv(timeout=WAIT))]
        client.send(json.dumps({"type": "response.create"}))
        while '"response.done"' not in seen[-1]:
            seen.append(str(client.recv(timeout=WAIT)))
    return seen


def test_a_realtime_session_no_mock_answers_is_recorded_then_replayed_without_the_upstream(
    tmp_path: Path,
) -> None:
    endpoint = llm.openai_realtime("Hello there")
    upstream = mockhttp.Server().start()
    try:
        upstream.mock(endpoint.mock())
        with Serving(str(tmp_path), "--record-missing", "--upstream", upstream.url) as serving:
            live = _realtime(serving.url)
            line = serving.wait_for_log("recorded GET /v1/realtime")
            assert "-> 101 (13 messages): websocket /v1/realtime #1" in line
            assert "→ mock 'record-missing' 101" in serving.wait_for_log("record-missing")
            (session,) = endpoint.wait_ended(1, timeout=WAIT)
            assert session.request.headers["authorization"] == f"Bearer {KEY}"  # sent upstream
            assert session.request.query == (("model", "gpt-realtime"),)
            upstream.close()
            again = _realtime(serving.url)
            assert serving.wait_for_log("→ mock 'websocket /v1/realtime #1' 101")
            assert again == live
            assert len(live) == 11
            assert '"delta":" there"' in live[5]
        assert not any(KEY in line for line in serving.log)
    finally:
        upstream.close()
    (path,) = tmp_path.glob("*.yaml")
    assert path.name == "001-get-v1-realtime.yaml"
    text = path.read_text()
    assert KEY not in text
    assert "websocket:" in text
    with Serving(str(tmp_path)) as replaying:  # the next run serves it from DIR too
        assert _realtime(replaying.url) == live


# -- a plain websockets server as the upstream: text and binary both ways, its close code ------


def _shouting(conn: ServerConnection) -> None:
    """The upstream: greets, answers each text upper-cased and each binary reversed,
    and closes 4001 on ``bye``."""
    conn.send("hello")
    for message in conn:
        if message == "bye":
            conn.close(4001, "asked to go")
            return
        conn.send(message.upper() if isinstance(message, str) else bytes(message)[::-1])


@contextmanager
def _websockets_upstream() -> Iterator[WsServer]:
    server = ws_serve(_shouting, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        thread.join(WAIT)


def _talk(client: Connection) -> list[Any]:
    """Text, binary and a fragmented text message out; what came back, the close included."""
    seen: list[Any] = [client.recv(timeout=WAIT)]
    client.send("one")
    seen.append(client.recv(timeout=WAIT))
    client.send(b"\x00\x01\x02\xff")
    seen.append(client.recv(timeout=WAIT))
    client.send(iter(["frag", "mented"]))  # one message in two frames
    seen.append(client.recv(timeout=WAIT))
    client.send("bye")
    with pytest.raises(ConnectionClosed) as closed:
        client.recv(timeout=WAIT)
    assert closed.value.rcvd is not None
    seen.append((closed.value.rcvd.code, closed.value.rcvd.reason))
    return seen


def test_frames_both_ways_from_a_websockets_upstream_and_its_close_replay(tmp_path: Path) -> None:
    with _websockets_upstream() as upstream:
        base = f"http://127.0.0.1:{upstream.socket.getsockname()[1]}"
        with Serving(str(tmp_path), "--record-missing", "--upstream", base) as serving:
            with connect(_ws(serving.url, "/chat"), open_timeout=WAIT) as client:
                live = _talk(client)
            closed = (4001, "asked to go")
            assert live == ["hello", "ONE", b"\xff\x02\x01\x00", "FRAGMENTED", closed]
            serving.wait_for_log("recorded GET /chat -> 101")
    with (
        Serving(str(tmp_path)) as replaying,  # the upstream is gone
        connect(_ws(replaying.url, "/chat"), open_timeout=WAIT) as client,
    ):
        assert _talk(client) == live
    (path,) = tmp_path.glob("*.yaml")
    (mock,) = mockhttp.load(path)
    assert mock.kind is not None
    assert mock.kind.to_args()["script"][-1] == {"close": {"code": 4001, "reason": "asked to go"}}


def test_a_websocket_mock_in_dir_answers_and_the_upstream_never_sees_it(tmp_path: Path) -> None:
    (tmp_path / "chat.yaml").write_text(
        "request: {method: GET, path: /chat}\n"
        "response:\n  websocket:\n    script:\n      - send: from DIR\n      - close: 1000\n"
    )
    endpoint = ws.websocket(ws.send("from the upstream"))
    with mockhttp.Server() as upstream:
        upstream.mock(endpoint.mock("/chat"), endpoint.mock("/other"))
        with Serving(str(tmp_path), "--record-missing", "--upstream", upstream.url) as serving:
            with connect(_ws(serving.url, "/chat"), open_timeout=WAIT) as client:
                assert client.recv(timeout=WAIT) == "from DIR"
            with connect(_ws(serving.url, "/other"), open_timeout=WAIT) as client:
                assert client.recv(timeout=WAIT) == "from the upstream"
            serving.wait_for_log("recorded GET /other -> 101")
        assert [s.request.path for s in endpoint.sessions] == ["/other"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["001-get-other.yaml", "chat.yaml"]


# -- a subprotocol, and a key carried in one (what a browser's realtime client sends) ------------

BROWSER = [Subprotocol("realtime"), Subprotocol(f"openai-insecure-api-key.{KEY}")]


def _browser_session(url: str) -> tuple[str | None, list[str]]:
    target = _ws(url, "/v1/realtime?model=gpt-realtime")
    with connect(target, subprotocols=BROWSER, open_timeout=WAIT) as client:
        seen = [str(client.recv(timeout=WAIT))]
        client.send(json.dumps({"type": "response.create"}))
        while '"response.done"' not in seen[-1]:
            seen.append(str(client.recv(timeout=WAIT)))
        return client.subprotocol, seen


def test_a_browsers_subprotocols_go_upstream_its_choice_comes_back_and_the_key_nowhere(
    tmp_path: Path,
) -> None:
    endpoint = llm.openai_realtime("Hello there")
    upstream = mockhttp.Server().start()
    try:
        upstream.mock(endpoint.mock())
        args = (str(tmp_path), "--verbose", "--record-missing", "--upstream", upstream.url)
        with Serving(*args) as serving:
            chosen, live = _browser_session(serving.url)
            serving.wait_for_log("recorded GET /v1/realtime")
            journal = httpx.get(serving.url + "/__mockhttp/journal", timeout=WAIT).text
            (session,) = endpoint.wait_ended(1, timeout=WAIT)
            upstream.close()
            assert _browser_session(serving.url) == (chosen, live)  # from DIR, upstream gone
            log = "".join(serving.log)
    finally:
        upstream.close()
    assert chosen == "realtime"
    assert session.request.headers["sec-websocket-protocol"] == ", ".join(BROWSER)
    assert "openai-insecure-api-key.[redacted]" in log  # --verbose shows the header, hidden
    assert "openai-insecure-api-key.[redacted]" in journal
    (path,) = tmp_path.glob("*.yaml")
    text = path.read_text()
    assert "subprotocol: realtime" in text
    for seen in (log, journal, text):
        assert KEY not in seen
