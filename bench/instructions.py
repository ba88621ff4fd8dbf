"""Instructions per keep-alive request, counted by valgrind: stable under load.

Wall-clock and CPU-time figures move with whatever else runs on the machine; the count
of instructions a request executes does not (to a fraction of a percent).  This runs
``bench/micro.py``'s request phase (a ``Connection`` fed ``GET /small`` through a fake
transport: parse, match, journal, reply, write) under ``valgrind --tool=callgrind`` twice,
for ``--requests`` and twice as many requests, and divides the difference of the totals
by the difference of the counts, so the start-up (imports, the server) cancels out.
``--shape json`` sends ``POST /v1/chat/json`` with a ~300-byte chat body matched by
JSONPath (``bench/shapes.py``) instead of ``GET /small``; ``--shape long`` sends
``GET /small`` with the lane of kept answers off (the long way: route, journal, plan);
``--shape tested`` sends it with ``x-mockhttp-test: bench`` (a test's request, answered
by the shared mock: the long way, and the test's routing: ``docs/isolation.md``).

    .venv/bin/python bench/instructions.py [--src OTHER/src] [--requests 2000] [--shape json]

Needs valgrind (``apt-get install valgrind``); a run takes about a minute.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def child(n: int, shape: str) -> None:
    """Serve ``n`` requests of ``shape`` (after a warm-up of 500), then exit."""
    sys.path.insert(0, str(HERE))
    import micro

    raw = micro.SHAPES.get(shape, micro.SMALL)
    if shape == "tested":
        raw = raw.replace(b"\r\n\r\n", b"\r\nx-mockhttp-test: bench\r\n\r\n")

    async def run() -> None:
        server = micro.make_server(50, 0.02)
        if shape == "long":
            server._lane = server._answers.lane = None
        conns = [micro.connect(server) for _ in range(50)]
        for i in range(500 + n):
            conns[i % 50][0].data_received(raw)
        journal = server.test("bench").journal if shape == "tested" else server.journal
        assert len(journal) == 500 + n
        last = journal[-1]
        assert (last.status, last.mock is not None) == (200, True), "not answered by a mock"

    asyncio.run(run())


def counted(src: str, n: int, shape: str) -> int:
    """The instructions of a child serving ``n`` requests."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "callgrind.out"
        argv = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
        argv += [sys.executable, __file__, "--child", str(n), "--src", src, "--shape", shape]
        env = {**os.environ, "MOCKHTTP_BENCH_SRC": src, "PYTHONHASHSEED": "0"}
        subprocess.run(argv, check=True, capture_output=True, env=env)
        found = re.search(r"^(?:summary|totals): (\d+)", out.read_text(), re.M)
        assert found, "no totals in callgrind's output"
        return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", default=str(HERE.parent / "src"))
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--shape", choices=["small", "json", "long", "tested"], default="small")
    parser.add_argument("--child", type=int)
    args = parser.parse_args()
    if args.child is not None:
        return child(args.child, args.shape)
    n = args.requests
    low, high = counted(args.src, n, args.shape), counted(args.src, 2 * n, args.shape)
    print(f"{(high - low) / n:,.0f} instructions a {args.shape} request ({args.src}, {n} requests)")


if __name__ == "__main__":
    main()
