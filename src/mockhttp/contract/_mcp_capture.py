"""mcp captures: the Streamable HTTP transport's rules over a recorded session, per revision.

A capture is the exchanges of one client with one MCP server, in the order they were
sent: each request (method, the protocol headers, the JSON-RPC body) and its answer
(status, headers, the raw body), when it started and ended, and whether the client closed
it (a stream it stopped reading, a cut it made on purpose). scripts/mcp_capture.py writes
them from real servers; ``mockhttp check --profile mcp --capture FILE`` reads them.

The rules of one exchange are the ``mcp`` profile's (``_mcp.py``), run on each answer.
The rules here need the session: what initialize issued, a DELETE and what came after,
streams open at once, a resumption.  Each exchange is judged under its revision: the
``MCP-Protocol-Version`` it carried, else the one its session negotiated, else
``2025-03-26`` (the spec's rule for a request without the header).  Where the
conformance suite (``@modelcontextprotocol/conformance``) has a check, the finding names
its id in brackets.

Rule 1: pure: data in (a capture's text), findings out; the file is read by the caller.
Rule 2: agree with the suite on every valid case: a SHOULD it reports as a warning is a
warning here, and a rule applies from the revision the suite runs it in.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .._core._sse_decode import Message, decode
from ._check import Outcome, evaluate
from ._finding import Finding
from ._rule import Hit, Rule, short
from ._stream import Stream
from ._transcript import Chunk, Transcript

__all__ = [
    "MCP_TRANSPORT",
    "SESSION_REQUIRED",
    "Exchange",
    "check_capture",
    "loads_capture",
    "transport",
]

REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
STATELESS = "2026-07-28"
PRIMING = "2025-11-25"  # SEP-1699: priming events and retry, from this revision
DEFAULT = "2025-03-26"  # the spec: a server without the header assumes this one
_SESSION = "mcp-session-id"
_RETRY = re.compile(rb"(?:^|[\r\n])retry: ?[0-9]+(?:\r\n|[\r\n])")  # any block's, dispatched or not


@dataclass(frozen=True, slots=True)
class Exchange:
    """One request of a capture and its answer.

    Attributes:
        method: the HTTP method (``POST``, ``GET``, ``DELETE``).
        transcript: the answer, with the request's JSON-RPC body and protocol headers.
        started: seconds from the capture's start when the request was sent (or None).
        ended: seconds from the capture's start when the answer ended (or None).
        closed_by_client: the client stopped reading (a stream it left, a cut it made).
        revision: the revision it is judged under (see the module).
    """

    method: str
    transcript: Transcript
    started: float | None = None
    ended: float | None = None
    closed_by_client: bool = False
    revision: str = DEFAULT
    number: int = field(default=0, compare=False)

    @property
    def label(self) -> str:
        """``#3 POST tools/list``, ``#12 GET (Last-Event-ID 20)``: how reports name it."""
        request = self.transcript.request
        what = request.get("method") if isinstance(request, dict) else None
        if isinstance(request, list):
            what = "a batch"
        last = self.transcript.request_header("last-event-id")
        if last is not None:
            what = f"(Last-Event-ID {last})"
        return " ".join(str(p) for p in (f"#{self.number}", self.method, what) if p)

    @property
    def session(self) -> str | None:
        return self.transcript.request_header(_SESSION)


# -- reading a capture --------------------------------------------------------------------


def loads_capture(text: str, source: str = "<capture>") -> list[Exchange]:
    """The exchanges of a capture file's text (JSON; scripts/mcp_capture.py writes them).

    Raises:
        ValueError: not a capture; the message names the file, the exchange and the field.
    """
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"{source}: not JSON: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("exchanges"), list):
        raise ValueError(f"{source}: expected an object with an 'exchanges' list")
    read = [
        _exchange(e, f"{source}: exchanges[{n}]", n + 1) for n, e in enumerate(data["exchanges"])
    ]
    return with_revisions(read)


def _exchange(value: Any, where: str, number: int) -> Exchange:
    if not isinstance(value, dict):
        raise ValueError(f"{where}: expected an object, got {short(value)}")
    method = _field(value, "method", str, where)
    status = value.get("status")
    if status is not None and not isinstance(status, int):
        raise ValueError(f"{where}.status: expected an integer, got {short(status)}")
    body = _field(value, "body", str, where, "")
    transcript = Transcript(
        status,
        _pairs(value.get("headers", []), f"{where}.headers"),
        (Chunk(body.encode()),) if body else (),
        value.get("request"),
        error=value.get("error"),
        request_headers=_pairs(value.get("request_headers", []), f"{where}.request_headers"),
    )
    started, ended = value.get("started"), value.get("ended")
    for name, moment in (("started", started), ("ended", ended)):
        if moment is not None and not isinstance(moment, (int, float)):
            raise ValueError(f"{where}.{name}: expected seconds, got {short(moment)}")
    closed = bool(value.get("closed_by_client", False))
    return Exchange(method.upper(), transcript, started, ended, closed, number=number)


def _field(value: dict[str, Any], name: str, kind: type, where: str, default: Any = None) -> Any:
    found = value.get(name, default)
    if not isinstance(found, kind):
        raise ValueError(f"{where}.{name}: expected {kind.__name__}, got {short(found)}")
    return found


def _pairs(value: Any, where: str) -> tuple[tuple[str, str], ...]:
    if isinstance(value, dict):
        value = list(value.items())
    if not isinstance(value, list) or not all(
        isinstance(p, (list, tuple)) and len(p) == 2 and all(isinstance(x, str) for x in p)
        for p in value
    ):
        raise ValueError(f"{where}: expected [name, value] pairs of strings")
    return tuple((str(k), str(v)) for k, v in value)


def with_revisions(exchanges: Sequence[Exchange]) -> list[Exchange]:
    """``exchanges`` numbered from 1, each with the revision it is judged under."""
    negotiated: dict[str, str] = {}
    out = []
    for n, exchange in enumerate(exchanges, 1):
        t = exchange.transcript
        header = t.request_header("mcp-protocol-version")
        session = t.request_header(_SESSION)
        if header:
            revision = header
        elif _is_initialize(t.request):
            revision = _answered_version(t) or DEFAULT
        else:
            revision = negotiated.get(session or "", DEFAULT)
        issued = t.header(_SESSION)
        if _is_initialize(t.request) and issued:
            negotiated[issued] = _answered_version(t) or revision
        out.append(replace(exchange, revision=revision, number=n))
    return out


def _is_initialize(request: Any) -> bool:
    return isinstance(request, dict) and request.get("method") == "initialize"


def _messages(t: Transcript) -> list[tuple[Message | None, Any]]:
    """The answer's JSON-RPC messages: an SSE stream's events' data, or a JSON body."""
    body = t.body
    content_type = (t.header("content-type") or "").partition(";")[0].strip().lower()
    if content_type == "text/event-stream":
        found: list[tuple[Message | None, Any]] = []
        for item in decode(body):
            if isinstance(item, Message) and item.data:
                try:
                    found.append((item, json.loads(item.data)))
                except (ValueError, RecursionError):
                    continue
        return found
    try:
        value = json.loads(body) if body else None
    except (ValueError, RecursionError):
        return []
    return [(None, v) for v in (value if isinstance(value, list) else [value])]


def _events(t: Transcript) -> list[Message]:
    if (t.header("content-type") or "").partition(";")[0].strip().lower() != "text/event-stream":
        return []
    return [item for item in decode(t.body) if isinstance(item, Message)]


def _has_id(message: Message) -> bool:
    return any(line.raw.split(b":", 1)[0] == b"id" for line in message.lines)


def _answered_version(t: Transcript) -> str | None:
    for _, value in _messages(t):
        result = value.get("result") if isinstance(value, dict) else None
        version = result.get("protocolVersion") if isinstance(result, dict) else None
        if isinstance(version, str):
            return version
    return None


# -- the rules ------------------------------------------------------------------------------

_Found = Iterator[tuple[Exchange, str]]


def _streams_from(revision: str, exchanges: Sequence[Exchange]) -> Iterator[Exchange]:
    """The POST answers that are SSE streams, in exchanges of ``revision`` or later."""
    for e in exchanges:
        ours = e.revision in REVISIONS and e.revision >= revision
        if ours and e.method == "POST" and e.transcript.status == 200 and _events(e.transcript):
            yield e


def _priming(exchanges: Sequence[Exchange]) -> _Found:
    for e in _streams_from(PRIMING, exchanges):
        events = _events(e.transcript)
        if not any(_has_id(m) for m in events):
            continue  # a stream without ids cannot be resumed: nothing to prime
        first = events[0]
        if not (_has_id(first) and first.data == ""):
            yield e, ("its events carry ids but it does not open with a priming event (an "
                      "id and empty data) [server-sse-priming-event]")  # fmt: skip


def _retry(exchanges: Sequence[Exchange]) -> _Found:
    for e in _streams_from(PRIMING, exchanges):
        events = _events(e.transcript)
        if any(_has_id(m) for m in events) and not _RETRY.search(e.transcript.body):
            yield e, ("a resumable stream (its events carry ids) without a retry field: the "
                      "client cannot know when to reconnect [server-sse-retry-field]")  # fmt: skip


def _issued(exchanges: Sequence[Exchange]) -> set[str]:
    return {
        s
        for e in exchanges
        if _is_initialize(e.transcript.request) and (s := e.transcript.header(_SESSION))
    }


def _session_required(exchanges: Sequence[Exchange]) -> _Found:
    if not _issued(exchanges):
        return
    for e in exchanges:
        t = e.transcript
        if e.method != "POST" or e.revision == STATELESS or _is_initialize(t.request):
            continue
        if e.session is None and t.status is not None and t.status < 300:
            yield e, f"a request without Mcp-Session-Id got {t.status}, not 400"


def _session_ended(exchanges: Sequence[Exchange]) -> _Found:
    ended: dict[str, Exchange] = {}
    for e in exchanges:
        status = e.transcript.status
        if e.session in ended and status != 404 and e.method != "DELETE":
            yield e, (f"a request on the session ended by {ended[e.session].label} got "
                      f"{status}, not 404 [server-session-terminated-returns-404]")  # fmt: skip
        if e.method == "DELETE" and e.session is not None and status is not None:
            if 200 <= status < 300:
                ended.setdefault(e.session, e)
            elif status not in (404, 405):
                yield e, (f"DELETE of the session got {status}: expected 2xx, or 405 for a "
                          "server that does not end sessions "
                          "[server-session-delete-accepted]")  # fmt: skip


def _protocol_version(exchanges: Sequence[Exchange]) -> _Found:
    for e in exchanges:
        sent = e.transcript.request_header("mcp-protocol-version")
        status = e.transcript.status
        if sent is not None and sent not in REVISIONS and status is not None and status != 400:
            yield e, (f"MCP-Protocol-Version {short(sent)}, which no revision has, got "
                      f"{status}: a server answers an unsupported revision with 400")  # fmt: skip


def _error_id(exchanges: Sequence[Exchange]) -> _Found:
    for e in exchanges:
        request = e.transcript.request
        if e.revision != STATELESS or not isinstance(request, dict) or "id" not in request:
            continue
        for _, value in _messages(e.transcript):
            if isinstance(value, dict) and "error" in value and value.get("id") != request["id"]:
                yield e, (f"an error answer carries id {short(value.get('id'))}, not the "
                          f"request's {short(request['id'])} "
                          "[sep-2575-http-server-error-jsonrpc-id]")  # fmt: skip


def _stateless(exchanges: Sequence[Exchange]) -> _Found:
    for e in exchanges:
        t = e.transcript
        if e.revision != STATELESS or t.status is None or not 200 <= t.status < 300:
            continue
        if t.header(_SESSION) is not None:
            yield e, (f"Mcp-Session-Id {short(t.header(_SESSION))} on a {STATELESS} answer: "
                      "the revision has no sessions [server-stateless]")  # fmt: skip
        if _is_initialize(t.request) and any(
            isinstance(v, dict) and "result" in v for _, v in _messages(t)
        ):
            yield e, f"initialize answered with a result: {STATELESS} removed it [server-stateless]"


def _several_streams(exchanges: Sequence[Exchange]) -> _Found:
    posts = [e for e in exchanges if e.method == "POST" and e.started is not None]
    for e in posts:
        if e.transcript.status is None or e.transcript.status < 400:
            continue
        method = _method_of(e)
        for other in posts:
            if other is e or other.session != e.session or _method_of(other) != method:
                continue
            overlap = _overlaps(e, other)
            if overlap and other.transcript.status is not None and other.transcript.status < 300:
                yield e, (f"{e.transcript.status} while {other.label} was open, which got "
                          f"{other.transcript.status}: a client may have several streams "
                          "open [server-accepts-multiple-post-streams]")  # fmt: skip
                break


def _method_of(e: Exchange) -> Any:
    request = e.transcript.request
    return request.get("method") if isinstance(request, dict) else None


def _overlaps(a: Exchange, b: Exchange) -> bool:
    if None in (a.started, a.ended, b.started, b.ended):
        return False
    assert a.started is not None
    assert a.ended is not None
    assert b.started is not None
    assert b.ended is not None
    return a.started < b.ended and b.started < a.ended


def _resume(exchanges: Sequence[Exchange]) -> _Found:
    for n, e in enumerate(exchanges):
        last = e.transcript.request_header("last-event-id")
        if e.method != "GET" or last is None:
            continue
        source = _stream_with(exchanges[:n], last)
        status = e.transcript.status
        if source is None or status == 405:
            continue
        if status != 200:
            yield e, (f"a reconnection with Last-Event-ID {short(last)} got {status} "
                      "[server-sse-disconnect-resume]")  # fmt: skip
            continue
        had = [m.id for m in _events(source.transcript) if _has_id(m)]
        had = had[: had.index(last) + 1]
        again = [m.id for m in _events(e.transcript) if _has_id(m) and m.id in had]
        if again:
            yield e, (f"the resumed stream replays event {short(again[0])}, which the client "
                      f"had before Last-Event-ID {short(last)}: replay starts after it "
                      "[server-sse-disconnect-resume]")  # fmt: skip
        wanted = _request_id(source)
        if wanted is not None and not _responded(source, wanted) and not _responded(e, wanted):
            yield e, (f"the response to {source.label} came neither before the cut nor on "
                      "the resumed stream [server-sse-disconnect-resume]")  # fmt: skip


def _stream_with(exchanges: Sequence[Exchange], event_id: str) -> Exchange | None:
    for e in reversed(exchanges):
        if any(_has_id(m) and m.id == event_id for m in _events(e.transcript)):
            return e
    return None


def _request_id(e: Exchange) -> Any:
    request = e.transcript.request
    return request.get("id") if isinstance(request, dict) and "method" in request else None


def _responded(e: Exchange, id_: Any) -> bool:
    return any(
        isinstance(v, dict) and "method" not in v and v.get("id") == id_
        for _, v in _messages(e.transcript)
    )


def _one_stream(exchanges: Sequence[Exchange]) -> _Found:
    asked: dict[tuple[str | None, str], int] = {}
    for e in exchanges:
        if (key := _request_id(e)) is not None:
            slot = (e.session, json.dumps(key))
            asked[slot] = asked.get(slot, 0) + 1
    seen: dict[tuple[str | None, str], tuple[Exchange, str | None]] = {}
    for e in exchanges:
        for where, value in _messages(e.transcript):
            if not (isinstance(value, dict) and "method" not in value and "id" in value):
                continue
            slot = (e.session, json.dumps(value["id"]))
            event_id = where.id if where is not None and _has_id(where) else None
            first = seen.get(slot)
            if first is None:
                seen[slot] = (e, event_id)
            elif (
                first[0] is not e
                and asked.get(slot) == 1
                and (event_id is None or event_id != first[1])
            ):
                yield e, (f"the response to id {slot[1]} again, first sent on {first[0].label}: "
                          "a server sends each message on one stream only")  # fmt: skip


def _never(stream: Stream) -> Iterator[Hit]:
    return iter(())


def _rule(id_: str, severity: Any, checks: str, why: str) -> Rule:
    return Rule(id_, severity, checks, why, "none known", _never)


SESSION_REQUIRED = _rule(
    "mcp.session-required", "warning",
    "Once initialize issued an Mcp-Session-Id, a POST without it gets 400 (revisions "
    "before 2026-07-28; live mode and captures).",
    "A server that answers anyway hides a client that lost its session.")  # fmt: skip

MCP_TRANSPORT: tuple[Rule, ...] = (
    _rule("mcp.priming", "warning",
          "From revision 2025-11-25, a POST answer streamed with event ids opens with a "
          "priming event: an id and empty data (suite: server-sse-priming-event; a SHOULD, "
          "and its warning). A stream without ids is not resumable and needs none.",
          "The priming id is what a client reconnects with when the stream is cut before "
          "the first message."),
    _rule("mcp.retry", "warning",
          "From revision 2025-11-25, a resumable SSE answer (its events carry ids) sends a "
          "retry field (suite: server-sse-retry-field).",
          "Without it each client picks its own reconnection delay."),
    SESSION_REQUIRED,
    _rule("mcp.session-ended", "violation",
          "After a DELETE of the session answered 2xx, a request bearing its id gets 404 "
          "(suite: server-session-terminated-returns-404); a DELETE gets 2xx, or 405 from a "
          "server that does not end sessions (server-session-delete-accepted, a warning).",
          "A 404 is how a client learns to start a new session."),
    _rule("mcp.protocol-version", "violation",
          "A request whose MCP-Protocol-Version names no revision gets 400.",
          "The spec's MUST: a client on a revision the server does not speak is told so, "
          "not answered in another."),
    _rule("mcp.error-id", "violation",
          "In revision 2026-07-28, every error answer carries the id of the request it "
          "answers, whatever the HTTP status (suite: sep-2575-http-server-error-jsonrpc-id). "
          "Earlier revisions: JSON-RPC errors on a 200 answer (mcp.answered-once); the SDKs "
          "answer transport errors (400, 404) with id null there, and the suite does not "
          "check them.",
          "A client matches an error to its call by id."),
    _rule("mcp.stateless", "violation",
          "In revision 2026-07-28, no answer carries Mcp-Session-Id and initialize is not "
          "answered with a result (suite: server-stateless).",
          "The revision has no sessions: a client that kept one would send it nowhere."),
    _rule("mcp.streams", "violation",
          "POSTs of one session open at the same time are each answered: one is not refused "
          "while another with the same method is served (suite: "
          "server-accepts-multiple-post-streams).",
          "Clients send calls in parallel, each on its own stream."),
    _rule("mcp.resume", "violation",
          "A GET with Last-Event-ID resumes the stream that had the id: 200 (or 405 from a "
          "server without the GET stream), no event the client had up to that id again, "
          "and the cut request's response there if it had not come (suite: "
          "server-sse-disconnect-resume).",
          "A replay from the wrong place delivers a message twice; a lost response leaves "
          "the call waiting."),
    _rule("mcp.one-stream", "violation",
          "A response goes out on one stream only (a replay after Last-Event-ID aside): the "
          "same response id on two streams of a session, for a request sent once, is a "
          "violation.",
          "Clients deliver what each stream brings; a second copy is a second result."),
)  # fmt: skip
"""The ``mcp`` profile's rules over a capture (docs/contract.md shows them too)."""

_FINDERS: Mapping[str, Callable[[Sequence[Exchange]], _Found]] = {
    "mcp.priming": _priming,
    "mcp.retry": _retry,
    "mcp.session-required": _session_required,
    "mcp.session-ended": _session_ended,
    "mcp.protocol-version": _protocol_version,
    "mcp.error-id": _error_id,
    "mcp.stateless": _stateless,
    "mcp.streams": _several_streams,
    "mcp.resume": _resume,
    "mcp.one-stream": _one_stream,
}


def check_capture(exchanges: Sequence[Exchange]) -> list[Outcome]:
    """The ``mcp`` rules on each answer of a capture, then the transport's rules over it
    all (the last outcome, ``transport``)."""
    exchanges = with_revisions(exchanges)
    outcomes = []
    for e in exchanges:
        if e.method == "DELETE":
            continue
        t = e.transcript
        if e.closed_by_client and t.error is None:
            t = replace(t, error="the client closed it (the capture's own cut)")
        outcomes.append(evaluate(t, "mcp", f"{e.label} [{e.revision}]"))
    outcomes.append(transport(exchanges))
    return outcomes


def transport(exchanges: Sequence[Exchange]) -> Outcome:
    """The transport's rules over a session's exchanges (numbered, revisions read)."""
    exchanges = with_revisions(exchanges)
    findings: list[Finding] = []
    for rule in MCP_TRANSPORT:
        for exchange, message in _FINDERS[rule.id](exchanges):
            findings.append(Finding(rule.id, rule.severity, message, None, None, exchange.label))
    return Outcome("transport", MCP_TRANSPORT, tuple(findings), (), ("mcp transport",))
