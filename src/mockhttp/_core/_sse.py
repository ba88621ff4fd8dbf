"""Server-Sent Events: the ``Event`` a mock sends, and its encoding to bytes.

Encoding follows the WHATWG event-stream format (HTML §9.2): each event is a block of
``field: value`` lines ended by a blank line.  Field order is comment, ``event``, ``id``,
``retry``, ``data`` -- the order real providers use (``event:`` before ``data:``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from ._errors import ConfigError
from ._units import Duration, seconds

__all__ = ["Event", "LineEnding", "dumps_compact", "encode_event"]

LineEnding = Literal["\n", "\r\n", "\r"]
_LINES = re.compile(r"\r\n|\r|\n")
_NO_DATA = object()


def dumps_compact(value: Any) -> str:
    """JSON with no spaces (``{"a":1}``), keys in the order given, UTF-8 kept as is."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


@dataclass(frozen=True, init=False, slots=True)
class Event:
    """One server-sent event.

    Args:
        data: a dict or list is sent as compact JSON on one ``data:`` line; text is sent as
            it is, one ``data:`` line per line of text; other JSON values (numbers, bools)
            as JSON.  None (the default) sends no ``data:`` line.
        event: the ``event:`` name (Anthropic-style named events).
        id: the ``id:`` field.
        retry: the ``retry:`` field, in milliseconds.
        comment: a comment, sent as ``: text`` lines (``Event(comment="keep-alive")``).
        delay: wait this long before sending the event (seconds, timedelta or ``"20ms"``);
            it replaces the stream's ``event_delay`` for this event.

    Raises:
        ConfigError: a field that cannot be sent as given (a newline in ``event`` or
            ``id``, a negative ``retry``, data that is not JSON-serialisable).  Fix the
            argument; the message names it.
    """

    data: Any
    event: str | None
    id: str | None
    retry: int | None
    comment: str | None
    delay: float | None

    def __init__(
        self,
        data: Any = None,
        *,
        event: str | None = None,
        id: str | None = None,
        retry: int | None = None,
        comment: str | None = None,
        delay: Duration | None = None,
    ) -> None:
        _check_single_line("event", event)
        _check_single_line("id", id)
        if id is not None and "\0" in id:
            raise ConfigError(f"id={id!r} must not contain NUL (clients ignore such an id)")
        if retry is not None and (
            isinstance(retry, bool) or not isinstance(retry, int) or retry < 0
        ):
            raise ConfigError(f"retry={retry!r} must be a non-negative int (milliseconds)")
        if comment is not None and not isinstance(comment, str):
            raise ConfigError(f"comment={comment!r} must be text")
        if data is not None and not isinstance(data, str):
            try:
                dumps_compact(data)
            except (TypeError, ValueError) as exc:
                raise ConfigError(f"data={data!r} cannot be sent as JSON: {exc}") from None
        object.__setattr__(self, "data", data)
        object.__setattr__(self, "event", event)
        object.__setattr__(self, "id", id)
        object.__setattr__(self, "retry", retry)
        object.__setattr__(self, "comment", comment)
        object.__setattr__(self, "delay", None if delay is None else seconds(delay, "delay"))

    def __repr__(self) -> str:
        fields = [
            f"{name}={getattr(self, name)!r}"
            for name in ("data", "event", "id", "retry", "comment", "delay")
            if getattr(self, name) is not None
        ]
        return f"Event({', '.join(fields)})"

    @property
    def data_text(self) -> str | None:
        """The data as the client will see it (JSON text for dicts and lists)."""
        if self.data is None or isinstance(self.data, str):
            return self.data
        return dumps_compact(self.data)

    def encode(self, line_ending: LineEnding = "\n", space: bool = True) -> bytes:
        """The event's bytes on the wire, blank line included."""
        return encode_event(self, line_ending, space)


def _check_single_line(name: str, value: str | None) -> None:
    if value is None:
        return
    if not isinstance(value, str):
        raise ConfigError(f"{name}={value!r} must be text")
    if "\n" in value or "\r" in value:
        raise ConfigError(f"{name}={value!r} must be a single line (no CR or LF)")


def encode_event(event: Event, line_ending: LineEnding = "\n", space: bool = True) -> bytes:
    """Encode ``event`` as an event-stream block ending in a blank line.

    ``space`` puts one space after each field's colon (``data: x``) -- what most servers
    send; ``space=False`` gives ``data:x`` (TGI and others).
    """
    sep = ": " if space else ":"
    lines: list[str] = []
    if event.comment is not None:
        lines.extend(
            (": " + part if part and space else ":" + part) for part in _LINES.split(event.comment)
        )
    if event.event is not None:
        lines.append("event" + sep + event.event)
    if event.id is not None:
        lines.append("id" + sep + event.id)
    if event.retry is not None:
        lines.append("retry" + sep + str(event.retry))
    text = event.data_text
    if text is not None:
        lines.extend("data" + sep + part for part in _LINES.split(text))
    return (line_ending.join(lines) + line_ending + line_ending).encode("utf-8")
