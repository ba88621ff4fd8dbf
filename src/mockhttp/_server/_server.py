"""The server: an asyncio.Protocol on its own loop in a background thread.

Request bytes are parsed by httptools (llhttp); response bytes come from a plan
(``_reply`` → faults → ``_wire.frame`` → faults) run by ``Runner``, which writes ``Raw``
steps, waits out ``Pause`` steps on absolute deadlines (``loop.call_at``), and ends the
connection as ``End`` says.

Rule 1: everything that touches a socket runs on the loop thread.  Other threads change the
registry (mocks) under a lock, by publishing immutable versions that the loop reads
without it (``_ranked.py``).
Rule 2: a bad request never takes the server down: it gets a 400/413/431 and the
connection closes; errors raised while producing a reply are kept in ``server.errors``
and re-raised by ``server.check()``.
"""

from __future__ import annotations

import asyncio
import itertools
import ssl
import threading
from collections import deque
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, overload

from .._core._cors import Cors, cors_policy
from .._core._errors import ConfigError, ServerError
from .._core._isolation import TEST_HEADER
from .._core._kept import Memory
from .._core._mock import Mock
from .._core._plan import Fault
from .._core._registry import ReplyKind
from .._core._reply import Reply
from .._core._request import Request
from ._accept import Listener
from ._answer import EXPLAINED_ON_LOOP, Answers, Router
from ._budget import LIBRARY_DEFAULT
from ._builtin import HEALTH_PATH, builtins
from ._connection import Connection
from ._journal import PACKS_PLAIN, Call, CallList, Journal
from ._lane import Hit, Lane
from ._loop import LOOPS, LoopChoice, loop_factory, loop_name
from ._metrics import metrics_reply, require
from ._ranked import Ranked, mocks_of
from ._runner import Plan
from ._serving import (
    bind,
    certs_of,
    check_args,
    check_seconds,
    require_h2,
    serve,
    shut_down,
    url_of,
)
from ._shared import SharedKept, StateChannel, move_scenario, scenario_in
from ._tests import ScopedServer, attach, scoped
from ._tls import TLSChoice, certs_for, client_context
from ._verify import ActiveMock, Verifying, named
from ._wires import UNCHUNKED, Framing

if TYPE_CHECKING:
    from . import _otel

__all__ = ["EXPLAINED_ON_LOOP", "HEALTH_PATH", "LOOPS", "LoopChoice", "Server", "loop_factory"]

_PREFLIGHTS = 10_000  # preflights kept in ``server.preflights``


class Server(Verifying):
    """A mock HTTP/1.1 server on 127.0.0.1 and a free port, in a background thread.

    Use it as a context manager (``with Server() as server:`` or ``async with``), or call
    :meth:`start` and :meth:`close`.  Register mocks with :meth:`mock`; read every request
    in :attr:`journal`.

    Args (each page of ``docs/`` says more):
        host, port: where to listen (port 0: a free one); backlog: the listen backlog.
        unmatched_status: the status sent when no mock matches (404).
        on_call_end: called on the server thread with each finished :class:`Call`.
        admin: serve the admin API under ``/__mockhttp/`` (``docs/cli.md``).
        journal_limit: keep the newest this many calls (None: all; counts stay exact).
        journal_bytes: keep finished calls' bodies up to this many bytes (256 MiB; None:
            all); past it the oldest go, their lengths and SHA-256 kept in ``call.dropped``.
        header_timeout: seconds a head may take, and a body pause (10): then a 408.
        idle_timeout: seconds a connection may wait for its next request (300).
        loop: ``"auto"`` (uvloop when installed), ``"asyncio"``, ``"uvloop"``, or a
            function that returns a new loop (``docs/performance.md``).
        reuse_port: set ``SO_REUSEPORT``: several processes serve the port (``--workers``).
        cors: True (any origin), an origin or a list: preflights answered (kept in
            :attr:`preflights`), ``Access-Control-Allow-Origin`` sent (``docs/browsers.md``).
        metrics: answer ``GET /metrics`` under vLLM's names (``docs/load-testing.md``).
        tls: https with a CA made for the run (:attr:`ca_path`, :meth:`ssl_context`) or
            the folder of an earlier run's ``ca.pem`` and ``server.pem`` (``docs/tls.md``).
        http2: serve HTTP/2 too, by ALPN under ``tls`` and h2c (``docs/tls.md``).
        otel: a span per call, GenAI conventions: True (``OTEL_*``) or a
            ``TracerProvider`` (``docs/telemetry.md``).
        test_header: the header that names a request's test (:meth:`test`; None: no
            test ids, by header or ``/__test/ID/`` prefix; ``docs/isolation.md``).
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        unmatched_status: int = 404,
        backlog: int = 4096,
        on_call_end: Callable[[Call], None] | None = None,
        admin: bool = False,
        journal_limit: int | None = None,
        journal_bytes: int | None = LIBRARY_DEFAULT,
        header_timeout: float = 10.0,
        idle_timeout: float = 300.0,
        loop: LoopChoice = "auto",
        reuse_port: bool = False,
        cors: bool | str | Sequence[str] | None = None,
        metrics: bool = False,
        tls: TLSChoice = False,
        http2: bool = False,
        otel: Any = False,
        test_header: str | None = TEST_HEADER,
    ) -> None:
        counts = {"journal_limit": journal_limit, "journal_bytes": journal_bytes}
        check_args(host, port, unmatched_status, counts)
        check_seconds((("header_timeout", header_timeout), ("idle_timeout", idle_timeout)))
        if http2:
            require_h2()
        if metrics:
            require()
        self.http2, self.metrics, self.reuse_port = bool(http2), bool(metrics), reuse_port
        self._tls = certs_for(tls, host)
        self._handshakes: set[asyncio.Transport] = set()
        self.preflights: deque[Call] = deque(maxlen=journal_limit or _PREFLIGHTS)
        self._new_loop = loop_factory(loop)
        self.journal_limit, self.journal_bytes = journal_limit, journal_bytes
        self.header_timeout, self.idle_timeout = float(header_timeout), float(idle_timeout)
        self._journal = Journal(journal_limit, journal_bytes)
        self.host, self.port, self.backlog = host, port, backlog
        self.unmatched_status, self.on_call_end = unmatched_status, on_call_end
        # called on the server thread with each mock's call, its reply, faults and index,
        # before it is planned (the dashboard's ``_watch.Watch``); None: nobody watches
        self.on_call_start: Callable[[Call, Reply, tuple[Fault, ...], int], None] | None = None
        self.errors: list[BaseException] = []
        numbers = itertools.count(1).__next__  # the mocks' (a test's too: ``_tests``)
        self._ranked = Ranked(numbers)  # the mocks (read them as ``self._active``)
        self._router = Router(self._ranked)  # the route, the scenario states (_answer.py)
        self._tests = attach(self, self._router, test_header, numbers)  # (``_tests``)
        self._answers = Answers(self, self._router)  # what follows the route (_answer.py)
        self._admin: Callable[[Request], Reply] | None = None
        # ``GET /metrics`` answered by another (``serve --workers``: the supervisor's
        # merge, ``_workers.ForwardingMetrics``), on the admin thread; None: this process's
        self.metrics_source: Callable[[Request], Reply] | None = None
        self._policy = cors_policy(cors)
        self.admin = None
        if admin:
            from ._admin import AdminAPI

            self.admin = AdminAPI(self)
        # answers kept for requests that get them again (``_lane.py``): not with CORS,
        # whose headers depend on the request's Origin
        self._lane: Lane | None = Lane(self._ranked) if self._cors is None and PACKS_PLAIN else None
        self._answers.lane = self._lane
        # journal a request the lane answers (``Answers.known``; the parser's ``Known``)
        self._known: Callable[[Hit, list[tuple[str, str]]], None] = self._answers.known
        # a call's reply has ended, however it ended (``Answers.finished``; the runner's)
        self._finished: Callable[[Call], None] = self._answers.finished
        self._tracing: _otel.Tracing | None = None
        if otel is not False and otel is not None:
            from ._otel import trace  # (only when on: nothing of it loaded when off)

            scheme = "http" if self._tls is None else "https"
            address = lambda: (self.host, self.port, scheme)  # noqa: E731
            self._tracing, self._finished = trace(otel, address, self._finished, self.errors)
            self._lane = self._answers.lane = None  # (``_otel`` Rule 1)
        self._started = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._listener: asyncio.base_events.Server | Listener | None = None
        self._connections: set[Connection] = set()  # (and HTTP/2's: _h2.Http2Connection)
        self._fds_warned = -1.0  # when running out of descriptors was last logged

    # -- lifecycle ----------------------------------------------------------------------

    def start(self) -> Server:
        """Bind and start serving; returns the server.

        Raises:
            ServerError: the address cannot be bound, or the server is already running."""
        if self._thread is not None:
            raise ServerError("server is already running")
        sock = bind(self.host, self.port, self.reuse_port)
        self.port = sock.getsockname()[1]
        self._started = True
        self._loop, self._thread = serve(self, sock)
        return self

    def close(self, timeout: float = 5.0) -> bool:
        """Stop serving: close the listener and every open connection (streams end).

        Waits up to ``timeout`` seconds for the server's (daemon) thread to stop, which a
        handler stuck on it keeps; returns False when it was still running then."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return True
        self._thread = None
        stopped = shut_down(self, loop, thread, timeout)
        if self._tracing is not None:
            self._tracing.close()
        return stopped

    def __enter__(self) -> Server:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> Server:
        return self.start()

    async def __aexit__(self, *exc: object) -> None:
        await asyncio.to_thread(self.close)

    def _on_its_loop(self) -> bool:
        """True on the server's own loop thread (a blocking wait there would freeze it)."""
        return self._thread is not None and threading.current_thread() is self._thread

    @property
    def admin(self) -> Callable[[Request], Reply] | None:
        """The admin API under ``/__mockhttp/`` (None: none), a route of its own."""
        return self._admin

    @admin.setter
    def admin(self, admin: Callable[[Request], Reply] | None) -> None:
        self._admin = admin
        self._front()

    @property
    def _cors(self) -> Cors | None:
        """The CORS policy (``cors=``): preflights are a route of their own."""
        return self._policy

    @_cors.setter
    def _cors(self, policy: Cors | None) -> None:
        self._policy = policy
        self._front()

    def _front(self) -> None:
        """Rank the server's own endpoints above the mocks, as configured now."""
        count = lambda: len(self._ranked.snapshot())  # noqa: E731
        metrics = metrics_reply if self.metrics else None
        self._answers.cors = self._policy
        found = builtins(count, admin=self._admin is not None, cors=self._policy, metrics=metrics)
        self._router.front = found

    def share(self, channel: StateChannel) -> None:
        """Keep the mocks' and the kinds' state in ``channel``'s supervisor (``_shared``)."""
        self._router.tally = channel
        self._answers.done, self._router.kept = channel.done, SharedKept(channel)
        self._tests.channel = channel  # (each test's state there too)

    @property
    def loop_name(self) -> str | None:
        """The loop it serves on, ``"uvloop"`` or ``"asyncio"`` (None before :meth:`start`)."""
        return None if self._loop is None else loop_name(self._loop)

    @property
    def running(self) -> bool:
        """True between :meth:`start` and :meth:`close`."""
        return self._thread is not None

    @property
    def url(self) -> str:
        """The base URL, e.g. ``http://127.0.0.1:54321``.

        Raises:
            ServerError: the server was never started (its port is not known yet).
        """
        return url_of(self.host, self.port if self._started else None, self._tls)

    @property
    def ca_path(self) -> str:
        """The PEM file of the run's CA (``tls=True``): what clients trust
        (``SSL_CERT_FILE``, ``NODE_EXTRA_CA_CERTS``, ``REQUESTS_CA_BUNDLE``).

        Raises:
            ServerError: the server does not serve https.
        """
        return str(certs_of(self._tls).ca_path)

    def ssl_context(self) -> ssl.SSLContext:
        """A client's ``ssl.SSLContext`` that trusts the run's CA, e.g.
        ``httpx.Client(verify=server.ssl_context())``.

        Raises:
            ServerError: the server does not serve https.
        """
        return client_context(certs_of(self._tls).ca_path)

    def url_for(self, path: str) -> str:
        """``url`` + ``path``."""
        return self.url + (path if path.startswith("/") else "/" + path)

    # -- mocks ----------------------------------------------------------------------------

    @overload
    def mock(self, mock: Mock | ReplyKind, /) -> ActiveMock: ...

    @overload
    def mock(self, mock: Sequence[Mock], /) -> list[ActiveMock]: ...

    @overload
    def mock(
        self, mock: Mock | ReplyKind, second: Mock | ReplyKind, /, *more: Mock | ReplyKind
    ) -> list[ActiveMock]: ...

    def mock(
        self, mock: Mock | ReplyKind | Sequence[Mock], /, *more: Mock | ReplyKind
    ) -> ActiveMock | list[ActiveMock]:
        """Register ``mock``; returns its handle (``.calls``, ``assert_called()``, ...).

        Several mocks (``server.mock(a, b)``, or a list such as ``mockhttp.load(...)``
        returns) are registered in order, and their handles returned as a list.  A reply
        kind that stands alone (``llm.conversation(...)``) is registered as its own mock.

        When several mocks match a request, the highest ``priority`` wins, and among
        equal priorities the most recently added one.
        """
        single = isinstance(mock, Mock | ReplyKind)
        mocks = [*([mock] if single else _mock_list(mock)), *more]
        several = not single or bool(more)
        added = self._add(mocks)
        return added if several else added[0]

    def _add(self, mocks: Sequence[Mock]) -> list[ActiveMock]:  # O(1) each (``_ranked``)
        return self._ranked.add(mocks_of(mocks), self)

    def replace(self, old: Sequence[ActiveMock], new: Sequence[Mock]) -> list[ActiveMock]:
        """Swap mocks at once: ``old`` go, ``new`` come in their place.

        The new mocks rank where the old ones did (among mocks of equal priority, mocks
        added after the old ones still win), so reloading a file does not put its mocks
        above those added since.  No request sees a moment with neither.
        """
        created, dropped = self._ranked.swap(old, mocks_of(new), self)
        self._forget(dropped)
        return created

    @property
    def _active(self) -> tuple[ActiveMock, ...]:
        """The mocks in the order they are tried: an immutable snapshot, read lock-free
        (rebuilt by the first reader after a change, then the same tuple until the next)."""
        return self._ranked.snapshot()

    def remove(self, active: ActiveMock) -> None:
        """Unregister a mock (its calls stay readable)."""
        with self._ranked.lock:
            self._forget(self._ranked.change((), (active,)))

    def _forget(self, ids: set[int]) -> None:
        """Drop the cached wire plans of the replies (by ``id``) no registered mock gives
        any more (on the loop while it runs)."""
        loop = self._loop if self._thread is not None else None
        self._answers.forget(ids, self._tests.gives_any, loop)  # (a test's mock may give it)

    @property
    def mocks(self) -> tuple[ActiveMock, ...]:
        """The registered mocks, in the order they are tried."""
        return self._active

    def named(self, name: str) -> ActiveMock:
        """The handle of the mock named ``name`` (``name:`` in a mock file, ``name=`` in
        Python): ``server.named("chat").assert_called_once()`` for mocks loaded from files.

        Raises:
            UnknownNameError: no registered mock has that name (did you mean ...).
            ConfigError: several have.
        """
        return named(self._ranked.named(name) or self._active, name)

    def test(self, test_id: str) -> ScopedServer:
        """The server as test ``test_id`` sees it (its requests send ``.headers``): its
        own mocks, journal, unmatched, scenarios, reset (``docs/isolation.md``).

        Raises:
            ConfigError: ``test_id`` cannot be a test id, or ``test_header=None``."""
        return scoped(self._tests, test_id)

    def reset(self) -> None:
        """Remove every mock, clear the journal and errors, and put every scenario back
        in its ``"Started"`` state; every test (:meth:`test`) is forgotten too."""
        self._tests.clear()
        with self._ranked.lock:
            self._forget(self._ranked.clear())
        self._journal = Journal(self.journal_limit, self.journal_bytes)
        self.errors = []
        self._router.states = {}
        if type(self._router.kept) is Memory:  # (the supervisor's: its own reset)
            self._router.kept = Memory()

    def clear_journal(self) -> None:
        """Forget every call, keeping the mocks: the journal, the errors, and each mock's
        calls and count (so ``times`` and ``replies`` start over) are emptied; every
        test's too."""
        self._tests.clear_journals()
        with self._ranked.lock:
            for active in self._active:
                active._forget()
        self._journal = Journal(self.journal_limit, self.journal_bytes)
        self.errors = []

    def reset_scenarios(self) -> None:
        """Put every scenario back in its ``"Started"`` state (the mocks stay)."""
        self._router.states = {}

    def scenario_state(self, name: str) -> str:
        """The current state of scenario ``name`` (``"Started"`` at first)."""
        return scenario_in(self._router.states, self._tests.channel, None, name)

    def set_scenario_state(self, name: str, state: str) -> None:
        """Move scenario ``name`` to ``state`` (a test that starts mid-conversation);
        under ``serve --workers``, for every worker (the supervisor's state)."""
        states = self._router.states
        self._router.states = move_scenario(states, self._tests.channel, None, name, state)

    # -- verification ---------------------------------------------------------------------

    @property
    def journal(self) -> CallList:
        """Every call the server received, oldest first."""
        return self._journal.calls

    def _tried(self) -> list[Mock]:
        return [a.mock for a in self._active]

    def _dispatch(
        self, request: Request, keep_alive: bool, tested: bool = True
    ) -> tuple[Call, Plan]:
        """The call to journal and the wire plan to run for ``request``: route → journal →
        plan (``_answer.py``; the server's own endpoints are routes: ``_builtin.py``).
        ``tested``: a field may name its test (False: only its target may; ``_http1``)."""
        routed = self._router.route(request, tested)
        call = self._answers.journal(routed)
        # HTTP/2 frames a body as HTTP/1.0 does, without transfer coding (``_h2.py``)
        framing = Framing(request.method == "HEAD", request.http_version in UNCHUNKED, keep_alive)
        return call, self._answers.plan(routed, call, framing)


def _mock_list(value: Any) -> list[Any]:
    if isinstance(value, list | tuple):
        return list(value)
    raise ConfigError(f"mock={value!r} must be a Mock or a list of mocks (mockhttp.load(...))")
