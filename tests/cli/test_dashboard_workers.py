"""The dashboard under ``mockhttp serve --workers 2 --ui`` (real processes): every worker
serves its page, and ``GET /__mockhttp/journal/events`` on any of them is every worker's
journal live, merged by the supervisor (``_server/_hub_events``); a fresh connection per
request, so the kernel hands requests to both workers."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from mockhttp._core._sse_decode import Decoder, Message
from mockhttp._server._hub_events import positions_of
from tests.helpers.cli_process import Serving

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="SO_REUSEPORT spreading: Linux"
)

MOCKS = "- request: {method: GET, path: /who}\n  response: {status: 200, body: shared}\n"
TRIES = 40  # fresh connections: both workers take one of them but 1 time in 2**39
WAIT = 60.0  # seconds: a loaded 2-core machine starts three interpreters
H = "x-mockhttp-test"


class Events:
    """A page's event stream, read on a thread: ``until(test)`` waits for what it wants."""

    def __init__(self, url: str, headers: dict[str, str] | None = None) -> None:
        self.seen: list[Message] = []
        self.changed = threading.Condition()
        self.done = threading.Event()
        self.status = 0
        self.thread = threading.Thread(target=self._read, args=(url, headers or {}), daemon=True)
        self.thread.start()

    def _read(self, url: str, headers: dict[str, str]) -> None:
        decoder = Decoder()
        try:
            with httpx.stream("GET", url, headers=headers, timeout=WAIT) as answer:
                self.status = answer.status_code
                for chunk in answer.iter_raw():
                    found = [i for i in decoder.feed(chunk) if isinstance(i, Message)]
                    with self.changed:
                        self.seen += found
                        self.changed.notify_all()
                    if self.done.is_set():
                        return
        except httpx.HTTPError:
            pass
        finally:
            with self.changed:
                self.done.set()
                self.changed.notify_all()

    def until(self, test: Callable[[list[Message]], bool]) -> list[Message]:
        with self.changed:
            assert self.changed.wait_for(lambda: test(self.seen) or self.done.is_set(), WAIT)
            assert test(self.seen), [(m.event, m.data[:200]) for m in self.seen]
            return list(self.seen)

    def calls(self) -> list[dict[str, Any]]:
        with self.changed:
            return [json.loads(m.data) for m in self.seen if m.event == "call"]


def snapshot_of(seen: list[Message]) -> dict[str, Any] | None:
    found = [json.loads(m.data) for m in seen if m.event == "snapshot"]
    return found[0] if found else None


@pytest.fixture
def serving(tmp_path: Path) -> Iterator[Serving]:
    mocks = tmp_path / "mocks.yaml"
    mocks.write_text(MOCKS)
    with Serving(str(mocks), "--workers", "2", "--ui", "--quiet") as serving:
        serving.wait_for_log("with 2 workers")
        yield serving


def fresh(url: str, path: str, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.get(url + path, headers=headers or {}, timeout=WAIT)  # (a new connection)


def test_every_worker_serves_the_page_and_none_is_replaced(serving: Serving) -> None:
    line = serving.wait_for_log("dashboard at")
    assert f"{serving.url}/__mockhttp/ui/ (every worker's calls)" in line
    for _ in range(8):  # (before: each worker forwarded it to the hub, which killed them)
        page = fresh(serving.url, "/__mockhttp/ui/")
        assert page.status_code == 200
        assert "<title>mockhttp dashboard</title>" in page.text
        assert fresh(serving.url, "/__mockhttp/ui/dashboard.js").status_code == 200
    assert fresh(serving.url, "/__mockhttp/ui").headers["location"] == "/__mockhttp/ui/"
    assert fresh(serving.url, "/__mockhttp/ui/nothing.js").status_code == 404
    assert not [line for line in serving.log if "did not answer" in line or "died" in line]


def test_the_journal_stream_holds_every_workers_calls(serving: Serving) -> None:
    events = Events(serving.url + "/__mockhttp/journal/events")
    seen = events.until(lambda seen: snapshot_of(seen) is not None)
    snapshot = snapshot_of(seen)
    assert snapshot is not None
    assert snapshot["workers"] == [0, 1]
    assert [m["describe"] for m in snapshot["mocks"]] == ["GET /who"]
    positions = positions_of(seen[0].id)  # (every worker's position: resumable)
    assert positions is not None
    assert sorted(positions) == [0, 1]
    for n in range(TRIES):  # until both workers answered
        assert fresh(serving.url, f"/who?n={n}").text == "shared"
        if {c["worker"] for c in events.calls()} == {0, 1}:
            break
    assert {c["worker"] for c in events.calls()} == {0, 1}
    paths = {c["request"]["path"] for c in events.calls()}
    assert paths == {"/who"}  # (the page's own admin requests are not calls)
    ids = [m.id for m in events.seen]
    assert len(set(ids)) == len(ids)  # each event a position of its own
    events.done.set()


def test_a_page_opened_later_gets_every_workers_calls_in_its_snapshot(serving: Serving) -> None:
    workers: set[int] = set()
    for n in range(TRIES):
        fresh(serving.url, f"/who?n={n}")
        journal = fresh(serving.url, "/__mockhttp/journal").json()["calls"]
        workers = {c["worker"] for c in journal}
        if workers == {0, 1}:
            break
    assert workers == {0, 1}
    events = Events(serving.url + "/__mockhttp/journal/events")
    snapshot = snapshot_of(events.until(lambda seen: snapshot_of(seen) is not None))
    assert snapshot is not None
    assert {c["worker"] for c in snapshot["calls"]} == {0, 1}
    assert len(snapshot["calls"]) == len(journal)
    times = [c["time"] for c in snapshot["calls"]]
    assert times == sorted(times)  # by arrival
    assert snapshot["mocks"][0]["call_count"] == len(journal)  # (added up)
    fresh_delete = httpx.delete(serving.url + "/__mockhttp/journal", timeout=WAIT)
    assert fresh_delete.status_code == 200
    seen = events.until(lambda seen: len([m for m in seen if m.event == "cleared"]) == 2)
    assert sorted(json.loads(m.data)["worker"] for m in seen if m.event == "cleared") == [0, 1]
    events.done.set()


def test_a_test_stream_holds_that_tests_calls_only(serving: Serving) -> None:
    events = Events(serving.url + "/__mockhttp/journal/events", {H: "a"})
    events.until(lambda seen: snapshot_of(seen) is not None)
    for n in range(TRIES):
        fresh(serving.url, f"/who?n={n}", {H: "b"})
        fresh(serving.url, f"/who?n={n}", {H: "a"})
        if {c["worker"] for c in events.calls()} == {0, 1}:
            break
    assert {c["worker"] for c in events.calls()} == {0, 1}
    assert {c["test"] for c in events.calls()} == {"a"}
    events.done.set()


def test_a_bad_test_id_is_refused_as_on_one_process(serving: Serving) -> None:
    refused = fresh(serving.url, "/__mockhttp/journal/events?test=bad%20id")
    assert refused.status_code == 400
    assert refused.json()["error"]["type"] == "bad_test_id"


def read_stream(
    url: str,
    last_event_id: str | None,
    enough: Callable[[list[Message]], bool],
    then: Callable[[], object] = lambda: None,
) -> list[Message]:
    """A raw client: the merged stream read until ``enough``, then dropped (``then``
    called once the first event came)."""
    headers = {} if last_event_id is None else {"Last-Event-ID": last_event_id}
    decoder = Decoder()
    seen: list[Message] = []
    with httpx.stream("GET", url, headers=headers, timeout=WAIT) as answer:
        assert answer.status_code == 200
        for chunk in answer.iter_raw():
            before = len(seen)
            seen += [i for i in decoder.feed(chunk) if isinstance(i, Message)]
            if enough(seen):
                return seen
            if seen and not before:
                then()
    raise AssertionError([(m.event, m.id) for m in seen])


def asked(seen: list[Message]) -> list[tuple[int, str]]:
    """Each call event's (worker, ?n=)."""
    calls = [json.loads(m.data) for m in seen if m.event == "call"]
    return [(c["worker"], c["request"]["query"]["n"][0]) for c in calls]


def test_a_client_that_reconnects_gets_exactly_the_events_it_missed(serving: Serving) -> None:
    url = serving.url + "/__mockhttp/journal/events"
    seen = read_stream(  # (one call, asked while reading: started, then ended)
        url, None, lambda seen: len(asked(seen)) == 2, lambda: fresh(serving.url, "/who?n=0")
    )
    assert seen[0].event == "snapshot"
    assert asked(seen) == 2 * [asked(seen)[0]]
    last = seen[-1].id
    missed: list[tuple[int, str]] = []  # (dropped: the calls it misses, on both workers)
    for n in range(1, TRIES):
        fresh(serving.url, f"/who?n={n}")
        journal = fresh(serving.url, "/__mockhttp/journal").json()["calls"]
        missed = [(c["worker"], c["request"]["query"]["n"][0]) for c in journal[1:]]
        if {worker for worker, _ in missed} == {0, 1}:
            break
    assert {worker for worker, _ in missed} == {0, 1}
    again = read_stream(url, last, lambda seen: len(seen) >= 2 * len(missed))
    assert [m.event for m in again] == ["call"] * len(again)  # no snapshot
    assert sorted(asked(again)) == sorted(2 * missed)  # each missed call started and ended
    ids = [m.id for m in again]
    assert len(set(ids)) == len(ids)
    assert last not in ids
    # nothing more (none twice): a mark on each worker comes right after the missed ones
    marks: set[int] = set()
    for n in range(TRIES):
        fresh(serving.url, f"/who?n=mark{n}")
        journal = fresh(serving.url, "/__mockhttp/journal").json()["calls"]
        marks = {c["worker"] for c in journal if c["request"]["query"]["n"][0].startswith("m")}
        if marks == {0, 1}:
            break
    count = len(fresh(serving.url, "/__mockhttp/journal").json()["calls"]) - 1 - len(missed)
    after = read_stream(url, ids[-1], lambda seen: len(seen) >= 2 * count)
    assert {w for w, n in asked(after) if n.startswith("mark")} == {0, 1}
    assert [n for _, n in asked(after) if not n.startswith("mark")] == []
    # an id that fell out of a worker's log (2,048 events: 2 a call), or no id of ours:
    # a snapshot first, which the page puts in place of what it shows
    with httpx.Client(base_url=serving.url, timeout=WAIT) as client:  # (one connection:
        for n in range(1030):  # one worker)
            assert client.get(f"/who?n=many{n}").status_code == 200
    total = len(fresh(serving.url, "/__mockhttp/journal").json()["calls"])
    for last_event_id in (ids[-1], "garbage", last.partition(",")[0]):
        seen = read_stream(url, last_event_id, lambda seen: bool(seen))
        assert seen[0].event == "snapshot", last_event_id
        assert len(json.loads(seen[0].data)["calls"]) == total
