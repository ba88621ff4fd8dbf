"""The check profiles a user names with ``--profile`` (``contract._profiles``): each a table
of rules with unique ids, combined without duplicates, an unknown name refused with a guess."""

from __future__ import annotations

import pytest

from mockhttp._core._errors import ConfigError, UnknownNameError
from mockhttp.contract._profiles import PROFILES, rules

NAMES = sorted(PROFILES.names())


@pytest.mark.parametrize("name", NAMES)
def test_each_profile_has_rules_with_unique_ids_in_area_dot_name_form(name: str) -> None:
    found = rules(name)
    ids = [r.id for r in found]
    assert ids
    assert len(ids) == len(set(ids))
    assert all(r.id.count(".") >= 1 and r.id == r.id.lower() for r in found), ids
    assert all(r.severity in ("violation", "warning", "note") for r in found)
    assert all(r.checks and r.why for r in found)


def test_the_documented_profiles_are_there() -> None:
    documented = {"openai-chat", "anthropic-messages", "openai-responses", "gemini", "mcp", "a2a",
                  "ag-ui", "ag-ui-strict", "sse-resume", "stream-equals-buffered"}  # fmt: skip
    assert documented <= set(NAMES)


def test_profiles_combine_in_table_order_without_duplicates() -> None:
    chat, both = rules("openai-chat"), rules(["openai-chat", "stream-equals-buffered"])
    ids = [r.id for r in both]
    assert len(ids) == len(set(ids))
    assert ids[: len(chat)] == [r.id for r in chat]  # the first profile's order kept
    assert set(ids) == {r.id for r in chat} | {r.id for r in rules("stream-equals-buffered")}


def test_gemini_and_a2a_do_not_note_their_reference_framing() -> None:
    """CRLF lines and spaced JSON are Gemini's (and the a2a-sdk's) reference, not quirks."""
    for name in ("gemini", "a2a"):
        ids = {r.id for r in rules(name)}
        assert "sse.line-endings" not in ids
        assert "sse.json-spacing" not in ids
    chat = {r.id for r in rules("openai-chat")}
    assert {"sse.line-endings", "sse.json-spacing"} <= chat


def test_an_unknown_profile_is_refused_with_a_guess() -> None:
    with pytest.raises(UnknownNameError) as caught:
        rules("openai-chats")
    assert caught.value.close == "openai-chat"
    assert isinstance(caught.value, ConfigError)
    assert "unknown profile 'openai-chats' — did you mean 'openai-chat'?" in str(caught.value)
