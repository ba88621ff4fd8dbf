"""The quirk and provider catalogue: plain data owned by contract, read by name."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest

from mockhttp import ConfigError
from mockhttp._core._errors import UnknownNameError
from mockhttp.contract import PROFILES, Transcript, check, rules
from mockhttp.contract._catalogue import QUIRKS, Quirk, quirk
from mockhttp.contract._providers import PROVIDERS, Provider, documented, provider


def test_records_are_plain_data() -> None:
    """Every field of every quirk and provider is text, a tuple or a mapping of them."""
    records: list[Quirk | Provider] = [*QUIRKS.values(), *PROVIDERS.values()]
    for record in records:
        for f in dataclasses.fields(record):
            value = getattr(record, f.name)
            assert not callable(value), (record, f.name)
            items = value.values() if isinstance(value, dict) else [value]
            for item in items:
                assert isinstance(item, str | tuple | dict), (record, f.name, item)


def test_provider_bundles_name_catalogued_non_error_quirks() -> None:
    """A bundle's quirks are in the catalogue, none is an error quirk, its options are its own."""
    for preset in PROVIDERS.values():
        assert preset.name == preset.name.lower()
        for q in preset.quirks:
            assert quirk(q).layer != "error", (preset.name, q)
            assert preset.kind in quirk(q).kinds, (preset.name, q)
        assert set(preset.options) <= set(preset.quirks), preset.name


def test_lookups_are_case_insensitive() -> None:
    assert quirk("q-crlf") is QUIRKS["Q-CRLF"]
    assert provider("GROQ") is PROVIDERS["groq"]


@pytest.mark.parametrize(
    ("look_up", "message"),
    [
        (lambda: quirk("Q-CRLFF"), "unknown quirk 'Q-CRLFF' — did you mean 'Q-CRLF'?"),
        (lambda: provider("grok"), "unknown provider 'grok' — did you mean 'groq'?"),
        (lambda: rules("openai"), "unknown profile 'openai' — did you mean 'openai-chat'?"),
        (
            lambda: check(Transcript.from_body(b""), as_="nope"),
            "unknown provider 'nope'\nknown providers: ",
        ),
    ],
)
def test_unknown_names_raise_one_error_style(look_up: object, message: str) -> None:
    """Quirks, providers and profiles fail alike: UnknownNameError, a ConfigError."""
    with pytest.raises(UnknownNameError) as caught:
        look_up()  # type: ignore[operator]
    assert isinstance(caught.value, ConfigError)
    assert str(caught.value).startswith(message)


def test_profiles_read_as_a_mapping() -> None:
    """PROFILES is a registry that reads like the dict it was: names, items, []."""
    assert next(iter(PROFILES)) == "openai-chat"
    assert "gemini" in PROFILES
    assert "nope" not in PROFILES
    assert dict(PROFILES.items())["gemini"] == PROFILES["gemini"]
    assert len(PROFILES) == len(PROFILES.keys()) >= 9  # mcp, a2a, ag-ui, sse-resume...
    assert "sse-resume" in PROFILES


def test_documented_maps_rules_to_the_bundle_quirks() -> None:
    notes = documented("groq")
    assert notes["openai.usage-chunk"] == ("Q-USAGE-ON-FINISH",)
    assert {q for ids in notes.values() for q in ids} == set(PROVIDERS["groq"].quirks)


def test_contract_imports_no_llm_module() -> None:
    """Checking with as_= loads the catalogue, not mockhttp.llm (contract is below llm)."""
    code = (
        "import sys\n"
        "from mockhttp.contract import Transcript, check\n"
        "check(Transcript.from_body(b'data: [DONE]\\n\\n'), as_='groq')\n"
        "print(sorted(m for m in sys.modules if m.startswith('mockhttp.llm')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_check_help_lists_the_catalogue_providers() -> None:
    """``mockhttp check --help`` names the providers from the one catalogue."""
    out = subprocess.run(
        [sys.executable, "-m", "mockhttp.contract", "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    listing = " ".join(out.stdout.split())
    assert f"({', '.join(PROVIDERS)})" in listing
