"""A WebSocket session's journal as JSON: what the admin journal shows of an upgrade call.

The admin API (``_server/_admin.py``) finds the session of a ``101`` call through its
mock's kind (``WebSocket.session_json``): the session whose upgrade request carried the
call's ``Sec-WebSocket-Key`` (a fresh nonce per connection, RFC 6455 §4.1).  Under
``serve --workers N`` each worker answers for the sessions it served, and the hub joins
the calls, so a session is seen whichever worker served it.

Rule: text goes as it is (``encoding: utf-8``), binary as base64 (``encoding: base64``);
``hide`` (the admin's redactor) is applied to every text, the close reasons and the
mismatches included.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from typing import Any

from ._session import Frame, Session

__all__ = ["frame_json", "session_json", "session_of"]


def frame_json(frame: Frame, hide: Callable[[str], str] | None = None) -> dict[str, Any]:
    """One frame as JSON: ``direction``, ``kind``, ``data`` and its ``encoding``, ``at``
    (seconds since the session began), and a close's ``code``."""
    data = frame.data
    if isinstance(data, bytes):
        text, encoding = base64.b64encode(data).decode("ascii"), "base64"
    else:
        text, encoding = (data if hide is None else hide(data)), "utf-8"
    found: dict[str, Any] = {
        "direction": frame.direction,
        "kind": frame.kind,
        "data": text,
        "encoding": encoding,
        "at": round(frame.at, 6),
    }
    if frame.code is not None:
        found["code"] = frame.code
    return found


def session_json(session: Session, hide: Callable[[str], str] | None = None) -> dict[str, Any]:
    """The session's journal: ``frames`` both ways, ``ended``, ``close_code`` (None: the
    connection was dropped, or it is still open), ``mismatches`` and ``errors``."""
    frames: Sequence[Frame] = list(session.frames)  # a copy: the loop may append meanwhile
    texts = [str(error) for error in list(session.errors)]
    return {
        "frames": [frame_json(frame, hide) for frame in frames],
        "ended": session.ended.is_set(),
        "close_code": session.close_code,
        "mismatches": [m if hide is None else hide(m) for m in list(session.mismatches)],
        "errors": [t if hide is None else hide(t) for t in texts],
    }


def session_of(sessions: Sequence[Session], key: str | None) -> Session | None:
    """The session whose upgrade request carried ``Sec-WebSocket-Key: key``, or None."""
    if not key:
        return None
    for session in sessions:
        if session.request.headers.get("sec-websocket-key") == key:
            return session
    return None
