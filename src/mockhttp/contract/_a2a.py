"""a2a: rules for an A2A streaming answer (``message/stream``, ``tasks/resubscribe`` and
1.0's ``SendStreamingMessage``, ``SubscribeToTask``): JSON-RPC responses in SSE events.

Each event's data is one JSON-RPC response whose ``result`` is a task, a message, a status
update or an artifact update: 0.3 names it with ``kind``, 1.0 wraps it
(``{"statusUpdate": ...}``).  The stream's last event is its final one (0.3:
``final: true``; 1.0: a status update whose state is terminal or interrupted; a message or
an error also ends a stream), and there is exactly one.  The task lifecycle is a table
(``TRANSITIONS``), which ``mockhttp.a2a`` reads too.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .._core._sse_decode import Message
from ._rule import Hit, Rule, hit, short
from ._stream import Stream

__all__ = ["A2A", "INTERRUPTED", "STATES", "TERMINAL", "TRANSITIONS"]

METHODS: dict[str, tuple[str, str]] = {
    "message/send": ("0.3", "send"),
    "message/stream": ("0.3", "stream"),
    "tasks/get": ("0.3", "get"),
    "tasks/cancel": ("0.3", "cancel"),
    "tasks/resubscribe": ("0.3", "resubscribe"),
    "tasks/pushNotificationConfig/set": ("0.3", "push_set"),
    "tasks/pushNotificationConfig/get": ("0.3", "push_get"),
    "tasks/pushNotificationConfig/list": ("0.3", "push_list"),
    "tasks/pushNotificationConfig/delete": ("0.3", "push_delete"),
    "agent/getAuthenticatedExtendedCard": ("0.3", "extended_card"),
    "SendMessage": ("1.0", "send"),
    "SendStreamingMessage": ("1.0", "stream"),
    "GetTask": ("1.0", "get"),
    "ListTasks": ("1.0", "list_tasks"),
    "CancelTask": ("1.0", "cancel"),
    "SubscribeToTask": ("1.0", "resubscribe"),
    "CreateTaskPushNotificationConfig": ("1.0", "push_set"),
    "GetTaskPushNotificationConfig": ("1.0", "push_get"),
    "ListTaskPushNotificationConfigs": ("1.0", "push_list"),
    "DeleteTaskPushNotificationConfig": ("1.0", "push_delete"),
    "GetExtendedAgentCard": ("1.0", "extended_card"),
}
"""Every JSON-RPC method of A2A: (the version that names it, what it does); the mock
answers them and ``mockhttp check`` recognises an A2A exchange by them."""


def is_a2a(request: Any) -> bool:
    """True for a JSON-RPC 2.0 request naming an A2A method."""
    return (
        isinstance(request, dict)
        and request.get("jsonrpc") == "2.0"
        and request.get("method") in METHODS
    )


STATES = (
    "submitted",
    "working",
    "input-required",
    "auth-required",
    "completed",
    "canceled",
    "failed",
    "rejected",
)
TERMINAL = frozenset({"completed", "canceled", "failed", "rejected"})
INTERRUPTED = frozenset({"input-required", "auth-required"})
"""A stream ends after a terminal or an interrupted status (the client answers, then the
task goes on)."""

TRANSITIONS: dict[str, frozenset[str]] = {
    "submitted": frozenset(STATES) - {"submitted"},
    "working": frozenset(STATES) - {"submitted"},
    "input-required": frozenset({"working", "completed", "canceled", "failed"}),
    "auth-required": frozenset({"working", "canceled", "failed", "rejected"}),
    **{state: frozenset() for state in TERMINAL},
}
"""The task lifecycle: state -> the states it may go to (a terminal state goes nowhere;
``working`` may restate itself, each update a progress message)."""

_KINDS = {
    "task": "task",
    "message": "message",
    "statusUpdate": "status-update",
    "artifactUpdate": "artifact-update",
}
Event = tuple[Message, str, dict[str, Any], dict[str, Any]]  # message, kind, body, response


def state_of(name: Any) -> str | None:
    """The state a wire value names, in either version (None: not a state)."""
    if not isinstance(name, str):
        return None
    if name.startswith("TASK_STATE_"):
        name = name.removeprefix("TASK_STATE_").lower().replace("_", "-")
    return name if name in STATES else None


def _result(response: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """The kind and object of a response's result, in either version (None: unknown)."""
    value = response.get("result")
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("kind"), str):
        return (value["kind"], value) if value["kind"] in _KINDS.values() else None
    if len(value) == 1:
        ((key, body),) = value.items()
        if key in _KINDS and isinstance(body, dict):
            return _KINDS[key], body
    return None


def _events(stream: Stream) -> list[Event]:
    if "a2a" not in stream.memo:
        found = []
        for p in stream.payloads:
            if p.obj is not None and (kind := _result(p.obj)) is not None:
                found.append((p.message, kind[0], kind[1], p.obj))
        stream.memo["a2a"] = found
    return list(stream.memo["a2a"])


def _final(kind: str, body: dict[str, Any]) -> bool:
    if kind == "message":
        return True
    if kind != "status-update":
        return False
    if "final" in body:
        return body["final"] is True
    status = body.get("status")
    state = state_of(status.get("state")) if isinstance(status, dict) else None
    return state in TERMINAL or state in INTERRUPTED


def _responses(stream: Stream) -> Iterator[Hit]:
    for p in stream.payloads:
        obj = p.obj
        if obj is None or obj.get("jsonrpc") != "2.0" or ("result" in obj) == ("error" in obj):
            yield hit(
                p.message,
                f"data is not a JSON-RPC 2.0 response (result or error): {short(p.message.data)}",
            )


def _kinds(stream: Stream) -> Iterator[Hit]:
    for p in stream.payloads:
        obj = p.obj
        if obj is not None and isinstance(obj.get("result"), dict) and _result(obj) is None:
            yield hit(
                p.message,
                "result is not a task, message, status update or artifact update: "
                f"{short(obj['result'])}",
            )


def _ids(stream: Stream) -> Iterator[Hit]:
    request = stream.transcript.request
    if not isinstance(request, dict) or "id" not in request:
        return
    for p in stream.payloads:
        if p.obj is not None and "id" in p.obj and p.obj["id"] != request["id"]:
            yield hit(
                p.message,
                f"response id {short(p.obj['id'])} is not the request's {short(request['id'])}",
            )


def _one_final(stream: Stream) -> Iterator[Hit]:
    events = _events(stream)
    finals = [e for e in events if _final(e[1], e[2])]
    errors = [p for p in stream.payloads if p.obj is not None and "error" in p.obj]
    if not finals and not errors and events:
        yield hit(events[-1][0], "the stream ended without a final event")
    for extra in finals[1:]:
        yield hit(extra[0], f"a second final event ({extra[1]}): a stream has exactly one")
    if finals and finals[0][0] is not events[-1][0] and len(finals) == 1:
        yield hit(events[-1][0], "an event came after the final one")


def _transitions(stream: Stream) -> Iterator[Hit]:
    state: str | None = None
    for message, kind, body, _ in _events(stream):
        if kind not in ("task", "status-update"):
            continue
        status = body.get("status")
        raw = status.get("state") if isinstance(status, dict) else None
        new = state_of(raw)
        if new is None:
            yield hit(message, f"{short(raw)} is not a task state")
            continue
        if kind == "status-update" and state is not None and not _may_go(state, new, body):
            allowed = ", ".join(sorted(TRANSITIONS[state])) or "nothing (it is terminal)"
            yield hit(message, f"{state} went to {new}; {state} may go to {allowed}")
        state = new


def _may_go(state: str, new: str, body: dict[str, Any]) -> bool:
    """Whether a status update may take a task from ``state`` to ``new`` (a final update
    may restate the state, as a resubscribed stream does)."""
    return new in TRANSITIONS[state] or (new == state and _final("status-update", body))


def _one_task(stream: Stream) -> Iterator[Hit]:
    task_id: Any = None
    for message, kind, body, _ in _events(stream):
        named = body.get("id") if kind == "task" else body.get("taskId")
        if kind == "message" or named is None:
            continue
        if task_id is None:
            task_id = named
        elif named != task_id:
            yield hit(
                message, f"{kind} names task {short(named)}; the stream is {short(task_id)}'s"
            )


A2A = (
    Rule(
        "a2a.jsonrpc",
        "violation",
        'Each event\'s data is one JSON-RPC 2.0 response: `jsonrpc: "2.0"` and exactly one '
        "of `result` and `error`.",
        "A2A clients parse every event as a JSON-RPC response and raise on anything else.",
        "None known.",
        _responses,
    ),
    Rule(
        "a2a.kind",
        "violation",
        "Each result is a task, a message, a status update or an artifact update (0.3: "
        "its `kind`; 1.0: the one key `task`, `message`, `statusUpdate` or `artifactUpdate`).",
        "Clients dispatch on the kind; the 0.3 SDK drops results of a kind it does not know.",
        "None known.",
        _kinds,
    ),
    Rule(
        "a2a.id",
        "violation",
        "Each response's `id` is the request's (when the request is known).",
        "A client matches responses to requests by id; the a2a-sdk 1.3 client does not "
        "check it, so a wrong id goes unnoticed there and breaks stricter clients.",
        "None known.",
        _ids,
    ),
    Rule(
        "a2a.final",
        "violation",
        "The stream has exactly one final event and it is the last (0.3: `final: true`; "
        "1.0: a status update to a terminal or interrupted state; or a message, or an error).",
        "Clients stop reading at the final event: a second one is read as another answer, "
        "a missing one leaves the client waiting for the connection to close.",
        "None known.",
        _one_final,
    ),
    Rule(
        "a2a.transitions",
        "violation",
        "Every state is a task state, and each status update goes to a state its task may "
        "go to (submitted → working → input-required ... → completed, failed, canceled, "
        "rejected; nothing after a terminal state).",
        "Clients drive their own state from these updates; a task that leaves `completed` "
        "is a task the client already closed.",
        "None known.",
        _transitions,
    ),
    Rule(
        "a2a.one-task",
        "violation",
        "Every task and update of a stream names the same task.",
        "A stream answers one request about one task; updates of another task are lost or "
        "mixed in.",
        "None known.",
        _one_task,
    ),
)
