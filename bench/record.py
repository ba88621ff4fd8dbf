"""What the recording proxy costs, side by side with the same upstream served directly.

    .venv/bin/python bench/record.py [--runs 30] [--loop auto|asyncio|uvloop]
    .venv/bin/python bench/record.py --memory [--mib 256] [--exchanges 50] [--loop uvloop]

Upstream: mockhttp's own server on loopback.  Figures: time to the first event and to the
end of a 10-event stream (20 ms apart), median of the runs, direct and through
``Recorder``; and the throughput of a 20 MB body, direct and through the proxy.

``--memory`` runs ``mockhttp record`` as its own process and reads its
``/proc/PID/status``: the peak RSS (``VmHWM``) while one ``--mib`` MiB event stream (64 KiB
events) goes through it, the time until its file is on disk; the peak RSS while a client
holds the same stream without reading it for 3 s; and the RSS left after ``--exchanges``
exchanges of 2 MiB each.

``--loop`` is the proxy's loop (``mockhttp record --loop``, ``Recorder(loop=...)``); the
upstream and the client stay as they are.
"""

from __future__ import annotations

import argparse
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

import mockhttp
from mockhttp._server._loop import LOOPS
from mockhttp.record import Recorder

EVENTS = [mockhttp.Event(data={"n": i}) for i in range(10)] + [mockhttp.Event(data="[DONE]")]
BIG = b"x" * (20 * 1024 * 1024)


def stream_times(client: httpx.Client, url: str) -> tuple[float, float]:
    start = time.perf_counter()
    first = 0.0
    with client.stream("POST", url + "/v1/chat/completions") as response:
        for read in response.iter_raw():
            if not first and read:
                first = time.perf_counter() - start
    return first, time.perf_counter() - start


def throughput(client: httpx.Client, url: str) -> float:
    start = time.perf_counter()
    size = 0
    with client.stream("GET", url + "/big") as response:
        for read in response.iter_raw():
            size += len(read)
    assert size == len(BIG)
    return size / (time.perf_counter() - start) / 1e6


def _status(pid: int, field: str) -> float:
    """A ``/proc/PID/status`` figure, in MiB."""
    with open(f"/proc/{pid}/status") as status:
        line = next(line for line in status if line.startswith(field + ":"))
    return int(line.split()[1]) / 1024


def _recorder(upstream: str, out: str, loop: str) -> tuple[subprocess.Popen[str], str]:
    command = ["record", "--upstream", upstream, "--out", out, "--loop", loop]
    proc = subprocess.Popen(
        [sys.executable, "-m", "mockhttp", *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


def memory(mib: int, exchanges: int, loop: str) -> None:
    piece = "x" * (64 * 1024 - 8)
    stream = [mockhttp.Event(data=piece) for _ in range(mib * 16)]
    two = mockhttp.Event(data="y" * (2 * 1024 * 1024 - 8))
    with mockhttp.Server() as upstream, tempfile.TemporaryDirectory() as out:
        upstream.mock(mockhttp.post("/stream").reply(mockhttp.ok().event_stream(*stream)))
        upstream.mock(mockhttp.post("/two").reply(mockhttp.ok().event_stream(two)))
        proc, url = _recorder(upstream.url, out, loop)
        try:
            base = _status(proc.pid, "VmRSS")
            start = time.perf_counter()
            with httpx.Client(timeout=600) as client:
                size = len(client.post(url + "/stream", json={"q": 1}).content)
                relayed = time.perf_counter() - start
                while not any(p.name.endswith(".yaml") for p in Path(out).iterdir()):
                    time.sleep(0.05)
                written = time.perf_counter() - start
                peak = _status(proc.pid, "VmHWM")
                row = f"{base:.0f} | {peak:.0f} | {relayed:.1f} | {written:.1f}"
                print(f"| {mib} MiB stream | {row} |")
                with client.stream("POST", url + "/stream", json={"q": 2}) as held:
                    time.sleep(3)  # the client reads nothing
                    unread = _status(proc.pid, "VmRSS")
                    for _ in held.iter_raw():
                        pass
                print(f"| client not reading for 3 s | | {unread:.0f} (RSS) | | |")
                for i in range(exchanges):
                    client.post(url + "/two", json={"q": f"two-{i}"}).read()
                time.sleep(1)
                left = _status(proc.pid, "VmRSS")
                print(f"| after {exchanges} x 2 MiB exchanges | | {left:.0f} (RSS) | | |")
            assert size >= mib * 1024 * 1024
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(600)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--memory", action="store_true")
    parser.add_argument("--mib", type=int, default=256)
    parser.add_argument("--exchanges", type=int, default=50)
    parser.add_argument("--loop", choices=LOOPS, default="auto", help="the proxy's loop")
    options = parser.parse_args()
    if options.memory:
        print("| case | RSS at start (MiB) | peak RSS (MiB) | relayed (s) | file on disk (s) |")
        print("|---|---|---|---|---|")
        memory(options.mib, options.exchanges, options.loop)
        return
    runs = options.runs
    with mockhttp.Server() as upstream:
        upstream.mock(
            mockhttp.post("/v1/chat/completions").reply(
                mockhttp.ok().event_stream(*EVENTS, event_delay=0.02)
            )
        )
        upstream.mock(mockhttp.get("/big").reply(mockhttp.ok().body(BIG)))
        with (
            Recorder(upstream.url, loop=options.loop) as recorder,
            httpx.Client(timeout=30) as client,
        ):
            rows = {}
            for label, url in (("direct", upstream.url), ("through the proxy", recorder.url)):
                times = [stream_times(client, url) for _ in range(runs)]
                speed = max(throughput(client, url) for _ in range(3))
                rows[label] = (
                    statistics.median(t[0] for t in times) * 1000,
                    statistics.median(t[1] for t in times) * 1000,
                    speed,
                )
    print("| | first event (ms) | whole stream (ms) | 20 MB body (MB/s) |")
    print("|---|---|---|---|")
    for label, (first, whole, speed) in rows.items():
        print(f"| {label} | {first:.2f} | {whole:.1f} | {speed:.0f} |")
    d, p = rows["direct"], rows["through the proxy"]
    print(
        f"\nadded to the first event: {p[0] - d[0]:.2f} ms; to the stream: {p[1] - d[1]:.2f} ms;"
        f" throughput ratio proxy/direct: {p[2] / d[2]:.2f}"
    )


if __name__ == "__main__":
    main()
