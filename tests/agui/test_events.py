"""``agui._events``, pure: a script's records as the events of its runs, without a server."""

from __future__ import annotations

from typing import Any

from mockhttp import agui
from mockhttp.agui._events import Ids, run_events, runs
from mockhttp.agui._script import NewRun, items


def play(*entries: Any, run_id: str = "r") -> tuple[list[dict[str, Any]], Any]:
    chunks, ended = run_events(items(entries), Ids("salt", 1), "t", run_id)
    return [c.data for c in chunks], ended


def kinds(*entries: Any) -> list[str]:
    return [e["type"] for e in play(*entries)[0]]


def test_runs_split_at_new_run() -> None:
    script = items([agui.text("a"), agui.new_run(run_id="x"), agui.new_run()])
    assert [(head, len(entries)) for head, entries in runs(script)] == [
        (NewRun(), 1), (NewRun("x"), 0), (NewRun(), 0)
    ]  # fmt: skip


def test_each_run_its_ids() -> None:
    events, ended = play(agui.new_run(), agui.new_run(run_id="x", thread_id="u"))
    edges = [(e["type"], e["threadId"], e["runId"]) for e in events]
    assert edges == [
        ("RUN_STARTED", "t", "r"), ("RUN_FINISHED", "t", "r"),
        ("RUN_STARTED", "t", "r-2"), ("RUN_FINISHED", "t", "r-2"),
        ("RUN_STARTED", "u", "x"), ("RUN_FINISHED", "u", "x"),
    ]  # fmt: skip
    assert ended is None


def test_the_ways_a_run_fails() -> None:
    assert kinds(agui.error("x", before_start=True)) == ["RUN_ERROR"]
    assert kinds(agui.error("x", after_finished=True)) == [
        "RUN_STARTED", "RUN_FINISHED", "RUN_ERROR"
    ]  # fmt: skip
    assert kinds(agui.step("s", agui.error("x"))) == ["RUN_STARTED", "STEP_STARTED", "RUN_ERROR"]
    events, ended = play(agui.text("a"), agui.new_run(), agui.error("x", drop=True))
    assert [e["type"] for e in events][-2:] == ["RUN_FINISHED", "RUN_STARTED"]  # no terminal
    assert ended == agui.error("x", drop=True)
    events, _ = play(agui.error("boom", code="E1"))
    assert events[-1] == {"type": "RUN_ERROR", "message": "boom", "code": "E1"}


def test_a_tool_calls_parent_is_the_runs_last_message() -> None:
    """Not a message of the run before, nor one inside a subagent."""
    events, _ = play(agui.text("a", id="m1"), agui.new_run(), agui.tool_call("f", id="c"))
    assert "parentMessageId" not in next(e for e in events if e["type"] == "TOOL_CALL_START")
    events, _ = play(agui.text("a", id="m1"), agui.subagent("s", agui.text("b", id="m2")),
                     agui.tool_call("f", id="c"))  # fmt: skip
    assert next(e for e in events if e["type"] == "TOOL_CALL_START")["parentMessageId"] == "m1"


def test_chunk_shorthands() -> None:
    events, _ = play(agui.text("", id="m", chunked=True))  # an empty message: one chunk
    assert events[1] == {
        "type": "TEXT_MESSAGE_CHUNK",
        "messageId": "m",
        "role": "assistant",
        "delta": "",
    }
    events, _ = play(agui.reasoning("a b", id="r", chunked=True, encrypted="e"))
    assert [e["type"] for e in events[1:-1]] == [
        "REASONING_START", "REASONING_MESSAGE_CHUNK", "REASONING_MESSAGE_CHUNK",
        "REASONING_ENCRYPTED_VALUE", "REASONING_END",
    ]  # fmt: skip
    assert events[3] == {"type": "REASONING_MESSAGE_CHUNK", "delta": " b"}


def test_subagents_tag_everything_inside() -> None:
    events, _ = play(agui.subagent("a", agui.step("s", agui.custom("c")),
                                   agui.subagent("b", agui.raw(1), id="s2"), id="s1"))  # fmt: skip
    tags = [(e["type"], e.get("subagentRunId"), e.get("parentSubagentRunId")) for e in events]
    assert tags[1:-1] == [
        ("SUBAGENT_STARTED", "s1", None),
        ("STEP_STARTED", "s1", None),
        ("CUSTOM", "s1", None),
        ("STEP_FINISHED", "s1", None),
        ("SUBAGENT_STARTED", "s2", "s1"),
        ("RAW", "s2", None),
        ("SUBAGENT_FINISHED", "s2", None),
        ("SUBAGENT_FINISHED", "s1", None),
    ]


def test_optional_fields_left_out() -> None:
    events, _ = play(agui.activity("t", id="a"), agui.raw(None))
    assert events[1] == {"type": "ACTIVITY_SNAPSHOT", "messageId": "a", "activityType": "t",
                         "content": {}}  # fmt: skip
    assert events[2] == {"type": "RAW", "event": None}
