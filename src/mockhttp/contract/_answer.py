"""A buffered answer parsed for the rules: what they read, shared where it repeats.

Rule 1: an entry of ``logprobs.content`` or ``.refusal`` (an object with ``token`` and
``logprob``) is kept as ``{"token": ...}`` alone, one object for each distinct token text:
the rules read its token and nothing else (``_tokens.py``), and an answer of a million
such entries otherwise holds a tree ~6x its text (``docs/limits.md``).
Rule 2: an entry whose token is not text is kept whole, so the rule can say so.
Rule 3: the objects it returns are shared; rules read them and never change them.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["parse_answer"]


def parse_answer(data: bytes | bytearray | str) -> Any:
    """``data`` parsed as JSON, its logprob entries slimmed (Rules 1-3).

    Raises:
        ValueError: ``data`` is not JSON.
        RecursionError: it is nested too deep to parse.
    """
    if not isinstance(data, str):  # decoded as json.loads does, and the bytes let go
        data = data.decode(json.detect_encoding(data), "surrogatepass")
    kept: dict[str, dict[str, str]] = {}

    def slim(obj: dict[str, Any]) -> Any:
        token = obj.get("token")
        if type(token) is not str or "logprob" not in obj:
            return obj
        entry = kept.get(token)
        if entry is None:
            entry = kept[token] = {"token": token}
        return entry

    return json.loads(data, object_hook=slim)
