"""The HTML report of ``mockhttp check --html``: findings first with the bytes around each,
the timeline of the stream, everything from the wire escaped, secrets redacted."""

from __future__ import annotations

import os
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

from mockhttp.contract import Transcript, evaluate, format_html
from mockhttp.contract._transcript import Chunk
from tests.helpers.cli_process import ROOT

FIRST = (
    b'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":'
    b'[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}\n\n'
)
CHUNK = (
    b'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":'
    b'[{"index":0,"delta":{"content":"%s"},"finish_reason":null}]}\n\n'
)
LAST = (
    b'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":'
    b'[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n'
)


def stream(*contents: bytes, done: bool = False) -> bytes:
    """A valid chat completion stream of ``contents``; without ``done``, no ``[DONE]``."""
    body = FIRST + b"".join(CHUNK % c for c in contents) + LAST
    return body + (b"data: [DONE]\n\n" if done else b"")


REQUEST = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "hi"}]}


class Page(HTMLParser):
    """The report as a reader sees it: section order, marks, ticks, text."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.order: list[str] = []
        self.marks: list[str] = []
        self.ticks: list[str] = []
        self.tags: list[str] = []
        self._in_mark = 0
        self._in_h3 = False
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self._in_h3 = tag == "h3"
        if tag == "mark":
            self._in_mark += 1
            self.marks.append("")
        if tag == "line" and dict(attrs).get("class") in ("tick", "hit"):
            self.ticks.append(dict(attrs)["class"] or "")

    def handle_endtag(self, tag: str) -> None:
        self._in_mark -= tag == "mark"
        self._in_h3 = self._in_h3 and tag != "h3"

    def handle_data(self, data: str) -> None:
        if self._in_mark:
            self.marks[-1] += data
        if self._in_h3:
            self.order.append(data.split(" ")[0])


def test_findings_come_first_with_the_bytes_around_them() -> None:
    bad = b"data: {not json}\n\n"
    body = stream(b"Hel", b"lo").replace(LAST, bad + LAST)  # and no [DONE]
    timed = Transcript(200, (("content-type", "text/event-stream"),),
                       (Chunk(body[:150], 0.010), Chunk(body[150:], 0.250)), REQUEST)  # fmt: skip
    outcome = evaluate(timed, "openai-chat")
    located = {f.rule: f.event for f in outcome.findings if f.severity != "note"}
    assert located == {"openai.done": None, "openai.json": 3}
    page = Page(format_html([outcome]))
    assert page.order == ["Findings", "Timeline"]
    assert page.ticks == ["tick", "tick", "tick", "hit", "tick"]
    assert page.marks == ["data: {not json}\\n\n\\n\n", "[end]"]  # the event, the end


def test_without_times_the_timeline_is_by_byte_offset() -> None:
    clean = Transcript.from_body(stream(b"a", b"b", done=True), request=REQUEST)
    outcome = evaluate(clean, "openai-chat")
    text = format_html([outcome])
    assert "by byte offset (the capture has no times)" in text
    assert "None: every rule that ran passed." in text
    assert Page(text).ticks == ["tick"] * 5


def test_wire_text_is_escaped() -> None:
    hostile = b'data: {"x":"</pre><script>alert(1)</script>"}\n\n'
    outcome = evaluate(Transcript.from_body(hostile), "openai-chat")
    page = Page(format_html([outcome]))
    assert "script" not in page.tags
    assert page.marks  # the finding shows its event's bytes, escaped


def test_check_writes_the_report_redacted(tmp_path: Path) -> None:
    body = tmp_path / "body.sse"
    body.write_bytes(stream(b"key sk-live-123456", b"!"))
    out = tmp_path / "report.html"
    env = {**os.environ, "MOCKHTTP_API_KEY": "sk-live-123456"}
    done = subprocess.run(
        [sys.executable, "-m", "mockhttp", "check", "--body", str(body), "--html", str(out)],
        capture_output=True, text=True, cwd=ROOT, env=env, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    text = out.read_text()
    assert "openai.done" in text
    assert "sk-live-123456" not in text


def test_an_unwritable_report_is_a_usage_error(tmp_path: Path) -> None:
    body = tmp_path / "body.sse"
    body.write_bytes(stream(b"a", done=True))
    done = subprocess.run(
        [sys.executable, "-m", "mockhttp", "check", "--body", str(body),
         "--html", str(tmp_path / "missing" / "r.html")],
        capture_output=True, text=True, cwd=ROOT, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert "cannot write --html" in done.stderr
