"""``_server/_hub_events``: the dashboard's event stream merged over workers.

``Merger`` is pure (events in, bytes out); ``Upstreams`` and ``relay`` are tested on
loopback against real servers' ``GET /__mockhttp/journal/events`` (two in-process servers
stand for two workers' control ports)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

import mockhttp
from mockhttp._core._sse_decode import Decoder, Message
from mockhttp._server._hub_events import (
    EVENTS_PATH,
    Merger,
    Upstreams,
    merged_id,
    open_merged,
    positions_of,
    relay,
)
from mockhttp._server._watch import Watch, watch_of
from mockhttp._server._workers import merge

WAIT = 30.0  # seconds: generous (a loaded machine)


def events(chunks: list[bytes]) -> list[Message]:
    decoder = Decoder()
    return [i for c in chunks for i in decoder.feed(c) if isinstance(i, Message)]


def snapshot(*calls: dict[str, Any], count: int = 0) -> str:
    mocks = [{"id": 1, "describe": "GET /a", "call_count": count}]
    return json.dumps({"calls": list(calls), "mocks": mocks})


# -- Merger (pure) ---------------------------------------------------------------------


def test_the_snapshot_waits_for_every_worker_and_merges_them() -> None:
    merger = Merger([0, 1], merge)
    first = snapshot({"id": 1, "time": "2026-01-01T00:00:02"}, count=1)
    assert merger.take(1, "snapshot", first, "b1.4") == []
    assert [merger.started] == [False]
    (out,) = events(
        merger.take(
            0, "snapshot", snapshot({"id": 1, "time": "2026-01-01T00:00:01"}, count=2), "b0.9"
        )
    )
    assert merger.started
    assert (out.event, out.id) == ("snapshot", "0=b0.9,1=b1.4")
    data = json.loads(out.data)
    assert [(c["worker"], c["time"][-2:]) for c in data["calls"]] == [(0, "01"), (1, "02")]
    assert data["mocks"][0]["call_count"] == 3  # (added up, as GET /__mockhttp/mocks does)
    assert data["workers"] == [0, 1]


def test_events_before_the_snapshot_follow_it_in_order() -> None:
    merger = Merger([0, 1], merge)
    assert merger.take(0, "snapshot", snapshot(), "a.1") == []
    assert merger.take(0, "call", json.dumps({"id": 7}), "a.2") == []  # (held: 1's has not come)
    out = events(merger.take(1, "snapshot", snapshot(), "b.5"))
    # (the snapshot holds each worker's position at its own snapshot; the held call moves 0's)
    assert [(m.event, m.id) for m in out] == [("snapshot", "0=a.1,1=b.5"), ("call", "0=a.2,1=b.5")]
    assert json.loads(out[1].data) == {"id": 7, "worker": 0}


def test_calls_cleared_and_dropped_name_their_worker() -> None:
    merger = Merger([0, 1], merge)
    merger.take(0, "snapshot", snapshot(), "a.1")
    merger.take(1, "snapshot", snapshot(), "b.1")
    (call,) = events(merger.take(1, "call", json.dumps({"id": 3, "resumes": 2}), "b.2"))
    assert json.loads(call.data) == {"id": 3, "resumes": 2, "worker": 1}
    (cleared,) = events(merger.take(0, "cleared", "{}", "a.2"))
    assert (cleared.event, json.loads(cleared.data)) == ("cleared", {"worker": 0})
    dropped_data = json.dumps({"dropped": 5, "message": "m"})
    (dropped,) = events(merger.take(1, "dropped", dropped_data))  # (a worker's has no id)
    assert json.loads(dropped.data) == {"dropped": 5, "message": "m", "worker": 1}
    assert [m.id for m in (call, cleared)] == ["0=a.1,1=b.2", "0=a.2,1=b.2"]
    assert b"\nid:" not in merger.take(1, "dropped", dropped_data)[0]
    assert merger.take(0, "snapshot", snapshot(), "a.9") == []  # (a worker's second: not passed on)
    assert merger.take(0, "something else", "{}", "a.10") == []


def test_one_worker() -> None:
    merger = Merger([3], merge)
    (out,) = events(merger.take(3, "snapshot", snapshot({"id": 1, "time": "t"}), "c.0"))
    assert json.loads(out.data)["calls"] == [{"id": 1, "time": "t", "worker": 3}]
    assert out.id == "3=c.0"


# -- the merged stream's ids (Rule 2, pure) -----------------------------------------------


def test_a_merged_id_reads_back_as_every_workers_position() -> None:
    positions = {1: "ab12cd.7", 0: "ef34ab.0", 12: "0a.123"}
    text = merged_id(positions)
    assert text == "0=ef34ab.0,1=ab12cd.7,12=0a.123"  # (by worker)
    assert positions_of(text) == positions
    assert positions_of(" 0=ab.1 ") == {0: "ab.1"}  # (as Watch reads one: stripped)


@pytest.mark.parametrize(
    "garbage",
    [
        None,
        "",
        "ab12cd.7",  # (one process's id: no worker)
        "0=ab12cd.7,0=ab12cd.8",  # (a worker twice)
        "0=ab12cd.7,",
        "0=AB12CD.7",
        "0=ab12cd.-1",
        "0=ab12cd.7x",
        "x=ab12cd.7",
        "0=ab12cd.1234567890123456789",  # (past 18 digits, as Watch refuses)
        "0=" + "a" * 33 + ".1",
        ",".join(f"{n}=ab.1" for n in range(1000)),  # (over the length read)
        "0=ab12cd.7;1=ab.1",
    ],
)
def test_an_id_that_is_none_of_ours_is_no_position(garbage: str | None) -> None:
    assert positions_of(garbage) is None


def test_a_resumed_merger_sends_no_snapshot_and_goes_on_from_the_positions() -> None:
    merger = Merger([0, 1], merge, {0: "a.4", 1: "b.9"})
    assert merger.started
    (call,) = events(merger.take(1, "call", json.dumps({"id": 5}), "b.10"))
    assert (call.event, call.id) == ("call", "0=a.4,1=b.10")
    assert merger.take(0, "snapshot", snapshot(), "a.5") == []  # (it resumed: none expected)


# -- Upstreams and relay, on loopback ----------------------------------------------------


@pytest.fixture
def workers() -> Iterator[list[mockhttp.Server]]:
    with mockhttp.Server(admin=True) as one, mockhttp.Server(admin=True) as two:
        for server in (one, two):
            server.mock(mockhttp.get("/a").reply(mockhttp.ok().body("a")))
        yield [one, two]


class Page:
    """The merged stream written by ``Upstreams.run`` on a thread, read as events."""

    def __init__(self, upstreams: Upstreams, merger: Merger) -> None:
        self.chunks: list[bytes] = []
        self.changed = threading.Condition()
        self.gone = False
        self.thread = threading.Thread(target=self._run, args=(upstreams, merger), daemon=True)
        self.thread.start()

    def _run(self, upstreams: Upstreams, merger: Merger) -> None:
        try:
            upstreams.run(self._write, merger)
        except OSError:
            pass
        finally:
            upstreams.close()

    def _write(self, data: bytes) -> None:
        if self.gone:
            raise BrokenPipeError("the page went")
        with self.changed:
            self.chunks.append(data)
            self.changed.notify_all()

    def until(self, test: Any) -> list[Message]:
        with self.changed:
            assert self.changed.wait_for(lambda: test(events(self.chunks)), WAIT), self.chunks
            return events(self.chunks)


def test_every_workers_calls_arrive_in_one_stream(workers: list[mockhttp.Server]) -> None:
    upstreams = Upstreams([(0, workers[0].port), (1, workers[1].port)], EVENTS_PATH, {})
    assert upstreams.open() is None
    page = Page(upstreams, Merger([0, 1], merge))
    page.until(lambda seen: any(m.event == "snapshot" for m in seen))
    httpx.get(workers[0].url + "/a")
    httpx.get(workers[1].url + "/a?from=1")
    seen = page.until(
        lambda seen: {json.loads(m.data)["worker"] for m in seen if m.event == "call"} == {0, 1}
    )
    calls = [json.loads(m.data) for m in seen if m.event == "call"]
    assert {(c["worker"], c["request"]["query"].get("from", ["0"])[0]) for c in calls} == {
        (0, "0"),
        (1, "1"),
    }
    page.gone = True
    upstreams.close()
    page.thread.join(WAIT)
    assert not page.thread.is_alive()


def test_a_worker_that_stops_ends_the_merged_stream(workers: list[mockhttp.Server]) -> None:
    upstreams = Upstreams([(0, workers[0].port), (1, workers[1].port)], EVENTS_PATH, {})
    assert upstreams.open() is None
    page = Page(upstreams, Merger([0, 1], merge))
    page.until(lambda seen: any(m.event == "snapshot" for m in seen))
    workers[1].close()
    page.thread.join(WAIT)
    assert not page.thread.is_alive()  # (Rule 4: the page reconnects for a new snapshot)


def test_a_refusal_is_passed_on(workers: list[mockhttp.Server]) -> None:
    upstreams = Upstreams([(0, workers[0].port)], EVENTS_PATH + "?test=bad%20id", {})
    refused = upstreams.open()
    assert refused is not None
    code, body = refused
    assert code == 400
    assert json.loads(body)["error"]["type"] == "bad_test_id"


def test_a_worker_out_of_reach_is_a_502(workers: list[mockhttp.Server]) -> None:
    port = workers[1].port
    workers[1].close()
    upstreams = Upstreams([(0, workers[0].port), (1, port)], EVENTS_PATH, {})
    refused = upstreams.open()
    assert refused is not None
    assert refused[0] == 502
    assert b"worker 1 did not open its journal stream" in refused[1]


def test_relay_passes_a_stream_on_and_closes_it_when_the_page_goes(
    workers: list[mockhttp.Server],
) -> None:
    """``relay`` answers a page on one server with another's stream (there: the hub's)."""
    hub, front = workers
    front.mock(mockhttp.get("/events").respond_with(
        lambda request: relay(hub.port, EVENTS_PATH, {})
    ))  # fmt: skip
    seen: list[Message] = []
    decoder = Decoder()
    with httpx.stream("GET", front.url + "/events", timeout=WAIT) as answer:
        assert answer.headers["content-type"].startswith("text/event-stream")
        chunks = answer.iter_raw()
        while not any(m.event == "snapshot" for m in seen):
            seen += [i for i in decoder.feed(next(chunks)) if isinstance(i, Message)]
        httpx.get(hub.url + "/a")
        while not any(m.event == "call" for m in seen):
            seen += [i for i in decoder.feed(next(chunks)) if isinstance(i, Message)]
    assert json.loads(next(m for m in seen if m.event == "call").data)["request"]["path"] == "/a"
    # the page went: a server learns it when it next writes (a call here, or the
    # heartbeat), then the relay closes the hub's stream, which the hub learns the same way
    watch = watch_of(hub)
    deadline = time.monotonic() + WAIT
    while watch.pages and time.monotonic() < deadline:
        httpx.get(hub.url + "/a")
        watch.wait(watch.last + 1, 0.05)  # (a pause: nothing else wakes it)
    assert watch.pages == 0


def test_relay_passes_a_refusal_on_and_says_when_the_hub_is_out_of_reach(
    workers: list[mockhttp.Server],
) -> None:
    hub = workers[0]
    refused = relay(hub.port, EVENTS_PATH + "?test=bad%20id", {})
    assert refused.status_code == 400
    port = hub.port
    hub.close()
    gone = relay(port, EVENTS_PATH, {})
    assert gone.status_code == 502


# -- resuming (Rule 2), on loopback ---------------------------------------------------


def opened(workers: list[mockhttp.Server], last_event_id: str | None) -> Upstreams:
    found = open_merged(
        [(n, w.port) for n, w in enumerate(workers)], EVENTS_PATH, {}, last_event_id
    )
    assert isinstance(found, Upstreams), found
    return found


def calls_in(seen: list[Message]) -> list[dict[str, Any]]:
    return [json.loads(m.data) for m in seen if m.event == "call"]


def done(page: Page, upstreams: Upstreams) -> None:
    page.gone = True
    upstreams.close()
    page.thread.join(WAIT)
    assert not page.thread.is_alive()


def test_a_page_that_reconnects_gets_exactly_the_events_it_missed(
    workers: list[mockhttp.Server],
) -> None:
    first = opened(workers, None)
    assert not first.resumed
    page = Page(first, first.merger(merge))
    page.until(lambda seen: any(m.event == "snapshot" for m in seen))
    for worker in workers:
        httpx.get(worker.url + "/a?n=0")
    seen = page.until(lambda seen: len(calls_in(seen)) == 4)  # (each call: started, ended)
    done(page, first)
    last = seen[-1].id
    for n, worker in ((1, workers[0]), (2, workers[1]), (3, workers[0])):  # (missed)
        httpx.get(worker.url + f"/a?n={n}")
    again = opened(workers, last)
    assert again.resumed
    page = Page(again, again.merger(merge))
    page.until(lambda seen: len(calls_in(seen)) == 6)
    for worker in workers:  # (after: every missed event is in before these)
        httpx.get(worker.url + "/a?n=4")
    seen = page.until(lambda seen: len(calls_in(seen)) == 10)
    done(page, again)
    assert [m.event for m in seen] == ["call"] * 10  # no snapshot, nothing twice
    ids = [m.id for m in seen]
    assert len(set(ids)) == 10
    assert last not in ids
    got = sorted((c["worker"], c["request"]["query"]["n"][0]) for c in calls_in(seen))
    assert got == sorted(2 * [(0, "1"), (1, "2"), (0, "3"), (0, "4"), (1, "4")])


def test_a_page_that_cannot_resume_gets_a_snapshot(workers: list[mockhttp.Server]) -> None:
    small = Watch(workers[1], ring=4)  # (a log this small: a position falls out of it)
    workers[1]._watch = small  # type: ignore[attr-defined]
    first = opened(workers, None)
    page = Page(first, first.merger(merge))
    (snap,) = page.until(lambda seen: any(m.event == "snapshot" for m in seen))
    done(page, first)
    assert positions_of(snap.id) is not None
    boots = {n: watch_of(w).boot for n, w in enumerate(workers)}
    for worker in workers:  # (worker 1 logs 2 events a call: 6 > its ring of 4)
        for n in range(3):
            httpx.get(worker.url + f"/a?n={n}")
    lost = merged_id({0: f"{boots[0]}.0", 1: f"{boots[1]}.0"})
    whole = merged_id({0: f"{boots[0]}.0", 1: f"{boots[1]}.{small.last}"})
    resumable = opened(workers, whole)
    resumable.close()
    assert resumable.resumed  # (the same ids, with worker 1's in its log)
    for last_event_id in (
        lost,  # worker 1's log no longer holds it
        merged_id({0: f"{boots[0]}.0", 1: "000000000.0"}),  # another run of worker 1
        merged_id({0: f"{boots[0]}.0", 1: f"{boots[1]}.999"}),  # past worker 1's newest
        merged_id({0: f"{boots[0]}.0"}),  # another set of workers
        f"{boots[0]}.0",  # one process's id
        "garbage",
    ):
        upstreams = opened(workers, last_event_id)
        assert not upstreams.resumed, last_event_id
        page = Page(upstreams, upstreams.merger(merge))
        seen = page.until(lambda seen: any(m.event == "snapshot" for m in seen))
        done(page, upstreams)
        assert seen[0].event == "snapshot"  # first: the page replaces what it shows
        assert len(json.loads(seen[0].data)["calls"]) >= 3  # (worker 0's: still journaled)
