"""Models lists (``GET /v1/models``, ``GET /v1beta/models``), in the asking client's shape.

``GET /v1/models`` is called by OpenAI, Anthropic and Gemini clients alike, so the answer
follows the request: an ``anthropic-version`` header gets Anthropic's list, an
``x-goog-api-key`` header, a ``key`` query parameter or a ``/v1beta/`` path gets Gemini's,
anything else OpenAI's.  ``GET .../models/{id}`` answers one model in the same shape.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from .._core._errors import ConfigError
from .._core._registry import ReplyKind
from .._core._reply import Reply, ok
from .._core._request import Request
from ._openai_chat import CREATED

__all__ = ["ModelsList", "client_of"]

Client = Literal["openai", "anthropic", "gemini"]
_ONE = re.compile(r"/models/([^/:]+)$")
_CREATED_AT = "2026-01-01T00:00:00Z"


def client_of(request: Request) -> Client:
    """Which provider's client sent ``request``, from its headers and path."""
    if "anthropic-version" in request.headers:
        return "anthropic"
    gemini = "x-goog-api-key" in request.headers or request.query_value("key") is not None
    if gemini or request.path.startswith("/v1beta/"):
        return "gemini"
    return "openai"


@dataclass(frozen=True)
class ModelsList(ReplyKind):
    """The models list, answered in the shape of the client that asks.

    Args:
        models: the model ids to list (``gpt-4o``, ``claude-sonnet-4-5``, ...).
    """

    file_key: ClassVar[str] = "models"

    models: Sequence[str] = ("gpt-mock", "claude-mock", "gemini-mock")

    def __post_init__(self) -> None:
        models = self.models
        if isinstance(models, str) or not all(isinstance(m, str) and m for m in models):
            raise ConfigError(f"models={models!r} must be a list of model ids (text)")
        object.__setattr__(self, "models", tuple(models))

    def to_args(self) -> dict[str, Any]:
        default = type(self).__dataclass_fields__["models"].default
        return {} if self.models == default else {"models": list(self.models)}

    def build(self, request: Request) -> Reply:
        client = client_of(request)
        found = _ONE.search(request.path)
        if found:
            return ok().json(_model(client, found.group(1)))
        return ok().json(_listing(client, list(self.models)))


def _model(client: Client, model: str) -> dict[str, Any]:
    if client == "anthropic":
        # lifecycle: required by the API's schema (anthropic-python's ModelInfo)
        return {
            "type": "model",
            "id": model,
            "display_name": model,
            "created_at": _CREATED_AT,
            "lifecycle": "active",
        }
    if client == "gemini":
        return {
            "name": f"models/{model}",
            "version": "001",
            "displayName": model,
            "description": f"{model} (mockhttp)",
            "inputTokenLimit": 1048576,
            "outputTokenLimit": 65536,
            "supportedGenerationMethods": ["generateContent", "countTokens"],
        }
    return {"id": model, "object": "model", "created": CREATED, "owned_by": "mockhttp"}


def _listing(client: Client, models: list[str]) -> dict[str, Any]:
    entries = [_model(client, m) for m in models]
    if client == "anthropic":
        return {
            "data": entries,
            "has_more": False,
            "first_id": models[0] if models else None,
            "last_id": models[-1] if models else None,
        }
    if client == "gemini":
        return {"models": entries}
    return {"object": "list", "data": entries}
