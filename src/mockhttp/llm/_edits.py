"""Edits of drafts that the quirk transforms share: find a chunk, copy it, insert, renumber.

Every function here is pure: it reads a :class:`~._draft.Draft` and returns new chunks or
a new draft, never changing what it was given (chunks are copied before they are edited).
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Callable
from typing import Any

from ._draft import CONTENT_KINDS, Chunk, Context, Draft
from ._text import count_tokens, prompt_tokens

__all__ = [
    "CHOICE_KINDS",
    "REASONING",
    "after_start",
    "choice",
    "choice_chunk",
    "choices_of",
    "copy_chunk",
    "counted_usage",
    "cut_after_first_content",
    "first_content",
    "head_fields",
    "index_of",
    "insert",
    "is_choice_chunk",
    "json_text",
    "map_chunks",
    "renumber",
    "texts",
    "usage_index",
]

CHOICE_KINDS = frozenset({"start", "text", "refusal", "thinking", "tool", "finish"})
REASONING = "Thinking it over."


def copy_chunk(chunk: Chunk, **changes: Any) -> Chunk:
    """A copy of ``chunk`` with its data copied deeply (and ``changes`` applied)."""
    return dataclasses.replace(chunk, data=copy.deepcopy(chunk.data), **changes)


def is_choice_chunk(chunk: Chunk) -> bool:
    """Whether ``chunk`` is a Chat Completions chunk with at least one choice."""
    data = chunk.data
    return (
        chunk.kind in CHOICE_KINDS
        and isinstance(data, dict)
        and isinstance(data.get("choices"), list)
        and bool(data["choices"])
    )


def choices_of(chunk: Chunk) -> list[dict[str, Any]]:
    """The choices of a choice chunk (see ``is_choice_chunk``)."""
    return chunk.data["choices"]  # type: ignore[no-any-return]


def map_chunks(draft: Draft, change: Callable[[Chunk], Chunk | None]) -> Draft:
    """Each chunk replaced by ``change(copy)`` (None drops it)."""
    out = [change(copy_chunk(c)) for c in draft.chunks]
    return draft.with_chunks([c for c in out if c is not None])


def index_of(draft: Draft, kind: str, last: bool = False) -> int | None:
    """The index of the first (or ``last``) chunk of ``kind``, or None."""
    found = [i for i, c in enumerate(draft.chunks) if c.kind == kind]
    return (found[-1] if last else found[0]) if found else None


def insert(draft: Draft, at: int, *new: Chunk) -> Draft:
    """``draft`` with ``new`` chunks inserted before index ``at``."""
    chunks = list(draft.chunks)
    chunks[at:at] = new
    return draft.with_chunks(chunks)


def head_fields(draft: Draft) -> dict[str, Any]:
    """The shared top-level fields of a chat stream (id, object, created, model, ...)."""
    first = next((c.data for c in draft.chunks if isinstance(c.data, dict)), {})
    return {k: v for k, v in first.items() if k not in ("choices", "usage")}


def choice_chunk(draft: Draft, delta: dict[str, Any], kind: str) -> Chunk:
    """A new chat chunk of ``kind`` with one choice carrying ``delta``, like the draft's."""
    data = {**head_fields(draft), "choices": [choice(delta)]}
    if any(isinstance(c.data, dict) and "usage" in c.data for c in draft.chunks):
        data["usage"] = None
    return Chunk(data, kind)


def choice(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    """A choice as the reference sends it: index 0, ``delta``, null logprobs."""
    return {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}


def after_start(draft: Draft, chunk: Chunk) -> Draft:
    """``draft`` with ``chunk`` right after its start chunk (first if it has none)."""
    at = index_of(draft, "start")
    return insert(draft, 0 if at is None else at + 1, chunk)


def usage_index(draft: Draft) -> int | None:
    """The index of the usage-only chunk, or None."""
    return index_of(draft, "usage")


def counted_usage(draft: Draft, context: Context) -> dict[str, Any]:
    """Chat usage counted from the request's prompt and the draft's texts."""
    prompt = prompt_tokens(context.body)
    completion = sum(count_tokens(t) for t in texts(draft))
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def texts(draft: Draft) -> list[str]:
    """The content, refusal and tool-argument fragments of a chat draft, in order."""
    out = []
    for chunk in draft.chunks:
        if is_choice_chunk(chunk):
            for choice in choices_of(chunk):
                delta = choice.get("delta") or {}
                out += [v for k, v in delta.items() if k in ("content", "refusal") and v]
                for call in delta.get("tool_calls") or []:
                    out.append((call.get("function") or {}).get("arguments") or "")
    return out


def renumber(chunks: list[Chunk], start: int = 0) -> list[Chunk]:
    """Responses events with sequence numbers counted again from ``start``."""
    out, n = [], start
    for chunk in chunks:
        if isinstance(chunk.data, dict) and "sequence_number" in chunk.data:
            chunk = dataclasses.replace(chunk, data={**chunk.data, "sequence_number": n})
            n += 1
        out.append(chunk)
    return out


def json_text(data: Any, draft: Draft, separators: tuple[str, str] | None = None) -> str:
    """``data`` as JSON text, with the draft's separators unless others are given."""
    return json.dumps(data, separators=separators or draft.framing.separators, ensure_ascii=False)


def first_content(draft: Draft) -> int | None:
    """The index of the first content chunk, or None."""
    return next((i for i, c in enumerate(draft.chunks) if c.kind in CONTENT_KINDS), None)


def cut_after_first_content(draft: Draft) -> list[Chunk]:
    """The chunks up to and including the first content chunk (the start alone if none)."""
    at = first_content(draft)
    if at is None:
        at = index_of(draft, "start") or 0
    return list(draft.chunks[: at + 1])
