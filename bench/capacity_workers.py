"""The cost of one capacity across ``mockhttp serve --workers``: requests/s of a capacity mock.

A capacity (``max_running``, ``rpm``...) under ``--workers`` counts in the supervisor: each
request asks it twice (``admit`` when it arrives, ``leave`` when it ends), one round trip
on the worker's socketpair each.  This runs ``wrk`` (keep-alive, 50 connections, POSTs
of a small chat completion, never refused: the limits are far above the load) against:

- ``one process``: ``mockhttp serve`` without a capacity, then with one (it counts in
  the process);
- (first) ``admit`` + ``leave`` in this process, over a socketpair: the floor of the cost;
- ``--workers 1``: one worker, every request through the supervisor's pools;
- ``--workers 2``: two workers sharing the supervisor's pools;

and, for scale, the same mock without a capacity under ``--workers 2``.  Figures under
load are rough (the supervisor, the workers and wrk share the machine's cores): compare
the rows of one run, not runs of different days.

Run::

    .venv/bin/python bench/capacity_workers.py --seconds 5
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from mockhttp._server._shared import Keeper, SharedGate, StateChannel

ROOT = Path(__file__).resolve().parent.parent
BODY = '{"model":"m","messages":[{"role":"user","content":"Hi"}]}'
MOCK = """\
request: {method: POST, path: /v1/chat/completions}
response:
  openai_chat:
    text: Hello from a busy backend
%s"""
CAPACITY = "    capacity: {max_running: 100000, max_waiting: 0, rpm: 1000000000}\n"
LUA = f"""wrk.method = "POST"
wrk.body = '{BODY}'
wrk.headers["Content-Type"] = "application/json"
"""


def round_trips(n: int) -> float:
    """Mean seconds of one request's ``admit`` (asked) + ``leave`` (told), SharedGate ->
    Keeper, here."""
    keeper = Keeper()
    ours, theirs = socket.socketpair()
    threading.Thread(target=keeper.serve, args=(ours,), daemon=True).start()
    channel = StateChannel(theirs)
    gate = SharedGate(channel.ask, channel.tell)
    limits = (100_000, 0, 60.0)
    charges = [("requests", 1_000_000_000, 1), ("tokens", 1_000_000_000, 20)]
    start = time.perf_counter()
    for _ in range(n):
        admitted = gate.admit("pool", limits, "key", charges, time.time())
        gate.leave("pool", admitted.ticket)
    return (time.perf_counter() - start) / n


def serve(folder: Path, workers: int | None) -> tuple[subprocess.Popen[str], int]:
    argv = [sys.executable, "-m", "mockhttp", "serve", str(folder), "--port", "0", "--quiet"]
    if workers is not None:
        argv += ["--workers", str(workers)]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    port = int(proc.stdout.readline().strip().rsplit(":", 1)[1])
    time.sleep(1.0)  # the workers settle
    return proc, port


def requests_per_s(wrk: str, port: int, lua: Path, seconds: int) -> tuple[float, str]:
    url = f"http://127.0.0.1:{port}/v1/chat/completions"
    argv = [wrk, "-t1", "-c50", f"-d{seconds}s", "-s", str(lua), "--latency", url]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=seconds + 30).stdout
    rate = re.search(r"Requests/sec:\s+([\d.]+)", out)
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if non_2xx:
        raise SystemExit(f"{non_2xx.group(1)} refused or failed requests:\n{out}")
    p99 = re.search(r"^\s+99%\s+(\S+)", out, re.MULTILINE)  # (the latency distribution)
    return (float(rate.group(1)) if rate else 0.0), (p99.group(1) if p99 else "?")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=5)
    args = parser.parse_args()
    trips = round_trips(5000)
    print(f"admit + leave, socketpair in one process: {trips * 1e6:.0f} µs a request")
    wrk = shutil.which("wrk")
    if wrk is None:
        raise SystemExit("needs wrk (apt-get install wrk)")
    folder = Path(tempfile.mkdtemp())
    lua = folder / "post.lua"
    lua.write_text(LUA)
    rows = [
        ("one process, no capacity", None, ""),
        ("one process, capacity", None, CAPACITY),
        ("--workers 1, capacity (shared)", 1, CAPACITY),
        ("--workers 2, capacity (shared)", 2, CAPACITY),
        ("--workers 2, no capacity", 2, ""),
    ]
    print(f"wrk -t1 -c50 -d{args.seconds}s, POST a small chat completion (noisy: see docstring)")
    for label, workers, capacity in rows:
        mocks = folder / "mocks"
        shutil.rmtree(mocks, ignore_errors=True)
        mocks.mkdir()
        (mocks / "backend.yaml").write_text(MOCK % capacity)
        proc, port = serve(mocks, workers)
        try:
            rate, p99 = requests_per_s(wrk, port, lua, args.seconds)
        finally:
            proc.terminate()
            proc.wait(10)
        print(f"  {label:34} {rate:9.0f} requests/s   p99 {p99}")


if __name__ == "__main__":
    main()
