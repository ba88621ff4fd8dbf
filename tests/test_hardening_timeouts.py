"""A request body that stops arriving is timed out like a late head (issue 12): a head
with ``Content-Length: 10`` and no body held its socket forever."""

from __future__ import annotations

import socket
import time

import mockhttp


def connect(server: mockhttp.Server) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=5)


def read_all(sock: socket.socket) -> bytes:
    data = b""
    while piece := sock.recv(1 << 20):
        data += piece
    return data


def test_a_body_that_stops_arriving_gets_408() -> None:
    with mockhttp.Server(header_timeout=0.3, idle_timeout=30) as server:
        server.mock(mockhttp.post("/up").reply(mockhttp.ok().body("got it")))
        never, half = connect(server), connect(server)
        never.sendall(b"POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n")
        half.sendall(b"POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n12345")
        start = time.monotonic()
        for sock in (never, half):
            reply = read_all(sock)
            assert reply.startswith(b"HTTP/1.1 408 "), reply
            assert b"request body" in reply
            sock.close()
        assert time.monotonic() - start < 4  # 0.3 s, and the sweep's period, on a busy machine
    assert server.journal == []  # an unfinished request is no call


def test_a_slow_body_that_keeps_coming_is_not_cut() -> None:
    """The limit is on a pause between body bytes, not on the whole upload."""
    with mockhttp.Server(header_timeout=0.3) as server:
        server.mock(mockhttp.post("/up").reply(mockhttp.ok().body("got it")))
        sock = connect(server)
        sock.sendall(
            b"POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 8\r\nConnection: close\r\n\r\n"
        )
        for byte in b"12345678":
            time.sleep(0.12)  # 0.96 s in all, each pause well under the limit
            sock.sendall(bytes([byte]))
        assert read_all(sock).endswith(b"\r\n\r\ngot it")
        sock.close()
        assert server.journal[0].request.body == b"12345678"
