"""Moderation: OpenAI's ``POST /v1/moderations``, one result per input.

An input is flagged in a category when it holds one of that category's words
(``flag={"violence": ["kill"]}``; whole words, any case); its score there is 0.98, every
other score 0.0001.  Inputs are text, lists of text, or the multimodal list of
``{"type": "text"}`` and ``{"type": "image_url"}`` parts (images are never flagged).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .._core._errors import ConfigError
from .._core._registry import ReplyKind
from .._core._reply import Reply, ok, status
from .._core._request import Request
from ._text import make_id

__all__ = ["CATEGORIES", "Moderation"]

#: the categories of ``omni-moderation-latest``
CATEGORIES = (
    "harassment",
    "harassment/threatening",
    "hate",
    "hate/threatening",
    "illicit",
    "illicit/violent",
    "self-harm",
    "self-harm/intent",
    "self-harm/instructions",
    "sexual",
    "sexual/minors",
    "violence",
    "violence/graphic",
)
_FLAGGED, _CLEAN = 0.98, 0.0001


@dataclass(frozen=True)
class Moderation(ReplyKind):
    """Moderation results: inputs holding a category's words are flagged in it.

    Args:
        flag: words by category (``{"violence": ["kill", "attack"]}``).
    """

    file_key: ClassVar[str] = "moderation"

    flag: Mapping[str, Sequence[str]] = field(default_factory=dict)
    _patterns: Mapping[str, re.Pattern[str]] = field(
        init=False, repr=False, compare=False, default_factory=dict
    )

    def __post_init__(self) -> None:
        if not isinstance(self.flag, Mapping):
            raise ConfigError(f"flag={self.flag!r} must map categories to lists of words")
        patterns = {}
        for category, words in self.flag.items():
            if category not in CATEGORIES:
                raise ConfigError(
                    f"flag category {category!r} is not one of: {', '.join(CATEGORIES)}"
                )
            if isinstance(words, str) or not all(isinstance(w, str) and w for w in words):
                raise ConfigError(f"flag[{category!r}]={words!r} must be a list of words")
            alternatives = "|".join(re.escape(w) for w in words)
            patterns[category] = re.compile(rf"\b(?:{alternatives})\b", re.I)
        object.__setattr__(self, "flag", {c: list(w) for c, w in self.flag.items()})
        object.__setattr__(self, "_patterns", patterns)

    def to_args(self) -> dict[str, Any]:
        return {"flag": {c: list(w) for c, w in self.flag.items()}} if self.flag else {}

    def build(self, request: Request) -> Reply:
        body = request.json() if request.body else None
        if not isinstance(body, dict):
            return _bad("the body must be a JSON object with an 'input'")
        inputs = _inputs(body.get("input"))
        if inputs is None:
            return _bad("'input' must be text, a list of text, or a list of content parts")
        model = str(body.get("model") or "omni-moderation-latest")
        results = [self._result(kinds) for kinds in inputs]
        salt = "".join(text for kinds in inputs for text, _ in kinds)
        answer = {"id": make_id("modr-", salt, 0), "model": model, "results": results}
        return ok().json(answer)

    def _result(self, parts: list[tuple[str, str]]) -> dict[str, Any]:
        hit = {c: [k for text, k in parts if p.search(text)] for c, p in self._patterns.items()}
        categories = {c: bool(hit.get(c)) for c in CATEGORIES}
        return {
            "flagged": any(categories.values()),
            "categories": categories,
            "category_scores": {c: _FLAGGED if categories[c] else _CLEAN for c in CATEGORIES},
            "category_applied_input_types": {
                c: sorted({kind for _, kind in parts}) for c in CATEGORIES
            },
        }


def _inputs(value: Any) -> list[list[tuple[str, str]]] | None:
    """Each input as its (text, input type) parts; None when the shape is wrong."""
    if isinstance(value, str):
        return [[(value, "text")]]
    if not isinstance(value, list) or not value:
        return None
    if all(isinstance(v, str) for v in value):
        return [[(v, "text")] for v in value]
    parts: list[tuple[str, str]] = []
    for part in value:
        if not isinstance(part, dict):
            return None
        if part.get("type") == "text" and isinstance(part.get("text"), str):
            parts.append((part["text"], "text"))
        elif part.get("type") == "image_url":
            parts.append(("", "image"))
        else:
            return None
    return [parts]


def _bad(message: str) -> Reply:
    error = {"message": message, "type": "invalid_request_error", "param": None, "code": None}
    return status(400).json({"error": error})
