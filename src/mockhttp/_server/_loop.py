"""The server's event loop: which one (asyncio's or uvloop), and a worker thread beside it.

Rule 1: nothing here touches a socket; the server's thread runs the loop made here.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import math
import queue
import threading
import time
import weakref
from collections.abc import Callable
from typing import Protocol

from .._core._errors import ConfigError
from .._core._reply import Reply
from .._core._request import Request

__all__ = [
    "GRAIN",
    "LOOPS",
    "LoopChoice",
    "Ticker",
    "Timed",
    "Worker",
    "clock_of",
    "loop_factory",
    "loop_name",
    "ticker_of",
    "timing_of",
]

LoopChoice = str | Callable[[], asyncio.AbstractEventLoop]
LOOPS = ("auto", "asyncio", "uvloop")
# What "auto" picks: uvloop when it is installed (``mockhttp[fast]``), measured no slower
# than asyncio's loop for this server on any of issue 22's loads and faster on most
# (docs/performance.md, "Which loop"); asyncio's loop otherwise.


def loop_factory(choice: LoopChoice) -> Callable[[], asyncio.AbstractEventLoop]:
    """The function that makes the server's loop for ``choice`` (see ``Server(loop=...)``).

    Raises:
        ConfigError: an unknown name, or ``"uvloop"`` when uvloop is not installed.
    """
    if callable(choice):
        return choice
    if choice not in LOOPS:
        raise ConfigError(f"loop={choice!r} must be one of {', '.join(LOOPS)} or a loop factory")
    if choice == "asyncio":
        return asyncio.new_event_loop
    try:
        import uvloop
    except ImportError:
        if choice == "auto":  # the fast extra is not installed: asyncio's own loop
            return asyncio.new_event_loop
        raise ConfigError(
            "loop='uvloop' needs uvloop: pip install 'mockhttp[fast]' (or uvloop)"
        ) from None
    new_loop: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return new_loop


def loop_name(loop: asyncio.AbstractEventLoop) -> str:
    """``uvloop`` or ``asyncio`` (or the loop's class) for messages and the log."""
    module = type(loop).__module__.split(".")[0]
    return "asyncio" if module == "asyncio" else module


def clock_of(loop: asyncio.AbstractEventLoop) -> Callable[[], float]:
    """The clock a reply's deadlines are checked against on ``loop``: ``loop.time``, but
    ``time.monotonic`` on uvloop (the same clock, read now).

    uvloop's ``loop.time()`` is libuv's time of the start of the loop's turn, in whole
    milliseconds: late in a long turn it lags, so a stream behind its schedule saw its next
    event as still to come and set a timer for it (one timer and one write per event, and
    a turn that grows the more it is behind), where asyncio's clock shows the event due and
    the stream sends what is due in one write.
    """
    if loop_name(loop) == "uvloop":
        return time.monotonic
    return loop.time


GRAIN = 1000  # ticks a second: timers in the same millisecond share one loop timer


class Timed(Protocol):
    """What a ``Ticker`` runs: ``tick()`` at the deadline it was given for."""

    def tick(self) -> None: ...


class Ticker:
    """The timers of one loop's replies, grouped by the millisecond they fall in: one
    loop timer (``call_at`` at the end of that millisecond) ticks every ``Timed`` due in it.

    Thousands of streams 20 ms apart have thousands of deadlines in flight; as loop
    timers, each costs a handle and a heap push and pop among all the others (on asyncio,
    in Python).  Grouped, the loop's heap holds one timer per millisecond, and a deadline
    costs a dict look-up and a list append.  A ``Timed`` ticks at most one millisecond
    after its deadline, never before it.  The ticker holds them weakly: one nothing else
    keeps (its connection went away) is not ticked, and a closed loop's ticker keeps
    nothing of it alive.
    """

    __slots__ = ("due",)  # not the loop: the ticker is its value in a weak map

    def __init__(self) -> None:
        self.due: dict[int, list[weakref.ref[Timed]]] = {}

    def at(self, loop: asyncio.AbstractEventLoop, when: float, timed: Timed) -> None:
        """Tick ``timed`` once on ``loop`` (this ticker's), at the end of the millisecond
        ``when`` falls in."""
        tick = math.ceil(when * GRAIN)
        due = self.due.get(tick)
        if due is None:
            self.due[tick] = [weakref.ref(timed)]
            loop.call_at(tick / GRAIN, self._fire, tick)
        else:
            due.append(weakref.ref(timed))

    def _fire(self, tick: int) -> None:
        for ref in self.due.pop(tick):
            timed = ref()
            if timed is None:
                continue
            try:
                timed.tick()
            except Exception as exc:  # as the loop does for a timer's callback
                asyncio.get_running_loop().call_exception_handler(
                    {"message": f"Exception in {timed!r}.tick()", "exception": exc}
                )


_TICKERS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Ticker] = weakref.WeakKeyDictionary()


def ticker_of(loop: asyncio.AbstractEventLoop) -> Ticker:
    """The ``Ticker`` of ``loop`` (made on first use)."""
    ticker = _TICKERS.get(loop)
    if ticker is None:
        ticker = _TICKERS[loop] = Ticker()
    return ticker


def _nobody() -> None:
    return None


# the last loop asked about, its clock and its ticker: every reply asks (a weak map's
# look-up is Python code), and a process runs one server loop, or few
_last: tuple[Callable[[], object], Callable[[], float], Ticker] = (
    _nobody,
    time.monotonic,
    Ticker(),
)


def timing_of(loop: asyncio.AbstractEventLoop) -> tuple[Callable[[], float], Ticker]:
    """``clock_of(loop)`` and ``ticker_of(loop)``, looked up once per loop in a row."""
    global _last
    ref, clock, ticker = _last
    if ref() is not loop:
        clock, ticker = clock_of(loop), ticker_of(loop)
        _last = (weakref.ref(loop), clock, ticker)
    return clock, ticker


class Worker:
    """One daemon thread running jobs in order: admin requests, or the explanations of
    unmatched requests (a stuck one cannot keep the process from exiting, as a
    ``ThreadPoolExecutor``'s thread would)."""

    def __init__(self, name: str) -> None:
        self._jobs: queue.SimpleQueue[
            tuple[concurrent.futures.Future[Reply], Callable[[Request], Reply], Request] | None
        ] = queue.SimpleQueue()
        threading.Thread(target=self._run, name=name, daemon=True).start()

    def submit(
        self, work: Callable[[Request], Reply], request: Request
    ) -> concurrent.futures.Future[Reply]:
        future: concurrent.futures.Future[Reply] = concurrent.futures.Future()
        self._jobs.put((future, work, request))
        return future

    def stop(self) -> None:
        self._jobs.put(None)

    def _run(self) -> None:
        while (job := self._jobs.get()) is not None:
            future, work, request = job
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(work(request))
            except BaseException as exc:  # the connection answers 500 (Deferred.wire)
                future.set_exception(exc)
