"""The plan executor: the bytes it writes for a plan, byte for byte, and the call's record.

Plans are started on a real ``Connection`` whose transport records every write (no
socket); ``Whole`` (one write) and ``Steps`` (a ``Runner``) must send the same bytes and
record the same counters.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import mockhttp
from mockhttp import Event, fault
from mockhttp._core._plan import FaultContext, Step
from mockhttp._core._request import Request
from mockhttp._core._wire import frame
from mockhttp._server._connection import Connection
from mockhttp._server._journal import Call
from mockhttp._server._runner import Paced, Plan, Steps, Whole
from tests.server.test_connection import Recorder

JSON = mockhttp.ok().json({"ok": True})
JSON_BYTES = (
    b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\ncontent-length: 11\r\n\r\n{"ok":true}'
)
STREAM = mockhttp.ok().event_stream(Event(data="a"), Event(data="bb"), Event(data="c"))
STREAM_HEAD = (
    b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
    b"transfer-encoding: chunked\r\n\r\n"
)


def started(plan: Plan, keep_alive: bool = True) -> tuple[Call, Recorder]:
    """Start ``plan`` on a new connection; run the loop until the reply has ended."""
    transport = Recorder()
    call = Call(Request("GET", "/r"), None, 200)

    async def run() -> None:
        conn = Connection(mockhttp.Server())
        conn.connection_made(transport)
        plan.start(conn, call, keep_alive)
        for _ in range(100):
            if call.outcome != "in progress":
                return
            await asyncio.sleep(0.005)

    asyncio.run(run())
    return call, transport


def faulted(reply: mockhttp.Reply, f: fault.Fault) -> Iterator[Step]:
    ctx = FaultContext(call_index=0)
    return f.wire(frame(f.body(iter(reply.plan()), ctx)), ctx)


def test_a_fixed_reply_is_written_whole_in_one_write() -> None:
    whole = Whole(tuple(frame(JSON.plan())))
    call, transport = started(whole)
    assert transport.writes == [JSON_BYTES]
    assert (call.outcome, call.status, call.wire_bytes) == ("complete", 200, len(JSON_BYTES))
    assert (call.body_bytes, bytes(call.body_sent)) == (11, b'{"ok":true}')
    assert not transport.closed


def test_a_runner_sends_the_same_bytes_and_records_the_same_counters() -> None:
    whole, whole_transport = started(Whole(tuple(frame(JSON.plan()))))
    steps, steps_transport = started(Steps(frame(JSON.plan())))
    assert steps_transport.sent == whole_transport.sent == JSON_BYTES
    for name in ("status", "outcome", "wire_bytes", "body_bytes", "body_sent", "events"):
        assert getattr(steps, name) == getattr(whole, name), name


def test_a_stream_is_chunked_event_by_event() -> None:
    call, transport = started(Steps(frame(STREAM.plan())))
    assert transport.sent == (
        STREAM_HEAD + b"9\r\ndata: a\n\n\r\na\r\ndata: bb\n\n\r\n9\r\ndata: c\n\n\r\n0\r\n\r\n"
    )
    assert (call.outcome, call.events, call.body_bytes) == ("complete", 3, 28)
    assert bytes(call.body_sent) == b"data: a\n\ndata: bb\n\ndata: c\n\n"


def test_a_stream_with_a_fault_is_cut_after_its_events_and_closed() -> None:
    call, transport = started(Steps(faulted(STREAM, fault.close_after_events(2))))
    assert transport.sent == STREAM_HEAD + b"9\r\ndata: a\n\n\r\na\r\ndata: bb\n\n\r\n"
    assert transport.closed
    assert (call.outcome, call.events, call.body_bytes) == ("closed", 2, 19)
    assert call.wire_bytes == len(transport.sent)


def test_a_reset_fault_aborts_after_the_bytes_left() -> None:
    call, transport = started(Steps(faulted(STREAM, fault.reset_after_events(1))))
    assert transport.sent == STREAM_HEAD + b"9\r\ndata: a\n\n\r\n"
    assert transport.closed
    assert call.outcome == "reset"


def test_whole_fits_only_short_pause_free_plans_that_complete() -> None:
    assert Whole.fits(tuple(frame(JSON.plan())))
    assert not Whole.fits(tuple(frame(JSON.delay(0.1).plan())))
    assert not Whole.fits(tuple(faulted(JSON, fault.reset())))


PACED = [
    mockhttp.ok().event_stream(
        Event(data="a"), Event(data="bb"), Event(data="c"), event_delay=0.01
    ),
    mockhttp.ok().delay(0.01).event_stream(Event(data="a"), Event(data="b"), event_delay=0.002),
    mockhttp.ok().json({"ok": True}).delay(0.01),  # a pause before the head, no events
    mockhttp.ok().event_stream(Event(data="a"), Event(data="b"), event_delay=0.001),
]


def test_a_paced_plan_sends_the_same_writes_and_records_the_same_counters() -> None:
    for reply in PACED:
        steps = tuple(frame(reply.plan()))
        assert Paced.fits(steps), reply
        paced, paced_transport = started(Paced(steps))
        run, run_transport = started(Steps(iter(steps)))
        assert paced_transport.sent == run_transport.sent  # (how many writes: the load's)
        for name in ("status", "outcome", "wire_bytes", "body_bytes", "body_sent", "events"):
            assert getattr(paced, name) == getattr(run, name), name
        assert paced.outcome == "complete"


def test_a_paced_plan_keeps_a_stall_and_a_close() -> None:
    for cut, outcome in (
        (fault.stall(after_events=1), "stalled"),
        (fault.close_after_events(2), "closed"),
    ):
        steps = tuple(faulted(PACED[0], cut))
        assert Paced.fits(steps)
        paced, transport = started(Paced(steps))
        run, run_transport = started(Steps(iter(steps)))
        assert transport.sent == run_transport.sent
        assert (paced.outcome, paced.events) == (run.outcome, run.events)
        assert paced.outcome == outcome


def test_paced_fits_only_plans_with_pauses_and_short_bursts() -> None:
    assert not Paced.fits(tuple(frame(JSON.plan())))  # no pause: a Whole
    assert not Paced.fits(tuple(frame(mockhttp.ok().body(b"x" * 70_000).delay(0.1).plan())))
    assert not Paced.fits(tuple(faulted(STREAM, fault.reset())))
