"""The AG-UI run reply kind: a scripted agent run, answered as an SSE stream of events.

``AgUiRun.build(request)`` reads the request's ``RunAgentInput`` (its ``threadId`` and
``runId``, when the body has them), turns the script into events (:mod:`._events`) and
renders them with the llm replies' timing (:func:`mockhttp.llm._draft.render`).

Rule 1: ``threadId`` and ``runId`` are the request's when it sends them, else the run's
``thread_id`` / ``run_id``, else made per call.
Rule 2: an ``error`` entry with ``drop`` ends the stream with a clean close where
``RUN_ERROR`` would start: a chunked body without its last chunk, which HTTP clients
report as an incomplete read.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, ClassVar

from .._core._errors import ConfigError
from .._core._mock import Mock, request
from .._core._plan import End, Step
from .._core._registry import ReplyKind
from .._core._reply import Reply
from .._core._request import Request
from .._core._units import Duration, format_seconds
from ..llm._draft import Draft, Timing, render
from ._events import Ids, run_events, runs
from ._script import Error, Item, NewRun, flatten, items, to_data

__all__ = ["AgUiRun", "Dropped"]


@dataclass(frozen=True, slots=True)
class Dropped(Reply):
    """A reply whose connection closes cleanly after its last event, unfinished."""

    def plan(self) -> Iterator[Step]:
        for step in Reply.plan(self):
            yield End("close") if isinstance(step, End) else step


@dataclass(frozen=True)
class AgUiRun(ReplyKind):
    """A scripted AG-UI agent run.

    Args:
        events: the script: ``text``, ``tool_call``, ``state``, ``delta``, ``messages``,
            ``reasoning``, ``activity``, ``step``, ``subagent``, ``custom``, ``raw``,
            ``pause``, ``error`` and ``new_run`` entries (records or their file forms), each
            rendered as its events between ``RUN_STARTED`` and ``RUN_FINISHED``;
            ``new_run`` ends one run and starts the next on the same stream.
        thread_id: the ``threadId`` when the request names none.
        run_id: the ``runId`` when the request names none.
        result: ``RUN_FINISHED``'s ``result``, if any.
        chunk_size: text and reasoning pieces of this many characters (default: words).
        ttft: the pause before the first event.
        chunks_per_second: events a second after the first (default: no pause).
        jitter: each pause times a factor drawn from ``1 +- jitter`` (seeded).
        seed: the seed of the jitter.
        duplicate_terminal: send the terminal event (``RUN_FINISHED`` / ``RUN_ERROR``)
            twice, a broken server's stream.
    """

    file_key: ClassVar[str] = "agui"

    events: Sequence[Any] = ()
    _: KW_ONLY
    thread_id: str | None = None
    run_id: str | None = None
    result: Any = None
    chunk_size: int | None = None
    ttft: Duration = 0.0
    chunks_per_second: float | None = None
    jitter: float = 0.0
    seed: int = 0
    duplicate_terminal: bool = False
    _calls: Any = field(
        default_factory=itertools.count, init=False, repr=False, compare=False, hash=False
    )

    def __post_init__(self) -> None:
        script = items(self.events)
        _check_runs(script)
        object.__setattr__(self, "events", script)
        for name in ("thread_id", "run_id"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or not value):
                raise ConfigError(f"{name}={value!r} must be non-empty text")
        size = self.chunk_size
        if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size < 1):
            raise ConfigError(f"chunk_size={size!r} must be a positive int")
        self._check_timing()

    def _check_timing(self) -> None:
        timing = Timing.of(self.ttft, self.chunks_per_second, self.jitter, self.seed)
        object.__setattr__(self, "ttft", timing.ttft)
        if not isinstance(self.duplicate_terminal, bool):
            raise ConfigError(
                f"duplicate_terminal={self.duplicate_terminal!r} must be true or false"
            )

    # -- the test's side -----------------------------------------------------------------

    def mock(self, path: str = "/", *, name: str | None = "agui") -> Mock:
        """A mock answering ``POST path`` with this run."""
        return request("POST", path, name=name).reply(self)

    @property
    def timing(self) -> Timing:
        return Timing.of(self.ttft, self.chunks_per_second, self.jitter)

    # -- the file form -------------------------------------------------------------------

    def to_args(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            if not f.init:
                continue
            value = getattr(self, f.name)
            default = f.default_factory() if callable(f.default_factory) else f.default
            if f.name == "events":
                out["events"] = [to_data(e) for e in value]
            elif value != default:
                out[f.name] = format_seconds(value) if f.name == "ttft" else value
        return out

    # -- answering -----------------------------------------------------------------------

    def build(self, request: Request) -> Reply:
        call = next(self._calls) + 1
        body = _json_body(request)
        ids = Ids(self._salt, call, self.chunk_size)
        thread_id = _given(body, "threadId") or self.thread_id or ids.make("thread_", None)
        run_id = _given(body, "runId") or self.run_id or ids.make("run_", None)
        chunks, ended = run_events(tuple(self.events), ids, thread_id, run_id, self.result)
        if self.duplicate_terminal and not (ended is not None and ended.drop):
            chunks.append(dataclasses.replace(chunks[-1], delay=None))
        draft = Draft(self.file_key, True, 200, chunks=tuple(chunks))
        reply = render(draft, self.timing, random.Random(f"{self.seed}:{call}"))
        if ended is not None and ended.drop:
            return Dropped(**{f.name: getattr(reply, f.name) for f in dataclasses.fields(reply)})
        return reply

    @property
    def _salt(self) -> str:
        cached = self.__dict__.get("_salt_text")
        if cached is None:
            text = json.dumps(self.to_args(), sort_keys=True, default=str)
            cached = hashlib.sha256(f"agui:{text}".encode()).hexdigest()[:16]
            object.__setattr__(self, "_salt_text", cached)
        return cached

    def describe(self) -> str:
        return "agui run"


def _check_runs(script: tuple[Item, ...]) -> None:
    """Each run's errors where a run can fail, ``new_run`` at the top level only."""
    every = runs(script)
    failed = False  # the run before ended with RUN_ERROR
    for number, (_, entries) in enumerate(every, start=1):
        flat = flatten(entries)
        last = flat[-1] if flat else None
        if failed and isinstance(last, Error) and last.before_start:
            raise ConfigError("events: an error before_start cannot follow a run that "
                              "failed: after RUN_ERROR only RUN_STARTED may come")  # fmt: skip
        failed = isinstance(last, Error)
        if any(isinstance(e, NewRun) for e in flat):
            raise ConfigError("events: new_run starts the next run: at the script's top "
                              "level only, not inside a step or subagent")  # fmt: skip
        for i, entry in enumerate(flat):
            if not isinstance(entry, Error):
                continue
            if i != len(flat) - 1:
                raise ConfigError("events: an error ends its run: it must be the run's last "
                                  "entry (a new_run may follow it)")  # fmt: skip
            if entry.before_start and len(entries) != 1:
                raise ConfigError("events: an error before_start is its run's only entry "
                                  "(the run fails before RUN_STARTED)")  # fmt: skip
            if entry.after_finished and entries[-1] is not entry:
                raise ConfigError("events: an error after_finished follows RUN_FINISHED: "
                                  "not inside a step")  # fmt: skip
            if entry.drop and number != len(every):
                raise ConfigError("events: a dropped error ends the stream: no new_run "
                                  "may follow it")  # fmt: skip


def _json_body(request: Request) -> Mapping[str, Any]:
    try:
        value = json.loads(request.body) if request.body else {}
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def _given(body: Mapping[str, Any], key: str) -> str | None:
    value = body.get(key)
    return value if isinstance(value, str) and value else None
