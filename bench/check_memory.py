"""Peak resident memory of ``mockhttp check`` given a 64 MiB buffered answer.

Two shapes of a Chat Completions answer, ~64 MiB each: one long ``message.content``
string, and ``logprobs.content`` holding ~870,000 small objects (``{"token": "ab",
"logprob": -0.25, "bytes": [97, 98], "top_logprobs": []}``) whose tokens join to the
content.  Each reaches ``check`` two ways: offline (``--body STREAM --buffered FILE``)
and live (``mockhttp.Server`` answers the buffered request with it, a small stream the
streamed ones; ``--max-event-bytes 80MiB --max-bytes 80MiB``).  The peak is the child's
``ru_maxrss`` (``os.wait4``), in MiB; ``check`` on a small stream alone is the floor.

    .venv/bin/python bench/check_memory.py [--src OTHER/src] [--mib 64]

Results are in docs/limits.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ITEM = {"token": "ab", "logprob": -0.25, "bytes": [97, 98], "top_logprobs": []}


def answer(shape: str, mib: int) -> bytes:
    """A buffered Chat Completions answer of about ``mib`` MiB in ``shape``."""
    if shape == "long string":
        n = mib * (1 << 20) // 2
        content, logprobs = "ab" * n, None
    else:
        n = mib * (1 << 20) // len(json.dumps(ITEM))
        content, logprobs = "ab" * n, {"content": [ITEM] * n}
    choice = {"index": 0, "message": {"role": "assistant", "content": content}}
    choice.update(logprobs=logprobs, finish_reason="stop")
    usage = {"prompt_tokens": 1, "completion_tokens": n, "total_tokens": n + 1}
    body = {"id": "c", "object": "chat.completion", "model": "m", "choices": [choice]}
    return json.dumps({**body, "usage": usage}).encode()


def stream() -> bytes:
    chunk = {"id": "c", "object": "chat.completion.chunk", "model": "m"}
    first = {**chunk, "choices": [{"index": 0, "delta": {"content": "ab"}}]}
    last = {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    return b"".join(f"data: {json.dumps(c)}\n\n".encode() for c in (first, last)) + (
        b"data: [DONE]\n\n"
    )


# A child's peak counts the memory of the process it was forked from (Linux keeps the
# high-water mark across exec), so ``check`` is started by a small launcher, not by this
# process, which holds the answer (and, live, the server).
LAUNCHER = """
import os, sys
pid = os.posix_spawn(sys.argv[1], sys.argv[1:], os.environ)
print(os.wait4(pid, 0)[2].ru_maxrss)
"""


def peak_mib(argv: list[str], env: dict[str, str]) -> float:
    """The peak resident memory of the process ``argv`` runs, in MiB."""
    done = subprocess.run(
        [sys.executable, "-c", LAUNCHER, *argv], env=env, capture_output=True, text=True
    )
    return int(done.stdout.split()[-1]) / 1024


def live(src: Path, body: bytes, env: dict[str, str]) -> float:
    sys.path.insert(0, str(src))
    import mockhttp
    from mockhttp import match

    pieces = stream().split(b"\n\n")[:-1]
    events = [mockhttp.Event(data=p.split(b"data: ", 1)[1].decode()) for p in pieces]
    chat = "/v1/chat/completions"
    buffered = mockhttp.ok().header("Content-Type", "application/json").body(body)
    with mockhttp.Server() as server:
        unstreamed = match.json_path("$.stream", match.equal(False))
        server.mock(mockhttp.post(chat).reply(mockhttp.ok().event_stream(*events)))
        server.mock(mockhttp.post(chat).body(unstreamed).reply(buffered))  # (the later wins)
        argv = [sys.executable, "-m", "mockhttp", "check", server.url, "--model", "m"]
        argv += ["--max-event-bytes", "80MiB", "--max-bytes", "80MiB"]
        return peak_mib(argv, env)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", type=Path, default=ROOT / "src")
    parser.add_argument("--mib", type=int, default=64)
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(args.src.resolve())}
    check = [sys.executable, "-m", "mockhttp", "check"]
    rows: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        events = Path(tmp) / "stream.txt"
        events.write_bytes(stream())
        rows["floor: --body STREAM alone"] = peak_mib([*check, "--body", str(events)], env)
        for shape in ("long string", "small objects"):
            path = Path(tmp) / "answer.json"
            body = answer(shape, args.mib)
            path.write_bytes(body)
            offline = [*check, "--body", str(events), "--buffered", str(path)]
            rows[f"{shape}: --buffered FILE"] = peak_mib(offline, env)
            rows[f"{shape}: live"] = live(args.src, body, env)
    print(json.dumps({"src": str(args.src), "mib": args.mib, "peak_rss_mib": rows}, indent=1))


if __name__ == "__main__":
    main()
