"""The server's event loop: which one (asyncio's or uvloop), and a worker thread beside it.

Rule 1: nothing here touches a socket; the server's thread runs the loop made here.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import queue
import threading
import time
from collections.abc import Callable

from .._core._errors import ConfigError
from .._core._reply import Reply
from .._core._request import Request

__all__ = ["LOOPS", "LoopChoice", "Worker", "clock_of", "loop_factory", "loop_name"]

LoopChoice = str | Callable[[], asyncio.AbstractEventLoop]
LOOPS = ("auto", "asyncio", "uvloop")
# What "auto" picks: asyncio's loop, measured faster than uvloop for this server
# (docs/performance.md, "Which loop"): more events/s and requests/s, and first events in
# time when many clients connect at once.
AUTO: Callable[[], asyncio.AbstractEventLoop] = asyncio.new_event_loop


def loop_factory(choice: LoopChoice) -> Callable[[], asyncio.AbstractEventLoop]:
    """The function that makes the server's loop for ``choice`` (see ``Server(loop=...)``).

    Raises:
        ConfigError: an unknown name, or ``"uvloop"`` when uvloop is not installed.
    """
    if callable(choice):
        return choice
    if choice not in LOOPS:
        raise ConfigError(f"loop={choice!r} must be one of {', '.join(LOOPS)} or a loop factory")
    if choice != "uvloop":  # "auto": the loop measured faster (docs/performance.md)
        return AUTO
    try:
        import uvloop
    except ImportError:
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
