"""HTTP/2 attacks on ``mockhttp serve --http2`` at full size (issue 37, N1 and N2).

- ``starve``: CONNECTIONS connections that advertise a zero receive window open 100
  streams each of a 1 MiB reply; the server's resident memory (``/proc``) before, while
  every stream holds its reply, and five seconds after the connections closed; then
  whether a fresh request is answered 200 (not a 500).
- ``flood``: one connection writes 400,000 PING (or SETTINGS) frames without reading,
  while a parallel client asks for a small reply again and again: the slowest answer,
  and how the flooder's connection ended (its GOAWAY code).

    .venv/bin/python bench/h2_attack.py [starve|flood|both] [--src OTHER/src]
        [--connections 10] [--frames 400000]
    .venv/bin/python bench/h2_attack.py http1 [--connections 10]  # 100 x N clients

``http1`` (not an HTTP/2 attack, for comparison): HTTP/1.1 clients that ask for the 1 MiB
reply and never read it.

``--src`` runs another tree's server (the figures before a change).  Results are in
docs/limits.md ("HTTP/2").  tests/server/test_h2_bounds.py runs small versions.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from tests.helpers.h2_attack import Starved, flood_frames, goaway_code, rss_mib  # noqa: E402


class Served:
    """A ``python -m mockhttp serve --http2 --port 0`` process: its URL and address."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc
        assert proc.stdout is not None
        self.url = proc.stdout.readline().split()[-1].strip()
        parsed = httpx.URL(self.url)
        self.host, self.port = parsed.host, parsed.port or 80

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


def _mocks(folder: Path) -> Path:
    path = folder / "mocks.yaml"
    path.write_text(
        "- request: {method: GET, path: /big}\n"
        f"  response: {{status: 200, body: {'x' * (1 << 20)}}}\n"
        "- request: {method: GET, path: /small}\n"
        "  response: {status: 200, body: small}\n"
    )
    return path


def _serve(folder: Path, src: str | None) -> Served:
    mocks = _mocks(folder)
    env = {**os.environ, "PYTHONUNBUFFERED": "1", **({"PYTHONPATH": src} if src else {})}
    proc = subprocess.Popen(
        [sys.executable, "-m", "mockhttp", "serve", "--http2", "--port", "0", str(mocks)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    return Served(proc)


def starve(src: str | None, connections: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        served = _serve(Path(folder), src)
        try:
            with httpx.Client(http1=False, http2=True, timeout=30) as client:
                client.get(served.url + "/big")
            before = rss_mib(served.proc.pid)
            started = time.monotonic()
            attackers = []
            for _ in range(connections):
                attackers.append(Starved(served.host, served.port, "/big", 100))
            held = all(a.wait("heads", 120) for a in attackers)
            during = rss_mib(served.proc.pid)
            took = time.monotonic() - started
            for attacker in attackers:
                attacker.close()
            time.sleep(5)
            after = rss_mib(served.proc.pid)
            with httpx.Client(http1=False, http2=True, timeout=30) as client:
                answer = client.get(served.url + "/small")
            print(
                f"starve: {connections} connections x 100 streams of 1 MiB, zero window"
                f" (all heads: {held}, {took:.1f} s)\n"
                f"  RSS before {before:.0f} MiB, during {during:.0f} MiB"
                f" (+{during - before:.0f}), 5 s after closing {after:.0f} MiB"
                f" (+{after - before:.0f})\n"
                f"  next request: {answer.status_code}"
                f" (traceback in body: {'Traceback' in answer.text})"
            )
        finally:
            served.stop()


def http1(src: str | None, clients: int) -> None:
    """For comparison: HTTP/1.1 clients that ask for the 1 MiB reply and never read."""
    with tempfile.TemporaryDirectory() as folder:
        served = _serve(Path(folder), src)
        try:
            with httpx.Client(timeout=30) as client:
                client.get(served.url + "/big")
            before = rss_mib(served.proc.pid)
            socks = []
            for _ in range(clients):
                sock = socket.create_connection((served.host, served.port), timeout=30)
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                sock.sendall(b"GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
                socks.append(sock)
            time.sleep(3)
            during = rss_mib(served.proc.pid)
            for sock in socks:
                sock.close()
            time.sleep(5)
            after = rss_mib(served.proc.pid)
            print(
                f"http1: {clients} clients of the 1 MiB reply, not reading\n"
                f"  RSS before {before:.0f} MiB, during {during:.0f} MiB"
                f" (+{during - before:.0f}), 5 s after closing {after:.0f} MiB"
                f" (+{after - before:.0f})"
            )
        finally:
            served.stop()


def _parallel(url: str, stop: threading.Event, times: list[float]) -> None:
    while not stop.is_set():
        started = time.monotonic()
        try:
            with httpx.Client(timeout=60) as client:
                client.get(url)
        except httpx.HTTPError:
            times.append(float("inf"))
        times.append(time.monotonic() - started)
        time.sleep(0.05)


def flood(src: str | None, kind: str, frames: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        served = _serve(Path(folder), src)
        try:
            data = flood_frames(kind, frames)
            stop = threading.Event()
            times: list[float] = []
            parallel = threading.Thread(
                target=_parallel, args=(served.url + "/small", stop, times), daemon=True
            )
            received = bytearray()
            started = time.monotonic()
            with socket.create_connection((served.host, served.port), timeout=60) as sock:
                parallel.start()
                with contextlib.suppress(OSError):
                    sock.sendall(data)
                sent = time.monotonic() - started
                sock.settimeout(60)
                with contextlib.suppress(OSError):
                    while chunk := sock.recv(1 << 16):
                        received += chunk
            ended = time.monotonic() - started
            time.sleep(0.5)
            stop.set()
            parallel.join(60)
            print(
                f"flood: {frames:,} {kind.upper()} frames on one connection, not reading\n"
                f"  flooder: writing stopped after {sent:.1f} s, connection ended after"
                f" {ended:.1f} s, GOAWAY code {goaway_code(bytes(received))}\n"
                f"  parallel client: {len(times)} answers, slowest {max(times):.2f} s"
            )
        finally:
            served.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "what", nargs="?", default="both", choices=["starve", "flood", "both", "http1"]
    )
    parser.add_argument("--src", help="another tree's src/ (figures before a change)")
    parser.add_argument("--connections", type=int, default=10)
    parser.add_argument("--frames", type=int, default=400_000)
    args = parser.parse_args()
    if args.what == "http1":
        http1(args.src, args.connections * 100)
    if args.what in ("starve", "both"):
        starve(args.src, args.connections)
    if args.what in ("flood", "both"):
        flood(args.src, "ping", args.frames)
        flood(args.src, "settings", args.frames)


if __name__ == "__main__":
    main()
