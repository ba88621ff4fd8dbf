"""Streams for the contract tests: reference shapes, and one breaking case per rule."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

import mockhttp
from mockhttp import Event
from mockhttp.contract import Transcript
from mockhttp.sse import LineEnding, encode_event

REQUEST = {
    "model": "gpt-test",
    "messages": [{"role": "user", "content": "Count to three."}],
    "temperature": 0,
    "stream": True,
    "stream_options": {"include_usage": True},
}
NO_USAGE_REQUEST = {k: v for k, v in REQUEST.items() if k != "stream_options"}
USAGE = {"prompt_tokens": 9, "completion_tokens": 4, "total_tokens": 13}
BUFFERED = {
    "id": "chatcmpl-2",
    "object": "chat.completion",
    "model": "gpt-test",
    "choices": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": "One, two, three"},
            "finish_reason": "stop",
        }
    ],
}


def chunk(delta: Any = None, finish: str | None = None, **top: Any) -> Event:
    """An OpenAI chunk event with one choice (index 0); ``top`` overrides top-level keys."""
    body: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "gpt-test",
        "choices": [{"index": 0, "delta": delta or {}, "logprobs": None, "finish_reason": finish}],
    }
    return Event(data={**body, **top})


ROLE = chunk({"role": "assistant", "content": ""})
CONTENT = [chunk({"content": text}) for text in ("One", ", two", ", three")]
FINISH = chunk({}, "stop")
USAGE_CHUNK = chunk(choices=[], usage=USAGE)
DONE = Event(data="[DONE]")
OPENAI = (ROLE, *CONTENT, FINISH, USAGE_CHUNK, DONE)


def tool_fragment(call: dict[str, Any], finish: str | None = None) -> Event:
    """A chunk carrying one tool-call fragment."""
    return chunk({"tool_calls": [call]}, finish)


TOOL_START = {
    "index": 0,
    "id": "call_1",
    "type": "function",
    "function": {"name": "get_weather", "arguments": ""},
}
TOOLS = (
    chunk({"role": "assistant", "content": None}),
    tool_fragment(TOOL_START),
    tool_fragment({"index": 0, "function": {"arguments": '{"city":'}}),
    tool_fragment({"index": 0, "function": {"arguments": ' "Paris"}'}}),
    chunk({}, "tool_calls"),
    USAGE_CHUNK,
    DONE,
)


def named(kind: str, **data: Any) -> Event:
    """An Anthropic event: ``event:`` name and data ``type`` agree."""
    return Event(event=kind, data={"type": kind, **data})


MESSAGE_START = named(
    "message_start",
    message={
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [],
        "stop_reason": None,
        "usage": {"input_tokens": 9, "output_tokens": 1},
    },
)
BLOCK_START = named("content_block_start", index=0, content_block={"type": "text", "text": ""})
DELTAS = tuple(
    named("content_block_delta", index=0, delta={"type": "text_delta", "text": text})
    for text in ("One, ", "two")
)
BLOCK_STOP = named("content_block_stop", index=0)
MESSAGE_DELTA = named(
    "message_delta",
    delta={"stop_reason": "end_turn", "stop_sequence": None},
    usage={"output_tokens": 4},
)
MESSAGE_STOP = named("message_stop")
ANTHROPIC = (MESSAGE_START, BLOCK_START, *DELTAS, BLOCK_STOP, MESSAGE_DELTA, MESSAGE_STOP)
ANTHROPIC_BUFFERED = {"type": "message", "content": [{"type": "text", "text": "One, two"}]}


@dataclass(frozen=True)
class Case:
    """A stream (events plus framing) with what was asked and the profile to check."""

    name: str
    events: tuple[Event, ...]
    profile: str | tuple[str, ...] = "openai-chat"
    request: Any = field(default_factory=lambda: REQUEST)
    buffered: Any = None
    line_ending: LineEnding = "\n"
    space: bool = True
    tail: bytes = b""
    status: int = 200
    content_type: str = "text/event-stream"
    reference: str = ""  # for a breaking case: the name of the reference it was made from

    @property
    def body(self) -> bytes:
        """The body bytes: the encoded events, then the raw tail."""
        encoded = b"".join(encode_event(e, self.line_ending, self.space) for e in self.events)
        return encoded + self.tail

    def transcript(self) -> Transcript:
        """The exchange as a pure transcript (no sockets)."""
        return Transcript.from_body(
            self.body,
            status=self.status,
            headers={"content-type": self.content_type},
            request=self.request,
            buffered=self.buffered,
        )

    def reply(self) -> mockhttp.Reply:
        """The same stream as a mockhttp reply: events written one by one where possible."""
        if self.tail or self.status != 200 or self.content_type != "text/event-stream":
            return (
                mockhttp.status(self.status)
                .header("Content-Type", self.content_type)
                .body(self.body)
            )
        return mockhttp.ok().event_stream(
            *self.events, line_ending=self.line_ending, space=self.space
        )


def swap(events: tuple[Event, ...], old: Event, *new: Event) -> tuple[Event, ...]:
    """``events`` with ``old`` replaced by ``new`` (nothing, one or several events)."""
    i = events.index(old)
    return (*events[:i], *new, *events[i + 1 :])


def _with(event: Event, **top: Any) -> Event:
    return Event(data={**event.data, **top})


def _choice(event: Event, **changes: Any) -> Event:
    (choice,) = event.data["choices"]
    return _with(event, choices=[{**choice, **changes}])


OPENAI_REFERENCE = Case("openai reference", OPENAI)
TOOLS_REFERENCE = Case("openai tool-call reference", TOOLS)
ANTHROPIC_REFERENCE = Case(
    "anthropic reference", ANTHROPIC, "anthropic-messages", buffered=ANTHROPIC_BUFFERED
)
BUFFERED_REFERENCE = Case(
    "stream equals buffered", OPENAI, ("openai-chat", "stream-equals-buffered"), buffered=BUFFERED
)
REFERENCES = (OPENAI_REFERENCE, TOOLS_REFERENCE, ANTHROPIC_REFERENCE, BUFFERED_REFERENCE)
REFERENCE_BY_NAME = {case.name: case for case in REFERENCES}

_merged = Event(data=f"{CONTENT[0].data_text}\n{CONTENT[1].data_text}")
_a = ANTHROPIC_REFERENCE
_b = BUFFERED_REFERENCE
_o = OPENAI_REFERENCE
_t = TOOLS_REFERENCE

# rule id -> a stream that breaks exactly that rule
BREAKING: dict[str, Case] = {
    "http.status": replace(_o, status=500, content_type="application/json", tail=b'{"error":{}}'),
    "http.content-type": replace(
        _o, events=(), content_type="application/json", tail=json.dumps(BUFFERED).encode()
    ),
    "sse.unterminated": replace(_o, tail=b'data: {"id":"chatcmpl-1"'),
    "sse.comments": replace(_o, events=(Event(comment="OPENROUTER PROCESSING"), *OPENAI)),
    "sse.line-endings": replace(_o, line_ending="\r\n"),
    "sse.data-space": replace(_o, space=False),
    "openai.one-data-line": replace(_o, events=swap(swap(OPENAI, CONTENT[1]), CONTENT[0], _merged)),
    "openai.json": replace(_o, events=swap(OPENAI, FINISH, Event(data="not json"), FINISH)),
    "openai.done": replace(_o, events=OPENAI[:-1]),
    "openai.done-last": replace(_o, events=(*OPENAI, DONE)),
    "openai.error": replace(
        _o, events=swap(OPENAI, DONE, Event(data={"error": {"type": "server_error"}}), DONE)
    ),
    "openai.object": replace(
        _o, events=swap(OPENAI, CONTENT[1], _with(CONTENT[1], object="chat.completion"))
    ),
    "openai.choices": replace(
        _o, events=swap(OPENAI, FINISH, _with(CONTENT[0], choices=None), FINISH)
    ),
    "openai.empty-choices": replace(
        _o, events=(_with(ROLE, choices=[], prompt_filter_results=[]), *OPENAI)
    ),
    "openai.stable-id": replace(_o, events=swap(OPENAI, CONTENT[2], _with(CONTENT[2], id="x"))),
    "openai.stable-model": replace(
        _o, events=swap(OPENAI, CONTENT[2], _with(CONTENT[2], model="other"))
    ),
    "openai.role-first": replace(_o, events=swap(OPENAI, ROLE, chunk({"content": ""}))),
    "openai.first-content": replace(
        _o,
        events=swap(swap(OPENAI, CONTENT[0]), ROLE, chunk({"role": "assistant", "content": "One"})),
    ),
    "openai.role-repeated": replace(
        _o, events=swap(OPENAI, CONTENT[1], chunk({"role": "assistant", "content": ", two"}))
    ),
    "openai.finish-once": replace(_o, events=swap(OPENAI, FINISH)),
    "openai.finish-separate": replace(
        _o, events=swap(swap(OPENAI, FINISH), CONTENT[2], chunk({"content": ", three"}, "stop"))
    ),
    "openai.after-finish": replace(
        _o, events=swap(swap(OPENAI, CONTENT[2]), FINISH, FINISH, CONTENT[2])
    ),
    "openai.usage-opt-in": replace(_o, request=NO_USAGE_REQUEST),
    "openai.usage-once": replace(_o, events=swap(OPENAI, USAGE_CHUNK)),
    "openai.usage-chunk": replace(
        _o, events=swap(swap(OPENAI, USAGE_CHUNK), FINISH, _with(FINISH, usage=USAGE))
    ),
    "openai.usage-total": replace(
        _o,
        events=swap(OPENAI, USAGE_CHUNK, _with(USAGE_CHUNK, usage={**USAGE, "total_tokens": 14})),
    ),
    "openai.tool-call-index": replace(
        _t, events=swap(TOOLS, TOOLS[2], tool_fragment({"function": {"arguments": ""}}), TOOLS[2])
    ),
    "openai.tool-call-start": replace(
        _t, events=swap(TOOLS, TOOLS[1], tool_fragment({**TOOL_START, "id": ""}))
    ),
    "openai.tool-call-args": replace(
        _t,
        events=swap(
            TOOLS, TOOLS[3], tool_fragment({"index": 0, "function": {"arguments": ' "Par'}})
        ),
    ),
    "buffered.answer": replace(_b, buffered={"object": "chat.completion", "choices": []}),
    "buffered.content": replace(
        _b, buffered=json.loads(json.dumps(BUFFERED).replace("One, two", "One, too"))
    ),
    "buffered.finish-reason": replace(
        _b, buffered=json.loads(json.dumps(BUFFERED).replace('"stop"', '"length"'))
    ),
    "anthropic.json": replace(
        _a,
        events=swap(
            ANTHROPIC, BLOCK_STOP, Event(event="content_block_delta", data="oops"), BLOCK_STOP
        ),
    ),
    "anthropic.event-name": replace(
        _a, events=swap(ANTHROPIC, DELTAS[0], Event(event="delta", data=DELTAS[0].data))
    ),
    "anthropic.order": replace(
        _a, events=swap(swap(ANTHROPIC, MESSAGE_DELTA), BLOCK_STOP, MESSAGE_DELTA, BLOCK_STOP)
    ),
    "anthropic.block-index": replace(
        _a,
        events=swap(
            ANTHROPIC,
            DELTAS[1],
            named("content_block_delta", index=1, delta=DELTAS[1].data["delta"]),
        ),
    ),
    "anthropic.stop-reason": replace(
        _a,
        events=swap(ANTHROPIC, MESSAGE_DELTA, named("message_delta", delta={"stop_reason": None})),
    ),
    "anthropic.message-stop": replace(_a, events=ANTHROPIC[:-1]),
    "anthropic.error": replace(
        _a,
        events=swap(
            ANTHROPIC,
            MESSAGE_STOP,
            named("error", error={"type": "overloaded_error"}),
            MESSAGE_STOP,
        ),
    ),
    "anthropic.ping": replace(_a, events=swap(ANTHROPIC, DELTAS[0], named("ping"), DELTAS[0])),
    "anthropic.unknown-event": replace(
        _a, events=swap(ANTHROPIC, MESSAGE_STOP, named("future_event_xyz"), MESSAGE_STOP)
    ),
    "anthropic.buffered-text": replace(
        _a, buffered={"content": [{"type": "text", "text": "One, two, three"}]}
    ),
}
BREAKING = {rule: replace(case, name=rule, reference=case.name) for rule, case in BREAKING.items()}
