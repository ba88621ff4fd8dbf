"""Faults on plans, without sockets: what each fault does to the steps and the bytes."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest

from mockhttp import ConfigError, fault
from mockhttp._core._plan import Data, End, FaultContext, Head, Pause, Raw, Step
from tests.core.test_fault_support import (
    SEED_BODY,
    SEED_EVENTS,
    apply,
    body_plan,
    client_view,
    end_of,
    pauses,
    run,
    seed_plan,
    stream_plan,
    wire_bytes,
)

EVENTS = (b"data: one\n\n", b"data: two\n\n", b"data: three\n\n")


def endless() -> Iterator[Step]:
    """An event stream that never ends."""
    yield Head(200, "OK", (), None)
    for i in itertools.count():
        yield Pause(0.01)
        yield Data(b"data: tick\n\n", i)


def body_data(f: fault.Fault, plan: Iterator[Step]) -> list[Data]:
    """The Data steps of the body plan after ``f`` (before framing)."""
    return [s for s in f.body(plan, FaultContext()) if isinstance(s, Data)]


# -- limit_data ---------------------------------------------------------------------------


def test_limit_data_delivers_exactly_n_body_bytes_of_the_seed_stream() -> None:
    """limit_data(100) on the seed's stream: the client reads 100 body bytes, then an error."""
    steps = run([fault.limit_data(100)], seed_plan())
    seen = client_view(wire_bytes(steps))
    assert seen.status == 200
    assert seen.body == SEED_BODY[:100]
    assert seen.result.startswith("error")
    assert end_of(steps) == "close"
    assert not wire_bytes(steps).endswith(b"0\r\n\r\n")


def test_limit_data_cuts_the_second_event_of_the_seed() -> None:
    """The seed says 100 bytes hold the first chunk and part of the second."""
    first = len(SEED_EVENTS[0].encode())
    assert first < 100 < first + len(SEED_EVENTS[1].encode())
    steps = run([fault.limit_data(100)], seed_plan())
    raws = [s for s in steps if isinstance(s, Raw) and s.body]
    assert [(r.event, r.body) for r in raws] == [(0, first), (1, 100 - first)]


def test_limit_data_on_a_content_length_body_sends_fewer_bytes_than_announced() -> None:
    """With Content-Length the head still announces the whole body; the client sees it short."""
    steps = run([fault.limit_data(5)], body_plan(b"hello, ", b"world"))
    data = wire_bytes(steps)
    assert b"content-length: 12\r\n" in data
    assert data.endswith(b"\r\n\r\nhello")
    seen = client_view(data)
    assert (seen.body, seen.result.startswith("error")) == (b"hello", True)


@pytest.mark.parametrize("n", [12, 13, 1000])
def test_limit_data_leaves_a_body_no_longer_than_n_untouched(n: int) -> None:
    """Only a byte past the limit triggers the cut; a short enough body ends complete."""
    assert run([fault.limit_data(n)], body_plan(b"hello, world")) == run(
        [], body_plan(b"hello, world")
    )


def test_limit_data_zero_closes_right_after_the_head() -> None:
    """limit_data(0) sends the head, then closes before any body byte."""
    steps = run([fault.limit_data(0)], seed_plan())
    assert [type(s) for s in steps] == [Raw, End]
    assert client_view(wire_bytes(steps)).status == 200


def test_limit_data_keeps_the_pauses_before_the_cut_and_drops_the_rest() -> None:
    """Timing up to the cut is unchanged; nothing after it is planned."""
    steps = run([fault.limit_data(15)], stream_plan(*EVENTS, delay=0.5))
    assert pauses(steps) == [0.5]
    assert [(s.body, s.event) for s in steps if isinstance(s, Raw) and s.body] == [(11, 0), (4, 1)]


def test_limit_data_cut_at_an_event_boundary_closes_where_the_next_byte_would_go() -> None:
    """When the limit falls between events, the close comes after the pause before the next."""
    steps = run([fault.limit_data(11)], stream_plan(*EVENTS, delay=0.5))
    assert pauses(steps) == [0.5]
    assert end_of(steps) == "close"


def test_limit_data_counting_wire_bytes_includes_head_and_framing() -> None:
    """count='wire' delivers exactly n bytes on the wire, whatever they are."""
    full = wire_bytes(run([], seed_plan()))
    for n in (10, 120, len(full) - 1):
        steps = run([fault.limit_data(n, count="wire")], seed_plan())
        assert wire_bytes(steps) == full[:n]
        assert end_of(steps) == "close"


def test_limit_data_counting_wire_bytes_keeps_body_counts_right() -> None:
    """A chunk frame cut on the wire records only the body bytes inside the cut piece."""
    full = run([], stream_plan(b"abcdef"))
    head = len(wire_bytes(full[:1]))
    for cut, body in [(1, 0), (3, 0), (5, 2), (9, 6), (10, 6)]:
        steps = run([fault.limit_data(head + cut, count="wire")], stream_plan(b"abcdef"))
        assert sum(s.body for s in steps if isinstance(s, Raw)) == body, cut


def test_limit_data_is_lazy_on_an_endless_stream() -> None:
    """An endless plan is cut after n bytes without being listed."""
    steps = list(apply([fault.limit_data(30)], endless()))
    assert sum(s.body for s in steps if isinstance(s, Raw)) == 30
    assert end_of(steps) == "close"


def test_limit_data_leaves_a_reply_to_head_untouched() -> None:
    """A reply to HEAD has no body on the wire, so there is nothing to cut."""
    steps = run([fault.limit_data(5)], body_plan(b"hello, world"), head_only=True)
    assert steps == run([], body_plan(b"hello, world"), head_only=True)
    assert end_of(steps) == "complete"


def test_limit_data_cuts_inside_a_chunk() -> None:
    """The cut chunk's size line announces the whole event; only part of it follows."""
    second = SEED_EVENTS[1].encode()
    first = len(SEED_EVENTS[0].encode())
    data = wire_bytes(run([fault.limit_data(100)], seed_plan()))
    assert data.endswith(b"%x\r\n" % len(second) + second[: 100 - first])


def test_limit_data_at_an_event_boundary_does_not_start_the_next_chunk() -> None:
    """When no byte of the next chunk may go, its size line is not sent either."""
    first = SEED_EVENTS[0].encode()
    data = wire_bytes(run([fault.limit_data(len(first))], seed_plan()))
    assert data.endswith(first + b"\r\n")


# -- resets, closes and stalls after bytes or events ----------------------------------------


def test_reset_after_bytes_sends_n_body_bytes_then_resets() -> None:
    """reset_after_bytes(n) cuts like limit_data but ends with a reset."""
    steps = run([fault.reset_after_bytes(100)], seed_plan())
    assert client_view(wire_bytes(steps)).body == SEED_BODY[:100]
    assert end_of(steps) == "reset"


def test_reset_after_bytes_can_count_wire_bytes() -> None:
    """count='wire' counts the head too."""
    steps = run([fault.reset_after_bytes(7, count="wire")], seed_plan())
    assert wire_bytes(steps) == b"HTTP/1."
    assert end_of(steps) == "reset"


@pytest.mark.parametrize(
    ("make", "how"),
    [(fault.close_after_events, "close"), (fault.reset_after_events, "reset")],
)
def test_after_events_sends_k_whole_events_then_ends(
    make: Callable[[int], fault.Fault], how: str
) -> None:
    """close/reset_after_events(2) deliver two whole events, then end the connection."""
    steps = run([make(2)], stream_plan(*EVENTS, delay=0.1))
    seen = client_view(wire_bytes(steps))
    assert seen.body == EVENTS[0] + EVENTS[1]
    assert seen.result.startswith("error")
    assert end_of(steps) == how
    assert pauses(steps) == [0.1, 0.1]


def test_close_after_zero_events_closes_after_the_head() -> None:
    """close_after_events(0) sends the head only."""
    steps = run([fault.close_after_events(0)], stream_plan(*EVENTS))
    assert [type(s) for s in steps] == [Raw, End]


@pytest.mark.parametrize("k", [3, 4])
def test_after_events_leaves_a_short_stream_untouched(k: int) -> None:
    """A stream of k events or fewer ends complete."""
    assert end_of(run([fault.close_after_events(k)], stream_plan(*EVENTS))) == "complete"


def test_after_events_leaves_a_plain_body_untouched() -> None:
    """A plain body has no events to count."""
    assert run([fault.reset_after_events(0)], body_plan(b"x")) == run([], body_plan(b"x"))


def test_stall_after_bytes_keeps_the_connection_open_after_n_bytes() -> None:
    """stall(after_bytes=n) sends n body bytes, then a stall."""
    steps = run([fault.stall(after_bytes=100)], seed_plan())
    assert client_view(wire_bytes(steps)).body == SEED_BODY[:100]
    assert end_of(steps) == "stall"


def test_stall_after_events_stalls_where_the_next_event_would_go() -> None:
    """stall(after_events=1) sends one event, then a stall."""
    steps = run([fault.stall(after_events=1)], stream_plan(*EVENTS))
    assert client_view(wire_bytes(steps)).body == EVENTS[0]
    assert end_of(steps) == "stall"


def test_stall_without_limits_stalls_before_the_status_line() -> None:
    """stall() sends nothing at all."""
    assert run([fault.stall()], seed_plan()) == [End("stall")]


# -- before any byte ------------------------------------------------------------------------


@pytest.mark.parametrize(("make", "how"), [(fault.empty_response, "close"), (fault.reset, "reset")])
def test_before_any_byte(make: Callable[[], fault.Fault], how: str) -> None:
    """empty_response() and reset() end the connection before the status line."""
    assert run([make()], seed_plan()) == [End(how)]  # type: ignore[arg-type]  # how is an EndHow


def test_empty_response_keeps_latency_before_it() -> None:
    """The order of latency and empty_response does not matter: the wait stays."""
    assert run([fault.latency(1), fault.empty_response()], seed_plan()) == [
        Pause(1.0),
        End("close"),
    ]
    assert run([fault.empty_response(), fault.latency(1)], seed_plan()) == [
        Pause(1.0),
        End("close"),
    ]


# -- timing ----------------------------------------------------------------------------------


def test_latency_waits_before_the_status_line() -> None:
    """latency(s) puts a pause before the head; the rest is unchanged."""
    steps = run([fault.latency("250ms")], seed_plan())
    assert steps[0] == Pause(0.25)
    assert steps[1:] == run([], seed_plan())


def test_first_byte_delay_waits_after_the_head_before_the_body() -> None:
    """first_byte_delay(s) sends the head at once, then waits before the first body byte."""
    steps = run([fault.first_byte_delay(timedelta(seconds=2))], stream_plan(*EVENTS, delay=0.1))
    assert isinstance(steps[0], Raw)
    assert steps[0].data.startswith(b"HTTP/1.1 200")
    assert steps[1] == Pause(2.0)
    assert pauses(steps) == [2.0, 0.1, 0.1]


def test_first_byte_delay_on_an_empty_body_delays_the_end() -> None:
    """With no body bytes, the wait comes before the end of the reply."""
    steps = run([fault.first_byte_delay(1)], body_plan())
    assert [type(s) for s in steps] == [Raw, Pause, End]


def test_first_byte_delay_after_empty_response_adds_nothing() -> None:
    """No head, no first byte: there is nothing to delay."""
    assert run([fault.empty_response(), fault.first_byte_delay(1)], seed_plan()) == [End("close")]
    headless: Iterator[Step] = iter([End("close"), Data(b"junk")])
    assert list(fault.first_byte_delay(1).body(headless, FaultContext())) == [End("close")]


def test_throttle_paces_pieces_at_the_rate() -> None:
    """throttle(100) sends 2-byte pieces 20 ms apart: 100 bytes per second."""
    steps = run([fault.throttle(100)], body_plan(b"abcdefgh"))
    pieces = body_data(fault.throttle(100), body_plan(b"abcdefgh"))
    assert [d.data for d in pieces] == [b"ab", b"cd", b"ef", b"gh"]
    assert [type(s).__name__ for s in steps[1:]] == ["Raw", "Pause"] * 3 + ["Raw", "End"]
    assert pauses(steps) == pytest.approx([0.02, 0.02, 0.02])
    assert client_view(wire_bytes(steps)).body == b"abcdefgh"


def test_throttle_counts_pauses_already_in_the_plan() -> None:
    """Event delays longer than the throttle's wait need no extra pause."""
    steps = run([fault.throttle(1000)], stream_plan(b"a" * 40, b"b" * 40, delay=1.0))
    assert pauses(steps) == pytest.approx([0.02, 1.0, 0.02])


def test_throttle_never_sends_ahead_of_its_rate() -> None:
    """By every point in time t, at most rate * t bytes plus one piece have gone out."""
    throttle = fault.throttle(333)
    t, sent = 0.0, 0
    for step in apply([throttle], stream_plan(*EVENTS * 20, delay=0.005)):
        if isinstance(step, Pause):
            t += step.seconds
        elif isinstance(step, Raw):
            sent += step.body
            assert sent <= 333 * t + throttle.piece + 1e-6
    assert sent == len(b"".join(EVENTS * 20))


def test_slice_sends_pieces_of_size_bytes_across_events() -> None:
    """slice(4) on events with no pause between: 4-byte pieces run on from one event into the
    next, each tagged with the event of its last byte."""
    steps = run([fault.slice(4)], stream_plan(*EVENTS))
    pieces = body_data(fault.slice(4), stream_plan(*EVENTS))
    assert [p.data for p in pieces][:4] == [b"data", b": on", b"e\n\nd", b"ata:"]
    assert [p.event for p in pieces] == [0, 0, 1, 1, 1, 2, 2, 2, 2]
    assert client_view(wire_bytes(steps)).body == b"".join(EVENTS)
    assert pauses(steps) == []


def test_slice_sends_the_piece_being_filled_before_a_pause() -> None:
    """A pause in the stream flushes the short last piece of an event: no byte is late."""
    pieces = body_data(fault.slice(4), stream_plan(*EVENTS, delay=0.5))
    assert [p.data for p in pieces][:4] == [b"data", b": on", b"e\n\n", b"data"]
    assert [p.event for p in pieces] == [0, 0, 0, 1, 1, 1, 2, 2, 2, 2]


def test_slice_one_byte_cuts_inside_utf8_sequences() -> None:
    """slice(1) splits a multi-byte character across pieces."""
    pieces = body_data(fault.slice(1), stream_plan("data: é\n\n".encode()))
    assert [p.data for p in pieces][6:8] == [b"\xc3", b"\xa9"]


def test_slice_puts_delay_between_pieces_only() -> None:
    """The delay goes between pieces, not before the first, and adds to event delays."""
    steps = run([fault.slice(6, delay="10ms")], stream_plan(b"a" * 12, b"b" * 6, delay=1.0))
    assert pauses(steps) == [0.01, 1.0, 0.01]


# -- framing breakers ----------------------------------------------------------------------


def test_garbage_sends_a_valid_head_then_seeded_bytes_then_closes() -> None:
    """garbage(n) replaces the body with n bytes from random.Random(seed)."""
    steps = run([fault.garbage(64, seed=7)], seed_plan())
    head, junk, end = steps
    assert isinstance(head, Raw)
    assert head.data.startswith(b"HTTP/1.1 200 OK\r\n")
    assert junk == Raw(fault.garbage(64, seed=7).data)
    assert len(fault.garbage(64, seed=7).data) == 64
    assert end == End("close")
    seen = client_view(wire_bytes(steps))
    assert (seen.status, seen.body, seen.result.startswith("error")) == (200, b"", True)


def test_garbage_bytes_depend_on_the_seed() -> None:
    """Two seeds give two byte strings; one seed gives the same bytes every time."""
    assert fault.garbage(32, seed=1).data != fault.garbage(32, seed=2).data
    assert fault.garbage(32, seed=1).data == fault.garbage(32, seed=1).data


def test_garbage_zero_closes_after_the_head() -> None:
    """garbage(0) is a valid head and then a close."""
    assert [type(s) for s in run([fault.garbage(0)], seed_plan())] == [Raw, End]


def test_malformed_chunk_breaks_the_first_chunk_size_line() -> None:
    """The first chunk's size line is 'zz'; an HTTP client reports a protocol error."""
    steps = run([fault.malformed_chunk()], seed_plan())
    data = wire_bytes(steps)
    assert b"\r\n\r\nzz\r\ndata: {" in data
    assert end_of(steps) == "close"
    seen = client_view(data)
    assert seen.body == b""
    assert "chunk" in seen.result.lower()


def test_malformed_chunk_switches_a_known_length_to_chunked() -> None:
    """A Content-Length body becomes chunked, so there is a chunk to break."""
    data = wire_bytes(run([fault.malformed_chunk()], body_plan(b"hello")))
    assert b"content-length" not in data
    assert data.endswith(b"transfer-encoding: chunked\r\n\r\nzz\r\nhello\r\n")


def test_malformed_chunk_breaks_the_last_chunk_of_an_empty_body() -> None:
    """With no body, the last chunk is the one broken."""
    data = wire_bytes(run([fault.malformed_chunk()], stream_plan()))
    assert data.endswith(b"\r\n\r\nzz\r\n\r\n")
    assert client_view(data).result.startswith("error")


def test_malformed_chunk_leaves_http10_replies_untouched() -> None:
    """An HTTP/1.0 client gets a close-delimited body: no chunk to break."""
    steps = run([fault.malformed_chunk()], seed_plan(), http10=True)
    assert end_of(steps) == "complete"
    assert wire_bytes(steps).endswith(SEED_BODY)


def test_truncate_event_cuts_inside_event_k_then_closes() -> None:
    """truncate_event(1) sends event 0 whole and half of event 1."""
    steps = run([fault.truncate_event(1)], stream_plan(*EVENTS, delay=0.1))
    seen = client_view(wire_bytes(steps))
    assert seen.body == EVENTS[0] + EVENTS[1][:5]
    assert end_of(steps) == "close"
    assert pauses(steps) == [0.1]


@pytest.mark.parametrize(
    ("at", "sent"),
    [(0, b""), (3, b"dat"), (-1, b"data: two\n"), (-3, b"data: tw"), (99, b"data: two\n")],
)
def test_truncate_event_at(at: int, sent: bytes) -> None:
    """at counts the event's bytes sent, from the end when negative, never all of them."""
    steps = run([fault.truncate_event(1, at=at)], stream_plan(*EVENTS))
    assert client_view(wire_bytes(steps)).body == EVENTS[0] + sent


def test_truncate_event_holds_an_event_split_in_pieces() -> None:
    """After slice, event k spans several Data steps and pauses; the cut counts them all."""
    steps = run(
        [fault.slice(2, delay=0.01), fault.truncate_event(0, at=-1)], stream_plan(b"data: x\n\n")
    )
    assert client_view(wire_bytes(steps)).body == b"data: x\n"
    assert pauses(steps) == [0.01] * 3


def test_truncate_event_leaves_a_short_stream_untouched() -> None:
    """A stream without event k ends complete."""
    assert end_of(run([fault.truncate_event(3)], stream_plan(*EVENTS))) == "complete"


def test_truncate_event_on_an_endless_stream_is_lazy() -> None:
    """Cutting event 5 of an endless stream ends the plan."""
    steps = list(apply([fault.truncate_event(5, at=2)], endless()))
    assert end_of(steps) == "close"
    assert sum(s.body for s in steps if isinstance(s, Raw)) == 5 * 12 + 2


# -- chaos ------------------------------------------------------------------------------------


def test_sometimes_applies_to_about_p_of_the_calls() -> None:
    """sometimes(0.3, f) cuts roughly 30 % of 2000 calls."""
    maybe = fault.sometimes(0.3, fault.reset())
    hits = sum(maybe.applies(i) for i in range(2000))
    assert 500 < hits < 700


def test_sometimes_decides_the_same_for_the_same_seed_and_call() -> None:
    """A seed replays: the same calls fail; another seed picks other calls."""
    one = [fault.sometimes(0.5, fault.reset(), seed=1).applies(i) for i in range(64)]
    again = [fault.sometimes(0.5, fault.reset(), seed=1).applies(i) for i in range(64)]
    other = [fault.sometimes(0.5, fault.reset(), seed=2).applies(i) for i in range(64)]
    assert one == again
    assert one != other


@pytest.mark.parametrize(("p", "expected"), [(0, "complete"), (1, "reset")])
def test_sometimes_with_certain_probabilities(p: float, expected: str) -> None:
    """p=0 never applies, p=1 always does."""
    for call in range(20):
        steps = run([fault.sometimes(p, fault.reset())], seed_plan(), call_index=call)
        assert end_of(steps) == expected


def test_sometimes_decides_once_per_call_for_both_hooks() -> None:
    """A wire fault inside sometimes applies on exactly the calls it is chosen for."""
    maybe = fault.sometimes(0.5, fault.garbage(8), seed=3)
    for call in range(40):
        steps = run([maybe], seed_plan(), call_index=call)
        assert (end_of(steps) == "close") == maybe.applies(call)


def test_first_applies_to_the_first_n_calls_only() -> None:
    """first(2, reset()) resets calls 0 and 1; call 2 is served whole."""
    ends = [
        end_of(run([fault.first(2, fault.reset())], seed_plan(), call_index=i)) for i in range(4)
    ]
    assert ends == ["reset", "reset", "complete", "complete"]


def test_first_passes_wire_hooks_through() -> None:
    """A wire fault inside first applies on the wire for the first calls."""
    broken = run([fault.first(1, fault.malformed_chunk())], seed_plan(), call_index=0)
    fine = run([fault.first(1, fault.malformed_chunk())], seed_plan(), call_index=1)
    assert b"zz\r\n" in wire_bytes(broken)
    assert end_of(fine) == "complete"


# -- composition -------------------------------------------------------------------------------


def test_faults_apply_in_order() -> None:
    """slice then limit_data delivers the same bytes as limit_data then slice."""
    a = run([fault.slice(7), fault.limit_data(100)], seed_plan())
    b = run([fault.limit_data(100), fault.slice(7)], seed_plan())
    assert client_view(wire_bytes(a)).body == client_view(wire_bytes(b)).body == SEED_BODY[:100]
    assert end_of(a) == end_of(b) == "close"


def test_the_first_cut_wins() -> None:
    """Two limits: the smaller one decides what arrives; the reset cannot trigger later."""
    steps = run([fault.limit_data(50), fault.reset_after_bytes(80)], seed_plan())
    assert client_view(wire_bytes(steps)).body == SEED_BODY[:50]
    assert end_of(steps) == "close"


def test_latency_and_throttle_together() -> None:
    """Latency waits before the head, throttle paces the body after it."""
    steps = run([fault.latency(1), fault.throttle(1000)], body_plan(b"x" * 40))
    assert pauses(steps) == pytest.approx([1.0, 0.02])


# -- arguments -------------------------------------------------------------------------------

BAD: list[tuple[Callable[[], Any], str]] = [
    (lambda: fault.limit_data(-1), "n=-1 must be a non-negative int"),
    (lambda: fault.limit_data(1.5), "n=1.5 must be an int"),  # type: ignore[arg-type]
    (lambda: fault.limit_data(True), "n=True must be an int"),
    (lambda: fault.limit_data(1, count="bytes"), "count='bytes' must be 'body' or 'wire'"),  # type: ignore[arg-type]
    (lambda: fault.reset_after_bytes(-3), "n=-3 must be a non-negative int"),
    (lambda: fault.close_after_events(-1), "k=-1 must be a non-negative int"),
    (lambda: fault.reset_after_events("2"), "k='2' must be an int"),  # type: ignore[arg-type]
    (lambda: fault.latency(-1), "seconds=-1 must be a finite, non-negative duration"),
    (lambda: fault.latency("soon"), "seconds='soon' is not a duration"),
    (lambda: fault.first_byte_delay(None), "seconds=None must be a duration"),  # type: ignore[arg-type]
    (lambda: fault.stall(after_bytes=1, after_events=1), "were both given"),
    (lambda: fault.stall(after_bytes=-1), "after_bytes=-1 must be a non-negative int"),
    (lambda: fault.stall(after_events=0.5), "after_events=0.5 must be an int"),  # type: ignore[arg-type]
    (lambda: fault.throttle(0), "bytes_per_second=0 must be a finite number above 0"),
    (lambda: fault.throttle(float("inf")), "bytes_per_second=inf must be a finite number"),
    (lambda: fault.throttle("fast"), "bytes_per_second='fast' must be a number"),  # type: ignore[arg-type]
    (lambda: fault.slice(0), "size=0 must be at least 1"),
    (lambda: fault.slice(-2), "size=-2 must be a non-negative int"),
    (lambda: fault.slice(1, delay=-1), "delay=-1 must be a finite, non-negative duration"),
    (lambda: fault.garbage(-1), "n=-1 must be a non-negative int"),
    (lambda: fault.garbage(1, seed="x"), "seed='x' must be an int"),  # type: ignore[arg-type]
    (lambda: fault.truncate_event(-1), "k=-1 must be a non-negative int"),
    (lambda: fault.truncate_event(0, at=0.5), "at=0.5 must be an int"),  # type: ignore[arg-type]
    (lambda: fault.sometimes(1.5, fault.reset()), "p=1.5 must be a probability from 0 to 1"),
    (lambda: fault.sometimes(-0.1, fault.reset()), "p=-0.1 must be a probability"),
    (lambda: fault.sometimes(float("nan"), fault.reset()), "p=nan must be a probability"),
    (lambda: fault.sometimes("half", fault.reset()), "p='half' must be a probability"),  # type: ignore[arg-type]
    (lambda: fault.sometimes(0.5, "reset"), "fault='reset' must be a fault"),  # type: ignore[arg-type]
    (lambda: fault.sometimes(0.5, fault.reset(), seed=None), "seed=None must be an int"),  # type: ignore[arg-type]
    (lambda: fault.first(-1, fault.reset()), "n=-1 must be a non-negative int"),
    (lambda: fault.first(1, 42), "fault=42 must be a fault"),  # type: ignore[arg-type]
]


@pytest.mark.parametrize(("make", "message"), BAD, ids=[m for _, m in BAD])
def test_bad_arguments_raise_config_error_at_construction(
    make: Callable[[], Any], message: str
) -> None:
    """Each bad argument is refused when the fault is built, naming the argument."""
    with pytest.raises(ConfigError, match=None) as caught:
        make()
    assert message in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_faults_are_frozen() -> None:
    """A fault cannot be changed after it is built."""
    f = fault.limit_data(1)
    with pytest.raises(AttributeError):
        f.n = 2  # type: ignore[misc]


# -- plan hygiene ----------------------------------------------------------------------------

EVERY_FAULT = [
    fault.limit_data(3),
    fault.limit_data(30),
    fault.limit_data(3, count="wire"),
    fault.reset_after_bytes(30),
    fault.close_after_events(1),
    fault.close_after_events(5),
    fault.reset_after_events(1),
    fault.empty_response(),
    fault.reset(),
    fault.stall(),
    fault.stall(after_bytes=30),
    fault.stall(after_events=5),
    fault.latency(1),
    fault.first_byte_delay(1),
    fault.throttle(10),
    fault.slice(2, delay=0.1),
    fault.garbage(4),
    fault.malformed_chunk(),
    fault.truncate_event(0),
    fault.truncate_event(5),
    fault.sometimes(1, fault.limit_data(3)),
    fault.first(1, fault.garbage(3)),
]


@pytest.mark.parametrize("f", EVERY_FAULT, ids=repr)
def test_no_fault_passes_anything_after_the_end(f: fault.Fault) -> None:
    """A hook that rewrites a plan stops at its first End, even if a broken plan goes on
    (a hook that does not apply hands the plan back as it is)."""
    ctx = FaultContext()
    body_in = iter([*stream_plan(b"data: a\n\n", b"data: b\n\n"), Data(b"junk", 7), End("close")])
    wire_in = iter([*run([], stream_plan(b"data: a\n\n")), Raw(b"junk"), End("close")])
    for hook, steps, junk in ((f.body, body_in, Data(b"junk", 7)), (f.wire, wire_in, Raw(b"junk"))):
        out = hook(steps, ctx)
        if out is steps:
            continue
        listed = list(out)
        assert junk not in listed
        assert [type(s) for s in listed].count(End) == 1
        assert isinstance(listed[-1], End)


def test_limit_data_on_the_wire_counts_content_length_body_bytes() -> None:
    """Cut on the wire inside a sized body, the body count is the bytes of it sent."""
    head = (
        len(wire_bytes(run([], body_plan(b""))))
        + len("content-length: 12\r\n")
        - len("content-length: 0\r\n")
    )
    steps = run([fault.limit_data(head + 4, count="wire")], body_plan(b"hello, world"))
    assert [(s.data, s.body) for s in steps if isinstance(s, Raw)][-1] == (b"hell", 4)


def test_wire_faults_after_an_empty_response_send_nothing() -> None:
    """Garbage and malformed chunks need a head; with none, the connection just closes."""
    for f in (fault.garbage(5), fault.malformed_chunk()):
        assert run([fault.empty_response(), f], seed_plan()) == [End("close")]


def test_end_after_events_ends_the_body_well_formed() -> None:
    """end_after_events(2): two whole events, then a complete end (chunked: the last
    chunk), so the client reads a short stream and no error."""
    steps = run([fault.end_after_events(2)], stream_plan(*EVENTS, delay=0.1))
    seen = client_view(wire_bytes(steps))
    assert seen.body == EVENTS[0] + EVENTS[1]
    assert not seen.result.startswith("error")
    assert end_of(steps) == "complete"
    assert wire_bytes(steps).endswith(b"0\r\n\r\n")  # the last chunk
    assert fault.from_args(["end_after_events", 2]) == fault.end_after_events(2)
