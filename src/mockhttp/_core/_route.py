"""Routing: which mock answers a request, with which reply and faults (pure).

``route(request, entries, states)`` tries the registered mocks in the order given (the
server ranks them: the highest priority first, then the newest), a ``HEAD`` request then
as a ``GET`` (RFC 9110: HEAD is GET without the content), and returns an ``Answer`` (the
entry that answers, its call's index, the reply and the faults for that index, the
scenario states after it) or a ``Miss`` (whose report of the closest mocks is built when
it is read: the server reads it off its loop when there are many mocks).

Rule 1: the state goes in and comes out as data.  Each entry says how many calls it has
answered (``call_count``) and whether it answers no more (``exhausted``); the scenario
states are a mapping that is never changed: a move gives a new one in ``Answer.states``.
The caller (the server) owns the state and records the answer; nothing here locks, reads
a clock or does I/O.
Rule 2: the state may be held elsewhere (``serve --workers``: by the supervisor, for every
worker): ``route_shared`` reads no entry's count, but asks ``tally`` for the first of the
matching entries that answers, as ``Claim``s (data), and ``choose`` is what the keeper of
the state runs on them, under its lock.  The keeper may hold the claim until the call
ends (its ``ticket``, carried by the ``Answer``): the caller says when.  Mocks that keep
no state (no ``times``, replies or scenario: ``keeps_state``) are answered without asking.
Rule 3: a reply's errors are data too: a handler that raises, or a sequence used up with
``exhausted="error"``, gives an ``Answer`` whose ``error`` is set (the call still counts);
a reply kind that refuses the request (``RefusedRequest``) gives both its ``reply`` (for
the client) and the ``error`` (for ``server.check()``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from ._errors import RefusedRequest, VerificationError
from ._explain import Explanation, explain
from ._kept import Kept
from ._mock import STARTED, Mock
from ._plan import Fault
from ._reply import Reply, status
from ._request import Request

__all__ = [
    "Answer",
    "Choice",
    "Claim",
    "Entry",
    "Miss",
    "api_of",
    "by_target",
    "choose",
    "keeps_state",
    "limit_of",
    "next_states",
    "route",
    "route_front",
    "route_shared",
]


class Entry(Protocol):
    """A registered mock as routing reads it (``_server._verify.ActiveMock`` is one)."""

    @property
    def mock(self) -> Mock: ...

    @property
    def call_count(self) -> int: ...

    @property
    def exhausted(self) -> bool: ...


E = TypeVar("E", bound=Entry)


class Answer(Generic[E]):
    """The entry that answers, as what: its call's 0-based ``index``, the ``reply`` and
    the ``faults`` for that index, the scenario ``states`` after the call (the same
    mapping when no scenario moved), and ``error``: None, or why there is no reply (then
    ``reply`` is None and the request gets a 500), or why the request was refused (then
    ``reply`` is the refusal the client gets).  ``request`` is the request answered, and
    ``params`` the values of its mock's path template (``{}``: none); ``ticket``: the
    keeper's ticket for the claim this call holds when the state is held elsewhere (0:
    none; the server says when the call ends: Rule 2)."""

    __slots__ = (
        "entry",
        "error",
        "faults",
        "index",
        "params",
        "reply",
        "request",
        "states",
        "ticket",
    )

    ticket: int

    def __init__(
        self,
        request: Request,
        entry: E,
        index: int,
        reply: Reply | None,
        faults: tuple[Fault, ...],
        states: Mapping[str, str],
        error: Exception | None = None,
    ) -> None:
        self.request = request
        self.params = entry.mock.path_params(request)
        self.entry = entry
        self.index = index
        self.reply = reply
        self.faults = faults
        self.states = states
        self.error = error
        self.ticket = 0


class Miss:
    """No mock of ``entries`` matched ``request`` (the scenarios in ``states``).

    ``explanation`` says why (the closest mocks, field by field).  It is built when first
    read, not by ``route``: ranking thousands of mocks takes tens of milliseconds, which
    the server spends off its loop (``_server._answer``).  What it reads is immutable (the
    request, a snapshot of the entries' mocks, a states mapping), so any thread may build
    it; built twice by two threads at once, it comes out the same."""

    __slots__ = ("_explanation", "entries", "request", "states")

    def __init__(
        self, request: Request, entries: Sequence[Entry], states: Mapping[str, str]
    ) -> None:
        self.request = request
        self.entries = entries
        self.states = states
        self._explanation: Explanation | None = None

    @property
    def explanation(self) -> Explanation:
        """The report of the closest mocks (``_core._explain.explain``), built once."""
        found = self._explanation
        if found is None:
            mocks = [e.mock for e in self.entries]
            found = self._explanation = explain(self.request, mocks, self.states)
        return found

    def reply(self, code: int) -> Reply:
        """The ``code`` reply with the explanation, the request's secrets hidden: in the
        error shape of the LLM API the path belongs to (``api_of``: so each SDK raises its
        own error, the explanation as its message), else JSON for a client that asks for
        JSON (and not for text), else text."""
        shown = self.explanation.redacted()
        api = api_of(self.request.path)
        if api is not None:
            return status(code).json(_api_error(api, code, shown))
        accept = shown.request.headers.get("accept", "")
        if "json" in accept and "text/plain" not in accept:
            return status(code).json(shown.to_json())
        return (
            status(code).header("Content-Type", "text/plain; charset=utf-8").body(shown.text + "\n")
        )


#: Gemini's ``status`` for an HTTP status (google.rpc.Code names).
_GEMINI_STATUS = {400: "INVALID_ARGUMENT", 404: "NOT_FOUND", 500: "INTERNAL", 503: "UNAVAILABLE"}


def api_of(path: str) -> str | None:
    """The LLM API a path belongs to: ``openai`` (``/v1/chat/completions``,
    ``/v1/responses``), ``anthropic`` (``/v1/messages``), ``gemini`` (``…:generateContent``,
    ``…:streamGenerateContent``), else None."""
    path = path.rstrip("/")
    if path.endswith(("/chat/completions", "/responses")):
        return "openai"
    if path.endswith("/messages"):
        return "anthropic"
    if path.endswith((":generateContent", ":streamGenerateContent")):
        return "gemini"
    return None


def _api_error(api: str, code: int, shown: Explanation) -> dict[str, object]:
    """The error body ``api``'s SDK reads, carrying the (redacted) explanation."""
    if api == "anthropic":
        return {"type": "error", "error": {"type": "not_found_error", "message": shown.text}}
    if api == "gemini":
        gemini = _GEMINI_STATUS.get(code, "FAILED_PRECONDITION")
        return {"error": {"code": code, "message": shown.text, "status": gemini}}
    return shown.to_json()


def route(
    request: Request,
    entries: Sequence[E],
    states: Mapping[str, str],
    every: Sequence[E] | None = None,
    kept: Kept | None = None,
) -> Answer[E] | Miss:
    """Which of ``entries`` answers ``request``, with what (see the module's docstring).
    ``every``: all the entries, when ``entries`` are only those that could match its path
    (``_paths.PathIndex``): a miss is explained against all of them.  ``kept``: the
    state reply kinds declared (``_kept``), for the reply built."""
    method = request.method
    for entry in entries:  # find(request, entries, states, method), inlined: every request
        mock = entry.mock
        if (
            not entry.exhausted
            and mock.matches(request, method)
            and (mock.scenario_of is None or mock.in_state(states))
        ):
            return answer(request, entry, states, None, kept)
    found = find(request, entries, states, "GET") if method == "HEAD" else None
    if found is None:
        return Miss(request, entries if every is None else every, states)
    return answer(request, found, states, None, kept)


def route_front(
    request: Request, front: Sequence[E], states: Mapping[str, str], kept: Kept | None = None
) -> Answer[E] | None:
    """What the entries ranked above all the others answer (the server's own endpoints,
    which keep no state: ``_server/_builtin.py``), as ``route`` would, or None: route the
    request among the others.  Tried before the others are even looked up."""
    method = request.method
    for entry in front:
        if entry.mock.matches(request, method):
            return answer(request, entry, states, None, kept)
    found = find(request, front, states, "GET") if method == "HEAD" and front else None
    return None if found is None else answer(request, found, states, None, kept)


def find(
    request: Request, entries: Sequence[E], states: Mapping[str, str], method: str
) -> E | None:
    """The first of ``entries`` that answers ``request`` as if its method were ``method``."""
    for entry in entries:
        mock = entry.mock
        if (
            not entry.exhausted
            and mock.matches(request, method)
            and (mock.scenario_of is None or mock.in_state(states))
        ):
            return entry
    return None


def answer(
    request: Request,
    entry: E,
    states: Mapping[str, str],
    index: int | None = None,
    kept: Kept | None = None,
) -> Answer[E]:
    """What ``entry`` answers to ``request``, its ``index``-th call (None: its next)."""
    mock = entry.mock
    index = entry.call_count if index is None else index
    scenario = mock.scenario_of
    if scenario is not None and scenario.next_state is not None:
        states = {**states, scenario.name: scenario.next_state}
    if mock.sequence and index >= len(mock.sequence) and mock.exhausted == "error":
        error = VerificationError(
            f"mock {mock.describe()} was called {index + 1} times, and it has "
            f"{_count(len(mock.sequence), 'reply', 'replies')} (exhausted='error')"
        )
        return Answer(request, entry, index, None, (), states, error)
    try:
        reply = mock.reply_for(request, index, kept)
    except RefusedRequest as refused:  # the client's fault: it gets the kind's refusal
        return Answer(request, entry, index, refused.reply, (), states, refused)
    except Exception as exc:  # a handler's: the call counts, the client gets a 500
        return Answer(request, entry, index, None, (), states, exc)
    faults = mock.faults_for(index)
    faults = (*reply.faults, *faults) if reply.faults else faults
    return Answer(request, entry, index, reply, faults, states)


def by_target(request: Request, entries: Sequence[E], found: Answer[E]) -> bool:
    """True when ``found`` is what every request of this method and target gets, whatever
    its headers and body, for as long as ``entries`` do not change: its mock keeps no
    state, has a fixed fault-free reply and matches on the target alone (method, path,
    query), and no entry before it could match this target at all (so neither their state
    nor a request's headers or body can change the answer).  The server may then reuse
    the answer for such requests without routing them (``_server/_lane.py``)."""
    winner = found.entry
    mock = winner.mock
    if (
        found.error is not None
        or found.faults
        or keeps_state(mock)
        or not mock.fixed
        or not _on_target(mock)
        or request.method == "HEAD"  # (answered as a GET when no HEAD mock matches)
    ):
        return False
    method = request.method
    for entry in entries:
        if entry is winner:
            return True
        if _takes_target(entry.mock, request, method):
            return False
    return False


def _on_target(mock: Mock) -> bool:
    """True when ``mock`` matches on the request target alone (no header or body matcher)."""
    return all(c.field == "query" for c in mock.criteria)


def _takes_target(mock: Mock, request: Request, method: str) -> bool:
    """True when ``mock`` accepts the method and target (path, query) of ``request``: its
    header and body matchers, and its state, may then decide for some requests of that
    target and not others.  False: no request of this method and target matches it."""
    if mock.method is not None and mock.method != method:
        return False
    if mock.method_matcher is not None and not mock.method_matcher.matches(method):
        return False
    if mock.path_params(request) is None:
        return False
    for c in mock.criteria:
        if c.field == "query" and not c.matcher.matches(c.value(request)):
            return False
    return True


# -- the state held elsewhere (Rule 2) -----------------------------------------------------


def keeps_state(mock: Mock) -> bool:
    """True when what ``mock`` answers depends on its calls so far or on a scenario (its
    ``times``, its replies, its scenario): such a mock is answered through the state."""
    return mock.answers is not None or bool(mock.sequence) or mock.scenario_of is not None


@dataclass(frozen=True, slots=True)
class Claim:
    """What the keeper of the state needs of a matching entry: its mock's ``id``, how
    many requests it answers (``limit``, None: any number), its scenario's ``name``, the
    ``state`` it answers in and the ``next_state`` it moves to (None: any, stay)."""

    id: int
    limit: int | None = None
    scenario: str | None = None
    state: str | None = None
    next_state: str | None = None

    @classmethod
    def of(cls, mock_id: int, mock: Mock) -> Claim:
        sc = mock.scenario_of
        if sc is None:
            return cls(mock_id, limit_of(mock))
        return cls(mock_id, limit_of(mock), sc.name, sc.state, sc.next_state)


@dataclass(frozen=True, slots=True)
class Choice:
    """The keeper's answer: which claim answers (``position``, None: none), as its
    ``index``-th call, the scenario ``states`` before the call and the ``counts`` after;
    ``ticket``: what the keeper holds for the call until it ends (0: nothing)."""

    position: int | None
    index: int
    states: Mapping[str, str]
    counts: Mapping[int, int]
    ticket: int = 0


def choose(claims: Sequence[Claim], counts: Mapping[int, int], states: Mapping[str, str]) -> Choice:
    """The first of ``claims`` not used up (``counts``) and in its scenario's state; the
    counts and states are never changed: the new ones are in the ``Choice`` (its
    ``states`` are the states before; ``next_states`` gives those after)."""
    for position, claim in enumerate(claims):
        used = counts.get(claim.id, 0)
        if claim.limit is not None and used >= claim.limit:
            continue
        if claim.state is not None and states.get(claim.scenario or "", STARTED) != claim.state:
            continue
        return Choice(position, used, states, {**counts, claim.id: used + 1})
    return Choice(None, 0, states, counts)


def next_states(claim: Claim, states: Mapping[str, str]) -> Mapping[str, str]:
    """The scenario states after ``claim`` answered."""
    if claim.scenario is None or claim.next_state is None:
        return states
    return {**states, claim.scenario: claim.next_state}


class Identified(Entry, Protocol):
    """An entry with its mock's number on the server (shared state is kept by it)."""

    @property
    def id(self) -> int: ...


IE = TypeVar("IE", bound=Identified)
Tally = Callable[[Sequence[Claim]], Choice]


def route_shared(
    request: Request,
    entries: Sequence[IE],
    tally: Tally,
    every: Sequence[IE] | None = None,
    kept: Kept | None = None,
) -> Answer[IE] | Miss:
    """``route`` with the state held elsewhere: the matching entries up to the first that
    keeps no state are the candidates; that one answers at once when it comes first, else
    ``tally`` chooses among their claims (Rule 2).  ``every``: as for ``route``."""
    method = request.method
    states: Mapping[str, str] = {}
    for as_method in (method, "GET") if method == "HEAD" else (method,):
        candidates = _candidates(request, entries, as_method)
        if not candidates:
            continue
        if not keeps_state(candidates[0].mock):
            return answer(request, candidates[0], {}, None, kept)
        choice = tally([Claim.of(e.id, e.mock) for e in candidates])
        if choice.position is not None:
            found = answer(request, candidates[choice.position], choice.states, choice.index, kept)
            found.ticket = choice.ticket
            return found
        states = choice.states
    return Miss(request, entries if every is None else every, states)


def _candidates(request: Request, entries: Sequence[IE], method: str) -> list[IE]:
    """The entries that match ``request`` (state aside), up to the first that keeps none."""
    found = []
    for entry in entries:
        if entry.mock.matches(request, method):
            found.append(entry)
            if not keeps_state(entry.mock):
                break
    return found


def limit_of(mock: Mock) -> int | None:
    """How many requests ``mock`` answers (its ``times``, or its replies when they end
    unmatched); None: no limit.  An entry is ``exhausted`` once it has answered these."""
    limits = [mock.answers] if mock.answers is not None else []
    if mock.sequence and mock.exhausted == "unmatched":
        limits.append(len(mock.sequence))
    return min(limits) if limits else None


def _count(n: int, noun: str, plural: str) -> str:
    """``1 reply``, ``2 replies``."""
    return f"{n} {noun}" if n == 1 else f"{n} {plural}"
