"""A2A 1.0's HTTP+JSON binding (``http_json=True``): the routes, pure, and on the wire with
httpx and the official ``a2a-sdk`` client (its REST transport, picked from the card)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from a2a.client import ClientConfig, create_client
from a2a.types import a2a_pb2 as pb
from a2a.utils.errors import TaskNotFoundError

import mockhttp
from mockhttp import a2a
from mockhttp.a2a._rest import rest_error, route, status_of
from mockhttp.a2a._validate import camel

SCRIPT = a2a.task(a2a.status("working"), a2a.artifact("Hi"), a2a.status("completed"))
MESSAGE = {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}


@pytest.mark.parametrize(
    ("method", "path", "query", "expected"),
    [
        ("POST", "/message:send", {}, ("send", {"message": MESSAGE})),
        ("POST", "/message:stream", {}, ("stream", {"message": MESSAGE})),
        ("GET", "/tasks/t-1", {"historyLength": "2"}, ("get", {"id": "t-1", "historyLength": 2})),
        ("GET", "/tasks", {"page_size": "5", "includeArtifacts": "true"},
         ("list_tasks", {"pageSize": 5, "includeArtifacts": True})),
        ("POST", "/tasks/t-1:cancel", {}, ("cancel", {"id": "t-1"})),
        ("GET", "/tasks/t-1:subscribe", {}, ("resubscribe", {"id": "t-1"})),
        ("POST", "/tasks/t-1/pushNotificationConfigs", {}, ("push_set", {"taskId": "t-1"})),
        ("GET", "/tasks/t-1/pushNotificationConfigs", {}, ("push_list", {"taskId": "t-1"})),
        ("GET", "/tasks/t-1/pushNotificationConfigs/c", {},
         ("push_get", {"taskId": "t-1", "id": "c"})),
        ("DELETE", "/tasks/t-1/pushNotificationConfigs/c", {},
         ("push_delete", {"taskId": "t-1", "id": "c"})),
        ("GET", "/extendedAgentCard", {}, ("extended_card", {})),
    ],
)  # fmt: skip
def test_the_routes(method: str, path: str, query: dict[str, str], expected: Any) -> None:
    body = {"message": MESSAGE} if path.startswith("/message") else None
    operation, params = expected
    found = route(method, path, query, body)
    assert found is not None
    assert found[0] == operation
    assert found[1] == params


@pytest.mark.parametrize(
    ("method", "path"), [("GET", "/message:send"), ("PUT", "/tasks/t-1"), ("GET", "/nope")]
)
def test_what_is_no_route(method: str, path: str) -> None:
    assert route(method, path, {}, None) is None


def test_errors_as_statuses() -> None:
    assert [status_of(c) for c in (-32001, -32002, -32602, -32603, -1)] == [404, 409, 400, 500, 500]
    body = rest_error(-32001, "Task not found: t")
    assert body["error"]["status"] == "NOT_FOUND"
    assert body["error"]["details"][0]["reason"] == "TASK_NOT_FOUND"


def test_proto_field_names_become_json_names() -> None:
    sent = {
        "message": {"message_id": "m", "task_id": "t", "parts": [{"data": {"a_b": 1}}]},
        "configuration": {"history_length": 1, "return_immediately": True},
        "metadata": {"keep_me": 1},
    }
    assert camel(sent) == {
        "message": {"messageId": "m", "taskId": "t", "parts": [{"data": {"a_b": 1}}]},
        "configuration": {"historyLength": 1, "returnImmediately": True},
        "metadata": {"keep_me": 1},
    }


def test_the_binding_on_the_wire() -> None:
    """No JSON-RPC envelope; a stream of StreamResponse objects; errors as statuses."""
    kind = a2a.A2aAgent([SCRIPT], http_json=True)
    with mockhttp.Server() as server, httpx.Client(base_url=server.url) as http:
        server.mock(kind.mock())
        card = http.get("/.well-known/agent-card.json").json()
        sent = http.post("/message:send", json={"message": MESSAGE}).json()
        got = http.get("/tasks/task-1", params={"historyLength": 0}).json()
        listed = http.get("/tasks", params={"page_size": 1}).json()
        streamed = http.post("/message:stream", json={"message": MESSAGE}).text
        missing = http.get("/tasks/task-9")
        refused = http.post("/message:send", json={"message": {**MESSAGE, "parts": []}})
        done = http.post("/tasks/task-1:cancel")
    assert {"url": server.url + "/", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"} in (
        card["supportedInterfaces"]
    )
    assert sent["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
    assert (got["id"], "history" in got) == ("task-1", False)
    assert (listed["totalSize"], listed["pageSize"]) == (1, 1)
    events = [json.loads(e.removeprefix("data: ")) for e in streamed.split("\n\n") if e]
    assert [next(iter(e)) for e in events] == [
        "task",
        "statusUpdate",
        "artifactUpdate",
        "statusUpdate",
    ]
    assert (missing.status_code, missing.json()["error"]["status"]) == (404, "NOT_FOUND")
    assert refused.status_code == 400
    assert (done.status_code, done.json()["error"]["code"]) == (409, 409)


def test_the_sdk_client_on_the_rest_transport() -> None:
    """The a2a-sdk client, told to prefer HTTP+JSON, streams, gets and lists over it."""

    async def body(url: str) -> Any:
        client = await create_client(url, ClientConfig(supported_protocol_bindings=["HTTP+JSON"]))
        try:
            message = pb.Message(message_id="m1", role=pb.ROLE_USER, parts=[pb.Part(text="hi")])
            kinds = [
                e.WhichOneof("payload")
                async for e in client.send_message(pb.SendMessageRequest(message=message))
            ]
            task = await client.get_task(pb.GetTaskRequest(id="task-1"))
            listed = await client.list_tasks(pb.ListTasksRequest())
            with pytest.raises(TaskNotFoundError):
                await client.get_task(pb.GetTaskRequest(id="task-9"))
            return kinds, task, listed
        finally:
            await client.close()

    with mockhttp.Server() as server:
        handle = server.mock(a2a.agent([SCRIPT], versions="1.0", http_json=True))
        kinds, task, listed = asyncio.run(body(server.url))
    assert kinds == ["task", "status_update", "artifact_update", "status_update"]
    assert task.status.state == pb.TASK_STATE_COMPLETED
    assert [t.id for t in listed.tasks] == ["task-1"]
    assert {c.request.path for c in handle.calls} >= {"/message:stream", "/tasks/task-1", "/tasks"}
