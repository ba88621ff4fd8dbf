"""OpenAI Responses API (``POST /v1/responses``), streamed and buffered.

The reference stream: every event is named (``event:`` equals ``data.type``) and numbered
(``sequence_number`` from 0); no ``[DONE]``.  ``kind`` tags in brackets:

1. [start] ``response.created`` and ``response.in_progress`` (the response, ``in_progress``);
2. for the ``reasoning`` (when given), a ``reasoning`` item with one summary part: [block]
   ``response.output_item.added`` (``summary: []``), ``response.reasoning_summary_part.added``;
   [thinking] ``response.reasoning_summary_text.delta`` per piece; [block]
   ``response.reasoning_summary_text.done``, ``response.reasoning_summary_part.done``,
   ``response.output_item.done``;
3. for the message (when there is text): [block] ``response.output_item.added``,
   ``response.content_part.added``; [text] ``response.output_text.delta`` per piece;
   [block] ``response.output_text.done``, ``response.content_part.done``,
   ``response.output_item.done``;
4. per tool call: [tool] ``response.output_item.added`` (a ``function_call`` item),
   ``response.function_call_arguments.delta`` per fragment; [block]
   ``response.function_call_arguments.done``, ``response.output_item.done``;
5. [end] ``response.completed`` with the whole response and its usage.

A mid-stream error is an ``error`` event (``{type, code, message, param,
sequence_number}``) followed by ``response.failed``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from .._core._reply import Reply
from .._core._request import Request
from ._base import LLMReply
from ._draft import Chunk, Context, Draft
from ._errors import merge_headers, openai_error
from ._openai_chat import CREATED
from ._responses_resume import remember, retrieve
from ._text import argument_pieces

__all__ = ["OpenAIResponses"]


@dataclass(frozen=True)
class OpenAIResponses(LLMReply):
    """An OpenAI Responses API answer, streamed when the request says ``stream: true``.

    Args:
        text: the answer (see :class:`~mockhttp.llm.OpenAIChat`).
        tool_calls: ``[{name, arguments, id?}, ...]``, sent as ``function_call`` items.
        reasoning: a ``reasoning`` output item's summary text (first in ``output``),
            counted as ``output_tokens_details.reasoning_tokens``.
        usage: token counts to send (``input_tokens``, ``output_tokens``, ...).
        model, id, headers, ttft, chunks_per_second, jitter, seed, error, error_after,
            transforms: see :mod:`mockhttp.llm`.
    """

    file_key: ClassVar[str] = "openai_responses"
    default_model: ClassVar[str] = "gpt-mock"

    def usage_for(self, context: Context) -> dict[str, Any]:
        usage: dict[str, Any] = {
            "input_tokens": self.counted_input(context),
            # cache_write_tokens: required by the API's schema (openai-python's ResponseUsage)
            "input_tokens_details": {"cache_write_tokens": 0, "cached_tokens": 0},
            "output_tokens": self.counted_output() + self.reasoning_tokens,
            "output_tokens_details": {"reasoning_tokens": self.reasoning_tokens},
        }
        if self.usage:
            usage.update(self.usage)
        usage["total_tokens"] = (self.usage or {}).get(
            "total_tokens", usage["input_tokens"] + usage["output_tokens"]
        )
        return usage

    def provider_headers(self, context: Context) -> tuple[tuple[str, str], ...]:
        return (("x-request-id", self.make_id("req_", context, "request", 32)),)

    def items(self, context: Context) -> list[dict[str, Any]]:
        """The output items of the finished response."""
        items: list[dict[str, Any]] = []
        if self.reasoning is not None:
            items.append(self._reasoning(context, [_summary(self.reasoning)]))
        if self.full_text or not self.tool_calls:
            items.append(self._message(context, "completed", [_text_part(self.full_text)]))
        for i, call in enumerate(self.calls):
            items.append(self._function(context, i, "completed", call.arguments_text))
        return items

    def _message(self, context: Context, status: str, content: list[Any]) -> dict[str, Any]:
        return {
            "id": self.make_id("msg_", context, "message", 48),
            "type": "message",
            "status": status,
            "content": content,
            "role": "assistant",
        }

    def _reasoning(self, context: Context, summary: list[Any]) -> dict[str, Any]:
        return {"id": self.make_id("rs_", context, "reasoning", 48), "type": "reasoning",
                "summary": summary}  # fmt: skip

    def _function(self, context: Context, i: int, status: str, arguments: str) -> dict[str, Any]:
        call = self.calls[i]
        return {
            "id": self.make_id("fc_", context, f"item{i}", 48),
            "type": "function_call",
            "status": status,
            "arguments": arguments,
            "call_id": self.tool_call_id(call, i, context, "call_"),
            "name": call.name,
        }

    def response(
        self,
        context: Context,
        status: str,
        output: list[Any],
        usage: Any = None,
        error: Any = None,
    ) -> dict[str, Any]:
        return {
            "id": self.id or self.make_id("resp_", context, "response", 48),
            "object": "response",
            "created_at": CREATED,
            "status": status,
            "error": error,
            "incomplete_details": None,
            "instructions": context.body.get("instructions"),
            "max_output_tokens": None,
            "model": context.model,
            "output": output,
            "parallel_tool_calls": True,
            "previous_response_id": None,
            "reasoning": _reasoning_options(context.body),
            "store": True,
            "temperature": 1.0,
            "text": {"format": {"type": "text"}},
            "tool_choice": "auto",
            "tools": [],
            "top_p": 1.0,
            "truncation": "disabled",
            "usage": usage,
            "user": None,
            "metadata": {},
        }

    def build(self, request: Request) -> Reply:
        """A ``GET .../responses/{id}`` resumes a stream this reply sent (``_responses_resume``);
        anything else is a new response."""
        if request.method == "GET":
            return retrieve(self, request)
        return super().build(request)

    # -- buffered -------------------------------------------------------------------------

    def body(self, context: Context) -> Any:
        if context.body.get("background") is True:  # retrieve (GET) gives the finished one
            queued = self.response(context, "queued", [])
            remember(self, queued["id"], context)
            return queued
        return self.response(context, "completed", self.items(context), self.usage_for(context))

    # -- streamed -------------------------------------------------------------------------

    def stream_chunks(self, context: Context) -> list[Chunk]:
        draft = self.response(context, "in_progress", [])
        events = [
            ("response.created", "start", {"response": draft}),
            ("response.in_progress", "start", {"response": draft}),
        ]
        items = self.items(context)
        for index, item in enumerate(items):
            if item["type"] == "message":
                events.extend(self._message_events(context, index, item))
            elif item["type"] == "reasoning":
                events.extend(self._reasoning_events(index, item))
            else:
                events.extend(self._function_events(index, item))
        done = self.response(context, "completed", items, self.usage_for(context))
        events.append(("response.completed", "end", {"response": done}))
        remember(self, done["id"], context)
        return [_event(name, kind, seq, fields) for seq, (name, kind, fields) in enumerate(events)]

    def _message_events(
        self, context: Context, index: int, item: dict[str, Any]
    ) -> list[tuple[str, str, dict[str, Any]]]:
        where = {"item_id": item["id"], "output_index": index}
        part = {**where, "content_index": 0}
        text = self.full_text
        events = [
            (
                "response.output_item.added",
                "block",
                {"output_index": index, "item": {**item, "status": "in_progress", "content": []}},
            ),
            ("response.content_part.added", "block", {**part, "part": _text_part("")}),
        ]
        events.extend(
            ("response.output_text.delta", "text", {**part, "delta": p, "logprobs": []})
            for p in self.pieces
        )
        events.append(
            ("response.output_text.done", "block", {**part, "text": text, "logprobs": []})
        )
        events.append(("response.content_part.done", "block", {**part, "part": _text_part(text)}))
        events.append(("response.output_item.done", "block", {"output_index": index, "item": item}))
        return events

    def _reasoning_events(
        self, index: int, item: dict[str, Any]
    ) -> list[tuple[str, str, dict[str, Any]]]:
        part = {"item_id": item["id"], "output_index": index, "summary_index": 0}
        text = item["summary"][0]["text"]
        added = {"output_index": index, "item": {**item, "summary": []}}
        events = [
            ("response.output_item.added", "block", added),
            ("response.reasoning_summary_part.added", "block", {**part, "part": _summary("")}),
        ]
        events.extend(
            ("response.reasoning_summary_text.delta", "thinking", {**part, "delta": p})
            for p in self.reasoning_pieces
        )
        events.append(("response.reasoning_summary_text.done", "block", {**part, "text": text}))
        events.append(
            ("response.reasoning_summary_part.done", "block", {**part, "part": _summary(text)})
        )
        events.append(("response.output_item.done", "block", {"output_index": index, "item": item}))
        return events

    def _function_events(
        self, index: int, item: dict[str, Any]
    ) -> list[tuple[str, str, dict[str, Any]]]:
        where = {"item_id": item["id"], "output_index": index}
        added = {**item, "status": "in_progress", "arguments": ""}
        events = [("response.output_item.added", "tool", {"output_index": index, "item": added})]
        events.extend(
            ("response.function_call_arguments.delta", "tool", {**where, "delta": p})
            for p in argument_pieces(item["arguments"])
        )
        arguments = {**where, "arguments": item["arguments"]}
        events.append(("response.function_call_arguments.done", "block", arguments))
        events.append(("response.output_item.done", "block", {"output_index": index, "item": item}))
        return events

    def error_chunks(self, kept: list[Chunk], context: Context) -> list[Chunk]:
        assert self.error is not None
        _, body, _ = openai_error(self.error, self.error_options)
        error = body["error"]
        code = error["code"] or error["type"]
        seq = len(kept)
        flat = {"code": code, "message": error["message"], "param": error["param"]}
        failed = self.response(
            context, "failed", [], None, {"code": code, "message": error["message"]}
        )
        return [
            _event("error", "error", seq, flat),
            _event("response.failed", "error", seq + 1, {"response": failed}),
        ]

    def error_draft(self, context: Context) -> Draft:
        assert self.error is not None
        code, body, headers = openai_error(self.error, self.error_options)
        return Draft(
            self.file_key, False, code, merge_headers(headers, self.base_headers(context)), body
        )


def _summary(text: str) -> dict[str, Any]:
    return {"type": "summary_text", "text": text}


def _reasoning_options(body: Any) -> dict[str, Any]:
    """The request's ``reasoning`` settings, echoed as the API does."""
    asked = body.get("reasoning")
    asked = asked if isinstance(asked, dict) else {}
    return {"effort": asked.get("effort"), "summary": asked.get("summary")}


def _text_part(text: str) -> dict[str, Any]:
    return {"type": "output_text", "annotations": [], "logprobs": [], "text": text}


def _event(name: str, kind: str, seq: int, fields: dict[str, Any]) -> Chunk:
    return Chunk({"type": name, "sequence_number": seq, **fields}, kind, event=name)
