"""AG-UI 1.0's event schemas, read as the reference client reads them.

``@ag-ui/client`` 1.0 (its ``enforceEvents``) takes each event it does not drop in two
passes: first it strips what the schema does not describe (an unknown key, an unknown
member of a discriminated union: a JSON Patch operation whose ``op`` it does not know, a
message whose ``role`` it does not know, a content part of an unknown ``type``), with a
warning; then it validates what is left against the schema (``@ag-ui/core`` 1.0, generated
from the protocol's JSON Schema), and a malformed value on a described field fails the run.
``enforce`` does both in one walk: it returns what was stripped and the first error.

The schema nodes are a small subset of what zod offers, enough for these schemas: strings
(optionally matching a pattern), safe integers, booleans, enums and literals, any JSON value
(optionally not null), objects (open or closed to unknown keys), arrays, a string-or-array
union and unions discriminated by a key.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["EVENT_SCHEMAS", "Invalid", "enforce"]

_SAFE = 9007199254740991


class Invalid(Exception):
    """A described field holds a value its schema does not admit: fatal for the run."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path or '(the event)'} {problem}")
        self.path = path
        self.problem = problem


_DROP = object()  # an unrecognised union member: dropped from its array or its key


@dataclass
class _Walk:
    stripped: list[str] = field(default_factory=list)


Node = Callable[[Any, str, _Walk], Any]


def _name(value: Any) -> str:
    from ._rule import short

    return short(value, 40)


def text(pattern: str | None = None) -> Node:
    matcher = re.compile(pattern) if pattern else None

    def check(value: Any, path: str, walk: _Walk) -> Any:
        if not isinstance(value, str):
            raise Invalid(path, f"is {_name(value)}, expected a string")
        if matcher and not matcher.fullmatch(value):
            raise Invalid(path, f"is {_name(value)}, not a JSON pointer")
        return value

    return check


def integer(low: int = -_SAFE) -> Node:
    def check(value: Any, path: str, walk: _Walk) -> Any:
        whole = isinstance(value, int) or (isinstance(value, float) and value.is_integer())
        if isinstance(value, bool) or not whole or not low <= value <= _SAFE:
            raise Invalid(path, f"is {_name(value)}, expected an integer from {low}")
        return value

    return check


def boolean(value: Any, path: str, walk: _Walk) -> Any:
    if not isinstance(value, bool):
        raise Invalid(path, f"is {_name(value)}, expected true or false")
    return value


def one_of(*allowed: str) -> Node:
    def check(value: Any, path: str, walk: _Walk) -> Any:
        if value not in allowed or not isinstance(value, str):
            raise Invalid(path, f"is {_name(value)}, expected one of {', '.join(allowed)}")
        return value

    return check


def anything(not_null: bool = False) -> Node:
    def check(value: Any, path: str, walk: _Walk) -> Any:
        if not_null and value is None:
            raise Invalid(path, "is null (the field is optional: omit it)")
        return value

    return check


def json_object(value: Any, path: str, walk: _Walk) -> Any:
    if not isinstance(value, dict):
        raise Invalid(path, f"is {_name(value)}, expected an object")
    return value


@dataclass(frozen=True)
class _Field:
    node: Node
    optional: bool


def opt(node: Node) -> _Field:
    return _Field(node, True)


def obj(**fields: Node | _Field) -> Node:
    """A JSON object with ``fields`` (a ``_Field`` from ``opt`` is optional; others are
    required). Keys it does not describe are stripped."""
    return _object(fields, spec_open=False)


def open_obj(**fields: Node | _Field) -> Node:
    """As ``obj``, but keys it does not describe are kept (RFC 6902 says to ignore them)."""
    return _object(fields, spec_open=True)


def _object(fields: dict[str, Node | _Field], spec_open: bool) -> Node:
    shape = {k: f if isinstance(f, _Field) else _Field(f, False) for k, f in fields.items()}

    def check(value: Any, path: str, walk: _Walk) -> Any:
        if not isinstance(value, dict):
            raise Invalid(path, f"is {_name(value)}, expected an object")
        kept: dict[str, Any] = {}
        for key, item in value.items():
            spec = shape.get(key)
            if spec is None:
                if spec_open:
                    kept[key] = item
                else:
                    walk.stripped.append(f"{path}/{key}")
                continue
            got = spec.node(item, f"{path}/{key}", walk)
            if got is _DROP:
                if not spec.optional:
                    return _DROP
                walk.stripped.append(f"{path}/{key}")
                continue
            kept[key] = got
        for key, spec in shape.items():
            if key not in kept and not spec.optional:
                raise Invalid(f"{path}/{key}", "is missing")
        return kept

    return check


def array(element: Node, least: int = 0) -> Node:
    def check(value: Any, path: str, walk: _Walk) -> Any:
        if not isinstance(value, list):
            raise Invalid(path, f"is {_name(value)}, expected an array")
        kept = []
        for i, item in enumerate(value):
            got = element(item, f"{path}/{i}", walk)
            if got is _DROP:
                walk.stripped.append(f"{path}/{i}")
            else:
                kept.append(got)
        if len(kept) < least:
            raise Invalid(path, f"has {len(kept)} entries, expected at least {least}")
        return kept

    return check


def text_or(many: Node) -> Node:
    """A string, or an array (``content``: text or parts)."""
    as_text = text()

    def check(value: Any, path: str, walk: _Walk) -> Any:
        if isinstance(value, list):
            return many(value, path, walk)
        if isinstance(value, str):
            return as_text(value, path, walk)
        raise Invalid(path, f"is {_name(value)}, expected a string or an array")

    return check


def tagged(key: str, **options: Node) -> Node:
    """A union discriminated by ``key``: an object whose ``key`` names none of the options
    is an unrecognised member (stripped); a value that is no object is invalid."""

    def check(value: Any, path: str, walk: _Walk) -> Any:
        if not isinstance(value, dict):
            raise Invalid(path, f"is {_name(value)}, expected an object with a {key}")
        tag = value.get(key)
        option = options.get(tag) if isinstance(tag, str) else None
        return _DROP if option is None else option(value, path, walk)

    return check


_STR, _ANY = text(), anything(not_null=True)
_POINTER = text(r"(/([^/~]|~[01])*)*")
_META = opt(json_object)
_SUB = opt(_STR)
_COUNT = opt(integer(0))


def _event(attributable: bool = True, **fields: Node | _Field) -> Node:
    base: dict[str, Node | _Field] = {
        "type": _STR,
        "timestamp": opt(integer()),
        "rawEvent": opt(_ANY),
        "metadata": _META,
    }
    if attributable:
        base["subagentRunId"] = _SUB
    return obj(**base, **fields)


_SOURCE = tagged(
    "type",
    data=obj(type=_STR, value=_STR, mimeType=_STR),
    url=obj(type=_STR, value=_STR, mimeType=opt(_STR)),
    file=obj(type=_STR, value=_STR, provider=opt(_STR), mimeType=opt(_STR)),
)
_MEDIA = obj(type=_STR, id=opt(_STR), source=_SOURCE, metadata=opt(_ANY))
_PART = tagged(
    "type",
    text=obj(type=_STR, id=opt(_STR), text=_STR, metadata=opt(_ANY)),
    image=_MEDIA,
    audio=_MEDIA,
    video=_MEDIA,
    document=_MEDIA,
)
_CONTENT = text_or(array(_PART))
_PATCH = array(
    tagged(
        "op",
        add=open_obj(op=_STR, path=_POINTER, value=anything()),
        remove=open_obj(op=_STR, path=_POINTER),
        replace=open_obj(op=_STR, path=_POINTER, value=anything()),
        move=open_obj(op=_STR, **{"from": _POINTER}, path=_POINTER),
        copy=open_obj(op=_STR, **{"from": _POINTER}, path=_POINTER),
        test=open_obj(op=_STR, path=_POINTER, value=anything()),
    )
)
_TOOL_CALL = obj(
    id=_STR,
    type=one_of("function"),
    function=obj(name=_STR, arguments=_STR),
    encryptedValue=opt(_STR),
    metadata=_META,
)
_MESSAGE_BASE: dict[str, Node | _Field] = {
    "subagentRunId": _SUB,
    "id": _STR,
    "role": _STR,
    "metadata": _META,
}
_NAMED: dict[str, Node | _Field] = {"name": opt(_STR), "encryptedValue": opt(_STR)}
_MESSAGE = tagged(
    "role",
    developer=obj(**_MESSAGE_BASE, **_NAMED, content=_STR),
    system=obj(**_MESSAGE_BASE, **_NAMED, content=_STR),
    assistant=obj(**_MESSAGE_BASE, **_NAMED, content=opt(_STR), toolCalls=opt(array(_TOOL_CALL))),
    user=obj(**_MESSAGE_BASE, **_NAMED, content=_CONTENT),
    tool=obj(
        **_MESSAGE_BASE,
        content=_CONTENT,
        toolCallId=_STR,
        error=opt(_STR),
        encryptedValue=opt(_STR),
    ),
    activity=obj(**_MESSAGE_BASE, activityType=_STR, content=json_object),
    reasoning=obj(**_MESSAGE_BASE, content=_STR, encryptedValue=opt(_STR)),
)
_USAGE = opt(
    array(
        obj(
            provider=opt(_STR),
            model=opt(_STR),
            inputTokens=_COUNT,
            outputTokens=_COUNT,
            totalTokens=_COUNT,
            reasoningTokens=_COUNT,
            cachedInputTokens=_COUNT,
            cacheWriteInputTokens=_COUNT,
        )
    )
)
_INPUT = obj(
    threadId=_STR,
    runId=_STR,
    protocolVersion=opt(_STR),
    parentRunId=opt(_STR),
    state=opt(anything()),
    messages=array(_MESSAGE),
    tools=opt(array(obj(name=_STR, description=_STR, parameters=opt(_ANY), metadata=_META))),
    context=opt(array(obj(description=_STR, value=_STR))),
    forwardedProps=opt(_ANY),
    resume=opt(
        array(
            obj(
                interruptId=_STR,
                status=one_of("resolved", "cancelled"),
                payload=opt(_ANY),
                metadata=_META,
            )
        )
    ),
)
_INTERRUPT = obj(
    subagentRunId=_SUB,
    id=_STR,
    reason=_STR,
    message=opt(_STR),
    toolCallId=opt(_STR),
    responseSchema=opt(json_object),
    expiresAt=opt(_STR),
    metadata=_META,
)
_TEXT_ROLE = one_of("developer", "system", "assistant", "user")

EVENT_SCHEMAS: dict[str, Node] = {
    "TEXT_MESSAGE_START": _event(messageId=_STR, role=opt(_TEXT_ROLE), name=opt(_STR)),
    "TEXT_MESSAGE_CONTENT": _event(messageId=_STR, delta=_STR),
    "TEXT_MESSAGE_END": _event(messageId=_STR),
    "TEXT_MESSAGE_CHUNK": _event(
        messageId=opt(_STR), role=opt(_TEXT_ROLE), delta=opt(_STR), name=opt(_STR)
    ),
    "TOOL_CALL_START": _event(toolCallId=_STR, toolCallName=_STR, parentMessageId=opt(_STR)),
    "TOOL_CALL_ARGS": _event(toolCallId=_STR, delta=_STR),
    "TOOL_CALL_END": _event(toolCallId=_STR),
    "TOOL_CALL_CHUNK": _event(
        toolCallId=opt(_STR),
        toolCallName=opt(_STR),
        parentMessageId=opt(_STR),
        delta=opt(_STR),
    ),
    "TOOL_CALL_RESULT": _event(
        messageId=_STR, toolCallId=_STR, content=_CONTENT, role=opt(one_of("tool"))
    ),
    "STATE_SNAPSHOT": _event(snapshot=anything()),
    "STATE_DELTA": _event(delta=_PATCH),
    "MESSAGES_SNAPSHOT": _event(False, messages=array(_MESSAGE)),
    "ACTIVITY_SNAPSHOT": _event(
        messageId=_STR, activityType=_STR, content=json_object, replace=opt(boolean)
    ),
    "ACTIVITY_DELTA": _event(messageId=_STR, activityType=_STR, patch=_PATCH),
    "RAW": _event(event=anything(), source=opt(_STR)),
    "CUSTOM": _event(name=_STR, value=anything()),
    "RUN_STARTED": _event(
        False,
        threadId=_STR,
        runId=_STR,
        protocolVersion=opt(_STR),
        parentRunId=opt(_STR),
        input=opt(_INPUT),
    ),
    "RUN_FINISHED": _event(
        False,
        threadId=_STR,
        runId=_STR,
        result=opt(_ANY),
        outcome=opt(
            tagged(
                "type",
                success=obj(type=_STR, pendingToolCallIds=opt(array(_STR))),
                interrupt=obj(type=_STR, interrupts=array(_INTERRUPT, least=1)),
                cancelled=obj(type=_STR),
            )
        ),
        usage=_USAGE,
    ),
    "RUN_ERROR": _event(False, message=_STR, code=opt(_STR), usage=_USAGE),
    "STEP_STARTED": _event(stepName=_STR),
    "STEP_FINISHED": _event(stepName=_STR),
    "REASONING_START": _event(messageId=_STR),
    "REASONING_MESSAGE_START": _event(messageId=_STR, role=one_of("reasoning")),
    "REASONING_MESSAGE_CONTENT": _event(messageId=_STR, delta=_STR),
    "REASONING_MESSAGE_END": _event(messageId=_STR),
    "REASONING_MESSAGE_CHUNK": _event(messageId=opt(_STR), delta=opt(_STR)),
    "REASONING_END": _event(messageId=_STR),
    "REASONING_ENCRYPTED_VALUE": _event(
        subtype=one_of("tool-call", "message"), entityId=_STR, encryptedValue=_STR
    ),
    "SUBAGENT_STARTED": _event(
        False,
        subagentRunId=_STR,
        name=_STR,
        description=opt(_STR),
        parentSubagentRunId=opt(_STR),
        parentToolCallId=opt(_STR),
        parentMessageId=opt(_STR),
    ),
    "SUBAGENT_FINISHED": _event(
        False,
        subagentRunId=_STR,
        result=opt(_ANY),
        outcome=opt(
            tagged(
                "type",
                success=obj(type=_STR),
                suspended=obj(type=_STR, interruptIds=opt(array(_STR))),
            )
        ),
    ),
    "SUBAGENT_ERROR": _event(False, subagentRunId=_STR, message=_STR, code=opt(_STR)),
}
"""Each event type's schema (``@ag-ui/core`` 1.0's ``EventSchema`` members)."""

# Whole optional nulls the client's compatibility boundary removes (with a warning) before
# the schema sees them: pre-1.0 producers sent them.
_LEGACY_NULLS = {
    "TOOL_CALL_START": ("parentMessageId",),
    "TOOL_CALL_CHUNK": ("parentMessageId",),
    "RUN_FINISHED": ("result", "outcome"),
    "SUBAGENT_FINISHED": ("result",),
}


def enforce(event: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """``event`` as the client keeps it (what its schema does not describe stripped) and the
    paths stripped. ``event["type"]`` must be a key of ``EVENT_SCHEMAS``.

    Raises:
        Invalid: a described field holds a value the schema does not admit.
    """
    kind = event["type"]
    legacy = ("rawEvent", *_LEGACY_NULLS.get(kind, ()))
    if any(key in event and event[key] is None for key in legacy):
        event = {k: v for k, v in event.items() if not (k in legacy and v is None)}
    sent = event.get("input")
    if kind == "RUN_STARTED" and isinstance(sent, dict) and sent.get("forwardedProps", 0) is None:
        event = {**event, "input": {k: v for k, v in sent.items() if k != "forwardedProps"}}
    walk = _Walk()
    kept = EVENT_SCHEMAS[kind](event, "", walk)
    return kept, walk.stripped
