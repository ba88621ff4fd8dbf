"""A2A objects on the wire in each version (a2a/_render.py)."""

from __future__ import annotations

from mockhttp.a2a._render import agent_message, artifact_update, status_update, task, wrap
from mockhttp.a2a._script import Artifact, Status, Task
from mockhttp.a2a._tasks import Chunk, Live, Update


def _live(**kw: object) -> Live:
    return Live(id="t1", context_id="c1", script=Task(steps=(Status("completed"),)), **kw)  # type: ignore[arg-type]


def _user(text: str, n: int) -> dict[str, object]:
    return {"messageId": f"m{n}", "role": "user", "parts": [{"text": text}]}


def test_agent_message_in_0_3_carries_kinds() -> None:
    assert agent_message("0.3", "hi", "m1", "c1") == {
        "kind": "message",
        "messageId": "m1",
        "role": "agent",
        "parts": [{"kind": "text", "text": "hi"}],
        "contextId": "c1",
    }


def test_agent_message_in_1_0_has_enum_role_and_no_kinds() -> None:
    assert agent_message("1.0", "hi", "m1", "c1", task_id="t1") == {
        "messageId": "m1",
        "role": "ROLE_AGENT",
        "parts": [{"text": "hi"}],
        "contextId": "c1",
        "taskId": "t1",
    }


def test_wrap_only_in_1_0() -> None:
    body = {"id": "t1"}
    assert wrap("0.3", "status-update", body) is body
    assert wrap("1.0", "status-update", body) == {"statusUpdate": body}
    assert wrap("1.0", "artifact-update", body) == {"artifactUpdate": body}
    assert wrap("1.0", "task", body) == {"task": body}


def test_a_fresh_task_has_only_its_status() -> None:
    assert task("1.0", _live()) == {
        "id": "t1",
        "contextId": "c1",
        "status": {"state": "TASK_STATE_SUBMITTED"},
    }
    assert task("0.3", _live())["kind"] == "task"


def test_a_task_status_with_text_carries_the_agent_message() -> None:
    body = task("0.3", _live(state="input-required", text="Which city?", place=2))
    status = body["status"]
    assert status["state"] == "input-required"
    assert status["message"]["parts"] == [{"kind": "text", "text": "Which city?"}]
    assert status["message"]["messageId"] == "t1-status-2"
    assert status["message"]["taskId"] == "t1"


def test_history_keeps_the_last_n_messages_and_zero_leaves_it_out() -> None:
    live = _live(history=[_user("a", 1), _user("b", 2), _user("c", 3)])
    assert [m["messageId"] for m in task("1.0", live)["history"]] == ["m1", "m2", "m3"]
    assert [m["messageId"] for m in task("1.0", live, history=2)["history"]] == ["m2", "m3"]
    assert "history" not in task("1.0", live, history=0)
    first = task("1.0", live)["history"][0]
    assert first["role"] == "ROLE_USER"
    assert first["taskId"] == "t1"


def test_artifacts_are_written_unless_asked_not_to() -> None:
    live = _live(artifacts={"a1": ("report", [{"text": "x"}]), "a2": (None, [{"data": {"n": 1}}])})
    assert task("0.3", live)["artifacts"] == [
        {"artifactId": "a1", "name": "report", "parts": [{"kind": "text", "text": "x"}]},
        {"artifactId": "a2", "parts": [{"kind": "data", "data": {"n": 1}}]},
    ]
    assert "artifacts" not in task("0.3", live, artifacts=False)


def test_status_update_says_final_only_in_0_3() -> None:
    update = Update(state="completed", text=None, final=True, delay=None)
    old = status_update("0.3", _live(), update, 1)
    new = status_update("1.0", _live(), update, 1)
    assert old == {
        "kind": "status-update",
        "taskId": "t1",
        "contextId": "c1",
        "status": {"state": "completed"},
        "final": True,
    }
    assert new == {"taskId": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"}}


def test_artifact_update_append_and_last_chunk() -> None:
    first = Chunk("a1", Artifact(artifact="Hel", name="greeting"))
    more = Chunk("a1", Artifact(artifact="lo", append=True, last_chunk=True))
    assert artifact_update("1.0", _live(), first) == {
        "taskId": "t1",
        "contextId": "c1",
        "artifact": {"artifactId": "a1", "name": "greeting", "parts": [{"text": "Hel"}]},
    }
    old = artifact_update("0.3", _live(), first)
    assert old["append"] is False
    assert old["kind"] == "artifact-update"
    assert "lastChunk" not in old
    again = artifact_update("1.0", _live(), more)
    assert again["append"] is True
    assert again["lastChunk"] is True
