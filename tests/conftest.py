from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

import mockhttp

# Hypothesis's two clocks are timing assertions without a margin: a 200 ms deadline per
# example, and the "input generation is slow" health check (1 s), which a loaded machine
# failed.  The suite keeps neither; the properties are checked as before.
settings.register_profile("mockhttp", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("mockhttp")


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
