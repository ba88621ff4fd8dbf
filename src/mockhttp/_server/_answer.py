"""After the route: the call to journal and the plan kind that answers it, in one place.

``Server._dispatch`` reads route → journal → plan::

    routed = router.route(request)             # Answer | Miss | Unreachable (_core._route)
    call = answers.journal(routed)             # the Call, journaled as its kind says
    plan = answers.plan(routed, call, ...)     # the plan kind chosen here

The plan kinds, by what the route gave:

- ``Miss``: the unmatched reply with the closest mocks explained: framed here among few
  mocks, on the explainer thread among many (``EXPLAINED_ON_LOOP``; the call is journaled
  here, so the journal keeps the order requests came in);
- ``Unreachable``: the state kept elsewhere (``serve --workers``) could not be asked: 503;
- ``InTest``: a request of one test (``_tests``): its route's call goes to the test's
  journal (and its own mock's calls), its plan is the route's as above, but never
  learned by the lane, and the errors go to the test's; ``BadTest``: a 400 saying why
  its test id cannot be one;
- an ``Answer`` of a ``_builtin.Builtin``: ``health`` and ``metrics`` framed here,
  ``admin`` on the admin thread (``Deferred``), ``preflight`` kept in
  ``server.preflights``;
- an ``Answer`` without a reply (a handler raised): 500, the error kept for ``check()``;
- a mock's reply: resumed after ``Last-Event-ID`` (a resumable stream), opened as a stream
  the test feeds (``Pushed``), held until the call ends (a reply with ``on_end``: a
  capacity's slot, the server's shared claims), framed by the ``WireCache``; a fixed
  reply written in one call is learned by the lane (``_lane.py``), which answers the next
  requests of its key itself (``serve``: the lane's kept answer, or ``_dispatch``).

Rule 1: loop thread only, as the server's dispatch is; the two worker threads (admin,
explainer) only compute replies, which come back through ``Deferred``.
Rule 2: a builtin's call never enters the journal (its kind says where it goes), and a
user mock's call is journaled before its reply is framed, so the journal keeps the order.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol, Union

from .._core._cors import Cors
from .._core._isolation import TEST_PREFIX, BadTest, ForTest, ranked_for_test, which_test
from .._core._kept import Kept, Memory, Scoped, test_scope
from .._core._paths import PathIndex
from .._core._plan import Fault
from .._core._pushed import Pushed
from .._core._reply import Reply, error_reply, status
from .._core._request import Request
from .._core._route import Answer, Miss, Tally, by_target, route, route_front, route_shared
from ._builtin import ADMIN_PREFIX, HEALTH_PATH, METRICS_PATH, Builtin
from ._heap import BIG_BODY, release
from ._journal import Call, Journal, read_back, seal
from ._lane import Hit, Lane
from ._loop import Worker
from ._push import open_stream
from ._ranked import Ranked
from ._runner import Deferred, Plan, Steps, Whole
from ._tests import InTest, ScopedServer, Tests
from ._verify import ActiveMock
from ._wires import Framing, WireCache

_METRICS = METRICS_PATH

__all__ = [
    "EXPLAINED_ON_LOOP",
    "Answers",
    "Routed",
    "Router",
    "Unreachable",
    "hold",
    "on_end",
]

#: An unmatched request among at most this many mocks is explained on the loop (under
#: a millisecond); among more, on the explainer thread, so that ranking them (~5 us a mock,
#: and 64 compared field by field) never holds the other connections (docs/limits.md).
EXPLAINED_ON_LOOP = 16

Entry = Union[ActiveMock, Builtin]  # noqa: UP007 (a runtime alias)


class Unreachable:
    """The keeper of the state (``serve --workers``: the supervisor) could not be asked."""

    __slots__ = ("error", "request")

    def __init__(self, request: Request, error: Exception) -> None:
        self.request = request
        self.error = error


Routed = Answer[Entry] | Miss | Unreachable | InTest | BadTest


class Router:
    """Which entry answers a request: the server's own endpoints first, then the mocks,
    with the state here (``states``) or held elsewhere (``tally``: ``serve --workers``)."""

    __slots__ = ("front", "index", "kept", "ranked", "states", "tally", "tests")

    def __init__(self, ranked: Ranked) -> None:
        self.ranked = ranked
        self.front: Sequence[Entry] = ()  # the server's own endpoints, first (_builtin)
        self.index: PathIndex[ActiveMock] = ranked.index(ranked.snapshot())
        # scenario name -> state (absent: "Started"); replaced, never changed (_route.py)
        self.states: Mapping[str, str] = {}
        self.tally: Tally | None = None
        # what reply kinds keep (``_core._kept``): here, or the supervisor's (--workers)
        self.kept: Kept = Memory()
        self.tests: Tests | None = None  # per-test isolation (``_tests``; None: off)

    def route(self, request: Request, tested: bool = True) -> Routed:
        """Route ``request``: the server's own endpoints first (before the mocks are even
        indexed: an admin write after another never waits for an index; only the
        requests ``_builtin.may_take`` lets through try them), then a test's request
        (``_route_test``; ``tested`` False: no field of it names a test, ``_http1``
        says, so only its target may), then the mocks.  A JSON
        body is parsed once for every matcher, and its tree dropped after (a big one's
        pages given back: ``_heap``)."""
        body = request.body
        if body:
            request._matching(True)
        try:
            path = request.path  # (_builtin.may_take and a test's prefix, inlined: every request)
            if tested or request.method == "OPTIONS" or path.startswith("/__") or path == _METRICS:
                found = self._first(request, tested)
                if found is not None:
                    return found
            snapshot = self.ranked.snapshot()
            index = self.index
            if index.entries is not snapshot:  # the mocks changed: index them again (or
                index = self.index = self.ranked.index(snapshot)  # take the writer's index)
            entries: Sequence[Entry] = index.candidates(request.path)
            every: Sequence[Entry] = snapshot
            tally = self.tally
            if tally is None:
                routed = route(request, entries, self.states, every, self.kept)
                if type(routed) is Answer:
                    self.states = routed.states
                return routed
            try:
                return route_shared(request, entries, tally, every, self.kept)
            except (OSError, ValueError, KeyError) as exc:  # the keeper of the state is gone
                return Unreachable(request, exc)
        finally:  # the journal keeps the bytes, not the parsed tree
            if body and request._matching(False) and len(body) >= BIG_BODY:
                release()  # its cycles and the allocator's pages (_heap)

    def _first(self, request: Request, tested: bool) -> Routed | None:
        """What answers before the mocks: the server's own endpoints (``_builtin``), then
        a request that names a test (``_core._isolation.which_test``: its header when
        ``tested``, its ``/__test/ID/`` prefix); None: the mocks answer."""
        path = request.path
        if request.method == "OPTIONS" or path.startswith(ADMIN_PREFIX) or path == _METRICS:
            found = route_front(request, self.front, self.states, self.kept)
            if found is not None:
                return found
        tests = self.tests
        if tests is None or not (tested or request.target.startswith(TEST_PREFIX)):
            return None
        found_test = which_test(request, tests.header or "")
        if found_test is None or type(found_test) is BadTest:
            return found_test
        assert type(found_test) is ForTest
        return self._route_test(found_test, tests.get(found_test.id))

    def _route_test(self, tested: ForTest, scope: ScopedServer) -> InTest:
        """Route a test's request: its own mocks first, then the shared ones
        (``_core._isolation.ranked_for_test``), counted and moved through the test's
        claims, its kinds' state under its scope (``_tests``)."""
        request = tested.request
        request.__dict__["_test"] = scope.id  # (``request.test``: reply kinds may read it)
        snapshot = self.ranked.snapshot()
        index = self.index
        if index.entries is not snapshot:
            index = self.index = self.ranked.index(snapshot)
        own = scope._ranked.snapshot()
        path = request.path
        entries = ranked_for_test(scope._ranked.index(own).candidates(path), index.candidates(path))
        every = ranked_for_test(own, snapshot)
        kept = Scoped(self.kept, test_scope(scope.id))
        routed: Routed
        try:
            routed = route_shared(request, entries, scope.tally, every, kept)
        except (OSError, ValueError, KeyError) as exc:  # the keeper of the state is gone
            routed = Unreachable(request, exc)
        return InTest(routed, scope, tested.prefix)


class Host(Protocol):
    """What the plan kinds need of the server (``_server.Server`` is one)."""

    port: int
    unmatched_status: int
    errors: list[BaseException]
    _journal: Journal
    preflights: deque[Call]
    on_call_end: Callable[[Call], None] | None
    on_call_start: Callable[[Call, Reply, tuple[Fault, ...], int], None] | None
    metrics_source: Callable[[Request], Reply] | None

    @property
    def admin(self) -> Callable[[Request], Reply] | None: ...

    def _dispatch(
        self, request: Request, keep_alive: bool, tested: bool = True
    ) -> tuple[Call, Plan]: ...

    @property
    def _cors(self) -> Cors | None: ...


class Answers:
    """The journal entry and the plan of each routed request (see the module's docstring)."""

    __slots__ = ("_admin", "_explainer", "cors", "done", "host", "lane", "router", "wires")

    def __init__(self, host: Host, router: Router) -> None:
        self.host = host
        self.router = router
        self.lane: Lane | None = None  # answers kept by method and target (``_lane.py``)
        self.cors: Cors | None = None  # the server's CORS policy (``_core._cors``)
        # tells the keeper of the state that a claim's call ended (``_shared``), or None
        self.done: Callable[[int], None] | None = None
        self.wires = WireCache()  # the wire plans of fixed replies
        self._admin: Worker | None = None  # admin work, in the order it came
        self._explainer: Worker | None = None  # misses among many mocks

    def stop(self) -> None:
        """Stop the worker threads (the server closed)."""
        for worker in (self._admin, self._explainer):
            if worker is not None:
                worker.stop()
        self._admin = self._explainer = None

    def forget(
        self,
        ids: set[int],
        gives: Callable[[int], bool],
        loop: asyncio.AbstractEventLoop | None,
    ) -> None:
        """Drop the wire plans of the replies ``ids`` that no mock ``gives`` any more: on
        ``loop`` (Rule 1), or here when no loop serves."""
        if not ids:
            return

        def drop() -> None:
            for key in ids:
                if not gives(key):  # given again since: keep it
                    self.wires.drop(key)

        if loop is None or loop.is_closed():
            return drop()
        try:
            loop.call_soon_threadsafe(drop)
        except RuntimeError:  # the loop closed meanwhile: nothing is served any more
            drop()

    def finished(self, call: Call) -> None:
        """``call``'s reply has ended, however it ended: its end hooks run once
        (``hold``), the journal counts its bodies (not an admin call's), the server's
        ``on_call_end`` has it, and it is sealed (compact in the journal from now on)."""
        host = self.host
        call.end_time = ended = time.time()
        if call.outcome != "complete" and call.mock is not None:
            call.cut_time = ended  # when a reconnect's wait begins (``after_cut``)
        on_end = call._on_end
        if on_end is not None:  # once, however the call ended (see Reply.on_end)
            call._on_end = None
            try:
                on_end(call)
            except Exception as exc:
                host.errors.append(exc)
        path = call.request.path
        host._journal.ended(  # admin calls are not kept: only when there is an admin API
            call,
            call.mock is not None
            or (host.admin is None and path != HEALTH_PATH)
            or not path.startswith(ADMIN_PREFIX),
        )
        on_call_end = host.on_call_end
        if on_call_end is not None:
            call._handed = True  # the callback may keep it
            try:
                on_call_end(call)
            except Exception as exc:
                host.errors.append(exc)
        seal(call)  # compact in the journal from now on (few objects for the collector)

    # -- journal ---------------------------------------------------------------------

    def journal(self, routed: Routed) -> Call:
        """The call of ``routed``, journaled as its kind says (Rule 2)."""
        if type(routed) is Answer:
            entry = routed.entry
            if isinstance(entry, Builtin):
                return Call(routed.request, None, None)
            call = Call(routed.request, entry.mock, None, routed.params)
            self.host._journal.answered(call, entry)
            ticket = routed.ticket
            if ticket and self.done is not None:  # the keeper holds its claim until it ends
                done = self.done
                on_end(call, lambda _: done(ticket))
            return call
        if type(routed) is InTest:
            return self._journal_test(routed)
        code = self.host.unmatched_status if type(routed) is Miss else 503
        if type(routed) is BadTest:
            code = 400
        call = Call(routed.request, None, code)
        self.host._journal.add(call)
        return call

    def _journal_test(self, tested: InTest) -> Call:
        """A test's call: in its journal, and in its own mock's calls (a shared mock's
        calls and count are the shared requests' only); ``call.test`` names the test and
        ``call.test_prefix`` the URL prefix stripped before matching."""
        routed, scope = tested.routed, tested.scope
        if type(routed) is Answer:
            entry = routed.entry
            call = Call(routed.request, entry.mock, None, routed.params)
            if isinstance(entry, ActiveMock) and entry._server is scope:
                scope._journal.answered(call, entry)
            else:
                scope._journal.add(call)
            ticket = routed.ticket
            if ticket:  # the test's claim is held until the call ends
                on_end(call, lambda _: scope.done(ticket))
        else:
            code = self.host.unmatched_status if type(routed) is Miss else 503
            call = Call(routed.request, None, code)
            scope._journal.add(call)
        values = call.__dict__  # (``Call.test``: not a field, see there)
        values["test"] = scope.id
        if tested.prefix is not None:
            values["test_prefix"] = tested.prefix
        return call

    # -- plan ------------------------------------------------------------------------

    def plan(self, routed: Routed, call: Call, framing: Framing) -> Plan:
        """The wire plan that answers ``call`` (the kinds: see the module's docstring)."""
        cors = self.cors
        if cors is not None and _with_cors(routed):
            framing = framing._replace(cors=cors.headers(routed.request))
        if type(routed) is not Answer:
            if type(routed) is Miss:
                return self._missed(routed, call, framing)
            if type(routed) is InTest:
                return self._plan_test(routed, call, framing)
            if type(routed) is BadTest:
                bad = status(400).header("Content-Type", "text/plain; charset=utf-8")
                return Steps(framing.frame(bad.body(f"mockhttp: {routed.message}\n").plan()))
            assert type(routed) is Unreachable
            return self._unreachable(routed.error, framing)
        entry = routed.entry
        if isinstance(entry, Builtin):
            return self._builtin(entry, routed, call, framing)
        reply = routed.reply
        if reply is None:
            assert routed.error is not None
            return self._failed(call, routed.error, framing)
        if routed.error is not None:  # a refused request: its reply, and check() fails
            self.host.errors.append(routed.error)
        # a mock's reply: resumed, pushed, held, framed (and learned by the lane)
        answer, active = routed, entry
        call.status = reply.status_code
        fixed = active.mock.fixed
        if reply.stream is not None and reply.stream.resumable:
            reply = _resumed(call, active, reply)
            fixed = fixed and reply is answer.reply
        if isinstance(reply, Pushed):  # a stream the test feeds (``_push.py``)
            reply, fixed = open_stream(call, active._pushes, reply), False
        if type(reply) is not Reply:  # a subclass may hold something until the call ends
            hold(call, reply)
        started = self.host.on_call_start
        if started is not None:  # (the dashboard watches: ``_watch.py``)
            started(call, reply, answer.faults, answer.index)
        try:
            plan = self.wires.plan(reply, answer.faults, answer.index, fixed, framing)
        except Exception as exc:  # a reply that cannot be framed
            return self._failed(call, exc, framing)
        if (
            type(plan) is Whole
            and fixed
            and type(reply) is Reply
            and self.lane is not None
            and not call.request.body  # (``_learn``'s first test: every request with a body)
        ):
            self._learn(call.request, framing, answer, call, plan)
        return plan

    def _plan_test(self, tested: InTest, call: Call, framing: Framing) -> Plan:
        """A test's plan: the route's, never learned by the lane (whose answers are the
        shared mocks', for requests that name no test); errors go to the test's."""
        errors = self.host.errors
        before = len(errors)
        lane, self.lane = self.lane, None  # (the loop thread's alone: Rule 1)
        try:
            return self.plan(tested.routed, call, framing)
        finally:
            self.lane = lane
            if len(errors) > before:
                tested.scope.errors.extend(errors[before:])
                del errors[before:]

    def _learn(
        self,
        request: Request,
        framing: Framing,
        answer: Answer[Entry],
        call: Call,
        whole: Whole,
    ) -> None:
        """Keep an answer written in one call for the requests that will get it again, when
        only their method and target decide it (``_lane.py``)."""
        assert self.lane is not None
        if (
            request.body
            or request.trailers
            or request.http_version not in ("1.1", "1.0")  # (HTTP/2 answers its own way)
            or request.path.startswith(ADMIN_PREFIX)
            or request.path == METRICS_PATH
            or call.status is None
        ):
            return
        index = self.router.index  # (the mocks that could match the path, as routed)
        snapshot = index.entries
        key = (request.method, request.target, request.http_version, framing.keep_alive)
        entries: Sequence[Entry] = index.candidates(request.path)
        active = answer.entry
        if (
            isinstance(active, ActiveMock)
            and self.lane.again(key)
            and by_target(request, entries, answer)
        ):
            params = tuple(call.path_params.items())
            hit = Hit(active, key, call.status, params, whole)
            self.lane.learn(key, snapshot, hit)

    def known(self, hit: Hit, headers: list[tuple[str, str]]) -> None:
        """Journal a request the lane answers with ``hit`` (``_lane.py``), as ``_dispatch``
        journals its calls, but with no ``Request`` or ``Call`` built for it."""
        host = self.host
        record = host._journal.answered_whole(hit.active, hit.entry, headers)
        on_call_end = host.on_call_end
        if on_call_end is not None:  # (``serve`` logs each call): the call read back
            try:
                on_call_end(read_back(record, hit.entry.mock))
            except Exception as exc:
                host.errors.append(exc)

    def _builtin(
        self, builtin: Builtin, answer: Answer[Entry], call: Call, framing: Framing
    ) -> Plan:
        """The server's own endpoints (``_builtin``)."""
        kind = builtin.kind
        if kind == "admin":
            admin = self.host.admin
            assert admin is not None
            return self._admin_plan(admin, call.request, framing)
        if kind == "metrics" and self.host.metrics_source is not None:  # (serve --workers)
            return self._admin_plan(self.host.metrics_source, call.request, framing)
        reply = answer.reply
        if reply is None:  # (a builtin's handler raised)
            assert answer.error is not None
            return self._failed(call, answer.error, framing)
        call.status = reply.status_code
        if kind == "preflight":  # kept apart from the journal: no mock is involved
            self.host.preflights.append(call)
        return Steps(framing.frame(reply.plan()))

    def _admin_plan(
        self, admin: Callable[[Request], Reply], request: Request, framing: Framing
    ) -> Deferred:
        """Admin work (and a ``/metrics`` the supervisor merges) runs on a worker thread,
        so parsing a big body never stalls streams; one worker, so admin requests still
        take effect in the order they came."""
        if self._admin is None:
            self._admin = Worker(f"mockhttp-admin:{self.host.port}")
        return Deferred(self._admin.submit(admin, request), framing.frame)

    def _unreachable(self, exc: Exception, framing: Framing) -> Plan:
        """The shared state could not be asked: a 503 that says why."""
        message = f"mockhttp: the state of the mocks is out of reach ({exc})\n"
        reply = status(503).header("Content-Type", "text/plain; charset=utf-8").body(message)
        return Steps(framing.frame(reply.plan()))

    def _failed(self, call: Call, exc: Exception, framing: Framing) -> Plan:
        """No reply for ``call`` (a handler raised, ...): keep the error for ``check()``;
        the client gets a 500 with it."""
        self.host.errors.append(exc)
        call.status = 500
        return Steps(framing.frame(error_reply(exc).plan()))

    def _missed(self, miss: Miss, call: Call, framing: Framing) -> Plan:
        """An unmatched request, answered with the closest mocks explained.  Among more
        than ``EXPLAINED_ON_LOOP`` mocks the explanation is built on the explainer thread,
        one miss after another, while the connection holds its place (``Deferred``); the
        call has it before it ends."""
        if len(miss.entries) <= EXPLAINED_ON_LOOP:
            call.explanation = miss.explanation
            return Steps(framing.frame(miss.reply(self.host.unmatched_status).plan()))
        if self._explainer is None:
            self._explainer = Worker(f"mockhttp-explain:{self.host.port}")
        return Deferred(
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
            return miss.reply(self.host.unmatched_status)
        except Exception as exc:  # a matcher's explain() raised: check() says so
            self.host.errors.append(exc)
            return error_reply(exc)
        finally:
            if request._matching(False) and len(request.body) >= BIG_BODY:
                release()


def _with_cors(routed: Routed) -> bool:
    """True when the reply carries the CORS headers: every reply but the builtins' that
    do not (``_builtin`` Rule 2)."""
    return type(routed) is not Answer or type(routed.entry) is not Builtin or routed.entry.cors


def hold(call: Call, reply: Reply) -> None:
    """The end hook: a reply with an ``on_end(call)`` method (``mockhttp.llm``'s
    capacity slot) has it called once when ``call`` ends, however it ends (complete,
    cut by a fault, the client hung up, the server closed)."""
    hook = getattr(reply, "on_end", None)
    if hook is not None:
        on_end(call, hook)


def on_end(call: Call, hook: Callable[[Call], None]) -> None:
    """Call ``hook`` once when ``call`` ends, after the hooks given before it (each runs
    even when one before it raised)."""
    before = call._on_end
    if before is None:
        call._on_end = hook
        return

    def both(ended: Call) -> None:
        try:
            before(ended)
        finally:
            hook(ended)

    call._on_end = both


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
