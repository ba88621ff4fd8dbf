"""The one reply-kind extension: a kind that builds the whole reply (composes False) and one
that composes with status, header and delay (composes True), read from real files and
written back; ``mock.kind`` holds the former."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest

import mockhttp
from mockhttp import Reply, ReplyKind, Request
from mockhttp._core._registry import REPLY_KINDS


@dataclass(frozen=True)
class Echo(ReplyKind):
    """Answers with the request's path, per request."""

    file_key: ClassVar[str] = "echo_path"
    prefix: str = ""

    def build(self, request: Request) -> Reply:
        return mockhttp.ok().body(self.prefix + request.path)

    def to_args(self) -> dict[str, Any]:
        return {"prefix": self.prefix} if self.prefix else {}


def shouting(reply: Reply, text: str) -> Reply:
    """A composing kind: the reply of status/header/delay with an upper-case body."""
    return reply.body(text.upper())


@pytest.fixture(autouse=True)
def kinds() -> Iterator[None]:
    mockhttp.register_reply_kind("echo_path", Echo)
    mockhttp.register_reply_kind("shout", shouting, composes=True)
    yield
    REPLY_KINDS.remove("echo_path")
    REPLY_KINDS.remove("shout")


def test_a_whole_reply_kind_loads_from_a_file_and_dumps_back(tmp_path: Path) -> None:
    path = tmp_path / "echo.yaml"
    path.write_text("request: {path: /a}\nresponse:\n  echo_path: {prefix: 'you asked '}\n")
    [mock] = mockhttp.load(path)
    assert mock.kind == Echo("you asked ")
    assert mock.response is None  # no fixed reply: it is built per request
    assert not mock.fixed
    assert mockhttp.loads(mockhttp.dump(mock)) == [mock]
    with mockhttp.Server() as server:
        server.mock(mock)
        import httpx

        assert httpx.get(server.url + "/a").text == "you asked /a"


def test_a_composing_kind_takes_status_and_header(tmp_path: Path) -> None:
    path = tmp_path / "shout.yaml"
    path.write_text("response:\n  status: 201\n  header: {X-A: b}\n  shout: hello\n")
    [mock] = mockhttp.load(path)
    assert mock.kind is None
    assert mock.fixed
    assert mock.response == mockhttp.status(201).header("X-A", "b").body("HELLO")
    assert REPLY_KINDS.get("shout").composes


def test_a_whole_reply_kind_refuses_status(tmp_path: Path) -> None:
    with pytest.raises(mockhttp.MockfileError) as caught:
        mockhttp.loads("response:\n  status: 201\n  echo_path: {}\n", "f.yaml")
    assert str(caught.value).startswith("f.yaml:2:3 at response.status: unknown key 'status'")


def test_a_misspelt_kind_key_gets_a_did_you_mean_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("request: {path: /a}\nresponse:\n  echo_pth: {}\n")
    with pytest.raises(mockhttp.MockfileError) as caught:
        mockhttp.load(path)
    assert str(caught.value).startswith(
        f"{path}:3:3 at response.echo_pth: unknown response key 'echo_pth' — did you mean "
        "'echo_path'?\nknown response keys: "
    ), str(caught.value)


def test_mock_kind_is_apart_from_handler() -> None:
    mock = mockhttp.get("/a").reply(Echo())
    assert mock.kind == Echo()
    assert mock.handler is None
    assert mock.response is None
    fixed = mock.reply(mockhttp.ok())
    assert fixed.kind is None
    assert fixed.response == mockhttp.ok()
    handled = mock.respond_with(lambda request: mockhttp.ok())
    assert handled.kind is None
    assert handled.handler is not None
    assert mock.reply_for(Request("GET", "/a?x=1")).content == b"/a"


def test_a_kind_key_may_hold_a_hyphen_but_not_a_space() -> None:
    """``ag-ui`` is a key (a protocol's own spelling); ``a b`` and ``-x`` are not."""
    mockhttp.register_reply_kind("echo-path", Echo)
    try:
        (mock,) = mockhttp.loads("request: {path: /a}\nresponse:\n  echo-path: {}\n")
        assert isinstance(mock.kind, Echo)
    finally:
        REPLY_KINDS.remove("echo-path")
    for bad in ("a b", "-x", ""):
        with pytest.raises(mockhttp.ConfigError, match="must be a name"):
            mockhttp.register_reply_kind(bad, Echo)
