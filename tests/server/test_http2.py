"""HTTP/2 (``Server(http2=True)``) on the wire: httpx over TLS (ALPN ``h2``) and over h2c
with prior knowledge, streams byte-exact and timed, many streams on one connection,
faults per stream (``RST_STREAM``), and flow control seen from a raw ``h2`` client."""

from __future__ import annotations

import asyncio
import socket
import time

import httpx
import pytest

import mockhttp
from mockhttp import Event, fault, match

h2_connection = pytest.importorskip("h2.connection")
import h2.config  # noqa: E402
import h2.errors  # noqa: E402
import h2.events  # noqa: E402
import h2.settings  # noqa: E402

pytest.importorskip("trustme")


@pytest.fixture(params=["asyncio", "uvloop"])
def loop(request: pytest.FixtureRequest) -> str:
    """The https tests on both loops (uvloop does TLS in its own accept path: _accept.py)."""
    if request.param == "uvloop":
        pytest.importorskip("uvloop")
    return str(request.param)


EVENTS = [Event(data=f"token {i}", id=str(i)) for i in range(4)]
EXPECTED = b"".join(e.encode() for e in EVENTS)
DELAY = 0.1


def _client(server: mockhttp.Server, tls: bool) -> httpx.Client:
    if tls:
        return httpx.Client(verify=server.ssl_context(), http2=True)
    return httpx.Client(http1=False, http2=True)  # h2c: prior knowledge


def _async_client(server: mockhttp.Server, tls: bool) -> httpx.AsyncClient:
    if tls:
        return httpx.AsyncClient(verify=server.ssl_context(), http2=True)
    return httpx.AsyncClient(http1=False, http2=True)


@pytest.mark.parametrize("tls", [True, False], ids=["tls-alpn", "h2c"])
def test_an_event_stream_is_byte_exact_and_timed(tls: bool, loop: str) -> None:
    reply = mockhttp.ok().event_stream(*EVENTS, event_delay=DELAY)
    with mockhttp.Server(http2=True, tls=tls, loop=loop) as server:
        server.mock(mockhttp.get("/events").reply(reply))
        with (
            _client(server, tls) as client,
            client.stream("GET", server.url_for("/events")) as response,
        ):
            assert response.http_version == "HTTP/2"
            assert response.headers["content-type"] == "text/event-stream"
            got, times = b"", []
            for piece in response.iter_raw():
                got += piece
                times.append(time.time())
        assert got == EXPECTED
        assert len(times) == len(EVENTS)  # one DATA frame per event
        (call,) = server.journal
        # Timed by the server's write times from the request's arrival (the client's reading
        # times squeezed a gap when its thread was late for the piece before, under load):
        # event i is due i * DELAY after the stream began, never earlier, and not much later.
        assert call.event_times is not None
        assert call.time is not None
        written = [t - call.time for t in call.event_times]
        assert len(written) == len(EVENTS)
        assert all(i * DELAY <= at < i * DELAY + 0.5 for i, at in enumerate(written)), written
        # each event flushed when written: the first reached the client before the last was
        # written (0.3 s later); a stream sent whole at its end would fail this at any load
        assert times[0] < call.event_times[-1], (times, call.event_times)
        assert call.request.http_version == "2"
        assert call.outcome == "complete"
        assert call.body_bytes == len(EXPECTED)
        assert call.request.headers["host"] == f"127.0.0.1:{server.port}"


def test_a_post_body_is_matched_and_http1_is_still_served(loop: str) -> None:
    with mockhttp.Server(http2=True, tls=True, loop=loop) as server:
        server.mock(
            mockhttp.post("/v1/chat")
            .body(match.json_path("$.model", match.equal("m")))
            .reply(mockhttp.ok().json({"a": 1}))
        )
        with _client(server, True) as client:
            response = client.post(server.url_for("/v1/chat"), json={"model": "m"})
            assert (response.http_version, response.json()) == ("HTTP/2", {"a": 1})
        with httpx.Client(verify=server.ssl_context()) as client:  # no h2 offered: HTTP/1.1
            response = client.post(server.url_for("/v1/chat"), json={"model": "m"})
            assert (response.http_version, response.json()) == ("HTTP/1.1", {"a": 1})
        assert [c.request.http_version for c in server.journal] == ["2", "1.1"]
        assert [c.request.body for c in server.journal] == [b'{"model":"m"}'] * 2


def test_ten_streams_share_one_connection(loop: str) -> None:
    reply = mockhttp.ok().event_stream(*EVENTS, event_delay=DELAY)
    with mockhttp.Server(http2=True, tls=True, loop=loop) as server:
        server.mock(mockhttp.get("/events").reply(reply))
        seen: list[int] = []

        async def one(client: httpx.AsyncClient) -> bytes:
            async with client.stream("GET", server.url_for("/events")) as response:
                got = b""
                async for piece in response.aiter_raw():
                    got += piece
                    seen.append(len(server._connections))
                return got

        async def main() -> list[bytes]:
            async with _async_client(server, True) as client:
                await client.get(server.url_for("/events"))  # the connection, made once
                return await asyncio.gather(*(one(client) for _ in range(10)))

        bodies = asyncio.run(main())
    assert bodies == [EXPECTED] * 10
    assert set(seen) == {1}  # one TCP connection all along
    assert len(server.journal) == 11
    assert {c.outcome for c in server.journal} == {"complete"}
    # the ten streams of 0.3 s each ran at once, not one after the other: every one began
    # before any ended (from the server's own times: the wall clock of the whole run, TLS
    # and all, took 2 s with a CPU hog on each core; one after the other is 3 s and more)
    ten = list(server.journal)[1:]
    began = [c.time for c in ten if c.time is not None]
    ended = [c.end_time for c in ten if c.end_time is not None]
    assert len(began) == len(ended) == 10
    assert max(began) < min(ended), (began, ended)


@pytest.mark.parametrize(
    ("tls", "broken", "outcome"),
    [(True, fault.close_after_events(2), "closed"), (False, fault.reset_after_events(2), "reset")],
    ids=["close-tls", "reset-h2c"],
)
def test_a_fault_resets_its_stream_only(tls: bool, broken: fault.Fault, outcome: str) -> None:
    reply = mockhttp.ok().event_stream(*EVENTS, event_delay=DELAY)
    with mockhttp.Server(http2=True, tls=tls) as server:
        server.mock(mockhttp.get("/cut").reply(reply).pipe(broken))
        server.mock(mockhttp.get("/whole").reply(reply))

        async def cut(client: httpx.AsyncClient) -> tuple[bytes, type[BaseException] | None]:
            got = b""
            try:
                async with client.stream("GET", server.url_for("/cut")) as response:
                    async for piece in response.aiter_raw():
                        got += piece
            except httpx.HTTPError as exc:
                return got, type(exc)
            return got, None

        async def whole(client: httpx.AsyncClient) -> bytes:
            response = await client.get(server.url_for("/whole"))
            return response.content

        async def main() -> tuple[tuple[bytes, type[BaseException] | None], bytes]:
            async with _async_client(server, tls) as client:
                await client.get(server.url_for("/whole"))
                return await asyncio.gather(cut(client), whole(client))

        (got, error), body = asyncio.run(main())
        assert got == EVENTS[0].encode() + EVENTS[1].encode()
        assert error is httpx.RemoteProtocolError  # the stream's error, not the connection's
        assert body == EXPECTED
        calls = {c.request.path: c for c in server.journal}
        assert calls["/cut"].outcome == outcome
        assert calls["/cut"].events == 2
        assert calls["/cut"].event_ids == ["0", "1"]
        assert [c.outcome for c in server.journal if c.request.path == "/whole"] == [
            "complete",
            "complete",
        ]


def _raw_h2(
    server: mockhttp.Server, window: int
) -> tuple[socket.socket, h2.connection.H2Connection]:
    """A raw h2c client with an initial stream window of ``window`` bytes, its preface
    sent in two pieces (the server must wait for the whole preface)."""
    sock = socket.create_connection((server.host, server.port), timeout=5)
    client = h2_connection.H2Connection(h2.config.H2Configuration(client_side=True))
    client.initiate_connection()
    client.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: window})
    data = client.data_to_send()
    sock.sendall(data[:5])
    time.sleep(0.05)
    sock.sendall(data[5:])
    return sock, client


def _read_events(
    sock: socket.socket, client: h2.connection.H2Connection, until: float
) -> list[h2.events.Event]:
    """Events from the server until ``until`` seconds pass or the stream ends."""
    events: list[h2.events.Event] = []
    sock.settimeout(0.05)
    deadline = time.monotonic() + until
    while time.monotonic() < deadline:
        try:
            data = sock.recv(65536)
        except TimeoutError:
            continue
        if not data:
            break
        events += client.receive_data(data)
        sock.sendall(client.data_to_send())
        if any(isinstance(e, h2.events.StreamEnded | h2.events.StreamReset) for e in events):
            break
    return events


def _data(events: list[h2.events.Event]) -> bytes:
    return b"".join(e.data or b"" for e in events if isinstance(e, h2.events.DataReceived))


def test_flow_control_holds_the_body_until_window_update() -> None:
    body = bytes(range(256)) * 40  # 10,240 bytes
    with mockhttp.Server(http2=True) as server:
        server.mock(mockhttp.get("/big").reply(mockhttp.ok().body(body)))
        sock, client = _raw_h2(server, window=1000)
        with sock:
            client.send_headers(
                1,
                [(":method", "GET"), (":path", "/big"), (":scheme", "http"), (":authority", "x")],
                end_stream=True,
            )
            sock.sendall(client.data_to_send())
            first = _read_events(sock, client, 0.5)  # the window lets 1,000 bytes through
            assert _data(first) == body[:1000]
            assert not any(isinstance(e, h2.events.StreamEnded) for e in first)
            (head,) = [e for e in first if isinstance(e, h2.events.ResponseReceived)]
            assert dict(head.headers or [])[b":status"] == b"200"
            client.increment_flow_control_window(len(body), stream_id=1)
            client.increment_flow_control_window(len(body))
            sock.sendall(client.data_to_send())
            rest = _read_events(sock, client, 2.0)
            assert _data(first) + _data(rest) == body
            assert any(isinstance(e, h2.events.StreamEnded) for e in rest)
        (call,) = server.journal
        assert call.outcome == "complete"
        assert call.request.http_version == "2"


def test_a_client_reset_ends_its_stream_as_hung_up() -> None:
    reply = mockhttp.ok().event_stream(Event(data="ping"), event_delay=0.02, repeat=True)
    with mockhttp.Server(http2=True) as server:
        server.mock(mockhttp.get("/endless").reply(reply))
        sock, client = _raw_h2(server, window=65535)
        with sock:
            client.send_headers(
                1,
                [
                    (":method", "GET"),
                    (":path", "/endless"),
                    (":scheme", "http"),
                    (":authority", "x"),
                ],
                end_stream=True,
            )
            sock.sendall(client.data_to_send())
            assert _data(_read_events(sock, client, 0.2)).startswith(b"data: ping\n\n")
            client.reset_stream(1)
            sock.sendall(client.data_to_send())
            (call,) = server.journal
            assert call.wait(timeout=2) == "client hung up"


def _get_on(client: h2.connection.H2Connection, sock: socket.socket, path: str) -> None:
    client.send_headers(
        1,
        [(":method", "GET"), (":path", path), (":scheme", "http"), (":authority", "x")],
        end_stream=True,
    )
    sock.sendall(client.data_to_send())


@pytest.mark.parametrize(
    ("broken", "code"),
    [
        (fault.close_after_events(1), h2.errors.ErrorCodes.CANCEL),
        (fault.reset_after_events(1), h2.errors.ErrorCodes.INTERNAL_ERROR),
    ],
    ids=["close", "reset"],
)
def test_a_fault_is_rst_stream_after_the_bytes_before_it(broken: fault.Fault, code: int) -> None:
    reply = mockhttp.ok().event_stream(*EVENTS)
    with mockhttp.Server(http2=True) as server:
        server.mock(mockhttp.get("/cut").reply(reply).pipe(broken))
        sock, client = _raw_h2(server, window=65535)
        with sock:
            _get_on(client, sock, "/cut")
            events = _read_events(sock, client, 2.0)
            assert _data(events) == EVENTS[0].encode()
            (reset,) = [e for e in events if isinstance(e, h2.events.StreamReset)]
            assert (reset.stream_id, reset.error_code) == (1, code)
            # the connection goes on: a second stream on it is answered
            client.send_headers(
                3,
                [(":method", "GET"), (":path", "/cut"), (":scheme", "http"), (":authority", "x")],
                end_stream=True,
            )
            sock.sendall(client.data_to_send())
            assert _data(_read_events(sock, client, 2.0)) == EVENTS[0].encode()


def test_an_idle_connection_gets_goaway() -> None:
    with mockhttp.Server(http2=True, idle_timeout=0.3) as server:
        sock, client = _raw_h2(server, window=65535)
        with sock:
            start = time.monotonic()
            events = _read_events(sock, client, 3.0)
            while not any(isinstance(e, h2.events.ConnectionTerminated) for e in events):
                events = _read_events(sock, client, 3.0)
                assert time.monotonic() - start < 3.0
            assert 0.3 <= time.monotonic() - start < 2.5


def test_http1_requests_starting_like_the_preface_are_http1() -> None:
    """``POST`` begins with the preface's "P": the server waits for the next bytes."""
    with mockhttp.Server(http2=True) as server:
        server.mock(mockhttp.post("/p").reply(mockhttp.ok().body("yes")))
        with socket.create_connection((server.host, server.port), timeout=5) as sock:
            sock.sendall(b"P")
            time.sleep(0.05)
            sock.sendall(
                b"OST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            )
            got = b""
            while piece := sock.recv(65536):
                got += piece
        assert got.startswith(b"HTTP/1.1 200 OK\r\n")
        assert got.endswith(b"\r\n\r\nyes")
        (call,) = server.journal
        assert call.request.http_version == "1.1"
