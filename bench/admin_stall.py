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

    .venv/bin/python bench/admin_stall.py --mib 4             # 4 MiB of YAML mocks
    .venv/bin/python bench/admin_stall.py --mib 16 --as json --workers 2 --loop uvloop
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mib", type=float, default=4)
    parser.add_argument("--as", dest="syntax", choices=("yaml", "json"), default="yaml")
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument("--loop", choices=("asyncio", "uvloop"), default="asyncio")
    parser.add_argument("--src", type=Path, default=ROOT / "src")
    args = parser.parse_args()
    print(json.dumps(measure(args.src.resolve(), args.mib, args.syntax, args.workers, args.loop)))


if __name__ == "__main__":
    main()
