"""The A2A operations: one JSON-RPC request of a mock agent answered.

``send`` runs the next part of a task's script and answers the task (a blocking send when
its run stops or the agent's ``blocking_timeout`` passes, the reply held until then; with
``returnImmediately`` (1.0) or ``blocking: false`` (0.3) at once); ``stream`` answers an SSE
stream of the same run, each step at its due time (the task first, then its status and
artifact updates); ``get`` and ``list`` read tasks as they stand; ``cancel`` ends a task;
``resubscribe`` streams a task as it stands and the steps still to come (for a task whose
run is over: its status again, final); the ``push_*`` operations keep a task's push
notification configs; ``extended_card`` answers the extended agent card.  Each new
conversation (a message without ``taskId``) takes the next of the agent's answers, the
last one repeating; a message naming a task goes on with that task's script.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, cast

from .._core._reply import Reply, ok, status
from .._core._request import Request
from .._core._sse import Event
from . import _listing as listing
from . import _render as render
from . import _rest as rest_binding
from . import _validate as validate
from ._push import Config, Push, config_from
from ._script import Entry, Error, Message, Task
from ._spec import ERRORS, INTERRUPTED, TERMINAL, Version, error, result
from ._tasks import Due, Live, Tasks, Update, apply

__all__ = ["Agent", "Call"]


class Agent(Protocol):
    """What an operation reads of the agent (:class:`~mockhttp.a2a.A2aAgent`)."""

    @property
    def tasks(self) -> Sequence[Any]: ...
    @property
    def event_delay(self) -> float: ...
    @property
    def blocking_timeout(self) -> float | None: ...
    @property
    def push_notifications(self) -> bool: ...
    @property
    def state(self) -> Tasks: ...
    @property
    def push(self) -> Push: ...
    def extended_agent_card(self, request: Request | None = None) -> dict[str, Any] | None: ...


@dataclass
class Call:
    """One JSON-RPC request being answered."""

    agent: Agent
    request: Request
    version: Version
    id: Any
    params: dict[str, Any]
    rest: bool = False
    """Answer as the HTTP+JSON binding does (no JSON-RPC envelope, errors as statuses)."""
    push_config: Config | None = None

    def answer(self, operation: str) -> Reply:
        handler: Callable[[], Reply] = getattr(self, operation)
        try:
            return handler()
        except validate.Invalid as exc:
            return self._error(ERRORS["invalid_params"], str(exc))

    # -- messages ----------------------------------------------------------------------

    def send(self) -> Reply:
        return self._message(stream=False)

    def stream(self) -> Reply:
        return self._message(stream=True)

    def _message(self, *, stream: bool) -> Reply:
        user = validate.message(self.params.get("message"), self.version)
        configuration = self.params.get("configuration")
        history = validate.history_length(configuration)
        self.push_config = self._configured_push()
        message = self.params["message"]
        task_id = message.get("taskId")
        if task_id:
            return self._go_on(task_id, user, stream=stream, history=history)
        tasks = cast("tuple[Entry, ...]", self.agent.tasks)
        entry = tasks[min(self.agent.state.next_answer(), len(tasks) - 1)]
        context_id = message.get("contextId") or None
        if isinstance(entry, Error):
            return self._error(entry.code, entry.error)
        if isinstance(entry, Message):
            reply = render.agent_message(
                self.version, entry.message, "message-1", context_id or "ctx-0"
            )
            wrapped = render.wrap(self.version, "message", reply)
            if stream:
                return ok().event_stream(Event(self._envelope(self.id, wrapped)))
            return self._ok(wrapped)
        live = self.agent.state.create(entry, context_id if isinstance(context_id, str) else None)
        return self._run(live.id, user, stream=stream, history=history)

    def _go_on(
        self, task_id: Any, user: dict[str, Any], *, stream: bool, history: int | None
    ) -> Reply:
        live = self.agent.state.find(task_id)
        if live is None:
            return self._error(ERRORS["task_not_found"], f"Task not found: {task_id}")
        if live.state in TERMINAL:
            return self._error(
                ERRORS["unsupported_operation"],
                f"Task {task_id} is {live.state}: it takes no more messages",
            )
        return self._run(live.id, user, stream=stream, history=history)

    def _run(
        self, task_id: str, user: dict[str, Any], *, stream: bool, history: int | None
    ) -> Reply:
        if self.push_config is not None:
            self.agent.push.add(dataclasses.replace(self.push_config, task_id=task_id))
        before, planned = self.agent.state.run(task_id, user, self.agent.event_delay)
        now = self.agent.state.clock()
        if planned:  # a run's notifications begin with the task, as its stream does
            self._deliver_task(before, min(now, planned[0].at))
        self._deliver(before, planned)
        if stream:
            return self._stream(before, before.pending, now)
        when = now if self._returns_immediately() else before.stops_at
        if self.agent.blocking_timeout is not None:
            when = min(when, now + self.agent.blocking_timeout)
        answer = before.at(max(when, now))
        body = render.wrap(self.version, "task", render.task(self.version, answer, history))
        reply = self._json(before.script, body)
        return reply.delay(when - now) if when > now else reply

    def _returns_immediately(self) -> bool:
        configuration = self.params.get("configuration")
        if not isinstance(configuration, dict):
            return False
        if self.version == "1.0":
            return configuration.get("returnImmediately") is True
        return configuration.get("blocking") is False

    def _stream(self, live: Live, dues: list[Due], now: float) -> Reply:
        script = live.script
        id_ = _other(self.id) if script.wrong_id else self.id
        bodies = [render.wrap(self.version, "task", render.task(self.version, live))]
        delays: list[float | None] = [None]
        last = now
        for n, due in enumerate(dues, start=live.place - len(dues) + 1):
            event = due.event
            if isinstance(event, Update):
                body = render.status_update(self.version, live, event, n)
                kind = "status-update"
            else:
                body, kind = render.artifact_update(self.version, live, event), "artifact-update"
            wait = max(due.at - last, 0.0)
            last = max(due.at, last)
            twice = script.duplicate_final and isinstance(event, Update) and event.final
            copies = 2 if twice else 1
            for copy in range(copies):
                bodies.append(render.wrap(self.version, kind, body))
                delays.append(wait if copy == 0 else None)
        return ok().event_stream(
            *(Event(self._envelope(id_, b), delay=d) for b, d in zip(bodies, delays, strict=True)),
            event_delay=self.agent.event_delay,
        )

    # -- tasks -------------------------------------------------------------------------

    def get(self) -> Reply:
        history = validate.history_length(self.params)
        live = self._task()
        if isinstance(live, Reply):
            return live
        return self._json(live.script, render.task(self.version, live, history))

    def list_tasks(self) -> Reply:
        asked = listing.query(self.params)
        chosen, fields = listing.page(self.agent.state.all(), asked)
        tasks = [
            render.task(self.version, t, asked.history_length, asked.include_artifacts)
            for t in chosen
        ]
        return self._ok({"tasks": tasks, **fields})

    def cancel(self) -> Reply:
        live = self._task()
        if isinstance(live, Reply):
            return live
        canceled = self.agent.state.cancel(live.id)
        if canceled is None:
            return self._error(
                ERRORS["task_not_cancelable"], f"Task not cancelable: {live.id} is {live.state}"
            )
        self.agent.push.drop(live.id, after=canceled.updated)  # what was due still goes
        update = Update("canceled", None, True, None)
        self._deliver(canceled, [Due(canceled.updated, update)])
        return self._json(live.script, render.task(self.version, canceled))

    def resubscribe(self) -> Reply:
        live = self._task()
        if isinstance(live, Reply):
            return live
        now = self.agent.state.clock()
        if live.running:
            return self._stream(live, list(live.pending), now)
        final = live.state in TERMINAL or live.state in INTERRUPTED
        return self._stream(live, [Due(now, Update(live.state, live.text, final, None))], now)

    def _task(self) -> Live | Reply:
        task_id = validate.task_id(self.params)
        live = self.agent.state.find(task_id)
        if live is None:
            return self._error(ERRORS["task_not_found"], f"Task not found: {task_id}")
        return live

    # -- push notification configs -----------------------------------------------------

    def _push_task(self) -> Live | Reply:
        if not self.agent.push_notifications:
            return self._error(
                ERRORS["push_not_supported"],
                "Push Notification is not supported: this agent takes no push configs",
            )
        field = "id" if self.version == "0.3" else "taskId"
        task_id = self.params.get(field, self.params.get("task_id"))
        if self.version == "0.3" and "taskId" in self.params:
            task_id = self.params["taskId"]
        if not isinstance(task_id, str) or not task_id:
            raise validate.Invalid(f"Invalid params: params.{field} must be a task id (text)")
        live = self.agent.state.find(task_id)
        if live is None:
            return self._error(ERRORS["task_not_found"], f"Task not found: {task_id}")
        return live

    def push_set(self) -> Reply:
        live = self._push_task()
        if isinstance(live, Reply):
            return live
        push = self.agent.push
        config = config_from(self.params, self.version, live.id, push.number())
        push.add(config)
        scratch = live.snapshot()
        for due in live.pending:
            apply(scratch, due.event, due.at)
            push.send(live.id, due.at, self._notification(scratch, due), config)
        return self._ok(config.render(self.version))

    def _configured_push(self) -> Config | None:
        """A push config the message's configuration carries (1.0
        ``taskPushNotificationConfig``, 0.3 ``pushNotificationConfig``), for the task to be
        named (raises :class:`~._validate.Invalid`)."""
        configuration = self.params.get("configuration")
        key = "taskPushNotificationConfig" if self.version == "1.0" else "pushNotificationConfig"
        given = configuration.get(key) if isinstance(configuration, dict) else None
        if given is None or not self.agent.push_notifications:
            return None
        wrapped = given if self.version == "1.0" else {"pushNotificationConfig": given}
        return config_from(wrapped, self.version, "", self.agent.push.number())

    def push_get(self) -> Reply:
        live = self._push_task()
        if isinstance(live, Reply):
            return live
        key = "pushNotificationConfigId" if self.version == "0.3" else "id"
        config_id = self.params.get(key)
        if self.version == "1.0" and not isinstance(config_id, str):
            raise validate.Invalid("Invalid params: params.id must be a config id (text)")
        config = self.agent.push.get(live.id, config_id)
        if config is None:
            return self._error(
                ERRORS["task_not_found"], f"Push notification config not found: {config_id}"
            )
        return self._ok(config.render(self.version))

    def push_list(self) -> Reply:
        live = self._push_task()
        if isinstance(live, Reply):
            return live
        configs = [c.render(self.version) for c in self.agent.push.of(live.id)]
        if self.version == "0.3":
            return self._ok(configs)
        return self._ok({"configs": configs, "nextPageToken": ""})

    def push_delete(self) -> Reply:
        live = self._push_task()
        if isinstance(live, Reply):
            return live
        key = "pushNotificationConfigId" if self.version == "0.3" else "id"
        config_id = self.params.get(key)
        if not isinstance(config_id, str) or not self.agent.push.delete(live.id, config_id):
            return self._error(
                ERRORS["task_not_found"], f"Push notification config not found: {config_id}"
            )
        return self._ok(None if self.version == "0.3" else {})

    def _deliver(self, live: Live, dues: list[Due]) -> None:
        push = self.agent.push
        if not self.agent.push_notifications or not push.of(live.id):
            return
        scratch = live.snapshot()  # the task as each step leaves it (0.3 sends the task)
        for due in dues:
            apply(scratch, due.event, due.at)
            push.send(live.id, due.at, self._notification(scratch, due))

    def _deliver_task(self, live: Live, when: float) -> None:
        push = self.agent.push
        if self.agent.push_notifications and push.of(live.id):
            body = render.task(self.version, live)
            push.send(live.id, when, render.wrap(self.version, "task", body))

    def _notification(self, live: Live, due: Due) -> Any:
        """What the webhook gets for a step (``live``: the task as the step leaves it): 1.0
        the update as a stream sends it, 0.3 the task (a run's first notification is the
        task as it starts)."""
        if self.version == "0.3":
            return render.task(self.version, live)
        event = due.event
        if isinstance(event, Update):
            return render.wrap(
                "1.0", "status-update", render.status_update("1.0", live, event, live.place)
            )
        return render.wrap("1.0", "artifact-update", render.artifact_update("1.0", live, event))

    # -- the card ----------------------------------------------------------------------

    def extended_card(self) -> Reply:
        card = self.agent.extended_agent_card(self.request)
        if card is None:
            return self._error(
                ERRORS["extended_card_not_configured"],
                "Extended agent card not configured: this agent has none",
            )
        return self._ok(card)

    # -- the answers -------------------------------------------------------------------

    def _json(self, script: Task, value: Any) -> Reply:
        id_ = _other(self.id) if script.wrong_id else self.id
        return ok().json(self._envelope(id_, value))

    def _ok(self, value: Any) -> Reply:
        return ok().json(self._envelope(self.id, value))

    def _envelope(self, id_: Any, value: Any) -> Any:
        """The answer as the binding carries it: JSON-RPC's response, HTTP+JSON's value."""
        return value if self.rest else result(id_, value)

    def _error(self, code: int, message: str) -> Reply:
        if self.rest:
            return status(rest_binding.status_of(code)).json(rest_binding.rest_error(code, message))
        return ok().json(error(self.id, code, message))


def _other(id_: Any) -> Any:
    """Another JSON-RPC id than ``id_`` (the wrong-id fault)."""
    if isinstance(id_, int) and not isinstance(id_, bool):
        return id_ + 1
    return f"{id_}-other"
