"""Client verdicts on @ag-ui/client's HttpAgent (Node, the pinned 1.0.0): after a run that
breaks, did it run again or surface RUN_ERROR (``verdicts.agui_recovered``)?  A stall it
notices by its own abort, which it turns into RUN_ERROR: recovered.  A cut mid-stream it
does neither: runAgent() rejects with undici's bare ``TypeError: terminated``, which the
verdict names."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

import mockhttp
from mockhttp import agui, fault, verdicts
from tests.helpers.agui_differential import reference_missing

HERE = Path(__file__).resolve().parents[2] / "scripts" / "agui"
pytestmark = pytest.mark.skipif(reference_missing() is not None, reason=str(reference_missing()))


def run(broken: fault.Fault, abort_ms: int) -> tuple[dict[str, Any], verdicts.Verdict]:
    with mockhttp.Server() as server:
        server.mock(agui.run(agui.text("Hello there, friend")).mock("/agent").pipe(broken))
        done = subprocess.run(
            ["node", str(HERE / "recover.mjs"), server.url + "/agent", str(abort_ms)],
            capture_output=True, text=True, timeout=60, cwd=HERE, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        said: dict[str, Any] = json.loads(done.stdout)
        for call in server.journal:
            call.wait()
        (verdict,) = verdicts.judge(server.journal, verdicts.agui_recovered(said["surfaced"]))
    return said, verdict


def test_a_stall_is_surfaced_as_run_error() -> None:
    said, verdict = run(fault.stall(after_events=2), abort_ms=1000)
    assert said["surfaced"][-1] == "RUN_ERROR"
    assert verdict.passed, str(verdict)


def test_a_cut_is_neither_retried_nor_surfaced() -> None:
    said, verdict = run(fault.close_after_events(3), abort_ms=20_000)  # the cut comes long before
    assert said["ended"] == "rejected: TypeError: terminated"
    assert "RUN_ERROR" not in said["surfaced"]
    assert not verdict.passed
    assert verdict.explanation == (
        "after the cut of call 1 (POST /agent) the client neither ran again nor surfaced RUN_ERROR"
    )
