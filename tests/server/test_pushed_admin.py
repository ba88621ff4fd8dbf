"""Pushed streams over the admin API: a test in any language pushes with plain HTTP."""

from __future__ import annotations

import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

import mockhttp
from tests.helpers.cli_process import Serving
from tests.helpers.pushed import open_events, read_to_last_chunk

YAML = {"Content-Type": "application/yaml"}
MOCK = """\
- name: feed
  request: {method: GET, path: /events}
  response: {pushed: {resumable: true}}
"""


@pytest.fixture(scope="module")
def served() -> Iterator[mockhttp.Server]:
    with mockhttp.Server(admin=True) as server:
        yield server


@pytest.fixture
def admin(served: mockhttp.Server) -> Iterator[tuple[mockhttp.Server, httpx.Client]]:
    """The module's server, reset, with one ``pushed`` mock named ``feed``, and an HTTP
    client of the test's own (closed after it: no kept-alive socket outlives the test)."""
    with httpx.Client(base_url=served.url) as client:
        assert client.post("/__mockhttp/reset").status_code == 200
        assert client.post("/__mockhttp/mocks", content=MOCK, headers=YAML).status_code == 201
        yield served, client


def test_push_and_close_from_a_raw_http_client(
    admin: tuple[mockhttp.Server, httpx.Client],
) -> None:
    """POST .../push sends JSON events to the open stream, POST .../close ends it, and
    GET .../streams shows what was pushed and delivered."""
    server, client = admin
    with open_events(server) as sock:
        server.mocks[0].wait_connected()
        pushed = client.post(
            "/__mockhttp/mocks/feed/push",
            json={"events": [{"data": "hi"}, {"data": "there", "event": "delta"}]},
        )
        assert (pushed.status_code, pushed.json()) == (200, {"count": 1})
        assert client.post("/__mockhttp/mocks/feed/close").json() == {"count": 1}
        body = read_to_last_chunk(sock)
    assert body.endswith(
        b"10\r\nid: 1\ndata: hi\n\n\r\n20\r\nevent: delta\nid: 2\ndata: there\n\n\r\n0\r\n\r\n"
    )
    server.mocks[0].streams[0].call.wait()
    streams = client.get("/__mockhttp/mocks/feed/streams").json()["calls"]
    assert [(s["stream"], s["open"], s["outcome"]) for s in streams] == [(1, False, "complete")]
    assert streams[0]["pushed"] == [
        {"data": "hi", "id": "1"},
        {"data": "there", "event": "delta", "id": "2"},
    ]
    assert streams[0]["delivered"] == [
        {"data": "hi", "event": "message", "id": "1"},
        {"data": "there", "event": "delta", "id": "2"},
    ]


def test_push_to_one_stream_by_number(admin: tuple[mockhttp.Server, httpx.Client]) -> None:
    server, client = admin
    with open_events(server) as first, open_events(server) as second:
        server.mocks[0].wait_connected(2)
        to_two = {"events": [{"data": "x"}], "stream": 2}
        assert client.post("/__mockhttp/mocks/feed/push", json=to_two).json() == {"count": 1}
        one = client.post("/__mockhttp/mocks/feed/close", json={"stream": 1})
        assert one.json() == {"count": 1}
        assert client.post("/__mockhttp/mocks/feed/close").json() == {"count": 1}
        assert not read_to_last_chunk(first).endswith(b"data: x\n\n\r\n0\r\n\r\n")
        assert read_to_last_chunk(second).endswith(b"\r\n9\r\ndata: x\n\n\r\n0\r\n\r\n")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"events": []}, '"events" must be a non-empty list'),
        ({"events": [{"dat": "x"}]}, "events[0]: unknown key 'dat'; expected one of comment, data"),
        ({"events": [{"id": "a\nb"}]}, "events[0]: id="),
        ({"event": [{"data": "x"}]}, "unknown key 'event'; expected events, stream"),
        ({"events": [{"data": "x"}], "stream": 3}, '"stream": 3 must be a stream number'),
    ],
)
def test_bad_pushes_get_a_400_that_says_why(
    admin: tuple[mockhttp.Server, httpx.Client], body: object, message: str
) -> None:
    _, client = admin
    got = client.post("/__mockhttp/mocks/feed/push", json=body)
    assert got.status_code == 400
    assert got.json()["error"]["type"] == "push_error"
    assert message in got.json()["error"]["message"]


def test_unknown_mocks_and_plain_mocks(admin: tuple[mockhttp.Server, httpx.Client]) -> None:
    _, client = admin
    missing = client.post("/__mockhttp/mocks/nope/push", json={"events": [{"data": "x"}]})
    assert (missing.status_code, missing.json()["error"]["type"]) == (404, "unknown_mock")
    plain = "- name: plain\n  request: {path: /p}\n  response: {status: 204}\n"
    client.post("/__mockhttp/mocks", content=plain, headers=YAML)
    refused = client.post("/__mockhttp/mocks/plain/push", json={"events": [{"data": "x"}]})
    assert refused.status_code == 400
    assert "does not reply with mockhttp.pushed()" in refused.json()["error"]["message"]
    text = {"Content-Type": "text/plain"}
    form = client.post("/__mockhttp/mocks/feed/push", content=b"x", headers=text)
    assert form.status_code == 415  # a web page cannot push (the admin API's guard)
    listed = client.get("/__mockhttp/mocks/feed").json()["mock"]["response"]
    assert listed == {"status": 200, "pushed": {"resumable": True}}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SO_REUSEPORT: Linux")
def test_under_workers_a_push_reaches_every_workers_streams(tmp_path: Path) -> None:
    """``serve --workers 2``: the streams sit in whichever worker the kernel chose; the
    supervisor relays the push to all, so every stream gets it; counts are summed."""
    (tmp_path / "m.yaml").write_text(MOCK)
    with Serving(str(tmp_path), "--workers", "2", "--quiet") as serving:
        serving.wait_for_log("with 2 workers")
        port = int(serving.url.rsplit(":", 1)[1])
        admin = serving.url + "/__mockhttp/mocks/feed"
        socks = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(4)]
        try:
            for sock in socks:
                sock.sendall(b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
            deadline = time.monotonic() + 10
            while len(httpx.get(admin + "/streams").json()["calls"]) < 4:
                assert time.monotonic() < deadline, "the 4 streams never opened"
                time.sleep(0.02)
            pushed = httpx.post(admin + "/push", json={"events": [{"data": "all"}]})
            assert pushed.json() == {"count": 4}
            assert httpx.post(admin + "/close").json() == {"count": 4}
            bodies = [read_to_last_chunk(sock) for sock in socks]
        finally:
            for sock in socks:
                sock.close()
    assert all(b.endswith(b"11\r\nid: 1\ndata: all\n\n\r\n0\r\n\r\n") for b in bodies)
