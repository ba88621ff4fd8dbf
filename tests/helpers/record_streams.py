"""Streams to record in the record/replay/variant tests: OpenAI chunks, Anthropic events."""

from __future__ import annotations

import json
from typing import Any

import mockhttp
from mockhttp.record import Recording, Write

TEXT = "Héllo, wörld ✓"
PIECES = ["Hé", "llo, ", "wörld ✓"]


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def openai_chunk(content: str | None, finish: str | None = None, **extra: Any) -> dict[str, Any]:
    delta = {} if content is None else {"content": content}
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-test",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **extra,
    }


def openai_events() -> list[mockhttp.Event]:
    """The reference OpenAI chat stream of TEXT: content chunks, a terminal chunk, [DONE]."""
    chunks = [openai_chunk(p) for p in PIECES] + [openai_chunk(None, "stop")]
    return [mockhttp.Event(data=c) for c in chunks] + [mockhttp.Event(data="[DONE]")]


def openai_bytes() -> list[bytes]:
    """The same stream, one bytes item per event, as the server encodes it."""
    return [e.encode() for e in openai_events()]


def anthropic_events() -> list[mockhttp.Event]:
    """An Anthropic Messages stream of TEXT."""
    message: dict[str, Any] = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 5, "output_tokens": 1},
    }
    block = {"type": "text", "text": ""}
    events = [
        ("message_start", {"type": "message_start", "message": message}),
        (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": block},
        ),
        ("ping", {"type": "ping"}),
    ]
    events += [
        (
            "content_block_delta",
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}},
        )
        for p in PIECES
    ]
    events += [
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": 3},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return [mockhttp.Event(event=name, data=data) for name, data in events]


def recording_of(events: list[mockhttp.Event], gap: float = 0.01) -> Recording:
    """A recording of ``events``, one write per event, ``gap`` seconds apart."""
    return Recording(
        headers=(("Content-Type", "text/event-stream"),),
        writes=tuple(Write(i * gap, e.encode()) for i, e in enumerate(events)),
    )


def text_of_openai_body(body: bytes) -> tuple[str, bool]:
    """The text of an OpenAI stream read with mockhttp's WHATWG decoder, and whether
    [DONE] arrived."""
    from mockhttp.sse import Message, decode

    text, done = "", False
    for item in decode(body):
        if not isinstance(item, Message):
            continue
        if item.data == "[DONE]":
            done = True
            continue
        for choice in json.loads(item.data)["choices"]:
            text += choice["delta"].get("content") or ""
    return text, done


def text_of_anthropic_body(body: bytes) -> str:
    from mockhttp.sse import Message, decode

    text = ""
    for item in decode(body):
        if isinstance(item, Message):
            data = json.loads(item.data)
            if data["type"] == "content_block_delta":
                text += data["delta"]["text"]
    return text


def compact(value: Any) -> str:
    return _compact(value)
