"""Mocks as a user builds them: the checks on each argument, what a mock accepts, how it
explains a miss, and which reply each call gets (pure: no server, no socket)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

import mockhttp
from mockhttp import ConfigError, Headers, Mock, Request, fault, match
from mockhttp._core._mock import STARTED, as_mock


def req(method: str = "GET", target: str = "/x", body: bytes = b"", **headers: str) -> Request:
    pairs = tuple((k.replace("_", "-"), v) for k, v in headers.items())
    return Request(method, target, Headers(pairs), body)


# -- building -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: mockhttp.request("GE T", "/x"), "method='GE T' must be an HTTP method"),
        (lambda: mockhttp.request("", "/x"), "method='' must be an HTTP method"),
        (lambda: mockhttp.get("x"), "path='x' must start with '/'"),
        (lambda: mockhttp.get(5), "path=5 must be text or a matcher"),  # type: ignore[arg-type]
        (lambda: mockhttp.get("/x", priority=1.5), "priority=1.5 must be an int"),  # type: ignore[arg-type]
        (lambda: mockhttp.get("/x", priority=True), "priority=True must be an int"),
        (lambda: mockhttp.get("/x", times=0), "times=0 must be a positive int or None"),
        (lambda: mockhttp.get("/x", times=True), "times=True must be a positive int"),
        (lambda: mockhttp.get("/x", name=3), "name=3 must be text"),  # type: ignore[arg-type]
        (lambda: mockhttp.get("/x").header("", "1"), "header name='' must be non-empty text"),
        (lambda: mockhttp.get("/x").query(None, "1"), "query name=None must be non-empty"),  # type: ignore[arg-type]
        (lambda: mockhttp.get("/x").reply("hi"), "reply='hi' must be a Reply"),  # type: ignore[arg-type]
        (lambda: mockhttp.get("/x").replies(), "replies() needs at least one reply"),
        (
            lambda: mockhttp.get("/x").replies(mockhttp.ok(), exhausted="stop"),  # type: ignore[arg-type]
            "exhausted='stop' must be one of repeat, unmatched, error",
        ),
        (
            lambda: mockhttp.get("/x").replies(mockhttp.ok(), "no"),  # type: ignore[arg-type]
            "replies() argument 1='no' must be a Reply",
        ),
        (lambda: mockhttp.get("/x").respond_with(5), "handler=5 must be callable"),  # type: ignore[arg-type]
        (lambda: mockhttp.get("/x").pipe("reset"), "pipe() argument 'reset' must be a fault"),  # type: ignore[arg-type]
        (lambda: mockhttp.get("/x").scenario(""), "scenario() name='' must be non-empty"),
        (lambda: mockhttp.get("/x").scenario("s", ""), "scenario() state='' must be"),
        (lambda: mockhttp.get("/x/{a").reply(mockhttp.ok()), None),  # an unclosed brace is text
    ],
)
def test_a_bad_argument_is_a_config_error_that_names_it(build, message: str | None) -> None:
    if message is None:
        assert isinstance(build(), Mock)
        return
    with pytest.raises(ConfigError, match=re.escape(message)):
        build()


def test_a_path_with_a_query_says_how_to_match_the_query() -> None:
    with pytest.raises(ConfigError) as caught:
        mockhttp.get("/search?q=cat&page=2")
    assert str(caught.value) == (
        "path='/search?q=cat&page=2' has a query, which a path never matches (the query is "
        "matched apart): use '/search' and .query(name, value) for each parameter of "
        "'q=cat&page=2'"
    )


def test_the_method_is_upper_cased_and_the_verbs_build_their_method() -> None:
    assert mockhttp.request("post", "/x").method == "POST"
    verbs = {"get": "GET", "post": "POST", "put": "PUT", "patch": "PATCH",
             "delete": "DELETE", "head": "HEAD", "options": "OPTIONS"}  # fmt: skip
    for name, method in verbs.items():
        assert getattr(mockhttp, name)("/x").method == method
    assert mockhttp.request(None).method is None


def test_every_builder_returns_a_new_mock_so_a_base_can_be_shared() -> None:
    base = mockhttp.post("/v1/chat").header("Authorization", match.starts_with("Bearer "))
    streamed = base.body(match.json_path("$.stream", True)).reply(mockhttp.ok().body("s"))
    buffered = base.reply(mockhttp.ok().body("b"))
    assert len(base.criteria) == 1
    assert len(streamed.criteria) == 2
    assert base.response == mockhttp.ok()
    assert buffered.response is not None
    assert buffered.response.content == b"b"


def test_reply_replaces_a_handler_and_a_sequence() -> None:
    mock = mockhttp.get("/x").replies(mockhttp.status(201), mockhttp.status(202))
    mock = mock.respond_with(lambda request: mockhttp.status(203))
    assert mock.reply_for(req()).status_code == 203
    mock = mock.reply(mockhttp.status(204))
    assert (mock.handler, mock.sequence) == (None, ())
    assert mock.reply_for(req()).status_code == 204


# -- what a mock accepts ---------------------------------------------------------------


def test_a_get_mock_answers_head_too() -> None:
    """RFC 9110 §9.3.2: HEAD is GET without the body."""
    mock = mockhttp.get("/x")
    assert mock.differences(req("HEAD")) == []
    assert [m.field for m in mock.differences(req("POST"))] == ["method"]
    assert [m.field for m in mockhttp.head("/x").differences(req("GET"))] == ["method"]


def test_header_names_match_in_any_case_values_exactly() -> None:
    mock = mockhttp.get("/x").header("X-Api-Key", "k1")
    assert mock.matches(req(x_api_key="k1"))
    assert mock.matches(req(X_API_KEY="k1"))
    assert not mock.matches(req(x_api_key="K1"))
    assert not mock.matches(req())


def test_a_header_or_query_without_a_matcher_must_be_present() -> None:
    mock = mockhttp.get("/x").header("x-trace").query("debug")
    assert mock.matches(req(target="/x?debug=", x_trace=""))
    assert not mock.matches(req(target="/x?debug=1"))
    assert not mock.matches(req(target="/x", x_trace="1"))


@pytest.mark.parametrize(
    ("value", "sent"), [(2, "2"), (True, "true"), (False, "false"), (1.5, "1.5")]
)
def test_numbers_and_booleans_in_header_and_query_are_their_text(value, sent: str) -> None:
    """As a YAML file means them: ``stream: true`` in a query is the text 'true'."""
    assert mockhttp.get("/x").query("v", value).matches(req(target=f"/x?v={sent}"))
    assert mockhttp.get("/x").header("v", value).matches(req(v=sent))


def test_a_query_parameter_given_twice_is_the_list_of_its_values() -> None:
    repeated = req(target="/x?tag=a&tag=b")
    assert mockhttp.get("/x").query("tag", ["a", "b"]).matches(repeated)
    assert mockhttp.get("/x").query("tag", match.contains("b")).matches(repeated)
    assert not mockhttp.get("/x").query("tag", "a").matches(repeated)
    assert mockhttp.get("/x").query("tag", "a").matches(req(target="/x?tag=a"))


def test_a_template_path_matches_one_segment_per_name() -> None:
    mock = mockhttp.get("/v1/files/{file_id}/content")
    assert mock.path_params(req(target="/v1/files/f-1/content")) == {"file_id": "f-1"}
    assert mock.path_params(req(target="/v1/files/a/b/content")) is None
    assert mock.path_params(req(target="/v1/files//content")) is None
    assert mock.literal_path is None


def test_template_text_around_the_names_is_literal() -> None:
    mock = mockhttp.get("/v1/models/{id}.json")
    assert mock.path_params(req(target="/v1/models/gpt.json")) == {"id": "gpt"}
    assert mock.path_params(req(target="/v1/models/gptXjson")) is None


@given(st.text(alphabet=st.characters(blacklist_characters="/?#%", codec="ascii",
                                      blacklist_categories=["Cc"]), min_size=1))  # fmt: skip
def test_any_segment_fills_a_template_name(segment: str) -> None:
    mock = mockhttp.get("/items/{id}")
    request = Request("GET", "/items/" + segment)
    assert mock.path_params(request) == {"id": request.path.removeprefix("/items/")}


def test_a_plain_path_is_literal_and_star_or_none_is_any_path() -> None:
    assert mockhttp.get("/a.b").literal_path == "/a.b"
    assert not mockhttp.get("/a.b").matches(req(target="/aXb"))
    for anything in (mockhttp.get("*"), mockhttp.get(None), mockhttp.request(None)):
        assert anything.literal_path is None
        assert anything.matches(req(target="/any/where"))


def test_a_path_matcher_matches_the_path_without_the_query() -> None:
    mock = mockhttp.get(match.regex(r"^/v1/"))
    assert mock.matches(req(target="/v1/x?y=/v2/"))
    assert not mock.matches(req(target="/v2/x?y=/v1/"))


def test_every_difference_is_listed_with_what_was_expected_and_got() -> None:
    mock = (
        mockhttp.post("/v1/chat")
        .header("Authorization", "Bearer k")
        .query("v", "2")
        .body(match.json_path("$.model", "gpt-4o"))
    )
    got = mock.differences(req("PUT", "/v1/chats?v=1", b'{"model": "gpt-3"}'))
    assert [str(m) for m in got] == [
        "method: got 'PUT', expected 'POST'",
        "path: got '/v1/chats', expected '/v1/chat'",
        "header 'authorization': got nothing (absent), expected 'Bearer k'",
        "query 'v': got '1', expected '2'",
        "body: $.model: got 'gpt-3', expected 'gpt-4o'",
    ]
    body = got[-1]
    assert (body.path, body.actual) == ("$.model", "gpt-3")
    assert got[2].actual is None  # absent
    assert got[3].expected == "equal('2')"


def test_a_near_path_weighs_less_than_a_far_one() -> None:
    """So the closest mock is shown first when nothing matches."""
    mock = mockhttp.get("/v1/chat/completions")
    near = mock.differences(req(target="/v1/chat/completions/"))[0].weight
    far = mock.differences(req(target="/zzz"))[0].weight
    assert 1.0 <= near < far <= 3.0


def test_a_scenario_mock_answers_only_in_its_state() -> None:
    mock = mockhttp.get("/x").scenario("login", "LoggedIn", "LoggedOut")
    assert not mock.in_state({})
    assert mock.in_state({"login": "LoggedIn"})
    (why,) = mock.differences(req(), {"login": "Other"})
    assert str(why) == "scenario: scenario 'login' is in state 'Other', expected 'LoggedIn'"
    (why,) = mock.differences(req())
    assert why.actual == STARTED
    assert mockhttp.get("/x").scenario("login").in_state({"login": "anything"})


# -- which reply each call gets ------------------------------------------------------------


def test_replies_go_in_order_then_the_last_repeats() -> None:
    mock = mockhttp.get("/x").replies(mockhttp.status(201), mockhttp.status(202))
    assert [mock.reply_for(req(), i).status_code for i in range(4)] == [201, 202, 202, 202]
    assert mock.fixed


def test_a_sequence_replys_own_faults_come_before_the_mocks() -> None:
    first, every = fault.reset(), fault.stall()
    mock = mockhttp.get("/x").replies((mockhttp.ok(), [first]), mockhttp.ok()).pipe(every)
    assert mock.faults_for(0) == (first, every)
    assert mock.faults_for(1) == (every,)
    assert mock.faults_for(7) == (every,)
    assert mockhttp.get("/x").pipe(every).faults_for(3) == (every,)


def test_a_handler_gets_the_template_values_it_asks_for() -> None:
    seen: list[object] = []

    def only_id(request: Request, id: str) -> mockhttp.Reply:
        seen.append(id)
        return mockhttp.ok().body(id)

    def every(request: Request, **values: str) -> mockhttp.Reply:
        seen.append(values)
        return mockhttp.ok()

    def none(request: Request) -> mockhttp.Reply:
        return mockhttp.status(204)

    request = req(target="/users/7/posts/9")
    assert (
        mockhttp.get("/users/{id}/posts/{post}").respond_with(only_id).reply_for(request).content
        == b"7"
    )
    mockhttp.get("/users/{id}/posts/{post}").respond_with(every).reply_for(request)
    assert seen == ["7", {"id": "7", "post": "9"}]
    assert (
        mockhttp.get("/users/{id}/posts/{post}").respond_with(none).reply_for(request).status_code
        == 204
    )
    assert not mockhttp.get("/x").respond_with(none).fixed


def test_a_handler_that_returns_no_reply_is_named_in_the_error() -> None:
    mock = mockhttp.get("/x", name="greeting").respond_with(lambda request: "hello")  # type: ignore[arg-type,return-value]
    with pytest.raises(ConfigError, match="the handler of mock 'greeting' returned 'hello'"):
        mock.reply_for(req())


def test_describe_is_the_name_or_method_and_path() -> None:
    assert mockhttp.get("/x", name="models").describe() == "'models'"
    assert mockhttp.post("/x").describe() == "POST /x"
    assert mockhttp.request(None).describe() == "* *"
    assert mockhttp.get(match.regex("^/v")).describe() == "GET regex('^/v')"


def test_a_mock_is_its_own_mock_and_a_plain_reply_is_not_one() -> None:
    mock = mockhttp.get("/x")
    assert as_mock(mock) is mock
    assert as_mock("text") == "text"  # left for the caller to refuse


def test_to_yaml_reads_back_the_same_mock() -> None:
    mock = (
        mockhttp.post("/v1/chat", name="chat", priority=2, times=3)
        .header("x-k", "v")
        .query("q", "1")
        .reply(mockhttp.status(201).json({"ok": True}))
    )
    (back,) = mockhttp.loads(mock.to_yaml())
    assert back.to_yaml() == mock.to_yaml()
    assert (back.name, back.priority, back.answers, back.method) == ("chat", 2, 3, "POST")
    assert back.matches(req("POST", "/v1/chat?q=1", x_k="v"))
