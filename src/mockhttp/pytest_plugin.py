"""The pytest plugin: mock servers as fixtures, for every scope.

Registered through the ``pytest11`` entry point, so installing mockhttp makes the fixtures
available:

- ``mockhttp_server`` (function scope): a running server, emptied before each test;
- ``mockhttp_module_server`` and ``mockhttp_session_server``: one server per module or per
  session, whose mocks survive from test to test (``reset_journal=True`` forgets the
  calls before each test);
- ``mockhttp_test``: this test's own part of the session server (per-test isolation,
  ``docs/isolation.md``): its mocks, journal and reset, for requests that send
  ``mockhttp_test.headers`` (or go under ``mockhttp_test.prefix_url``); its id,
  ``mockhttp_test_id``, holds the xdist worker's id and a hash of the test's node id, so
  it is unique across workers on a server they share (a ``mockhttp serve``).

After each test that used one of them, the test fails if a request reached the server that
no mock matched (or a reply raised); the marker ``@pytest.mark.mockhttp(...)`` sets the
options.  Everything here is also possible with ``with mockhttp.Server() as server:``.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from ._server._server import Server
    from ._server._tests import ScopedServer


_MARKER_OPTIONS = {
    "allow_unmatched",
    "assert_all_called",
    "admin",
    "cors",
    "mockfile",
    "reset_journal",
    "tls",
}
_SHARED = ("mockhttp_module_server", "mockhttp_session_server")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mockhttp")
    group.addoption(
        "--mockhttp-ui",
        nargs="?",
        const=0.0,
        default=None,
        type=float,
        metavar="SECONDS",
        help="serve the dashboard (/__mockhttp/ui/: the journal live, stream timelines) on "
        "the mockhttp fixtures' servers and print its URL; SECONDS: keep the servers up "
        "that long after the last test, to look (Ctrl-C ends the wait)",
    )


def _dashboard(server: Server, config: pytest.Config) -> None:
    """With ``--mockhttp-ui``: the admin API on for the whole run, watched from the start,
    its dashboard's URL printed."""
    if config.getoption("mockhttp_ui", None) is None:
        return
    from ._server._admin import AdminAPI
    from ._server._dashboard import UI_PATH
    from ._server._watch import watch_of

    if server.admin is None:
        server.admin = AdminAPI(server)
    watch_of(server).install()
    _say(config, f"mockhttp: dashboard at {server.url}{UI_PATH}")


def _held(config: pytest.Config) -> None:
    """With ``--mockhttp-ui=SECONDS``: keep the server up that long (the end of a fixture)."""
    seconds = config.getoption("mockhttp_ui", None)
    if not seconds:
        return
    import contextlib
    import time

    _say(config, f"mockhttp: the dashboard stays up {seconds:g} s (Ctrl-C ends the wait)")
    with contextlib.suppress(KeyboardInterrupt):
        time.sleep(seconds)


def _say(config: pytest.Config, line: str) -> None:
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(line)
    else:
        import sys

        print(line, file=sys.__stderr__, flush=True)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "mockhttp(allow_unmatched=False, assert_all_called=False, admin=False, cors=None, "
        "mockfile=None, reset_journal=False): options for the mockhttp fixtures; "
        "allow_unmatched=True keeps unmatched requests from failing the test; "
        "assert_all_called=True fails it when a mock was never called; admin=True serves the "
        "admin API (/__mockhttp/) during the test; cors=True (or an origin, or a list of "
        "them) lets web pages from other origins call the mocks during the test; "
        "mockfile='mocks/' loads mock files (a path relative to the test's file) "
        "first; reset_journal=True forgets a module or session server's calls (and resets "
        "its scenarios) before the test; tls=True gives mockhttp_server over https (a "
        "throwaway CA: server.ca_path, server.ssl_context()).",
    )


@pytest.fixture(scope="session")
def mockhttp_listen_address() -> tuple[str, int]:
    """Where ``mockhttp_server`` listens: ``("127.0.0.1", 0)`` (a free port).

    Override this fixture (session scope) to choose another address.
    """
    return ("127.0.0.1", 0)


@pytest.fixture(scope="session")
def _mockhttp_function_server(
    mockhttp_listen_address: tuple[str, int], pytestconfig: pytest.Config
) -> Iterator[Server]:
    """The server behind ``mockhttp_server``: started once, emptied before each test."""
    from ._server._server import Server

    host, port = mockhttp_listen_address
    with Server(host, port) as server:
        _dashboard(server, pytestconfig)
        yield server
        _held(pytestconfig)


@pytest.fixture(scope="session")
def _mockhttp_tls_server(mockhttp_listen_address: tuple[str, int]) -> Iterator[Server]:
    """``mockhttp_server`` under ``@pytest.mark.mockhttp(tls=True)``: https, its own port
    (``mockhttp_listen_address``'s host), started at the first such test."""
    from ._server._server import Server

    with Server(mockhttp_listen_address[0], tls=True) as server:
        yield server


@pytest.fixture(scope="session")
def mockhttp_session_server(pytestconfig: pytest.Config) -> Iterator[Server]:
    """A server for the whole session (a free port): mocks added to it stay for the
    tests that follow.  Add them in a session fixture of your own."""
    from ._server._server import Server

    with Server() as server:
        _dashboard(server, pytestconfig)
        yield server
        _held(pytestconfig)


@pytest.fixture(scope="module")
def mockhttp_module_server(pytestconfig: pytest.Config) -> Iterator[Server]:
    """A server for the tests of one module (a free port): mocks added to it stay for the
    module's tests that follow.  Add them in a module fixture of your own."""
    from ._server._server import Server

    with Server() as server:
        _dashboard(server, pytestconfig)
        yield server


@pytest.fixture
def mockhttp_server(
    _mockhttp_function_server: Server, request: pytest.FixtureRequest
) -> Iterator[Server]:
    """A running mock server, empty at the start of the test.

    At teardown the test fails if a request matched no mock (unless marked
    ``@pytest.mark.mockhttp(allow_unmatched=True)``) or a reply raised an error.
    """
    options = _options(request)
    server = _mockhttp_function_server
    if options.get("tls"):
        server = request.getfixturevalue("_mockhttp_tls_server")
    server.reset()
    try:
        if options.get("mockfile"):
            from ._mockfile._load import load

            server.mock(load(request.path.parent / options["mockfile"]))
        with _watched(server, options):
            yield server
    finally:
        server.reset()


@pytest.fixture(autouse=True)
def _mockhttp_shared_servers(request: pytest.FixtureRequest) -> Iterator[None]:
    """Per-test options and checks for the module and session servers a test uses."""
    names = [name for name in _SHARED if name in request.fixturenames]
    if not names:
        yield
        return
    options = _options(request)
    if options.get("mockfile") and "mockhttp_test" not in request.fixturenames:
        pytest.fail(
            "@pytest.mark.mockhttp(mockfile=...) loads files into mockhttp_server only; "
            "for a module or session server, call server.mock(mockhttp.load(...)) in a "
            "fixture of the same scope",
            pytrace=False,
        )
    servers: list[Server] = [request.getfixturevalue(name) for name in names]
    with _watching_all(servers, options):
        yield


def node_test_id(nodeid: str, worker: str | None = None) -> str:
    """The test id of the test ``nodeid`` in the xdist ``worker`` (default: this
    process's, ``PYTEST_XDIST_WORKER``; ``main`` without xdist): ``gw0-`` and 16 hex
    digits of the node id's SHA-256, a valid test id whatever the node id holds."""
    worker = worker or os.environ.get("PYTEST_XDIST_WORKER") or "main"
    digest = hashlib.sha256(nodeid.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{worker}-{digest}"


@pytest.fixture
def mockhttp_test_id(request: pytest.FixtureRequest) -> str:
    """This test's id on a shared server (``node_test_id``): send it in the
    ``x-mockhttp-test`` header (or under ``/__test/ID/``) to a ``mockhttp serve`` that
    several test processes share, and pass it to the admin API as ``?test=ID``."""
    return node_test_id(request.node.nodeid)


@pytest.fixture
def mockhttp_test(
    mockhttp_session_server: Server, mockhttp_test_id: str, request: pytest.FixtureRequest
) -> Iterator[ScopedServer]:
    """This test's own part of the session server: mocks that answer only its requests
    (above the shared ones), its journal, unmatched list and reset.  Clients send
    ``mockhttp_test.headers`` (``default_headers=`` of an SDK) to ``mockhttp_test.url``,
    or use ``mockhttp_test.prefix_url``.  Empty at the start; at teardown the test fails
    on its own unmatched requests and reply errors, as with ``mockhttp_server``."""
    options = _options(request)
    scoped = mockhttp_session_server.test(mockhttp_test_id)
    scoped.reset()
    try:
        if options.get("mockfile"):
            from ._mockfile._load import load

            scoped.mock(load(request.path.parent / options["mockfile"]))
        yield scoped
        _check_test(scoped, options)
    finally:
        scoped.reset()


def _check_test(scoped: ScopedServer, options: dict[str, Any]) -> None:
    """Fail the test for what went wrong in its own part of the server."""
    __tracebackhide__ = True
    if scoped.errors:
        raise scoped.errors[0]
    message = None
    unmatched = scoped.unmatched
    if unmatched and not options.get("allow_unmatched", False):
        message = scoped._unmatched_report(unmatched)
    elif options.get("assert_all_called"):
        try:
            scoped.assert_all_called()
        except AssertionError as exc:
            message = str(exc)
    if message is not None:
        pytest.fail(message, pytrace=False)


def _options(request: pytest.FixtureRequest) -> dict[str, Any]:
    """The marker's options (the closest marker wins), checked."""
    marker = request.node.get_closest_marker("mockhttp")
    options = dict(marker.kwargs) if marker else {}
    unknown = sorted(set(options) - _MARKER_OPTIONS)
    if unknown or (marker and marker.args):
        pytest.fail(
            f"@pytest.mark.mockhttp takes keyword options {sorted(_MARKER_OPTIONS)}, "
            f"not {unknown or list(marker.args if marker else ())}",
            pytrace=False,
        )
    return options


class _watched:
    """Around one test: switch the options on, then check what the server saw."""

    def __init__(self, server: Server, options: dict[str, Any]) -> None:
        self.server = server
        self.options = options

    def __enter__(self) -> None:
        server, options = self.server, self.options
        if options.get("reset_journal"):
            server.clear_journal()
            server.reset_scenarios()
        self.admin, self.cors = server.admin, server._cors
        if options.get("cors") is not None:
            from ._core._cors import cors_policy

            server._cors = cors_policy(options["cors"])
        if options.get("admin") and server.admin is None:
            from ._server._admin import AdminAPI

            server.admin = AdminAPI(server)
        self.journal, self.seen = server.journal, len(server.journal)
        self.errors, self.raised = server.errors, len(server.errors)

    def __exit__(self, *exc: object) -> None:
        self.server.admin, self.server._cors = self.admin, self.cors
        if exc[0] is None:
            self.check()

    def check(self) -> None:
        """Fail the test (once, without a chained traceback) for what went wrong."""
        __tracebackhide__ = True
        server, options = self.server, self.options
        errors = server.errors[self.raised :] if server.errors is self.errors else server.errors
        if errors:
            raise errors[0]
        calls = server.journal[self.seen :] if server.journal is self.journal else server.journal
        message = None
        unmatched = [c for c in calls if c.mock is None]
        if unmatched and not options.get("allow_unmatched", False):
            message = server._unmatched_report(unmatched)
        elif options.get("assert_all_called"):
            try:
                server.assert_all_called()
            except AssertionError as exc:
                message = str(exc)
        if message is not None:
            pytest.fail(message, pytrace=False)


class _watching_all:
    def __init__(self, servers: list[Server], options: dict[str, Any]) -> None:
        self.watches = [_watched(s, options) for s in servers]

    def __enter__(self) -> None:
        for watch in self.watches:
            watch.__enter__()

    def __exit__(self, *exc: object) -> None:
        for watch in self.watches:
            watch.__exit__(*exc)
