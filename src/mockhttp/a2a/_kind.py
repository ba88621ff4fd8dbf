"""The mock A2A agent: a reply kind that serves an agent card and answers JSON-RPC.

``A2aAgent.build(request)`` answers ``GET`` of a well-known card path with the card, and
``POST`` of one JSON-RPC request with its answer in the version the method names (see
:mod:`._spec`): ``send`` runs the next step of a task's script and answers the task,
``stream`` answers an SSE stream of the same run (the task first, then its status and
artifact updates, the last one final), ``get`` and ``cancel`` read and end a task,
``resubscribe`` streams the task as it stands and its final status again.  Each new
conversation (a message without ``taskId``) takes the next of ``tasks``, the last one
repeating; a message naming an interrupted task goes on with that task's script.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, cast

from .._core._errors import ConfigError
from .._core._match import any_of
from .._core._mock import Mock, request
from .._core._registry import ReplyKind
from .._core._reply import Reply, ok, status
from .._core._request import Request
from .._core._sse import Event
from . import _render as render
from ._script import Entry, Error, Message, Task, artifact, entries, task
from ._script import status as status_step
from ._spec import (
    CARD_PATHS,
    ERRORS,
    INTERRUPTED,
    METHODS,
    TERMINAL,
    VERSION_HEADER,
    VERSIONS,
    Version,
    error,
    result,
)
from ._tasks import Live, Tasks, Update

__all__ = ["A2aAgent"]


def _default_tasks() -> tuple[Task, ...]:
    return (
        task(status_step("working"), artifact("Hello from mockhttp"), status_step("completed")),
    )


@dataclass(frozen=True)
class A2aAgent(ReplyKind):
    """A mock A2A agent on the JSON-RPC binding.

    Args:
        tasks: the answers to new conversations, in order, the last repeating: task
            scripts (``a2a.task(...)``), ``a2a.message(text)`` or ``a2a.error(text, code)``.
        card: fields of the agent card, over the defaults (name, description, skills...).
        name: the card's ``name``.
        description: the card's ``description``.
        versions: the A2A versions the agent speaks (``"0.3"``, ``"1.0"``; both by
            default): the card lists an interface for each, and a method of another
            version gets "method not found".
        path: the JSON-RPC endpoint (the card's ``url``).
        event_delay: seconds between a stream's events (a step's ``delay`` replaces it).
    """

    file_key: ClassVar[str] = "a2a"

    tasks: Sequence[Entry | Any] = field(default_factory=_default_tasks)
    card: Mapping[str, Any] = field(default_factory=dict)
    name: str = "mockhttp-a2a"
    description: str = "A mock A2A agent"
    versions: Sequence[str] = VERSIONS
    path: str = "/"
    event_delay: float = 0.0
    state: Tasks = field(default_factory=Tasks, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "tasks", entries(self.tasks))
        if not self.tasks:
            raise ConfigError("tasks: the agent needs at least one answer")
        if not isinstance(self.card, Mapping):
            raise ConfigError(f"card: {self.card!r} must be a mapping of card fields")
        versions = (self.versions,) if isinstance(self.versions, str) else tuple(self.versions)
        if not versions or any(v not in VERSIONS for v in versions):
            raise ConfigError(f"versions: {self.versions!r} must be among {', '.join(VERSIONS)}")
        object.__setattr__(self, "versions", tuple(sorted(set(versions))))
        for key in ("name", "description", "path"):
            if not isinstance(getattr(self, key), str):
                raise ConfigError(f"{key}: {getattr(self, key)!r} must be text")
        if not self.path.startswith("/"):
            raise ConfigError(f"path: {self.path!r} must start with /")
        delay = self.event_delay
        if isinstance(delay, bool) or not isinstance(delay, int | float) or delay < 0:
            raise ConfigError(f"event_delay: {delay!r} must be a number of seconds (0 or more)")

    # -- the test's side -----------------------------------------------------------------

    def mock(self, *, name: str | None = "a2a") -> Mock:
        """A mock answering the card's well-known paths and the JSON-RPC endpoint."""
        return request(None, any_of(self.path, *CARD_PATHS), name=name).reply(self)

    def task_states(self) -> dict[str, str]:
        """Each task's id and state, oldest first."""
        return {t.id: t.state for t in self.state.all()}

    def reset(self) -> None:
        """Forget every task and start the answers again."""
        self.state.reset()

    def to_args(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        default = A2aAgent()
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name == "state" or value == getattr(default, f.name):
                continue
            if f.name == "tasks":
                value = [e.to_data() for e in value]
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out

    # -- answering -----------------------------------------------------------------------

    def build(self, request: Request) -> Reply:
        if request.method in ("GET", "HEAD") and request.path in CARD_PATHS:
            return ok().json(self.agent_card(request))
        if request.method == "POST" and request.path == self.path:
            return self._rpc(request)
        return status(405).header("Allow", "POST" if request.path == self.path else "GET")

    def agent_card(self, request: Request | None = None) -> dict[str, Any]:
        """The agent card (its URLs on the request's host)."""
        host = request.headers.get("host", "localhost") if request is not None else "localhost"
        url = f"http://{host}{self.path}"
        newest_first = sorted(self.versions, reverse=True)
        card: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "version": "1.0.0",
            "supportedInterfaces": [
                {"url": url, "protocolBinding": "JSONRPC", "protocolVersion": v}
                for v in newest_first
            ],
            "url": url,  # 0.3's fields, for clients that read no supportedInterfaces
            "protocolVersion": "0.3.0" if "0.3" in self.versions else "1.0",
            "preferredTransport": "JSONRPC",
            "capabilities": {"streaming": True, "pushNotifications": False},
            "defaultInputModes": ["text/plain"],
            "defaultOutputModes": ["text/plain"],
            "skills": [
                {"id": "chat", "name": "chat", "description": self.description, "tags": ["chat"]}
            ],
        }
        card.update(self.card)
        return card

    def _rpc(self, req: Request) -> Reply:
        try:
            body = req.json()
        except ValueError as exc:
            return ok().json(error(None, ERRORS["parse"], f"Parse error: {exc}"))
        if (
            not isinstance(body, dict)
            or body.get("jsonrpc") != "2.0"
            or not isinstance(body.get("method"), str)
        ):
            return ok().json(
                error(
                    None,
                    ERRORS["invalid_request"],
                    "Invalid Request: expected one JSON-RPC 2.0 request",
                )
            )
        id_, method = body.get("id"), body["method"]
        known = METHODS.get(method)
        if known is None or known[0] not in self.versions:
            spoken = " and ".join(self.versions)
            return ok().json(
                error(
                    id_,
                    ERRORS["method_not_found"],
                    f"Method not found: {method} (this agent speaks A2A {spoken})",
                )
            )
        asked = req.headers.get(VERSION_HEADER)
        if asked is not None and asked.strip()[:3] not in self.versions:
            return ok().json(
                error(
                    id_,
                    ERRORS["version_not_supported"],
                    f"Version not supported: {VERSION_HEADER}: {asked}",
                )
            )
        version, operation = known
        params = body.get("params")
        params = params if isinstance(params, dict) else {}
        call = _Call(self, version, id_, params)
        answer: Callable[[], Reply] = getattr(call, operation)
        return answer()


@dataclass
class _Call:
    """One JSON-RPC request being answered."""

    agent: A2aAgent
    version: Version
    id: Any
    params: dict[str, Any]

    # -- the operations ----------------------------------------------------------------

    def send(self) -> Reply:
        return self._message(stream=False)

    def stream(self) -> Reply:
        return self._message(stream=True)

    def get(self) -> Reply:
        live = self._task()
        if isinstance(live, Reply):
            return live
        return self._json(live.script, render.task(self.version, live))

    def cancel(self) -> Reply:
        live = self._task()
        if isinstance(live, Reply):
            return live
        canceled = self.agent.state.cancel(live.id)
        if canceled is None:
            return self._error(
                ERRORS["task_not_cancelable"], f"Task not cancelable: {live.id} is {live.state}"
            )
        return self._json(live.script, render.task(self.version, canceled))

    def resubscribe(self) -> Reply:
        live = self._task()
        if isinstance(live, Reply):
            return live
        final = live.state in TERMINAL or live.state in INTERRUPTED
        update = Update(live.state, live.text, final, None)
        return self._stream(live, live, [update])

    # -- the parts ---------------------------------------------------------------------

    def _message(self, *, stream: bool) -> Reply:
        user = render.neutral_message(self.params.get("message"))
        if user is None:
            return self._error(
                ERRORS["invalid_params"],
                "Invalid params: params.message must be a message with parts",
            )
        task_id = self.params["message"].get("taskId")
        if task_id:
            return self._go_on(task_id, user, stream=stream)
        tasks = cast("tuple[Entry, ...]", self.agent.tasks)
        entry = tasks[min(self.agent.state.next_answer(), len(tasks) - 1)]
        context_id = self.params["message"].get("contextId") or None
        if isinstance(entry, Error):
            return self._error(entry.code, entry.error)
        if isinstance(entry, Message):
            reply = render.agent_message(
                self.version, entry.message, "message-1", context_id or "ctx-0"
            )
            wrapped = render.wrap(self.version, "message", reply)
            if stream:
                return ok().event_stream(Event(result(self.id, wrapped)))
            return ok().json(result(self.id, wrapped))
        live = self.agent.state.create(entry, context_id if isinstance(context_id, str) else None)
        return self._run(live.id, user, stream=stream)

    def _go_on(self, task_id: Any, user: dict[str, Any], *, stream: bool) -> Reply:
        live = self.agent.state.find(task_id)
        if live is None:
            return self._error(ERRORS["task_not_found"], f"Task not found: {task_id}")
        if live.state in TERMINAL:
            return self._error(
                ERRORS["unsupported_operation"],
                f"Task {task_id} is {live.state}: it takes no more messages",
            )
        return self._run(live.id, user, stream=stream)

    def _run(self, task_id: str, user: dict[str, Any], *, stream: bool) -> Reply:
        before, after, events = self.agent.state.run(task_id, user)
        if stream:
            return self._stream(before, after, events)
        return self._json(
            after.script, render.wrap(self.version, "task", render.task(self.version, after))
        )

    def _stream(self, before: Live, after: Live, events: list[Any]) -> Reply:
        script = before.script
        id_ = _other(self.id) if script.wrong_id else self.id
        bodies = [render.wrap(self.version, "task", render.task(self.version, before))]
        delays: list[float | None] = [None]
        for n, item in enumerate(events, start=before.place + 1):
            if isinstance(item, Update):
                body = render.status_update(self.version, after, item, n)
                kind = "status-update"
            else:
                body, kind = render.artifact_update(self.version, after, item), "artifact-update"
            copies = (
                2 if (script.duplicate_final and isinstance(item, Update) and item.final) else 1
            )
            for _ in range(copies):
                bodies.append(render.wrap(self.version, kind, body))
                delays.append(item.delay if isinstance(item, Update) else item.step.delay)
        return ok().event_stream(
            *(Event(result(id_, b), delay=d) for b, d in zip(bodies, delays, strict=True)),
            event_delay=self.agent.event_delay,
        )

    def _task(self) -> Live | Reply:
        live = self.agent.state.find(self.params.get("id"))
        if live is None:
            return self._error(ERRORS["task_not_found"], f"Task not found: {self.params.get('id')}")
        return live

    def _json(self, script: Task, value: Any) -> Reply:
        return ok().json(result(_other(self.id) if script.wrong_id else self.id, value))

    def _error(self, code: int, message: str) -> Reply:
        return ok().json(error(self.id, code, message))


def _other(id_: Any) -> Any:
    """Another JSON-RPC id than ``id_`` (the wrong-id fault)."""
    if isinstance(id_, int) and not isinstance(id_, bool):
        return id_ + 1
    return f"{id_}-other"
