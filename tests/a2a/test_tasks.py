"""The tasks' schedule, pure: a fake clock moves, the task's state follows its steps; a
task as a JSON record in the kept state, and its changes (``ran``, ``canceled``) pure."""

from __future__ import annotations

import json

from mockhttp import a2a
from mockhttp._core._kept import Memory
from mockhttp.a2a._tasks import (
    Chunk,
    Tasks,
    Update,
    canceled,
    counted,
    live_of,
    made,
    ran,
    record_of,
    task_key,
)

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


# -- the kept records, pure -------------------------------------------------------------


def test_a_task_is_a_json_record_and_back() -> None:
    tasks, _clock, task_id = started()
    found = tasks.own.get(task_key(task_id))
    assert json.loads(json.dumps(found)) == found  # JSON, as the supervisor keeps it
    assert found["entry"] == 0
    assert found["pending"][0][0] == "u"
    live = live_of(found, [SCRIPT])
    assert record_of(live) == found
    assert live.script is SCRIPT
    assert [d.at for d in live.pending] == [101, 102, 102, 104]


def test_ran_and_canceled_are_pure_with_the_clock_read_before() -> None:
    clock = Clock()
    tasks = Tasks(clock)
    live = tasks.create(SCRIPT, None)
    found = tasks.own.get(task_key(live.id))
    before = json.dumps(found)
    change = ran([SCRIPT], 100.0, None, 0.0)
    first, again = change(found), change(found)
    assert first[0] == again[0]  # the same record for the same old one: it may run again
    assert json.dumps(found) == before  # the old record untouched
    assert [d.at for d in first[1][1]] == [101, 102, 102, 104]
    new, canceled_live = canceled([SCRIPT], 101.5)(first[0])
    assert canceled_live is not None
    assert canceled_live.state == "canceled"
    assert new["pending"] == []
    assert new["updated"] == 101.5
    assert canceled([SCRIPT], 300.0)(new) == (new, None)  # terminal: nothing to cancel


def test_ids_and_contexts_are_counted() -> None:
    counts, ids = made(None)(None)
    assert (counts, ids) == ({"tasks": 1, "contexts": 1}, ("task-1", "ctx-1"))
    counts, ids = made("mine")(counts)
    assert (counts, ids) == ({"tasks": 2, "contexts": 1}, ("task-2", "mine"))
    assert counted(None) == (1, 0)
    assert counted(3) == (4, 3)


def test_reading_a_task_changes_nothing_kept() -> None:
    tasks, clock, task_id = started()
    kept = json.dumps(tasks.own.values)
    assert state_at(tasks, clock, task_id, 200) == "completed"
    assert json.dumps(tasks.own.values) == kept  # a read settles a copy


def test_on_a_server_the_reset_waits_for_the_next_request() -> None:
    clock = Clock()
    tasks = Tasks(clock)
    served = Memory()
    tasks.bind(served, [SCRIPT])
    live = tasks.create(SCRIPT, None)
    assert tasks.next_answer() == 0
    tasks.reset()
    assert tasks.find(live.id) is not None  # not yet: the server's thread takes it
    tasks.bind(served, [SCRIPT])
    assert served.values == {}
    old = Memory()
    tasks.bind(old, [SCRIPT])
    tasks.create(SCRIPT, None)
    tasks.bind(served, [SCRIPT])
    tasks.forget(old)  # a key the agent left: emptied at the next request
    assert old.values != {}
    tasks.bind(served, [SCRIPT])
    assert old.values == {}
