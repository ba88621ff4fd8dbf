"""Routing: which mock answers a request, with which reply and faults (pure).

``route(request, entries, states)`` tries the registered mocks in the order given (the
server ranks them: the highest priority first, then the newest), a ``HEAD`` request then
as a ``GET`` (RFC 9110: HEAD is GET without the content), and returns an ``Answer`` (the
entry that answers, its call's index, the reply and the faults for that index, the
scenario states after it) or a ``Miss`` (with the report of the closest mocks).

Rule 1: the state goes in and comes out as data.  Each entry says how many calls it has
answered (``call_count``) and whether it answers no more (``exhausted``); the scenario
states are a mapping that is never changed: a move gives a new one in ``Answer.states``.
The caller (the server) owns the state and records the answer; nothing here locks, reads
a clock or does I/O.
Rule 2: a reply's errors are data too: a handler that raises, or a sequence used up with
``exhausted="error"``, gives an ``Answer`` whose ``error`` is set (the call still counts);
a reply kind that refuses the request (``RefusedRequest``) gives both its ``reply`` (for
the client) and the ``error`` (for ``server.check()``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Generic, Protocol, TypeVar

from ._errors import RefusedRequest, VerificationError
from ._explain import Explanation, explain
from ._mock import Mock
from ._plan import Fault
from ._reply import Reply, status
from ._request import Request

__all__ = ["Answer", "Entry", "Miss", "limit_of", "route"]


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
    ``reply`` is the refusal the client gets)."""

    __slots__ = ("entry", "error", "faults", "index", "reply", "states")

    def __init__(
        self,
        entry: E,
        index: int,
        reply: Reply | None,
        faults: tuple[Fault, ...],
        states: Mapping[str, str],
        error: Exception | None = None,
    ) -> None:
        self.entry = entry
        self.index = index
        self.reply = reply
        self.faults = faults
        self.states = states
        self.error = error


class Miss:
    """No mock matched: ``explanation`` says why (the closest mocks, field by field)."""

    __slots__ = ("explanation",)

    def __init__(self, explanation: Explanation) -> None:
        self.explanation = explanation

    def reply(self, code: int) -> Reply:
        """The ``code`` reply with the explanation: JSON for a client that asks for JSON
        (and not for text), else text."""
        accept = self.explanation.request.headers.get("accept", "")
        if "json" in accept and "text/plain" not in accept:
            return status(code).json(self.explanation.to_json())
        return (
            status(code)
            .header("Content-Type", "text/plain; charset=utf-8")
            .body(self.explanation.text + "\n")
        )


def route(request: Request, entries: Sequence[E], states: Mapping[str, str]) -> Answer[E] | Miss:
    """Which of ``entries`` answers ``request``, with what (see the module's docstring)."""
    method = request.method
    for entry in entries:  # find(request, entries, states, method), inlined: every request
        mock = entry.mock
        if (
            not entry.exhausted
            and mock.matches(request, method)
            and (mock.scenario_of is None or mock.in_state(states))
        ):
            return answer(request, entry, states)
    found = find(request, entries, states, "GET") if method == "HEAD" else None
    if found is None:
        return Miss(explain(request, [e.mock for e in entries], states))
    return answer(request, found, states)


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


def answer(request: Request, entry: E, states: Mapping[str, str]) -> Answer[E]:
    """What ``entry`` answers to ``request``, its next call."""
    mock = entry.mock
    index = entry.call_count
    scenario = mock.scenario_of
    if scenario is not None and scenario.next_state is not None:
        states = {**states, scenario.name: scenario.next_state}
    if mock.sequence and index >= len(mock.sequence) and mock.exhausted == "error":
        error = VerificationError(
            f"mock {mock.describe()} was called {index + 1} times, and it has "
            f"{_count(len(mock.sequence), 'reply', 'replies')} (exhausted='error')"
        )
        return Answer(entry, index, None, (), states, error)
    try:
        reply = mock.reply_for(request, index)
    except RefusedRequest as refused:  # the client's fault: it gets the kind's refusal
        return Answer(entry, index, refused.reply, (), states, refused)
    except Exception as exc:  # a handler's: the call counts, the client gets a 500
        return Answer(entry, index, None, (), states, exc)
    return Answer(entry, index, reply, mock.faults_for(index), states)


def limit_of(mock: Mock) -> int | None:
    """How many requests ``mock`` answers (its ``times``, or its replies when they end
    unmatched); None: no limit.  An entry is ``exhausted`` once it has answered these."""
    limits = [mock.times] if mock.times is not None else []
    if mock.sequence and mock.exhausted == "unmatched":
        limits.append(len(mock.sequence))
    return min(limits) if limits else None


def _count(n: int, noun: str, plural: str) -> str:
    """``1 reply``, ``2 replies``."""
    return f"{n} {noun}" if n == 1 else f"{n} {plural}"
