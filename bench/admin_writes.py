"""Admin writes at many mocks: N adds one at a time through the admin API of `mockhttp serve`
(whose heap is frozen at start, as in production), then N rejected writes; prints the cost of
a write at the start and at the end, the server's RSS, and how long an unmatched request
takes at N mocks.

    python bench/admin_writes.py [N]      (default 10,000)
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

import httpx

N = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
ADMIN = "/__mockhttp/mocks"


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def timed(client: httpx.Client, url: str, bodies: list[str], status: int) -> list[float]:
    took = []
    for body in bodies:
        start = time.perf_counter()
        reply = client.post(url, content=body, headers={"content-type": "application/yaml"})
        took.append(time.perf_counter() - start)
        assert reply.status_code == status, reply.text
    return took


def per_write(took: list[float], part: slice) -> str:
    chosen = took[part]
    return f"{1000 * sum(chosen) / len(chosen):.1f} ms"


def main() -> None:
    folder = tempfile.mkdtemp()
    proc = subprocess.Popen(
        [sys.executable, "-m", "mockhttp", "serve", folder, "--allow-empty", "--quiet"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        with httpx.Client(base_url=url, timeout=60) as client:
            before = rss_mib(proc.pid)
            start = time.perf_counter()
            adds = [
                f"name: m{i}\nrequest: {{method: GET, path: /p/{i}}}\nresponse: {{status: 204}}\n"
                for i in range(N)
            ]
            took = timed(client, ADMIN, adds, 201)
            total = time.perf_counter() - start
            added = rss_mib(proc.pid)
            print(
                f"{N:,} adds: {total:.1f} s; a write {per_write(took, slice(0, 100))} first, "
                f"{per_write(took, slice(-100, None))} last; RSS {before:.0f} -> {added:.0f} MiB"
            )
            bad = [f"request: {{method: GET, path: /p/{i}}}\nresponse: {{status: 99}}\n"
                   for i in range(N)]  # fmt: skip
            start = time.perf_counter()
            took = timed(client, ADMIN, bad, 400)
            total = time.perf_counter() - start
            after = rss_mib(proc.pid)
            print(
                f"{N:,} rejected: {total:.1f} s; a write {per_write(took, slice(0, 100))} "
                f"first, {per_write(took, slice(-100, None))} last; RSS {added:.0f} -> "
                f"{after:.0f} MiB"
            )
            start = time.perf_counter()
            assert client.get("/nothing/here").status_code == 404
            print(
                f"an unmatched request at {N:,} mocks: "
                f"{1000 * (time.perf_counter() - start):.1f} ms"
            )
    finally:
        proc.terminate()
        proc.wait(10)
        os.rmdir(folder) if not os.listdir(folder) else None


if __name__ == "__main__":
    main()
