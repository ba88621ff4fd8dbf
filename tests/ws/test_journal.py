"""A WebSocket session in the admin journal (``ws/_journal.py``): its frames under its
``101`` call, in one process and under ``serve --workers 2`` (whichever worker served it)."""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

import mockhttp
from mockhttp import ws
from mockhttp.ws._journal import frame_json, session_of
from mockhttp.ws._session import Frame
from tests.helpers.cli_process import Serving

MOCKS = """\
- request: {method: GET, path: /ws}
  response:
    websocket:
      script:
        - send: hello
        - echo: true
"""


def test_a_frame_as_json() -> None:
    text = frame_json(Frame("received", "text", "key sk-1", 0.1234567))
    assert text == {
        "direction": "received",
        "kind": "text",
        "data": "key sk-1",
        "encoding": "utf-8",
        "at": 0.123457,
    }
    binary = frame_json(Frame("sent", "binary", b"\x00\xff", 1.0), hide=str.upper)
    assert binary["encoding"] == "base64"
    assert base64.b64decode(binary["data"]) == b"\x00\xff"  # binary is never hidden
    close = frame_json(Frame("sent", "close", "bye", 2.0, code=1001), hide=str.upper)
    assert (close["data"], close["code"]) == ("BYE", 1001)
    assert "code" not in text


def test_no_key_finds_no_session() -> None:
    assert session_of([], "abc") is None
    assert session_of([], None) is None


def calls_of(url: str) -> list[dict[str, Any]]:
    got = httpx.get(url.rstrip("/") + "/__mockhttp/journal", timeout=30)
    assert got.status_code == 200, got.text
    calls: list[dict[str, Any]] = got.json()["calls"]
    return calls


def test_the_admin_journal_shows_a_sessions_frames_redacted() -> None:
    chat = ws.websocket(ws.send("hello"), ws.echo(1), ws.send(b"\x01\x02"), ws.close(1001, "bye"))
    with mockhttp.Server(admin=True) as server:
        server.mock(chat.mock("/ws"))
        server.mock(mockhttp.get("/plain").reply(mockhttp.ok().body("ok")))
        url = f"ws://127.0.0.1:{server.port}/ws"
        headers = {"Authorization": "Bearer sk-secret-123456"}
        with connect(url, additional_headers=headers) as client:
            assert client.recv(timeout=10) == "hello"
            client.send("my key is sk-secret-123456")
            assert client.recv(timeout=10) == "my key is sk-secret-123456"
            assert client.recv(timeout=10) == b"\x01\x02"
        chat.wait_ended()
        assert httpx.get(server.url_for("/plain")).text == "ok"
        calls = calls_of(server.url)
    upgrade, plain = calls
    assert "websocket" not in plain
    assert upgrade["status"] == 101
    session = upgrade["websocket"]
    assert session["ended"] is True
    assert session["close_code"] == 1001
    frames = session["frames"]
    assert [(f["direction"], f["kind"]) for f in frames] == [
        ("sent", "text"),
        ("received", "text"),
        ("sent", "text"),
        ("sent", "binary"),
        ("sent", "close"),
        ("received", "close"),
    ]
    assert frames[1]["data"] == "my key is [redacted]"  # the request's secret, hidden
    assert "sk-secret-123456" not in json.dumps(calls)
    assert base64.b64decode(frames[3]["data"]) == b"\x01\x02"
    assert (frames[4]["code"], frames[4]["data"]) == (1001, "bye")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SO_REUSEPORT: Linux")
def test_sessions_of_every_worker_are_in_the_journal_under_workers(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text(MOCKS)
    with Serving(str(tmp_path), "--workers", "2", "--quiet") as serving:
        serving.wait_for_log("with 2 workers")
        base = serving.url.replace("http://", "ws://").rstrip("/") + "/ws"
        for i in range(30):  # a new connection each: the kernel picks the worker
            with connect(base) as client:
                assert client.recv(timeout=30) == "hello"
                client.send(f"message {i}")
                assert client.recv(timeout=30) == f"message {i}"
        calls = calls_of(serving.url)
    assert len(calls) == 30
    assert {c["worker"] for c in calls} == {0, 1}  # 2**-29 odds of one worker only
    said = []
    for call in calls:
        assert call["status"] == 101
        received = [
            f["data"]
            for f in call["websocket"]["frames"]
            if (f["direction"], f["kind"]) == ("received", "text")
        ]
        said += received
        assert call["websocket"]["frames"][0]["data"] == "hello"
    assert sorted(said) == sorted(f"message {i}" for i in range(30))
