"""Profiles as tables of rules (contract/_profiles.py)."""

from __future__ import annotations

import pytest

from mockhttp._core._errors import ConfigError
from mockhttp.contract._profiles import PROFILES, rules


def test_every_profile_has_rules_with_unique_ids() -> None:
    for name in PROFILES.names():
        ids = [r.id for r in rules(name)]
        assert ids, name
        assert len(ids) == len(set(ids)), name


def test_several_profiles_merge_without_duplicates_in_table_order() -> None:
    chat = rules("openai-chat")
    both = rules(["openai-chat", "anthropic-messages"])
    assert both[: len(chat)] == chat
    ids = [r.id for r in both]
    assert len(ids) == len(set(ids))
    assert {r.id for r in rules("anthropic-messages")} <= set(ids)


def test_gemini_and_a2a_do_not_note_crlf_or_json_spacing() -> None:
    for name in ("gemini", "a2a"):
        ids = {r.id for r in rules(name)}
        assert "sse.line-endings" not in ids
        assert "sse.json-spacing" not in ids
    assert "sse.line-endings" in {r.id for r in rules("openai-chat")}


def test_strict_ag_ui_adds_to_ag_ui() -> None:
    plain = {r.id for r in rules("ag-ui")}
    strict = {r.id for r in rules("ag-ui-strict")}
    assert plain < strict


def test_an_unknown_profile_names_the_closest() -> None:
    with pytest.raises(ConfigError, match="openai-chat"):
        rules("openai-chta")
    with pytest.raises(ConfigError):
        rules(["gemini", "nope"])
