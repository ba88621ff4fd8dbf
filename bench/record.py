"""What the recording proxy costs, side by side with the same upstream served directly.

    .venv/bin/python bench/record.py [--runs 30]

Upstream: mockhttp's own server on loopback.  Figures: time to the first event and to the
end of a 10-event stream (20 ms apart), median of the runs, direct and through
``Recorder``; and the throughput of a 20 MB body, direct and through the proxy.
"""

from __future__ import annotations

import argparse
import statistics
import time

import httpx

import mockhttp
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    runs = parser.parse_args().runs
    with mockhttp.Server() as upstream:
        upstream.mock(
            mockhttp.post("/v1/chat/completions").reply(
                mockhttp.ok().event_stream(*EVENTS, event_delay=0.02)
            )
        )
        upstream.mock(mockhttp.get("/big").reply(mockhttp.ok().body(BIG)))
        with Recorder(upstream.url) as recorder, httpx.Client(timeout=30) as client:
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
