"""Names of recorded mocks, from what the exchange holds: short, and unique in a folder.

Rule 1: an LLM request is named by its API, ``stream`` when it streamed, its last user
message (the first words, at most ``PROMPT_CHARS`` characters) and, past the first turn,
``turn N`` (N assistant turns in its history): ``openai chat stream "What is the weather"``.
Any other request is ``METHOD /path``.
Rule 2: :func:`numbered` makes names unique by a ``#n`` suffix counted per name
(``... #1``, ``... #2``), so the log and the files say which exchange answered.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from .._core._mock import Mock
from .._core._request import Request

__all__ = ["PROMPT_CHARS", "describe", "llm_body", "numbered", "streamed", "unique_names"]

PROMPT_CHARS = 32
_API = {
    "openai_chat": "openai chat",
    "openai_responses": "openai responses",
    "anthropic_messages": "anthropic",
    "gemini": "gemini",
}
_LLM_KEYS = ("messages", "input", "contents")
_SUFFIX = re.compile(r" #\d+$")


def llm_body(req: Request) -> Mapping[str, Any] | None:
    """The JSON object body of an LLM API request (it has messages, input or contents)."""
    try:
        body = json.loads(req.body) if req.body else None
    except (ValueError, RecursionError):
        return None
    if isinstance(body, dict) and any(k in body for k in _LLM_KEYS):
        return body
    return None


def streamed(req: Request, body: Mapping[str, Any]) -> bool:
    """The request asked for a stream (``stream: true``; Gemini: the stream method)."""
    return body.get("stream") is True or req.path.endswith(":streamGenerateContent")


def describe(req: Request) -> str:
    """The name of a recorded exchange of ``req`` (Rule 1), without its number."""
    body = llm_body(req)
    if body is None:
        return f"{req.method} {req.path}"
    from ..llm._history import api_of, read  # lazily: importing mockhttp imports no llm

    api = api_of(body, req.path, req.headers)
    found = read(api, body)
    words = [_API[api]]
    if streamed(req, body):
        words.append("stream")
    prompt = _short(found.last_user or "")
    if prompt:
        words.append(json.dumps(prompt, ensure_ascii=False))
    if found.turns:
        words.append(f"turn {len(found.turns)}")
    return " ".join(words)


def numbered(name: str, taken: Iterable[str]) -> str:
    """``name #n`` with the first n that no name in ``taken`` has (Rule 2)."""
    used = {t for t in taken if _SUFFIX.sub("", t) == name}
    n = 1
    while f"{name} #{n}" in used:
        n += 1
    return f"{name} #{n}"


def unique_names(mocks: Iterable[Mock]) -> list[Mock]:
    """``mocks`` with their names numbered (``NAME #n``), in order."""
    out: list[Mock] = []
    for mock in mocks:
        name = numbered(mock.name or mock.describe(), [m.name or "" for m in out])
        out.append(dataclasses.replace(mock, name=name))
    return out


def _short(text: str) -> str:
    """The first words of ``text`` on one line, at most ``PROMPT_CHARS`` characters, with no
    trailing punctuation."""
    flat = " ".join(text.split())
    if len(flat) > PROMPT_CHARS:
        cut = flat[: PROMPT_CHARS + 1]
        flat = cut.rsplit(" ", 1)[0] if " " in cut else cut[:PROMPT_CHARS]
    return flat.rstrip(".,;:!?…- ")
