"""Provider presets: the quirks one provider's normal streams show, as one bundle.

``openai_chat(text="Hi", as_="openrouter")`` (``as: openrouter`` in a mock file) applies
the bundle's quirks in order, with the provider's variant where a quirk has one (whose
extra fields, which reasoning field).  Error quirks are not part of any bundle: a provider
that can fail mid-stream does not fail on every stream; add them with ``quirks: [...]``.
``mockhttp check --as PROVIDER`` reports the bundle's quirks as notes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .._core._errors import ConfigError
from ._draft import Transform
from ._quirks import quirk

__all__ = ["PROVIDERS", "Provider", "canonical", "documented", "provider", "transforms"]


@dataclass(frozen=True)
class Provider:
    """A provider preset: its quirk ids in the order they apply, and their options."""

    name: str
    summary: str
    quirks: tuple[str, ...]
    options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    kind: str = "openai_chat"


_BUNDLES = (
    Provider(
        "openrouter",
        "OpenRouter's /api/v1/chat/completions",
        (
            "Q-COMMENT-KEEPALIVE",
            "Q-ROLE-EVERY-CHUNK",
            "Q-USAGE-WITHOUT-REQUEST",
            "Q-USAGE-DUMMY-CHOICE",
            "Q-EXTRA-FIELDS",
        ),
        {
            "Q-COMMENT-KEEPALIVE": {"text": "OPENROUTER PROCESSING", "before": 3},
            "Q-EXTRA-FIELDS": {"variant": "openrouter"},
        },
    ),
    Provider(
        "groq",
        "Groq's /openai/v1/chat/completions",
        ("Q-USAGE-WITHOUT-REQUEST", "Q-USAGE-ON-FINISH", "Q-EXTRA-FIELDS", "Q-TOOL-ARGS-WHOLE"),
        {"Q-EXTRA-FIELDS": {"variant": "groq"}},
    ),
    Provider(
        "azure",
        "Azure OpenAI /openai/deployments/{d}/chat/completions (default filter mode)",
        ("Q-AZURE-PROMPT-FILTER", "Q-EXTRA-FIELDS"),
        {"Q-EXTRA-FIELDS": {"variant": "azure"}},
    ),
    Provider(
        "deepseek",
        "DeepSeek's /chat/completions (deepseek-reasoner)",
        ("Q-COMMENT-KEEPALIVE", "Q-REASONING-FIELD", "Q-USAGE-ON-FINISH"),
        {
            "Q-COMMENT-KEEPALIVE": {"text": "keep-alive", "before": 1},
            "Q-REASONING-FIELD": {"field": "reasoning_content"},
        },
    ),
    Provider(
        "mistral",
        "Mistral's /v1/chat/completions (mistral-small tool calls)",
        ("Q-USAGE-WITHOUT-REQUEST", "Q-USAGE-ON-FINISH", "Q-TOOL-ARGS-WHOLE", "Q-TOOL-NO-INDEX"),
    ),
    Provider(
        "together",
        "Together AI's /v1/chat/completions",
        ("Q-ROLE-EVERY-CHUNK", "Q-USAGE-WITHOUT-REQUEST", "Q-USAGE-ON-FINISH", "Q-EXTRA-FIELDS"),
        {"Q-EXTRA-FIELDS": {"variant": "together"}},
    ),
    Provider(
        "vllm",
        "a vLLM OpenAI-compatible server",
        ("Q-EXTRA-FIELDS",),
        {"Q-EXTRA-FIELDS": {"variant": "vllm"}},
    ),
    Provider(
        "ollama",
        "Ollama's /v1/chat/completions as it streamed until 2026-08 (newer versions match "
        "the reference)",
        ("Q-ROLE-EVERY-CHUNK", "Q-FINISH-ON-CONTENT"),
    ),
    Provider(
        "xai",
        "xAI's (Grok) /v1/chat/completions",
        ("Q-REASONING-FIELD", "Q-MISSING-KEYS", "Q-TOOL-ARGS-WHOLE", "Q-USAGE-VENDOR-EXT"),
        {"Q-REASONING-FIELD": {"field": "reasoning_content"}},
    ),
    Provider(
        "gemini-openai",
        "Gemini's OpenAI-compatible /v1beta/openai/chat/completions",
        ("Q-TOOL-NO-INDEX", "Q-TOOL-ARGS-WHOLE", "Q-FINISH-STOP-FOR-TOOLS"),
    ),
    Provider(
        "perplexity",
        "Perplexity's sonar /chat/completions",
        (
            "Q-ROLE-EVERY-CHUNK",
            "Q-MISSING-KEYS",
            "Q-USAGE-EVERY-CHUNK",
            "Q-OBJECT-VALUE",
            "Q-EXTRA-FIELDS",
        ),
        {"Q-EXTRA-FIELDS": {"variant": "perplexity"}},
    ),
)

PROVIDERS: dict[str, Provider] = {p.name: p for p in _BUNDLES}
"""Every provider preset by name."""


def provider(name: str) -> Provider:
    """The provider preset named ``name`` (case-insensitive).

    Raises:
        ConfigError: an unknown name; the message lists the known ones.
    """
    found = PROVIDERS.get(name.lower()) if isinstance(name, str) else None
    if found is None:
        raise ConfigError(f"provider {name!r} is not known (known: {', '.join(PROVIDERS)})")
    return found


def canonical(quirks: Any, as_: Any, kind: str) -> tuple[tuple[str, ...], str | None]:
    """``quirks`` as upper-case ids and ``as_`` as a lower-case name, checked for ``kind``.

    Raises:
        ConfigError: an unknown id or provider, or one that does not concern ``kind``.
    """
    if isinstance(quirks, str) or not isinstance(quirks, list | tuple):
        raise ConfigError(f"quirks={quirks!r} must be a list of quirk ids such as ['Q-CRLF']")
    try:
        ids = tuple(quirk(q).id for q in quirks)
    except ConfigError as exc:
        raise ConfigError(f"quirks={list(quirks)!r}: {exc}") from None
    for q in ids:
        if kind not in quirk(q).kinds:
            kinds = ", ".join(quirk(q).kinds)
            raise ConfigError(f"quirks: {q} concerns {kinds} replies, not {kind}")
    name = None
    if as_ is not None:
        try:
            preset = provider(as_)
        except ConfigError as exc:
            raise ConfigError(f"as={as_!r}: {exc}") from None
        if preset.kind != kind:
            raise ConfigError(f"as={as_!r} is a preset for {preset.kind} replies, not {kind}")
        name = preset.name
    return ids, name


def transforms(quirks: tuple[str, ...], as_: str | None) -> list[Transform]:
    """The transforms of a provider preset (first) and of the quirks given, in order."""
    out: list[Transform] = []
    if as_ is not None:
        preset = provider(as_)
        out += [quirk(q).make(**preset.options.get(q, {})) for q in preset.quirks]
    out += [quirk(q).make() for q in quirks]
    return out


def documented(name: str) -> dict[str, tuple[str, ...]]:
    """Rule id -> the ids of provider ``name``'s quirks that the rule reports.

    Raises:
        ConfigError: an unknown provider; the message lists the known ones.
    """
    out: dict[str, tuple[str, ...]] = {}
    for q in provider(name).quirks:
        for rule in dict.fromkeys(r for rules in quirk(q).rules.values() for r in rules):
            out[rule] = (*out.get(rule, ()), q)
    return out
