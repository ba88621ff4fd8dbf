"""Time from ``mockhttp.Server()`` to the first served request, in this process.

Prints one JSON line: ``import_ms`` (``import mockhttp``), ``cold_ms`` (the first server
in this fresh process: construct, start, register a mock, one GET answered on a raw
socket), and ``warm_ms`` (the same again for a second server in the same process).
``bench/run.py`` runs it several times, each in a fresh process.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from pathlib import Path

# MOCKHTTP_BENCH_SRC: another checkout's src/ to measure (bench/run.py --src)
sys.path.insert(
    0, os.environ.get("MOCKHTTP_BENCH_SRC") or str(Path(__file__).resolve().parent.parent / "src")
)

t_import = time.perf_counter()
import mockhttp  # noqa: E402

import_ms = (time.perf_counter() - t_import) * 1e3

REQUEST = b"GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


def fetch(port: int) -> bytes:
    """One GET on a raw socket; returns the whole response (Content-Length framed)."""
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.sendall(REQUEST)
        data = b""
        for _ in range(1000):  # bounded: a response is a few hundred bytes
            data += sock.recv(65536)
            head, sep, body = data.partition(b"\r\n\r\n")
            if sep:
                for line in head.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length" and len(body) >= int(value):
                        return data
        raise RuntimeError(f"incomplete response: {data!r}")


def first_request_ms(mock: mockhttp.Mock) -> float:
    t0 = time.perf_counter()
    server = mockhttp.Server()
    server.start()
    try:
        server.mock(mock)
        response = fetch(server.port)
        elapsed = (time.perf_counter() - t0) * 1e3
    finally:
        server.close()
    if not response.startswith(b"HTTP/1.1 200"):
        raise RuntimeError(f"unexpected response: {response!r}")
    return elapsed


def main() -> None:
    mock = mockhttp.get("/ping").reply(mockhttp.ok().json({"ok": True}))
    cold = first_request_ms(mock)
    warm = first_request_ms(mock)
    print(json.dumps({"import_ms": import_ms, "cold_ms": cold, "warm_ms": warm}))


if __name__ == "__main__":
    main()
