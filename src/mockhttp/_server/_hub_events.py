"""The dashboard's event stream under ``mockhttp serve --workers N``: every worker's
journal, live, as one ``GET /__mockhttp/journal/events``.

Each worker pushes its own calls (``_watch.Watch``) on its private control port.  A page's
request reaches one worker on the shared port, which relays it to the supervisor's hub
(``relay``); the hub opens one stream to every worker's control port and merges them
(``Upstreams`` reads, ``Merger`` merges) into the one the page reads.

Rule 1 (``Merger``, pure): one ``snapshot`` first, made when every worker has sent its
own (their calls joined by arrival, each tagged with its ``worker``; the mocks' counts
added up as ``GET /__mockhttp/mocks`` adds them); the events that came meanwhile follow
it.  Then each ``call`` as it comes, tagged with its ``worker`` (a call's ``id`` and
``resumes`` are numbers on its worker: ``worker`` and ``id`` name it on the server);
``cleared`` and ``dropped`` tagged too, so a page forgets that worker's calls only.
Rule 2: every event has an id of this merged stream that a page resumes from: each
worker's position in its own stream (``0=<boot>.<n>,1=<boot>.<n>``: ``merged_id``).  The hub
keeps no log: each worker's own (``_watch.RING`` events) is the ring.  A page that reconnects
with ``Last-Event-ID`` gets each worker's stream resumed after its position (``open_merged``),
so exactly the events it missed; when one worker cannot resume wholly (it was replaced, its
log no longer holds the position, or the id is none of ours) every worker starts over and
the page gets a merged ``snapshot``, which replaces what it shows, as on one process.
Rule 3: bounded: a queue of ``QUEUE`` events between the workers' streams and the page;
when it is full a worker's stream waits, and that worker's own log drops what the page
cannot take (a ``dropped`` event says so, as on one process).
Rule 4: when a worker's stream ends (it died, or stopped), the merged stream ends: the
page reconnects after ``retry`` and gets a snapshot of the workers alive then.  When the
page goes, every worker's stream is closed.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import queue
import re
import socket
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .._core._reply import Reply, status
from .._core._sse_decode import Decoder, Message
from ._feed import Feed
from ._watch import FEED_LIMIT, HEARTBEAT, RESUMED_HEADER, RETRY_MS

__all__ = [
    "EVENTS_PATH",
    "QUEUE",
    "Merger",
    "Upstreams",
    "merged_id",
    "open_merged",
    "positions_of",
    "relay",
]

EVENTS_PATH = "/__mockhttp/journal/events"
QUEUE = 1024  # events waiting between the workers' streams and the page (Rule 3)
STREAM_TIMEOUT = 3 * HEARTBEAT  # a stream silent this long (no heartbeat either) is dead
_CHUNK = 1 << 16
_ID_LIMIT = 4096  # characters of a Last-Event-ID read (64 workers' positions fit)
_POSITION = re.compile(r"([0-9]{1,4})=([0-9a-f]{1,32}\.[0-9]{1,18})")
_HEAD = (
    ("Content-Type", "text/event-stream; charset=utf-8"),
    ("Cache-Control", "no-store"),
    ("X-Accel-Buffering", "no"),
)


def merged_id(positions: Mapping[int, str]) -> str:
    """The merged stream's id for each worker's position (its last event's id)."""
    return ",".join(f"{number}={positions[number]}" for number in sorted(positions))


def positions_of(last_event_id: str | None) -> dict[int, str] | None:
    """The workers' positions a ``merged_id`` names, or None (no id, or none of ours)."""
    if not last_event_id or len(last_event_id) > _ID_LIMIT:
        return None
    found: dict[int, str] = {}
    for part in last_event_id.strip().split(","):
        match = _POSITION.fullmatch(part)
        if match is None or int(match[1]) in found:
            return None
        found[int(match[1])] = match[2]
    return found


class Merger:
    """The workers' events in, the merged stream's out (Rule 1, Rule 2): pure.

    ``resumed``: each worker's position when every worker resumed after it (no
    snapshot then)."""

    def __init__(
        self,
        workers: Sequence[int],
        merge: Callable[[list[Any], str], Any],
        resumed: Mapping[int, str] | None = None,
    ) -> None:
        self._merge = merge  # (``_workers.merge``: the mocks' counts as GET mocks adds them)
        self._waiting = set() if resumed else set(workers)  # whose snapshot has not come
        self._positions: dict[int, str] = dict(resumed or {})
        self._snapshots: dict[int, dict[str, Any]] = {}
        self._held: list[tuple[int, str, str, str]] = []

    @property
    def started(self) -> bool:
        """True once the merged snapshot went out (or the stream resumed)."""
        return not self._waiting

    def take(self, worker: int, event: str, data: str, id: str = "") -> list[bytes]:
        """The events to send for worker ``worker``'s event ``event`` with ``data`` and
        ``id`` (its id on that worker's stream; "" for none)."""
        if event == "snapshot" and worker in self._waiting:
            self._snapshots[worker] = json.loads(data)
            self._positions[worker] = id
            self._waiting.discard(worker)
            if self._waiting:
                return []
            out = [self._event("snapshot", self._snapshot())]
            held, self._held = self._held, []
            for item in held:
                out += self.take(*item)
            return out
        if self._waiting:
            self._held.append((worker, event, data, id))
            return []
        if event not in ("call", "dropped", "cleared"):
            return []  # (a second snapshot: a worker's stream started over, which Rule 4 ends)
        if id:
            self._positions[worker] = id
        found = {} if event == "cleared" else json.loads(data)
        return [self._event(event, {**found, "worker": worker}, with_id=bool(id))]

    def _snapshot(self) -> dict[str, Any]:
        order = sorted(self._snapshots)
        calls = [
            {**call, "worker": number}
            for number in order
            for call in self._snapshots[number].get("calls", [])
        ]
        calls.sort(key=lambda call: str(call.get("time", "")))
        mocks = self._merge([self._snapshots[n].get("mocks", []) for n in order], "mocks")
        return {"calls": calls, "mocks": mocks, "workers": order}

    def _event(self, kind: str, data: dict[str, Any], *, with_id: bool = True) -> bytes:
        text = json.dumps(data, separators=(",", ":"))
        head = f"event: {kind}\n" + (f"id: {merged_id(self._positions)}\n" if with_id else "")
        return f"{head}data: {text}\n\n".encode()


class Upstreams:
    """The hub's streams from every worker's control port, read by a thread each into one
    bounded queue (Rule 3).

    ``workers``: (number, control port) of each live worker; ``target``: the page's
    request target (``/__mockhttp/journal/events?test=ID``); ``headers``: sent to each
    (the run's secret); ``resume``: each worker's position to resume after (Rule 2)."""

    def __init__(
        self,
        workers: Sequence[tuple[int, int]],
        target: str,
        headers: dict[str, str],
        resume: Mapping[int, str] | None = None,
    ) -> None:
        self.workers = list(workers)
        self.target = target
        self.headers = headers
        self.resume = dict(resume or {})
        self.resumed = False  # every worker resumed wholly (known once opened)
        self.queue: queue.Queue[tuple[int, str | None, str, str]] = queue.Queue(QUEUE)
        self._conns: list[http.client.HTTPConnection] = []
        self._opened: list[tuple[int, http.client.HTTPResponse]] = []
        self._closed = False
        self._started = False

    def open(self) -> tuple[int, bytes] | None:
        """Open every worker's stream; None when all answered 200, else the first
        refusal's status and body (the rest closed)."""
        for number, port in self.workers:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=STREAM_TIMEOUT)
            self._conns.append(conn)
            headers = dict(self.headers)
            if number in self.resume:
                headers["Last-Event-ID"] = self.resume[number]
            try:
                conn.request("GET", self.target, headers=headers)
                answer = conn.getresponse()
            except OSError as exc:
                self._close_all()
                text = f"worker {number} did not open its journal stream: {exc}"
                return 502, json.dumps({"error": {"type": "workers", "message": text}}).encode()
            if answer.status != 200:
                body = answer.read()
                self._close_all()
                return answer.status, body
            self._opened.append((number, answer))
        self.resumed = bool(self.resume) and all(
            number in self.resume and answer.getheader(RESUMED_HEADER) == "yes"
            for number, answer in self._opened
        )
        return None

    def merger(self, merge: Callable[[list[Any], str], Any]) -> Merger:
        """The merger of these streams: from every worker's position when they resumed."""
        numbers = [number for number, _ in self.workers]
        return Merger(numbers, merge, self.resume if self.resumed else None)

    def _start(self) -> None:
        self._started = True
        for (number, answer), conn in zip(self._opened, self._conns, strict=True):
            threading.Thread(
                target=self._read,
                args=(number, answer, conn),
                name="mockhttp-hub-events",
                daemon=True,
            ).start()

    def _read(
        self, number: int, answer: http.client.HTTPResponse, conn: http.client.HTTPConnection
    ) -> None:
        decoder = Decoder()
        try:
            while not self._closed:
                chunk = answer.read1(_CHUNK)
                if not chunk:
                    break
                for item in decoder.feed(chunk):
                    if isinstance(item, Message):
                        self.queue.put((number, item.event, item.data, item.id))
        except (OSError, ValueError, http.client.HTTPException):
            pass  # (shut: the page went, or the worker died)
        finally:
            conn.close()
            self.queue.put((number, None, "", ""))  # Rule 4

    def run(self, write: Callable[[bytes], object], merger: Merger) -> None:
        """Read every opened stream and write the merged one until a worker's stream ends
        (Rule 4); ``write`` raises ``OSError`` when the page is gone."""
        self._start()
        write(f"retry: {RETRY_MS}\n\n".encode())
        while True:
            try:
                number, event, data, id = self.queue.get(timeout=HEARTBEAT)
            except queue.Empty:
                write(b": still here\n\n")
                continue
            if event is None:
                return
            for out in merger.take(number, event, data, id):
                write(out)

    def close(self) -> None:
        """End every worker's stream (their readers end, and close them; before ``run``
        started any, closed here)."""
        self._closed = True
        if not self._started:
            return self._close_all()
        for conn in self._conns:
            _shut(conn)

    def _close_all(self) -> None:  # (before any reader started)
        for conn in self._conns:
            conn.close()


def open_merged(
    workers: Sequence[tuple[int, int]],
    target: str,
    headers: dict[str, str],
    last_event_id: str | None,
) -> Upstreams | tuple[int, bytes]:
    """Every worker's stream opened for one page (Rule 2): resumed after
    ``last_event_id``'s positions when every worker can resume wholly, else from a
    snapshot; or the first refusal's status and body."""
    resume = positions_of(last_event_id)
    if resume is not None and sorted(resume) == sorted(number for number, _ in workers):
        upstreams = Upstreams(workers, target, headers, resume)
        refused = upstreams.open()
        if refused is not None or upstreams.resumed:
            return refused or upstreams
        upstreams.close()  # a worker cannot: all start over
    upstreams = Upstreams(workers, target, headers)
    return upstreams.open() or upstreams


def _shut(conn: http.client.HTTPConnection) -> None:
    """End ``conn``'s stream from any thread: its reader's next read returns nothing (the
    reader closes the connection: closing it here would pull the response from under a
    read)."""
    sock = conn.sock
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


def relay(hub_port: int, target: str, headers: dict[str, str]) -> Reply:
    """A worker's answer to a page's ``GET /__mockhttp/journal/events``: the hub's merged
    stream, passed on as it comes (a ``Feed``: its thread reads the hub; the page's
    going closes the hub's stream)."""
    conn = http.client.HTTPConnection("127.0.0.1", hub_port, timeout=STREAM_TIMEOUT)
    try:
        conn.request("GET", target, headers=headers)
        answer = conn.getresponse()
    except OSError as exc:
        conn.close()
        message = {"error": {"type": "workers", "message": f"supervisor unreachable: {exc}"}}
        return status(502).json(message)
    if answer.status != 200:
        body = answer.read()
        conn.close()
        reply = status(answer.status).header("Content-Type", "application/json").body(body)
        return reply.header("Retry-After", "5") if answer.status == 503 else reply
    feed = Feed(limit=FEED_LIMIT, on_gone=lambda: _shut(conn))
    feed.head(200, _HEAD)
    threading.Thread(
        target=_pass_on, args=(answer, conn, feed), name="mockhttp-journal-relay", daemon=True
    ).start()
    return feed.reply()


def _pass_on(
    answer: http.client.HTTPResponse, conn: http.client.HTTPConnection, feed: Feed
) -> None:
    try:
        while not feed.gone:
            chunk = answer.read1(_CHUNK)
            if not chunk:
                break
            feed.data(chunk)
    except (OSError, ValueError, http.client.HTTPException):
        pass
    finally:
        conn.close()
        if not feed.gone:
            with contextlib.suppress(Exception):  # (ended meanwhile)
                feed.end()
