"""@ag-ui/client's HttpAgent (Node, the pinned 1.0.0) reads the mock's runs over loopback:
scripts/agui/client.mjs against scripts/agui/agui.yaml (the cases scripts/agui_client.sh
runs), served here in-process: a full run, RUN_ERROR, a dropped connection, a cut, a
stall, a duplicate terminal event, every event type, several runs on one stream and a
run that fails before it starts."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import mockhttp
from tests.helpers.agui_differential import reference_missing

HERE = Path(__file__).resolve().parents[2] / "scripts" / "agui"


@pytest.mark.skipif(reference_missing() is not None, reason=str(reference_missing()))
def test_the_reference_client_reads_every_case() -> None:
    with mockhttp.Server() as server:
        for mock in mockhttp.load(HERE / "agui.yaml"):
            server.mock(mock)
        done = subprocess.run(
            ["node", str(HERE / "client.mjs"), server.url],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=HERE,
        )
    lines = done.stdout.splitlines()
    assert done.returncode == 0, done.stdout + done.stderr
    assert lines[-1] == "PASS: 9 cases"
    said = {line.split(":")[0]: line for line in lines[:-1]}
    assert "Third run, after RUN_ERROR" in said["PASS runs"]
    assert "activity: search" in said["PASS everything"]
    assert "(RUN_ERROR: agent unavailable)" in said["PASS error-first"]
