"""Capacity and rate limits: an LLM backend under load, for gateway and client tests.

A :class:`Capacity` is shared state that one reply or several (``capacity=``) answer
through: at most ``max_running`` requests generate at once, ``max_waiting`` more wait
their turn, the rest get the provider's 429 (or 503/529, ``when_full``) with
``retry-after``; requests- and tokens-per-minute buckets (``rpm``, ``tpm``) per API key or
per model refuse what goes over, and every answer carries the provider's rate-limit
headers (OpenAI ``x-ratelimit-*``, Anthropic ``anthropic-ratelimit-*``).

Rule 1: ``build(request)`` never blocks.  A request admitted to the queue answers with a
plan that starts with a ``Wait`` on its :class:`_Slot`; the executor parks it until a
running request ends and the slot is handed over, then its pauses run from that moment
(so the time to first token grows with the queue ahead of it).
Rule 2: a slot is held until its call ends, however it ends: the server calls the reply's
``on_end(call)`` once (``_server._answer.hold``).  A client that hangs up frees its slot
when the server notices: at its next write (a stream's next event), since an EOF alone may
be a half-close; a client that hangs up while queued leaves the queue at its EOF (it has
had nothing to read: nginx takes such an EOF for a hang-up too).
Rule 3: buckets read the injectable ``clock`` (seconds since the epoch; a
:class:`ManualClock` a test moves by hand); the queue waits in real time on the loop.
Buckets refill continuously (``rpm / minute`` per second) up to their limit, as OpenAI's
reset headers describe ("the time until the limit resets to its initial state").
Rule 4: API keys are never kept or shown: a bucket is named by a digest of the key.
Rule 5: a count of tokens is the prompt's (:func:`._text.prompt_tokens`) plus the reply's
output (:meth:`LLMReply.counted_output`), charged when the request is admitted.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import json
import math
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from .._core._errors import ConfigError
from .._core._plan import Step, Wait
from .._core._reply import Reply
from .._core._units import Duration, format_seconds, seconds
from .._server._metrics import Families, families
from .._server._shared import Bucket, SharedGate, check_buckets, shared_gate
from ._draft import Context, Draft, Timing, render
from ._errors import anthropic_error, gemini_error, openai_error
from ._text import prompt_tokens


class LLMReply(Protocol):
    """What a capacity needs of the reply it answers for (``_base.LLMReply`` is one)."""

    file_key: str
    headers: Mapping[str, str] | None

    def counted_output(self, *extra: str) -> int: ...

    def make_id(self, prefix: str, context: Context, part: str = "", length: int = 24) -> str: ...


__all__ = ["Capacity", "ManualClock", "capacity", "go_duration"]

Headers = tuple[tuple[str, str], ...]
_EPOCH_2026 = 1_767_225_600.0  # 2026-01-01T00:00:00Z
_FAMILY = {
    "openai_chat": "openai",
    "openai_responses": "openai",
    "anthropic_messages": "anthropic",
    "gemini": "gemini",
}
_KEY_HEADERS = ("authorization", "x-api-key", "x-goog-api-key", "api-key")


class ManualClock:
    """A clock that moves only when told: ``clock.advance(30)``.

    Pass it as ``capacity(clock=...)``: a test of a client's backoff then refills the
    buckets in no time.  It reads as seconds since the epoch (for Anthropic's RFC 3339
    resets), starting at ``start`` (2026-01-01T00:00:00Z).
    """

    def __init__(self, start: float = _EPOCH_2026) -> None:
        self._now = float(start)
        self._lock = threading.Lock()

    def __call__(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        """Move the clock ``seconds`` forward.

        Raises:
            ConfigError: ``seconds`` is negative or not a number.
        """
        if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds < 0:
            raise ConfigError(f"advance(seconds={seconds!r}) needs a non-negative number")
        with self._lock:
            self._now += seconds


@dataclass
class _Refusal:
    """Why a request is refused: the error name, the wait, the metric's reason."""

    error: str
    wait: float
    reason: str


class _Slot:
    """A request's place: running, or waiting in the queue (a ``Source`` the executor's
    ``Wait`` step parks on until the place is granted)."""

    __slots__ = (
        "callback",
        "ended",
        "granted",
        "model",
        "pool",
        "queued_at",
        "ticket",
        "timing",
    )

    def __init__(self, pool: Capacity, model: str, timing: Timing, granted: bool) -> None:
        self.pool = pool
        self.model = model
        self.timing = timing
        self.granted = granted
        self.ended = False
        self.queued_at = time.monotonic()
        self.callback: Callable[[], None] | None = None
        self.ticket: int | None = None  # its place in the supervisor's pool (workers)

    @property
    def status(self) -> int | None:
        return None  # the reply's own head says

    def wake(self, callback: Callable[[], None]) -> None:
        with self.pool._lock:
            if not self.granted:
                self.callback = callback
                return
        callback()

    def eof(self) -> bool:
        """The client ended its side of the connection: True (a hang-up: the server
        closes, and the call's end frees the place) while the slot waits in the queue, as
        a queued request has had nothing to read; once granted, its stream's next write
        tells (Rule 2)."""
        return not self.granted

    def on_end(self, call: Any) -> None:
        self.pool._release(self, call)


@dataclass(frozen=True, slots=True)
class _Held(Reply):
    """A reply sent from a slot: a queued one waits first; the slot frees when it ends."""

    slot: _Slot | None = field(default=None, compare=False)

    def plan(self) -> Iterator[Step]:
        slot = self.slot
        if slot is not None and not slot.granted:
            yield Wait(slot)
        yield from Reply.plan(self)

    def on_end(self, call: Any) -> None:
        if self.slot is not None:
            self.slot.on_end(call)


def _positive(name: str, value: Any, zero: bool = False) -> None:
    low = 0 if zero else 1
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < low):
        kind = "non-negative" if zero else "positive"
        raise ConfigError(f"{name}={value!r} must be a {kind} int")


class Capacity:
    """A model's capacity and rate limits, shared by the replies given it as ``capacity=``.

    Args:
        max_running: requests generating at once (None: no limit).
        max_waiting: requests that may wait for a running one to end (0: none wait);
            past it, ``when_full``.
        ttft_per_token: seconds of time to first token per prompt token (prefill), added
            to the reply's own ``ttft``.
        retry_after: the ``retry-after`` of a refusal for a full queue (1 s).
        when_full: the error a full queue answers with: ``rate_limit`` (429, the default)
            or ``overloaded`` (OpenAI 503, Anthropic 529, Gemini 503).
        rpm: requests per minute, per ``limit_by`` (None: no limit).
        tpm: tokens (prompt and output) per minute, per ``limit_by``.
        limit_by: one bucket per API ``key`` (the ``Authorization``, ``x-api-key`` or
            ``x-goog-api-key`` header; never shown), per ``model``, or per ``test`` (the
            test the request named: ``docs/isolation.md``; requests naming none share
            one bucket).
        minute: how long a minute lasts (60 s): shorter makes a real-time test fast.
        clock: seconds since the epoch, read for the buckets (``time.time``; a
            :class:`ManualClock` in tests).

    Raises:
        ConfigError: a bad value (the message names it).
    """

    def __init__(
        self,
        *,
        max_running: int | None = None,
        max_waiting: int = 0,
        ttft_per_token: Duration = 0.0,
        retry_after: Duration = 1.0,
        when_full: str = "rate_limit",
        rpm: int | None = None,
        tpm: int | None = None,
        limit_by: str = "key",
        minute: Duration = 60.0,
        clock: Callable[[], float] | None = None,
    ) -> None:
        _positive("max_running", max_running)
        _positive("max_waiting", max_waiting, zero=True)
        _positive("rpm", rpm)
        _positive("tpm", tpm)
        if when_full not in ("rate_limit", "overloaded"):
            raise ConfigError(f"when_full={when_full!r} must be 'rate_limit' or 'overloaded'")
        if limit_by not in ("key", "model", "test"):
            raise ConfigError(f"limit_by={limit_by!r} must be 'key', 'model' or 'test'")
        if clock is not None and not callable(clock):
            raise ConfigError(f"clock={clock!r} must be a callable returning seconds")
        self.max_running = max_running
        self.max_waiting = max_waiting
        self.ttft_per_token = seconds(ttft_per_token, "ttft_per_token")
        self.retry_after = seconds(retry_after, "retry_after")
        self.minute = seconds(minute, "minute")
        if self.minute <= 0:
            raise ConfigError(f"minute={minute!r} must be a positive duration")
        self.when_full = when_full
        self.rpm = rpm
        self.tpm = tpm
        self.limit_by = limit_by
        self.clock: Callable[[], float] = time.time if clock is None else clock
        self._lock = threading.Lock()
        self._running = 0
        self._queue: deque[_Slot] = deque()
        self._buckets: dict[tuple[str, str], Bucket] = {}
        families()  # import prometheus_client now, not on the server's loop at a request

    # -- reading it ------------------------------------------------------------------

    @property
    def running(self) -> int:
        """Requests generating now."""
        return self._running

    @property
    def waiting(self) -> int:
        """Requests waiting for a slot now."""
        return len(self._queue)

    def to_args(self) -> dict[str, Any]:
        """The file form (defaults left out; a ``clock`` has none)."""
        out: dict[str, Any] = {}
        for name, default in _DEFAULTS.items():
            value = getattr(self, name)
            if value != default:
                out[name] = format_seconds(value) if name in _DURATIONS else value
        return out

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.to_args().items())
        return f"Capacity({args})"

    # -- answering -------------------------------------------------------------------

    def answer(self, reply: LLMReply, context: Context, draft: Draft, timing: Timing) -> Reply:
        """The reply to send for ``draft``: refused, or held in a slot (Rule 1)."""
        family = _FAMILY.get(reply.file_key, "openai")
        tokens = prompt_tokens(context.body)
        cost = tokens + reply.counted_output()
        gate = shared_gate()
        if gate is not None:  # a worker of ``serve --workers``: the supervisor counts
            return self._answer_shared(gate, reply, context, draft, (timing, tokens, cost))
        metrics = families()
        with self._lock:
            refusal, found, now = self._check(context, cost)
            slot = None if refusal is not None else self._place(context.model, timing, tokens)
            if refusal is None and slot is None:
                refusal = _Refusal(self.when_full, self.retry_after, "queue_full")
            if refusal is None:
                for _, bucket, amount in found:
                    bucket.level -= min(amount, bucket.limit)
            headers = _limit_headers(family, [(k, b, now) for k, b, _ in found])
        if refusal is not None:
            if metrics is not None:
                metrics.rejected.labels(context.model, refusal.reason).inc()
            return self._refused(reply, context, refusal, headers, family)
        assert slot is not None
        return _held(slot, draft, headers, context, (tokens, cost))

    # -- across the workers of ``serve --workers`` (``_server._shared``) -------------

    @property
    def pool(self) -> str:
        """The name of this capacity's pool in the supervisor: its options (Rule 2 there)."""
        return json.dumps(self.to_args(), sort_keys=True, separators=(",", ":"))

    def _answer_shared(
        self,
        gate: SharedGate,
        reply: LLMReply,
        context: Context,
        draft: Draft,
        counted: tuple[Timing, int, int],
    ) -> Reply:
        """``answer`` with the supervisor's pool: admitted there, or refused."""
        timing, tokens, cost = counted
        family = _FAMILY.get(reply.file_key, "openai")
        now = self.clock()
        limits = (self.max_running, self.max_waiting, self.minute)
        name = self._bucket_name(context)
        admitted = gate.admit(self.pool, limits, name, self._charges(cost), now)
        headers = _limit_headers(family, [(k, b, now) for k, b in admitted.buckets])
        metrics = families()
        if admitted.refused is not None:
            reason, wait = admitted.refused
            refusal = (
                _Refusal(self.when_full, self.retry_after, reason)
                if reason == "queue_full"
                else _Refusal("rate_limit", wait, reason)
            )
            if metrics is not None:
                metrics.rejected.labels(context.model, refusal.reason).inc()
            return self._refused(reply, context, refusal, headers, family)
        prefill = dataclasses.replace(timing, ttft=timing.ttft + self.ttft_per_token * tokens)
        slot = _Slot(self, context.model, prefill, granted=admitted.place == "running")
        slot.ticket = admitted.ticket
        if metrics is not None:
            (metrics.running if slot.granted else metrics.waiting).labels(context.model).inc()
        if not slot.granted:
            gate.watch(self.pool, admitted.ticket, lambda: self._granted(slot))
        return _held(slot, draft, headers, context, (tokens, cost))

    def _granted(self, slot: _Slot) -> None:
        """The supervisor handed ``slot`` a place (the gate's poller thread)."""
        with self._lock:
            if slot.ended:
                return
            slot.granted = True
            callback, slot.callback = slot.callback, None
        _started(families(), slot, callback)

    def _release_shared(self, gate: SharedGate, slot: _Slot, call: Any) -> None:
        with self._lock:
            if slot.ended:
                return
            slot.ended = True
        assert slot.ticket is not None
        gate.leave(self.pool, slot.ticket)
        metrics = families()
        if metrics is None:
            return
        (metrics.running if slot.granted else metrics.waiting).labels(slot.model).dec()
        if slot.granted and getattr(call, "outcome", None) == "complete":
            metrics.success.labels(slot.model, "stop").inc()

    def _check(
        self, context: Context, cost: int
    ) -> tuple[_Refusal | None, list[tuple[str, Bucket, int]], float]:
        """The buckets to charge one request and ``cost`` tokens, and why they cannot take
        them (None: they can), read now (locked)."""
        now = self.clock()
        refused, found = check_buckets(
            self._buckets, self._bucket_name(context), self._charges(cost), self.minute, now
        )
        if refused is not None:
            return _Refusal("rate_limit", refused[1], refused[0]), found, now
        return None, found, now

    def _charges(self, cost: int) -> list[tuple[str, int, int]]:
        """The buckets' kinds, limits and amounts one request of ``cost`` tokens takes."""
        charges = (("requests", self.rpm, 1), ("tokens", self.tpm, cost))
        return [(kind, limit, amount) for kind, limit, amount in charges if limit is not None]

    def _bucket_name(self, context: Context) -> str:
        if self.limit_by == "model":
            return context.model
        if self.limit_by == "test":  # (per-test isolation: each test spends its own)
            return "test:" + (context.request.test or "")
        headers = context.request.headers
        for name in _KEY_HEADERS:
            value = headers.get(name)
            if value:
                return hashlib.sha256(value.removeprefix("Bearer ").encode()).hexdigest()[:16]
        key = context.request.query_value("key") or ""
        return hashlib.sha256(key.encode()).hexdigest()[:16] if key else ""

    def _place(self, model: str, timing: Timing, tokens: int) -> _Slot | None:
        """A running slot, a place in the queue, or None: the queue is full (locked)."""
        prefill = dataclasses.replace(timing, ttft=timing.ttft + self.ttft_per_token * tokens)
        metrics = families()
        if self.max_running is None or self._running < self.max_running:
            self._running += 1
            if metrics is not None:
                metrics.running.labels(model).inc()
            return _Slot(self, model, prefill, granted=True)
        if len(self._queue) >= self.max_waiting:
            return None
        slot = _Slot(self, model, prefill, granted=False)
        self._queue.append(slot)
        if metrics is not None:
            metrics.waiting.labels(model).inc()
        return slot

    def _release(self, slot: _Slot, call: Any) -> None:
        """``slot``'s call ended: leave the queue, or hand the place to the next (Rule 2)."""
        gate = shared_gate()
        if slot.ticket is not None and gate is not None:
            return self._release_shared(gate, slot, call)
        metrics = families()
        with self._lock:
            if slot.ended:
                return
            slot.ended = True
            if not slot.granted:
                self._queue.remove(slot)
                if metrics is not None:
                    metrics.waiting.labels(slot.model).dec()
                return
            self._running -= 1
            if metrics is not None:
                metrics.running.labels(slot.model).dec()
            nxt = self._queue.popleft() if self._queue else None
            if nxt is not None:
                nxt.granted = True
                self._running += 1
                callback, nxt.callback = nxt.callback, None
        if metrics is not None and getattr(call, "outcome", None) == "complete":
            metrics.success.labels(slot.model, "stop").inc()
        if nxt is not None:
            _started(metrics, nxt, callback)

    def _refused(
        self,
        reply: LLMReply,
        context: Context,
        refusal: _Refusal,
        limits: Headers,
        family: str,
    ) -> Reply:
        wait = max(refusal.wait, 0.001)
        after = (
            ("retry-after", str(math.ceil(wait))),
            ("retry-after-ms", str(math.ceil(wait * 1000))),
        )
        if family == "anthropic":
            code, body, _ = anthropic_error(refusal.error)
            body["request_id"] = reply.make_id("req_", context, "request")
        elif family == "gemini":
            code, body, _ = gemini_error(refusal.error)
            _retry_delay(body, wait)
        else:
            code, body, _ = openai_error(refusal.error)
            if refusal.reason == "tpm":
                body["error"]["type"] = "tokens"
        headers = (after if family != "gemini" else ()) + limits
        own = tuple(reply.headers.items()) if reply.headers else ()
        draft = Draft(reply.file_key, False, code, headers + own, body)
        return render(draft, Timing(), context.rng)


def _held(
    slot: _Slot, draft: Draft, headers: Headers, context: Context, counted: tuple[int, int]
) -> Reply:
    """The reply sent from ``slot`` (admitted: its tokens counted in the metrics)."""
    tokens, cost = counted
    metrics = families()
    if metrics is not None:
        metrics.prompt_tokens.labels(context.model).inc(tokens)
        metrics.generation_tokens.labels(context.model).inc(cost - tokens)
        if slot.granted:
            _observe(metrics, slot, 0.0)
    draft = dataclasses.replace(draft, headers=draft.headers + headers)
    rendered = render(draft, slot.timing, context.rng)
    values = {f.name: getattr(rendered, f.name) for f in dataclasses.fields(Reply)}
    return _Held(**values, slot=slot)


def _started(metrics: Families | None, slot: _Slot, callback: Callable[[], None] | None) -> None:
    """A waiting ``slot`` was handed its place: count it running, resume its reply."""
    if metrics is not None:
        metrics.waiting.labels(slot.model).dec()
        metrics.running.labels(slot.model).inc()
        _observe(metrics, slot, time.monotonic() - slot.queued_at)
    if callback is not None:
        callback()


def _observe(metrics: Families, slot: _Slot, waited: float) -> None:
    """Record a request that starts generating: its TTFT and its planned token gaps."""
    metrics.ttft.labels(slot.model).observe(waited + slot.timing.ttft)
    if slot.timing.interval:
        metrics.itl.labels(slot.model).observe(slot.timing.interval)
        metrics.tpot.labels(slot.model).observe(slot.timing.interval)


def _retry_delay(body: dict[str, Any], wait: float) -> None:
    for detail in body["error"].get("details", ()):
        if detail.get("@type", "").endswith("RetryInfo"):
            detail["retryDelay"] = f"{math.ceil(wait)}s"


def _limit_headers(family: str, limits: list[Any]) -> Headers:
    """The provider's rate-limit headers for the buckets read at ``now``."""
    out: list[tuple[str, str]] = []
    for kind, bucket, now in limits:
        remaining = str(max(0, math.floor(bucket.level)))
        if family == "openai":
            out += [
                (f"x-ratelimit-limit-{kind}", str(bucket.limit)),
                (f"x-ratelimit-remaining-{kind}", remaining),
                (f"x-ratelimit-reset-{kind}", go_duration(bucket.reset())),
            ]
        elif family == "anthropic":
            at = datetime.fromtimestamp(math.ceil(now + bucket.reset()), UTC)
            out += [
                (f"anthropic-ratelimit-{kind}-limit", str(bucket.limit)),
                (f"anthropic-ratelimit-{kind}-remaining", remaining),
                (f"anthropic-ratelimit-{kind}-reset", at.strftime("%Y-%m-%dT%H:%M:%SZ")),
            ]
    if family == "openai":  # OpenAI's order: the limits, the remainders, the resets
        out.sort(key=lambda h: ("limit", "remaining", "reset").index(h[0].split("-")[2]))
    return tuple(out)


def go_duration(value: float) -> str:
    """A duration as OpenAI's reset headers write it (Go's): ``12ms``, ``1s``, ``6m0s``."""
    if value < 1:
        return f"{math.ceil(value * 1000)}ms" if value > 0 else "0s"
    ms = math.ceil(value * 1000)
    hours, ms = divmod(ms, 3_600_000)
    minutes, ms = divmod(ms, 60_000)
    secs = f"{ms / 1000:.3f}".rstrip("0").rstrip(".")
    if hours:
        return f"{hours}h{minutes}m{secs}s"
    return f"{minutes}m{secs}s" if minutes else f"{secs}s"


_DEFAULTS: dict[str, Any] = {
    "max_running": None,
    "max_waiting": 0,
    "ttft_per_token": 0.0,
    "retry_after": 1.0,
    "when_full": "rate_limit",
    "rpm": None,
    "tpm": None,
    "limit_by": "key",
    "minute": 60.0,
}
_DURATIONS = frozenset({"ttft_per_token", "retry_after", "minute"})


def capacity(**options: Any) -> Capacity:
    """A :class:`Capacity` several replies can share (``capacity=`` on each)."""
    return Capacity(**options)


def capacity_from(value: Any) -> Capacity | None:
    """A reply's ``capacity``: a :class:`Capacity`, its file form (a mapping), or None.

    Raises:
        ConfigError: anything else, or a bad option in the mapping.
    """
    if value is None or isinstance(value, Capacity):
        return value
    if not isinstance(value, Mapping):
        raise ConfigError(f"capacity={value!r} must be llm.capacity(...) or a mapping of options")
    unknown = [k for k in value if k not in _DEFAULTS]
    if unknown:
        close = difflib.get_close_matches(str(unknown[0]), list(_DEFAULTS), n=1)
        hint = f"\ndid you mean {close[0]!r}?" if close else ""
        known = ", ".join(_DEFAULTS)
        raise ConfigError(
            f"capacity has unknown option {unknown[0]!r} (expected one of {known}){hint}"
        )
    return Capacity(**dict(value))
