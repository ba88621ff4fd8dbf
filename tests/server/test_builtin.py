"""The server's own endpoints as routes (``_server/_builtin.py``), pure: the builtins are
routed by ``_core._route.route`` like any mock, ranked above the user's mocks by the path
index (``_core._paths`` Rule 2), and keep no state."""

from __future__ import annotations

import json
from typing import Any

import pytest

import mockhttp
from mockhttp._core._cors import cors_policy
from mockhttp._core._request import Headers, Request
from mockhttp._core._route import Answer, Miss, keeps_state, route, route_front
from mockhttp._server._builtin import ADMIN_PREFIX, HEALTH_PATH, Builtin, builtins, may_take

from ..core.test_route import Entry


def kinds(found: tuple[Builtin, ...]) -> list[str]:
    return [b.kind for b in found]


def request(method: str, path: str, *headers: tuple[str, str]) -> Request:
    return Request(method, path, Headers(headers))


def test_only_the_readiness_probe_unless_asked() -> None:
    assert kinds(builtins(lambda: 0)) == ["health", "health"]  # GET and HEAD
    every = builtins(lambda: 0, admin=True, cors=cors_policy(True), metrics=lambda: mockhttp.ok())
    assert kinds(every) == ["health", "health", "admin", "preflight", "metrics"]
    assert [b.cors for b in every] == [False, False, False, False, True]
    assert len({b.id for b in every}) == 5
    assert all(b.id < 0 for b in every)
    assert not any(keeps_state(b.mock) or b.call_count or b.exhausted for b in every)


def test_health_answers_the_count_it_reads_when_asked() -> None:
    count = [3]
    health, head_only = builtins(lambda: count[0])
    count[0] = 7
    found = route(request("GET", HEALTH_PATH), [health], {})
    assert isinstance(found, Answer)
    assert found.entry is health
    assert found.reply is not None
    assert json.loads(found.reply.content) == {"status": "ok", "mocks": 7}
    head = route(request("HEAD", HEALTH_PATH), [health], {})  # HEAD is answered as GET
    assert isinstance(head, Answer)
    assert head.entry is health
    head = route(request("HEAD", HEALTH_PATH), [health, head_only], {})
    assert isinstance(head, Answer)
    assert head.entry is head_only  # (before an admin API that takes any method)


@pytest.mark.parametrize(
    ("method", "path", "headers", "kind"),
    [
        ("GET", HEALTH_PATH, (), "health"),
        ("POST", HEALTH_PATH, (), "admin"),  # anything else under the prefix: the admin API
        ("DELETE", ADMIN_PREFIX + "mocks/3", (), "admin"),
        ("OPTIONS", "/v1/x", (("origin", "http://a.test"),), None),  # no method asked
        (
            "OPTIONS",
            "/v1/x",
            (("origin", "http://a.test"), ("access-control-request-method", "POST")),
            "preflight",
        ),
        ("GET", "/metrics", (), "metrics"),
        ("POST", "/metrics", (), None),
        ("GET", "/__mockhttpx", (), None),
    ],
)
def test_each_request_goes_to_the_builtin_that_takes_it(
    method: str, path: str, headers: tuple[tuple[str, str], ...], kind: str | None
) -> None:
    every = builtins(lambda: 0, admin=True, cors=cors_policy(True), metrics=lambda: mockhttp.ok())
    found = route(request(method, path, *headers), every, {})
    assert (found.entry.kind if isinstance(found, Answer) else None) == kind


def test_a_preflight_is_answered_by_the_cors_policy() -> None:
    found = builtins(lambda: 0, cors=cors_policy(["http://a.test"]))
    asked = request(
        "OPTIONS", "/x", ("origin", "http://a.test"), ("access-control-request-method", "PUT")
    )
    answer = route(asked, found, {})
    assert isinstance(answer, Answer)
    assert answer.reply is not None
    assert answer.reply.status_code == 204
    assert dict(answer.reply.headers)["Access-Control-Allow-Methods"] == "PUT"
    other = request(
        "OPTIONS", "/x", ("origin", "http://b.test"), ("access-control-request-method", "PUT")
    )
    refused = route(other, found, {})
    assert isinstance(refused, Answer)
    assert refused.reply is not None
    assert refused.reply.status_code == 403


@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_builtins_are_tried_before_the_mocks_and_never_explain_a_miss(method: str) -> None:
    front: list[Any] = list(builtins(lambda: 0, admin=True))
    user: list[Any] = [Entry(mockhttp.get(HEALTH_PATH).reply(mockhttp.status(418)))]
    found = route_front(request(method, HEALTH_PATH), front, {})
    assert found is not None
    assert found.entry.kind == "health"
    assert route_front(request(method, "/nothing"), front, {}) is None
    plain = route(request(method, "/nothing"), user, {})
    assert isinstance(plain, Miss)
    assert list(plain.entries) == user  # explained against the mocks alone


@pytest.mark.parametrize(
    ("method", "path", "taken"),
    [
        ("GET", "/v1/chat/completions", False),
        ("POST", "/__mockhttp/mocks", True),
        ("GET", HEALTH_PATH, True),
        ("OPTIONS", "/anything", True),
        ("GET", "/metrics", True),
        ("GET", "/metrics/x", False),
    ],
)
def test_may_take_lets_no_request_a_builtin_takes_pass(method: str, path: str, taken: bool) -> None:
    """Every request some builtin takes (every builtin, every option) is one ``may_take``
    lets through; the others skip the builtins."""
    asked = request(
        method, path, ("origin", "http://a.test"), ("access-control-request-method", "GET")
    )
    every = builtins(lambda: 0, admin=True, cors=cors_policy(True), metrics=lambda: mockhttp.ok())
    found = route_front(asked, list(every), {})
    assert may_take(asked) is taken
    if found is not None:
        assert taken
