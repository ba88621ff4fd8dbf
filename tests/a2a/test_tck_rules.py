"""The rules the A2A TCK holds the agent to, each checked with the official ``a2a-sdk``
client (1.3) over loopback: ListTasks, states on a schedule, historyLength, cancel,
SubscribeToTask during a run, push notification configs and their delivery, the extended
card, and the built-in agent at one URL."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from a2a.client import Client, ClientConfig, create_client
from a2a.types import a2a_pb2 as pb
from a2a.utils.errors import InvalidParamsError, UnsupportedOperationError
from google.protobuf.timestamp_pb2 import Timestamp  # type: ignore[import-untyped]

import mockhttp
from mockhttp import a2a

SLOW = a2a.task(
    a2a.status("working", "On it", delay=0.2),
    a2a.artifact("Sunny", name="forecast", delay=0.1),
    a2a.status("completed", delay=3),
)
DEFAULTS = Path(mockhttp.__file__).parent / "defaults" / "a2a.yaml"
Body = Callable[[Client], Awaitable[Any]]


def run(url: str, body: Body, **config: Any) -> Any:
    async def main() -> Any:
        client = await create_client(url, ClientConfig(**config))
        try:
            return await asyncio.wait_for(body(client), 20)
        finally:
            await client.close()

    return asyncio.run(main())


def ask(
    text: str = "Weather?", context_id: str = "", *, now: bool = False, **configuration: Any
) -> pb.SendMessageRequest:
    message = pb.Message(message_id="m-" + text, role=pb.ROLE_USER, parts=[pb.Part(text=text)])
    if context_id:
        message.context_id = context_id
    config = pb.SendMessageConfiguration(return_immediately=now, **configuration)
    return pb.SendMessageRequest(message=message, configuration=config)


async def sent(client: Client, request: pb.SendMessageRequest) -> pb.Task:
    (event,) = [e async for e in client.send_message(request)]
    return event.task


async def until(client: Client, task_id: str, state: int, within: float = 10) -> list[int]:
    """Poll GetTask until the task is in ``state``: every state seen on the way."""
    seen: list[int] = []
    end = time.monotonic() + within
    while time.monotonic() < end:
        got = (await client.get_task(pb.GetTaskRequest(id=task_id))).status.state
        if not seen or seen[-1] != got:
            seen.append(got)
        if got == state:
            return seen
        await asyncio.sleep(0.02)
    raise AssertionError(f"{task_id} never reached {pb.TaskState.Name(state)}: saw {seen}")


def test_states_move_on_the_schedule_and_get_task_sees_each() -> None:
    """returnImmediately answers the task submitted; GetTask then sees working, completed."""

    async def body(client: Client) -> Any:
        task = await sent(client, ask(now=True))
        return task, await until(client, task.id, pb.TASK_STATE_COMPLETED)

    with mockhttp.Server() as server:
        server.mock(a2a.agent([SLOW], versions="1.0"))
        task, states = run(server.url, body, streaming=False)
    assert task.status.state == pb.TASK_STATE_SUBMITTED
    assert (
        states
        == [pb.TASK_STATE_SUBMITTED, pb.TASK_STATE_WORKING, pb.TASK_STATE_COMPLETED][-len(states) :]
    )
    assert pb.TASK_STATE_WORKING in states


def test_a_blocking_send_waits_for_the_stop_or_the_blocking_timeout() -> None:
    """Blocking: the answer comes when the run stops, or at blocking_timeout (working)."""

    async def body(client: Client) -> pb.Task:
        return await sent(client, ask())

    async def timed(client: Client) -> tuple[pb.Task, float]:
        began = time.monotonic()
        task = await sent(client, ask())
        return task, time.monotonic() - began

    with mockhttp.Server() as server:
        server.mock(a2a.agent([SLOW], versions="1.0", blocking_timeout=0.5))
        task, took = run(server.url, timed, streaming=False)
    assert task.status.state == pb.TASK_STATE_WORKING  # answered mid-run, not at its end
    assert took >= 0.45  # held until the timeout
    quick = a2a.task(a2a.status("working", delay=0.1), a2a.status("completed", delay=0.1))
    with mockhttp.Server() as server:
        server.mock(a2a.agent([quick], versions="1.0"))
        assert run(server.url, body, streaming=False).status.state == pb.TASK_STATE_COMPLETED


def test_list_tasks_filters_sorts_and_pages() -> None:
    """ListTasks: newest first, contextId and status filters, pages of pageSize, tokens."""

    async def body(client: Client) -> Any:
        ids = [(await sent(client, ask(f"t{n}", f"c{n % 2}", now=True))).id for n in range(3)]
        await until(client, ids[-1], pb.TASK_STATE_WORKING)
        everything = await client.list_tasks(pb.ListTasksRequest())
        in_c0 = await client.list_tasks(pb.ListTasksRequest(context_id="c0"))
        first = await client.list_tasks(pb.ListTasksRequest(page_size=2))
        rest = await client.list_tasks(
            pb.ListTasksRequest(page_size=2, page_token=first.next_page_token)
        )
        working = await client.list_tasks(pb.ListTasksRequest(status=pb.TASK_STATE_WORKING))
        return ids, everything, in_c0, first, rest, working

    with mockhttp.Server() as server:
        server.mock(a2a.agent([SLOW], versions="1.0"))
        ids, everything, in_c0, first, rest, working = run(server.url, body, streaming=False)
    assert [t.id for t in everything.tasks] == ids[::-1]
    assert (everything.total_size, everything.page_size, everything.next_page_token) == (3, 3, "")
    assert [t.id for t in in_c0.tasks] == [ids[2], ids[0]]
    assert [t.id for t in [*first.tasks, *rest.tasks]] == ids[::-1]
    assert first.next_page_token
    assert not rest.next_page_token
    assert all(t.status.state == pb.TASK_STATE_WORKING for t in working.tasks)
    assert not everything.tasks[0].artifacts  # left out unless includeArtifacts


def test_list_tasks_history_artifacts_and_a_timestamp() -> None:
    """historyLength 0 leaves history out, includeArtifacts keeps them, a time filters."""

    async def body(client: Client) -> Any:
        before = Timestamp()
        before.FromDatetime(datetime.now(UTC))
        task = await sent(client, ask())
        listed = await client.list_tasks(
            pb.ListTasksRequest(history_length=0, include_artifacts=True)
        )
        later = Timestamp()
        later.FromDatetime(datetime.now(UTC))
        after_all = await client.list_tasks(pb.ListTasksRequest(status_timestamp_after=later))
        since = await client.list_tasks(pb.ListTasksRequest(status_timestamp_after=before))
        return task, listed, after_all, since

    quick = a2a.task(a2a.artifact("Hi"), a2a.status("completed"))
    with mockhttp.Server() as server:
        server.mock(a2a.agent([quick], versions="1.0"))
        task, listed, after_all, since = run(server.url, body, streaming=False)
    (one,) = listed.tasks
    assert (one.id, len(one.history), one.artifacts[0].parts[0].text) == (task.id, 0, "Hi")
    assert after_all.total_size == 0
    assert [t.id for t in since.tasks] == [task.id]


def test_get_task_honours_history_length() -> None:
    """GetTask historyLength: the last N messages of the task's history."""
    waiting = a2a.task(
        a2a.status("input-required"), a2a.status("input-required"), a2a.status("completed")
    )

    async def body(client: Client) -> Any:
        task = await sent(client, ask("one"))
        message = pb.Message(message_id="m2", role=pb.ROLE_USER, parts=[pb.Part(text="two")])
        message.task_id = task.id
        await sent(client, pb.SendMessageRequest(message=message))
        full = await client.get_task(pb.GetTaskRequest(id=task.id))
        last = await client.get_task(pb.GetTaskRequest(id=task.id, history_length=1))
        none = await client.get_task(pb.GetTaskRequest(id=task.id, history_length=0))
        return full, last, none

    with mockhttp.Server() as server:
        server.mock(a2a.agent([waiting], versions="1.0"))
        full, last, none = run(server.url, body, streaming=False)
    assert [m.parts[0].text for m in full.history] == ["one", "two"]
    assert [m.parts[0].text for m in last.history] == ["two"]
    assert list(none.history) == []


def test_cancel_a_working_task_and_subscribe_during_a_run() -> None:
    """A task mid-run: SubscribeToTask streams the steps still to come; CancelTask ends
    another one, and its scheduled steps never come."""
    with mockhttp.Server() as server:
        server.mock(a2a.agent([SLOW], versions="1.0"))

        async def start(client: Client) -> list[str]:
            return [(await sent(client, ask(f"t{n}", now=True))).id for n in (1, 2)]

        first, second = run(server.url, start, streaming=False)

        async def watch(client: Client) -> Any:
            canceled = await client.cancel_task(pb.CancelTaskRequest(id=second))
            request = pb.SubscribeToTaskRequest(id=first)  # until the run ends (3.3 s in)
            streamed = [(e.WhichOneof("payload"), e) async for e in client.subscribe(request)]
            return streamed, canceled, await client.get_task(pb.GetTaskRequest(id=second))

        streamed, canceled, later = run(server.url, watch, streaming=True)
    (kind, task), (*_, (last, end)) = streamed[0], streamed
    assert (kind, last) == ("task", "status_update")
    assert task.task.status.state != pb.TASK_STATE_COMPLETED  # subscribed mid-run
    assert end.status_update.status.state == pb.TASK_STATE_COMPLETED  # then saw it end
    assert canceled.status.state == pb.TASK_STATE_CANCELED
    assert later.status.state == pb.TASK_STATE_CANCELED


def test_push_configs_and_delivery_to_the_webhook() -> None:
    """Push configs: create, get, list, delete; each step posted to the client's webhook
    with its token and credentials."""
    with mockhttp.Server() as hooks:
        webhook = hooks.mock(mockhttp.request("POST", "/hook").reply(mockhttp.ok().json({})))
        config = pb.TaskPushNotificationConfig(
            url=hooks.url + "/hook",
            token="tok-1",
            authentication=pb.AuthenticationInfo(scheme="Bearer", credentials="sekret"),
        )

        async def body(client: Client) -> Any:
            task = await sent(client, ask(now=True))
            config.task_id = task.id
            made = await client.create_task_push_notification_config(config)
            got = await client.get_task_push_notification_config(
                pb.GetTaskPushNotificationConfigRequest(task_id=task.id, id=made.id)
            )
            listed = await client.list_task_push_notification_configs(
                pb.ListTaskPushNotificationConfigsRequest(task_id=task.id)
            )
            await until(client, task.id, pb.TASK_STATE_COMPLETED)
            await client.delete_task_push_notification_config(
                pb.DeleteTaskPushNotificationConfigRequest(task_id=task.id, id=made.id)
            )
            after = await client.list_task_push_notification_configs(
                pb.ListTaskPushNotificationConfigsRequest(task_id=task.id)
            )
            return made, got, listed, after

        quick = a2a.task(
            a2a.status("working", delay=0.3), a2a.artifact("Hi"), a2a.status("completed")
        )
        kind = a2a.A2aAgent([quick], versions="1.0", push_notifications=True)
        with mockhttp.Server() as server:
            server.mock(kind.mock())
            made, got, listed, after = run(server.url, body, streaming=False)
            assert kind.push.wait_idle(10)
            sent_ = kind.push.sent()
    assert (made.url, made.token, got.id) == (config.url, "tok-1", made.id)
    assert [c.id for c in listed.configs] == [made.id]
    assert not after.configs
    bodies = [json.loads(c.request.body) for c in webhook.calls]
    assert [next(iter(b)) for b in bodies] == ["statusUpdate", "artifactUpdate", "statusUpdate"]
    # (the config came after the run began: no task notification; see the next test)
    assert bodies[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"
    headers = webhook.calls[0].request.headers
    assert (headers["x-a2a-notification-token"], headers["authorization"]) == (
        "tok-1",
        "Bearer sekret",
    )
    assert all(d.status == 200 for d in sent_)
    assert "sekret" not in repr(sent_)  # the record keeps the scheme, not the credentials


@pytest.mark.parametrize("version", ["1.0", "0.3"])
def test_a_push_config_in_the_message_configuration(version: str) -> None:
    """A config in SendMessageConfiguration (1.0 taskPushNotificationConfig, 0.3
    pushNotificationConfig) joins the new task's; its notifications begin with the task,
    as the stream does (1.0 StreamResponse objects, 0.3 the task each time)."""
    quick = a2a.task(a2a.status("working"), a2a.status("completed"))
    with mockhttp.Server() as hooks:
        webhook = hooks.mock(mockhttp.request("POST", "/hook").reply(mockhttp.ok().json({})))
        hook = {"url": hooks.url + "/hook", "token": "t"}
        kind = a2a.A2aAgent([quick], push_notifications=True)
        if version == "1.0":
            method, key = "SendMessage", "taskPushNotificationConfig"
            message = {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}]}
        else:
            method, key = "message/send", "pushNotificationConfig"
            part = {"kind": "text", "text": "hi"}
            message = {"messageId": "m", "role": "user", "parts": [part]}
        params = {"message": message, "configuration": {key: hook}}
        with mockhttp.Server() as server:
            server.mock(kind.mock())
            sent_ = httpx.post(
                server.url + "/",
                json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params},
            ).json()
            assert kind.push.wait_idle(10)
        bodies = [json.loads(c.request.body) for c in webhook.calls]
    assert sent_["result"]
    if version == "1.0":
        assert [next(iter(b)) for b in bodies] == ["task", "statusUpdate", "statusUpdate"]
        assert bodies[0]["task"]["status"]["state"] == "TASK_STATE_SUBMITTED"
    else:
        assert [b["status"]["state"] for b in bodies] == ["submitted", "working", "completed"]
    assert {c.request.headers["x-a2a-notification-token"] for c in webhook.calls} == {"t"}


def test_push_is_refused_when_the_card_says_no() -> None:
    """An agent without push_notifications answers -32003 (the SDK raises)."""

    async def body(client: Client) -> Any:
        task = await sent(client, ask())
        config = pb.TaskPushNotificationConfig(task_id=task.id, url="http://127.0.0.1:9/h")
        await client.create_task_push_notification_config(config)

    with mockhttp.Server() as server:
        server.mock(a2a.agent(versions="1.0"))
        with pytest.raises(Exception, match=r"-32003|not supported"):
            run(server.url, body, streaming=False)


def test_the_extended_card_and_the_bearer_token() -> None:
    """bearer_token: every call needs it (401 without); GetExtendedAgentCard answers the
    card's fields over the public one."""

    async def body(client: Client) -> pb.AgentCard:
        return await client.get_extended_agent_card(pb.GetExtendedAgentCardRequest())

    kind = a2a.A2aAgent(
        versions="1.0", extended_card={"description": "more"}, bearer_token="mockhttp"
    )
    with mockhttp.Server() as server:
        handle = server.mock(kind.mock())
        with pytest.raises(Exception, match="401"):
            run(server.url, body)

        card = asyncio.run(_with_token(server.url, body))
        refused = next(c for c in handle.calls if c.request.method == "POST")
        plain = httpx.post(server.url + "/", json={"jsonrpc": "2.0", "id": 1, "method": "GetTask"})
    assert card.description == "more"
    assert card.capabilities.extended_agent_card
    assert refused.status == 401
    assert (plain.status_code, plain.headers["www-authenticate"]) == (401, 'Bearer realm="a2a"')


async def _with_token(url: str, body: Body) -> Any:
    async with httpx.AsyncClient(headers={"authorization": "Bearer mockhttp"}) as http:
        client = await create_client(url, ClientConfig(httpx_client=http))
        try:
            return await body(client)
        finally:
            await client.close()


def test_invalid_requests_are_refused_with_the_sdk_errors() -> None:
    """Empty parts and a negative historyLength: -32602, raised by the SDK."""

    async def empty(client: Client) -> Any:
        request = pb.SendMessageRequest(message=pb.Message(message_id="m", role=pb.ROLE_USER))
        return await sent(client, request)

    async def negative(client: Client) -> Any:
        await sent(client, ask())
        return await client.get_task(pb.GetTaskRequest(id="task-1", history_length=-1))

    with mockhttp.Server() as server:
        server.mock(a2a.agent(versions="1.0"))
        for body in (empty, negative):
            with pytest.raises(InvalidParamsError):
                run(server.url, body, streaming=False)


def test_a_message_to_a_finished_task_is_an_unsupported_operation() -> None:
    async def body(client: Client) -> Any:
        task = await sent(client, ask())
        message = pb.Message(message_id="m2", role=pb.ROLE_USER, parts=[pb.Part(text="more")])
        message.task_id = task.id
        return await sent(client, pb.SendMessageRequest(message=message))

    with mockhttp.Server() as server:
        server.mock(a2a.agent(versions="1.0"))
        with pytest.raises(UnsupportedOperationError):
            run(server.url, body, streaming=False)


def test_the_built_in_agent_at_one_url() -> None:
    """The built-in agent: the SDK reads the card and talks to the endpoint at /a2a."""

    async def body(client: Client) -> Any:
        task = await sent(client, ask())
        return task, await client.list_tasks(pb.ListTasksRequest())

    with mockhttp.Server() as server:
        server.mock(*mockhttp.load(DEFAULTS))
        task, listed = run(server.url + "/a2a", body, streaming=False)
    assert task.status.state == pb.TASK_STATE_WORKING  # blocking_timeout: answered mid-run
    assert [t.id for t in listed.tasks] == [task.id]
