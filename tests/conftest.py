from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

import mockhttp

pytest_plugins = ["tests.helpers.open_clients"]

# Hypothesis's two clocks are timing assertions without a margin: a 200 ms deadline per
# example, and the "input generation is slow" health check (1 s), which a loaded machine
# failed.  The suite keeps neither; the properties are checked as before.
# ``HYPOTHESIS_PROFILE=fast`` (the inner loop, docs/contributing.md): 10 examples a property.
settings.register_profile("mockhttp", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("fast", settings.get_profile("mockhttp"), max_examples=10)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "mockhttp"))

# The ``slow`` tests (``pytest -m "not slow"`` leaves them out: docs/contributing.md): those
# that start processes or real programs (a browser, Node, agent frameworks, --workers), and
# long matrices.  Paths relative to the repository; a folder takes everything in it.
SLOW = (
    "tests/browser/",
    "tests/docs/",
    "tests/cli/test_cli.py",
    "tests/cli/test_container.py",
    "tests/cli/test_defaults.py",
    "tests/cli/test_hardening.py",
    "tests/cli/test_http2.py",
    "tests/cli/test_isolation_workers.py",
    "tests/plugin/test_isolation.py",
    "tests/cli/test_no_secret.py",
    "tests/cli/test_tls.py",
    "tests/cli/test_ui.py",
    "tests/cli/test_watch_keeps_good_mocks.py",
    "tests/agui/test_node_client.py",
    "tests/agui/test_differential.py",
    "tests/contract/test_cli.py",
    "tests/contract/test_hardening.py",
    "tests/contract/test_live_apis.py",
    "tests/contract/test_html.py",
    "tests/core/test_registry.py",
    "tests/core/test_paths.py",
    "tests/llm/test_agents.py",
    "tests/llm/test_capacity_workers.py",
    "tests/llm/test_workers_conversations.py",
    "tests/llm/test_files.py",
    "tests/llm/test_matchers.py",
    "tests/llm/test_quirk_clients.py",
    "tests/mcp/test_conformance.py",
    "tests/mcp/test_client_verdicts.py",
    "tests/mcp/test_workers.py",
    "tests/a2a/test_workers.py",
    "tests/mockfile/test_clients.py",
    "tests/mockfile/test_file_limits.py",
    "tests/mockfile/test_properties.py",
    "tests/plugin/test_scopes.py",
    "tests/record/test_cli.py",
    "tests/record/test_missing.py",
    "tests/record/test_stop.py",
    "tests/server/test_workers.py",
    "tests/server/test_workers_state.py",
    "tests/server/test_workers_metrics.py",
    "tests/server/test_admin_stall.py",
    "tests/server/test_miss_stall.py",
    "tests/server/test_hardening_arrival.py",
    "tests/server/test_h2_bounds.py",
    "tests/test_layers.py",
    "tests/otel/test_agents.py",
    "tests/otel/test_serve.py",
)
_ROOT = Path(__file__).resolve().parents[1]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        where = item.path.relative_to(_ROOT).as_posix() if item.path.is_relative_to(_ROOT) else ""
        if where.startswith(SLOW):
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def server() -> Iterator[mockhttp.Server]:
    """A fresh server for one test."""
    with mockhttp.Server() as s:
        yield s


@pytest.fixture(params=["uvloop", "asyncio"])
def default_loop(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The test runs with ``loop="auto"`` (every server's default) meaning this loop, once
    each: ``auto`` picks uvloop where it is installed (the test extra installs it), and a
    plain install runs asyncio's loop, so a module marked with this fixture
    (``pytestmark = pytest.mark.usefixtures("default_loop")``) runs on both."""
    from mockhttp._server import _server

    name: str = request.param
    if name == "uvloop":
        pytest.importorskip("uvloop")
    chosen = _server.loop_factory

    def factory(choice: Any) -> Any:
        return chosen(name if choice == "auto" else choice)

    monkeypatch.setattr(_server, "loop_factory", factory)
    return name


@pytest.fixture
def pytester(pytester: pytest.Pytester) -> pytest.Pytester:
    """pytester, with an ini file that sets what common plugins (pytest-asyncio) ask for,
    as a user's project would."""
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    return pytester
