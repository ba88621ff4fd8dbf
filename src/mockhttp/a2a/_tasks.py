"""The tasks a mock agent keeps between requests, and a run of a task's script on its
schedule.

Where it lives: the agent is a frozen value but A2A is stateful (``tasks/get`` reads a
task a ``message/send`` made; the message that answers ``input-required`` goes on with the
script where it stopped).  So the tasks are the server's state: each
:class:`~mockhttp.a2a.A2aAgent` is a ``KeptKind`` (``_core/_kept.py``), and its
:class:`Tasks` reads and changes the ``Kept`` the server hands it, a JSON record a task
(``t:<id>``, :func:`record_of`), its push configs (``p:<id>``), the counts of tasks and
contexts made (``made``) and of answers given (``answers``).  Under ``serve --workers``
the supervisor keeps them: a task made through one worker is read through another.

Rule 1: the kept state is read and changed on the server's thread only (``_core._kept``
Rule 4): ``bind`` hands it over at each request; the test's ``reset`` is queued and taken
at the next request (outside a server, at once).
Rule 2: a run is planned when the request arrives: its steps, each due at a time (the run's
start plus the delays before it: a step's ``delay``, else the agent's ``event_delay``).
The task's state is where its due steps have brought it: every read applies the steps
that are due to a copy (:meth:`Tasks.find` at 0.3 s sees ``working``, at 2 s
``completed``), so a client polling ``tasks/get`` or ``ListTasks`` sees each state in
turn, and a stream sends each step at its due time.  With no delays every step is due at
once.  The clock is read before a change and passed in (:func:`ran`, :func:`canceled`):
a change is pure, the same for the same record, as ``Kept.update`` needs.
Rule 3: ids are predictable: ``task-1``, ``task-2``... in creation order, ``ctx-N`` for a
context the client did not name, ``artifact-N`` per task."""

from __future__ import annotations

import copy
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._core._kept import Kept, Memory
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
    entry: int = 0
    """Its script's place among the agent's answers."""

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
    """The agent's view of its tasks and answers, kept by the server (see the rules)."""

    def __init__(self, clock: Clock = time.time) -> None:
        self.clock = clock
        self.own = Memory()  # the state of an agent used outside a server
        self.kept: Kept = self.own
        self.scripts: list[Any] = []  # the agent's answers (a task's ``entry`` is one)
        self._commands: deque[Kept | None] = deque()  # the test's: clear this (None: ours)

    def bind(self, kept: Kept, scripts: Sequence[Any] = ()) -> None:
        """Read and change ``kept`` (the server's) from now on, the agent's answers being
        ``scripts``; first take the test's commands queued since the last request."""
        self.kept = kept
        if scripts:
            self.scripts = list(scripts)
        while self._commands:
            _clear(self._commands.popleft() or kept)

    def _queue(self, command: Kept | None) -> None:
        """A command of the test's: at once outside a server, else at the next request."""
        self._commands.append(command)
        if self.kept is self.own:
            self.bind(self.own)

    def next_answer(self) -> int:
        """The index of the next new conversation's answer (0, 1, 2...)."""
        n: int = self.kept.update(ANSWERS, counted)
        return n

    def create(self, script: Task, context_id: str | None) -> Live:
        if script not in self.scripts:  # (an agent's answers are bound: ``bind``)
            self.scripts.append(script)
        entry = self.scripts.index(script)
        task_id, context = self.kept.update(MADE, made(context_id))
        live = Live(task_id, context, script, updated=self.clock(), entry=entry)
        found = record_of(live)
        self.kept.update(task_key(task_id), lambda _: (found, None))
        return live

    def find(self, task_id: Any) -> Live | None:
        """The task as it stands now (None: no such task): its steps due by now applied
        to a copy (the kept record changes only with ``run`` and ``cancel``)."""
        if not isinstance(task_id, str):
            return None
        found = self.kept.get(task_key(task_id))
        if found is None:
            return None
        live = live_of(found, self.scripts)
        live.settle(self.clock())
        return live

    def run(
        self, task_id: str, user: dict[str, Any] | None, event_delay: float = 0.0
    ) -> tuple[Live, list[Due]]:
        """Take the client's message and plan the task's run from where its script stopped
        to its next stop (none while a run is still going): the task as the run starts
        (its ``pending`` steps still to come, each with its due time), and the steps this
        call planned."""
        change = ran(self.scripts, self.clock(), user, event_delay)
        out: tuple[Live, list[Due]] = self.kept.update(task_key(task_id), change)
        return out

    def cancel(self, task_id: str) -> Live | None:
        """Cancel the task, dropping the steps to come (None: it is already in a
        terminal state)."""
        out: Live | None = self.kept.update(task_key(task_id), canceled(self.scripts, self.clock()))
        return out

    def all(self) -> list[Live]:
        """Every task as it stands now, oldest first."""
        count = (self.kept.get(MADE) or {}).get("tasks", 0)
        found = [self.find(f"task-{n}") for n in range(1, count + 1)]
        return [live for live in found if live is not None]

    def reset(self) -> None:
        """Forget every task, push config and answer (at the next request: Rule 1)."""
        self._queue(None)

    def forget(self, old: Kept) -> None:
        """Drop what ``old`` (the state under a key the agent left) holds, at the next
        request."""
        self._queue(old)


ANSWERS = "answers"
MADE = "made"


def task_key(task_id: str) -> str:
    return "t:" + task_id


def push_key(task_id: str) -> str:
    return "p:" + task_id


def _clear(kept: Kept) -> None:
    """Drop every task, its push configs, and the counts (on the server's thread)."""
    count = (kept.get(MADE) or {}).get("tasks", 0)
    for n in range(1, count + 1):
        for key in (task_key(f"task-{n}"), push_key(f"task-{n}")):
            kept.update(key, lambda _: (None, None))
    for key in (MADE, ANSWERS, "pushes"):
        kept.update(key, lambda _: (None, None))


# -- the kept records, pure (``_core._kept``: JSON values, changes without a clock) -------


def counted(n: Any) -> tuple[int, int]:
    """One more count: result, how many were counted before."""
    before = n or 0
    return before + 1, before


def made(context_id: str | None) -> Callable[[Any], tuple[Any, tuple[str, str]]]:
    """One more task (and context, when the client named none): result, the task's id
    and its context's (Rule 3)."""

    def change(old: Any) -> tuple[Any, tuple[str, str]]:
        tasks, contexts = (old["tasks"], old["contexts"]) if old else (0, 0)
        if context_id is None:
            contexts += 1
        context = f"ctx-{contexts}" if context_id is None else context_id
        return {"tasks": tasks + 1, "contexts": contexts}, (f"task-{tasks + 1}", context)

    return change


def record_of(live: Live) -> dict[str, Any]:
    """``live`` as a JSON record (its script as its place among the agent's answers)."""
    steps = live.script.steps
    return {
        "id": live.id,
        "context": live.context_id,
        "entry": live.entry,
        "place": live.place,
        "state": live.state,
        "text": live.text,
        "artifacts": [[k, name, parts] for k, (name, parts) in live.artifacts.items()],
        "history": live.history,
        "updated": live.updated,
        "pending": [_due_of(d, steps) for d in live.pending],
    }


def live_of(found: dict[str, Any], scripts: Sequence[Any]) -> Live:
    """The task of the record ``found`` (``scripts``: the agent's answers)."""
    script: Task = scripts[found["entry"]]
    return Live(
        found["id"],
        found["context"],
        script,
        found["place"],
        found["state"],
        found["text"],
        {k: (name, list(parts)) for k, name, parts in found["artifacts"]},
        [dict(m) for m in found["history"]],
        found["updated"],
        [_due_from(d, script.steps) for d in found["pending"]],
        found["entry"],
    )


def _due_of(due: Due, steps: Sequence[Any]) -> list[Any]:
    event = due.event
    if isinstance(event, Update):
        return ["u", due.at, event.state, event.text, event.final, event.delay]
    return ["c", due.at, event.artifact_id, steps.index(event.step)]


def _due_from(found: list[Any], steps: Sequence[Any]) -> Due:
    if found[0] == "u":
        return Due(found[1], Update(*found[2:]))
    return Due(found[1], Chunk(found[2], steps[found[3]]))


def ran(
    scripts: Sequence[Any], now: float, user: dict[str, Any] | None, event_delay: float
) -> Callable[[Any], tuple[Any, tuple[Live, list[Due]]]]:
    """``Tasks.run`` as a change of the task's record, at ``now`` (read before)."""

    def change(old: Any) -> tuple[Any, tuple[Live, list[Due]]]:
        live = live_of(old, scripts)
        live.settle(now)
        if user is not None:
            live.history.append(user)
        fresh = [] if live.running else _plan(live, now, event_delay)
        live.pending.extend(fresh)
        before = live.snapshot()
        live.settle(now)
        return record_of(live), (before, fresh)

    return change


def canceled(scripts: Sequence[Any], now: float) -> Callable[[Any], tuple[Any, Live | None]]:
    """``Tasks.cancel`` as a change of the task's record, at ``now`` (read before)."""

    def change(old: Any) -> tuple[Any, Live | None]:
        live = live_of(old, scripts)
        live.settle(now)
        if live.state in TERMINAL:
            return record_of(live), None
        live.pending.clear()
        live.state, live.text, live.updated = "canceled", None, now
        return record_of(live), live.snapshot()

    return change


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
