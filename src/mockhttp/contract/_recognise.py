"""Which profile a recorded exchange speaks, read from its request and its stream.

``mockhttp check --body FILE`` without ``--profile`` checks the profile recognised here, so a
Gemini stream is not checked (and failed) as OpenAI Chat Completions.
"""

from __future__ import annotations

import json
from typing import Any

from ._a2a import is_a2a
from ._agui import EVENT_FIELDS
from ._mcp import is_mcp
from ._stream import Stream
from ._transcript import Transcript

__all__ = ["recognise", "top_level"]

_ANTHROPIC_TYPES = ("message_start", "content_block_start", "content_block_delta", "ping")


def recognise(transcript: Transcript) -> str | None:
    """``"openai-chat"``, ``"openai-responses"``, ``"anthropic-messages"``, ``"gemini"``,
    ``"ag-ui"``, ``"a2a"`` (a JSON-RPC request naming an A2A method) or ``"mcp"`` (another
    JSON-RPC request) when the stream (else the request) shows
    which; None when nothing does."""
    return _by_stream(transcript) or _by_request(transcript.request)


def _by_stream(transcript: Transcript) -> str | None:
    if is_a2a(transcript.request):  # JSON-RPC 2.0 naming an A2A method
        return "a2a"
    if is_mcp(transcript.request):  # JSON-RPC 2.0: an MCP exchange
        return "mcp"
    if transcript.body.lstrip()[:1] == b"[":  # Gemini's streamGenerateContent without alt=sse
        return "gemini"
    for payload in Stream(transcript).payloads:
        found = _by_payload(payload.message.event, payload.obj)
        if found is not None:
            return found
    return _by_payload("message", top_level(transcript.body))


class _Nested(dict[str, Any]):
    """What :func:`top_level` leaves of every object: nothing."""


_NESTED = _Nested()


def top_level(body: bytes) -> dict[str, Any] | None:
    """The members of ``body``'s top-level JSON object, each nested object in them left as
    an empty stand-in (None when ``body`` is not a JSON object).

    Rule: no tree is built.  Each object is dropped as soon as it is parsed, so recognising
    a 64 MiB buffered answer of a million small objects (``logprobs``) costs its text, not
    the ~6x its Python objects would (docs/limits.md, ``mockhttp check``).
    """
    last: list[list[tuple[str, Any]]] = []

    def drop(pairs: list[tuple[str, Any]]) -> _Nested:
        last[:] = [pairs]  # the last object parsed is the outermost one
        return _NESTED

    try:
        answer = json.loads(body, object_pairs_hook=drop)
    except (ValueError, RecursionError):
        return None
    return dict(last[0]) if answer is _NESTED and last else None


def _by_payload(event: str, data: dict[str, Any] | None) -> str | None:
    kind = data.get("type") if data is not None else None
    if isinstance(kind, str) and kind in EVENT_FIELDS:
        return "ag-ui"
    if event in _ANTHROPIC_TYPES or kind in _ANTHROPIC_TYPES or kind == "message":
        return "anthropic-messages"
    if event.startswith("response.") or (isinstance(kind, str) and kind.startswith("response.")):
        return "openai-responses"
    if data is None:
        return None
    if "candidates" in data or "usageMetadata" in data:
        return "gemini"
    if "choices" in data or str(data.get("object", "")).startswith("chat.completion"):
        return "openai-chat"
    return None


def _by_request(request: Any) -> str | None:
    if not isinstance(request, dict):
        return None
    if "threadId" in request and "runId" in request:
        return "ag-ui"
    if "contents" in request:
        return "gemini"
    if "input" in request:
        return "openai-responses"
    return None
