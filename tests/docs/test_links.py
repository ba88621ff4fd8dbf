"""The docs link only to the project's own files, and every link and named file exists."""

from __future__ import annotations

import re

import pytest

from tests.helpers.cli_process import ROOT

PAGES = ["README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")
NAMED = re.compile(
    r"[`\s]((?:tests|src|examples|docs|bench|scripts)/[\w./-]+\.(?:py|md|yaml|json))[`\s]"
)


@pytest.mark.parametrize("page", PAGES)
def test_links_and_named_files_exist(page: str) -> None:
    path = ROOT / page
    text = path.read_text()
    for target in LINK.findall(text):
        if target.startswith(("http://", "https://", "mailto:", "#")):
            continue
        file = target.split("#")[0]
        assert (path.parent / file).exists(), f"{page} links to {target}, which is not there"
    for named in NAMED.findall(text):
        assert (ROOT / named).exists(), f"{page} names {named}, which is not there"


@pytest.mark.parametrize("page", PAGES)
def test_no_reference_outside_the_project(page: str) -> None:
    text = (ROOT / page).read_text()
    assert "wire-facts" not in text
    assert "/work/" not in text
