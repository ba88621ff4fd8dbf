"""The server side of the benchmark: one mockhttp.Server in this process.

It serves two mocks and prints ``PORT <n>`` on stdout once it listens:

- ``POST /v1/chat/completions``: an event stream of ``--events`` events (OpenAI-style
  ``chat.completion.chunk`` events, then ``data: [DONE]``), ``--delay`` seconds apart;
- ``GET /small``: a small JSON body (``{"ok":true,"n":1}``);
- ``POST /v1/chat/json``: a ~300-byte chat body matched by JSONPath (``$.model``,
  ``$.messages[-1].content``), replying a small fixed JSON, behind a mock on the same
  path for another model (``bench/shapes.py``, the shape of ``bench/run.py --shape json``).

It serves until stdin closes (the driver, ``bench/run.py``, closes it) or SIGTERM/SIGINT,
then prints one JSON line of server-side counts on stdout.  Pin it with ``taskset -c 0``.

Run it alone to poke at it::

    .venv/bin/python bench/serve.py --events 50 --delay 0.02
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import signal
import sys
import threading
import time
from pathlib import Path

# MOCKHTTP_BENCH_SRC: another checkout's src/ to measure (bench/run.py --src)
sys.path.insert(
    0, os.environ.get("MOCKHTTP_BENCH_SRC") or str(Path(__file__).resolve().parent.parent / "src")
)

import shapes  # bench/shapes.py (this script's folder is on sys.path)

import mockhttp
from mockhttp import Event


def chunk(i: int) -> Event:
    return Event(
        data={
            "id": "chatcmpl-bench",
            "object": "chat.completion.chunk",
            "created": 1700000000,
            "model": "gpt-bench",
            "choices": [{"index": 0, "delta": {"content": f"tok{i} "}, "finish_reason": None}],
        }
    )


class GcPauses:
    """Collections and their pauses per generation (gc.callbacks), reported at exit."""

    def __init__(self) -> None:
        self.start = self.start_cpu = 0.0
        self.pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self.cpu: dict[int, list[float]] = {0: [], 1: [], 2: []}  # thread CPU time
        gc.callbacks.append(self.callback)

    def callback(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self.start = time.perf_counter()
            self.start_cpu = time.thread_time()
        else:
            self.pauses[info["generation"]].append((time.perf_counter() - self.start) * 1e3)
            self.cpu[info["generation"]].append((time.thread_time() - self.start_cpu) * 1e3)

    def summary(self) -> dict[str, dict[str, float]]:
        return {
            f"gen{g}": {
                "n": len(v),
                "max_ms": round(max(v, default=0.0), 2),
                "total_ms": round(sum(v), 1),
                "max_cpu_ms": round(max(self.cpu[g], default=0.0), 2),
            }
            for g, v in self.pauses.items()
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--backlog", type=int, default=4096)
    parser.add_argument("--events", type=int, default=50, help="events per stream")
    parser.add_argument("--delay", type=float, default=0.020, help="seconds between events")
    parser.add_argument(
        "--no-gc-freeze",
        action="store_true",
        help="skip gc.freeze() after start-up (DESIGN.md: a long collection was a whole p99)",
    )
    parser.add_argument(
        "--gc-freeze-every",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="also gc.freeze() every SECONDS (what a dedicated server process such as "
        "`mockhttp serve` can do: the journal grows, and each full collection scans it)",
    )
    parser.add_argument(
        "--journal-limit",
        type=int,
        default=None,
        metavar="N",
        help="Server(journal_limit=N), as `mockhttp serve` runs with 10,000",
    )
    parser.add_argument("--gc-off", action="store_true", help="gc.disable() (diagnosis)")
    parser.add_argument(
        "--loop", default="auto", help="Server(loop=...): auto (the default), asyncio, uvloop"
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=0,
        help="serve with `mockhttp serve --workers N` (the same mocks, from a mock file) "
        "instead of one Server in this process",
    )
    args = parser.parse_args()
    if args.workers:
        workers(args)
        return

    events = [chunk(i) for i in range(max(args.events - 1, 0))] + [Event(data="[DONE]")]
    options = {"port": args.port, "backlog": args.backlog, "journal_limit": args.journal_limit}
    try:
        server = mockhttp.Server(**options, loop=args.loop)
    except TypeError:  # an older checkout (--src): asyncio's loop only
        server = mockhttp.Server(**options)
    server.start()
    server.mock(
        mockhttp.post("/v1/chat/completions").reply(
            mockhttp.ok().event_stream(*events[: args.events], event_delay=args.delay)
        )
    )
    server.mock(mockhttp.get("/small").reply(mockhttp.ok().json({"ok": True, "n": 1})))
    for mock in shapes.json_mocks(mockhttp):
        server.mock(mock)
    if not args.no_gc_freeze:
        gc.collect()
        gc.freeze()

    if args.gc_off:
        gc.disable()
    pauses = GcPauses()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())

    def wait_stdin() -> None:
        sys.stdin.read()  # returns at EOF: the driver went away or closed our stdin
        stop.set()

    threading.Thread(target=wait_stdin, daemon=True).start()
    print(f"PORT {server.port}", flush=True)
    every = args.gc_freeze_every
    while not stop.wait(every if every > 0 else 0.5):
        if every > 0:
            gc.freeze()  # the journal so far: later full collections skip it
    gc_summary = pauses.summary()  # before reading the journal back (that builds objects)
    outcomes: dict[str, int] = {}
    calls = list(server.journal)
    for call in calls:
        outcomes[call.outcome] = outcomes.get(call.outcome, 0) + 1
    server.close()
    print(
        json.dumps(
            {
                "calls": len(calls),
                "outcomes": outcomes,
                "errors": len(server.errors),
                "gc": gc_summary,
                "loop": getattr(server, "loop_name", "asyncio"),
            }
        ),
        flush=True,
    )


def workers(args: argparse.Namespace) -> None:
    """``mockhttp serve --workers N`` on the benchmark's mocks, until stdin closes."""
    import subprocess
    import tempfile

    events = [chunk(i) for i in range(max(args.events - 1, 0))] + [Event(data="[DONE]")]
    mocks = [
        mockhttp.post("/v1/chat/completions").reply(
            mockhttp.ok().event_stream(*events[: args.events], event_delay=args.delay)
        ),
        mockhttp.get("/small").reply(mockhttp.ok().json({"ok": True, "n": 1})),
        *shapes.json_mocks(mockhttp),
    ]
    with tempfile.TemporaryDirectory(prefix="mockhttp-bench-") as tmp:
        path = Path(tmp) / "bench.yaml"
        path.write_text("---\n".join(m.to_yaml() for m in mocks))
        argv = [sys.executable, "-m", "mockhttp", "serve", str(path), "--port", str(args.port)]
        argv += ["--workers", str(args.workers), "--quiet", "--loop", args.loop]
        src = os.environ.get("MOCKHTTP_BENCH_SRC") or str(Path(__file__).parent.parent / "src")
        env = {**os.environ, "PYTHONPATH": src}
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, env=env)
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        print(f"PORT {url.rsplit(':', 1)[1]}", flush=True)
        sys.stdin.read()
        proc.terminate()
        proc.wait(15)
    print(json.dumps({"workers": args.workers, "loop": args.loop}), flush=True)


if __name__ == "__main__":
    main()
