"""The A2A TCK (``a2aproject/a2a-tck``) against mockhttp's A2A agents.

The TCK is not on a package registry: check it out yourself (outside this repository),
install its dependencies into its own venv, and give this script its path::

    git clone https://github.com/a2aproject/a2a-tck /tmp/a2a-tck
    git -C /tmp/a2a-tck checkout 410ba92            # spec 1.0 (the 0.3 line: branch 0.3.x)
    python3 -m venv /tmp/a2a-tck/.venv && /tmp/a2a-tck/.venv/bin/pip install -e /tmp/a2a-tck
    PYTHONPATH=src python scripts/a2a_tck.py /tmp/a2a-tck

It serves each agent on loopback with ``mockhttp serve`` (the built-in defaults, whose
agent lives at ``/a2a``; ``examples/a2a/agent.yaml`` at ``/``, which needs a bearer token,
passed to the TCK as ``A2A_AUTH_TYPE``/``A2A_AUTH_TOKEN``; ``examples/a2a/open.yaml``, the
same without credentials, for the TCK's 0.3 line which sends none), runs the TCK's
``run_tck.py --category C --transports jsonrpc`` (``--transport rest``: the HTTP+JSON
binding, which the examples speak too) for each category against the agent's one URL,
and prints one line per agent and category: passed, failed, skipped.  ``-v`` also
prints the failing tests' ids.  Exit status 1 when a mandatory test fails.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CATEGORIES = ("mandatory", "capabilities", "quality", "features")
AGENTS = {  # name: (mock files for ``mockhttp serve``, the agent's path, its bearer token)
    "built-in": ((), "/a2a", None),
    "example": ((str(ROOT / "examples" / "a2a" / "agent.yaml"),), "/", "tck-token"),
    "open": ((str(ROOT / "examples" / "a2a" / "open.yaml"),), "/", None),
}
_COUNT = re.compile(r"(\d+) (passed|failed|skipped|error|errors)\b")
_FAILED = re.compile(r"^(?:FAILED|ERROR) (\S+)", re.MULTILINE)


def serve(files: tuple[str, ...]) -> tuple[subprocess.Popen[str], str]:
    """``mockhttp serve`` on a free port: the process and its base URL."""
    command = [sys.executable, "-m", "mockhttp", "serve", "--port", "0", *files]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    assert process.stdout is not None
    url = process.stdout.readline().strip()
    if not url.startswith("http"):
        process.kill()
        raise SystemExit(f"mockhttp serve did not start: {url!r}")
    # the card names the host the client asked for: localhost, not a loopback address
    # (the TCK's card-security test flags 127.0.0.1 in a public card, not localhost)
    return process, url.replace("127.0.0.1", "localhost")


def run_category(
    tck: Path, python: str, url: str, category: str, token: str | None, transport: str
) -> tuple[dict[str, int], str]:
    """One category of the TCK (with the agent's bearer token, the TCK's A2A_AUTH_*
    variables): the counts of its pytest summary, and its output."""
    command = [python, "run_tck.py", "--sut-url", url, "--category", category]
    command += ["--transports", transport]
    env = {**os.environ, "A2A_AUTH_TYPE": "bearer", "A2A_AUTH_TOKEN": token} if token else None
    done = subprocess.run(command, cwd=tck, capture_output=True, text=True, timeout=1800, env=env)
    summary = [line for line in done.stdout.splitlines() if " in " in line and "passed" in line]
    counts = {"passed": 0, "failed": 0, "skipped": 0, "error": 0}
    for number, word in _COUNT.findall(summary[-1] if summary else ""):
        counts[word.rstrip("s") if word.startswith("error") else word] += int(number)
    return counts, done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tck", type=Path, help="the a2a-tck checkout")
    parser.add_argument("--python", help="its interpreter (default: TCK/.venv/bin/python)")
    parser.add_argument("--agent", choices=sorted(AGENTS), action="append")
    parser.add_argument("--category", choices=CATEGORIES, action="append")
    parser.add_argument(
        "--transport", choices=("jsonrpc", "rest"), default="jsonrpc", help="the binding tested"
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="list failing tests")
    args = parser.parse_args()
    python = args.python or str(args.tck / ".venv" / "bin" / "python")
    commit = subprocess.run(
        ["git", "-C", str(args.tck), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    print(f"a2a-tck at {commit or '?'}")
    mandatory_failed = 0
    for name in args.agent or list(AGENTS):
        files, path, token = AGENTS[name]
        process, base = serve(files)
        try:
            for category in args.category or CATEGORIES:
                url = base if path == "/" else base + path  # the TCK appends /.well-known/...
                counts, output = run_category(
                    args.tck, python, url, category, token, args.transport
                )
                line = ", ".join(f"{counts[k]} {k}" for k in ("passed", "failed", "skipped"))
                if counts["error"]:
                    line += f", {counts['error']} error"
                print(f"{name:9} {category:13} {line}", flush=True)
                if args.verbose:
                    for test in _FAILED.findall(output):
                        print(f"    {test}")
                if category == "mandatory":
                    mandatory_failed += counts["failed"] + counts["error"]
        finally:
            process.terminate()
            process.wait(timeout=10)
    return 1 if mandatory_failed else 0


if __name__ == "__main__":
    sys.exit(main())
