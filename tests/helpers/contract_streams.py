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
PING = named("ping")
ANTHROPIC = (MESSAGE_START, BLOCK_START, PING, *DELTAS, BLOCK_STOP, MESSAGE_DELTA, MESSAGE_STOP)
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
    head: bytes = b""
    tail: bytes = b""
    status: int = 200
    content_type: str = "text/event-stream"
    reference: str = ""  # for a breaking case: the name of the reference it was made from

    @property
    def body(self) -> bytes:
        """The body bytes: the encoded events, then the raw tail."""
        encoded = b"".join(encode_event(e, self.line_ending, self.space) for e in self.events)
        return self.head + encoded + self.tail

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
        if self.head or self.tail or self.status != 200 or self.content_type != "text/event-stream":
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


def typed_stream(*events: tuple[str, dict[str, Any]], names: bool = True) -> tuple[Event, ...]:
    """Responses API events numbered 0, 1, 2, ...: ``event:`` name equal to the data's type."""
    return tuple(
        Event(event=kind if names else None, data={"type": kind, "sequence_number": n, **data})
        for n, (kind, data) in enumerate(events)
    )


def _response(status: str, output: list[Any], usage: Any) -> dict[str, Any]:
    return {
        "response": {
            "id": "resp_1",
            "object": "response",
            "status": status,
            "model": "gpt-test",
            "output": output,
            "usage": usage,
        }
    }


_TEXT_ITEM = {"id": "msg_1", "type": "message", "role": "assistant", "status": "in_progress"}
_PART = {"type": "output_text", "text": "", "annotations": []}
_AT_TEXT = {"item_id": "msg_1", "output_index": 0, "content_index": 0}
_CALL_ITEM = {
    "id": "fc_1",
    "type": "function_call",
    "call_id": "call_1",
    "name": "get_weather",
    "arguments": "",
    "status": "in_progress",
}
_AT_CALL = {"item_id": "fc_1", "output_index": 1}
_ARGS = '{"city": "Paris"}'
_DONE_TEXT = {**_TEXT_ITEM, "status": "completed", "content": [{**_PART, "text": "One, two"}]}
_DONE_CALL = {**_CALL_ITEM, "status": "completed", "arguments": _ARGS}
RESPONSES_USAGE = {"input_tokens": 9, "output_tokens": 4, "total_tokens": 13}
RESPONSES_EVENTS: list[tuple[str, dict[str, Any]]] = [
    ("response.created", _response("in_progress", [], None)),
    ("response.in_progress", _response("in_progress", [], None)),
    ("response.output_item.added", {"output_index": 0, "item": {**_TEXT_ITEM, "content": []}}),
    ("response.content_part.added", {**_AT_TEXT, "part": _PART}),
    ("response.output_text.delta", {**_AT_TEXT, "delta": "One, "}),
    ("response.output_text.delta", {**_AT_TEXT, "delta": "two"}),
    ("response.output_text.done", {**_AT_TEXT, "text": "One, two"}),
    ("response.content_part.done", {**_AT_TEXT, "part": {**_PART, "text": "One, two"}}),
    ("response.output_item.done", {"output_index": 0, "item": _DONE_TEXT}),
    ("response.output_item.added", {"output_index": 1, "item": _CALL_ITEM}),
    ("response.function_call_arguments.delta", {**_AT_CALL, "delta": '{"city":'}),
    ("response.function_call_arguments.delta", {**_AT_CALL, "delta": ' "Paris"}'}),
    ("response.function_call_arguments.done", {**_AT_CALL, "arguments": _ARGS}),
    ("response.output_item.done", {"output_index": 1, "item": _DONE_CALL}),
    ("response.completed", _response("completed", [_DONE_TEXT, _DONE_CALL], RESPONSES_USAGE)),
]
RESPONSES = typed_stream(*RESPONSES_EVENTS)


def gemini_chunk(text: str, count: int, finish: str | None = None, **top: Any) -> Event:
    """A Gemini GenerateContentResponse with one text part; ``count`` candidate tokens so far."""
    candidate: dict[str, Any] = {"content": {"parts": [{"text": text}], "role": "model"}}
    if finish:
        candidate["finishReason"] = finish
    usage = {"promptTokenCount": 9, "candidatesTokenCount": count, "totalTokenCount": 9 + count}
    body = {
        "candidates": [{**candidate, "index": 0}],
        "usageMetadata": usage,
        "modelVersion": "gemini-test",
        "responseId": "r1",
    }
    return Event(data={**body, **top})


GEMINI = (gemini_chunk("One", 1), gemini_chunk(", two", 3), gemini_chunk(", three", 4, "STOP"))
GEMINI_REQUEST = {"contents": [{"role": "user", "parts": [{"text": "Count to three."}]}]}

OPENAI_REFERENCE = Case("openai reference", OPENAI)
TOOLS_REFERENCE = Case("openai tool-call reference", TOOLS)
ANTHROPIC_REFERENCE = Case(
    "anthropic reference", ANTHROPIC, "anthropic-messages", buffered=ANTHROPIC_BUFFERED
)
BUFFERED_REFERENCE = Case(
    "stream equals buffered", OPENAI, ("openai-chat", "stream-equals-buffered"), buffered=BUFFERED
)
RESPONSES_REFERENCE = Case(
    "responses reference", RESPONSES, "openai-responses", request={"model": "gpt-test"}
)
GEMINI_REFERENCE = Case(
    "gemini reference", GEMINI, "gemini", request=GEMINI_REQUEST, line_ending="\r\n"
)
REFERENCES = (
    OPENAI_REFERENCE,
    TOOLS_REFERENCE,
    ANTHROPIC_REFERENCE,
    BUFFERED_REFERENCE,
    RESPONSES_REFERENCE,
    GEMINI_REFERENCE,
)
REFERENCE_BY_NAME = {case.name: case for case in REFERENCES}

_merged = Event(data=f"{CONTENT[0].data_text}\n{CONTENT[1].data_text}")
_a = ANTHROPIC_REFERENCE
_b = BUFFERED_REFERENCE
_o = OPENAI_REFERENCE
_t = TOOLS_REFERENCE
_r = RESPONSES_REFERENCE
_g = GEMINI_REFERENCE

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
    "openai.empty-choices": replace(_o, events=(_with(ROLE, choices=[]), *OPENAI)),
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
    "anthropic.ping": replace(_a, events=swap(ANTHROPIC, MESSAGE_DELTA, PING, MESSAGE_DELTA)),
    "anthropic.unknown-event": replace(
        _a, events=swap(ANTHROPIC, MESSAGE_STOP, named("future_event_xyz"), MESSAGE_STOP)
    ),
    "anthropic.buffered-text": replace(
        _a, buffered={"content": [{"type": "text", "text": "One, two, three"}]}
    ),
}


def _retyped(*changes: tuple[int, tuple[str, dict[str, Any]] | None]) -> tuple[Event, ...]:
    """The Responses reference with events replaced (None: removed), renumbered."""
    events: list[tuple[str, dict[str, Any]] | None] = list(RESPONSES_EVENTS)
    for index, new in changes:
        events[index] = new
    return typed_stream(*(e for e in events if e is not None))


def _gemini_choice(event: Event, **changes: Any) -> Event:
    (candidate,) = event.data["candidates"]
    return _with(event, candidates=[{**candidate, **changes}])


_spaced_finish = Event(data=json.dumps(FINISH.data))
_no_finish_key = chunk(choices=[{"index": 0, "delta": {"content": ", two"}, "logprobs": None}])
_WHOLE = {**TOOL_START, "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}
_completed = RESPONSES_EVENTS[-1]
BREAKING.update(
    {
        # logprobs asked, and the stream carries none: its tokens do not spell the text
        "openai.token-reassembly": replace(_o, request={**REQUEST, "logprobs": True}),
        "buffered.received": replace(_r, buffered="the buffered request got status 500: {}"),
        "sse.bom": replace(_o, head=b"\xef\xbb\xbf"),
        "sse.json-spacing": replace(_o, events=swap(OPENAI, FINISH, _spaced_finish)),
        "openai.event-name": replace(
            _o, events=swap(OPENAI, CONTENT[0], Event(event="chunk", data=CONTENT[0].data))
        ),
        "openai.choice-keys": replace(_o, events=swap(OPENAI, CONTENT[1], _no_finish_key)),
        "openai.content-string": replace(
            _o,
            events=swap(OPENAI, CONTENT[1], chunk({"content": [{"type": "text", "text": "2"}]})),
        ),
        "openai.reasoning": replace(
            _o, events=swap(OPENAI, ROLE, ROLE, chunk({"reasoning_content": "Counting."}))
        ),
        "openai.extra-fields": replace(
            _o, events=swap(OPENAI, CONTENT[0], _with(CONTENT[0], provider="mock"))
        ),
        "openai.tool-call-whole": replace(
            _t, events=swap(swap(swap(TOOLS, TOOLS[3]), TOOLS[2]), TOOLS[1], tool_fragment(_WHOLE))
        ),
        "openai.tool-call-finish": replace(_t, events=swap(TOOLS, TOOLS[4], chunk({}, "stop"))),
        "responses.json": replace(_r, events=swap(RESPONSES, RESPONSES[5], RESPONSES[5], _merged)),
        "responses.event-name": replace(
            _r, events=swap(RESPONSES, RESPONSES[4], Event(data=RESPONSES[4].data))
        ),
        "responses.sequence": replace(
            _r,
            events=swap(
                RESPONSES,
                RESPONSES[4],
                Event(event=RESPONSES[4].event, data={**RESPONSES[4].data, "sequence_number": 40}),
            ),
        ),
        "responses.created": replace(_r, events=_retyped((1, None))),
        "responses.terminal": replace(_r, events=RESPONSES[:-1]),
        "responses.items": replace(_r, events=_retyped((13, None))),
        "responses.done-text": replace(
            _r, events=_retyped((6, ("response.output_text.done", {**_AT_TEXT, "text": "One"})))
        ),
        "responses.arguments": replace(
            _r,
            events=_retyped(
                (11, ("response.function_call_arguments.delta", {**_AT_CALL, "delta": ""})),
                (
                    12,
                    (
                        "response.function_call_arguments.done",
                        {**_AT_CALL, "arguments": '{"city":'},
                    ),
                ),
            ),
        ),
        "responses.usage": replace(
            _r,
            events=_retyped(
                (
                    14,
                    (
                        _completed[0],
                        _response("completed", [], {**RESPONSES_USAGE, "total_tokens": 1}),
                    ),
                )
            ),
        ),
        "responses.error": replace(
            _r,
            events=typed_stream(
                *RESPONSES_EVENTS[:-1],
                ("error", {"code": "server_error", "message": "boom", "param": None}),
                _completed,
            ),
        ),
        "responses.done-sentinel": replace(_r, events=(*RESPONSES, DONE)),
        "responses.unknown-event": replace(
            _r,
            events=typed_stream(
                *RESPONSES_EVENTS[:-1], ("response.future_event_xyz", {}), _completed
            ),
        ),
        "gemini.line-endings": replace(_g, line_ending="\n"),
        "gemini.json": replace(_g, events=(*GEMINI, DONE)),
        "gemini.candidates": replace(
            _g, events=swap(GEMINI, GEMINI[1], _with(GEMINI[1], candidates=[]))
        ),
        "gemini.finish": replace(_g, events=(*GEMINI[:2], gemini_chunk(", three", 4))),
        "gemini.usage": replace(_g, events=(*GEMINI[:2], gemini_chunk(", three", 2, "STOP"))),
        "gemini.stable": replace(
            _g, events=swap(GEMINI, GEMINI[1], _with(GEMINI[1], responseId="r2"))
        ),
        "gemini.error": replace(
            _g, events=swap(GEMINI, GEMINI[2], Event(data={"error": {"code": 500}}), GEMINI[2])
        ),
        "gemini.function-call": replace(
            _g,
            events=swap(
                GEMINI,
                GEMINI[1],
                _gemini_choice(
                    GEMINI[1], content={"parts": [{"functionCall": {}}], "role": "model"}
                ),
            ),
        ),
    }
)

BREAKING = {rule: replace(case, name=rule, reference=case.name) for rule, case in BREAKING.items()}
