"""After the route (``_server/_answer.py``), without sockets: the router ranks the
server's own endpoints first and keeps the scenario states; each routed request is
journaled as its kind says, and planned by the kind chosen in one place."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

import mockhttp
from mockhttp._core._plan import Raw
from mockhttp._core._request import Headers, Request
from mockhttp._core._route import Answer, Choice, Claim, Miss
from mockhttp._server._answer import EXPLAINED_ON_LOOP, Unreachable, hold
from mockhttp._server._journal import Call
from mockhttp._server._runner import Deferred, Plan, Steps, Whole
from mockhttp._server._server import Server
from mockhttp._server._wires import Framing

PLAIN = Framing(False, False, True)


def request(method: str, path: str, *headers: tuple[str, str], body: bytes = b"") -> Request:
    return Request(method, path, Headers(headers), body)


def wire(plan: Plan) -> bytes:
    """The bytes a plan writes (a ``Whole`` or ``Steps``)."""
    if isinstance(plan, Whole):
        return plan.data
    assert isinstance(plan, Steps)
    return b"".join(s.data for s in plan.steps if isinstance(s, Raw))


def dispatch(server: Server, asked: Request) -> tuple[Call, Plan]:
    return server._dispatch(asked, True)


def test_the_router_ranks_the_servers_endpoints_above_a_mock_on_their_path() -> None:
    server = Server()
    server.mock(mockhttp.get("/__mockhttp/health").reply(mockhttp.status(418)))
    found = server._router.route(request("GET", "/__mockhttp/health"))
    assert isinstance(found, Answer)
    assert type(found.entry).__name__ == "Builtin"
    call, plan = dispatch(server, request("GET", "/__mockhttp/health"))
    sent = wire(plan)
    assert sent.startswith(b"HTTP/1.1 200 ")
    assert sent.endswith(b'"mocks":1}')
    assert call.mock is None
    assert len(server.journal) == 0


def test_the_router_keeps_the_scenario_states_it_routes_through() -> None:
    server = Server()
    server.mock(
        mockhttp.get("/s").scenario("flow", None, "two").reply(mockhttp.ok().body("one")),
        mockhttp.get("/s").scenario("flow", "two").reply(mockhttp.ok().body("two")),
    )
    bodies = [wire(dispatch(server, request("GET", "/s"))[1]).split(b"\r\n\r\n")[1] for _ in "ab"]
    assert bodies == [b"one", b"two"]
    assert server.scenario_state("flow") == "two"
    server.reset_scenarios()
    assert server._router.states == {}


def test_a_mocks_call_is_journaled_before_its_plan_and_counted() -> None:
    server = Server()
    [active] = [server.mock(mockhttp.get("/items/{id}").reply(mockhttp.ok().json({"a": 1})))]
    call, plan = dispatch(server, request("GET", "/items/7"))
    assert list(server.journal) == [call]
    assert active.call_count == 1
    assert call.mock is active.mock
    assert call.path_params == {"id": "7"}
    assert call.status == 200
    assert wire(plan).endswith(b'{"a":1}')


def test_a_miss_is_journaled_with_the_unmatched_status_and_explained() -> None:
    server = Server(unmatched_status=418)
    server.mock(mockhttp.get("/a"))
    call, plan = dispatch(server, request("GET", "/b"))
    assert call.status == 418
    assert list(server.journal) == [call]
    assert call.explanation is not None
    assert wire(plan).startswith(b"HTTP/1.1 418 ")


def test_a_miss_among_many_mocks_is_explained_off_the_loop() -> None:
    server = Server()
    server.mock([mockhttp.get(f"/a{i}") for i in range(EXPLAINED_ON_LOOP + 1)])
    call, plan = dispatch(server, request("GET", "/b"))
    assert isinstance(plan, Deferred)
    try:
        code, _steps = plan.wire()  # waits for the explainer thread
        assert code == 404
        assert call.explanation is not None
    finally:
        server._answers.stop()


def test_an_unreachable_state_is_a_503_that_says_why() -> None:
    server = Server()
    server.mock(mockhttp.get("/t").times(1))

    def gone(claims: Sequence[Claim]) -> Choice:
        raise ConnectionError("the supervisor is gone")

    server._router.tally = gone
    routed = server._router.route(request("GET", "/t"))
    assert isinstance(routed, Unreachable)
    call, plan = dispatch(server, request("GET", "/t"))
    assert call.status == 503
    assert list(server.journal)[-1] is call
    assert b"out of reach (the supervisor is gone)" in wire(plan)


def test_a_handler_that_raises_is_a_500_kept_for_check() -> None:
    server = Server()

    def broken(_: Request) -> Any:
        raise RuntimeError("boom")

    server.mock(mockhttp.get("/h").respond_with(broken))
    call, plan = dispatch(server, request("GET", "/h"))
    assert call.status == 500
    assert wire(plan).startswith(b"HTTP/1.1 500 ")
    with pytest.raises(RuntimeError, match="boom"):
        server.check()


def test_cors_headers_go_on_mocks_and_misses_but_not_on_the_admin_api_or_health() -> None:
    server = Server(cors=True, admin=True)
    server.mock(mockhttp.get("/a"))
    origin = ("origin", "http://page.test")
    for path, expected in (("/a", True), ("/nothing", True), ("/__mockhttp/health", False)):
        _, plan = dispatch(server, request("GET", path, origin))
        assert (b"Access-Control-Allow-Origin: http://page.test" in wire(plan)) is expected
    _, admin = dispatch(server, request("GET", "/__mockhttp/mocks", origin))
    assert isinstance(admin, Deferred)
    try:
        _code, steps = admin.wire()
        assert b"Access-Control" not in b"".join(s.data for s in steps if isinstance(s, Raw))
    finally:
        server._answers.stop()


def test_a_preflight_is_kept_in_preflights_not_the_journal() -> None:
    server = Server(cors=["http://page.test"])
    asked = request(
        "OPTIONS",
        "/v1/x",
        ("origin", "http://page.test"),
        ("access-control-request-method", "POST"),
    )
    call, plan = dispatch(server, asked)
    assert list(server.preflights) == [call]
    assert not server.journal
    assert call.status == 204
    assert wire(plan).count(b"Access-Control-Allow-Origin") == 1


def test_setting_the_admin_api_or_cors_later_changes_the_routes() -> None:
    server = Server()
    _, plan = dispatch(server, request("GET", "/__mockhttp/mocks"))
    assert wire(plan).startswith(b"HTTP/1.1 404 ")  # a miss: there is no admin API
    from mockhttp._server._admin import AdminAPI

    server.admin = AdminAPI(server)
    _, plan = dispatch(server, request("GET", "/__mockhttp/mocks"))
    assert isinstance(plan, Deferred)
    server._answers.stop()
    server.admin = None
    assert isinstance(server._router.route(request("GET", "/__mockhttp/mocks")), Miss)


def test_hold_runs_every_end_hook_once_in_order() -> None:
    seen: list[str] = []

    class Held(mockhttp.Reply):
        def on_end(self, call: Call) -> None:
            seen.append("reply")

    call = Call(request("GET", "/"), None, 200)
    call._on_end = lambda c: seen.append("claim")
    hold(call, Held())
    assert call._on_end is not None
    call._on_end(call)
    assert seen == ["claim", "reply"]
