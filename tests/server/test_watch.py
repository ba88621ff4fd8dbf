"""The journal as it happens (``_server/_watch.py``) and what the dashboard reads of each
call (``_server/_dashboard.py``): real servers, real clients on loopback, the stream read
with the project's own SSE decoder (as an EventSource reads it)."""

from __future__ import annotations

import json
import queue
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

import mockhttp
from mockhttp import Event, fault, ok
from mockhttp._core._sse_decode import Decoder, Message
from mockhttp._server import _watch
from mockhttp._server._admin import AdminAPI
from mockhttp._server._dashboard import COOKIE, session_value
from mockhttp._server._watch import Watch, watch_of

EVENTS = "/__mockhttp/journal/events"


class Reader:
    """An event stream read on a thread; ``next()`` gives each dispatched event."""

    def __init__(self, url: str, headers: dict[str, str] | None = None) -> None:
        self.items: queue.Queue[Message | None] = queue.Queue()
        self.received = 0
        self.status: int | None = None
        self._stop = threading.Event()
        self._client = httpx.Client(timeout=httpx.Timeout(30, read=60))
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._read, args=(url, headers or {}), daemon=True)
        self._thread.start()
        _READERS.append(self)
        assert self._ready.wait(20), "the stream did not answer"

    def _read(self, url: str, headers: dict[str, str]) -> None:
        decoder = Decoder()
        try:
            with self._client.stream("GET", url, headers=headers) as answer:
                self.status = answer.status_code
                self._ready.set()
                for chunk in answer.iter_raw():
                    self.received += len(chunk)
                    for item in decoder.feed(chunk):
                        if isinstance(item, Message):
                            self.items.put(item)
                    if self._stop.is_set():
                        return
        except Exception:  # closed under it (``close``), or the server went away
            pass
        finally:
            self._ready.set()
            self.items.put(None)

    def next(self, timeout: float = 20) -> Message:
        item = self.items.get(timeout=timeout)
        assert item is not None, "the stream ended"
        return item

    def until(self, kind: str, timeout: float = 20) -> Message:
        deadline = time.monotonic() + timeout
        while True:
            item = self.next(max(0.1, deadline - time.monotonic()))
            if item.event == kind:
                return item

    def close(self) -> None:
        self._stop.set()
        self._client.close()  # (its thread ends when the server closes the stream)


_READERS: list[Reader] = []


@pytest.fixture(autouse=True)
def _readers_end() -> Iterator[None]:
    """After each test (and its server: set up first, torn down last), every reader's
    thread has ended, its socket closed, none left to the collector."""
    yield
    while _READERS:
        reader = _READERS.pop()
        reader.close()
        reader._thread.join(30)
        assert not reader._thread.is_alive(), "a reader outlived its server"


@pytest.fixture
def server() -> Iterator[mockhttp.Server]:
    with mockhttp.Server(admin=True) as server:
        yield server


def stream_mock(n: int = 4, *faults: Any, name: str = "chat", **options: Any) -> mockhttp.Mock:
    events = [Event(data=f"part {i}", id=str(i + 1)) for i in range(n)]
    mock = mockhttp.get("/stream", name=name).reply(
        ok().event_stream(*events, event_delay=0.02, **options)
    )
    return mock.pipe(*faults) if faults else mock


def test_a_page_gets_the_journal_first_then_each_call_with_an_id(
    server: mockhttp.Server,
) -> None:
    server.mock(mockhttp.get("/a", name="a").reply(ok().json({"n": 1})))
    httpx.get(server.url + "/a")
    reader = Reader(server.url + EVENTS)
    try:
        snapshot = reader.next()
        assert snapshot.event == "snapshot"
        found = json.loads(snapshot.data)
        assert [c["request"]["path"] for c in found["calls"]] == ["/a"]
        assert [(m["name"], m["call_count"]) for m in found["mocks"]] == [("a", 1)]
        boot, _, number = snapshot.id.partition(".")
        httpx.get(server.url + "/a")
        call = reader.until("call")
        assert call.id.partition(".")[0] == boot
        assert int(call.id.partition(".")[2]) > int(number)
        assert json.loads(call.data)["request"]["path"] == "/a"
    finally:
        reader.close()


def test_a_stream_is_shown_while_it_runs_then_when_it_ends(server: mockhttp.Server) -> None:
    events = [Event(data="a", id="1"), Event(data="b", id="2", delay=0.5)]
    server.mock(mockhttp.get("/slow").reply(ok().event_stream(*events)))
    reader = Reader(server.url + EVENTS)
    try:
        reader.until("snapshot")
        with httpx.stream("GET", server.url + "/slow", timeout=30) as answer:
            chunks = answer.iter_raw()
            next(chunks)  # the first event is out; the second is half a second away
            running = json.loads(reader.until("call").data)
            assert running["outcome"] == "in progress"
            assert running["end_time"] is None
            first = running["id"]
            for _ in chunks:
                pass
        ended = json.loads(reader.until("call").data)
        assert (ended["id"], ended["outcome"]) == (first, "complete")
        assert ended["end_time"] is not None
        assert ended["duration_ms"] >= 500
        line = ended["timeline"]
        assert [e["data"] for e in line["events"]] == ["a", "b"]
        assert [m["kind"] for m in line["marks"]] == ["end"]
    finally:
        reader.close()


def test_the_timeline_has_the_plan_and_the_fault(server: mockhttp.Server) -> None:
    watch_of(server).install()  # (the plan is kept for calls made while watched)
    server.mock(stream_mock(5, fault.close_after_events(3)))
    with pytest.raises(httpx.HTTPError):
        httpx.get(server.url + "/stream")
    server.mocks[0].calls.last.wait()
    (call,) = httpx.get(server.url + "/__mockhttp/journal").json()["calls"]
    line = call["timeline"]
    assert [e["id"] for e in line["events"]] == ["1", "2", "3"]
    assert [e["planned_ms"] for e in line["events"]] == [0.0, 20.0, 40.0]
    assert all(e["at_ms"] is not None and e["whole"] for e in line["events"])
    assert [(m["kind"], m["after"]) for m in line["marks"]] == [("fault", 3), ("cut", 3)]
    assert line["faults"] == ["close_after_events(3)"]
    assert call["outcome"] == "closed"


def test_a_reconnect_is_linked_to_the_call_it_resumes(server: mockhttp.Server) -> None:
    mock = stream_mock(4, fault.first(1, fault.close_after_events(2)), resumable=True)
    server.mock(mock)
    with pytest.raises(httpx.HTTPError):
        httpx.get(server.url + "/stream")
    httpx.get(server.url + "/stream", headers={"Last-Event-ID": "2"})
    httpx.get(server.url + "/stream")  # after a complete call: a new request
    first, second, third = httpx.get(server.url + "/__mockhttp/journal").json()["calls"]
    assert second["resumes"] == first["id"]
    assert second["last_event_id"] == "2"
    assert second["after_cut_ms"] is not None
    assert first["resumes"] is None
    assert third["resumes"] is None


def test_a_page_resumes_after_its_last_event_id(server: mockhttp.Server) -> None:
    server.mock(mockhttp.get("/a").reply(ok()))
    reader = Reader(server.url + EVENTS)
    try:
        reader.until("snapshot")
        httpx.get(server.url + "/a")
        seen = reader.until("call").id
    finally:
        reader.close()
    httpx.get(server.url + "/a?after=1")
    httpx.get(server.url + "/a?after=2")
    again = Reader(server.url + EVENTS, {"Last-Event-ID": seen})
    try:
        first = again.next()
        assert first.event == "call"  # no snapshot: it goes on where it stopped
        queries = [json.loads(first.data)["request"]["query"]]
        while {"after": ["2"]} not in queries:
            queries.append(json.loads(again.until("call").data)["request"]["query"])
        # (a call is sent when it starts and when it ends: the page keeps the latest)
        assert [q for i, q in enumerate(queries) if q and q not in queries[:i]] == [
            {"after": ["1"]}, {"after": ["2"]}
        ]  # fmt: skip
    finally:
        again.close()


def test_an_id_of_another_run_starts_over_with_a_snapshot(server: mockhttp.Server) -> None:
    reader = Reader(server.url + EVENTS, {"Last-Event-ID": "ffffff.3"})
    try:
        assert reader.next().event == "snapshot"
    finally:
        reader.close()


def test_a_page_too_far_behind_is_told_what_it_lost(server: mockhttp.Server) -> None:
    server._watch = Watch(server, ring=4)  # type: ignore[attr-defined]
    server.mock(mockhttp.get("/a").reply(ok()))
    reader = Reader(server.url + EVENTS)
    try:
        reader.until("snapshot")
        httpx.get(server.url + "/a")
        seen = reader.until("call").id
    finally:
        reader.close()
    for _ in range(10):
        httpx.get(server.url + "/a")
    again = Reader(server.url + EVENTS, {"Last-Event-ID": seen})
    try:
        dropped = again.next()
        assert dropped.event == "dropped"
        assert json.loads(dropped.data)["dropped"] >= 6  # 10 later calls, the last 4 kept
        assert "read more slowly than the server answered" in json.loads(dropped.data)["message"]
        assert again.next().event == "call"
    finally:
        again.close()


def test_a_page_that_does_not_read_holds_no_more_than_its_bound(server: mockhttp.Server) -> None:
    server._watch = Watch(server, ring=8)  # type: ignore[attr-defined]
    server.mock(mockhttp.post("/big").reply(ok()))
    host, port = server.url.removeprefix("http://").split(":")
    page = socket.create_connection((host, int(port)))
    page.sendall(f"GET {EVENTS} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
    body = b"x" * 100_000
    made = 0
    with httpx.Client(base_url=server.url) as client:
        for _ in range(400):  # 40 MB of request bodies, each in a call event
            client.post("/big", content=body)
            made += len(body)
    # the server still answers at once, and the page's side holds a bounded amount
    assert httpx.get(server.url + "/__mockhttp/health").status_code == 200
    page.setblocking(True)
    page.settimeout(10)
    received = b""
    while b"event: dropped" not in received:
        piece = page.recv(1 << 20)
        assert piece, "the stream ended without saying what it dropped"
        received += piece
    page.close()
    assert len(received) < made // 2  # most events were dropped, not buffered
    # (what waits: the feed's bound, the log's 8 events, the kernel's socket buffers)


def test_too_many_pages_are_refused(server: mockhttp.Server, monkeypatch: Any) -> None:
    monkeypatch.setattr(_watch, "PAGES", 1)
    reader = Reader(server.url + EVENTS)
    try:
        reader.until("snapshot")
        refused = httpx.get(server.url + EVENTS)
        assert refused.status_code == 503
        assert refused.headers["retry-after"] == "5"
    finally:
        reader.close()


def test_the_mocks_say_how_many_replies_they_have_left(server: mockhttp.Server) -> None:
    server.mock(mockhttp.get("/twice").reply(ok()).times(2))
    httpx.get(server.url + "/twice")
    (mock,) = httpx.get(server.url + "/__mockhttp/mocks").json()["mocks"]
    assert (mock["call_count"], mock["remaining"]) == (1, 1)


def test_a_cleared_journal_is_an_event(server: mockhttp.Server) -> None:
    reader = Reader(server.url + EVENTS)
    try:
        reader.until("snapshot")
        httpx.delete(server.url + "/__mockhttp/journal")
        assert reader.next().event == "cleared"
    finally:
        reader.close()


def test_the_page_is_served_without_the_token_and_the_data_with_it() -> None:
    with mockhttp.Server() as server:
        server.admin = AdminAPI(server, token="s3cret-token")
        page = httpx.get(server.url + "/__mockhttp/ui/")
        assert page.status_code == 200
        assert "script-src 'self'" in page.headers["content-security-policy"]
        assert httpx.get(server.url + "/__mockhttp/ui").status_code == 308
        assert httpx.get(server.url + "/__mockhttp/ui/dashboard.js").status_code == 200
        assert httpx.get(server.url + "/__mockhttp/ui/nothing.js").status_code == 404
        assert httpx.get(server.url + EVENTS).status_code == 401
        assert httpx.post(server.url + "/__mockhttp/ui/session").status_code == 401
        auth = {"Authorization": "Bearer s3cret-token"}
        session = httpx.post(server.url + "/__mockhttp/ui/session", headers=auth)
        assert session.status_code == 204
        cookie = session.headers["set-cookie"]
        assert "HttpOnly" in cookie
        assert "SameSite=Strict" in cookie
        assert "s3cret" not in cookie
        value = session.cookies[COOKIE]
        assert value == session_value("s3cret-token")
        reader = Reader(server.url + EVENTS, {"Cookie": f"{COOKIE}={value}"})
        try:
            assert reader.status == 200
            assert reader.next().event == "snapshot"
        finally:
            reader.close()
        forged = {"Cookie": f"{COOKIE}={session_value('another')}"}
        assert httpx.get(server.url + "/__mockhttp/journal", headers=forged).status_code == 401
        # the cookie opens reads only: a write still needs the header
        assert (
            httpx.delete(
                server.url + "/__mockhttp/journal", headers={"Cookie": f"{COOKIE}={value}"}
            ).status_code
            == 401
        )


def test_the_page_keeps_the_host_rule() -> None:
    with mockhttp.Server(admin=True) as server:
        answer = httpx.get(server.url + "/__mockhttp/ui/", headers={"Host": "evil.example"})
        assert answer.status_code == 403


def test_a_server_nobody_watches_keeps_no_plans(server: mockhttp.Server) -> None:
    server.mock(stream_mock(2))
    httpx.get(server.url + "/stream")
    assert getattr(server, "_watch", None) is None
    assert server.on_call_start is None
    (call,) = httpx.get(server.url + "/__mockhttp/journal").json()["calls"]
    assert [e["planned_ms"] for e in call["timeline"]["events"]] == [None, None]
    assert [e["data"] for e in call["timeline"]["events"]] == ["part 0", "part 1"]


def test_each_test_s_calls_carry_its_id_and_a_test_s_stream_has_only_them(
    server: mockhttp.Server,
) -> None:
    server.test("t1").mock(mockhttp.get("/mine").reply(ok()))
    httpx.get(server.url + "/mine", headers={"x-mockhttp-test": "t1"})
    httpx.get(server.url + "/shared")
    whole = Reader(server.url + EVENTS)
    mine = Reader(server.url + EVENTS + "?test=t2")
    try:
        calls = json.loads(whole.until("snapshot").data)["calls"]
        assert [(c["request"]["path"], c.get("test")) for c in calls] == [
            ("/mine", "t1"), ("/shared", None)
        ]  # fmt: skip
        assert calls[0]["mock"] is not None  # (the test's mock, by the server's number)
        assert json.loads(mine.until("snapshot").data)["calls"] == []
        httpx.get(server.url + "/other", headers={"x-mockhttp-test": "t1"})
        httpx.get(server.url + "/theirs", headers={"x-mockhttp-test": "t2"})
        assert json.loads(mine.until("call").data)["test"] == "t2"
        seen = [json.loads(whole.until("call").data).get("test") for _ in range(2)]
        assert seen == ["t1", "t2"]
    finally:
        whole.close()
        mine.close()
