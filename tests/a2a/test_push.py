"""Push configs and deliveries, pure (a recording post function, a fake clock); the
default poster's client against a loopback webhook last."""

from __future__ import annotations

import json
import time

import httpx
import pytest

import mockhttp
from mockhttp._core._kept import Memory
from mockhttp.a2a._push import TOKEN_HEADER, Config, Push, _Poster, config_from
from mockhttp.a2a._validate import Invalid


def test_a_1_0_config_read_and_written() -> None:
    params = {
        "taskId": "task-1",
        "url": "http://hook/x",
        "token": "t",
        "authentication": {"scheme": "Bearer", "credentials": "c"},
    }
    config = config_from(params, "1.0", "task-1", 1)
    assert config == Config("push-1", "task-1", "http://hook/x", "t", "Bearer", "c", "1.0")
    assert config.render("1.0") == {
        "id": "push-1",
        "taskId": "task-1",
        "url": "http://hook/x",
        "token": "t",
        "authentication": {"scheme": "Bearer"},
    }
    assert config.headers() == {
        "content-type": "application/json",
        TOKEN_HEADER: "t",
        "authorization": "Bearer c",
    }


def test_a_0_3_config_read_and_written() -> None:
    inner = {"id": "p", "url": "https://hook/", "authentication": {"schemes": ["Basic"]}}
    config = config_from({"taskId": "task-2", "pushNotificationConfig": inner}, "0.3", "task-2", 4)
    assert config.render("0.3") == {
        "taskId": "task-2",
        "pushNotificationConfig": {
            "id": "p",
            "url": "https://hook/",
            "authentication": {"schemes": ["Basic"]},
        },
    }


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"url": "file:///etc/passwd"},
        {"url": 3},
        {"url": "http://h/", "token": 5},
        {"url": "http://h/", "authentication": {"credentials": "c"}},
    ],
)
def test_configs_refused(params: dict[str, object]) -> None:
    with pytest.raises(Invalid, match="Invalid params"):
        config_from(params, "1.0", "task-1", 1)


def test_deliveries_in_due_order_and_a_failure_recorded() -> None:
    posted: list[tuple[str, bytes]] = []

    def post(url: str, headers: dict[str, str], body: bytes) -> int:
        if url.endswith("/down"):
            raise OSError("refused")
        posted.append((url, body))
        return 204

    push = Push(post=post)
    ok = Config("a", "task-1", "http://h/up", scheme="Bearer", credentials="secret")
    down = Config("b", "task-1", "http://h/down")
    push.add(ok)
    push.add(down)
    now = time.time()
    push.send("task-1", now + 0.2, {"n": 2})
    push.send("task-1", now, {"n": 1})
    assert push.wait_idle(10)
    assert posted == [("http://h/up", b'{"n": 1}'), ("http://h/up", b'{"n": 2}')]
    sent = push.sent()
    assert sorted((d.url, d.status) for d in sent) == [
        ("http://h/down", 0),
        ("http://h/down", 0),
        ("http://h/up", 204),
        ("http://h/up", 204),
    ]
    assert {d.error for d in sent if d.status == 0} == {"OSError: refused"}
    assert "secret" not in repr(sent)
    assert [c.id for c in push.of("task-1")] == ["a", "b"]
    assert push.delete("task-1", "a")
    assert not push.delete("task-1", "a")
    assert push.get("task-1", None) == down


def test_drop_forgets_the_deliveries_to_come() -> None:
    posted: list[bytes] = []

    def post(url: str, headers: dict[str, str], body: bytes) -> int:
        posted.append(body)
        return 200

    push = Push(post=post)
    push.add(Config("a", "task-1", "http://h/"))
    push.send("task-1", time.time() + 30, {"late": True})
    push.drop("task-1")
    assert push.wait_idle(5)
    assert posted == []


def test_configs_are_kept_json_in_the_state_it_is_bound_to() -> None:
    push = Push(post=lambda url, headers, body: 200)
    served = Memory()  # (a server's kept state)
    push.bind(served)
    push.add(Config("a", "task-1", "http://h/", token="t"))
    assert push.number() == 1
    assert push.number() == 2
    found = served.get("p:task-1")
    assert json.loads(json.dumps(found)) == found
    assert found["a"]["url"] == "http://h/"
    assert push.of("task-1") == [Config("a", "task-1", "http://h/", token="t")]
    assert push.own.values == {}  # nothing in its own state once bound
    assert push.delete("task-1", "a")
    assert served.get("p:task-1") is None  # the last config gone: the key too


def test_drop_after_keeps_the_deliveries_already_due() -> None:
    """A cancel drops what was still to come, not what was due before it (the task's first
    notification was lost when the cancel came before the delivery thread ran)."""
    posted: list[bytes] = []

    def post(url: str, headers: dict[str, str], body: bytes) -> int:
        posted.append(body)
        return 200

    now = 100.0
    push = Push(post=post, clock=lambda: now)
    push.add(Config("a", "task-1", "http://h/"))
    push.add(Config("b", "task-2", "http://h/"))
    with push._lock:  # queue them all before the delivery thread takes any
        push.send("task-1", 99.0, {"n": 1})
        push.send("task-1", 100.0, {"n": 2})
        push.send("task-1", 101.0, {"late": 1})
        push.send("task-2", 99.5, {"other": 1})
        push.drop("task-1", after=100.0)
    assert push.wait_idle(30)
    assert posted == [b'{"n": 1}', b'{"other": 1}', b'{"n": 2}']


class _Posts:
    """A post function that can be closed: records what it is asked, in order."""

    def __init__(self) -> None:
        self.log: list[str] = []

    def __call__(self, url: str, headers: dict[str, str], body: bytes) -> int:
        self.log.append(json.loads(body)["n"])
        return 200

    def close(self) -> None:
        self.log.append("close")


def test_the_post_is_closed_once_no_delivery_is_left_queued() -> None:
    """Deliveries queued together share the post; it is closed after the last one, before
    ``wait_idle`` returns, and a later send uses it again."""
    posts = _Posts()
    push = Push(post=posts)
    push.add(Config("a", "task-1", "http://h/"))
    now = time.time()
    with push._lock:  # both queued before the delivery thread takes the first
        push.send("task-1", now, {"n": 1})
        push.send("task-1", now + 0.1, {"n": 2})
    assert push.wait_idle(30)
    assert posts.log == [1, 2, "close"]
    push.send("task-1", time.time(), {"n": 3})
    assert push.wait_idle(30)
    assert posts.log == [1, 2, "close", 3, "close"]


class _SeenPoster(_Poster):
    """The default poster, keeping each HTTP client it posted with."""

    def __init__(self) -> None:
        super().__init__()
        self.clients: list[httpx.Client] = []

    def __call__(self, url: str, headers: dict[str, str], body: bytes) -> int:
        status = super().__call__(url, headers, body)
        assert self._client is not None
        if self._client not in self.clients:
            self.clients.append(self._client)
        return status


def test_the_default_poster_closes_its_client_when_the_deliveries_run_out() -> None:
    """The real HTTP client (its kept-alive connection to the webhook) is closed once idle,
    not left open for the garbage collector; the next burst gets a new one."""
    poster = _SeenPoster()
    push = Push(post=poster)
    with mockhttp.Server() as hooks:
        hook = hooks.mock(mockhttp.request("POST", "/hook").reply(mockhttp.ok().json({})))
        push.add(Config("a", "task-1", hooks.url + "/hook"))
        for n in (1, 2):
            push.send("task-1", time.time(), {"n": n})
            assert push.wait_idle(30)
            assert poster.clients[-1].is_closed
        assert [json.loads(c.request.body) for c in hook.calls] == [{"n": 1}, {"n": 2}]
    assert len(poster.clients) == 2
    assert [d.status for d in push.sent()] == [200, 200]
