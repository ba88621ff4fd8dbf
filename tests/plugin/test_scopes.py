"""The pytest plugin: fixtures for every scope, per-test options, one teardown message."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.helpers.cli_process import ROOT

pytest_plugins = ["pytester"]
RUN = ("-p", "mockhttp", "-p", "no:cacheprovider")


def test_module_and_session_servers_keep_their_mocks(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_a_shared="""
        import httpx
        import mockhttp
        import pytest

        @pytest.fixture(scope="module")
        def models(mockhttp_module_server):
            return mockhttp_module_server.mock(mockhttp.get("/v1/models"))

        def test_one(mockhttp_module_server, models):
            httpx.get(mockhttp_module_server.url + "/v1/models")
            assert models.call_count == 1

        def test_two(mockhttp_module_server, models):
            httpx.get(mockhttp_module_server.url + "/v1/models")
            assert models.call_count == 2  # the mock and its calls survive

        @pytest.mark.mockhttp(reset_journal=True)
        def test_three(mockhttp_module_server, models):
            assert (models.call_count, len(mockhttp_module_server.journal)) == (0, 0)
            httpx.get(mockhttp_module_server.url + "/v1/models")
            models.assert_called_once()

        @pytest.fixture(scope="session")
        def health(mockhttp_session_server):
            return mockhttp_session_server.mock(mockhttp.get("/health"))

        def test_session(mockhttp_session_server, health, mockhttp_module_server):
            assert mockhttp_session_server is not mockhttp_module_server
            assert httpx.get(mockhttp_session_server.url + "/health").status_code == 200
        """,
        test_then_another_module="""
        import httpx

        def test_a_new_module_server(mockhttp_module_server, mockhttp_session_server):
            assert mockhttp_module_server.mocks == ()
            assert len(mockhttp_session_server.mocks) == 1
            assert httpx.get(mockhttp_session_server.url + "/health").status_code == 200
        """,
    )
    result = pytester.runpytest(*RUN, "-p", "no:randomly")
    result.assert_outcomes(passed=5)


def test_unmatched_on_a_shared_server_fails_that_test_only(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import httpx

        def test_miss(mockhttp_module_server):
            httpx.get(mockhttp_module_server.url + "/nothing")

        def test_after(mockhttp_module_server):
            pass
        """
    )
    result = pytester.runpytest(*RUN)
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(["*ERROR at teardown of test_miss*"])


def test_a_teardown_failure_is_printed_once(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import httpx

        def test_unmatched(mockhttp_server):
            httpx.get(mockhttp_server.url + "/b")
        """
    )
    result = pytester.runpytest(*RUN)
    result.assert_outcomes(passed=1, errors=1)
    out = result.stdout.str().split("short test summary info")[0]  # CI=true: summary repeats it
    assert out.count("no mock matched GET /b") == 1, out
    assert "During handling of the above exception" not in out


def test_assert_all_called_option(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import httpx
        import mockhttp
        import pytest

        @pytest.mark.mockhttp(assert_all_called=True)
        def test_one_unused(mockhttp_server):
            mockhttp_server.mock(mockhttp.get("/used"), mockhttp.get("/unused", name="spare"))
            httpx.get(mockhttp_server.url + "/used")

        @pytest.mark.mockhttp(assert_all_called=True)
        def test_all_used(mockhttp_server):
            mockhttp_server.mock(mockhttp.get("/used"))
            httpx.get(mockhttp_server.url + "/used")
        """
    )
    result = pytester.runpytest(*RUN)
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(["*1 mock of 2 never called:*", "*mock 'spare'*"])


def test_admin_option_serves_the_admin_api_for_the_test(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import httpx
        import pytest

        @pytest.mark.mockhttp(admin=True)
        def test_admin(mockhttp_server):
            added = httpx.post(
                mockhttp_server.url + "/__mockhttp/mocks", content="request: {path: /x}",
                headers={"Content-Type": "application/yaml"},
            )
            assert added.status_code == 201
            assert httpx.get(mockhttp_server.url + "/x").status_code == 200

        @pytest.mark.mockhttp(allow_unmatched=True)
        def test_no_admin(mockhttp_server):
            assert mockhttp_server.admin is None
            assert httpx.get(mockhttp_server.url + "/__mockhttp/mocks").status_code == 404
        """
    )
    result = pytester.runpytest(*RUN, "-p", "no:randomly")
    result.assert_outcomes(passed=2)


def test_the_example_runs_as_its_docstring_says_from_the_checkout() -> None:
    """``pytest examples/test_llm_client.py`` from the checkout, with the project's options."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "examples/test_llm_client.py",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "7 passed" in done.stdout
