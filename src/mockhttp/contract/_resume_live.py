"""The live ``sse-resume`` probe: two GETs of one event stream, the second with
``Last-Event-ID``, checked by the rules of ``_resume``."""

from __future__ import annotations

from collections.abc import Mapping

from ._check import Outcome, evaluate
from ._record import Limits, record
from ._resume import SSE_RESUME, plan
from ._stream import Stream
from ._transcript import Transcript

__all__ = ["PROFILE", "probe_resume"]

PROFILE = "sse-resume"


def probe_resume(
    url: str,
    headers: Mapping[str, str],
    timeout: float,
    limits: Limits | None = None,
) -> Outcome:
    """Read ``url``'s event stream, reconnect with ``Last-Event-ID: K``, check the rest.

    When the stream cannot be probed (no id, not GET-able), every rule is skipped and the
    outcome says why (``Outcome.why_skipped``).
    """
    sent = {"accept": "text/event-stream", "cache-control": "no-cache", **headers}
    first = record(url, headers=sent, timeout=timeout, limits=limits, method="GET")
    made = plan(Stream(first))
    if isinstance(made, str):
        ids = tuple(rule.id for rule in SSE_RESUME)
        return Outcome("resume", SSE_RESUME, (), ids, (PROFILE,), made)
    again = {**sent, "last-event-id": made.last_event_id}
    second = record(url, headers=again, timeout=timeout, limits=limits, method="GET")
    resumed = Transcript(
        second.status, second.headers, second.chunks, None, None, second.error,
        before=first, last_event_id=made.last_event_id,
    )  # fmt: skip
    return evaluate(resumed, PROFILE, f"resume after Last-Event-ID {made.last_event_id}")
