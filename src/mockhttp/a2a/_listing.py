"""``ListTasks`` (A2A 1.0): the filters, the order and the pages, on tasks as they stand.

Rule 1 (the specification): tasks are sorted by their status timestamp, newest first;
``contextId``, ``status`` and ``statusTimestampAfter`` filter them (all of them: AND);
``pageSize`` is 1 to 100 (50 when absent); the answer says ``tasks``, ``nextPageToken``
(``""`` on the last page), ``pageSize`` (the tasks on this page) and ``totalSize`` (the
tasks that match).  ``historyLength`` limits each task's history, artifacts are left out
unless ``includeArtifacts``.
Rule 2: a page token is opaque to the client and says where the next page starts; one the
agent did not hand out, a status that is no state, a timestamp that is no ISO 8601 date
and a page size out of range are invalid params (``-32602``).

Pure: :func:`query` reads the params, :func:`page` picks the tasks.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ._spec import state_named
from ._tasks import Live
from ._validate import Invalid, history_length, whole

__all__ = ["Query", "page", "query"]

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 100
_TOKEN = "page-"


@dataclass(frozen=True)
class Query:
    context_id: str | None = None
    state: str | None = None
    after: float | None = None
    page_size: int = DEFAULT_PAGE_SIZE
    start: int = 0
    history_length: int | None = None
    include_artifacts: bool = False


def query(params: dict[str, Any]) -> Query:
    """The params of a ``ListTasks`` request (raises :class:`Invalid`)."""
    context_id = params.get("contextId")
    if context_id is not None and not isinstance(context_id, str):
        raise Invalid("Invalid params: contextId must be text")
    state = None
    if params.get("status") not in (None, "", "TASK_STATE_UNSPECIFIED"):
        state = state_named(params["status"])
        if state is None:
            raise Invalid(f"Invalid params: status {params['status']!r} is not a task state")
    size = params.get("pageSize")
    page_size = DEFAULT_PAGE_SIZE if size is None else whole(size, "pageSize")
    if not 1 <= page_size <= MAX_PAGE_SIZE:
        raise Invalid(f"Invalid params: pageSize must be 1 to {MAX_PAGE_SIZE}, not {page_size}")
    include = params.get("includeArtifacts", False)
    if not isinstance(include, bool):
        raise Invalid("Invalid params: includeArtifacts must be true or false")
    return Query(
        context_id,
        state,
        _timestamp(params.get("statusTimestampAfter")),
        page_size,
        _start(params.get("pageToken")),
        history_length(params),
        include,
    )


def page(tasks: list[Live], asked: Query) -> tuple[list[Live], dict[str, Any]]:
    """The tasks of the page asked for, and the answer's other fields."""
    matching = [
        t
        for t in tasks
        if (asked.context_id is None or t.context_id == asked.context_id)
        and (asked.state is None or t.state == asked.state)
        and (asked.after is None or t.updated > asked.after)
    ]
    matching.sort(key=lambda t: (t.updated, _number(t.id)), reverse=True)
    chosen = matching[asked.start : asked.start + asked.page_size]
    end = asked.start + len(chosen)
    token = f"{_TOKEN}{end}" if end < len(matching) else ""
    return chosen, {"nextPageToken": token, "pageSize": len(chosen), "totalSize": len(matching)}


def _start(token: Any) -> int:
    if token in (None, ""):
        return 0
    text = token if isinstance(token, str) else ""
    digits = text.removeprefix(_TOKEN)
    if not text.startswith(_TOKEN) or not digits.isdigit():
        raise Invalid(f"Invalid params: pageToken {token!r} is not one this agent gave")
    return int(digits)


def _timestamp(value: Any) -> float | None:
    if value is None or value == "":
        return None
    try:
        when = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        when = None
    if when is None or when.tzinfo is None:
        raise Invalid(
            f"Invalid params: statusTimestampAfter {value!r} must be an ISO 8601 time with a zone"
        )
    return when.timestamp()


def _number(task_id: str) -> int:
    digits = task_id.rpartition("-")[2]
    return int(digits) if digits.isdigit() else 0
