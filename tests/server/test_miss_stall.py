"""Unmatched requests among many mocks are explained off the loop, so a burst of them does
not pause the streams being served (issue 19, "Bounded"); the journal, the 404s and
``check()`` say the same as when they were explained on it (wire)."""

from __future__ import annotations

import itertools
import socket
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

import mockhttp
from mockhttp import Event, match
from mockhttp._server._server import EXPLAINED_ON_LOOP
from tests.helpers.cli_process import Serving

MISSES = 10


def items(count: int) -> list[mockhttp.Mock]:
    return [
        mockhttp.get(f"/items/{n}")
        .header("x-test", match.equal("a"))
        .reply(mockhttp.ok().json({"id": n}))
        for n in range(count)
    ]


def misses_pipelined(server: mockhttp.Server, count: int) -> bytes:
    """``count`` unmatched requests sent at once on one connection; the replies."""
    with socket.create_connection((server.host, server.port), timeout=120) as sock:
        sock.sendall(
            b"".join(
                f"GET /items/missing-{n} HTTP/1.1\r\nHost: x\r\nx-test: b\r\n\r\n".encode()
                for n in range(count)
            )
        )
        got = b""
        while got.count(b"HTTP/1.1 404") < count or not got.endswith(b"\n"):
            more = sock.recv(1 << 16)
            assert more, got[-300:]
            got += more
    return got


def test_a_burst_of_misses_among_20000_mocks_leaves_a_stream_flowing() -> None:
    """Ten misses pipelined on one connection, among 20,000 mocks: explained on the loop,
    each held it for the ranking (~100-250 ms here), so a stream of events 50 ms apart
    stopped for 2.6-2.9 s; off the loop its longest gap was 0.13-0.18 s."""
    with mockhttp.Server() as server:
        server.mock(items(20_000))
        server.mock(
            mockhttp.get("/ticks").reply(
                mockhttp.ok().event_stream(Event(data="tick"), event_delay=0.05, repeat=True)
            )
        )
        assert httpx.get(server.url + "/warm-up", timeout=60).status_code == 404
        arrivals: list[float] = []
        ticks = socket.create_connection((server.host, server.port), timeout=60)
        ticks.sendall(b"GET /ticks HTTP/1.1\r\nHost: x\r\n\r\n")

        def read() -> None:
            while True:
                try:
                    data = ticks.recv(1 << 16)
                except OSError:
                    return
                if not data:
                    return
                arrivals.extend([time.monotonic()] * data.count(b"data: tick"))

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        time.sleep(0.5)
        start = time.monotonic()
        replies = misses_pipelined(server, MISSES)
        took = time.monotonic() - start
        time.sleep(0.2)
        ticks.close()
        reader.join(5)
        # from the event before the burst: a stream stopped all along has none during it
        during = [t for t in arrivals if start - 0.2 <= t <= start + took + 0.2]
        gaps = [b - a for a, b in itertools.pairwise(during)]
        assert len(during) >= 3, (took, during)
        assert max(gaps) < 0.6, (took, sorted(gaps)[-3:])

        assert replies.count(b"closest: mock GET /items/") == MISSES
        unmatched = server.unmatched
        assert [c.request.path for c in unmatched] == [
            "/warm-up",
            *(f"/items/missing-{n}" for n in range(MISSES)),
        ]  # the journal keeps the order they came in
        assert all(c.explanation is not None and c.status == 404 for c in unmatched)
        assert unmatched[1].explanation is not None
        assert unmatched[1].explanation.total == 20_001
        with pytest.raises(mockhttp.UnmatchedRequestError, match="11 request"):
            server.check()


@pytest.mark.parametrize("mocks", [EXPLAINED_ON_LOOP, EXPLAINED_ON_LOOP + 1])
def test_a_miss_says_the_same_on_the_loop_and_off_it(mocks: int) -> None:
    """Either side of the threshold: the 404 in the called API's shape, JSON for a client
    that asks for it, its secrets hidden, the call's explanation set before it ended."""
    with mockhttp.Server() as server:
        server.mock(items(mocks))
        ended: list[mockhttp.Call] = []
        server.on_call_end = ended.append
        text = httpx.get(server.url + "/items/x", headers={"x-test": "a"})
        assert text.status_code == 404
        assert text.text.startswith("no mock matched GET /items/x\n  closest: mock GET /items/")
        api = httpx.post(
            server.url + "/v1/chat/completions",
            json={"model": "m"},
            headers={"Authorization": "Bearer sk-secret-123"},
        )
        assert api.status_code == 404
        assert api.json()["error"]["type"] == "mockhttp_no_match"
        assert "sk-secret-123" not in api.text
        asked = httpx.get(server.url + "/nope", headers={"Accept": "application/json"})
        assert asked.json()["error"]["closest"][0]["mock"].startswith("GET /items/")
        deadline = time.monotonic() + 5
        while len(ended) < 3 and time.monotonic() < deadline:  # (called after the last byte)
            time.sleep(0.01)
        assert [c.explanation is not None for c in ended] == [True] * 3
        assert [c.explanation.text.split("\n")[0] for c in ended if c.explanation] == [
            "no mock matched GET /items/x",
            "no mock matched POST /v1/chat/completions",
            "no mock matched GET /nope",
        ]
        assert server.unmatched[0].explanation is ended[0].explanation


def test_a_matcher_whose_explanation_raises_gives_a_500_and_check_raises() -> None:
    """Off the loop as on it: the client gets a 500, ``check()`` the error."""

    class Broken(match.Matcher):
        def matches(self, value: object) -> bool:
            return False

        def explain(self, value: object) -> str | None:
            raise RuntimeError("explain broke")

    with mockhttp.Server() as server:
        server.mock(items(EXPLAINED_ON_LOOP))
        server.mock(mockhttp.get("/items/x").header("x-test", Broken()))
        answer = httpx.get(server.url + "/items/x")
        assert answer.status_code == 500
        with pytest.raises(RuntimeError, match="explain broke"):
            server.check()


def test_a_miss_over_http2_is_explained_off_the_loop() -> None:
    pytest.importorskip("h2")
    with mockhttp.Server(http2=True) as server:
        server.mock(items(EXPLAINED_ON_LOOP + 1))
        with httpx.Client(http1=False, http2=True) as client:
            answers = [client.get(server.url + f"/items/x{n}") for n in range(3)]
        assert [(a.http_version, a.status_code) for a in answers] == [("HTTP/2", 404)] * 3
        assert all("closest: mock GET /items/" in a.text for a in answers)
        assert all(c.explanation is not None for c in server.unmatched)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="--workers: Linux")
def test_a_miss_under_workers_is_explained_off_the_loop(tmp_path: Path) -> None:
    many = "".join(
        f"- request: {{method: GET, path: /items/{n}}}\n  response: {{body: '{n}'}}\n"
        for n in range(EXPLAINED_ON_LOOP + 1)
    )
    (tmp_path / "m.yaml").write_text(many)
    with Serving(str(tmp_path), "--workers", "2", "--quiet") as serving:
        serving.wait_for_log("with 2 workers")
        for n in range(4):
            with httpx.Client() as client:  # a new connection: either worker
                answer = client.get(serving.url + f"/items/x{n}")
            assert answer.status_code == 404
            assert "closest: mock GET /items/" in answer.text
        journal = httpx.get(serving.url + "/__mockhttp/journal?mock=none").json()["calls"]
        assert len(journal) == 4
        assert all("closest" in c["explanation"]["message"] for c in journal)
