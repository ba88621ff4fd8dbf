"""A sans-I/O HTTP/1.1 server connection, in the manner of h11: fed bytes, gives events.

``Http1`` holds no socket, loop or clock.  ``feed(data)`` parses the bytes a client sent
(httptools, that is llhttp: the fast honest parser) and returns the events they
completed, in the order they came:

- ``Message``: a whole request: its head, its body (de-chunked) and its end in one
  event.  The server answers whole requests and a body is bounded (``MAX_BODY``), so
  the head, data and end of h11 are joined here: one object per request, not three.
- ``Continue``: the head of a request that asked for ``Expect: 100-continue`` (not from an
  HTTP/1.0 client) has ended and its body is awaited.  The caller sends
  ``100 Continue`` when the request is next in line (RFC 9110 §10.1.1), or not at all
  if the body comes first.
- ``Upgrade``: a ``Message`` that asks to switch protocols (``Connection: Upgrade`` with
  an ``Upgrade`` field, or ``CONNECT``).  The machine stops after it: what the client
  sends next is kept (``trailing``) until the caller either hands the connection to
  another protocol, with those bytes, or answers the request as HTTP/1.1 and calls
  ``resume()``, which returns them to be fed again.  An upgrade request with a body
  (curl's ``h2c`` upgrade of a POST) is not offered: llhttp would skip its body, so
  its head is parsed again without the ``Upgrade`` field and it comes as a ``Message``
  with its body.
- ``Known``: a request the caller's table of kept answers knows (``Http1(kept)``, the
  fast lane: ``_lane.py``): a request without a body, trailers or a field that names a
  test, whose ``Key`` (method, target, version, keep-alive) the table gives an answer
  for.  The event carries that answer and the header fields, and no ``Message`` is built.
- ``Bad``: a request that cannot be parsed, with the status to answer: 400 (malformed),
  431 (a head over ``MAX_HEAD``), 413 (a body over ``MAX_BODY``, a ``Content-Length``
  that promises one, or more than ``MAX_PIECES`` chunks), 408 (``expire()``: a head
  or body that did not arrive in time).  After it the machine reads nothing more.

Pipelined requests come as one event each, in order; how many wait for their replies,
and when reading pauses, is the caller's business (``_connection.py``).

Rule: a head counts against ``MAX_HEAD`` from its first byte, including a line that has
not ended yet (llhttp keeps a field until its line ends), so a line that never ends is
refused within ``MAX_HEAD`` and one read.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Protocol
from urllib.parse import urlsplit

import httptools

from .._core._request import Headers, Request

__all__ = [
    "MAX_BODY",
    "MAX_HEAD",
    "MAX_PIECES",
    "Bad",
    "Continue",
    "Event",
    "Http1",
    "KeptAnswers",
    "Key",
    "Known",
    "Message",
    "Upgrade",
    "request_of",
    "watch_test_header",
]

MAX_HEAD = 64 * 1024
MAX_BODY = 64 * 1024 * 1024
MAX_PIECES = 1 << 20  # pieces (chunks) one request body may come in
_METHODS = {m.encode(): m for m in ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")}
# the fields on_headers_complete reads (Content-Length, Expect, a test header), and those
# on_message_complete reads for an upgrade request with a body (Content-Length,
# Transfer-Encoding): by length first (a set: test headers are added, ``watch_test_header``)
_SPECIAL = {len("content-length"), len("expect"), len("transfer-encoding")}
# the names of the fields that name a request's test (per-test isolation: ``_tests``)
_TEST_NAMES: set[str] = set()


def watch_test_header(name: str) -> None:
    """Mark the requests with a field ``name`` (lower case) as ``tested``: a server of
    this process names tests by it (the lane answers none of them: ``_answer.serve``)."""
    _SPECIAL.add(len(name))
    _TEST_NAMES.add(name)


_HEAD_TOO_LARGE = f"request head is larger than {MAX_HEAD} bytes"
_BAD_TARGET = (
    "malformed request: the request target is not a valid URL "
    "(expected /path?query, or http://host/path)"
)
Fields = list[tuple[str, str]]
#: a request's method, target, HTTP version and keep-alive (a kept answer's key)
Key = tuple[str, str, str, bool]


class KeptAnswers(Protocol):
    """A table of kept answers (``_lane.Lane`` is one): the answer to a request of
    ``key`` that has no body, or None."""

    def get(self, key: Key) -> Any: ...


class Message(NamedTuple):
    """A whole request.  Its first four fields are the lane's key (``_lane.Key``)."""

    method: str  # upper case
    target: str  # as sent (latin-1)
    version: str  # "1.1" or "1.0"
    keep_alive: bool  # the connection stays open after the reply
    headers: Fields
    body: bytes
    trailers: Fields  # the fields after a chunked body (a shared empty list: none)
    tested: bool = False  # a field may name its test (``watch_test_header``): not the lane's


_NO_TRAILERS = Headers()
_new = tuple.__new__


def request_of(message: Message) -> Request:
    """The ``Request`` of ``message`` (what the mocks match and the journal keeps)."""
    trailers = message.trailers
    return Request(  # positional: keywords cost more on every request
        message.method,
        message.target,
        Headers(tuple(message.headers)),
        message.body,
        message.version,
        Headers(tuple(trailers)) if trailers else _NO_TRAILERS,
    )


class Upgrade(Message):
    """A request that asks to switch protocols; the machine waits after it (see module)."""

    __slots__ = ()


class Known(NamedTuple):
    """A request the table of kept answers knows (see module): no ``Message`` is built."""

    answer: Any  # what the table gave (``_lane.Hit``)
    headers: Fields
    keep_alive: bool


class Continue:
    """A head asked for ``100 Continue``; its body is awaited."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "Continue()"


CONTINUE = Continue()


class Bad:
    """A request that cannot be parsed: answer ``status`` with ``message`` and close."""

    __slots__ = ("message", "status")

    def __init__(self, status: int, message: str) -> None:
        self.status = status
        self.message = message

    def __repr__(self) -> str:
        return f"Bad({self.status}, {self.message!r})"


Event = Message | Known | Continue | Bad
_NONE: list[Event] = []  # what a feed that completes nothing returns (never appended to)
_NO_FIELDS: Fields = []  # (never appended to)


class _TooLarge(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class Http1:
    """One HTTP/1.1 connection's requests, parsed: bytes in, events out (see module).

    ``in_head`` and ``in_body`` say what is awaited (the caller's timeouts), ``progress``
    moves when a head begins or body bytes come, ``broken`` once a ``Bad`` was given, and
    ``trailing`` is None but after an ``Upgrade`` (then the bytes that followed it).
    """

    __slots__ = (
        "_body",
        "_events",
        "_first",
        "_head_seen",
        "_head_size",
        "_headers",
        "_pieces",
        "_special",
        "_tested",
        "_trailers",
        "_upgraded",
        "_url",
        "broken",
        "in_body",
        "in_head",
        "kept",
        "parser",
        "progress",
        "trailing",
    )

    def __init__(self, kept: KeptAnswers | None = None) -> None:
        self.parser = httptools.HttpRequestParser(self)
        # requests of a key this table knows come as ``Known`` (see module)
        self.kept = kept
        self._events: list[Event] = []
        self._url = b""
        self._headers: Fields = []
        self._first = b""  # the body's first piece (most bodies come in one)
        self._body = bytearray()  # the pieces of a body in several (no object per piece)
        self._pieces = 0
        self._head_seen = 0  # bytes fed while a head was unfinished (see feed)
        self._head_size = 0
        self._special = False  # a field name as long as one of _SPECIAL's came
        self._tested = False  # a field that names a test came (_TEST_NAMES)
        self._trailers: Fields = _NO_FIELDS
        # the head of an upgrade request with a body, parsed again (see _failed)
        self._upgraded: tuple[str, str, bytes, Fields] | None = None
        self.in_head = False  # between a request's first byte and the end of its head
        self.in_body = False  # between the end of a head and the end of its body
        self.broken = False
        self.progress = 0
        self.trailing: bytes | None = None

    # -- the caller's side ----------------------------------------------------------------

    def feed(self, data: bytes) -> list[Event]:
        """The events ``data`` completes (a list the caller may keep)."""
        if self.broken:
            return _NONE  # read and dropped until the close (see _connection's reject)
        if self.trailing is not None:  # waiting after an upgrade request
            self.trailing += data
            return _NONE
        # llhttp keeps a field's name and value until its line ends, before on_header can
        # count it: count here what arrives while a head is unfinished (the read in which
        # a head began is not counted: on_message_begin starts the count)
        if self.in_head:
            self._head_seen += len(data)
        try:
            self.parser.feed_data(data)
        except (_TooLarge, httptools.HttpParserUpgrade, httptools.HttpParserError) as exc:
            self._failed(exc, data)
        if self.in_head and self._head_seen > MAX_HEAD and not self.broken:
            self._bad(431, _HEAD_TOO_LARGE)
        events = self._events
        if events:
            self._events = []
            return events
        return _NONE

    def resume(self) -> bytes:
        """Go on as HTTP/1.1 after an ``Upgrade`` the server answered without switching:
        returns the bytes that came after it, to be fed again."""
        trailing = self.trailing or b""
        self.trailing = None
        return trailing

    def expire(self) -> Bad | None:
        """The caller's timeout for the awaited head or body has passed: the ``Bad`` (408)
        to answer, after which the machine reads nothing more; None when nothing was
        awaited (an idle connection: the caller closes it)."""
        if self.broken or not (self.in_head or self.in_body):
            return None
        what = "head" if self.in_head else "body"
        self.in_head = self.in_body = False
        self.broken = True
        return Bad(408, f"the request {what} did not arrive in time")

    # -- parsing --------------------------------------------------------------------------

    def _bad(self, status: int, message: str) -> None:
        self.broken = True
        self._events.append(Bad(status, message))

    def _failed(self, exc: Exception, data: bytes) -> None:
        """What parsing ``data`` raised: a request too large, an upgrade, a bad request."""
        if isinstance(exc, _TooLarge):
            self._bad(exc.status, str(exc))
        elif isinstance(exc, httptools.HttpParserUpgrade):
            self.parser = httptools.HttpRequestParser(self)
            rest = data[exc.args[0] :] if exc.args else b""
            if self._upgraded is None:  # the request was the last event: wait after it
                events = self._events
                last = events[-1]
                assert isinstance(last, Message)
                events[-1] = Upgrade(*last)
                self.trailing = rest
                return
            # llhttp ended an upgrade request with a body at its head: parse it again
            # without its Upgrade field, and with its body
            rest = self._replayed_head() + rest
            try:
                self.parser.feed_data(rest)
            except (_TooLarge, httptools.HttpParserUpgrade, httptools.HttpParserError) as again:
                self._failed(again, rest)
        else:
            # httptools wraps exceptions raised in callbacks; ours says what was too large
            cause = exc.__context__
            if isinstance(cause, _TooLarge):
                self._bad(cause.status, str(cause))
            elif isinstance(cause, ValueError):  # the URL parser's (a bad absolute target)
                self._bad(400, _BAD_TARGET)
            else:
                self._bad(400, f"malformed request: {exc}")

    def _replayed_head(self) -> bytes:
        """The head of the upgrade request that had a body, without its Upgrade field."""
        assert self._upgraded is not None
        method, version, url, headers = self._upgraded
        lines = [f"{method} ".encode("latin-1") + url + f" HTTP/{version}".encode("latin-1")]
        lines.extend(
            f"{name}: {value}".encode("latin-1")
            for name, value in headers
            if name.lower() != "upgrade"
        )
        return b"\r\n".join(lines) + b"\r\n\r\n"

    # -- parser callbacks (httptools) -----------------------------------------------------

    def on_message_begin(self) -> None:
        self._url = b""
        self._headers = []
        if self._pieces:  # what a body left (on_body counts a piece first)
            self._first = b""
            self._body.clear()
            self._pieces = 0
        if self._special:
            self._special = False
            self._tested = False
        self._head_seen = 0
        if self._trailers:
            self._trailers = _NO_FIELDS
        self._head_size = 0
        self.in_head = True
        self.progress += 1

    def on_url(self, url: bytes) -> None:
        self._url += url
        self._head_size += len(url)
        if self._head_size > MAX_HEAD:
            raise _TooLarge(431, _HEAD_TOO_LARGE)

    def on_header(self, name: bytes, value: bytes) -> None:
        if self.in_body:  # after the body: a trailer field, not a header
            if not self._trailers:
                self._trailers = []
            self._trailers.append((name.decode("latin-1"), value.decode("latin-1")))
        else:
            self._headers.append((name.decode("latin-1"), value.decode("latin-1")))
            if len(name) in _SPECIAL:  # perhaps Content-Length or Expect (see below)
                self._special = True
        self._head_size += len(name) + len(value) + 4
        if self._head_size > MAX_HEAD:
            raise _TooLarge(431, _HEAD_TOO_LARGE)

    def on_headers_complete(self) -> None:
        self.in_head = False
        self.in_body = True
        if not self._special:
            return
        expect = False
        for name, value in self._headers:
            lower = name.lower()
            if lower == "content-length" and value.strip().isdigit():
                if int(value) > MAX_BODY:  # refused before the body (or a 100) is sent
                    raise _TooLarge(413, f"request body is larger than {MAX_BODY} bytes")
            elif lower == "expect" and value.lower() == "100-continue":
                expect = True
            elif lower in _TEST_NAMES:
                self._tested = True
        if expect and self.parser.get_http_version() != "1.0":
            self._events.append(CONTINUE)

    def on_body(self, body: bytes) -> None:
        self.progress += 1  # the caller's timeout counts from the last body bytes
        self._pieces += 1  # (first: on_message_begin resets the body only after a piece)
        if self._pieces == 1:
            if len(body) > MAX_BODY:
                raise _TooLarge(413, f"request body is larger than {MAX_BODY} bytes")
            self._first = body
            return
        if self._pieces > MAX_PIECES:  # each piece is a call from the parser: bounded CPU
            raise _TooLarge(413, f"request body comes in more than {MAX_PIECES} chunks")
        if self._pieces == 2:
            self._body += self._first
            self._first = b""
        if len(self._body) + len(body) > MAX_BODY:
            raise _TooLarge(413, f"request body is larger than {MAX_BODY} bytes")
        self._body += body

    def on_message_complete(self) -> None:
        self.in_body = False
        parser = self.parser
        raw = parser.get_method()
        method = _METHODS.get(raw) or raw.decode("ascii", "replace").upper()
        version = parser.get_http_version()
        url = self._url
        target = url.decode("latin-1")
        if url[0] != 0x2F:  # not "/": an absolute target (origin-form has no host to be bad)
            urlsplit(target)  # a ValueError stops the parser: a 400 (see _failed)
        headers = self._headers
        if self._upgraded is not None:  # the replayed head of an upgrade request
            headers = self._upgraded[3]
            self._upgraded = None
        elif self._special and parser.should_upgrade() and _has_body(headers):
            # llhttp skipped the body: parse the request again (see _failed)
            self._upgraded = (method, version, url, headers)
            return
        keep_alive = bool(parser.should_keep_alive()) and version != "1.0"
        kept = self.kept
        if kept is not None and not self._pieces and not self._trailers and not self._tested:
            answer = kept.get((method, target, version, keep_alive))
            if answer is not None and not parser.should_upgrade():
                self._events.append(_new(Known, (answer, headers, keep_alive)))
                return
        if not self._pieces:
            body = b""
        elif self._pieces == 1:
            body = self._first
            self._first = b""
        else:
            body = bytes(self._body)
            self._body.clear()  # the pieces go now, not when the next request begins
        self._events.append(
            _new(  # Message(...) without its Python __new__: every request
                Message,
                (
                    method,
                    target,
                    version,
                    keep_alive,
                    headers,
                    body,
                    self._trailers,
                    self._tested,
                ),
            )
        )


def _has_body(headers: Fields) -> bool:
    """A Content-Length over 0 or a Transfer-Encoding (the request has a body)."""
    for name, value in headers:
        lower = name.lower()
        if lower == "transfer-encoding" or (
            lower == "content-length" and value.strip() not in ("", "0")
        ):
            return True
    return False
