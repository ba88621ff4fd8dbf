"""The cost of one state under ``mockhttp serve --workers``: what a stateful request pays.

A mock that keeps state (``times``, ``replies``, a scenario) is answered through the
supervisor (one question on a socketpair per request); a fixed reply is not.  Two figures:

- ``round trip``: one question from a worker's ``StateChannel`` to the supervisor's
  ``Keeper`` over a socketpair, in this process (the floor of the cost);
- ``on the wire``: ``serve --workers 2``, one keep-alive client sending ``--requests``
  sequential GETs to a fixed mock and then to a ``times: 1000000`` mock; the difference of
  the mean latencies is what a stateful request pays.

Run::

    .venv/bin/python bench/workers_state.py --requests 5000
"""

from __future__ import annotations

import argparse
import http.client
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from mockhttp._core._route import Claim
from mockhttp._server._shared import Keeper, StateChannel

MOCKS = (
    "request: {path: /fixed}\nresponse: {body: ok}\n---\n"
    "request: {path: /counted}\ntimes: 1000000\nresponse: {body: ok}\n"
)


def round_trip(n: int) -> float:
    """Mean seconds of one claim, StateChannel -> Keeper -> back."""
    keeper = Keeper()
    ours, theirs = socket.socketpair()
    threading.Thread(target=keeper.serve, args=(ours,), daemon=True).start()
    channel = StateChannel(theirs)
    claims = [Claim(1, 1_000_000_000)]
    start = time.perf_counter()
    for _ in range(n):
        channel(claims)
    return (time.perf_counter() - start) / n


def on_the_wire(n: int) -> tuple[float, float]:
    """Mean seconds per request to the fixed mock and to the counted one."""
    folder = Path(tempfile.mkdtemp())
    (folder / "m.yaml").write_text(MOCKS)
    argv = [sys.executable, "-m", "mockhttp", "serve", str(folder), "--port", "0"]
    argv += ["--workers", "2", "--quiet"]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent / "src")}
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None
        port = int(proc.stdout.readline().strip().rsplit(":", 1)[1])
        time.sleep(1.0)  # the workers settle
        return _mean(port, "/fixed", n), _mean(port, "/counted", n)
    finally:
        proc.terminate()
        proc.wait(10)


def _mean(port: int, path: str, n: int) -> float:
    conn = http.client.HTTPConnection("127.0.0.1", port)
    for _ in range(200):  # warm up
        conn.request("GET", path)
        conn.getresponse().read()
    start = time.perf_counter()
    for _ in range(n):
        conn.request("GET", path)
        conn.getresponse().read()
    took = (time.perf_counter() - start) / n
    conn.close()
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=5000)
    args = parser.parse_args()
    trip = round_trip(args.requests)
    fixed, counted = on_the_wire(args.requests)
    print(f"round trip (socketpair, one process): {trip * 1e6:.1f} µs")
    print(f"fixed reply, serve --workers 2:        {fixed * 1e6:.1f} µs a request")
    print(f"times: 1000000, serve --workers 2:     {counted * 1e6:.1f} µs a request")
    print(f"a stateful request pays:               {(counted - fixed) * 1e6:.1f} µs")


if __name__ == "__main__":
    main()
