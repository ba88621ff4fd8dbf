"""Support for the fault tests (no tests here).

Apply faults the way the server does, and read the result the way an HTTP client does
(with h11, a parser independent of ours)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import h11

from mockhttp import Event
from mockhttp._core._plan import Data, End, Fault, FaultContext, Head, Pause, Raw, Step
from mockhttp._core._wire import frame


def chunk(content: str) -> Event:
    """An event of a streamed chat completion, as in the seed."""
    return Event(
        data={
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {"content": content}}],
        }
    )


SEED_EVENTS = (chunk("Hel"), chunk("lo, "), chunk("world"), Event(data="[DONE]"))
SEED_BODY = b"".join(e.encode() for e in SEED_EVENTS)


def stream_plan(*events: bytes, delay: float = 0.0) -> Iterator[Step]:
    """A chunked event stream: head, then each event as one ``Data``, ``delay`` apart."""
    yield Head(200, "OK", (("content-type", "text/event-stream"),), None)
    for i, data in enumerate(events):
        if delay and i:
            yield Pause(delay)
        yield Data(data, i)
    yield End("complete")


def seed_plan(delay: float = 0.0) -> Iterator[Step]:
    """The seed's stream: three chunks and [DONE]."""
    return stream_plan(*(e.encode() for e in SEED_EVENTS), delay=delay)


def body_plan(*parts: bytes) -> Iterator[Step]:
    """A plain body with a known length (``Content-Length``)."""
    yield Head(200, "OK", (), sum(map(len, parts)))
    for part in parts:
        yield Data(part)
    yield End("complete")


def apply(
    faults: Sequence[Fault],
    plan: Iterable[Step],
    *,
    call_index: int = 0,
    head_only: bool = False,
    http10: bool = False,
) -> Iterator[Step]:
    """The wire plan the server runs: body hooks, framing, then wire hooks."""
    ctx = FaultContext(call_index)
    steps: Iterator[Step] = iter(plan)
    for f in faults:
        steps = f.body(steps, ctx)
    wire = frame(steps, head_only=head_only, http10=http10)
    for f in faults:
        wire = f.wire(wire, ctx)
    return wire


def run(faults: Sequence[Fault], plan: Iterable[Step], **kw: Any) -> list[Step]:
    """``apply``, listed (for finite plans only)."""
    return list(apply(faults, plan, **kw))


def wire_bytes(steps: Iterable[Step]) -> bytes:
    return b"".join(s.data for s in steps if isinstance(s, Raw))


def end_of(steps: Sequence[Step]) -> str:
    last = steps[-1]
    assert isinstance(last, End), last
    return last.how


def pauses(steps: Iterable[Step]) -> list[float]:
    return [s.seconds for s in steps if isinstance(s, Pause)]


@dataclass
class Seen:
    """What an HTTP client parser makes of the bytes it received before the connection ended."""

    status: int | None
    body: bytes
    result: str  # "complete", or "error: <h11 message>"


def client_view(data: bytes, *, method: bytes = b"GET") -> Seen:
    """Feed ``data`` then EOF to an h11 client, as after a close; report what it got."""
    conn = h11.Connection(h11.CLIENT)
    conn.send(h11.Request(method=method, target="/", headers=[("Host", "test")]))
    conn.send(h11.EndOfMessage())
    conn.receive_data(data)
    conn.receive_data(b"")
    status: int | None = None
    body = b""
    try:
        while True:
            event = conn.next_event()
            if isinstance(event, h11.Response):
                status = event.status_code
            elif isinstance(event, h11.Data):
                body += event.data
            elif isinstance(event, h11.EndOfMessage):
                return Seen(status, body, "complete")
            else:
                return Seen(status, body, f"error: unexpected {event!r}")
    except h11.RemoteProtocolError as exc:
        return Seen(status, body, f"error: {exc}")
