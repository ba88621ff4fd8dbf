"""What the typed event streams share (Anthropic Messages, OpenAI Responses).

In both, each ``data:`` is a JSON object whose ``type`` names the event, and the
``event:`` line repeats that type; the rules of each profile read the stream as
(message, type, object) triples.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .._core._sse_decode import Message
from ._rule import Hit, hit, short
from ._stream import Stream

__all__ = ["event_name", "typed", "untyped"]


def typed(stream: Stream) -> list[tuple[Message, str, dict[str, Any]]]:
    """Each event whose data is a JSON object with a text ``type``: message, type, object."""
    return [
        (p.message, p.obj["type"], p.obj)
        for p in stream.payloads
        if p.obj is not None and isinstance(p.obj.get("type"), str)
    ]


def untyped(stream: Stream, allowed: frozenset[str] = frozenset()) -> Iterator[Hit]:
    """A hit for each data that is not a JSON object with a type (nor one of ``allowed``)."""
    for p in stream.payloads:
        if p.message.data not in allowed and (
            p.obj is None or not isinstance(p.obj.get("type"), str)
        ):
            yield hit(p.message, f"data is not a JSON object with a type: {short(p.message.data)}")


def event_name(stream: Stream) -> Iterator[Hit]:
    """A hit for each typed event whose ``event:`` line is not its type."""
    for message, kind, _ in typed(stream):
        if message.event != kind:
            seen = "no event: line" if message.event == "message" else f"event: {message.event}"
            yield hit(message, f"{seen} on data of type {short(kind)}, expected event: {kind}")
