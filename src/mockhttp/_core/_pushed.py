"""A pushed event stream: a reply that stays open while the test sends its events.

``pushed()`` is the reply; the server (``_server/_push.py``) gives each call it answers a
stream of its own, fed by ``active.push(Event(...))`` and ended by ``active.close()``.
This module is the pure part: the reply's head, its ``retry:`` block, and the numbering
of a resumable stream's events.

Rule 1: without a server that feeds it (a plan built here alone), the reply is its head,
its ``retry:`` block and the end: there is nothing to push into.
Rule 2: the file form is ``response: {pushed: true}`` or ``{pushed: {resumable: true,
retry: 200}}``, with ``status`` and ``header`` composing, as with any reply.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

from ._errors import ConfigError
from ._plan import Data, End, Head, Pause, Step
from ._registry import ReplyKind, register_reply_kind
from ._reply import Reply, ok
from ._request import Request
from ._sse import Event

__all__ = ["Pushed", "pushed", "retry_block"]

_SSE_HEADERS = (("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache"))


@dataclass(frozen=True, slots=True)
class Pushed(Reply, ReplyKind):
    """An event stream whose events are pushed by the test (see :func:`pushed`); the
    composing reply kind ``pushed`` of mock files."""

    resumable: bool = False
    retry: int | None = None
    file_key: ClassVar[str] = "pushed"
    composes: ClassVar[bool] = True

    def build(self, request: Request) -> Reply:
        return self

    def to_args(self) -> dict[str, Any]:
        """The ``pushed`` value of a mock file (the options that differ)."""
        out: dict[str, Any] = {}
        if self.resumable:
            out["resumable"] = True
        if self.retry is not None:
            out["retry"] = self.retry
        return out

    def head(self) -> Head:
        """The head: the reply's status and headers, ``text/event-stream``, chunked."""
        names = {k.lower() for k, _ in self.headers}
        defaults = tuple(d for d in _SSE_HEADERS if d[0].lower() not in names)
        return Head(self.status_code, self.reason, defaults + self.headers, None)

    def opening(self) -> bytes:
        """What every stream starts with: the ``retry:`` block, if any."""
        return b"" if self.retry is None else retry_block(self.retry)

    def plan(self) -> Iterator[Step]:
        """Without a server to push into it (Rule 1): the head, ``retry:``, the end."""
        if self.head_delay:
            yield Pause(self.head_delay)
        yield self.head()
        if self.retry is not None:
            yield Data(self.opening())
        yield End("complete")

    def number(self, event: Event, n: int) -> Event:
        """Event ``n`` (from 1) as sent: a resumable stream's event without an id gets
        ``str(n)``."""
        if not self.resumable or event.id is not None:
            return event
        return dataclasses.replace(event, id=str(n))

    def describe(self) -> str:
        kind = "resumable pushed" if self.resumable else "pushed"
        return f"{self.status_code} {kind} event stream"


def retry_block(ms: int) -> bytes:
    """A ``retry:`` field alone in a block (clients dispatch no event for it)."""
    return f"retry: {ms}\n\n".encode()


def pushed(
    reply: Reply | None = None, *, resumable: bool = False, retry: int | None = None
) -> Pushed:
    """An event stream that stays open until the test closes it; the test sends its
    events: ``active.push(Event(data="x"))``, ``active.close()`` (``docs/sse.md``).

    Args:
        reply: the status and headers to start from (``ok()``).
        resumable: events pushed to the mock are numbered (``id: 1``, ``2``, ... unless
            they have an id), and a client that reconnects with ``Last-Event-ID: K`` is
            sent those after K before the new ones.
        retry: milliseconds, sent as ``retry:`` at the start of every stream.

    Raises:
        ConfigError: a reply that is not a ``Reply``, a bad ``retry``.
    """
    base = ok() if reply is None else reply
    if not isinstance(base, Reply) or isinstance(base, Pushed):
        raise ConfigError(f"pushed() reply={reply!r} must be a Reply such as ok().header(...)")
    if base.stream is not None or base.content:
        raise ConfigError("pushed() reply has a body or events of its own: give only a status")
    if retry is not None and (type(retry) is not int or retry < 0):
        raise ConfigError(f"pushed() retry={retry!r} must be a non-negative int (milliseconds)")
    return Pushed(
        status_code=base.status_code,
        reason=base.reason,
        headers=base.headers,
        head_delay=base.head_delay,
        resumable=bool(resumable),
        retry=retry,
    )


def _from_file(
    reply: Reply, enabled: bool = True, resumable: bool = False, retry: int | None = None
) -> Pushed:
    """``response: {pushed: true}`` or ``{pushed: {resumable: true, retry: 200}}``."""
    if enabled is not True:
        raise ConfigError("pushed: false is no reply; remove the key, or give pushed: true")
    return pushed(reply, resumable=resumable, retry=retry)


register_reply_kind("pushed", _from_file, composes=True)
