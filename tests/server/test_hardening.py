"""Hardening on the wire (issue 12): bounded memory, slow and odd clients, odd input.

Each test reproduces a failure of the unhardened server at a small scale; the large-scale
memory figures are measured by bench/memory.py (see docs/limits.md).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import re
import socket
import threading
import time
from pathlib import Path

import httpx
import pytest

import mockhttp
from mockhttp import match
from mockhttp._core._match import JSONPATH_DEPTH
from mockhttp._server._connection import MAX_QUEUED
from mockhttp.sse import Decoder, Message, decode
from tests.helpers import clients as clients
from tests.helpers.clients import read_all


def connect(server: mockhttp.Server) -> socket.socket:
    return clients.connect(server.port)


def settle(server: mockhttp.Server) -> None:
    """Wait until every matched call has ended on the server's thread, where the budget is
    applied and the entry made compact: that can come just after the client has read the
    whole reply."""
    deadline = time.monotonic() + 5
    while any(type(c) is mockhttp.Call and c.mock for c in list.__iter__(server.journal)):
        assert time.monotonic() < deadline, "calls still not ended after 5 s"
        time.sleep(0.005)


# -- memory is bounded in bytes ---------------------------------------------------------------


def test_journal_byte_budget_drops_the_oldest_bodies_keeping_length_and_sha256() -> None:
    """Past journal_bytes, the oldest request bodies and kept replies go first; each leaves
    its length and SHA-256 in call.dropped; the newest stay whole; counts stay exact."""
    bodies = [bytes([65 + i]) * 40_000 for i in range(6)]
    with mockhttp.Server(journal_bytes=100_000) as server:
        echo = server.mock(mockhttp.post("/up").reply(mockhttp.status(200).body("x" * 10_000)))
        with httpx.Client(base_url=server.url) as client:
            for body in bodies:
                client.post("/up", content=body)
        settle(server)
        calls = list(server.journal)
    assert echo.call_count == 6
    kept = [c for c in calls if c.dropped is None]
    assert sum(len(c.request.body) + len(c.body_sent) for c in kept) <= 100_000
    assert [c.request.body for c in kept] == bodies[-len(kept) :]
    first = calls[0]
    assert first.dropped is not None
    assert first.request.body == b""
    assert first.body_sent == b""
    assert first.body_bytes == 10_000  # what was written is still counted
    assert first.dropped.request_bytes == 40_000
    assert first.dropped.request_sha256 == hashlib.sha256(bodies[0]).hexdigest()
    assert first.dropped.reply_bytes == 10_000
    assert first.dropped.reply_sha256 == hashlib.sha256(b"x" * 10_000).hexdigest()


def test_the_budget_drops_compact_entries_in_every_list_and_held_calls_too() -> None:
    """Finished calls are kept compact (marshalled); a drop rewrites the entry in the
    journal and in the mock's calls alike, and a Call that the test already holds sees it
    too.  The budget itself holds numbers only, never a Call (nothing for the collector)."""
    import gc

    with mockhttp.Server(journal_bytes=50_000) as server:
        up = server.mock(mockhttp.post("/up").reply(mockhttp.status(200).body("ok")))
        with httpx.Client(base_url=server.url) as client:
            client.post("/up", content=b"a" * 30_000)
            held = up.calls[0]  # a view, held before its body is dropped
            assert held.request.body == b"a" * 30_000
            client.post("/up", content=b"b" * 30_000)
        settle(server)
        budget = server._journal.budget
        assert len(budget) == 1  # numbers in one flat array: nothing per call for the collector
        assert not any(isinstance(o, mockhttp.Call) for o in gc.get_referents(budget))
        assert held.dropped is not None
        assert held.request.body == b""
        for first in (server.journal[0], up.calls[0]):
            assert first.dropped is not None
            assert first.dropped.request_bytes == 30_000
            assert first.request.body == b""
        assert up.calls[1].request.body == b"b" * 30_000
        assert up.calls[1].dropped is None


def _rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc (Linux)")
def test_big_posts_leave_resident_memory_near_the_budget() -> None:
    """RSS before and after 40 POSTs of 2 MiB, on the wire, with a 4 MiB budget (the
    full-size figure, 100 x 10 MiB to mockhttp serve, is bench/memory.py's)."""
    body = bytes(range(256)) * (8 * 1024)  # 2 MiB
    with mockhttp.Server(journal_bytes=4 << 20) as server:
        server.mock(mockhttp.post("/up").reply(mockhttp.ok()))
        with httpx.Client(base_url=server.url) as client:
            client.post("/up", content=body)  # buffers and code paths warmed up
            before = _rss_mib()
            for _ in range(40):
                client.post("/up", content=body)
            after = _rss_mib()
    assert after - before < 30  # 80 MiB went in; about the budget stays


def test_endless_streams_read_briefly_stay_within_the_budget() -> None:
    """Short reads of an endless stream each kept up to 1 MiB of reply; now the budget
    bounds the sum (the review saw 1.5 GB after 1,500 reads)."""
    endless = mockhttp.ok().event_stream(mockhttp.Event(data="y" * 60_000), repeat=True)
    with mockhttp.Server(journal_bytes=300_000) as server:
        server.mock(mockhttp.get("/endless").reply(endless))
        for _ in range(12):
            with connect(server) as sock:
                sock.sendall(b"GET /endless HTTP/1.1\r\nHost: x\r\n\r\n")
                got = 0
                while got < 200_000:
                    got += len(sock.recv(65536))
        deadline = time.monotonic() + 5
        while any(c.outcome == "in progress" for c in server.journal):
            assert time.monotonic() < deadline
            time.sleep(0.01)
        _settle(server)  # the loop has finished journaling the last hang-up
        kept = sum(len(c.body_sent) for c in server.journal)
    assert kept <= 300_000
    assert all(c.body_bytes >= 100_000 for c in server.journal)


def test_the_journal_keeps_no_parsed_json() -> None:
    """A JSON body is parsed once for the matchers, then only its bytes stay (a 7 MiB body
    held ~73 MiB as a tree)."""
    with mockhttp.Server() as server:
        server.mock(mockhttp.post("/j").body(match.json_path("$.a", 1)).reply(mockhttp.ok()))
        assert httpx.post(server.url + "/j", json={"a": 1, "b": list(range(1000))}).is_success
        call = server.journal.last
    assert "_json" not in call.request.__dict__
    assert call.json()["a"] == 1
    assert "_json" not in call.request.__dict__  # reading it does not keep it either


def _parsed_trees(marker: str) -> list[list[object]]:
    """Lists alive in this process that start with ``marker``: parsed bodies."""
    import gc

    gc.collect()
    return [o for o in gc.get_objects() if type(o) is list and o[:1] == [marker]]


def test_no_parsed_json_tree_stays_alive_after_matched_and_unmatched_calls() -> None:
    """Whatever the journal keeps (a live call, a compact entry, an explanation), no tree
    parsed from a body outlives the matching: the body is sent as bytes, so any list that
    starts with the marker must have been parsed by the server."""
    marker = "parsed-" + "q" * 20
    body = json.dumps({"a": 1, "b": [marker, *range(1000)]}).encode()
    with mockhttp.Server() as server:
        server.mock(mockhttp.post("/j").body(match.json_path("$.a", 1)).reply(mockhttp.ok()))
        server.mock(mockhttp.post("/k").body(match.json_path("$.b[1]", 5)).reply(mockhttp.ok()))
        with httpx.Client(base_url=server.url) as client:
            assert client.post("/j", content=body).status_code == 200
            assert client.post("/k", content=body).status_code == 404  # explained, journaled
            assert client.post("/j", content=body).status_code == 200
        _settle(server)
        assert len(server.journal) == 3
        assert server.journal[1].explanation is not None
        assert _parsed_trees(marker) == []


def test_removed_mocks_and_a_reset_drop_their_cached_wire_plans() -> None:
    """The wire-plan cache held removed mocks' replies (40 mocks of 10 MiB kept 468 MB)."""
    with mockhttp.Server() as server:
        big = mockhttp.ok().body("z" * 100_000)
        active = server.mock(mockhttp.get("/big").reply(big))
        other = mockhttp.ok().body("w" * 100_000)
        server.mock(mockhttp.get("/other").reply(other))
        assert len(httpx.get(server.url + "/big").content) == 100_000
        assert len(httpx.get(server.url + "/other").content) == 100_000
        assert {id(big), id(other)} <= server._answers.wires.ids()
        server.remove(active)
        _settle(server)
        assert id(big) not in server._answers.wires.ids()
        assert id(other) in server._answers.wires.ids()
        server.reset()
        _settle(server)
        assert server._answers.wires.ids() == set()


def _settle(server: mockhttp.Server) -> None:
    """Wait until the loop has run what was scheduled before now."""
    assert server._loop is not None
    done = threading.Event()
    server._loop.call_soon_threadsafe(done.set)
    assert done.wait(5)


def test_a_client_pipelining_without_reading_is_paused() -> None:
    """Requests queued behind a slow reply stop being read past MAX_QUEUED (1 GB of
    pipelined GETs reached 1.7 GB RSS); reading resumes as replies go out."""
    slow = mockhttp.ok().event_stream(mockhttp.Event(data="a"), mockhttp.Event(data="b", delay=1))
    with mockhttp.Server() as server:
        server.mock(mockhttp.get("/slow").reply(slow))
        server.mock(mockhttp.get("/s").reply(mockhttp.ok().body("k")))
        sock = connect(server)
        sock.setblocking(False)
        payload = b"GET /slow HTTP/1.1\r\n\r\n" + b"GET /s HTTP/1.1\r\n\r\n" * 100_000
        sent, until = 0, time.monotonic() + 1
        while sent < len(payload) and time.monotonic() < until:  # what the kernel takes
            try:
                sent += sock.send(payload[sent : sent + 65536])
            except BlockingIOError:
                time.sleep(0.01)
        deadline = time.monotonic() + 5
        while not any(not c._reading for c in server._connections):
            assert time.monotonic() < deadline, "reading was never paused"
            time.sleep(0.01)
        [conn] = list(server._connections)
        queued = len(conn.queue)
        assert queued < 20_000  # MAX_QUEUED, plus what one read held (not 100,000)
        assert len(server.journal) == 1  # only the slow one has started
        sock.close()
    assert queued >= MAX_QUEUED


def test_expect_continue_with_a_too_large_content_length_is_refused_at_once() -> None:
    """No 100 Continue (and a 64 MiB upload) for a body over the limit: 413 at once."""
    with mockhttp.Server() as server, connect(server) as sock:
        sock.sendall(
            b"POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000\r\n"
            b"Expect: 100-continue\r\n\r\n"
        )
        answer = read_all(sock)
    assert answer.startswith(b"HTTP/1.1 413 ")
    assert b"100 Continue" not in answer


def test_a_head_that_never_finishes_gets_408_and_an_idle_connection_closes() -> None:
    """Half-sent heads held their sockets forever (1,100 of them used up the fds)."""
    with mockhttp.Server(header_timeout=0.3, idle_timeout=0.5) as server:
        server.mock(mockhttp.get("/").reply(mockhttp.ok().body("hi")))
        half, idle, kept = connect(server), connect(server), connect(server)
        half.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        kept.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        start = time.monotonic()
        assert read_all(half).startswith(b"HTTP/1.1 408 ")
        assert read_all(idle) == b""
        assert read_all(kept).endswith(b"\r\n\r\nhi")  # idle after its reply, then closed
        assert time.monotonic() - start < 4
        for sock in (half, idle, kept):
            sock.close()


def test_a_body_that_stops_arriving_gets_408() -> None:
    with mockhttp.Server(header_timeout=0.3, idle_timeout=30) as server:
        server.mock(mockhttp.post("/up").reply(mockhttp.ok().body("got it")))
        never, half = connect(server), connect(server)
        never.sendall(b"POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n")
        half.sendall(b"POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n12345")
        start = time.monotonic()
        for sock in (never, half):
            reply = read_all(sock)
            assert reply.startswith(b"HTTP/1.1 408 "), reply
            assert b"request body" in reply
            sock.close()
        assert time.monotonic() - start < 4  # 0.3 s, and the sweep's period, on a busy machine
    assert server.journal == []  # an unfinished request is no call


def test_a_slow_body_that_keeps_coming_is_not_cut() -> None:
    """The limit is on a pause between body bytes, not on the whole upload."""
    with mockhttp.Server(header_timeout=0.3) as server:
        server.mock(mockhttp.post("/up").reply(mockhttp.ok().body("got it")))
        sock = connect(server)
        sock.sendall(
            b"POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 8\r\nConnection: close\r\n\r\n"
        )
        for byte in b"12345678":
            time.sleep(0.12)  # 0.96 s in all, each pause well under the limit
            sock.sendall(bytes([byte]))
        assert read_all(sock).endswith(b"\r\n\r\ngot it")
        sock.close()
        assert server.journal[0].request.body == b"12345678"


EMFILE_SERVER = """
import resource, sys, time, socket
resource.setrlimit(resource.RLIMIT_NOFILE, (48, 48))
import mockhttp
with mockhttp.Server(header_timeout=0.5, loop=sys.argv[1]) as server:
    server.mock(mockhttp.get("/").reply(mockhttp.ok().body("alive")))
    print(server.port, flush=True)
    sys.stdin.read()
"""


@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
def test_running_out_of_file_descriptors_is_survived_without_a_traceback(loop: str) -> None:
    """EMFILE on accept() is one log line a second, on either loop (on uvloop the server
    accepts itself, ``_accept.py``; libuv's own server closed the connections it could not
    take, silently); late heads time out, and serving goes on."""
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-c", EMFILE_SERVER, loop],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        port = int(proc.stdout.readline())
        socks = []
        for _ in range(80):  # more than the server's 48 descriptors
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
            sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")  # never finished
            socks.append(sock)
        answer = b""
        deadline = time.monotonic() + 15
        while b"alive" not in answer and time.monotonic() < deadline:
            try:
                answer = httpx.get(f"http://127.0.0.1:{port}/", timeout=3).content
            except httpx.HTTPError:
                time.sleep(0.2)
        assert answer == b"alive"
        for sock in socks:
            sock.close()
    finally:
        _, err = proc.communicate("", timeout=10)
    assert "cannot accept connections" in err
    assert "Traceback" not in err


UVLOOP = pytest.param(
    "uvloop",
    marks=pytest.mark.skipif(
        importlib.util.find_spec("uvloop") is None, reason="uvloop is not installed"
    ),
)


@pytest.mark.parametrize("loop", ["asyncio", UVLOOP])
def test_a_big_reply_with_connection_close_logs_no_asyncio_error(
    loop: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A ~10 MB reply ended by a close (Connection: close, or HTTP/1.0) re-entered the
    runner from resume_writing: asyncio logged "Exception in callback" each time (its
    selector transport's _call_connection_lost; uvloop is checked as well)."""
    body = "x" * 10_000_000
    with (
        caplog.at_level(logging.ERROR, logger="asyncio"),
        mockhttp.Server(loop=loop) as server,
    ):
        assert server.loop_name == loop
        server.mock(mockhttp.get("/big").reply(mockhttp.ok().body(body)))
        for head in (
            b"GET /big HTTP/1.1\r\nConnection: close\r\n\r\n",
            b"GET /big HTTP/1.0\r\n\r\n",
        ):
            with connect(server) as sock:
                sock.sendall(head)
                answer = read_all(sock)
            assert answer.endswith(b"\r\n\r\n" + body.encode())
        time.sleep(0.1)
    assert [r.getMessage() for r in caplog.records] == []


# -- odd input -----------------------------------------------------------------------------


H2C_BODY = b'{"stream":true}'


@pytest.mark.parametrize(
    "framed",
    [
        b"Content-Length: %d\r\n\r\n%s" % (len(H2C_BODY), H2C_BODY),
        b"Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n" % (len(H2C_BODY), H2C_BODY),
    ],
    ids=["content-length", "chunked"],
)
def test_an_h2c_upgrade_with_a_body_is_answered_as_http11_with_its_body(framed: bytes) -> None:
    """curl --http2 sends Upgrade: h2c on its POST; llhttp skipped the body and parsed it
    as the next request, so the streamed request got the buffered reply."""
    with mockhttp.Server() as server:
        server.mock(mockhttp.post("/chat").reply(mockhttp.ok().body("buffered")))
        server.mock(mockhttp.post("/chat").body(match.contains('"stream":true')).reply(
            mockhttp.ok().event_stream(mockhttp.Event(data="streamed"))
        ))  # fmt: skip
        body = H2C_BODY
        with connect(server) as sock:
            sock.sendall(
                b"POST /chat HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\n"
                b"Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n"
                + framed
                + b"GET /after HTTP/1.1\r\nConnection: close\r\n\r\n"
            )
            answer = read_all(sock)
        [first, second] = server.journal
    assert answer.startswith(b"HTTP/1.1 200 ")
    assert b"data: streamed\n\n" in answer
    assert b"buffered" not in answer
    assert first.request.body == body
    assert first.request.headers["upgrade"] == "h2c"  # as sent
    assert second.request.path == "/after"


def nested(shape: str, depth: int, inner: str = "1") -> str:
    """``inner`` in ``depth`` objects (``{"a":{"a":1}}``) or lists; ``unclosed``: ``[[[``."""
    if shape == "unclosed":
        return "[" * depth
    opened, closed = ('{"a":', "}") if shape == "object" else ("[", "]")
    return opened * depth + inner + closed * depth


def deep_reason(path: str, shape: str, depth: int) -> str:
    """The reason a ``json_path(path, 1)`` gives a body ``nested(shape, depth)``."""
    if depth > 1_000:
        return f"{path}: body is not JSON, nested too deep to parse"
    if shape == "unclosed":
        return f"{path}: body is not JSON (got"
    if ".." in path and depth > JSONPATH_DEPTH:
        return f"{path}: body nested too deep for {path} ({depth:,} levels;"
    return f"{path}: got "  # $.a: a deep object (or nothing); $..z: nothing


@pytest.mark.parametrize("shape", ["object", "list", "unclosed"])
@pytest.mark.parametrize("depth", [101, 500, 900, 10_000, 100_000])
@pytest.mark.parametrize("path", ["$.a", "$..z", "$..[?(@.z)]", "$..*"])
def test_deeply_nested_json_is_a_no_match_with_a_reason_not_a_500(
    path: str, depth: int, shape: str
) -> None:
    """ "[" * 10000 gave a 500 with a traceback and made server.check() raise
    RecursionError; a body only 101 deep did the same with a descendant query ($..z):
    python-jsonpath raised JSONPathRecursionError."""
    with mockhttp.Server() as server:
        server.mock(mockhttp.post("/j").body(match.json_path(path, 1)).reply(mockhttp.ok()))
        answer = httpx.post(server.url + "/j", content=nested(shape, depth))
        reason = deep_reason(path, shape, depth)
        assert answer.status_code == 404
        assert f"body: {reason}" in answer.text  # the closest mock's differing field
        assert "Traceback" not in answer.text
        assert server.errors == []
        with pytest.raises(mockhttp.UnmatchedRequestError, match=re.escape(reason)):
            server.check()


@pytest.mark.parametrize("body", [b"5", b'"z"', b"null", b"true", b"-1.5e3"])
@pytest.mark.parametrize("path", ["$..z", "$..*", "$.z"])
def test_a_json_scalar_body_is_a_no_match_not_a_500(path: str, body: bytes) -> None:
    """A body that is a JSON scalar gave a descendant query (``$..z``) a 500 with a
    traceback: the depth check iterated the scalar (found by hypothesis,
    tests/core/test_singular.py)."""
    with mockhttp.Server() as server:
        server.mock(mockhttp.post("/j").body(match.json_path(path, 1)).reply(mockhttp.ok()))
        answer = httpx.post(server.url + "/j", content=body)
        assert answer.status_code == 404, answer.text
        assert f"body: {path}: got nothing (absent)" in answer.text
        assert server.errors == []


@pytest.mark.parametrize("shape", ["object", "list"])
@pytest.mark.parametrize("path", ["$..z", "$..[?(@.z)].z"])
def test_a_descendant_query_searches_a_body_256_levels_deep(path: str, shape: str) -> None:
    """python-jsonpath's descendant search stops at 100 levels by default; ours goes down
    JSONPATH_DEPTH (256) levels, and a deeper body is a no-match that says why."""
    with mockhttp.Server() as server:
        server.mock(mockhttp.post("/j").body(match.json_path(path, 1)).reply(mockhttp.ok()))
        for depth in (200, JSONPATH_DEPTH - 1):  # {"z":1} is one level more
            answer = httpx.post(server.url + "/j", content=nested(shape, depth, '{"z":1}'))
            assert answer.status_code == 200, answer.text
        answer = httpx.post(server.url + "/j", content=nested(shape, JSONPATH_DEPTH, '"z"'))
        assert answer.status_code == 404  # a string at the bottom: found nothing, no error
        assert f"body: {path}: got nothing (absent)" in answer.text
        deeper = nested(shape, JSONPATH_DEPTH, '{"z":1}')
        answer = httpx.post(server.url + "/j", content=deeper)
        assert answer.status_code == 404
        assert (
            f"body: {path}: body nested too deep for {path} ({JSONPATH_DEPTH + 1} levels;"
            f" a search with .. goes {JSONPATH_DEPTH} deep at most)"
        ) in answer.text
        assert server.errors == []


def test_chunked_trailers_are_kept_apart_from_headers() -> None:
    """A trailer field satisfied a header matcher (an Authorization trailer did)."""
    with mockhttp.Server() as server:
        server.mock(mockhttp.post("/t").header("Authorization").reply(mockhttp.ok()))
        with connect(server) as sock:
            sock.sendall(
                b"POST /t HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                b"Connection: close\r\n\r\n3\r\nabc\r\n0\r\nAuthorization: Bearer t\r\n\r\n"
            )
            answer = read_all(sock)
        call = server.journal.last
    assert answer.startswith(b"HTTP/1.1 404 ")
    assert call.request.body == b"abc"
    assert "authorization" not in call.request.headers
    assert call.request.trailers["authorization"] == "Bearer t"


def test_a_path_starting_with_two_slashes_is_a_path_not_a_host() -> None:
    """//evil.example/e matched a mock for /e (urlsplit read a host)."""
    with mockhttp.Server() as server:
        server.mock(mockhttp.get("/e").reply(mockhttp.ok().body("e")))
        server.mock(mockhttp.get("//evil.example/e").reply(mockhttp.ok().body("double")))
        with connect(server) as sock:
            sock.sendall(b"GET //evil.example/e?q=1 HTTP/1.1\r\nConnection: close\r\n\r\n")
            answer = read_all(sock)
        request = server.journal.last.request
    assert answer.endswith(b"double")
    assert (request.path, request.query) == ("//evil.example/e", (("q", "1"),))


def test_the_sse_decoder_ignores_a_huge_retry_and_keeps_the_events() -> None:
    """retry: with over 4,300 digits raised (Python refuses the int) and lost the events
    completed in the same feed; the spec says ignore the field."""
    data = b"data: a\n\nretry:" + b"0" * 4301 + b"\ndata: b\n\nretry: 5\n\n"
    items = decode(data)
    assert [m.data for m in items if isinstance(m, Message)] == ["a", "b"]
    decoder = Decoder()
    decoder.feed(b"retry:" + b"9" * 5000 + b"\n\n")
    assert decoder.reconnection_time is None
    decoder.feed(b"retry: 5\n\n")
    assert decoder.reconnection_time == 5


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"journal_bytes": 0}, "journal_bytes=0 must be a positive int or None"),
        ({"header_timeout": 0}, "header_timeout=0 must be a positive number of seconds"),
        ({"idle_timeout": True}, "idle_timeout=True must be a positive number of seconds"),
    ],
)
def test_bad_limits_raise_config_error(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(mockhttp.ConfigError, match=message):
        mockhttp.Server(**kwargs)  # type: ignore[arg-type]


def test_sizes_on_the_command_line() -> None:
    from mockhttp._server._budget import parse_size

    assert [parse_size(t) for t in ("64MiB", "500k", "1000", "2GiB")] == [
        64 << 20, 500_000, 1000, 2 << 30,
    ]  # fmt: skip
    with pytest.raises(ValueError, match="not a size such as 64MiB"):
        parse_size("lots")


def test_without_the_admin_api_its_paths_count_in_the_byte_budget() -> None:
    """Calls under /__mockhttp/ skipped the journal's byte budget even with the admin API
    off: 20 POSTs of 1 MiB there kept all 20 MiB past a 2 MiB budget."""
    budget = 2 << 20
    with mockhttp.Server(journal_bytes=budget) as server:
        assert server.admin is None
        with httpx.Client(base_url=server.url) as client:
            for _ in range(20):
                assert client.post("/__mockhttp/x", content=b"u" * (1 << 20)).status_code == 404
        deadline = time.monotonic() + 5
        while True:
            calls = list(server.journal)
            kept = sum(len(c.request.body) + len(c.body_sent) for c in calls)
            if kept <= budget or time.monotonic() > deadline:
                break
            time.sleep(0.01)
    assert len(calls) == 20
    assert kept <= budget, f"{kept} bytes kept past a budget of {budget}"
    assert calls[0].dropped is not None
    assert calls[0].dropped.request_bytes == 1 << 20
    assert calls[-1].request.body == b"u" * (1 << 20)  # the newest stay whole
