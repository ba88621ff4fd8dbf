"""Per-test isolation over WebSocket (``docs/isolation.md``): an upgrade request names its
test by the ``/__test/ID/`` prefix (a browser's ``new WebSocket(url)`` can set no header)
or by the test header, and is answered by that test's mocks, journaled as that test's
call (``call.test``, ``call.test_prefix``), with its frames in the test's admin journal;
in one process and under ``serve --workers 2`` (a real ``websockets`` client)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

import mockhttp
from mockhttp import ws
from tests.helpers.cli_process import Serving
from tests.ws.test_journal import MOCKS as SHARED  # (a shared /ws that says "hello")

H = "x-mockhttp-test"
_http = httpx.Client(timeout=60, limits=httpx.Limits(max_keepalive_connections=0))


def _ws_url(base: str, path: str) -> str:
    return base.replace("http://", "ws://").rstrip("/") + path


def _first(url: str, headers: dict[str, str] | None = None, say: str | None = None) -> Any:
    """Open ``url``, read the first message (and, with ``say``, its echo); close."""
    with connect(url, additional_headers=headers, open_timeout=60) as client:
        first = client.recv(timeout=60)
        if say is not None:
            client.send(say)
            assert client.recv(timeout=60) == say
        return first


def test_the_prefix_names_the_test_of_an_upgrade() -> None:
    mine = ws.websocket(ws.send("mine"), ws.echo(1))
    with mockhttp.Server() as server:
        server.mock(ws.websocket(ws.send("shared")).mock("/ws"))
        a = server.test("a")
        a.mock(mine.mock("/ws"))
        assert _first(_ws_url(a.prefix_url, "/ws"), say="hi") == "mine"
        mine.wait_ended()
        assert _first(_ws_url(server.test("b").prefix_url, "/ws")) == "shared"
        assert _first(_ws_url(server.url, "/ws")) == "shared"
        (call,) = a.journal
        assert (call.status, call.request.target, call.test, call.test_prefix) == (
            101,
            "/ws",
            "a",
            "/__test/a",
        )
        assert mine.sessions[0].request.target == "/ws"  # the session sees the stripped target
        (other,) = server.test("b").journal
        assert (other.status, other.test, other.test_prefix) == (101, "b", "/__test/b")
        assert [c.test for c in server.journal] == [None]  # the shared side's own only


def test_the_header_names_the_test_of_an_upgrade() -> None:
    with mockhttp.Server() as server:
        server.mock(ws.websocket(ws.send("shared")).mock("/ws"))
        a = server.test("a")
        a.mock(ws.websocket(ws.send("mine")).mock("/ws"))
        assert _first(_ws_url(server.url, "/ws"), headers=a.headers) == "mine"
        (call,) = a.journal
        assert (call.status, call.test, call.test_prefix) == (101, "a", None)


def test_a_query_after_the_prefix_reaches_the_mock() -> None:
    """``/__test/ID?x`` and ``/__test/ID/path?x``: the query stays, as the SDKs' realtime
    URLs (``/v1/realtime?model=...``) need."""
    with mockhttp.Server() as server:
        a = server.test("a")
        a.mock(mockhttp.get("/v1/realtime").query("model", "m1").reply(ws.websocket(ws.send("m1"))))
        a.mock(ws.websocket(ws.send("root")).mock("/"))
        assert _first(_ws_url(a.prefix_url, "/v1/realtime?model=m1")) == "m1"
        assert _first(_ws_url(a.prefix_url, "?x=1")) == "root"
        assert [c.request.target for c in a.journal] == ["/v1/realtime?model=m1", "/?x=1"]


def test_a_bad_id_in_the_prefix_refuses_the_upgrade_with_a_400() -> None:
    from websockets.exceptions import InvalidStatus

    with mockhttp.Server() as server:
        server.mock(ws.websocket(ws.send("shared")).mock("/ws"))
        with pytest.raises(InvalidStatus) as refused:
            _first(_ws_url(server.url, "/__test/a%20b/ws"))
        assert refused.value.response.status_code == 400
        assert b"URL prefix /__test/ID/" in refused.value.response.body
        assert [c.status for c in server.unmatched] == [400]


def test_the_lane_never_keeps_a_prefixed_answer() -> None:
    """A test's request (prefix or header) is never learned by the lane: after many of
    them the test's own mock, added later, answers (a test's mocks do not empty the
    lane's table), and the test's answer is never given to a request of the shared side
    (the lane's key is the target as matched: the prefix stripped)."""
    with mockhttp.Server() as server:
        server.mock(mockhttp.get("/who").reply(mockhttp.ok().body("shared")))
        with httpx.Client(timeout=60) as http:  # one keep-alive connection
            for _ in range(6):
                assert http.get(server.url + "/who").text == "shared"  # (learned by the lane)
                assert http.get(server.url + "/__test/a/who").text == "shared"
                assert http.get(server.url + "/who", headers={H: "b"}).text == "shared"
            server.test("a").mock(mockhttp.get("/who").reply(mockhttp.ok().body("a")))
            server.test("b").mock(mockhttp.get("/who").reply(mockhttp.ok().body("b")))
            for _ in range(6):  # the test's answer, never kept for the shared requests
                assert http.get(server.url + "/__test/a/who").text == "a"
                assert http.get(server.url + "/who", headers={H: "b"}).text == "b"
            assert http.get(server.url + "/who").text == "shared"
        assert len(server.test("a").journal) == 12
        assert len(server.journal) == 7


def test_the_admin_journal_of_a_test_holds_its_sessions_frames() -> None:
    with mockhttp.Server(admin=True) as server:
        mine = ws.websocket(ws.send("mine"), ws.echo(1))
        server.test("a").mock(mine.mock("/ws"))
        assert _first(_ws_url(server.url, "/__test/a/ws"), say="hello") == "mine"
        mine.wait_ended()
        calls = _http.get(server.url + "/__mockhttp/journal?test=a").json()["calls"]
        (call,) = calls
        assert (call["status"], call["test"], call["test_prefix"]) == (101, "a", "/__test/a")
        frames = [(f["direction"], f["data"]) for f in call["websocket"]["frames"][:3]]
        assert frames == [("sent", "mine"), ("received", "hello"), ("sent", "hello")]
        assert _http.get(server.url + "/__mockhttp/journal").json()["calls"] == []


MINE = """\
request: {method: GET, path: /ws}
response:
  websocket:
    script:
      - send: %s
      - echo: true
"""
TRIES = 40  # fresh connections: both workers take one of them but 1 time in 2**39


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SO_REUSEPORT: Linux")
def test_the_prefix_names_the_test_of_an_upgrade_under_workers(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text(SHARED)
    with Serving(str(tmp_path), "--workers", "2", "--quiet") as serving:
        serving.wait_for_log("with 2 workers")
        url = serving.url.rstrip("/")
        for test in ("a", "b"):
            added = _http.post(
                f"{url}/__mockhttp/mocks?test={test}",
                content=MINE % test,
                headers={"content-type": "application/yaml"},
            )
            assert added.status_code == 201, added.text
        for i in range(TRIES):  # until both workers answered test a
            assert _first(_ws_url(url, "/__test/a/ws"), say=f"a{i}") == "a"
            assert _first(_ws_url(url, "/__test/b/ws"), say=f"b{i}") == "b"
            assert _first(_ws_url(url, "/__test/c/ws")) == "hello"  # the shared mock
            calls = _http.get(url + "/__mockhttp/journal?test=a").json()["calls"]
            if {c["worker"] for c in calls} == {0, 1}:
                break
        assert {c["worker"] for c in calls} == {0, 1}
        for test in ("a", "b"):
            calls = _http.get(f"{url}/__mockhttp/journal?test={test}").json()["calls"]
            assert {(c["status"], c["test"], c["test_prefix"]) for c in calls} == {
                (101, test, f"/__test/{test}")
            }
            said = sorted(
                f["data"]
                for c in calls
                for f in c["websocket"]["frames"]
                if (f["direction"], f["kind"]) == ("received", "text")
            )
            assert said == sorted(f"{test}{j}" for j in range(len(calls)))
        assert _http.get(url + "/__mockhttp/journal").json()["calls"] == []
