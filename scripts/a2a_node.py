"""The official A2A JavaScript SDK (``@a2a-js/sdk``, pinned in scripts/a2a_node/package.json)
against a mockhttp.a2a agent: it reads the card, streams a task, gets it, meets cancel's and
get's errors, a cut stream, resubscribes after it, and a wrong JSON-RPC id.

Installs the package into scripts/a2a_node/node_modules (git-ignored) on first run, serves
the agent on loopback, runs ``client.mjs`` and prints what the client saw, one line per
case, then PASS or FAIL against what this script expects.
Usage: PYTHONPATH=src python scripts/a2a_node.py
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import mockhttp
from mockhttp import a2a, fault, match

HERE = Path(__file__).resolve().parent / "a2a_node"
STEPS = (
    a2a.status("working", "Looking it up"),
    a2a.artifact("Sunny, ", name="forecast"),
    a2a.artifact("21 °C", append=True, last_chunk=True),
    a2a.status("completed"),
)
EXPECTED = {  # what @a2a-js/sdk 1.3.0 does (docs/agent-protocols.md shows it)
    "stream": ["task", "statusUpdate", "artifactUpdate", "artifactUpdate", "statusUpdate"],
    "get": 3,  # TASK_STATE_COMPLETED
    "cancel_done": "raised JsonRpcTaskNotCancelableError: Task not cancelable: task-1 is completed",
    "get_unknown": "raised JsonRpcTaskNotFoundError: Task not found: task-9",
    "cut_stream": ["task", "statusUpdate", "raised TypeError: terminated"],
    "resubscribe": ["task", "statusUpdate"],
    "wrong_id": ["raised Error: JSON-RPC response ID mismatch in SSE event. Expected 7, got 8."],
}


def main() -> int:
    if not (HERE / "node_modules" / "@a2a-js" / "sdk").exists():
        subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--no-package-lock", "--silent"],
            cwd=HERE,
            check=True,
        )
    kind = a2a.A2aAgent([a2a.task(*STEPS), a2a.task(*STEPS), a2a.task(*STEPS, wrong_id=True)])
    cut = match.json_path("$.method", match.equal("SendStreamingMessage"))
    with mockhttp.Server() as server:
        server.mock(kind.mock())
        server.mock(
            kind.mock(name="cut").header("x-cut", "1").body(cut).pipe(fault.close_after_events(2))
        )
        ran = subprocess.run(
            ["node", str(HERE / "client.mjs"), server.url],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    print(ran.stdout, end="")
    if ran.returncode != 0:
        print(ran.stderr, file=sys.stderr)
        print("FAIL: the client exited with", ran.returncode)
        return 1
    seen = {line["name"]: line["value"] for line in map(json.loads, ran.stdout.splitlines())}
    wrong = {k: v for k, v in EXPECTED.items() if seen.get(k) != v}
    print("PASS" if not wrong else f"FAIL: {sorted(wrong)} differ from {wrong}")
    return 0 if not wrong else 1


if __name__ == "__main__":
    sys.exit(main())
