"""CPU cost per request and per event, without sockets: for comparing changes.

The wire figures of ``bench/run.py`` move with whatever else runs on the machine; these
do much less.  A ``Connection`` is fed requests through a fake transport, on a running
loop, and the process CPU time is divided by the work done:

- ``request_us``: one keep-alive ``GET /small`` (parse, match, journal, reply, write);
- ``json_request_us``: one keep-alive ``POST /v1/chat/json`` with a ~300-byte chat body,
  matched by JSONPath on the body (``bench/shapes.py``: two mocks' body matchers tried);
- ``stream_request_us``: one ``POST /v1/chat/completions`` up to its first event;
- ``event_us``: one event of a running stream (timer, plan step, record, write), measured
  over ``--streams`` streams of 50 events 1 ms apart.

    .venv/bin/python bench/micro.py [--src OTHER/src] [--rounds 5]

Each figure is the best of ``--rounds``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

SRC = os.environ.get("MOCKHTTP_BENCH_SRC") or str(Path(__file__).resolve().parent.parent / "src")
if "--src" in sys.argv:
    SRC = sys.argv[sys.argv.index("--src") + 1]
sys.path.insert(0, SRC)

import shapes  # noqa: E402

import mockhttp  # noqa: E402
from mockhttp import Event  # noqa: E402
from mockhttp._server import _connection  # noqa: E402

SMALL = b"GET /small HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
STREAM = (
    b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    b"Content-Type: application/json\r\nAccept: text/event-stream\r\n"
    b"Content-Length: 2\r\n\r\n{}"
)
JSON = shapes.JSON_REQUEST
SHAPES = {"small": SMALL, "json": JSON}  # the keep-alive request shapes, by name


class FakeTransport(asyncio.Transport):
    """Counts what is written; never pauses."""

    def __init__(self) -> None:
        super().__init__()
        self.written = 0
        self.closed = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.written += len(data)

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return default

    def get_write_buffer_size(self) -> int:
        return 0

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True

    def abort(self) -> None:
        self.closed = True

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


def make_server(events: int, delay: float) -> mockhttp.Server:
    server = mockhttp.Server()
    chunks = [
        Event(data={"object": "chat.completion.chunk", "choices": [{"delta": {"content": "x"}}]})
        for _ in range(events - 1)
    ]
    server.mock(
        mockhttp.post("/v1/chat/completions").reply(
            mockhttp.ok().event_stream(*chunks, Event(data="[DONE]"), event_delay=delay)
        )
    )
    server.mock(mockhttp.get("/small").reply(mockhttp.ok().json({"ok": True, "n": 1})))
    for mock in shapes.json_mocks(mockhttp):
        server.mock(mock)
    return server


def connect(server: mockhttp.Server) -> tuple[Any, FakeTransport]:
    conn = _connection.Connection(server)
    transport = FakeTransport()
    conn.connection_made(transport)
    return conn, transport


async def requests(n: int, raw: bytes = SMALL) -> float:
    server = make_server(50, 0.02)
    conns = [connect(server) for _ in range(50)]
    gc.collect()  # start each phase with no collection pending from the last one
    t0 = time.process_time()
    for i in range(n):
        conns[i % 50][0].data_received(raw)
    elapsed = time.process_time() - t0
    assert len(server.journal) == n
    check_answered(server, conns, n)
    return elapsed / n * 1e6


def check_answered(server: mockhttp.Server, conns: list[tuple[Any, FakeTransport]], n: int) -> None:
    """The ``n`` requests were answered alike, the last 200 by its mock (not a 404: a
    shape that misses would measure the miss report instead).  Reads one journal entry
    (reading each back would cost more than serving it, and instructions.py counts it)."""
    total = sum(t.written for _, t in conns)
    assert total, "nothing written"
    assert total % n == 0, f"{total} bytes written for {n} requests: not alike"
    last = server.journal[-1]
    assert last.status == 200, f"answered {last.status}"
    assert last.mock is not None, "no mock answered"


async def streams(n: int, events: int) -> tuple[float, float]:
    """(CPU µs per stream request up to its first event, CPU µs per later event)."""
    server = make_server(events, 0.001)
    loop = asyncio.get_running_loop()
    conns = [connect(server) for _ in range(n)]
    gc.collect()
    t0 = time.process_time()
    for conn, _ in conns:
        conn.data_received(STREAM)
    t1 = time.process_time()
    deadline = loop.time() + 30
    while any(c.runner is not None for c, _ in conns) and loop.time() < deadline:
        await asyncio.sleep(0.005)
    t2 = time.process_time()
    assert all(c.outcome == "complete" for c in server.journal), "streams did not complete"
    # the loop also idles in epoll between timers; that time is not CPU time
    return (t1 - t0) / n * 1e6, (t2 - t1) / (n * (events - 1)) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", help="measure the mockhttp package in this src/ directory")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--requests", type=int, default=20_000)
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--events", type=int, default=50)
    args = parser.parse_args()
    gc.collect()
    gc.freeze()
    best: dict[str, float] = {}
    for _ in range(args.rounds):
        loop = asyncio.new_event_loop()
        try:
            req = loop.run_until_complete(requests(args.requests))
            json_req = loop.run_until_complete(requests(args.requests, JSON))
            stream_req, event = loop.run_until_complete(streams(args.streams, args.events))
        finally:
            loop.close()
        for key, value in (
            ("request_us", req),
            ("json_request_us", json_req),
            ("stream_request_us", stream_req),
            ("event_us", event),
        ):
            best[key] = min(best.get(key, value), value)
        gc.collect()
    print(json.dumps({"src": SRC, **{k: round(v, 2) for k, v in best.items()}}))


if __name__ == "__main__":
    main()
