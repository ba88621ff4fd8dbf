"""Raw clients of a ``pushed()`` mock at ``GET /events`` (tests/server/test_pushed*.py)."""

from __future__ import annotations

import socket

import mockhttp


def open_events(server: mockhttp.Server, extra: bytes = b"") -> socket.socket:
    """A connection that has sent ``GET /events`` (with ``extra`` header lines)."""
    sock = socket.create_connection((server.host, server.port), timeout=5)
    sock.sendall(b"GET /events HTTP/1.1\r\nHost: x\r\n" + extra + b"\r\n")
    return sock


def read_to_last_chunk(sock: socket.socket) -> bytes:
    """Every byte up to the chunked body's last chunk (or the server's close)."""
    data = b""
    while not data.endswith(b"0\r\n\r\n"):
        piece = sock.recv(65536)
        if not piece:
            break
        data += piece
    return data
