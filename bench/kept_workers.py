"""The cost of protocol state kept by the server under ``mockhttp serve --workers``.

An MCP session and an A2A task are kept state (``_core/_kept.py``): in one process a
dict the loop owns; under ``--workers`` the supervisor's, one round trip on the worker's
socketpair for each read (``get``) and two for each change (``get``, then ``put`` if the
version did not move).  This runs ``wrk`` (keep-alive, 50 connections) against
``mockhttp serve`` in one process and with ``--workers 2`` for:

- ``mcp tools/list``: a session read (1 round trip under --workers);
- ``mcp tools/call``: a session read and a script place counted (3 round trips);
- ``a2a tasks/get``: a task read (1 round trip);
- ``plain``: a fixed JSON reply, no kept state (for scale).

Figures under load are rough (the supervisor, the workers and wrk share the machine's
cores): compare the rows of one run, not runs of different days.

Run::

    .venv/bin/python bench/kept_workers.py --seconds 5
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
MOCKS = """\
request: {path: /mcp}
response:
  mcp:
    tools: [{name: get_weather, answers: [Sunny]}]
---
request: {path: /a2a}
response:
  a2a:
    path: /a2a
    tasks: [[{status: completed}]]
---
request: {path: /plain}
response: {json: {ok: true}}
"""
ACCEPT = "application/json, text/event-stream"


def serve(mocks: Path, workers: int | None) -> tuple[subprocess.Popen[str], str]:
    argv = [sys.executable, "-m", "mockhttp", "serve", str(mocks), "--port", "0", "--quiet"]
    if workers is not None:
        argv += ["--workers", str(workers)]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    url = proc.stdout.readline().strip()
    time.sleep(1.0)  # the workers settle
    return proc, url


def rpc(method: str, **params: Any) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})


def lua(body: str, headers: dict[str, str]) -> str:
    lines = ['wrk.method = "POST"', f"wrk.body = {json.dumps(body)}"]
    lines += [f"wrk.headers[{json.dumps(k)}] = {json.dumps(v)}" for k, v in headers.items()]
    return "\n".join(lines) + "\n"


def cases(url: str) -> dict[str, tuple[str, str]]:
    """Each case's path and wrk script (a session initialized, a task made, first)."""
    init = rpc("initialize", protocolVersion="2025-06-18", capabilities={})
    head = {"Accept": ACCEPT, "Content-Type": "application/json"}
    started = httpx.post(url + "/mcp", content=init, headers=head)
    session = {**head, "Mcp-Session-Id": started.headers["mcp-session-id"]}
    message = {
        "kind": "message",
        "messageId": "m",
        "role": "user",
        "parts": [{"kind": "text", "text": "hi"}],
    }
    made = httpx.post(url + "/a2a", content=rpc("message/send", message=message)).json()
    assert "result" in made, made
    task = made["result"]["id"]
    call = rpc("tools/call", name="get_weather", arguments={})
    return {
        "mcp tools/list": ("/mcp", lua(rpc("tools/list"), session)),
        "mcp tools/call": ("/mcp", lua(call, session)),
        "a2a tasks/get": ("/a2a", lua(rpc("tasks/get", id=task), head)),
        "plain": ("/plain", lua("{}", head)),
    }


def requests_per_s(wrk: str, url: str, script: Path, seconds: int) -> tuple[float, str]:
    argv = [wrk, "-t1", "-c50", f"-d{seconds}s", "-s", str(script), "--latency", url]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=seconds + 30).stdout
    rate = re.search(r"Requests/sec:\s+([\d.]+)", out)
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if non_2xx:
        raise SystemExit(f"{non_2xx.group(1)} refused or failed requests:\n{out}")
    p99 = re.search(r"^\s+99%\s+(\S+)", out, re.MULTILINE)
    return (float(rate.group(1)) if rate else 0.0), (p99.group(1) if p99 else "?")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=5)
    args = parser.parse_args()
    wrk = shutil.which("wrk")
    if wrk is None:
        raise SystemExit("needs wrk (apt-get install wrk)")
    with tempfile.TemporaryDirectory() as folder:
        mocks = Path(folder) / "kept.yaml"
        mocks.write_text(MOCKS)
        print(f"wrk -t1 -c50 -d{args.seconds}s (noisy: see the docstring)")
        for label, workers in (("one process", None), ("--workers 2", 2)):
            proc, url = serve(mocks, workers)
            try:
                for case, (path, text) in cases(url).items():
                    script = Path(folder) / "case.lua"
                    script.write_text(text)
                    rate, p99 = requests_per_s(wrk, url + path, script, args.seconds)
                    print(f"{label:12} {case:15} {rate:9,.0f} requests/s   p99 {p99}")
            finally:
                proc.terminate()
                proc.wait(30)


if __name__ == "__main__":
    main()
