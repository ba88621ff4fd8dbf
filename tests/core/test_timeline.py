"""The timeline of a stream (``_core/_timeline.py``): pure, so checked on plans and
journal values built here, with the real faults and framing."""

from __future__ import annotations

import pytest

from mockhttp import Event, fault, ok
from mockhttp._core._plan import End, Pause, Raw, Step, Wait
from mockhttp._core._timeline import (
    PREVIEW,
    Planned,
    PlannedEvent,
    Resumable,
    planned,
    resumed_from,
    schedule,
    timeline,
)

T0 = 1_000.0  # when the request arrived


def stream(n: int = 4, delay: float = 0.1) -> list[Step]:
    events = [Event(data=f"part {i}", id=str(i + 1)) for i in range(n)]
    return list(ok().event_stream(*events, event_delay=delay).plan())


# -- planned: a wire plan as a schedule --------------------------------------------------


def test_planned_gives_each_event_its_due_time_and_bytes() -> None:
    plan = planned(
        [Raw(b"HTTP/1.1 200 OK\r\n\r\n"), Raw(b"data: a\n\n", 9, 0), Pause(0.5),
         Raw(b"data: b\n\n", 9, 1), End("complete")]
    )  # fmt: skip
    assert plan == Planned(
        (PlannedEvent(0.0, b"data: a\n\n"), PlannedEvent(0.5, b"data: b\n\n")),
        "complete", 0.5, 18,
    )  # fmt: skip


def test_planned_joins_the_pieces_of_one_event_at_its_first_time() -> None:
    plan = planned([Raw(b"da", 2, 0), Pause(0.2), Raw(b"ta: x\n\n", 7, 0), End("reset")])
    assert plan.events == (PlannedEvent(0.0, b"data: x\n\n"),)
    assert (plan.end, plan.end_at) == ("reset", 0.2)


def test_planned_reads_a_chunk_frame_body_without_its_framing() -> None:
    plan = planned([Raw(b"9\r\ndata: a\n\n\r\n", 9, 0), End()])
    assert plan.events[0].data == b"data: a\n\n"


def test_an_endless_plan_is_read_up_to_the_limit() -> None:
    steps = iter(lambda: Raw(b"x", 1, None), None)  # endless
    plan = planned(steps, limit=50)
    assert (plan.end, plan.end_at, plan.body) == (None, None, 50)


def test_a_fed_plan_ends_its_schedule_at_the_wait() -> None:
    plan = planned([Raw(b"data: a\n\n", 9, 0), Wait(source=None)])  # type: ignore[arg-type]
    assert (plan.end, len(plan.events)) == ("wait", 1)


def test_schedule_applies_the_faults_as_the_server_does() -> None:
    plan = schedule(stream(4), [fault.close_after_events(2)])
    assert [e.at for e in plan.events] == pytest.approx([0.0, 0.1])
    assert plan.end == "close"
    clean = schedule(stream(4))
    assert [e.at for e in clean.events] == pytest.approx([0.0, 0.1, 0.2, 0.3])
    assert clean.end == "complete"
    assert clean.events[2].data == b"id: 3\ndata: part 2\n\n"


def test_schedule_counts_a_latency_fault_in_every_due_time() -> None:
    plan = schedule(stream(2), [fault.first_byte_delay(0.3)])
    assert [e.at for e in plan.events] == pytest.approx([0.3, 0.4])


def test_schedule_passes_the_call_index_to_the_faults() -> None:
    first_only = [fault.first(1, fault.reset_after_events(1))]
    assert schedule(stream(3), first_only, 0).end == "reset"
    assert schedule(stream(3), first_only, 1).end == "complete"


# -- timeline: the journal's times over the schedule --------------------------------------


def test_a_complete_stream_has_each_event_beside_its_plan() -> None:
    plan = schedule(stream(3))
    line = timeline(
        arrived=T0, event_times=[T0 + 0.01, T0 + 0.11, T0 + 0.21], end_time=T0 + 0.22,
        outcome="complete", body=b"", body_bytes=plan.body, plan=plan,
    )  # fmt: skip
    assert [(e.index, e.id, e.data, e.whole) for e in line.events] == [
        (0, "1", "part 0", True), (1, "2", "part 1", True), (2, "3", "part 2", True),
    ]  # fmt: skip
    assert [e.at for e in line.events] == pytest.approx([0.01, 0.11, 0.21])
    assert [e.planned for e in line.events] == pytest.approx([0.0, 0.1, 0.2])
    assert [(m.kind, m.after) for m in line.marks] == [("end", 3)]
    assert line.duration == pytest.approx(0.22)


def test_a_fault_cut_is_marked_where_the_plan_puts_it() -> None:
    plan = schedule(stream(4), [fault.reset_after_events(2)])
    line = timeline(
        arrived=T0, event_times=[T0, T0 + 0.1], end_time=T0 + 0.1, outcome="reset",
        body=b"", body_bytes=plan.body, plan=plan, faults=["reset_after_events: 2"],
    )  # fmt: skip
    kinds = [(m.kind, m.after) for m in line.marks]
    assert kinds == [("fault", 2), ("cut", 2)]
    assert line.marks[0].text == "the plan resets the connection here"
    assert line.faults == ("reset_after_events: 2",)


def test_an_event_cut_in_the_middle_is_not_whole() -> None:
    plan = schedule(stream(2), [fault.truncate_event(1)])
    line = timeline(
        arrived=T0, event_times=[T0, T0 + 0.1], end_time=T0 + 0.1, outcome="closed",
        body=b"", body_bytes=plan.body, plan=plan,
    )  # fmt: skip
    assert [e.whole for e in line.events] == [True, True]  # as planned, what was sent
    short = timeline(
        arrived=T0, event_times=[T0, T0 + 0.1], end_time=T0 + 0.1, outcome="client hung up",
        body=b"", body_bytes=plan.body - 3, plan=plan,
    )  # fmt: skip
    assert [e.whole for e in short.events] == [True, False]


def test_events_not_written_keep_their_plan_and_no_time() -> None:
    plan = schedule(stream(3))
    line = timeline(
        arrived=T0, event_times=[T0], end_time=T0 + 0.05, outcome="client hung up",
        body=b"", body_bytes=len(plan.events[0].data), plan=plan,
    )  # fmt: skip
    assert [(e.at is None, e.whole) for e in line.events] == [
        (False, True), (True, False), (True, False)
    ]  # fmt: skip
    assert [(m.kind, m.after) for m in line.marks] == [("hung up", 1)]
    assert line.marks[0].at == pytest.approx(0.05)
    assert line.marks[0].text == "the client hung up after 1 event"


def test_the_first_late_event_marks_where_the_stream_fell_behind() -> None:
    plan = schedule(stream(4))
    times = [T0, T0 + 0.1, T0 + 0.9, T0 + 1.0]
    line = timeline(
        arrived=T0, event_times=times, end_time=T0 + 1.0, outcome="complete",
        body=b"", body_bytes=plan.body, plan=plan,
    )  # fmt: skip
    behind = [m for m in line.marks if m.kind == "behind"]
    assert [m.after for m in behind] == [2]
    assert behind[0].at == pytest.approx(0.9)
    assert "700 ms after its plan" in behind[0].text


def test_a_stalled_stream_is_marked_at_its_last_event() -> None:
    line = timeline(
        arrived=T0, event_times=[T0 + 0.2], end_time=None, outcome="stalled",
        body=b"data: a\n\n", body_bytes=9,
    )  # fmt: skip
    assert [m.kind for m in line.marks] == ["stalled"]
    assert line.marks[0].at == pytest.approx(0.2)
    assert line.duration is None


def test_without_a_plan_the_events_come_from_the_body() -> None:
    body = b"id: 7\nevent: delta\ndata: hi\n\ndata: cut"
    line = timeline(
        arrived=T0, event_times=[T0 + 0.001, T0 + 0.002], end_time=T0 + 0.003,
        outcome="closed", body=body, body_bytes=len(body),
    )  # fmt: skip
    assert [(e.id, e.name, e.data, e.whole, e.planned) for e in line.events] == [
        ("7", "delta", "hi", True, None), (None, None, "data: cut", False, None),  # (its raw text)
    ]  # fmt: skip
    assert line.planned_end is None


def test_a_body_that_is_not_sse_is_one_event_of_text() -> None:
    line = timeline(
        arrived=T0, event_times=None, end_time=T0, outcome="complete",
        body=b'{"ok": true}', body_bytes=12,
    )  # fmt: skip
    assert [(e.index, e.data) for e in line.events] == [(0, '{"ok": true}')]


def test_long_data_is_cut_to_the_preview() -> None:
    data = "x" * (PREVIEW * 3)
    body = f"data: {data}\n\n".encode()
    line = timeline(
        arrived=T0, event_times=[T0], end_time=T0, outcome="complete",
        body=body, body_bytes=len(body),
    )  # fmt: skip
    assert len(line.events[0].data) == PREVIEW
    assert line.events[0].data.endswith("…")


def test_the_json_form_is_in_milliseconds() -> None:
    plan = schedule(stream(2))
    line = timeline(
        arrived=T0, event_times=[T0 + 0.0005, T0 + 0.1234], end_time=T0 + 0.2,
        outcome="complete", body=b"", body_bytes=plan.body, plan=plan,
    )  # fmt: skip
    found = line.to_json()
    assert found["duration_ms"] == 200.0
    assert found["planned_end_ms"] == 100.0
    assert [(e["at_ms"], e["planned_ms"]) for e in found["events"]] == [(0.5, 0.0), (123.4, 100.0)]
    assert found["marks"] == [
        {"kind": "end", "at_ms": 200.0, "after": 2, "text": "complete: 2 events"}
    ]


# -- resumed_from: reconnects linked to what they resume -----------------------------------


def call(seq: int, mock: object, last: str | None, ids: tuple[str, ...], cut: bool) -> Resumable:
    return Resumable(seq, mock, last, ids, cut)


def test_a_reconnect_links_to_the_call_that_delivered_its_last_event_id() -> None:
    calls = [
        call(1, "a", None, ("1", "2"), True),
        call(2, "b", None, ("1",), True),  # another mock's stream: never linked to "a"'s
        call(3, "a", "2", ("3", "4"), True),
        call(4, "a", "4", ("5",), False),
    ]
    assert resumed_from(calls) == {3: 1, 4: 3}


def test_a_reconnect_with_an_unknown_id_or_none_links_to_the_cut_call_before_it() -> None:
    calls = [
        call(1, "a", None, (), True),
        call(2, "a", "99", (), False),
        call(3, "a", None, (), False),  # after a complete call: a new request, not a resume
    ]
    assert resumed_from(calls) == {2: 1}


def test_unmatched_calls_link_to_nothing() -> None:
    assert resumed_from([call(1, None, None, (), True), call(2, None, "1", (), True)]) == {}
