"""ListTasks, pure: the params read, the filters, the order, the pages."""

from __future__ import annotations

import pytest

from mockhttp import a2a
from mockhttp.a2a._listing import Query, page, query
from mockhttp.a2a._tasks import Live
from mockhttp.a2a._validate import Invalid

SCRIPT = a2a.task(a2a.status("completed"))


def live(n: int, context: str, state: str, updated: float) -> Live:
    return Live(f"task-{n}", context, SCRIPT, state=state, updated=updated)


TASKS = [
    live(1, "a", "working", 10),
    live(2, "b", "completed", 30),
    live(3, "a", "completed", 20),
    live(4, "a", "working", 20),
]


def ids(tasks: list[Live]) -> list[str]:
    return [t.id for t in tasks]


def test_newest_first_ties_by_creation() -> None:
    chosen, fields = page(TASKS, query({}))
    assert ids(chosen) == ["task-2", "task-4", "task-3", "task-1"]
    assert fields == {"nextPageToken": "", "pageSize": 4, "totalSize": 4}


def test_filters_and() -> None:
    asked = query({"contextId": "a", "status": "TASK_STATE_COMPLETED"})
    assert ids(page(TASKS, asked)[0]) == ["task-3"]
    assert ids(page(TASKS, query({"statusTimestampAfter": "1970-01-01T00:00:15Z"}))[0]) == [
        "task-2",
        "task-4",
        "task-3",
    ]
    assert page(TASKS, query({"contextId": "zzz"})) == (
        [],
        {"nextPageToken": "", "pageSize": 0, "totalSize": 0},
    )


def test_pages_and_tokens() -> None:
    first, fields = page(TASKS, query({"pageSize": 3}))
    assert (ids(first), fields["nextPageToken"], fields["totalSize"]) == (
        ["task-2", "task-4", "task-3"],
        "page-3",
        4,
    )
    rest, fields = page(TASKS, query({"pageSize": 3, "pageToken": "page-3"}))
    assert (ids(rest), fields) == (["task-1"], {"nextPageToken": "", "pageSize": 1, "totalSize": 4})


def test_the_defaults() -> None:
    assert query({}) == Query()
    assert Query().page_size == 50
    assert query({"historyLength": 2, "includeArtifacts": True}) == Query(
        history_length=2, include_artifacts=True
    )


@pytest.mark.parametrize(
    "params",
    [
        {"pageSize": 0},
        {"pageSize": 101},
        {"pageSize": -1},
        {"pageSize": 2.5},
        {"pageToken": "page-x"},
        {"pageToken": 3},
        {"status": "done"},
        {"statusTimestampAfter": "yesterday"},
        {"statusTimestampAfter": "2026-01-01T00:00:00"},
        {"historyLength": -1},
        {"includeArtifacts": "yes"},
        {"contextId": 5},
    ],
)
def test_invalid_params(params: dict[str, object]) -> None:
    with pytest.raises(Invalid, match="Invalid params"):
        query(params)
