"""Per-test isolation over HTTP/2 (``_h2.py`` + ``_tests.py``): the streams of several
tests on one connection (h2 over TLS by ALPN, and h2c by prior knowledge), each answered
by its own test's mocks and journaled as its test's call; counts, scenarios, faults,
unmatched requests, handler errors and the admin API per test, on the wire (httpx)."""

from __future__ import annotations

import asyncio

import httpx
import pytest

import mockhttp
from mockhttp import Event, fault

pytest.importorskip("h2.connection")
pytest.importorskip("trustme")

H = "x-mockhttp-test"
EVENTS = [Event(data=f"token {i}", id=str(i)) for i in range(4)]
BODY = b"".join(e.encode() for e in EVENTS)
DELAY = 0.05


def _client(server: mockhttp.Server, tls: bool) -> httpx.AsyncClient:
    if tls:
        return httpx.AsyncClient(verify=server.ssl_context(), http2=True, timeout=60)
    return httpx.AsyncClient(http1=False, http2=True, timeout=60)  # h2c: prior knowledge


def _stream(test: str) -> mockhttp.Reply:
    events = [Event(data=f"{test} {i}", id=str(i)) for i in range(4)]
    return mockhttp.ok().event_stream(*events, event_delay=DELAY)


@pytest.mark.parametrize("tls", [True, False], ids=["tls-alpn", "h2c"])
def test_two_tests_streams_on_one_connection_are_each_their_tests(tls: bool) -> None:
    with mockhttp.Server(http2=True, tls=tls) as server:
        server.mock(mockhttp.get("/who").reply(mockhttp.ok().body("shared")))
        server.mock(mockhttp.get("/events").reply(_stream("shared")))
        a, b = server.test("a"), server.test("b")
        for scope in (a, b):
            scope.mock(mockhttp.get("/who").reply(mockhttp.ok().body(scope.id)))
            scope.mock(mockhttp.get("/events").reply(_stream(scope.id)))
        connections: set[int] = set()

        async def streamed(client: httpx.AsyncClient, url: str, headers: dict[str, str]) -> str:
            async with client.stream("GET", url, headers=headers) as response:
                assert response.http_version == "HTTP/2"
                got = b""
                async for piece in response.aiter_raw():
                    got += piece
                    connections.add(len(server._connections))
                return got.decode()

        async def main() -> list[str]:
            async with _client(server, tls) as client:
                await client.get(server.url + "/who")  # the connection, made once
                plain = [
                    client.get(server.url + "/who", headers=a.headers),
                    client.get(b.prefix_url + "/who"),
                    client.get(server.url + "/who", headers={H: "c"}),  # no mock of its own
                ]
                streams = [
                    streamed(client, server.url + "/events", a.headers),
                    streamed(client, b.prefix_url + "/events", {}),
                    streamed(client, server.url + "/events", b.headers),
                ]
                answers = await asyncio.gather(*plain)
                return [r.text for r in answers] + list(await asyncio.gather(*streams))

        got = asyncio.run(main())
        assert got[:3] == ["a", "b", "shared"]
        assert got[3] == "".join(f"id: {i}\ndata: a {i}\n\n" for i in range(4))
        assert got[4] == got[5] == "".join(f"id: {i}\ndata: b {i}\n\n" for i in range(4))
        assert connections == {1}  # one TCP connection all along
        assert [(c.request.path, c.test, c.test_prefix) for c in a.journal] == [
            ("/who", "a", None),
            ("/events", "a", None),
        ]
        assert sorted((c.request.path, c.test, c.test_prefix or "") for c in b.journal) == [
            ("/events", "b", ""),
            ("/events", "b", "/__test/b"),
            ("/who", "b", "/__test/b"),
        ]
        assert [(c.request.path, c.test) for c in server.test("c").journal] == [("/who", "c")]
        assert [(c.request.path, c.test) for c in server.journal] == [("/who", None)]
        every = [*a.journal, *b.journal, *server.test("c").journal, *server.journal]
        assert {c.request.http_version for c in every} == {"2"}
        assert {c.outcome for c in every} == {"complete"}
        assert [c.events for c in a.journal] == [0, 4]


def test_counts_and_scenarios_are_each_tests_on_one_connection() -> None:
    with mockhttp.Server(http2=True, tls=False) as server:
        server.mock(
            mockhttp.get("/n").replies(mockhttp.ok().body("1"), mockhttp.ok().body("2")),
            mockhttp.post("/login").scenario("auth", next_state="in"),
            mockhttp.get("/me").scenario("auth", state="in"),
        )

        async def main() -> dict[str, list[object]]:
            seen: dict[str, list[object]] = {}
            async with _client(server, False) as client:
                for test in ("a", "b"):
                    headers = {H: test}
                    polls = await asyncio.gather(
                        client.get(server.url + "/n", headers=headers),
                        client.get(server.url + "/n", headers=headers),
                    )
                    before = await client.get(server.url + "/me", headers=headers)
                    await client.post(server.url + f"/__test/{test}/login")
                    after = await client.get(server.url + "/me", headers=headers)
                    seen[test] = [
                        sorted(r.text for r in polls),
                        before.status_code,
                        after.status_code,
                    ]
            return seen

        seen = asyncio.run(main())
        assert seen == {"a": [["1", "2"], 404, 200], "b": [["1", "2"], 404, 200]}
        assert server.test("a").scenario_state("auth") == "in"
        assert server.scenario_state("auth") == "Started"  # the shared side's own
        assert len(server.journal) == 0


def test_a_tests_fault_resets_its_stream_only() -> None:
    with mockhttp.Server(http2=True, tls=False) as server:
        whole = mockhttp.ok().event_stream(*EVENTS, event_delay=DELAY)
        server.mock(mockhttp.get("/events").reply(whole))
        cut = server.test("a").mock(
            mockhttp.get("/events").reply(whole).pipe(fault.reset_after_events(2))
        )

        async def one(client: httpx.AsyncClient, test: str) -> tuple[bytes, object]:
            got = b""
            try:
                async with client.stream("GET", server.url + "/events", headers={H: test}) as r:
                    async for piece in r.aiter_raw():
                        got += piece
            except httpx.HTTPError as exc:
                return got, type(exc)
            return got, None

        async def main() -> list[tuple[bytes, object]]:
            async with _client(server, False) as client:
                await client.get(server.url + "/events")
                return list(await asyncio.gather(one(client, "a"), one(client, "b")))

        (a_got, a_error), (b_got, b_error) = asyncio.run(main())
        assert a_got == EVENTS[0].encode() + EVENTS[1].encode()
        assert a_error is httpx.RemoteProtocolError  # the stream's error, not the connection's
        assert (b_got, b_error) == (BODY, None)  # the other test's stream went on
        (a_call,) = server.test("a").journal
        assert (a_call.outcome, a_call.events, a_call.mock) == ("reset", 2, cut.mock)
        (b_call,) = server.test("b").journal
        assert b_call.outcome == "complete"


def test_unmatched_bad_ids_and_errors_are_each_tests() -> None:
    def broken(request: mockhttp.Request) -> mockhttp.Reply:
        raise RuntimeError("boom")

    with mockhttp.Server(http2=True, tls=False) as server:
        server.test("a").mock(mockhttp.get("/boom").respond_with(broken))

        async def main() -> list[httpx.Response]:
            async with _client(server, False) as client:
                return list(
                    await asyncio.gather(
                        client.get(server.url + "/nothing", headers={H: "a"}),
                        client.get(server.url + "/__test/b/nothing"),
                        client.get(server.url + "/boom", headers={H: "a"}),
                        client.get(server.url + "/x", headers={H: "no spaces"}),
                    )
                )

        codes = [r.status_code for r in asyncio.run(main())]
        assert codes == [404, 404, 500, 400]
        assert [c.request.path for c in server.test("a").unmatched] == ["/nothing"]
        assert [c.test_prefix for c in server.test("b").unmatched] == ["/__test/b"]
        assert [c.status for c in server.unmatched] == [400]  # the bad id: the shared side
        assert server.errors == []
        with pytest.raises(RuntimeError, match="boom"):
            server.test("a").check()


def test_the_admin_api_over_http2_takes_the_test_header() -> None:
    mine = "request: {method: GET, path: /who}\nresponse: {status: 200, body: mine}\n"
    yaml = {"content-type": "application/yaml"}
    with mockhttp.Server(http2=True, tls=False, admin=True) as server:
        server.mock(mockhttp.get("/who").reply(mockhttp.ok().body("shared")))
        admin = server.url + "/__mockhttp"

        async def main() -> list[object]:
            async with _client(server, False) as client:
                added = await client.post(admin + "/mocks", content=mine, headers={**yaml, H: "a"})
                assert (added.http_version, added.status_code) == ("HTTP/2", 201)
                who = await asyncio.gather(
                    client.get(server.url + "/who", headers={H: "a"}),
                    client.get(server.url + "/who", headers={H: "b"}),
                )
                journal = (await client.get(admin + "/journal", headers={H: "a"})).json()
                reset = await client.post(admin + "/reset", headers={H: "a"})
                again = await client.get(server.url + "/__test/a/who")
                return [[r.text for r in who], journal, reset.status_code, again.text]

        who, journal, reset, again = asyncio.run(main())
        assert who == ["mine", "shared"]
        assert isinstance(journal, dict)
        assert [(c["request"]["path"], c["test"]) for c in journal["calls"]] == [("/who", "a")]
        assert (reset, again) == (200, "shared")
        assert [c.test for c in server.test("b").journal] == ["b"]
