"""The tasks a mock agent keeps between requests, and a run of a task's script on its
schedule.

Where it lives: the agent is a frozen value but A2A is stateful (``tasks/get`` reads a
task a ``message/send`` made; the message that answers ``input-required`` goes on with the
script where it stopped).  So each :class:`~mockhttp.a2a.A2aAgent` owns one
:class:`Tasks`, left out of its equality and file form.

Rule 1: every read and write goes through the lock (``build`` runs on the server's
thread, the test reads ``agent.tasks`` on its own).
Rule 2: a run is planned when the request arrives: its steps, each due at a time (the run's
start plus the delays before it: a step's ``delay``, else the agent's ``event_delay``).
The task's state is where its due steps have brought it: every read first applies the
steps that are due (:meth:`Tasks.find` at 0.3 s sees ``working``, at 2 s ``completed``),
so a client polling ``tasks/get`` or ``ListTasks`` sees each state in turn, and a stream
sends each step at its due time.  With no delays every step is due at once.
Rule 3: ids are predictable: ``task-1``, ``task-2``... in creation order, ``ctx-N`` for a
context the client did not name, ``artifact-N`` per task.
"""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ._script import Artifact, Status, Task
from ._spec import INTERRUPTED, TERMINAL

__all__ = ["Chunk", "Clock", "Due", "Live", "Tasks", "Update", "apply"]

Clock = Callable[[], float]
"""The wall clock in seconds (``time.time``; tests pass their own)."""


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

    @property
    def delay(self) -> float | None:
        return self.step.delay


Event = Update | Chunk


@dataclass(frozen=True)
class Due:
    """A step of a run and the time it is due (wall clock seconds)."""

    at: float
    event: Event


@dataclass
class Live:
    """A task as the agent holds it (read under the lock, or a copy)."""

    id: str
    context_id: str
    script: Task
    place: int = 0
    state: str = "submitted"
    text: str | None = None
    artifacts: dict[str, tuple[str | None, list[dict[str, Any]]]] = field(default_factory=dict)
    history: list[dict[str, Any]] = field(default_factory=list)  # {"role", "parts", "messageId"}
    updated: float = 0.0
    """When its status last changed (wall clock seconds)."""
    pending: list[Due] = field(default_factory=list)
    """The planned steps not yet due, in order."""

    def snapshot(self) -> Live:
        """A copy to render outside the lock."""
        return copy.deepcopy(self)

    @property
    def running(self) -> bool:
        """True while a run has steps to come."""
        return bool(self.pending)

    @property
    def stops_at(self) -> float:
        """When its run's last step is due (``updated`` when nothing is pending)."""
        return self.pending[-1].at if self.pending else self.updated

    def at(self, when: float) -> Live:
        """A copy as it will be at ``when`` (the steps due by then applied)."""
        out = self.snapshot()
        out.settle(when)
        return out

    def settle(self, now: float) -> list[Due]:
        """Apply the steps due by ``now``; the ones applied."""
        done: list[Due] = []
        while self.pending and self.pending[0].at <= now:
            due = self.pending.pop(0)
            apply(self, due.event, due.at)
            done.append(due)
        return done


def apply(live: Live, event: Event, when: float) -> None:
    """One step's effect on the task."""
    if isinstance(event, Update):
        live.state, live.text, live.updated = event.state, event.text, when
        return
    step = event.step
    name, parts = live.artifacts.get(event.artifact_id, (step.name, []))
    live.artifacts[event.artifact_id] = (
        name or step.name,
        [*parts, step.part] if step.append else [step.part],
    )


class Tasks:
    """The agent's tasks, and how many answers it gave (thread-safe)."""

    def __init__(self, clock: Clock = time.time) -> None:
        self.clock = clock
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
            live = Live(f"task-{len(self._tasks) + 1}", context_id, script, updated=self.clock())
            self._tasks[live.id] = live
            return live.snapshot()

    def find(self, task_id: Any) -> Live | None:
        """The task as it stands now (None: no such task)."""
        with self._lock:
            live = self._tasks.get(task_id) if isinstance(task_id, str) else None
            if live is None:
                return None
            live.settle(self.clock())
            return live.snapshot()

    def run(
        self, task_id: str, user: dict[str, Any] | None, event_delay: float = 0.0
    ) -> tuple[Live, list[Due]]:
        """Take the client's message and plan the task's run from where its script stopped
        to its next stop (none while a run is still going): the task as the run starts
        (its ``pending`` steps still to come, each with its due time), and the steps this
        call planned."""
        with self._lock:
            live = self._tasks[task_id]
            now = self.clock()
            live.settle(now)
            if user is not None:
                live.history.append(user)
            fresh = [] if live.running else _plan(live, now, event_delay)
            live.pending.extend(fresh)
            before = live.snapshot()
            live.settle(now)
            return before, fresh

    def cancel(self, task_id: str) -> Live | None:
        """Cancel the task, dropping the steps to come (None: it is already in a
        terminal state)."""
        with self._lock:
            live = self._tasks[task_id]
            now = self.clock()
            live.settle(now)
            if live.state in TERMINAL:
                return None
            live.pending.clear()
            live.state, live.text, live.updated = "canceled", None, now
            return live.snapshot()

    def all(self) -> list[Live]:
        """Every task as it stands now, oldest first."""
        with self._lock:
            now = self.clock()
            for live in self._tasks.values():
                live.settle(now)
            return [t.snapshot() for t in self._tasks.values()]

    def reset(self) -> None:
        with self._lock:
            self._tasks.clear()
            self._answers = self._contexts = 0


def _plan(live: Live, start: float, event_delay: float) -> list[Due]:
    """The run from ``live.place`` to its stop (a terminal or interrupted status, or the
    script's end), each step with its due time; ``live.place`` moves past it."""
    scratch = live.snapshot()
    out: list[Due] = []
    when = start
    steps = live.script.steps
    while live.place < len(steps):
        step = steps[live.place]
        live.place += 1
        when += event_delay if step.delay is None else step.delay
        if isinstance(step, Status):
            stop = step.status in TERMINAL or step.status in INTERRUPTED
            event: Event = Update(step.status, step.text, stop, step.delay)
        else:
            event = Chunk(_artifact_id(scratch, step), step)
        apply(scratch, event, when)
        out.append(Due(when, event))
        if isinstance(event, Update) and event.final:
            break
    return out


def _artifact_id(live: Live, step: Artifact) -> str:
    if step.id:
        return step.id
    if step.append and live.artifacts:
        return next(reversed(live.artifacts))
    return f"artifact-{len(live.artifacts) + 1}"
