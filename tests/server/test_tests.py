"""Per-test isolation on a server over loopback (``_server/_tests.py``): each test's mocks,
counts, scenarios, kept state, journal, unmatched list, errors and reset, beside the
shared mocks; by header and by URL prefix; the admin API's ``?test=``."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import httpx
import pytest

import mockhttp
from mockhttp._server import _tests
from tests.helpers.kept_kind import Sessions

H = "x-mockhttp-test"
# generous: an admin call loads the mock file parser on a loaded machine (a CPU hog)
_http = httpx.Client(timeout=60, limits=httpx.Limits(max_keepalive_connections=0))


@pytest.fixture
def server() -> Iterator[mockhttp.Server]:
    with mockhttp.Server(admin=True) as server:
        yield server


def _who(server: mockhttp.Server, test: str | None, path: str = "/who") -> str:
    headers = {} if test is None else {H: test}
    return _http.get(server.url + path, headers=headers).text


def test_a_tests_mock_answers_only_its_requests(server: mockhttp.Server) -> None:
    server.mock(mockhttp.get("/who").reply(mockhttp.ok().body("shared")))
    server.test("a").mock(mockhttp.get("/who").reply(mockhttp.ok().body("a")))
    assert _who(server, "a") == "a"
    assert _who(server, "b") == "shared"  # another test: the shared mock
    assert _who(server, None) == "shared"


def test_a_test_sees_its_own_mocks_and_the_shared_ones_apart(server: mockhttp.Server) -> None:
    shared = server.mock(mockhttp.get("/who").reply(mockhttp.ok().body("shared")))
    own = server.test("a").mock(mockhttp.get("/who").reply(mockhttp.ok().body("a")))
    assert server.test("a").mocks == (own,)
    assert server.test("a").shared_mocks == (shared,) == server.mocks


def test_a_tests_mock_ranks_above_a_shared_one_of_higher_priority(
    server: mockhttp.Server,
) -> None:
    server.mock(mockhttp.get("/who", priority=50).reply(mockhttp.ok().body("shared")))
    server.test("a").mock(mockhttp.get("/who").reply(mockhttp.ok().body("a")))
    assert _who(server, "a") == "a"


def test_the_journals_are_apart(server: mockhttp.Server) -> None:
    server.mock(mockhttp.get("/who").reply(mockhttp.ok().body("shared")))
    a, b = server.test("a"), server.test("b")
    mine = a.mock(mockhttp.get("/who").reply(mockhttp.ok().body("a")))
    for _ in range(3):
        _who(server, "a")
    _who(server, "b")
    _who(server, None)
    assert [c.test for c in a.journal] == ["a"] * 3
    assert [c.test for c in b.journal] == ["b"]
    assert [c.test for c in server.journal] == [None]
    assert mine.call_count == 3
    assert server.mocks[0].call_count == 1  # a shared mock counts the shared calls alone
    assert b.journal[0].mock is server.mocks[0].mock


def test_two_tests_in_parallel_see_only_their_own_calls(server: mockhttp.Server) -> None:
    server.mock(mockhttp.get("/who").reply(mockhttp.ok().body("shared")))
    ids = [f"t{i}" for i in range(4)]
    for test in ids:
        server.test(test).mock(mockhttp.get("/who").reply(mockhttp.ok().body(test)))
    wrong: list[str] = []

    def client(test: str) -> None:
        with httpx.Client(headers={H: test}, timeout=60) as http:
            for _ in range(50):
                got = http.get(server.url + "/who").text
                if got != test:
                    wrong.append(f"{test} got {got}")

    threads = [threading.Thread(target=client, args=(t,)) for t in ids]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert wrong == []
    for test in ids:
        journal = server.test(test).journal
        assert len(journal) == 50
        assert {c.test for c in journal} == {test}
    assert len(server.journal) == 0


def test_a_tests_reset_leaves_the_others_and_the_shared(server: mockhttp.Server) -> None:
    server.mock(mockhttp.get("/who").reply(mockhttp.ok().body("shared")))
    a, b = server.test("a"), server.test("b")
    a.mock(mockhttp.get("/who").reply(mockhttp.ok().body("a")))
    b.mock(mockhttp.get("/who").reply(mockhttp.ok().body("b")))
    _who(server, "a")
    _who(server, "b")
    a.reset()
    assert (a.mocks, len(a.journal)) == ((), 0)
    assert len(b.mocks) == 1
    assert len(b.journal) == 1
    assert _who(server, "a") == "shared"
    assert _who(server, "b") == "b"
    assert len(server.mocks) == 1


def test_the_servers_reset_forgets_every_test(server: mockhttp.Server) -> None:
    server.test("a").mock(mockhttp.get("/who").reply(mockhttp.ok().body("a")))
    _who(server, "a")
    server.reset()
    assert server.test("a").mocks == ()
    assert len(server.test("a").journal) == 0


def test_unmatched_requests_are_the_tests_own(server: mockhttp.Server) -> None:
    a, b = server.test("a"), server.test("b")
    assert _http.get(server.url + "/nothing", headers={H: "a"}).status_code == 404
    assert [c.request.path for c in a.unmatched] == ["/nothing"]
    assert b.unmatched == []
    assert server.unmatched == []
    server.check()  # the shared side saw nothing wrong
    b.check()
    with pytest.raises(mockhttp.UnmatchedRequestError, match="/nothing"):
        a.check()


def test_a_miss_is_explained_against_the_tests_and_the_shared_mocks(
    server: mockhttp.Server,
) -> None:
    server.mock(mockhttp.get("/v1/models", name="shared-models").reply(mockhttp.ok()))
    server.test("a").mock(mockhttp.get("/v1/chat", name="a-chat").reply(mockhttp.ok()))
    text = _http.get(server.url + "/v1/mode", headers={H: "a"}).text
    assert "a-chat" in text
    assert "shared-models" in text


def test_verification_is_per_test(server: mockhttp.Server) -> None:
    a, b = server.test("a"), server.test("b")
    used = a.mock(mockhttp.get("/x").reply(mockhttp.ok()))
    b.mock(mockhttp.get("/x").reply(mockhttp.ok()))
    _http.get(server.url + "/x", headers={H: "a"})
    used.assert_called_once()
    a.assert_all_called()
    with pytest.raises(mockhttp.VerificationError, match="GET /x"):
        b.assert_all_called()


def test_the_url_prefix_names_the_test_and_the_journal_says_so(
    server: mockhttp.Server,
) -> None:
    a = server.test("a")
    a.mock(mockhttp.get("/v1/models").reply(mockhttp.ok().json({"who": "a"})))
    assert a.prefix_url == server.url + "/__test/a"
    got = _http.get(a.prefix_url + "/v1/models?limit=2")
    assert got.json() == {"who": "a"}
    call = a.journal[0]
    assert (call.test, call.test_prefix) == ("a", "/__test/a")
    assert call.request.target == "/v1/models?limit=2"
    shown = _http.get(server.url + "/__mockhttp/journal?test=a").json()["calls"][0]
    assert (shown["test"], shown["test_prefix"]) == ("a", "/__test/a")
    assert shown["request"]["path"] == "/v1/models"


def test_a_shared_sequence_starts_over_for_each_test(server: mockhttp.Server) -> None:
    server.mock(mockhttp.get("/n").replies(mockhttp.ok().body("1"), mockhttp.ok().body("2")))
    assert [_who(server, "a", "/n") for _ in range(3)] == ["1", "2", "2"]
    assert [_who(server, "b", "/n") for _ in range(2)] == ["1", "2"]
    assert _who(server, None, "/n") == "1"  # the shared requests count their own


def test_times_count_per_test(server: mockhttp.Server) -> None:
    server.mock(mockhttp.get("/once").reply(mockhttp.status(503)))
    server.mock(mockhttp.get("/once").times(1).reply(mockhttp.ok().body("first")))
    assert [_who(server, "a", "/once") for _ in range(2)] == ["first", ""]
    assert _who(server, "b", "/once") == "first"


def test_scenarios_move_per_test(server: mockhttp.Server) -> None:
    server.mock(
        mockhttp.post("/login").scenario("auth", next_state="in").reply(mockhttp.ok()),
        mockhttp.get("/me").scenario("auth", state="in").reply(mockhttp.ok().body("me")),
    )
    _http.post(server.url + "/login", headers={H: "a"})
    assert _http.get(server.url + "/me", headers={H: "a"}).text == "me"
    assert _http.get(server.url + "/me", headers={H: "b"}).status_code == 404
    assert server.test("a").scenario_state("auth") == "in"
    assert server.test("b").scenario_state("auth") == "Started"
    assert server.scenario_state("auth") == "Started"
    server.test("b").set_scenario_state("auth", "in")
    assert _http.get(server.url + "/me", headers={H: "b"}).text == "me"
    server.test("a").reset_scenarios()
    assert server.test("a").scenario_state("auth") == "Started"


def test_kept_state_is_per_test(server: mockhttp.Server) -> None:
    server.mock(mockhttp.post("/sessions").reply(Sessions()))
    server.mock(mockhttp.request(None, "/sessions/{id}").reply(Sessions()))
    opened = _http.post(server.url + "/sessions", headers={H: "a"}).json()
    assert opened == {"session": 1}
    assert _http.post(server.url + "/sessions", headers={H: "b"}).json() == {"session": 1}
    assert _http.get(server.url + "/sessions/1", headers={H: "a"}).status_code == 200
    server.test("a").reset()
    assert _http.get(server.url + "/sessions/1", headers={H: "a"}).status_code == 404
    assert _http.get(server.url + "/sessions/1", headers={H: "b"}).status_code == 200


def test_a_handlers_error_is_the_tests(server: mockhttp.Server) -> None:
    def broken(request: mockhttp.Request) -> mockhttp.Reply:
        raise RuntimeError("boom")

    server.test("a").mock(mockhttp.get("/x").respond_with(broken))
    assert _http.get(server.url + "/x", headers={H: "a"}).status_code == 500
    assert server.errors == []
    with pytest.raises(RuntimeError, match="boom"):
        server.test("a").check()


def test_the_lane_never_answers_a_tests_request(server: mockhttp.Server) -> None:
    server.mock(mockhttp.get("/who").reply(mockhttp.ok().body("shared")))
    server.test("a").mock(mockhttp.get("/who").reply(mockhttp.ok().body("a")))
    with httpx.Client(timeout=60) as http:
        for _ in range(5):  # the shared answer is learned by the lane
            assert http.get(server.url + "/who").text == "shared"
        assert http.get(server.url + "/who", headers={H: "a"}).text == "a"
        assert http.get(server.url + "/__test/a/who").text == "a"
        assert http.get(server.url + "/who").text == "shared"
    assert len(server.test("a").journal) == 2


def test_a_bad_test_id_gets_a_400_saying_why(server: mockhttp.Server) -> None:
    got = _http.get(server.url + "/x", headers={H: "no spaces please"})
    assert got.status_code == 400
    assert "x-mockhttp-test: test id 'no spaces please' has characters" in got.text
    assert [c.status for c in server.unmatched] == [400]
    with pytest.raises(mockhttp.ConfigError, match="test id"):
        server.test("a b")


def test_another_header_can_name_the_test() -> None:
    with mockhttp.Server(test_header="X-Run") as server:
        server.test("a").mock(mockhttp.get("/x").reply(mockhttp.ok().body("a")))
        assert server.test("a").headers == {"x-run": "a"}
        assert _http.get(server.url + "/x", headers={"X-Run": "a"}).text == "a"
        assert _http.get(server.url + "/x", headers={H: "a"}).status_code == 404


def test_isolation_can_be_off() -> None:
    with mockhttp.Server(test_header=None) as server:
        server.mock(mockhttp.get("/__test/a/x").reply(mockhttp.ok().body("plain")))
        assert _http.get(server.url + "/__test/a/x", headers={H: "a"}).text == "plain"
        with pytest.raises(mockhttp.ConfigError, match="test_header=None"):
            server.test("a")
    with pytest.raises(mockhttp.ConfigError, match="must be a header name"):
        mockhttp.Server(test_header="not a header")


def test_the_admin_api_takes_the_test_by_query_or_header(server: mockhttp.Server) -> None:
    admin = server.url + "/__mockhttp/"
    mock = "request: {method: GET, path: /who}\nresponse: {status: 200, body: a}\n"
    added = _http.post(
        admin + "mocks?test=a", content=mock, headers={"content-type": "application/yaml"}
    )
    assert added.status_code == 201
    assert len(server.test("a").mocks) == 1
    assert server.mocks == ()
    assert _who(server, "a") == "a"
    listed = _http.get(admin + "mocks", headers={H: "a"}).json()["mocks"]
    assert len(listed) == 1
    assert _http.get(admin + "mocks").json()["mocks"] == []
    calls = _http.get(admin + "journal", headers={H: "a"}).json()["calls"]
    assert [c["test"] for c in calls] == ["a"]
    assert _http.get(admin + "journal").json()["calls"] == []
    assert _http.post(admin + "reset?test=a").json() == {"mocks": 0, "journal": 0}
    assert server.test("a").mocks == ()
    bad = _http.get(admin + "journal?test=a%20b")
    assert bad.status_code == 400
    assert bad.json()["error"]["type"] == "bad_test_id"


def test_tests_known_are_bounded(server: mockhttp.Server, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_tests, "MAX_TESTS", 3)
    kept = server.test("kept")
    kept.mock(mockhttp.get("/x").reply(mockhttp.ok()))
    for i in range(10):
        _http.get(server.url + "/y", headers={H: f"t{i}"})
    assert server._tests is not None
    assert len(server._tests) == 3
    assert server.test("kept") is kept  # one with mocks stays while others have none


def test_a_scoped_server_reads_like_a_server(server: mockhttp.Server) -> None:
    a = server.test("a")
    assert server.test("a") is a
    assert (a.id, a.header, a.url, a.prefix) == ("a", H, server.url, "/__test/a")
    assert a.url_for("v1") == server.url + "/v1"
    first, second = a.mock(mockhttp.get("/1", name="one"), mockhttp.get("/2"))
    assert a.named("one") is first
    a.remove(second)
    assert a.mocks == (first,)
    (swapped,) = a.replace([first], [mockhttp.get("/3")])
    assert a.mocks == (swapped,)
    assert repr(a) == "ScopedServer('a', mocks=1)"
    assert a.add is not None


CHAT = "/v1/chat/completions"
HELLO = {"model": "m", "messages": [{"role": "user", "content": "Hi"}]}


def test_rate_limit_buckets_per_test_are_opt_in(server: mockhttp.Server) -> None:
    from mockhttp import llm

    per_test = llm.capacity(rpm=1, limit_by="test", clock=llm.ManualClock())
    server.mock(mockhttp.post(CHAT).reply(llm.openai_chat("Hi", capacity=per_test)))

    def status(test: str | None, prefix: bool = False) -> int:
        if prefix:
            return _http.post(f"{server.url}/__test/{test}{CHAT}", json=HELLO).status_code
        headers = {} if test is None else {H: test}
        return _http.post(server.url + CHAT, json=HELLO, headers=headers).status_code

    assert [status("a"), status("a"), status("b"), status("a", prefix=True)] == [200, 429, 200, 429]
    assert [status(None), status(None)] == [200, 429]  # requests naming no test: one bucket


def test_rate_limit_buckets_are_shared_by_default(server: mockhttp.Server) -> None:
    from mockhttp import llm

    by_key = llm.capacity(rpm=1, clock=llm.ManualClock())
    server.mock(mockhttp.post(CHAT).reply(llm.openai_chat("Hi", capacity=by_key)))
    codes = [
        _http.post(server.url + CHAT, json=HELLO, headers={H: t}).status_code for t in ("a", "b")
    ]
    assert codes == [200, 429]


def test_a_reply_kind_reads_the_test_of_the_request(server: mockhttp.Server) -> None:
    seen: list[str | None] = []

    def handler(request: mockhttp.Request) -> mockhttp.Reply:
        seen.append(request.test)
        return mockhttp.ok()

    server.mock(mockhttp.get("/t").respond_with(handler))
    _http.get(server.url + "/t", headers={H: "a"})
    _http.get(server.url + "/__test/b/t")
    _http.get(server.url + "/t")
    assert seen == ["a", "b", None]


def test_a_conversations_error_turns_count_per_test(server: mockhttp.Server) -> None:
    from mockhttp import llm

    chat = llm.conversation(llm.turn(error="rate_limit", times=1), llm.turn("Hello."))
    server.mock(mockhttp.post(CHAT).reply(chat))

    def status(test: str) -> int:
        return _http.post(server.url + CHAT, json=HELLO, headers={H: test}).status_code

    assert [status("a"), status("a"), status("b"), status("b")] == [429, 200, 429, 200]
