"""The server's loop choice, its timers' ticker and its worker thread (_server/_loop.py),
pure: loops made and closed here, no socket.  Serving on each loop is
``test_loops.py``'s."""

from __future__ import annotations

import asyncio
import concurrent.futures
import gc
import sys
import threading
import time
import weakref
from typing import Any

import pytest

from mockhttp._core._errors import ConfigError
from mockhttp._core._reply import Reply, ok
from mockhttp._core._request import Request
from mockhttp._server._loop import (
    GRAIN,
    LOOPS,
    Ticker,
    Worker,
    clock_of,
    loop_factory,
    loop_name,
    ticker_of,
    timing_of,
)

WAIT = 30.0  # seconds: the longest any wait here may take (a loaded machine)


# -- the loop ----------------------------------------------------------------------------------


def test_asyncio_is_asyncios_own_loop() -> None:
    assert loop_factory("asyncio") is asyncio.new_event_loop


def test_a_factory_is_taken_as_it_is() -> None:
    def mine() -> asyncio.AbstractEventLoop:
        return asyncio.new_event_loop()

    assert loop_factory(mine) is mine


def test_auto_and_uvloop_make_uvloops_loop_when_it_is_installed() -> None:
    uvloop = pytest.importorskip("uvloop")
    assert loop_factory("auto") is uvloop.new_event_loop
    assert loop_factory("uvloop") is uvloop.new_event_loop


def test_without_uvloop_auto_falls_back_and_uvloop_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "uvloop", None)  # an import of it fails
    assert loop_factory("auto") is asyncio.new_event_loop
    with pytest.raises(ConfigError, match=r"^loop='uvloop' needs uvloop: pip install"):
        loop_factory("uvloop")


@pytest.mark.parametrize("choice", ["Asyncio", "", "trio", None, 3])
def test_other_choices_are_refused_naming_the_choices(choice: Any) -> None:
    with pytest.raises(ConfigError) as refused:
        loop_factory(choice)
    assert str(refused.value) == (
        f"loop={choice!r} must be one of {', '.join(LOOPS)} or a loop factory"
    )


def test_loop_names_and_clocks() -> None:
    loop = asyncio.new_event_loop()
    try:
        assert loop_name(loop) == "asyncio"
        assert clock_of(loop) == loop.time
    finally:
        loop.close()
    uvloop = pytest.importorskip("uvloop")
    fast = uvloop.new_event_loop()
    try:
        assert loop_name(fast) == "uvloop"
        assert clock_of(fast) is time.monotonic
    finally:
        fast.close()


# -- the ticker --------------------------------------------------------------------------------


class Timed:
    def __init__(self, name: str, log: list[str], fail: bool = False) -> None:
        self.name, self.log, self.fail = name, log, fail

    def tick(self) -> None:
        self.log.append(self.name)
        if self.fail:
            raise RuntimeError(f"{self.name} failed")


def _on(loop: asyncio.AbstractEventLoop, run: Any) -> Any:
    try:
        return loop.run_until_complete(asyncio.wait_for(run(), WAIT))
    finally:
        loop.close()


def test_deadlines_of_one_millisecond_share_one_loop_timer_and_tick_in_order() -> None:
    log: list[str] = []
    ticker = Ticker()
    loop = asyncio.new_event_loop()

    async def run() -> None:
        base = (int(loop.time() * GRAIN) + 20) / GRAIN  # a millisecond to come
        kept = [Timed(n, log) for n in "abc"]
        for i, timed in enumerate(kept):
            ticker.at(loop, base + 0.0002 * (i + 1), timed)
        assert list(ticker.due) == [int(base * GRAIN) + 1]
        last = Timed("last", log)
        ticker.at(loop, base + 0.0105, last)
        assert len(ticker.due) == 2
        done = loop.create_future()
        signal = Signal(done)  # (held: the ticker holds it weakly)
        ticker.at(loop, base + 0.011, signal)
        await done
        assert ticker.due == {}

    _on(loop, run)
    assert log == ["a", "b", "c", "last"]


class Signal:
    def __init__(self, done: asyncio.Future[None]) -> None:
        self.done = done

    def tick(self) -> None:
        self.done.set_result(None)


def test_a_timed_nothing_keeps_is_not_ticked() -> None:
    log: list[str] = []
    ticker = Ticker()
    loop = asyncio.new_event_loop()

    async def run() -> None:
        when = loop.time() + 0.005
        ticker.at(loop, when, Timed("dropped", log))  # no one holds it
        gc.collect()
        done = loop.create_future()
        signal = Signal(done)
        ticker.at(loop, when, signal)  # same millisecond: same loop timer
        await done

    _on(loop, run)
    assert log == []


def test_a_tick_that_raises_goes_to_the_loops_handler_and_the_rest_tick() -> None:
    log: list[str] = []
    seen: list[dict[str, Any]] = []
    ticker = Ticker()
    loop = asyncio.new_event_loop()
    loop.set_exception_handler(lambda _loop, context: seen.append(context))

    async def run() -> None:
        when = loop.time() + 0.005
        bad, good = Timed("bad", log, fail=True), Timed("good", log)
        done = loop.create_future()
        signal = Signal(done)
        for timed in (bad, good, signal):
            ticker.at(loop, when, timed)
        await done

    _on(loop, run)
    assert log == ["bad", "good"]
    (context,) = seen
    assert context["message"].startswith("Exception in <")
    assert context["message"].endswith(".tick()")
    assert str(context["exception"]) == "bad failed"


def test_a_tick_is_never_before_its_deadline() -> None:
    ticker = Ticker()
    loop = asyncio.new_event_loop()
    times: list[tuple[float, float]] = []

    class Stamp:
        def __init__(self, when: float, done: asyncio.Future[None] | None) -> None:
            self.when, self.done = when, done

        def tick(self) -> None:
            times.append((self.when, loop.time()))
            if self.done is not None:
                self.done.set_result(None)

    async def run() -> None:
        start = loop.time()
        stamps = [Stamp(start + i * 0.0007, None) for i in range(1, 15)]
        done = loop.create_future()
        stamps.append(Stamp(start + 0.012, done))
        for stamp in stamps:
            ticker.at(loop, stamp.when, stamp)
        await done

    _on(loop, run)
    assert len(times) == 15
    for when, at in times:
        assert at >= when - 1e-9  # late is a busy machine's; early never


def test_each_loop_has_its_ticker_and_timing_of_remembers_the_last() -> None:
    one, two = asyncio.new_event_loop(), asyncio.new_event_loop()
    try:
        assert ticker_of(one) is ticker_of(one)
        assert ticker_of(one) is not ticker_of(two)
        clock, ticker = timing_of(one)
        assert (clock, ticker) == (one.time, ticker_of(one))
        assert timing_of(one)[1] is ticker
        assert timing_of(two)[1] is ticker_of(two)
        assert timing_of(one)[1] is ticker  # asked again after another: the same
    finally:
        one.close()
        two.close()


def test_a_closed_loops_ticker_is_let_go() -> None:
    """The tickers are held by their loops weakly; ``timing_of`` keeps the last loop asked
    about (its clock) until it is asked about another."""
    loop, other = asyncio.new_event_loop(), asyncio.new_event_loop()
    timing_of(loop)
    loop.close()
    gone = weakref.ref(loop)
    del loop
    gc.collect()
    assert gone() is not None  # the last asked about
    timing_of(other)
    gc.collect()
    assert gone() is None
    other.close()


# -- the worker thread -------------------------------------------------------------------------


def _request(n: int) -> Request:
    return Request("GET", f"/{n}")


def test_the_worker_runs_jobs_in_order_on_its_thread() -> None:
    worker = Worker("test-worker")
    seen: list[tuple[str, str]] = []

    def work(request: Request) -> Reply:
        seen.append((request.path, threading.current_thread().name))
        return ok().body(request.path)

    futures = [worker.submit(work, _request(n)) for n in range(5)]
    replies = [f.result(WAIT) for f in futures]
    worker.stop()
    assert [r.content for r in replies] == [f"/{n}".encode() for n in range(5)]
    assert seen == [(f"/{n}", "test-worker") for n in range(5)]


def test_a_job_that_raises_fails_its_future_and_the_next_runs() -> None:
    worker = Worker("test-worker")

    def boom(request: Request) -> Reply:
        raise KeyboardInterrupt("even this")  # a BaseException too

    failed = worker.submit(boom, _request(1))
    fine = worker.submit(lambda r: ok(), _request(2))
    with pytest.raises(KeyboardInterrupt, match="even this"):
        failed.result(WAIT)
    assert fine.result(WAIT).status_code == 200
    worker.stop()


def test_a_cancelled_job_is_skipped() -> None:
    worker = Worker("test-worker")
    gate = threading.Event()
    ran: list[str] = []

    def held(request: Request) -> Reply:
        gate.wait(WAIT)
        ran.append(request.path)
        return ok()

    first = worker.submit(held, _request(1))
    second = worker.submit(held, _request(2))
    assert second.cancel()  # still queued behind the first
    gate.set()
    first.result(WAIT)
    third = worker.submit(held, _request(3))
    third.result(WAIT)
    worker.stop()
    assert ran == ["/1", "/3"]
    with pytest.raises(concurrent.futures.CancelledError):
        second.result(0)


def test_stop_ends_the_thread_after_the_jobs_before_it() -> None:
    before = {t.ident for t in threading.enumerate()}
    worker = Worker("test-worker-stop")
    (thread,) = [
        t for t in threading.enumerate() if t.ident not in before and t.name == "test-worker-stop"
    ]
    assert thread.daemon
    job = worker.submit(lambda r: ok(), _request(1))
    worker.stop()
    thread.join(WAIT)
    assert not thread.is_alive()
    assert job.result(0).status_code == 200
