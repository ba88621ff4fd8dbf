"""Per-test isolation under ``mockhttp serve --workers 2``: a test's mocks are on every
worker, its sequence is counted by the supervisor for that test alone (whichever worker
answers), its journal is merged from every worker and holds only its calls, and its
reset leaves the other tests (real processes; a fresh connection per request: the kernel
hands each to one worker or the other, and the journal says which)."""

from __future__ import annotations

import os
import signal
import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.helpers.cli_process import Serving
from tests.server.test_workers import children

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


def _admin(url: str, path: str, key: str) -> Any:
    """``GET /__mockhttp/PATH``'s ``key`` (a 200 asserted)."""
    got = httpx.get(f"{url}/__mockhttp/{path}", timeout=60)
    assert got.status_code == 200, got.text
    return got.json()[key]


def _journal(url: str, test: str) -> list[dict[str, object]]:
    calls: list[dict[str, object]] = _admin(url, f"journal?test={test}", "calls")
    return calls


@contextmanager
def _two_workers(tmp_path: Path, mocks: str) -> Iterator[Serving]:
    """``mockhttp serve --workers 2`` on the mock file ``mocks``, once both listen."""
    path = tmp_path / "mocks.yaml"
    path.write_text(mocks)
    with Serving(str(path), "--workers", "2", "--quiet") as serving:
        serving.wait_for_log("with 2 workers")
        yield serving


def test_isolation_holds_across_workers(tmp_path: Path) -> None:
    with _two_workers(tmp_path, SHARED) as serving:
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


SCENARIO = textwrap.dedent(
    """\
    - request: {method: POST, path: /login}
      scenario: {name: auth, next_state: in}
      response: {status: 200, body: welcome}
    - request: {method: POST, path: /logout}
      scenario: {name: auth, state: in, next_state: Started}
      response: {status: 200, body: bye}
    - request: {method: GET, path: /me}
      scenario: {name: auth, state: in}
      response: {status: 200, body: me}
    """
)


def _states(url: str, test: str | None) -> dict[str, str]:
    states: dict[str, str] = _admin(
        url, "scenarios" + ("" if test is None else f"?test={test}"), "scenarios"
    )
    return states


def test_a_scenario_state_set_by_hand_is_every_workers(tmp_path: Path) -> None:
    """``PUT /__mockhttp/scenarios/auth/state`` for test a (and for the shared side) is
    the supervisor's state: requests either worker serves see it, other tests do not,
    and a worker started later does not play the move again (it would undo the moves
    made since)."""
    with _two_workers(tmp_path, SCENARIO) as serving:
        url = serving.url
        state = url + "/__mockhttp/scenarios/auth/state"
        moved = httpx.put(state, json={"state": "in"}, headers={H: "a"}, timeout=60)
        assert moved.status_code == 200, moved.text
        assert moved.json() == {"scenario": "auth", "state": "in"}
        assert _states(url, "a") == {"auth": "in"}
        assert _states(url, "b") == _states(url, None) == {"auth": "Started"}

        for _ in range(TRIES):  # fresh connections, until both workers answered test a
            assert _get(url, "/me", "a").text == "me"
            assert _get(url, "/me", "b").status_code == 404
            assert _get(url, "/me", None).status_code == 404
            if {c["worker"] for c in _journal(url, "a")} == {0, 1}:
                break
        assert {c["worker"] for c in _journal(url, "a")} == {0, 1}

        shared = httpx.put(state, json={"state": "in"}, timeout=60)  # the shared side's
        assert shared.status_code == 200, shared.text
        assert {_get(url, "/me", None).text for _ in range(10)} == {"me"}
        assert _get(url, "/me", "b").status_code == 404  # b's own state: still Started

        unknown = httpx.put(url + "/__mockhttp/scenarios/auht/state", json={"state": "in"})
        assert unknown.status_code == 404
        assert "did you mean 'auth'?" in unknown.json()["error"]["message"]

        # a's scenario moves on by a request; a worker started later keeps that move
        assert httpx.post(url + "/logout", headers={H: "a"}, timeout=60).text == "bye"
        assert _states(url, "a") == {"auth": "Started"}
        victim = min(children(serving.proc.pid))
        os.kill(victim, signal.SIGKILL)
        serving.wait_for_log("restarted")
        assert _states(url, "a") == {"auth": "Started"}
        assert {_get(url, "/me", "a").status_code for _ in range(10)} == {404}
        assert _states(url, None) == {"auth": "in"}
