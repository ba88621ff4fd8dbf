"""Per-test isolation under load: 16 test ids x 1,000 requests in parallel, workers on.

Starts ``mockhttp serve --workers 2`` with one shared mock (``GET /who`` with an
``x-bench`` field answers ``shared``: a header matcher, so the lane of kept answers never
takes it and every request goes the long way), gives every even test a mock of its own
(the same request answers its id, added through the admin API with ``?test=ID``), then
sends each test's 1,000 requests with its ``x-mockhttp-test`` header, all tests at once
(``--connections`` keep-alive connections per test, raw HTTP/1.1).  It checks that no
answer leaked (an even test always got its id, an odd one ``shared``) and that each
test's journal (``GET /__mockhttp/journal?test=ID``, merged from both workers) holds
exactly its own 1,000 calls, and the shared journal none of them.  Then it sends the
same load without a test id (the long way too), and the same to ``GET /lane`` (a fixed
reply the lane answers), and prints the rates and the difference per request (wall
clock: it moves with the machine's load; ``bench/instructions.py`` counts the CPU of one
request).

    .venv/bin/python bench/isolation.py [--tests 16] [--requests 1000] [--workers 2]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
WHO = "request: {method: GET, path: /who, header: {x-bench: '1'}}\n"
SHARED = (
    f"- {WHO}  response: {{status: 200, body: shared}}\n"
    "- request: {method: GET, path: /lane}\n  response: {status: 200, body: shared}\n"
)
MINE = WHO + "response: {status: 200, body: %s}\n"


def start(workers: int, folder: Path) -> tuple[subprocess.Popen[str], str]:
    """``mockhttp serve --workers N`` on a free port; its process and URL."""
    mocks = folder / "shared.yaml"
    mocks.write_text(SHARED)
    argv = [sys.executable, "-m", "mockhttp", "serve", str(mocks), "--port", "0"]
    argv += ["--workers", str(workers)] if workers else []  # (0: one process, no supervisor)
    argv += ["--quiet", "--journal-limit", "100000"]
    env = {**os.environ, "PYTHONPATH": os.environ.get("MOCKHTTP_SRC", str(HERE.parent / "src"))}
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    url = proc.stdout.readline().strip()
    assert url.startswith("http"), f"no URL from serve: {url!r}"
    for _ in range(600):  # until every worker listens
        try:
            with urllib.request.urlopen(url + "/__mockhttp/health", timeout=5):
                return proc, url
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("serve did not answer its health probe")


def admin(url: str, method: str, path: str, body: str | None = None) -> object:
    data = None if body is None else body.encode()
    request = urllib.request.Request(url + path, data=data, method=method)
    if body is not None:
        request.add_header("content-type", "application/yaml")
    with urllib.request.urlopen(request, timeout=60) as answer:
        return json.loads(answer.read())


async def connection(
    host: str, port: int, test: str | None, n: int, want: bytes, path: bytes
) -> int:
    """``n`` keep-alive requests on one connection; how many answers were not ``want``."""
    reader, writer = await asyncio.open_connection(host, port)
    field = b"" if test is None else b"x-mockhttp-test: " + test.encode() + b"\r\n"
    raw = b"GET " + path + b" HTTP/1.1\r\nHost: bench\r\nx-bench: 1\r\n" + field + b"\r\n"
    wrong = 0
    for _ in range(n):
        writer.write(raw)
        head = await reader.readuntil(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":", 1)[1])
        body = await reader.readexactly(length)
        wrong += body != want
    writer.close()
    return wrong


async def load(
    url: str, tests: list[str | None], n: int, conns: int, path: bytes = b"/who"
) -> tuple[float, int]:
    """Every test's ``n`` requests at once; (seconds, answers that leaked)."""
    host, _, port = url.removeprefix("http://").partition(":")
    jobs = []
    for i, test in enumerate(tests):
        want = test.encode() if test is not None and i % 2 == 0 else b"shared"
        share = [n // conns + (k < n % conns) for k in range(conns)]
        jobs += [connection(host, int(port), test, m, want, path) for m in share]
    began = time.perf_counter()
    wrong = sum(await asyncio.gather(*jobs))
    return time.perf_counter() - began, wrong


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=16)
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--connections", type=int, default=2, help="per test")
    args = parser.parse_args()
    ids = [f"bench-{i:02d}" for i in range(args.tests)]
    with tempfile.TemporaryDirectory() as folder:
        proc, url = start(args.workers, Path(folder))
        try:
            for i, test in enumerate(ids):
                if i % 2 == 0:
                    admin(url, "POST", f"/__mockhttp/mocks?test={test}", MINE % test)
            tested: list[str | None] = list(ids)
            plain: list[str | None] = [None] * args.tests
            for warm in ([f"warm-{i:02d}" for i in range(args.tests)], plain):  # (first use)
                asyncio.run(load(url, warm, 100, args.connections))
            base, _ = asyncio.run(load(url, plain, args.requests, args.connections))
            seconds, wrong = asyncio.run(load(url, tested, args.requests, args.connections))
            leaks = 0
            for test in ids:
                calls = admin(url, "GET", f"/__mockhttp/journal?test={test}")["calls"]  # type: ignore[index]
                mine = sum(1 for c in calls if c.get("test") == test)
                if len(calls) != args.requests or mine != args.requests:
                    leaks += 1
                    print(f"{test}: {len(calls)} calls in its journal, {mine} its own")
            shared = [  # (the warm-up's and the load's without a test id)
                c
                for c in admin(url, "GET", "/__mockhttp/journal")["calls"]  # type: ignore[index]
                if c.get("test") is not None
            ]
            total = args.tests * args.requests
            print(
                f"{args.tests} tests x {args.requests} requests, --workers {args.workers}: "
                f"{seconds:.2f} s ({total / seconds:,.0f} requests/s); answers leaked: "
                f"{wrong}; journals not exactly their own: {leaks}; a test's calls in the "
                f"shared journal: {len(shared)}"
            )
            lane, _ = asyncio.run(load(url, plain, args.requests, args.connections, b"/lane"))
            print(
                f"the same load without a test id: {base:.2f} s ({total / base:,.0f} "
                f"requests/s); a test id costs {(seconds - base) / total * 1e6:+.1f} us a "
                f"request of wall clock here; to /lane (the lane's): {lane:.2f} s "
                f"({total / lane:,.0f} requests/s)"
            )
            if wrong or leaks or shared:
                raise SystemExit("isolation leaked")
        finally:
            proc.terminate()
            proc.wait(30)


if __name__ == "__main__":
    main()
