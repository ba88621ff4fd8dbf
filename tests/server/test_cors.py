"""CORS on the wire: preflights, and the headers on every kind of reply."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import httpx
import pytest

import mockhttp
from mockhttp import Event, fault, llm

PAGE = "http://localhost:3000"
PREFLIGHT = {
    "Origin": PAGE,
    "Access-Control-Request-Method": "POST",
    "Access-Control-Request-Headers": "authorization,content-type,x-stainless-lang",
}


@pytest.fixture
def cors_server() -> Iterator[mockhttp.Server]:
    with mockhttp.Server(cors=[PAGE], admin=True) as server:
        yield server


def _raw(server: mockhttp.Server, head: bytes) -> bytes:
    with socket.create_connection((server.host, server.port), timeout=5) as sock:
        sock.sendall(head)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def test_a_preflight_gets_exact_bytes_and_is_kept_apart(cors_server: mockhttp.Server) -> None:
    """The 204 allows what was asked; it is in ``preflights``, not the journal."""
    wire = _raw(
        cors_server,
        b"OPTIONS /v1/chat/completions HTTP/1.1\r\nHost: x\r\nOrigin: http://localhost:3000\r\n"
        b"Access-Control-Request-Method: POST\r\n"
        b"Access-Control-Request-Headers: authorization,content-type\r\nConnection: close\r\n\r\n",
    )
    assert wire == (
        b"HTTP/1.1 204 No Content\r\n"
        b"Access-Control-Allow-Origin: http://localhost:3000\r\n"
        b"Access-Control-Allow-Credentials: true\r\n"
        b"Vary: Origin\r\n"
        b"Access-Control-Allow-Methods: POST\r\n"
        b"Access-Control-Allow-Headers: authorization,content-type\r\n"
        b"connection: close\r\n\r\n"
    )
    assert len(cors_server.journal) == 0
    [call] = cors_server.preflights
    assert (call.request.method, call.status) == ("OPTIONS", 204)
    cors_server.check()  # a preflight is not an unmatched request


def test_a_stream_cut_by_a_fault_carries_the_headers(cors_server: mockhttp.Server) -> None:
    """An event stream reset after one event still has CORS (and exposed) headers."""
    reply = (
        mockhttp.ok().header("x-request-id", "req-1").event_stream(*(Event(data=d) for d in "abc"))
    )
    cors_server.mock(mockhttp.post("/s").reply(reply).pipe(fault.close_after_events(1)))
    with httpx.stream("POST", cors_server.url_for("/s"), headers={"Origin": PAGE}) as response:
        headers = response.headers
        with pytest.raises(httpx.RemoteProtocolError):
            response.read()
    assert headers["access-control-allow-origin"] == PAGE
    assert headers["access-control-allow-credentials"] == "true"
    assert headers["access-control-expose-headers"] == "x-request-id"
    assert headers["vary"] == "Origin"


def test_an_unmatched_404_and_a_builtin_llm_reply_carry_the_headers(
    cors_server: mockhttp.Server,
) -> None:
    """The explained 404 and an ``llm`` reply are readable by the page too."""
    cors_server.mock(mockhttp.post("/v1/chat/completions").reply(llm.openai_chat("Hi")))
    body = {"model": "gpt-4o", "stream": True, "messages": []}
    ok = httpx.post(
        cors_server.url_for("/v1/chat/completions"),
        json=body,
        headers={"Origin": PAGE, "Authorization": "Bearer sk-test"},
    )
    missed = httpx.get(cors_server.url_for("/nothing"), headers={"Origin": PAGE})
    assert ok.status_code == 200
    assert b"data: [DONE]" in ok.content
    assert missed.status_code == 404
    for response in (ok, missed):
        assert response.headers["access-control-allow-origin"] == PAGE
    assert [c.status for c in cors_server.unmatched] == [404]


def test_the_admin_api_stays_locked_whatever_cors_says(cors_server: mockhttp.Server) -> None:
    """A page from an allowed origin still gets a 403 from the admin API, no CORS headers,
    and its preflight is not answered as a CORS one."""
    admin = cors_server.url_for("/__mockhttp/mocks")
    listed = httpx.get(admin, headers={"Origin": PAGE})
    asked = httpx.options(admin, headers=PREFLIGHT)
    for response in (listed, asked):
        assert response.status_code in (403, 405)
        assert "access-control-allow-origin" not in response.headers
    assert listed.json()["error"]["type"] == "forbidden_origin"
    assert not cors_server.preflights


def test_another_origin_gets_no_allow_origin(cors_server: mockhttp.Server) -> None:
    """A page from an origin not listed reads nothing: 403 to its preflight, no header."""
    cors_server.mock(mockhttp.get("/x").reply(mockhttp.ok().body("x")))
    asked = httpx.options(
        cors_server.url_for("/x"), headers={**PREFLIGHT, "Origin": "http://e.test"}
    )
    got = httpx.get(cors_server.url_for("/x"), headers={"Origin": "http://e.test"})
    assert asked.status_code == 403
    assert "access-control-allow-origin" not in got.headers
    assert got.headers["vary"] == "Origin"


def test_a_mocks_own_cors_header_wins(cors_server: mockhttp.Server) -> None:
    """A mock that sets Access-Control-Allow-Origin itself keeps its value (not doubled)."""
    reply = mockhttp.ok().header("Access-Control-Allow-Origin", "*").body("x")
    cors_server.mock(mockhttp.get("/own").reply(reply))
    got = httpx.get(cors_server.url_for("/own"), headers={"Origin": PAGE})
    assert got.headers.get_list("access-control-allow-origin") == ["*"]


def test_without_cors_nothing_changes(server: mockhttp.Server) -> None:
    """Off by default: a preflight is an ordinary (unmatched) request, no header added."""
    server.mock(mockhttp.get("/x").reply(mockhttp.ok().body("x")))
    got = httpx.get(server.url_for("/x"), headers={"Origin": PAGE})
    asked = httpx.options(server.url_for("/x"), headers=PREFLIGHT)
    assert "vary" not in got.headers
    assert "access-control-allow-origin" not in got.headers
    assert asked.status_code == 404
    server.reset()  # (the unmatched preflight is not this test's subject)


def test_origin_null_gets_no_credentials_from_any_origin_cors() -> None:
    """``cors=True`` (``--cors`` with no list): a page with ``Origin: null`` (a sandboxed
    iframe, a ``file://`` page) may read a reply without credentials, never with them."""
    with mockhttp.Server(cors=True) as server:
        server.mock(mockhttp.post("/v1/chat/completions").reply(llm.openai_chat("Hi")))
        url = server.url_for("/v1/chat/completions")
        asked = httpx.options(url, headers={**PREFLIGHT, "Origin": "null"})
        got = httpx.post(url, json={}, headers={"Origin": "null"})
        page = httpx.post(url, json={}, headers={"Origin": PAGE})
    for reply in (asked, got):
        assert reply.headers["access-control-allow-origin"] == "*"
        assert "access-control-allow-credentials" not in reply.headers
    assert asked.status_code == 204
    assert got.status_code == 200
    assert page.headers["access-control-allow-origin"] == PAGE
    assert page.headers["access-control-allow-credentials"] == "true"
