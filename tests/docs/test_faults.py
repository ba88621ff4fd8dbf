"""The fault pages' examples run as written, and the guide's test module is the example file.

As in ``test_docs.py``: a ```python block runs as a script (the blocks of one page share a
namespace, in order), a ```python test block is a pytest module run with the plugin enabled,
a ```python excerpt block must appear verbatim in the example file it is taken from, a
```yaml block is a mock file that must load, and a ```text block shows bytes of the stream.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mockhttp import fault
from mockhttp._mockfile._load import loads
from tests.core.test_fault_support import SEED_BODY
from tests.helpers.modules import run_module, user_code

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["docs/faults.md", "docs/guide-failure-paths.md"]
BLOCK = re.compile(r"^```(python|python test|python excerpt|yaml|text)\n(.*?)^```$", re.S | re.M)
GUIDE_EXAMPLE = ROOT / "examples" / "test_llm_client.py"


def blocks(page: str, kind: str) -> list[str]:
    text = (ROOT / page).read_text()
    return [code for k, code in BLOCK.findall(text) if k == kind]


@pytest.mark.parametrize("page", PAGES)
def test_page_scripts_run(page: str) -> None:
    """Every ```python block of the page runs without error, in order."""
    found = blocks(page, "python")
    assert found or blocks(page, "python test"), f"{page} has no python example"
    with user_code() as namespace:
        for code in found:
            exec(compile(code, f"{page}:example", "exec"), namespace)


@pytest.mark.parametrize("page", PAGES)
def test_page_test_modules_pass(page: str, tmp_path: Path) -> None:
    """Every ```python test block passes as a pytest module with the mockhttp plugin."""
    for i, code in enumerate(blocks(page, "python test")):
        name = f"test_{Path(page).stem.replace('-', '_')}_{i}"
        outcomes, printed = run_module(tmp_path, name, code)
        assert outcomes.get("passed", 0) >= 1, printed
        assert not outcomes.get("failed"), printed
        assert not outcomes.get("errors"), printed


def test_guide_shows_the_example_file_verbatim() -> None:
    """The guide's full listing is examples/test_llm_client.py, byte for byte."""
    listings = blocks("docs/guide-failure-paths.md", "python test")
    assert listings[-1] == GUIDE_EXAMPLE.read_text()


def test_guide_excerpts_come_from_the_example_file() -> None:
    """Each ```python excerpt block of the guide is a verbatim part of the example file."""
    excerpts = blocks("docs/guide-failure-paths.md", "python excerpt")
    assert len(excerpts) >= 9
    source = GUIDE_EXAMPLE.read_text()
    for code in excerpts:
        assert code in source, code


def test_guide_shows_the_bytes_of_a_chunk() -> None:
    """The ```text block of the guide is a line of the stream as it goes out."""
    (text,) = blocks("docs/guide-failure-paths.md", "text")
    assert SEED_BODY.startswith(text.encode())


def test_the_example_file_passes(tmp_path: Path) -> None:
    """examples/test_llm_client.py passes: the seed's three tests and four more."""
    outcomes, printed = run_module(tmp_path, "test_llm_client", GUIDE_EXAMPLE.read_text(), "-v")
    assert outcomes == {"passed": 7}, printed


@pytest.mark.parametrize("page", PAGES)
def test_page_mock_files_load(page: str) -> None:
    """Every ```yaml block is a mock file that loads, and its faults write back the same."""
    for text in blocks(page, "yaml"):
        mocks = loads(text, page)
        assert mocks
        for mock in mocks:
            for f in mock.faults:
                assert fault.from_args(f.to_args()) == f  # type: ignore[attr-defined]
