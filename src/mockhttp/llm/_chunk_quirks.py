"""Chunk-structure quirks: how providers' Chat Completions chunks differ from the reference.

One maker per quirk of the ``chunk-structure`` layer of the catalogue
(:mod:`mockhttp.contract._catalogue`); :mod:`._transforms` maps the ids to them.  Each maker
takes the quirk's options (a provider's variant) and returns a transform
``(Draft, Context) -> Draft``.

Rule 1: a transform changes only what its quirk names, so the reply still passes every
contract rule its quirk does not break (tests/llm/test_quirks.py runs the whole matrix).
Rule 2: a transform that has nothing to act on is a no-op (tool-call quirks on a text-only
reply, usage quirks on a stream without usage), so a provider bundle applies to any reply.
Rule 3: transforms are pure: same draft, same context, same result.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

from .._core._errors import ConfigError
from ._draft import Chunk, Context, Draft, Transform
from ._edits import (
    REASONING,
    after_start,
    choice,
    choice_chunk,
    choices_of,
    copy_chunk,
    counted_usage,
    first_content,
    head_fields,
    index_of,
    insert,
    is_choice_chunk,
    map_chunks,
    usage_index,
)
from ._text import count_tokens, prompt_tokens


def role_every_chunk() -> Transform:
    def add_role(chunk: Chunk) -> Chunk:
        if is_choice_chunk(chunk) and chunk.kind != "start":
            for choice in choices_of(chunk):
                choice["delta"] = {"role": "assistant", **(choice.get("delta") or {})}
        return chunk

    return lambda draft, context: map_chunks(draft, add_role)


def finish_on_content() -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        finish, last = index_of(draft, "finish"), None
        for i, chunk in enumerate(draft.chunks):
            if chunk.kind in ("text", "tool", "refusal") and is_choice_chunk(chunk):
                last = i
        if finish is None or last is None:
            return draft
        reason = choices_of(draft.chunks[finish])[0].get("finish_reason")
        chunks = [copy_chunk(c) for c in draft.chunks]
        choices_of(chunks[last])[0]["finish_reason"] = reason
        chunks[last] = dataclasses.replace(chunks[last], kind="finish")
        del chunks[finish]
        return draft.with_chunks(chunks)

    return transform


def usage_on_finish() -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        usage_at, finish = usage_index(draft), index_of(draft, "finish")
        if usage_at is None or finish is None:
            return draft
        chunks = [copy_chunk(c) for c in draft.chunks]
        chunks[finish].data["usage"] = chunks[usage_at].data["usage"]
        del chunks[usage_at]
        return draft.with_chunks(chunks)

    return transform


def usage_dummy_choice() -> Transform:
    def dummy(chunk: Chunk) -> Chunk:
        if chunk.kind == "usage" and isinstance(chunk.data, dict):
            chunk.data["choices"] = [choice({"role": "assistant", "content": ""})]
        return chunk

    return lambda draft, context: map_chunks(draft, dummy)


def usage_every_chunk() -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        prompt, done = prompt_tokens(context.body), 0
        out = []
        for chunk in draft.chunks:
            chunk = copy_chunk(chunk)
            if is_choice_chunk(chunk):
                for choice in choices_of(chunk):
                    delta = choice.get("delta") or {}
                    done += sum(count_tokens(v) for v in (delta.get("content"),) if v)
                chunk.data["usage"] = {
                    "prompt_tokens": prompt,
                    "completion_tokens": done,
                    "total_tokens": prompt + done,
                }
            out.append(chunk)
        return draft.with_chunks(out)

    return transform


def usage_without_request() -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        if not draft.streamed or usage_index(draft) is not None:
            return draft
        done = index_of(draft, "done")
        at = len(draft.chunks) if done is None else done
        chunk = Chunk(
            {**head_fields(draft), "choices": [], "usage": counted_usage(draft, context)}, "usage"
        )
        return insert(draft, at, chunk)

    return transform


def usage_vendor_ext(reasoning: int = 7) -> Transform:
    def extend(chunk: Chunk) -> Chunk:
        usage = chunk.data.get("usage") if isinstance(chunk.data, dict) else None
        if isinstance(usage, dict):
            details = dict(usage.get("completion_tokens_details") or {})
            details["reasoning_tokens"] = reasoning
            usage.update(
                completion_tokens_details=details,
                total_tokens=usage["total_tokens"] + reasoning,
                num_sources_used=0,
                cost_in_usd_ticks=1250,
            )
        return chunk

    return lambda draft, context: map_chunks(draft, extend)


def choices_null() -> Transform:
    def null(chunk: Chunk) -> Chunk:
        if chunk.kind == "usage" and isinstance(chunk.data, dict):
            chunk.data["choices"] = None
        return chunk

    return lambda draft, context: map_chunks(draft, null)


_SAFE = {"filtered": False, "severity": "safe"}
_FILTERS = {
    "hate": _SAFE,
    "jailbreak": {"filtered": False, "detected": False},
    "self_harm": _SAFE,
    "sexual": _SAFE,
    "violence": _SAFE,
}


def azure_prompt_filter() -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        if not draft.streamed:
            return draft
        prelude = {
            "choices": [],
            "created": 0,
            "id": "",
            "model": "",
            "object": "",
            "prompt_filter_results": [
                {"prompt_index": 0, "content_filter_results": copy.deepcopy(_FILTERS)}
            ],
        }
        return insert(draft, 0, Chunk(prelude, "start"))

    return transform


def azure_annotation() -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        at = first_content(draft)
        if at is None or not draft.streamed:
            return draft
        choice = {
            "index": 0,
            "finish_reason": None,
            "content_filter_results": copy.deepcopy(_FILTERS),
            "content_filter_offsets": {"check_offset": 0, "start_offset": 0, "end_offset": 44},
        }
        data = {"id": "", "object": "", "created": 0, "model": "", "choices": [choice]}
        return insert(draft, at + 1, Chunk({**data, "usage": None}, "text"))

    return transform


def empty_id() -> Transform:
    def empty(chunk: Chunk) -> Chunk:
        if isinstance(chunk.data, dict) and "id" in chunk.data:
            chunk.data.update(id="", created=0)
        return chunk

    return lambda draft, context: map_chunks(draft, empty) if draft.streamed else draft


def object_value(value: str = "chat.completion.done") -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        at = index_of(draft, "finish")
        if at is None:
            return draft
        chunks = [copy_chunk(c) for c in draft.chunks]
        chunks[at].data["object"] = value
        return draft.with_chunks(chunks)

    return transform


def missing_keys() -> Transform:
    def drop(chunk: Chunk) -> Chunk:
        if is_choice_chunk(chunk) and chunk.kind != "finish":
            for choice in choices_of(chunk):
                choice.pop("finish_reason", None)
                choice.pop("logprobs", None)
        return chunk

    return lambda draft, context: map_chunks(draft, drop)


_EXTRA_FIELDS = ("openrouter", "groq", "azure", "vllm", "together", "perplexity")


def extra_fields(variant: str = "openrouter") -> Transform:
    if variant not in _EXTRA_FIELDS:
        raise ConfigError(f"Q-EXTRA-FIELDS variant={variant!r} must be one of {_EXTRA_FIELDS}")

    def add(chunk: Chunk, first: bool) -> Chunk:
        data = chunk.data
        if not is_choice_chunk(chunk):
            return chunk
        choice = choices_of(chunk)[0]
        finishing = choice.get("finish_reason") is not None
        if variant == "openrouter":
            data["provider"] = "OpenAI"
            choice["native_finish_reason"] = "completed" if finishing else None
        elif variant == "groq" and first:
            data["x_groq"] = {"id": "req_mock", "seed": 0}
        elif variant == "azure":
            choice["content_filter_results"] = (
                {}
                if chunk.kind != "text"
                else copy.deepcopy({k: v for k, v in _FILTERS.items() if k != "jailbreak"})
            )
        elif variant == "vllm":
            if first:
                data.update(prompt_token_ids=None, prompt_text=None)
            if finishing:
                choice.update(stop_reason=None, token_ids=None)
        elif variant == "together":
            choice["text"] = (choice.get("delta") or {}).get("content") or ""
            choice.setdefault("delta", {})["token_id"] = 0
            data["seed"] = 1234 if finishing else None
        elif variant == "perplexity":
            data["citations"] = ["https://example.com/"]
        return chunk

    def transform(draft: Draft, context: Context) -> Draft:
        out, first = [], True
        for chunk in draft.chunks:
            out.append(add(copy_chunk(chunk), first))
            first = first and not is_choice_chunk(chunk)
        return draft.with_chunks(out)

    return transform


_REASONING_FIELDS = ("reasoning_content", "reasoning", "reasoning_details")


def reasoning_field(field: str = "reasoning_content") -> Transform:
    if field not in _REASONING_FIELDS:
        raise ConfigError(f"Q-REASONING-FIELD field={field!r} must be one of {_REASONING_FIELDS}")

    def transform(draft: Draft, context: Context) -> Draft:
        if index_of(draft, "start") is None or not draft.streamed:
            return draft
        if index_of(draft, "thinking") is not None:  # the reply streams its own reasoning
            return draft
        value: Any = REASONING
        if field == "reasoning_details":
            value = [{"type": "reasoning.text", "text": REASONING, "index": 0, "format": None}]
        return after_start(draft, choice_chunk(draft, {field: value}, "thinking"))

    return transform


def think_in_content() -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        if index_of(draft, "start") is None or not draft.streamed:
            return draft
        text = f"<think>{REASONING}</think>"
        return after_start(draft, choice_chunk(draft, {"content": text}, "text"))

    return transform


def content_array() -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        if index_of(draft, "start") is None or not draft.streamed:
            return draft
        parts = [{"type": "thinking", "thinking": [{"type": "text", "text": REASONING}]}]
        return after_start(draft, choice_chunk(draft, {"content": parts}, "thinking"))

    return transform


def tool_no_index() -> Transform:
    def drop(chunk: Chunk) -> Chunk:
        if is_choice_chunk(chunk):
            for choice in choices_of(chunk):
                for call in (choice.get("delta") or {}).get("tool_calls") or []:
                    call.pop("index", None)
                    call.pop("type", None)
        return chunk

    return lambda draft, context: map_chunks(draft, drop)


def tool_args_whole() -> Transform:
    """Each tool call's arguments whole in its first chunk.  A later chunk without an
    ``index`` (``Q-TOOL-NO-INDEX`` before this one) continues the call started last: the
    two compose in either order."""

    def transform(draft: Draft, context: Context) -> Draft:
        starts: dict[int, dict[str, Any]] = {}
        last: int | None = None
        out = []
        for chunk in draft.chunks:
            chunk = copy_chunk(chunk)
            calls = (
                choices_of(chunk)[0].get("delta", {}).get("tool_calls")
                if (chunk.kind == "tool" and is_choice_chunk(chunk))
                else None
            )
            if not calls:
                out.append(chunk)
                continue
            call = calls[0]
            if "id" in call:
                last = call.get("index", len(starts))
                starts[last] = call
                out.append(chunk)
            elif call.get("index", last) in starts:
                function = starts[call.get("index", last)].setdefault("function", {})
                more = (call.get("function") or {}).get("arguments") or ""
                function["arguments"] = (function.get("arguments") or "") + more
            else:
                out.append(chunk)
        return draft.with_chunks(out)

    return transform


def finish_stop_for_tools() -> Transform:
    def stop(chunk: Chunk) -> Chunk:
        if chunk.kind == "finish" and is_choice_chunk(chunk):
            for choice in choices_of(chunk):
                if choice.get("finish_reason") == "tool_calls":
                    choice["finish_reason"] = "stop"
        return chunk

    return lambda draft, context: map_chunks(draft, stop)
