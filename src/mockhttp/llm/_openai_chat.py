"""OpenAI Chat Completions (``POST /v1/chat/completions``), streamed and buffered.

The reference stream, chunk by chunk (``kind`` tags in brackets):

1. [start] the role chunk: ``delta: {role: assistant, content: "", refusal: null}``
   (``content: null`` when there is no text; ``refusal: ""`` for a refusal);
2. [thinking] ``delta: {reasoning_content: piece}`` per piece of the ``reasoning`` (the
   field is ``reasoning_field``: ``reasoning_content`` by default, the provider preset's
   with ``as_``, e.g. ``reasoning`` for OpenRouter and Groq; the buffered message has the
   whole text in the same field); [text] ``delta: {content: piece}`` per piece, [refusal]
   ``delta: {refusal: piece}``;
3. [tool] per tool call: ``{index, id, type: function, function: {name, arguments: ""}}``
   then argument fragments ``{index, function: {arguments: fragment}}``;
4. [finish] ``delta: {}`` with the ``finish_reason``;
5. [usage] only when the request sent ``stream_options: {include_usage: true}``:
   ``choices: []`` and the usage (every earlier chunk then has ``usage: null``);
6. [done] ``data: [DONE]``.

Every chunk has the same ``id``, ``created``, ``model`` and ``system_fingerprint``.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass
from typing import Any, ClassVar, Literal

from .._core._errors import ConfigError
from ..contract._providers import provider
from ._base import LLMReply
from ._draft import Chunk, Context, Draft
from ._errors import merge_headers, openai_error
from ._logprobs import Logprobs, asked
from ._text import argument_pieces, pieces

__all__ = ["FINISH_REASONS", "REASONING_FIELDS", "OpenAIChat", "openai_usage"]

FINISH_REASONS = ("stop", "length", "tool_calls", "content_filter", "function_call")
REASONING_FIELDS = ("reasoning_content", "reasoning")
CREATED = 1767225600  # 2026-01-01T00:00:00Z: fixed, so replies are the same every run


def openai_usage(
    prompt: int, completion: int, given: dict[str, Any] | None, reasoning: int = 0
) -> dict[str, Any]:
    """Chat Completions usage: counted, with the given keys on top (total follows).

    ``reasoning`` tokens are part of ``completion`` (as OpenAI counts them) and named in
    ``completion_tokens_details.reasoning_tokens``.
    """
    usage: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": reasoning,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }
    if given:
        usage.update(given)
        if "total_tokens" not in given:
            usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
    return usage


@dataclass(frozen=True)
class OpenAIChat(LLMReply):
    """An OpenAI Chat Completions answer, streamed when the request says ``stream: true``.

    Args:
        text: the answer: text (cut into words, or ``chunk_size`` characters), or a list
            of the exact pieces to stream.
        tool_calls: ``[{name, arguments, id?}, ...]``, streamed one after the other (id and
            name first, then argument fragments); the finish reason becomes ``tool_calls``.
        finish_reason: ``stop`` (default), ``length``, ``content_filter``, ...
        refusal: a refusal text instead of content.
        reasoning: the model's reasoning, streamed before the content in a delta field
            of its own and counted as ``reasoning_tokens``.
        reasoning_field: that field: ``reasoning_content`` (DeepSeek, vLLM; the default)
            or ``reasoning`` (OpenRouter, Groq); None: the ``as_`` preset's, else
            ``reasoning_content``.
        usage: token counts to send (``prompt_tokens``, ``completion_tokens``, ...);
            unset ones are counted from the request and the answer.
        system_fingerprint: sent on every chunk (None: left out).
        created: the ``created`` timestamp.
        error_style: ``openai`` (a bare ``{"error": ...}`` chunk, no ``[DONE]``) or
            ``openrouter`` (an error chunk with ``finish_reason: error``, then ``[DONE]``)
            for a mid-stream error.
        model, id, headers, ttft, chunks_per_second, jitter, seed, error, error_after,
            transforms: see :mod:`mockhttp.llm`.
    """

    file_key: ClassVar[str] = "openai_chat"
    default_model: ClassVar[str] = "gpt-mock"

    _: KW_ONLY
    finish_reason: str | None = None
    refusal: str | None = None
    system_fingerprint: str | None = "fp_mock"
    created: int = CREATED
    error_style: Literal["openai", "openrouter"] = "openai"
    reasoning_field: str | None = None

    def check(self) -> None:
        if self.reasoning_field is not None and self.reasoning_field not in REASONING_FIELDS:
            raise ConfigError(
                f"reasoning_field={self.reasoning_field!r} must be one of "
                + ", ".join(REASONING_FIELDS)
            )
        if self.finish_reason is not None and self.finish_reason not in FINISH_REASONS:
            raise ConfigError(
                f"finish_reason={self.finish_reason!r} must be one of {', '.join(FINISH_REASONS)}"
            )
        if self.refusal is not None and not isinstance(self.refusal, str):
            raise ConfigError(f"refusal={self.refusal!r} must be text")
        if self.error_style not in ("openai", "openrouter"):
            raise ConfigError(f"error_style={self.error_style!r} must be openai or openrouter")
        if isinstance(self.created, bool) or not isinstance(self.created, int):
            raise ConfigError(f"created={self.created!r} must be an int (a Unix time)")

    # -- shared ---------------------------------------------------------------------------

    @property
    def finish(self) -> str:
        if self.finish_reason is not None:
            return self.finish_reason
        return "tool_calls" if self.tool_calls else "stop"

    @property
    def reasoning_key(self) -> str:
        """The field the reasoning is sent in."""
        if self.reasoning_field is not None:
            return self.reasoning_field
        return provider(self.as_).reasoning_field if self.as_ else REASONING_FIELDS[0]

    def usage_for(self, context: Context) -> dict[str, Any]:
        reasoning = self.reasoning_tokens
        completion = self.counted_output(self.refusal or "") + reasoning
        given: Any = self.usage
        return openai_usage(self.counted_input(context), completion, given, reasoning)

    def provider_headers(self, context: Context) -> tuple[tuple[str, str], ...]:
        return (("x-request-id", self.make_id("req_", context, "request", 32)),)

    def completion_id(self, context: Context) -> str:
        return self.id or self.make_id("chatcmpl-", context, length=29)

    # -- buffered -------------------------------------------------------------------------

    def body(self, context: Context) -> Any:
        message: dict[str, Any] = {
            "role": "assistant",
            "content": self.full_text if (self.full_text or not self._no_content()) else None,
            "refusal": self.refusal,
            "annotations": [],
        }
        if self.reasoning is not None:
            message[self.reasoning_key] = self.reasoning
        if self.tool_calls:
            message["tool_calls"] = [
                {
                    "id": self.tool_call_id(c, i, context, "call_"),
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments_text},
                }
                for i, c in enumerate(self.calls)
            ]
        body: dict[str, Any] = {
            "id": self.completion_id(context),
            "object": "chat.completion",
            "created": self.created,
            "model": context.model,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "logprobs": self._buffered_logprobs(context),
                    "finish_reason": self.finish,
                }
            ],
            "usage": self.usage_for(context),
        }
        if self.system_fingerprint is not None:
            body["system_fingerprint"] = self.system_fingerprint
        return body

    def _buffered_logprobs(self, context: Context) -> dict[str, Any] | None:
        """``{content, refusal}`` token entries when the request asks for logprobs."""
        top = asked(context.body)
        if top is None:
            return None
        content = Logprobs(self.full_text, top).entries() if self.full_text else None
        refusal = Logprobs(self.refusal, top).entries() if self.refusal else None
        return {"content": content, "refusal": refusal}

    def _no_content(self) -> bool:
        return self.refusal is not None or bool(self.tool_calls)

    # -- streamed -------------------------------------------------------------------------

    def stream_chunks(self, context: Context) -> list[Chunk]:
        usage = _include_usage(context.body)
        make = _ChunkMaker(self.completion_id(context), self, context.model, usage)
        first: dict[str, Any] = {"role": "assistant"}
        if self.refusal is not None:
            first.update(content=None, refusal="")
        else:
            first.update(content=None if (self._no_content() and not self.full_text) else "")
            first["refusal"] = None
        chunks = [make.choice(first, "start")]
        key = self.reasoning_key
        chunks.extend(make.choice({key: p}, "thinking") for p in self.reasoning_pieces)
        top = asked(context.body)
        text = self.pieces
        if top is None:
            chunks.extend(make.choice({"content": p}, "text") for p in text)
        else:
            carried = Logprobs(self.full_text, top).per_piece(text)
            chunks.extend(
                make.choice({"content": p}, "text", logprobs={"content": lp, "refusal": None})
                for p, lp in zip(text, carried, strict=True)
            )
        if self.refusal:
            refusal = pieces(self.refusal, self.chunk_size)
            if top is None:
                chunks.extend(make.choice({"refusal": p}, "refusal") for p in refusal)
            else:
                carried = Logprobs(self.refusal, top).per_piece(refusal)
                chunks.extend(
                    make.choice(
                        {"refusal": p}, "refusal", logprobs={"content": None, "refusal": lp}
                    )
                    for p, lp in zip(refusal, carried, strict=True)
                )
        for i, call in enumerate(self.calls):
            start = {
                "index": i,
                "id": self.tool_call_id(call, i, context, "call_"),
                "type": "function",
                "function": {"name": call.name, "arguments": ""},
            }
            chunks.append(make.choice({"tool_calls": [start]}, "tool"))
            for fragment in argument_pieces(call.arguments_text):
                delta = {"tool_calls": [{"index": i, "function": {"arguments": fragment}}]}
                chunks.append(make.choice(delta, "tool"))
        chunks.append(make.choice({}, "finish", self.finish))
        if usage:
            chunks.append(make.chunk([], "usage", self.usage_for(context)))
        chunks.append(Chunk("[DONE]", "done"))
        return chunks

    def error_chunks(self, kept: list[Chunk], context: Context) -> list[Chunk]:
        assert self.error is not None
        _, body, _ = openai_error(self.error, self.error_options)
        if self.error_style == "openai":
            return [Chunk(body, "error")]
        error = body["error"]
        make = _ChunkMaker(self.completion_id(context), self, context.model, False)
        failed = make.choice({"content": ""}, "error", "error")
        failed.data["error"] = {"code": error["code"] or error["type"], "message": error["message"]}
        return [failed, Chunk("[DONE]", "done")]

    def error_draft(self, context: Context) -> Draft:
        assert self.error is not None
        code, body, headers = openai_error(self.error, self.error_options)
        return Draft(
            self.file_key, False, code, merge_headers(headers, self.base_headers(context)), body
        )


def _include_usage(body: Any) -> bool:
    options = body.get("stream_options")
    return isinstance(options, dict) and options.get("include_usage") is True


class _ChunkMaker:
    """``chat.completion.chunk`` payloads with the stream's shared fields."""

    def __init__(self, cid: str, reply: OpenAIChat, model: str, usage: bool) -> None:
        self.head: dict[str, Any] = {
            "id": cid,
            "object": "chat.completion.chunk",
            "created": reply.created,
            "model": model,
        }
        if reply.system_fingerprint is not None:
            self.head["system_fingerprint"] = reply.system_fingerprint
        self.usage = usage

    def chunk(self, choices: list[Any], kind: str, usage: Any = None) -> Chunk:
        data = {**self.head, "choices": choices}
        if self.usage:
            data["usage"] = usage
        return Chunk(data, kind)

    def choice(
        self, delta: dict[str, Any], kind: str, finish: str | None = None, logprobs: Any = None
    ) -> Chunk:
        choice = {"index": 0, "delta": delta, "logprobs": logprobs, "finish_reason": finish}
        return self.chunk([choice], kind)
