"""A big admin POST against a running stream: how long it takes, and how long streams wait.

Starts ``mockhttp serve --port 0`` (``--workers N`` with ``--workers``) on a mock
file with a stream of an event every 50 ms, reads that stream from a thread and records
when each event arrives, then POSTs ``--mib`` MiB of small mocks (``--as yaml`` or
``json``) to ``/__mockhttp/mocks``.  Prints one JSON line: the POST's status and time, the
mocks it added (checked with ``GET /__mockhttp/mocks``), the longest gap between events
while it ran, and for each process (``server``; under ``--workers`` the ``supervisor`` and
each ``worker``): the CPU seconds the POST cost it (``/proc/PID/stat``, steadier than the
wall clock on a shared machine), its peak resident memory (``VmHWM``) and what it still
held a second after the answer (``VmRSS``), in MiB.

With ``--misses N`` it measures unmatched requests instead: ``--mocks`` small mocks are
added first (one JSON POST, before the stream starts), then N requests that match none
of them are sent at once, each on its own connection (one miss before, to warm up), or
with ``--pipelined`` all on one connection.
Prints the longest gap between
events while they were answered and how long each 404 took (the slowest, the median).

    .venv/bin/python bench/admin_stall.py --mib 4             # 4 MiB of YAML mocks
    .venv/bin/python bench/admin_stall.py --mib 16 --as json --workers 2 --loop uvloop
    .venv/bin/python bench/admin_stall.py --misses 10 --mocks 20000
    .venv/bin/python bench/admin_stall.py --misses 10 --pipelined
    .venv/bin/python bench/admin_stall.py --src ../main/src   # another checkout

Linux only (reads /proc).  Results are in docs/limits.md.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import socket
import statistics
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
    """At most ``mib`` MiB of small mocks (a name, a path, a header matcher, a JSON reply),
    and how many there are (``--mib 16`` is the admin API's largest body)."""
    room = int(mib * (1 << 20)) - 2  # (a JSON list's brackets)
    items: list[str] = []
    for n in itertools.count():
        if syntax == "json":
            mock = {
                "name": f"m{n}",
                "request": {"method": "GET", "path": f"/items/{n}", "header": {"x-test": "a"}},
                "response": {"status": 200, "json": {"id": n, "ok": True}},
            }
            item = json.dumps(mock) + ", "
        else:
            item = (
                f"- name: m{n}\n"
                f"  request: {{method: GET, path: /items/{n}, header: {{x-test: a}}}}\n"
                f"  response: {{status: 200, json: {{id: {n}, ok: true}}}}\n"
            )
        room -= len(item)
        if room < 0:
            break
        items.append(item)
    if syntax == "json":
        return "[" + "".join(items).removesuffix(", ") + "]", len(items)
    return "".join(items), len(items)


def memory_mib(pid: int) -> dict[str, int]:
    """``VmHWM`` (peak) and ``VmRSS`` (now) of a process, in MiB."""
    found = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmHWM", "VmRSS"):
            found[name] = round(int(value.split()[0]) / 1024)
    return found


def cpu_s(pid: int) -> float:
    """The user and system CPU seconds a process has used."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tree(pid: int) -> dict[str, int]:
    """The server's processes by role: the process itself, or the supervisor and its workers."""
    children = [
        int(c)
        for task in Path(f"/proc/{pid}/task").iterdir()
        for c in (task / "children").read_text().split()
    ]
    if not children:
        return {"server": pid}
    return {"supervisor": pid, **{f"worker {n}": c for n, c in enumerate(sorted(children), 1)}}


def measure(src: Path, mib: float, syntax: str, workers: int, loop: str) -> dict[str, object]:
    body, count = small_mocks(mib, syntax)
    with tempfile.TemporaryDirectory() as folder:
        ticks = Path(folder) / "ticks.yaml"
        ticks.write_text(TICKS)
        args = [sys.executable, "-m", "mockhttp", "serve", "--port", "0", "--quiet"]
        args += [*(["--workers", str(workers)] if workers else []), "--loop", loop, str(ticks)]
        path = os.pathsep.join(filter(None, [str(src), os.environ.get("PYTHONPATH")]))
        env = {**os.environ, "PYTHONPATH": path}
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, text=True, env=env)
        try:
            assert proc.stdout is not None
            url = proc.stdout.readline().strip().split()[-1]
            time.sleep(1 + workers)  # (the workers start)
            processes = tree(proc.pid)
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
            cpu = {role: cpu_s(pid) for role, pid in processes.items()}
            start = time.monotonic()
            answer = httpx.post(
                url + "/__mockhttp/mocks", content=body, headers={"Content-Type": kind},
                timeout=600,
            )  # fmt: skip
            took = time.monotonic() - start
            cost = {role: cpu_s(pid) - cpu[role] for role, pid in processes.items()}
            time.sleep(1)
            memory = {role: memory_mib(pid) for role, pid in processes.items()}
            done.set()
            reader.join(5)
            listed = httpx.get(url + "/__mockhttp/mocks", timeout=120).json()["mocks"]
            during = [t for t in arrivals if start <= t <= start + took + 0.5]
            gaps = [b - a for a, b in itertools.pairwise(during)]
        finally:
            proc.terminate()
            proc.wait(30)
    return {
        "body": f"{len(body) / (1 << 20):.1f} MiB {syntax}, {count:,} mocks",
        "workers": workers,
        "loop": loop,
        "status": answer.status_code,
        "post_s": round(took, 2),
        "mocks_per_s": round(count / took),
        "listed": len(listed),
        **({"error": answer.text[:300]} if answer.status_code >= 400 else {}),
        "events_during": len(during),
        "max_gap_s": round(max(gaps, default=took), 3),
        "processes": {
            role: {"cpu_s": round(cost[role], 1), "peak_mib": m["VmHWM"], "after_mib": m["VmRSS"]}
            for role, m in memory.items()
        },
    }


def pipelined(url: str, misses: int) -> list[float]:
    """Send ``misses`` unmatched requests at once on one connection; when each 404 came."""
    host, port = url.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=120) as sock:
        sent = time.monotonic()
        sock.sendall(
            b"".join(
                f"GET /items/missing-{n} HTTP/1.1\r\nHost: x\r\nx-test: b\r\n\r\n".encode()
                for n in range(misses)
            )
        )
        got, seen, latencies = b"", 0, []
        while len(latencies) < misses:
            got += sock.recv(1 << 16)
            while got.count(b"HTTP/1.1 404", seen) and len(latencies) < misses:
                seen = got.index(b"HTTP/1.1 404", seen) + 1
                latencies.append(time.monotonic() - sent)
    return latencies


def measure_misses(
    src: Path, mocks: int, misses: int, workers: int, one_connection: bool
) -> dict[str, object]:
    """The stream's longest gap while ``misses`` unmatched requests are answered among
    ``mocks`` mocks, and how long their 404s took."""
    body = json.dumps(
        [
            {
                "name": f"m{n}",
                "request": {"method": "GET", "path": f"/items/{n}", "header": {"x-test": "a"}},
                "response": {"status": 200, "json": {"id": n, "ok": True}},
            }
            for n in range(mocks)
        ]
    )
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
            kind = {"Content-Type": "application/json"}
            added = httpx.post(url + "/__mockhttp/mocks", content=body, headers=kind, timeout=600)
            added.raise_for_status()
            httpx.get(url + "/warm-up", timeout=120)  # every mock matched once before
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
            time.sleep(1.5)
            latencies: list[float] = []
            statuses: list[int] = []
            go = threading.Barrier(misses + 1)

            def miss(n: int) -> None:
                with httpx.Client(timeout=120) as client:
                    client.get(url + "/__mockhttp/health")  # connected before the burst
                    go.wait()
                    sent = time.monotonic()
                    answer = client.get(f"{url}/items/missing-{n}", headers={"x-test": "b"})
                    latencies.append(time.monotonic() - sent)
                    statuses.append(answer.status_code)

            start = time.monotonic()
            if one_connection:
                latencies = pipelined(url, misses)
                statuses = [404]
            else:
                clients = [threading.Thread(target=miss, args=(n,)) for n in range(misses)]
                for c in clients:
                    c.start()
                go.wait()
                start = time.monotonic()
                for c in clients:
                    c.join()
            took = time.monotonic() - start
            time.sleep(0.5)
            done.set()
            reader.join(5)
            # (from the event before the burst: a stream stopped the whole time has none in it)
            during = [t for t in arrivals if start - 0.2 <= t <= start + took + 0.5]
            gaps = [b - a for a, b in itertools.pairwise(during)]
        finally:
            proc.terminate()
            proc.wait(30)
    return {
        "mocks": mocks,
        "misses": misses,
        "on": "one connection, pipelined" if one_connection else "a connection each",
        "workers": workers,
        "statuses": sorted(set(statuses)),
        "burst_s": round(took, 3),
        "events_during": len(during),
        "max_gap_s": round(max(gaps, default=took), 3),
        "miss_max_s": round(max(latencies), 3),
        "miss_median_s": round(statistics.median(latencies), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mib", type=float, default=4)
    parser.add_argument("--as", dest="syntax", choices=("yaml", "json"), default="yaml")
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument("--loop", choices=("asyncio", "uvloop"), default="asyncio")
    parser.add_argument("--src", type=Path, default=ROOT / "src")
    parser.add_argument("--misses", type=int, default=0, help="unmatched requests at once")
    parser.add_argument("--mocks", type=int, default=20_000, help="mocks, with --misses")
    parser.add_argument(
        "--pipelined", action="store_true", help="--misses on one connection, pipelined"
    )
    args = parser.parse_args()
    src = args.src.resolve()
    if args.misses:
        print(
            json.dumps(measure_misses(src, args.mocks, args.misses, args.workers, args.pipelined))
        )
    else:
        print(json.dumps(measure(src, args.mib, args.syntax, args.workers, args.loop)))


if __name__ == "__main__":
    main()
