"""Per-test isolation under ``mockhttp serve --workers 2``: a test's mocks are on every
worker, its sequence is counted by the supervisor for that test alone (whichever worker
answers), its journal is merged from every worker and holds only its calls, and its
reset leaves the other tests (real processes; a fresh connection per request: the kernel
hands each to one worker or the other, and the journal says which)."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import httpx
import pytest

from tests.helpers.cli_process import Serving

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="SO_REUSEPORT spreading: Linux"
)

SHARED = textwrap.dedent(
    """\
    - request: {method: GET, path: /who}
      response: {status: 200, body: shared}
    - request: {method: GET, path: /n}
      replies:
        - {status: 200, body: "1"}
        - {status: 200, body: "2"}
        - {status: 200, body: "3"}
    """
)
MINE = "request: {method: GET, path: /who}\nresponse: {status: 200, body: %s}\n"
YAML = {"content-type": "application/yaml"}
H = "x-mockhttp-test"
TRIES = 40  # fresh connections: both workers take one of them but 1 time in 2**39


def _get(url: str, path: str, test: str | None) -> httpx.Response:
    headers = {} if test is None else {H: test}
    return httpx.get(url + path, headers=headers, timeout=60)


def _journal(url: str, test: str) -> list[dict[str, object]]:
    got = httpx.get(url + f"/__mockhttp/journal?test={test}", timeout=60)
    assert got.status_code == 200, got.text
    calls: list[dict[str, object]] = got.json()["calls"]
    return calls


def test_isolation_holds_across_workers(tmp_path: Path) -> None:
    mocks = tmp_path / "shared.yaml"
    mocks.write_text(SHARED)
    with Serving(str(mocks), "--workers", "2", "--quiet") as serving:
        serving.wait_for_log("with 2 workers")
        url = serving.url
        admin = url + "/__mockhttp/mocks"
        by_query = httpx.post(admin + "?test=a", content=MINE % "a", headers=YAML, timeout=60)
        assert by_query.status_code == 201, by_query.text
        by_header = httpx.post(admin, content=MINE % "b", headers={**YAML, H: "b"}, timeout=60)
        assert by_header.status_code == 201, by_header.text

        # a sequence counted per test by the supervisor, whichever worker answers
        assert [_get(url, "/n", "a").text for _ in range(2)] == ["1", "2"]
        assert _get(url, "/n", "b").text == "1"
        assert _get(url, "/n", None).text == "1"
        assert _get(url, "/n", "a").text == "3"

        for _ in range(TRIES):  # until both workers answered each test
            assert _get(url, "/who", "a").text == "a"
            assert _get(url, "/who", "b").text == "b"
            assert _get(url, "/who", None).text == "shared"
            workers = [{c["worker"] for c in _journal(url, t)} for t in ("a", "b")]
            if workers == [{0, 1}, {0, 1}]:
                break
        assert workers == [{0, 1}, {0, 1}]

        a, b = _journal(url, "a"), _journal(url, "b")
        assert {c["test"] for c in a} == {"a"}
        assert {c["test"] for c in b} == {"b"}
        shared = httpx.get(url + "/__mockhttp/journal", timeout=60).json()["calls"]
        assert {c.get("test") for c in shared} == {None}
        assert len(a) + len(b) + len(shared) == 3 + 1 + 1 + 3 * (len(a) - 3)

        # a's reset (by the header) leaves b, and a's sequence starts over
        reset = httpx.post(url + "/__mockhttp/reset", headers={H: "a"}, timeout=60)
        assert reset.status_code == 200, reset.text
        assert _journal(url, "a") == []
        assert len(_journal(url, "b")) == len(b)
        assert _get(url, "/who", "a").text == "shared"
        assert _get(url, "/who", "b").text == "b"
        assert _get(url, "/n", "a").text == "1"
        assert _get(url, "/n", "b").text == "2"
