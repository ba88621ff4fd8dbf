"""The pytest plugin, run in pytester sessions with the plugin enabled."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]


def test_fixture_serves_and_resets_between_tests(pytester: pytest.Pytester) -> None:
    """mockhttp_server is a running server, empty at the start of each test."""
    pytester.makepyfile(
        """
        import httpx
        import mockhttp

        def test_one(mockhttp_server):
            mock = mockhttp_server.mock(mockhttp.get("/a").reply(mockhttp.ok().body("x")))
            assert httpx.get(mockhttp_server.url + "/a").text == "x"
            mock.assert_called_once()

        def test_two(mockhttp_server):
            assert mockhttp_server.mocks == ()
            assert len(mockhttp_server.journal) == 0
        """
    )
    result = pytester.runpytest("-p", "mockhttp", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


def test_unmatched_request_fails_the_test_at_teardown(pytester: pytest.Pytester) -> None:
    """A request no mock matched fails the test, with the closest mock explained."""
    pytester.makepyfile(
        """
        import httpx
        import mockhttp
        import pytest

        def test_unmatched(mockhttp_server):
            mockhttp_server.mock(mockhttp.get("/a"))
            httpx.get(mockhttp_server.url + "/b")

        @pytest.mark.mockhttp(allow_unmatched=True)
        def test_allowed(mockhttp_server):
            httpx.get(mockhttp_server.url + "/b")
        """
    )
    result = pytester.runpytest("-p", "mockhttp", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*1 request(s) matched no mock:*",
            "*no mock matched GET /b*",
            "*path: got '/b', expected '/a'*",
        ]
    )


def test_plugin_is_registered_by_entry_point() -> None:
    """Installing mockhttp registers the plugin under the pytest11 entry point."""
    from importlib.metadata import entry_points

    names = {ep.name: ep.value for ep in entry_points(group="pytest11")}
    assert names["mockhttp"] == "mockhttp.pytest_plugin"


def test_mockfile_marker_loads_mock_files(pytester: pytest.Pytester) -> None:
    """@pytest.mark.mockhttp(mockfile=...) registers a file's mocks before the test."""
    pytester.makefile(
        ".yaml",
        models="request: {method: GET, path: /v1/models}\nresponse: {json: {data: []}}\n",
    )
    pytester.makepyfile(
        """
        import httpx
        import pytest

        @pytest.mark.mockhttp(mockfile="models.yaml")
        def test_models(mockhttp_server):
            assert httpx.get(mockhttp_server.url + "/v1/models").json() == {"data": []}
            mockhttp_server.mocks[0].assert_called_once()
        """
    )
    result = pytester.runpytest("-p", "mockhttp", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_a_mock_from_a_file_is_verified_by_its_name(pytester: pytest.Pytester) -> None:
    """``mockhttp_server.named(...)``: the handle of a mock the marker loaded from a file."""
    pytester.makefile(
        ".yaml",
        mocks="name: models\nrequest: {method: GET, path: /v1/models}\n"
        "response: {json: {data: []}}\n---\n"
        "name: chat\nrequest: {method: POST, path: /v1/chat}\nresponse: {status: 204}\n",
    )
    pytester.makepyfile(
        """
        import threading

        import httpx
        import pytest

        @pytest.mark.mockhttp(mockfile="mocks.yaml")
        def test_models(mockhttp_server):
            url = mockhttp_server.url
            threading.Thread(target=httpx.post, args=(url + "/v1/chat",)).start()
            mockhttp_server.named("chat").wait_for_calls(1)
            httpx.get(url + "/v1/models")
            mockhttp_server.named("models").assert_called_once()
        """
    )
    result = pytester.runpytest("-p", "mockhttp", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_misspelled_marker_option_fails_the_test(pytester: pytest.Pytester) -> None:
    """An unknown @pytest.mark.mockhttp option is an error, not silently ignored."""
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.mockhttp(allow_unmatch=True)
        def test_x(mockhttp_server):
            pass
        """
    )
    result = pytester.runpytest("-p", "mockhttp", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.re_match_lines([r".*takes keyword options .*, not \['allow_unmatch'\]"])


def test_the_marker_turns_cors_on_for_one_test(pytester: pytest.Pytester) -> None:
    """``@pytest.mark.mockhttp(cors=ORIGIN)``: CORS during that test only."""
    pytester.makepyfile(
        """
        import httpx
        import mockhttp
        import pytest

        PAGE = {"Origin": "http://localhost:3000"}

        @pytest.mark.mockhttp(cors="http://localhost:3000")
        def test_on(mockhttp_server):
            mockhttp_server.mock(mockhttp.get("/a").reply(mockhttp.ok().body("x")))
            got = httpx.get(mockhttp_server.url + "/a", headers=PAGE)
            assert got.headers["access-control-allow-origin"] == "http://localhost:3000"

        def test_off_again(mockhttp_server):
            mockhttp_server.mock(mockhttp.get("/a").reply(mockhttp.ok().body("x")))
            got = httpx.get(mockhttp_server.url + "/a", headers=PAGE)
            assert "access-control-allow-origin" not in got.headers
        """
    )
    result = pytester.runpytest("-p", "mockhttp", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


def test_mockhttp_ui_serves_the_dashboard_and_prints_its_url(pytester: pytest.Pytester) -> None:
    """``--mockhttp-ui``: the fixtures' servers serve the dashboard, watched from the start
    (a stream's timeline has its plan), and its URL is printed."""
    pytester.makepyfile(
        """
        import httpx
        import mockhttp

        def test_dashboard(mockhttp_server):
            events = [mockhttp.Event(data="a"), mockhttp.Event(data="b")]
            mockhttp_server.mock(
                mockhttp.get("/s").reply(mockhttp.ok().event_stream(*events, event_delay=0.01))
            )
            httpx.get(mockhttp_server.url + "/s")
            assert httpx.get(mockhttp_server.url + "/__mockhttp/ui/").status_code == 200
            (call,) = httpx.get(mockhttp_server.url + "/__mockhttp/journal").json()["calls"]
            planned = [e["planned_ms"] for e in call["timeline"]["events"]]
            assert planned == [0.0, 10.0]

        def test_the_next_test_still_has_it(mockhttp_server):
            assert httpx.get(mockhttp_server.url + "/__mockhttp/ui/").status_code == 200
        """
    )
    result = pytester.runpytest("-p", "mockhttp", "-p", "no:cacheprovider", "--mockhttp-ui")
    result.assert_outcomes(passed=2)
    result.stdout.re_match_lines([r"mockhttp: dashboard at http://127\.0\.0\.1:\d+/__mockhttp/ui/"])


def test_without_mockhttp_ui_there_is_no_dashboard(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import httpx

        def test_none(mockhttp_server):
            assert mockhttp_server.admin is None
        """
    )
    result = pytester.runpytest("-p", "mockhttp", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert "dashboard at" not in result.stdout.str()
