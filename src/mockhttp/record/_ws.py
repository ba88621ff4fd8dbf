"""Recording a WebSocket session through the proxy, replayed as a ``websocket:`` mock.

An upgrade request to the recorder (``Upgrade: websocket``) is relayed: :class:`Relay`
opens the same target on the upstream's WebSocket on the proxy's loop (``wsproto``, client
side, ``ws://`` for an ``http://`` upstream, ``wss://`` for ``https://``), offering the
client's subprotocols, and answers the client as the upstream answered (the upgrade seam's
``Handshake``): its ``101`` with the subprotocol the upstream chose, or its refusal
(status, headers, body).  Then it reads the client's frames (``wsproto``, server side),
writes them upstream, and the upstream's frames back.  Every message both ways is kept
with its time; when either side closes, :func:`to_script` turns the session into a
script, frame for frame:

- a server message → ``send`` with ``after`` = the time since the frame before it;
- a client message → ``expect``: a JSON event's ``type`` (``json_path $.type``), a JSON
  message's one field (Gemini Live's ``setup``, ``clientContent``...: that field exists),
  else any message;
- the server's close → ``close`` with its code and reason; the upstream dropping the connection →
  ``drop``.

Rule 1: the upgrade request's secrets go upstream and nowhere else: the recorded mock
matches on method and path only, and every message is redacted with the request's secrets
(``_core._redact``, the one rule: a key in a subprotocol, ``openai-insecure-api-key.<key>``,
included) before it is kept.  The chosen subprotocol is kept (redacted) as the mock's
``subprotocol``, so the replay chooses it too.
Rule 2: an upgrade the upstream refuses (``401`` with its error JSON, ``403``, ``426``...)
gets the upstream's refusal, relayed as it came, and the refusal is recorded
(:func:`refusal_mock`): matched as a session is (an upgrade of the same path), it answers
with the same status, headers and body, written and redacted as the recorder writes an
HTTP reply (``_exchange.to_mock``: no hop-by-hop header, secret headers ``REDACTED``, the
request's secrets replaced in the body).  A refusal the client never got (it had gone, or
had its ``504`` already) is not recorded.
Rule 3: what is the proxy's own answer is not recorded: an upstream that cannot be reached
is answered ``502`` (saying why), one that does not answer the upgrade within ``timeout``
``504``, one that answers out of protocol ``502``; the next upgrade goes upstream again.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import ssl
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from wsproto import ConnectionType, WSConnection
from wsproto.connection import Connection
from wsproto.events import (
    AcceptConnection,
    BytesMessage,
    CloseConnection,
    Event,
    Message,
    Ping,
    RejectConnection,
    RejectData,
    TextMessage,
)
from wsproto.events import Request as WsRequest
from wsproto.utilities import LocalProtocolError, RemoteProtocolError

from .._core._match import exists, json_path, regex
from .._core._mock import Mock, request
from .._core._redact import Redactor
from .._core._reply import Reply, status
from .._core._request import Request
from .._server._upgrade import Handshake
from ..ws._faults import Drop
from ..ws._kind import WebSocket
from ..ws._script import Close, Expect, Send, Step
from ._exchange import Exchange, to_mock
from ._pieces import Write

__all__ = ["Kept", "Refused", "Relay", "offered", "refusal_mock", "to_script", "websocket_mock"]

_HOP = frozenset(
    {"host", "upgrade", "connection", "sec-websocket-key", "sec-websocket-version",
     "sec-websocket-extensions", "sec-websocket-accept", "content-length",
     "sec-websocket-protocol"}  # (offered as wsproto's subprotocols: it checks the choice)
)  # fmt: skip
#: Headers of an upstream's refusal not passed to the client (it is framed anew).
_REFUSAL_HOP = frozenset({"connection", "content-length", "transfer-encoding", "keep-alive"})
REFUSAL_BODY = 64 * 1024  # the bytes of an upstream's refusal body relayed
MAX_EARLY = 1024 * 1024  # bytes held of a client that sends before its 101


@dataclass(frozen=True, slots=True)
class Kept:
    """A message of the session: ``sender`` (``server``/``client``), its data, when; a
    close's ``code`` (``kind`` ``close``), or the upstream's drop (``kind`` ``drop``)."""

    sender: str
    kind: str
    data: str | bytes
    at: float
    code: int | None = None


@dataclass(frozen=True, slots=True)
class Refused:
    """The upstream's refusal of an upgrade as the client got it: its status, its headers
    (as they came, framing ones included) and its body (the first ``REFUSAL_BODY`` bytes)."""

    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes


def _expectation(message: str | bytes) -> Expect:
    try:
        value = json.loads(message)
    except (ValueError, UnicodeDecodeError):
        value = None
    if isinstance(value, dict) and isinstance(value.get("type"), str):
        return Expect(json_path("$.type", value["type"]))
    if isinstance(value, dict) and len(value) == 1:
        (key,) = value
        if isinstance(key, str) and key.isidentifier():
            return Expect(json_path(f"$.{key}", exists()))
    return Expect(regex(""))


def to_script(kept: list[Kept]) -> list[Step]:
    """The session as a script, frame for frame (see the module's docstring)."""
    steps: list[Step] = []
    before = 0.0
    for k in kept:
        gap = round(max(0.0, k.at - before), 3)
        before = k.at
        if k.sender == "client":
            if k.kind in ("text", "binary"):
                steps.append(_expectation(k.data))
            continue
        if k.kind in ("text", "binary"):
            steps.append(Send(k.data, gap))
        elif k.kind == "close":
            steps.append(_close(k))
            break
        elif k.kind == "drop":
            steps.append(Drop())
            break
    return steps


def _close(kept: Kept) -> Close:
    """The upstream's close, its code and reason (a code no frame may carry: 1000, no reason)."""
    if not kept.code or kept.code in (1005, 1006):
        return Close(1000)
    reason = kept.data if isinstance(kept.data, str) else ""
    while len(reason.encode()) > 123:  # redaction may lengthen it past a frame's room
        reason = reason[:-1]
    return Close(int(kept.code), reason)


def websocket_mock(
    req: Request, kept: list[Kept], name: str | None = None, subprotocol: str | None = None
) -> Mock:
    """A mock that replays ``kept`` to an upgrade of ``req``'s path (method and path only),
    choosing ``subprotocol`` when the client offers it."""
    endpoint = WebSocket(to_script(kept), subprotocol=subprotocol)
    return request("GET", req.path, name=name).reply(endpoint)


def refusal_mock(
    req: Request, refused: Refused, name: str | None = None, redact: tuple[str, ...] = ()
) -> Mock:
    """A mock that answers an upgrade of ``req``'s path (method and path, as
    :func:`websocket_mock`, and ``Upgrade: websocket``: a plain ``GET`` is not answered)
    with ``refused``, written and redacted as the recorder writes an HTTP reply (Rule 2)."""
    body = refused.body
    writes = (Write(0.0, body),) if body else ()
    reason = status(refused.status).reason  # the one the client got (wsproto keeps none)
    exchange = Exchange(req, refused.status, reason, refused.headers, 0.0, writes, len(body))
    mock = to_mock(exchange, redact=redact, name=name)
    return mock.header("upgrade", regex(r"(?i)\bwebsocket\b"))


def offered(req: Request) -> list[str]:
    """The subprotocols an upgrade request offers, in order (every header line of them;
    what is not a token is no protocol)."""
    values = [v for n, v in req.headers.items_list if n.lower() == "sec-websocket-protocol"]
    return [p.strip() for v in values for p in v.split(",") if _TOKEN.match(p.strip())]


def refusal(code: int, headers: Iterable[tuple[str, str]], body: bytes) -> Reply:
    """The upstream's refusal of an upgrade as the client gets it (framed anew, closing)."""
    reply = status(code)
    for name, value in headers:
        if name.lower() not in _REFUSAL_HOP:
            reply = reply.header(name, value)
    return reply.body(body)


_TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")  # RFC 9110 §5.6.2


def _gateway(code: int, upstream: str, what: str) -> Reply:
    """The proxy's own answer to an upgrade its upstream did not answer (502, 504)."""
    text = status(code).header("Content-Type", "text/plain; charset=utf-8")
    return text.body(f"mockhttp: the upstream {upstream} {what}\n")


@dataclass(eq=False)
class Relay(asyncio.Protocol):
    """The client's side of a relayed session (the transport after the proxy's 101)."""

    upstream: str  # the upstream's base URL (http:// or https://)
    req: Request
    on_end: Callable[[Relay], None]
    handshake: Handshake  # how the client's upgrade is answered, once the upstream has
    verify: ssl.SSLContext | None = None
    redact: tuple[str, ...] = ()  # more header names whose values are secrets
    timeout: float = 10.0  # seconds for the upstream to connect and answer the upgrade
    kept: list[Kept] = field(default_factory=list)
    reached: bool = False  # the upstream accepted the upgrade
    subprotocol: str | None = None  # the one the upstream chose
    failure: str = ""  # why the upstream never accepted (Rules 2, 3), as logged
    refused: Refused | None = None  # the upstream's refusal, once the client has it (Rule 2)

    def __post_init__(self) -> None:
        self._client = Connection(ConnectionType.SERVER)
        self._began = time.monotonic()
        self._redactor = Redactor.of_request(self.req, names=self.redact)
        self._transport: asyncio.Transport | None = None
        self._up: _Upstream | None = None
        self._early = bytearray()  # what the client sent before its upgrade was answered
        self._ended = False
        self._parts: list[Any] = []
        self._waiting: asyncio.TimerHandle | None = None  # the upstream's answer's deadline

    def keep(self, sender: str, kind: str, data: str | bytes, code: int | None = None) -> None:
        shown: str | bytes = self._redactor.text(data) if isinstance(data, str) else data
        number = None if code is None else int(code)  # (wsproto's CloseReason: no file form)
        at = round(time.monotonic() - self._began, 6)
        self.kept.append(Kept(sender, kind, shown, at, number))

    # -- the client's side ------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport  # type: ignore[assignment]
        loop = asyncio.get_running_loop()
        self._opening = loop.create_task(self._open())
        self._waiting = loop.call_later(self.timeout, self._too_slow)

    def _answered(self) -> None:
        if self._waiting is not None:
            self._waiting.cancel()

    async def _open(self) -> None:
        parts = urlsplit(self.upstream)
        tls = parts.scheme == "https"
        port = parts.port or (443 if tls else 80)
        context = (self.verify or ssl.create_default_context()) if tls else None
        loop = asyncio.get_running_loop()
        try:
            _t, up = await loop.create_connection(
                lambda: _Upstream(self), parts.hostname or "", port, ssl=context
            )
        except (OSError, ssl.SSLError) as exc:
            self.refuse(502, f"is unreachable ({exc})")
            return
        if self._transport is None or self.handshake.answered:  # gone, or too slow
            up.close()
            return
        self._up = up
        base = parts.path.rstrip("/")
        headers = [(n, v) for n, v in self.req.headers.items() if n.lower() not in _HOP]
        up.start(parts.netloc, base + self.req.target, headers, offered(self.req))

    def _too_slow(self) -> None:
        self.refuse(504, f"did not answer the upgrade within {self.timeout:g} s")

    def refuse(self, code: int, what: str, reply: Reply | None = None) -> bool:
        """Rules 2, 3: the client gets ``reply`` for its upgrade (None: the proxy's ``code``
        saying the upstream ``what``); the upstream is let go; ``what`` is logged.  False
        when the client had its answer already, or has gone."""
        self._answered()
        if self.handshake.answered:
            return False
        self.failure = what
        sent = self.handshake.refuse(reply or _gateway(code, self.upstream, what))
        if self._up is not None:
            self._up.close()
        return sent

    def upstream_refused(self, refused: Refused) -> None:
        """Rule 2: the upstream refused the upgrade: relayed, and kept once the client has it."""
        reply = refusal(refused.status, refused.headers, refused.body)
        if self.refuse(refused.status, f"refused the upgrade ({refused.status})", reply):
            self.refused = refused

    def upstream_open(self, subprotocol: str | None) -> None:
        self._answered()
        chosen = [] if subprotocol is None else [("Sec-WebSocket-Protocol", subprotocol)]
        if not self.handshake.accept(chosen):  # the client has gone (or 504 was sent)
            if self._up is not None:
                self._up.close()
            return
        self.reached = True
        self.subprotocol = subprotocol
        early, self._early = bytes(self._early), bytearray()
        if early:
            self.data_received(early)

    def data_received(self, data: bytes) -> None:
        if not self.reached:  # a client sends frames only after the 101: held till then
            if len(self._early) < MAX_EARLY:
                self._early += data
            return
        self._client.receive_data(data)
        self._drain()

    def eof_received(self) -> bool | None:
        if self.reached:
            self._client.receive_data(None)
            self._drain()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self._transport = None
        self._answered()
        self.handshake.gone()
        if not self.reached and not self.failure:
            self.failure = "had not answered when the client went away"
        if self._up is not None:
            self._up.close()
        self._end()

    def _drain(self) -> None:
        try:
            events = list(self._client.events())
        except LocalProtocolError:
            events = []
        for event in events:
            if isinstance(event, Message):
                self._parts.append(event.data)
                if not event.message_finished:
                    continue
                is_text = isinstance(event, TextMessage)
                whole = "".join(self._parts) if is_text else b"".join(self._parts)
                self._parts = []
                self.keep("client", "text" if is_text else "binary", whole)
                event = TextMessage(whole) if isinstance(whole, str) else BytesMessage(whole)
            elif isinstance(event, Ping):
                self._write_client(event.response())
                continue
            elif isinstance(event, CloseConnection):
                self.keep("client", "close", event.reason or "", event.code)
                if self._client.state.name == "REMOTE_CLOSING":
                    self._write_client(event.response())
                self._close_transport()
            else:
                continue
            self._to_upstream(event)

    def _to_upstream(self, event: Event) -> None:
        if self._up is not None:
            self._up.send(event)

    # -- the upstream's frames, to the client -------------------------------------------------

    def from_upstream(self, message: str | bytes) -> None:
        self.keep("server", "text" if isinstance(message, str) else "binary", message)
        self._write_client(
            TextMessage(message) if isinstance(message, str) else BytesMessage(message)
        )

    def upstream_closed(self, code: int | None, reason: str) -> None:
        if code is None:
            self.keep("server", "drop", b"")
            self._close_transport()
        else:
            self.keep("server", "close", reason, code)
            self.close_client(code, reason)

    def close_client(self, code: int, reason: str) -> None:
        self._write_client(CloseConnection(code=code, reason=reason or None))
        loop = asyncio.get_running_loop()
        loop.call_later(2.0, self._close_transport)

    def _write_client(self, event: Event) -> None:
        if self._transport is None or self._transport.is_closing():
            return
        with contextlib.suppress(LocalProtocolError):
            self._transport.write(self._client.send(event))

    def _close_transport(self) -> None:
        if self._transport is not None and not self._transport.is_closing():
            self._transport.close()

    def _end(self) -> None:
        if not self._ended:
            self._ended = True
            self.on_end(self)


class _Upstream(asyncio.Protocol):
    """The upstream's side: a wsproto client connection on the proxy's loop."""

    def __init__(self, relay: Relay) -> None:
        self.relay = relay
        self.ws = WSConnection(ConnectionType.CLIENT)
        self.transport: asyncio.Transport | None = None
        self.parts: list[Any] = []
        self.closed_seen = False
        self.refused: tuple[int, tuple[tuple[str, str], ...]] | None = None
        self.body = bytearray()  # of a refusal

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def start(
        self, host: str, target: str, headers: list[tuple[str, str]], subprotocols: list[str]
    ) -> None:
        extra = [(n.encode(), v.encode()) for n, v in headers]
        self._write(
            WsRequest(host=host, target=target, extra_headers=extra, subprotocols=subprotocols)
        )

    def send(self, event: Event) -> None:
        self._write(event)

    def _write(self, event: Event) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        with contextlib.suppress(LocalProtocolError):
            self.transport.write(self.ws.send(event))

    def data_received(self, data: bytes) -> None:
        try:
            self.ws.receive_data(data)
            for event in self.ws.events():
                self._event(event)
        except RemoteProtocolError as exc:  # e.g. a subprotocol the client never offered
            self.closed_seen = True
            if self.relay.reached:
                self.relay.close_client(1002, "the upstream broke the protocol")
            else:
                self.relay.refuse(502, f"answered the upgrade out of protocol ({exc})")
            self.close()

    def _refused(self) -> None:
        assert self.refused is not None
        code, headers = self.refused
        self.closed_seen = True
        self.relay.upstream_refused(Refused(code, headers, bytes(self.body[:REFUSAL_BODY])))
        self.close()

    def _event(self, event: Event) -> None:
        if isinstance(event, AcceptConnection):
            self.relay.upstream_open(event.subprotocol)
        elif isinstance(event, RejectConnection):
            raw = ((n.decode("latin-1"), v.decode("latin-1")) for n, v in event.headers)
            self.refused = (event.status_code, tuple(raw))
            if not event.has_body:
                self._refused()
        elif isinstance(event, RejectData):
            if len(self.body) < REFUSAL_BODY:
                self.body += event.data
            if event.body_finished:
                self._refused()
        elif isinstance(event, Message):
            self.parts.append(event.data)
            if event.message_finished:
                text = isinstance(event, TextMessage)
                whole = "".join(self.parts) if text else b"".join(self.parts)
                self.parts = []
                self.relay.from_upstream(whole)
        elif isinstance(event, Ping):
            self._write(event.response())
        elif isinstance(event, CloseConnection):
            self.closed_seen = True
            if self.ws.state.name == "REMOTE_CLOSING":
                self._write(event.response())
            self.relay.upstream_closed(event.code, event.reason or "")
            self.close()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.closed_seen:
            return
        self.closed_seen = True
        if self.refused is not None:  # a refusal whose body the close ends
            self._refused()
        elif not self.relay.reached:
            self.relay.refuse(502, "closed the connection before it answered the upgrade")
        else:
            self.relay.upstream_closed(None, "")

    def close(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.close()
