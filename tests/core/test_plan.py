"""Plans (_core/_plan.py): the steps as plain frozen data, and the body plan's grammar
every reply keeps: an optional pause, one ``Head``, ``Data`` and ``Pause`` steps, one
``End`` last (Rule 1); pauses relative and never negative (Rule 2)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mockhttp._core._plan import (
    Data,
    End,
    Fault,
    FaultContext,
    Head,
    Pause,
    Raw,
    Step,
)
from mockhttp._core._reply import Reply, ok, status
from mockhttp._core._sse import Event, LineEnding

STEPS = [
    Head(200, "OK", (("A", "1"),), 3),
    Data(b"abc", 2),
    Raw(b"3\r\nabc\r\n", 3, 2),
    Pause(0.5),
    End("reset"),
]


@pytest.mark.parametrize("step", STEPS, ids=lambda s: type(s).__name__)
def test_steps_are_frozen_slotted_values(step: Step) -> None:
    assert not hasattr(step, "__dict__")
    field = dataclasses.fields(step)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(step, field, None)
    assert step == dataclasses.replace(step)
    assert hash(step) == hash(dataclasses.replace(step))


def test_the_defaults() -> None:
    assert Data(b"x") == Data(b"x", None)
    assert Raw(b"x") == Raw(b"x", 0, None)
    assert End() == End("complete")
    assert FaultContext().call_index == 0
    assert Data(b"x", 0) != Data(b"x", 1)


class PassThrough:
    """The smallest fault: both plans as they come."""

    def body(self, steps: Iterator[Step], ctx: FaultContext) -> Iterator[Step]:
        return steps

    def wire(self, steps: Iterator[Step], ctx: FaultContext) -> Iterator[Step]:
        yield from steps


def test_a_fault_that_passes_steps_through_changes_nothing() -> None:
    fault: Fault = PassThrough()
    plan = list(ok().body("hi").plan())
    assert list(fault.body(iter(plan), FaultContext())) == plan
    assert list(fault.wire(iter(plan), FaultContext(call_index=3))) == plan


# -- the body plan's grammar, over the replies one can build ---------------------------------


def check_grammar(steps: list[Step]) -> None:
    kinds = [type(s).__name__ for s in steps]
    start = 1 if kinds[0] == "Pause" else 0
    assert kinds[start] == "Head"
    assert kinds[-1] == "End"
    assert kinds.count("Head") == 1
    assert kinds.count("End") == 1
    assert set(kinds[start + 1 : -1]) <= {"Data", "Pause"}
    assert all(s.seconds >= 0 for s in steps if isinstance(s, Pause))


durations = st.one_of(st.just(0.0), st.floats(0.001, 5.0))
events = st.builds(
    Event,
    data=st.text(max_size=20),
    event=st.none() | st.text("abc", min_size=1, max_size=5),
    delay=st.none() | durations,
)


@st.composite
def replies(draw: st.DrawFn) -> tuple[Reply, bytes]:
    """A reply and the body bytes its plan must carry (one round of a stream)."""
    base = status(draw(st.sampled_from([200, 201, 404, 500])))
    if draw(st.booleans()):
        base = base.delay(draw(durations))
    if draw(st.booleans()):
        body = draw(st.binary(max_size=50))
        return base.body(body), body
    chosen = draw(st.lists(events, max_size=6))
    ending: LineEnding = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    reply = base.event_stream(
        *chosen,
        event_delay=draw(durations),
        first_event_delay=draw(durations),
        line_ending=ending,
        repeat=draw(st.integers(1, 3)),
    )
    return reply, b"".join(e.encode(ending, True) for e in chosen)


@given(replies())
def test_every_reply_compiles_to_a_plan_of_the_grammar(made: tuple[Reply, bytes]) -> None:
    reply, one_round = made
    steps = list(reply.plan())
    check_grammar(steps)
    head = next(s for s in steps if isinstance(s, Head))
    assert head.status == reply.status_code
    body = b"".join(s.data for s in steps if isinstance(s, Data))
    if reply.stream is None:
        assert head.length == len(body) == len(one_round)
        assert body == one_round
    else:
        assert head.length is None  # chunked: the length is not known up front
        rounds = reply.stream.repeat
        assert rounds is not None
        assert body == one_round * rounds
    if reply.head_delay:
        assert steps[0] == Pause(reply.head_delay)


def test_an_endless_stream_keeps_the_grammar_as_far_as_it_is_read() -> None:
    reply = ok().event_stream(Event(comment="ping"), event_delay=1, repeat=True)
    steps = reply.plan()
    first = [next(steps) for _ in range(50)]
    assert isinstance(first[0], Head)
    assert {type(s) for s in first[1:]} == {Data, Pause}
    assert all(s.seconds == 1 for s in first[1:] if isinstance(s, Pause))


def test_event_indexes_count_across_rounds() -> None:
    reply = ok().event_stream(Event(data="a"), Event(data="b"), repeat=2)
    indexes = [s.event for s in reply.plan() if isinstance(s, Data)]
    assert indexes == [0, 1, 2, 3]
