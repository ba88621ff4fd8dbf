"""docs/record.md: its examples run as written, its YAML loads, its variant table is current."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import mockhttp
from mockhttp.record import VARIANTS
from tests.helpers.modules import run_module, user_code

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs/record.md"
BLOCK = re.compile(r"^```python( test)?\n(.*?)^```$", re.S | re.M)
YAML = re.compile(r"^```yaml\n(.*?)^```$", re.S | re.M)


def test_the_examples_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    found = BLOCK.findall(PAGE.read_text())
    assert len(found) >= 5
    with user_code() as namespace:
        for number, (is_test, code) in enumerate(found):
            if is_test:
                outcomes, printed = run_module(tmp_path, "test_record_doc", code)
                assert outcomes == {"passed": len(VARIANTS) + 1}, printed
            else:
                exec(compile(code, f"docs/record.md:example {number}", "exec"), namespace)
    printed = capsys.readouterr().out
    assert "recording:\n    writes:\n      - {at: " in printed
    assert "sk-secret-key" not in printed


def test_the_yaml_loads() -> None:
    blocks = YAML.findall(PAGE.read_text())
    assert len(blocks) == 3
    for text in blocks:
        (mock,) = mockhttp.loads(text, "docs/record.md")
        assert isinstance(mock.response, mockhttp.record.Recording)


def test_the_variant_table_lists_every_variant_in_order() -> None:
    text = PAGE.read_text()
    table = text[text.index("<!-- variants:") : text.index("<!-- end variants -->")]
    assert re.findall(r"^\| `(\w+)` \|", table, re.M) == list(VARIANTS)
