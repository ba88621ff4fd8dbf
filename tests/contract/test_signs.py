"""``--as PROVIDER`` files a finding under a quirk by what the stream shows, not by rule."""

from __future__ import annotations

import pytest

from mockhttp import llm
from mockhttp.contract import check
from mockhttp.contract._signs import SIGNS
from mockhttp.llm._loop import scenario, transcript


def test_every_quirk_of_every_provider_preset_has_a_sign() -> None:
    """Rule 1 of _signs: without a sign a quirk is never matched, so every preset needs one."""
    wanted = {q for p in llm.PROVIDERS.values() for q in p.quirks}
    assert wanted - set(SIGNS) == set()


def test_an_openrouter_stream_checked_as_groq_keeps_its_violation() -> None:
    """OpenRouter's dummy-choice usage chunk is not Groq's usage on the finish chunk, and its
    keys are not x_groq: checked as groq, nothing changes (a by-rule match filed the
    violation as a note, exit 0; a live check has it on two exchanges)."""
    chosen = scenario("openai_chat")
    request = {**chosen.request, "stream_options": {"include_usage": True}}
    seen = transcript(llm.openai_chat(**chosen.options, as_="openrouter"), chosen.path, request)
    plain = [(f.rule, f.severity, f.message) for f in check(seen)]
    assert [(rule, severity) for rule, severity, _ in plain] == [
        ("sse.comments", "note"),
        ("openai.role-repeated", "warning"),
        ("openai.usage-chunk", "violation"),
        ("openai.extra-fields", "note"),
    ]
    assert [(f.rule, f.severity, f.message) for f in check(seen, as_="groq")] == plain
    as_itself = check(seen, as_="openrouter")
    assert [f.severity for f in as_itself] == ["note"] * 4
    assert as_itself[2].message.startswith("Q-USAGE-DUMMY-CHOICE (documented for openrouter)")


@pytest.mark.parametrize("name", ["groq", "openrouter"])
def test_a_provider_stream_checked_as_itself_is_all_notes(name: str) -> None:
    chosen = scenario("openai_chat")
    request = {**chosen.request, "stream_options": {"include_usage": True}}
    seen = transcript(llm.openai_chat(**chosen.options, as_=name), chosen.path, request)
    assert {f.severity for f in check(seen)} & {"violation"}
    assert {f.severity for f in check(seen, as_=name)} == {"note"}


def test_a_groq_stream_with_a_dummy_choice_is_not_excused() -> None:
    """The same rule, the other quirk: Groq's preset plus OpenRouter's dummy choice."""
    chosen = scenario("openai_chat")
    request = {**chosen.request, "stream_options": {"include_usage": True}}
    reply = llm.openai_chat(**chosen.options, quirks=["Q-USAGE-DUMMY-CHOICE"])
    seen = transcript(reply, chosen.path, request)
    usage = [f for f in check(seen, as_="groq") if f.rule == "openai.usage-chunk"]
    assert [f.severity for f in usage] == ["violation"]
