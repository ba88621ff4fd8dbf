"""The state a mock MCP server keeps between requests: sessions, streams, script places.

Where it lives: a reply kind is a frozen value, but MCP is stateful (a session is issued
by ``initialize`` and named by every later request; an SSE stream is replayed after
``Last-Event-ID``; a tool's answers go in order).  What is state (the sessions' records,
the POST streams' messages, the script places: ``_book``) is the server's: each
:class:`~mockhttp.mcp.McpServer` is a ``KeptKind``, and :class:`State` reads and changes
the ``Kept`` the server hands it (in the supervisor under ``serve --workers``: every
worker knows every session).  What is I/O stays here, in this process: the open GET and
``subscriptions/listen`` streams (feeds), the GET stream's messages, the calls waiting
for the client's answers, and the test's records (cancellations, the client's answers).

Rule 1: the kept state is read and changed on the server's thread only (``_core._kept``
Rule 4): ``bind`` hands it over at each request; the test's commands (``expire``,
``reset``) are queued and taken at the next request (their feeds end at once).  The
open streams are connections, not state: the test's ``notify`` puts messages on them
from its own thread, so they alone are under ``_wires``, a lock.
Rule 2: nothing here blocks: a GET stream is a :class:`~mockhttp.Feed` that messages are
put into; a feed whose client went away is dropped at the next put.
Rule 3: event ids are ``<stream>-<n>``, unique in a session; stream 0 is the session's
GET stream (its messages outlive each GET), streams 1, 2, ... are POST answers.
Rule 4: a call that asks the client (``_asking``) waits in ``_waiting`` under the id of
the mock's request; the client's response POSTed back moves it on (to the same process:
under ``--workers``, the worker that holds the call's stream).
Rule 5: at most ``max_sessions`` sessions live: ``initialize`` beyond it ends the oldest,
whose next request gets ``404`` saying so; an ended session is forgotten (no leak).
"""

from __future__ import annotations

import contextlib
import threading
import uuid
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from .._core._errors import ConfigError
from .._core._kept import Kept, Memory
from .._core._sse import Event
from .._server._feed import Feed
from . import _book as book
from ._asking import ClientResponse, Exchange, request_of

__all__ = ["Cancelled", "Session", "State"]


def sse_event(
    event_id: str | None, message: dict[str, Any] | None, retry: int | None = None
) -> Event:
    """One SSE event: ``event: message``, ``id``, ``retry`` when given, and the message as
    ``data`` (a priming event, without message, has an empty ``data``)."""
    return Event("" if message is None else message, event="message", id=event_id, retry=retry)


@dataclass
class Session:
    """One session as a request reads it (a copy of its kept record: a change goes
    through :class:`State`).  ``kept`` False: a session of one request (revision
    2026-07-28), kept nowhere."""

    id: str
    revision: str
    initialized: bool = False
    capabilities: dict[str, Any] = field(default_factory=dict)  # the client's, from initialize
    subscriptions: set[str] = field(default_factory=set)  # resources/subscribe'd URIs
    level: str | None = None  # logging/setLevel's (None: every message)
    logs: bool = True  # False: no log message at all (2026-07-28 without a logLevel)
    streams: int = 1  # how many streams (0: the GET stream)
    resume: dict[int, int] = field(default_factory=dict)  # stream -> its method fault
    kept: bool = True

    @classmethod
    def of(cls, session_id: str, found: dict[str, Any]) -> Session:
        """The session of the kept record ``found`` (``_book.record``)."""
        return cls(
            session_id,
            found["revision"],
            found["initialized"],
            dict(found["capabilities"]),
            set(found["subscriptions"]),
            found["level"],
            found["logs"],
            found["streams"],
            {int(n): i for n, i in found["resume"].items()},
        )


@dataclass(frozen=True)
class Cancelled:
    """A request the client cancelled (``notifications/cancelled``).

    Attributes:
        session_id: the session ("" without sessions).
        request_id: the cancelled request's id.
        reason: the client's reason, if it gave one.
    """

    session_id: str
    request_id: Any
    reason: str | None


@dataclass
class _Talk:
    """A call waiting for the client's answers: its stream, feed and exchange."""

    session: Session
    number: int
    feed: Feed
    exchange: Exchange
    replies: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class _Get:
    """A session's GET stream here: its messages, open feeds, and how many some feed
    took."""

    messages: list[dict[str, Any]] = field(default_factory=list)
    feeds: list[Feed] = field(default_factory=list)
    sent: int = 0


class State:
    """A mock server's view of its kept state, and its open streams (see the rules)."""

    def __init__(self) -> None:
        self.own = Memory()  # the state of a kind built outside a server (``build``)
        self.kept: Kept = self.own
        self._commands: deque[str | None] = deque()  # the test's: end this id (None: reset)
        self._wires = threading.Lock()  # the open streams below (Rule 1)
        self._gets: dict[str, _Get] = {}
        self._waiting: dict[tuple[str, Any], tuple[_Talk, dict[str, Any]]] = {}
        self._responses: list[ClientResponse] = []
        self._cancelled: list[Cancelled] = []
        self._listeners: list[tuple[Feed, Any, dict[str, Any]]] = []

    def bind(self, kept: Kept) -> None:
        """Read and change ``kept`` (the server's) from now on; first take the test's
        commands queued since the last request."""
        self.kept = kept
        while self._commands:
            command = self._commands.popleft()
            if command is None:
                self._clear()
            else:
                self.end(command)

    def _queue(self, command: str | None) -> None:
        """A command of the test's: at once outside a server, else at the next request."""
        self._commands.append(command)
        if self.kept is self.own:
            self.bind(self.own)

    # -- sessions ----------------------------------------------------------------------

    def open(
        self, revision: str, capabilities: dict[str, Any] | None = None, cap: int = 0
    ) -> Session:
        """A new session at ``revision`` (the client declared ``capabilities``), with a
        fresh random id; with ``cap`` sessions live already, the oldest end (Rule 5)."""
        session_id = uuid.uuid4().hex
        found = book.record(revision, capabilities)
        self.kept.update(book.record_key(session_id), lambda _: (found, None))
        for old in self.kept.update(book.INDEX, book.opened(session_id, cap)):
            self._forget(old)
        return Session.of(session_id, found)

    def evicted(self, session_id: str) -> bool:
        """Whether ``session_id`` was ended by the session cap (lately: the newest ``cap``
        such ids are kept)."""
        index = self.kept.get(book.INDEX)
        return bool(index) and session_id in index["evicted"]

    def find(self, session_id: str) -> Session | None:
        """The live session ``session_id`` (None: unknown or ended)."""
        found = self.kept.get(book.record_key(session_id))
        return None if found is None or session_id == "" else Session.of(session_id, found)

    def stateless(self, capabilities: dict[str, Any] | None = None) -> Session:
        """The one session of a mock without sessions (id "": its streams still resume);
        with ``capabilities``, an ``initialize`` declared them."""
        key = book.record_key("")
        if capabilities is not None:
            caps = dict(capabilities)

            def declare(old: Any) -> tuple[Any, None]:
                return {**(old or book.record("")), "capabilities": caps}, None

            self.kept.update(key, declare)
        found = self.kept.get(key)
        if found is None:
            found = book.record("")
            self.kept.update(key, lambda old: (old or found, None))
        return Session.of("", self.kept.get(key) or found)

    def end(self, session_id: str | None = None) -> int:
        """End ``session_id`` (None: every session); returns how many ended.  Its next
        request gets 404, and its GET streams end."""
        gone = self.kept.update(book.INDEX, book.ended(session_id))
        for old in gone:
            self._forget(old)
        return len(gone)

    def expire(self, session_id: str | None = None) -> int:
        """``end`` from the test's thread (Rule 1): its GET streams end now, the rest at
        the next request; returns how many sessions end."""
        ids = [s for s in self.session_ids() if session_id is None or s == session_id]
        for gone in ids:
            self._end_gets(gone)
        for gone in ids:
            self._queue(gone)
        return len(ids)

    def _forget(self, session_id: str) -> None:
        """Drop an ended session's record, streams and open GET streams (no leak)."""
        found = self.kept.update(book.record_key(session_id), lambda old: (None, old))
        for number in range(1, found["streams"] if found else 0):
            self.kept.update(book.stream_key(session_id, number), lambda _: (None, None))
        self._end_gets(session_id)

    def _end_gets(self, session_id: str) -> None:
        with self._wires:
            get = self._gets.pop(session_id, None)
        for feed in get.feeds if get is not None else ():
            _end(feed)

    def session_ids(self) -> tuple[str, ...]:
        """The live sessions' ids, oldest first (less those the test ended since the
        last request)."""
        index = self.kept.get(book.INDEX)
        queued = list(self._commands)
        if None in queued:
            return ()
        return tuple(s for s in (index["live"] if index else ()) if s not in queued)

    def initialized(self, session: Session) -> None:
        """``notifications/initialized`` came in ``session``."""
        session.initialized = True
        if session.kept:
            self.kept.update(book.record_key(session.id), book.initialized)

    def set_level(self, session: Session, level: str) -> None:
        """``logging/setLevel``: ``session``'s log messages from ``level`` on."""
        session.level, session.logs = level, True
        if session.kept:
            self.kept.update(book.record_key(session.id), book.leveled(level))

    def subscribe(self, session: Session, uri: str, on: bool) -> None:
        """Subscribe ``session`` to ``uri`` (``on``) or unsubscribe it."""
        if on:
            session.subscriptions.add(uri)
        else:
            session.subscriptions.discard(uri)
        if session.kept:
            self.kept.update(book.record_key(session.id), book.subscribed(uri, on))

    # -- streams -----------------------------------------------------------------------

    def stream(
        self, session: Session, messages: list[dict[str, Any] | None], fault: int | None = None
    ) -> int:
        """Keep ``messages`` as a new POST stream of ``session`` (its resumption to be cut
        by method fault ``fault``); returns its number."""
        number: int | None = None
        if session.kept:
            number = self.kept.update(book.record_key(session.id), book.streamed(fault))
        if number is None:  # (a session of one request, or one ended meanwhile)
            number = session.streams
        else:
            kept = list(messages)
            self.kept.update(book.stream_key(session.id, number), lambda _: (kept, None))
        session.streams = number + 1
        if fault is not None:
            session.resume[number] = fault
        return number

    def replay(self, session: Session, last_event_id: str) -> tuple[int, int] | None:
        """Where a stream resumes after ``last_event_id``: (stream, first index to send);
        None for an id this session never sent."""
        number, _, seq = last_event_id.partition("-")
        if not (number.isdigit() and seq.isdigit()):
            return None
        if int(number) == 0:
            with self._wires:
                get = self._gets.get(session.id)
                size = 0 if get is None else len(get.messages)
        else:
            found = self.kept.get(book.stream_key(session.id, int(number)))
            size = 0 if found is None else len(found)
        if int(seq) >= size:
            return None
        return int(number), int(seq) + 1

    def events(self, session: Session, number: int, start: int) -> list[tuple[str, Any]]:
        """POST stream ``number``'s events from index ``start``: (event id, message)."""
        events = (self.kept.get(book.stream_key(session.id, number)) or [])[start:]
        return [(f"{number}-{start + i}", m) for i, m in enumerate(events)]

    def attach(self, session: Session, feed: Feed, start: int | None) -> None:
        """Make ``feed`` a GET stream of ``session``: it gets stream 0's messages from
        ``start`` (None: the ones no GET stream took yet), then each new one."""
        with self._wires:
            get = self._gets.setdefault(session.id, _Get())
            begin = get.sent if start is None else start
            backlog = get.messages[begin:]
            get.feeds.append(feed)
            get.sent = max(get.sent, begin + len(backlog))
            for i, message in enumerate(backlog):  # under the lock: before any newer push
                feed.data(sse_event(f"0-{begin + i}", message).encode(), event=begin + i)

    def push(self, message: dict[str, Any], uri: str | None = None) -> int:
        """Put ``message`` on every live session's GET stream (the newest open one gets
        it; with none open it waits for the next GET); with ``uri``, only on the sessions
        subscribed to it.  Returns how many sessions got it."""
        ids = [*self.session_ids(), ""]
        records = [(s, self.kept.get(book.record_key(s))) for s in ids]
        told = [
            s
            for s, found in records
            if found is not None and (uri is None or uri in found["subscriptions"])
        ]
        with self._wires:
            for session_id in told:
                get = self._gets.setdefault(session_id, _Get())
                get.feeds = [f for f in get.feeds if not f.gone]
                get.messages.append(message)
                index = len(get.messages) - 1
                if get.feeds:
                    get.feeds[-1].data(sse_event(f"0-{index}", message).encode(), event=index)
                    get.sent = index + 1
        return len(told)

    def held(self, session: Session) -> tuple[dict[str, Any], ...]:
        """The messages of ``session``'s GET stream (stream 0), sent or not yet."""
        with self._wires:
            get = self._gets.get(session.id)
            return () if get is None else tuple(get.messages)

    def listen(self, feed: Feed, id_: Any, wanted: dict[str, Any]) -> None:
        """A ``subscriptions/listen`` stream (revision 2026-07-28): ``feed`` gets the
        notifications ``wanted`` (the acknowledged filter), each tagged with ``id_``."""
        with self._wires:
            self._listeners = [t for t in self._listeners if not t[0].gone]
            self._listeners.append((feed, id_, wanted))

    def tell_listeners(self, method: str, params: dict[str, Any] | None = None) -> int:
        """Put a notification on each ``subscriptions/listen`` stream that asked for it;
        returns how many got it."""
        uri = (params or {}).get("uri")
        told = 0
        with self._wires:
            for feed, id_, wanted in self._listeners:
                if feed.gone or not _wants(wanted, method, uri):
                    continue
                meta = {"io.modelcontextprotocol/subscriptionId": id_}
                message = {
                    "jsonrpc": "2.0",
                    "method": method,
                    "params": {**(params or {}), "_meta": meta},
                }
                with contextlib.suppress(ConfigError):
                    feed.data(sse_event(None, message).encode())
                    told += 1
        return told

    # -- asking the client (see _asking) -----------------------------------------------

    def converse(self, session: Session, number: int, feed: Feed, exchange: Exchange) -> None:
        """Send ``exchange``'s first request on stream ``number`` (fed by ``feed``)."""
        self._ask(_Talk(session, number, feed, exchange))

    def _ask(self, talk: _Talk) -> None:
        """Send ``talk``'s next request."""
        ask = talk.exchange.asks[len(talk.replies)]
        id_ = self.kept.update(book.record_key(talk.session.id), book.asked)
        if id_ is None:  # the session ended meanwhile
            _end(talk.feed)
            return
        message = {"jsonrpc": "2.0", "id": id_, **request_of(ask)}
        with self._wires:
            self._waiting[(talk.session.id, id_)] = (talk, message)
        self._send(talk, message)

    def _send(self, talk: _Talk, message: dict[str, Any]) -> None:
        key = book.stream_key(talk.session.id, talk.number)
        index = self.kept.update(key, book.appended(message))
        if index is not None and not talk.feed.gone:
            with contextlib.suppress(ConfigError):
                event = sse_event(f"{talk.number}-{index}", message)
                talk.feed.data(event.encode(), event=index)

    def reply(self, session: Session, message: dict[str, Any]) -> bool:
        """Take the client's response ``message``: keep it, then ask the next request or
        send the call's response and end its stream.  False: no request has its id."""
        id_ = message.get("id")
        with self._wires:
            found = self._waiting.pop((session.id, id_), None) if _is_id(id_) else None
            if found is None:
                return False
            talk, asked = found
            self._responses.append(_record(session.id, asked, message))
        talk.replies.append(message)
        if len(talk.replies) < len(talk.exchange.asks):
            self._ask(talk)
            return True
        self._send(talk, talk.exchange.finish(talk.replies))
        _end(talk.feed)
        return True

    def cancel(self, session: Session, request_id: Any, reason: Any) -> bool:
        """The client cancelled its request ``request_id`` (``notifications/cancelled``):
        kept, and a call of it still waiting for the client's answers is dropped and its
        stream ended without a response (the spec: the server SHOULD NOT answer it).
        True when such a call was waiting."""
        with self._wires:
            self._cancelled.append(
                Cancelled(session.id, request_id, reason if isinstance(reason, str) else None)
            )
            found = [
                key
                for key, (talk, _) in self._waiting.items()
                if talk.session.id == session.id and talk.exchange.call_id == request_id
            ]
            talks = [self._waiting.pop(key)[0] for key in found]
        for talk in talks:
            _end(talk.feed)
        return bool(talks)

    def cancelled(self) -> tuple[Cancelled, ...]:
        """The client's cancellations, in order."""
        with self._wires:
            return tuple(self._cancelled)

    def answered(self, asked: dict[str, Any], message: dict[str, Any]) -> None:
        """Keep the client's answer ``message`` to ``asked`` (a request of an
        ``InputRequiredResult``, revision 2026-07-28: no session)."""
        with self._wires:
            self._responses.append(_record("", asked, message))

    def client_responses(self) -> tuple[ClientResponse, ...]:
        """The client's answers to the mock's requests, in order."""
        with self._wires:
            return tuple(self._responses)

    # -- scripts -----------------------------------------------------------------------

    def take(self, tool: str, candidates: tuple[int, ...]) -> int:
        """How many earlier calls of ``tool`` had these candidate answers (then counts
        this one)."""
        return self.count((tool, list(candidates)))

    def count(self, key: tuple[Any, ...]) -> int:
        """How many times ``key`` (JSON values) was counted before (then counts this
        one)."""
        name = book.count_key(key)
        n: int = self.kept.update(name, book.counted)
        if n == 0:
            self.kept.update(book.COUNTED, book.listed(name))
        return n

    def reset(self) -> None:
        """Forget every session and script place (the kept ones at the next request:
        Rule 1); the open streams end now."""
        with self._wires:
            gets, self._gets = self._gets, {}
            listeners, self._listeners = self._listeners, []
            self._waiting.clear()
            self._responses.clear()
            self._cancelled.clear()
        for feed in [f for g in gets.values() for f in g.feeds] + [t[0] for t in listeners]:
            _end(feed)
        self._queue(None)

    def _clear(self) -> None:
        """Drop every kept session, stream and count (on the server's thread)."""
        self.end()
        self.kept.update(book.INDEX, lambda _: (None, None))
        for name in self.kept.update(book.COUNTED, lambda old: (None, old or [])):
            self.kept.update(name, lambda _: (None, None))
        self._forget("")
        with self._wires:
            self._gets.clear()


_LIST_CHANGES = {
    "notifications/tools/list_changed": "toolsListChanged",
    "notifications/prompts/list_changed": "promptsListChanged",
    "notifications/resources/list_changed": "resourcesListChanged",
}


def _wants(wanted: dict[str, Any], method: str, uri: Any) -> bool:
    """Whether a listen stream's filter asked for this notification."""
    if method == "notifications/resources/updated":
        return uri in (wanted.get("resourceSubscriptions") or ())
    key = _LIST_CHANGES.get(method)
    return key is not None and wanted.get(key) is True


def _is_id(value: Any) -> bool:
    return isinstance(value, int | str) and not isinstance(value, bool)


def _record(session_id: str, asked: dict[str, Any], message: dict[str, Any]) -> ClientResponse:
    result, err = message.get("result"), message.get("error")
    return ClientResponse(
        session_id,
        asked["id"],
        asked["method"],
        asked["params"],
        result if isinstance(result, dict) else None,
        err if isinstance(err, dict) else None,
    )


def _end(feed: Feed) -> None:
    if not feed.gone:
        with contextlib.suppress(ConfigError):  # it ended meanwhile: nothing to end
            feed.end()
