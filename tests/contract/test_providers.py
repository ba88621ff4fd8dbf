"""``contract._providers``: every preset names catalogued quirks with known options, and
``documented`` maps rules back to the quirks that explain them."""

from __future__ import annotations

import pytest

from mockhttp import ConfigError
from mockhttp.contract._catalogue import QUIRKS, quirk
from mockhttp.contract._providers import PROVIDERS, documented, provider


@pytest.mark.parametrize("name", sorted(PROVIDERS))
def test_every_preset_names_catalogued_quirks(name: str) -> None:
    preset = provider(name)
    assert preset.name == name
    assert preset.quirks
    assert set(preset.quirks) <= set(QUIRKS)
    assert len(set(preset.quirks)) == len(preset.quirks)
    assert set(preset.options) <= set(preset.quirks)
    assert preset.reasoning_field in ("reasoning_content", "reasoning")


def test_names_are_case_insensitive_and_unknown_ones_say_the_closest() -> None:
    first = sorted(PROVIDERS)[0]
    assert provider(first.upper()) is provider(first)
    with pytest.raises(ConfigError, match="openrouter"):
        provider("openroute")


@pytest.mark.parametrize("name", sorted(PROVIDERS))
def test_documented_maps_rules_to_the_presets_own_quirks(name: str) -> None:
    preset = provider(name)
    for rule, quirks in documented(name).items():
        assert quirks
        assert set(quirks) <= set(preset.quirks)
        for q in quirks:
            assert any(rule in rules for rules in quirk(q).rules.values())
