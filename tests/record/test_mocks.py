"""Copies of a mock with one thing changed (record/_mocks.py)."""

from __future__ import annotations

import mockhttp
from mockhttp import llm, match
from mockhttp._core._mock import Scenario
from mockhttp._core._reply import Reply
from mockhttp._core._request import Request
from mockhttp.record._mocks import answering_once, replying, under_prefix


def test_under_prefix_moves_the_path_and_keeps_the_rest() -> None:
    mock = mockhttp.post("/v1/items/{id}", name="item", priority=3).reply(
        Reply(status_code=202, content=b"ok")
    )
    moved = under_prefix(mock, "run1")
    assert moved is not None
    assert moved.path == "/run1/v1/items/{id}"
    assert (moved.method, moved.name, moved.priority, moved.response) == (
        "POST",
        "item",
        3,
        mock.response,
    )
    assert mock.path == "/v1/items/{id}"


def test_under_prefix_matches_requests_under_the_prefix() -> None:
    moved = under_prefix(mockhttp.get("/a/{id}"), "p")
    assert moved is not None
    assert moved.matches(Request("GET", "/p/a/7"))
    assert moved.path_params(Request("GET", "/p/a/7")) == {"id": "7"}
    assert not moved.matches(Request("GET", "/a/7"))


def test_under_prefix_gives_none_for_a_matcher_or_any_path() -> None:
    assert under_prefix(mockhttp.get(match.regex("/a.*")), "p") is None
    assert under_prefix(mockhttp.get("*"), "p") is None


def test_under_prefix_puts_the_scenario_under_the_prefix() -> None:
    mock = mockhttp.get("/a").scenario("login", "started", "done")
    moved = under_prefix(mock, "p")
    assert moved is not None
    assert moved.scenario_of == Scenario("p/login", "started", "done")


def test_under_prefix_rebuilds_a_reply_kind_so_its_count_starts_again() -> None:
    mock = mockhttp.post("/v1/chat/completions").reply(llm.openai_chat("Hi"))
    moved = under_prefix(mock, "p")
    assert moved is not None
    assert mock.kind is not None
    assert moved.kind is not None
    assert moved.kind is not mock.kind
    assert type(moved.kind) is type(mock.kind)
    assert moved.kind.to_args() == mock.kind.to_args()


def test_replying_names_the_variant() -> None:
    reply = Reply(status_code=500)
    assert replying(mockhttp.get("/a", name="x"), reply, "cut").name == "x [cut]"
    out = replying(mockhttp.get("/a"), reply, "cut")
    assert out.name == "GET /a [cut]"
    assert out.response is reply


def test_answering_once_limits_to_one_answer() -> None:
    mock = mockhttp.get("/a", name="x")
    once = answering_once(mock)
    assert once.answers == 1
    assert mock.answers is None
    assert once.name == "x"
