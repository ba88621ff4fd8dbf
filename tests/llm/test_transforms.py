"""llm/_transforms.py: the quirk id -> transform table, ``canonical`` and ``transforms``.

The table is checked entry by entry: each catalogue quirk, on each reply kind it concerns,
changes the bytes of that kind's reference scenario (an entry whose transform did nothing
there would be a quirk in name only).  ``canonical`` is checked by its errors and its
spellings; ``transforms`` by the order it puts a preset's transforms and the quirks given.
"""

from __future__ import annotations

from typing import Any

import pytest

from mockhttp import ConfigError
from mockhttp.contract._catalogue import QUIRKS
from mockhttp.contract._providers import PROVIDERS
from mockhttp.llm._loop import scenario, transcript
from mockhttp.llm._openai_chat import OpenAIChat
from mockhttp.llm._transforms import QUIRK_TRANSFORMS, canonical, transforms
from tests.helpers.llm_build import context

ENTRIES = [(q.id, kind) for q in QUIRKS.values() for kind in q.kinds]


def body_bytes(kind: str, quirk_id: str | None) -> tuple[bytes, tuple[tuple[str, str], ...]]:
    chosen = scenario(kind, QUIRKS[quirk_id] if quirk_id else None)
    reply = chosen.reply(quirks=[quirk_id] if quirk_id else [])
    seen = transcript(reply, chosen.path, chosen.request)
    return seen.body, tuple(seen.headers)


@pytest.mark.parametrize(("quirk_id", "kind"), ENTRIES, ids=[f"{q}-{k}" for q, k in ENTRIES])
def test_each_quirk_changes_the_wire_of_each_kind_it_concerns(quirk_id: str, kind: str) -> None:
    chosen = scenario(kind, QUIRKS[quirk_id])
    plain = transcript(chosen.reply(), chosen.path, chosen.request)
    quirked = transcript(chosen.reply(quirks=[quirk_id]), chosen.path, chosen.request)
    assert (quirked.body, tuple(quirked.headers)) != (plain.body, tuple(plain.headers))


def test_the_table_and_the_catalogue_name_the_same_quirks() -> None:
    assert set(QUIRK_TRANSFORMS) == set(QUIRKS)


def test_every_maker_makes_a_transform_with_no_options() -> None:
    for quirk_id in QUIRK_TRANSFORMS:
        transform = QUIRK_TRANSFORMS.get(quirk_id)()
        assert callable(transform), quirk_id


# -- canonical -----------------------------------------------------------------------------


def test_canonical_spells_ids_upper_and_presets_lower() -> None:
    assert canonical(["q-crlf", "Q-Done"], None, "openai_chat") == (("Q-CRLF", "Q-DONE"), None)
    assert canonical((), "OpenRouter", "openai_chat") == ((), "openrouter")
    assert canonical([], None, "gemini") == ((), None)


@pytest.mark.parametrize(
    ("quirks", "as_", "kind", "message"),
    [
        (
            "Q-CRLF",
            None,
            "openai_chat",
            r"quirks='Q-CRLF' must be a list of quirk ids such as \['Q-CRLF'\]",
        ),
        ({"Q-CRLF": 1}, None, "openai_chat", "must be a list of quirk ids"),
        (None, None, "openai_chat", "quirks=None must be a list"),
        (["Q-CRLFF"], None, "openai_chat", r"quirks=\['Q-CRLFF'\]: .*Q-CRLF"),
        (
            ["Q-PING-POSITION"],
            None,
            "openai_chat",
            "quirks: Q-PING-POSITION concerns anthropic_messages replies, not openai_chat",
        ),
        (
            ["Q-DONE"],
            None,
            "anthropic_messages",
            "quirks: Q-DONE concerns .* replies, not anthropic_messages",
        ),
        ([], "openroutr", "openai_chat", "as='openroutr': .*openrouter"),
        (
            [],
            "groq",
            "anthropic_messages",
            "as='groq' is a preset for openai_chat replies, not anthropic_messages",
        ),
    ],
)
def test_canonical_refuses_with_a_message_naming_the_cause(
    quirks: Any, as_: Any, kind: str, message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        canonical(quirks, as_, kind)


# -- transforms ----------------------------------------------------------------------------


def test_no_preset_and_no_quirk_is_no_transform() -> None:
    assert transforms((), None) == []


def test_a_presets_transforms_come_first_then_the_quirks_given() -> None:
    preset = PROVIDERS["openrouter"]
    made = transforms(("Q-CRLF",), "openrouter")
    assert len(made) == len(preset.quirks) + 1
    ctx = context({"messages": [], "stream": True}, model="m")
    draft = OpenAIChat("Hi there").draft(ctx)
    for transform in made:
        draft = transform(draft, ctx)
    assert draft.framing.line_ending == "\r\n"  # the quirk given, last
    comments = [c.comment for c in draft.chunks if c.kind == "comment"]
    assert comments[:3] == ["OPENROUTER PROCESSING"] * 3  # the preset's own options
    providers = [
        c.data.get("provider") for c in draft.chunks if c.kind in ("start", "text", "finish")
    ]
    assert providers == ["OpenAI"] * len(providers)
    assert providers


def test_the_order_given_is_the_order_applied() -> None:
    """Q-TOOL-ARGS-WHOLE then Q-FINISH-ON-CONTENT differs from the other way round."""
    ctx = context({"messages": [], "stream": True}, model="m")
    base = OpenAIChat("Hi", tool_calls=[{"name": "f", "arguments": {"a": 1}}]).draft(ctx)
    results = []
    for order in (
        ("Q-TOOL-ARGS-WHOLE", "Q-FINISH-ON-CONTENT"),
        ("Q-FINISH-ON-CONTENT", "Q-TOOL-ARGS-WHOLE"),
    ):
        draft = base
        for transform in transforms(order, None):
            draft = transform(draft, ctx)
        results.append(draft)
    assert results[0] != results[1]


@pytest.mark.parametrize("name", list(PROVIDERS))
def test_every_preset_applies_to_its_kinds_reference(name: str) -> None:
    preset = PROVIDERS[name]
    chosen = scenario(preset.kind)
    plain = transcript(chosen.reply(), chosen.path, chosen.request).body
    as_preset = transcript(chosen.reply(as_=name), chosen.path, chosen.request).body
    assert as_preset != plain
