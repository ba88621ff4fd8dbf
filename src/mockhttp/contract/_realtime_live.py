"""A live realtime check: a scripted session over a WebSocket, its frames kept, then checked.

``run_realtime_live(url, profile)`` opens the WebSocket (``ws://`` or ``wss://``) with
``wsproto``'s client, plays the profile's script and checks the frames with
:func:`~mockhttp.contract._realtime.check_frames`:

- ``openai-realtime``: wait for ``session.created``; ``session.update`` (text output);
  ``conversation.item.create`` (a user message); ``response.create`` until
  ``response.done``; an unknown event type, until its ``error``; close 1000;
- ``gemini-live``: ``setup`` (``models/<model>``, the TEXT modality) until
  ``setupComplete``; a ``clientContent`` turn until ``turnComplete``; close 1000.

Rule 1: each wait is bounded by ``timeout`` seconds; a wait that times out or a connection
that ends stops the script, and the rules judge what came (a ``response.done`` that never
came is a finding, not a hang).
Rule 2: the API key goes in the provider's header (``Authorization: Bearer`` for OpenAI,
``x-goog-api-key`` for Gemini) and in no report.
"""

from __future__ import annotations

import json
import socket
import ssl
import time
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

from wsproto import ConnectionType, WSConnection
from wsproto.connection import ConnectionState
from wsproto.events import (
    AcceptConnection,
    BytesMessage,
    CloseConnection,
    Event,
    Ping,
    RejectConnection,
    Request,
    TextMessage,
)
from wsproto.utilities import LocalProtocolError, RemoteProtocolError

from ._check import Outcome
from ._realtime import WsFrame, check_frames

__all__ = ["Session", "run_realtime_live"]

PROMPT = "Say hello in five words."


class Session:
    """A client WebSocket session that keeps every message both ways as ``WsFrame``."""

    def __init__(
        self,
        url: str,
        headers: Mapping[str, str],
        timeout: float,
        context: ssl.SSLContext | None = None,
    ) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("ws", "wss") or not parts.hostname:
            raise ValueError(f"{url!r} is not a ws:// or wss:// URL")
        port = parts.port or (443 if parts.scheme == "wss" else 80)
        self.timeout = timeout
        self.frames: list[WsFrame] = []
        self.closed = False
        self._began = time.monotonic()
        self._ws = WSConnection(ConnectionType.CLIENT)
        raw = socket.create_connection((parts.hostname, port), timeout=timeout)
        if parts.scheme == "wss":
            tls = context or ssl.create_default_context()
            try:
                raw = tls.wrap_socket(raw, server_hostname=parts.hostname)
            except BaseException:
                raw.close()
                raise
        self._sock = raw
        self._pending: list[Event] = []
        try:
            target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
            extra = [(k.encode(), v.encode()) for k, v in headers.items()]
            host = parts.netloc.rpartition("@")[2]
            request = Request(host=host, target=target, extra_headers=extra)
            self._sock.sendall(self._ws.send(request))
            self._handshake()
        except BaseException:
            self._sock.close()
            raise

    def _handshake(self) -> None:
        while True:
            events = self._read()
            for i, event in enumerate(events):
                if isinstance(event, AcceptConnection):
                    self._pending = events[i + 1 :]
                    return
                if isinstance(event, RejectConnection):
                    raise ValueError(
                        f"the server refused the WebSocket upgrade: {event.status_code}"
                    )

    def _read(self) -> list[Event]:
        data = self._sock.recv(65536)
        if not data:
            self.closed = True
            if self._ws.state is ConnectionState.CONNECTING:
                raise ValueError("the server closed the connection before its 101")
        self._ws.receive_data(data or None)
        try:
            return list(self._ws.events())
        except RemoteProtocolError as exc:
            raise ValueError(f"the server's answer is no WebSocket: {exc}") from None

    def _note(self, sender: str, kind: str, data: str | bytes, code: int | None = None) -> None:
        self.frames.append(
            WsFrame(sender, kind, data, round(time.monotonic() - self._began, 6), code)
        )

    def send(self, message: Mapping[str, Any]) -> None:
        """Send ``message`` as JSON text, unless the server has begun closing."""
        if self._ws.state is not ConnectionState.OPEN:
            return
        text = json.dumps(message, separators=(",", ":"))
        self._note("client", "text", text)
        self._sock.sendall(self._ws.send(TextMessage(data=text)))

    def until(self, done: Callable[[Any], bool]) -> bool:
        """Read messages until one (decoded JSON) satisfies ``done``: True; False when the
        session ended or ``timeout`` seconds passed with nothing more."""
        parts: list[Any] = []
        while not self.closed:
            events, self._pending = self._pending, []
            if not events:
                try:
                    events = self._read()
                except (TimeoutError, OSError):
                    return False
            for event in events:
                if isinstance(event, TextMessage | BytesMessage):
                    parts.append(event.data)
                    if not event.message_finished:
                        continue
                    whole: str | bytes = (
                        "".join(parts) if isinstance(event, TextMessage) else b"".join(parts)
                    )
                    parts = []
                    self._note("server", "text" if isinstance(whole, str) else "binary", whole)
                    if _matches(whole, done):
                        self._pending = events[events.index(event) + 1 :]
                        return True
                elif isinstance(event, Ping):
                    self._sock.sendall(self._ws.send(event.response()))
                elif isinstance(event, CloseConnection):
                    self._note("server", "close", event.reason or "", event.code)
                    if self._ws.state is ConnectionState.REMOTE_CLOSING:
                        self._sock.sendall(self._ws.send(event.response()))
                    self.closed = True
        return False

    def close(self) -> None:
        try:
            if not self.closed:
                self._note("client", "close", "", 1000)
                self._sock.sendall(self._ws.send(CloseConnection(code=1000)))
        except (OSError, LocalProtocolError):
            pass  # the server is gone already
        finally:
            self._sock.close()


def _matches(whole: str | bytes, done: Callable[[Any], bool]) -> bool:
    try:
        return bool(done(json.loads(whole)))
    except ValueError:
        return False


def _typed(kind: str) -> Callable[[Any], bool]:
    return lambda m: isinstance(m, dict) and m.get("type") == kind


def _has(field: str, inner: str | None = None) -> Callable[[Any], bool]:
    def test(m: Any) -> bool:
        if not isinstance(m, dict) or field not in m:
            return False
        return inner is None or (isinstance(m[field], dict) and bool(m[field].get(inner)))

    return test


def _openai(session: Session, _model: str) -> None:
    steps: list[tuple[dict[str, Any] | None, Callable[[Any], bool]]] = [
        (None, _typed("session.created")),
        ({"type": "session.update", "session": {"type": "realtime", "output_modalities": ["text"]}},
         _typed("session.updated")),
        ({"type": "conversation.item.create",
          "item": {"type": "message", "role": "user",
                   "content": [{"type": "input_text", "text": PROMPT}]}},
         _typed("conversation.item.created")),
        ({"type": "response.create"}, _typed("response.done")),
        ({"type": "mockhttp.check.unknown", "event_id": "evt_mockhttp_check"}, _typed("error")),
    ]  # fmt: skip
    for message, done in steps:
        if message is not None:
            session.send(message)
        if not session.until(done):
            return


def _gemini(session: Session, model: str) -> None:
    name = model if model.startswith("models/") else f"models/{model}"
    setup = {"setup": {"model": name, "generationConfig": {"responseModalities": ["TEXT"]}}}
    session.send(setup)
    if not session.until(_has("setupComplete")):
        return
    turn = {"role": "user", "parts": [{"text": PROMPT}]}
    session.send({"clientContent": {"turns": [turn], "turnComplete": True}})
    session.until(_has("serverContent", "turnComplete"))


_SCRIPTS = {"openai-realtime": _openai, "gemini-live": _gemini}
_MODELS = {"openai-realtime": "gpt-realtime", "gemini-live": "gemini-live-2.5-flash-preview"}


def auth_headers(profile: str, key: str | None) -> dict[str, str]:
    """The provider's header for ``key`` (none without one)."""
    if not key:
        return {}
    if profile == "gemini-live":
        return {"x-goog-api-key": key}
    return {"Authorization": f"Bearer {key}"}


def run_realtime_live(
    url: str,
    profile: str,
    *,
    model: str | None = None,
    headers: Mapping[str, str] | None = None,
    timeout: float = 30.0,
    context: ssl.SSLContext | None = None,
) -> tuple[Outcome, list[WsFrame]]:
    """Play ``profile``'s script against ``url`` and check its frames (and return them).

    Raises:
        ValueError: not a ws:// URL, or the upgrade refused; OSError: no connection.
    """
    script = _SCRIPTS[profile]
    chosen = model or _MODELS[profile]
    if profile == "openai-realtime" and "model=" not in url:
        url += ("&" if "?" in url else "?") + f"model={chosen}"
    session = Session(url, dict(headers or {}), timeout, context)
    try:
        script(session, chosen)
    finally:
        session.close()
    return check_frames(session.frames, profile, "session"), session.frames
