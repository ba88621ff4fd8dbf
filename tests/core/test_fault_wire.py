"""Faults on the wire: what a raw socket, httpx, the openai SDK and a hand-written client see.

Timing assertions leave wide margins (the test machine is small and busy): they check that a
wait happened, and bound it loosely from above only where a hang would otherwise pass.
"""

from __future__ import annotations

import errno
import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import openai
import pytest

import mockhttp
from mockhttp import fault
from mockhttp.sse import Decoder, Message
from tests.core.test_fault_support import SEED_BODY, SEED_EVENTS, client_view
from tests.helpers import clients as clients

pytestmark = pytest.mark.usefixtures("default_loop")  # on both loops (tests/conftest.py)

PATH = "/v1/chat/completions"
REQUEST = json.dumps(
    {"model": "gpt-test", "stream": True, "messages": [{"role": "user", "content": "Say hello"}]}
).encode()


def seed_mock(*faults: fault.Fault, event_delay: float = 0.0) -> mockhttp.Mock:
    """The seed's streaming mock, with faults."""
    reply = mockhttp.ok().event_stream(*SEED_EVENTS, event_delay=event_delay)
    return mockhttp.post(PATH).pipe(*faults).reply(reply)


# -- clients ------------------------------------------------------------------------------


@dataclass
class RawResult:
    """Every read a raw socket made, and how the connection ended for it."""

    reads: list[bytes]
    error: OSError | None  # None: a clean EOF

    @property
    def data(self) -> bytes:
        return b"".join(self.reads)

    @property
    def body(self) -> bytes:
        return client_view(self.data).body


def raw_exchange(
    server: mockhttp.Server, request: bytes, *, timeout: float = 5.0, wait: float = 0.0
) -> RawResult:
    """Send ``request`` over a plain socket, wait ``wait`` seconds, then read until EOF or an
    error."""
    reads: list[bytes] = []
    with socket.create_connection((server.host, server.port), timeout=timeout) as sock:
        sock.sendall(request)
        time.sleep(wait)
        try:
            while data := sock.recv(65536):
                reads.append(data)
        except OSError as exc:
            return RawResult(reads, exc)
    return RawResult(reads, None)


def raw_post(server: mockhttp.Server, *, timeout: float = 5.0) -> RawResult:
    """POST the chat request over a plain socket and read until EOF or an error."""
    head = (
        f"POST {PATH} HTTP/1.1\r\nHost: {server.host}\r\nContent-Type: application/json\r\n"
        f"Connection: close\r\nContent-Length: {len(REQUEST)}\r\n\r\n"
    ).encode()
    return raw_exchange(server, head + REQUEST, timeout=timeout)


def sdk(server: mockhttp.Server, *, retries: int = 0) -> str:
    """The official openai SDK, streaming: the answer put together from the deltas."""
    with openai.OpenAI(
        base_url=server.url + "/v1", api_key="sk-test", max_retries=retries, timeout=5
    ) as client:
        stream = client.chat.completions.create(
            model="gpt-test", messages=[{"role": "user", "content": "Say hello"}], stream=True
        )
        return "".join(c.choices[0].delta.content or "" for c in stream if c.choices)


def sse_events(pieces: list[bytes]) -> list[tuple[str, str]]:
    """Events as a spec-following SSE parser (mockhttp.sse.Decoder) dispatches them."""
    decoder = Decoder()
    items = [item for piece in pieces for item in decoder.feed(piece)] + decoder.close()
    return [(m.event, m.data) for m in items if isinstance(m, Message)]


def call_of(active: mockhttp.ActiveMock) -> mockhttp.Call:
    """The mock's only call, once its reply has ended."""
    assert len(active.calls) == 1
    call = active.calls[0]
    call.wait()
    return call


@pytest.fixture
def server(default_loop: str) -> Iterator[mockhttp.Server]:
    """A fresh server for one test, on the loop ``auto`` means in this run."""
    with mockhttp.Server() as s:
        assert s.loop_name == default_loop
        yield s


# -- limit_data: the seed's dropped stream --------------------------------------------------


def test_limit_data_gives_a_raw_socket_100_body_bytes_then_eof(server: mockhttp.Server) -> None:
    """The socket reads the head, exactly 100 body bytes, then EOF with the chunked body
    unfinished (no last chunk)."""
    active = server.mock(seed_mock(fault.limit_data(100)))
    got = raw_post(server)
    assert got.error is None
    assert got.data.startswith(b"HTTP/1.1 200 OK\r\n")
    assert b"transfer-encoding: chunked" in got.data
    assert got.body == SEED_BODY[:100]
    assert not got.data.endswith(b"0\r\n\r\n")
    assert "incomplete chunked read" in client_view(got.data).result
    call = call_of(active)
    assert (call.outcome, call.body_bytes, bytes(call.body_sent)) == (
        "closed",
        100,
        SEED_BODY[:100],
    )


def test_limit_data_makes_httpx_raise_an_incomplete_read(server: mockhttp.Server) -> None:
    """httpx raises RemoteProtocolError (incomplete chunked read) after the 100 bytes."""
    server.mock(seed_mock(fault.limit_data(100)))
    received: list[bytes] = []
    with httpx.stream("POST", server.url + PATH, content=REQUEST) as response:
        assert response.status_code == 200
        with pytest.raises(httpx.RemoteProtocolError, match="incomplete chunked read"):
            received.extend(response.iter_bytes())
    assert b"".join(received) == SEED_BODY[:100]


def test_limit_data_makes_the_openai_sdk_raise(server: mockhttp.Server) -> None:
    """The SDK raises a connection error instead of returning 'Hel'."""
    server.mock(seed_mock(fault.limit_data(100)))
    with pytest.raises(openai.APIConnectionError) as caught:
        sdk(server)
    # The SDK bundles its own copy of httpx (httpx2), so compare by name.
    assert type(caught.value.__cause__).__name__ == "RemoteProtocolError"
    assert "incomplete chunked read" in str(caught.value.__cause__)


def test_limit_data_makes_the_seed_client_fail(server: mockhttp.Server) -> None:
    """Both hand-written complete() clients fail rather than hand on half an answer."""
    server.mock(seed_mock(fault.limit_data(100)))
    with pytest.raises(httpx.RemoteProtocolError):
        clients.complete_httpx(server.url, "Say hello")
    with pytest.raises(clients.StreamEnded, match="unexpected EOF inside a chunk"):
        clients.complete(server.url, "Say hello")  # raw-socket, in tests/helpers/clients.py


def test_without_the_fault_every_client_gets_the_answer(server: mockhttp.Server) -> None:
    """The control: the same stream, unbroken, reads as 'Hello, world' everywhere."""
    server.mock(seed_mock())
    assert clients.complete_httpx(server.url, "Say hello") == "Hello, world"
    assert sdk(server) == "Hello, world"
    assert raw_post(server).body == SEED_BODY


def test_limit_data_on_a_content_length_body(server: mockhttp.Server) -> None:
    """A sized body is cut short of its Content-Length; httpx reports the incomplete read."""
    server.mock(
        mockhttp.get("/file").pipe(fault.limit_data(5)).reply(mockhttp.ok().body("hello, world"))
    )
    with pytest.raises(httpx.RemoteProtocolError, match="received 5 bytes, expected 12"):
        httpx.get(server.url + "/file")


def test_limit_data_on_the_wire_counts_the_head(server: mockhttp.Server) -> None:
    """count='wire' delivers exactly n bytes, status line and headers included."""
    server.mock(seed_mock(fault.limit_data(12, count="wire")))
    assert raw_post(server).data == b"HTTP/1.1 200"


# -- resets and closes ----------------------------------------------------------------------


def test_reset_gives_econnreset_before_any_byte(server: mockhttp.Server) -> None:
    """reset(): the socket's read fails with ECONNRESET and nothing was received."""
    active = server.mock(seed_mock(fault.reset()))
    got = raw_post(server)
    assert isinstance(got.error, ConnectionResetError)
    assert got.error.errno == errno.ECONNRESET
    assert got.data == b""
    assert call_of(active).outcome == "reset"


def test_reset_makes_httpx_and_the_sdk_raise(server: mockhttp.Server) -> None:
    """httpx raises ReadError (connection reset); the SDK a connection error."""
    server.mock(seed_mock(fault.reset()))
    with pytest.raises(httpx.ReadError, match="reset"):
        httpx.post(server.url + PATH, content=REQUEST)
    with pytest.raises(openai.APIConnectionError):
        sdk(server)


def test_reset_after_bytes_delivers_the_bytes_then_econnreset(server: mockhttp.Server) -> None:
    """reset_after_bytes(100): 100 body bytes arrive, then the read fails with ECONNRESET."""
    active = server.mock(seed_mock(fault.reset_after_bytes(100)))
    got = raw_post(server)
    assert isinstance(got.error, ConnectionResetError)
    assert got.body == SEED_BODY[:100]
    call = call_of(active)
    assert (call.outcome, call.body_bytes) == ("reset", 100)


def test_reset_after_bytes_reaches_a_client_that_reads_late(server: mockhttp.Server) -> None:
    """The reset waits until the bytes are sent: a client reading after it still gets them."""
    server.mock(
        mockhttp.get("/big")
        .pipe(fault.reset_after_bytes(5000))
        .reply(mockhttp.ok().body(b"y" * 50_000))
    )
    got = raw_exchange(server, b"GET /big HTTP/1.1\r\nHost: x\r\n\r\n", wait=0.3)
    assert isinstance(got.error, ConnectionResetError)
    assert got.data.endswith(b"\r\n\r\n" + b"y" * 5000)


def test_reset_after_events_fails_the_sdk_after_the_first_chunk(server: mockhttp.Server) -> None:
    """reset_after_events(1): the SDK yields 'Hel', then raises."""
    server.mock(seed_mock(fault.reset_after_events(1)))
    with openai.OpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=0) as client:
        stream = client.chat.completions.create(model="m", messages=[], stream=True)
        assert next(stream).choices[0].delta.content == "Hel"
        with pytest.raises(openai.APIConnectionError):
            next(stream)


def test_close_after_events_delivers_whole_events_then_eof(server: mockhttp.Server) -> None:
    """close_after_events(2): a parser gets two whole events, then a clean EOF, no [DONE]."""
    active = server.mock(seed_mock(fault.close_after_events(2), event_delay=0.01))
    got = raw_post(server)
    assert got.error is None
    assert got.body == SEED_EVENTS[0].encode() + SEED_EVENTS[1].encode()
    assert [data for _, data in sse_events([got.body])] == [
        SEED_EVENTS[0].data_text,
        SEED_EVENTS[1].data_text,
    ]
    call = call_of(active)
    assert (call.outcome, call.events) == ("closed", 2)
    with pytest.raises(httpx.RemoteProtocolError):
        clients.complete_httpx(server.url, "Say hello")


def test_empty_response_closes_before_the_status_line(server: mockhttp.Server) -> None:
    """empty_response(): the socket reads EOF at once; httpx says the server disconnected."""
    active = server.mock(seed_mock(fault.empty_response()))
    got = raw_post(server)
    assert (got.data, got.error) == (b"", None)
    with pytest.raises(httpx.RemoteProtocolError, match="without sending a response"):
        httpx.post(server.url + PATH, content=REQUEST)
    assert active.calls[0].wait() == "closed"


def test_journal_has_no_status_when_no_head_was_sent(server: mockhttp.Server) -> None:
    """Call.status is None when a fault ends the reply before the status line."""
    active = server.mock(seed_mock(fault.empty_response()))
    raw_post(server)
    assert call_of(active).status is None


def test_truncate_event_cuts_inside_a_data_line(server: mockhttp.Server) -> None:
    """truncate_event(1): the first event whole, half of the second, then EOF; the SDK raises."""
    server.mock(seed_mock(fault.truncate_event(1)))
    second = SEED_EVENTS[1].encode()
    got = raw_post(server)
    assert got.body == SEED_EVENTS[0].encode() + second[: len(second) // 2]
    assert len(sse_events([got.body])) == 1
    with pytest.raises(openai.APIConnectionError):
        sdk(server)


# -- framing breakers -----------------------------------------------------------------------


def test_garbage_after_a_valid_head(server: mockhttp.Server) -> None:
    """garbage(n): a 200 head, then the seeded bytes, then EOF; httpx raises a protocol error."""
    server.mock(seed_mock(fault.garbage(64, seed=5)))
    got = raw_post(server)
    head, _, rest = got.data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 OK")
    assert rest == fault.garbage(64, seed=5).data
    with pytest.raises(httpx.RemoteProtocolError):
        httpx.post(server.url + PATH, content=REQUEST)
    with pytest.raises(openai.APIConnectionError):
        sdk(server)


def test_malformed_chunk_is_an_illegal_chunk_header(server: mockhttp.Server) -> None:
    """malformed_chunk(): httpx (h11) rejects the chunk header; the SDK raises."""
    server.mock(seed_mock(fault.malformed_chunk()))
    assert b"\r\n\r\nzz\r\ndata: " in raw_post(server).data
    with pytest.raises(httpx.RemoteProtocolError, match="illegal chunk header"):
        httpx.post(server.url + PATH, content=REQUEST)
    with pytest.raises(openai.APIConnectionError):
        sdk(server)


# -- stalls and timing ------------------------------------------------------------------------


def test_stall_trips_a_read_timeout_while_the_server_serves_others(
    server: mockhttp.Server,
) -> None:
    """stall(after_events=1): the client's read times out; meanwhile other requests are served."""
    active = server.mock(seed_mock(fault.stall(after_events=1)))
    server.mock(mockhttp.get("/health").reply(mockhttp.ok().body("fine")))
    received: list[bytes] = []
    failure: list[BaseException] = []

    def stalled_client() -> None:
        try:
            with httpx.stream(
                "POST", server.url + PATH, content=REQUEST, timeout=httpx.Timeout(5, read=1.0)
            ) as response:
                received.extend(response.iter_raw())
        except BaseException as exc:
            failure.append(exc)

    thread = threading.Thread(target=stalled_client)
    thread.start()
    while not active.calls:
        time.sleep(0.01)
    for _ in range(5):
        assert httpx.get(server.url + "/health", timeout=2).text == "fine"
    assert active.calls[0].outcome in ("in progress", "stalled")
    thread.join(10)
    assert [type(e) for e in failure] == [httpx.ReadTimeout]
    assert b"".join(received) == SEED_EVENTS[0].encode()
    assert active.calls[0].outcome == "stalled"


def test_a_stall_ends_when_the_client_hangs_up(server: mockhttp.Server) -> None:
    """Once the client closes its socket, the stalled call is finished in the journal."""
    active = server.mock(seed_mock(fault.stall(after_events=1)))
    with socket.create_connection((server.host, server.port), timeout=5) as sock:
        sock.sendall(f"POST {PATH} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n".encode())
        assert sock.recv(65536).startswith(b"HTTP/1.1 200 OK")
    assert active.calls[0].finished.wait(2)


def test_stall_before_the_head_trips_a_read_timeout(server: mockhttp.Server) -> None:
    """stall(): no status line ever comes; the SDK times out."""
    server.mock(seed_mock(fault.stall()))
    with (
        openai.OpenAI(
            base_url=server.url + "/v1", api_key="k", max_retries=0, timeout=0.5
        ) as client,
        pytest.raises(openai.APITimeoutError),
    ):
        client.chat.completions.create(model="m", messages=[], stream=True)


def test_latency_delays_the_status_line(server: mockhttp.Server) -> None:
    """latency(0.6): a 0.2 s read timeout trips; a patient client gets the answer later."""
    server.mock(seed_mock(fault.latency("600ms")))
    with pytest.raises(httpx.ReadTimeout):
        httpx.post(server.url + PATH, content=REQUEST, timeout=httpx.Timeout(5, read=0.2))
    start = time.monotonic()
    assert clients.complete_httpx(server.url, "Say hello") == "Hello, world"
    assert time.monotonic() - start >= 0.5


def test_first_byte_delay_sends_the_head_first(server: mockhttp.Server) -> None:
    """first_byte_delay(1.5): the 200 and headers come at once, the first body byte later."""
    server.mock(seed_mock(fault.first_byte_delay(1.5)))
    start = time.monotonic()
    with httpx.stream("POST", server.url + PATH, content=REQUEST, timeout=5) as response:
        head_at = time.monotonic() - start
        assert response.status_code == 200
        first = next(response.iter_raw())
        body_at = time.monotonic() - start
    assert first == SEED_BODY[: len(first)]
    assert head_at < 1.2  # the head did not wait for the delay (it normally takes ms)
    assert body_at >= 1.4


def test_throttle_slows_the_body_down(server: mockhttp.Server) -> None:
    """throttle(1000) on a 1,500-byte body: the body takes well over a second."""
    server.mock(
        mockhttp.get("/slow").pipe(fault.throttle(1000)).reply(mockhttp.ok().body(b"x" * 1500))
    )
    start = time.monotonic()
    response = httpx.get(server.url + "/slow", timeout=10)
    assert response.content == b"x" * 1500
    assert time.monotonic() - start >= 1.2


def test_slice_one_delivers_the_same_bytes_one_at_a_time(server: mockhttp.Server) -> None:
    """slice(1): httpx hands over the body one byte at a time; parsers still get the events."""
    server.mock(seed_mock(fault.slice(1)))
    with httpx.stream("POST", server.url + PATH, content=REQUEST) as response:
        pieces = list(response.iter_raw())
    assert {len(p) for p in pieces} == {1}
    assert b"".join(pieces) == SEED_BODY
    assert sse_events(pieces) == sse_events([SEED_BODY])
    assert len(sse_events(pieces)) == 4
    assert sdk(server) == "Hello, world"
    assert clients.complete_httpx(server.url, "Say hello") == "Hello, world"


def test_slice_pieces_can_end_one_event_and_start_the_next(server: mockhttp.Server) -> None:
    """slice(100) without event delays: the first read holds event 0 and the start of event 1;
    the SSE parser and the SDK still get every event."""
    server.mock(seed_mock(fault.slice(100)))
    with httpx.stream("POST", server.url + PATH, content=REQUEST) as response:
        pieces = list(response.iter_raw())
    first = SEED_EVENTS[0].encode()
    assert pieces[0] == SEED_BODY[:100]
    assert pieces[0].startswith(first)
    assert len(first) < 100
    assert sse_events(pieces) == sse_events([SEED_BODY])
    assert sdk(server) == "Hello, world"


def test_journal_counts_events_touched_by_spanning_pieces(server: mockhttp.Server) -> None:
    """slice(100) on four 86-byte events: the journal still counts four events."""
    active = server.mock(
        mockhttp.get("/x")
        .pipe(fault.slice(100))
        .reply(mockhttp.ok().event_stream(*[mockhttp.Event(data="x" * 78) for _ in range(4)]))
    )
    httpx.get(server.url + "/x")
    assert call_of(active).events == 4


def test_slice_with_a_delay_arrives_in_separate_reads(server: mockhttp.Server) -> None:
    """slice(16, delay=30ms): a raw socket needs many reads for one event.  (Each of the 19
    pieces is sent alone; a reader scheduled late reads several at once: with 5 ms between
    them, a loaded machine merged 19 into 2 to 4 reads.)"""
    server.mock(seed_mock(fault.slice(16, delay="30ms")))
    got = raw_post(server)
    assert got.body == SEED_BODY
    assert len(got.reads) > 5, got.reads


# -- chaos ----------------------------------------------------------------------------------------


def test_first_fails_the_first_call_and_a_retrying_client_recovers(server: mockhttp.Server) -> None:
    """first(1, empty_response()): the SDK's retry gets the answer on the second call."""
    active = server.mock(seed_mock(fault.first(1, fault.empty_response())))
    assert sdk(server, retries=1) == "Hello, world"
    assert [c.wait() for c in active.calls] == ["closed", "complete"]


def test_sometimes_fails_the_same_calls_on_every_run() -> None:
    """sometimes(0.5, reset(), seed=1) resets the same calls on two servers."""
    runs = []
    for _ in range(2):
        with mockhttp.Server() as server:
            active = server.mock(seed_mock(fault.sometimes(0.5, fault.reset(), seed=1)))
            for _ in range(8):
                raw_post(server)
            runs.append([c.wait() for c in active.calls])
    assert runs[0] == runs[1]
    assert set(runs[0]) == {"reset", "complete"}
    maybe = fault.sometimes(0.5, fault.reset(), seed=1)
    assert runs[0] == ["reset" if maybe.applies(i) else "complete" for i in range(8)]
