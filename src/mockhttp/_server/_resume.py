"""Checking a reconnecting event-stream client against a resumable stream's calls.

A resumable stream (``event_stream(resumable=True)``) is sent in pieces: a first call
cut by a fault, then reconnects carrying ``Last-Event-ID``.  ``resume_problems`` reads a
mock's calls in order and says what the client did wrong (Rule 1: each problem names the
call, by its number from 1, and what was expected).

- Each reconnect carries the id of the last event delivered whole before it (HTML
  §9.2.4: the "last event ID string"; an event cut in the middle is not dispatched).
- A reconnect after a cut comes no sooner than ``retry`` (the reconnection time).
- Every event is delivered once, in order, none skipped (when the stream was meant to end).
"""

from __future__ import annotations

from collections.abc import Sequence

from ._journal import Call

__all__ = ["resume_problems"]


def resume_problems(
    calls: Sequence[Call], ids: Sequence[str | None], retry: float | None, slack: float
) -> list[str]:
    """What is wrong with how the client read the stream with event ``ids`` over
    ``calls`` (empty: it resumed correctly)."""
    if len(calls) < 2:
        return [f"the client never reconnected ({len(calls)} call(s))"]
    problems: list[str] = []
    seen: dict[str, int] = {}
    last: str | None = None
    for n, call in enumerate(calls, 1):
        if n > 1:
            problems.extend(_reconnect(n, call, calls[n - 2], last, retry, slack))
        for event_id in call.event_ids:
            if event_id in seen:
                problems.append(
                    f"event id={event_id!r} was delivered twice (calls {seen[event_id]} and {n})"
                )
            seen.setdefault(event_id, n)
            last = event_id
    missing = [i for i in ids if i is not None and i not in seen]
    if missing:
        problems.append(f"events never delivered: {', '.join(map(repr, missing))}")
    return problems


def _reconnect(
    n: int, call: Call, before: Call, last: str | None, retry: float | None, slack: float
) -> list[str]:
    problems = []
    if call.last_event_id != last:
        problems.append(
            f"call {n} came with Last-Event-ID {call.last_event_id!r}, expected {last!r} "
            "(the last event delivered whole before it)"
        )
    waited = call.after_cut
    cut = before.cut_time is not None and waited is not None
    if cut and retry is not None and waited is not None and waited + slack < retry:
        problems.append(
            f"call {n} came {waited * 1000:.0f} ms after the cut, sooner than "
            f"retry: {retry * 1000:.0f} ms"
        )
    return problems
