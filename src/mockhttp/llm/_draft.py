"""Drafts: a generated LLM reply as data, before it becomes bytes.

Every reply of :mod:`mockhttp.llm` is made in three steps, for each request:

1. **draft**: the provider module turns the reply's content (text, tool calls, usage) and
   the request into a :class:`Draft`: the status, the headers, and either the buffered
   JSON ``body`` or the stream's ``chunks`` with its :class:`Framing`.  A :class:`Chunk` is
   one event as data: its payload (a dict, or text such as ``[DONE]``), its ``event:`` name,
   a comment, and a ``kind`` tag saying what it is (see ``KINDS``), so a transform finds
   "the finish chunk" or "the usage chunk" without parsing payloads.
2. **transform**: the reply's ``transforms`` run in order, each a callable
   ``(Draft, Context) -> Draft`` (the hook for quirks: add a comment chunk, put the role on
   every chunk, drop ``[DONE]``, switch to CRLF ...).  The :class:`Context` has the request,
   the call number and a random generator seeded per call, so a transform that draws is
   deterministic in a test run.  Drafts are frozen: a transform returns a new one
   (``dataclasses.replace``).  A transform with a file form has ``to_args()`` returning
   ``[name, arg, ...]``, and its constructor is registered in ``TRANSFORMS`` under that
   name, so ``transforms: [[name, arg]]`` in a mock file builds it.
3. **render**: pauses are given to the chunks that have none of their own (``ttft`` before
   the first, ``1 / chunks_per_second`` between the others, times ``1 ± jitter``), and the
   draft becomes a core :class:`~mockhttp.Reply`: chunks become ``Event`` objects sent with
   the framing's line ending and colon spacing (then the framing's byte order mark and
   final blank line are applied to the bytes), a body becomes JSON.

Payload dicts are serialised with the framing's separators (compact by default, keys in
the order built).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from .._core._errors import ConfigError
from .._core._registry import Registry
from .._core._reply import Reply, status
from .._core._request import Request
from .._core._sse import Event, LineEnding
from .._core._units import seconds

__all__ = [
    "CONTENT_KINDS",
    "KINDS",
    "TRANSFORMS",
    "Chunk",
    "Context",
    "Draft",
    "Framing",
    "Timing",
    "Transform",
    "render",
]

KINDS = (
    "start",  # opens the stream: OpenAI's role chunk, message_start, response.created
    "text",  # a text fragment
    "refusal",  # a refusal fragment
    "thinking",  # a thinking (reasoning) fragment or its signature
    "tool",  # a tool call's start or an argument fragment
    "block",  # opens or closes a content block / output item (typed streams)
    "finish",  # carries the finish / stop reason
    "usage",  # carries the usage only
    "end",  # closes a typed stream: message_stop, response.completed
    "done",  # the data: [DONE] terminator
    "ping",  # a keep-alive event
    "comment",  # a comment line
    "error",  # a mid-stream error
)
CONTENT_KINDS = frozenset({"text", "refusal", "thinking", "tool"})
"""The kinds of chunks that carry content (what ``error_after`` counts, what quirks cut)."""


@dataclass(frozen=True)
class Chunk:
    """One event of a generated stream, as data.

    ``data`` is a dict or list (sent as JSON), text (sent as is, e.g. ``[DONE]``) or None
    (no ``data:`` line); ``delay`` replaces the timing's pause before this event.
    """

    data: Any = None
    kind: str = "text"
    event: str | None = None
    comment: str | None = None
    id: str | None = None
    delay: float | None = None


@dataclass(frozen=True)
class Framing:
    """How chunks become bytes.

    Attributes:
        line_ending: ``"\\n"``, ``"\\r\\n"`` (Gemini) or ``"\\r"``.
        space: a space after each field's colon (``data: x``); False gives ``data:x``.
        separators: the JSON separators of dict payloads (``(", ", ": ")`` is spaced).
        final_blank_line: False leaves out the blank line that ends the last event, so the
            stream ends mid-event.
        bom: start the stream with a UTF-8 byte order mark.
    """

    line_ending: LineEnding = "\n"
    space: bool = True
    separators: tuple[str, str] = (",", ":")
    final_blank_line: bool = True
    bom: bool = False


@dataclass(frozen=True)
class Draft:
    """A reply before it is rendered: a buffered ``body`` or streamed ``chunks``.

    ``provider`` is the kind's file key (``openai_chat``); ``streamed`` says which of
    ``body`` and ``chunks`` is sent.
    """

    provider: str
    streamed: bool
    status: int = 200
    headers: tuple[tuple[str, str], ...] = ()
    body: Any = None
    chunks: tuple[Chunk, ...] = ()
    framing: Framing = field(default_factory=Framing)

    def with_chunks(self, chunks: tuple[Chunk, ...] | list[Chunk]) -> Draft:
        """This draft with other chunks."""
        return dataclasses.replace(self, chunks=tuple(chunks))


@dataclass(frozen=True)
class Context:
    """What a draft is made for: the request, its JSON body, the call, a seeded random."""

    request: Request
    body: Mapping[str, Any]
    call: int
    rng: random.Random
    model: str


class Transform(Protocol):
    """A change to a draft, applied after it is built and before it is rendered."""

    def __call__(self, draft: Draft, context: Context, /) -> Draft: ...


TRANSFORMS: Registry[Callable[..., Transform]] = Registry("transform")
"""Transforms with a file form, by name (``TRANSFORMS.add(name, make)``, by the modules
that define them)."""


@dataclass(frozen=True)
class Timing:
    """Pauses: ``ttft`` before the first chunk, ``interval`` between chunks.

    ``jitter`` (0 to 1) scales each interval by a factor drawn from ``1 +- jitter``; the
    ``ttft`` is exact, so a test can rely on it.
    """

    ttft: float = 0.0
    interval: float = 0.0
    jitter: float = 0.0

    @classmethod
    def of(cls, ttft: Any, chunks_per_second: Any, jitter: Any, seed: Any = 0) -> Timing:
        """The timing of a reply's options, checked (``ttft`` a duration, the rest numbers).

        Raises:
            ConfigError: an option out of its range (the message names it).
        """
        cps = chunks_per_second
        if cps is not None and (
            isinstance(cps, bool) or not isinstance(cps, int | float) or cps <= 0
        ):
            raise ConfigError(f"chunks_per_second={cps!r} must be a positive number")
        if isinstance(jitter, bool) or not isinstance(jitter, int | float) or not 0 <= jitter <= 1:
            raise ConfigError(f"jitter={jitter!r} must be a number from 0 to 1")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ConfigError(f"seed={seed!r} must be an int")
        return cls(seconds(ttft, "ttft"), 1.0 / cps if cps else 0.0, float(jitter))

    def delays(self, count: int, rng: random.Random) -> list[float]:
        """The pause before each of ``count`` chunks (jitter drawn from ``rng``)."""
        out = []
        for i in range(count):
            base = self.ttft if i == 0 else self.interval
            if self.jitter and base and i:
                base *= 1.0 + rng.uniform(-self.jitter, self.jitter)
            out.append(base)
        return out


def payload_text(data: Any, framing: Framing) -> str | None:
    """A chunk's data as the text of its ``data:`` lines."""
    if data is None or isinstance(data, str):
        return data
    return _encoder(framing.separators)(data)


@functools.cache
def _encoder(separators: tuple[str, str]) -> Callable[[Any], str]:
    """``json.dumps(data, separators=separators, ensure_ascii=False)``, the encoder made
    once (``json.dumps`` with options makes a new one for every chunk)."""
    return json.JSONEncoder(separators=separators, ensure_ascii=False).encode


def render(draft: Draft, timing: Timing, rng: random.Random) -> Reply:
    """The core reply that sends ``draft``."""
    names = {name.lower() for name, _ in draft.headers}
    headers = list(draft.headers)
    if "content-type" not in names:
        kind = "text/event-stream; charset=utf-8" if draft.streamed else "application/json"
        headers.insert(0, ("Content-Type", kind))
    reply = status(draft.status)._add_headers(headers)  # (checked as .header() does)
    if not draft.streamed:  # the whole answer at once, after the time to first token
        reply = reply.body(payload_text(draft.body, draft.framing) or "")
        return reply.delay(timing.ttft) if timing.ttft else reply
    pauses = timing.delays(len(draft.chunks), rng)
    events = [
        Event(
            payload_text(c.data, draft.framing),
            event=c.event,
            id=c.id,
            comment=c.comment,
            delay=pause if c.delay is None else c.delay,
        )
        for c, pause in zip(draft.chunks, pauses, strict=True)
    ]
    reply = reply.event_stream(
        *events, line_ending=draft.framing.line_ending, space=draft.framing.space
    )
    return _edge_bytes(reply, draft.framing)


def _edge_bytes(reply: Reply, framing: Framing) -> Reply:
    """The stream with a byte order mark first, or without its final blank line."""
    stream = reply.stream
    if stream is None or not stream.encoded or (framing.final_blank_line and not framing.bom):
        return reply
    encoded = list(stream.encoded)
    if framing.bom:
        encoded[0] = b"\xef\xbb\xbf" + encoded[0]
    if not framing.final_blank_line:
        encoded[-1] = encoded[-1][: -len(framing.line_ending)]
    return dataclasses.replace(reply, stream=dataclasses.replace(stream, encoded=tuple(encoded)))
