"""The quirk catalogue: the ways real providers' streams differ from the reference, as data.

Each :class:`Quirk` is named by its catalogue id (``Q-CRLF``, ``Q-USAGE-ON-FINISH``, ...),
says in one sentence what it sends, which providers send it, and which contract rules
catch it on which reply (``rules``: reply kind -> rule ids).  ``contract`` owns this
knowledge (``check(..., as_=...)`` reads it through :mod:`._providers`); ``mockhttp.llm``
reads it too and maps each id to the transform that reproduces the quirk
(``llm/_transforms.py``).

Rule 1: records are plain data (text, tuples, mappings of them): nothing here runs, so the
catalogue imports nothing from the features above ``contract``.
Rule 2: a quirk names exactly the rules that catch it on each reply kind; the closed loop
(tests/llm/test_quirks.py) checks this against real runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from .._core._registry import Registry

__all__ = ["ANTHROPIC", "CHAT", "GEMINI", "QUIRKS", "RESPONSES", "Layer", "Quirk", "quirk"]

Layer = Literal["framing", "chunk-structure", "error", "event-protocol"]
CHAT = "openai_chat"
RESPONSES = "openai_responses"
ANTHROPIC = "anthropic_messages"
GEMINI = "gemini"


@dataclass(frozen=True)
class Quirk:
    """One catalogued divergence from the reference stream.

    Attributes:
        id: the catalogue id, upper case (``"Q-CRLF"``).
        layer: ``framing``, ``chunk-structure``, ``error`` or ``event-protocol``.
        summary: what a stream with the quirk sends, one sentence.
        providers: who sends it.
        rules: for each reply kind it concerns (``openai_chat``, ...), the contract rules
            that catch it there (the matrix test checks these exactly).
        needs: what the reply or request must have for the quirk to show ("" when nothing).
    """

    id: str
    layer: Layer
    summary: str
    providers: str
    rules: Mapping[str, tuple[str, ...]]
    needs: str = ""

    @property
    def kinds(self) -> tuple[str, ...]:
        """The reply kinds the quirk concerns."""
        return tuple(self.rules)


_C, _R, _A, _G = CHAT, RESPONSES, ANTHROPIC, GEMINI


def _each(*kinds: str, rules: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    return {kind: rules for kind in kinds}


_ALL_SSE = (_C, _R, _A)

_CATALOGUE = (
    # framing
    Quirk(
        "Q-CRLF",
        "framing",
        "Events are framed with CRLF line endings instead of LF.",
        "Gemini and Vertex alt=sse (their reference framing).",
        _each(*_ALL_SSE, rules=("sse.line-endings",)),
    ),
    Quirk(
        "Q-CR-ONLY",
        "framing",
        "Events are framed with bare CR line endings, legal but rare.",
        "No LLM provider; SSE conformance suites.",
        {**_each(*_ALL_SSE, rules=("sse.line-endings",)), _G: ("gemini.line-endings",)},
    ),
    Quirk(
        "Q-DATA-NO-SPACE",
        "framing",
        "Fields are written without the space after the colon (data:{...}).",
        "Hugging Face TGI, Spring-based servers, some gateways.",
        _each(*_ALL_SSE, _G, rules=("sse.data-space",)),
    ),
    Quirk(
        "Q-COMMENT-KEEPALIVE",
        "framing",
        "Comment lines are sent as keep-alives, before the first event and between events.",
        "OpenRouter (: OPENROUTER PROCESSING), DeepSeek (: keep-alive).",
        _each(*_ALL_SSE, _G, rules=("sse.comments",)),
    ),
    Quirk(
        "Q-BOM",
        "framing",
        "The body starts with a UTF-8 byte-order mark.",
        "No LLM provider; SSE conformance suites.",
        _each(*_ALL_SSE, _G, rules=("sse.bom",)),
    ),
    Quirk(
        "Q-NO-TRAILING-BLANK",
        "framing",
        "The last event is not followed by a blank line, so the spec discards it.",
        "None observed; a test of end-of-stream handling.",
        {
            _C: ("sse.unterminated", "openai.done"),
            _R: ("sse.unterminated", "responses.terminal"),
            _A: ("sse.unterminated", "anthropic.message-stop"),
            _G: ("sse.unterminated", "gemini.finish"),
        },
    ),
    Quirk(
        "Q-DONE",
        "framing",
        "The Chat Completions stream closes without data: [DONE].",
        "Proxies that close instead; Gemini's OpenAI-compatible endpoint in some versions.",
        {_C: ("openai.done",)},
    ),
    Quirk(
        "Q-EVENT-LINE",
        "framing",
        "A Chat Completions stream names its events (event: lines), which the reference never "
        "does.",
        "Gateways that re-frame streams; Groq names its error events.",
        {_C: ("openai.event-name",)},
    ),
    Quirk(
        "Q-RESP-NO-EVENT-LINE",
        "framing",
        "A Responses stream sends data-only frames (the type only in the JSON) and ends with "
        "data: [DONE].",
        "OpenRouter's /responses.",
        {_R: ("responses.event-name", "responses.done-sentinel")},
    ),
    Quirk(
        "Q-JSON-PADDING",
        "framing",
        "The JSON of each event is padded with spaces before its final brace.",
        "Anthropic (every event but ping).",
        _each(*_ALL_SSE, rules=("sse.json-spacing",)),
    ),
    Quirk(
        "Q-JSON-STYLE-MIXED",
        "framing",
        "Some events carry JSON with spaced separators (Python's json.dumps default).",
        "Gemini; Anthropic ping and errors; vLLM, SGLang and OpenAI error frames.",
        _each(*_ALL_SSE, rules=("sse.json-spacing",)),
    ),
    Quirk(
        "Q-JSON-ARRAY-STREAM",
        "framing",
        "The stream is a JSON array sent as application/json, not an event stream.",
        "Gemini :streamGenerateContent without alt=sse.",
        {_G: ("http.content-type",)},
    ),
    # chunk structure
    Quirk(
        "Q-ROLE-EVERY-CHUNK",
        "chunk-structure",
        "delta.role 'assistant' is repeated on every chunk, not only the first.",
        "OpenRouter, Together, Perplexity, Z.ai, Snowflake, Ollama before 2026-08.",
        {_C: ("openai.role-repeated",)},
    ),
    Quirk(
        "Q-FINISH-ON-CONTENT",
        "chunk-structure",
        "finish_reason rides on the last content chunk instead of a chunk with an empty delta.",
        "Ollama before 2026-08, Mistral tool calls.",
        {_C: ("openai.finish-separate",)},
    ),
    Quirk(
        "Q-USAGE-ON-FINISH",
        "chunk-structure",
        "Usage rides on the finish chunk; there is no separate chunk with choices [].",
        "Groq, Mistral, DeepSeek, Together, Z.ai.",
        {_C: ("openai.usage-chunk",)},
        needs="usage in the stream (include_usage, or Q-USAGE-WITHOUT-REQUEST first)",
    ),
    Quirk(
        "Q-USAGE-DUMMY-CHOICE",
        "chunk-structure",
        "The usage chunk holds a dummy choice (role and empty content) instead of choices [].",
        "OpenRouter.",
        {_C: ("openai.role-repeated", "openai.usage-chunk")},
        needs="usage in the stream (include_usage, or Q-USAGE-WITHOUT-REQUEST first)",
    ),
    Quirk(
        "Q-USAGE-EVERY-CHUNK",
        "chunk-structure",
        "Cumulative usage rides on every chunk.",
        "Perplexity; vLLM and SGLang with continuous_usage_stats; Gemini's usageMetadata.",
        {_C: ("openai.usage-once",)},
        needs="a request with stream_options.include_usage",
    ),
    Quirk(
        "Q-USAGE-WITHOUT-REQUEST",
        "chunk-structure",
        "A usage chunk arrives although the request did not set stream_options.include_usage.",
        "Groq, Mistral, OpenRouter, Together.",
        {_C: ("openai.usage-opt-in",)},
        needs="a request without stream_options.include_usage",
    ),
    Quirk(
        "Q-USAGE-VENDOR-EXT",
        "chunk-structure",
        "Usage carries vendor keys, and total_tokens counts reasoning besides prompt and "
        "completion.",
        "xAI (num_sources_used, cost_in_usd_ticks); Groq, OpenRouter, DeepSeek add keys too.",
        {_C: ("openai.usage-total",)},
        needs="usage in the stream",
    ),
    Quirk(
        "Q-CHOICES-NULL",
        "chunk-structure",
        "The usage chunk has choices null instead of [].",
        "Some vLLM-compatible backends.",
        {_C: ("openai.choices", "openai.usage-chunk")},
        needs="usage in the stream",
    ),
    Quirk(
        "Q-AZURE-PROMPT-FILTER",
        "chunk-structure",
        "A first chunk with empty id, model and object, created 0, choices [] and the prompt "
        "filter results.",
        "Azure OpenAI.",
        {
            _C: (
                "openai.object",
                "openai.empty-choices",
                "openai.stable-id",
                "openai.stable-model",
                "openai.extra-fields",
            )
        },
    ),
    Quirk(
        "Q-AZURE-ANNOTATION-NO-DELTA",
        "chunk-structure",
        "A mid-stream filter annotation chunk whose choice has no delta, with empty id, model "
        "and object.",
        "Azure OpenAI in asynchronous filter mode.",
        {
            _C: (
                "openai.object",
                "openai.stable-id",
                "openai.stable-model",
                "openai.choice-keys",
                "openai.extra-fields",
            )
        },
    ),
    Quirk(
        "Q-EMPTY-ID",
        "chunk-structure",
        "Every chunk has id '' and created 0.",
        "Snowflake Cortex; Azure's prelude.",
        {_C: ("openai.stable-id",)},
    ),
    Quirk(
        "Q-OBJECT-VALUE",
        "chunk-structure",
        "The finish chunk's object is 'chat.completion.done', not 'chat.completion.chunk'.",
        "Perplexity; Azure's prelude has ''.",
        {_C: ("openai.object",)},
    ),
    Quirk(
        "Q-MISSING-KEYS",
        "chunk-structure",
        "Choices leave out finish_reason and logprobs until the finish chunk (instead of null).",
        "xAI, Z.ai, Perplexity, Snowflake.",
        {_C: ("openai.choice-keys",)},
    ),
    Quirk(
        "Q-EXTRA-FIELDS",
        "chunk-structure",
        "Chunks carry keys outside the ChatCompletionChunk schema (variant: whose keys).",
        "OpenRouter provider and native_finish_reason, Groq x_groq, Azure "
        "content_filter_results, vLLM token ids, Together text and seed, Perplexity citations.",
        {_C: ("openai.extra-fields",)},
    ),
    Quirk(
        "Q-REASONING-FIELD",
        "chunk-structure",
        "Reasoning streams in a delta field of its own (field: reasoning_content, reasoning or "
        "reasoning_details).",
        "DeepSeek, xAI, Z.ai (reasoning_content); Groq, OpenRouter, Ollama (reasoning).",
        {_C: ("openai.reasoning",)},
    ),
    Quirk(
        "Q-THINK-IN-CONTENT",
        "chunk-structure",
        "Reasoning streams inline in content, inside <think>...</think>.",
        "DeepSeek R1 via Together and other hosts.",
        {_C: ("openai.reasoning",)},
    ),
    Quirk(
        "Q-CONTENT-ARRAY",
        "chunk-structure",
        "delta.content is a list of typed parts (thinking) instead of a string.",
        "Mistral Magistral.",
        {_C: ("openai.content-string",)},
    ),
    Quirk(
        "Q-TOOL-NO-INDEX",
        "chunk-structure",
        "Tool-call fragments have no index (and no type).",
        "Gemini's OpenAI-compatible endpoint, older Mistral, Ollama before 2024-11.",
        {_C: ("openai.tool-call-index",)},
        needs="tool calls",
    ),
    Quirk(
        "Q-TOOL-ARGS-WHOLE",
        "chunk-structure",
        "Each tool call arrives whole in one chunk: id, name and all the arguments.",
        "Groq, Mistral, xAI, Gemini's OpenAI-compatible endpoint.",
        {_C: ("openai.tool-call-whole",)},
        needs="tool calls",
    ),
    Quirk(
        "Q-FINISH-STOP-FOR-TOOLS",
        "chunk-structure",
        "A turn that called tools finishes with 'stop' instead of 'tool_calls'.",
        "Gemini's OpenAI-compatible endpoint.",
        {_C: ("openai.tool-call-finish",)},
        needs="tool calls",
    ),
    # errors
    Quirk(
        "Q-ERR-BARE-DATA",
        "error",
        'After the first content, a 200 stream sends data: {"error": {...}} (spaced JSON, no '
        "choices) and closes without [DONE].",
        "OpenAI, LiteLLM.",
        {
            _C: (
                "sse.json-spacing",
                "openai.done",
                "openai.error",
                "openai.finish-once",
                "openai.usage-once",
            )
        },
        needs="(usage-once fires when the request asked for usage)",
    ),
    Quirk(
        "Q-DONE-AFTER-ERROR",
        "error",
        "The bare error frame of a 200 stream is followed by data: [DONE].",
        "vLLM, SGLang.",
        {_C: ("sse.json-spacing", "openai.error", "openai.finish-once", "openai.usage-once")},
        needs="(usage-once fires when the request asked for usage)",
    ),
    Quirk(
        "Q-ERR-IN-CHUNK",
        "error",
        "After the first content, an error object rides inside a normal chunk with choices, "
        "then [DONE].",
        "OpenRouter (numeric code, finish_reason null).",
        {_C: ("openai.error", "openai.finish-once", "openai.usage-once")},
        needs="(usage-once fires when the request asked for usage)",
    ),
    Quirk(
        "Q-ERR-EVENT-NAMED",
        "error",
        "After the first content, a 200 stream sends a named event: error and closes without "
        "its end marker.",
        "Anthropic (overloaded_error), Groq (tool_use_failed), OpenAI Responses.",
        {
            _C: (
                "openai.done",
                "openai.error",
                "openai.finish-once",
                "openai.usage-once",
                "openai.event-name",
            ),
            _R: ("responses.terminal", "responses.error"),
            _A: ("anthropic.message-stop", "anthropic.error", "anthropic.buffered-text"),
        },
        needs="(usage-once fires when the request asked for usage)",
    ),
    Quirk(
        "Q-ERR-TRUNCATE",
        "error",
        "The stream stops in the middle of an event: no error frame, no end marker.",
        "LiteLLM's guardrail path; any provider on network loss.",
        {
            _C: ("sse.unterminated", "openai.done", "openai.finish-once", "openai.usage-once"),
            _R: ("sse.unterminated", "responses.terminal"),
            _A: ("sse.unterminated", "anthropic.message-stop"),
            _G: ("sse.unterminated", "gemini.finish"),
        },
        needs="(usage-once fires when the request asked for usage)",
    ),
    Quirk(
        "Q-RESP-ERROR-SHAPES",
        "error",
        "A Responses stream fails with a nested error event, then response.failed.",
        "OpenAI Responses (recorded; the SDK's type is flat).",
        {_R: ("responses.error",)},
    ),
    # event protocol
    Quirk(
        "Q-UNKNOWN-EVENT",
        "event-protocol",
        "An event type outside the documented set arrives before the end.",
        "Anthropic and the Responses API add event types.",
        {_R: ("responses.unknown-event",), _A: ("anthropic.unknown-event",)},
    ),
    Quirk(
        "Q-SEQNO",
        "event-protocol",
        "Responses sequence numbers start at 1 instead of 0.",
        "Re-framing proxies.",
        {_R: ("responses.sequence",)},
    ),
    Quirk(
        "Q-PING-POSITION",
        "event-protocol",
        "Two more ping events arrive, before message_delta.",
        "Anthropic (pings may come anywhere, several).",
        {_A: ("anthropic.ping",)},
    ),
)

QUIRKS: Registry[Quirk] = Registry("quirk", {q.id: q for q in _CATALOGUE})
"""Every quirk by its catalogue id (upper case)."""


def quirk(name: str) -> Quirk:
    """The quirk named ``name`` (case-insensitive).

    Raises:
        UnknownNameError: an unknown id; the message names the closest and the known ones.
    """
    return QUIRKS.get(name.upper() if isinstance(name, str) else name)
