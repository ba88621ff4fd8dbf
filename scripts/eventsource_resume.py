"""The Node ``eventsource`` package against resumable streams cut at event K.

Usage: ``python scripts/eventsource_resume.py`` (needs ``node`` and ``npm``: it installs
the version pinned in ``scripts/eventsource/package.json`` into that folder's
``node_modules/``, git-ignored, once).  For each case a mock server serves a resumable
stream whose first call a fault cuts; the Node client reads until it has every event,
reconnecting on its own; the journal then says what it did (``mock.assert_resumed()``),
and a Markdown table of the results is printed (``docs/browsers.md`` shows it).

Cases: a fixed stream cut after event 2 (``close_after_events``), one whose fourth event
is cut in the middle (``truncate_event(3)``: not delivered, so the client resumes from 3), and
a ``pushed()`` stream cut after 2 of the 3 events pushed, which the test goes on pushing
into after the reconnect.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mockhttp
from mockhttp import Event, fault

HERE = Path(__file__).resolve().parent / "eventsource"
RETRY_MS = 300
TOKENS = [f"token {i}" for i in range(1, 6)]
Found = tuple[mockhttp.ActiveMock, dict[str, Any]]  # the mock, and what the client got
Case = Callable[[mockhttp.Server], Found]


@dataclass
class Result:
    case: str
    got: list[str]
    resumed_with: str | None
    after_cut: float | None
    verdict: str


def install() -> str:
    """The installed ``eventsource`` version (installing it first if needed)."""
    if not (HERE / "node_modules" / "eventsource").exists():
        npm = shutil.which("npm")
        if npm is None:
            raise SystemExit("npm is needed to install the eventsource package")
        subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--silent"], cwd=HERE, check=True
        )
    meta = HERE / "node_modules" / "eventsource" / "package.json"
    return str(json.loads(meta.read_text())["version"])


def read(url: str, want: int) -> dict[str, Any]:
    done = subprocess.run(
        ["node", "read.mjs", url, str(want)], cwd=HERE, capture_output=True, text=True, timeout=30
    )
    if done.returncode != 0:
        raise SystemExit(f"node failed:\n{done.stderr}")
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def fixed(
    cut: fault.Fault,
) -> Callable[[mockhttp.Server], tuple[mockhttp.ActiveMock, dict[str, Any]]]:
    def run(server: mockhttp.Server) -> Found:
        events = [Event(data=t) for t in TOKENS]
        reply = mockhttp.ok().event_stream(*events, resumable=True, retry=RETRY_MS)
        mock = server.mock(mockhttp.get("/events").reply(reply).pipe(fault.first(1, cut)))
        return mock, read(server.url_for("/events"), len(TOKENS))

    return run


def pushed(server: mockhttp.Server) -> Found:
    """The test feeds the stream: 3 events (the cut comes after 2), then 2 more once the
    client is back."""
    reply = mockhttp.pushed(resumable=True, retry=RETRY_MS)
    cut = fault.first(1, fault.close_after_events(2))
    mock = server.mock(mockhttp.get("/events").reply(reply).pipe(cut))
    found: dict[str, Any] = {}
    client = threading.Thread(
        target=lambda: found.update(read(server.url_for("/events"), len(TOKENS)))
    )
    client.start()
    mock.wait_connected(timeout=20)
    mock.push(*(Event(data=t) for t in TOKENS[:3]))
    mock.wait_connected(2, timeout=20)
    mock.push(*(Event(data=t) for t in TOKENS[3:]))
    client.join(30)
    mock.close()
    return mock, found


CASES = {
    "fixed stream, `close_after_events(2)`": fixed(fault.close_after_events(2)),
    "fixed stream, `truncate_event(3)` (event 4 half sent)": fixed(fault.truncate_event(3)),
    "`pushed(resumable=True)`, cut after 2": pushed,
}


def run_case(
    name: str, run: Callable[[mockhttp.Server], tuple[mockhttp.ActiveMock, dict[str, Any]]]
) -> Result:
    with mockhttp.Server() as server:
        mock, found = run(server)
        mock.calls[-1].wait()
        got = [str(m["data"]) for m in found.get("got", [])]
        second = mock.calls[1] if len(mock.calls) > 1 else None
        try:
            mock.assert_resumed()  # the right id, not before retry:, each event once
            verdict = "resumed correctly" if got == TOKENS else f"got {got}"
        except mockhttp.VerificationError as exc:
            verdict = " / ".join(str(exc).splitlines()[1:3])
        return Result(
            name,
            got,
            None if second is None else second.last_event_id,
            None if second is None else second.after_cut,
            verdict,
        )


def main() -> int:
    version = install()
    results = [run_case(name, run) for name, run in CASES.items()]
    print(f"Node {_node()}, eventsource {version}; retry: {RETRY_MS} ms\n")
    print("| stream | events received | reconnected with | after the cut | journal |")
    print("|---|---|---|---|---|")
    for r in results:
        waited = "-" if r.after_cut is None else f"{r.after_cut * 1000:.0f} ms"
        print(
            f"| {r.case} | {len(r.got)} of {len(TOKENS)}, in order, once each "
            if r.got == TOKENS
            else f"| {r.case} | {r.got} ",
            end="",
        )
        print(f"| `Last-Event-ID: {r.resumed_with}` | {waited} | {r.verdict} |")
    return 0 if all(r.verdict == "resumed correctly" for r in results) else 1


def _node() -> str:
    return subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()


if __name__ == "__main__":
    sys.exit(main())
