"""The suite's guard: a test that leaves an HTTP client open with a live socket fails at its
own teardown (tests/helpers/open_clients.py), not some later test."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

import mockhttp
from tests.helpers.open_clients import open_sockets

KEPT: list[httpx.Client] = []  # the leaky inner test's client, closed here after the run


@pytest.fixture
def url() -> Iterator[str]:
    with mockhttp.Server() as server:
        server.mock(mockhttp.get("/ok").reply(mockhttp.ok().body("ok")))
        yield server.url
    for client in KEPT:
        client.close()
    KEPT.clear()


def test_a_client_left_open_fails_the_test_that_made_it(
    pytester: pytest.Pytester, url: str
) -> None:
    pytester.makepyfile(
        f"""
        import httpx
        import tests.test_open_clients as outer

        def test_leaves_it_open():
            client = httpx.Client()
            outer.KEPT.append(client)
            assert client.get("{url}/ok").text == "ok"

        def test_closes_it():
            with httpx.Client() as client:
                assert client.get("{url}/ok").text == "ok"

        def test_a_client_that_never_connected_holds_no_socket():
            outer.KEPT.append(httpx.Client())
        """
    )
    result = pytester.runpytest("-p", "tests.helpers.open_clients")
    result.assert_outcomes(passed=3, errors=1)
    result.stdout.fnmatch_lines(
        ["*test_leaves_it_open left 1 HTTP client(s) open with a live socket (Client)*"]
    )
    assert [open_sockets(client) for client in KEPT] == [1, 0]


def test_a_closed_client_has_no_open_socket(url: str) -> None:
    client = httpx.Client()
    client.get(url + "/ok")
    assert open_sockets(client) == 1
    client.close()
    assert open_sockets(client) == 0
