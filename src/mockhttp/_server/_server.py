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
import dataclasses
import errno
import logging
import socket
import ssl
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType
from typing import Any, overload

from .._core._cors import cors_policy
from .._core._errors import ConfigError, ServerError, UnmatchedRequestError, VerificationError
from .._core._explain import unmatched_report
from .._core._mock import STARTED, Mock, as_mock
from .._core._paths import PathIndex
from .._core._pushed import Pushed
from .._core._registry import ReplyKind
from .._core._reply import Reply, error_reply, status
from .._core._request import Request
from .._core._route import Answer, Miss, Tally, by_target, route, route_shared
from ._accept import Listener
from ._budget import LIBRARY_DEFAULT
from ._connection import Connection
from ._fds import make_room
from ._heap import BIG_BODY, release
from ._journal import PACKS_PLAIN, Call, CallList, Journal, read_back, seal, unmatched_calls
from ._lane import Hit, Key, Lane
from ._loop import LOOPS, LoopChoice, Worker, loop_factory, loop_name
from ._metrics import metrics_reply, require
from ._push import open_stream
from ._ranked import Ranked
from ._runner import Deferred, Plan, Steps, Whole
from ._tls import ByAlpn, Certs, Handshake, TLSChoice, certs_for, client_context
from ._verify import ActiveMock, named
from ._wires import Framing, WireCache

__all__ = ["HEALTH_PATH", "LOOPS", "LoopChoice", "Server", "loop_factory"]

_ADMIN_PREFIX = "/__mockhttp/"
#: The readiness probe: ``GET`` answers 200 and ``{"status": "ok", "mocks": N}`` once the
#: server listens, with or without the admin API, and needs no token (it tells nothing else).
HEALTH_PATH = "/__mockhttp/health"
_LOG = logging.getLogger("mockhttp")
_PREFLIGHTS = 10_000  # preflights kept in ``server.preflights``
_UNCHUNKED = ("1.0", "2")  # the versions whose bodies go out as they are
_OUT_OF_FDS = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)
#: An unmatched request among at most this many mocks is explained on the loop (under
#: a millisecond); among more, on the explainer thread, so that ranking them (~5 us a mock,
#: and 64 compared field by field) never holds the other connections (docs/limits.md).
EXPLAINED_ON_LOOP = 16


class Server:
    """A mock HTTP/1.1 server on 127.0.0.1 and a free port, in a background thread.

    Use it as a context manager (``with Server() as server:`` or ``async with``), or call
    :meth:`start` and :meth:`close`.  Register mocks with :meth:`mock`; read every request
    in :attr:`journal`.

    Args:
        host: address to listen on.
        port: port (0 picks a free one).
        unmatched_status: the status sent when no mock matches (404).
        backlog: the listen backlog.
        on_call_end: called on the server thread with each finished :class:`Call`
            (the CLI logs with it).
        admin: serve the admin API under ``/__mockhttp/`` (add, list and remove mocks,
            read the journal over HTTP; see ``docs/cli.md``), as ``mockhttp serve`` does.
        journal_limit: keep only the newest this many calls in :attr:`journal` and
            in each mock's ``calls`` (None: all; above 1,024, up to an eighth more between
            trims).  Counts (``call_count``, ``times``) stay exact.  For long-running
            servers; ``mockhttp serve`` keeps 10,000.
        loop: the event loop the server runs on (in its thread): ``"auto"`` (the default:
            uvloop when it is installed, measured no slower, else asyncio's; see
            ``docs/performance.md``),
            ``"asyncio"``, ``"uvloop"`` (``pip install 'mockhttp[fast]'``), or a function
            that returns a new asyncio-compatible loop.
        reuse_port: set ``SO_REUSEPORT`` on the listening socket, so that several
            processes can serve the same port (``mockhttp serve --workers``).
        journal_bytes: keep request bodies and sent reply bodies of finished calls up to
            this many bytes (256 MiB; None: all); past it the oldest are dropped, keeping
            their lengths and SHA-256 in ``call.dropped``.  ``mockhttp serve``: 64 MiB.
        header_timeout: seconds a request head may take from its first byte, and a
            request body may pause between bytes (10); past it a 408, and the connection
            closes.
        idle_timeout: seconds a connection may wait, with no reply running, for its next
            request (300) before it is closed.
        cors: let web pages from other origins call the mocks (off by default): True
            (any origin), an origin (``"http://localhost:3000"``) or a list of them.
            Preflights are answered, and every reply (streams, faults, 404s included)
            carries ``Access-Control-Allow-Origin``; the admin API never does
            (``docs/browsers.md``).  Preflights are kept in :attr:`preflights`.
        metrics: answer ``GET /metrics`` with Prometheus text under vLLM's names (the
            capacity and rate limits of ``mockhttp.llm`` replies; ``docs/load-testing.md``);
            needs ``pip install 'mockhttp[metrics]'``.
        tls: serve https with a throwaway CA made for the run (``pip install
            'mockhttp[tls]'``): clients trust :attr:`ca_path`, or take
            :meth:`ssl_context` (``docs/tls.md``).  A folder from an earlier run's
            ``tls=True`` (its ``ca.pem`` and ``server.pem``) serves with those instead.
        http2: serve HTTP/2 too (``pip install 'mockhttp[http2]'``): offered by ALPN
            beside HTTP/1.1 under ``tls``, and on plain TCP to clients that send its
            preface (h2c with prior knowledge).  Faults are per stream (``RST_STREAM``);
            the journal's ``request.http_version`` is ``"2"`` (``docs/tls.md``).
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
    ) -> None:
        if http2:
            _require_h2()
        self.http2 = bool(http2)
        self._tls = certs_for(tls, host)
        self._handshakes: set[asyncio.Transport] = set()
        self._cors = cors_policy(cors)
        self.preflights: deque[Call] = deque(maxlen=journal_limit or _PREFLIGHTS)
        self._new_loop = loop_factory(loop)
        if metrics:
            require()
        self.metrics = bool(metrics)
        self.reuse_port = reuse_port
        for name, value in (("journal_limit", journal_limit), ("journal_bytes", journal_bytes)):
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or value < 1
            ):
                raise ConfigError(f"{name}={value!r} must be a positive int or None")
        for name, seconds in (("header_timeout", header_timeout), ("idle_timeout", idle_timeout)):
            if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds <= 0:
                raise ConfigError(f"{name}={seconds!r} must be a positive number of seconds")
        self.journal_limit = journal_limit
        self.journal_bytes = journal_bytes
        self.header_timeout = float(header_timeout)
        self.idle_timeout = float(idle_timeout)
        self._journal = Journal(journal_limit, journal_bytes)
        _check_server_args(host, port, unmatched_status)
        self.host = host
        self.port = port
        self.unmatched_status = unmatched_status
        self.backlog = backlog
        self.on_call_end = on_call_end
        self.errors: list[BaseException] = []
        self.admin: Callable[[Request], Reply] | None = None
        if admin:
            from ._admin import AdminAPI

            self.admin = AdminAPI(self)
        self._ranked = Ranked()  # the mocks (read them as ``self._active``)
        # the mocks by literal path, for the snapshot they were indexed from (``_paths``)
        self._index: PathIndex[ActiveMock] = PathIndex(self._ranked.snapshot())
        # answers kept for requests that get them again (``_lane.py``): not with CORS,
        # whose headers depend on the request's Origin
        self._lane: Lane | None = Lane() if self._cors is None and PACKS_PLAIN else None
        # scenario name -> state (absent: "Started"); replaced, never changed (_route.py)
        self._states: Mapping[str, str] = {}
        # the state kept elsewhere (serve --workers: the supervisor's), or None: here
        self.tally: Tally | None = None
        self.shared_states: Callable[[], Mapping[str, str]] | None = None
        self._started = False
        self._seq = 0
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._listener: asyncio.base_events.Server | Listener | None = None
        # (and, with http2, ``_h2.Http2Connection``s: the same sweep and shutdown methods)
        self._connections: set[Connection] = set()
        self._wires = WireCache()  # the wire plans of fixed replies; loop thread only
        self._admin_worker: Worker | None = None
        self._explainer: Worker | None = None  # explains misses among many mocks
        self._fds_warned = -1.0  # when running out of descriptors was last logged

    # -- lifecycle ----------------------------------------------------------------------

    def start(self) -> Server:
        """Bind and start serving; returns the server.

        Raises:
            ServerError: the address cannot be bound, or the server is already running.
        """
        if self._thread is not None:
            raise ServerError("server is already running")
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if self.reuse_port:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            sock.bind((self.host, self.port))
        except (OSError, UnicodeError) as exc:
            sock.close()
            raise ServerError(f"cannot listen on {self.host}:{self.port}: {exc}") from None
        self.port = sock.getsockname()[1]
        self._started = True
        make_room()  # before the loop thread: growing the table later stalls it (_fds.py)
        loop = self._new_loop()
        ready = threading.Event()
        failure: list[BaseException] = []

        def serve() -> None:
            asyncio.set_event_loop(loop)
            loop.set_exception_handler(self._loop_error)
            try:
                if loop_name(loop) == "uvloop":  # (_accept.py)
                    self._listener = self._accepting(loop, sock)
                else:
                    self._listener = loop.run_until_complete(
                        loop.create_server(self._protocol(), sock=sock, backlog=self.backlog)
                    )
            except BaseException as exc:  # reported to start()
                failure.append(exc)
                ready.set()
                return
            ready.set()
            self._sweep()
            loop.run_forever()
            loop.close()

        self._loop = loop
        self._thread = threading.Thread(target=serve, name=f"mockhttp:{self.port}", daemon=True)
        self._thread.start()
        ready.wait()
        if failure:
            self._thread = None
            raise ServerError(f"cannot serve on {self.host}:{self.port}: {failure[0]}")
        return self

    def _accepting(self, loop: asyncio.AbstractEventLoop, sock: socket.socket) -> Listener:
        """uvloop: every pending connection accepted each turn, https included."""
        if self._tls is None:
            return Listener(loop, sock, self._protocol(), self.backlog)
        h2 = None
        if self.http2:
            from ._h2 import Http2Connection  # (h2 is an optional dependency)

            h2 = lambda: Http2Connection(self)  # noqa: E731
        context = self._tls.server_context(self.http2)
        by_alpn = lambda: ByAlpn(lambda: Connection(self), h2)  # noqa: E731
        return Listener(loop, sock, by_alpn, self.backlog, context, self.header_timeout)

    def _protocol(self) -> Callable[[], asyncio.Protocol]:
        """What serves a new connection: a Connection, or under TLS its handshake first."""
        h2 = None
        if self.http2:
            from ._h2 import Http2Connection, Sniff  # (h2 is an optional dependency)

            h2 = lambda: Http2Connection(self)  # noqa: E731
        if self._tls is None:
            if h2 is not None:
                return lambda: Sniff(Connection(self), h2)
            return lambda: Connection(self)
        context, pending = self._tls.server_context(self.http2), self._handshakes
        return lambda: Handshake(Connection(self), context, pending, self.header_timeout, h2)

    def close(self, timeout: float = 5.0) -> bool:
        """Stop serving: close the listener and every open connection (streams end).

        Waits up to ``timeout`` seconds for the server's thread to stop (a handler stuck
        on it keeps it; it is a daemon thread, so it does not keep the process alive).
        Returns False when the thread was still running after ``timeout``.
        """
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return True
        self._thread = None

        def shutdown() -> None:
            if self._listener is not None:
                self._listener.close()
            for conn in list(self._connections):
                conn.shutdown()
            for raw in list(self._handshakes):  # (TLS: not yet a Connection)
                raw.abort()
            loop.call_soon(loop.stop)

        loop.call_soon_threadsafe(shutdown)
        thread.join(timeout)
        for worker in (self._admin_worker, self._explainer):
            if worker is not None:
                worker.stop()
        self._admin_worker = self._explainer = None
        if self._tls is not None:
            self._tls.remove()
        return not thread.is_alive()

    def __enter__(self) -> Server:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    async def __aenter__(self) -> Server:
        return self.start()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await asyncio.to_thread(self.close)

    def _on_its_loop(self) -> bool:
        """True on the server's own loop thread (a blocking wait there would freeze it)."""
        return self._thread is not None and threading.current_thread() is self._thread

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
        if not self._started:
            raise ServerError(
                "server.url is known once the server listens: call server.start() first "
                "(or use `with mockhttp.Server() as server:`)"
            )
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'http' if self._tls is None else 'https'}://{host}:{self.port}"

    @property
    def ca_path(self) -> str:
        """The PEM file of the run's CA (``tls=True``): what clients trust
        (``SSL_CERT_FILE``, ``NODE_EXTRA_CA_CERTS``, ``REQUESTS_CA_BUNDLE``).

        Raises:
            ServerError: the server does not serve https.
        """
        return str(self._certs().ca_path)

    def ssl_context(self) -> ssl.SSLContext:
        """A client's ``ssl.SSLContext`` that trusts the run's CA, e.g.
        ``httpx.Client(verify=server.ssl_context())``.

        Raises:
            ServerError: the server does not serve https.
        """
        return client_context(self._certs().ca_path)

    def _certs(self) -> Certs:
        if self._tls is None:
            raise ServerError("this server serves plain http: Server(tls=True) serves https")
        return self._tls

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

    def _add(self, mocks: Sequence[Mock]) -> list[ActiveMock]:
        """Register ``mocks`` in one step, in O(1) each (a new mock ranks first among its
        priority; the ordered tuple is brought up to date when next read: ``_ranked.py``)."""
        mocks = [as_mock(m) for m in mocks]
        for mock in mocks:
            if not isinstance(mock, Mock):
                raise ConfigError(f"mock={mock!r} must be a Mock (mockhttp.get(...), ...)")
        with self._lock:
            added = []
            for mock in mocks:
                self._seq += 1
                added.append(ActiveMock(mock, self, self._seq))
            self._ranked.change(added, ())  # O(1); sorted in when next read (_ranked.py)
        return added

    def replace(self, old: Sequence[ActiveMock], new: Sequence[Mock]) -> list[ActiveMock]:
        """Swap mocks at once: ``old`` go, ``new`` come in their place.

        The new mocks rank where the old ones did (among mocks of equal priority, mocks
        added after the old ones still win), so reloading a file does not put its mocks
        above those added since.  No request sees a moment with neither.
        """
        for mock in new:
            if not isinstance(mock, Mock):
                raise ConfigError(f"mock={mock!r} must be a Mock (mockhttp.get(...), ...)")
        with self._lock:
            base = min((a._rank for a in old), default=0.0)
            created = []
            for i, mock in enumerate(new, 1):
                self._seq += 1
                active = ActiveMock(mock, self, self._seq)
                active._rank = base + i / (len(new) + 1)
                created.append(active)
            self._forget(self._ranked.change(created, old))
        return created

    @property
    def _active(self) -> tuple[ActiveMock, ...]:
        """The mocks in the order they are tried: an immutable snapshot, read lock-free
        (rebuilt by the first reader after a change, then the same tuple until the next)."""
        return self._ranked.snapshot()

    def remove(self, active: ActiveMock) -> None:
        """Unregister a mock (its calls stay readable)."""
        with self._lock:
            self._forget(self._ranked.change((), (active,)))

    def _forget(self, ids: set[int]) -> None:
        """Drop the cached wire plans of the replies (by ``id``) no registered mock gives
        any more."""
        if not ids:
            return
        loop = self._loop
        if loop is None or self._thread is None or loop.is_closed():
            self._drop_wires(ids)
            return
        try:
            loop.call_soon_threadsafe(self._drop_wires, ids)
        except RuntimeError:  # the loop closed meanwhile: nothing is served any more
            self._drop_wires(ids)

    def _drop_wires(self, ids: set[int]) -> None:
        for key in ids:
            if not self._ranked.gives(key):  # given again since: keep it
                self._wires.drop(key)

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

    def _named(self, name: str) -> list[ActiveMock]:
        """The registered mocks named ``name``, the first tried first (O(1): the admin API)."""
        return self._ranked.named(name)

    def _registered(self, mock_id: int) -> ActiveMock | None:
        """The registered mock whose ``id`` this is (the admin API's lookups), in O(1)."""
        return self._ranked.get(mock_id)

    def reset(self) -> None:
        """Remove every mock, clear the journal and errors, and put every scenario back
        in its ``"Started"`` state."""
        with self._lock:
            self._forget(self._ranked.clear())
        self._journal = Journal(self.journal_limit, self.journal_bytes)
        self.errors = []
        self._states = {}

    def clear_journal(self) -> None:
        """Forget every call, keeping the mocks: the journal, the errors, and each mock's
        calls and count (so ``times`` and ``replies`` start over) are emptied."""
        with self._lock:
            for active in self._active:
                active._forget()
        self._journal = Journal(self.journal_limit, self.journal_bytes)
        self.errors = []

    def reset_scenarios(self) -> None:
        """Put every scenario back in its ``"Started"`` state (the mocks stay)."""
        self._states = {}

    def scenario_state(self, name: str) -> str:
        """The current state of scenario ``name`` (``"Started"`` at first)."""
        states = self._states if self.shared_states is None else self.shared_states()
        return states.get(name, STARTED)

    def set_scenario_state(self, name: str, state: str) -> None:
        """Move scenario ``name`` to ``state`` (a test that starts mid-conversation)."""
        if not (isinstance(name, str) and name and isinstance(state, str) and state):
            raise ConfigError(f"scenario name={name!r} and state={state!r} must be text")
        self._states = {**self._states, name: state}

    # -- verification ---------------------------------------------------------------------

    @property
    def journal(self) -> CallList:
        """Every call the server received, oldest first."""
        return self._journal.calls

    @property
    def unmatched(self) -> list[Call]:
        """Calls that no mock answered."""
        return unmatched_calls(self.journal)  # compact entries are all matched ones

    def check(self) -> None:
        """Raise what went wrong on the server: errors in replies, unmatched requests.

        Raises:
            UnmatchedRequestError: some requests matched no mock (the message lists them
                with the closest mocks).
            BaseException: the first error raised while producing a reply.
        """
        __tracebackhide__ = True
        if self.errors:
            raise self.errors[0]
        unmatched = self.unmatched
        if unmatched:
            raise UnmatchedRequestError(self._unmatched_report(unmatched))

    def _unmatched_report(self, calls: Sequence[Call]) -> str:
        """What ``check()`` (and the pytest plugin) say of unmatched ``calls``."""
        return unmatched_report(calls, [a.mock for a in self._active])

    def assert_all_called(self) -> None:
        """Fail unless every registered mock answered at least one request.

        Raises:
            VerificationError: some mocks were never called (the message names them and
                lists what the server received).
        """
        __tracebackhide__ = True
        uncalled = [a for a in self._active if not a.called]
        if uncalled:
            names = "\n".join(f"  mock {a.mock.describe()}" for a in uncalled)
            raise VerificationError(
                f"{_count(len(uncalled), 'mock')} of {len(self._active)} never called:\n"
                f"{names}\n{self.journal_text()}"
            )

    def journal_text(self) -> str:
        """Every request received, one per line (used in assertion messages)."""
        if not self.journal:
            return "the server received no requests"
        lines = [f"the server received {len(self.journal)} request(s):"]
        lines.extend(f"  {i}. {c.summary()}" for i, c in enumerate(self.journal, 1))
        return "\n".join(lines)

    # -- on the loop thread ----------------------------------------------------------

    def _sweep(self) -> None:
        """Time out connections whose head (or next request) is late; runs periodically."""
        assert self._loop is not None
        now = time.monotonic()
        late = []
        for conn in self._connections:
            limit = conn.waiting()
            if limit is None:
                conn.mark = None
            elif conn.mark is None or conn.mark[0] != conn.ticks:
                conn.mark = (conn.ticks, now)  # a new wait: from now
            elif now - conn.mark[1] >= limit:
                late.append(conn)
        for conn in late:
            conn.timed_out()
        every = min(1.0, self.header_timeout / 4, self.idle_timeout / 4)
        self._loop.call_later(every, self._sweep)

    def _loop_error(self, loop: asyncio.AbstractEventLoop, context: dict[str, object]) -> None:
        """Out of file descriptors (EMFILE): asyncio retries accept() in a second; say so in
        one line a second (no traceback).  The header and idle timeouts free the
        descriptors that slow or idle clients hold."""
        exc = context.get("exception")
        if isinstance(exc, OSError) and exc.errno in _OUT_OF_FDS:
            now = time.monotonic()
            if now - self._fds_warned >= 1.0:
                self._fds_warned = now
                _LOG.warning(
                    "mockhttp: cannot accept connections (%s; %d open), trying again",
                    exc.strerror or exc,
                    len(self._connections),
                )
            return
        if self._thread is None and (
            "_start_serving" in repr(context.get("handle"))  # accept() retried after close
            or "Task was destroyed" in str(context.get("message"))  # an accept cut by close
        ):
            return
        loop.default_exception_handler(context)

    def _dispatch(self, request: Request, keep_alive: bool) -> tuple[Call, Plan]:
        """The call to journal and the wire plan to run for ``request``."""
        # HTTP/2 frames a body as HTTP/1.0 does, without transfer coding (``_h2.py``)
        framing = Framing(request.method == "HEAD", request.http_version in _UNCHUNKED, keep_alive)
        if request.path == HEALTH_PATH and request.method in ("GET", "HEAD"):
            return Call(request, None, 200), Steps(framing.frame(self._health().plan()))
        if self.admin is not None and request.path.startswith(_ADMIN_PREFIX):
            return Call(request, None, None), self._admin_reply(request, framing)
        if self._cors is not None:
            framing = framing._replace(cors=self._cors.headers(request))
            preflight = self._cors.preflight(request)
            if preflight is not None:
                return self._preflight(request, preflight, framing)
        if self.metrics and request.path == "/metrics" and request.method in ("GET", "HEAD"):
            return Call(request, None, 200), Steps(framing.frame(metrics_reply().plan()))
        if not request.body:
            return self._answer(request, framing)
        request._matching(True)  # parse a JSON body once for every matcher
        try:
            return self._answer(request, framing)
        finally:  # the journal keeps the bytes, not the parsed tree
            if request._matching(False) and len(request.body) >= BIG_BODY:
                release()  # its cycles and the allocator's pages (_heap)

    def _preflight(self, request: Request, reply: Reply, framing: Framing) -> tuple[Call, Plan]:
        """A CORS preflight, answered by the server itself (``_core._cors``): kept in
        :attr:`preflights`, not in the journal (no mock is involved)."""
        call = Call(request, None, reply.status_code)
        self.preflights.append(call)
        return call, Steps(framing._replace(cors=()).frame(reply.plan()))

    def _health(self) -> Reply:
        return status(200).json({"status": "ok", "mocks": len(self._ranked.snapshot())})

    def _admin_reply(self, request: Request, framing: Framing) -> Deferred:
        """Admin work runs on a worker thread, so parsing a big body never stalls streams;
        one worker, so admin requests still take effect in the order they came."""
        if self._admin_worker is None:
            self._admin_worker = Worker(f"mockhttp-admin:{self.port}")
        admin = self.admin
        assert admin is not None
        return Deferred(self._admin_worker.submit(admin, request), framing.frame)

    def _answer(self, request: Request, framing: Framing) -> tuple[Call, Plan]:
        """Route ``request`` (``_core._route``), journal the answer, frame its reply."""
        snapshot = self._ranked.snapshot()
        index = self._index
        if index.entries is not snapshot:  # the mocks changed: index them again (or
            index = self._index = self._ranked.index(snapshot)  # take the writer's index)
        entries = index.candidates(request.path)
        if self.tally is None:
            answer = route(request, entries, self._states, snapshot)
        else:
            try:
                answer = route_shared(request, entries, self.tally, snapshot)
            except (OSError, ValueError, KeyError) as exc:  # the keeper of the state is gone
                return self._no_state(request, exc, framing)
        if isinstance(answer, Miss):
            return self._missed(answer, framing)
        active = answer.entry
        mock = active.mock
        call = Call(request, mock, None, mock.path_params(request))  # (None: {})
        self._journal.answered(call, active)
        self._states = answer.states
        reply = answer.reply
        if reply is None:
            assert answer.error is not None
            return call, self._failed(call, answer.error, framing)
        if answer.error is not None:  # a refused request: its reply, and check() fails
            self.errors.append(answer.error)
        call.status = reply.status_code
        fixed = mock.fixed
        if reply.stream is not None and reply.stream.resumable:
            reply = _resumed(call, active, reply)
            fixed = fixed and reply is answer.reply
        if isinstance(reply, Pushed):  # a stream the test feeds (``_push.py``)
            reply, fixed = open_stream(call, active._pushes, reply), False
        if type(reply) is not Reply:  # a subclass may hold something until the call ends
            self._hold(call, reply)
        try:
            plan = self._wires.plan(reply, answer.faults, answer.index, fixed, framing)
        except Exception as exc:  # a reply that cannot be framed
            return call, self._failed(call, exc, framing)
        if type(plan) is Whole and fixed and type(reply) is Reply and self._lane is not None:
            self._learn(request, framing, answer, call, plan)
        return call, plan

    def _learn(
        self,
        request: Request,
        framing: Framing,
        answer: Answer[ActiveMock],
        call: Call,
        whole: Whole,
    ) -> None:
        """Keep an answer written in one call for the requests that will get it again, when
        only their method and target decide it (``_lane.py``)."""
        assert self._lane is not None
        if (
            request.body
            or request.trailers
            or request.http_version not in ("1.1", "1.0")  # (HTTP/2 answers its own way)
            or request.path.startswith(_ADMIN_PREFIX)
            or request.path == "/metrics"
            or call.status is None
        ):
            return
        index = self._index  # (the mocks that could match the path, as routed)
        snapshot = index.entries
        key = (request.method, request.target, request.http_version, framing.keep_alive)
        entries = index.candidates(request.path)
        if self._lane.again(key, snapshot) and by_target(request, entries, answer):
            params = tuple(call.path_params.items())
            hit = Hit(answer.entry, key, call.status, params, whole)
            self._lane.learn(key, snapshot, hit)

    def _by_lane(self, key: Key, headers: list[tuple[str, str]]) -> Whole | None:
        """The kept answer to a request of ``key`` without a body, journaled, or None: the
        request goes the long way (``_lane.py``)."""
        lane = self._lane
        assert lane is not None
        ranked = self._ranked
        built = ranked._built  # (Ranked.snapshot and Lane.get, inlined: every request)
        if built[0] is ranked._version and built[1] is lane._for:
            hit = lane._hits.get(key)
        else:
            hit = lane.get(key, ranked.snapshot())
        if hit is None:
            return None
        record = self._journal.answered_whole(hit.active, hit.entry, headers)
        on_call_end = self.on_call_end
        if on_call_end is not None:  # (``serve`` logs each call): the call read back
            try:
                on_call_end(read_back(record, hit.entry.mock))
            except Exception as exc:
                self.errors.append(exc)
        return hit.whole

    def _no_state(self, request: Request, exc: Exception, framing: Framing) -> tuple[Call, Plan]:
        """The shared state could not be asked: a 503 that says why."""
        call = Call(request, None, 503)
        self._journal.add(call)
        message = f"mockhttp: the state of the mocks is out of reach ({exc})\n"
        reply = status(503).header("Content-Type", "text/plain; charset=utf-8").body(message)
        return call, Steps(framing.frame(reply.plan()))

    @staticmethod
    def _hold(call: Call, reply: Reply) -> None:
        """The end hook: a reply with an ``on_end(call)`` method (``mockhttp.llm``'s
        capacity slot) has it called once when ``call`` ends, however it ends (complete,
        cut by a fault, the client hung up, the server closed)."""
        on_end = getattr(reply, "on_end", None)
        if on_end is not None:
            call._on_end = on_end

    def _failed(self, call: Call, exc: Exception, framing: Framing) -> Plan:
        """No reply for ``call`` (a handler raised, ...): keep the error for ``check()``;
        the client gets a 500 with it."""
        self.errors.append(exc)
        call.status = 500
        return Steps(framing.frame(error_reply(exc).plan()))

    def _missed(self, miss: Miss, framing: Framing) -> tuple[Call, Plan]:
        """Journal an unmatched request (here, so the journal keeps the order requests
        came in) and answer with the closest mocks explained.  Among more than
        ``EXPLAINED_ON_LOOP`` mocks the explanation is built on the explainer thread, one
        miss after another, while the connection holds its place (``Deferred``); the
        call has it before it ends."""
        code = self.unmatched_status
        call = Call(miss.request, None, code)
        self._journal.add(call)
        if len(miss.entries) <= EXPLAINED_ON_LOOP:
            call.explanation = miss.explanation
            return call, Steps(framing.frame(miss.reply(code).plan()))
        if self._explainer is None:
            self._explainer = Worker(f"mockhttp-explain:{self.port}")
        return call, Deferred(
            self._explainer.submit(lambda _: self._explained(call, miss), miss.request),
            framing.frame,
        )

    def _explained(self, call: Call, miss: Miss) -> Reply:
        """On the explainer thread: the miss's explanation, kept in ``call``, and its reply.

        A JSON body is parsed once for every mock compared, as while matching (the loop
        may still be dropping its own parse: both only drop, so no tree stays behind)."""
        request = miss.request
        request._matching(True)
        try:
            call.explanation = miss.explanation
            return miss.reply(self.unmatched_status)
        except Exception as exc:  # a matcher's explain() raised: check() says so
            self.errors.append(exc)
            return error_reply(exc)
        finally:
            if request._matching(False) and len(request.body) >= BIG_BODY:
                release()

    def _finished(self, call: Call) -> None:
        if call.outcome != "complete" and call.mock is not None:
            call.cut_time = time.time()  # when a reconnect's wait begins (``after_cut``)
        on_end = call._on_end
        if on_end is not None:  # once, however the call ended (see Reply.on_end)
            call._on_end = None
            try:
                on_end(call)
            except Exception as exc:
                self.errors.append(exc)
        self._journal.ended(  # admin calls are not kept: only when there is an admin API
            call,
            call.mock is not None
            or (self.admin is None and call.request.path != HEALTH_PATH)
            or not call.request.path.startswith(_ADMIN_PREFIX),
        )
        if self.on_call_end is not None:
            call._handed = True  # the callback may keep it
            try:
                self.on_call_end(call)
            except Exception as exc:
                self.errors.append(exc)
        seal(call)  # compact in the journal from now on (few objects for the collector)


def _resumed(call: Call, active: ActiveMock, reply: Reply) -> Reply:
    """A resumable stream's reply to ``call``: the events after its ``Last-Event-ID``;
    the call notes how long after the previous call's cut it came."""
    calls = active.calls
    if len(calls) >= 2:
        cut = calls[-2].cut_time
        if cut is not None:
            call.after_cut = call.time - cut
    last = call.request.headers.get("last-event-id")
    if last is None:
        return reply
    assert reply.stream is not None
    stream = reply.stream.after(last)
    return reply if stream is reply.stream else dataclasses.replace(reply, stream=stream)


def _require_h2() -> None:
    try:
        import h2  # noqa: F401
    except ImportError:
        raise ConfigError(
            "http2=True needs the h2 package: pip install 'mockhttp[http2]'"
        ) from None


def _check_server_args(host: object, port: object, unmatched_status: object) -> None:
    """Refuse arguments that would fail later, or turn every unmatched request into a 500."""
    if not isinstance(host, str) or not host:
        raise ConfigError(f"host={host!r} must be an address such as '127.0.0.1'")
    if type(port) is not int or not 0 <= port <= 65535:
        raise ConfigError(f"port={port!r} must be an int from 0 to 65535 (0: a free port)")
    if type(unmatched_status) is not int or not 100 <= unmatched_status <= 999:
        raise ConfigError(f"unmatched_status={unmatched_status!r} must be an int from 100 to 999")


def _count(n: int, noun: str) -> str:
    """``1 mock``, ``2 mocks``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _mock_list(value: Any) -> list[Any]:
    if isinstance(value, list | tuple):
        return list(value)
    raise ConfigError(f"mock={value!r} must be a Mock or a list of mocks (mockhttp.load(...))")
