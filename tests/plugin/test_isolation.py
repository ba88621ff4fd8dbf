"""The pytest plugin's per-test isolation: ``mockhttp_test`` (this test's part of the
session server) and ``mockhttp_test_id`` (unique across xdist workers), in pytester
sessions, under ``-n 2`` too, and against one ``mockhttp serve`` that the workers share."""

from __future__ import annotations

import re

import pytest

from mockhttp.pytest_plugin import node_test_id
from tests.helpers.cli_process import Serving

pytest_plugins = ["pytester"]
RUN = ("-p", "mockhttp", "-p", "no:cacheprovider", "-p", "no:randomly")


def test_node_test_id_holds_the_worker_and_a_hash() -> None:
    first = node_test_id("tests/test_a.py::test_one[x/y z]", "gw1")
    assert re.fullmatch(r"gw1-[0-9a-f]{16}", first)
    assert node_test_id("tests/test_a.py::test_one[x/y z]", "gw1") == first
    assert node_test_id("tests/test_a.py::test_one[x/y z]", "gw0") != first
    assert node_test_id("tests/test_a.py::test_two", "gw1") != first


def test_node_test_id_reads_the_xdist_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw7")
    assert node_test_id("t").startswith("gw7-")
    monkeypatch.delenv("PYTEST_XDIST_WORKER")
    assert node_test_id("t").startswith("main-")


TESTS = """
import httpx
import mockhttp
import pytest

@pytest.fixture(scope="session")
def shared(mockhttp_session_server):
    return mockhttp_session_server.mock(mockhttp.get("/who").reply(mockhttp.ok().body("shared")))

@pytest.mark.parametrize("n", range(6))
def test_own(mockhttp_test, shared, n):
    mockhttp_test.mock(mockhttp.get("/who").reply(mockhttp.ok().body(mockhttp_test.id)))
    with httpx.Client(headers=mockhttp_test.headers, timeout=60) as http:
        for _ in range(5):
            assert http.get(mockhttp_test.url + "/who").text == mockhttp_test.id
    assert httpx.get(mockhttp_test.prefix_url + "/who", timeout=60).text == mockhttp_test.id
    assert len(mockhttp_test.journal) == 6
    assert {c.test for c in mockhttp_test.journal} == {mockhttp_test.id}

def test_shared_answers_without_own(mockhttp_test, shared):
    got = httpx.get(mockhttp_test.url + "/who", headers=mockhttp_test.headers, timeout=60)
    assert got.text == "shared"
    assert shared.call_count == 0  # the test's calls are the test's

def test_unmatched_fails_only_this_test(mockhttp_test):
    httpx.get(mockhttp_test.url + "/nothing", headers=mockhttp_test.headers, timeout=60)

@pytest.mark.mockhttp(allow_unmatched=True)
def test_allowed(mockhttp_test):
    httpx.get(mockhttp_test.url + "/nothing", headers=mockhttp_test.headers, timeout=60)
"""


@pytest.mark.parametrize("workers", [None, "2"])
def test_each_test_has_its_own_part_of_the_session_server(
    pytester: pytest.Pytester, workers: str | None
) -> None:
    pytester.makepyfile(test_isolated=TESTS)
    extra = () if workers is None else ("-n", workers)
    result = pytester.runpytest_subprocess(*RUN, *extra)
    # (the unmatched test passes its body, then errs at its teardown, alone)
    result.assert_outcomes(passed=9, errors=1)
    result.stdout.fnmatch_lines(
        ["*ERROR at teardown of test_unmatched_fails_only_this_test*", "*GET /nothing*"]
    )


SHARED_SERVE = """
import os
import httpx
import pytest

URL = os.environ["MOCKHTTP_URL"]
MINE = "request: {method: GET, path: /who}\\nresponse: {status: 200, body: %s}\\n"

@pytest.mark.parametrize("n", range(8))
def test_on_one_serve(mockhttp_test_id, n):
    added = httpx.post(
        URL + "/__mockhttp/mocks?test=" + mockhttp_test_id,
        content=MINE % mockhttp_test_id,
        headers={"content-type": "application/yaml"},
        timeout=60,
    )
    assert added.status_code == 201, added.text
    headers = {"x-mockhttp-test": mockhttp_test_id}
    with httpx.Client(headers=headers, timeout=60) as http:
        for _ in range(5):
            assert http.get(URL + "/who").text == mockhttp_test_id
    journal = URL + "/__mockhttp/journal?test=" + mockhttp_test_id
    calls = httpx.get(journal, timeout=60).json()["calls"]
    assert [c["test"] for c in calls] == [mockhttp_test_id] * 5
    with open(os.environ["IDS_FILE"], "a") as ids:
        ids.write(mockhttp_test_id + "\\n")
"""


def test_xdist_workers_share_one_serve_without_leaking(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_shared_serve=SHARED_SERVE)
    ids_file = pytester.path / "ids.txt"
    with Serving("--quiet") as serving:
        monkeypatch.setenv("MOCKHTTP_URL", serving.url)
        monkeypatch.setenv("IDS_FILE", str(ids_file))
        result = pytester.runpytest_subprocess(*RUN, "-n", "2")
    result.assert_outcomes(passed=8)
    ids = ids_file.read_text().split()
    assert len(ids) == 8
    assert len(set(ids)) == 8
    assert {i.partition("-")[0] for i in ids} <= {"gw0", "gw1"}
