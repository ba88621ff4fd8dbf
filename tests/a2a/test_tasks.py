"""The tasks' schedule, pure: a fake clock moves, the task's state follows its steps."""

from __future__ import annotations

from mockhttp import a2a
from mockhttp.a2a._tasks import Chunk, Tasks, Update

SCRIPT = a2a.task(
    a2a.status("working", delay=1),
    a2a.artifact("a", delay=1),
    a2a.artifact("b", append=True),
    a2a.status("completed", delay=2),
)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def started() -> tuple[Tasks, Clock, str]:
    clock = Clock()
    tasks = Tasks(clock)
    live = tasks.create(SCRIPT, None)
    tasks.run(live.id, {"messageId": "m", "role": "user", "parts": [{"text": "hi"}]})
    return tasks, clock, live.id


def state_at(tasks: Tasks, clock: Clock, task_id: str, when: float) -> str:
    clock.now = when
    found = tasks.find(task_id)
    assert found is not None
    return found.state


def test_each_state_in_turn_at_its_due_time() -> None:
    tasks, clock, task_id = started()
    seen = [state_at(tasks, clock, task_id, t) for t in (100, 100.99, 101, 103.5, 104)]
    assert seen == ["submitted", "submitted", "working", "working", "completed"]
    done = tasks.find(task_id)
    assert done is not None
    assert (done.updated, done.running) == (104.0, False)
    assert done.artifacts == {"artifact-1": (None, [{"text": "a"}, {"text": "b"}])}


def test_the_plan_and_its_due_times() -> None:
    clock = Clock()
    tasks = Tasks(clock)
    live = tasks.create(SCRIPT, "c")
    before, planned = tasks.run(live.id, None, event_delay=0.5)
    assert [d.at for d in planned] == [101, 102, 102.5, 104.5]
    assert [type(d.event) for d in planned] == [Update, Chunk, Chunk, Update]
    assert before.state == "submitted"
    assert before.at(102.2).state == "working"
    assert before.stops_at == 104.5
    assert planned[-1].event == Update("completed", None, True, 2)


def test_a_message_mid_run_plans_nothing_more() -> None:
    tasks, clock, task_id = started()
    clock.now = 101.5
    before, planned = tasks.run(task_id, {"messageId": "m2", "role": "user", "parts": []})
    assert planned == []
    assert (before.state, len(before.pending), len(before.history)) == ("working", 3, 2)


def test_cancel_drops_the_steps_to_come() -> None:
    tasks, clock, task_id = started()
    clock.now = 101.5
    canceled = tasks.cancel(task_id)
    assert canceled is not None
    assert (canceled.state, canceled.pending, canceled.updated) == ("canceled", [], 101.5)
    assert state_at(tasks, clock, task_id, 200) == "canceled"
    assert tasks.cancel(task_id) is None


def test_a_run_stops_at_an_interrupted_state_and_the_next_goes_on() -> None:
    clock = Clock()
    tasks = Tasks(clock)
    script = a2a.task(a2a.status("input-required"), a2a.status("completed"))
    live = tasks.create(script, None)
    _, first = tasks.run(live.id, None)
    _, second = tasks.run(live.id, None)
    assert [d.event.state for d in first + second if isinstance(d.event, Update)] == [
        "input-required",
        "completed",
    ]
    assert tasks.all()[0].state == "completed"
    tasks.reset()
    assert tasks.all() == []
