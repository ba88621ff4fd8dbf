"""The dashboard's side of the admin API: its static page (``/__mockhttp/ui/``), the session
cookie that lets the page's ``EventSource`` through a token, and what a call's JSON adds
for it (its number, end, timeline and the call it resumes).

The page itself is three static files in ``_ui/`` (no build step): they hold no data, so
they are served under the admin API's Host and Origin rules without the token; every
request for data needs the token, sent by the page as ``Authorization`` or, for its
``EventSource`` (which cannot send headers), as the cookie ``POST ui/session`` sets:
``HttpOnly``, ``SameSite=Strict``, for ``/__mockhttp/`` only, its value a MAC of the token
(the token itself never leaves the page).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .._core._redact import Redactor
from .._core._reply import Reply, status
from .._core._request import Request
from .._core._sse_decode import Message, decode
from .._core._timeline import Resumable, resumed_from, schedule, timeline
from ._journal import Call
from ._watch import Planned

__all__ = [
    "COOKIE",
    "UI_DIR",
    "UI_PATH",
    "call_extras",
    "cookie_token",
    "resumes",
    "resumes_of",
    "session_cookie",
    "static",
]

UI_DIR = Path(__file__).resolve().parent / "_ui"
UI_PATH = "/__mockhttp/ui/"
COOKIE = "mockhttp_ui"
_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
}
#: The page runs its own script and styles only, talks to this server only, and may not
#: be framed: a page of another site can neither run in it nor show it.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self' data:; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"
)
_CUT = frozenset({"closed", "reset", "stalled", "server closed"})


def static(name: str) -> Reply:
    """The dashboard's file ``name`` (``""``: the page), or a 404."""
    name = name or "index.html"
    path = UI_DIR / name
    kind = _TYPES.get(path.suffix)
    if kind is None or "/" in name or name.startswith(".") or not path.is_file():
        return status(404).json(
            {"error": {"type": "unknown_endpoint", "message": f"no dashboard file {name!r}"}}
        )
    return (
        status(200)
        .header("Content-Type", kind)
        .header("Cache-Control", "no-cache")
        .header("Content-Security-Policy", CSP)
        .header("X-Content-Type-Options", "nosniff")
        .header("Referrer-Policy", "no-referrer")
        .body(path.read_bytes())
    )


def session_value(token: str) -> str:
    """The cookie's value for ``token`` (a MAC: the token cannot be read back from it)."""
    return hmac.new(token.encode(), b"mockhttp dashboard session", hashlib.sha256).hexdigest()


def session_cookie(token: str | None) -> Reply:
    """``POST ui/session``'s answer (the request carried the token): the cookie."""
    reply = status(204)
    if token is not None:
        reply = reply.header(
            "Set-Cookie",
            f"{COOKIE}={session_value(token)}; Path=/__mockhttp/; HttpOnly; SameSite=Strict",
        )
    return reply


def cookie_token(request: Request, token: str) -> bool:
    """True when the request carries the session cookie of ``token``."""
    wanted = session_value(token).encode()
    for value in request.headers.get_all("cookie"):
        for part in value.split(";"):
            name, _, given = part.strip().partition("=")
            if name == COOKIE and hmac.compare_digest(given.encode(), wanted):
                return True
    return False


def call_extras(
    call: Call,
    planned: Planned | None,
    resumes: int | None,
    redactor: Redactor | None,
) -> dict[str, Any]:
    """What the dashboard reads of a call besides the journal's fields: its ``id`` (the
    call's number on the server), ``end_time``, ``duration_ms``, ``last_event_id``,
    ``after_cut_ms``, ``resumes`` (the id of the call it resumes) and, for a stream, its
    ``timeline`` (``_core/_timeline``)."""
    end = call.end_time
    if end is None and call._ended and call.outcome == "complete":
        end = call.time  # (the fast lane: written in one write as it arrived)
    found: dict[str, Any] = {
        "id": call._seq,
        "end_time": None if end is None else _iso(end),
        "duration_ms": None if end is None else round((end - call.time) * 1000, 1),
        "last_event_id": call.last_event_id,
        "after_cut_ms": None if call.after_cut is None else round(call.after_cut * 1000, 1),
        "resumes": resumes,
        "timeline": None,
    }
    times = call.event_times
    stream = planned is not None and planned.reply.stream is not None
    if times is None and not stream:
        return found
    plan = None
    faults: list[str] = []
    if planned is not None:
        limit = 4 * (len(times or ()) + 16)  # (a plan may be endless: read what matters)
        plan = schedule(
            planned.reply.plan(), planned.faults, planned.index, http10=planned.http10,
            limit=limit,
        )  # fmt: skip
        faults = [repr(f) for f in planned.faults]
    line = timeline(
        arrived=call.time,
        event_times=times,
        end_time=end if call._ended else None,
        outcome=call.outcome,
        body=bytes(call.body_sent),
        body_bytes=call.body_bytes,
        plan=plan,
        faults=faults,
    ).to_json()
    if redactor is not None:
        for event in line["events"]:
            event["data"] = redactor.text(event["data"])
    found["timeline"] = line
    return found


def resumes(calls: Sequence[Call]) -> dict[int, int]:
    """For each reconnect among ``calls`` (oldest first), the number of the call it
    resumes (``_core/_timeline.resumed_from``)."""
    return resumed_from(_resumable(c) for c in calls)


def _resumable(call: Call) -> Resumable:
    ids: tuple[str, ...] = ()
    if call.events and call.body_sent:
        ids = tuple(i.id for i in decode(bytes(call.body_sent)) if isinstance(i, Message))
    return Resumable(
        call._seq,
        None if call.mock is None else id(call.mock),
        call.last_event_id,
        ids,
        call.outcome in _CUT,
    )


def resumes_of(call: Call, earlier: Iterable[Call]) -> int | None:
    """The number of the call ``call`` resumes, among ``earlier`` calls of its mock (and
    itself, last)."""
    before = [c for c in earlier if c._seq < call._seq]
    return resumes([*before, call]).get(call._seq)


def _iso(when: float) -> str:
    return datetime.fromtimestamp(when, timezone.utc).isoformat(timespec="milliseconds")
