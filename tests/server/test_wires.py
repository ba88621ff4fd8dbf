"""Framing an answer (_server/_wires.py), pure: the framing of a request, and the cache
of fixed replies' wire plans (what is kept, for which framing, what never is), read as
the bytes the plans would write."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterator

import pytest

from mockhttp import fault
from mockhttp._core._plan import End, FaultContext, Pause, Raw, Step
from mockhttp._core._reply import ok, status
from mockhttp._core._request import Headers, Request
from mockhttp._core._sse import Event
from mockhttp._server._runner import Paced, Steps, Whole
from mockhttp._server._upgrade import Switch, switching
from mockhttp._server._wires import (
    CACHE_SIZE,
    CACHE_STEPS,
    Framing,
    WireCache,
    framing_of,
)

KEEP = Framing(head_only=False, http10=False, keep_alive=True)


def request(method: str = "GET", version: str = "1.1") -> Request:
    return Request(method, "/", Headers(()), b"", http_version=version)


def wire(plan: object) -> bytes:
    """The bytes a plan writes (its Raw steps)."""
    if isinstance(plan, Whole):
        return plan.data
    steps: Iterator[Step] = plan.steps if isinstance(plan, Steps) else iter(plan.steps)  # type: ignore[attr-defined]
    return b"".join(s.data for s in steps if isinstance(s, Raw))


# -- the framing of a request ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "version", "keep_alive", "framing"),
    [
        ("GET", "1.1", True, Framing(False, False, True)),
        ("HEAD", "1.1", True, Framing(True, False, True)),
        ("GET", "1.0", False, Framing(False, True, False)),
        ("POST", "2", True, Framing(False, True, True)),  # HTTP/2 frames a body as 1.0 does
        ("head", "1.1", True, Framing(False, False, True)),  # methods are case-sensitive
    ],
)
def test_the_framing_of_a_request(
    method: str, version: str, keep_alive: bool, framing: Framing
) -> None:
    assert framing_of(request(method, version), keep_alive) == framing


def test_a_head_request_gets_the_head_alone() -> None:
    reply = ok().body("hello")
    got = wire(Steps(Framing(True, False, True).frame(reply.plan())))
    assert got.startswith(b"HTTP/1.1 200 OK\r\n")
    assert b"content-length: 5\r\n" in got.lower()
    assert got.endswith(b"\r\n\r\n")


def test_a_stream_is_chunked_on_http_1_1_and_as_it_is_on_1_0() -> None:
    reply = ok().event_stream(Event(data="x"))
    chunked = wire(Steps(KEEP.frame(reply.plan())))
    plain = wire(Steps(Framing(False, True, False).frame(reply.plan())))
    assert b"transfer-encoding: chunked" in chunked.lower()
    assert chunked.endswith(b"9\r\ndata: x\n\n\r\n0\r\n\r\n")
    assert b"transfer-encoding" not in plain.lower()
    assert plain.endswith(b"\r\n\r\ndata: x\n\n")


def test_cors_headers_go_on_every_head() -> None:
    framing = Framing(False, False, True, cors=(("Access-Control-Allow-Origin", "*"),))
    assert b"Access-Control-Allow-Origin: *\r\n" in wire(Steps(framing.frame(ok().plan())))


# -- the cache -----------------------------------------------------------------------------------


def test_a_short_fixed_reply_is_framed_once_as_a_whole() -> None:
    cache = WireCache()
    reply = ok().json({"a": 1})
    first = cache.plan(reply, (), 0, True, KEEP)
    assert isinstance(first, Whole)
    assert first.data.endswith(b'\r\n\r\n{"a":1}')
    assert cache.plan(reply, (), 7, True, KEEP) is first  # replayed, whatever the call
    assert cache.ids() == {id(reply)}


def test_each_framing_has_its_own_plan() -> None:
    cache = WireCache()
    reply = ok().body("hi")
    full = cache.plan(reply, (), 0, True, KEEP)
    head = cache.plan(reply, (), 0, True, Framing(True, False, True))
    closing = cache.plan(reply, (), 0, True, Framing(False, False, False))
    assert isinstance(full, Whole)
    assert isinstance(head, Whole)
    assert isinstance(closing, Whole)
    assert full.data.endswith(b"\r\n\r\nhi")
    assert head.data.endswith(b"\r\n\r\n")
    assert b"connection: close" in closing.data.lower()
    assert b"connection: close" not in full.data.lower()
    assert cache.plan(reply, (), 0, True, Framing(True, False, True)) is head


def test_a_stream_with_pauses_is_kept_paced() -> None:
    cache = WireCache()
    reply = ok().event_stream(Event(data="a"), Event(data="b"), event_delay=0.01)
    plan = cache.plan(reply, (), 0, True, KEEP)
    assert isinstance(plan, Paced)
    assert cache.plan(reply, (), 1, True, KEEP) is plan
    assert Pause(0.01) in plan.steps
    assert plan.steps[-1] == End("complete")


def test_a_long_fixed_plan_is_kept_as_steps_replayed_each_time() -> None:
    cache = WireCache()
    events = [Event(data=str(i)) for i in range(CACHE_STEPS // 2)]
    reply = ok().event_stream(*events, event_delay=0.001)  # pause, data, pause, data...
    expected = wire(Steps(KEEP.frame(reply.plan())))
    first = cache.plan(reply, (), 0, True, KEEP)
    assert isinstance(first, Steps)  # over a burst of steps: not Paced
    second = cache.plan(reply, (), 0, True, KEEP)
    assert isinstance(second, Steps)
    assert first is not second  # a fresh iterator over the steps kept
    assert wire(first) == wire(second) == expected


def test_a_plan_too_long_to_keep_is_framed_per_request() -> None:
    cache = WireCache()
    events = [Event(data=str(i)) for i in range(CACHE_STEPS + 10)]
    reply = ok().event_stream(*events, event_delay=0.001)
    expected = wire(Steps(KEEP.frame(reply.plan())))
    for _ in range(2):
        plan = cache.plan(reply, (), 0, True, KEEP)
        assert isinstance(plan, Steps)
        assert wire(plan) == expected  # whole, not cut at the cache's step limit
    assert cache._plans[id(reply)][1] == {KEEP: None}


def test_an_endless_stream_is_never_read_ahead() -> None:
    cache = WireCache()
    reply = ok().event_stream(Event(comment="ping"), event_delay=1, repeat=True)
    plan = cache.plan(reply, (), 0, True, KEEP)
    assert isinstance(plan, Steps)
    first = list(itertools.islice(plan.steps, 20))
    assert len(first) == 20
    assert cache._plans[id(reply)][1] == {KEEP: None}


def test_a_handlers_reply_is_framed_for_its_request_and_not_kept() -> None:
    cache = WireCache()
    reply = ok().body("made for you")
    plan = cache.plan(reply, (), 0, False, KEEP)
    assert isinstance(plan, Steps)
    assert wire(plan).endswith(b"made for you")
    assert cache.ids() == set()


def test_drop_forgets_a_replys_plans() -> None:
    cache = WireCache()
    reply = ok()
    cache.plan(reply, (), 0, True, KEEP)
    cache.drop(id(reply))
    cache.drop(id(reply))  # not there: nothing to do
    assert cache.ids() == set()


def test_a_full_cache_starts_over() -> None:
    cache = WireCache()
    replies = [ok().body(str(i)) for i in range(CACHE_SIZE + 1)]
    for reply in replies[:CACHE_SIZE]:
        cache.plan(reply, (), 0, True, KEEP)
    assert len(cache.ids()) == CACHE_SIZE
    cache.plan(replies[-1], (), 0, True, KEEP)
    assert cache.ids() == {id(replies[-1])}


def test_a_reply_that_took_a_gone_replys_id_gets_its_own_plan() -> None:
    cache = WireCache()
    mine = ok().body("mine")
    other = ok().body("other")
    cache._plans[id(mine)] = (other, {KEEP: cache.plan(other, (), 0, True, KEEP)})  # type: ignore[dict-item]
    plan = cache.plan(mine, (), 0, True, KEEP)
    assert wire(plan).endswith(b"mine")
    assert cache._plans[id(mine)][0] is mine


# -- faults ------------------------------------------------------------------------------------


class Recording:
    """A fault that passes every step and notes what it saw, and when."""

    def __init__(self, name: str, log: list[str]) -> None:
        self.name, self.log = name, log

    def body(self, steps: Iterator[Step], ctx: FaultContext) -> Iterator[Step]:
        for step in steps:
            self.log.append(f"{self.name}.body:{type(step).__name__}:{ctx.call_index}")
            yield step

    def wire(self, steps: Iterator[Step], ctx: FaultContext) -> Iterator[Step]:
        for step in steps:
            self.log.append(f"{self.name}.wire:{type(step).__name__}")
            yield step


def test_faults_apply_around_the_framing_with_the_call_index() -> None:
    log: list[str] = []
    cache = WireCache()
    reply = ok().body("x")
    plan = cache.plan(reply, (Recording("a", log), Recording("b", log)), 3, True, KEEP)
    assert isinstance(plan, Steps)
    assert wire(plan).endswith(b"\r\n\r\nx")
    assert cache.ids() == set()  # a faulted plan is never kept
    assert log[:2] == ["a.body:Head:3", "b.body:Head:3"]
    assert [e for e in log if ".wire:" in e][:2] == ["a.wire:Raw", "b.wire:Raw"]


def test_a_real_fault_cuts_the_framed_stream() -> None:
    reply = ok().event_stream(*(Event(data=str(i)) for i in range(5)))
    plan = WireCache().plan(reply, (fault.close_after_events(2),), 0, True, KEEP)
    steps = list(plan.steps)  # type: ignore[union-attr]
    assert steps[-1] == End("close")
    body = b"".join(s.data for s in steps if isinstance(s, Raw))
    assert b"data: 1\n\n" in body
    assert b"data: 2" not in body


# -- switching protocols -----------------------------------------------------------------------


def test_a_switching_reply_plans_the_switch_with_its_refusal_framed() -> None:
    reply = switching(asyncio.Protocol, "websocket")
    plan = WireCache().plan(reply, (), 0, True, KEEP)
    assert isinstance(plan, Switch)
    assert plan.head.startswith(b"HTTP/1.1 101 Switching Protocols\r\n")
    assert plan.refused == 426
    refusal = wire(plan.otherwise)
    assert refusal.startswith(b"HTTP/1.1 426 ")
    assert refusal.endswith(b"this endpoint speaks websocket only: send an upgrade request\n")


def test_a_plain_reply_of_status_101_is_no_switch() -> None:
    plan = WireCache().plan(status(101), (), 0, True, KEEP)
    assert not isinstance(plan, Switch)
