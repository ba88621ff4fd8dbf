"""Google Gemini (``models/{model}:generateContent`` and ``:streamGenerateContent``).

Gemini names the model in the path (``/v1beta/models/gemini-2.5-flash:generateContent``;
the google-genai SDK also calls ``/v1/``), and streams when the method is
``streamGenerateContent``.  With ``?alt=sse`` the stream is server-sent events framed with
CRLF, as Gemini sends it, with no terminator; without it, Gemini answers a JSON array of
the same chunks (sent here as one body).

The reference stream: every chunk is a whole ``GenerateContentResponse`` (``candidates``
with ``content.parts`` and ``role: model``; ``usageMetadata`` with a growing
``candidatesTokenCount``; ``modelVersion``; ``responseId``).  ``kind`` tags: [thinking]
one chunk per piece of the ``reasoning``, a thought part ``{"text": piece, "thought": true}``
(the usage counts it in ``thoughtsTokenCount``); [text] one chunk per text piece; [tool]
one chunk per function call (arguments whole, as Gemini sends them); [finish] a last
chunk with ``finishReason``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import KW_ONLY, dataclass
from typing import Any, ClassVar

from .._core._errors import ConfigError
from .._core._request import Request
from ._base import LLMReply
from ._draft import Chunk, Context, Draft, Framing
from ._errors import gemini_error, merge_headers
from ._text import count_tokens

__all__ = ["FINISH_REASONS", "Gemini"]

FINISH_REASONS = (
    "STOP",
    "MAX_TOKENS",
    "SAFETY",
    "RECITATION",
    "LANGUAGE",
    "OTHER",
    "BLOCKLIST",
    "PROHIBITED_CONTENT",
    "SPII",
    "MALFORMED_FUNCTION_CALL",
)
_MODEL = re.compile(r"/models/([^/:]+):")


@dataclass(frozen=True)
class Gemini(LLMReply):
    """A Gemini answer: streamed for ``:streamGenerateContent``, buffered otherwise.

    Args:
        text: the answer (see :class:`~mockhttp.llm.OpenAIChat`).
        tool_calls: ``[{name, arguments}, ...]``, each a ``functionCall`` part.
        reasoning: thought parts (``{"text": ..., "thought": true}``) before the answer,
            counted in ``usageMetadata.thoughtsTokenCount``.
        finish_reason: ``STOP`` (default), ``MAX_TOKENS``, ``SAFETY``, ...
        usage: ``usageMetadata`` counts to send (``promptTokenCount``, ...).
        model, id, headers, ttft, chunks_per_second, jitter, seed, error, error_after,
            transforms: see :mod:`mockhttp.llm` (the model echoed is the path's).
    """

    file_key: ClassVar[str] = "gemini"
    default_model: ClassVar[str] = "gemini-mock"

    _: KW_ONLY
    finish_reason: str = "STOP"

    def check(self) -> None:
        if self.finish_reason not in FINISH_REASONS:
            raise ConfigError(
                f"finish_reason={self.finish_reason!r} must be one of {', '.join(FINISH_REASONS)}"
            )

    def model_for(self, request: Request, body: Mapping[str, Any]) -> str:
        if self.model is not None:
            return self.model
        found = _MODEL.search(request.path)
        return found.group(1) if found else self.default_model

    def streamed(self, context: Context) -> bool:
        return context.request.path.endswith(":streamGenerateContent")

    def framing(self) -> Framing:
        return Framing(line_ending="\r\n")

    def provider_headers(self, context: Context) -> tuple[tuple[str, str], ...]:
        sse = self.streamed(context) and context.request.query_value("alt") == "sse"
        kind = "text/event-stream" if sse else "application/json; charset=UTF-8"
        return (("Content-Type", kind),)

    def usage_for(self, context: Context, output: int, thoughts: int = 0) -> dict[str, Any]:
        prompt = self.counted_input(context)
        usage: dict[str, Any] = {
            "promptTokenCount": prompt,
            "candidatesTokenCount": output,
            "totalTokenCount": prompt + output + thoughts,
        }
        if self.reasoning is not None:
            usage["thoughtsTokenCount"] = thoughts
        if self.usage:
            usage.update(self.usage)
            if "totalTokenCount" not in self.usage:
                counted = ("promptTokenCount", "candidatesTokenCount", "thoughtsTokenCount")
                usage["totalTokenCount"] = sum(usage.get(k, 0) for k in counted)
        return usage

    def response(
        self, context: Context, parts: list[Any], output: int, finish: bool, thoughts: int = 0
    ) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}}
        if finish:
            candidate["finishReason"] = self.finish_reason
        candidate["index"] = 0
        return {
            "candidates": [candidate],
            "usageMetadata": self.usage_for(context, output, thoughts),
            "modelVersion": context.model,
            "responseId": self.id or self.make_id("", context, "response", 22),
        }

    def _call_parts(self) -> list[dict[str, Any]]:
        return [{"functionCall": {"name": c.name, "args": c.arguments_value}} for c in self.calls]

    # -- buffered -------------------------------------------------------------------------

    def body(self, context: Context) -> Any:
        parts = [_thought(self.reasoning)] if self.reasoning is not None else []
        parts += ([{"text": self.full_text}] if self.full_text else []) + self._call_parts()
        return self.response(context, parts, self.counted_output(), True, self.reasoning_tokens)

    def draft(self, context: Context) -> Draft:
        draft = super().draft(context)
        if draft.streamed and context.request.query_value("alt") != "sse":
            body = [c.data for c in draft.chunks]
            return Draft(self.file_key, False, draft.status, draft.headers, body)
        return draft

    # -- streamed -------------------------------------------------------------------------

    def stream_chunks(self, context: Context) -> list[Chunk]:
        chunks = []
        output = thoughts = 0
        for piece in self.reasoning_pieces:
            thoughts += count_tokens(piece)
            data = self.response(context, [_thought(piece)], output, False, thoughts)
            chunks.append(Chunk(data, "thinking"))
        for piece in self.pieces:
            output += count_tokens(piece)
            data = self.response(context, [{"text": piece}], output, False, thoughts)
            chunks.append(Chunk(data, "text"))
        for call, part in zip(self.calls, self._call_parts(), strict=True):
            output += count_tokens(call.name) + count_tokens(call.arguments_text)
            chunks.append(Chunk(self.response(context, [part], output, False, thoughts), "tool"))
        final = self.response(
            context, [{"text": ""}], self.counted_output(), True, self.reasoning_tokens
        )
        chunks.append(Chunk(final, "finish"))
        return chunks

    def error_chunks(self, kept: list[Chunk], context: Context) -> list[Chunk]:
        assert self.error is not None
        _, body, _ = gemini_error(self.error, self.error_options)
        return [Chunk(body, "error")]

    def error_draft(self, context: Context) -> Draft:
        assert self.error is not None
        code, body, headers = gemini_error(self.error, self.error_options)
        own = tuple(self.headers.items()) if self.headers else ()
        return Draft(self.file_key, False, code, merge_headers(headers, own), body)


def _thought(text: str) -> dict[str, Any]:
    return {"text": text, "thought": True}
