"""The pytest plugin: a ``mockhttp_server`` fixture.

Registered through the ``pytest11`` entry point, so installing mockhttp makes the fixture
available.  One server runs for the whole session; each test gets it reset, and a test
fails at teardown if requests reached the server that no mock matched (or a reply raised).
Everything here is also possible with ``with mockhttp.Server() as server:``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from ._server import Server


_MARKER_OPTIONS = {"allow_unmatched", "mockfile"}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "mockhttp(allow_unmatched=False, mockfile=None): options for the mockhttp_server "
        "fixture; allow_unmatched=True keeps unmatched requests from failing the test; "
        "mockfile='mocks/' loads mock files (a path relative to the test's file) first.",
    )


@pytest.fixture(scope="session")
def mockhttp_listen_address() -> tuple[str, int]:
    """Where the session's server listens: ``("127.0.0.1", 0)`` (a free port).

    Override this fixture (session scope) to choose another address.
    """
    return ("127.0.0.1", 0)


@pytest.fixture(scope="session")
def mockhttp_session_server(mockhttp_listen_address: tuple[str, int]) -> Iterator[Server]:
    """The server shared by the session's tests."""
    from ._server import Server

    host, port = mockhttp_listen_address
    with Server(host, port) as server:
        yield server


@pytest.fixture
def mockhttp_server(
    mockhttp_session_server: Server, request: pytest.FixtureRequest
) -> Iterator[Server]:
    """A running mock server, empty at the start of the test.

    At teardown the test fails if a request matched no mock (unless marked
    ``@pytest.mark.mockhttp(allow_unmatched=True)``) or a reply raised an error.
    """
    server = mockhttp_session_server
    server.reset()
    marker = request.node.get_closest_marker("mockhttp")
    options = marker.kwargs if marker else {}
    unknown = sorted(set(options) - _MARKER_OPTIONS)
    if unknown or (marker and marker.args):
        pytest.fail(
            f"@pytest.mark.mockhttp takes keyword options {sorted(_MARKER_OPTIONS)}, "
            f"not {unknown or list(marker.args if marker else ())}",
            pytrace=False,
        )
    if options.get("mockfile"):
        from ._mockfile import load

        for mock in load(request.path.parent / options["mockfile"]):
            server.mock(mock)
    yield server
    allow = bool(options.get("allow_unmatched", False))
    try:
        if server.errors:
            server.check()
        if not allow and server.unmatched:
            try:
                server.check()
            except AssertionError as exc:
                pytest.fail(str(exc), pytrace=False)
    finally:
        server.reset()
