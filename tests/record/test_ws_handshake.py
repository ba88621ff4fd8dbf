"""The recorder answers a WebSocket upgrade as its upstream answers it (record/_ws.py over
the upgrade seam's ``Handshake``): the upstream's chosen subprotocol in the client's 101,
its refusal relayed (and recorded), 502/504 when it cannot or does not answer; a key in a
subprotocol (OpenAI's ``openai-insecure-api-key.<key>``, what browsers send) goes upstream
and into no recording, journal or log line.  Real sockets on loopback throughout."""

from __future__ import annotations

import io
import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect
from websockets.typing import Subprotocol
from wsproto.utilities import generate_accept_token

import mockhttp
from mockhttp import llm, record, ws
from mockhttp.record._ws import offered, refusal

KEY = "sk-proj-browser-key-5150"
# what openai-node's browser client (OpenAIRealtimeWebSocket) offers
BROWSER = [Subprotocol("realtime"), Subprotocol(f"openai-insecure-api-key.{KEY}")]
CHAT = [Subprotocol("chat")]
WAIT = 30


def _ws_url(base: str, path: str) -> str:
    return base.replace("http://", "ws://").rstrip("/") + path


# -- pure -----------------------------------------------------------------------------------------


def test_the_offered_subprotocols_are_read_from_every_header_line() -> None:
    from mockhttp._core._request import Headers, Request

    headers = Headers(
        (("sec-websocket-protocol", "realtime, a.b"), ("sec-websocket-protocol", " c ,"))
    )
    assert offered(Request("GET", "/", headers, b"")) == ["realtime", "a.b", "c"]
    assert offered(Request("GET", "/", Headers(()), b"")) == []


def test_a_refusal_is_framed_anew_without_the_upstreams_framing_headers() -> None:
    reply = refusal(
        401,
        [("Content-Type", "application/json"), ("Content-Length", "99"),
         ("Connection", "keep-alive"), ("Transfer-Encoding", "chunked")],
        b'{"error": "no key"}',
    )  # fmt: skip
    assert reply.status_code == 401
    assert reply.headers == (("Content-Type", "application/json"),)
    assert reply.content == b'{"error": "no key"}'


# -- the subprotocol ------------------------------------------------------------------------------


def _realtime_session(url: str, **options: object) -> tuple[str | None, list[str]]:
    with connect(url, open_timeout=WAIT, **options) as client:  # type: ignore[arg-type]
        seen = [str(client.recv(timeout=WAIT))]
        client.send(json.dumps({"type": "response.create", "note": f"my key is {KEY}"}))
        while '"response.done"' not in seen[-1]:
            seen.append(str(client.recv(timeout=WAIT)))
        return client.subprotocol, seen


def test_the_upstreams_chosen_subprotocol_reaches_the_client_and_the_replay(
    tmp_path: Path,
) -> None:
    endpoint = llm.openai_realtime("Hi")  # chooses "realtime" when offered, as OpenAI does
    log = io.StringIO()
    with mockhttp.Server() as upstream:
        upstream.mock(endpoint.mock())
        with record.record(upstream.url, tmp_path, log=log) as recorder:
            url = _ws_url(recorder.url, "/v1/realtime?model=gpt-realtime")
            chosen, live = _realtime_session(url, subprotocols=BROWSER)
            (mock,) = recorder.wait(1, timeout=WAIT)
    assert chosen == "realtime"
    (session,) = endpoint.wait_ended()
    assert session.request.headers["sec-websocket-protocol"] == ", ".join(BROWSER)  # the key went
    (path,) = tmp_path.glob("*.yaml")
    text = path.read_text()
    assert KEY not in text
    assert KEY not in log.getvalue()
    assert mock.kind is not None
    assert mock.kind.to_args()["subprotocol"] == "realtime"
    with mockhttp.Server() as server:
        server.mock(*mockhttp.load(path))
        again = _realtime_session(_ws_url(server.url, "/v1/realtime"), subprotocols=BROWSER)
    assert again == (chosen, live)


def test_an_upstream_that_chooses_none_gives_the_client_none() -> None:
    quiet = ws.websocket(ws.send("hi"))  # no subprotocol: chooses none
    with mockhttp.Server() as upstream:
        upstream.mock(quiet.mock("/q"))
        with (
            record.record(upstream.url) as recorder,
            connect(_ws_url(recorder.url, "/q"), subprotocols=CHAT, open_timeout=WAIT) as c,
        ):
            assert c.subprotocol is None
            assert c.recv(timeout=WAIT) == "hi"
        (mock,) = recorder.wait(1, timeout=WAIT)
    assert mock.kind is not None
    assert "subprotocol" not in mock.kind.to_args()


def test_a_key_an_upstream_echoes_from_a_subprotocol_is_redacted_in_the_recording() -> None:
    echo = ws.websocket(ws.echo(), subprotocol="chat")
    with mockhttp.Server() as upstream:
        upstream.mock(echo.mock("/echo"))
        offers = [*CHAT, BROWSER[1]]
        with record.record(upstream.url) as recorder:
            with connect(_ws_url(recorder.url, "/echo"), subprotocols=offers) as client:
                assert client.subprotocol == "chat"
                client.send(f"the key: {KEY}")
                assert client.recv(timeout=WAIT) == f"the key: {KEY}"  # the live client gets it
            (mock,) = recorder.wait(1, timeout=WAIT)
    dumped = mockhttp.dump([mock])
    assert KEY not in dumped
    assert "the key: [redacted]" in dumped


# -- the upstream's refusal, and no answer at all -------------------------------------------------


def test_an_upstream_refusal_is_relayed_as_it_came_and_recorded() -> None:
    """(tests/record/test_ws_refused.py: the recording, its replay and its secrets.)"""
    no_key = mockhttp.status(401).json({"error": {"message": "Missing bearer authentication"}})
    log = io.StringIO()
    with mockhttp.Server() as upstream:
        upstream.mock(mockhttp.get("/v1/realtime").reply(no_key))
        with record.record(upstream.url, log=log) as recorder:
            with pytest.raises(InvalidStatus) as refused:
                connect(_ws_url(recorder.url, "/v1/realtime"), subprotocols=BROWSER)
            (mock,) = recorder.wait(1, timeout=WAIT)
            (call,) = recorder.server.journal
    response = refused.value.response
    assert response.status_code == 401
    assert json.loads(response.body) == {"error": {"message": "Missing bearer authentication"}}
    assert response.headers["Content-Type"] == "application/json"
    assert call.status == 401  # the proxy's journal says what the client got
    line = log.getvalue()
    assert "recorded GET /v1/realtime -> 401 (the upgrade refused)" in line
    assert mock.name == "websocket /v1/realtime refused #1"
    assert KEY not in line


def test_an_unreachable_upstream_is_a_502_that_says_why_and_nothing_is_recorded() -> None:
    with socket.socket() as held:  # bound, never listening: refused, and no one else's port
        held.bind(("127.0.0.1", 0))
        port = held.getsockname()[1]
        with record.record(f"http://127.0.0.1:{port}") as recorder:
            with pytest.raises(InvalidStatus) as refused:
                connect(_ws_url(recorder.url, "/v1/realtime"), open_timeout=WAIT)
            assert recorder.wait(1, timeout=0.5) == []
    assert refused.value.response.status_code == 502
    assert b"is unreachable" in refused.value.response.body


@contextmanager
def _raw_upstream(answer: bytes | None) -> Iterator[int]:
    """A TCP upstream that reads an upgrade and writes ``answer`` (None: never answers),
    ``{accept}`` filled with the request's accept token."""
    listener = socket.create_server(("127.0.0.1", 0))
    done = threading.Event()

    def serve() -> None:
        conn, _ = listener.accept()
        with conn:
            head = b""
            while b"\r\n\r\n" not in head:
                head += conn.recv(4096)
            if answer is not None:
                key = next(
                    line.split(b":", 1)[1].strip()
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"sec-websocket-key:")
                )
                conn.sendall(answer.replace(b"{accept}", generate_accept_token(key)))
            done.wait(WAIT)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        done.set()
        listener.close()
        thread.join(WAIT)


def test_an_upstream_that_never_answers_the_upgrade_is_a_504_within_the_timeout() -> None:
    with (
        _raw_upstream(None) as port,
        record.record(f"http://127.0.0.1:{port}", timeout=0.5) as recorder,
    ):
        with pytest.raises(InvalidStatus) as refused:
            connect(_ws_url(recorder.url, "/v1/realtime"), open_timeout=WAIT)
        assert recorder.wait(1, timeout=0.5) == []
    assert refused.value.response.status_code == 504
    assert b"did not answer the upgrade within 0.5 s" in refused.value.response.body


def test_an_upstream_that_chooses_a_subprotocol_never_offered_is_a_502() -> None:
    evil = (
        b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Accept: {accept}\r\nSec-WebSocket-Protocol: evil\r\n\r\n"
    )
    with (
        _raw_upstream(evil) as port,
        record.record(f"http://127.0.0.1:{port}") as recorder,
    ):
        with pytest.raises(InvalidStatus) as refused:
            connect(_ws_url(recorder.url, "/x"), subprotocols=CHAT, open_timeout=WAIT)
        assert recorder.wait(1, timeout=0.5) == []
    assert refused.value.response.status_code == 502
    assert b"unrecognized subprotocol evil" in refused.value.response.body


def test_the_key_in_a_subprotocol_is_in_no_journal_answer() -> None:
    """The proxy's journal, as the admin API shows a call, hides it in the header."""
    from mockhttp._core._redact import Redactor
    from mockhttp._server._admin import request_json

    with mockhttp.Server() as upstream:
        upstream.mock(llm.openai_realtime("Hi").mock())
        with record.record(upstream.url) as recorder:
            _realtime_session(_ws_url(recorder.url, "/v1/realtime"), subprotocols=BROWSER)
            recorder.wait(1, timeout=WAIT)
            (call,) = recorder.server.journal
    shown = json.dumps(request_json(call.request, Redactor.of_request(call.request)))
    assert KEY not in shown
    assert "openai-insecure-api-key.[redacted]" in shown
