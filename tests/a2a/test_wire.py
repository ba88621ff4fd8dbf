"""The mock A2A agent on the wire, read with httpx: both versions' shapes, byte for byte,
the task lifecycle, the JSON-RPC errors and the timing."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

import mockhttp
from mockhttp import a2a, fault

SCRIPT = a2a.task(a2a.status("working"), a2a.artifact("Hi"), a2a.status("completed"))


def rpc(method: str, id_: Any = 1, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "method": method, "params": params}


def said(text: str, version: str = "0.3", **fields: Any) -> dict[str, Any]:
    """The client's message ``text`` as ``version`` writes it."""
    if version == "0.3":
        part = {"kind": "text", "text": text}
        return {"kind": "message", "messageId": "m1", "role": "user", "parts": [part], **fields}
    return {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": text}], **fields}


def results(answer: httpx.Response) -> list[Any]:
    """The JSON-RPC results of an SSE answer, in order."""
    assert answer.headers["content-type"] == "text/event-stream"
    lines = answer.text.split("\n\n")
    return [json.loads(line.removeprefix("data: "))["result"] for line in lines if line]


@pytest.fixture
def client(request: pytest.FixtureRequest) -> Any:
    kind = getattr(request, "param", None) or a2a.A2aAgent([SCRIPT])
    with mockhttp.Server() as server, httpx.Client(base_url=server.url, timeout=5) as http:
        server.mock(kind.mock())
        yield http


def test_a_0_3_stream_byte_for_byte(client: httpx.Client) -> None:
    """message/stream: the task first, then status and artifact updates, the last final."""
    answer = client.post("/", json=rpc("message/stream", 7, message=said("hi")))
    history = (
        '"history":[{"kind":"message","messageId":"m1","role":"user",'
        '"parts":[{"kind":"text","text":"hi"}],"contextId":"ctx-1","taskId":"task-1"}]'
    )
    head = '{"jsonrpc":"2.0","id":7,"result":'
    ids = '"taskId":"task-1","contextId":"ctx-1"'
    assert answer.content.decode() == (
        f'data: {head}{{"kind":"task","id":"task-1","contextId":"ctx-1",'
        f'"status":{{"state":"submitted"}},{history}}}}}\n\n'
        f'data: {head}{{"kind":"status-update",{ids},"status":{{"state":"working"}},'
        '"final":false}}\n\n'
        f'data: {head}{{"kind":"artifact-update",{ids},"artifact":{{"artifactId":"artifact-1",'
        '"parts":[{"kind":"text","text":"Hi"}]},"append":false}}\n\n'
        f'data: {head}{{"kind":"status-update",{ids},"status":{{"state":"completed"}},'
        '"final":true}}\n\n'
    )


def test_a_1_0_stream_is_wrapped_with_enum_states(client: httpx.Client) -> None:
    """SendStreamingMessage: StreamResponse wrappers, TASK_STATE_* names, no kind or final."""
    answer = client.post("/", json=rpc("SendStreamingMessage", "a", message=said("hi", "1.0")))
    got = results(answer)
    assert [next(iter(r)) for r in got] == [
        "task",
        "statusUpdate",
        "artifactUpdate",
        "statusUpdate",
    ]
    assert got[0]["task"]["history"][0]["role"] == "ROLE_USER"
    assert got[1]["statusUpdate"]["status"] == {"state": "TASK_STATE_WORKING"}
    assert got[2]["artifactUpdate"]["artifact"]["parts"] == [{"text": "Hi"}]
    assert got[3] == {
        "statusUpdate": {
            "taskId": "task-1",
            "contextId": "ctx-1",
            "status": {"state": "TASK_STATE_COMPLETED"},
        }
    }
    assert "kind" not in answer.text
    assert "final" not in answer.text


def test_send_get_and_the_errors(client: httpx.Client) -> None:
    """message/send answers the task at its run's end; tasks/get reads it; the error codes."""
    sent = client.post("/", json=rpc("message/send", message=said("hi"))).json()["result"]
    assert (sent["kind"], sent["status"], sent["artifacts"]) == (
        "task",
        {"state": "completed"},
        [{"artifactId": "artifact-1", "parts": [{"kind": "text", "text": "Hi"}]}],
    )
    got = client.post("/", json=rpc("GetTask", 2, id="task-1")).json()
    assert got["id"] == 2
    assert got["result"]["status"] == {"state": "TASK_STATE_COMPLETED"}

    def code(body: Any, **headers: str) -> tuple[int, str]:
        error = client.post("/", json=body, headers=headers).json()["error"]
        return error["code"], error["message"]

    assert code(rpc("tasks/get", id="task-9")) == (-32001, "Task not found: task-9")
    assert code(rpc("tasks/cancel", id="task-1")) == (
        -32002,
        "Task not cancelable: task-1 is completed",
    )
    assert code(rpc("message/send", message=said("more", taskId="task-1")))[0] == -32004
    assert code(rpc("tasks/list"))[0] == -32601
    assert code(rpc("message/send"))[0] == -32602
    assert code(rpc("GetTask", id="task-1"), **{"A2A-Version": "2.0"})[0] == -32009
    assert code({"id": 1, "method": "GetTask"})[0] == -32600
    parse = client.post("/", content=b"{", headers={"content-type": "application/json"})
    assert parse.json()["error"]["code"] == -32700
    assert parse.json()["id"] is None


@pytest.mark.parametrize(
    "client",
    [
        a2a.A2aAgent(
            [
                a2a.task(
                    a2a.status("working", "Which city?"),
                    a2a.status("input-required", "Which city?"),
                    a2a.artifact("Sunny", name="weather"),
                    a2a.status("completed"),
                ),
            ]
        )
    ],
    indirect=True,
)
def test_input_required_stops_the_run_and_the_next_message_goes_on(client: httpx.Client) -> None:
    """A stream ends after input-required (final); a message naming the task continues."""
    first = results(client.post("/", json=rpc("message/stream", message=said("weather?"))))
    assert [r.get("final") for r in first] == [None, False, True]
    assert first[2]["status"]["state"] == "input-required"
    assert first[2]["status"]["message"]["parts"] == [{"kind": "text", "text": "Which city?"}]
    again = rpc("message/send", message=said("Brest", taskId="task-1"))
    done = client.post("/", json=again).json()["result"]
    assert done["status"]["state"] == "completed"
    assert [p["text"] for m in done["history"] for p in m["parts"]] == ["weather?", "Brest"]
    assert done["artifacts"] == [
        {
            "artifactId": "artifact-1",
            "name": "weather",
            "parts": [{"kind": "text", "text": "Sunny"}],
        }
    ]


@pytest.mark.parametrize(
    "client",
    [a2a.A2aAgent([a2a.task(a2a.status("working"), a2a.status("input-required"))])],
    indirect=True,
)
def test_cancel_and_resubscribe(client: httpx.Client) -> None:
    """tasks/cancel ends a task that is not terminal; resubscribe restates it, final."""
    client.post("/", json=rpc("message/send", message=said("hi")))
    sub = results(client.post("/", json=rpc("tasks/resubscribe", id="task-1")))
    assert [(r["kind"], r["status"]["state"], r.get("final")) for r in sub] == [
        ("task", "input-required", None),
        ("status-update", "input-required", True),
    ]
    canceled = client.post("/", json=rpc("CancelTask", id="task-1")).json()["result"]
    assert canceled["status"] == {"state": "TASK_STATE_CANCELED"}
    assert client.post("/", json=rpc("CancelTask", id="task-1")).json()["error"]["code"] == -32002


def test_artifact_chunks_append_under_one_id() -> None:
    """append adds a chunk to the artifact before it; the task holds the parts in order."""
    kind = a2a.A2aAgent(
        [
            a2a.task(
                a2a.artifact("Hel", name="answer"),
                a2a.artifact("lo", append=True, last_chunk=True),
                a2a.artifact(data={"n": 1}, id="extra"),
                a2a.status("completed"),
            )
        ]
    )
    with mockhttp.Server() as server, httpx.Client(base_url=server.url) as client:
        server.mock(kind.mock())
        got = results(client.post("/", json=rpc("message/stream", message=said("hi"))))
        task = client.post("/", json=rpc("tasks/get", id="task-1")).json()["result"]
    assert got[2]["artifact"] == {
        "artifactId": "artifact-1",
        "parts": [{"kind": "text", "text": "lo"}],
    }
    assert (got[2]["append"], got[2]["lastChunk"]) == (True, True)
    assert got[3]["artifact"]["parts"] == [{"kind": "data", "data": {"n": 1}}]
    assert task["artifacts"] == [
        {
            "artifactId": "artifact-1",
            "name": "answer",
            "parts": [{"kind": "text", "text": "Hel"}, {"kind": "text", "text": "lo"}],
        },
        {"artifactId": "extra", "parts": [{"kind": "data", "data": {"n": 1}}]},
    ]


def test_answers_go_in_order_the_last_repeating() -> None:
    """New conversations take the next answer: a task, a message, an error, the last again."""
    kind = a2a.A2aAgent([SCRIPT, a2a.message("Hello"), a2a.error("busy", -32603)])
    with mockhttp.Server() as server, httpx.Client(base_url=server.url) as client:
        server.mock(kind.mock())
        answers = [
            client.post("/", json=rpc("SendMessage", message=said("hi", "1.0"))).json()
            for _ in range(4)
        ]
    assert answers[0]["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
    assert answers[1]["result"] == {
        "message": {
            "messageId": "message-1",
            "role": "ROLE_AGENT",
            "parts": [{"text": "Hello"}],
            "contextId": "ctx-0",
        }
    }
    assert answers[2]["error"] == answers[3]["error"] == {"code": -32603, "message": "busy"}
    assert kind.task_states() == {"task-1": "completed"}


def test_the_faults_of_a_task() -> None:
    """duplicate_final sends the final update twice; wrong_id answers with another id."""
    kind = a2a.A2aAgent([a2a.task(*SCRIPT.steps, duplicate_final=True, wrong_id=True)])
    with mockhttp.Server() as server, httpx.Client(base_url=server.url) as client:
        server.mock(kind.mock())
        answer = client.post("/", json=rpc("message/stream", 5, message=said("hi")))
        got = client.post("/", json=rpc("tasks/get", "x", id="task-1")).json()
    events = [json.loads(e.removeprefix("data: ")) for e in answer.text.split("\n\n") if e]
    assert [e["id"] for e in events] == [6] * 5
    assert [e["result"].get("final") for e in events] == [None, False, None, True, True]
    assert got["id"] == "x-other"


def test_the_card_at_both_well_known_paths() -> None:
    """The card lists an interface per version, on the request's host; 405 elsewhere."""
    kind = a2a.A2aAgent(versions=["1.0"], card={"skills": []}, name="weather", path="/rpc")
    with mockhttp.Server() as server, httpx.Client(base_url=server.url) as client:
        server.mock(kind.mock())
        cards = [
            client.get(p).json()
            for p in ("/.well-known/agent-card.json", "/.well-known/agent.json")
        ]
        rpc_get = client.get("/rpc")
        old = client.post("/rpc", json=rpc("message/send", message=said("hi"))).json()
    assert cards[0] == cards[1]
    assert cards[0]["name"] == "weather"
    assert cards[0]["skills"] == []
    assert cards[0]["supportedInterfaces"] == [
        {"url": server.url + "/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
    ]
    assert rpc_get.status_code == 405
    assert rpc_get.headers["allow"] == "POST"
    assert old["error"]["code"] == -32601
    assert "speaks A2A 1.0" in old["error"]["message"]


def test_event_delay_and_a_step_delay() -> None:
    """event_delay spaces the events; a step's delay replaces it for that event.

    Timed by the server's own write times (``Call.event_times``) from the request's
    arrival: the client's reading times squeezed a gap whenever its thread was late for
    the event before (0.064 s for a 0.1 s delay, with a CPU hog on each core).  The step's
    delay (0.1 s) is much shorter than the agent's (0.6 s): a step delay ignored (1.2 s)
    or added (1.3 s) is past the bound, a loaded machine's lag under 0.4 s is not."""
    kind = a2a.A2aAgent(
        [a2a.task(a2a.status("working"), a2a.status("completed", delay=0.1))], event_delay=0.6
    )
    with mockhttp.Server() as server, httpx.Client(base_url=server.url) as client:
        server.mock(kind.mock())
        with client.stream("POST", "/", json=rpc("message/stream", message=said("hi"))) as answer:
            lines = [line for line in answer.iter_lines() if line]
        [call] = server.journal
    assert len(lines) == 3
    assert call.event_times is not None
    assert len(call.event_times) == 3
    # each event is due at the run's start plus the delays before it (not after the write
    # before it): after the request's arrival by at least that, and not 0.4 s more
    _task, working, completed = (t - call.time for t in call.event_times)
    assert 0.6 <= working < 0.6 + 0.4, call.event_times  # the agent's event_delay
    assert 0.7 <= completed < 0.7 + 0.4, call.event_times  # then the step's own delay


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: a2a.status("done"), "status: 'done' is not a task state"),
        (lambda: a2a.artifact(), "artifact: give the text, or data"),
        (lambda: a2a.task(), "steps: a task needs at least one step"),
        (lambda: a2a.A2aAgent(versions=["0.2"]), "versions: ['0.2'] must be among 0.3, 1.0"),
        (
            lambda: a2a.A2aAgent([[{"status": "working", "txt": "x"}]]),
            "tasks[0][0]: unknown key 'txt'",
        ),
        (lambda: a2a.A2aAgent(event_delay=-1), "event_delay: -1 must be a number of seconds"),
    ],
)
def test_bad_scripts_say_what_and_where(build: Any, message: str) -> None:
    with pytest.raises(
        mockhttp.ConfigError, match="^" + message.replace("[", r"\[").replace("(", r"\(")
    ):
        build()


def test_a_stall_between_events_is_the_shells_fault() -> None:
    """fault.stall(after_events=2): two events arrive, then nothing until the client gives up."""
    kind = a2a.A2aAgent([SCRIPT])
    with mockhttp.Server() as server, httpx.Client(base_url=server.url, timeout=0.4) as client:
        server.mock(kind.mock().pipe(fault.stall(after_events=2)))
        lines: list[str] = []
        with (
            pytest.raises(httpx.ReadTimeout),
            client.stream("POST", "/", json=rpc("message/stream", message=said("hi"))) as answer,
        ):
            lines.extend(line for line in answer.iter_lines() if line)
    assert [json.loads(line.removeprefix("data: "))["result"]["kind"] for line in lines] == [
        "task",
        "status-update",
    ]
    assert kind.task_states() == {"task-1": "completed"}  # the run was decided on arrival


@pytest.mark.parametrize(
    ("body", "code", "id_"),
    [
        ({"jsonrpc": "2.0", "id": {"a": 1}, "method": "GetTask"}, -32600, None),
        ({"jsonrpc": "2.0", "id": True, "method": "GetTask"}, -32600, None),
        ({"id": "r1", "method": "GetTask"}, -32600, "r1"),
        ({"jsonrpc": "2.0", "id": 5}, -32600, 5),
        ({"jsonrpc": "2.0", "id": 6, "method": 7}, -32600, 6),
        ([{"jsonrpc": "2.0", "id": 1, "method": "GetTask"}], -32600, None),
        ({"jsonrpc": "2.0", "id": "r2", "method": "GetTask", "params": [1]}, -32602, "r2"),
        ({"jsonrpc": "2.0", "id": "r3", "method": "Nope"}, -32601, "r3"),
    ],
)
def test_errors_carry_the_request_id_when_it_is_readable(
    client: httpx.Client, body: Any, code: int, id_: Any
) -> None:
    """JSON-RPC 2.0 §5: the request's id on its error whenever it could be read; an id that
    is an object or a boolean is -32600 with id null."""
    answer = client.post("/", json=body).json()
    assert (answer["error"]["code"], answer["id"]) == (code, id_)


@pytest.mark.parametrize(
    ("message", "why"),
    [
        ({"messageId": "m1", "role": "ROLE_USER", "parts": []}, "at least one part"),
        ({"role": "ROLE_USER", "parts": [{"text": "hi"}]}, "messageId is required"),
        ({"messageId": "m1", "parts": [{"text": "hi"}]}, "role must be ROLE_USER"),
        ({"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "a", "url": "b"}]}, "one of"),
        ({"messageId": "m1", "role": "ROLE_USER", "parts": [{}]}, "exactly one of"),
    ],
)
def test_a_message_the_spec_refuses(client: httpx.Client, message: Any, why: str) -> None:
    """Empty parts, no messageId, no role, a part with two contents: -32602, the request's
    id, and what is wrong."""
    answer = client.post("/", json=rpc("SendMessage", "x", message=message)).json()
    assert (answer["id"], answer["error"]["code"]) == ("x", -32602)
    assert why in answer["error"]["message"]


def test_history_length_must_be_a_whole_number_0_or_more(client: httpx.Client) -> None:
    client.post("/", json=rpc("message/send", message=said("hi")))
    for bad in (-1, 1.5, "2", True):
        answer = client.post("/", json=rpc("GetTask", id="task-1", historyLength=bad)).json()
        assert answer["error"]["code"] == -32602, bad
    config = {"historyLength": -1}
    sent = rpc("SendMessage", message=said("hi", "1.0"), configuration=config)
    assert client.post("/", json=sent).json()["error"]["code"] == -32602
    kept = client.post("/", json=rpc("GetTask", id="task-1", historyLength=0)).json()
    assert "history" not in kept["result"]


@pytest.mark.parametrize(
    ("params", "why"),
    [
        ({"pageSize": 0}, "pageSize must be 1 to 100"),
        ({"pageSize": 101}, "pageSize must be 1 to 100"),
        ({"pageToken": "nope"}, "pageToken"),
        ({"status": "TASK_STATE_DONE"}, "not a task state"),
        ({"statusTimestampAfter": "-1"}, "ISO 8601"),
        ({"historyLength": -2}, "0 or more"),
    ],
)
def test_list_tasks_refuses_bad_params(client: httpx.Client, params: Any, why: str) -> None:
    answer = client.post("/", json=rpc("ListTasks", 3, **params)).json()
    assert (answer["id"], answer["error"]["code"]) == (3, -32602)
    assert why in answer["error"]["message"]


def test_the_card_under_the_agent_path_and_at_the_root() -> None:
    """One URL: an agent at /a2a serves its card at /a2a/.well-known/... and at the root."""
    kind = a2a.A2aAgent(path="/a2a")
    with mockhttp.Server() as server, httpx.Client(base_url=server.url) as http:
        server.mock(kind.mock())
        cards = [http.get(p + "/.well-known/agent-card.json").json() for p in ("", "/a2a")]
        assert http.get("/a2a/.well-known/agent.json").status_code == 200
    assert cards[0] == cards[1]
    assert cards[0]["supportedInterfaces"][0]["url"] == server.url + "/a2a"


def test_an_agent_reused_starts_over_when_registered_or_the_journal_is_cleared() -> None:
    kind = a2a.A2aAgent([SCRIPT])
    for _ in range(2):
        with mockhttp.Server() as server, httpx.Client(base_url=server.url) as http:
            server.mock(kind.mock())
            sent = http.post("/", json=rpc("message/send", message=said("hi"))).json()
            assert sent["result"]["id"] == "task-1"
            server.clear_journal()
            assert kind.task_states() == {}
