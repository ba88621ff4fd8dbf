"""The state a mock MCP server keeps between requests: sessions, streams, script places.

Where it lives: a reply kind is a frozen value, but MCP is stateful (a session is issued
by ``initialize`` and named by every later request; an SSE stream is replayed after
``Last-Event-ID``; a tool's answers go in order).  So each :class:`~mockhttp.mcp.McpServer`
owns one :class:`State`, left out of its equality and file form; the core never sees it.

Rule 1: every read and write goes through ``State``'s lock: ``build`` runs on the
server's thread, ``notify`` and ``expire`` on the test's.
Rule 2: nothing here blocks: a GET stream is a :class:`~mockhttp.Feed` that messages are
put into; a feed whose client went away is dropped at the next put.
Rule 3: event ids are ``<stream>-<n>``, unique in a session; stream 0 is the session's
GET stream (its messages outlive each GET), streams 1, 2, ... are POST answers.
Rule 4: a call that asks the client (``_asking``) waits in ``_waiting`` under the id of
the mock's request; the client's response POSTed back moves it on.
Rule 5: at most ``max_sessions`` sessions live: ``initialize`` beyond it ends the oldest,
whose next request gets ``404`` saying so; an ended session is forgotten (no leak).
"""

from __future__ import annotations

import contextlib
import threading
import uuid
from dataclasses import dataclass, field
from typing import Any

from .._core._errors import ConfigError
from .._core._sse import Event
from .._server._feed import Feed
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
    """One session: its id, revision and streams (every field read under the lock)."""

    id: str
    revision: str
    initialized: bool = False
    ended: bool = False
    # stream number -> its messages in order (None: a priming event)
    streams: dict[int, list[dict[str, Any] | None]] = field(default_factory=lambda: {0: []})
    feeds: list[tuple[Feed, int]] = field(default_factory=list)  # open GET streams, sent
    sent: int = 0  # how many of stream 0's messages some GET stream took
    capabilities: dict[str, Any] = field(default_factory=dict)  # the client's, from initialize
    asked: int = 0  # the mock's last request id in this session
    subscriptions: set[str] = field(default_factory=set)  # resources/subscribe'd URIs
    resume: dict[int, tuple[Any, ...]] = field(default_factory=dict)  # stream -> its faults
    level: str | None = None  # logging/setLevel's (None: every message)
    logs: bool = True  # False: no log message at all (2026-07-28 without a logLevel)


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


class State:
    """A mock server's sessions and script places, thread-safe (see the module's rules)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sessions: dict[str, Session] = {}
        self._calls: dict[tuple[str, tuple[int, ...]], int] = {}
        self._stateless = Session("", "")
        self._waiting: dict[tuple[str, Any], tuple[_Talk, dict[str, Any]]] = {}
        self._responses: list[ClientResponse] = []
        self._evicted: dict[str, None] = {}  # ids of sessions ended by the cap, oldest first
        self._cancelled: list[Cancelled] = []
        self._listeners: list[tuple[Feed, Any, dict[str, Any]]] = []

    # -- sessions ----------------------------------------------------------------------

    def open(
        self, revision: str, capabilities: dict[str, Any] | None = None, cap: int = 0
    ) -> Session:
        """A new session at ``revision`` (the client declared ``capabilities``), with a
        fresh random id; with ``cap`` sessions live already, the oldest ends (Rule 5)."""
        session = Session(uuid.uuid4().hex, revision, capabilities=dict(capabilities or {}))
        with self._lock:
            evicted = list(self._sessions.values())[: max(0, len(self._sessions) - cap + 1)]
            feeds = [f for s in evicted for f, _ in s.feeds] if cap else []
            for old in evicted if cap else ():
                old.ended = True
                del self._sessions[old.id]
                self._evicted[old.id] = None
            while len(self._evicted) > max(cap, 1):
                del self._evicted[next(iter(self._evicted))]
            self._sessions[session.id] = session
        for feed in feeds:
            _end(feed)
        return session

    def evicted(self, session_id: str) -> bool:
        """Whether ``session_id`` was ended by the session cap (lately: the newest ``cap``
        such ids are kept)."""
        with self._lock:
            return session_id in self._evicted

    def find(self, session_id: str) -> Session | None:
        """The live session ``session_id`` (None: unknown or ended)."""
        with self._lock:
            session = self._sessions.get(session_id)
            return None if session is None or session.ended else session

    def stateless(self) -> Session:
        """The one session of a mock without sessions (its streams still resume)."""
        return self._stateless

    def end(self, session_id: str | None = None) -> int:
        """End ``session_id`` (None: every session); returns how many ended.  Its next
        request gets 404, and its GET streams end."""
        with self._lock:
            ended = [
                s
                for s in self._sessions.values()
                if not s.ended and (session_id is None or s.id == session_id)
            ]
            feeds = [f for s in ended for f, _ in s.feeds]
            for s in ended:
                s.ended = True
                s.feeds.clear()
                del self._sessions[s.id]
        for feed in feeds:
            _end(feed)
        return len(ended)

    def session_ids(self) -> tuple[str, ...]:
        """The live sessions' ids, oldest first."""
        with self._lock:
            return tuple(s.id for s in self._sessions.values() if not s.ended)

    # -- streams -----------------------------------------------------------------------

    def stream(
        self,
        session: Session,
        messages: list[dict[str, Any] | None],
        resume: tuple[Any, ...] = (),
    ) -> int:
        """Keep ``messages`` as a new POST stream of ``session`` (its resumption to be cut
        by the faults ``resume``); returns its number."""
        with self._lock:
            number = len(session.streams)
            session.streams[number] = list(messages)
            if resume:
                session.resume[number] = resume
            return number

    def replay(self, session: Session, last_event_id: str) -> tuple[int, int] | None:
        """Where a stream resumes after ``last_event_id``: (stream, first index to send);
        None for an id this session never sent."""
        number, _, seq = last_event_id.partition("-")
        if not (number.isdigit() and seq.isdigit()):
            return None
        with self._lock:
            events = session.streams.get(int(number))
            if events is None or int(seq) >= len(events):
                return None
        return int(number), int(seq) + 1

    def events(self, session: Session, number: int, start: int) -> list[tuple[str, Any]]:
        """Stream ``number``'s events from index ``start``: (event id, message)."""
        with self._lock:
            events = session.streams[number][start:]
        return [(f"{number}-{start + i}", m) for i, m in enumerate(events)]

    def attach(self, session: Session, feed: Feed, start: int | None) -> None:
        """Make ``feed`` a GET stream of ``session``: it gets stream 0's messages from
        ``start`` (None: the ones no GET stream took yet), then each new one."""
        with self._lock:
            begin = session.sent if start is None else start
            backlog = session.streams[0][begin:]
            session.feeds.append((feed, begin))
            session.sent = max(session.sent, begin + len(backlog))
            for i, message in enumerate(backlog):  # under the lock: before any newer push
                feed.data(sse_event(f"0-{begin + i}", message).encode(), event=begin + i)

    def push(self, message: dict[str, Any], uri: str | None = None) -> int:
        """Put ``message`` on every live session's GET stream (the newest open one gets
        it; with none open it waits for the next GET); with ``uri``, only on the sessions
        subscribed to it.  Returns how many sessions got it."""
        with self._lock:
            sessions = [
                s
                for s in (*self._sessions.values(), self._stateless)
                if not s.ended and (uri is None or uri in s.subscriptions)
            ]
            for s in sessions:
                s.feeds = [(f, n) for f, n in s.feeds if not f.gone]
                s.streams[0].append(message)
                index = len(s.streams[0]) - 1
                if s.feeds:
                    s.feeds[-1][0].data(sse_event(f"0-{index}", message).encode(), event=index)
                    s.sent = index + 1
            return len(sessions)

    def listen(self, feed: Feed, id_: Any, wanted: dict[str, Any]) -> None:
        """A ``subscriptions/listen`` stream (revision 2026-07-28): ``feed`` gets the
        notifications ``wanted`` (the acknowledged filter), each tagged with ``id_``."""
        with self._lock:
            self._listeners = [t for t in self._listeners if not t[0].gone]
            self._listeners.append((feed, id_, wanted))

    def tell_listeners(self, method: str, params: dict[str, Any] | None = None) -> int:
        """Put a notification on each ``subscriptions/listen`` stream that asked for it;
        returns how many got it."""
        uri = (params or {}).get("uri")
        told = 0
        with self._lock:
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

    def subscribe(self, session: Session, uri: str, on: bool) -> None:
        """Subscribe ``session`` to ``uri`` (``on``) or unsubscribe it."""
        with self._lock:
            if on:
                session.subscriptions.add(uri)
            else:
                session.subscriptions.discard(uri)

    # -- asking the client (see _asking) -----------------------------------------------

    def converse(self, session: Session, number: int, feed: Feed, exchange: Exchange) -> None:
        """Send ``exchange``'s first request on stream ``number`` (fed by ``feed``)."""
        with self._lock:
            self._ask(_Talk(session, number, feed, exchange))

    def _ask(self, talk: _Talk) -> None:
        """Send ``talk``'s next request (under the lock)."""
        ask = talk.exchange.asks[len(talk.replies)]
        talk.session.asked += 1
        message = {"jsonrpc": "2.0", "id": talk.session.asked, **request_of(ask)}
        self._waiting[(talk.session.id, talk.session.asked)] = (talk, message)
        self._send(talk, message)

    def _send(self, talk: _Talk, message: dict[str, Any]) -> None:
        events = talk.session.streams[talk.number]
        events.append(message)
        if not talk.feed.gone:
            with contextlib.suppress(ConfigError):
                event = sse_event(f"{talk.number}-{len(events) - 1}", message)
                talk.feed.data(event.encode(), event=len(events) - 1)

    def reply(self, session: Session, message: dict[str, Any]) -> bool:
        """Take the client's response ``message``: keep it, then ask the next request or
        send the call's response and end its stream.  False: no request has its id."""
        id_ = message.get("id")
        with self._lock:
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
        with self._lock:
            self._cancelled.append(
                Cancelled(session.id, request_id, reason if isinstance(reason, str) else None)
            )
            found = [
                key
                for key, (talk, _) in self._waiting.items()
                if talk.session is session and talk.exchange.call_id == request_id
            ]
            talks = [self._waiting.pop(key)[0] for key in found]
        for talk in talks:
            _end(talk.feed)
        return bool(talks)

    def cancelled(self) -> tuple[Cancelled, ...]:
        """The client's cancellations, in order."""
        with self._lock:
            return tuple(self._cancelled)

    def answered(self, asked: dict[str, Any], message: dict[str, Any]) -> None:
        """Keep the client's answer ``message`` to ``asked`` (a request of an
        ``InputRequiredResult``, revision 2026-07-28: no session)."""
        with self._lock:
            self._responses.append(_record("", asked, message))

    def client_responses(self) -> tuple[ClientResponse, ...]:
        """The client's answers to the mock's requests, in order."""
        with self._lock:
            return tuple(self._responses)

    # -- scripts -----------------------------------------------------------------------

    def take(self, tool: str, candidates: tuple[int, ...]) -> int:
        """How many earlier calls of ``tool`` had these candidate answers (then counts
        this one)."""
        return self.count((tool, candidates))

    def count(self, key: tuple[Any, ...]) -> int:
        """How many times ``key`` was counted before (then counts this one)."""
        with self._lock:
            n = self._calls.get(key, 0)
            self._calls[key] = n + 1
            return n

    def reset(self) -> None:
        """Forget every session and script place."""
        self.end()
        with self._lock:
            self._sessions.clear()
            self._calls.clear()
            self._waiting.clear()
            self._responses.clear()
            self._evicted.clear()
            self._cancelled.clear()
            listeners, self._listeners = self._listeners, []
        for feed, _, _ in listeners:
            _end(feed)
        with self._lock:
            self._stateless = Session("", "")


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
