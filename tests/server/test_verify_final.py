"""A call's record is final once the client has the reply; waiting from async code;
``assert_all_called``."""

from __future__ import annotations

import asyncio
import threading
import time

import httpx
import pytest

import mockhttp
from mockhttp import Event, VerificationError


def test_outcome_is_final_when_the_client_has_a_plain_reply(server: mockhttp.Server) -> None:
    mock = server.mock(mockhttp.get("/x").reply(mockhttp.ok().json({"a": 1})))
    with httpx.Client() as client:
        for i in range(200):
            assert client.get(server.url + "/x").json() == {"a": 1}
            last = mock.calls.last
            assert (last.outcome, last.body_bytes) == ("complete", 7), f"request {i}"


def test_outcome_is_final_when_the_client_has_a_stream(server: mockhttp.Server) -> None:
    mock = server.mock(
        mockhttp.post("/s").reply(mockhttp.ok().event_stream(Event(data="a"), Event(data="b")))
    )
    with httpx.Client() as client:
        for i in range(200):
            with client.stream("POST", server.url + "/s") as response:
                body = response.read()
            assert body == b"data: a\n\ndata: b\n\n"
            last = mock.calls.last
            assert (last.outcome, last.events) == ("complete", 2), f"request {i}"


def test_outcome_is_final_for_an_unmatched_request(server: mockhttp.Server) -> None:
    with httpx.Client() as client:
        for i in range(100):
            assert client.get(server.url + "/none").status_code == 404
            assert server.journal.last.outcome == "complete", f"request {i}"


def test_outcome_of_a_stream_with_pauses_is_final(server: mockhttp.Server) -> None:
    mock = server.mock(
        mockhttp.get("/p").reply(
            mockhttp.ok().event_stream(Event(data="a"), Event(data="b"), event_delay=0.001)
        )
    )
    with httpx.Client() as client:
        for i in range(50):
            client.get(server.url + "/p").read()
            assert mock.calls.last.outcome == "complete", f"request {i}"


def test_wait_for_calls_async_lets_a_client_on_the_same_loop_run(server: mockhttp.Server) -> None:
    mock = server.mock(mockhttp.get("/x"))

    async def main() -> int:
        async with httpx.AsyncClient() as client:

            async def later() -> None:
                await asyncio.sleep(0.05)
                await client.get(server.url + "/x")
                await client.get(server.url + "/x")

            task = asyncio.create_task(later())
            calls = await mock.wait_for_calls_async(2, timeout=5)
            await task
            return len(calls)

    assert asyncio.run(main()) == 2


def test_wait_for_calls_async_times_out_with_the_journal(server: mockhttp.Server) -> None:
    mock = server.mock(mockhttp.get("/x"))
    with pytest.raises(VerificationError, match=r"to be called once within 0.05 s"):
        asyncio.run(mock.wait_for_calls_async(1, timeout=0.05))


def _soon(*urls: str) -> threading.Thread:
    """A client on another thread: GETs ``urls`` after a moment."""

    def run() -> None:
        time.sleep(0.1)
        for url in urls:
            httpx.get(url, timeout=10)

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_blocking_waits_inside_a_running_loop_whose_clients_are_elsewhere(
    server: mockhttp.Server,
) -> None:
    """A thread with a running loop (Jupyter's, or one a sync API marks running) may block:
    the server runs on its own thread, the client on another."""
    mock = server.mock(mockhttp.get("/x"))
    feed = server.mock(mockhttp.get("/feed").reply(mockhttp.pushed()))

    async def main() -> tuple[int, int]:
        client = _soon(server.url + "/x", server.url + "/x")
        calls = mock.wait_for_calls(2, timeout=10)
        client.join(10)
        streams = threading.Thread(target=httpx.get, args=(server.url + "/feed",))
        streams.start()
        stream = feed.wait_connected(timeout=10)
        feed.close()
        streams.join(10)
        return len(calls), stream.call.status or 0

    assert asyncio.run(main()) == (2, 200)


def test_a_blocking_wait_that_times_out_in_a_loop_names_the_awaitable(
    server: mockhttp.Server,
) -> None:
    mock = server.mock(mockhttp.get("/x"))
    feed = server.mock(mockhttp.get("/feed").reply(mockhttp.pushed()))

    async def main() -> None:
        mock.wait_for_calls(1, timeout=0.1)

    async def connected() -> None:
        feed.wait_connected(timeout=0.1)

    with pytest.raises(VerificationError, match=r"await mock.wait_for_calls_async\(n, timeout\)"):
        asyncio.run(main())
    with pytest.raises(VerificationError, match=r"await mock.wait_connected_async\(n, timeout\)"):
        asyncio.run(connected())
    with pytest.raises(VerificationError) as plain:  # no loop: nothing to say of one
        mock.wait_for_calls(1, timeout=0.05)
    assert "blocked the event loop" not in str(plain.value)


def test_a_blocking_wait_on_the_servers_own_loop_is_refused(server: mockhttp.Server) -> None:
    """A handler runs on the server's loop: waiting there would freeze what it waits for."""
    other = server.mock(mockhttp.get("/other"))
    said: list[str] = []

    def handler(request: mockhttp.Request) -> mockhttp.Reply:
        try:
            other.wait_for_calls(1, timeout=60)
        except mockhttp.ConfigError as exc:
            said.append(str(exc))
        return mockhttp.ok()

    server.mock(mockhttp.get("/wait").respond_with(handler))
    start = time.monotonic()
    assert httpx.get(server.url + "/wait", timeout=10).status_code == 200
    assert time.monotonic() - start < 30  # refused at once, not after the 60 s timeout
    [message] = said
    assert "called on the server's own event loop" in message
    assert "await mock.wait_for_calls_async(n, timeout)" in message


def test_blocking_waits_in_a_playwright_sync_session(server: mockhttp.Server) -> None:
    """Playwright's sync API leaves its loop marked running on the test's thread (the style
    of docs/browsers.md): ``wait_for_calls`` and ``wait_connected`` work there."""
    sync_api = pytest.importorskip("playwright.sync_api")
    mock = server.mock(mockhttp.get("/x"))
    feed = server.mock(mockhttp.get("/feed").reply(mockhttp.pushed()))
    with sync_api.sync_playwright():
        asyncio.get_running_loop()  # marked running, as the issue says
        client = _soon(server.url + "/x")
        assert len(mock.wait_for_calls(1, timeout=10)) == 1
        client.join(10)
        streams = threading.Thread(target=httpx.get, args=(server.url + "/feed",))
        streams.start()
        assert feed.wait_connected(timeout=10).call.status == 200
        feed.close()
        streams.join(10)


def test_assert_all_called_names_the_mocks_never_called(server: mockhttp.Server) -> None:
    server.mock(mockhttp.get("/a", name="used"))
    server.mock(mockhttp.get("/b", name="unused"))
    server.mock(mockhttp.get("/c"))
    httpx.get(server.url + "/a")
    with pytest.raises(VerificationError) as raised:
        server.assert_all_called()
    message = str(raised.value)
    assert message.startswith("2 mocks of 3 never called:\n  mock GET /c\n  mock 'unused'\n")
    assert "1. GET /a → mock 'used' (200), complete" in message
    httpx.get(server.url + "/b")
    httpx.get(server.url + "/c")
    server.assert_all_called()


@pytest.mark.asyncio
async def test_wait_for_calls_async_in_a_pytest_asyncio_test(server: mockhttp.Server) -> None:
    """The suite runs with pytest-asyncio installed (a test extra), as users' suites do."""
    mock = server.mock(mockhttp.get("/x"))
    async with httpx.AsyncClient() as client:
        task = asyncio.create_task(client.get(server.url + "/x"))
        await mock.wait_for_calls_async(1, timeout=5)
        assert (await task).status_code == 200
