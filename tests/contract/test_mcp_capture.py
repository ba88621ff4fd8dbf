"""``check --profile mcp --capture``: real servers' sessions pass, each deliberate break fails.

The captures in tests/data/mcp_captures were recorded by scripts/mcp_capture.py from
servers run on loopback: FastMCP, the official Python SDK (revisions 2025-11-25 and
2026-07-28), the official TypeScript SDK, and mockhttp's own ``mcp.server()``.  Each break
below mutates one of them in one place, the way a faulty server would answer, and must be
flagged by the rule named.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mockhttp.contract._mcp_capture import (
    MCP_TRANSPORT,
    Exchange,
    check_capture,
    loads_capture,
    with_revisions,
)
from mockhttp.contract._transcript import Transcript

DATA = Path(__file__).resolve().parents[1] / "data" / "mcp_captures"
SERVERS = sorted(p.stem for p in DATA.glob("*.json"))
Capture = dict[str, Any]


def load(name: str) -> Capture:
    data: Capture = json.loads((DATA / f"{name}.json").read_text())
    return data


def findings(capture: Capture) -> list[tuple[str, str, str]]:
    outcomes = check_capture(loads_capture(json.dumps(capture)))
    return [(f.rule, f.severity, f.message) for o in outcomes for f in o.findings]


def exchange(capture: Capture, rpc: str | None = None, *, method: str = "POST", n: int = 0) -> Any:
    """The ``n``-th exchange with HTTP ``method`` whose JSON-RPC method is ``rpc``."""
    found = [
        e for e in capture["exchanges"]
        if e["method"] == method and (rpc is None or (e["request"] or {}).get("method") == rpc)
    ]  # fmt: skip
    return found[n]


def header(entry: Any, name: str, value: str | None) -> None:
    """Set (or with None drop) a response header of ``entry``."""
    kept = [[k, v] for k, v in entry["headers"] if k.lower() != name]
    entry["headers"] = kept + ([[name, value]] if value is not None else [])


@pytest.mark.parametrize("server", SERVERS)
def test_real_servers_have_no_findings(server: str) -> None:
    assert findings(load(server)) == []


def test_the_captures_are_there_and_cover_the_transport() -> None:
    """Each server's capture holds what the rules read (so a pass is not vacuous)."""
    assert set(SERVERS) >= {"fastmcp", "mcp-sdk", "mcp-sdk-2026-07-28", "ts-sdk", "mockhttp"}
    for name in ("fastmcp", "mcp-sdk", "ts-sdk", "mockhttp"):
        capture = load(name)
        methods = [e["method"] for e in capture["exchanges"]]
        assert methods.count("DELETE") == 1
        assert "GET" in methods
        assert exchange(capture, "tools/list", n=-1)["status"] == 404  # after DELETE
    for name in (
        "mcp-sdk",
        "ts-sdk",
        "mockhttp",
    ):  # resumable: a cut, then a GET with Last-Event-ID
        resumed = [
            e for e in load(name)["exchanges"] if "last-event-id" in dict(e["request_headers"])
        ]
        assert len(resumed) == 1
        assert '"id":8' in resumed[0]["body"].replace(" ", "")


def test_fastmcp_repeating_its_session_id_is_allowed() -> None:
    """FastMCP sends the session id on every answer (tools/call included): the spec allows
    it, so no mcp.session (the false positive of issue 33); another id is flagged."""
    capture = load("fastmcp")
    call = exchange(capture, "tools/call")
    sent = dict(call["request_headers"])["mcp-session-id"]
    assert dict((k.lower(), v) for k, v in call["headers"])["mcp-session-id"] == sent
    header(call, "mcp-session-id", "another-session")
    assert findings(capture) == [(
        "mcp.session", "violation",
        'Mcp-Session-Id "another-session" on an answer to "tools/call", whose request carried '
        f'"{sent}": a session is issued on initialize, and later answers may only repeat it',
    )]  # fmt: skip


def _no_priming(c: Capture) -> None:
    entry = exchange(c, "tools/list")  # the priming event goes; its retry field stays
    entry["body"] = "retry: 300\r\n\r\n" + entry["body"].split("\r\n\r\n", 1)[1]


def _no_retry(c: Capture) -> None:
    for e in c["exchanges"]:
        e["body"] = "".join(
            line for line in e["body"].splitlines(True) if not line.startswith("retry:")
        )


def _ended_session_served(c: Capture) -> None:
    exchange(c, "tools/list", n=-1)["status"] = 200


def _delete_refused(c: Capture) -> None:
    exchange(c, method="DELETE")["status"] = 500


def _no_session_served(c: Capture) -> None:
    exchange(c, "ping")["status"] = 200


def _unknown_version_served(c: Capture) -> None:
    exchange(c, "ping", n=1)["status"] = 200


def _stateful_2026(c: Capture) -> None:
    header(exchange(c, "tools/list"), "mcp-session-id", "s1")


def _error_without_id(c: Capture) -> None:
    entry = exchange(c, "no/such-method")
    entry["body"] = entry["body"].replace('"id":5', '"id":null')


def _parallel_refused(c: Capture) -> None:
    exchange(c, "tools/list", n=2)["status"] = 409


def _replayed_twice(c: Capture) -> None:
    cut = exchange(c, "tools/call", n=-1)
    resume = exchange(c, method="GET", n=1)
    resume["body"] = cut["body"].split("\r\n\r\n", 1)[1] + resume["body"]


def _response_lost(c: Capture) -> None:
    resume = exchange(c, method="GET", n=1)
    resume["body"] = resume["body"].split("\r\n\r\n")[0] + "\r\n\r\n"


def _sent_twice(c: Capture) -> None:
    first = exchange(c, "tools/call")
    get = exchange(c, method="GET")
    get["body"] = "event: message\r\ndata: " + first["body"].split("data: ")[-1]


def _not_ascii(c: Capture) -> None:
    header(exchange(c, "initialize"), "mcp-session-id", "a b")


BREAKS: list[tuple[str, Callable[[Capture], None], str, str]] = [
    ("mcp-sdk", _no_priming, "mcp.priming", "[server-sse-priming-event]"),
    ("ts-sdk", _no_retry, "mcp.retry", "[server-sse-retry-field]"),
    ("fastmcp", _ended_session_served, "mcp.session-ended",
     "[server-session-terminated-returns-404]"),
    ("ts-sdk", _delete_refused, "mcp.session-ended", "[server-session-delete-accepted]"),
    ("mcp-sdk", _no_session_served, "mcp.session-required", "got 200, not 400"),
    ("ts-sdk", _unknown_version_served, "mcp.protocol-version", '"1999-01-01"'),
    ("mcp-sdk-2026-07-28", _stateful_2026, "mcp.stateless", "[server-stateless]"),
    ("mcp-sdk-2026-07-28", _error_without_id, "mcp.error-id",
     "[sep-2575-http-server-error-jsonrpc-id]"),
    ("fastmcp", _parallel_refused, "mcp.streams", "[server-accepts-multiple-post-streams]"),
    ("mcp-sdk", _replayed_twice, "mcp.resume", "which the client had before"),
    ("mcp-sdk", _response_lost, "mcp.resume", "came neither before the cut nor on the resumed"),
    ("mcp-sdk", _sent_twice, "mcp.one-stream", "a server sends each message on one stream only"),
    ("fastmcp", _not_ascii, "mcp.session", "[server-session-id-visible-ascii]"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("server", "mutate", "rule", "says"), BREAKS, ids=[b[1].__name__ for b in BREAKS]
)
def test_each_break_is_flagged(
    server: str, mutate: Callable[[Capture], None], rule: str, says: str
) -> None:
    capture = copy.deepcopy(load(server))
    mutate(capture)
    found = [f for f in findings(capture) if f[0] == rule]  # (a 200 for an error may add more)
    assert found, findings(capture)
    assert says in found[0][2]


def test_every_transport_rule_has_a_break() -> None:
    broken = {b[2] for b in BREAKS}
    assert {r.id for r in MCP_TRANSPORT} - broken == set()


def test_revisions_per_exchange() -> None:
    """The header first, else the session's negotiated revision, else 2025-03-26."""

    def ex(request: Any, sent: dict[str, str], answer: str = "", **head: str) -> Exchange:
        head = {"content-type": "application/json", **head}
        t = Transcript.from_body(answer.encode(), headers=head,
                                 request=request)  # fmt: skip
        return Exchange("POST", Transcript(t.status, t.headers, t.chunks, request,
                                           request_headers=tuple(sent.items())))  # fmt: skip

    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
    answer = '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}'
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    read = with_revisions([
        ex(init, {}, answer, **{"mcp-session-id": "s"}),
        ex(ping, {"mcp-session-id": "s"}),
        ex(ping, {"mcp-session-id": "s", "mcp-protocol-version": "2026-07-28"}),
        ex(ping, {}),
    ])  # fmt: skip
    assert [e.revision for e in read] == ["2025-06-18", "2025-06-18", "2026-07-28", "2025-03-26"]
    assert [e.label for e in read][:2] == ["#1 POST initialize", "#2 POST ping"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("nope", "c.json: not JSON"),
        ("[]", "c.json: expected an object with an 'exchanges' list"),
        ('{"exchanges": [3]}', "c.json: exchanges[0]: expected an object, got 3"),
        ('{"exchanges": [{"method": 1}]}', "c.json: exchanges[0].method: expected str, got 1"),
        ('{"exchanges": [{"method": "GET", "status": "200"}]}',
         'c.json: exchanges[0].status: expected an integer, got "200"'),
        ('{"exchanges": [{"method": "GET", "headers": [["a"]]}]}',
         "c.json: exchanges[0].headers: expected [name, value] pairs of strings"),
        ('{"exchanges": [{"method": "GET", "started": "soon"}]}',
         'c.json: exchanges[0].started: expected seconds, got "soon"'),
    ],
)  # fmt: skip
def test_a_bad_capture_says_where(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=r"^c\.json") as caught:
        loads_capture(text, "c.json")
    assert str(caught.value).startswith(message)


def test_the_command_line_reads_a_capture(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from mockhttp.contract.__main__ import main

    assert main(["--profile", "mcp", "--capture", str(DATA / "ts-sdk.json")]) == 0
    assert "0 violations, 0 warnings, 0 notes in 16 exchange(s)" in capsys.readouterr().out
    broken = load("ts-sdk")
    _ended_session_served(broken)
    (tmp_path / "broken.json").write_text(json.dumps(broken))
    assert main(["--profile", "mcp", "--capture", str(tmp_path / "broken.json")]) == 1
    out = capsys.readouterr().out
    assert "fail       mcp transport: 10 rules checked, 1 violation" in out
    assert "violation  mcp.session-ended" in out
    assert "[server-session-terminated-returns-404]" in out
    assert main(["--profile", "ag-ui", "--capture", str(tmp_path / "broken.json")]) == 2
    assert "--capture is checked with --profile mcp alone" in capsys.readouterr().err


def _ex(
    method: str,
    request: Any = None,
    *,
    sent: dict[str, str] | None = None,
    status: int = 200,
    body: str = "",
    kind: str = "text/event-stream",
    at: tuple[float, float] | None = None,
    closed: bool = False,
    head: dict[str, str] | None = None,
) -> Exchange:
    """One exchange built by hand (for the cases the real captures do not have)."""
    headers = (("content-type", kind), *(head or {}).items())
    t = Transcript.from_body(body.encode(), status=status, headers=headers, request=request)
    t = Transcript(t.status, t.headers, t.chunks, request,
                   request_headers=tuple((sent or {}).items()))  # fmt: skip
    started, ended = at if at is not None else (None, None)
    return Exchange(method, t, started, ended, closed)


def _rules(exchanges: list[Exchange]) -> list[str]:
    return [f.rule for o in check_capture(exchanges) for f in o.findings]


CALL = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {}}
ANSWER = 'data: {"jsonrpc":"2.0","id":1,"result":{}}\n\n'
WITH_IDS = 'id: 1\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n'


@pytest.mark.parametrize(
    ("version", "body", "expected"),
    [
        ("2025-11-25", WITH_IDS, ["mcp.priming", "mcp.retry"]),
        ("2025-06-18", WITH_IDS, []),  # SEP-1699 came with 2025-11-25
        ("2025-03-26", WITH_IDS, []),
        ("2025-11-25", ANSWER, []),  # no ids: not resumable, nothing to prime
        ("2025-11-25", "id: 0\nretry: 100\ndata: \n\n" + WITH_IDS.replace("id: 1", "id: 2"), []),
    ],
)
def test_priming_and_retry_apply_from_2025_11_25_to_streams_with_ids(
    version: str, body: str, expected: list[str]
) -> None:
    sent = {"mcp-protocol-version": version}
    assert _rules([_ex("POST", CALL, sent=sent, body=body)]) == expected


def test_statelessness_and_error_ids_only_in_2026_07_28() -> None:
    error = '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"no"}}'
    for version, expected in (("2026-07-28", ["mcp.error-id"]), ("2025-11-25", [])):
        sent = {"mcp-protocol-version": version}
        ex = _ex("POST", CALL, sent=sent, status=400, body=error, kind="application/json")
        assert _rules([ex]) == expected, version
    result = '{"jsonrpc":"2.0","id":1,"result":{}}'
    sent = {"mcp-protocol-version": "2026-07-28", "mcp-session-id": "s"}
    stateful = _ex("POST", CALL, sent=sent, body=result, kind="application/json",
                   head={"mcp-session-id": "s"})  # fmt: skip
    assert _rules([stateful]) == ["mcp.stateless"]
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
    answered = _ex("POST", init, sent={"mcp-protocol-version": "2026-07-28"}, body=result,
                   kind="application/json")  # fmt: skip
    assert _rules([answered]) == ["mcp.stateless"]


def test_several_streams_only_when_they_overlap() -> None:
    sent = {"mcp-session-id": "s"}
    served = _ex("POST", CALL, sent=sent, body=ANSWER, at=(0.0, 1.0))
    refused = _ex("POST", CALL, sent=sent, status=409, body="", kind="text/plain", at=(0.5, 0.6))
    later = _ex("POST", CALL, sent=sent, status=409, body="", kind="text/plain", at=(1.5, 1.6))
    assert _rules([served, refused]) == ["mcp.streams"]
    assert _rules([served, later]) == []


def test_a_resume_the_server_refuses_or_does_not_know() -> None:
    first = _ex("POST", CALL, body="id: 5\ndata: \n\n", closed=True)
    resume = {"last-event-id": "5"}
    assert _rules([first, _ex("GET", sent=resume, status=405, kind="text/plain")]) == []
    assert _rules([first, _ex("GET", sent=resume, status=400, kind="text/plain")]) == ["mcp.resume"]
    unknown = {"last-event-id": "99"}  # no stream had it: not a resumption to judge
    assert _rules([first, _ex("GET", sent=unknown, status=400, kind="text/plain")]) == []


def test_a_replay_of_what_the_client_never_had_is_not_a_second_stream() -> None:
    """The response on the resumed GET, after a cut before it: one stream (mcp.one-stream
    and mcp.resume agree); the same response twice with different ids: two."""
    cut = _ex("POST", CALL, sent={"mcp-session-id": "s"}, body="id: 1\nretry: 5\ndata: \n\n",
              closed=True)  # fmt: skip
    resumed = _ex("GET", sent={"mcp-session-id": "s", "last-event-id": "1"},
                  body='id: 2\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n')  # fmt: skip
    assert _rules([cut, resumed]) == []
    whole = _ex("POST", CALL, sent={"mcp-session-id": "s"}, body="id: 1\nretry: 5\ndata: \n\n"
                + 'id: 3\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n')  # fmt: skip
    again = _ex("GET", sent={"mcp-session-id": "s"},
                body='id: 4\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n')  # fmt: skip
    assert _rules([whole, again]) == ["mcp.one-stream"]


def test_session_required_is_not_asked_of_2026_07_28_nor_of_a_server_without_sessions() -> None:
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    result = '{"jsonrpc":"2.0","id":2,"result":{}}'
    plain = _ex("POST", ping, body=result, kind="application/json")
    assert _rules([plain]) == []  # no initialize issued a session
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
    issued = _ex("POST", init, body='{"jsonrpc":"2.0","id":1,"result":{}}',
                 kind="application/json", head={"mcp-session-id": "s"})  # fmt: skip
    assert _rules([issued, plain]) == ["mcp.session-required"]
    stateless = _ex("POST", ping, sent={"mcp-protocol-version": "2026-07-28"}, body=result,
                    kind="application/json")  # fmt: skip
    assert _rules([issued, stateless]) == []


def test_labels_name_the_exchange() -> None:
    read = with_revisions([
        _ex("GET", sent={"last-event-id": "7"}),
        _ex("POST", [CALL, CALL]),
        _ex("DELETE"),
    ])  # fmt: skip
    assert [e.label for e in read] == ["#1 GET (Last-Event-ID 7)", "#2 POST a batch", "#3 DELETE"]
