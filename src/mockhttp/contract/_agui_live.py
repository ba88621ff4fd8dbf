"""Live ``ag-ui``: POST a ``RunAgentInput`` to an AG-UI endpoint and check the run it streams."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._check import Outcome
from ._live import PROMPT
from ._posted import Exchanged, check_posted
from ._record import Limits

__all__ = ["RUN_ID", "THREAD_ID", "agui_request", "run_agui_live"]

THREAD_ID = "mockhttp-check-thread"
RUN_ID = "mockhttp-check-run"


def agui_request(request: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The ``RunAgentInput`` sent: one user message, no tools; ``request`` (the user's own
    JSON) is laid over it."""
    base: dict[str, Any] = {
        "threadId": THREAD_ID,
        "runId": RUN_ID,
        "state": {},
        "messages": [{"id": "mockhttp-check-message", "role": "user", "content": PROMPT}],
        "tools": [],
        "context": [],
        "forwardedProps": {},
    }
    return {**base, **(request or {})}


def run_agui_live(
    url: str,
    headers: Mapping[str, str],
    timeout: float,
    limits: Limits | None = None,
    on_exchange: Exchanged | None = None,
    *,
    request: Mapping[str, Any] | None = None,
    profile: str = "ag-ui",
) -> list[Outcome]:
    """Send one run to ``url`` (as given: AG-UI endpoints have no fixed path) and check it
    with the ``ag-ui`` profile (or ``ag-ui-strict``); Ctrl-C checks what arrived."""
    body = agui_request(request)
    return check_posted(
        url, body, headers, timeout, limits, on_exchange, profile=profile, exchange="run"
    )
