"""Chat Completions logprobs: the tokens of the answer, as the request asks for them.

Rule 1: the tokens are ``_text.tokens``: the ones the usage counts, joining back to the
text exactly (the contract's ``openai.token-reassembly``).
Rule 2: a streamed piece carries the tokens that start in it, so the tokens of the whole
stream join to the streamed text whatever the cut (words or ``chunk_size``).
Rule 3: the values are fixed, not random: token ``i`` has logprob ``-0.01 * (1 + i % 5)``;
its ``top_logprobs`` (``top_logprobs: N`` in the request) are the token itself, then other
tokens of the answer, each less likely than the one before.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._text import tokens

__all__ = ["Logprobs", "asked"]

_MAX_TOP = 20  # OpenAI's limit for top_logprobs


def asked(body: Mapping[str, Any]) -> int | None:
    """None when the request does not ask for logprobs, else how many ``top_logprobs``."""
    if body.get("logprobs") is not True:
        return None
    top = body.get("top_logprobs")
    return min(top, _MAX_TOP) if isinstance(top, int) and not isinstance(top, bool) else 0


class Logprobs:
    """The logprobs entries of one text (content or refusal), whole or per piece."""

    def __init__(self, text: str, top: int) -> None:
        self.found = tokens(text)
        self.top = top
        self.vocabulary = list(dict.fromkeys(t for _, t in self.found))

    def entries(self, start: int = 0, end: int | None = None) -> list[dict[str, Any]]:
        """The entries of the tokens that start in ``text[start:end]`` (all by default)."""
        return [
            self._entry(i, token)
            for i, (at, token) in enumerate(self.found)
            if at >= start and (end is None or at < end)
        ]

    def per_piece(self, pieces: list[str]) -> list[list[dict[str, Any]]]:
        """The entries each of ``pieces`` carries (the pieces join to the text)."""
        found, at = [], 0
        for piece in pieces:
            found.append(self.entries(at, at + len(piece)))
            at += len(piece)
        return found

    def _entry(self, index: int, token: str) -> dict[str, Any]:
        logprob = -0.01 * (1 + index % 5)
        others = [t for t in self.vocabulary if t != token][: max(self.top - 1, 0)]
        top = [token, *others][: self.top]
        return {
            **_value(token, logprob),
            "top_logprobs": [_value(t, logprob - k) for k, t in enumerate(top)],
        }


def _value(token: str, logprob: float) -> dict[str, Any]:
    return {"token": token, "logprob": round(logprob, 4), "bytes": list(token.encode())}
