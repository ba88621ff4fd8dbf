"""The server on the wire: HTTP/1.1 details, timing, robustness (loopback sockets)."""

from __future__ import annotations

import socket
import threading
import time

import httpx
import pytest

import mockhttp
from mockhttp import Event, match
from tests.helpers.clients import raw_exchange


def connect(server: mockhttp.Server) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    return sock


def read_until(sock: socket.socket, marker: bytes) -> bytes:
    data = b""
    while marker not in data:
        piece = sock.recv(65536)
        if not piece:
            break
        data += piece
    return data


def test_exact_bytes_of_an_event_stream(server: mockhttp.Server) -> None:
    """A raw client reads the head, chunked framing and event bytes exactly."""
    server.mock(mockhttp.get("/s").reply(mockhttp.ok().event_stream(Event(data={"a": 1}))))
    received = raw_exchange(server.url, b"GET /s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert received == (
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
        b"transfer-encoding: chunked\r\nconnection: close\r\n\r\n"
        b'f\r\ndata: {"a":1}\n\n\r\n0\r\n\r\n'
    )


def test_each_event_is_flushed_when_its_time_comes(server: mockhttp.Server) -> None:
    """Events arrive one by one, about event_delay apart, not drifting."""
    events = [Event(data=str(i)) for i in range(10)]
    server.mock(mockhttp.get("/s").reply(mockhttp.ok().event_stream(*events, event_delay=0.05)))
    arrivals: list[float] = []
    with httpx.Client() as client:
        sent = time.monotonic()
        with client.stream("GET", server.url + "/s") as response:
            for _ in response.iter_raw():
                arrivals.append(time.monotonic() - sent)
    assert len(arrivals) == 10  # each event is its own read: written and flushed alone
    # the last event is due at 9 * 50 ms = 450 ms after the first; allow scheduling noise
    assert 0.40 <= arrivals[-1] - arrivals[0] <= 0.75
    # none early: event i is due i * 50 ms after the request (a late read shortens the next
    # gap, so gaps alone prove nothing on a loaded machine; the schedule does)
    early = [(i, round(t, 3)) for i, t in enumerate(arrivals) if t < i * 0.05 * 0.9]
    assert early == []


def test_content_length_reply_and_keep_alive(server: mockhttp.Server) -> None:
    """Two requests on one connection, each with a Content-Length reply."""
    server.mock(mockhttp.get("/j").reply(mockhttp.ok().json({"ok": True})))
    sock = connect(server)
    with sock:
        for _ in range(2):
            sock.sendall(b"GET /j HTTP/1.1\r\nHost: x\r\n\r\n")
            data = read_until(sock, b'{"ok":true}')
            assert data.startswith(b"HTTP/1.1 200 OK\r\n")
            assert b"content-length: 11\r\n" in data
            assert b"connection: close" not in data


def test_pipelined_requests_are_answered_in_order(server: mockhttp.Server) -> None:
    """Requests sent back to back on one connection get their replies in order."""
    server.mock(mockhttp.get("/a").reply(mockhttp.ok().body("A")))
    server.mock(mockhttp.get("/b").reply(mockhttp.ok().body("B")))
    got = raw_exchange(
        server.url,
        b"GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
        b"GET /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    )
    assert got.index(b"\r\n\r\nA") < got.index(b"\r\n\r\nB")


def test_chunked_request_body_and_expect_continue(server: mockhttp.Server) -> None:
    """A chunked request body is de-chunked; Expect: 100-continue gets a 100 first."""
    mock = server.mock(mockhttp.post("/u").body(match.json_path("$.a", 1)))
    sock = connect(server)
    with sock:
        sock.sendall(
            b"POST /u HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
            b"Expect: 100-continue\r\n\r\n"
        )
        assert read_until(sock, b"\r\n\r\n") == b"HTTP/1.1 100 Continue\r\n\r\n"
        sock.sendall(b'4\r\n{"a"\r\n3\r\n: 1\r\n1\r\n}\r\n0\r\n\r\n')
        assert read_until(sock, b"content-length: 0\r\n\r\n").startswith(b"HTTP/1.1 200 OK")
    assert mock.calls.last.request.body == b'{"a": 1}'


def test_head_gets_headers_without_a_body(server: mockhttp.Server) -> None:
    """HEAD answers with the GET headers (Content-Length included) and no body."""
    server.mock(mockhttp.request("HEAD", "/j").reply(mockhttp.ok().body("12345")))
    got = raw_exchange(server.url, b"HEAD /j HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert got == b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\nconnection: close\r\n\r\n"


def test_http10_client_gets_a_close_delimited_stream(server: mockhttp.Server) -> None:
    """An HTTP/1.0 client gets the stream without chunking, ended by a close."""
    server.mock(mockhttp.get("/s").reply(mockhttp.ok().event_stream(Event(data="x"))))
    got = raw_exchange(server.url, b"GET /s HTTP/1.0\r\n\r\n")
    assert got.endswith(b"connection: close\r\n\r\ndata: x\n\n")
    assert b"transfer-encoding" not in got


def test_malformed_request_gets_400_and_server_keeps_serving(server: mockhttp.Server) -> None:
    """Garbage gets a 400 and a close; the next client is served."""
    server.mock(mockhttp.get("/ok"))
    got = raw_exchange(server.url, b"NOT HTTP AT ALL\r\n\r\n")
    assert got.startswith(b"HTTP/1.1 400 Bad Request\r\n")
    assert httpx.get(server.url + "/ok").status_code == 200


def test_oversized_head_gets_431(server: mockhttp.Server) -> None:
    """A request head over 64 KiB gets 431 and a close."""
    big = b"X-Big: " + b"a" * 70_000 + b"\r\n"
    got = raw_exchange(server.url, b"GET / HTTP/1.1\r\nHost: x\r\n" + big + b"\r\n")
    assert got.startswith(b"HTTP/1.1 431 Request Header Fields Too Large\r\n")
    assert httpx.get(server.url + "/").status_code == 404


def test_client_hanging_up_mid_stream_is_journaled(server: mockhttp.Server) -> None:
    """A client that hangs up ends its stream quietly; the call says so."""
    mock = server.mock(
        mockhttp.get("/s").reply(
            mockhttp.ok().event_stream(Event(comment="ping"), event_delay=0.01, repeat=True)
        )
    )
    sock = connect(server)
    sock.sendall(b"GET /s HTTP/1.1\r\nHost: x\r\n\r\n")
    read_until(sock, b": ping\n\n\r\n")
    sock.close()
    call = mock.calls.last
    assert call.wait(5) == "client hung up"
    assert call.events >= 1
    assert not server.errors
    deadline = time.monotonic() + 5
    while server._connections and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not server._connections  # nothing leaked


def test_endless_heartbeat_until_the_client_leaves(server: mockhttp.Server) -> None:
    """repeat=True sends a heartbeat on schedule for as long as the client reads."""
    server.mock(
        mockhttp.get("/hb").reply(
            mockhttp.ok().event_stream(Event(comment="keep-alive"), event_delay=0.05, repeat=True)
        )
    )
    with httpx.Client() as client, client.stream("GET", server.url + "/hb") as response:
        reads = 0
        for piece in response.iter_raw():
            assert piece == b": keep-alive\n\n"
            reads += 1
            if reads == 5:
                break
    assert reads == 5


def test_priority_then_most_recent_wins(server: mockhttp.Server) -> None:
    """Higher priority wins; among equals the most recently added mock answers."""
    server.mock(mockhttp.get("/p").reply(mockhttp.ok().body("old")))
    server.mock(mockhttp.get("/p").reply(mockhttp.ok().body("new")))
    assert httpx.get(server.url + "/p").text == "new"
    server.mock(mockhttp.get("/p", priority=1).reply(mockhttp.ok().body("high")))
    server.mock(mockhttp.get("/p").reply(mockhttp.ok().body("newest")))
    assert httpx.get(server.url + "/p").text == "high"


def test_times_makes_429_once_then_200(server: mockhttp.Server) -> None:
    """A mock limited to times=1 answers once; the next request falls through."""
    ok = server.mock(mockhttp.post("/c").reply(mockhttp.ok().json({"ok": 1})))
    limited = server.mock(mockhttp.post("/c", times=1).reply(mockhttp.status(429)))
    assert [httpx.post(server.url + "/c").status_code for _ in range(3)] == [429, 200, 200]
    limited.assert_called_once()
    ok.assert_called_times(2)


def test_path_templates_regex_and_query(server: mockhttp.Server) -> None:
    """{name} templates capture, regex paths match, query parameters are matched."""
    item = server.mock(mockhttp.get("/v1/models/{model}").reply(mockhttp.ok().body("m")))
    server.mock(mockhttp.get(match.regex(r"^/files/\d+$")).query("v", "2").reply(mockhttp.ok()))
    assert httpx.get(server.url + "/v1/models/gpt-4o").text == "m"
    assert item.calls.last.path_params == {"model": "gpt-4o"}
    assert httpx.get(server.url + "/files/12?v=2").status_code == 200
    assert httpx.get(server.url + "/files/12?v=3").status_code == 404
    assert httpx.get(server.url + "/files/ab?v=2").status_code == 404
    server.reset()


def test_unmatched_request_explains_the_closest_mock(server: mockhttp.Server) -> None:
    """A 404 says which field differed, in text and (asked for JSON) as JSON; the
    request's secrets are hidden, and so is what the mock expects of a secret header."""
    server.mock(
        mockhttp.post("/v1/chat", name="chat")
        .header("Authorization", "Bearer sk-test")
        .body(match.json_path("$.stream", match.equal(True)))
    )
    server.mock(mockhttp.get("/v1/models", name="models"))
    response = httpx.post(
        server.url + "/v1/chat",
        json={"stream": False},
        headers={"Authorization": "Bearer nope"},
    )
    assert response.status_code == 404
    assert response.text == (
        "no mock matched POST /v1/chat\n"
        "  closest: mock 'chat'\n"
        "    header 'authorization': got 'Bearer [redacted]', expected 'Bearer [redacted]'\n"
        "    body: $.stream: got false, expected true\n"
        "  also tried: mock 'models'\n"
        "    method: got 'POST', expected 'GET'\n"
        "    path: got '/v1/chat', expected '/v1/models'\n"
    )
    as_json = httpx.post(
        server.url + "/v1/chat",
        json={"stream": True},
        headers={"Accept": "application/json"},
    ).json()["error"]
    assert as_json["type"] == "mockhttp_no_match"
    assert as_json["closest"][0] == {
        "mock": "'chat'",
        "name": "chat",
        "differences": [
            {
                "field": "header 'authorization'",
                "reason": "got nothing (absent), expected 'Bearer [redacted]'",
                "expected": "equal('Bearer [redacted]')",
                "actual": None,
            }
        ],
    }
    wrong_stream = httpx.post(
        server.url + "/v1/chat",
        json={"stream": "yes"},
        headers={"Accept": "application/json", "Authorization": "Bearer sk-test"},
    ).json()["error"]["closest"][0]["differences"]
    assert wrong_stream == [
        {
            "field": "body",
            "reason": "$.stream: got 'yes', expected true",
            "expected": "json_path('$.stream', equal(True))",
            "actual": "yes",
            "path": "$.stream",
        }
    ]
    assert len(server.unmatched) == 3
    with pytest.raises(mockhttp.UnmatchedRequestError, match="3 request\\(s\\) matched no mock"):
        server.check()


def test_mocks_change_while_serving_from_other_threads(server: mockhttp.Server) -> None:
    """Mocks added and removed from several threads take effect at once, safely."""
    handles: list[mockhttp.ActiveMock] = []
    lock = threading.Lock()

    def add(i: int) -> None:
        h = server.mock(mockhttp.get(f"/t{i}").reply(mockhttp.ok().body(str(i))))
        with lock:
            handles.append(h)

    threads = [threading.Thread(target=add, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(server.mocks) == 20
    assert httpx.get(server.url + "/t7").text == "7"
    for h in handles:
        h.remove()
    assert httpx.get(server.url + "/t7").status_code == 404
    server.reset()


async def _async_use() -> str:
    async with mockhttp.Server() as server:
        server.mock(mockhttp.get("/a").reply(mockhttp.ok().body("async")))
        async with httpx.AsyncClient() as client:
            return (await client.get(server.url + "/a")).text


def test_async_context_manager() -> None:
    """`async with Server()` serves an async client from the caller's loop."""
    import asyncio

    assert asyncio.run(_async_use()) == "async"


def test_server_errors_on_bad_use() -> None:
    """Starting twice and binding a taken port raise ServerError."""
    with mockhttp.Server() as s:
        with pytest.raises(mockhttp.ServerError, match="already running"):
            s.start()
        with pytest.raises(mockhttp.ServerError, match="cannot listen"):
            mockhttp.Server(port=s.port).start()


def test_head_to_an_endless_stream_ends_after_the_head(server: mockhttp.Server) -> None:
    """HEAD on an endless event stream gets the head at once, and the server stays free."""
    server.mock(
        mockhttp.request(None, "/hb").reply(
            mockhttp.ok().event_stream(Event(comment="ping"), event_delay=0.5, repeat=True)
        )
    )
    got = raw_exchange(server.url, b"HEAD /hb HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert got.startswith(b"HTTP/1.1 200 OK\r\n")
    assert got.endswith(b"connection: close\r\n\r\n")
    assert b"transfer-encoding" not in got


def test_oversized_body_gets_413(server: mockhttp.Server, monkeypatch: pytest.MonkeyPatch) -> None:
    """A body over the limit gets 413 and a close; the server keeps serving."""
    from mockhttp._server import _http1

    monkeypatch.setattr(_http1, "MAX_BODY", 1000)
    server.mock(mockhttp.post("/u"))
    got = raw_exchange(
        server.url,
        b"POST /u HTTP/1.1\r\nHost: x\r\nContent-Length: 2000\r\n\r\n" + b"a" * 2000,
    )
    assert got.startswith(b"HTTP/1.1 413 ")
    assert b"request body is larger than 1000 bytes" in got
    assert httpx.post(server.url + "/u", content=b"small").status_code == 200


def test_respond_with_builds_a_reply_per_request(server: mockhttp.Server) -> None:
    """A handler answers from the request (here it echoes the prompt as a stream)."""

    def echo(request: mockhttp.Request) -> mockhttp.Reply:
        prompt = request.json()["messages"][-1]["content"]
        return mockhttp.ok().event_stream(Event(data={"echo": prompt}), Event(data="[DONE]"))

    mock = server.mock(mockhttp.post("/v1/chat/completions").respond_with(echo))
    for prompt in ("one", "two"):
        response = httpx.post(
            server.url + "/v1/chat/completions", json={"messages": [{"content": prompt}]}
        )
        assert response.text == f'data: {{"echo":"{prompt}"}}\n\ndata: [DONE]\n\n'
    assert mock.call_count == 2
    with pytest.raises(mockhttp.ConfigError, match="Python handler, which has no file form"):
        mock.mock.to_yaml()


def test_a_failing_handler_gives_500_and_check_raises(server: mockhttp.Server) -> None:
    """A handler that raises gets the client a 500 naming the error, no traceback; check()
    re-raises."""

    def broken(request: mockhttp.Request) -> mockhttp.Reply:
        raise KeyError("model")

    mock = server.mock(mockhttp.post("/x").respond_with(broken))
    response = httpx.post(server.url + "/x")
    assert response.status_code == 500
    assert "KeyError: 'model'" in response.text
    assert "Traceback" not in response.text
    assert 'File "' not in response.text
    assert mock.calls.last.status == 500
    assert len(server.journal) == 1
    with pytest.raises(KeyError, match="model"):
        server.check()
    server.reset()


def test_thousands_of_pipelined_requests_behind_a_slow_stream(server: mockhttp.Server) -> None:
    """Requests queued behind a stream are all answered when it ends (no deep recursion)."""
    server.mock(
        mockhttp.get("/s").reply(
            mockhttp.ok().event_stream(Event(data="x"), event_delay=0.1, first_event_delay=0.1)
        )
    )
    server.mock(mockhttp.get("/a").reply(mockhttp.ok().body("A")))
    got = raw_exchange(
        server.url,
        b"GET /s HTTP/1.1\r\nHost: x\r\n\r\n"
        + b"GET /a HTTP/1.1\r\nHost: x\r\n\r\n" * 3000
        + b"GET /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    )
    assert got.count(b"HTTP/1.1 200 OK\r\n") == 3002
    assert not server.errors


@pytest.mark.parametrize(
    ("mock", "request_bytes"),
    [
        (mockhttp.get("/r").reply(mockhttp.ok().json({"a": 1})), b"GET /r HTTP/1.1\r\n"),
        (mockhttp.get("/r").reply(mockhttp.status(204)), b"GET /r HTTP/1.1\r\n"),
        (mockhttp.request(None, "/r").reply(mockhttp.ok().body("x" * 10)), b"HEAD /r HTTP/1.1\r\n"),
        (mockhttp.get("/r").reply(mockhttp.ok().body("y" * 70_000)), b"GET /r HTTP/1.1\r\n"),
        (
            mockhttp.get("/r").reply(mockhttp.ok().event_stream(Event(data="1"), Event(data="2"))),
            b"GET /r HTTP/1.0\r\n",
        ),
        (
            mockhttp.get("/r").reply(mockhttp.ok().event_stream(Event(data="1"), Event(data="2"))),
            b"GET /r HTTP/1.1\r\n",
        ),
    ],
)
def test_short_replies_are_the_same_on_the_fast_and_the_general_path(
    server: mockhttp.Server, mock: mockhttp.Mock, request_bytes: bytes
) -> None:
    """A reply written in one go equals the same reply run step by step, bytes and journal."""
    from mockhttp import fault

    general = mock.pipe(fault.first(0, fault.reset()))  # a fault that never applies
    results = []
    for m in (mock, general):
        server.reset()
        active = server.mock(m)
        got = raw_exchange(server.url, request_bytes + b"Host: x\r\nConnection: close\r\n\r\n")
        call = active.calls.last
        call.wait()
        results.append(
            (
                got,
                call.status,
                call.body_bytes,
                call.wire_bytes,
                call.events,
                bytes(call.body_sent),
                call.outcome,
            )
        )
    assert results[0] == results[1]


def test_a_client_that_half_closes_gets_the_stream_then_eof(server: mockhttp.Server) -> None:
    """A client that shuts down its write side after the request reads the reply to EOF."""
    server.mock(
        mockhttp.get("/s").reply(
            mockhttp.ok().event_stream(Event(data="a"), Event(data="b"), event_delay=0.05)
        )
    )
    with connect(server) as sock:
        sock.sendall(b"GET /s HTTP/1.1\r\nHost: x\r\n\r\n")
        sock.shutdown(socket.SHUT_WR)
        received = b""
        while piece := sock.recv(65536):  # ends only if the server closes
            received += piece
    assert received.endswith(b"data: b\n\n\r\n0\r\n\r\n")


def test_reset_after_many_bytes_delivers_them_all_first(server: mockhttp.Server) -> None:
    """reset_after_bytes(n) far past the socket buffers: all n bytes arrive, then ECONNRESET."""
    from mockhttp import fault

    n = 3_000_000
    server.mock(
        mockhttp.get("/r")
        .pipe(fault.reset_after_bytes(n))
        .reply(mockhttp.ok().body(b"z" * (2 * n)))
    )
    with connect(server) as sock:
        sock.sendall(b"GET /r HTTP/1.1\r\nHost: x\r\n\r\n")
        time.sleep(0.3)  # a client that starts reading late
        received = bytearray()

        def read_all() -> None:
            while piece := sock.recv(1 << 20):
                received.extend(piece)

        with pytest.raises(ConnectionResetError):
            read_all()
    body = bytes(received).split(b"\r\n\r\n", 1)[1]
    assert len(body) == n


def test_numbers_in_header_and_query_matchers_mean_their_text(server: mockhttp.Server) -> None:
    """.header("x-api-version", 2) and .query("page", 1) match the text "2" and "1"."""
    server.mock(mockhttp.get("/v").header("x-api-version", 2).query("page", 1).query("all", True))
    assert httpx.get(server.url + "/v?page=1&all=true", headers={"X-Api-Version": "2"}).is_success


def test_a_get_mock_answers_head_unless_a_head_mock_does(server: mockhttp.Server) -> None:
    """HEAD is GET without the content: a GET mock answers it; a HEAD mock comes first."""
    server.mock(mockhttp.get("/m").reply(mockhttp.ok().json({"data": []})))
    response = httpx.head(server.url + "/m")
    assert (response.status_code, response.headers["content-length"], response.content) == (
        200,
        "11",
        b"",
    )
    server.mock(mockhttp.head("/m", priority=-1).reply(mockhttp.status(204)))
    assert httpx.head(server.url + "/m").status_code == 204
    assert httpx.get(server.url + "/m").status_code == 200


def test_a_reply_that_cannot_be_framed_is_one_failed_call(server: mockhttp.Server) -> None:
    """A handler's reply whose head cannot be encoded: a 500, one call, error kept for check()."""

    def euro(request: mockhttp.Request) -> mockhttp.Reply:
        return mockhttp.Reply(headers=(("X-Price", "5 €"),))

    mock = server.mock(mockhttp.get("/eur").respond_with(euro))
    assert httpx.get(server.url + "/eur").status_code == 500
    assert [(c.status, c.wait()) for c in server.journal] == [(500, "complete")]
    assert mock.call_count == 1
    assert not server.unmatched
    with pytest.raises(UnicodeEncodeError):
        server.check()
    server.reset()


def test_closing_the_server_ends_open_streams_as_server_closed() -> None:
    """Server.close() with streams open ends them at once; their calls say "server closed"."""
    server = mockhttp.Server().start()
    mock = server.mock(
        mockhttp.get("/hb").reply(
            mockhttp.ok().event_stream(Event(comment="ping"), event_delay=0.05, repeat=True)
        )
    )
    sockets = [connect(server) for _ in range(3)]
    for sock in sockets:
        sock.sendall(b"GET /hb HTTP/1.1\r\nHost: x\r\n\r\n")
        read_until(sock, b": ping\n\n")
    server.close()
    for sock in sockets:
        with sock:
            while sock.recv(65536):  # EOF (or a reset) comes at once
                pass
    assert [c.wait(2) for c in mock.calls] == ["server closed"] * 3


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"port": 70000}, "port=70000 must be an int from 0 to 65535"),
        ({"port": "80"}, "port='80' must be an int"),
        ({"host": 5}, "host=5 must be an address"),
        ({"unmatched_status": 99}, "unmatched_status=99 must be an int from 100 to 999"),
    ],
)
def test_bad_server_arguments_raise_config_error(kwargs, message) -> None:
    """Server arguments are checked when the server is built."""
    with pytest.raises(mockhttp.ConfigError) as info:
        mockhttp.Server(**kwargs)
    assert message in str(info.value)


def test_expect_continue_behind_a_stream_comes_when_the_stream_ends(
    server: mockhttp.Server,
) -> None:
    """A request pipelined behind a stream gets its 100 Continue once the stream is done."""
    server.mock(
        mockhttp.get("/s").reply(mockhttp.ok().event_stream(Event(data="x"), first_event_delay=0.2))
    )
    server.mock(mockhttp.post("/u"))
    with connect(server) as sock:
        sock.sendall(
            b"GET /s HTTP/1.1\r\nHost: x\r\n\r\n"
            b"POST /u HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n"
        )
        got = read_until(sock, b"HTTP/1.1 100 Continue\r\n\r\n")
        assert got.index(b"0\r\n\r\n") < got.index(b"HTTP/1.1 100 Continue")  # after the stream
        sock.sendall(b"{}")
        assert b"HTTP/1.1 200 OK" in read_until(sock, b"content-length: 0\r\n\r\n")


def test_expect_continue_from_http10_is_ignored(server: mockhttp.Server) -> None:
    """An HTTP/1.0 client gets no 100 Continue (RFC 9110 §10.1.1), just the reply."""
    server.mock(mockhttp.post("/u"))
    got = raw_exchange(
        server.url,
        b"POST /u HTTP/1.0\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n{}",
    )
    assert got.startswith(b"HTTP/1.1 200 OK\r\n")
    assert b"100 Continue" not in got


def test_replace_keeps_the_place_of_the_mocks_it_replaces(server: mockhttp.Server) -> None:
    """Replaced mocks rank where the old ones did: a mock added since still wins."""
    old = [server.mock(mockhttp.get("/x").reply(mockhttp.ok().body("file v1")))]
    server.mock(mockhttp.get("/x").reply(mockhttp.ok().body("override")))
    new = server.replace(old, [mockhttp.get("/x").reply(mockhttp.ok().body("file v2"))])
    assert httpx.get(server.url + "/x").text == "override"
    assert [a.mock.response.content for a in server.mocks if a.mock.response] == [
        b"override",
        b"file v2",
    ]
    assert new[0] in server.mocks
    assert old[0] not in server.mocks


def test_requests_in_flight_while_other_threads_churn_mocks(server: mockhttp.Server) -> None:
    """Clients keep being served by a stable mock while other mocks come and go."""
    server.mock(mockhttp.get("/stable").reply(mockhttp.ok().body("s")))
    stop = threading.Event()
    failures: list[object] = []

    def churn() -> None:
        while not stop.is_set():
            h = server.mock(mockhttp.get("/stable", priority=-1).reply(mockhttp.status(500)))
            server.mock(mockhttp.get("/other")).remove()
            h.remove()

    def client() -> None:
        with httpx.Client() as c:
            for _ in range(100):
                response = c.get(server.url + "/stable")
                if (response.status_code, response.text) != (200, "s"):
                    failures.append(response)

    churner = threading.Thread(target=churn)
    churner.start()
    clients = [threading.Thread(target=client) for _ in range(4)]
    for t in clients:
        t.start()
    for t in clients:
        t.join()
    stop.set()
    churner.join()
    assert failures == []
    assert not server.errors
    assert len(server.mocks) == 1


def test_requests_after_an_upgrade_request_are_served(server: mockhttp.Server) -> None:
    """An Upgrade request is answered as plain HTTP, and the requests after it still are."""
    server.mock(mockhttp.get("/a").reply(mockhttp.ok().body("A")))
    server.mock(mockhttp.get("/b").reply(mockhttp.ok().body("B")))
    got = raw_exchange(
        server.url,
        b"GET /a HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n"
        b"GET /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    )
    assert got.count(b"HTTP/1.1 200 OK") == 2
    assert got.endswith(b"\r\n\r\nB")


def test_utf8_header_values_are_matched_by_their_bytes() -> None:
    """docs/matching.md: header values are latin-1, one character per byte."""
    as_bytes = "café".encode().decode("latin-1")
    with mockhttp.Server() as server:
        server.mock(mockhttp.get("/").header("x-name", as_bytes).reply(mockhttp.ok().body("yes")))
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
        sock.sendall(
            "GET / HTTP/1.1\r\nHost: x\r\nx-name: café\r\nConnection: close\r\n\r\n".encode()
        )
        reply = b""
        while piece := sock.recv(4096):
            reply += piece
        sock.close()
        assert reply.endswith(b"\r\n\r\nyes")
        assert server.journal[0].request.headers["x-name"].encode("latin-1") == "café".encode()
