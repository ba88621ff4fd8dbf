"""openai-chat, continued: the shape of each chunk against the ``ChatCompletionChunk`` schema.

These rules catch what OpenAI-compatible providers change in the chunks themselves (wire-facts
Part 4, chunk-structure layer): keys left out or added, content that is not a string,
reasoning in a field of its own, tool calls sent whole or finished with ``stop``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .._core._sse_decode import Message
from ._openai import Entry, choice_entries, chunks
from ._rule import Hit, Rule, hit, short
from ._stream import Stream

__all__ = ["OPENAI_SHAPE", "REASONING_KEYS"]

# The keys the ChatCompletionChunk schema (and the official SDKs) know, per level.
_TOP = frozenset(
    {"id", "object", "created", "model", "choices", "usage", "system_fingerprint"}
    | {"service_tier", "obfuscation"}
)
_CHOICE = frozenset({"index", "delta", "logprobs", "finish_reason"})
_DELTA = frozenset({"role", "content", "refusal", "tool_calls", "function_call"})
_REQUIRED = ("index", "delta", "finish_reason")
REASONING_KEYS = ("reasoning_content", "reasoning", "reasoning_details")
_THINK = "<think>"


def _event_name(stream: Stream) -> Iterator[Hit]:
    named = [m for m in stream.messages if m.event != "message"]
    if named:
        names = ", ".join(sorted({m.event for m in named}))
        yield hit(
            named[0],
            f"{len(named)} event(s) carry an event: name ({names}); the reference sends data "
            "only, and clients that read only unnamed events skip these",
        )


def _choice_keys(stream: Stream) -> Iterator[Hit]:
    for entry in choice_entries(stream):
        missing = [key for key in _REQUIRED if key not in entry.choice]
        if missing:
            yield hit(
                entry.message,
                f"a choice lacks {', '.join(missing)}: {short(entry.choice)}; the schema "
                "requires index, delta and finish_reason (null until the end) on every choice",
            )


def _content_string(stream: Stream) -> Iterator[Hit]:
    for entry in choice_entries(stream):
        content = entry.delta.get("content")
        if content is not None and not isinstance(content, str):
            yield hit(
                entry.message,
                f"delta.content was {short(content)}, expected a string or null; clients "
                "that concatenate content throw",
            )


def _reasoning(stream: Stream) -> Iterator[Hit]:
    fields: dict[str, list[Entry]] = {}
    for entry in choice_entries(stream):
        for key in REASONING_KEYS:
            if key in entry.delta:
                fields.setdefault(key, []).append(entry)
        content = entry.delta.get("content")
        if isinstance(content, str) and _THINK in content:
            fields.setdefault("content as <think>", []).append(entry)
    for key, entries in fields.items():
        where = f"delta.{key}" if key in REASONING_KEYS else key
        yield hit(
            entries[0].message,
            f"reasoning arrives in {where} on {len(entries)} chunk(s); the reference has no "
            "reasoning field, so clients that read only content drop it or show it as text",
        )


def _extra_keys(chunk: dict[str, Any], entry: Entry | None) -> list[str]:
    if entry is None:
        return [k for k in chunk if k not in _TOP]
    extra = [f"choices[].{k}" for k in entry.choice if k not in _CHOICE]
    return extra + [
        f"delta.{k}" for k in entry.delta if k not in _DELTA and k not in REASONING_KEYS
    ]


def _extra_fields(stream: Stream) -> Iterator[Hit]:
    seen: dict[str, int] = {}
    first = None
    for message, chunk in chunks(stream):
        keys = _extra_keys(chunk, None)
        keys += [k for e in _entries_of(message, chunk) for k in _extra_keys(chunk, e)]
        for key in keys:
            seen[key] = seen.get(key, 0) + 1
        first = first or (message if keys else None)
    if first is not None:
        listed = ", ".join(f"{key} ({count}x)" for key, count in seen.items())
        yield hit(
            first,
            f"keys outside the ChatCompletionChunk schema: {listed}; strict validators reject "
            "them, lenient clients ignore them",
        )


def _entries_of(message: Message, chunk: dict[str, Any]) -> list[Entry]:
    choices = chunk.get("choices")
    listed = [c for c in choices if isinstance(c, dict)] if isinstance(choices, list) else []
    return [
        Entry(message, chunk, c["index"] if isinstance(c.get("index"), int) else 0, c)
        for c in listed
    ]


def _calls(stream: Stream) -> dict[tuple[int, int], list[tuple[Entry, dict[str, Any]]]]:
    """Each tool call's fragments, by choice and ``index``; without an index (Q-TOOL-NO-INDEX)
    a fragment with an ``id`` starts the choice's next call, one without continues it."""
    calls: dict[tuple[int, int], list[tuple[Entry, dict[str, Any]]]] = {}
    started: dict[int, int] = {}  # choice -> index-less calls started so far
    for entry in choice_entries(stream):
        fragments = entry.delta.get("tool_calls")
        for call in fragments if isinstance(fragments, list) else []:
            if not isinstance(call, dict):
                continue
            index = call.get("index")
            if not isinstance(index, int):
                if call.get("id") or entry.index not in started:
                    started[entry.index] = started.get(entry.index, -1) + 1
                index = started[entry.index]
            calls.setdefault((entry.index, index), []).append((entry, call))
    return calls


def _tool_call_whole(stream: Stream) -> Iterator[Hit]:
    for (choice, index), fragments in _calls(stream).items():
        entry, first = fragments[0]
        function = first.get("function")
        arguments = function.get("arguments") if isinstance(function, dict) else None
        if arguments:
            yield hit(
                entry.message,
                f"tool call {index} of choice {choice} arrives whole: its first fragment "
                f"already carries the arguments {short(arguments)}; clients that take only id "
                "and name from the first fragment lose them",
            )


def _tool_call_finish(stream: Stream) -> Iterator[Hit]:
    called = {e.index for e in choice_entries(stream) if e.delta.get("tool_calls")}
    for entry in choice_entries(stream):
        reason = entry.choice.get("finish_reason")
        if reason is None:
            continue
        if entry.index in called and reason != "tool_calls":
            yield hit(
                entry.message,
                f"choice {entry.index} streamed tool calls but finished with {short(reason)}, "
                'expected "tool_calls"; agent loops that branch on it never run the tools',
            )
        elif entry.index not in called and reason == "tool_calls":
            yield hit(
                entry.message,
                f"choice {entry.index} finished with 'tool_calls' but streamed no tool call",
            )


OPENAI_SHAPE = (
    Rule(
        "openai.event-name",
        "note",
        "Reports events with an event: name; Chat Completions streams are data-only.",
        "Clients that handle only unnamed events (or treat a named one as an error) skip or "
        "misread them.",
        "Groq names its error events (Q-ERR-EVENT-NAMED); gateways that add names (Q-EVENT-LINE).",
        _event_name,
    ),
    Rule(
        "openai.choice-keys",
        "violation",
        "Every choice has index, delta and finish_reason (null until the end).",
        "Clients index choice['delta'] and choice['finish_reason'] directly; a missing key "
        "throws where null would not.",
        "xAI, Z.ai, Perplexity, Snowflake omit finish_reason until the end (Q-MISSING-KEYS); "
        "Azure filter annotations have no delta (Q-AZURE-ANNOTATION-NO-DELTA).",
        _choice_keys,
    ),
    Rule(
        "openai.content-string",
        "violation",
        "delta.content is a string or null.",
        "Clients append content to a string; a list of parts throws or prints its repr.",
        "Mistral Magistral sends a list of typed parts (Q-CONTENT-ARRAY).",
        _content_string,
    ),
    Rule(
        "openai.reasoning",
        "note",
        "Reports reasoning outside the reference shape: in a delta field (reasoning_content, "
        "reasoning, reasoning_details) or inline in content as <think>.",
        "Clients that read only delta.content lose the reasoning, or show <think> text to users.",
        "DeepSeek, xAI, Z.ai use reasoning_content; Groq, OpenRouter, Ollama reasoning "
        "(Q-REASONING-FIELD); R1 via Together inlines <think> (Q-THINK-IN-CONTENT).",
        _reasoning,
    ),
    Rule(
        "openai.extra-fields",
        "note",
        "Reports keys outside the ChatCompletionChunk schema (chunk, choice and delta level).",
        "Strict validators reject unknown keys; lenient clients ignore them, so what they carry "
        "(filter results, timings, costs) is lost.",
        "Azure content_filter_results, Groq x_groq, OpenRouter provider and "
        "native_finish_reason, vLLM prompt_token_ids, Perplexity citations (Q-EXTRA-FIELDS).",
        _extra_fields,
    ),
    Rule(
        "openai.tool-call-whole",
        "note",
        "Reports tool calls whose first fragment already carries the arguments (sent whole).",
        "Legal, but clients that take id and name from the first fragment and append only later "
        "arguments lose them.",
        "Groq, Mistral, xAI, Gemini compat send the call whole; OpenAI fragments it "
        "(Q-TOOL-ARGS-WHOLE).",
        _tool_call_whole,
    ),
    Rule(
        "openai.tool-call-finish",
        "violation",
        "A choice that streamed tool calls finishes with 'tool_calls' (and only such a choice).",
        "Agent loops decide from finish_reason whether to run the tools.",
        "Gemini compat finishes tool turns with 'stop' (Q-FINISH-STOP-FOR-TOOLS).",
        _tool_call_finish,
    ),
)
