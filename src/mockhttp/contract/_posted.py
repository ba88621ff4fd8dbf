"""One JSON body POSTed to an agent endpoint asking for an event stream, and checked: the
live step the ``ag-ui`` and ``a2a`` profiles share."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ._check import Outcome, evaluate
from ._record import Interrupted, Limits, record
from ._transcript import Transcript

__all__ = ["Exchanged", "check_posted"]

Exchanged = Callable[[str, dict[str, Any], Transcript], None]


def check_posted(
    url: str,
    body: dict[str, Any],
    headers: Mapping[str, str],
    timeout: float,
    limits: Limits | None,
    on_exchange: Exchanged | None,
    *,
    profile: str,
    exchange: str,
) -> list[Outcome]:
    """POST ``body`` to ``url`` with ``Accept: text/event-stream`` (``headers`` may
    override it), record the reply under ``limits`` and check it with ``profile``; Ctrl-C
    checks what arrived."""
    sent = {"accept": "text/event-stream", **headers}
    try:
        transcript = record(url, body, headers=sent, timeout=timeout, limits=limits)
    except Interrupted as stop:
        transcript = stop.transcript
    if on_exchange is not None:
        on_exchange(url, body, transcript)
    return [evaluate(transcript, [profile], exchange)]
