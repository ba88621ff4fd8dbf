"""The reference: a minimal asyncio.Protocol + httptools server (DESIGN.md's yardstick).

Measured in the same run as mockhttp, on the same CPU, so "within 20 % of a minimal
server" is judged against what this machine does now, not against a figure taken on a
quieter day.  It answers every ``GET`` with the small JSON body and every other request
with the benchmark's event stream (the same bytes as ``bench/serve.py``: head, then one
chunk per event on absolute deadlines ``--delay`` apart, then the last chunk), and does
nothing else: no matching, no journal, no faults.  A ``POST`` to ``bench/shapes.py``'s
``JSON_PATH`` (``bench/run.py --shape json``) gets that shape's fixed JSON reply, its body
unread: what mockhttp adds on that shape is the parse, the JSONPath matching and the rest.

Protocol with ``bench/run.py`` as for ``bench/serve.py``: prints ``PORT <n>``, serves
until stdin closes, prints ``{}``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import socket
import sys
from typing import Any, ClassVar

import httptools
import shapes  # bench/shapes.py (this script's folder is on sys.path)

HEAD = (
    b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
    b"transfer-encoding: chunked\r\n\r\n"
)
SMALL = (
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\ncontent-length: 17\r\n\r\n"
    b'{"ok":true,"n":1}'
)
JSON_URL = shapes.JSON_PATH.encode()
JSON_REPLY = (
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\ncontent-length: %d\r\n\r\n%b"
    % (len(shapes.JSON_REPLY_BYTES), shapes.JSON_REPLY_BYTES)
)


def chunk(data: bytes) -> bytes:
    return b"%x\r\n%b\r\n" % (len(data), data)


def events(n: int) -> list[bytes]:
    out = []
    for i in range(max(n - 1, 0)):
        data = {
            "id": "chatcmpl-bench",
            "object": "chat.completion.chunk",
            "created": 1700000000,
            "model": "gpt-bench",
            "choices": [{"index": 0, "delta": {"content": f"tok{i} "}, "finish_reason": None}],
        }
        text = "data: " + json.dumps(data, separators=(",", ":")) + "\n\n"
        out.append(chunk(text.encode()))
    return [*out, chunk(b"data: [DONE]\n\n")][:n]


class Stream(asyncio.Protocol):
    EVENTS: ClassVar[list[bytes]] = []
    DELAY: ClassVar[float] = 0.02

    def connection_made(self, transport: Any) -> None:
        self.transport = transport
        self.parser = httptools.HttpRequestParser(self)
        self.url = b""
        self.loop = asyncio.get_running_loop()
        sock = self.transport.get_extra_info("socket")
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def data_received(self, data: bytes) -> None:
        self.parser.feed_data(data)

    def on_url(self, url: bytes) -> None:
        self.url = url  # (one piece: the benchmark's request lines arrive whole)

    def on_message_complete(self) -> None:
        if self.parser.get_method() == b"GET":
            self.transport.write(SMALL)
            return
        if self.url == JSON_URL:
            self.transport.write(JSON_REPLY)
            return
        self.start = self.loop.time()
        self.transport.write(HEAD + self.EVENTS[0])
        self.next = 1
        self.loop.call_at(self.start + self.DELAY, self.tick)

    def tick(self) -> None:
        if self.transport.is_closing():
            return
        data = self.EVENTS[self.next]
        self.next += 1
        if self.next == len(self.EVENTS):
            self.transport.write(data + b"0\r\n\r\n")
            return
        self.transport.write(data)
        self.loop.call_at(self.start + self.next * self.DELAY, self.tick)


async def serve(args: argparse.Namespace) -> None:
    Stream.EVENTS = events(args.events)
    Stream.DELAY = args.delay
    loop = asyncio.get_running_loop()
    server = await loop.create_server(Stream, "127.0.0.1", args.port, backlog=args.backlog)
    gc.collect()
    gc.freeze()
    print(f"PORT {server.sockets[0].getsockname()[1]}", flush=True)
    await loop.run_in_executor(None, sys.stdin.read)  # until the driver closes stdin
    server.close()
    print("{}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--backlog", type=int, default=4096)
    parser.add_argument("--events", type=int, default=50)
    parser.add_argument("--delay", type=float, default=0.020)
    parser.add_argument("--loop", default="asyncio", help="asyncio (the default) or uvloop")
    args = parser.parse_args()
    if args.loop == "uvloop":
        import uvloop

        uvloop.run(serve(args))
    else:
        asyncio.run(serve(args))


if __name__ == "__main__":
    main()
