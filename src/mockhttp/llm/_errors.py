"""Provider-shaped errors: the status, JSON body and headers each API answers with.

``ERRORS`` names the errors a reply can give (``error: rate_limit``); each provider module
turns a name into its own shape with the functions here.

| name | OpenAI (chat, responses) | Anthropic | Gemini |
|---|---|---|---|
| ``rate_limit`` | 429 | 429 ``rate_limit_error`` | 429 ``RESOURCE_EXHAUSTED`` |
| ``overloaded`` | 503 ``server_error`` | 529 ``overloaded_error`` | 503 ``UNAVAILABLE`` |
| ``context_length`` | 400 | 400 ``invalid_request_error`` | 400 ``INVALID_ARGUMENT`` |
| ``invalid_key`` | 401 ``invalid_api_key`` | 401 ``authentication_error`` | 400 |
| ``server_error`` | 500 ``server_error`` | 500 ``api_error`` | 500 ``INTERNAL`` |

(OpenAI's codes: ``rate_limit_exceeded``, ``context_length_exceeded``; Gemini answers a
bad key with 400 ``INVALID_ARGUMENT``, reason ``API_KEY_INVALID``.)

A reply's ``retry_after``, ``error_message``, ``error_code`` and ``error_type`` replace the
table's (:class:`ErrorOptions`), and its own ``headers`` replace same-named ones
(:func:`merge_headers`).  A 429 carries ``retry-after`` and the provider's rate-limit
headers (OpenAI ``x-ratelimit-*`` with duration resets such as ``1s``; Anthropic
``anthropic-ratelimit-*`` with RFC 3339 resets); Gemini puts the wait in the body
(``RetryInfo.retryDelay``), as it does for real.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._core._registry import Registry

__all__ = [
    "ERRORS",
    "NO_OPTIONS",
    "ErrorOptions",
    "ErrorShapes",
    "anthropic_error",
    "gemini_error",
    "merge_headers",
    "openai_error",
]

Headers = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class ErrorOptions:
    """A reply's own words for its error (None: the table's): ``message``; ``code``
    (OpenAI's ``code``); ``type`` (OpenAI's ``type``, Anthropic's ``error.type``, Gemini's
    ``status``); ``retry_after`` in seconds (the ``retry-after`` header, on any error;
    Gemini's ``RetryInfo.retryDelay`` too)."""

    message: str | None = None
    code: str | None = None
    type: str | None = None
    retry_after: float | None = None

    def headers(self, table: Headers) -> Headers:
        """The table's headers with ``retry-after`` set (added when the table has none)."""
        if self.retry_after is None:
            return table
        return merge_headers(table, (("retry-after", _seconds_text(self.retry_after)),))


NO_OPTIONS = ErrorOptions()


def _seconds_text(value: float) -> str:
    """``0``, ``2``, ``0.5``: what ``retry-after`` carries (the SDKs read a float)."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def merge_headers(*groups: Headers) -> Headers:
    """The headers of ``groups`` in order, a later group's name replacing an earlier
    one's (any case): a reply's ``headers={"retry-after": "0"}`` replaces the table's."""
    out: list[tuple[str, str]] = []
    for group in groups:
        names = {name.lower() for name, _ in group}
        out = [(n, v) for n, v in out if n.lower() not in names]
        out.extend(group)
    return tuple(out)


_OPENAI: dict[str, tuple[int, str, str, str | None, str | None]] = {
    # name: (status, message, type, param, code)
    "rate_limit": (
        429,
        "Rate limit reached for requests per min (RPM): Limit 60, Used 60, Requested 1. "
        "Please try again in 1s.",
        "requests",
        None,
        "rate_limit_exceeded",
    ),
    "overloaded": (
        503,
        "The engine is currently overloaded, please try again later.",
        "server_error",
        None,
        None,
    ),
    "context_length": (
        400,
        "This model's maximum context length is 128000 tokens. However, your messages "
        "resulted in 130000 tokens. Please reduce the length of the messages.",
        "invalid_request_error",
        "messages",
        "context_length_exceeded",
    ),
    "invalid_key": (
        401,
        "Incorrect API key provided. You can find your API key at "
        "https://platform.openai.com/account/api-keys.",
        "invalid_request_error",
        None,
        "invalid_api_key",
    ),
    "server_error": (
        500,
        "The server had an error while processing your request. Sorry about that!",
        "server_error",
        None,
        None,
    ),
}

_OPENAI_LIMITS: Headers = (
    ("retry-after", "1"),
    ("x-ratelimit-limit-requests", "60"),
    ("x-ratelimit-limit-tokens", "150000"),
    ("x-ratelimit-remaining-requests", "0"),
    ("x-ratelimit-remaining-tokens", "149000"),
    ("x-ratelimit-reset-requests", "1s"),
    ("x-ratelimit-reset-tokens", "6m0s"),
)


@dataclass(frozen=True)
class ErrorShapes:
    """One named error as each API answers it (the rows of the tables below)."""

    name: str
    openai: tuple[int, str, str, str | None, str | None]  # status, message, type, param, code
    anthropic: tuple[int, str, str]  # status, type, message
    gemini: tuple[int, str, str]  # status, status name, message


def openai_error(name: str, own: ErrorOptions = NO_OPTIONS) -> tuple[int, dict[str, Any], Headers]:
    """OpenAI's ``{"error": {message, type, param, code}}`` for error ``name``."""
    code, message, kind, param, short = ERRORS.get(name).openai
    error = {
        "message": own.message or message,
        "type": own.type or kind,
        "param": param,
        "code": own.code or short,
    }
    return code, {"error": error}, own.headers(_OPENAI_LIMITS if name == "rate_limit" else ())


_ANTHROPIC: dict[str, tuple[int, str, str]] = {
    "rate_limit": (
        429,
        "rate_limit_error",
        "Number of request tokens has exceeded your per-minute rate limit",
    ),
    "overloaded": (529, "overloaded_error", "Overloaded"),
    "context_length": (
        400,
        "invalid_request_error",
        "prompt is too long: 210000 tokens > 200000 maximum",
    ),
    "invalid_key": (401, "authentication_error", "invalid x-api-key"),
    "server_error": (500, "api_error", "Internal server error"),
}

_ANTHROPIC_LIMITS: Headers = (
    ("retry-after", "1"),
    ("anthropic-ratelimit-requests-limit", "50"),
    ("anthropic-ratelimit-requests-remaining", "0"),
    ("anthropic-ratelimit-requests-reset", "2026-01-01T00:00:01Z"),
    ("anthropic-ratelimit-tokens-limit", "40000"),
    ("anthropic-ratelimit-tokens-remaining", "0"),
    ("anthropic-ratelimit-tokens-reset", "2026-01-01T00:00:01Z"),
)


def anthropic_error(
    name: str, own: ErrorOptions = NO_OPTIONS
) -> tuple[int, dict[str, Any], Headers]:
    """Anthropic's ``{"type": "error", "error": {type, message}}`` for error ``name``."""
    code, kind, message = ERRORS.get(name).anthropic
    body = {"type": "error", "error": {"type": own.type or kind, "message": own.message or message}}
    return code, body, own.headers(_ANTHROPIC_LIMITS if name == "rate_limit" else ())


_GEMINI: dict[str, tuple[int, str, str]] = {
    "rate_limit": (
        429,
        "RESOURCE_EXHAUSTED",
        "You exceeded your current quota, please check your plan and billing details.",
    ),
    "overloaded": (503, "UNAVAILABLE", "The model is overloaded. Please try again later."),
    "context_length": (
        400,
        "INVALID_ARGUMENT",
        "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
    ),
    "invalid_key": (400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key."),
    "server_error": (
        500,
        "INTERNAL",
        "An internal error has occurred. Please retry or report in "
        "https://developers.generativeai.google/guide/troubleshooting",
    ),
}


def gemini_error(name: str, own: ErrorOptions = NO_OPTIONS) -> tuple[int, dict[str, Any], Headers]:
    """Google's ``{"error": {code, message, status, details?}}`` for error ``name``."""
    code, state, message = ERRORS.get(name).gemini
    error: dict[str, Any] = {
        "code": code,
        "message": own.message or message,
        "status": own.type or state,
    }
    if name == "rate_limit" or own.retry_after is not None:
        wait = 1.0 if own.retry_after is None else own.retry_after
        error["details"] = [
            {
                "@type": "type.googleapis.com/google.rpc.RetryInfo",
                "retryDelay": f"{_seconds_text(wait)}s",
            }
        ]
    elif name == "invalid_key":
        error["details"] = [
            {
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": "API_KEY_INVALID",
                "domain": "googleapis.com",
            }
        ]
    return code, {"error": error}, own.headers(())


ERRORS: Registry[ErrorShapes] = Registry(
    "error", {n: ErrorShapes(n, _OPENAI[n], _ANTHROPIC[n], _GEMINI[n]) for n in _OPENAI}
)
"""The errors a reply can give (``error: rate_limit``), by name, in table order."""
