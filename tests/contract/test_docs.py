"""The rule tables as Markdown (contract/_docs.py): what render_rules writes and how
update replaces the part between the markers."""

from __future__ import annotations

import pytest

from mockhttp.contract._docs import BEGIN, END, render_rules, update
from mockhttp.contract._profiles import PROFILES


def test_every_rule_has_one_section_naming_its_profiles() -> None:
    text = render_rules()
    ids = {rule.id for name in PROFILES.names() for rule in PROFILES.get(name)}
    for rule_id in ids:
        assert text.count(f"### `{rule_id}`\n") == 1, rule_id
    section = text.split("### `http.status`\n", 1)[1].split("\n### ", 1)[0]
    assert "*violation* · profiles: " in section
    assert "`openai-chat`" in section
    assert "`mcp`" not in section.split("\n")[1]  # mcp is a profile without http.status


def test_the_summary_table_lists_each_profile_and_the_capture_rules() -> None:
    rows = [line for line in render_rules().splitlines() if line.startswith("| `")]
    names = [row.split("`")[1] for row in rows]
    assert names == [*PROFILES.names(), "mcp --capture", "openai-realtime", "gemini-live"]


def test_update_replaces_only_between_the_markers() -> None:
    text = f"# Title\n\nbefore\n{BEGIN}\nold stuff\n{END}\nafter\n"
    out = update(text)
    assert out.startswith(f"# Title\n\nbefore\n{BEGIN}\n\n")
    assert out.endswith(f"\n\n{END}\nafter\n")
    assert "old stuff" not in out
    assert render_rules() in out
    assert update(out) == out


@pytest.mark.parametrize("text", ["no markers", f"{END}\n{BEGIN}", f"{BEGIN} only"])
def test_update_without_markers_says_to_add_them(text: str) -> None:
    with pytest.raises(ValueError, match="markers not found: add"):
        update(text)
