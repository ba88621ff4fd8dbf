"""Replies: what a mock sends, compiled to a plan of steps.

``ok()`` and ``status(code)`` start a reply; ``.header``, ``.body``, ``.json``,
``.event_stream`` and ``.delay`` return a new reply, so a base reply can be shared.
"""

from __future__ import annotations

import dataclasses
import re
import traceback
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

from ._errors import ConfigError
from ._plan import Data, End, Fault, Head, Pause, Step
from ._sse import Event, LineEnding, dumps_compact
from ._units import Duration, seconds

__all__ = ["EventStream", "Reply", "error_reply", "ok", "status"]

_TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")
_LINE_ENDINGS = ("\n", "\r\n", "\r")


def _latin1(text: str) -> bool:
    try:
        text.encode("latin-1")
    except UnicodeEncodeError:
        return False
    return True


def _reason(code: int) -> str:
    try:
        return HTTPStatus(code).phrase
    except ValueError:
        return "Unknown"


def _checked_header(pair: tuple[str, str | int]) -> tuple[str, str]:
    """``(name, value)`` as sent, or the ``ConfigError`` of a header that cannot be."""
    name, value = pair
    if not isinstance(name, str) or not _TOKEN.match(name):
        raise ConfigError(f"header name={name!r} must be an HTTP token such as 'Retry-After'")
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise ConfigError(f"header {name!r} value={value!r} must be text or an int")
    text = str(value)
    if any(c in text for c in "\r\n\0"):
        raise ConfigError(f"header {name!r} value={text!r} must not contain CR, LF or NUL")
    if not text.isascii() and not _latin1(text):
        raise ConfigError(
            f"header {name!r} value={text!r} cannot be sent: header bytes are latin-1 "
            "(encode other text, e.g. percent-encoding or RFC 8187)"
        )
    return (name, text)


@dataclass(frozen=True, slots=True)
class EventStream:
    """An event stream's events, already encoded, and its timing.

    ``encoded[i]`` is event i's bytes; ``delays[i]`` the pause before it.  ``repeat`` is how
    many times the events are sent (None: until the client hangs up).  A ``resumable``
    stream's events all have ids, and :meth:`after` gives the rest of it after one;
    ``retry`` (milliseconds) is sent as a ``retry:`` field at the start of every reply.
    """

    events: tuple[Event, ...]
    encoded: tuple[bytes, ...]
    delays: tuple[float, ...]
    event_delay: float
    first_event_delay: float
    repeat: int | None
    line_ending: LineEnding
    space: bool
    resumable: bool = False
    retry: int | None = None

    def steps(self) -> Iterator[Step]:
        """Data and Pause steps, in order; endless when ``repeat`` is None."""
        if self.retry is not None:  # a block with no data: clients dispatch no event
            end = self.line_ending
            yield Data(f"retry{': ' if self.space else ':'}{self.retry}{end}{end}".encode())
        index = 0
        rounds = 0
        while self.repeat is None or rounds < self.repeat:
            for i, data in enumerate(self.encoded):
                pause = self.delays[i] if (index == 0 or i > 0) else self._between(0)
                if pause:
                    yield Pause(pause)
                yield Data(data, index)
                index += 1
            rounds += 1
            if not self.encoded:
                return

    def _between(self, i: int) -> float:
        delay = self.events[i].delay
        return self.event_delay if delay is None else delay

    @property
    def ids(self) -> tuple[str | None, ...]:
        """Each event's ``id``."""
        return tuple(e.id for e in self.events)

    def after(self, last_event_id: str) -> EventStream:
        """The stream a client that saw the event with ``last_event_id`` is sent on
        reconnecting: the events after it (the whole stream for an id it does not have;
        the first of the rest waits ``first_event_delay``)."""
        ids = self.ids
        if last_event_id not in ids:
            return self
        start = ids.index(last_event_id) + 1
        delays = self.delays[start:]
        if delays and self.events[start].delay is None:
            delays = (self.first_event_delay, *delays[1:])
        return dataclasses.replace(
            self, events=self.events[start:], encoded=self.encoded[start:], delays=delays
        )


def _numbered(events: tuple[Event, ...]) -> tuple[Event, ...]:
    """The events of a resumable stream: those without an ``id`` get their position
    (``"1"``, ``"2"``, ...)."""
    return tuple(
        e if e.id is not None else dataclasses.replace(e, id=str(i))
        for i, e in enumerate(events, 1)
    )


@dataclass(frozen=True, slots=True)
class Reply:
    """An HTTP reply: status, headers, then a body or an event stream.

    Build one with :func:`ok` or :func:`status`; every method returns a new ``Reply``.
    """

    status_code: int = 200
    reason: str = "OK"
    headers: tuple[tuple[str, str], ...] = ()
    content: bytes = b""
    stream: EventStream | None = None
    head_delay: float = 0.0
    faults: tuple[Fault, ...] = ()

    def header(self, name: str, value: str | int) -> Reply:
        """Add a header (repeat the call to send a name several times).

        Raises:
            ConfigError: the name is not an HTTP token, or the value holds CR, LF or NUL.
        """
        return self._add_headers(((name, value),))

    def headers_from(self, headers: Mapping[str, str | int]) -> Reply:
        """Add every header of a mapping."""
        return self._add_headers(headers.items())

    def _add_headers(self, pairs: Iterable[tuple[str, str | int]]) -> Reply:
        """Add each (name, value) of ``pairs``, in order, checked as :meth:`header` does,
        in one new ``Reply``."""
        return dataclasses.replace(self, headers=(*self.headers, *map(_checked_header, pairs)))

    def body(self, content: bytes | str) -> Reply:
        """Send ``content`` as the body (text is sent as UTF-8), with a Content-Length."""
        if isinstance(content, str):
            content = content.encode("utf-8")
        elif not isinstance(content, bytes):
            raise ConfigError(f"body content={content!r} must be bytes or text")
        return dataclasses.replace(self, content=content, stream=None)

    def json(self, value: Any) -> Reply:
        """Send ``value`` as compact JSON, with ``Content-Type: application/json``."""
        try:
            text = dumps_compact(value)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"json value={value!r} is not JSON-serialisable: {exc}") from None
        reply = (
            self if self._has("content-type") else self.header("Content-Type", "application/json")
        )
        return reply.body(text)

    def event_stream(
        self,
        *events: Event,
        event_delay: Duration = 0.0,
        first_event_delay: Duration = 0.0,
        repeat: int | bool = 1,
        line_ending: LineEnding = "\n",
        space: bool = True,
        resumable: bool = False,
        retry: int | None = None,
    ) -> Reply:
        """Send ``events`` as a ``text/event-stream``, each written and flushed in its turn.

        Args:
            events: the events, in order.
            event_delay: pause between events (an event's own ``delay`` replaces it).
            first_event_delay: pause between the headers and the first event.
            repeat: how many times to send the events; ``True`` repeats them until the
                client hangs up (a heartbeat: ``Event(comment="ping"), event_delay=1``).
            line_ending: ``"\\n"`` (default), ``"\\r\\n"`` or ``"\\r"``.
            space: a space after each field's colon (``data: x``); False gives ``data:x``.
            resumable: a client that reconnects with ``Last-Event-ID: K`` is sent the
                events after K (events without an ``id`` are numbered ``"1"``, ``"2"``, ...
                by position); ``mock.assert_resumed()`` checks the reconnects.
            retry: milliseconds, sent as ``retry:`` at the start of every reply (the
                wait a client should leave before reconnecting).

        The reply gets ``Content-Type: text/event-stream`` and ``Cache-Control: no-cache``
        unless it already has those headers, and is sent with chunked transfer coding.

        Raises:
            ConfigError: an argument that is not an Event, a bad delay, line ending, repeat
                or retry, a resumable stream that repeats or has an id twice.
        """
        for i, event in enumerate(events):
            if not isinstance(event, Event):
                raise ConfigError(f"event_stream() events[{i}]={event!r} must be an Event")
        if resumable:
            events = _resumable(events, repeat)
        if retry is not None and (type(retry) is not int or retry < 0):
            raise ConfigError(f"retry={retry!r} must be a non-negative int (milliseconds)")
        if line_ending not in _LINE_ENDINGS:
            raise ConfigError(f"line_ending={line_ending!r} must be one of '\\n', '\\r\\n', '\\r'")
        if repeat is True:
            rounds: int | None = None
        elif isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1:
            raise ConfigError(f"repeat={repeat!r} must be a positive int, or True for endless")
        else:
            rounds = repeat
        between = seconds(event_delay, "event_delay")
        first = seconds(first_event_delay, "first_event_delay")
        delays = tuple(
            (first if i == 0 else between) if e.delay is None else e.delay
            for i, e in enumerate(events)
        )
        stream = EventStream(
            events=tuple(events),
            encoded=tuple(e.encode(line_ending, space) for e in events),
            delays=delays,
            event_delay=between,
            first_event_delay=first,
            repeat=rounds,
            line_ending=line_ending,
            space=bool(space),
            resumable=bool(resumable),
            retry=retry,
        )
        return dataclasses.replace(self, stream=stream, content=b"")

    def delay(self, value: Duration) -> Reply:
        """Wait ``value`` before sending the status line."""
        return dataclasses.replace(self, head_delay=seconds(value, "delay"))

    def pipe(self, *faults: Fault) -> Reply:
        """Apply ``faults`` to this reply alone, before the mock's own: how a reply kind
        aims a fault at one answer (``mcp``: the faults of one JSON-RPC method)."""
        return dataclasses.replace(self, faults=(*self.faults, *faults))

    def _has(self, name: str) -> bool:
        lower = name.lower()
        return any(k.lower() == lower for k, _ in self.headers)

    def head(self) -> Head:
        """The ``Head`` step this reply starts with."""
        headers = self.headers
        if self.stream is not None:
            defaults = [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")]
            headers = tuple(d for d in defaults if not self._has(d[0])) + headers
            return Head(self.status_code, self.reason, headers, None)
        return Head(self.status_code, self.reason, headers, len(self.content))

    def plan(self) -> Iterator[Step]:
        """The body plan: an optional pause, the head, the body or events, the end."""
        if self.head_delay:
            yield Pause(self.head_delay)
        yield self.head()
        if self.stream is not None:
            yield from self.stream.steps()
        elif self.content:
            yield Data(self.content)
        yield End("complete")

    def describe(self) -> str:
        """A short summary, e.g. ``200 event stream (4 events)``."""
        if self.stream is not None:
            return f"{self.status_code} event stream ({len(self.stream.events)} events)"
        return f"{self.status_code} body ({len(self.content)} bytes)"


def _resumable(events: tuple[Event, ...], repeat: int | bool) -> tuple[Event, ...]:
    """The events of a resumable stream, numbered; refused when ids would be ambiguous."""
    if repeat is True or (type(repeat) is int and repeat > 1):
        raise ConfigError(
            f"resumable=True with repeat={repeat!r}: a resumed stream must know which "
            "event an id names, so it cannot repeat"
        )
    numbered = _numbered(events)
    seen: set[str | None] = set()
    for i, event in enumerate(numbered):
        if event.id in seen:
            raise ConfigError(
                f"event_stream() events[{i}] id={event.id!r} is used twice: a resumable "
                "stream needs an id per event"
            )
        seen.add(event.id)
    return numbered


def status(code: int, reason: str | None = None) -> Reply:
    """A reply with status ``code`` (and its standard reason phrase unless ``reason``).

    Raises:
        ConfigError: ``code`` is not an int from 100 to 999.
    """
    if isinstance(code, bool) or not isinstance(code, int) or not 100 <= code <= 999:
        raise ConfigError(f"status code={code!r} must be an int from 100 to 999")
    if reason is not None and (
        not isinstance(reason, str) or any(c in reason for c in "\r\n") or not _latin1(reason)
    ):
        raise ConfigError(f"status reason={reason!r} must be one line of latin-1 text")
    return Reply(status_code=code, reason=_reason(code) if reason is None else reason)


def ok() -> Reply:
    """A ``200 OK`` reply."""
    return Reply()


def error_reply(exc: BaseException) -> Reply:
    """A 500 for errors raised while producing a reply: the exception's type and message,
    never its traceback (that stays with the server: ``server.check()`` raises it)."""
    text = (
        f"mockhttp could not produce this reply: "
        f"{''.join(traceback.format_exception_only(exc)).strip()}\n"
        "(server.check() raises the error with its traceback)\n"
    )
    return status(500).header("Content-Type", "text/plain; charset=utf-8").body(text)
