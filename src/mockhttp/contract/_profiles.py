"""Profiles: named tables of rules.  docs/contract.md is generated from these tables."""

from __future__ import annotations

from collections.abc import Sequence

from .._core._registry import Registry
from ._a2a import A2A
from ._agui import AG_UI, AG_UI_STRICT
from ._anthropic import ANTHROPIC_MESSAGES
from ._buffered import BUFFERED_RECEIVED, STREAM_EQUALS_BUFFERED
from ._common import COMMON
from ._gemini import GEMINI
from ._mcp import MCP
from ._openai import OPENAI_CHAT
from ._openai_shape import OPENAI_SHAPE
from ._responses import OPENAI_RESPONSES
from ._resume import SSE_RESUME
from ._rule import Rule
from ._tokens import TOKEN_REASSEMBLY

__all__ = ["PROFILES", "rules"]

# Gemini frames with CRLF and spaced JSON: those are its reference, not notes.  So does
# the a2a-sdk server (sse-starlette's CRLF, json.dumps's spacing), A2A's reference.
_GEMINI_COMMON = tuple(r for r in COMMON if r.id not in ("sse.line-endings", "sse.json-spacing"))
_A2A_COMMON = _GEMINI_COMMON

PROFILES: Registry[tuple[Rule, ...]] = Registry(
    "profile",
    {
        "openai-chat": COMMON + OPENAI_CHAT + OPENAI_SHAPE + (TOKEN_REASSEMBLY,),
        "stream-equals-buffered": COMMON + STREAM_EQUALS_BUFFERED,
        "anthropic-messages": COMMON + ANTHROPIC_MESSAGES,
        "openai-responses": COMMON + OPENAI_RESPONSES + (BUFFERED_RECEIVED,),
        "gemini": _GEMINI_COMMON + GEMINI + (BUFFERED_RECEIVED,),
        "a2a": _A2A_COMMON + A2A,
        "mcp": MCP,
        "ag-ui": COMMON + AG_UI,
        "ag-ui-strict": COMMON + AG_UI + AG_UI_STRICT,
        "sse-resume": SSE_RESUME,
    },
)


def rules(profile: str | Sequence[str]) -> tuple[Rule, ...]:
    """The rules of one profile, or of several without duplicates, in table order.

    Raises:
        UnknownNameError: an unknown profile name (a ConfigError); the message names the
            closest and the known ones.
    """
    names = [profile] if isinstance(profile, str) else list(profile)
    chosen: dict[str, Rule] = {}
    for name in names:
        chosen.update((rule.id, rule) for rule in PROFILES.get(name) if rule.id not in chosen)
    return tuple(chosen.values())
