"""A big admin POST against a running stream: how long it takes, and how long streams wait.

Starts ``mockhttp serve --port 0`` (``--workers N`` with ``--workers``) on a mock
file with a stream of an event every 50 ms, reads that stream from a thread and records
when each event arrives, then POSTs ``--mib`` MiB of small mocks (``--as yaml`` or
``json``) to ``/__mockhttp/mocks``.  Prints one JSON line: the POST's status and time, the
mocks it added (checked with ``GET /__mockhttp/mocks``), the longest gap between events
while it ran, and the server's resident memory after (the supervisor's under
``--workers``).

    .venv/bin/python bench/admin_stall.py --mib 4             # 4 MiB of YAML mocks
    .venv/bin/python bench/admin_stall.py --mib 16 --as json --workers 2
    .venv/bin/python bench/admin_stall.py --src ../main/src   # another checkout

Linux only (reads /proc).  Results are in docs/limits.md.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
TICKS = """\
request: {method: GET, path: /ticks}
response:
  event_stream:
    events: [{data: tick, delay: 50ms}]
    repeat: true
"""


def small_mocks(mib: float, syntax: str) -> tuple[str, int]:
    """About ``mib`` MiB of small mocks (a name, a path, a header matcher, a JSON reply),
    and how many there are."""
    count = int(mib * (1 << 20) / 150)
    if syntax == "json":
        mocks = [
            {
                "name": f"m{n}",
                "request": {"method": "GET", "path": f"/items/{n}", "header": {"x-test": "a"}},
                "response": {"status": 200, "json": {"id": n, "ok": True}},
            }
            for n in range(count)
        ]
        return json.dumps(mocks), count
    return "".join(
        f"- name: m{n}\n  request: {{method: GET, path: /items/{n}, header: {{x-test: a}}}}\n"
        f"  response: {{status: 200, json: {{id: {n}, ok: true}}}}\n"
        for n in range(count)
    ), count


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def measure(src: Path, mib: float, syntax: str, workers: int) -> dict[str, object]:
    body, count = small_mocks(mib, syntax)
    with tempfile.TemporaryDirectory() as folder:
        ticks = Path(folder) / "ticks.yaml"
        ticks.write_text(TICKS)
        args = [sys.executable, "-m", "mockhttp", "serve", "--port", "0", "--quiet"]
        args += [*(["--workers", str(workers)] if workers else []), str(ticks)]
        path = os.pathsep.join(filter(None, [str(src), os.environ.get("PYTHONPATH")]))
        env = {**os.environ, "PYTHONPATH": path}
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, text=True, env=env)
        try:
            assert proc.stdout is not None
            url = proc.stdout.readline().strip().split()[-1]
            time.sleep(1)
            arrivals: list[float] = []
            done = threading.Event()

            def read() -> None:
                with httpx.stream("GET", url + "/ticks", timeout=120) as answer:
                    for line in answer.iter_lines():
                        if line.startswith("data:"):
                            arrivals.append(time.monotonic())
                        if done.is_set():
                            return

            reader = threading.Thread(target=read, daemon=True)
            reader.start()
            time.sleep(1)
            kind = "application/json" if syntax == "json" else "application/yaml"
            start = time.monotonic()
            answer = httpx.post(
                url + "/__mockhttp/mocks", content=body, headers={"Content-Type": kind},
                timeout=600,
            )  # fmt: skip
            took = time.monotonic() - start
            time.sleep(0.5)
            done.set()
            reader.join(5)
            listed = httpx.get(url + "/__mockhttp/mocks", timeout=120).json()["mocks"]
            during = [t for t in arrivals if start <= t <= start + took + 0.5]
            gaps = [b - a for a, b in itertools.pairwise(during)]
            rss = rss_mib(proc.pid)
        finally:
            proc.terminate()
            proc.wait(30)
    return {
        "body": f"{len(body) / (1 << 20):.1f} MiB {syntax}, {count:,} mocks",
        "workers": workers,
        "status": answer.status_code,
        "post_s": round(took, 2),
        "mocks_per_s": round(count / took),
        "listed": len(listed),
        "events_during": len(during),
        "max_gap_s": round(max(gaps, default=took), 3),
        "rss_mib": round(rss),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mib", type=float, default=4)
    parser.add_argument("--as", dest="syntax", choices=("yaml", "json"), default="yaml")
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument("--src", type=Path, default=ROOT / "src")
    args = parser.parse_args()
    print(json.dumps(measure(args.src.resolve(), args.mib, args.syntax, args.workers)))


if __name__ == "__main__":
    main()
