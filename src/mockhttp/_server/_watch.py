"""The journal as it happens, for the dashboard: a bounded log of call events, pushed to
each page as a ``text/event-stream`` (``GET /__mockhttp/journal/events``).

``Watch`` is one server's: the server calls it on its thread when a mock's call starts
(with the reply, faults and index it was given: the plan the dashboard's timeline shows
beside what was written) and when any call ends; it keeps the last ``RING`` events, each
numbered.  ``stream`` answers one page: a ``Feed`` fed by a thread of its own that turns
events into JSON (on that thread, never the server's) and writes them, each with its id.

Rule 1: nothing on the server's thread but appending to the log and a notify: the JSON is
made by the page's thread; a server nobody watches pays one ``None`` test per call.
Rule 2: bounded: the log keeps ``RING`` events and each page's feed ``FEED_LIMIT`` bytes;
a page that reads too slowly blocks its own thread only, loses the events the log no
longer holds, and is told so (a ``dropped`` event) before the next one.
Rule 3: a stream is exemplary SSE: ``retry:``, an ``id`` on every event (``<boot>.<n>``:
a page that reconnects with ``Last-Event-ID`` resumes after it, and one from another run
of the server starts over with a ``snapshot``), a comment every ``HEARTBEAT`` seconds.
A stream that resumes with nothing lost says so in its head (``RESUMED_HEADER: yes``): the
supervisor under ``--workers`` resumes its merged stream only when every worker's does
(``_hub_events``).
"""

from __future__ import annotations

import contextlib
import json
import secrets
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .._core._plan import Fault
from .._core._reply import Reply, status
from ._builtin import ADMIN_PREFIX, METRICS_PATH
from ._feed import Feed
from ._journal import Call

__all__ = [
    "FEED_LIMIT",
    "HEARTBEAT",
    "PAGES",
    "PLANS",
    "RESUMED_HEADER",
    "RING",
    "Planned",
    "Watch",
    "watch_of",
]

RING = 2048  # events the log keeps for pages that fall behind or reconnect
PLANS = 4096  # the replies kept for calls' timelines (the newest calls')
FEED_LIMIT = 1 << 20  # bytes waiting to be sent to one page
PAGES = 16  # pages watching at once
HEARTBEAT = 15.0  # seconds between comments on a quiet stream
RETRY_MS = 1000
RESUMED_HEADER = "X-Mockhttp-Resumed"


@dataclass(frozen=True, slots=True)
class Planned:
    """What a call was given to send (its timeline's plan): the reply, its faults, the
    call's index among the mock's, and whether its body goes out unchunked."""

    reply: Reply
    faults: tuple[Fault, ...]
    index: int
    http10: bool


class Watch:
    """One server's log of call events (see the module's docstring)."""

    def __init__(self, server: Any, *, ring: int = RING) -> None:
        self.server = server
        self.boot = secrets.token_hex(3)  # tells this run's ids from another's
        self._log: deque[tuple[int, str, Any]] = deque(maxlen=ring)
        self._last = 0  # the number of the newest event
        self._changed = threading.Condition()
        self._plans: dict[int, Planned] = {}
        self.pages = 0
        self._chained: Callable[[Call], None] | None = None
        self._installed = False

    # -- the server's side (its thread) ---------------------------------------------------

    def install(self) -> None:
        """Start watching: the server calls ``started`` and ``ended`` from now on."""
        if self._installed:
            return
        self._installed = True
        server = self.server
        self._chained = server.on_call_end
        server.on_call_start = self.started
        server.on_call_end = self.ended

    def started(self, call: Call, reply: Reply, faults: tuple[Fault, ...], index: int) -> None:
        """A mock's call is about to be answered with ``reply`` (server thread)."""
        if type(reply) is Reply:  # (a fed or held reply's plan cannot be read twice)
            plans = self._plans
            plans[call._seq] = Planned(
                reply, faults, index, call.request.http_version in ("1.0", "2")
            )
            if len(plans) > PLANS:
                del plans[next(iter(plans))]
        self._note("call", call)

    def ended(self, call: Call) -> None:
        """A call has ended (server thread): the server's own calls are not journaled."""
        chained = self._chained
        if chained is not None:
            chained(call)
        if call.mock is None and _own(call):
            return
        self._note("call", call)

    def cleared(self) -> None:
        """The journal was emptied (``DELETE /__mockhttp/journal``)."""
        self._note("cleared", None)

    def _note(self, kind: str, value: Any) -> None:
        with self._changed:
            self._last += 1
            self._log.append((self._last, kind, value))
            self._changed.notify_all()

    # -- the pages' side ------------------------------------------------------------------

    def plan_of(self, call: Call) -> Planned | None:
        """The reply ``call`` was given, when it was watched and is among the newest."""
        return self._plans.get(call._seq)

    def recent(self) -> list[Call]:
        """The calls the log still holds (a journal emptied since, between tests, no
        longer has them), oldest first, each once."""
        with self._changed:
            log = list(self._log)
        found: dict[int, Call] = {}
        for _, kind, value in log:
            if kind == "call":
                found[value._seq] = value
        return list(found.values())

    @property
    def last(self) -> int:
        """The number of the newest event (0: none yet)."""
        return self._last

    def since(self, after: int) -> tuple[int, list[tuple[int, str, Any]]]:
        """The events after number ``after`` that the log still holds, and how many
        after it it no longer holds (dropped for a page that fell behind)."""
        with self._changed:
            log = list(self._log)
        if not log or log[-1][0] <= after:
            return 0, []
        first = log[0][0]
        lost = max(0, first - after - 1)
        return lost, [entry for entry in log if entry[0] > after]

    def wait(self, after: int, timeout: float) -> bool:
        """Block until an event after number ``after`` is logged (or ``timeout``)."""
        with self._changed:
            return self._changed.wait_for(lambda: self._last > after, timeout)

    def wake_all(self) -> None:
        """Wake every page's thread (its page may be gone)."""
        with self._changed:
            self._changed.notify_all()

    def stream(
        self,
        last_event_id: str | None,
        snapshot: Callable[[], dict[str, Any]],
        render: Callable[[Call], dict[str, Any]],
        keep: Callable[[Call], bool] | None = None,
    ) -> Reply:
        """The reply to one page: ``snapshot()`` first (the journal now) unless it resumes
        with ``last_event_id``, then each event (a call's only when ``keep`` keeps it),
        ``render`` making a call's JSON."""
        if self.pages >= PAGES:
            message = f"{PAGES} pages watch this server's journal already; close one"
            refusal = {"error": {"type": "too_many_pages", "message": message}}
            return status(503).header("Retry-After", "5").json(refusal)
        self.install()
        feed = Feed(limit=FEED_LIMIT, on_gone=self.wake_all)
        after = self._resumed(last_event_id)
        whole = after is not None and not self.since(after)[0]
        feed.head(200, (*_HEAD, (RESUMED_HEADER, "yes")) if whole else _HEAD)
        with _LOCK:
            self.pages += 1
        pump = threading.Thread(
            target=self._pump,
            args=(feed, after, snapshot, render, keep),
            name="mockhttp-journal-events",
            daemon=True,
        )
        pump.start()
        return feed.reply()

    def _resumed(self, last_event_id: str | None) -> int | None:
        """The event number a page resumes after, or None (a snapshot first)."""
        if not last_event_id:
            return None
        boot, _, number = last_event_id.strip().partition(".")
        if boot != self.boot or not number.isdecimal() or len(number) > 18:
            return None
        after = int(number)
        return after if after <= self._last else None

    def _pump(
        self,
        feed: Feed,
        after: int | None,
        snapshot: Callable[[], dict[str, Any]],
        render: Callable[[Call], dict[str, Any]],
        keep: Callable[[Call], bool] | None,
    ) -> None:
        try:
            feed.data(f"retry: {RETRY_MS}\n\n".encode())
            if after is None:
                after = self._last  # first: the calls since then are sent again, as events
                feed.data(self._event("snapshot", snapshot(), after))
            while not feed.gone:
                if not self.wait(after, HEARTBEAT):
                    feed.data(b": still here\n\n")
                    continue
                lost, entries = self.since(after)
                if lost:
                    text = (
                        f"{lost} journal events were dropped: this page read more slowly "
                        f"than the server answered (the log keeps the last {self._log.maxlen})"
                    )
                    feed.data(self._event("dropped", {"dropped": lost, "message": text}, None))
                for number, kind, value in entries:
                    if feed.wait_gone(0):
                        return
                    after = number
                    if kind == "call" and keep is not None and not keep(value):
                        continue
                    data = render(value) if kind == "call" else {}
                    feed.data(self._event(kind, data, number))
        except Exception:  # the page's stream ends; the server goes on
            pass
        finally:
            with _LOCK:
                self.pages -= 1
            if not feed.gone:
                with contextlib.suppress(Exception):  # (ended meanwhile)
                    feed.end()

    def _event(self, kind: str, data: dict[str, Any], number: int | None) -> bytes:
        head = f"event: {kind}\n" + ("" if number is None else f"id: {self.boot}.{number}\n")
        return (head + "data: " + json.dumps(data, separators=(",", ":")) + "\n\n").encode()


_HEAD = (
    ("Content-Type", "text/event-stream; charset=utf-8"),
    ("Cache-Control", "no-store"),
    ("X-Accel-Buffering", "no"),
)


def _own(call: Call) -> bool:
    """A request the server answered itself (admin API, health, metrics, a preflight)."""
    request = call.request
    path = request.path
    return (
        path.startswith(ADMIN_PREFIX)
        or path == METRICS_PATH
        or (request.method == "OPTIONS" and call.explanation is None)
    )


_LOCK = threading.Lock()


def watch_of(server: Any) -> Watch:
    """The server's ``Watch`` (made the first time it is asked for)."""
    with _LOCK:
        watch: Watch | None = getattr(server, "_watch", None)
        if watch is None:
            watch = Watch(server)
            server._watch = watch
        return watch
