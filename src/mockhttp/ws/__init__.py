"""WebSocket mocks: an upgrade request matched like any request, then a scripted session.

```python
import mockhttp
from mockhttp import match, ws

chat = ws.websocket(ws.send("hello"), ws.expect(match.json_path("$.type", match.equal("ping"))),
                    ws.send({"type": "pong"}), ws.echo())
with mockhttp.Server() as server:
    server.mock(chat.mock("/ws"))
```

:class:`WebSocket` is a reply kind (``response: {websocket: {script: [...]}}`` in mock
files); each connection runs the script (``_session.Session`` on ``wsproto``) and keeps
every frame both ways in ``chat.sessions[i].frames``.

Modules: ``_script`` (the steps and their file forms), ``_session`` (one connection),
``_kind`` (the reply kind; its Origin policy), ``_faults`` (frame-exact faults),
``_chaos`` (seeded chaos).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from .._core._errors import ConfigError
from .._core._match import Matcher
from .._core._mock import Mock
from .._core._registry import register_reply_kind
from .._core._units import Duration, seconds
from ._chaos import CHAOS_FAULTS as CHAOS_FAULTS
from ._chaos import DEFAULT_FAULTS
from ._chaos import Chaos as Chaos
from ._faults import Cut as Cut
from ._faults import Drop as Drop
from ._faults import IgnorePings as IgnorePings
from ._faults import Raw as Raw
from ._faults import invalid_utf8 as invalid_utf8
from ._kind import WebSocket as WebSocket
from ._script import Close as Close
from ._script import Echo as Echo
from ._script import Expect as Expect
from ._script import Pause as Pause
from ._script import Send as Send
from ._script import expectation
from ._session import Frame as Frame
from ._session import Session as Session

__all__ = [
    "CHAOS_FAULTS",
    "Chaos",
    "Close",
    "Cut",
    "Drop",
    "Echo",
    "Expect",
    "Frame",
    "IgnorePings",
    "Pause",
    "Raw",
    "Send",
    "Session",
    "WebSocket",
    "allowing",
    "chaos",
    "close",
    "cut",
    "drop",
    "echo",
    "expect",
    "ignore_pings",
    "invalid_utf8",
    "oversized",
    "pause",
    "send",
    "websocket",
]

register_reply_kind(WebSocket.file_key, WebSocket)


def allowing(mocks: Sequence[Mock], origins: Sequence[str] = ()) -> list[Mock]:
    """``mocks`` with each WebSocket endpoint's ``allow_origins`` widened by ``origins``
    (what ``mockhttp serve --allow-origin`` does); the other mocks as they are."""
    if not origins:
        return list(mocks)
    out = []
    for mock in mocks:
        kind = mock.kind
        if isinstance(kind, WebSocket):
            wider = dataclasses.replace(kind, allow_origins=(*kind.allow_origins, *origins))
            mock = dataclasses.replace(mock, kind=wider)
        out.append(mock)
    return out


def websocket(*script: Any, **options: Any) -> WebSocket:
    """A WebSocket endpoint that runs ``script`` on each connection (see
    :class:`WebSocket` for the options)."""
    return WebSocket(script, **options)


def chaos(p: float, *, seed: int = 0, faults: Sequence[str] = DEFAULT_FAULTS) -> Chaos:
    """Seeded chaos for an endpoint (``websocket(..., chaos=ws.chaos(0.2, seed=1))``):
    each message a session sends is broken with probability ``p`` by one of ``faults``
    (``drop``, ``cut``, ``close``, ``invalid_utf8``, ``stall``), drawn from ``seed``, the
    session's number and the message's: the same messages break on every run."""
    return Chaos(p, seed, faults)


def send(data: Any, *, after: Duration = 0.0, fragments: int = 1, trickle: Duration = 0.0) -> Send:
    """Send ``data`` (text, bytes, or a JSON value as text) ``after`` the previous step,
    in ``fragments`` frames, its bytes written in 8 pieces ``trickle`` apart (slow frames)."""
    return Send(data, seconds(after, "after"), fragments, seconds(trickle, "trickle"))


def expect(value: Matcher | Any) -> Expect:
    """The client's next message must match ``value`` (a matcher; a mapping means
    ``json_equal``, other values ``equal``)."""
    return Expect(expectation(value))


def echo(times: int | None = None) -> Echo:
    """Send back the client's next ``times`` messages (None: every one)."""
    return Echo(times)


def pause(duration: Duration) -> Pause:
    """Wait ``duration`` before the next step."""
    return Pause(seconds(duration, "pause"))


def close(code: int = 1000, reason: str = "") -> Close:
    """Close with ``code`` (and ``reason``)."""
    return Close(code, reason)


def drop() -> Drop:
    """Close the TCP connection with no close frame (the client sees 1006)."""
    return Drop()


def cut(data: str | bytes) -> Cut:
    """Write ``data``'s frame up to the middle of its payload, then drop the connection."""
    return Cut(data)


def ignore_pings() -> IgnorePings:
    """From here on, answer no ping (the client's keep-alive gives up)."""
    return IgnorePings()


def oversized(size: int = 2**20 + 1) -> Send:
    """A text message of ``size`` bytes (default: 1 byte over the 1 MiB many clients take)."""
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ConfigError(f"oversized size={size!r} must be a positive int (bytes)")
    return Send("x" * size)
