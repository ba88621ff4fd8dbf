"""Bounds that hold while a request is still arriving, and fairness among connections
(issue 12, second review): a header line that never ends, a body of tiny chunks, a
client pipelining thousands of requests."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import httpx

import mockhttp
from mockhttp._server._connection import MAX_HEAD, MAX_PIECES
from tests.helpers import clients as clients
from tests.helpers.cli_process import Serving


def connect(server: mockhttp.Server) -> socket.socket:
    return clients.connect(server.port, timeout=10)


def reply_of(sock: socket.socket) -> bytes:
    return clients.read_all(sock, reset_ok=True)  # the server closes with our bytes unread


def test_a_header_line_that_never_ends_is_refused_within_the_head_limit() -> None:
    """httptools holds a header value until its line ends: 32 MiB of one value were kept
    whole (and answered only when the line ended)."""
    with mockhttp.Server() as server:
        server.mock(mockhttp.get("/").reply(mockhttp.ok()))
        sock = connect(server)
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: ")
        sent = 0
        try:
            while sent < 16 * MAX_HEAD * 64:  # 64 MiB: far past any bound
                sock.sendall(b"a" * (1 << 16))
                sent += 1 << 16
        except OSError:  # the server has answered and closed
            pass
        reply = reply_of(sock)
        sock.close()
        assert reply.startswith(b"HTTP/1.1 431 "), reply[:80]
        assert sent < 8 * MAX_HEAD + (4 << 20)  # refused after the limit and a read or two


def test_a_body_of_many_tiny_chunks_arrives_whole() -> None:
    pieces = [bytes([97 + i % 26]) * 2 for i in range(20_000)]
    with mockhttp.Server() as server:
        server.mock(mockhttp.post("/up").reply(mockhttp.ok().body("got it")))
        sock = connect(server)
        framed = b"".join(b"2\r\n" + p + b"\r\n" for p in pieces)
        sock.sendall(
            b"POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
            b"Connection: close\r\n\r\n" + framed + b"0\r\n\r\n"
        )
        assert reply_of(sock).endswith(b"got it")
        sock.close()
        assert server.journal[0].request.body == b"".join(pieces)


def test_a_body_in_too_many_chunks_is_refused() -> None:
    """Each chunk is a call from the parser into Python: 32 million of them (a 64 MiB body
    in 2-byte chunks) held the loop for many seconds and took 1.8 GB."""
    with mockhttp.Server() as server:
        server.mock(mockhttp.post("/up").reply(mockhttp.ok()))
        sock = connect(server)
        sock.sendall(b"POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        block = b"1\r\na\r\n" * 65536
        try:
            for _ in range(MAX_PIECES // 65536 + 2):
                sock.sendall(block)
        except OSError:
            pass
        reply = reply_of(sock)
        sock.close()
        assert reply.startswith(b"HTTP/1.1 413 "), reply[:80]
        assert f"more than {MAX_PIECES} chunks".encode() in reply


def test_a_pipelining_client_does_not_starve_the_others(tmp_path: Path) -> None:
    """One read of pipelined requests was answered in one callback: 8,500 replies, 0.4-0.6 s
    in which no other connection was served (2.4 s for a request made meanwhile)."""
    (tmp_path / "ok.yaml").write_text("request: {path: /ok}\nresponse: {body: ok}\n")
    with Serving(str(tmp_path), "--quiet", "--loop", "asyncio") as serving:
        port = int(serving.url.rsplit(":", 1)[1])
        pipe = clients.connect(port, timeout=30)
        request = b"GET /ok HTTP/1.1\r\nHost: x\r\n\r\n"
        total = 60_000
        done = threading.Event()

        def pipeline() -> None:
            for _ in range(total // 1000):
                pipe.sendall(request * 1000)

        def drain() -> None:
            got = 0
            while got < total:
                data = pipe.recv(1 << 20)
                if not data:
                    break
                got += data.count(b"HTTP/1.1 200")
            done.set()

        threading.Thread(target=pipeline, daemon=True).start()
        threading.Thread(target=drain, daemon=True).start()
        waits: list[float] = []
        try:
            with httpx.Client(base_url=serving.url) as other:
                while not done.is_set() and len(waits) < 400:
                    start = time.monotonic()
                    assert other.get("/ok").text == "ok"
                    waits.append(time.monotonic() - start)
                    time.sleep(0.01)
            assert done.wait(60)
        finally:
            pipe.close()
    assert len(waits) >= 3, waits
    assert max(waits) < 1.0, sorted(waits)[-5:]  # before: 2.4 s (a turn now answers 64)
