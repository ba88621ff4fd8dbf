"""Framing an answer: the wire plan of a reply for one request, cached when it is fixed.

``Framing`` is how one request's replies are framed (HEAD, HTTP/1.0, keep-alive: see
``_wire.frame``).  ``WireCache.plan`` gives the wire plan of a routed answer: a fixed
fault-free reply is framed once per framing and replayed (a ``Whole`` when it is short and
pause-free, else its frozen steps); a handler's reply, or one with faults, is framed for
this request, the faults applied around the framing.

Rule 1: loop thread only (no lock): other threads ask for entries to be dropped through
the loop (``Server._forget``).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from typing import NamedTuple

from .._core._plan import Fault, FaultContext, Step
from .._core._reply import Reply
from .._core._request import Request
from .._core._wire import frame
from ._runner import Paced, Steps, Whole
from ._upgrade import Switch, Switching, plan_of

__all__ = ["CACHE_SIZE", "CACHE_STEPS", "UNCHUNKED", "Framing", "WireCache", "framing_of"]

CACHE_STEPS = 4096  # fault-free replies with at most this many wire steps are framed once
CACHE_SIZE = 256  # replies whose wire plans are kept (the cache is emptied when full)


class Framing(NamedTuple):
    """How replies to one request are framed (see ``_wire.frame``)."""

    head_only: bool
    http10: bool
    keep_alive: bool
    cors: tuple[tuple[str, str], ...] = ()  # headers every head gets (``_core._cors``)

    def frame(self, steps: Iterable[Step]) -> Iterator[Step]:
        return frame(
            steps,
            head_only=self.head_only,
            http10=self.http10,
            keep_alive=self.keep_alive,
            cors=self.cors,
        )


UNCHUNKED = ("1.0", "2")  # the versions whose bodies go out as they are


def framing_of(request: Request, keep_alive: bool) -> Framing:
    """How replies to ``request`` are framed (HTTP/2 frames a body as HTTP/1.0 does,
    without transfer coding: ``_h2.py``)."""
    return Framing(request.method == "HEAD", request.http_version in UNCHUNKED, keep_alive)


_Plans = dict[Framing, tuple[Step, ...] | Whole | Paced | None]


class WireCache:
    """The wire plans of fixed replies: id(reply) -> (reply, {framing: wire steps (a
    ``Whole`` when short and pause-free), or None when the reply is endless or too long
    to keep})."""

    __slots__ = ("_plans",)

    def __init__(self) -> None:
        self._plans: dict[int, tuple[Reply, _Plans]] = {}

    def plan(
        self, reply: Reply, faults: tuple[Fault, ...], index: int, fixed: bool, framing: Framing
    ) -> Steps | Whole | Paced | Switch:
        """The wire plan of ``reply`` as the ``index``-th call's, ``faults`` applied;
        ``fixed``: the reply is the mock's own (not a handler's), so it may be cached.
        A ``Switching`` reply's plan hands the connection over (``_upgrade.py``)."""
        if type(reply) is not Reply and isinstance(reply, Switching):
            return plan_of(reply, lambda refusal: Steps(framing.frame(refusal.plan())))
        if faults:
            return Steps(_faulted(reply, faults, index, framing))
        if fixed:
            entry = self._plans.get(id(reply))  # the common case, inlined: a plan kept
            if entry is not None and entry[0] is reply:
                kept = entry[1].get(framing)
                if type(kept) is Paced or type(kept) is Whole:
                    return kept
                if type(kept) is tuple:
                    return Steps(iter(kept))
            return self._fixed(reply, framing)
        return Steps(framing.frame(reply.plan()))  # a handler's reply, built for this request

    def ids(self) -> set[int]:
        """The ``id()`` of every reply with plans kept."""
        return set(self._plans)

    def drop(self, reply_id: int) -> None:
        """Forget the plans of the reply whose ``id()`` this is."""
        self._plans.pop(reply_id, None)

    def _fixed(self, reply: Reply, framing: Framing) -> Steps | Whole | Paced:
        """The wire plan of a fault-free fixed reply.

        A reply's plan depends only on the reply and the framing options, and steps are
        frozen, so the framed steps are computed once and replayed (no generators, no
        per-event framing).  Endless streams and very long plans are framed per request.
        """
        entry = self._plans.get(id(reply))
        if entry is None or entry[0] is not reply:
            if len(self._plans) >= CACHE_SIZE:
                self._plans.clear()
            entry = (reply, {})
            self._plans[id(reply)] = entry
        plans = entry[1]
        if framing in plans:
            steps = plans[framing]
            if type(steps) is Whole or type(steps) is Paced:
                return steps
            if steps is not None:
                assert isinstance(steps, tuple)
                return Steps(iter(steps))
        elif reply.stream is None or reply.stream.repeat is not None:
            steps = tuple(itertools.islice(framing.frame(reply.plan()), CACHE_STEPS + 1))
            if Whole.fits(steps):
                whole = plans[framing] = Whole(steps)
                return whole
            if len(steps) <= CACHE_STEPS and Paced.fits(steps):
                paced = plans[framing] = Paced(steps)
                return paced
            if len(steps) <= CACHE_STEPS:
                plans[framing] = steps
                return Steps(iter(steps))
            plans[framing] = None
        else:
            plans[framing] = None
        return Steps(framing.frame(reply.plan()))


def _faulted(
    reply: Reply, faults: tuple[Fault, ...], index: int, framing: Framing
) -> Iterator[Step]:
    """The wire plan of ``reply`` with ``faults``: each one's body transform, the framing,
    then each one's wire transform."""
    ctx = FaultContext(call_index=index)
    steps: Iterator[Step] = iter(reply.plan())
    for fault in faults:
        steps = fault.body(steps, ctx)
    wire = framing.frame(steps)
    for fault in faults:
        wire = fault.wire(wire, ctx)
    return wire
