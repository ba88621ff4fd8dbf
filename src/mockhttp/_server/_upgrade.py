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
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from .._core._errors import ConfigError
from .._core._reply import Reply, status
from ._journal import Call, count_sent, mark_ended
from ._runner import Line, Plan

__all__ = ["Switch", "Switching", "plan_of", "switching"]


@dataclass(frozen=True, slots=True)
class Switching(Reply):
    """A ``101 Switching Protocols`` reply that hands the connection to ``protocol()``.

    ``refused``: the reply to a request that did not ask to upgrade (None: a 426 that
    names the protocol of the ``Upgrade`` header).
    """

    protocol: Callable[[], asyncio.Protocol] | None = None
    refused: Reply | None = None

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
    if not callable(protocol):
        raise ConfigError(f"protocol={protocol!r} must be a callable that returns a protocol")
    if not isinstance(upgrade, str) or not upgrade or any(c in upgrade for c in " \r\n,"):
        raise ConfigError(f"upgrade={upgrade!r} must be one protocol token, e.g. 'websocket'")
    base = status(101).header("Upgrade", upgrade).header("Connection", "Upgrade")
    return Switching(base.status_code, base.reason, base.headers, protocol=protocol)


class Switch:
    """The plan of a ``Switching`` reply: the 101 head written and the call ended
    (complete), then the connection handed to a new protocol; ``otherwise`` where the
    connection cannot switch."""

    __slots__ = ("head", "make", "otherwise", "refused")

    def __init__(
        self, head: bytes, make: Callable[[], asyncio.Protocol], otherwise: Plan, refused: int
    ) -> None:
        self.head = head
        self.make = make
        self.otherwise = otherwise
        self.refused = refused  # the status ``otherwise`` sends

    def start(self, conn: Line, call: Call | None, keep_alive: bool) -> None:
        switch = getattr(conn, "switch", None)
        transport = conn.transport
        if switch is None or transport is None or not getattr(conn, "upgrading", False):
            if call is not None:
                call.status = self.refused
            self.otherwise.start(conn, call, keep_alive)
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
    return Switch(reply.head_bytes(), reply.protocol, frame(refusal), refusal.status_code)
