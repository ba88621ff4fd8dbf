"""Token reassembly: the tokens the logprobs carry are the text, and as many as the usage.

The stronger form of streamed == buffered (the contract document): when the request asks
for ``logprobs``, each chunk's ``logprobs.content`` names the tokens of its delta, so the
tokens of the whole stream join to exactly the streamed text, and their count equals
``usage.completion_tokens``; the same holds for the buffered answer's ``logprobs.content``
and ``message.content``.  It does not depend on temperature-zero determinism, so a
difference is a violation.

Rule 1: refusal text is joined from ``logprobs.refusal`` the same way.
Rule 2: the count leaves out what logprobs do not carry: reasoning tokens
(``completion_tokens_details.reasoning_tokens``); with tool calls it is not compared
(their arguments' tokens have no logprobs).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ._openai import choice_entries, chunks
from ._rule import Hit, Rule, short
from ._stream import Stream

__all__ = ["TOKEN_REASSEMBLY", "asked_logprobs", "reassembly_hits"]

_PARTS = (("content", "content"), ("refusal", "refusal"))  # (delta/message key, logprobs key)


def asked_logprobs(request: Any) -> bool:
    """True when the request body asks for logprobs (``logprobs: true``)."""
    return isinstance(request, dict) and request.get("logprobs") is True


def _tokens(logprobs: Any, key: str) -> list[Any] | None:
    """The ``token`` strings of ``logprobs[key]``; None when a token is not text."""
    entries = logprobs.get(key) if isinstance(logprobs, dict) else None
    if not isinstance(entries, list):
        return []
    tokens = [e.get("token") if isinstance(e, dict) else None for e in entries]
    return tokens if all(isinstance(t, str) for t in tokens) else None


def reassembly_hits(
    where: str,
    texts: dict[str, str],
    tokens: dict[str, list[Any] | None],
    usage: Any,
    tool_calls: bool,
) -> Iterator[Hit]:
    """What breaks reassembly of one answer: ``texts`` and ``tokens`` by part, its usage."""
    for part, text in texts.items():
        found = tokens[part]
        if found is None:
            yield Hit(f"{where}: a logprobs.{part} entry has no token text")
            continue
        joined = "".join(found)
        if joined != text:
            yield Hit(
                f"{where}: the logprobs.{part} tokens join to {short(joined)}, the {part} is "
                f"{short(text)}"
            )
    completion = usage.get("completion_tokens") if isinstance(usage, dict) else None
    if not isinstance(completion, int) or tool_calls:
        return
    details = usage.get("completion_tokens_details")
    reasoning = details.get("reasoning_tokens") if isinstance(details, dict) else None
    expected = completion - (reasoning if isinstance(reasoning, int) else 0)
    count = sum(len(t) for t in tokens.values() if t is not None)
    if count != expected:
        less = " less reasoning_tokens" if isinstance(reasoning, int) and reasoning else ""
        yield Hit(
            f"{where}: logprobs carry {count} tokens, usage.completion_tokens{less} says {expected}"
        )


def _stream(stream: Stream) -> Iterator[Hit]:
    entries = [e for e in choice_entries(stream) if e.index == 0]
    texts = {part: "" for part, _ in _PARTS}
    tokens: dict[str, list[Any] | None] = {key: [] for _, key in _PARTS}
    for entry in entries:
        for part, key in _PARTS:
            if isinstance(piece := entry.delta.get(part), str):
                texts[part] += piece
            found, so_far = _tokens(entry.choice.get("logprobs"), key), tokens[key]
            tokens[key] = None if found is None or so_far is None else so_far + found
    calls = any(e.delta.get("tool_calls") for e in entries)
    usage = next((c["usage"] for _, c in chunks(stream) if isinstance(c.get("usage"), dict)), None)
    yield from reassembly_hits("the stream", texts, tokens, usage, calls)


def _buffered(answer: Any) -> Iterator[Hit]:
    choices = answer.get("choices") if isinstance(answer, dict) else None
    choice = choices[0] if isinstance(choices, list) and choices else None
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict):
        return  # buffered.answer reports it
    assert isinstance(choice, dict)
    texts = {p: v for p, _ in _PARTS if isinstance(v := message.get(p), str)}
    logprobs = choice.get("logprobs")
    tokens = {p: _tokens(logprobs, key) for p, key in _PARTS}
    calls = bool(message.get("tool_calls"))
    yield from reassembly_hits("the buffered answer", texts, tokens, answer.get("usage"), calls)


def _reassembly(stream: Stream) -> Iterator[Hit]:
    request = stream.transcript.request
    if not asked_logprobs(request):
        return
    yield from _stream(stream)
    yield from _buffered(stream.transcript.buffered)


TOKEN_REASSEMBLY = Rule(
    "openai.token-reassembly",
    "violation",
    "When the request asks for logprobs, the tokens of logprobs.content (and .refusal) join "
    "to exactly the streamed text, and their count equals usage.completion_tokens (less "
    "reasoning_tokens; not compared with tool calls); the same for the buffered answer.",
    "It is streamed == buffered without relying on determinism: a dropped, doubled or "
    "re-cut fragment shows as text the tokens do not spell, or a count the bill does not match.",
    "Providers that accept logprobs and send none (logprobs: null) fail it for any text.",
    _reassembly,
)
