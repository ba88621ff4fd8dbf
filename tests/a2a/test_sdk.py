"""The mock A2A agent read by the official ``a2a-sdk`` client (1.3), in both versions.

The SDK resolves the card at the well-known path, then picks its 1.0 transport or its
0.3 compatibility transport from the interfaces the card lists; each test runs the SDK
against a loopback server and checks what it saw and what the journal holds.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from a2a.client import A2AClientError, Client, ClientConfig, create_client
from a2a.types import a2a_pb2 as pb
from a2a.utils.errors import TaskNotCancelableError, TaskNotFoundError

import mockhttp
from mockhttp import a2a, fault, match

SCRIPT = a2a.task(
    a2a.status("working", "Looking it up"),
    a2a.artifact("Sunny, ", name="forecast"),
    a2a.artifact("21 °C", append=True, last_chunk=True),
    a2a.status("completed"),
)
STREAMS = match.json_path("$.method", match.any_of("SendStreamingMessage", "message/stream"))
Body = Callable[[Client], Awaitable[Any]]


def run(server: mockhttp.Server, body: Body, **config: Any) -> Any:
    async def main() -> Any:
        client = await create_client(server.url, ClientConfig(**config))
        try:
            return await asyncio.wait_for(body(client), 10)
        finally:
            await client.close()

    return asyncio.run(main())


def ask(text: str = "Weather in Brest?", task_id: str = "") -> pb.SendMessageRequest:
    message = pb.Message(message_id="m1", role=pb.ROLE_USER, parts=[pb.Part(text=text)])
    if task_id:
        message.task_id = task_id
    return pb.SendMessageRequest(message=message)


def seen(event: pb.StreamResponse) -> str:
    """One stream event as a short line: its kind and what it carries."""
    kind = event.WhichOneof("payload")
    if kind == "task":
        return f"task {pb.TaskState.Name(event.task.status.state)}"
    if kind == "status_update":
        return f"status {pb.TaskState.Name(event.status_update.status.state)}"
    if kind == "artifact_update":
        update = event.artifact_update
        return f"artifact {update.artifact.parts[0].text!r} append={update.append}"
    return f"message {event.message.parts[0].text!r}"


async def collect(stream: Any) -> list[str]:
    return [seen(event) async for event in stream]


def rpc_calls(handle: mockhttp.ActiveMock) -> list[tuple[str, str]]:
    """Each JSON-RPC call's method and A2A-Version header, as the journal has them."""
    out = []
    for call in handle.calls:
        if call.request.method == "POST":
            body = json.loads(call.request.body)
            out.append((body["method"], call.request.headers.get("a2a-version", "")))
    return out


@pytest.mark.parametrize(
    ("versions", "methods", "header"),
    [
        (["1.0"], ["SendStreamingMessage", "GetTask"], "1.0"),
        (["0.3"], ["message/stream", "tasks/get"], "0.3"),
        (["0.3", "1.0"], ["SendStreamingMessage", "GetTask"], "1.0"),
    ],
)
def test_card_stream_and_get(versions: list[str], methods: list[str], header: str) -> None:
    """The SDK reads the card, streams the run in order and gets the task, in each version."""

    async def body(client: Client) -> Any:
        events = await collect(client.send_message(ask()))
        task = await client.get_task(pb.GetTaskRequest(id="task-1"))
        return events, task

    with mockhttp.Server() as server:
        handle = server.mock(a2a.agent([SCRIPT], versions=versions))
        events, task = run(server, body)
    assert events == [
        "task TASK_STATE_SUBMITTED",
        "status TASK_STATE_WORKING",
        "artifact 'Sunny, ' append=False",
        "artifact '21 °C' append=True",
        "status TASK_STATE_COMPLETED",
    ]
    assert task.status.state == pb.TASK_STATE_COMPLETED
    assert [p.text for p in task.artifacts[0].parts] == ["Sunny, ", "21 °C"]
    assert handle.calls[0].request.path == "/.well-known/agent-card.json"
    assert rpc_calls(handle) == [(m, header) for m in methods]


def test_send_without_streaming_and_the_input_required_turn() -> None:
    """message/send: the task stops at input-required; the answer naming it completes it."""
    script = a2a.task(
        a2a.status("input-required", "Which city?"), a2a.artifact("Rain"), a2a.status("completed")
    )

    async def body(client: Client) -> Any:
        (first,) = [e async for e in client.send_message(ask("Weather?"))]
        (second,) = [e async for e in client.send_message(ask("Brest", first.task.id))]
        return first.task, second.task

    with mockhttp.Server() as server:
        server.mock(a2a.agent([script]))
        first, second = run(server, body, streaming=False)
    assert first.status.state == pb.TASK_STATE_INPUT_REQUIRED
    assert first.status.message.parts[0].text == "Which city?"
    assert second.status.state == pb.TASK_STATE_COMPLETED
    assert [m.parts[0].text for m in second.history] == ["Weather?", "Brest"]


def test_cancel_and_its_errors() -> None:
    """cancel_task ends a waiting task; again, or an unknown id, raises the SDK's errors."""
    script = a2a.task(a2a.status("working"), a2a.status("input-required"))

    async def body(client: Client) -> Any:
        await collect(client.send_message(ask()))
        canceled = await client.cancel_task(pb.CancelTaskRequest(id="task-1"))
        errors = []
        for task_id in ("task-1", "task-9"):
            try:
                await client.cancel_task(pb.CancelTaskRequest(id=task_id))
            except (TaskNotCancelableError, TaskNotFoundError) as exc:
                errors.append(f"{type(exc).__name__}: {exc}")
        return canceled, errors

    with mockhttp.Server() as server:
        server.mock(a2a.agent([script]))
        canceled, errors = run(server, body)
    assert canceled.status.state == pb.TASK_STATE_CANCELED
    assert errors == [
        "TaskNotCancelableError: Task not cancelable: task-1 is canceled",
        "TaskNotFoundError: Task not found: task-9",
    ]


@pytest.mark.parametrize("versions", [["1.0"], ["0.3"]])
def test_a_cut_stream_raises_and_resubscribe_recovers(versions: list[str]) -> None:
    """A stream cut after two events raises A2AClientError; subscribe() then gets the task
    as it stands and its final status (the journal shows SubscribeToTask or resubscribe)."""
    kind = a2a.A2aAgent([SCRIPT], versions=versions)

    async def body(client: Client) -> Any:
        events: list[str] = []
        try:
            async for event in client.send_message(ask()):
                events.append(seen(event))
        except A2AClientError as exc:
            events.append(f"raised: {exc}")
        after = await collect(client.subscribe(pb.SubscribeToTaskRequest(id="task-1")))
        return events, after

    with mockhttp.Server() as server:
        handle = server.mock(kind.mock())
        server.mock(kind.mock(name="cut").body(STREAMS).pipe(fault.close_after_events(2)))
        events, after = run(server, body)
    assert events == [
        "task TASK_STATE_SUBMITTED",
        "status TASK_STATE_WORKING",
        "raised: Network communication error: peer closed connection without sending "
        "complete message body (incomplete chunked read)",
    ]
    assert after == ["task TASK_STATE_COMPLETED", "status TASK_STATE_COMPLETED"]
    assert rpc_calls(handle)[-1][0] == (
        "SubscribeToTask" if versions == ["1.0"] else "tasks/resubscribe"
    )


def test_what_the_sdk_lets_through() -> None:
    """A wrong JSON-RPC id and a duplicate final event reach the caller unremarked."""
    script = a2a.task(*SCRIPT.steps, duplicate_final=True, wrong_id=True)

    async def body(client: Client) -> Any:
        return await collect(client.send_message(ask()))

    with mockhttp.Server() as server:
        server.mock(a2a.agent([script]))
        events = run(server, body)
    assert events[-2:] == ["status TASK_STATE_COMPLETED", "status TASK_STATE_COMPLETED"]
