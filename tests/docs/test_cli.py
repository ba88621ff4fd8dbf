"""docs/cli.md: its commands print what the page shows, and its curl examples work."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess

import httpx
import pytest

from tests.helpers.cli_process import ROOT, Serving, console_examples, run_shown

PAGE = "docs/cli.md"
TEXT = (ROOT / PAGE).read_text()
SHOWN_URL = "http://127.0.0.1:8080"


@pytest.mark.parametrize(("command", "output"), console_examples(PAGE))
def test_console_examples_print_what_is_shown(command: str, output: str) -> None:
    """Each ``$ mockhttp …`` prints the page's output; serve prints the URL, here port 0."""
    args = shlex.split(command)
    if args[1] != "serve":
        assert run_shown(command) == output
        return
    port = args.index("--port")
    assert args[port + 1] == "8080"
    del args[port : port + 2]
    with Serving(*args[2:]) as serving:
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+", serving.url)
        assert output == SHOWN_URL + "\n"
        assert serving.stop() == 0


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_curl_examples_run_in_order() -> None:
    """The page's curl blocks run against the built-in mocks; the JSON shown is the answer."""
    blocks = re.findall(r"^```(sh|json)\n(.*?)^```$", TEXT, re.S | re.M)
    assert len(blocks) >= 6
    with Serving() as serving:
        for kind, block in blocks:
            if kind == "json":
                answer = httpx.get(serving.url + "/__mockhttp/mocks/weather").json()
                assert answer == {**json.loads(block), "id": answer["id"]}
                continue
            done = subprocess.run(
                ["bash", "-euo", "pipefail", "-c", block.replace(SHOWN_URL, serving.url)],
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert done.returncode == 0, f"{block}\n{done.stderr}"
        calls = httpx.get(serving.url + "/__mockhttp/journal").json()["calls"]
    assert calls == []  # the last block reset the journal
