"""Text helpers: cutting text into stream pieces, counting tokens, making ids.

Rule 1: pieces always join back to the text exactly (``"".join(pieces(t)) == t``).
Rule 2: a "token" here is a word or a punctuation mark (``\\w+|[^\\w\\s]``), a stand-in
for a tokenizer that is stable and easy to predict in a test: ``Hello, world`` is 3.
Rule 3: ids are derived from a salt and the call number with SHA-512, so they are unique
per call, equal from one test run to the next, and the same on every chunk of a stream.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from typing import Any

__all__ = [
    "argument_pieces",
    "arguments_text",
    "count_tokens",
    "make_id",
    "pieces",
    "prompt_tokens",
    "tokens",
]

_WORD_BREAK = re.compile(r"(?<=\S)(?=\s)")
_TOKEN = re.compile(r"\w+|[^\w\s]")
_SPACED_TOKEN = re.compile(r"\s*(?:\w+|[^\w\s])")
_ARG_PIECE = re.compile(r"\s*(?:\w+|[^\w\s]+)")
_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_BASE = len(_ALPHABET)
# two digits at once: _PAIRS[d0 + 62 * d1] is the lower digit's character, then the higher's
_PAIRS = tuple(_ALPHABET[r % _BASE] + _ALPHABET[r // _BASE] for r in range(_BASE * _BASE))


def pieces(text: str, size: int | None = None) -> list[str]:
    """``text`` cut into words (a word keeps the spaces before it) or ``size`` characters."""
    if not text:
        return []
    if size is not None:
        return [text[i : i + size] for i in range(0, len(text), size)]
    return [p for p in _WORD_BREAK.split(text) if p]


def argument_pieces(arguments: str) -> list[str]:
    """Tool-call arguments cut as a model streams them: names, values and punctuation."""
    found = _ARG_PIECE.findall(arguments)
    rest = arguments[len("".join(found)) :]  # trailing whitespace
    if rest:
        found.append(rest)
    return found or ([arguments] if arguments else [])


def count_tokens(text: str) -> int:
    """Words and punctuation marks in ``text``."""
    return len(_TOKEN.findall(text))


def tokens(text: str) -> list[tuple[int, str]]:
    """``text`` as its ``count_tokens`` tokens with their start offsets, each keeping the
    spaces before it (the last also those after), so they join back to ``text`` exactly.

    Whitespace alone is one token (``count_tokens`` counts none: a corner no reply meets).
    """
    found = [(m.start(), m.group()) for m in _SPACED_TOKEN.finditer(text)]
    if not found:
        return [(0, text)] if text else []
    end = found[-1][0] + len(found[-1][1])
    if end < len(text):
        found[-1] = (found[-1][0], found[-1][1] + text[end:])
    return found


_PROMPT_KEYS = ("messages", "input", "system", "instructions", "contents", "systemInstruction")
_SKIP_KEYS = frozenset({"role", "type", "id", "tool_call_id", "call_id", "name"})


def prompt_tokens(body: Any) -> int:
    """Tokens of the prompt in a request body (messages, input, system, contents)."""
    if not isinstance(body, dict):
        return 0
    return sum(count_tokens(s) for key in _PROMPT_KEYS for s in _strings(body.get(key)))


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            if key not in _SKIP_KEYS:
                yield from _strings(item)


def make_id(prefix: str, salt: str, call: int, length: int = 24) -> str:
    """``prefix`` and ``length`` characters derived from ``salt`` and the call number: the
    base-62 digits of the SHA-512 of both, lowest first, taken two at a time (``_PAIRS``)."""
    digest = int.from_bytes(hashlib.sha512(f"{salt}\0{call}".encode()).digest(), "big")
    digest %= _BASE**length  # (the digits kept; smaller numbers divide faster)
    chars = []
    for _ in range(length // 2):
        digest, rem = divmod(digest, _BASE * _BASE)
        chars.append(_PAIRS[rem])
    if length % 2:
        chars.append(_ALPHABET[digest % _BASE])
    return prefix + "".join(chars)


def arguments_text(arguments: Any) -> str:
    """Tool-call arguments as the JSON text a model streams (``{"city": "Paris"}``)."""
    return arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
