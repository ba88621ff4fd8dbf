"""Embeddings: OpenAI's ``POST /v1/embeddings`` and Gemini's ``:embedContent`` and
``:batchEmbedContents``, with vectors made from the input.

A text's vector is the normalised sum of one pseudo-random vector per word (lower-cased
``\\w+`` runs, each seeded by the word's SHA-256), so it is the same on every run and
machine, and texts that share words are near each other: a retrieval test's nearest
neighbour is the document that shares the most words with the query.  ``fixed`` pins the
vector of a given input when a test needs an exact one.

Rule 1: the same input, model and dimensions give the same vector, byte for byte, in both
encodings (OpenAI's ``base64`` is the little-endian float32 array the SDKs decode).
Rule 2: the shape follows the path (``/v1/embeddings``: OpenAI's; ``...:embedContent`` and
``...:batchEmbedContents``: Gemini's), the dimensions the request (``dimensions``,
``outputDimensionality``), else the model's own (``DIMENSIONS``), else 1536 (OpenAI) and
768 (Gemini).
"""

from __future__ import annotations

import base64
import hashlib
import math
import random
import re
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, ClassVar

from .._core._errors import ConfigError
from .._core._registry import ReplyKind
from .._core._reply import Reply, ok, status
from .._core._request import Request
from ._text import count_tokens

__all__ = ["DIMENSIONS", "Embeddings", "vector"]

#: the native dimensions of known embedding models
DIMENSIONS: Mapping[str, int] = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
    "text-embedding-004": 768,
    "text-embedding-005": 768,
    "embedding-001": 768,
    "gemini-embedding-001": 3072,
}
_MAX_DIMENSIONS = 8192
_WORD = re.compile(r"\w+")
_GEMINI = re.compile(r"/models/([^/:]+):(embedContent|batchEmbedContents)$")


@lru_cache(maxsize=4096)
def _word_vector(word: str, dimensions: int) -> tuple[float, ...]:
    seed = int.from_bytes(hashlib.sha256(word.encode()).digest()[:8], "big")
    draw = random.Random(seed).random
    return tuple(draw() * 2.0 - 1.0 for _ in range(dimensions))


def vector(text: str, dimensions: int) -> list[float]:
    """The unit vector of ``text`` in ``dimensions`` (the same on every run)."""
    words = _WORD.findall(text.lower()) or [text]
    total = [0.0] * dimensions
    for word in words:
        for i, x in enumerate(_word_vector(word, dimensions)):
            total[i] += x
    norm = math.sqrt(sum(x * x for x in total)) or 1.0
    return [x / norm for x in total]


@dataclass(frozen=True)
class Embeddings(ReplyKind):
    """Embedding vectors made from the input, in OpenAI's or Gemini's shape.

    Args:
        dimensions: the vectors' length when the request names none (default: the model's
            own, see ``DIMENSIONS``, else 1536 for OpenAI and 768 for Gemini).
        fixed: the vector of given inputs (``{"the cat": [0.1, 0.2, ...]}``): sent as
            written (Gemini) or as float32 (OpenAI's ``base64``), whatever the dimensions.
    """

    file_key: ClassVar[str] = "embeddings"

    dimensions: int | None = None
    fixed: Mapping[str, Sequence[float]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        dims = self.dimensions
        if dims is not None and (type(dims) is not int or not 0 < dims <= _MAX_DIMENSIONS):
            raise ConfigError(f"dimensions={dims!r} must be an int from 1 to {_MAX_DIMENSIONS}")
        if not isinstance(self.fixed, Mapping):
            raise ConfigError(f"fixed={self.fixed!r} must map input text to a vector")
        for text, values in self.fixed.items():
            numbers = isinstance(values, Sequence) and not isinstance(values, str)
            if not numbers or not values or not all(_is_number(v) for v in values):
                raise ConfigError(f"fixed[{text!r}]={values!r} must be a non-empty list of numbers")
        object.__setattr__(
            self, "fixed", {t: [float(v) for v in vs] for t, vs in self.fixed.items()}
        )

    def to_args(self) -> dict[str, Any]:
        args: dict[str, Any] = {}
        if self.dimensions is not None:
            args["dimensions"] = self.dimensions
        if self.fixed:
            args["fixed"] = {t: list(v) for t, v in self.fixed.items()}
        return args

    def build(self, request: Request) -> Reply:
        body = request.json() if request.body else {}
        if not isinstance(body, dict):
            return _bad("the body must be a JSON object")
        gemini = _GEMINI.search(request.path)
        if gemini:
            return self._gemini(body, gemini.group(1), gemini.group(2) == "batchEmbedContents")
        return self._openai(body)

    def _vector(self, text: str, model: str, asked: Any) -> list[float]:
        if text in self.fixed:
            return list(self.fixed[text])
        return vector(text, _dimensions(asked, self.dimensions, model))

    def _openai(self, body: dict[str, Any]) -> Reply:
        model = str(body.get("model") or "text-embedding-3-small")
        texts = _openai_inputs(body.get("input"))
        if texts is None:
            return _bad("'input' must be a string, a list of strings or of token arrays")
        asked = body.get("dimensions")
        if asked is not None and not _good_dimensions(asked):
            return _bad(f"'dimensions' must be an integer from 1 to {_MAX_DIMENSIONS}")
        encoding = body.get("encoding_format", "float")
        if encoding not in ("float", "base64"):
            return _bad("'encoding_format' must be 'float' or 'base64'")
        data = []
        for i, text in enumerate(texts):
            values = self._vector(text, model, asked)
            embedding: Any = values if encoding == "float" else _base64(values)
            data.append({"object": "embedding", "index": i, "embedding": embedding})
        tokens = sum(count_tokens(t) for t in texts)
        usage = {"prompt_tokens": tokens, "total_tokens": tokens}
        return ok().json({"object": "list", "data": data, "model": model, "usage": usage})

    def _gemini(self, body: dict[str, Any], model: str, batch: bool) -> Reply:
        requests = body.get("requests") if batch else [body]
        if not isinstance(requests, list) or not all(isinstance(r, dict) for r in requests):
            return _bad("'requests' must be a list of embedContent requests", gemini=True)
        vectors = []
        for one in requests:
            text = _gemini_text(one.get("content"))
            if text is None:
                return _bad("'content' must hold 'parts' with text", gemini=True)
            asked = one.get("outputDimensionality")
            if asked is not None and not _good_dimensions(asked):
                return _bad("'outputDimensionality' is out of range", gemini=True)
            vectors.append({"values": self._vector(text, model, asked)})
        if batch:
            return ok().json({"embeddings": vectors})
        return ok().json({"embedding": vectors[0]})


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _good_dimensions(value: object) -> bool:
    return type(value) is int and 0 < value <= _MAX_DIMENSIONS


def _dimensions(asked: Any, default: int | None, model: str) -> int:
    if asked is not None:
        return int(asked)
    if default is not None:
        return default
    name = model.rpartition("/")[2]
    return DIMENSIONS.get(name, 768 if "gemini" in name or name.startswith("embedding") else 1536)


def _openai_inputs(value: Any) -> list[str] | None:
    """The input's texts: a string, strings, or token arrays (read as their numbers)."""
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not value:
        return None
    if all(isinstance(v, int) for v in value):  # one token array
        return [" ".join(map(str, value))]
    texts = []
    for item in value:
        if isinstance(item, str):
            texts.append(item)
        elif isinstance(item, list) and all(isinstance(t, int) for t in item):
            texts.append(" ".join(map(str, item)))
        else:
            return None
    return texts


def _gemini_text(content: Any) -> str | None:
    if not isinstance(content, dict) or not isinstance(content.get("parts"), list):
        return None
    texts = [p.get("text") for p in content["parts"] if isinstance(p, dict)]
    strings = [t for t in texts if isinstance(t, str)]
    return "".join(strings) if strings and len(strings) == len(texts) else None


def _base64(values: Sequence[float]) -> str:
    return base64.b64encode(struct.pack(f"<{len(values)}f", *values)).decode("ascii")


def _bad(message: str, *, gemini: bool = False) -> Reply:
    if gemini:
        error = {"code": 400, "message": message, "status": "INVALID_ARGUMENT"}
        return status(400).json({"error": error})
    error = {"message": message, "type": "invalid_request_error", "param": None, "code": None}
    return status(400).json({"error": error})
