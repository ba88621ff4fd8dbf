"""Client verdicts: what a client did across its requests, judged from the journal.

A test hands the calls a mock (or the server) received, oldest first, and the checks it
wants; each check gives a ``Verdict``: passed or not, with an explanation naming the call
(by its number in the list, from 1) and what was expected.  The same checks serve every
stream protocol: an EventSource or an LLM stream cut and resumed, an MCP client (its
resume on a GET, its protocol-version header, its session's DELETE), an A2A client (it
resubscribed, it did not send the message again), an AG-UI client (it came back, or said
the run failed).  Where the MCP conformance suite (``@modelcontextprotocol/conformance``)
scores the same behaviour in its client scenarios, the verdict names its check id.

Rule 1: pure: calls in (anything shaped like the journal's ``Call``), verdicts out; no
clock, no socket: the times are the ones the server wrote on the calls.
Rule 2: a call counts as cut when its reply did not complete (``closed``, ``reset``,
``stalled``), or when it streamed the answer to a JSON-RPC request and ended without the
response (a server closing the stream on purpose, as MCP servers may); a client that hung
up itself cut nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ._errors import ConfigError, VerificationError
from ._request import Request
from ._sse_decode import Message, decode

__all__ = [
    "Check",
    "JournalCall",
    "Verdict",
    "a2a_did_not_resend",
    "a2a_resubscribed",
    "agui_recovered",
    "assert_client",
    "deleted_session",
    "delivered_once",
    "gave_up_after",
    "honoured_retry_after",
    "is_cut",
    "judge",
    "mcp_protocol_version",
    "reconnected",
    "resume_problems",
    "resumed",
    "waited_retry",
]

CUT = frozenset({"closed", "reset", "stalled"})
_RETRY = re.compile(rb"(?:^|[\r\n])retry: ?([0-9]+)(?=\r\n|[\r\n])")
_VERSION = "mcp-protocol-version"
_SESSION = "mcp-session-id"
_A2A_STREAMS = frozenset({"message/stream", "SendStreamingMessage"})
_A2A_SENDS = _A2A_STREAMS | {"message/send", "SendMessage"}
_A2A_RESUBSCRIBE = frozenset({"tasks/resubscribe", "SubscribeToTask"})


class JournalCall(Protocol):
    """What a verdict reads of a call (``mockhttp.Call`` is one)."""

    @property
    def request(self) -> Request: ...
    @property
    def status(self) -> int | None: ...
    @property
    def outcome(self) -> str: ...
    @property
    def time(self) -> float: ...
    @property
    def cut_time(self) -> float | None: ...
    @property
    def body_sent(self) -> bytes | bytearray: ...


Calls = Sequence[JournalCall]


@dataclass(frozen=True, slots=True)
class Verdict:
    """One check's judgement of a client.

    Attributes:
        check: the check's name (``reconnected``, ``waited_retry`` ...).
        passed: whether the client did what the check asks.
        explanation: what went wrong, call by call; or, when it passed, what was seen.
        suite: the MCP conformance suite's check id for the same behaviour, if any.
    """

    check: str
    passed: bool
    explanation: str
    suite: str | None = None

    def __bool__(self) -> bool:
        return self.passed

    def __str__(self) -> str:
        suite = f" [{self.suite}]" if self.suite else ""
        return f"{'PASS' if self.passed else 'FAIL'} {self.check}{suite}: {self.explanation}"


@dataclass(frozen=True, slots=True)
class Check:
    """A check: a name, the suite's id for it, and the function that judges the calls
    (it returns the problems; none is a pass) and says what it saw."""

    name: str
    problems: Callable[[Calls], list[str]]
    seen: Callable[[Calls], str]
    suite: str | None = None

    def judge(self, calls: Iterable[JournalCall]) -> Verdict:
        """This check's verdict on ``calls`` (oldest first)."""
        listed = list(calls)
        found = self.problems(listed)
        text = "; ".join(found) if found else self.seen(listed)
        return Verdict(self.name, not found, text, self.suite)


def judge(calls: Iterable[JournalCall], *checks: Check) -> list[Verdict]:
    """Each check's verdict on ``calls``, in the order given."""
    listed = list(calls)
    return [check.judge(listed) for check in checks]


def assert_client(calls: Iterable[JournalCall], *checks: Check) -> list[Verdict]:
    """Every check's verdict on ``calls``; raise when one failed.

    Raises:
        VerificationError: one line per failed check (its name, the suite's id, what went
            wrong), then the calls, one a line.
        ConfigError: no check was given.
    """
    __tracebackhide__ = True
    if not checks:
        raise ConfigError("assert_client() needs at least one check, e.g. verdicts.reconnected()")
    listed = list(calls)
    verdicts = judge(listed, *checks)
    failed = [v for v in verdicts if not v.passed]
    if failed:
        lines = [f"the client failed {len(failed)} of {len(verdicts)} check(s):"]
        lines += [f"  {v}" for v in failed]
        lines += [f"  call {n}: {_summary(c)}" for n, c in enumerate(listed, 1)]
        raise VerificationError("\n".join(lines))
    return verdicts


def _summary(call: JournalCall) -> str:
    last = call.request.headers.get("last-event-id")
    resumed = "" if last is None else f", Last-Event-ID {last!r}"
    what = _rpc_method(call)
    return (f"{call.request.method} {call.request.path}{f' {what}' if what else ''}{resumed} → "
            f"{call.status}, {call.outcome}, events {_ids(call)}")  # fmt: skip


# -- reading calls ---------------------------------------------------------------------------


def _events(call: JournalCall) -> list[Message]:
    return [m for m in decode(bytes(call.body_sent)) if isinstance(m, Message)]


def _ids(call: JournalCall) -> list[str]:
    return [m.id for m in _events(call) if _has_id(m)]


def _has_id(message: Message) -> bool:
    return any(line.raw.split(b":", 1)[0] == b"id" for line in message.lines)


def _json(call: JournalCall) -> Any:
    try:
        return json.loads(call.request.body) if call.request.body else None
    except (ValueError, RecursionError, UnicodeDecodeError):
        return None


def _rpc_method(call: JournalCall) -> str | None:
    body = _json(call)
    method = body.get("method") if isinstance(body, dict) else None
    return method if isinstance(method, str) else None


def _answers(call: JournalCall) -> list[Any]:
    """The JSON values the reply carried: each event's data, or the JSON body."""
    events = _events(call)
    if events:
        found = []
        for m in events:
            try:
                found.append(json.loads(m.data))
            except (ValueError, RecursionError):
                continue
        return found
    try:
        value = json.loads(bytes(call.body_sent)) if call.body_sent else None
    except (ValueError, RecursionError, UnicodeDecodeError):
        return []
    return value if isinstance(value, list) else [value]


def is_cut(call: JournalCall) -> bool:
    """See the module's Rule 2."""
    if call.outcome in CUT:
        return True
    body = _json(call)
    if call.outcome != "complete" or not isinstance(body, dict) or "id" not in body:
        return False
    if "method" not in body or not _events(call):
        return False
    return not any(
        isinstance(a, dict) and "method" not in a and a.get("id") == body["id"]
        for a in _answers(call)
    )


def _label(n: int, call: JournalCall) -> str:
    what = _rpc_method(call)
    return f"call {n} ({call.request.method} {what or call.request.path})"


def _reconnect_of(calls: Calls, i: int, on: str | None) -> int | None:
    """The index of the call that reconnected after the cut of ``calls[i]``: the first
    later one carrying a Last-Event-ID of the cut stream's, else the first later one to
    the same path with method ``on`` (or the cut call's own)."""
    cut = calls[i]
    ids = set(_ids(cut))
    later = range(i + 1, len(calls))
    for j in later:
        last = calls[j].request.headers.get("last-event-id")
        if last is not None and last in ids and (on is None or calls[j].request.method == on):
            return j
    method = on or cut.request.method
    for j in later:
        c = calls[j]
        if c.request.method == method and c.request.path == cut.request.path:
            return j
    return None


def _cuts(calls: Calls) -> list[int]:
    return [i for i, c in enumerate(calls) if is_cut(c)]


# -- the checks ------------------------------------------------------------------------------


def reconnected(*, on: str | None = None) -> Check:
    """After each cut stream the client came back: a later request to the same path (with
    HTTP method ``on``: ``"GET"`` for MCP, whose client resumes a cut POST answer on a
    GET), or one carrying a Last-Event-ID of the cut stream."""

    def problems(calls: Calls) -> list[str]:
        cuts = _cuts(calls)
        if not cuts:
            return [f"no stream was cut ({len(calls)} call(s)): nothing to reconnect after"]
        return [
            f"the client never reconnected after the cut of {_label(i + 1, calls[i])}"
            + (f" with {on}" if on else "")
            for i in cuts
            if _reconnect_of(calls, i, on) is None
        ]

    def seen(calls: Calls) -> str:
        pairs = [(i, _reconnect_of(calls, i, on)) for i in _cuts(calls)]
        return ", ".join(f"call {i + 1} cut, call {(j or 0) + 1} came back" for i, j in pairs)

    return Check("reconnected", problems, seen, "client-sse-graceful-reconnect")


def _retry_before(calls: Calls, i: int) -> float | None:
    """The last ``retry`` (seconds) the client had read when ``calls[i]`` was cut."""
    found = None
    for call in calls[: i + 1]:
        values = _RETRY.findall(bytes(call.body_sent))
        if values:
            found = int(values[-1]) / 1000
    return found


def _ended_at(call: JournalCall) -> float | None:
    """When a cut call's stream ended for its client: its cut, or, for one the server
    ended on purpose (complete, without its response), its end (``Call.end_time``)."""
    cut = call.cut_time
    return cut if cut is not None else getattr(call, "end_time", None)


def waited_retry(
    retry: float | None = None, *, early: float = 0.05, factor: float | None = 2.0,
    on: str | None = None,
) -> Check:  # fmt: skip
    """Each reconnect came at least ``retry`` seconds after its cut (less ``early``, the
    suite's tolerance: 50 ms) and at most ``factor`` times it (plus ``early``): neither
    sooner (a reconnect storm) nor much later.  ``retry`` defaults to the last ``retry:``
    field the client read before the cut; ``factor=None`` sets no upper bound.  A stream
    the server ended on purpose (complete, without its response: MCP) counts from its end
    (``Call.end_time``)."""

    def problems(calls: Calls) -> list[str]:
        found = []
        for i in _cuts(calls):
            j = _reconnect_of(calls, i, on)
            cut_at = _ended_at(calls[i])
            if j is None:
                continue
            if cut_at is None:
                found.append(f"{_label(i + 1, calls[i])} ended on purpose (complete, without "
                             "its response): the journal has no time to count from")  # fmt: skip
                continue
            asked = retry if retry is not None else _retry_before(calls, i)
            if asked is None:
                found.append(f"no retry field reached the client before the cut of "
                             f"{_label(i + 1, calls[i])}: pass retry=")  # fmt: skip
                continue
            waited = calls[j].time - cut_at
            if waited + early < asked:
                found.append(f"call {j + 1} came {waited * 1000:.0f} ms after the cut, sooner "
                             f"than retry: {asked * 1000:.0f} ms")  # fmt: skip
            elif factor is not None and waited > factor * asked + early:
                found.append(f"call {j + 1} came {waited * 1000:.0f} ms after the cut, more "
                             f"than {factor:g} x retry: {asked * 1000:.0f} ms")  # fmt: skip
        return found

    def seen(calls: Calls) -> str:
        waits = []
        for i in _cuts(calls):
            j, cut_at = _reconnect_of(calls, i, on), _ended_at(calls[i])
            if j is not None and cut_at is not None:
                waits.append(f"call {j + 1} after {(calls[j].time - cut_at) * 1000:.0f} ms")
        return ", ".join(waits) or "no reconnect to time"

    return Check("waited_retry", problems, seen, "client-sse-retry-timing")


def resumed(*, on: str | None = None) -> Check:
    """Each reconnect carried ``Last-Event-ID``: the id of the last event the cut stream
    delivered whole (HTML's "last event ID string"; an event cut in the middle does not
    count).  ``on="GET"``: the reconnect is a GET (MCP's rule)."""

    def problems(calls: Calls) -> list[str]:
        found = []
        for i in _cuts(calls):
            j = _reconnect_of(calls, i, on)
            # nothing new on the cut call (itself a reconnect): the id it came with holds
            ids = _ids(calls[i])
            wanted = ids[-1] if ids else calls[i].request.headers.get("last-event-id")
            if j is None or wanted is None:
                continue
            last = calls[j].request.headers.get("last-event-id")
            if last != wanted:
                found.append(f"call {j + 1} came with Last-Event-ID {last!r}, expected "
                             f"{wanted!r} (the last event delivered whole before it)")  # fmt: skip
            if on is not None and calls[j].request.method != on:
                found.append(f"call {j + 1} resumed with {calls[j].request.method}, not {on}")
        return found

    def seen(calls: Calls) -> str:
        pairs = [(i, _reconnect_of(calls, i, on)) for i in _cuts(calls)]
        return (
            ", ".join(
                f"call {j + 1}: Last-Event-ID {calls[j].request.headers.get('last-event-id')!r}"
                for _, j in pairs
                if j is not None
            )
            or "no reconnect"
        )

    return Check("resumed", problems, seen, "client-sse-last-event-id")


def delivered_once(ids: Sequence[str | None] | None = None) -> Check:
    """Every event was delivered once across the calls (none twice); with ``ids``, each of
    those (the stream's) was delivered."""

    def problems(calls: Calls) -> list[str]:
        found = []
        seen_at: dict[str, int] = {}
        for n, call in enumerate(calls, 1):
            for event_id in _ids(call):
                if event_id in seen_at:
                    found.append(f"event id={event_id!r} was delivered twice "
                                 f"(calls {seen_at[event_id]} and {n})")  # fmt: skip
                seen_at.setdefault(event_id, n)
        missing = [i for i in ids or () if i is not None and i not in seen_at]
        if missing:
            found.append(f"events never delivered: {', '.join(map(repr, missing))}")
        return found

    def seen(calls: Calls) -> str:
        return f"{sum(len(_ids(c)) for c in calls)} event(s) with ids, each once"

    return Check("delivered_once", problems, seen)


def resume_problems(
    calls: Calls, ids: Sequence[str | None], retry: float | None, slack: float
) -> list[str]:
    """``mock.assert_resumed()``'s problems: a mock's calls read as one resumable stream
    (each call after the first is the reconnect of the one before)."""
    if len(calls) < 2:
        return [f"the client never reconnected ({len(calls)} call(s))"]
    checks = [resumed(), delivered_once(ids)]
    if retry is not None:
        checks.insert(0, waited_retry(retry, early=slack, factor=None))
    found = [v.explanation for v in judge(calls, *checks) if not v.passed]
    return [p for text in found for p in text.split("; ")]


def mcp_protocol_version() -> Check:
    """Every MCP request after ``initialize`` carried ``MCP-Protocol-Version`` with the
    revision it negotiated; a request with ``_meta``'s protocol version (revision
    2026-07-28) carried the same in the header."""

    def problems(calls: Calls) -> list[str]:
        found = []
        negotiated: str | None = None
        for n, call in enumerate(calls, 1):
            body = _json(call)
            sent = call.request.headers.get(_VERSION)
            meta = _meta_version(body)
            if meta is not None:
                if sent != meta:
                    found.append(f"{_label(n, call)} carried MCP-Protocol-Version {sent!r}, "
                                 f"its _meta {meta!r}")  # fmt: skip
            elif negotiated is not None and sent != negotiated:
                found.append(f"{_label(n, call)} carried MCP-Protocol-Version {sent!r}, "
                             f"expected {negotiated!r} (initialize negotiated it)")  # fmt: skip
            if _rpc_method(call) == "initialize":
                negotiated = _negotiated(call)
        return found

    def seen(calls: Calls) -> str:
        versions = {c.request.headers.get(_VERSION) for c in calls} - {None}
        return f"MCP-Protocol-Version {', '.join(sorted(map(str, versions))) or 'never sent'}"

    return Check("mcp_protocol_version", problems, seen,
                 "sep-2575-http-client-sends-version-header")  # fmt: skip


def _meta_version(body: Any) -> str | None:
    params = body.get("params") if isinstance(body, dict) else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    version = (
        meta.get("io.modelcontextprotocol/protocolVersion") if isinstance(meta, dict) else None
    )
    return version if isinstance(version, str) else None


def _negotiated(call: JournalCall) -> str | None:
    for answer in _answers(call):
        result = answer.get("result") if isinstance(answer, dict) else None
        version = result.get("protocolVersion") if isinstance(result, dict) else None
        if isinstance(version, str):
            return version
    return None


def deleted_session() -> Check:
    """The client ended each MCP session it used with a DELETE bearing its
    ``Mcp-Session-Id``, after its last request in it."""

    def problems(calls: Calls) -> list[str]:
        last: dict[str, tuple[int, JournalCall]] = {}
        for n, call in enumerate(calls, 1):
            session = call.request.headers.get(_SESSION)
            if session is not None:
                last[session] = (n, call)
        if not last:
            return ["no request carried an Mcp-Session-Id: there was no session to delete"]
        return [
            f"session {session!r} was not deleted: its last request was {_label(n, call)}"
            for session, (n, call) in last.items()
            if call.request.method != "DELETE"
        ]

    def seen(calls: Calls) -> str:
        n = sum(1 for c in calls if c.request.method == "DELETE")
        return f"{n} DELETE(s), each after the session's last request"

    return Check("deleted_session", problems, seen)


def _retry_after_of(call: JournalCall) -> float | None:
    reply = getattr(getattr(call, "mock", None), "response", None)
    for name, value in getattr(reply, "headers", ()):
        if name.lower() == "retry-after":
            try:
                return float(value)
            except ValueError:
                return None
    return None


def honoured_retry_after(seconds: float | None = None, *, early: float = 0.05) -> Check:
    """After each answer 429 or 503, the next request came no sooner than its
    ``Retry-After`` (``seconds``, else the header on the mock's reply), less ``early``."""

    def problems(calls: Calls) -> list[str]:
        found = []
        for n, call in enumerate(calls[:-1], 1):
            if call.status not in (429, 503):
                continue
            wait = seconds if seconds is not None else _retry_after_of(call)
            if wait is None:
                continue
            waited = calls[n].time - call.time
            if waited + early < wait:
                found.append(f"call {n + 1} came {waited * 1000:.0f} ms after call {n}'s "
                             f"{call.status}, sooner than its Retry-After: {wait:g} s")  # fmt: skip
        return found

    def seen(calls: Calls) -> str:
        n = sum(1 for c in calls if c.status in (429, 503))
        return f"{n} answer(s) 429/503, each waited out"

    return Check("honoured_retry_after", problems, seen)


def gave_up_after(tries: int) -> Check:
    """The client tried exactly ``tries`` times (the calls given: a failing endpoint's),
    then stopped: neither gave up sooner nor retried without a limit."""

    def problems(calls: Calls) -> list[str]:
        if len(calls) > tries:
            return [f"the client kept trying: {len(calls)} tries, expected it to give up "
                    f"after {tries}"]  # fmt: skip
        if len(calls) < tries:
            return [f"the client gave up after {len(calls)} tries, expected {tries}"]
        return []

    def seen(calls: Calls) -> str:
        return f"{len(calls)} {'try' if len(calls) == 1 else 'tries'}, then it stopped"

    return Check("gave_up_after", problems, seen)


def _task_ids(call: JournalCall) -> set[str]:
    found: set[str] = set()
    for answer in _answers(call):
        result = answer.get("result") if isinstance(answer, dict) else None
        if not isinstance(result, dict):
            continue
        parts = [result] + [result[k] for k in ("task", "statusUpdate", "artifactUpdate")
                            if isinstance(result.get(k), dict)]  # fmt: skip
        for part in parts:
            if isinstance(part.get("taskId"), str):
                found.add(part["taskId"])
            if (part.get("kind") == "task" or part is result.get("task")) and isinstance(
                part.get("id"), str
            ):
                found.add(part["id"])
    return found


def _params(call: JournalCall) -> dict[str, Any]:
    body = _json(call)
    params = body.get("params") if isinstance(body, dict) else None
    return params if isinstance(params, dict) else {}


def a2a_resubscribed() -> Check:
    """After each cut A2A stream (``message/stream``, ``SendStreamingMessage``), the client
    resubscribed to its task (``tasks/resubscribe``, ``SubscribeToTask`` with its id)."""

    def problems(calls: Calls) -> list[str]:
        found = []
        streams = [i for i, c in enumerate(calls) if _rpc_method(c) in _A2A_STREAMS and is_cut(c)]
        if not streams:
            return ["no A2A stream was cut: nothing to resubscribe to"]
        for i in streams:
            tasks = _task_ids(calls[i])
            if not tasks:
                found.append(f"{_label(i + 1, calls[i])} was cut before it named its task: "
                             "the client cannot resubscribe")  # fmt: skip
                continue
            back = [c for c in calls[i + 1 :] if _rpc_method(c) in _A2A_RESUBSCRIBE
                    and _params(c).get("id") in tasks]  # fmt: skip
            if not back:
                named = ", ".join(sorted(tasks))
                found.append(f"the client never resubscribed to task {named} after the "
                             f"cut of {_label(i + 1, calls[i])}")  # fmt: skip
        return found

    def seen(calls: Calls) -> str:
        n = sum(1 for c in calls if _rpc_method(c) in _A2A_RESUBSCRIBE)
        return f"{n} resubscription(s) after the cut"

    return Check("a2a_resubscribed", problems, seen)


def a2a_did_not_resend() -> Check:
    """No A2A message was sent twice (the same ``messageId``): a client that lost a stream
    resubscribes to the task, it does not ask the agent again."""

    def problems(calls: Calls) -> list[str]:
        first: dict[str, int] = {}
        found = []
        for n, call in enumerate(calls, 1):
            if _rpc_method(call) not in _A2A_SENDS:
                continue
            message = _params(call).get("message")
            key = message.get("messageId") if isinstance(message, dict) else None
            if not isinstance(key, str):
                continue
            if key in first:
                found.append(f"message {key!r} was sent again in {_label(n, call)} (first in "
                             f"call {first[key]})")  # fmt: skip
            first.setdefault(key, n)
        return found

    def seen(calls: Calls) -> str:
        return f"{sum(1 for c in calls if _rpc_method(c) in _A2A_SENDS)} message(s), each once"

    return Check("a2a_did_not_resend", problems, seen)


def agui_recovered(surfaced: Iterable[str] = ()) -> Check:
    """After each cut AG-UI run the client either ran again (a later POST to the same
    path) or surfaced the failure: ``RUN_ERROR`` is among ``surfaced``, the event types
    the client reported to its caller (e.g. an ``@ag-ui/client`` subscriber's)."""
    told = "RUN_ERROR" in set(surfaced)

    def problems(calls: Calls) -> list[str]:
        cuts = [i for i, c in enumerate(calls) if c.request.method == "POST" and is_cut(c)]
        if not cuts:
            return ["no AG-UI run was cut: nothing to recover from"]
        if told:
            return []
        return [
            f"after the cut of {_label(i + 1, calls[i])} the client neither ran again nor "
            "surfaced RUN_ERROR"
            for i in cuts
            if _reconnect_of(calls, i, "POST") is None
        ]

    def seen(calls: Calls) -> str:
        return "surfaced RUN_ERROR" if told else "ran again after each cut"

    return Check("agui_recovered", problems, seen)
