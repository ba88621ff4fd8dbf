"""Property tests: faults never deliver more than promised, pieces add up, seeds replay."""

from __future__ import annotations

from collections.abc import Iterator

from hypothesis import example, given
from hypothesis import strategies as st

from mockhttp import fault
from mockhttp._core._plan import Data, End, FaultContext, Head, Pause, Raw, Step
from tests.core.test_fault_support import client_view, run, wire_bytes

# A reply: a head (chunked or with a length), then event Data, plain Data and pauses.
parts = st.lists(
    st.one_of(
        st.binary(min_size=0, max_size=40),
        st.floats(min_value=0.001, max_value=1.0).map(Pause),
    ),
    max_size=12,
)


def make_plan(items: list[bytes | Pause], chunked: bool, events: bool) -> list[Step]:
    """Body plan from generated parts; each bytes part is one event when ``events``."""
    size = sum(len(p) for p in items if isinstance(p, bytes))
    steps: list[Step] = [Head(200, "OK", (), None if chunked else size)]
    index = 0
    for p in items:
        if isinstance(p, Pause):
            steps.append(p)
        else:
            steps.append(Data(p, index if events else None))
            index += 1
    steps.append(End("complete"))
    return steps


def body_of(plan: list[Step]) -> bytes:
    return b"".join(s.data for s in plan if isinstance(s, Data))


def delivered_body(steps: list[Step]) -> int:
    return sum(s.body for s in steps if isinstance(s, Raw))


plans = st.builds(make_plan, parts, st.booleans(), st.booleans())
sizes = st.integers(min_value=0, max_value=300)


@given(plans, sizes)
@example(make_plan([b"a" * 10], True, True), 10)
def test_limit_data_never_delivers_more_than_n_body_bytes(plan: list[Step], n: int) -> None:
    """Exactly min(n, body) body bytes, the client reads them as a prefix, and a cut never
    ends complete."""
    steps = run([fault.limit_data(n)], plan)
    body = body_of(plan)
    assert delivered_body(steps) == min(n, len(body))
    seen = client_view(wire_bytes(steps))
    assert seen.body == body[:n]
    cut = len(body) > n
    assert (steps[-1] == End("close")) == cut
    assert seen.result.startswith("error") == cut


@given(plans, sizes)
def test_limit_data_on_the_wire_never_sends_more_than_n_bytes(plan: list[Step], n: int) -> None:
    """count='wire' sends a prefix of at most n bytes of the untouched wire."""
    full = wire_bytes(run([], plan))
    steps = run([fault.limit_data(n, count="wire")], plan)
    assert wire_bytes(steps) == full[:n]
    assert delivered_body(steps) <= client_view(full).body.__len__()


@given(plans, sizes, st.sampled_from(["reset_after_bytes", "stall"]))
def test_other_byte_cuts_never_deliver_more_than_n(plan: list[Step], n: int, kind: str) -> None:
    """reset_after_bytes(n) and stall(after_bytes=n) deliver the same prefix as limit_data."""
    f = fault.reset_after_bytes(n) if kind == "reset_after_bytes" else fault.stall(after_bytes=n)
    steps = run([f], plan)
    assert client_view(wire_bytes(steps)).body == body_of(plan)[:n]


@given(plans, st.integers(min_value=0, max_value=15))
def test_event_cuts_deliver_at_most_k_events(plan: list[Step], k: int) -> None:
    """close_after_events(k) delivers whole events only, at most k of them."""
    steps = run([fault.close_after_events(k)], plan)
    sent = {s.event for s in steps if isinstance(s, Raw) and s.event is not None}
    assert len(sent) <= k
    datas = [s for s in plan if isinstance(s, Data)]
    expected = b"".join(d.data for d in datas if d.event is None or d.event < k)
    if all(d.event is not None for d in datas):
        assert client_view(wire_bytes(steps)).body == expected


@given(plans, st.integers(min_value=0, max_value=15), st.one_of(st.none(), st.integers(-50, 50)))
def test_truncate_event_never_completes_event_k(plan: list[Step], k: int, at: int | None) -> None:
    """Event k, when there is one, arrives short by at least one byte, and nothing after it."""
    steps = run([fault.truncate_event(k, at=at)], plan)
    events = [s for s in plan if isinstance(s, Data) and s.event is not None]
    sent = client_view(wire_bytes(steps)).body
    if len(events) > k:
        before = b"".join(s.data for s in events[:k])
        assert sent.startswith(before)
        assert len(sent) - len(before) < max(1, len(events[k].data))
        assert steps[-1] == End("close")


def expected_slices(plan: list[Step], size: int) -> list[tuple[bytes, int | None]]:
    """A reference model of slice: between two non-Data steps, the bytes are cut in size
    pieces; each piece is tagged with the event of its last byte."""
    pieces: list[tuple[bytes, int | None]] = []
    run_bytes: list[tuple[int, int | None]] = []  # (byte, event) of the current run
    for step in [*plan, None]:
        if isinstance(step, Data):
            run_bytes.extend((b, step.event) for b in step.data)
            continue
        for i in range(0, len(run_bytes), size):
            part = run_bytes[i : i + size]
            pieces.append((bytes(b for b, _ in part), part[-1][1]))
        run_bytes = []
    return pieces


@given(plans, st.integers(min_value=1, max_value=50))
@example(make_plan(["é".encode()], True, True), 1)
@example(make_plan([b"abc", b"def"], True, True), 4)
def test_slice_pieces_concatenate_to_the_original(plan: list[Step], size: int) -> None:
    """Pieces hold at most size bytes, run on across events between pauses, and add up to
    the body; an HTTP client reads the same body."""
    out = list(fault.slice(size).body(iter(plan), FaultContext()))
    pieces = [(s.data, s.event) for s in out if isinstance(s, Data)]
    assert pieces == expected_slices(plan, size)
    assert b"".join(p for p, _ in pieces) == body_of(plan)
    assert [s for s in out if not isinstance(s, Data)] == [
        s for s in plan if not isinstance(s, Data)
    ]
    assert client_view(wire_bytes(run([fault.slice(size)], plan))).body == body_of(plan)


@given(plans, st.floats(min_value=1, max_value=1e6))
def test_throttle_keeps_the_bytes_and_the_rate(plan: list[Step], rate: float) -> None:
    """throttle delivers the same body and, at each moment t, no more than rate*t + a piece."""
    throttle = fault.throttle(rate)
    t, sent = 0.0, 0
    steps = run([throttle], plan)
    for step in steps:
        if isinstance(step, Pause):
            t += step.seconds
        elif isinstance(step, Raw):
            sent += step.body
            assert sent <= rate * t * (1 + 1e-9) + throttle.piece
    assert client_view(wire_bytes(steps)).body == body_of(plan)


def seed_stream() -> Iterator[Step]:
    yield Head(200, "OK", (), None)
    yield Data(b"data: x\n\n", 0)
    yield End("complete")


@given(
    st.integers(min_value=0, max_value=10**9),
    st.integers(min_value=0, max_value=200),
    st.floats(min_value=0, max_value=1),
)
def test_seeded_faults_repeat_exactly(seed: int, n: int, p: float) -> None:
    """The same seed gives the same garbage and the same choice of calls, every time."""
    first = run([fault.sometimes(p, fault.garbage(n, seed=seed), seed=seed)], seed_stream())
    again = run([fault.sometimes(p, fault.garbage(n, seed=seed), seed=seed)], seed_stream())
    assert first == again
    maybe = fault.sometimes(p, fault.reset(), seed=seed)
    assert [maybe.applies(i) for i in range(20)] == [
        fault.sometimes(p, fault.reset(), seed=seed).applies(i) for i in range(20)
    ]


@given(
    st.one_of(
        st.builds(fault.limit_data, sizes, count=st.sampled_from(["body", "wire"])),
        st.builds(fault.truncate_event, sizes, at=st.one_of(st.none(), st.integers(-9, 9))),
        st.builds(fault.slice, st.integers(1, 99), delay=st.floats(0, 10)),
        st.builds(fault.latency, st.floats(0, 1e20)),
        st.builds(fault.first_byte_delay, st.floats(0, 1e-3)),
        st.builds(fault.garbage, sizes, seed=st.integers(0, 2**64)),
    ),
    st.floats(0, 1),
)
def test_file_form_round_trips(made: fault.Fault, p: float) -> None:
    """from_args(f.to_args()) == f, nested in sometimes too."""
    assert fault.from_args(made.to_args()) == made  # type: ignore[attr-defined]  # ours have it
    wrapped = fault.sometimes(p, made, seed=3)
    assert fault.from_args(wrapped.to_args()) == wrapped
