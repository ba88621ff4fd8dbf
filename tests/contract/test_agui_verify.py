"""``_agui_verify``: the client's stages over a stream, rule by rule: the chunk expansion,
the pre-1.0 translation, ``verifyEvents``' runs, pairs, steps, subagents and owners."""

from __future__ import annotations

import json
from typing import Any

from mockhttp.contract._agui_verify import walk
from mockhttp.contract._stream import Stream
from mockhttp.contract._transcript import Transcript

START = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
FINISH = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}


def found(*events: dict[str, Any], warnings: bool = False) -> list[tuple[str, str]]:
    body = "".join(f"data: {json.dumps(e)}\n\n" for e in events).encode()
    hits = walk(Stream(Transcript.from_body(body)))
    return [(rule, h.message) for rule, h in hits if warnings or h.severity != "warning"]


def rules(*events: dict[str, Any]) -> list[str]:
    return [rule for rule, _ in found(*events)]


def text(kind: str, mid: str = "m", **more: Any) -> dict[str, Any]:
    extra = {"delta": "x"} if kind == "CONTENT" else {}
    return {"type": f"TEXT_MESSAGE_{kind}", "messageId": mid, **extra, **more}


def test_the_walk_is_memoised() -> None:
    stream = Stream(Transcript.from_body(b'data: {"type":"RUN_ERROR","message":"x"}\n\n'))
    assert walk(stream) is walk(stream)


def test_runs_start_over() -> None:
    """A new run after RUN_FINISHED or RUN_ERROR forgets the last run's ids and steps."""
    step = {"type": "STEP_STARTED", "stepName": "s"}
    assert rules(START, text("START"), text("END"), FINISH, START, text("START"), text("END"),
                 FINISH) == []  # fmt: skip
    assert rules(START, step, {"type": "RUN_ERROR", "message": "x"}, START, step,
                 {"type": "STEP_FINISHED", "stepName": "s"}, FINISH) == []  # fmt: skip
    assert rules(START, text("START"), START) == ["ag-ui.run-started"]


def test_the_order_of_runs() -> None:
    error = {"type": "RUN_ERROR", "message": "x"}
    assert rules(error, START, FINISH, error) == []
    assert found(text("START"))[0] == (
        "ag-ui.run-started", "the first event is TEXT_MESSAGE_START, expected RUN_STARTED"
    )  # fmt: skip
    assert rules(START, FINISH, text("START")) == ["ag-ui.terminal"]
    assert rules(START, error, error) == ["ag-ui.terminal"]
    assert rules(START, error, FINISH) == ["ag-ui.terminal"]


def test_open_things_at_run_finished() -> None:
    assert found(START, {"type": "REASONING_START", "messageId": "r"}, FINISH) == [
        ("ag-ui.reasoning-pairing",
         'RUN_FINISHED while reasoning span "r" is still open (never closed with REASONING_END)')
    ]  # fmt: skip
    assert rules(START, {"type": "REASONING_START", "messageId": "r"},
                 {"type": "RUN_ERROR", "message": "x"}) == []  # fmt: skip


def test_chunks_expand_as_the_client_expands_them() -> None:
    chunk = {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "delta": "a"}
    more = {"type": "TEXT_MESSAGE_CHUNK", "delta": "b"}
    assert rules(START, chunk, more, FINISH) == []  # RUN_FINISHED closes it
    # an explicit event on the same lane closes the chunked message first
    assert rules(START, chunk, text("CONTENT")) == ["ag-ui.text-pairing"]
    # RAW does not close it
    assert rules(START, chunk, {"type": "RAW", "event": 1}, more, FINISH) == []
    assert found(START, more)[0] == (
        "ag-ui.text-pairing", "the first TEXT_MESSAGE_CHUNK of a text message has no messageId"
    )  # fmt: skip
    tool = {"type": "TOOL_CALL_CHUNK", "toolCallId": "c", "delta": "{}"}
    assert "has no toolCallName" in found(START, tool)[0][1]
    named = {**tool, "toolCallName": "f"}
    assert "whose toolCallName" in found(START, named, {**named, "toolCallName": "g"})[0][1]


def test_chunk_lanes_per_subagent() -> None:
    a = {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "delta": "a", "subagentRunId": "s1"}
    b = {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m2", "delta": "b", "subagentRunId": "s2"}
    bare = {"type": "TEXT_MESSAGE_CHUNK", "delta": "c"}
    assert rules(START, a, b, {**bare, "subagentRunId": "s1"}, FINISH) == []
    assert "2 subagents have a text message open" in found(START, a, b, bare)[0][1]
    wrong = {**a, "subagentRunId": "s2"}
    assert "open under subagent" in found(START, a, wrong)[0][1]


def test_pre_1_0_thinking_events_are_translated() -> None:
    """The client gives THINKING_* a made-up id: a span it opens and closes is fine; a
    THINKING_END without its start closes nothing."""
    assert rules(START, {"type": "THINKING_START"}, {"type": "THINKING_END"}, FINISH) == []
    assert rules(START, {"type": "THINKING_END"}, FINISH) == ["ag-ui.reasoning-pairing"]
    warned = found(START, {"type": "THINKING_START"}, warnings=True)
    assert warned[0] == ("ag-ui.event",
                         "THINKING_START is a pre-1.0 event: the client translates it to "
                         "REASONING_START")  # fmt: skip


def test_steps_belong_to_their_owner() -> None:
    parent = {"type": "STEP_STARTED", "stepName": "tools"}
    child = {**parent, "subagentRunId": "s1"}
    done = {"type": "STEP_FINISHED", "stepName": "tools"}
    assert rules(START, parent, child, {**done, "subagentRunId": "s1"}, done, FINISH) == []
    assert found(START, parent, {**done, "subagentRunId": "s1"})[0][1] == (
        'STEP_FINISHED for step "tools", which is not open under subagent "s1" (it is open '
        "under the parent agent)"
    )


def test_subagents() -> None:
    started = {"type": "SUBAGENT_STARTED", "subagentRunId": "s1", "name": "n"}
    finished = {"type": "SUBAGENT_FINISHED", "subagentRunId": "s1"}
    assert rules(START, started, finished, FINISH) == []
    assert "already finished in this run" in found(START, started, finished, started)[0][1]
    assert "already active" in found(START, started, started)[0][1]
    assert "still open" in found(START, started, FINISH)[0][1]
    orphan = {**started, "subagentRunId": "s2", "parentSubagentRunId": "s9"}
    assert "has not started in this run" in found(START, orphan)[0][1]
    # a new run may reuse the id
    assert rules(START, started, finished, FINISH, START, started, finished, FINISH) == []


def test_owners() -> None:
    """A continuation may not contradict its opener's subagent; an untagged one agrees
    with any; a snapshot's messages and a tool result record owners too."""
    tagged = {"subagentRunId": "s1"}
    assert rules(START, text("START", **tagged), text("CONTENT"), text("END"), FINISH) == []
    assert rules(START, text("START"), text("CONTENT", **tagged)) == ["ag-ui.attribution"]
    snapshot = {"type": "MESSAGES_SNAPSHOT", "messages": [
        {"id": "m", "role": "assistant", "subagentRunId": "s1",
         "toolCalls": [{"id": "c", "type": "function",
                        "function": {"name": "f", "arguments": "{}"}}]}]}  # fmt: skip
    reopen = text("START", subagentRunId="s2")
    assert rules(START, snapshot, reopen) == ["ag-ui.attribution"]
    call = {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f",
            "subagentRunId": "s2"}  # fmt: skip
    assert rules(START, snapshot, call) == ["ag-ui.attribution"]
    in_message = {"type": "TOOL_CALL_START", "toolCallId": "d", "toolCallName": "f",
                  "parentMessageId": "m", "subagentRunId": "s2"}  # fmt: skip
    assert "in message" in found(START, snapshot, in_message)[0][1]
    value = {"type": "REASONING_ENCRYPTED_VALUE", "subtype": "tool-call", "entityId": "c",
             "encryptedValue": "e", "subagentRunId": "s2"}  # fmt: skip
    assert rules(START, snapshot, value) == ["ag-ui.attribution"]
    activity = {"type": "ACTIVITY_SNAPSHOT", "messageId": "a", "activityType": "t",
                "content": {}, **tagged}  # fmt: skip
    delta = {"type": "ACTIVITY_DELTA", "messageId": "a", "activityType": "t", "patch": [],
             "subagentRunId": "s2"}  # fmt: skip
    assert rules(START, activity, delta) == ["ag-ui.attribution"]
    # a replace:false snapshot under another tag keeps the first owner
    again = {**activity, "subagentRunId": "s2", "replace": False}
    assert rules(START, activity, again, delta) == ["ag-ui.attribution"]
    assert rules(START, activity, {**again, "replace": True}, delta) == []


def test_each_stage_names_its_rule() -> None:
    assert found(START, {"type": "TEXT_MESSAGE_END"})[0] == (
        "ag-ui.fields", "TEXT_MESSAGE_END has no messageId"
    )  # fmt: skip
    assert found(START, {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "x",
                                                             "value": 1}]})[0][0] == (
        "ag-ui.state-delta"
    )  # fmt: skip
    assert found(START, {"type": ""})[0][0] == "ag-ui.event"
