"""The AG-UI differential: seeded event sequences judged by ``@ag-ui/client`` and by
``mockhttp check --profile ag-ui`` on the same bytes.

``sequences(seed, n)`` makes ``n`` streams from one seed: valid runs built from every
event type the reference knows (several runs a stream, ``RUN_ERROR`` first, after
``RUN_FINISHED`` and before a new run, ids reused by the next run, text and tool calls as
events and as chunks, reasoning spans and messages, state snapshots and JSON Patch deltas,
message snapshots, activity, steps, subagents, custom and raw events), and about half of
them broken by one mutation (an event dropped, doubled, moved or added after the end, a
field removed, mistyped, renamed to snake_case or set to null, a key or an event type
added, a data line that is no JSON object, a JSON Patch operation spoiled, a subagent tag
contradicted, the stream cut short). Each is framed as AG-UI's encoders frame events:
``data: <compact JSON>`` and a blank line.

``reference(bodies)`` runs scripts/agui/verify.mjs (``HttpAgent`` of ``@ag-ui/client``
reading each body); ``ours(body)`` is the profile's verdict; ``compare`` puts them side by
side. scripts/agui_differential.py runs 10,000 and more; tests/agui/test_differential.py a
few hundred.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mockhttp.contract import check
from mockhttp.contract._transcript import Transcript

ROOT = Path(__file__).resolve().parents[2]
VERIFY = ROOT / "scripts" / "agui" / "verify.mjs"
INSTALLED = ROOT / "scripts" / "agui" / "node_modules" / "@ag-ui" / "client" / "package.json"

Event = Any  # an event (a dict), or bytes: a data line that is not an event


def reference_missing() -> str | None:
    """Why the reference cannot run here, or None when it can."""
    if shutil.which("node") is None:
        return "node is not installed (.ci/install-agui installs it)"
    if not INSTALLED.exists():
        return "@ag-ui/client is not installed: run .ci/install-agui"
    return None


def reference_version() -> str:
    return str(json.loads(INSTALLED.read_text())["version"])


def frame(events: list[Event]) -> str:
    """The events as AG-UI's encoder sends them: ``data: <JSON>`` and a blank line."""
    return "".join(f"data: {e.decode() if isinstance(e, bytes) else _json(e)}\n\n" for e in events)


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


# --- valid streams -------------------------------------------------------------------


@dataclass
class _Maker:
    rng: random.Random
    ids: list[str] = field(default_factory=lambda: ["m1", "m2", "c1", "c2", "r1", "a1"])
    used: set[str] = field(default_factory=set)
    serial: int = 0

    def ident(self, prefix: str) -> str:
        """An id unused in this run: from a small pool shared by the stream's runs (so the
        next run reuses them), else a fresh one."""
        pool = [i for i in self.ids if i.startswith(prefix[0]) and i not in self.used]
        if pool and self.rng.random() < 0.7:
            chosen = self.rng.choice(pool)
        else:
            self.serial += 1
            chosen = f"{prefix}{self.serial}"
        self.used.add(chosen)
        return chosen

    def pick(self, *options: Any) -> Any:
        return self.rng.choice(options)

    def maybe(self, p: float = 0.5) -> bool:
        return self.rng.random() < p

    def words(self) -> list[str]:
        text = self.pick("Hello there", "Sunny, 21 °C", "Let me check ✓", "ok", "")
        return [text] if not text or self.maybe(0.3) else [w + " " for w in text.split()]

    # blocks: each returns a list of events; tag: a subagent's id or None

    def text(self, tag: str | None) -> list[Event]:
        mid = self.ident("m")
        start: dict[str, Any] = {"type": "TEXT_MESSAGE_START", "messageId": mid}
        if self.maybe():
            start["role"] = self.pick("assistant", "developer", "system", "user")
        if self.maybe(0.2):
            start["name"] = "helper"
        parts = [{"type": "TEXT_MESSAGE_CONTENT", "messageId": mid, "delta": w}
                 for w in self.words()]  # fmt: skip
        return _tagged([start, *parts, {"type": "TEXT_MESSAGE_END", "messageId": mid}], tag)

    def text_chunks(self, tag: str | None) -> list[Event]:
        mid = self.ident("m")
        first: dict[str, Any] = {"type": "TEXT_MESSAGE_CHUNK", "messageId": mid}
        if self.maybe():
            first["role"] = "assistant"
        words = self.words()
        first["delta"] = words[0]
        rest = [{"type": "TEXT_MESSAGE_CHUNK", "delta": w} for w in words[1:]]
        if self.maybe(0.3):
            rest.append({"type": "TEXT_MESSAGE_CHUNK", "messageId": mid, "delta": "!"})
        return _tagged([first, *rest], tag)

    def tool(self, tag: str | None, parent: str | None = None) -> list[Event]:
        cid = self.ident("c")
        start: dict[str, Any] = {"type": "TOOL_CALL_START", "toolCallId": cid,
                                 "toolCallName": self.pick("get_weather", "search")}  # fmt: skip
        if parent is not None:
            start["parentMessageId"] = parent
        args = _json({"city": self.pick("Paris", "Brest", "Zürich")})
        cut = self.rng.randint(0, len(args))
        pieces = [p for p in (args[:cut], args[cut:]) if p] or [args]
        out: list[Event] = [start]
        out += [{"type": "TOOL_CALL_ARGS", "toolCallId": cid, "delta": p} for p in pieces]
        out.append({"type": "TOOL_CALL_END", "toolCallId": cid})
        out = _tagged(out, tag)
        if self.maybe(0.6):
            content: Any = self.pick("Sunny", [{"type": "text", "text": "Sunny"}])
            out.append({"type": "TOOL_CALL_RESULT", "messageId": self.ident("t"),
                        "toolCallId": cid, "content": content, "role": "tool"})  # fmt: skip
        return out

    def text_then_tool(self, tag: str | None) -> list[Event]:
        """A message with a call in it: the call starts while the message is open."""
        text = self.text(tag)
        mid = text[0]["messageId"]
        return [*text[:-1], *self.tool(tag, parent=mid), text[-1]]

    def tool_chunks(self, tag: str | None) -> list[Event]:
        cid = self.ident("c")
        args = _json({"q": "weather"})
        return _tagged([
            {"type": "TOOL_CALL_CHUNK", "toolCallId": cid, "toolCallName": "search",
             "delta": args[:5]},
            {"type": "TOOL_CALL_CHUNK", "delta": args[5:]},
        ], tag)  # fmt: skip

    def reasoning(self, tag: str | None) -> list[Event]:
        span = self.ident("r")
        mid = span if self.maybe() else self.ident("r")
        out: list[Event] = [
            {"type": "REASONING_START", "messageId": span},
            {"type": "REASONING_MESSAGE_START", "messageId": mid, "role": "reasoning"},
            *({"type": "REASONING_MESSAGE_CONTENT", "messageId": mid, "delta": w}
              for w in self.words()),
            {"type": "REASONING_MESSAGE_END", "messageId": mid},
        ]  # fmt: skip
        if self.maybe(0.4):
            out.append({"type": "REASONING_ENCRYPTED_VALUE", "subtype": "message",
                        "entityId": mid, "encryptedValue": "gAAAA="})  # fmt: skip
        out.append({"type": "REASONING_END", "messageId": span})
        return _tagged(out, tag)

    def reasoning_chunks(self, tag: str | None) -> list[Event]:
        mid = self.ident("r")
        return _tagged([
            {"type": "REASONING_MESSAGE_CHUNK", "messageId": mid, "delta": "Thinking"},
            {"type": "REASONING_MESSAGE_CHUNK", "delta": " more"},
        ], tag)  # fmt: skip

    def state(self, tag: str | None) -> list[Event]:
        snapshot = {"city": "Paris", "count": 1, "list": [1, 2]}
        ops = [
            {"op": "replace", "path": "/count", "value": 2},
            {"op": "add", "path": "/list/-", "value": 3},
            {"op": "remove", "path": "/city"},
            {"op": "copy", "from": "/count", "path": "/copied"},
            {"op": "move", "from": "/list", "path": "/moved"},
            {"op": "test", "path": "/count", "value": 2},
            {"op": "add", "path": "/a~1b", "value": None},
        ]
        delta = self.rng.sample(ops[:3], self.rng.randint(0, 3)) + (
            self.rng.sample(ops[3:], 1) if self.maybe() else []
        )
        out: list[Event] = [{"type": "STATE_SNAPSHOT", "snapshot": snapshot}]
        if self.maybe(0.2):
            out = [{"type": "STATE_SNAPSHOT", "snapshot": self.pick([1, 2], "text", 3, None)}]
        out.append({"type": "STATE_DELTA", "delta": delta})
        return _tagged(out, tag)

    def messages(self, tag: str | None) -> list[Event]:
        call = {"id": self.ident("c"), "type": "function",
                "function": {"name": "search", "arguments": "{}"}}  # fmt: skip
        messages = [
            {"id": self.ident("m"), "role": "user",
             "content": self.pick("hi", [{"type": "text", "text": "hi"},
                                         {"type": "image", "source": {
                                             "type": "url", "value": "https://x/y.png"}}])},
            {"id": self.ident("m"), "role": "assistant", "content": "Let me look",
             "toolCalls": [call]},
            {"id": self.ident("t"), "role": "tool", "content": "found", "toolCallId": call["id"]},
            {"id": self.ident("m"), "role": self.pick("system", "developer"),
             "content": "Be brief"},
            {"id": self.ident("a"), "role": "activity", "activityType": "search",
             "content": {"status": "done"}},
            {"id": self.ident("r"), "role": "reasoning", "content": "hm"},
        ]  # fmt: skip
        chosen = self.rng.sample(messages, self.rng.randint(0, len(messages)))
        return [{"type": "MESSAGES_SNAPSHOT", "messages": chosen}]

    def activity(self, tag: str | None) -> list[Event]:
        aid = self.ident("a")
        out: list[Event] = [
            {"type": "ACTIVITY_SNAPSHOT", "messageId": aid, "activityType": "search",
             "content": {"status": "running"}},
            {"type": "ACTIVITY_DELTA", "messageId": aid, "activityType": "search",
             "patch": [{"op": "replace", "path": "/status", "value": "done"}]},
        ]  # fmt: skip
        if self.maybe(0.3):
            out.insert(1, {**out[0], "replace": self.pick(True, False)})
        return _tagged(out, tag)

    def custom(self, tag: str | None) -> list[Event]:
        return _tagged([self.pick(
            {"type": "CUSTOM", "name": "progress", "value": self.pick(0.5, {"p": 1}, None)},
            {"type": "RAW", "event": {"provider": "x", "n": 1}, "source": "openai"},
            {"type": "RAW", "event": "text"},
        )], tag)  # fmt: skip

    def step(self, tag: str | None) -> list[Event]:
        name = self.pick("plan", "act")
        inner = [e for _ in range(self.rng.randint(0, 2)) for e in self.block(tag, False)]
        return [*_tagged([{"type": "STEP_STARTED", "stepName": name}], tag), *inner,
                *_tagged([{"type": "STEP_FINISHED", "stepName": name}], tag)]  # fmt: skip

    def subagent(self, tag: str | None) -> list[Event]:
        sid = f"s{self.ident('s')}"
        start: dict[str, Any] = {"type": "SUBAGENT_STARTED", "subagentRunId": sid,
                                 "name": "researcher"}  # fmt: skip
        if tag is not None:
            start["parentSubagentRunId"] = tag
        inner = [e for _ in range(self.rng.randint(1, 2)) for e in self.block(sid, False)]
        end: dict[str, Any] = self.pick(
            {"type": "SUBAGENT_FINISHED", "subagentRunId": sid},
            {"type": "SUBAGENT_FINISHED", "subagentRunId": sid, "outcome": {"type": "success"}},
            {"type": "SUBAGENT_ERROR", "subagentRunId": sid, "message": "failed"},
        )
        return [start, *inner, end]

    def block(self, tag: str | None, nest: bool = True) -> list[Event]:
        makers: list[Callable[[str | None], list[Event]]] = [
            self.text, self.text_chunks, self.tool, self.text_then_tool, self.tool_chunks,
            self.reasoning, self.reasoning_chunks, self.state, self.activity, self.custom,
        ]  # fmt: skip
        if tag is None:
            makers.append(self.messages)
        if nest:
            makers += [self.step, self.subagent]
        return self.rng.choice(makers)(tag)

    def run(self, thread: str, last: bool) -> tuple[list[Event], str]:
        """One run: its events, and how it ended (finished, error, error-open, cut)."""
        self.used = set()
        run_id = f"run{self.serial}"
        self.serial += 1
        start: dict[str, Any] = {"type": "RUN_STARTED", "threadId": thread, "runId": run_id}
        if self.maybe(0.2):
            start["input"] = {"threadId": thread, "runId": run_id, "messages": [
                {"id": self.ident("m"), "role": "user", "content": "Weather?"}]}  # fmt: skip
        if self.maybe(0.1):
            start["parentRunId"] = "run0"
        body = [e for _ in range(self.rng.randint(0, 5)) for e in self.block(None)]
        ending = self.pick("finished", "finished", "finished", "error", "error-open", "cut")
        if ending == "cut" and not last:
            ending = "finished"
        if ending == "finished":
            finish: dict[str, Any] = {"type": "RUN_FINISHED", "threadId": thread, "runId": run_id}
            extra = self.pick(
                None,
                {"result": {"answer": 42}},
                {"outcome": {"type": "success"}},
                {
                    "outcome": {
                        "type": "interrupt",
                        "interrupts": [{"id": "i1", "reason": "approval"}],
                    }
                },
                {"usage": [{"model": "m", "inputTokens": 3, "outputTokens": 5}]},
            )
            return [start, *body, {**finish, **(extra or {})}], ending  # fmt: skip
        error: dict[str, Any] = {"type": "RUN_ERROR", "message": "boom"}
        if self.maybe():
            error["code"] = "E503"
        if ending == "error-open" and body:
            body = body[: self.rng.randint(1, len(body))]  # fails with things still open
        if ending == "cut":
            return [start, *body], ending
        return [start, *body, error], ending


def _tagged(events: list[Event], tag: str | None) -> list[Event]:
    if tag is None:
        return events
    return [{**e, "subagentRunId": tag} if isinstance(e, dict) else e for e in events]


def valid(rng: random.Random) -> tuple[list[Event], str]:
    """A stream of one to three runs, and a label saying its shape."""
    maker = _Maker(rng)
    thread = "thread-1"
    runs = rng.choice((1, 1, 2, 2, 3))
    events: list[Event] = []
    shapes: list[str] = []
    if rng.random() < 0.08:
        events.append({"type": "RUN_ERROR", "message": "could not start"})
        shapes.append("error-first")
    for i in range(runs):
        one, ending = maker.run(thread, last=i == runs - 1)
        events += one
        shapes.append(ending)
        if ending == "finished" and rng.random() < 0.08:
            events.append({"type": "RUN_ERROR", "message": "late"})
            shapes.append("error-after-finished")
            if i == runs - 1:
                break
    return events, f"{runs} run(s): {', '.join(shapes)}"


# --- mutations -------------------------------------------------------------------------


def _where(rng: random.Random, events: list[Event], test: Callable[[Event], bool]) -> int | None:
    places = [i for i, e in enumerate(events) if test(e)]
    return rng.choice(places) if places else None


def _is(*kinds: str) -> Callable[[Event], bool]:
    return lambda e: isinstance(e, dict) and (not kinds or e.get("type") in kinds)


_REQUIRED = ("messageId", "toolCallId", "delta", "threadId", "runId", "stepName",
             "toolCallName", "message", "snapshot", "name", "subagentRunId", "content",
             "activityType", "patch", "messages", "entityId", "event", "value")  # fmt: skip


def _drop(rng: random.Random, ev: list[Event]) -> str:
    i = rng.randrange(len(ev))
    kind = ev[i]["type"] if isinstance(ev[i], dict) else "?"
    del ev[i]
    return f"dropped {kind}"


def _double(rng: random.Random, ev: list[Event]) -> str:
    i = rng.randrange(len(ev))
    ev.insert(i + 1, ev[i])
    return f"doubled {ev[i]['type'] if isinstance(ev[i], dict) else '?'}"


def _swap(rng: random.Random, ev: list[Event]) -> str:
    if len(ev) < 2:
        return _drop(rng, ev)
    i = rng.randrange(len(ev) - 1)
    ev[i], ev[i + 1] = ev[i + 1], ev[i]
    return "swapped two neighbours"


def _after_end(rng: random.Random, ev: list[Event]) -> str:
    i = _where(rng, ev, _is("RUN_FINISHED", "RUN_ERROR"))
    if i is None:
        return _drop(rng, ev)
    extra: dict[str, Any] = rng.choice([
        {"type": "CUSTOM", "name": "late", "value": 1},
        {"type": "RUN_FINISHED", "threadId": "thread-1", "runId": "x"},
        {"type": "RUN_ERROR", "message": "again"},
        {"type": "TEXT_MESSAGE_START", "messageId": "late"},
        {"type": "STEP_FINISHED", "stepName": "plan"},
    ])  # fmt: skip
    ev.insert(i + 1, extra)
    return f"{extra['type']} after {ev[i]['type']}"


def _field(rng: random.Random, ev: list[Event]) -> str:
    i = _where(rng, ev, _is())
    if i is None:
        return _drop(rng, ev)
    e = dict(ev[i])
    keys = [k for k in e if k != "type"]
    how = rng.choice(["remove", "retype", "snake", "null", "unknown-key", "bad-role"])
    if how == "unknown-key" or not keys:
        e["extraField"] = 1
    elif how == "bad-role":
        e["role"] = "wizard"
    else:
        key = rng.choice([k for k in keys if k in _REQUIRED] or keys)
        if how == "remove":
            del e[key]
        elif how == "retype":
            e[key] = rng.choice([1, True, ["x"], {"x": 1}, 1.5])
        elif how == "snake":
            snake = "".join("_" + c.lower() if c.isupper() else c for c in key)
            e[snake] = e.pop(key)
        else:
            e[key] = None
    ev[i] = e
    return f"{how} on {e['type']}"


def _not_event(rng: random.Random, ev: list[Event]) -> str:
    bad: Event = rng.choice([b"not json", b"[1,2]", b'"text"', b"null", b'{"no":"type"}',
                             {"type": "THINKING_START"}, {"type": "NOT_AN_EVENT", "x": 1},
                             {"type": ""}, {"type": 3}])  # fmt: skip
    ev.insert(rng.randint(0, len(ev)), bad)
    return "inserted a non-event"


def _patch(rng: random.Random, ev: list[Event]) -> str:
    i = _where(rng, ev, _is("STATE_DELTA", "ACTIVITY_DELTA"))
    if i is None:
        return _field(rng, ev)
    e = dict(ev[i])
    key = "delta" if e["type"] == "STATE_DELTA" else "patch"
    bad = rng.choice([
        {"op": "set", "path": "/a"}, {"path": "/a"}, {"op": "add", "path": "/a"},
        {"op": "replace", "path": "a", "value": 1}, {"op": "move", "path": "/a"},
        {"op": "remove", "path": "/a~2"}, "replace", {"op": "add", "path": "/b", "value": 1,
                                                     "extra": True},
    ])  # fmt: skip
    e[key] = [*e[key], bad]
    ev[i] = e
    return f"patch op {_json(bad)}"


def _tag(rng: random.Random, ev: list[Event]) -> str:
    kinds = ("TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "TOOL_CALL_ARGS", "TOOL_CALL_END",
             "REASONING_MESSAGE_CONTENT", "REASONING_END", "STEP_FINISHED", "ACTIVITY_DELTA",
             "TEXT_MESSAGE_CHUNK", "TOOL_CALL_CHUNK", "REASONING_ENCRYPTED_VALUE")  # fmt: skip
    i = _where(rng, ev, _is(*kinds))
    if i is None:
        return _field(rng, ev)
    e = dict(ev[i])
    e["subagentRunId"] = "intruder" if e.get("subagentRunId") is None else "other"
    ev[i] = e
    return f"subagent tag on {e['type']}"


def _legacy_null(rng: random.Random, ev: list[Event]) -> str:
    i = _where(rng, ev, _is())
    if i is None:
        return _drop(rng, ev)
    e = dict(ev[i])
    key = {"TOOL_CALL_START": "parentMessageId", "RUN_FINISHED": "outcome"}.get(
        e["type"], "rawEvent"
    )
    e[key] = None
    ev[i] = e
    return f"{key}: null on {e['type']}"


def _cut(rng: random.Random, ev: list[Event]) -> str:
    n = rng.randint(0, len(ev) - 1)
    del ev[n:]
    return f"cut after {n} events"


MUTATIONS: list[Callable[[random.Random, list[Event]], str]] = [
    _drop, _double, _swap, _after_end, _field, _field, _not_event, _patch, _tag,
    _legacy_null, _cut,
]  # fmt: skip


@dataclass(frozen=True)
class Case:
    number: int
    label: str
    body: str


def sequences(seed: int, n: int) -> Iterator[Case]:
    """``n`` streams from ``seed``: about half of them valid, half mutated once."""
    rng = random.Random(seed)
    for number in range(n):
        events, label = valid(rng)
        if rng.random() < 0.5 and events:
            label += "; " + rng.choice(MUTATIONS)(rng, events)
        yield Case(number, label, frame(events))


# --- the two judges ----------------------------------------------------------------------


def reference(bodies: list[str], timeout: float = 600) -> list[dict[str, Any]]:
    """The reference's verdicts, one per body, in order (one Node process for all)."""
    lines = "".join(_json({"id": i, "body": b}) + "\n" for i, b in enumerate(bodies))
    done = subprocess.run(
        ["node", str(VERIFY)],
        input=lines.encode(),
        capture_output=True,
        check=True,
        timeout=timeout,
        cwd=VERIFY.parent,
    )
    verdicts = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert [v["id"] for v in verdicts] == list(range(len(bodies))), done.stderr[-2000:]
    return verdicts


def ours(body: str, profile: str = "ag-ui") -> list[str]:
    """The profile's violations on ``body``, as ``rule: message``."""
    findings = check(Transcript.from_body(body.encode()), profile)
    return [f"{f.rule}: {f.message}" for f in findings if f.severity == "violation"]


@dataclass
class Tally:
    """Both judges on every case: the figures the docs quote, and every disagreement."""

    total: int = 0
    accepted: int = 0  # by the reference
    rejected: int = 0
    flagged_accepted: list[tuple[Case, list[str]]] = field(default_factory=list)
    missed_rejected: list[tuple[Case, str]] = field(default_factory=list)
    types: Counter[str] = field(default_factory=Counter)  # event types in accepted streams
    reasons: Counter[str] = field(default_factory=Counter)  # the reference's, first words

    @property
    def agreed(self) -> int:
        return self.total - len(self.flagged_accepted) - len(self.missed_rejected)


def compare(cases: list[Case]) -> Tally:
    tally = Tally()
    for case, verdict in zip(cases, reference([c.body for c in cases]), strict=True):
        found = ours(case.body)
        tally.total += 1
        if verdict["accepted"]:
            tally.accepted += 1
            for line in case.body.split("\n\n"):
                if line.startswith('data: {"type":"'):
                    tally.types[line[15:].split('"', 1)[0]] += 1
            if found:
                tally.flagged_accepted.append((case, found))
        else:
            tally.rejected += 1
            tally.reasons[" ".join(verdict["error"].split()[:4])] += 1
            if not found:
                tally.missed_rejected.append((case, verdict["error"]))
    return tally
