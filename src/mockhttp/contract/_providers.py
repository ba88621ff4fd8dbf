"""Provider presets: the quirks one provider's normal streams show, as one bundle of data.

``check(..., as_="groq")`` (``mockhttp check --as groq``) reports what the rules find of the
bundle's quirks as notes (:func:`documented`); ``mockhttp.llm`` applies the bundle to a
reply (``openai_chat(text="Hi", as_="openrouter")``), in order, with the provider's variant
where a quirk has one (whose extra fields, which reasoning field); a reply's
``reasoning`` goes in the preset's ``reasoning_field``.  Error quirks are not
part of any bundle: a provider that can fail mid-stream does not fail on every stream.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .._core._registry import Registry
from ._catalogue import CHAT, quirk

__all__ = ["PROVIDERS", "Provider", "documented", "provider"]


@dataclass(frozen=True)
class Provider:
    """A provider preset: its quirk ids in the order they apply, and their options.

    ``reasoning_field`` is the chat delta (and message) field the provider sends a reply's
    ``reasoning`` in: ``reasoning_content`` (DeepSeek, xAI, vLLM) or ``reasoning``
    (OpenRouter, Groq, Ollama).
    """

    name: str
    summary: str
    quirks: tuple[str, ...]
    options: Mapping[str, Mapping[str, str | int]] = field(default_factory=dict)
    kind: str = CHAT
    reasoning_field: str = "reasoning_content"


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
        reasoning_field="reasoning",
    ),
    Provider(
        "groq",
        "Groq's /openai/v1/chat/completions",
        ("Q-USAGE-WITHOUT-REQUEST", "Q-USAGE-ON-FINISH", "Q-EXTRA-FIELDS", "Q-TOOL-ARGS-WHOLE"),
        {"Q-EXTRA-FIELDS": {"variant": "groq"}},
        reasoning_field="reasoning",
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
        reasoning_field="reasoning",
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

PROVIDERS: Registry[Provider] = Registry("provider", {p.name: p for p in _BUNDLES})
"""Every provider preset by name (lower case)."""


def provider(name: str) -> Provider:
    """The provider preset named ``name`` (case-insensitive).

    Raises:
        UnknownNameError: an unknown name; the message names the closest and the known ones.
    """
    return PROVIDERS.get(name.lower() if isinstance(name, str) else name)


def documented(name: str) -> dict[str, tuple[str, ...]]:
    """Rule id -> the ids of provider ``name``'s quirks that the rule reports.

    Raises:
        UnknownNameError: an unknown provider.
    """
    out: dict[str, tuple[str, ...]] = {}
    for q in provider(name).quirks:
        for rule in dict.fromkeys(r for rules in quirk(q).rules.values() for r in rules):
            out[rule] = (*out.get(rule, ()), q)
    return out
