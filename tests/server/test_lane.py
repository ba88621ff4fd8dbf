"""The fast lane (``_server/_lane.py``): a request answered again from a kept answer gets
the same bytes, and leaves the same journal entry, as the long way gave it the first time;
and no kept answer outlives what made it right.  On the wire: raw sockets and httpx."""

from __future__ import annotations

import asyncio
import gc
import socket
import time
from typing import Any

import httpx
import pytest

import mockhttp
from mockhttp import match
from mockhttp._server import _journal
from mockhttp._server._connection import Connection
from mockhttp._server._lane import Lane

from ..helpers.clients import connect
from .test_connection import Recorder


def exchange(
    sock: socket.socket, request: bytes, replies: int = 1, *, heads: bool = False
) -> bytes:
    """Send ``request`` (one or several pipelined) and read ``replies`` whole replies of
    small bodies with a Content-Length (or, with ``Connection: close``, to the end)."""
    sock.sendall(request)
    data = b""
    while data.count(b"HTTP/1.") < replies or not _complete(data, replies, heads):
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


def _complete(data: bytes, replies: int, heads: bool) -> bool:
    """True when ``data`` holds ``replies`` heads with their whole bodies (``heads``: the
    replies to HEAD requests, which have none)."""
    rest = data
    for _ in range(replies):
        head, sep, rest = rest.partition(b"\r\n\r\n")
        if not sep:
            return False
        length = 0
        for line in () if heads else head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        if len(rest) < length:
            return False
        rest = rest[length:]
    return True


GET = b"GET /small HTTP/1.1\r\nHost: x\r\nUser-Agent: lane-test\r\n\r\n"
FIELDS = ("status", "path_params", "body_bytes", "wire_bytes", "events", "body_sent", "outcome")


def lane_of(server: mockhttp.Server) -> Lane:
    assert server._lane is not None
    return server._lane


def kept(server: mockhttp.Server) -> int:
    """How many answers the server's lane keeps."""
    return len(lane_of(server))


def same_entry(first: mockhttp.Call, again: mockhttp.Call) -> None:
    """The kept answer's entry equals the long way's, but for its time and number."""
    for name in FIELDS:
        assert getattr(again, name) == getattr(first, name), name
    assert again.mock is first.mock
    assert again.request == first.request
    assert again.time >= first.time
    assert again.dropped is None
    assert first.dropped is None


def test_a_kept_answer_gives_the_same_bytes_and_journal_entry() -> None:
    with mockhttp.Server() as server:
        mock = server.mock(mockhttp.get("/small").reply(mockhttp.ok().json({"ok": True})))
        with connect(server.port) as sock:
            first = exchange(sock, GET)
            assert kept(server) == 0  # seen once: not kept
            assert exchange(sock, GET) == first
            assert kept(server) == 1  # seen again: kept, from the long way
            again = [exchange(sock, GET) for _ in range(50)]
        assert first.startswith(b"HTTP/1.1 200 ")
        assert all(reply == first for reply in again)
        assert mock.call_count == 52
        assert len(mock.calls) == 52
        assert len(server.journal) == 52
        calls = list(server.journal)
        for call in calls[2:]:  # the kept answer's, against the long way's
            same_entry(calls[1], call)
        assert [c.request.headers["user-agent"] for c in mock.calls] == ["lane-test"] * 52
        assert calls[0].body_sent == b'{"ok":true}'
        mock.assert_called_times(52)


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"GET /small HTTP/1.0\r\nHost: x\r\n\r\n",
        b"GET /small HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\n\r\n",
        b"GET /small HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    ],
)
def test_http10_and_close_are_kept_apart_and_framed_as_the_long_way(request_bytes: bytes) -> None:
    with mockhttp.Server() as server:
        server.mock(mockhttp.get("/small").reply(mockhttp.ok().json({"ok": True})))
        with connect(server.port) as sock:
            keep_alive = exchange(sock, GET)
            keep_alive_again = exchange(sock, GET)
        replies = []
        for _ in range(3):
            with connect(server.port) as sock:
                sock.sendall(request_bytes)
                data = b""
                while chunk := sock.recv(65536):
                    data += chunk
                replies.append(data)
        assert keep_alive == keep_alive_again
        assert replies[0] == replies[1] == replies[2]
        assert replies[0] != keep_alive  # its own framing: the connection closes
        calls = list(server.journal)
        assert len(calls) == 5
        same_entry(calls[2], calls[3])
        same_entry(calls[2], calls[4])


def test_head_requests_take_the_long_way() -> None:
    with mockhttp.Server() as server:
        server.mock(mockhttp.get("/small").reply(mockhttp.ok().json({"ok": True})))
        with connect(server.port) as sock:
            heads = [
                exchange(sock, b"HEAD /small HTTP/1.1\r\nHost: x\r\n\r\n", heads=True)
                for _ in range(3)
            ]
        assert kept(server) == 0
        assert heads[0] == heads[1] == heads[2]
        assert heads[0].startswith(b"HTTP/1.1 200 ")
        assert len(server.journal) == 3


def test_a_new_mock_ends_the_kept_answers() -> None:
    with mockhttp.Server() as server, httpx.Client(base_url=server.url) as client:
        server.mock(mockhttp.get("/small").reply(mockhttp.ok().body("old")))
        assert [client.get("/small").text for _ in range(3)] == ["old"] * 3
        server.mock(mockhttp.get("/small").reply(mockhttp.ok().body("new")))
        assert [client.get("/small").text for _ in range(3)] == ["new"] * 3
        newer = server.mock(
            mockhttp.get("/small").header("x-a", "1").reply(mockhttp.ok().body("a"))
        )
        assert client.get("/small", headers={"x-a": "1"}).text == "a"
        assert client.get("/small").text == "new"
        newer.remove()
        assert client.get("/small", headers={"x-a": "1"}).text == "new"


def test_answers_that_depend_on_more_than_the_target_are_not_kept() -> None:
    with mockhttp.Server() as server, httpx.Client(base_url=server.url) as client:
        server.mock(mockhttp.get("/s").reply(mockhttp.ok().body("plain")))
        server.mock(mockhttp.get("/s").header("x-a", "1").reply(mockhttp.ok().body("header")))
        server.mock(mockhttp.get("/t", times=2).reply(mockhttp.ok().body("twice")))
        server.mock(mockhttp.get("/t", priority=-1).reply(mockhttp.ok().body("after")))
        server.mock(mockhttp.get("/h").respond_with(lambda request: mockhttp.ok().body("h")))
        seen = []
        for _ in range(3):
            seen += [client.get("/s").text, client.get("/s", headers={"x-a": "1"}).text]
        assert seen == ["plain", "header"] * 3
        assert [client.get("/t").text for _ in range(4)] == ["twice", "twice", "after", "after"]
        assert [client.get("/h").text for _ in range(3)] == ["h"] * 3
        kept = {key[1] for key in lane_of(server).hits}
        assert kept <= {"/t"}  # only the fallback, once the limited mock had answered


def test_matchers_on_other_targets_leave_a_target_in_the_lane() -> None:
    """Mocks tried first that no request of the target can match (another method matched
    by JSONPath, another path or query matched on a header) leave its answer kept: a
    server with LLM mocks matched on bodies keeps its plain GETs in the lane.  A mock of
    any path matched on a header could take the target, so it takes the long way."""
    ok = mockhttp.ok
    with mockhttp.Server() as server, httpx.Client(base_url=server.url) as client:
        server.mock(mockhttp.get("/small").reply(ok().body("s")))
        server.mock(mockhttp.post("/small").body(match.json_path("$.n", 1)).reply(ok().body("p")))
        server.mock(mockhttp.get("/other").header("x-a", "1").reply(ok().body("o")))
        server.mock(mockhttp.get("/small").query("q", "1").header("x-a", "1").reply(ok().body("q")))
        assert [client.get("/small").text for _ in range(3)] == ["s"] * 3
        assert {key[1] for key in lane_of(server).hits} == {"/small"}
        assert client.post("/small", json={"n": 1}).text == "p"
        assert client.get("/small?q=1", headers={"x-a": "1"}).text == "q"
        assert client.get("/other", headers={"x-a": "1"}).text == "o"
        server.mock(mockhttp.request(None).header("x-a", "2").reply(ok().body("any")))
        assert [client.get("/small").text for _ in range(3)] == ["s"] * 3
        assert kept(server) == 0
        assert client.get("/small", headers={"x-a": "2"}).text == "any"
        assert len(server.journal) == 10


def test_queries_and_path_templates_are_kept_per_target() -> None:
    with mockhttp.Server() as server, httpx.Client(base_url=server.url) as client:
        server.mock(mockhttp.get("/q").query("a", "1").reply(mockhttp.ok().body("one")))
        server.mock(mockhttp.get("/q", priority=-1).reply(mockhttp.ok().body("other")))
        items = server.mock(mockhttp.get("/items/{id}").reply(mockhttp.ok().body("item")))
        for _ in range(3):
            assert client.get("/q?a=1").text == "one"
            assert client.get("/q?a=2").text == "other"
            assert client.get("/items/7").text == "item"
            assert client.get("/items/8").text == "item"
        assert [c.path_params for c in items.calls] == [{"id": "7"}, {"id": "8"}] * 3
        assert [c.request.query for c in server.journal][:2] == [(("a", "1"),), (("a", "2"),)]


def test_journal_limit_budget_and_clear_hold_on_the_lane() -> None:
    with mockhttp.Server(journal_limit=5, journal_bytes=40) as server:
        mock = server.mock(mockhttp.get("/small").reply(mockhttp.ok().body("0123456789")))
        with connect(server.port) as sock:
            for _ in range(20):
                exchange(sock, GET)
        assert mock.call_count == 20
        assert len(server.journal) == 5
        assert len(mock.calls) == 5
        kept = [c.body_sent for c in server.journal]
        assert kept[-4:] == [b"0123456789"] * 4  # 40 bytes: the 4 newest bodies stay
        assert kept[0] == b""
        assert server.journal[0].dropped is not None
        assert server.journal[0].dropped.reply_bytes == 10
        server.clear_journal()
        with connect(server.port) as sock:
            exchange(sock, GET)
        assert mock.call_count == 1
        assert len(server.journal) == 1


def test_on_call_end_sees_every_call() -> None:
    ended: list[mockhttp.Call] = []
    with mockhttp.Server(on_call_end=ended.append) as server:
        server.mock(mockhttp.get("/small").reply(mockhttp.ok()))
        with connect(server.port) as sock:
            for _ in range(5):
                exchange(sock, GET)
        deadline = time.monotonic() + 5  # (called once the reply is written)
        while len(ended) < 5 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(ended) == 5
        assert kept(server) == 1
        assert [c.outcome for c in ended] == ["complete"] * 5
        for call in ended[2:]:  # the kept answer's calls, as the long way's
            same_entry(ended[1], call)
        assert ended[-1] is server.journal[-1]  # the same Call a test reads


def test_pipelined_requests_are_answered_in_order() -> None:
    with mockhttp.Server() as server:
        server.mock(mockhttp.get("/small").reply(mockhttp.ok().body("s")))
        server.mock(mockhttp.get("/other").reply(mockhttp.ok().body("o")))
        other = b"GET /other HTTP/1.1\r\nHost: x\r\n\r\n"
        with connect(server.port) as sock:
            exchange(sock, (GET + other) * 2, replies=4)  # learned (a key seen twice)
            data = exchange(sock, (GET + other) * 100, replies=200)
        bodies = [part.rsplit(b"\r\n\r\n", 1)[-1][:1] for part in data.split(b"HTTP/1.1 ")[1:]]
        assert bodies == [b"s", b"o"] * 100
        assert [c.request.path for c in server.journal] == ["/small", "/other"] * 102


def test_a_body_or_a_matcher_on_it_takes_the_long_way() -> None:
    with mockhttp.Server() as server, httpx.Client(base_url=server.url) as client:
        one = mockhttp.post("/b").body(match.json_path("$.n", 1))
        server.mock(one.reply(mockhttp.ok().body("one")))
        server.mock(mockhttp.post("/b", priority=-1).reply(mockhttp.ok().body("any")))
        for _ in range(3):
            assert client.post("/b", json={"n": 1}).text == "one"
            assert client.post("/b", json={"n": 2}).text == "any"
            assert client.post("/b").text == "any"
        assert [c.request.body for c in server.journal][:3] == [b'{"n":1}', b'{"n":2}', b""]


def test_entries_written_in_pieces_keep_every_field_as_sent() -> None:
    """The lane writes an entry from pieces marshalled apart (``_journal.Kept``): fields
    that change from request to request, repeat a value (marshal refers back to a value
    it has written), are empty or not ASCII read back as sent, on two kept answers."""
    heads = [
        b"Host: x\r\nUser-Agent: lane-test\r\n",
        b"Host: x\r\nA: 1\r\nB: 1\r\nC: 1\r\n",  # (one-character values: one object)
        b"Host: x\r\nX-Cafe: caf\xe9 \xe9t\xe9\r\nX-Long: " + b"v" * 300 + b"\r\n",
        b"",
    ]
    with mockhttp.Server() as server:
        server.mock(mockhttp.get("/small").reply(mockhttp.ok().body("s")))
        server.mock(mockhttp.get("/items/{id}").reply(mockhttp.ok().body("i")))
        sent = []
        with connect(server.port) as sock:
            for n in range(24):
                target = b"/small" if n % 2 else b"/items/7?q=%C3%A9"
                head = heads[(n // 2) % len(heads)]
                exchange(sock, b"GET " + target + b" HTTP/1.1\r\n" + head + b"\r\n")
                fields = [line.split(b": ", 1) for line in head.split(b"\r\n") if line]
                sent.append([(k.decode("latin-1"), v.decode("latin-1")) for k, v in fields])
        assert kept(server) == 2
        calls = list(server.journal)
        assert [list(c.request.headers.items()) for c in calls] == sent
        assert [c.request.target for c in calls[:2]] == ["/items/7?q=%C3%A9", "/small"]
        for n in range(4, 24):  # the lane's, against the long way's of the same target
            first = calls[n % 2]
            assert [getattr(calls[n], f) for f in FIELDS] == [getattr(first, f) for f in FIELDS]
            assert calls[n].request.target == first.request.target
            assert calls[n].mock is first.mock
        assert calls[4].path_params == {"id": "7"}
        assert sorted(c._seq for c in calls) == [c._seq for c in calls]


def test_a_kept_answers_entries_are_bytes_the_collector_never_tracks() -> None:
    """A lane entry is bytes (``Journal.answered_whole``): a zero byte, the call's number
    and time, then the request and the answer's fields marshalled once for calls with the
    same request fields; no collection is triggered by them (a tuple entry was tracked
    until a collection looked at it: a young collection every ~700 requests)."""
    with mockhttp.Server() as server:
        server.mock(mockhttp.get("/small").reply(mockhttp.ok().body("s")))
        with connect(server.port) as sock:
            for _ in range(5):
                exchange(sock, GET)
            items: list[Any] = list(list.__iter__(server._journal.calls))
            entries = [e for e in items if type(e) is bytes and e[0] == 0]
            assert len(entries) >= 2
            assert entries[-1][17:] == entries[-2][17:]  # (the same marshalled rest)
            record = _journal._record(entries[-1])
            assert record[1][:3] == ("GET", "/small", (("Host", "x"), ("User-Agent", "lane-test")))
            assert not any(gc.is_tracked(e) for e in entries)
        assert [c.request.target for c in server.journal] == ["/small"] * 5


def test_lane_requests_leave_nothing_for_the_collector_to_count() -> None:
    """2,000 lane requests fed to a connection (no socket, collections off): the count of
    tracked objects the collector keeps does not grow with them (a tuple entry added one
    a request)."""
    with mockhttp.Server() as server:
        server.mock(mockhttp.get("/small").reply(mockhttp.ok().body("s")))
        transport = Recorder()

        async def run() -> int:
            conn = Connection(server)
            conn.connection_made(transport)
            for _ in range(10):
                conn.data_received(GET)
            assert kept(server) == 1
            gc.collect()
            gc.disable()
            try:
                before = gc.get_count()[0]
                for _ in range(2000):
                    conn.data_received(GET)
                return gc.get_count()[0] - before
            finally:
                gc.enable()

        grown = asyncio.run(run())
        assert len(server.journal) == 2010
        assert transport.sent.count(b"HTTP/1.1 200") == 2010
        assert grown < 100, grown


def test_a_change_of_the_mocks_empties_the_table_the_parser_reads() -> None:
    with mockhttp.Server() as server, httpx.Client(base_url=server.url) as client:
        server.mock(mockhttp.get("/small").reply(mockhttp.ok().body("s")))
        hits = lane_of(server).hits
        for _ in range(3):
            client.get("/small")
        assert list(hits) == [("GET", "/small", "1.1", True)]
        server.mock(mockhttp.get("/else").reply(mockhttp.ok().body("e")))
        assert hits == {}  # emptied in place, at once: no request needed
        assert lane_of(server).hits is hits


def test_an_answer_learned_from_mocks_that_changed_meanwhile_is_not_kept() -> None:
    """Rule 3: the loop thread learns from a snapshot a writer has since replaced; the
    writer's emptying may have run first, so ``learn`` checks after it stores."""
    with mockhttp.Server() as server, httpx.Client(base_url=server.url) as client:
        server.mock(mockhttp.get("/small").reply(mockhttp.ok().body("old")))
        lane = lane_of(server)
        client.get("/small")
        client.get("/small")
        (key,) = lane.hits
        hit = lane.hits[key]
        old = server._ranked.snapshot()
        server.mock(mockhttp.get("/small").reply(mockhttp.ok().body("new")))
        lane.learn(key, old, hit)  # (as the loop would, late)
        assert lane.hits == {}
        assert client.get("/small").text == "new"
        lane.learn(key, server._ranked.snapshot(), hit)  # a current snapshot: kept
        assert lane.hits == {key: hit}


def test_lane_answers_queued_behind_a_running_reply_wait_their_turn() -> None:
    """A request the lane knows, pipelined behind a stream, is answered after the stream
    ends, journaled in its turn."""
    events = [mockhttp.Event(data=str(n)) for n in range(3)]
    with mockhttp.Server() as server:
        server.mock(mockhttp.get("/small").reply(mockhttp.ok().body("s")))
        server.mock(
            mockhttp.get("/stream").reply(mockhttp.ok().event_stream(*events, event_delay=0.05))
        )
        stream = b"GET /stream HTTP/1.1\r\nHost: x\r\n\r\n"
        with connect(server.port) as sock:
            exchange(sock, GET * 2, replies=2)  # learned
            assert kept(server) == 1
            sock.sendall(stream + GET)
            data = b""
            while not data.endswith(b"\r\n\r\ns"):
                chunk = sock.recv(65536)
                assert chunk, data
                data += chunk
        assert data.index(b"data: 2") < data.rindex(b"HTTP/1.1 200")
        paths = [c.request.path for c in server.journal]
        assert paths == ["/small", "/small", "/stream", "/small"]
