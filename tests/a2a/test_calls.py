"""The A2A operations (a2a/_calls.py), answered without a socket: a real agent with a
clock the test moves, each JSON-RPC call made directly and its reply read.

Push deliveries go through the agent's own :class:`~mockhttp.a2a._push.Push` with a
recording post function (the webhook), on the real clock: the runs happen at the test
clock's time, long past, so every delivery is due at once."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mockhttp import a2a
from mockhttp._core._reply import Reply
from mockhttp._core._request import Request
from mockhttp.a2a._calls import Call, _other
from mockhttp.a2a._kind import A2aAgent
from mockhttp.a2a._push import TOKEN_HEADER, Push
from mockhttp.a2a._spec import ERRORS, Version
from mockhttp.a2a._tasks import Tasks

START = 100.0
RUN = a2a.task(
    a2a.status("working", delay=1),
    a2a.artifact("Hello", delay=1),
    a2a.status("completed", delay=2),
)  # stops 4 s after it starts


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now


class Hook:
    """The webhook: what was posted, in order."""

    def __init__(self) -> None:
        self.posted: list[tuple[str, dict[str, str], Any]] = []

    def __call__(self, url: str, headers: dict[str, str], body: bytes) -> int:
        self.posted.append((url, headers, json.loads(body)))
        return 200


def agent(
    *tasks: Any, clock: Clock | None = None, hook: Hook | None = None, **options: Any
) -> A2aAgent:
    return A2aAgent(
        tasks=tasks or (RUN,),
        state=Tasks(clock or Clock()),
        push=Push(post=hook or Hook()),
        **options,
    )


def user(version: Version = "0.3", text: str = "hi", **more: Any) -> dict[str, Any]:
    if version == "0.3":
        return {
            "messageId": "m1",
            "role": "user",
            "parts": [{"kind": "text", "text": text}],
            **more,
        }
    return {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": text}], **more}


def call(
    who: A2aAgent, operation: str, params: dict[str, Any], version: Version = "0.3",
    id_: Any = 1, rest: bool = False,
) -> Reply:  # fmt: skip
    return Call(who, Request("POST", "/"), version, id_, params, rest=rest).answer(operation)


def body(reply: Reply) -> Any:
    assert reply.stream is None
    return json.loads(reply.content)


def result(reply: Reply) -> Any:
    answer = body(reply)
    assert "error" not in answer, answer
    return answer["result"]


def err(reply: Reply) -> tuple[int, str]:
    answer = body(reply)
    return answer["error"]["code"], answer["error"]["message"]


def events(reply: Reply) -> list[tuple[float, Any]]:
    """A stream's events: the pause before each, and its data."""
    assert reply.stream is not None
    return list(zip(reply.stream.delays, (e.data for e in reply.stream.events), strict=True))


# -- new conversations -----------------------------------------------------------------------


def test_each_new_conversation_takes_the_next_answer_the_last_repeating() -> None:
    who = agent(
        RUN, a2a.message("just text"), a2a.error("no more", ERRORS["unsupported_operation"])
    )
    first = result(call(who, "send", {"message": user()}))
    assert (first["kind"], first["id"]) == ("task", "task-1")
    second = result(call(who, "send", {"message": user()}))
    assert second == {
        "kind": "message",
        "messageId": "message-1",
        "role": "agent",
        "parts": [{"kind": "text", "text": "just text"}],
        "contextId": "ctx-0",
    }
    for _ in range(2):
        assert err(call(who, "send", {"message": user()})) == (-32004, "no more")


def test_a_message_answer_keeps_the_context_the_client_named_and_streams_as_one_event() -> None:
    who = agent(a2a.message("hello"))
    reply = call(who, "stream", {"message": user(contextId="mine")}, id_="s")
    ((pause, data),) = events(reply)
    assert pause == 0
    assert data["id"] == "s"
    assert data["result"]["contextId"] == "mine"


def test_a_blocking_send_is_held_until_the_run_stops_and_answers_the_end() -> None:
    reply = call(agent(), "send", {"message": user()})
    assert reply.head_delay == pytest.approx(4.0)
    task = result(reply)
    assert task["status"] == {"state": "completed"}
    assert task["artifacts"] == [
        {"artifactId": "artifact-1", "parts": [{"kind": "text", "text": "Hello"}]}
    ]
    assert [m["role"] for m in task["history"]] == ["user"]


@pytest.mark.parametrize(
    ("version", "configuration"),
    [("0.3", {"blocking": False}), ("1.0", {"returnImmediately": True})],
)
def test_a_non_blocking_send_answers_at_once_with_the_task_submitted(
    version: Version, configuration: dict[str, Any]
) -> None:
    reply = call(
        agent(), "send", {"message": user(version), "configuration": configuration}, version
    )
    assert reply.head_delay == 0
    task = result(reply)
    task = task.get("task", task)  # 1.0 wraps it
    assert task["status"]["state"] in ("submitted", "TASK_STATE_SUBMITTED")


@pytest.mark.parametrize(
    ("version", "configuration"),
    [("0.3", {"returnImmediately": True}), ("1.0", {"blocking": False}), ("0.3", {"blocking": 0})],
)
def test_the_other_versions_flag_does_not_make_a_send_return_at_once(
    version: Version, configuration: dict[str, Any]
) -> None:
    reply = call(
        agent(), "send", {"message": user(version), "configuration": configuration}, version
    )
    assert reply.head_delay == pytest.approx(4.0)


def test_a_blocking_timeout_answers_the_task_as_it_stands_then() -> None:
    reply = call(agent(blocking_timeout=1.5), "send", {"message": user()})
    assert reply.head_delay == pytest.approx(1.5)
    task = result(reply)
    assert task["status"]["state"] == "working"  # due at 1 s; the artifact at 2 s is not
    assert "artifacts" not in task


def test_history_length_cuts_the_history_answered() -> None:
    who = agent()
    task = result(call(who, "send", {"message": user(), "configuration": {"historyLength": 0}}))
    assert task.get("history", []) == []
    task = result(call(who, "get", {"id": "task-1"}))
    assert len(task["history"]) == 1


# -- a stream of the run ---------------------------------------------------------------------


def test_a_stream_sends_the_task_then_each_step_after_its_pause() -> None:
    got = events(call(agent(), "stream", {"message": user()}, id_=9))
    assert [pause for pause, _ in got] == [0, 1, 1, 2]
    assert {data["id"] for _, data in got} == {9}
    kinds = [data["result"]["kind"] for _, data in got]
    assert kinds == ["task", "status-update", "artifact-update", "status-update"]
    states = [
        d["result"]["status"]["state"] for _, d in got if d["result"]["kind"] != "artifact-update"
    ]
    assert states == ["submitted", "working", "completed"]
    assert [d["result"].get("final") for _, d in got[1::2]] == [False, True]


def test_a_1_0_stream_wraps_each_event_under_its_kind() -> None:
    got = events(call(agent(), "stream", {"message": user("1.0")}, "1.0"))
    assert [next(iter(d["result"])) for _, d in got] == [
        "task", "statusUpdate", "artifactUpdate", "statusUpdate",
    ]  # fmt: skip
    assert got[-1][1]["result"]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"


def test_duplicate_final_sends_the_final_update_twice_without_a_pause() -> None:
    script = a2a.task(
        a2a.status("working", delay=1), a2a.status("completed", delay=1), duplicate_final=True
    )
    got = events(call(agent(script), "stream", {"message": user()}))
    assert [pause for pause, _ in got] == [0, 1, 1, 0]
    assert got[-1][1] == got[-2][1]


@pytest.mark.parametrize(("id_", "other"), [(7, 8), ("abc", "abc-other"), (None, "None-other")])
def test_wrong_id_answers_under_another_id(id_: Any, other: Any) -> None:
    script = a2a.task(a2a.status("completed"), wrong_id=True)
    assert body(call(agent(script), "send", {"message": user()}, id_=id_))["id"] == other
    got = events(call(agent(script), "stream", {"message": user()}, id_=id_))
    assert {data["id"] for _, data in got} == {other}


def test_other_ids_a_bool_is_not_a_number() -> None:
    assert _other(True) == "True-other"
    assert _other(0) == 1
    assert _other(-1) == 0


# -- a task going on -------------------------------------------------------------------------


def test_a_message_naming_a_task_goes_on_with_its_script() -> None:
    script = a2a.task(a2a.status("input-required", "which city?"), a2a.status("completed", "done"))
    who = agent(script)
    first = result(call(who, "send", {"message": user()}))
    assert first["status"]["state"] == "input-required"
    again = result(call(who, "send", {"message": user(text="Paris", taskId="task-1")}))
    assert (again["id"], again["status"]["state"]) == ("task-1", "completed")
    assert [m["parts"][0]["text"] for m in again["history"]] == ["hi", "Paris"]
    assert [t.id for t in who.state.all()] == ["task-1"]  # no second task


def test_a_message_naming_an_unknown_or_ended_task_is_refused() -> None:
    who = agent(a2a.task(a2a.status("completed")))
    assert err(call(who, "send", {"message": user(taskId="task-9")})) == (
        ERRORS["task_not_found"], "Task not found: task-9",
    )  # fmt: skip
    call(who, "send", {"message": user()})
    code, message = err(call(who, "send", {"message": user(taskId="task-1")}))
    assert code == ERRORS["unsupported_operation"]
    assert message == "Task task-1 is completed: it takes no more messages"


@pytest.mark.parametrize(
    ("params", "said"),
    [
        ({}, "params.message must be a message object"),
        ({"message": {"role": "user", "parts": []}}, "messageId is required"),
        ({"message": {"messageId": "m", "role": "ROLE_USER", "parts": []}}, "role must be"),
        (
            {"message": user(), "configuration": {"historyLength": -1}},
            "historyLength must be 0 or more",
        ),
    ],
)
def test_invalid_params_are_answered_with_32602(params: dict[str, Any], said: str) -> None:
    code, message = err(call(agent(), "send", params))
    assert code == ERRORS["invalid_params"]
    assert message.startswith("Invalid params: ")
    assert said in message


# -- reading, cancelling, resubscribing ------------------------------------------------------


def test_get_reads_the_task_as_its_steps_have_brought_it() -> None:
    clock = Clock()
    who = agent(clock=clock)
    call(who, "send", {"message": user(), "configuration": {"blocking": False}})
    seen = []
    for at in (0.5, 1.5, 2.5, 4.5):
        clock.now = START + at
        seen.append(result(call(who, "get", {"id": "task-1"}))["status"]["state"])
    assert seen == ["submitted", "working", "working", "completed"]


def test_get_of_an_unknown_task_and_without_an_id() -> None:
    assert err(call(agent(), "get", {"id": "task-1"}))[0] == ERRORS["task_not_found"]
    code, message = err(call(agent(), "get", {}))
    assert (code, message) == (
        ERRORS["invalid_params"],
        "Invalid params: params.id must be a task id (text)",
    )


def test_list_tasks_answers_every_task_with_the_page_fields() -> None:
    who = agent()
    for _ in range(3):
        call(who, "send", {"message": user("1.0")}, "1.0")
    listed = result(call(who, "list_tasks", {}, "1.0"))
    assert [t["id"] for t in listed["tasks"]] == ["task-3", "task-2", "task-1"]  # newest first
    assert listed["totalSize"] == 3
    assert listed["nextPageToken"] == ""


def test_cancel_a_running_task_stops_its_run() -> None:
    clock = Clock()
    who = agent(clock=clock)
    call(who, "send", {"message": user(), "configuration": {"blocking": False}})
    clock.now = START + 1.5
    canceled = result(call(who, "cancel", {"id": "task-1"}))
    assert canceled["status"]["state"] == "canceled"
    clock.now = START + 10  # the steps that were to come never come
    assert result(call(who, "get", {"id": "task-1"}))["status"]["state"] == "canceled"
    code, message = err(call(who, "cancel", {"id": "task-1"}))
    assert code == ERRORS["task_not_cancelable"]
    assert message == "Task not cancelable: task-1 is canceled"


def test_resubscribe_to_a_running_task_streams_the_steps_still_to_come() -> None:
    clock = Clock()
    who = agent(clock=clock)
    call(who, "send", {"message": user(), "configuration": {"blocking": False}})
    clock.now = START + 1.5
    got = events(call(who, "resubscribe", {"id": "task-1"}))
    assert [d["result"]["kind"] for _, d in got] == ["task", "artifact-update", "status-update"]
    assert got[0][1]["result"]["status"]["state"] == "working"
    assert [pause for pause, _ in got] == [0, pytest.approx(0.5), 2]


def test_resubscribe_to_an_ended_task_sends_its_status_again_final() -> None:
    clock = Clock()
    who = agent(clock=clock)
    call(who, "send", {"message": user()})
    clock.now = START + 60
    got = events(call(who, "resubscribe", {"id": "task-1"}))
    assert len(got) == 2
    update = got[1][1]["result"]
    assert (update["kind"], update["status"]["state"], update["final"]) == (
        "status-update",
        "completed",
        True,
    )


# -- push notification configs ---------------------------------------------------------------


def test_push_operations_are_refused_when_the_agent_takes_none() -> None:
    who = agent()
    call(who, "send", {"message": user()})
    for operation in ("push_set", "push_get", "push_list", "push_delete"):
        code, message = err(call(who, operation, {"taskId": "task-1", "id": "task-1"}))
        assert code == ERRORS["push_not_supported"]
        assert "Push Notification is not supported" in message


def test_push_configs_kept_read_listed_and_deleted_1_0() -> None:
    who = agent(push_notifications=True)
    call(who, "send", {"message": user("1.0")}, "1.0")
    made = result(call(who, "push_set", {"taskId": "task-1", "url": "http://hook/a"}, "1.0"))
    assert made == {"id": "push-1", "taskId": "task-1", "url": "http://hook/a"}
    assert result(call(who, "push_get", {"taskId": "task-1", "id": "push-1"}, "1.0")) == made
    assert result(call(who, "push_list", {"taskId": "task-1"}, "1.0")) == {
        "configs": [made],
        "nextPageToken": "",
    }
    assert result(call(who, "push_delete", {"taskId": "task-1", "id": "push-1"}, "1.0")) == {}
    code, message = err(call(who, "push_delete", {"taskId": "task-1", "id": "push-1"}, "1.0"))
    assert (code, message) == (
        ERRORS["task_not_found"],
        "Push notification config not found: push-1",
    )
    assert (
        err(call(who, "push_get", {"taskId": "task-1", "id": "push-1"}, "1.0"))[0]
        == ERRORS["task_not_found"]
    )
    code, message = err(call(who, "push_get", {"taskId": "task-1"}, "1.0"))
    assert (code, message) == (
        ERRORS["invalid_params"],
        "Invalid params: params.id must be a config id (text)",
    )


def test_push_configs_in_the_0_3_forms() -> None:
    who = agent(push_notifications=True)
    call(who, "send", {"message": user()})
    config = {"id": "p1", "url": "http://hook/b"}
    made = result(call(who, "push_set", {"taskId": "task-1", "pushNotificationConfig": config}))
    assert made == {"taskId": "task-1", "pushNotificationConfig": config}
    assert result(call(who, "push_get", {"id": "task-1"})) == made  # no config id: the first
    assert result(call(who, "push_get", {"id": "task-1", "pushNotificationConfigId": "p1"})) == made
    assert result(call(who, "push_list", {"id": "task-1"})) == [made]
    assert (
        result(call(who, "push_delete", {"id": "task-1", "pushNotificationConfigId": "p1"})) is None
    )
    assert result(call(who, "push_list", {"id": "task-1"})) == []


@pytest.mark.parametrize(
    ("version", "params", "said"),
    [
        ("1.0", {}, "params.taskId must be a task id"),
        ("0.3", {}, "params.id must be a task id"),
        ("1.0", {"taskId": ""}, "params.taskId must be a task id"),
        ("0.3", {"id": 5}, "params.id must be a task id"),
    ],
)
def test_push_operations_need_a_task_id(
    version: Version, params: dict[str, Any], said: str
) -> None:
    code, message = err(call(agent(push_notifications=True), "push_list", params, version))
    assert code == ERRORS["invalid_params"]
    assert said in message


def test_push_operations_on_an_unknown_task() -> None:
    code, message = err(
        call(agent(push_notifications=True), "push_list", {"taskId": "task-4"}, "1.0")
    )
    assert (code, message) == (ERRORS["task_not_found"], "Task not found: task-4")


def test_a_config_set_on_a_running_task_gets_the_steps_still_to_come() -> None:
    clock, hook = Clock(), Hook()
    who = agent(clock=clock, hook=hook, push_notifications=True)
    call(who, "send", {"message": user("1.0"), "configuration": {"returnImmediately": True}}, "1.0")
    clock.now = START + 1.5  # working; the artifact and the end still to come
    call(who, "push_set", {"taskId": "task-1", "url": "http://hook/late"}, "1.0")
    assert who.push.wait_idle(30)
    kinds = [next(iter(posted)) for _, _, posted in hook.posted]
    assert kinds == ["artifactUpdate", "statusUpdate"]
    assert {url for url, _, _ in hook.posted} == {"http://hook/late"}


def test_a_config_in_the_message_gets_the_whole_run_1_0() -> None:
    hook = Hook()
    who = agent(hook=hook, push_notifications=True)
    push = {"url": "http://hook/run", "token": "tok"}
    call(
        who,
        "send",
        {"message": user("1.0"), "configuration": {"taskPushNotificationConfig": push}},
        "1.0",
    )
    assert who.push.wait_idle(30)
    assert [next(iter(posted)) for _, _, posted in hook.posted] == [
        "task", "statusUpdate", "artifactUpdate", "statusUpdate",
    ]  # fmt: skip
    assert hook.posted[-1][2]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"
    assert all(headers[TOKEN_HEADER] == "tok" for _, headers, _ in hook.posted)
    assert [c.task_id for c in who.push.of("task-1")] == ["task-1"]


def test_a_config_in_the_message_gets_the_task_at_each_step_0_3() -> None:
    hook = Hook()
    who = agent(hook=hook, push_notifications=True)
    push = {"url": "http://hook/run"}
    call(who, "send", {"message": user(), "configuration": {"pushNotificationConfig": push}})
    assert who.push.wait_idle(30)
    assert [posted["kind"] for _, _, posted in hook.posted] == ["task"] * 4
    assert [posted["status"]["state"] for _, _, posted in hook.posted] == [
        "submitted", "working", "working", "completed",
    ]  # fmt: skip
    assert "artifacts" in hook.posted[2][2]


def test_a_config_in_the_message_is_ignored_when_the_agent_takes_none() -> None:
    hook = Hook()
    who = agent(hook=hook)
    push = {"url": "http://hook/run"}
    task = result(
        call(who, "send", {"message": user(), "configuration": {"pushNotificationConfig": push}})
    )
    assert task["status"]["state"] == "completed"
    assert who.push.of("task-1") == []
    assert who.push.wait_idle(30)
    assert hook.posted == []


def test_cancel_sends_the_canceled_update_and_drops_the_rest() -> None:
    clock, hook = Clock(), Hook()
    who = A2aAgent(
        tasks=(RUN,), state=Tasks(clock), push=Push(post=hook, clock=clock), push_notifications=True
    )
    push = {"url": "http://hook/c"}
    configuration = {"returnImmediately": True, "taskPushNotificationConfig": push}
    call(who, "send", {"message": user("1.0"), "configuration": configuration}, "1.0")
    call(who, "cancel", {"id": "task-1"}, "1.0")  # the clock has not moved: no step is due
    assert who.push.wait_idle(30)  # nothing queued: the run's steps were dropped
    assert [next(iter(posted)) for _, _, posted in hook.posted] == ["task", "statusUpdate"]
    update = hook.posted[1][2]["statusUpdate"]
    assert update["status"]["state"] == "TASK_STATE_CANCELED"


# -- the card, and the HTTP+JSON binding -----------------------------------------------------


def test_the_extended_card_when_configured_and_its_error_when_not() -> None:
    with_card = agent(extended_card={"skills": []}, bearer_token="t")
    card = result(call(with_card, "extended_card", {}, "1.0"))
    assert card["skills"] == []
    assert card["name"] == "mockhttp-a2a"
    code, message = err(call(agent(), "extended_card", {}, "1.0"))
    assert code == ERRORS["extended_card_not_configured"]
    assert message == "Extended agent card not configured: this agent has none"


def test_the_rest_binding_answers_without_an_envelope_and_errors_as_statuses() -> None:
    who = agent()
    reply = call(who, "send", {"message": user("1.0")}, "1.0", id_=None, rest=True)
    answered = body(reply)
    assert "jsonrpc" not in answered
    assert answered["task"]["id"] == "task-1"
    missing = call(who, "get", {"id": "task-9"}, "1.0", id_=None, rest=True)
    assert missing.status_code == 404
    assert body(missing)["error"]["message"] == "Task not found: task-9"
    invalid = call(who, "get", {}, "1.0", id_=None, rest=True)
    assert invalid.status_code == 400
