"""Memory of ``mockhttp serve`` under big requests and short reads of endless streams.

Starts ``mockhttp serve --port 0`` on a small mock file, reads its resident memory (VmRSS)
before, sends ``--posts`` POSTs of ``--mib`` MiB each (default 100 x 10 MiB), then makes
``--reads`` short reads of an endless stream (each reads ~1 MiB and hangs up), and reads
the resident memory after.  It does this twice in the same run: with the default journal
byte budget (``--journal-bytes`` of ``mockhttp serve``, 64 MiB) and with the budget lifted
(``--journal-bytes 1000GiB``, how the journal behaved before it had one), and prints one
JSON line per run plus a summary.

    .venv/bin/python bench/memory.py            # 100 x 10 MiB POSTs, 200 short reads
    .venv/bin/python bench/memory.py --src ../main/src   # another checkout (no budget)
    .venv/bin/python bench/memory.py --json --posts 300 --loop uvloop   # JSON bodies

``--json`` sends JSON bodies instead (a chat request: ``model`` and ``--mib`` MiB of
messages; ``--json numbers``: ``model`` and a list of numbers, embeddings-like) to a
mock that matches them by JSONPath (``body: [jsonpath, $.model, gpt-4o]``), and makes
no short reads; ``--loop`` picks the server's event loop.

Linux only (reads /proc).  Results are in docs/limits.md.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MOCKS = """\
request: {method: POST, path: /upload}
response: {json: {ok: true}}
---
request: {method: POST, path: /chat, body: [jsonpath, $.model, gpt-4o]}
response: {json: {ok: true}}
---
request: {method: GET, path: /endless}
response:
  event_stream:
    events: [{data: "%s"}]
    repeat: true
"""


def rss_mib(pid: int) -> float:
    """Resident memory of ``pid`` in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def numbers_body(mib: int) -> bytes:
    """An embeddings-like request of about ``mib`` MiB: ``model`` and a list of numbers."""
    return json.dumps(
        {"model": "gpt-4o", "input": [n / 1000 for n in range(mib * 116_500)]}
    ).encode()


def chat_body(mib: int) -> bytes:
    """A chat request of about ``mib`` MiB: many messages of about 1 KiB each."""
    message = {"role": "user", "content": os.urandom(380).hex()[:700] + " é ✓"}
    messages = [dict(message, n=n) for n in range(mib * 1385)]
    return json.dumps({"model": "gpt-4o", "messages": messages}).encode()


def post(
    port: int, body: bytes, path: bytes = b"/upload", kind: bytes = b"application/octet-stream"
) -> bytes:
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(
            b"POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: %s\r\n"
            b"Connection: close\r\nContent-Length: %d\r\n\r\n" % (path, kind, len(body))
        )
        sock.sendall(body)
        reply = b""
        while piece := sock.recv(65536):
            reply += piece
        return reply


def short_read(port: int, size: int) -> None:
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(b"GET /endless HTTP/1.1\r\nHost: x\r\n\r\n")
        got = 0
        while got < size:
            piece = sock.recv(1 << 20)
            if not piece:
                break
            got += len(piece)


def measure(
    src: Path, budget: str | None, posts: int, mib: int, reads: int, json_bodies: str, loop: str
) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as folder:
        mocks = Path(folder) / "mocks.yaml"
        mocks.write_text(MOCKS % ("x" * 60_000))
        args = [sys.executable, "-m", "mockhttp", "serve", "--port", "0", "--quiet"]
        args += ["--loop", loop, str(mocks)]
        if budget is not None:
            args += ["--journal-bytes", budget]
        env = {**os.environ, "PYTHONPATH": str(src)}
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, text=True, env=env)
        try:
            assert proc.stdout is not None
            port = int(proc.stdout.readline().strip().rsplit(":", 1)[1])
            time.sleep(0.5)
            before = rss_mib(proc.pid)
            shapes = {"chat": chat_body, "numbers": numbers_body}
            body = shapes[json_bodies](mib) if json_bodies else os.urandom(1024) * (mib * 1024)
            start = time.monotonic()
            for _ in range(posts):
                if json_bodies:
                    reply = post(port, body, b"/chat", b"application/json")
                    assert reply.startswith(b"HTTP/1.1 200"), reply[:300]
                else:
                    post(port, body)
            after_posts = rss_mib(proc.pid)
            for _ in range(reads):
                short_read(port, 1 << 20)
            time.sleep(0.5)  # the hang-ups are journaled
            after = rss_mib(proc.pid)
            took = time.monotonic() - start
        finally:
            proc.terminate()
            proc.wait(10)
    return {
        "journal_bytes": budget or "default (64MiB)",
        "loop": loop,
        "posts": f"{posts} x {mib} MiB"
        + (f" JSON ({json_bodies}), matched by JSONPath" if json_bodies else ""),
        "short_reads": reads,
        "rss_before_mib": round(before, 1),
        "rss_after_posts_mib": round(after_posts, 1),
        "rss_after_mib": round(after, 1),
        "seconds": round(took, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--posts", type=int, default=100)
    parser.add_argument("--mib", type=int, default=10)
    parser.add_argument("--reads", type=int, default=200)
    parser.add_argument("--src", type=Path, default=ROOT / "src", help="the src/ to measure")
    parser.add_argument("--no-reference", action="store_true", help="skip the run without a budget")
    parser.add_argument(
        "--json",
        nargs="?",
        const="chat",
        default="",
        choices=["chat", "numbers"],
        help="JSON bodies matched by JSONPath: chat messages (default) or a list of numbers",
    )
    parser.add_argument("--loop", default="asyncio", choices=["asyncio", "uvloop"])
    args = parser.parse_args()
    reads = 0 if args.json else args.reads
    run = (args.posts, args.mib, reads, args.json, args.loop)
    budgeted = measure(args.src, None, *run)
    print(json.dumps(budgeted), flush=True)
    if not args.no_reference and not args.json:
        unbounded = measure(args.src, "1000GiB", *run)
        print(json.dumps(unbounded), flush=True)


if __name__ == "__main__":
    main()
