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

With ``output_modalities: ["audio"]`` the text comes as transcript deltas, each followed
by its deterministic PCM (``output_audio.delta``).  Answers come from
:class:`~mockhttp.llm._live_turns.Turns`: one line (``text``, a first ``tool_call``) or a
conversation, which reads the session's items (``conversation.item.create``, the mock's
own output items, committed audio) as a Responses request; its tool calls come as
``function_call`` items with ``response.function_call_arguments.delta`` pieces.  A refused
turn gets an ``error`` event (``code: conversation_refused``) and is kept in
``session.errors``; an error turn a ``response.done`` with ``status: failed``.
"""

from __future__ import annotations

import base64
import itertools
import json
from collections.abc import Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, ClassVar

from .._core._errors import ConfigError
from .._core._mock import Mock, request
from ..ws._kind import WebSocket
from ..ws._session import Answer, Responder
from ._base import ToolCall, tool_calls_of
from ._conversation import Conversation, ConversationError
from ._errors import openai_error
from ._live_turns import Said, Turns, conversation_of
from ._media import pcm
from ._text import count_tokens, pieces

__all__ = ["OpenAIRealtime", "openai_realtime"]

MODEL = "gpt-realtime"


def openai_realtime(
    text: str = "Hello",
    *,
    model: str = "gpt-realtime",
    tool_call: Mapping[str, Any] | None = None,
    conversation: Conversation | Mapping[str, Any] | None = None,
    chaos: Any = None,
    allow_origins: Sequence[str] = (),
    input_transcript: str = "",
) -> OpenAIRealtime:
    """An OpenAI Realtime endpoint whose ``response.create`` answers ``text``; with
    ``tool_call={"name": ..., "arguments": {...}}`` the session's first response is that
    function call (its arguments as deltas) and the later ones ``text``; with
    ``conversation`` each response is the conversation's turn for the session's items;
    ``chaos`` breaks some events, seeded (``ws.chaos``); ``allow_origins`` the pages of other
    sites that may open a session (see ``ws.WebSocket``); ``input_transcript`` what the
    client's committed audio is transcribed as (sent when the session asks for input
    audio transcription, and read by a conversation as the user's words)."""
    return OpenAIRealtime(
        text=text,
        model=model,
        tool_call=tool_call,
        conversation=conversation,
        chaos=chaos,
        allow_origins=allow_origins,
        input_transcript=input_transcript,
    )


@dataclass(frozen=True)
class OpenAIRealtime(WebSocket):
    """An OpenAI Realtime session that answers each ``response.create`` with ``text``."""

    file_key: ClassVar[str] = "openai_realtime"

    text: str = "Hello"
    _: KW_ONLY
    subprotocol: str | None = "realtime"  # chosen when offered, as OpenAI's API chooses it
    model: str = MODEL
    tool_call: Mapping[str, Any] | None = None
    conversation: Any = None
    input_transcript: str = ""

    def __post_init__(self) -> None:
        WebSocket.__post_init__(self)
        if not isinstance(self.input_transcript, str):
            raise ConfigError(
                f"openai_realtime input_transcript={self.input_transcript!r} must be text"
            )
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
        conversation = conversation_of(self.conversation, "openai_realtime")
        object.__setattr__(self, "conversation", conversation)
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
        if self.conversation is not None:
            out["conversation"] = self.conversation.to_args()
        if self.input_transcript:
            out["input_transcript"] = self.input_transcript
        return self.with_chaos(out)

    def responder(self) -> Responder:
        calls = tool_calls_of([self.tool_call] if self.tool_call else [])
        turns = Turns(self.text, calls, self.conversation)
        return Realtime(turns, self.model, self.input_transcript)


@dataclass
class Realtime:
    """One session's state: its settings, its ids, its responses."""

    turns: Turns
    model: str
    heard: str = ""  # what the session's committed audio is transcribed as
    settings: dict[str, Any] = field(default_factory=dict)
    items: list[dict[str, Any]] = field(default_factory=list)  # the conversation's items
    ids: Any = field(default_factory=lambda: itertools.count(1))

    def id(self, prefix: str) -> str:
        return f"{prefix}_{next(self.ids):012d}"

    def session(self) -> dict[str, Any]:
        base = {"id": "sess_mock", "object": "realtime.session", "type": "realtime"}
        return {**base, "model": self.model, "output_modalities": ["text"], **self.settings}

    def greet(self) -> list[Answer]:
        return [self.event("session.created", session=self.session())]

    def event(self, kind: str, **fields: Any) -> str:
        body = {"type": kind, "event_id": self.id("event"), **fields}
        return json.dumps(body, separators=(",", ":"))

    def answer(self, message: str | bytes) -> list[Answer]:
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

    def updated(self, event: dict[str, Any]) -> list[Answer]:
        given = event.get("session")
        if isinstance(given, dict):
            self.settings.update({k: v for k, v in given.items() if k != "type"})
        return [self.event("session.updated", session=self.session())]

    def item(self, event: dict[str, Any]) -> list[Answer]:
        given = event.get("item")
        item: dict[str, Any] = given if isinstance(given, dict) else {}
        item = {"id": self.id("item"), "object": "realtime.item", **item}
        self.items.append(item)
        return [self.event("conversation.item.created", previous_item_id=None, item=item)]

    def audio(self, event: dict[str, Any]) -> list[Answer]:
        kind = event["type"]
        if kind.endswith(".append"):
            return []
        if kind.endswith(".commit"):
            iid = self.id("item")
            heard = {"type": "input_text", "text": self.heard}  # what a conversation reads
            self.items.append({"type": "message", "role": "user", "content": [heard]})
            committed = "input_audio_buffer.committed"
            out: list[Answer] = [self.event(committed, previous_item_id=None, item_id=iid)]
            return out + self.transcription(iid) if self.transcribing() else out
        return [self.event("input_audio_buffer.cleared")]

    def transcribing(self) -> bool:
        """The session asked for input audio transcription (GA ``audio.input.transcription``
        or the beta's ``input_audio_transcription``)."""
        audio = self.settings.get("audio")
        given = audio.get("input", {}) if isinstance(audio, dict) else {}
        ga = given.get("transcription") if isinstance(given, dict) else None
        return bool(ga or self.settings.get("input_audio_transcription"))

    def transcription(self, iid: str) -> list[Answer]:
        """The committed audio's transcript: a delta a word, then ``completed``."""
        where = {"item_id": iid, "content_index": 0}
        out: list[Answer] = [
            self.event("conversation.item.input_audio_transcription.delta", **where, delta=d)
            for d in pieces(self.heard)
        ]
        tokens = count_tokens(self.heard)
        usage = {"type": "tokens", "input_tokens": 10, "output_tokens": tokens}
        usage["total_tokens"] = 10 + tokens
        completed = "conversation.item.input_audio_transcription.completed"
        out.append(self.event(completed, **where, transcript=self.heard, usage=usage))
        return out

    def response(self, _event: dict[str, Any]) -> list[Answer]:
        try:
            said = self.turns.next(self.body(), lambda: self.id("call"))
        except ConversationError as refused:
            detail = {"type": "invalid_request_error", "code": "conversation_refused"}
            said_error = self.event("error", error={**detail, "message": str(refused)})
            raise ConversationError(str(refused), [said_error]) from None
        rid = self.id("resp")
        shell = {"id": rid, "object": "realtime.response", "status": "in_progress", "output": []}
        out: list[Answer] = [self.event("response.created", response={**shell, "usage": None})]
        if said.error is not None:
            _status, body, _headers = openai_error(said.error)
            error = {k: body["error"].get(k) for k in ("type", "code", "message")}
            details = {"type": "failed", "reason": None, "error": error}
            failed = {**shell, "status": "failed", "status_details": details, "usage": None}
            return [*out, self.event("response.done", response=failed)]
        items: list[dict[str, Any]] = []
        if said.text or not said.calls:
            out += self.message(rid, len(items), said.text, items)
        for call in said.calls:
            out += self.function_call(rid, len(items), call, items)
        if not said.calls:
            limits = [{"name": "tokens", "limit": 40000, "remaining": 39000, "reset_seconds": 1.5}]
            out.append(self.event("rate_limits.updated", rate_limits=limits))
        done = {**shell, "status": "completed", "output": items, "usage": self.usage(said)}
        out.append(self.event("response.done", response=done))
        self.items.extend(items)
        return out

    def usage(self, said: Said) -> dict[str, Any]:
        given = dict(said.usage or {})
        made = said.text + "".join(c.arguments_text for c in said.calls)
        answer = given.pop("output_tokens", max(1, count_tokens(made)))
        prompt = given.pop("input_tokens", 10)
        total = {"total_tokens": prompt + answer, "input_tokens": prompt}
        return {**total, "output_tokens": answer, **given}

    def body(self) -> dict[str, Any]:
        """The session so far as a Responses request (what a conversation reads)."""
        out: dict[str, Any] = {"input": self.items}
        for key in ("instructions", "tools"):
            if self.settings.get(key) is not None:
                out[key] = self.settings[key]
        return out

    def function_call(
        self, rid: str, index: int, call: ToolCall, items: list[dict[str, Any]]
    ) -> list[Answer]:
        iid, cid = self.id("item"), call.id
        arguments = call.arguments_text
        out: list[Answer] = []
        item = {"id": iid, "object": "realtime.item", "type": "function_call",
                "call_id": cid, "name": call.name}  # fmt: skip
        added = {**item, "status": "in_progress", "arguments": ""}
        out.append(
            self.event(
                "response.output_item.added", response_id=rid, output_index=index, item=added
            )
        )
        where = {"response_id": rid, "item_id": iid, "output_index": index, "call_id": cid}
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
                name=call.name,
                arguments=arguments,
            )
        )
        done_item = {**item, "status": "completed", "arguments": arguments}
        out.append(
            self.event(
                "response.output_item.done", response_id=rid, output_index=index, item=done_item
            )
        )
        items.append(done_item)
        return out

    def message(self, rid: str, index: int, text: str, items: list[dict[str, Any]]) -> list[Answer]:
        iid = self.id("item")
        out: list[Answer] = []
        item = {"id": iid, "object": "realtime.item", "type": "message", "role": "assistant"}
        out.append(
            self.event(
                "response.output_item.added",
                response_id=rid,
                output_index=index,
                item={**item, "status": "in_progress", "content": []},
            )
        )
        where = {"response_id": rid, "item_id": iid, "output_index": index, "content_index": 0}
        audio = "audio" in (self.settings.get("output_modalities") or ())
        kind = "output_audio_transcript" if audio else "output_text"
        part_type = "audio" if audio else "text"
        empty = {"type": part_type, "transcript": ""} if audio else {"type": "text", "text": ""}
        out.append(self.event("response.content_part.added", **where, part=empty))
        for delta in pieces(text):
            out.append(self.event(f"response.{kind}.delta", **where, delta=delta))
            if audio:
                sound = base64.b64encode(pcm(delta)).decode()
                out.append(self.event("response.output_audio.delta", **where, delta=sound))
        if audio:
            out.append(self.event("response.output_audio.done", **where))
            out.append(self.event(f"response.{kind}.done", **where, transcript=text))
            part: dict[str, Any] = {"type": "audio", "transcript": text}
            content = {"type": "output_audio", "transcript": text}
        else:
            out.append(self.event(f"response.{kind}.done", **where, text=text))
            part = {"type": "text", "text": text}
            content = {"type": "output_text", "text": text}
        out.append(self.event("response.content_part.done", **where, part=part))
        done_item = {**item, "status": "completed", "content": [content]}
        out.append(
            self.event(
                "response.output_item.done", response_id=rid, output_index=index, item=done_item
            )
        )
        items.append(done_item)
        return out


HANDLERS = {
    "session.update": Realtime.updated,
    "conversation.item.create": Realtime.item,
    "input_audio_buffer.append": Realtime.audio,
    "input_audio_buffer.commit": Realtime.audio,
    "input_audio_buffer.clear": Realtime.audio,
    "response.create": Realtime.response,
}
