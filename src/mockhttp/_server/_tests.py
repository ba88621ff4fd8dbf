"""One server, many tests: each test's own mocks, counts, scenario states, kept state,
journal, unmatched list and errors (per-test isolation; the rule: ``_core/_isolation``).

``server.test("id")`` is a :class:`ScopedServer`: the server as one test sees it, with
the server's own API (``mock``, ``journal``, ``unmatched``, ``check``, ``reset``, ...).
A request that names the test (its header, or the ``/__test/ID/`` prefix) is routed by
``_answer.Router``: the test's mocks first, then the shared ones; every mock that keeps
state (``times``, replies, scenarios) counts the test's calls apart (the test's
``Claims``, in this process, or the supervisor's under ``serve --workers``); the reply
kinds' kept state is under the test's scope (``_core._kept.test_scope``); the call goes
to the test's journal, and to its own mock's calls, never to the shared journal.

Rule 1: as the server's: the loop thread routes and journals; test threads (and the
admin thread) change a test's mocks under its ``Ranked``'s lock, and replace its
journal, claims and errors whole (a reset), never change them in place.
Rule 2: bounded: at most ``MAX_TESTS`` tests are known at once; past it the test known
longest that has no mocks of its own is forgotten (else the oldest), so that clients
that invent ids cannot grow the server without end.
"""

from __future__ import annotations

import itertools
import re
import threading
from collections.abc import Callable, Sequence
from typing import Any, Protocol, overload

from .._core._errors import ConfigError
from .._core._isolation import TEST_PREFIX, bad_test_id
from .._core._kept import Kept, Memory, Scoped, test_scope
from .._core._mock import Mock
from .._core._registry import ReplyKind
from .._core._request import Request
from .._core._route import Choice, Claim
from ._http1 import watch_test_header
from ._journal import CallList, Journal
from ._ranked import Ranked, mocks_of
from ._shared import MAX_TESTS, Claims, StateChannel, move_scenario, scenario_in
from ._verify import ActiveMock, Verifying, named


class Host(Protocol):
    """What a test's part needs of its server (``_server.Server`` is one)."""

    journal_limit: int | None
    _ranked: Ranked

    @property
    def url(self) -> str: ...

    @property
    def mocks(self) -> tuple[ActiveMock, ...]: ...

    def url_for(self, path: str) -> str: ...

    def _on_its_loop(self) -> bool: ...

    def _forget(self, ids: set[int]) -> None: ...


__all__ = ["MAX_TESTS", "InTest", "ScopedServer", "Tests", "attach", "scoped", "test_header_of"]

_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # a field name (RFC 9110 token)


def test_header_of(name: object) -> str | None:
    """The header that names a request's test, in lower case (None: isolation off).

    Raises:
        ConfigError: ``name`` is not a header field name.
    """
    if name is None:
        return None
    if not isinstance(name, str) or _TOKEN.fullmatch(name) is None:
        raise ConfigError(f"test_header={name!r} must be a header name (e.g. x-mockhttp-test)")
    return name.lower()


class ScopedServer(Verifying):
    """The server as one test sees it (``server.test(id)``): its own mocks (above the
    shared ones), journal, unmatched requests, scenario states and reset.

    Requests belong to the test when they carry ``headers`` (``x-mockhttp-test: ID``
    unless the server names another header) or go to ``prefix_url`` (``/__test/ID``).
    """

    def __init__(self, tests: Tests, test_id: str) -> None:
        self.id = test_id
        self._tests = tests
        self._server = tests.server
        self._ranked = Ranked(tests.numbers)
        self._journal = Journal(self._server.journal_limit, None)  # (the server's budget)
        self.errors: list[BaseException] = []
        self._claims = Claims(tests.tickets)  # its counts and states (in this process)

    def __repr__(self) -> str:
        return f"ScopedServer({self.id!r}, mocks={len(self._ranked)})"

    # -- how a client names the test -------------------------------------------------------

    @property
    def header(self) -> str:
        """The request header that names the test (``x-mockhttp-test`` by default)."""
        return self._tests.header or ""

    @property
    def headers(self) -> dict[str, str]:
        """The header to send: ``{"x-mockhttp-test": id}`` (an SDK's ``default_headers``)."""
        return {self.header: self.id}

    @property
    def prefix(self) -> str:
        """The URL prefix that names the test, for clients that cannot set a header."""
        return TEST_PREFIX + self.id

    @property
    def url(self) -> str:
        """The server's base URL (send ``headers`` with each request)."""
        return self._server.url

    @property
    def prefix_url(self) -> str:
        """The base URL with the test's prefix: ``http://127.0.0.1:PORT/__test/ID``; a
        request under it belongs to the test without a header (the prefix is stripped)."""
        return self._server.url + self.prefix

    def url_for(self, path: str) -> str:
        """``url`` + ``path`` (send ``headers`` with the request)."""
        return self._server.url_for(path)

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
        """Register mocks that answer only this test's requests (as ``Server.mock``);
        they rank above every shared mock."""
        single = isinstance(mock, Mock | ReplyKind)
        if not single and not isinstance(mock, list | tuple):
            raise ConfigError(f"mock={mock!r} must be a Mock or a list of mocks")
        mocks: list[Any] = [*([mock] if single else list(mock)), *more]  # type: ignore[arg-type]
        added = self._add(mocks)
        return added if not single or more else added[0]

    add = mock

    def _add(self, mocks: Sequence[Mock]) -> list[ActiveMock]:
        return self._ranked.add(mocks_of(mocks), self)

    def replace(self, old: Sequence[ActiveMock], new: Sequence[Mock]) -> list[ActiveMock]:
        """Swap this test's mocks at once (as ``Server.replace``)."""
        created, dropped = self._ranked.swap(old, mocks_of(new), self)
        self._tests.forget(dropped)
        return created

    def remove(self, active: ActiveMock) -> None:
        """Unregister one of this test's mocks (its calls stay readable)."""
        with self._ranked.lock:
            self._tests.forget(self._ranked.change((), (active,)))

    @property
    def mocks(self) -> tuple[ActiveMock, ...]:
        """This test's own mocks, in the order they are tried (the shared ones after)."""
        return self._ranked.snapshot()

    @property
    def shared_mocks(self) -> tuple[ActiveMock, ...]:
        """The server's shared mocks, tried after this test's own."""
        return self._server.mocks

    def named(self, name: str) -> ActiveMock:
        """This test's mock named ``name`` (as ``Server.named``)."""
        return named(self._ranked.named(name) or self.mocks, name)

    def _named(self, name: str) -> list[ActiveMock]:
        return self._ranked.named(name)

    def _registered(self, mock_id: int) -> ActiveMock | None:
        return self._ranked.get(mock_id)

    def _on_its_loop(self) -> bool:
        return self._server._on_its_loop()

    # -- state ----------------------------------------------------------------------------

    def reset(self) -> None:
        """Remove this test's mocks, clear its journal and errors, forget its counts,
        scenario states and kept state; other tests and the shared mocks keep theirs."""
        with self._ranked.lock:
            self._tests.forget(self._ranked.clear())
        self._journal = Journal(self._server.journal_limit, None)
        self.errors = []
        self._claims = Claims(self._tests.tickets)
        kept = self._tests.kept()
        if type(kept) is Memory:  # (the supervisor's: its own, by the admin API's reset)
            kept.clear_under(test_scope(self.id))

    def clear_journal(self) -> None:
        """Forget this test's calls (its journal, errors, its mocks' calls, and the counts
        of every mock's answers to it), keeping its mocks."""
        with self._ranked.lock:
            for active in self.mocks:
                active._forget()
        self._journal = Journal(self._server.journal_limit, None)
        self.errors = []
        self._claims.forget(True, False)

    def reset_scenarios(self) -> None:
        """Put every scenario back in ``"Started"`` for this test."""
        self._claims.forget(False, True)

    def scenario_state(self, name: str) -> str:
        """The state of scenario ``name`` for this test (``"Started"`` at first)."""
        return scenario_in(self._claims.states, self._tests.channel, self.id, name)

    def set_scenario_state(self, name: str, state: str) -> None:
        """Move scenario ``name`` to ``state`` for this test; under ``serve --workers``,
        for every worker (the supervisor's state of the test)."""
        states = self._claims.states
        self._claims.states = move_scenario(states, self._tests.channel, self.id, name, state)

    # -- verification ---------------------------------------------------------------------

    @property
    def journal(self) -> CallList:
        """Every call of this test, oldest first (``call.test`` is its id)."""
        return self._journal.calls

    def _tried(self) -> list[Mock]:
        return [a.mock for a in (*self.mocks, *self._server.mocks)]

    # -- routing (the loop's side) ------------------------------------------------------

    def tally(self, claims: Sequence[Claim]) -> Choice:
        """Which of the matching mocks that keep state answers this test's request."""
        channel = self._tests.channel
        if channel is not None:
            return channel(claims, self.id)
        return self._claims.choose(claims)[0]

    def done(self, ticket: int) -> None:
        """The call of the claim ``ticket`` ended."""
        channel = self._tests.channel
        if channel is not None:
            channel.done(ticket, self.id)
        else:
            self._claims.done(ticket)


class InTest:
    """A request routed for a test: what the route gave (``routed``: an ``Answer``, a
    ``Miss``, an ``_answer.Unreachable``), the test's ``scope``, and the URL ``prefix``
    stripped (None: a header named the test)."""

    __slots__ = ("prefix", "request", "routed", "scope")

    def __init__(self, routed: Any, scope: ScopedServer, prefix: str | None) -> None:
        self.routed = routed
        self.request: Request = routed.request  # (the request as matched)
        self.scope = scope
        self.prefix = prefix


class Tests:
    """The tests a server knows, by id (Rule 2), and what they share: the server, the
    numbers of mocks and claims, the state channel under ``serve --workers``."""

    def __init__(self, server: Host, header: str | None, numbers: Callable[[], int]) -> None:
        self.server = server
        self.header = header  # (None: requests name no test; ``server.test`` refuses)
        if header is not None:
            watch_test_header(header)  # (its requests are not the lane's: ``_http1``)
        self.numbers = numbers
        self.tickets = itertools.count(1).__next__  # (claims in this process)
        self.channel: StateChannel | None = None
        self.kept: Callable[[], Kept] = Memory  # the server's kept state, now (``Router.kept``)
        self._scopes: dict[str, ScopedServer] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._scopes)

    def get(self, test_id: str) -> ScopedServer:
        """The test ``test_id`` (made when first named)."""
        found = self._scopes.get(test_id)
        if found is not None:
            return found
        with self._lock:
            found = self._scopes.get(test_id)
            if found is None:
                if len(self._scopes) >= MAX_TESTS:
                    self._evict()
                found = ScopedServer(self, test_id)
                self._scopes = {**self._scopes, test_id: found}  # (Rule 1: replaced)
            return found

    def known(self) -> list[ScopedServer]:
        """The tests known now, the first named first."""
        return list(self._scopes.values())

    def kept_for(self, kept: Kept, scope: ScopedServer) -> Kept:
        """``kept`` (the server's) as ``scope``'s kinds see it."""
        return Scoped(kept, test_scope(scope.id))

    def _evict(self) -> None:
        scopes = dict(self._scopes)
        idle = next((k for k, s in scopes.items() if not len(s._ranked)), None)
        del scopes[idle if idle is not None else next(iter(scopes))]
        self._scopes = scopes

    def clear(self) -> None:
        """Forget every test (``Server.reset``)."""
        with self._lock:
            scopes, self._scopes = self._scopes, {}
        for scope in scopes.values():
            scope.reset()

    def clear_journals(self) -> None:
        """Every test's ``clear_journal`` (``Server.clear_journal``)."""
        for scope in self.known():
            scope.clear_journal()

    def gives(self, reply_id: int) -> bool:
        """Whether a test's mock answers with the reply whose ``id()`` this is."""
        return any(s._ranked.gives(reply_id) for s in self._scopes.values())

    def gives_any(self, reply_id: int) -> bool:
        """Whether a mock of the server's or of a test's answers with that reply."""
        return self.server._ranked.gives(reply_id) or (bool(self._scopes) and self.gives(reply_id))

    def forget(self, ids: set[int]) -> None:
        """The replies ``ids`` left a test's mocks: drop their wire plans unless a mock
        still gives them (``Server._forget``)."""
        self.server._forget(ids)


class Routing(Protocol):
    """Where the server routes (``_answer.Router``): its tests, and its kept state."""

    tests: Tests | None
    kept: Kept


def attach(server: Host, router: Routing, header: object, numbers: Callable[[], int]) -> Tests:
    """The tests of ``server``, routed by ``router`` (``header`` None: no request names a
    test, and the router tries none).

    Raises:
        ConfigError: ``header`` is not a header name."""
    name = test_header_of(header)
    tests = Tests(server, name, numbers)
    router.tests = None if name is None else tests
    tests.kept = lambda: router.kept
    return tests


def scoped(tests: Tests, test_id: object) -> ScopedServer:
    """``server.test(test_id)``.

    Raises:
        ConfigError: ``test_id`` cannot be a test id, or the server names no tests."""
    if tests.header is None:
        raise ConfigError("this server names no tests (test_header=None)")
    why = bad_test_id(test_id) if isinstance(test_id, str) else "a test id is text"
    if why is not None:
        raise ConfigError(f"test_id={test_id!r}: {why}")
    assert isinstance(test_id, str)
    return tests.get(test_id)
