"""Anthropic Messages (``POST /v1/messages``), streamed and buffered.

The reference stream, event by event (the ``event:`` name always equals ``data.type``;
``kind`` tags in brackets):

1. [start] ``message_start``: the message with empty ``content``, ``stop_reason: null`` and
   the input usage (``output_tokens: 1``, a placeholder, as Anthropic sends);
2. per content block, in order thinking, text, tool uses: [block] ``content_block_start``,
   the deltas ([thinking] ``thinking_delta`` pieces then one ``signature_delta``;
   [text] ``text_delta``; [tool] ``input_json_delta`` fragments), [block]
   ``content_block_stop``; [ping] one ``ping`` right after the first block starts;
3. [finish] ``message_delta`` with ``stop_reason`` and the cumulative usage, input tokens
   included (current streams repeat them there, and LangChain reads usage only there);
4. [end] ``message_stop``.  No ``[DONE]``.

A mid-stream error is ``event: error`` with ``{"type": "error", "error": {...}}``, and the
stream ends there, with no ``message_stop``.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass
from typing import Any, ClassVar

from .._core._errors import ConfigError
from ._base import LLMReply
from ._draft import Chunk, Context, Draft
from ._errors import anthropic_error, merge_headers
from ._text import argument_pieces, make_id, pieces

__all__ = ["STOP_REASONS", "AnthropicMessages"]

STOP_REASONS = ("end_turn", "max_tokens", "stop_sequence", "tool_use", "pause_turn", "refusal")


@dataclass(frozen=True)
class AnthropicMessages(LLMReply):
    """An Anthropic Messages answer, streamed when the request says ``stream: true``.

    Args:
        text: the answer (see :class:`~mockhttp.llm.OpenAIChat`).
        tool_calls: ``[{name, arguments, id?}, ...]``, sent as ``tool_use`` blocks whose
            input streams as ``input_json_delta`` fragments; stop reason ``tool_use``.
        thinking: a thinking block's text, sent first, with its signature.
        reasoning: another name for ``thinking`` (the name the other replies use).
        signature: the thinking block's signature (default: derived from the reply).
        stop_reason: ``end_turn`` (default), ``max_tokens``, ``stop_sequence``, ...
        stop_sequence: the stop sequence met (with ``stop_reason: stop_sequence``).
        usage: token counts to send (``input_tokens``, ``output_tokens``, ...).
        model, id, headers, ttft, chunks_per_second, jitter, seed, error, error_after,
            transforms: see :mod:`mockhttp.llm`.
    """

    file_key: ClassVar[str] = "anthropic_messages"
    default_model: ClassVar[str] = "claude-mock"

    _: KW_ONLY
    thinking: str | None = None
    signature: str | None = None
    stop_reason: str | None = None
    stop_sequence: str | None = None

    def check(self) -> None:
        if self.reasoning is not None:  # the other replies' name for it
            if self.thinking is not None and self.thinking != self.reasoning:
                raise ConfigError("thinking and reasoning name the same block: give one of them")
            self._set("thinking", self.reasoning)
            self._set("reasoning", None)
        if self.stop_reason is not None and self.stop_reason not in STOP_REASONS:
            raise ConfigError(
                f"stop_reason={self.stop_reason!r} must be one of {', '.join(STOP_REASONS)}"
            )
        for name in ("thinking", "signature", "stop_sequence"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, str):
                raise ConfigError(f"{name}={value!r} must be text")

    # -- shared ---------------------------------------------------------------------------

    @property
    def stop(self) -> str:
        if self.stop_reason is not None:
            return self.stop_reason
        return "tool_use" if self.tool_calls else "end_turn"

    def usage_for(self, context: Context, output: int | None = None) -> dict[str, Any]:
        usage: dict[str, Any] = {
            "input_tokens": self.counted_input(context),
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": self.counted_output(self.thinking or "") if output is None else output,
        }
        if self.usage and output is None:
            usage.update(self.usage)
        elif self.usage:  # the placeholder in message_start keeps the given input counts
            usage.update({k: v for k, v in self.usage.items() if k != "output_tokens"})
        return usage

    def message_id(self, context: Context) -> str:
        return self.id or self.make_id("msg_", context)

    def provider_headers(self, context: Context) -> tuple[tuple[str, str], ...]:
        return (("request-id", self.make_id("req_", context, "request")),)

    def signature_for(self) -> str:
        """The given signature, or one derived from the reply (the same on every call)."""
        return self.signature or make_id("Sig", f"{self._salt}:signature", 0, 64)

    def blocks(self, context: Context) -> list[dict[str, Any]]:
        """The content blocks of the buffered answer (and the order of the stream's)."""
        blocks: list[dict[str, Any]] = []
        if self.thinking is not None:
            signature = self.signature_for()
            blocks.append({"type": "thinking", "thinking": self.thinking, "signature": signature})
        if self.full_text or not self.tool_calls:
            blocks.append({"type": "text", "text": self.full_text})
        for i, call in enumerate(self.calls):
            blocks.append(
                {
                    "type": "tool_use",
                    "id": self.tool_call_id(call, i, context, "toolu_"),
                    "name": call.name,
                    "input": call.arguments_value,
                }
            )
        return blocks

    def message(self, context: Context, content: list[Any], stop: str | None) -> dict[str, Any]:
        return {
            "id": self.message_id(context),
            "type": "message",
            "role": "assistant",
            "model": context.model,
            "content": content,
            "stop_reason": stop,
            "stop_sequence": self.stop_sequence if stop else None,
            "usage": self.usage_for(context, None if stop else 1),
        }

    # -- buffered -------------------------------------------------------------------------

    def body(self, context: Context) -> Any:
        return self.message(context, self.blocks(context), self.stop)

    # -- streamed -------------------------------------------------------------------------

    def stream_chunks(self, context: Context) -> list[Chunk]:
        chunks = [_event("message_start", "start", message=self.message(context, [], None))]
        for index, block in enumerate(self.blocks(context)):
            events = self._block(index, block)
            if index == 0:  # ping right after the first block starts, as Anthropic sends it
                events.insert(1, Chunk({"type": "ping"}, "ping", event="ping"))
            chunks.extend(events)
        delta = {"stop_reason": self.stop, "stop_sequence": self.stop_sequence}
        usage = self.usage_for(context)
        chunks.append(_event("message_delta", "finish", delta=delta, usage=usage))
        chunks.append(_event("message_stop", "end"))
        return chunks

    def _block(self, index: int, block: dict[str, Any]) -> list[Chunk]:
        kind = block["type"]
        start: dict[str, Any]
        if kind == "thinking":
            start = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [
                ("thinking", {"type": "thinking_delta", "thinking": p})
                for p in pieces(block["thinking"], self.chunk_size)
            ]
            deltas.append(
                ("thinking", {"type": "signature_delta", "signature": block["signature"]})
            )
        elif kind == "text":
            start = {"type": "text", "text": ""}
            deltas = [("text", {"type": "text_delta", "text": p}) for p in self.pieces]
        else:
            start = {**block, "input": {}}
            arguments = _arguments_json(block["input"])
            deltas = [
                ("tool", {"type": "input_json_delta", "partial_json": p})
                for p in argument_pieces(arguments)
            ]
        chunks = [_event("content_block_start", "block", index=index, content_block=start)]
        chunks.extend(
            _event("content_block_delta", tag, index=index, delta=delta) for tag, delta in deltas
        )
        chunks.append(_event("content_block_stop", "block", index=index))
        return chunks

    def error_chunks(self, kept: list[Chunk], context: Context) -> list[Chunk]:
        assert self.error is not None
        _, body, _ = anthropic_error(self.error, self.error_options)
        error = {"details": None, **body["error"]}
        return [_event("error", "error", error=error)]

    def error_draft(self, context: Context) -> Draft:
        assert self.error is not None
        code, body, headers = anthropic_error(self.error, self.error_options)
        body["request_id"] = self.make_id("req_", context, "request")
        return Draft(
            self.file_key, False, code, merge_headers(headers, self.base_headers(context)), body
        )


def _event(name: str, kind: str, **fields: Any) -> Chunk:
    return Chunk({"type": name, **fields}, kind, event=name)


def _arguments_json(value: Any) -> str:
    import json

    return json.dumps(value, ensure_ascii=False)
