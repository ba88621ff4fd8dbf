"""Switching protocols: the seam where an HTTP/1.1 connection is handed to another one.

A mock whose reply is a ``Switching`` reply answers an upgrade request (``Connection:
Upgrade``, ``Upgrade: <protocol>``) with ``101 Switching Protocols`` and its headers;
then the connection belongs to the ``asyncio.Protocol`` its ``protocol()`` returns, fed
first the bytes the client sent after its request (``_connection.Connection.switch``).
The plan kind is ``Switch``: the server's dispatch gives it (``_wires.WireCache.plan``)
like any other plan, and the connection starts it like any other.

Rule: only a request that asked to upgrade is switched.  Any other request to the mock
(a plain ``GET``, an HTTP/2 stream, an upgrade request with a body) gets ``refused``:
``426 Upgrade Required`` naming the protocol, unless the reply says otherwise.
Rule 2 (answered later): a ``switching_later`` reply hands the connection over before any
answer; its protocol answers through a :class:`Handshake` when it knows how (a relay, once
its upstream has answered): ``accept`` sends the 101 with more headers (the upstream's
``Sec-WebSocket-Protocol``), ``refuse`` an HTTP reply and a close; the first answer
counts, and one the client did not wait for (``gone``) ends the call as a hang-up.  The
call is journaled and logged when answered, with the status the client got.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .._core._errors import ConfigError
from .._core._plan import Raw
from .._core._reply import Reply, status
from .._core._wire import frame as wire_frame
from ._journal import Call, Outcome, count_sent, mark_ended
from ._runner import Line, Plan, body_of

__all__ = ["Handshake", "Switch", "Switching", "plan_of", "switching", "switching_later"]


@dataclass(frozen=True, slots=True)
class Switching(Reply):
    """A ``101 Switching Protocols`` reply that hands the connection to ``protocol()``.

    ``refused``: the reply to a request that did not ask to upgrade (None: a 426 that
    names the protocol of the ``Upgrade`` header).
    """

    protocol: Callable[..., asyncio.Protocol] | None = None
    refused: Reply | None = None
    later: bool = False  # Rule 2: ``protocol(handshake)`` answers the upgrade itself

    def refusal(self) -> Reply:
        """What a request that cannot be switched gets."""
        if self.refused is not None:
            return self.refused
        upgrade = next((v for n, v in self.headers if n.lower() == "upgrade"), "")
        return (
            status(426)
            .header("Upgrade", upgrade)
            .header("Connection", "Upgrade")
            .header("Content-Type", "text/plain; charset=utf-8")
            .body(f"this endpoint speaks {upgrade} only: send an upgrade request\n")
        )

    def head_bytes(self) -> bytes:
        """The 101 head as it goes on the wire (no body, no length: RFC 9110 §15.2.2)."""
        lines = [f"HTTP/1.1 {self.status_code} {self.reason}"]
        lines.extend(f"{name}: {value}" for name, value in self.headers)
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def switching(protocol: Callable[[], asyncio.Protocol], upgrade: str) -> Switching:
    """A reply that switches an upgrade request for ``upgrade`` (the ``Upgrade`` token,
    e.g. ``"websocket"``) to the protocol ``protocol()`` returns (one per connection).

    Raises:
        ConfigError: ``protocol`` is not callable, or ``upgrade`` is not a token.
    """
    return _switching(protocol, upgrade)


def _switching(protocol: Callable[..., asyncio.Protocol], upgrade: str) -> Switching:
    if not callable(protocol):
        raise ConfigError(f"protocol={protocol!r} must be a callable that returns a protocol")
    if not isinstance(upgrade, str) or not upgrade or any(c in upgrade for c in " \r\n,"):
        raise ConfigError(f"upgrade={upgrade!r} must be one protocol token, e.g. 'websocket'")
    base = status(101).header("Upgrade", upgrade).header("Connection", "Upgrade")
    return Switching(base.status_code, base.reason, base.headers, protocol=protocol)


def switching_later(protocol: Callable[[Handshake], asyncio.Protocol], upgrade: str) -> Switching:
    """A reply that hands an upgrade request for ``upgrade`` to ``protocol(handshake)`` at
    once and leaves the answer to it (Rule 2): ``handshake.accept(headers)`` sends the 101,
    ``handshake.refuse(reply)`` sends ``reply`` instead and closes.

    Raises:
        ConfigError: ``protocol`` is not callable, or ``upgrade`` is not a token.
    """
    return dataclasses.replace(_switching(protocol, upgrade), later=True)


class Handshake:
    """The answer to an upgrade request, given by the protocol that took its connection
    (a ``switching_later`` reply, Rule 2): the first of ``accept``, ``refuse`` and ``gone``
    counts."""

    __slots__ = ("answered", "call", "conn", "reply", "transport")

    def __init__(
        self, reply: Switching, conn: Line, call: Call | None, transport: asyncio.Transport
    ) -> None:
        self.reply = reply
        self.conn = conn
        self.call = call
        self.transport = transport
        self.answered = False

    def accept(self, headers: Sequence[tuple[str, str]] = ()) -> bool:
        """Send the 101: the reply's headers, then ``headers``.  False when answered already,
        or the client has gone (then the call ends as a hang-up)."""
        if not self._answering():
            return False
        reply = dataclasses.replace(self.reply, headers=(*self.reply.headers, *headers))
        head = reply.head_bytes()
        if self.call is not None:
            count_sent(self.call, len(head), 0, b"", 0, 0)
        self.transport.write(head)
        self._ended("complete")
        return True

    def refuse(self, reply: Reply) -> bool:
        """Answer with ``reply`` (a fixed one, sent whole) as HTTP/1.1, then close.  False
        when answered already, or the client has gone."""
        if not self._answering():
            return False
        raws = [s for s in wire_frame(reply.plan(), keep_alive=False) if isinstance(s, Raw)]
        call = self.call
        if call is not None:
            call.status = reply.status_code
            for raw in raws:
                count_sent(call, len(raw.data), raw.body, body_of(raw), 0, 0)
        self.transport.write(b"".join(raw.data for raw in raws))
        self._ended("complete")
        self.transport.close()
        return True

    def gone(self) -> None:
        """The connection ended before an answer: the call ends so (no-op once answered)."""
        if not self.answered:
            self.answered = True
            self._ended("server closed" if self.conn.server_closed else "client hung up")

    def _answering(self) -> bool:
        if self.answered:
            return False
        if self.transport.is_closing():
            self.gone()
            return False
        self.answered = True
        return True

    def _ended(self, outcome: Outcome) -> None:
        call = self.call
        if call is not None:
            call.outcome = outcome
            mark_ended(call)
            self.conn.server._finished(call)


class Switch:
    """The plan of a ``Switching`` reply: the 101 head written and the call ended
    (complete), then the connection handed to a new protocol; ``otherwise`` where the
    connection cannot switch.  ``later``: the reply of Rule 2 (its protocol answers)."""

    __slots__ = ("head", "later", "make", "otherwise", "refused")

    def __init__(
        self,
        head: bytes,
        make: Callable[..., asyncio.Protocol],
        otherwise: Plan,
        refused: int,
        later: Switching | None = None,
    ) -> None:
        self.head = head
        self.make = make
        self.otherwise = otherwise
        self.refused = refused  # the status ``otherwise`` sends
        self.later = later

    def start(self, conn: Line, call: Call | None, keep_alive: bool) -> None:
        switch = getattr(conn, "switch", None)
        transport = conn.transport
        if switch is None or transport is None or not getattr(conn, "upgrading", False):
            if call is not None:
                call.status = self.refused
            self.otherwise.start(conn, call, keep_alive)
            return
        if self.later is not None:
            switch(self.make(Handshake(self.later, conn, call, transport)))
            return
        if call is not None:
            count_sent(call, len(self.head), 0, b"", 0, 0)
            call.outcome = "complete"
            mark_ended(call)
        transport.write(self.head)
        if call is not None:
            conn.server._finished(call)
        switch(self.make())


def plan_of(reply: Switching, frame: Callable[[Reply], Plan]) -> Switch:
    """The ``Switch`` plan of ``reply``; ``frame`` frames its refusal for this request."""
    if reply.protocol is None:
        raise ConfigError("a Switching reply needs a protocol (use switching(...))")
    refusal = reply.refusal()
    later = reply if reply.later else None
    return Switch(reply.head_bytes(), reply.protocol, frame(refusal), refusal.status_code, later)
