"""What each provider quirk looks like in a stream: ``--as PROVIDER`` matches by sign.

A rule can catch several quirks (``openai.usage-chunk`` catches usage on the finish chunk
and usage beside a dummy choice), so a finding is filed under a provider's quirk only when
the stream shows that quirk at the finding's event (or, for a finding about the whole
stream, anywhere): an OpenRouter stream checked ``--as groq`` keeps its dummy-choice
violation, because Groq's documented quirk is usage on the finish chunk.

Rule 1: a quirk with no sign here is never matched: a finding is filed by what the stream
shows, never by its rule alone (tests/contract/test_signs.py checks every quirk of every
provider preset has one).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from ._openai import chunks
from ._openai_shape import REASONING_KEYS, _entries_of, _extra_keys
from ._stream import Stream

__all__ = ["SIGNS", "shows"]

Chunk = dict[str, Any]
_Sign = Callable[[Stream, "Chunk | None", "Mapping[str, str | int]"], bool]

#: The keys each Q-EXTRA-FIELDS variant adds (llm's ``extra_fields`` sends them).
_VARIANT_KEYS = {
    "openrouter": {"provider", "native_finish_reason"},
    "groq": {"x_groq"},
    "azure": {"content_filter_results", "prompt_filter_results"},
    "vllm": {"prompt_token_ids", "prompt_text", "stop_reason", "token_ids"},
    "together": {"text", "token_id", "seed"},
    "perplexity": {"citations"},
}


def _choices(chunk: Chunk) -> list[dict[str, Any]]:
    found = chunk.get("choices")
    return [c for c in found if isinstance(c, dict)] if isinstance(found, list) else []


def _delta(choice: dict[str, Any]) -> dict[str, Any]:
    delta = choice.get("delta")
    return delta if isinstance(delta, dict) else {}


def _calls(chunk: Chunk) -> Iterator[dict[str, Any]]:
    for choice in _choices(chunk):
        calls = _delta(choice).get("tool_calls")
        yield from (c for c in calls if isinstance(c, dict)) if isinstance(calls, list) else ()


def _dummy_choice(chunk: Chunk) -> bool:
    """Usage beside choices that say nothing: no finish, no content, no tool call."""
    choices = _choices(chunk)
    return (
        chunk.get("usage") is not None
        and bool(choices)
        and all(
            c.get("finish_reason") is None
            and not _delta(c).get("content")
            and not _delta(c).get("tool_calls")
            for c in choices
        )
    )


def _usage_on_finish(chunk: Chunk) -> bool:
    return chunk.get("usage") is not None and any(
        c.get("finish_reason") is not None for c in _choices(chunk)
    )


def _role_again(chunk: Chunk) -> bool:
    roles = any(_delta(c).get("role") == "assistant" for c in _choices(chunk))
    return roles and not _dummy_choice(chunk)


def _whole_call(chunk: Chunk) -> bool:
    def whole(call: dict[str, Any]) -> bool:
        function = call.get("function")
        return bool(call.get("id")) and isinstance(function, dict) and bool(function.get("name"))

    return any(whole(c) and c["function"].get("arguments") not in (None, "") for c in _calls(chunk))


def _finish_on_content(chunk: Chunk) -> bool:
    return any(
        c.get("finish_reason") is not None
        and bool(_delta(c).get("content") or _delta(c).get("tool_calls"))
        for c in _choices(chunk)
    )


def _vendor_usage(chunk: Chunk) -> bool:
    usage = chunk.get("usage")
    if not isinstance(usage, dict):
        return False
    known = {"prompt_tokens", "completion_tokens", "total_tokens"}
    details = {k for k in usage if k.endswith("_details")}
    parts = [usage.get("prompt_tokens"), usage.get("completion_tokens")]
    summed = sum(p for p in parts if isinstance(p, int))
    return bool(set(usage) - known - details) or usage.get("total_tokens") != summed


def _each_event(test: Callable[[Chunk], bool]) -> _Sign:
    """A sign shown by one chunk: the finding's own, or any when it names none."""

    def sign(stream: Stream, chunk: Chunk | None, options: Mapping[str, str | int]) -> bool:
        if chunk is not None:
            return test(chunk)
        return any(test(c) for _, c in chunks(stream))

    return sign


def _comments(stream: Stream, chunk: Chunk | None, options: Mapping[str, str | int]) -> bool:
    return bool(stream.comments)


def _extra_fields(stream: Stream, chunk: Chunk | None, options: Mapping[str, str | int]) -> bool:
    """Every key outside the schema in the stream is one the provider's variant sends."""
    allowed = _VARIANT_KEYS.get(str(options.get("variant", "")), set())
    keys = set()
    for message, found in chunks(stream):
        keys.update(_extra_keys(found, None))
        keys.update(k for e in _entries_of(message, found) for k in _extra_keys(found, e))
    return bool(keys) and {k.rpartition(".")[2] for k in keys} <= allowed


def _prelude(stream: Stream, chunk: Chunk | None, options: Mapping[str, str | int]) -> bool:
    """The stream opens with Azure's prompt-filter chunk (which later chunks differ from)."""
    found = chunks(stream)
    first = found[0][1] if found else {}
    return "prompt_filter_results" in first and first.get("choices") == []


def _usage_count(stream: Stream, chunk: Chunk | None, options: Mapping[str, str | int]) -> bool:
    return sum(c.get("usage") is not None for _, c in chunks(stream)) > 1


def _stop_for_tools(stream: Stream, chunk: Chunk | None, options: Mapping[str, str | int]) -> bool:
    seen = [c for _, c in chunks(stream)]
    stops = any(ch.get("finish_reason") == "stop" for c in seen for ch in _choices(c))
    return stops and any(True for c in seen for _ in _calls(c))


SIGNS: Mapping[str, _Sign] = {
    "Q-COMMENT-KEEPALIVE": _comments,
    "Q-ROLE-EVERY-CHUNK": _each_event(_role_again),
    "Q-USAGE-WITHOUT-REQUEST": _each_event(lambda c: c.get("usage") is not None),
    "Q-USAGE-DUMMY-CHOICE": _each_event(_dummy_choice),
    "Q-USAGE-ON-FINISH": _each_event(_usage_on_finish),
    "Q-USAGE-EVERY-CHUNK": _usage_count,
    "Q-USAGE-VENDOR-EXT": _each_event(_vendor_usage),
    "Q-EXTRA-FIELDS": _extra_fields,
    "Q-TOOL-ARGS-WHOLE": _each_event(_whole_call),
    "Q-TOOL-NO-INDEX": _each_event(lambda c: any("index" not in t for t in _calls(c))),
    "Q-FINISH-STOP-FOR-TOOLS": _stop_for_tools,
    "Q-FINISH-ON-CONTENT": _each_event(_finish_on_content),
    "Q-AZURE-PROMPT-FILTER": _prelude,
    "Q-REASONING-FIELD": _each_event(
        lambda c: any(k in _delta(ch) for ch in _choices(c) for k in REASONING_KEYS)
    ),
    "Q-MISSING-KEYS": _each_event(
        lambda c: any("finish_reason" not in ch or "logprobs" not in ch for ch in _choices(c))
    ),
    "Q-OBJECT-VALUE": _each_event(lambda c: c.get("object") == "chat.completion.done"),
}


def shows(
    quirk_id: str, stream: Stream, event: int | None, options: Mapping[str, str | int]
) -> bool:
    """True when ``stream`` shows quirk ``quirk_id`` at ``event`` (None: anywhere)."""
    sign = SIGNS.get(quirk_id)
    if sign is None:
        return False
    chunk = None
    if event is not None and 0 <= event < len(stream.payloads):
        chunk = stream.payloads[event].obj
        if chunk is None:
            return False
    return sign(stream, chunk, options)
