"""The server on any asyncio-compatible event loop: asyncio's own and uvloop (on the wire)."""

from __future__ import annotations

import asyncio
import socket
import sys
import time

import httpx
import pytest

import mockhttp
from mockhttp import Event, fault
from tests.helpers.cli_process import Serving
from tests.helpers.clients import raw_exchange

LOOPS = ["asyncio", "uvloop"]


@pytest.fixture(params=LOOPS)
def loop_server(request: pytest.FixtureRequest):
    with mockhttp.Server(loop=request.param) as server:
        assert server.loop_name == request.param
        yield server


def test_small_replies_and_pipelining(loop_server: mockhttp.Server) -> None:
    """Keep-alive JSON replies, and pipelined requests answered in order."""
    loop_server.mock(mockhttp.get("/a").reply(mockhttp.ok().json({"a": 1})))
    loop_server.mock(mockhttp.get("/b").reply(mockhttp.ok().body("b")))
    with httpx.Client() as client:
        assert [client.get(loop_server.url + "/a").json() for _ in range(3)] == [{"a": 1}] * 3
    received = raw_exchange(
        loop_server.url,
        b"GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
        b"GET /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    )
    assert received == (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\ncontent-length: 7\r\n\r\n"
        b'{"a":1}'
        b"HTTP/1.1 200 OK\r\ncontent-length: 1\r\nconnection: close\r\n\r\nb"
    )
    assert [c.outcome for c in loop_server.journal] == ["complete"] * 5


def test_a_timed_stream(loop_server: mockhttp.Server) -> None:
    """Events arrive on their deadlines, byte-exact."""
    events = [Event(data=str(i)) for i in range(5)]
    loop_server.mock(
        mockhttp.post("/s").reply(mockhttp.ok().event_stream(*events, event_delay=0.05))
    )
    start = time.monotonic()
    with httpx.Client() as client, client.stream("POST", loop_server.url + "/s") as response:
        arrivals = []
        for line in response.iter_lines():
            if line.startswith("data:"):
                arrivals.append((line, time.monotonic() - start))
    assert [line for line, _ in arrivals] == [f"data: {i}" for i in range(5)]
    assert arrivals[-1][1] >= 0.19  # four pauses of 50 ms
    assert loop_server.journal[0].events == 5


def test_a_reset_reaches_the_client_after_the_promised_bytes(
    loop_server: mockhttp.Server,
) -> None:
    """reset_after_bytes: the bytes first, then a TCP reset (the socket tricks work)."""
    loop_server.mock(
        mockhttp.get("/r").reply(mockhttp.ok().body("x" * 1000)).pipe(fault.reset_after_bytes(10))
    )
    sock = socket.create_connection(("127.0.0.1", loop_server.port), timeout=5)
    sock.sendall(b"GET /r HTTP/1.1\r\nHost: x\r\n\r\n")
    data = b""
    with pytest.raises(ConnectionResetError):  # noqa: PT012 (read until the reset)
        while True:
            piece = sock.recv(65536)
            if not piece:
                break
            data += piece
    sock.close()
    assert data.endswith(b"\r\n\r\n" + b"x" * 10)
    assert loop_server.journal[0].outcome == "reset"


def test_a_loop_factory_is_accepted() -> None:
    """loop= also takes a function that returns a new loop."""
    made = []

    def new_loop() -> asyncio.AbstractEventLoop:
        made.append(asyncio.new_event_loop())
        return made[-1]

    with mockhttp.Server(loop=new_loop) as server:
        server.mock(mockhttp.get("/").reply(mockhttp.ok().body("ok")))
        assert httpx.get(server.url).text == "ok"
        assert server.loop_name == "asyncio"
    assert len(made) == 1


def test_unknown_or_missing_loops_are_config_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    """A misspelled loop, or uvloop when it is not installed, fails when the server is made;
    "auto" falls back to asyncio's loop."""
    with pytest.raises(mockhttp.ConfigError, match="loop='tokio' must be one of auto"):
        mockhttp.Server(loop="tokio")
    monkeypatch.setitem(sys.modules, "uvloop", None)  # as if it were not installed
    with pytest.raises(mockhttp.ConfigError, match=r"pip install 'mockhttp\[fast\]'"):
        mockhttp.Server(loop="uvloop")
    with mockhttp.Server(loop="auto") as server:
        assert server.loop_name == "asyncio"


def test_auto_is_the_loop_measured_faster() -> None:
    """ "auto" (the default) picks uvloop when it is installed: measured no slower than
    asyncio's loop on any of the benchmark's loads (docs/performance.md, "Which loop");
    asyncio's own loop when asked for by name."""
    pytest.importorskip("uvloop")
    with mockhttp.Server(loop="auto") as server:
        assert server.loop_name == "uvloop"
    with mockhttp.Server() as server:
        assert server.loop_name == "uvloop"
    with mockhttp.Server(loop="asyncio") as server:
        assert server.loop_name == "asyncio"


def test_deadlines_are_read_on_a_clock_of_now() -> None:
    """On uvloop a reply's deadlines are checked against time.monotonic, not the loop's
    time of the start of its turn (which lags in a long turn); elsewhere, the loop's own
    clock (a custom loop may keep virtual time)."""
    uvloop = pytest.importorskip("uvloop")
    from mockhttp._server._loop import clock_of

    loop = uvloop.new_event_loop()
    try:
        assert clock_of(loop) is time.monotonic
    finally:
        loop.close()
    loop = asyncio.new_event_loop()
    try:
        assert clock_of(loop) == loop.time
    finally:
        loop.close()


@pytest.mark.parametrize("loop", LOOPS)
def test_serve_on_a_chosen_loop(loop: str) -> None:
    """mockhttp serve --loop NAME serves on it and says so."""
    with Serving("--loop", loop, "--quiet") as serving:
        assert serving.wait_for_log("mockhttp: serving").rstrip().endswith(f"({loop})")
        assert httpx.get(serving.url + "/v1/models").status_code == 200
        assert serving.stop() == 0


@pytest.mark.parametrize("name", LOOPS)
def test_deadlines_in_one_millisecond_share_one_loop_timer(name: str) -> None:
    """The ticker runs every callback due in the same millisecond from one loop timer, in
    the order they came, none before its deadline and none twice."""
    from mockhttp._server._loop import loop_factory, timing_of

    ran: list[tuple[int, float, float]] = []
    loop = loop_factory(name)()

    async def run() -> None:
        clock, ticker = timing_of(asyncio.get_running_loop())
        start = (int(clock() * 1000) + 50) / 1000  # the start of a millisecond to come
        deadlines = [start + 0.0001, start + 0.0005, start + 0.0009, start + 0.0105]
        timers = [Timer(i, when) for i, when in enumerate(deadlines)]
        for timer in timers:
            ticker.at(loop, timer.when, timer)
        assert len(ticker.due) == 2  # two loop timers for four deadlines
        ticker.at(loop, start + 0.0003, Timer(9, 0.0))  # nothing keeps it: never ticked
        await asyncio.sleep(0.2)
        assert not ticker.due

    class Timer:
        def __init__(self, i: int, when: float) -> None:
            self.i, self.when = i, when

        def tick(self) -> None:
            ran.append((self.i, self.when, time.monotonic() if name == "uvloop" else loop.time()))

    try:
        loop.run_until_complete(run())
    finally:
        loop.close()
    assert [i for i, _, _ in ran] == [0, 1, 2, 3]
    for _, when, at in ran:
        assert at >= when - 1e-6, (when, at)  # never early (late: a busy machine's)
