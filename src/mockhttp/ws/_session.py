"""One WebSocket connection after its 101: the script run over ``wsproto``'s frames.

``Session`` is the ``asyncio.Protocol`` the upgrade seam (``_server/_upgrade.py``) hands
the transport to.  It reads frames with ``wsproto.connection.Connection`` (the frame layer
without the handshake, which the mock's 101 already made), runs the script's steps in
order, and writes every frame both ways into its journal (``frames``).

Rule 1: pings are answered with pongs (RFC 6455 §5.5.2) until an ``IgnorePings`` step.
Rule 2: a client's close is answered with the same code, then the TCP connection closed.
Rule 3: a message over ``max_message`` bytes closes with 1009 (Message Too Big).
Rule 4: after a close the mock sent, the client has ``CLOSE_WAIT`` seconds to answer it
before the TCP connection is closed anyway.
Rule 5: frames that break the protocol (an unmasked frame, text that is not UTF-8) fail
the connection (RFC 6455 §7.1.7): a close with wsproto's code (1002, 1007...), then the
TCP connection closed at once.  A client that goes without a close frame is journaled as
nothing received: ``close_code`` stays None unless the mock had sent a close.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from wsproto.connection import Connection, ConnectionState, ConnectionType
from wsproto.events import (
    BytesMessage,
    CloseConnection,
    Event,
    Message,
    Ping,
    Pong,
    TextMessage,
)
from wsproto.frame_protocol import CloseReason
from wsproto.utilities import LocalProtocolError

from .._core._errors import RefusedRequest
from .._core._request import Request
from ._chaos import Chaos
from ._faults import Cut, Drop, IgnorePings, Raw, invalid_utf8, pieces
from ._script import Close, Echo, Expect, Pause, Send, Step, payload

__all__ = ["CLOSE_WAIT", "Answer", "Frame", "Responder", "Session"]

CLOSE_WAIT = 2.0
MAX_MESSAGE = 16 * 1024 * 1024
TRICKLE_PIECES = 8


Answer = str | bytes | Close
"""What a responder sends: a message, or a ``Close`` (the closing handshake)."""


class Responder(Protocol):
    """A protocol's mock on a session: what to send first, and in answer to a message.

    ``answer`` may raise ``RefusedRequest`` (the client's fault, e.g. a conversation's
    turn it misses): the session sends the error's ``reply`` (a list of answers) and keeps
    the error in ``Session.errors``."""

    def greet(self) -> list[Answer]: ...

    def answer(self, message: str | bytes) -> list[Answer]: ...


@dataclass(frozen=True, slots=True)
class Frame:
    """A frame in a session's journal.

    ``direction``: ``"received"`` (from the client) or ``"sent"``; ``kind``: ``"text"``,
    ``"binary"``, ``"ping"``, ``"pong"`` or ``"close"``; ``data``: the message (text or
    bytes; for a close, its reason); ``code``: a close's code; ``at``: seconds since the
    session began.  A fragmented message is one entry, its data whole.
    """

    direction: str
    kind: str
    data: str | bytes
    at: float
    code: int | None = None


@dataclass(eq=False)
class Session(asyncio.Protocol):
    """A WebSocket session: its script, its connection, its journal."""

    script: Sequence[Step]
    request: Request
    on_end: Callable[[Session], None] = lambda _s: None
    max_message: int = MAX_MESSAGE
    responder: Responder | None = None  # answers each message (a protocol's mock)
    chaos: Chaos | None = None  # seeded faults in place of some messages
    number: int = 0  # the session's number on its endpoint (what chaos draws with)
    frames: list[Frame] = field(default_factory=list)
    mismatches: list[str] = field(default_factory=list)
    errors: list[RefusedRequest] = field(default_factory=list)  # a responder's refusals
    close_code: int | None = None  # the code of the close that ended it (None: dropped)
    ended: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self._ws = Connection(ConnectionType.SERVER)
        self._transport: asyncio.Transport | None = None
        self._began = time.monotonic()
        self._step = 0
        self._echoing: int | None = 0  # messages still to echo (None: all)
        self._waiting = False  # an Expect or Echo waits for a message
        self._parts: list[Any] = []
        self._size = 0
        self._timer: asyncio.TimerHandle | None = None
        self._pending: list[str | bytes] = []  # messages that came before a step waited
        self._slept = -1  # the step whose delay has passed
        self._busy = False  # a message trickles out
        self._pongs = True  # pings are answered
        self._count = 0  # data messages the session was to send (chaos draws with it)
        self._broken = False  # chaos broke the session: nothing more is sent

    # -- the journal -------------------------------------------------------------------------

    @property
    def received(self) -> list[str | bytes]:
        """The client's messages, in order."""
        return [f.data for f in self.frames if f.direction == "received" and _is_data(f)]

    @property
    def sent(self) -> list[str | bytes]:
        """The mock's messages, in order."""
        return [f.data for f in self.frames if f.direction == "sent" and _is_data(f)]

    def _note(self, direction: str, kind: str, data: str | bytes, code: int | None = None) -> None:
        at = round(time.monotonic() - self._began, 6)
        self.frames.append(Frame(direction, kind, data, at, code))

    # -- asyncio.Protocol ----------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport  # type: ignore[assignment]
        if self.responder is not None:
            self._answers(self.responder.greet())
        self._advance()

    def data_received(self, data: bytes) -> None:
        self._ws.receive_data(data)
        self._drain()

    def eof_received(self) -> bool | None:
        self._ws.receive_data(None)
        self._drain()
        return None

    def pause_writing(self) -> None:
        pass

    def resume_writing(self) -> None:
        pass

    def connection_lost(self, exc: Exception | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._transport = None
        if not self.ended.is_set():
            self.ended.set()
            self.on_end(self)

    # -- frames in -------------------------------------------------------------------------------

    def _drain(self) -> None:
        try:
            events = list(self._ws.events())
        except LocalProtocolError:
            events = []
        for event in events:
            self._event(event)

    def _event(self, event: Event) -> None:
        if isinstance(event, Message):
            self._part(event)
        elif isinstance(event, Ping):
            self._note("received", "ping", bytes(event.payload))
            if self._pongs:
                self._send(event.response(), "pong", bytes(event.payload))
        elif isinstance(event, Pong):
            self._note("received", "pong", bytes(event.payload))
        elif isinstance(event, CloseConnection):
            self._closed_by_client(event)

    def _part(self, event: Message[Any]) -> None:
        self._parts.append(event.data)
        self._size += len(event.data)
        if self._size > self.max_message:
            self._parts, self._size = [], 0
            self.close(1009, f"message over {self.max_message} bytes")
            return
        if not event.message_finished:
            return
        whole: str | bytes
        if isinstance(event, TextMessage):
            whole, kind = "".join(self._parts), "text"
        else:
            whole, kind = b"".join(self._parts), "binary"
        self._parts, self._size = [], 0
        self._note("received", kind, whole)
        self._message(whole)

    def _message(self, message: str | bytes) -> None:
        if self.responder is not None:
            try:
                answers = self.responder.answer(message)
            except RefusedRequest as refused:
                self.errors.append(refused)
                answers = list(refused.reply)
            self._answers(answers)
            return
        if self._echoing is None or self._echoing > 0:
            self.send(message)
            if self._echoing is not None:
                self._echoing -= 1
        elif self._waiting and self._step < len(self.script):
            step = self.script[self._step]
            if isinstance(step, Expect):
                reason = step.matcher.explain(self._as_body(message))
                if reason is not None:
                    self.mismatches.append(f"message {len(self.received)}: {reason}")
                    self.close(1008, f"unexpected message: {reason}"[:120])
                    return
        else:
            self._pending.append(message)
            return
        if self._waiting and (self._echoing == 0):
            self._waiting = False
            self._step += 1
            self._advance()

    def _answers(self, answers: Sequence[Answer]) -> None:
        for answer in answers:
            if isinstance(answer, Close):
                self.close(answer.code, answer.reason)
            else:
                self.send(answer)

    def _as_body(self, message: str | bytes) -> Request:
        """The message as a request body, so matchers read it as they read bodies (text,
        bytes or JSON by what they expect)."""
        body = message.encode() if isinstance(message, str) else message
        return Request("WS", self.request.target, self.request.headers, body)

    def _closed_by_client(self, event: CloseConnection) -> None:
        code = int(event.code)
        if code == CloseReason.ABNORMAL_CLOSURE:  # wsproto's word for the TCP end: no frame
            self._end()
            return
        if self._ws.state is ConnectionState.OPEN:  # no frame either: the client's bytes
            # broke the protocol (wsproto's ParseFailed): fail the connection (rule 5)
            self.close(code, (event.reason or "")[:120])
            self._end()
            return
        self._note("received", "close", event.reason or "", code)
        if self.close_code is None:
            self.close_code = code
        if self._ws.state is ConnectionState.REMOTE_CLOSING:
            self._send(event.response(), "close", event.reason or "", code)
        self._end()

    # -- the script ------------------------------------------------------------------------------

    def _advance(self) -> None:
        """Run steps until one waits (for time, for a message, for a trickle) or ends."""
        while self._open and self._step < len(self.script) and not self._busy and not self._broken:
            step = self.script[self._step]
            delay = step.after if isinstance(step, Send) else 0.0
            delay = step.seconds if isinstance(step, Pause) else delay
            if delay > 0 and self._slept != self._step:
                self._slept = self._step
                self._later(delay, self._advance)
                return
            if isinstance(step, Expect | Echo):
                self._waiting = True
                self._echoing = 0 if isinstance(step, Expect) else step.times
                if self._pending:
                    self._message(self._pending.pop(0))
                return
            if isinstance(step, Close):
                self.close(step.code, step.reason)
                return
            self._step += 1
            self._do(step)

    def _do(self, step: Step) -> None:
        if isinstance(step, Send):
            self._send_step(step)
        elif isinstance(step, Drop):
            self.drop()
        elif isinstance(step, Cut):
            self._write("cut", step.data, step.wire())
            self.drop()
        elif isinstance(step, IgnorePings):
            self._note("sent", "ignore_pings", b"")
            self._pongs = False
        elif isinstance(step, Raw):
            self._write("raw", step.data, step.data)

    def _send_step(self, step: Send) -> None:
        message = payload(step.data)
        if self._chaotic(message):
            return
        wire = self._encode(message, step.fragments)
        if step.trickle <= 0:
            self._write("text" if isinstance(message, str) else "binary", message, wire)
            return
        self._note("sent", "text" if isinstance(message, str) else "binary", message)
        self._busy = True
        self._trickle(pieces(wire, TRICKLE_PIECES), step.trickle)

    def _trickle(self, rest: list[bytes], gap: float) -> None:
        if not self._open:
            return
        assert self._transport is not None
        self._transport.write(rest[0])
        if len(rest) > 1:
            self._later(gap, lambda: self._trickle(rest[1:], gap))
            return
        self._busy = False
        self._advance()

    @property
    def _open(self) -> bool:
        return self._transport is not None and not self._transport.is_closing()

    def _later(self, delay: float, then: Callable[[], None]) -> None:
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(delay, then)

    # -- frames out ------------------------------------------------------------------------------

    def send(self, message: str | bytes) -> None:
        """Send one message (text or bytes) if the connection is open (and chaos does not
        break it instead)."""
        if self._chaotic(message):
            return
        if isinstance(message, str):
            self._send(TextMessage(data=message), "text", message)
        else:
            self._send(BytesMessage(data=message), "binary", message)

    def _chaotic(self, message: str | bytes) -> bool:
        """True when the message is not to be sent: the session is broken, or chaos breaks
        it now (``_chaos``: the fault drawn for this session and message)."""
        if self._broken:
            return True
        if self.chaos is None:
            return False
        fault = self.chaos.decide(self.number, self._count)
        self._count += 1
        if fault is None:
            return False
        self._broken = True
        if fault == "drop":
            self.drop()
        elif fault == "cut" and len(message) >= 2:
            self._write("cut", message, Cut(message).wire())
            self.drop()
        elif fault == "cut":
            self.drop()
        elif fault == "close":
            self.close(1011, "chaos")
        elif fault == "invalid_utf8":
            raw = invalid_utf8()
            self._write("raw", raw.data, raw.data)
        else:
            self._note("sent", "stall", b"")
        return True

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Start the closing handshake with ``code``; the TCP connection closes when the
        client answers, or ``CLOSE_WAIT`` seconds later."""
        if self._ws.state is not ConnectionState.OPEN:
            return
        if self.close_code is None:
            self.close_code = code
        self._send(CloseConnection(code=code, reason=reason or None), "close", reason, code)
        if self._transport is not None:
            loop = asyncio.get_running_loop()
            self._timer = loop.call_later(CLOSE_WAIT, self._end)

    def drop(self) -> None:
        """Close the TCP connection with no close frame (the client sees 1006)."""
        if self._open:
            self._note("sent", "drop", b"")
            assert self._transport is not None
            self._transport.close()

    def _encode(self, message: str | bytes, fragments: int) -> bytes:
        """The frames of ``message`` in ``fragments`` frames (wsproto keeps the state)."""
        events: list[Event]
        if isinstance(message, str):
            texts = pieces(message, fragments)
            events = [
                TextMessage(t, message_finished=i == len(texts) - 1) for i, t in enumerate(texts)
            ]
        else:
            chunks = pieces(message, fragments)
            events = [
                BytesMessage(c, message_finished=i == len(chunks) - 1) for i, c in enumerate(chunks)
            ]
        return b"".join(self._ws.send(event) for event in events)

    def _write(self, kind: str, data: str | bytes, wire: bytes) -> None:
        if self._open:
            assert self._transport is not None
            self._note("sent", kind, data)
            self._transport.write(wire)

    def _send(self, event: Event, kind: str, data: str | bytes, code: int | None = None) -> None:
        if self._transport is None or self._transport.is_closing():
            return
        try:
            wire = self._ws.send(event)
        except LocalProtocolError:
            return
        self._note("sent", kind, data, code)
        self._transport.write(wire)

    def _end(self) -> None:
        if self._transport is not None and not self._transport.is_closing():
            self._transport.close()


def _is_data(frame: Frame) -> bool:
    return frame.kind in ("text", "binary")
