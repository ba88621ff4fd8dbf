"""openai-chat: rules for a Chat Completions stream (``stream: true``).

The reference shape (wire-facts.md §3.1): ``data: <chunk JSON>`` events with
``object: "chat.completion.chunk"``, the same ``id`` and ``model`` throughout; per choice a
role chunk, content chunks, then a chunk of its own with ``finish_reason``; with
``stream_options.include_usage`` a final chunk with ``choices: []`` and ``usage``; then
``data: [DONE]``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .._core._sse_decode import Message
from ._rule import Hit, Rule, hit, short
from ._stream import Stream

__all__ = ["OPENAI_CHAT", "after_last", "choice_entries", "chunks", "error_payloads"]

_DONE = "[DONE]"
_OBJECT = "chat.completion.chunk"


@dataclass(frozen=True, slots=True)
class Entry:
    """One choice inside one chunk."""

    message: Message
    chunk: dict[str, Any]
    index: int
    choice: dict[str, Any]

    @property
    def delta(self) -> dict[str, Any]:
        delta = self.choice.get("delta")
        return delta if isinstance(delta, dict) else {}

    @property
    def finished(self) -> bool:
        return self.choice.get("finish_reason") is not None


def chunks(stream: Stream) -> list[tuple[Message, dict[str, Any]]]:
    """Every JSON-object payload except ``[DONE]`` and error payloads, in order.

    Computed once per stream (many rules read it): do not modify the list.
    """
    found: list[tuple[Message, dict[str, Any]]] | None = stream.memo.get("openai.chunks")
    if found is None:
        found = stream.memo["openai.chunks"] = [
            (p.message, obj)
            for p in stream.payloads
            if (obj := p.obj) is not None and "error" not in obj and p.message.data != _DONE
        ]
    return found


def choice_entries(stream: Stream) -> list[Entry]:
    """Every choice of every chunk, with its index (a missing index counts as 0).

    Computed once per stream (many rules read it): do not modify the list.
    """
    found: list[Entry] | None = stream.memo.get("openai.entries")
    if found is None:
        found = stream.memo["openai.entries"] = [
            Entry(message, chunk, _index(choice), choice)
            for message, chunk in chunks(stream)
            for choice in _choices(chunk)
        ]
    return found


def _choices(chunk: dict[str, Any]) -> list[dict[str, Any]]:
    choices = chunk.get("choices")
    return [c for c in choices if isinstance(c, dict)] if isinstance(choices, list) else []


def _index(choice: dict[str, Any]) -> int:
    index = choice.get("index")
    return index if isinstance(index, int) else 0


def _by_index(stream: Stream) -> dict[int, list[Entry]]:
    groups: dict[int, list[Entry]] = {}
    for entry in choice_entries(stream):
        groups.setdefault(entry.index, []).append(entry)
    return groups


def _has_usage(chunk: dict[str, Any]) -> bool:
    return isinstance(chunk.get("usage"), dict)


def _done_messages(stream: Stream) -> list[Message]:
    return [m for m in stream.messages if m.data == _DONE]


# -- framing and envelope ------------------------------------------------------------------


def _one_data_line(stream: Stream) -> Iterator[Hit]:
    for m in stream.messages:
        if len(m.data_lines) > 1:
            yield hit(
                m,
                f"one event has {len(m.data_lines)} data lines, which clients join with LF; "
                "each chunk should be its own event ended by a blank line",
            )


def _json(stream: Stream) -> Iterator[Hit]:
    for p in stream.payloads:
        if p.obj is None and p.message.data != _DONE and len(p.message.data_lines) <= 1:
            yield hit(p.message, f"data is not a JSON object: {short(p.message.data)}")


def _done(stream: Stream) -> Iterator[Hit]:
    if not _done_messages(stream):
        yield Hit(
            f"the stream closed {after_last(stream)} without data: [DONE]; "
            "clients waiting for the sentinel must treat end-of-stream as the end",
            offset=len(stream.transcript.body),
        )


def after_last(stream: Stream) -> str:
    """``"after event 5"``, or ``"before any event"`` for a stream without events."""
    if not stream.messages:
        return "before any event"
    return f"after event {stream.messages[-1].index}"


def _done_last(stream: Stream) -> Iterator[Hit]:
    done = _done_messages(stream)
    if done:
        for m in stream.messages[done[0].index + 1 :]:
            yield hit(m, f"event {m.index} arrived after data: [DONE] (event {done[0].index})")


def error_payloads(stream: Stream) -> Iterator[Hit]:
    """A hit for each payload of a 200 stream that carries an ``error`` object."""
    for p in stream.payloads:
        if p.obj is not None and "error" in p.obj:
            yield hit(p.message, f"a 200 stream carried an error payload: {short(p.obj['error'])}")


def _object(stream: Stream) -> Iterator[Hit]:
    for message, chunk in chunks(stream):
        if chunk.get("object") != _OBJECT:
            yield hit(message, f'object was {short(chunk.get("object"))}, expected "{_OBJECT}"')


def _choices_list(stream: Stream) -> Iterator[Hit]:
    for message, chunk in chunks(stream):
        if not isinstance(chunk.get("choices"), list):
            seen = short(chunk["choices"]) if "choices" in chunk else "missing"
            yield hit(message, f"choices was {seen}, expected a list (possibly empty)")


def _empty_choices(stream: Stream) -> Iterator[Hit]:
    for message, chunk in chunks(stream):
        if chunk.get("choices") == [] and not _has_usage(chunk):
            what = (
                "prompt_filter_results"
                if "prompt_filter_results" in chunk
                else "keys " + ", ".join(sorted(chunk))
            )
            yield hit(
                message,
                f"a chunk with an empty choices list ({what}); legal, but code that reads "
                "choices[0] without checking throws here",
            )


def _stable(key: str) -> Any:
    def find(stream: Stream) -> Iterator[Hit]:
        seen = chunks(stream)
        if not seen:
            return
        first_message, first = seen[0]
        if not (isinstance(first.get(key), str) and first[key]):
            yield hit(
                first_message,
                f"{key} was {short(first.get(key))}, expected a non-empty string "
                "(the same on every chunk)",
            )
        for message, chunk in seen[1:]:
            if chunk.get(key) != first.get(key):
                yield hit(
                    message,
                    f"{key} was {short(chunk.get(key))}, expected {short(first.get(key))} "
                    f"as on event {first_message.index}",
                )

    return find


# -- per choice ----------------------------------------------------------------------------


def _role_first(stream: Stream) -> Iterator[Hit]:
    for index, entries in _by_index(stream).items():
        first = entries[0]
        if first.delta.get("role") != "assistant":
            yield hit(
                first.message,
                f"the first chunk of choice {index} has delta {short(first.delta)}, "
                "expected delta.role 'assistant'",
            )


def _first_content(stream: Stream) -> Iterator[Hit]:
    for index, entries in _by_index(stream).items():
        content = entries[0].delta.get("content")
        if content:
            yield hit(
                entries[0].message,
                f"the first chunk of choice {index} already carries content {short(content)}; "
                "the reference sends the role with empty content first",
            )


def _role_repeated(stream: Stream) -> Iterator[Hit]:
    for index, entries in _by_index(stream).items():
        again = [e for e in entries[1:] if "role" in e.delta]
        if again:
            yield hit(
                again[0].message,
                f"delta.role repeated on {len(again)} later chunk(s) of choice {index}; "
                "the reference sends it once, first",
            )


def _finish_once(stream: Stream) -> Iterator[Hit]:
    groups = _by_index(stream)
    if chunks(stream) and not groups:
        yield Hit("no chunk carries a choice, so no choice ever finished")
    for index, entries in groups.items():
        finished = [e for e in entries if e.finished]
        if len(finished) != 1:
            where = finished[1] if finished else entries[-1]
            yield hit(
                where.message,
                f"choice {index} has {len(finished)} chunks with a non-null finish_reason, "
                "expected exactly 1",
            )


def _finish_separate(stream: Stream) -> Iterator[Hit]:
    for entry in choice_entries(stream):
        carried = [k for k in ("content", "tool_calls") if entry.finished and entry.delta.get(k)]
        if carried:
            yield hit(
                entry.message,
                f"finish_reason {short(entry.choice['finish_reason'])} rides on a chunk that "
                f"also carries {' and '.join(carried)}; the reference ends with an empty delta",
            )


def _after_finish(stream: Stream) -> Iterator[Hit]:
    for index, entries in _by_index(stream).items():
        finished = [i for i, e in enumerate(entries) if e.finished]
        if finished:
            for e in entries[finished[0] + 1 :]:
                if not _has_usage(e.chunk):
                    yield hit(
                        e.message,
                        f"choice {index} continues after its finish_reason "
                        f"(event {entries[finished[0]].message.index}) with delta {short(e.delta)}",
                    )


# -- usage ---------------------------------------------------------------------------------


def _usage_requested(stream: Stream) -> bool | None:
    request = stream.transcript.request
    if not isinstance(request, dict):
        return None
    options = request.get("stream_options")
    return isinstance(options, dict) and options.get("include_usage") is True


def _usage_chunks(stream: Stream) -> list[tuple[Message, dict[str, Any]]]:
    return [(m, c) for m, c in chunks(stream) if _has_usage(c)]


def _usage_opt_in(stream: Stream) -> Iterator[Hit]:
    requested = _usage_requested(stream)
    if requested is None:
        yield Hit("the request is not known, so usage opt-in was not checked", severity="note")
    elif not requested and _usage_chunks(stream):
        message, _ = _usage_chunks(stream)[0]
        yield hit(
            message,
            "usage arrived although the request did not set stream_options.include_usage",
        )


def _usage_once(stream: Stream) -> Iterator[Hit]:
    found = _usage_chunks(stream)
    if _usage_requested(stream) and len(found) != 1:
        where = Hit("") if not found else hit(found[1][0], "")
        yield Hit(
            f"usage arrived on {len(found)} chunks, expected exactly 1 because the request "
            "set stream_options.include_usage",
            where.event,
            where.offset,
        )


def _usage_chunk(stream: Stream) -> Iterator[Hit]:
    found = _usage_chunks(stream)
    if not (_usage_requested(stream) and found):
        return
    message, chunk = found[-1]
    if chunk.get("choices") != []:
        yield hit(
            message, f"the usage chunk has choices {short(chunk.get('choices'))}, expected []"
        )
    last = chunks(stream)[-1][0]
    if last is not message:
        yield hit(
            message, f"the usage chunk is followed by chunk event {last.index}; it must be last"
        )


def _usage_total(stream: Stream) -> Iterator[Hit]:
    for message, chunk in _usage_chunks(stream):
        usage = chunk["usage"]
        counts = [usage.get(k) for k in ("prompt_tokens", "completion_tokens", "total_tokens")]
        if not all(isinstance(n, int) for n in counts):
            yield hit(message, f"usage lacks integer token counts: {short(usage)}")
        elif counts[0] + counts[1] != counts[2]:
            yield hit(
                message,
                f"prompt_tokens {counts[0]} + completion_tokens {counts[1]} = "
                f"{counts[0] + counts[1]}, but total_tokens was {counts[2]}",
            )


# -- tool calls ----------------------------------------------------------------------------


def _tool_fragments(stream: Stream) -> Iterator[tuple[Entry, dict[str, Any]]]:
    for entry in choice_entries(stream):
        calls = entry.delta.get("tool_calls")
        for call in calls if isinstance(calls, list) else []:
            if isinstance(call, dict):
                yield entry, call


def _tool_calls(stream: Stream) -> dict[tuple[int, int], list[tuple[Entry, dict[str, Any]]]]:
    calls: dict[tuple[int, int], list[tuple[Entry, dict[str, Any]]]] = {}
    for entry, call in _tool_fragments(stream):
        if isinstance(call.get("index"), int):
            calls.setdefault((entry.index, call["index"]), []).append((entry, call))
    return calls


def _function(call: dict[str, Any]) -> dict[str, Any]:
    function = call.get("function")
    return function if isinstance(function, dict) else {}


def _tool_call_index(stream: Stream) -> Iterator[Hit]:
    for entry, call in _tool_fragments(stream):
        if not isinstance(call.get("index"), int):
            yield hit(
                entry.message,
                f"a tool-call fragment has index {short(call.get('index'))}, expected an integer "
                "that ties its fragments together",
            )


def _tool_call_start(stream: Stream) -> Iterator[Hit]:
    for (choice, index), fragments in _tool_calls(stream).items():
        entry, first = fragments[0]
        if not (first.get("id") and _function(first).get("name")):
            yield hit(
                entry.message,
                f"tool call {index} of choice {choice} starts without an id and function.name: "
                f"{short(first)}",
            )
        for later_entry, later in fragments[1:]:
            if later.get("id") not in (None, first.get("id")):
                yield hit(
                    later_entry.message,
                    f"tool call {index} of choice {choice} changed id from "
                    f"{short(first.get('id'))} to {short(later.get('id'))}",
                )


def _tool_call_args(stream: Stream) -> Iterator[Hit]:
    for (choice, index), fragments in _tool_calls(stream).items():
        parts = [_function(call).get("arguments") for _, call in fragments]
        joined = "".join(p for p in parts if isinstance(p, str))
        try:
            json.loads(joined)
        except (ValueError, RecursionError):  # nested too deep to parse: not JSON either
            yield hit(
                fragments[0][0].message,
                f"the arguments of tool call {index} of choice {choice} join to "
                f"{short(joined)}, which is not valid JSON",
            )


OPENAI_CHAT = (
    Rule(
        "openai.one-data-line",
        "violation",
        "Each event has exactly one data line: chunks are separated by blank lines.",
        "A parser that splits on single newlines works until two chunks arrive as one event; "
        "a conforming parser joins them with LF and the JSON no longer parses.",
        "None known among providers; proxies that re-frame streams.",
        _one_data_line,
    ),
    Rule(
        "openai.json",
        "violation",
        "Every data payload other than [DONE] is a JSON object.",
        "Clients call json.loads on every payload but the sentinel.",
        "None known for data events; errors may arrive as non-JSON text from proxies.",
        _json,
    ),
    Rule(
        "openai.done",
        "violation",
        "data: [DONE] arrives (the stream does not just close).",
        "Clients wait for the sentinel to finish; a stream that just closes looks like a "
        "dropped connection.",
        "Proxies that close instead; OpenAI, Groq and LiteLLM send no [DONE] after an error "
        "(Q-DONE-AFTER-ERROR); Gemini alt=sse has none.",
        _done,
    ),
    Rule(
        "openai.done-last",
        "violation",
        "data: [DONE] is the final event.",
        "Clients stop reading at the sentinel; anything after it is lost.",
        "None known.",
        _done_last,
    ),
    Rule(
        "openai.error",
        "violation",
        "No payload carries an error object (an error inside a 200 stream).",
        "The status already said success; clients must read the body to see the failure, and "
        "SDKs raise on any chunk with an error key.",
        "OpenAI, vLLM, SGLang, LiteLLM (Q-ERR-BARE-DATA); OpenRouter inside a normal chunk "
        "(Q-ERR-IN-CHUNK).",
        error_payloads,
    ),
    Rule(
        "openai.object",
        "violation",
        "Every chunk has object 'chat.completion.chunk'.",
        "Strict validators (and code that dispatches on object) reject anything else.",
        "Azure prompt-filter prelude has '' (Q-AZURE-PROMPT-FILTER); Perplexity ends with "
        "'chat.completion.done' (Q-OBJECT-VALUE).",
        _object,
    ),
    Rule(
        "openai.choices",
        "violation",
        "Every chunk has a choices list (possibly empty).",
        "Clients iterate choices; null or a missing key throws.",
        "Some vLLM-compatible backends send choices null on the usage chunk (Q-CHOICES-NULL).",
        _choices_list,
    ),
    Rule(
        "openai.empty-choices",
        "note",
        "Reports chunks other than the usage chunk whose choices list is empty (legal: Azure "
        "filter results).",
        "Code that reads chunk.choices[0] without a length check throws on them.",
        "Azure prompt_filter_results prelude (Q-AZURE-PROMPT-FILTER).",
        _empty_choices,
    ),
    Rule(
        "openai.stable-id",
        "violation",
        "id is a non-empty string, the same on every chunk.",
        "Logs and clients correlate chunks of one response by id.",
        "Azure prelude has id '' (Q-AZURE-PROMPT-FILTER); Snowflake sends '' (Q-EMPTY-ID).",
        _stable("id"),
    ),
    Rule(
        "openai.stable-model",
        "violation",
        "model is a non-empty string, the same on every chunk.",
        "Clients record the model from any chunk and expect one answer per response.",
        "Azure prelude has model '' (Q-AZURE-PROMPT-FILTER).",
        _stable("model"),
    ),
    Rule(
        "openai.role-first",
        "violation",
        "The first chunk of each choice carries delta.role 'assistant'.",
        "Clients that build the message from the first delta take the role from it.",
        "xAI and DeepSeek send role with reasoning first; Azure annotation chunks have no delta "
        "(Q-AZURE-ANNOTATION-NO-DELTA).",
        _role_first,
    ),
    Rule(
        "openai.first-content",
        "warning",
        "The role chunk carries no content (empty or absent).",
        "Consumers that assumed the reference shape drop text sent with the role.",
        "Implementations that send content in the very first chunk.",
        _first_content,
    ),
    Rule(
        "openai.role-repeated",
        "warning",
        "delta.role appears only on the first chunk of a choice.",
        "Consumers that start a new message on every role lose the text so far.",
        "OpenRouter, Together, Perplexity, Z.ai, Ollama before 2026-08 (Q-ROLE-EVERY-CHUNK).",
        _role_repeated,
    ),
    Rule(
        "openai.finish-once",
        "violation",
        "Exactly one chunk per choice index has a non-null finish_reason.",
        "Consumers finalise on it: none means never finishing, two means finishing twice.",
        "xAI, Z.ai and Snowflake omit the key until the end (Q-MISSING-KEYS).",
        _finish_once,
    ),
    Rule(
        "openai.finish-separate",
        "warning",
        "The finish_reason chunk carries an empty delta, not the last content.",
        "Consumers that stop reading content once finish_reason is set lose the last fragment.",
        "Ollama before 2026-08 (Q-FINISH-ON-CONTENT); Mistral tool calls; Groq whole calls.",
        _finish_separate,
    ),
    Rule(
        "openai.after-finish",
        "violation",
        "Nothing arrives for a choice after its finish_reason, except the usage chunk.",
        "Consumers finalise the choice on finish_reason and drop or misplace what follows.",
        "Azure async-filter annotations may follow the finish (Q-AZURE-ANNOTATION-NO-DELTA); "
        "OpenRouter's usage chunk holds a dummy choice (Q-USAGE-DUMMY-CHOICE).",
        _after_finish,
    ),
    Rule(
        "openai.usage-opt-in",
        "violation",
        "Without stream_options.include_usage in the request, no chunk carries usage.",
        "Usage in a stream is opt-in; clients that did not ask do not expect it, and code that "
        "treats a chunk with usage as the choice-less usage chunk misreads the content.",
        "Groq, Mistral, OpenRouter, Together send it anyway (Q-USAGE-WITHOUT-REQUEST).",
        _usage_opt_in,
    ),
    Rule(
        "openai.usage-once",
        "violation",
        "With include_usage requested, exactly one chunk carries usage.",
        "A provider that ignores the flag leaves every streamed request without token counts.",
        "Perplexity, Gemini and vLLM continuous_usage_stats send it on every chunk "
        "(Q-USAGE-EVERY-CHUNK).",
        _usage_once,
    ),
    Rule(
        "openai.usage-chunk",
        "violation",
        "With include_usage requested, usage rides on a final chunk whose choices is [].",
        "Clients read usage from the choice-less last chunk, after the finish chunk.",
        "Groq, Mistral, DeepSeek, Together, Z.ai put it on the finish chunk "
        "(Q-USAGE-ON-FINISH); OpenRouter adds a dummy choice (Q-USAGE-DUMMY-CHOICE).",
        _usage_chunk,
    ),
    Rule(
        "openai.usage-total",
        "violation",
        "In every usage object, prompt_tokens + completion_tokens = total_tokens.",
        "Billing and quota code trusts the three numbers to agree.",
        "xAI counts reasoning into total_tokens (Q-USAGE-VENDOR-EXT).",
        _usage_total,
    ),
    Rule(
        "openai.tool-call-index",
        "violation",
        "Every tool-call fragment has an integer index.",
        "Clients assemble fragments by index; without it parallel calls cannot be told apart.",
        "Gemini compat, older Mistral, Ollama before 2024-11 (Q-TOOL-NO-INDEX).",
        _tool_call_index,
    ),
    Rule(
        "openai.tool-call-start",
        "violation",
        "Each tool call's first fragment carries id and function.name; later ones keep the id.",
        "Clients create the call from the first fragment and append arguments to it.",
        "Gemini compat sends id '' in some versions (Q-TOOL-NO-INDEX).",
        _tool_call_start,
    ),
    Rule(
        "openai.tool-call-args",
        "violation",
        "Each tool call's argument fragments join into valid JSON.",
        "Clients json.loads the joined arguments to call the function.",
        "Groq, Mistral, xAI send them whole, OpenAI fragments them (Q-TOOL-ARGS-WHOLE).",
        _tool_call_args,
    ),
)
