"""The order of an AG-UI stream's events, judged as ``@ag-ui/client`` 1.0 judges it.

The client reads a stream in stages (``HttpAgent``): each ``data:`` is parsed as a JSON
object with a ``type``; an event of a type it does not know is dropped; the rest are
checked against their schema (``_agui_schema``); the chunk shorthands
(``TEXT_MESSAGE_CHUNK``, ``TOOL_CALL_CHUNK``, ``REASONING_MESSAGE_CHUNK``) are expanded into
start, content and end events; and ``verifyEvents`` walks the result. ``walk`` does the
same and returns what each stage found, by the rule that reports it.

``verifyEvents`` starts over at each ``RUN_STARTED`` that follows a ``RUN_FINISHED`` or
``RUN_ERROR``: a stream may carry several runs (a replayed thread), a run may fail before
it starts (``RUN_ERROR`` first), ``RUN_ERROR`` may follow ``RUN_FINISHED``, and ids are
per run. Within a run: messages, tool calls, reasoning messages and spans open before
their content and are not opened twice at once; steps (per subagent) and subagents open
and close in pairs; all of them are closed by ``RUN_FINISHED`` (not by ``RUN_ERROR``); and
an event's ``subagentRunId`` may not contradict the owner of what it continues.

The client stops at the first error; ``walk`` goes on (an event found wrong does not
change the state), so one stream may show several findings.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .._core._sse_decode import Message
from ._agui_schema import EVENT_SCHEMAS, Invalid, enforce
from ._rule import Hit, hit, short
from ._stream import Stream

__all__ = ["Found", "walk"]

Found = tuple[str, Hit]  # (rule id, hit)

_TEXT, _TOOL, _REASON = "ag-ui.text-pairing", "ag-ui.tool-call-pairing", "ag-ui.reasoning-pairing"
_OWN_LANE = frozenset(
    {
        "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "TOOL_CALL_START",
        "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT", "STATE_SNAPSHOT", "STATE_DELTA",
        "CUSTOM", "STEP_STARTED", "STEP_FINISHED", "REASONING_START",
        "REASONING_MESSAGE_START", "REASONING_MESSAGE_CONTENT", "REASONING_MESSAGE_END",
        "REASONING_END",
    }
)  # fmt: skip
_ALL_LANES = frozenset({"RUN_STARTED", "RUN_FINISHED", "RUN_ERROR", "MESSAGES_SNAPSHOT"})
_CHUNKS = {
    "TEXT_MESSAGE_CHUNK": ("text", "messageId", _TEXT, "text message"),
    "TOOL_CALL_CHUNK": ("tool", "toolCallId", _TOOL, "tool call"),
    "REASONING_MESSAGE_CHUNK": ("reasoning", "messageId", _REASON, "reasoning message"),
}
_END = {"text": "TEXT_MESSAGE_END", "tool": "TOOL_CALL_END", "reasoning": "REASONING_MESSAGE_END"}
_ID = {"text": "messageId", "tool": "toolCallId", "reasoning": "messageId"}


class _Wrong(Exception):
    """One event breaks a rule; the walk reports it and goes on."""

    def __init__(self, rule: str, text: str) -> None:
        super().__init__(text)
        self.rule = rule
        self.text = text


def walk(stream: Stream) -> list[Found]:
    """Everything the client's stages find in ``stream``, in stream order (memoised)."""
    found = stream.memo.get("ag-ui.walk")
    if found is None:
        found = list(_walk(stream))
        stream.memo["ag-ui.walk"] = found
    return found


def _walk(stream: Stream) -> Iterator[Found]:
    lanes = _Lanes()
    run = _Run()
    legacy = _Legacy()
    for p in stream.payloads:
        data = p.obj
        kind = data.get("type") if data is not None else None
        if not isinstance(kind, str) or not kind:
            what = "a JSON object" if data is None else "a JSON object with a type"
            yield "ag-ui.event", hit(p.message, f"data is not {what}: {short(p.message.data)}")
            continue
        assert data is not None
        if kind in _LEGACY:
            yield (
                "ag-ui.event",
                hit(
                    p.message,
                    f"{kind} is a pre-1.0 event: the client translates it to {_LEGACY[kind]}",
                    "warning",
                ),
            )
            data = legacy.translate(data)
            kind = data["type"]
        if kind not in EVENT_SCHEMAS:
            yield (
                "ag-ui.event",
                hit(
                    p.message,
                    f"type {short(kind)} is not an AG-UI event type (the client drops it)",
                    "warning",
                ),
            )
            continue
        try:
            event, stripped = enforce(data)
        except Invalid as error:
            yield _invalid(p.message, kind, error, data)
            continue
        yield from _stripped(p.message, kind, stripped)
        try:
            expanded = lanes.expand(event)
        except _Wrong as wrong:
            yield wrong.rule, hit(p.message, wrong.text)
            continue
        for one in expanded:
            try:
                run.verify(one)
            except _Wrong as wrong:
                yield wrong.rule, hit(p.message, wrong.text)


def _invalid(message: Message, kind: str, error: Invalid, data: dict[str, Any]) -> Found:
    patch = {"STATE_DELTA": "/delta", "ACTIVITY_DELTA": "/patch"}.get(kind)
    rule = "ag-ui.state-delta" if patch and error.path.startswith(patch + "/") else "ag-ui.fields"
    where = error.path.lstrip("/").replace("/", ".")
    text = f"{kind}.{where} {error.problem}" if where else f"{kind} {error.problem}"
    if error.problem == "is missing":
        name = error.path.rsplit("/", 1)[-1]
        snake = "".join("_" + c.lower() if c.isupper() else c for c in name)
        renamed = snake != name and error.path.count("/") == 1 and snake in data
        text = f"{kind} has no {where}"
        if renamed:
            text += f" (it has {snake}: AG-UI names are camelCase)"
    return rule, hit(message, text)


def _stripped(message: Message, kind: str, paths: list[str]) -> Iterator[Found]:
    for path in paths:
        key = path.rsplit("/", 1)[-1]
        if path.count("/") == 1 and "_" in key and key.islower():
            yield (
                "ag-ui.fields",
                hit(
                    message,
                    f"{kind} has the snake_case key {short(key)}; AG-UI names are camelCase "
                    "(the client drops it)",
                    "warning",
                ),
            )
        elif kind in ("STATE_DELTA", "ACTIVITY_DELTA") and path.count("/") == 2:
            yield (
                "ag-ui.state-delta",
                hit(
                    message,
                    f"{kind}{path.replace('/', '.')} is not a JSON Patch operation it knows "
                    "(no known op): the client drops it",
                    "warning",
                ),
            )


_LEGACY = {
    "THINKING_START": "REASONING_START",
    "THINKING_END": "REASONING_END",
    "THINKING_TEXT_MESSAGE_START": "REASONING_MESSAGE_START",
    "THINKING_TEXT_MESSAGE_CONTENT": "REASONING_MESSAGE_CONTENT",
    "THINKING_TEXT_MESSAGE_END": "REASONING_MESSAGE_END",
}


@dataclass
class _Legacy:
    """The client's compatibility boundary for the pre-1.0 THINKING_* events: each span
    and message gets an id the client makes up (continuations without an opener too)."""

    span: str | None = None
    message: str | None = None
    made: int = 0

    def _new(self) -> str:
        self.made += 1
        return f"(made up by the client #{self.made})"

    def translate(self, event: dict[str, Any]) -> dict[str, Any]:
        kind = event["type"]
        rest = {k: v for k, v in event.items() if k != "title" or kind != "THINKING_START"}
        rest["type"] = _LEGACY[kind]
        if kind == "THINKING_START":
            self.span = rest["messageId"] = self._new()
        elif kind == "THINKING_TEXT_MESSAGE_START":
            self.message = rest["messageId"] = self._new()
            rest["role"] = "reasoning"
        elif kind == "THINKING_END":
            rest["messageId"], self.span = self.span or self._new(), None
        else:
            rest["messageId"] = self.message or self._new()
            if kind == "THINKING_TEXT_MESSAGE_END":
                self.message = None
        return rest


@dataclass
class _Lanes:
    """The chunk shorthands' expansion (``transformChunks``): one open stream per owner."""

    open: dict[str | None, tuple[str, dict[str, Any]]] = field(default_factory=dict)

    def expand(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        kind = event["type"]
        tag = event.get("subagentRunId")
        if kind in _OWN_LANE:
            return [*self._close(tag), event]
        if kind in _ALL_LANES:
            return [*(e for owner in list(self.open) for e in self._close(owner)), event]
        if kind in ("SUBAGENT_FINISHED", "SUBAGENT_ERROR"):
            return [*self._close(tag), event]
        if kind in _CHUNKS:
            return self._chunk(event, *_CHUNKS[kind])
        return [event]

    def _close(self, owner: str | None) -> list[dict[str, Any]]:
        pending = self.open.pop(owner, None)
        if pending is None:
            return []
        lane, fields = pending
        end = {"type": _END[lane], _ID[lane]: fields["id"]}
        if fields.get("tag") is not None:
            end["subagentRunId"] = fields["tag"]
        return [end]

    def _chunk(
        self, event: dict[str, Any], lane: str, key: str, rule: str, noun: str
    ) -> list[dict[str, Any]]:
        ident, tag = event.get(key), event.get("subagentRunId")
        owner = self._owner(lane, ident, tag, event["type"], rule, noun)
        pending = self.open.get(owner)
        out: list[dict[str, Any]] = []
        if pending and pending[0] == lane and ident in (None, pending[1]["id"]):
            fields = pending[1]
            for name in ("role", "name", "toolCallName", "parentMessageId"):
                if name in fields and event.get(name) not in (None, fields[name]):
                    raise _Wrong(rule, f"{event['type']} {short(event[name])} continues "
                                 f"{noun} {short(fields['id'])}, whose {name} is "
                                 f"{short(fields[name])}")  # fmt: skip
        else:
            out += self._close(owner)
            if ident is None:
                raise _Wrong(rule, f"the first {event['type']} of a {noun} has no {key}")
            fields = {"id": ident, "tag": tag}
            start: dict[str, Any] = {key: ident}
            if lane == "tool":
                if event.get("toolCallName") is None:
                    raise _Wrong(rule, f"the first TOOL_CALL_CHUNK of {noun} {short(ident)} "
                                 "has no toolCallName")  # fmt: skip
                fields["toolCallName"] = start["toolCallName"] = event["toolCallName"]
                fields["parentMessageId"] = event.get("parentMessageId")
                if fields["parentMessageId"] is not None:
                    start["parentMessageId"] = fields["parentMessageId"]
            elif lane == "text":
                fields["role"] = start["role"] = event.get("role", "assistant")
                fields["name"] = event.get("name")
            if tag is not None:
                start["subagentRunId"] = tag
            self.open[owner] = (lane, fields)
            opens = {"text": "TEXT_MESSAGE_START", "tool": "TOOL_CALL_START"}
            out.append({"type": opens.get(lane, "REASONING_MESSAGE_START"), **start})
        if "delta" in event or "rawEvent" in event:
            inside = {"text": "TEXT_MESSAGE_CONTENT", "tool": "TOOL_CALL_ARGS"}
            content = {"type": inside.get(lane, "REASONING_MESSAGE_CONTENT"), key: fields["id"]}
            content["delta"] = event.get("delta", "")
            owned = tag if tag is not None else fields["tag"]
            if owned is not None:
                content["subagentRunId"] = owned
            out.append(content)
        return out

    def _owner(
        self, lane: str, ident: Any, tag: Any, kind: str, rule: str, noun: str
    ) -> str | None:
        if ident is not None:
            for owner, (other, fields) in self.open.items():
                if other == lane and fields["id"] == ident:
                    if tag is not None and tag != owner:
                        raise _Wrong(rule, f"{kind} with subagentRunId {short(tag)} continues "
                                     f"{noun} {short(ident)}, open under "
                                     f"{_whose(owner)}")  # fmt: skip
                    return owner
            return tag  # type: ignore[no-any-return]
        if tag is not None:
            return tag  # type: ignore[no-any-return]
        if self.open.get(None, ("",))[0] == lane:
            return None
        owners = [owner for owner, (other, _) in self.open.items() if other == lane]
        if len(owners) > 1:
            raise _Wrong(rule, f"{kind} names no {_ID[lane]} nor subagentRunId, and "
                         f"{len(owners)} subagents have a {noun} open")  # fmt: skip
        return owners[0] if owners else None


def _whose(owner: str | None) -> str:
    return "the parent agent" if owner is None else f"subagent {short(owner)}"


@dataclass
class _Run:
    """``verifyEvents``' state: what is open in the current run, and who owns what."""

    first: bool = True
    started: bool = False
    finished: bool = False
    errored: bool = False
    messages: set[str] = field(default_factory=set)
    tools: set[str] = field(default_factory=set)
    spans: set[str] = field(default_factory=set)
    thoughts: set[str] = field(default_factory=set)
    steps: dict[tuple[str | None, str], None] = field(default_factory=dict)
    subagents: dict[str, None] = field(default_factory=dict)
    closed_subagents: set[str] = field(default_factory=set)
    owners: dict[str, dict[str, str | None]] = field(default_factory=dict)

    def _reset(self) -> None:
        first = self.first
        self.__init__()  # type: ignore[misc]
        self.first, self.started = first, True

    def owner_of(self, bucket: str, ident: str) -> tuple[bool, str | None]:
        book = self.owners.get(bucket, {})
        return (ident in book, book.get(ident))

    def own(self, bucket: str, ident: str, owner: str | None, replace: bool = False) -> None:
        book = self.owners.setdefault(bucket, {})
        if replace or ident not in book:
            book[ident] = owner

    def verify(self, event: dict[str, Any]) -> None:
        kind = event["type"]
        self._order(kind)
        handler = _HANDLERS.get(kind)
        if handler is not None:
            handler(self, event)

    def _order(self, kind: str) -> None:
        if self.errored and kind != "RUN_STARTED":
            raise _Wrong("ag-ui.terminal", f"{kind} after RUN_ERROR: the run had ended; only "
                         "a new RUN_STARTED may follow")  # fmt: skip
        if self.finished and kind not in ("RUN_ERROR", "RUN_STARTED"):
            raise _Wrong("ag-ui.terminal", f"{kind} after RUN_FINISHED: the run had ended; "
                         "start a new run with RUN_STARTED")  # fmt: skip
        if self.first:
            self.first = False
            if kind not in ("RUN_STARTED", "RUN_ERROR"):
                raise _Wrong("ag-ui.run-started",
                             f"the first event is {kind}, expected RUN_STARTED")  # fmt: skip
        elif kind == "RUN_STARTED":
            if self.started and not self.finished and not self.errored:
                raise _Wrong("ag-ui.run-started", "RUN_STARTED while a run is still active "
                             "(the run before it has no RUN_FINISHED or RUN_ERROR)")  # fmt: skip
            if self.finished or self.errored:
                self._reset()


def _tag(event: dict[str, Any]) -> str | None:
    return event.get("subagentRunId")


def _check_owner(run: _Run, event: dict[str, Any], bucket: str, ident: str, noun: str) -> None:
    tag = _tag(event)
    known, owner = run.owner_of(bucket, ident)
    if tag is not None and known and owner != tag:
        raise _Wrong("ag-ui.attribution", f"{event['type']} with subagentRunId {short(tag)} "
                     f"continues {noun} {short(ident)}, owned by {_whose(owner)}")  # fmt: skip


def _opener(bucket: str, open_attr: str, rule: str, noun: str, closer: str) -> Any:
    def handle(run: _Run, event: dict[str, Any]) -> None:
        ident = event["messageId"]
        opened: set[str] = getattr(run, open_attr)
        if ident in opened:
            raise _Wrong(rule, f"{event['type']} for {noun} {short(ident)}, already open "
                         f"(close it with {closer} first)")  # fmt: skip
        _check_owner(run, event, bucket, ident, noun)
        opened.add(ident)
        run.own(bucket, ident, _tag(event))

    return handle


def _continuation(
    bucket: str, open_attr: str, rule: str, noun: str, closes: bool, key: str = "messageId"
) -> Any:
    def handle(run: _Run, event: dict[str, Any]) -> None:
        ident = event[key]
        opened: set[str] = getattr(run, open_attr)
        if ident not in opened:
            raise _Wrong(rule, f"{event['type']} for {noun} {short(ident)}, which is not open")
        _check_owner(run, event, bucket, ident, noun)
        if closes:
            opened.discard(ident)

    return handle


def _tool_start(run: _Run, event: dict[str, Any]) -> None:
    ident, tag, parent = event["toolCallId"], _tag(event), event.get("parentMessageId")
    if ident in run.tools:
        raise _Wrong(_TOOL, f"TOOL_CALL_START for tool call {short(ident)}, already open "
                     "(close it with TOOL_CALL_END first)")  # fmt: skip
    inherited: tuple[bool, str | None] = (False, None)
    if parent is not None:
        inherited = run.owner_of("message", parent)
        if inherited[0] and tag is not None and tag != inherited[1]:
            raise _Wrong("ag-ui.attribution", f"TOOL_CALL_START with subagentRunId "
                         f"{short(tag)} in message {short(parent)}, owned by "
                         f"{_whose(inherited[1])}")  # fmt: skip
    known, owner = run.owner_of("tool", ident)
    if known:
        _check_owner(run, event, "tool", ident, "tool call")
        if tag is None and inherited[0] and inherited[1] != owner:
            raise _Wrong("ag-ui.attribution", f"TOOL_CALL_START reopens tool call "
                         f"{short(ident)} (owned by {_whose(owner)}) in message "
                         f"{short(parent)}, owned by {_whose(inherited[1])}")  # fmt: skip
    run.tools.add(ident)
    run.own("tool", ident, tag if tag is not None else inherited[1])


def _step(run: _Run, event: dict[str, Any]) -> None:
    name, tag = event["stepName"], _tag(event)
    if event["type"] == "STEP_STARTED":
        if (tag, name) in run.steps:
            raise _Wrong("ag-ui.step-pairing", f"STEP_STARTED for step {short(name)}, "
                         "already open")  # fmt: skip
        run.steps[(tag, name)] = None
    elif (tag, name) in run.steps:
        del run.steps[(tag, name)]
    else:
        others = [o for o, n in run.steps if n == name]
        under = f" (it is open under {_whose(others[0])})" if others else ""
        raise _Wrong("ag-ui.step-pairing", f"STEP_FINISHED for step {short(name)}, which is "
                     f"not open under {_whose(tag)}{under}")  # fmt: skip


def _activity(run: _Run, event: dict[str, Any]) -> None:
    ident = event["messageId"]
    if event["type"] == "ACTIVITY_DELTA":
        _check_owner(run, event, "activity", ident, "activity")
    elif not run.owner_of("activity", ident)[0] or event.get("replace") is not False:
        run.own("activity", ident, _tag(event), replace=True)


def _tool_result(run: _Run, event: dict[str, Any]) -> None:
    run.own("message", event["messageId"], _tag(event), replace=True)


def _encrypted(run: _Run, event: dict[str, Any]) -> None:
    ident = event["entityId"]
    if event["subtype"] == "tool-call":
        _check_owner(run, event, "tool", ident, "tool call")
    elif run.owner_of("message", ident)[0]:
        _check_owner(run, event, "message", ident, "message")
    else:
        _check_owner(run, event, "reasoning", ident, "reasoning message")


def _subagent(run: _Run, event: dict[str, Any]) -> None:
    ident, kind = event["subagentRunId"], event["type"]
    if kind == "SUBAGENT_STARTED":
        parent = event.get("parentSubagentRunId")
        if ident in run.subagents:
            raise _Wrong("ag-ui.subagents", f"SUBAGENT_STARTED for subagent {short(ident)}, "
                         "already active")  # fmt: skip
        if ident in run.closed_subagents:
            raise _Wrong(
                "ag-ui.subagents",
                f"SUBAGENT_STARTED for subagent {short(ident)}, "
                "which already finished in this run (ids are per invocation)",
            )
        known = parent in run.subagents or parent in run.closed_subagents
        if parent is not None and not known:
            raise _Wrong("ag-ui.subagents", f"SUBAGENT_STARTED names parentSubagentRunId "
                         f"{short(parent)}, which has not started in this run")  # fmt: skip
        run.subagents[ident] = None
    elif ident not in run.subagents:
        raise _Wrong("ag-ui.subagents", f"{kind} for subagent {short(ident)}, which is not "
                     "active")  # fmt: skip
    else:
        del run.subagents[ident]
        run.closed_subagents.add(ident)


def _seed(run: _Run, messages: Any, authoritative: bool) -> None:
    for message in messages if isinstance(messages, list) else ():
        if not isinstance(message, dict) or not isinstance(message.get("id"), str):
            continue
        role, owner = message.get("role"), message.get("subagentRunId")
        bucket = role if role in ("reasoning", "activity") else "message"
        run.own(bucket, message["id"], owner, replace=authoritative)
        for call in message.get("toolCalls") or ():
            if isinstance(call, dict) and isinstance(call.get("id"), str):
                run.own("tool", call["id"], owner, replace=authoritative)


def _run_started(run: _Run, event: dict[str, Any]) -> None:
    run.started = True
    given = event.get("input")
    _seed(run, given.get("messages") if isinstance(given, dict) else None, False)


def _run_finished(run: _Run, event: dict[str, Any]) -> None:
    still = [
        ("ag-ui.step-pairing", "step", [n for _, n in run.steps], "STEP_FINISHED"),
        (_TEXT, "message", sorted(run.messages), "TEXT_MESSAGE_END"),
        (_REASON, "reasoning message", sorted(run.thoughts), "REASONING_MESSAGE_END"),
        (_REASON, "reasoning span", sorted(run.spans), "REASONING_END"),
        (_TOOL, "tool call", sorted(run.tools), "TOOL_CALL_END"),
        ("ag-ui.subagents", "subagent", list(run.subagents), "SUBAGENT_FINISHED"),
    ]
    for rule, noun, open_, closer in still:
        if open_:
            listed = ", ".join(short(i) for i in open_)
            raise _Wrong(rule, f"RUN_FINISHED while {noun} {listed} is still open (never "
                         f"closed with {closer})")  # fmt: skip
    run.finished = True


def _run_error(run: _Run, event: dict[str, Any]) -> None:
    run.errored = True


_HANDLERS: dict[str, Any] = {
    "TEXT_MESSAGE_START": _opener("message", "messages", _TEXT, "message", "TEXT_MESSAGE_END"),
    "TEXT_MESSAGE_CONTENT": _continuation("message", "messages", _TEXT, "message", False),
    "TEXT_MESSAGE_END": _continuation("message", "messages", _TEXT, "message", True),
    "TOOL_CALL_START": _tool_start,
    "TOOL_CALL_ARGS": _continuation("tool", "tools", _TOOL, "tool call", False, "toolCallId"),
    "TOOL_CALL_END": _continuation("tool", "tools", _TOOL, "tool call", True, "toolCallId"),
    "TOOL_CALL_RESULT": _tool_result,
    "STEP_STARTED": _step,
    "STEP_FINISHED": _step,
    "ACTIVITY_SNAPSHOT": _activity,
    "ACTIVITY_DELTA": _activity,
    "REASONING_START": _opener("reasoning", "spans", _REASON, "reasoning span", "REASONING_END"),
    "REASONING_MESSAGE_START": _opener(
        "reasoning", "thoughts", _REASON, "reasoning message", "REASONING_MESSAGE_END"
    ),
    "REASONING_MESSAGE_CONTENT": _continuation(
        "reasoning", "thoughts", _REASON, "reasoning message", False
    ),
    "REASONING_MESSAGE_END": _continuation(
        "reasoning", "thoughts", _REASON, "reasoning message", True
    ),
    "REASONING_END": _continuation("reasoning", "spans", _REASON, "reasoning span", True),
    "REASONING_ENCRYPTED_VALUE": _encrypted,
    "SUBAGENT_STARTED": _subagent,
    "SUBAGENT_FINISHED": _subagent,
    "SUBAGENT_ERROR": _subagent,
    "MESSAGES_SNAPSHOT": lambda run, event: _seed(run, event.get("messages"), True),
    "RUN_STARTED": _run_started,
    "RUN_FINISHED": _run_finished,
    "RUN_ERROR": _run_error,
}
