"""Quirks: the ways real providers' streams differ from the reference, one transform each.

Each :class:`Quirk` is named by its catalogue id (``Q-CRLF``, ``Q-USAGE-ON-FINISH``, ...),
says in one sentence what it sends, which providers send it, and which contract rules
catch it on which reply (``rules``: reply kind -> rule ids).  ``make(**options)`` gives the
transform (``(Draft, Context) -> Draft``) that reproduces it on a generated reply.

Rule 1: a transform changes only what its quirk names, so the reply still passes every
contract rule its quirk does not break (tests/test_quirks.py runs the whole matrix).
Rule 2: a transform that has nothing to act on is a no-op (tool-call quirks on a text-only
reply, usage quirks on a stream without usage), so a provider bundle applies to any reply.
Rule 3: transforms are pure: same draft, same context, same result.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .._core._errors import ConfigError
from ._draft import Chunk, Context, Draft, Transform
from ._text import count_tokens, prompt_tokens

__all__ = ["QUIRKS", "Quirk", "quirk"]

Layer = Literal["framing", "chunk-structure", "error", "event-protocol"]
CHAT = "openai_chat"
RESPONSES = "openai_responses"
ANTHROPIC = "anthropic_messages"
GEMINI = "gemini"
_CHOICE_KINDS = frozenset({"start", "text", "refusal", "thinking", "tool", "finish"})
_CONTENT_KINDS = frozenset({"text", "refusal", "thinking", "tool"})
_REASONING = "Thinking it over."


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
        make: builds the transform; keyword options select a provider's variant.
        needs: what the reply or request must have for the quirk to show ("" when nothing).
    """

    id: str
    layer: Layer
    summary: str
    providers: str
    rules: Mapping[str, tuple[str, ...]]
    make: Callable[..., Transform] = field(repr=False)
    needs: str = ""

    @property
    def kinds(self) -> tuple[str, ...]:
        """The reply kinds the quirk concerns."""
        return tuple(self.rules)


# -- helpers over drafts --------------------------------------------------------------------


def _copy(chunk: Chunk, **changes: Any) -> Chunk:
    return dataclasses.replace(chunk, data=copy.deepcopy(chunk.data), **changes)


def _is_choice_chunk(chunk: Chunk) -> bool:
    data = chunk.data
    return (
        chunk.kind in _CHOICE_KINDS
        and isinstance(data, dict)
        and isinstance(data.get("choices"), list)
        and bool(data["choices"])
    )


def _choices(chunk: Chunk) -> list[dict[str, Any]]:
    return chunk.data["choices"]  # type: ignore[no-any-return]


def _map(draft: Draft, change: Callable[[Chunk], Chunk | None]) -> Draft:
    """Each chunk replaced by ``change(copy)`` (None drops it)."""
    out = [change(_copy(c)) for c in draft.chunks]
    return draft.with_chunks([c for c in out if c is not None])


def _index(draft: Draft, kind: str, last: bool = False) -> int | None:
    found = [i for i, c in enumerate(draft.chunks) if c.kind == kind]
    return (found[-1] if last else found[0]) if found else None


def _insert(draft: Draft, at: int, *new: Chunk) -> Draft:
    chunks = list(draft.chunks)
    chunks[at:at] = new
    return draft.with_chunks(chunks)


def _head(draft: Draft) -> dict[str, Any]:
    """The shared top-level fields of a chat stream (id, object, created, model, ...)."""
    first = next((c.data for c in draft.chunks if isinstance(c.data, dict)), {})
    return {k: v for k, v in first.items() if k not in ("choices", "usage")}


def _choice_chunk(draft: Draft, delta: dict[str, Any], kind: str) -> Chunk:
    data = {**_head(draft), "choices": [_choice(delta)]}
    if any(isinstance(c.data, dict) and "usage" in c.data for c in draft.chunks):
        data["usage"] = None
    return Chunk(data, kind)


def _choice(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}


def _text_after_start(draft: Draft, chunk: Chunk) -> Draft:
    at = _index(draft, "start")
    return _insert(draft, 0 if at is None else at + 1, chunk)


def _usage_chunk(draft: Draft) -> int | None:
    return _index(draft, "usage")


def _counted_usage(draft: Draft, context: Context) -> dict[str, Any]:
    prompt = prompt_tokens(context.body)
    completion = sum(count_tokens(t) for t in _texts(draft))
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def _texts(draft: Draft) -> list[str]:
    out = []
    for chunk in draft.chunks:
        if _is_choice_chunk(chunk):
            for choice in _choices(chunk):
                delta = choice.get("delta") or {}
                out += [v for k, v in delta.items() if k in ("content", "refusal") and v]
                for call in delta.get("tool_calls") or []:
                    out.append((call.get("function") or {}).get("arguments") or "")
    return out


def _renumber(chunks: list[Chunk], start: int = 0) -> list[Chunk]:
    """Responses events with sequence numbers counted again from ``start``."""
    out, n = [], start
    for chunk in chunks:
        if isinstance(chunk.data, dict) and "sequence_number" in chunk.data:
            chunk = dataclasses.replace(chunk, data={**chunk.data, "sequence_number": n})
            n += 1
        out.append(chunk)
    return out


def _json_text(data: Any, draft: Draft, separators: tuple[str, str] | None = None) -> str:
    return json.dumps(data, separators=separators or draft.framing.separators, ensure_ascii=False)


def _first_content(draft: Draft) -> int | None:
    return next((i for i, c in enumerate(draft.chunks) if c.kind in _CONTENT_KINDS), None)


def _cut_after_first_content(draft: Draft) -> list[Chunk]:
    """The chunks up to and including the first content chunk (the start alone if none)."""
    at = _first_content(draft)
    if at is None:
        at = _index(draft, "start") or 0
    return list(draft.chunks[: at + 1])


# -- framing ----------------------------------------------------------------------------


def _framing(**changes: Any) -> Callable[[], Transform]:
    def make() -> Transform:
        def transform(draft: Draft, context: Context) -> Draft:
            if not draft.streamed:
                return draft
            return dataclasses.replace(draft, framing=dataclasses.replace(draft.framing, **changes))

        return transform

    return make


def _comments(text: str = "keep-alive", before: int = 2) -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        if not draft.streamed or not draft.chunks:
            return draft
        chunks = [Chunk(comment=text, kind="comment") for _ in range(before)]
        middle = len(draft.chunks) // 2
        for i, chunk in enumerate(draft.chunks):
            if i == middle:
                chunks.append(Chunk(comment=text, kind="comment"))
            chunks.append(chunk)
        return draft.with_chunks(chunks)

    return transform


def _no_done() -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        return draft.with_chunks([c for c in draft.chunks if c.kind != "done"])

    return transform


def _event_line(name: str = "completion.chunk") -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        return _map(draft, lambda c: dataclasses.replace(c, event=name) if c.kind != "done" else c)

    return transform


def _responses_no_event_line() -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        if not draft.streamed:
            return draft
        chunks = [dataclasses.replace(c, event=None) for c in draft.chunks]
        return draft.with_chunks([*chunks, Chunk("[DONE]", "done")])

    return transform


def _json_padding(low: int = 2, high: int = 16) -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        def pad(chunk: Chunk) -> Chunk:
            if not isinstance(chunk.data, dict) or chunk.kind == "ping":
                return chunk
            text = _json_text(chunk.data, draft)
            spaces = " " * context.rng.randint(low, high)
            return dataclasses.replace(chunk, data=text[:-1] + spaces + "}")

        return _map(draft, pad) if draft.streamed else draft

    return transform


def _json_mixed() -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        if not draft.streamed:
            return draft
        out = []
        for i, chunk in enumerate(draft.chunks):
            if isinstance(chunk.data, dict) and i % 2 == 1:
                spaced = _json_text(chunk.data, draft, (", ", ": "))
                chunk = dataclasses.replace(chunk, data=spaced)
            out.append(chunk)
        return draft.with_chunks(out)

    return transform


def _json_array() -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        if not draft.streamed:
            return draft
        headers = tuple(h for h in draft.headers if h[0].lower() != "content-type")
        body = [c.data for c in draft.chunks if isinstance(c.data, dict)]
        return Draft(
            draft.provider,
            False,
            draft.status,
            (("Content-Type", "application/json; charset=UTF-8"), *headers),
            body,
            framing=draft.framing,
        )

    return transform


# -- chunk structure (Chat Completions) ------------------------------------------------------


def _role_every_chunk() -> Transform:
    def add_role(chunk: Chunk) -> Chunk:
        if _is_choice_chunk(chunk) and chunk.kind != "start":
            for choice in _choices(chunk):
                choice["delta"] = {"role": "assistant", **(choice.get("delta") or {})}
        return chunk

    return lambda draft, context: _map(draft, add_role)


def _finish_on_content() -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        finish, last = _index(draft, "finish"), None
        for i, chunk in enumerate(draft.chunks):
            if chunk.kind in ("text", "tool", "refusal") and _is_choice_chunk(chunk):
                last = i
        if finish is None or last is None:
            return draft
        reason = _choices(draft.chunks[finish])[0].get("finish_reason")
        chunks = [_copy(c) for c in draft.chunks]
        _choices(chunks[last])[0]["finish_reason"] = reason
        chunks[last] = dataclasses.replace(chunks[last], kind="finish")
        del chunks[finish]
        return draft.with_chunks(chunks)

    return transform


def _usage_on_finish() -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        usage_at, finish = _usage_chunk(draft), _index(draft, "finish")
        if usage_at is None or finish is None:
            return draft
        chunks = [_copy(c) for c in draft.chunks]
        chunks[finish].data["usage"] = chunks[usage_at].data["usage"]
        del chunks[usage_at]
        return draft.with_chunks(chunks)

    return transform


def _usage_dummy_choice() -> Transform:
    def dummy(chunk: Chunk) -> Chunk:
        if chunk.kind == "usage" and isinstance(chunk.data, dict):
            chunk.data["choices"] = [_choice({"role": "assistant", "content": ""})]
        return chunk

    return lambda draft, context: _map(draft, dummy)


def _usage_every_chunk() -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        prompt, done = prompt_tokens(context.body), 0
        out = []
        for chunk in draft.chunks:
            chunk = _copy(chunk)
            if _is_choice_chunk(chunk):
                for choice in _choices(chunk):
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


def _usage_without_request() -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        if not draft.streamed or _usage_chunk(draft) is not None:
            return draft
        done = _index(draft, "done")
        at = len(draft.chunks) if done is None else done
        chunk = Chunk(
            {**_head(draft), "choices": [], "usage": _counted_usage(draft, context)}, "usage"
        )
        return _insert(draft, at, chunk)

    return transform


def _usage_vendor_ext(reasoning: int = 7) -> Transform:
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

    return lambda draft, context: _map(draft, extend)


def _choices_null() -> Transform:
    def null(chunk: Chunk) -> Chunk:
        if chunk.kind == "usage" and isinstance(chunk.data, dict):
            chunk.data["choices"] = None
        return chunk

    return lambda draft, context: _map(draft, null)


_SAFE = {"filtered": False, "severity": "safe"}
_FILTERS = {
    "hate": _SAFE,
    "jailbreak": {"filtered": False, "detected": False},
    "self_harm": _SAFE,
    "sexual": _SAFE,
    "violence": _SAFE,
}


def _azure_prompt_filter() -> Transform:
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
        return _insert(draft, 0, Chunk(prelude, "start"))

    return transform


def _azure_annotation() -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        at = _first_content(draft)
        if at is None or not draft.streamed:
            return draft
        choice = {
            "index": 0,
            "finish_reason": None,
            "content_filter_results": copy.deepcopy(_FILTERS),
            "content_filter_offsets": {"check_offset": 0, "start_offset": 0, "end_offset": 44},
        }
        data = {"id": "", "object": "", "created": 0, "model": "", "choices": [choice]}
        return _insert(draft, at + 1, Chunk({**data, "usage": None}, "text"))

    return transform


def _empty_id() -> Transform:
    def empty(chunk: Chunk) -> Chunk:
        if isinstance(chunk.data, dict) and "id" in chunk.data:
            chunk.data.update(id="", created=0)
        return chunk

    return lambda draft, context: _map(draft, empty) if draft.streamed else draft


def _object_value(value: str = "chat.completion.done") -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        at = _index(draft, "finish")
        if at is None:
            return draft
        chunks = [_copy(c) for c in draft.chunks]
        chunks[at].data["object"] = value
        return draft.with_chunks(chunks)

    return transform


def _missing_keys() -> Transform:
    def drop(chunk: Chunk) -> Chunk:
        if _is_choice_chunk(chunk) and chunk.kind != "finish":
            for choice in _choices(chunk):
                choice.pop("finish_reason", None)
                choice.pop("logprobs", None)
        return chunk

    return lambda draft, context: _map(draft, drop)


_EXTRA_FIELDS = ("openrouter", "groq", "azure", "vllm", "together", "perplexity")


def _extra_fields(variant: str = "openrouter") -> Transform:
    if variant not in _EXTRA_FIELDS:
        raise ConfigError(f"Q-EXTRA-FIELDS variant={variant!r} must be one of {_EXTRA_FIELDS}")

    def add(chunk: Chunk, first: bool) -> Chunk:
        data = chunk.data
        if not _is_choice_chunk(chunk):
            return chunk
        choice = _choices(chunk)[0]
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
            out.append(add(_copy(chunk), first))
            first = first and not _is_choice_chunk(chunk)
        return draft.with_chunks(out)

    return transform


_REASONING_FIELDS = ("reasoning_content", "reasoning", "reasoning_details")


def _reasoning_field(field: str = "reasoning_content") -> Transform:
    if field not in _REASONING_FIELDS:
        raise ConfigError(f"Q-REASONING-FIELD field={field!r} must be one of {_REASONING_FIELDS}")

    def transform(draft: Draft, context: Context) -> Draft:
        if _index(draft, "start") is None or not draft.streamed:
            return draft
        value: Any = _REASONING
        if field == "reasoning_details":
            value = [{"type": "reasoning.text", "text": _REASONING, "index": 0, "format": None}]
        return _text_after_start(draft, _choice_chunk(draft, {field: value}, "thinking"))

    return transform


def _think_in_content() -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        if _index(draft, "start") is None or not draft.streamed:
            return draft
        text = f"<think>{_REASONING}</think>"
        return _text_after_start(draft, _choice_chunk(draft, {"content": text}, "text"))

    return transform


def _content_array() -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        if _index(draft, "start") is None or not draft.streamed:
            return draft
        parts = [{"type": "thinking", "thinking": [{"type": "text", "text": _REASONING}]}]
        return _text_after_start(draft, _choice_chunk(draft, {"content": parts}, "thinking"))

    return transform


def _tool_no_index() -> Transform:
    def drop(chunk: Chunk) -> Chunk:
        if _is_choice_chunk(chunk):
            for choice in _choices(chunk):
                for call in (choice.get("delta") or {}).get("tool_calls") or []:
                    call.pop("index", None)
                    call.pop("type", None)
        return chunk

    return lambda draft, context: _map(draft, drop)


def _tool_args_whole() -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        starts: dict[int, dict[str, Any]] = {}
        out = []
        for chunk in draft.chunks:
            chunk = _copy(chunk)
            calls = (
                _choices(chunk)[0].get("delta", {}).get("tool_calls")
                if (chunk.kind == "tool" and _is_choice_chunk(chunk))
                else None
            )
            if not calls:
                out.append(chunk)
                continue
            call = calls[0]
            if "id" in call:
                starts[call.get("index", len(starts))] = call
                out.append(chunk)
            elif call.get("index") in starts:
                function = starts[call["index"]].setdefault("function", {})
                more = (call.get("function") or {}).get("arguments") or ""
                function["arguments"] = (function.get("arguments") or "") + more
            else:
                out.append(chunk)
        return draft.with_chunks(out)

    return transform


def _finish_stop_for_tools() -> Transform:
    def stop(chunk: Chunk) -> Chunk:
        if chunk.kind == "finish" and _is_choice_chunk(chunk):
            for choice in _choices(chunk):
                if choice.get("finish_reason") == "tool_calls":
                    choice["finish_reason"] = "stop"
        return chunk

    return lambda draft, context: _map(draft, stop)


# -- errors --------------------------------------------------------------------------------

_OPENAI_ERROR = {
    "message": "The server had an error while processing your request. Sorry about that!",
    "type": "server_error",
    "param": None,
    "code": None,
}


def _bare_error(done: bool) -> Callable[[], Transform]:
    def make() -> Transform:
        def transform(draft: Draft, context: Context) -> Draft:
            if not draft.streamed:
                return draft
            error = Chunk(json.dumps({"error": _OPENAI_ERROR}), "error")
            tail = [Chunk("[DONE]", "done")] if done else []
            return draft.with_chunks([*_cut_after_first_content(draft), error, *tail])

        return transform

    return make


def _error_in_chunk() -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        if not draft.streamed:
            return draft
        failed = _choice_chunk(draft, {"content": ""}, "error")
        failed.data["error"] = {"code": 400, "message": "Token limit reached"}
        kept = _cut_after_first_content(draft)
        return draft.with_chunks([*kept, failed, Chunk("[DONE]", "done")])

    return transform


def _error_event_named() -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        if not draft.streamed:
            return draft
        kept = _cut_after_first_content(draft)
        error: dict[str, Any]
        if draft.provider == ANTHROPIC:
            error = {"details": None, "type": "overloaded_error", "message": "Overloaded"}
            chunk = Chunk({"type": "error", "error": error}, "error", event="error")
        elif draft.provider == RESPONSES:
            flat = {"code": "server_error", "message": "The server had an error.", "param": None}
            chunk = Chunk({"type": "error", "sequence_number": 0, **flat}, "error", event="error")
            return draft.with_chunks(_renumber([*kept, chunk]))
        else:
            error = {
                "message": "Tool call validation failed: mock",
                "type": "invalid_request_error",
                "code": "tool_use_failed",
                "status_code": 400,
            }
            chunk = Chunk({"error": error}, "error", event="error")
        return draft.with_chunks([*kept, chunk])

    return transform


def _truncate() -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        if not draft.streamed or len(draft.chunks) < 2:
            return draft
        middle = max(1, len(draft.chunks) // 2)
        kept = list(draft.chunks[:middle])
        cut = draft.chunks[middle]
        text = cut.data if isinstance(cut.data, str) else _json_text(cut.data, draft)
        half = dataclasses.replace(cut, data=text[: max(1, len(text) // 2)], kind="error")
        framing = dataclasses.replace(draft.framing, final_blank_line=False)
        return dataclasses.replace(draft.with_chunks([*kept, half]), framing=framing)

    return transform


def _responses_error_shapes() -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        if not draft.streamed:
            return draft
        kept = _cut_after_first_content(draft)
        error = {
            "type": "insufficient_quota",
            "code": "insufficient_quota",
            "message": "You exceeded your current quota.",
            "param": None,
        }
        start: dict[str, Any] = next((c.data for c in draft.chunks if c.kind == "start"), {})
        response = {
            **copy.deepcopy(start.get("response", {})),
            "status": "failed",
            "error": {"code": error["code"], "message": error["message"]},
        }
        chunks = [
            Chunk({"type": "error", "sequence_number": 0, "error": error}, "error", event="error"),
            Chunk(
                {"type": "response.failed", "sequence_number": 0, "response": response},
                "error",
                event="response.failed",
            ),
        ]
        return draft.with_chunks(_renumber([*kept, *chunks]))

    return transform


# -- event protocol ------------------------------------------------------------------------


def _unknown_event(name: str = "future_event_xyz") -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        if not draft.streamed:
            return draft
        at = _index(draft, "finish" if draft.provider == ANTHROPIC else "end")
        if at is None:
            return draft
        if draft.provider == RESPONSES:
            kind = f"response.{name}"
            event = Chunk({"type": kind, "sequence_number": 0}, "block", event=kind)
            return draft.with_chunks(_renumber(list(_insert(draft, at, event).chunks)))
        return _insert(draft, at, Chunk({"type": name}, "block", event=name))

    return transform


def _seqno(start: int = 1) -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        return draft.with_chunks(_renumber(list(draft.chunks), start)) if draft.streamed else draft

    return transform


def _ping_position() -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        at = _index(draft, "finish")
        if at is None or not draft.streamed:
            return draft
        ping = Chunk({"type": "ping"}, "ping", event="ping")
        return _insert(draft, at, ping, ping)

    return transform


# -- the catalogue -------------------------------------------------------------------------

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
        _framing(line_ending="\r\n"),
    ),
    Quirk(
        "Q-CR-ONLY",
        "framing",
        "Events are framed with bare CR line endings, legal but rare.",
        "No LLM provider; SSE conformance suites.",
        {**_each(*_ALL_SSE, rules=("sse.line-endings",)), _G: ("gemini.line-endings",)},
        _framing(line_ending="\r"),
    ),
    Quirk(
        "Q-DATA-NO-SPACE",
        "framing",
        "Fields are written without the space after the colon (data:{...}).",
        "Hugging Face TGI, Spring-based servers, some gateways.",
        _each(*_ALL_SSE, _G, rules=("sse.data-space",)),
        _framing(space=False),
    ),
    Quirk(
        "Q-COMMENT-KEEPALIVE",
        "framing",
        "Comment lines are sent as keep-alives, before the first event and between events.",
        "OpenRouter (: OPENROUTER PROCESSING), DeepSeek (: keep-alive).",
        _each(*_ALL_SSE, _G, rules=("sse.comments",)),
        _comments,
    ),
    Quirk(
        "Q-BOM",
        "framing",
        "The body starts with a UTF-8 byte-order mark.",
        "No LLM provider; SSE conformance suites.",
        _each(*_ALL_SSE, _G, rules=("sse.bom",)),
        _framing(bom=True),
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
        _framing(final_blank_line=False),
    ),
    Quirk(
        "Q-DONE",
        "framing",
        "The Chat Completions stream closes without data: [DONE].",
        "Proxies that close instead; Gemini's OpenAI-compatible endpoint in some versions.",
        {_C: ("openai.done",)},
        _no_done,
    ),
    Quirk(
        "Q-EVENT-LINE",
        "framing",
        "A Chat Completions stream names its events (event: lines), which the reference never "
        "does.",
        "Gateways that re-frame streams; Groq names its error events.",
        {_C: ("openai.event-name",)},
        _event_line,
    ),
    Quirk(
        "Q-RESP-NO-EVENT-LINE",
        "framing",
        "A Responses stream sends data-only frames (the type only in the JSON) and ends with "
        "data: [DONE].",
        "OpenRouter's /responses.",
        {_R: ("responses.event-name", "responses.done-sentinel")},
        _responses_no_event_line,
    ),
    Quirk(
        "Q-JSON-PADDING",
        "framing",
        "The JSON of each event is padded with spaces before its final brace.",
        "Anthropic (every event but ping).",
        _each(*_ALL_SSE, rules=("sse.json-spacing",)),
        _json_padding,
    ),
    Quirk(
        "Q-JSON-STYLE-MIXED",
        "framing",
        "Some events carry JSON with spaced separators (Python's json.dumps default).",
        "Gemini; Anthropic ping and errors; vLLM, SGLang and OpenAI error frames.",
        _each(*_ALL_SSE, rules=("sse.json-spacing",)),
        _json_mixed,
    ),
    Quirk(
        "Q-JSON-ARRAY-STREAM",
        "framing",
        "The stream is a JSON array sent as application/json, not an event stream.",
        "Gemini :streamGenerateContent without alt=sse.",
        {_G: ("http.content-type",)},
        _json_array,
    ),
    # chunk structure
    Quirk(
        "Q-ROLE-EVERY-CHUNK",
        "chunk-structure",
        "delta.role 'assistant' is repeated on every chunk, not only the first.",
        "OpenRouter, Together, Perplexity, Z.ai, Snowflake, Ollama before 2026-08.",
        {_C: ("openai.role-repeated",)},
        _role_every_chunk,
    ),
    Quirk(
        "Q-FINISH-ON-CONTENT",
        "chunk-structure",
        "finish_reason rides on the last content chunk instead of a chunk with an empty delta.",
        "Ollama before 2026-08, Mistral tool calls.",
        {_C: ("openai.finish-separate",)},
        _finish_on_content,
    ),
    Quirk(
        "Q-USAGE-ON-FINISH",
        "chunk-structure",
        "Usage rides on the finish chunk; there is no separate chunk with choices [].",
        "Groq, Mistral, DeepSeek, Together, Z.ai.",
        {_C: ("openai.usage-chunk",)},
        _usage_on_finish,
        needs="usage in the stream (include_usage, or Q-USAGE-WITHOUT-REQUEST first)",
    ),
    Quirk(
        "Q-USAGE-DUMMY-CHOICE",
        "chunk-structure",
        "The usage chunk holds a dummy choice (role and empty content) instead of choices [].",
        "OpenRouter.",
        {_C: ("openai.role-repeated", "openai.usage-chunk")},
        _usage_dummy_choice,
        needs="usage in the stream (include_usage, or Q-USAGE-WITHOUT-REQUEST first)",
    ),
    Quirk(
        "Q-USAGE-EVERY-CHUNK",
        "chunk-structure",
        "Cumulative usage rides on every chunk.",
        "Perplexity; vLLM and SGLang with continuous_usage_stats; Gemini's usageMetadata.",
        {_C: ("openai.usage-once",)},
        _usage_every_chunk,
        needs="a request with stream_options.include_usage",
    ),
    Quirk(
        "Q-USAGE-WITHOUT-REQUEST",
        "chunk-structure",
        "A usage chunk arrives although the request did not set stream_options.include_usage.",
        "Groq, Mistral, OpenRouter, Together.",
        {_C: ("openai.usage-opt-in",)},
        _usage_without_request,
        needs="a request without stream_options.include_usage",
    ),
    Quirk(
        "Q-USAGE-VENDOR-EXT",
        "chunk-structure",
        "Usage carries vendor keys, and total_tokens counts reasoning besides prompt and "
        "completion.",
        "xAI (num_sources_used, cost_in_usd_ticks); Groq, OpenRouter, DeepSeek add keys too.",
        {_C: ("openai.usage-total",)},
        _usage_vendor_ext,
        needs="usage in the stream",
    ),
    Quirk(
        "Q-CHOICES-NULL",
        "chunk-structure",
        "The usage chunk has choices null instead of [].",
        "Some vLLM-compatible backends.",
        {_C: ("openai.choices", "openai.usage-chunk")},
        _choices_null,
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
        _azure_prompt_filter,
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
        _azure_annotation,
    ),
    Quirk(
        "Q-EMPTY-ID",
        "chunk-structure",
        "Every chunk has id '' and created 0.",
        "Snowflake Cortex; Azure's prelude.",
        {_C: ("openai.stable-id",)},
        _empty_id,
    ),
    Quirk(
        "Q-OBJECT-VALUE",
        "chunk-structure",
        "The finish chunk's object is 'chat.completion.done', not 'chat.completion.chunk'.",
        "Perplexity; Azure's prelude has ''.",
        {_C: ("openai.object",)},
        _object_value,
    ),
    Quirk(
        "Q-MISSING-KEYS",
        "chunk-structure",
        "Choices leave out finish_reason and logprobs until the finish chunk (instead of null).",
        "xAI, Z.ai, Perplexity, Snowflake.",
        {_C: ("openai.choice-keys",)},
        _missing_keys,
    ),
    Quirk(
        "Q-EXTRA-FIELDS",
        "chunk-structure",
        "Chunks carry keys outside the ChatCompletionChunk schema (variant: whose keys).",
        "OpenRouter provider and native_finish_reason, Groq x_groq, Azure "
        "content_filter_results, vLLM token ids, Together text and seed, Perplexity citations.",
        {_C: ("openai.extra-fields",)},
        _extra_fields,
    ),
    Quirk(
        "Q-REASONING-FIELD",
        "chunk-structure",
        "Reasoning streams in a delta field of its own (field: reasoning_content, reasoning or "
        "reasoning_details).",
        "DeepSeek, xAI, Z.ai (reasoning_content); Groq, OpenRouter, Ollama (reasoning).",
        {_C: ("openai.reasoning",)},
        _reasoning_field,
    ),
    Quirk(
        "Q-THINK-IN-CONTENT",
        "chunk-structure",
        "Reasoning streams inline in content, inside <think>...</think>.",
        "DeepSeek R1 via Together and other hosts.",
        {_C: ("openai.reasoning",)},
        _think_in_content,
    ),
    Quirk(
        "Q-CONTENT-ARRAY",
        "chunk-structure",
        "delta.content is a list of typed parts (thinking) instead of a string.",
        "Mistral Magistral.",
        {_C: ("openai.content-string",)},
        _content_array,
    ),
    Quirk(
        "Q-TOOL-NO-INDEX",
        "chunk-structure",
        "Tool-call fragments have no index (and no type).",
        "Gemini's OpenAI-compatible endpoint, older Mistral, Ollama before 2024-11.",
        {_C: ("openai.tool-call-index",)},
        _tool_no_index,
        needs="tool calls",
    ),
    Quirk(
        "Q-TOOL-ARGS-WHOLE",
        "chunk-structure",
        "Each tool call arrives whole in one chunk: id, name and all the arguments.",
        "Groq, Mistral, xAI, Gemini's OpenAI-compatible endpoint.",
        {_C: ("openai.tool-call-whole",)},
        _tool_args_whole,
        needs="tool calls",
    ),
    Quirk(
        "Q-FINISH-STOP-FOR-TOOLS",
        "chunk-structure",
        "A turn that called tools finishes with 'stop' instead of 'tool_calls'.",
        "Gemini's OpenAI-compatible endpoint.",
        {_C: ("openai.tool-call-finish",)},
        _finish_stop_for_tools,
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
        _bare_error(done=False),
        needs="(usage-once fires when the request asked for usage)",
    ),
    Quirk(
        "Q-DONE-AFTER-ERROR",
        "error",
        "The bare error frame of a 200 stream is followed by data: [DONE].",
        "vLLM, SGLang.",
        {_C: ("sse.json-spacing", "openai.error", "openai.finish-once", "openai.usage-once")},
        _bare_error(done=True),
        needs="(usage-once fires when the request asked for usage)",
    ),
    Quirk(
        "Q-ERR-IN-CHUNK",
        "error",
        "After the first content, an error object rides inside a normal chunk with choices, "
        "then [DONE].",
        "OpenRouter (numeric code, finish_reason null).",
        {_C: ("openai.error", "openai.finish-once", "openai.usage-once")},
        _error_in_chunk,
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
        _error_event_named,
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
        _truncate,
        needs="(usage-once fires when the request asked for usage)",
    ),
    Quirk(
        "Q-RESP-ERROR-SHAPES",
        "error",
        "A Responses stream fails with a nested error event, then response.failed.",
        "OpenAI Responses (recorded; the SDK's type is flat).",
        {_R: ("responses.error",)},
        _responses_error_shapes,
    ),
    # event protocol
    Quirk(
        "Q-UNKNOWN-EVENT",
        "event-protocol",
        "An event type outside the documented set arrives before the end.",
        "Anthropic and the Responses API add event types.",
        {_R: ("responses.unknown-event",), _A: ("anthropic.unknown-event",)},
        _unknown_event,
    ),
    Quirk(
        "Q-SEQNO",
        "event-protocol",
        "Responses sequence numbers start at 1 instead of 0.",
        "Re-framing proxies.",
        {_R: ("responses.sequence",)},
        _seqno,
    ),
    Quirk(
        "Q-PING-POSITION",
        "event-protocol",
        "Two more ping events arrive, before message_delta.",
        "Anthropic (pings may come anywhere, several).",
        {_A: ("anthropic.ping",)},
        _ping_position,
    ),
)

QUIRKS: dict[str, Quirk] = {q.id: q for q in _CATALOGUE}
"""Every quirk preset by its catalogue id (upper case)."""


def quirk(name: str) -> Quirk:
    """The quirk named ``name`` (case-insensitive).

    Raises:
        ConfigError: an unknown id; the message lists the known ones.
    """
    found = QUIRKS.get(name.upper()) if isinstance(name, str) else None
    if found is None:
        raise ConfigError(f"quirk {name!r} is not known (known: {', '.join(QUIRKS)})")
    return found
