"""Client verdicts (``mockhttp.verdicts``), pure: calls as data in, verdicts out.

The calls here are plain records shaped as the journal's (``JournalCall``): a request,
a status, an outcome, arrival and cut times, the bytes sent.  tests/server/test_verdicts.py
judges real clients on real sockets.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from mockhttp import ConfigError, VerificationError, verdicts
from mockhttp._core._request import Headers, Request
from mockhttp._core._verdicts import is_cut, resume_problems


@dataclass
class Seen:
    request: Request
    status: int | None = 200
    outcome: str = "complete"
    time: float = 0.0
    cut_time: float | None = None
    body_sent: bytearray = field(default_factory=bytearray)
    mock: Any = None


def call(
    method: str = "GET",
    path: str = "/events",
    *,
    at: float = 0.0,
    cut: float | None = None,
    sent: bytes = b"",
    body: Any = None,
    status: int = 200,
    **headers: str,
) -> Seen:
    head = Headers(tuple((k.replace("_", "-"), v) for k, v in headers.items()))
    raw = b"" if body is None else json.dumps(body).encode()
    outcome = "closed" if cut is not None else "complete"
    return Seen(Request(method, path, head, raw), status, outcome, at, cut, bytearray(sent))


def events(*ids: str, retry: int | None = None) -> bytes:
    head = b"" if retry is None else f"retry: {retry}\n\n".encode()
    return head + b"".join(f"id: {i}\ndata: e{i}\n\n".encode() for i in ids)


def rpc(method: str, id_: int | None = None, **params: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
    if id_ is not None:
        message["id"] = id_
    return message


def sse(*messages: dict[str, Any], first_id: int = 1) -> bytes:
    return b"".join(
        f"id: {n}\ndata: {json.dumps(m)}\n\n".encode() for n, m in enumerate(messages, first_id)
    )


GOOD = [
    call(at=0.0, cut=1.0, sent=events("1", "2", retry=500)),
    call(at=1.6, last_event_id="2", sent=events("3", "4")),
]


def explain(calls: list[Seen], *checks: verdicts.Check) -> list[str]:
    return [v.explanation for v in verdicts.judge(calls, *checks) if not v.passed]


def test_a_good_resume_passes_every_check() -> None:
    found = verdicts.judge(
        GOOD, verdicts.reconnected(), verdicts.waited_retry(), verdicts.resumed(),
        verdicts.delivered_once(["1", "2", "3", "4"]),
    )  # fmt: skip
    assert all(found), [str(v) for v in found]
    assert [str(v) for v in found] == [
        "PASS reconnected [client-sse-graceful-reconnect]: call 1 cut, call 2 came back",
        "PASS waited_retry [client-sse-retry-timing]: call 2 after 600 ms",
        "PASS resumed [client-sse-last-event-id]: call 2: Last-Event-ID '2'",
        "PASS delivered_once: 4 event(s) with ids, each once",
    ]


def test_never_reconnected_and_nothing_cut() -> None:
    assert explain(GOOD[:1], verdicts.reconnected()) == [
        "the client never reconnected after the cut of call 1 (GET /events)"
    ]
    assert explain(GOOD[1:], verdicts.reconnected()) == [
        "no stream was cut (1 call(s)): nothing to reconnect after"
    ]


@pytest.mark.parametrize(
    ("after", "expected"),
    [
        (0.1, ["call 2 came 100 ms after the cut, sooner than retry: 500 ms"]),  # a storm
        (0.46, []),  # within the suite's 50 ms tolerance
        (1.04, []),  # 2 x retry, and the tolerance
        (1.2, ["call 2 came 1200 ms after the cut, more than 2 x retry: 500 ms"]),
    ],
)
def test_waited_retry_bounds(after: float, expected: list[str]) -> None:
    calls = [GOOD[0], call(at=1.0 + after, last_event_id="2")]
    assert explain(calls, verdicts.waited_retry()) == expected


def test_waited_retry_needs_a_retry_and_a_time() -> None:
    calls = [call(cut=1.0, sent=events("1")), call(at=1.1, last_event_id="1")]
    assert explain(calls, verdicts.waited_retry()) == [
        "no retry field reached the client before the cut of call 1 (GET /events): pass retry="
    ]
    assert explain(calls, verdicts.waited_retry(0.05)) == []
    assert explain(calls, verdicts.waited_retry(0.05, factor=None, early=0)) == []
    # an MCP stream the server ended on purpose, without its response: no cut time
    ended = call("POST", "/mcp", body=rpc("tools/call", 1), sent=sse(rpc("notifications/x")))
    back = call(at=1.0, last_event_id="1")
    assert is_cut(ended)
    assert explain([ended, back], verdicts.waited_retry(0.5, on="GET")) == [
        "call 1 (POST tools/call) ended on purpose (complete, without its response): the "
        "journal has no time to count from"
    ]
    # ... unless the journal has its end (``Call.end_time``): counted from there
    ended.end_time = 0.4  # type: ignore[attr-defined]
    assert explain([ended, back], verdicts.waited_retry(0.5, on="GET")) == []
    ended.end_time = 0.6  # type: ignore[attr-defined]
    assert explain([ended, back], verdicts.waited_retry(0.5, on="GET")) == [
        "call 2 came 400 ms after the cut, sooner than retry: 500 ms"
    ]


def test_resumed_names_the_wrong_id_and_the_wrong_method() -> None:
    calls = [GOOD[0], call(at=1.6, last_event_id="1")]
    assert explain(calls, verdicts.resumed()) == [
        "call 2 came with Last-Event-ID '1', expected '2' (the last event delivered whole "
        "before it)"
    ]
    mcp = [
        call("POST", "/mcp", cut=1.0, body=rpc("tools/call", 1), sent=sse(rpc("n/p"))),
        call("POST", "/mcp", at=1.5, body=rpc("tools/call", 1)),  # sent the call again
    ]
    assert explain(mcp, verdicts.reconnected(on="GET")) == [
        "the client never reconnected after the cut of call 1 (POST tools/call) with GET"
    ]


def test_delivered_once_names_a_duplicate_and_a_missing_event() -> None:
    calls = [GOOD[0], call(at=1.6, last_event_id="1", sent=events("2", "3"))]
    assert explain(calls, verdicts.delivered_once(["1", "2", "3", "4"])) == [
        "event id='2' was delivered twice (calls 1 and 2); events never delivered: '4'"
    ]


def test_resume_problems_is_assert_resumed() -> None:
    """The alias's problems, one per line, as mock.assert_resumed() lists them."""
    assert resume_problems(GOOD[:1], ["1"], 0.5, 0.005) == [
        "the client never reconnected (1 call(s))"
    ]
    hasty = [GOOD[0], call(at=1.01, last_event_id="1", sent=events("2", "3"))]
    assert resume_problems(hasty, ["1", "2", "3"], 0.5, 0.005) == [
        "call 2 came 10 ms after the cut, sooner than retry: 500 ms",
        "call 2 came with Last-Event-ID '1', expected '2' (the last event delivered whole "
        "before it)",
        "event id='2' was delivered twice (calls 1 and 2)",
    ]


def test_mcp_protocol_version() -> None:
    answer = {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-11-25"}}
    init = call("POST", "/mcp", body=rpc("initialize", 1), sent=sse(answer))
    good = [init, call("POST", "/mcp", body=rpc("tools/list", 2),
                       mcp_protocol_version="2025-11-25")]  # fmt: skip
    check = verdicts.mcp_protocol_version()
    assert explain(good, check) == []
    assert check.judge(good).suite == "sep-2575-http-client-sends-version-header"
    bad = [init, call("POST", "/mcp", body=rpc("tools/list", 2)),
           call("DELETE", "/mcp", mcp_protocol_version="2025-06-18")]  # fmt: skip
    assert explain(bad, check) == [
        "call 2 (POST tools/list) carried MCP-Protocol-Version None, expected '2025-11-25' "
        "(initialize negotiated it); call 3 (DELETE /mcp) carried MCP-Protocol-Version "
        "'2025-06-18', expected '2025-11-25' (initialize negotiated it)"
    ]
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
    stateless = [call("POST", "/mcp", body=rpc("tools/list", 1, _meta=meta),
                      mcp_protocol_version="2025-11-25")]  # fmt: skip
    assert explain(stateless, check) == [
        "call 1 (POST tools/list) carried MCP-Protocol-Version '2025-11-25', its _meta '2026-07-28'"
    ]


def test_deleted_session() -> None:
    used = [call("POST", "/mcp", body=rpc("tools/list", 1), mcp_session_id="s1")]
    assert explain(used, verdicts.deleted_session()) == [
        "session 's1' was not deleted: its last request was call 1 (POST tools/list)"
    ]
    assert explain([*used, call("DELETE", "/mcp", mcp_session_id="s1")],
                   verdicts.deleted_session()) == []  # fmt: skip
    assert explain([call()], verdicts.deleted_session()) == [
        "no request carried an Mcp-Session-Id: there was no session to delete"
    ]


def test_honoured_retry_after_and_gave_up_after() -> None:
    busy = [call(status=429), call(at=0.3, status=429), call(at=1.4)]
    assert explain(busy, verdicts.honoured_retry_after(1)) == [
        "call 2 came 300 ms after call 1's 429, sooner than its Retry-After: 1 s"
    ]
    assert explain(busy, verdicts.honoured_retry_after(0.25)) == []
    assert explain(busy, verdicts.gave_up_after(3)) == []
    assert explain(busy, verdicts.gave_up_after(2)) == [
        "the client kept trying: 3 tries, expected it to give up after 2"
    ]
    assert explain(busy, verdicts.gave_up_after(5)) == [
        "the client gave up after 3 tries, expected 5"
    ]


def test_a2a_resubscribed_and_did_not_resend() -> None:
    message = {"kind": "message", "messageId": "m1", "role": "user", "parts": []}
    task = {"jsonrpc": "2.0", "id": 1, "result": {"kind": "task", "id": "t1", "status": {}}}
    stream = call("POST", "/", cut=1.0, body=rpc("message/stream", 1, message=message),
                  sent=sse(task))  # fmt: skip
    back = call("POST", "/", at=1.5, body=rpc("tasks/resubscribe", 2, id="t1"))
    again = call("POST", "/", at=1.5, body=rpc("message/stream", 3, message=message))
    checks = (verdicts.a2a_resubscribed(), verdicts.a2a_did_not_resend())
    assert explain([stream, back], *checks) == []
    assert explain([stream, again], *checks) == [
        "the client never resubscribed to task t1 after the cut of call 1 (POST message/stream)",
        "message 'm1' was sent again in call 2 (POST message/stream) (first in call 1)",
    ]
    wrapped = {"jsonrpc": "2.0", "id": 1, "result": {"statusUpdate": {"taskId": "t2"}}}
    one = call("POST", "/", cut=1.0, body=rpc("SendStreamingMessage", 1), sent=sse(wrapped))
    sub = call("POST", "/", at=2, body=rpc("SubscribeToTask", 2, id="t2"))
    assert explain([one, sub], verdicts.a2a_resubscribed()) == []


def test_agui_recovered() -> None:
    run = call("POST", "/agent", cut=1.0, sent=b'data: {"type":"RUN_STARTED"}\n\n')
    assert explain([run], verdicts.agui_recovered()) == [
        "after the cut of call 1 (POST /agent) the client neither ran again nor surfaced RUN_ERROR"
    ]
    assert explain([run], verdicts.agui_recovered(["RUN_STARTED", "RUN_ERROR"])) == []
    assert explain([run, call("POST", "/agent", at=2)], verdicts.agui_recovered()) == []


def test_assert_client_raises_with_every_failed_check_and_the_calls() -> None:
    calls = [GOOD[0], call(at=1.1, last_event_id="1")]
    with pytest.raises(VerificationError) as failed:
        verdicts.assert_client(calls, verdicts.reconnected(), verdicts.waited_retry(),
                               verdicts.resumed())  # fmt: skip
    assert str(failed.value).splitlines() == [
        "the client failed 2 of 3 check(s):",
        "  FAIL waited_retry [client-sse-retry-timing]: call 2 came 100 ms after the cut, "
        "sooner than retry: 500 ms",
        "  FAIL resumed [client-sse-last-event-id]: call 2 came with Last-Event-ID '1', "
        "expected '2' (the last event delivered whole before it)",
        "  call 1: GET /events → 200, closed, events ['1', '2']",
        "  call 2: GET /events, Last-Event-ID '1' → 200, complete, events []",
    ]
    assert len(verdicts.assert_client(GOOD, verdicts.resumed())) == 1
    with pytest.raises(ConfigError, match="needs at least one check"):
        verdicts.assert_client(GOOD)


def test_a_client_hanging_up_cut_nothing() -> None:
    left = call()
    left.outcome = "client hung up"
    assert not is_cut(left)


@pytest.mark.parametrize(
    ("outcome", "cut"),
    [("closed", True), ("reset", True), ("stalled", True), ("client hung up", False),
     ("server closed", False), ("complete", False), ("in progress", False)],
)  # fmt: skip
def test_what_counts_as_a_cut(outcome: str, cut: bool) -> None:
    seen = call(sent=events("1"))
    seen.outcome = outcome
    assert is_cut(seen) is cut


def test_a_jsonrpc_stream_ended_without_its_response_is_a_cut() -> None:
    """MCP servers may end a POST's stream before the response (SEP-1699); with the
    response, or as a JSON answer, it is not cut."""
    note = rpc("notifications/progress")
    answer = {"jsonrpc": "2.0", "id": 1, "result": {}}
    ask = rpc("tools/call", 1)
    assert is_cut(call("POST", "/mcp", body=ask, sent=sse(note)))
    assert not is_cut(call("POST", "/mcp", body=ask, sent=sse(note, answer)))
    assert not is_cut(call("POST", "/mcp", body=ask, sent=json.dumps(answer).encode()))
    assert not is_cut(call("POST", "/mcp", body=rpc("notifications/initialized"), sent=b""))
    assert not is_cut(call("POST", "/mcp", body=[ask], sent=sse(note)))  # a batch: not judged


def test_the_reconnect_is_the_call_with_the_cut_streams_id() -> None:
    """Between the cut and the resume, other requests (another stream, a POST) do not
    count as the reconnect: the GET with a Last-Event-ID of the cut stream does."""
    sent = sse(rpc("n/x"), first_id=7) + b"retry: 400\n\n"
    cut = call("POST", "/mcp", cut=1.0, body=rpc("tools/call", 1), sent=sent)
    other = call("GET", "/mcp", at=1.1)  # the standalone GET stream, opened meanwhile
    post = call("POST", "/mcp", at=1.2, body=rpc("tools/list", 2))
    back = call("GET", "/mcp", at=1.5, last_event_id="7")
    checks = (verdicts.reconnected(on="GET"), verdicts.waited_retry(on="GET"),
              verdicts.resumed(on="GET"))  # fmt: skip
    found = verdicts.judge([cut, other, post, back], *checks)
    assert all(found), [str(v) for v in found]
    assert found[1].explanation == "call 4 after 500 ms"
    # without the id, the first GET after the cut is taken as the reconnect: it came too soon
    assert explain([cut, other, post], *checks) == [
        "call 2 came 100 ms after the cut, sooner than retry: 400 ms",
        "call 2 came with Last-Event-ID None, expected '7' (the last event delivered whole "
        "before it)",
    ]


def test_two_cuts_two_reconnects_each_judged() -> None:
    calls = [
        call(cut=1.0, sent=events("1", retry=200)),
        call(at=1.25, cut=2.0, last_event_id="1", sent=events("2")),
        call(at=2.05, last_event_id="1", sent=events("2", "3")),
    ]
    assert explain(calls, verdicts.reconnected()) == []
    assert explain(
        calls, verdicts.waited_retry(), verdicts.resumed(), verdicts.delivered_once()
    ) == [
        "call 3 came 50 ms after the cut, sooner than retry: 200 ms",
        "call 3 came with Last-Event-ID '1', expected '2' (the last event delivered whole "
        "before it)",
        "event id='2' was delivered twice (calls 2 and 3)",
    ]


def test_the_retry_is_the_last_one_the_client_read() -> None:
    """An earlier stream's retry holds until another replaces it (the TypeScript SDK keeps
    the last one any stream gave)."""
    calls = [
        call(sent=b"retry: 1000\n\n"),  # a first stream, complete
        call(at=2.0, cut=3.0, sent=events("1")),
        call(at=3.5, last_event_id="1"),
    ]
    assert explain(calls, verdicts.waited_retry()) == [
        "call 3 came 500 ms after the cut, sooner than retry: 1000 ms"
    ]
    calls[1] = call(at=2.0, cut=3.0, sent=events("1", retry=300))
    assert explain(calls, verdicts.waited_retry()) == []


def test_a_verdict_reads_as_pass_or_fail() -> None:
    (failed,) = verdicts.judge(GOOD[:1], verdicts.reconnected())
    assert not failed
    assert str(failed) == (
        "FAIL reconnected [client-sse-graceful-reconnect]: the client never reconnected after "
        "the cut of call 1 (GET /events)"
    )
    (passed,) = verdicts.judge(iter(GOOD), verdicts.delivered_once())  # any iterable
    assert passed
    assert passed.suite is None
    assert str(passed) == "PASS delivered_once: 4 event(s) with ids, each once"


def test_deleted_session_judges_each_session() -> None:
    calls = [
        call("POST", "/mcp", body=rpc("tools/list", 1), mcp_session_id="a"),
        call("DELETE", "/mcp", mcp_session_id="a"),
        call("POST", "/mcp", body=rpc("tools/list", 2), mcp_session_id="b"),
    ]
    assert explain(calls, verdicts.deleted_session()) == [
        "session 'b' was not deleted: its last request was call 3 (POST tools/list)"
    ]
    calls.append(call("POST", "/mcp", body=rpc("ping", 3), mcp_session_id="a"))
    (text,) = explain(calls, verdicts.deleted_session())  # a, used again after its DELETE
    assert text.startswith("session 'a' was not deleted: its last request was call 4 (POST ping); ")


def test_retry_after_read_from_the_mocks_reply() -> None:
    class Reply:
        headers = (("Retry-After", "2"),)

    class Mock:
        response = Reply()

    busy = call(status=503)
    busy.mock = Mock()
    assert explain([busy, call(at=1.0)], verdicts.honoured_retry_after()) == [
        "call 2 came 1000 ms after call 1's 503, sooner than its Retry-After: 2 s"
    ]
    assert explain([busy, call(at=2.0)], verdicts.honoured_retry_after()) == []
    assert explain([call(status=429), call(at=0.0)], verdicts.honoured_retry_after()) == []


def test_a2a_and_agui_say_when_there_was_nothing_to_judge() -> None:
    assert explain([call("POST", "/")], verdicts.a2a_resubscribed()) == [
        "no A2A stream was cut: nothing to resubscribe to"
    ]
    early = call("POST", "/", cut=1.0, body=rpc("message/stream", 1), sent=b"")
    assert explain([early], verdicts.a2a_resubscribed()) == [
        "call 1 (POST message/stream) was cut before it named its task: the client cannot "
        "resubscribe"
    ]
    artifact = {"jsonrpc": "2.0", "id": 1, "result": {"artifactUpdate": {"taskId": "t9"}}}
    cut = call("POST", "/", cut=1.0, body=rpc("SendStreamingMessage", 1), sent=sse(artifact))
    wrong = call("POST", "/", at=2, body=rpc("SubscribeToTask", 2, id="t8"))
    assert explain([cut, wrong], verdicts.a2a_resubscribed()) == [
        "the client never resubscribed to task t9 after the cut of call 1 (POST "
        "SendStreamingMessage)"
    ]
    assert explain([call("POST", "/agent")], verdicts.agui_recovered()) == [
        "no AG-UI run was cut: nothing to recover from"
    ]


def test_gave_up_after_counts_tries_not_outcomes() -> None:
    assert explain([], verdicts.gave_up_after(1)) == [
        "the client gave up after 0 tries, expected 1"
    ]
    (verdict,) = verdicts.judge([call(status=500)], verdicts.gave_up_after(1))
    assert verdict.explanation == "1 try, then it stopped"


def test_a_reconnect_cut_before_any_event_keeps_its_id() -> None:
    """Call 2 came back with '2' and was cut before an event: call 3 must say '2' again."""
    calls = [GOOD[0], call(at=1.6, cut=1.7, last_event_id="2"), call(at=2.3)]
    assert explain(calls, verdicts.resumed()) == [
        "call 3 came with Last-Event-ID None, expected '2' (the last event delivered whole "
        "before it)"
    ]
    calls[2] = call(at=2.3, last_event_id="2")
    assert explain(calls, verdicts.resumed()) == []
