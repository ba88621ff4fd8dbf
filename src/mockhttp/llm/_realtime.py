"""OpenAI Realtime (``/v1/realtime``) over a WebSocket: a text answer in the GA event names.

``OpenAIRealtime`` is a ``websocket`` reply kind whose sessions answer client events:

- on connect: ``session.created``;
- ``session.update`` → ``session.updated`` (the session with the update merged);
- ``conversation.item.create`` → ``conversation.item.created`` (the item, with an id);
- ``input_audio_buffer.append`` → nothing; ``.commit`` → ``.committed``; ``.clear`` →
  ``.cleared``;
- ``response.create`` → ``response.created``, ``response.output_item.added``,
  ``response.content_part.added``, one ``response.output_text.delta`` a word,
  ``response.output_text.done``, ``response.content_part.done``,
  ``response.output_item.done``, ``rate_limits.updated``, ``response.done`` with usage;
- anything else (or a message that is not a JSON event) → ``error`` in the provider's
  shape (``invalid_request_error``, the client's ``event_id``).

Not yet: audio deltas with transcripts, function-call argument deltas (issue 35).
"""

from __future__ import annotations

import base64
import itertools
import json
from collections.abc import Mapping
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, ClassVar

from .._core._errors import ConfigError
from .._core._mock import Mock, request
from ..ws._kind import WebSocket
from ..ws._session import Responder
from ._media import pcm

__all__ = ["OpenAIRealtime", "openai_realtime"]

MODEL = "gpt-realtime"


def openai_realtime(
    text: str = "Hello",
    *,
    model: str = "gpt-realtime",
    tool_call: Mapping[str, Any] | None = None,
) -> OpenAIRealtime:
    """An OpenAI Realtime endpoint whose ``response.create`` answers ``text``; with
    ``tool_call={"name": ..., "arguments": {...}}`` the session's first response is that
    function call (its arguments as deltas) and the later ones ``text``."""
    return OpenAIRealtime(text=text, model=model, tool_call=tool_call)


@dataclass(frozen=True)
class OpenAIRealtime(WebSocket):
    """An OpenAI Realtime session that answers each ``response.create`` with ``text``."""

    file_key: ClassVar[str] = "openai_realtime"

    text: str = "Hello"
    _: KW_ONLY
    model: str = MODEL
    tool_call: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        WebSocket.__post_init__(self)
        call = self.tool_call
        if call is not None:
            name = call.get("name") if isinstance(call, Mapping) else None
            if not isinstance(name, str) or not name or set(call) - {"name", "arguments"}:
                raise ConfigError(
                    f"openai_realtime tool_call={call!r} must be {{name: text, arguments: {{...}}}}"
                )
            object.__setattr__(
                self, "tool_call", {"name": name, "arguments": call.get("arguments", {})}
            )
        if not isinstance(self.text, str):
            raise ConfigError(f"openai_realtime text={self.text!r} must be text")
        if not isinstance(self.model, str) or not self.model:
            raise ConfigError(f"openai_realtime model={self.model!r} must be non-empty text")

    def mock(self, path: str = "/v1/realtime", *, name: str | None = None) -> Mock:
        """A mock answering the upgrade ``GET path`` with this session."""
        return request("GET", path, name=name).reply(self)

    def to_args(self) -> dict[str, Any]:
        out: dict[str, Any] = {"text": self.text}
        if self.model != MODEL:
            out["model"] = self.model
        if self.tool_call is not None:
            out["tool_call"] = dict(self.tool_call)
        return out

    def responder(self) -> Responder:
        return Realtime(self.text, self.model, dict(self.tool_call or {}))


@dataclass
class Realtime:
    """One session's state: its settings, its ids, its responses."""

    text: str
    model: str
    tool_call: dict[str, Any]  # ({}: none, or already made)
    settings: dict[str, Any] = field(default_factory=dict)
    ids: Any = field(default_factory=lambda: itertools.count(1))

    def id(self, prefix: str) -> str:
        return f"{prefix}_{next(self.ids):012d}"

    def session(self) -> dict[str, Any]:
        base = {"id": "sess_mock", "object": "realtime.session", "type": "realtime"}
        return {**base, "model": self.model, "output_modalities": ["text"], **self.settings}

    def greet(self) -> list[str | bytes]:
        return [self.event("session.created", session=self.session())]

    def event(self, kind: str, **fields: Any) -> str:
        body = {"type": kind, "event_id": self.id("event"), **fields}
        return json.dumps(body, separators=(",", ":"))

    def answer(self, message: str | bytes) -> list[str | bytes]:
        try:
            event = json.loads(message)
            kind = event["type"]
        except (ValueError, TypeError, KeyError):
            return [self.error("The event is not a JSON object with a 'type'.", None)]
        handler = HANDLERS.get(kind) if isinstance(kind, str) else None
        if handler is None:
            return [self.error(f"Invalid value: '{kind}'. Unknown event type.", event)]
        return handler(self, event)

    def error(self, text: str, event: Any) -> str:
        client_id = event.get("event_id") if isinstance(event, dict) else None
        detail = {"type": "invalid_request_error", "code": "invalid_value", "message": text}
        return self.event("error", error={**detail, "param": "type", "event_id": client_id})

    def updated(self, event: dict[str, Any]) -> list[str | bytes]:
        given = event.get("session")
        if isinstance(given, dict):
            self.settings.update({k: v for k, v in given.items() if k != "type"})
        return [self.event("session.updated", session=self.session())]

    def item(self, event: dict[str, Any]) -> list[str | bytes]:
        given = event.get("item")
        item: dict[str, Any] = given if isinstance(given, dict) else {}
        item = {"id": self.id("item"), "object": "realtime.item", **item}
        return [self.event("conversation.item.created", previous_item_id=None, item=item)]

    def audio(self, event: dict[str, Any]) -> list[str | bytes]:
        kind = event["type"]
        if kind.endswith(".append"):
            return []
        if kind.endswith(".commit"):
            item = {"previous_item_id": None, "item_id": self.id("item")}
            return [self.event("input_audio_buffer.committed", **item)]
        return [self.event("input_audio_buffer.cleared")]

    def response(self, event: dict[str, Any]) -> list[str | bytes]:
        if self.tool_call:
            call, self.tool_call = self.tool_call, {}
            return self.function_call(call)
        return self.text_response(event)

    def function_call(self, call: dict[str, Any]) -> list[str | bytes]:
        rid, iid, cid = self.id("resp"), self.id("item"), self.id("call")
        arguments = json.dumps(call["arguments"], separators=(",", ":"))
        shell = {"id": rid, "object": "realtime.response", "status": "in_progress", "output": []}
        out: list[str | bytes] = [self.event("response.created", response={**shell, "usage": None})]
        item = {"id": iid, "object": "realtime.item", "type": "function_call",
                "call_id": cid, "name": call["name"]}  # fmt: skip
        added = {**item, "status": "in_progress", "arguments": ""}
        out.append(
            self.event("response.output_item.added", response_id=rid, output_index=0, item=added)
        )
        where = {"response_id": rid, "item_id": iid, "output_index": 0, "call_id": cid}
        for i in range(0, len(arguments), 8):
            out.append(
                self.event(
                    "response.function_call_arguments.delta", **where, delta=arguments[i : i + 8]
                )
            )
        out.append(
            self.event(
                "response.function_call_arguments.done",
                **where,
                name=call["name"],
                arguments=arguments,
            )
        )
        done_item = {**item, "status": "completed", "arguments": arguments}
        out.append(
            self.event("response.output_item.done", response_id=rid, output_index=0, item=done_item)
        )
        usage = {"total_tokens": 12, "input_tokens": 10, "output_tokens": 2}
        done = {**shell, "status": "completed", "output": [done_item], "usage": usage}
        out.append(self.event("response.done", response=done))
        return out

    def text_response(self, _event: dict[str, Any]) -> list[str | bytes]:
        rid, iid = self.id("resp"), self.id("item")
        out: list[str | bytes] = []
        shell = {"id": rid, "object": "realtime.response", "status": "in_progress", "output": []}
        out.append(self.event("response.created", response={**shell, "usage": None}))
        item = {"id": iid, "object": "realtime.item", "type": "message", "role": "assistant"}
        out.append(
            self.event(
                "response.output_item.added",
                response_id=rid,
                output_index=0,
                item={**item, "status": "in_progress", "content": []},
            )
        )
        where = {"response_id": rid, "item_id": iid, "output_index": 0, "content_index": 0}
        out.append(
            self.event("response.content_part.added", **where, part={"type": "text", "text": ""})
        )
        words = self.text.split(" ")
        audio = "audio" in (self.settings.get("output_modalities") or ())
        kind = "output_audio_transcript" if audio else "output_text"
        for i, word in enumerate(words):
            delta = word if i == 0 else " " + word
            out.append(self.event(f"response.{kind}.delta", **where, delta=delta))
            if audio:
                sound = base64.b64encode(pcm(delta)).decode()
                out.append(self.event("response.output_audio.delta", **where, delta=sound))
        if audio:
            out.append(self.event("response.output_audio.done", **where))
            out.append(self.event(f"response.{kind}.done", **where, transcript=self.text))
        else:
            out.append(self.event(f"response.{kind}.done", **where, text=self.text))
        part = {"type": "text", "text": self.text}
        out.append(self.event("response.content_part.done", **where, part=part))
        done_item = {
            **item,
            "status": "completed",
            "content": [{"type": "output_text", "text": self.text}],
        }
        out.append(
            self.event("response.output_item.done", response_id=rid, output_index=0, item=done_item)
        )
        limits = [{"name": "tokens", "limit": 40000, "remaining": 39000, "reset_seconds": 1.5}]
        out.append(self.event("rate_limits.updated", rate_limits=limits))
        tokens = max(1, len(words))
        usage = {"total_tokens": 10 + tokens, "input_tokens": 10, "output_tokens": tokens}
        done = {**shell, "status": "completed", "output": [done_item], "usage": usage}
        out.append(self.event("response.done", response=done))
        return out


HANDLERS = {
    "session.update": Realtime.updated,
    "conversation.item.create": Realtime.item,
    "input_audio_buffer.append": Realtime.audio,
    "input_audio_buffer.commit": Realtime.audio,
    "input_audio_buffer.clear": Realtime.audio,
    "response.create": Realtime.response,
}
