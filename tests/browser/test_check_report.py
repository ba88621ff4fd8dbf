"""The HTML report of ``mockhttp check --html`` in a real Chromium: the findings are what a
reader sees first, the timeline is drawn with a tick per event, and the page runs no script.

With ``MOCKHTTP_DOCS_SCREENSHOTS=1`` the screenshot is also written to
``docs/img/check-report.png`` (the picture docs/contract.md shows).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from mockhttp.contract import Transcript, evaluate, format_html
from mockhttp.contract._transcript import Chunk
from tests.contract.test_html import LAST, REQUEST, stream
from tests.helpers.cli_process import ROOT


def test_the_report_reads_findings_first(chromium: Any, tmp_path: Path) -> None:
    bad = b"data: {not json}\n\n"
    body = stream(b"Hel", b"lo, ", b"world").replace(LAST, bad + LAST)
    times = [0.012, 0.140, 0.210, 0.260, 0.520]
    pieces = [body[i : i + 120] for i in range(0, len(body), 120)]
    chunks = tuple(Chunk(p, times[min(i, len(times) - 1)]) for i, p in enumerate(pieces))
    transcript = Transcript(200, (("content-type", "text/event-stream"),), chunks, REQUEST)
    report = tmp_path / "report.html"
    report.write_text(format_html([evaluate(transcript, "openai-chat")]))
    page = chromium.new_page()
    try:
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(report.as_uri())
        headings = page.locator("h3").all_inner_texts()
        assert headings[0].startswith("Findings")
        assert headings[1] == "Timeline"
        first = page.locator("ol.findings li").first.inner_text()
        assert first.startswith("VIOLATION")
        assert "openai.json" in first
        assert page.locator("svg line.hit").count() == 1
        assert page.locator("svg line.tick").count() == 5
        assert page.evaluate("document.scripts.length") == 0
        assert errors == []
        shot = page.screenshot(full_page=True)
        assert shot[:8] == b"\x89PNG\r\n\x1a\n"
        if os.environ.get("MOCKHTTP_DOCS_SCREENSHOTS") == "1":
            (ROOT / "docs" / "img" / "check-report.png").write_bytes(shot)
    finally:
        page.close()
