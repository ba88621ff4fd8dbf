"""The decoded view of a transcript that rules read: events, comments, JSON payloads."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .._core._sse_decode import Comment, Decoder, Item, Message, Unterminated
from ._transcript import Transcript

__all__ = ["Payload", "Stream"]

_INVALID = object()


@dataclass(frozen=True, slots=True)
class Payload:
    """A dispatched event with its data parsed as JSON (``value`` is None if it is not)."""

    message: Message
    value: Any
    valid: bool

    @property
    def obj(self) -> dict[str, Any] | None:
        """The payload when it is a JSON object, else None."""
        return self.value if self.valid and isinstance(self.value, dict) else None


class Stream:
    """A transcript decoded once, for all rules: items, events, comments and payloads."""

    def __init__(self, transcript: Transcript) -> None:
        self.transcript = transcript
        decoder = Decoder()
        items: list[Item] = []
        for chunk in transcript.chunks:
            items += decoder.feed(chunk.data, chunk.at)
        items += decoder.close(transcript.chunks[-1].at if transcript.chunks else None)
        self.items = tuple(items)
        self.messages = tuple(i for i in items if isinstance(i, Message))
        self.comments = tuple(i for i in items if isinstance(i, Comment))
        self.tail = next((i for i in items if isinstance(i, Unterminated)), None)
        self.payloads = tuple(_parse(m) for m in self.messages)
        self.memo: dict[str, Any] = {}  # views many rules share, computed once per stream

    @property
    def content_type(self) -> str:
        """The content-type essence (lowercase, parameters dropped), or ``""``."""
        value = self.transcript.header("content-type") or ""
        return value.partition(";")[0].strip().lower()

    @property
    def is_event_stream(self) -> bool:
        """True when the response declared ``text/event-stream`` (the MIME essence)."""
        return self.content_type == "text/event-stream"

    @property
    def failed(self) -> bool:
        """No stream to check: no response, a non-200 status, or a reply that is not SSE.

        A stream cut mid-body is still checked: the rules see what arrived (so a missing
        ``[DONE]`` or an unfinished event is reported along with ``http.transport``).
        """
        t = self.transcript
        return t.status != 200 or not (self.is_event_stream or self.messages)


def _parse(message: Message) -> Payload:
    try:
        return Payload(message, json.loads(message.data), True)
    except (ValueError, RecursionError):  # nested too deep to parse: not JSON either
        return Payload(message, None, False)
