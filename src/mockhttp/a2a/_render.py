"""A2A objects on the wire, in the version the request speaks (see :mod:`._spec`).

Tasks, messages and updates are held in one neutral form (parts as 1.0 writes them:
``{"text": ...}`` or ``{"data": ...}``) and written here: 0.3 adds ``kind`` to objects and
parts and ``final`` to status updates; 1.0 writes enum names and wraps stream results.
Fields whose value is empty or unset are left out, so the bytes are the same every run.
"""

from __future__ import annotations

from typing import Any

from ._spec import Version, state_name
from ._tasks import Chunk, Live, Update

__all__ = ["agent_message", "artifact_update", "status_update", "task", "wrap"]

_ROLES = {
    "0.3": {"agent": "agent", "user": "user"},
    "1.0": {"agent": "ROLE_AGENT", "user": "ROLE_USER"},
}
_WRAP = {
    "task": "task",
    "message": "message",
    "status-update": "statusUpdate",
    "artifact-update": "artifactUpdate",
}


def _kind(version: Version, kind: str, body: dict[str, Any]) -> dict[str, Any]:
    return {"kind": kind, **body} if version == "0.3" else body


def wrap(version: Version, kind: str, body: dict[str, Any]) -> dict[str, Any]:
    """A stream result: 0.3 sends the object (its ``kind`` tells), 1.0 wraps it."""
    return body if version == "0.3" else {_WRAP[kind]: body}


def part(version: Version, value: dict[str, Any]) -> dict[str, Any]:
    if version == "1.0":
        return dict(value)
    kind = "text" if "text" in value else "data" if "data" in value else "file"
    return {"kind": kind, **value}


def message(
    version: Version, neutral: dict[str, Any], task_id: str | None, context_id: str
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "messageId": neutral["messageId"],
        "role": _ROLES[version][neutral["role"]],
        "parts": [part(version, p) for p in neutral["parts"]],
        "contextId": context_id,
    }
    if task_id is not None:
        body["taskId"] = task_id
    return _kind(version, "message", body)


def agent_message(
    version: Version, text: str, message_id: str, context_id: str, task_id: str | None = None
) -> dict[str, Any]:
    """The agent's message ``text``."""
    neutral = {"messageId": message_id, "role": "agent", "parts": [{"text": text}]}
    return message(version, neutral, task_id, context_id)


def _status(version: Version, live: Live, state: str, text: str | None, n: int) -> dict[str, Any]:
    body: dict[str, Any] = {"state": state_name(state, version)}
    if text is not None:
        body["message"] = agent_message(
            version, text, f"{live.id}-status-{n}", live.context_id, live.id
        )
    return body


def task(
    version: Version, live: Live, history: int | None = None, artifacts: bool = True
) -> dict[str, Any]:
    """The task object as it stands: its last ``history`` messages (None: all of them),
    its artifacts unless ``artifacts`` is false."""
    body: dict[str, Any] = {
        "id": live.id,
        "contextId": live.context_id,
        "status": _status(version, live, live.state, live.text, live.place),
    }
    if live.artifacts and artifacts:
        body["artifacts"] = [
            _artifact(version, artifact_id, name, parts)
            for artifact_id, (name, parts) in live.artifacts.items()
        ]
    kept = live.history if history is None else live.history[len(live.history) - history :]
    if kept and history != 0:
        body["history"] = [message(version, m, live.id, live.context_id) for m in kept]
    return _kind(version, "task", body)


def _artifact(
    version: Version, artifact_id: str, name: str | None, parts: list[dict[str, Any]]
) -> dict[str, Any]:
    body: dict[str, Any] = {"artifactId": artifact_id}
    if name is not None:
        body["name"] = name
    body["parts"] = [part(version, p) for p in parts]
    return body


def status_update(version: Version, live: Live, update: Update, n: int) -> dict[str, Any]:
    body: dict[str, Any] = {
        "taskId": live.id,
        "contextId": live.context_id,
        "status": _status(version, live, update.state, update.text, n),
    }
    if version == "0.3":
        body["final"] = update.final
    return _kind(version, "status-update", body)


def artifact_update(version: Version, live: Live, chunk: Chunk) -> dict[str, Any]:
    step = chunk.step
    body: dict[str, Any] = {
        "taskId": live.id,
        "contextId": live.context_id,
        "artifact": _artifact(version, chunk.artifact_id, step.name, [step.part]),
    }
    if step.append or version == "0.3":
        body["append"] = step.append
    if step.last_chunk is not None:
        body["lastChunk"] = step.last_chunk
    return _kind(version, "artifact-update", body)
