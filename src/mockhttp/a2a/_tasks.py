"""The tasks a mock agent keeps between requests, and a run of a task's script.

Where it lives: the agent is a frozen value but A2A is stateful (``tasks/get`` reads a
task a ``message/send`` made; the message that answers ``input-required`` goes on with the
script where it stopped).  So each :class:`~mockhttp.a2a.A2aAgent` owns one
:class:`Tasks`, left out of its equality and file form.

Rule 1: every read and write goes through the lock (``build`` runs on the server's
thread, the test reads ``agent.tasks`` on its own).
Rule 2: a run is decided when the request arrives: the reply (JSON or the whole SSE
stream) is built at once, and the task's state is where its run ends, even if a fault
cuts the stream on its way (``tasks/get`` and ``tasks/resubscribe`` then tell the
client what it missed).
Rule 3: ids are predictable: ``task-1``, ``task-2``... in creation order, ``ctx-N`` for a
context the client did not name, ``artifact-N`` per task.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from ._script import Artifact, Status, Task
from ._spec import INTERRUPTED, TERMINAL

__all__ = ["Chunk", "Live", "Tasks", "Update"]


@dataclass(frozen=True)
class Update:
    """A status update of a run (``final``: the last of its stream)."""

    state: str
    text: str | None
    final: bool
    delay: float | None


@dataclass(frozen=True)
class Chunk:
    """An artifact chunk of a run, under its artifact id."""

    artifact_id: str
    step: Artifact


@dataclass
class Live:
    """A task as the agent holds it (read under the lock)."""

    id: str
    context_id: str
    script: Task
    place: int = 0
    state: str = "submitted"
    text: str | None = None
    artifacts: dict[str, tuple[str | None, list[dict[str, Any]]]] = field(default_factory=dict)
    history: list[dict[str, Any]] = field(default_factory=list)  # {"role", "parts", "messageId"}

    def snapshot(self) -> Live:
        """A copy to render outside the lock."""
        return Live(
            self.id,
            self.context_id,
            self.script,
            self.place,
            self.state,
            self.text,
            {k: (name, list(parts)) for k, (name, parts) in self.artifacts.items()},
            list(self.history),
        )


class Tasks:
    """The agent's tasks, and how many answers it gave (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tasks: dict[str, Live] = {}
        self._answers = 0
        self._contexts = 0

    def next_answer(self) -> int:
        """The index of the next new conversation's answer (0, 1, 2...)."""
        with self._lock:
            self._answers += 1
            return self._answers - 1

    def create(self, script: Task, context_id: str | None) -> Live:
        with self._lock:
            if context_id is None:
                self._contexts += 1
                context_id = f"ctx-{self._contexts}"
            live = Live(f"task-{len(self._tasks) + 1}", context_id, script)
            self._tasks[live.id] = live
            return live

    def find(self, task_id: Any) -> Live | None:
        with self._lock:
            live = self._tasks.get(task_id) if isinstance(task_id, str) else None
            return None if live is None else live.snapshot()

    def run(self, task_id: str, user: dict[str, Any] | None) -> tuple[Live, Live, list[Any]]:
        """Run the task's script from where it stopped to its next stop: the task before
        and after, and the run's updates and chunks in order."""
        with self._lock:
            live = self._tasks[task_id]
            if user is not None:
                live.history.append(user)
            before = live.snapshot()
            events = _run(live)
            return before, live.snapshot(), events

    def cancel(self, task_id: str) -> Live | None:
        """Cancel the task (None: it is already in a terminal state)."""
        with self._lock:
            live = self._tasks[task_id]
            if live.state in TERMINAL:
                return None
            live.state, live.text = "canceled", None
            return live.snapshot()

    def all(self) -> list[Live]:
        with self._lock:
            return [t.snapshot() for t in self._tasks.values()]

    def reset(self) -> None:
        with self._lock:
            self._tasks.clear()
            self._answers = self._contexts = 0


def _run(live: Live) -> list[Update | Chunk]:
    events: list[Update | Chunk] = []
    steps = live.script.steps
    while live.place < len(steps):
        step = steps[live.place]
        live.place += 1
        if isinstance(step, Status):
            stop = step.status in TERMINAL or step.status in INTERRUPTED
            live.state, live.text = step.status, step.text
            events.append(Update(step.status, step.text, stop, step.delay))
            if stop:
                break
        else:
            events.append(_chunk(live, step))
    return events


def _chunk(live: Live, step: Artifact) -> Chunk:
    artifact_id = step.id or (
        next(reversed(live.artifacts))
        if step.append and live.artifacts
        else f"artifact-{len(live.artifacts) + 1}"
    )
    name, parts = live.artifacts.get(artifact_id, (step.name, []))
    live.artifacts[artifact_id] = (
        name or step.name,
        [*parts, step.part] if step.append else [step.part],
    )
    return Chunk(artifact_id, step)
