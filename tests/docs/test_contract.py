"""docs/sse.md and docs/contract.md: examples run, and the rule reference is current."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from mockhttp.contract import PROFILES
from mockhttp.contract._docs import BEGIN, END, render_rules, update
from tests.helpers.cli_process import console_examples, run_shown
from tests.helpers.modules import user_code

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"^```python\n(.*?)^```$", re.S | re.M)
PAGES = ["docs/sse.md", "docs/contract.md"]


@pytest.mark.parametrize("page", PAGES)
def test_page_examples_run(page: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Every python block of the page runs as written, in order, in one namespace."""
    code = BLOCK.findall((ROOT / page).read_text())
    assert len(code) >= 2, f"{page} has too few python examples"
    with user_code() as namespace:
        for number, block in enumerate(code):
            exec(compile(block, f"{page}:example {number}", "exec"), namespace)
    capsys.readouterr()


def test_contract_doc_rule_reference_is_generated_from_the_tables() -> None:
    """The rules section of docs/contract.md equals what the rule tables render."""
    text = (ROOT / "docs/contract.md").read_text()
    assert update(text) == text, "stale: run python -m mockhttp.contract._docs docs/contract.md"


def test_every_rule_is_documented_once() -> None:
    """Each rule id of every profile has exactly one section in docs/contract.md."""
    text = (ROOT / "docs/contract.md").read_text()
    for rule_id in {rule.id for table in PROFILES.values() for rule in table}:
        assert text.count(f"### `{rule_id}`") == 1, rule_id


def test_rendered_rules_say_what_why_and_who() -> None:
    """Each rendered rule section has its severity, profiles, check, reason and providers."""
    rendered = render_rules()
    section = rendered[rendered.index("### `openai.done`") :].split("\n\n### ")[0]
    assert "*violation* · profiles: `openai-chat`" in section
    for label in ("**Checks:**", "**Why clients depend on it:**", "**Providers known to differ:**"):
        assert label in section


def test_update_without_markers_is_an_error() -> None:
    """Regenerating a page that lacks the markers says which markers to add."""
    with pytest.raises(ValueError, match="markers not found"):
        update("# no markers here\n")
    assert update(f"a\n{BEGIN}\nold\n{END}\nb").startswith(f"a\n{BEGIN}\n\n| profile |")


@pytest.mark.parametrize("module", ["mockhttp.sse", "mockhttp.contract"])
def test_module_docstring_example_runs(module: str) -> None:
    """The example in the public module's docstring runs as written."""
    doc = importlib.import_module(module).__doc__ or ""
    (code,) = BLOCK.findall(doc)
    exec(compile(code, f"{module} docstring", "exec"), {})


def test_as_option_lists_the_catalogue_providers() -> None:
    """The ``--as PROVIDER`` bullet names exactly the catalogue's providers, in its order."""
    from mockhttp.contract._providers import PROVIDERS

    text = " ".join((ROOT / "docs/contract.md").read_text().split())
    bullet = text[text.index("**`--as PROVIDER`**") :].split("- **")[0]
    listed = re.findall(r"`([a-z-]+)`", bullet[bullet.index("known to differ") :])
    assert listed[: len(PROVIDERS)] == list(PROVIDERS)


@pytest.mark.parametrize(("command", "output"), console_examples("docs/contract.md"))
def test_console_examples_print_what_is_shown(command: str, output: str) -> None:
    """The page's ``$ mockhttp check …`` prints what it shows (stdout and stderr)."""
    assert run_shown(command) == output
