"""An upstream's refusal of a WebSocket upgrade (401 with its error JSON, 403...) is relayed
AND recorded (record/_ws.py Rule 2): the replay, without the upstream, answers the same
upgrade with the same status, headers and body; no key reaches the file or the log.  What
is the proxy's own answer (502 unreachable, 504 too slow) is not recorded (Rule 3).

Pure tests of :func:`refusal_mock` first, then on the wire: a ``websockets`` upstream that
refuses the upgrade, a real ``serve --record-missing`` process (and the ``record`` proxy in
process), a real ``websockets`` client, and a second ``serve`` of the files alone."""

from __future__ import annotations

import io
import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from websockets.datastructures import Headers as WsHeaders
from websockets.exceptions import InvalidStatus
from websockets.http11 import Request as WsRequest
from websockets.http11 import Response as WsResponse
from websockets.sync.client import connect
from websockets.sync.server import ServerConnection
from websockets.sync.server import serve as ws_serve
from websockets.typing import Subprotocol

import mockhttp
from mockhttp import record
from mockhttp._core._request import Headers, Request
from mockhttp.record._ws import Refused, refusal_mock
from tests.helpers.cli_process import Serving

KEY = "sk-proj-refused-key-4417"
OFFERS = [Subprotocol("realtime"), Subprotocol(f"openai-insecure-api-key.{KEY}")]
ERROR = {"error": {"type": "invalid_request_error", "code": "invalid_api_key",
                   "message": "Incorrect API key provided."}}  # fmt: skip
WAIT = 30  # seconds: a bound on conditions, never a sleep


def _ws(url: str, path: str) -> str:
    return url.replace("http://", "ws://").rstrip("/") + path


def _upgrade(path: str = "/v1/realtime", query: str = "") -> Request:
    headers = Headers(
        (("upgrade", "websocket"), ("connection", "Upgrade"),
         ("authorization", f"Bearer {KEY}"), ("sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ=="))
    )  # fmt: skip
    return Request("GET", f"{path}?{query}" if query else path, headers, b"")


# -- pure: the mock a refusal becomes ---------------------------------------------------------


def test_a_refusal_becomes_a_mock_of_the_same_status_headers_and_body() -> None:
    body = json.dumps(ERROR).encode()
    refused = Refused(
        401,
        (("Content-Type", "application/json"), ("x-request-id", "req_1"),
         ("Content-Length", str(len(body))), ("Connection", "close")),
        body,
    )  # fmt: skip
    mock = refusal_mock(_upgrade(), refused, name="websocket /v1/realtime refused #1")
    assert mock.name == "websocket /v1/realtime refused #1"
    reply = mock.reply_for(_upgrade())
    assert reply.status_code == 401
    assert reply.reason == "Unauthorized"  # what mockhttp relayed live (wsproto keeps none)
    assert dict(reply.headers)["Content-Type"] == "application/json"
    assert dict(reply.headers)["x-request-id"] == "req_1"
    assert {n.lower() for n, _ in reply.headers}.isdisjoint({"connection"})  # hop-by-hop


def test_a_refusal_mock_answers_upgrades_of_its_path_only() -> None:
    mock = refusal_mock(_upgrade(), Refused(403, (), b""))
    with mockhttp.Server() as server:
        server.mock(mock)
        with httpx.Client() as client:
            assert client.get(server.url + "/v1/realtime").status_code == 404  # no upgrade
            up = {"Upgrade": "websocket", "Connection": "Upgrade"}
            assert client.get(server.url + "/v1/realtime", headers=up).status_code == 403
            assert client.get(server.url + "/elsewhere", headers=up).status_code == 404
            assert client.get(server.url + "/v1/realtime?x=1", headers=up).status_code == 403


def test_no_secret_of_the_request_is_in_a_refusals_mock() -> None:
    """A refusal that repeats the key (in its body, a header, a cookie) is written without
    it: the recorder's one rule, as for an HTTP reply."""
    body = f'{{"error": "Incorrect API key provided: {KEY}"}}'.encode()
    refused = Refused(
        401,
        (("Set-Cookie", "session=abc123"), ("x-echo", f"Bearer {KEY}"),
         ("Content-Type", "application/json")),
        body,
    )  # fmt: skip
    req = _upgrade(query=f"api_key={KEY}")
    dumped = mockhttp.dump([refusal_mock(req, refused, name="r", redact=("x-my-key",))])
    assert KEY not in dumped
    assert "abc123" not in dumped
    assert "Incorrect API key provided: REDACTED" in dumped
    assert "Set-Cookie: REDACTED" in dumped


def test_a_refusal_without_a_body_is_a_mock_without_writes() -> None:
    reply = refusal_mock(_upgrade(), Refused(426, (("Upgrade", "websocket"),), b""))
    answered = reply.reply_for(_upgrade())
    assert answered.status_code == 426
    assert answered.headers == ()  # Upgrade is hop-by-hop: the replay frames its own


# -- on the wire ------------------------------------------------------------------------------


def _refused(url: str) -> WsResponse:
    """The response to an upgrade carrying the key three ways (header, query, subprotocol)."""
    target = _ws(url, f"/v1/realtime?model=gpt-realtime&api_key={KEY}")
    with pytest.raises(InvalidStatus) as refused:
        connect(
            target,
            additional_headers={"Authorization": f"Bearer {KEY}"},
            subprotocols=OFFERS,
            open_timeout=WAIT,
        )
    return refused.value.response


@contextmanager
def _refusing_at() -> Iterator[tuple[str, list[WsRequest]]]:
    """A ``websockets`` upstream that refuses every upgrade with 401 and a JSON error: its
    URL and the requests it saw."""
    seen: list[WsRequest] = []
    body = json.dumps(ERROR).encode()

    def refuse(conn: ServerConnection, request: WsRequest) -> WsResponse:
        seen.append(request)
        headers = WsHeaders([("Content-Type", "application/json"), ("x-request-id", "req_7")])
        headers["Content-Length"] = str(len(body))
        return WsResponse(401, "Unauthorized", headers, body)

    def never(conn: ServerConnection) -> None:
        raise AssertionError("no upgrade is accepted")

    server = ws_serve(never, "127.0.0.1", 0, process_request=refuse)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.socket.getsockname()[1]}", seen
    finally:
        server.shutdown()
        thread.join(WAIT)


def test_serve_record_missing_records_a_refused_upgrade_and_replays_it_without_the_upstream(
    tmp_path: Path,
) -> None:
    with _refusing_at() as (upstream, seen):
        with Serving(str(tmp_path), "--record-missing", "--upstream", upstream) as serving:
            live = _refused(serving.url)
            line = serving.wait_for_log("recorded GET /v1/realtime")
            assert "-> 401 (the upgrade refused): websocket /v1/realtime refused #1" in line
            assert len(seen) == 1
            assert seen[0].headers["Authorization"] == f"Bearer {KEY}"  # the key went upstream
            again = _refused(serving.url)  # answered from DIR: the upstream sees no more
            assert serving.wait_for_log("→ mock 'websocket /v1/realtime refused #1' 401")
            assert len(seen) == 1
        assert not any(KEY in line for line in serving.log)
    assert live.status_code == again.status_code == 401
    assert json.loads(live.body) == json.loads(again.body) == ERROR
    assert live.body == again.body
    for name in ("Content-Type", "x-request-id"):
        assert live.headers[name] == again.headers[name]
    (path,) = tmp_path.glob("*.yaml")
    assert path.name == "001-get-v1-realtime.yaml"
    text = path.read_text()
    assert KEY not in text
    assert "status: 401" in text
    with Serving(str(tmp_path)) as replaying:  # the upstream is gone: the files alone
        replayed = _refused(replaying.url)
    assert replayed.status_code == 401
    assert replayed.body == live.body
    assert replayed.headers["x-request-id"] == "req_7"
    assert replayed.reason_phrase == live.reason_phrase == "Unauthorized"


def test_serve_record_missing_does_not_record_its_own_502(tmp_path: Path) -> None:
    """Rule 3: an unreachable upstream is mockhttp's answer, not the upstream's."""
    with socket.socket() as held:  # bound, never listening: refused, and no one else's port
        held.bind(("127.0.0.1", 0))
        upstream = f"http://127.0.0.1:{held.getsockname()[1]}"
        with Serving(str(tmp_path), "--record-missing", "--upstream", upstream) as serving:
            first = _refused(serving.url)
            assert "not recorded" in serving.wait_for_log("not recorded")
            second = _refused(serving.url)  # forwarded again: still the proxy's 502
    assert first.status_code == second.status_code == 502
    assert list(tmp_path.glob("*.yaml")) == []


def test_the_record_proxy_records_a_refusal_with_no_secret_in_file_or_log(
    tmp_path: Path,
) -> None:
    """An upstream whose refusal repeats the key (in its body and a header): the live client
    gets it as it came, the file and the log have it nowhere."""
    echo = f'{{"error": "Incorrect API key provided: {KEY}"}}'.encode()
    log = io.StringIO()
    no_key = mockhttp.status(403).header("x-echo", KEY).header("Set-Cookie", "s=1").body(echo)
    with mockhttp.Server() as upstream:
        upstream.mock(mockhttp.get("/v1/realtime").reply(no_key))
        with record.record(upstream.url, tmp_path, log=log) as recorder:
            live = _refused(recorder.url)
            (mock,) = recorder.wait(1, timeout=WAIT)
    assert live.status_code == 403
    assert live.body == echo  # the live client gets it as it came
    (path,) = tmp_path.glob("*.yaml")
    text = path.read_text()
    for secret in (KEY, "s=1"):
        assert secret not in text
        assert secret not in log.getvalue()
    assert "Incorrect API key provided: REDACTED" in text
    (loaded,) = mockhttp.load(path)
    assert loaded.name == mock.name == "websocket /v1/realtime refused #1"
    with mockhttp.Server() as server:
        server.mock(loaded)
        replayed = _refused(server.url)
    assert replayed.status_code == 403
    assert replayed.body == echo.replace(KEY.encode(), b"REDACTED")
