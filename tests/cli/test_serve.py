"""What ``mockhttp serve`` keeps while it runs (``_cli._serve``), in one process without a
subprocess: the log line of each request, the snapshot ``--watch`` compares, and a reload
that waits for a save to settle, keeps the last good mocks and leaves admin mocks alone."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

import httpx
import pytest

import mockhttp
from mockhttp import Headers, MockfileError, Request
from mockhttp._cli._serve import Served, log_line, not_reloaded, plural, shown, watch_snapshot
from mockhttp._server._journal import Call

NOON = datetime(2026, 1, 2, 12, 0, 1, 250_000)


@pytest.mark.parametrize(
    ("n", "text"), [(0, "0 events"), (1, "1 event"), (2, "2 events"), (1000, "1000 events")]
)
def test_plural(n: int, text: str) -> None:
    assert plural(n, "event") == text


def test_a_streamed_answer_is_logged_with_its_events_and_ending() -> None:
    mock = mockhttp.post("/v1/chat/completions", name="chat").reply(
        mockhttp.ok().event_stream(mockhttp.Event(data="a"), mockhttp.Event(data="b"))
    )
    call = Call(Request("POST", "/v1/chat/completions"), mock, 200, events=2, outcome="complete")
    assert log_line(call, [mock], NOON) == (
        "12:00:01.250 POST /v1/chat/completions → mock 'chat' 200, 2 events, complete"
    )


def test_a_plain_answer_is_logged_with_its_bytes() -> None:
    mock = mockhttp.get("/x").reply(mockhttp.ok().body("hello"))
    call = Call(Request("GET", "/x?y=1"), mock, 200, body_bytes=5, outcome="complete")
    assert (
        log_line(call, [mock], NOON)
        == "12:00:01.250 GET /x?y=1 → mock GET /x 200, 5 bytes, complete"
    )


def test_a_cut_reply_says_how_it_ended_and_no_status_is_a_dash() -> None:
    mock = mockhttp.get("/x")
    call = Call(Request("GET", "/x"), mock, None, outcome="reset")
    assert log_line(call, [mock], NOON).endswith("→ mock GET /x -, 0 bytes, reset")


def test_a_miss_is_logged_with_the_closest_mock_and_why() -> None:
    chat = mockhttp.post("/v1/chat/completions", name="chat")
    call = Call(Request("POST", "/v1/chat/completion"), None, 404, outcome="complete")
    line = log_line(call, [chat], NOON)
    assert line.startswith("12:00:01.250 POST /v1/chat/completion → no match (")
    assert "'chat'" in line
    assert "path: got '/v1/chat/completion', expected '/v1/chat/completions'" in line
    assert line.endswith(") 404, 0 bytes, complete")


def test_an_admin_request_is_logged_as_admin() -> None:
    call = Call(Request("GET", "/__mockhttp/journal"), None, 200, outcome="complete")
    assert "→ admin 200" in log_line(call, [], NOON)


def test_a_secret_in_the_target_is_hidden_unless_asked_not_to() -> None:
    mock = mockhttp.get("/x")
    call = Call(Request("GET", "/x?api_key=sk-live-123456789"), mock, 200, outcome="complete")
    assert "sk-live-123456789" not in log_line(call, [mock], NOON)
    assert "sk-live-123456789" in log_line(call, [mock], NOON, redact=False)


def test_a_secret_the_closest_mock_expects_is_hidden_in_a_miss() -> None:
    guarded = mockhttp.get("/x").header("Authorization", "Bearer sk-expected-secret")
    request = Request("GET", "/x", Headers((("Authorization", "Bearer sk-sent-secret"),)))
    line = log_line(Call(request, None, 404, outcome="complete"), [guarded], NOON)
    assert "sk-sent-secret" not in line


def test_shown_masks_a_secret_header_only() -> None:
    assert shown("Authorization", "Bearer sk-live-abcdef123456") != "Bearer sk-live-abcdef123456"
    assert shown("Content-Type", "application/json") == "application/json"


def test_not_reloaded_names_the_place_or_the_error_type() -> None:
    place = MockfileError("bad", source="m.yaml", line=2, column=5, path="response")
    assert not_reloaded(place) == (
        "mockhttp: not reloaded, still serving the previous mocks:\nm.yaml:2:5 at response: bad"
    )
    assert not_reloaded(OSError("gone")).endswith("\nOSError: gone")


def test_the_snapshot_changes_with_a_save_and_ignores_other_files(tmp_path: Path) -> None:
    mocks = tmp_path / "m.yaml"
    mocks.write_text("request: {path: /x}\n")
    first = watch_snapshot([tmp_path])
    assert [Path(name).name for name, _, _ in first] == ["m.yaml"]
    (tmp_path / "notes.txt").write_text("not a mock file")
    assert watch_snapshot([tmp_path]) == first
    mocks.write_text("request: {path: /xy}\n")  # another size
    assert watch_snapshot([tmp_path]) != first


def test_a_snapshot_of_what_does_not_load_is_empty_not_an_error(tmp_path: Path) -> None:
    assert watch_snapshot([tmp_path / "missing"]) == ()


@pytest.fixture
def served(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    (tmp_path / "m.yaml").write_text("request: {path: /x}\nresponse: {body: v1}\n")
    with mockhttp.Server() as server:
        yield Served(server, [tmp_path], mockhttp.load(tmp_path), quiet=True, verbose=False)


def get(served: Served, path: str = "/x") -> str:
    return httpx.get(served.server.url + path).text


def save(path: Path, text: str) -> None:
    path.write_text(text)
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))  # a new time, surely


def test_a_change_reloads_once_it_has_stayed_the_same_for_one_look(
    served: Served, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A save written in several steps reloads once, from the whole file."""
    snapshot = watch_snapshot([tmp_path])
    save(tmp_path / "m.yaml", "request: {path: /x}\nresponse: {body: v2}\n")
    assert served.reload_if_changed(snapshot) == snapshot  # seen once: not yet
    assert get(served) == "v1"
    now = served.reload_if_changed(snapshot)  # the same again: reload
    assert now == watch_snapshot([tmp_path])
    assert get(served) == "v2"
    assert capsys.readouterr().err == "mockhttp: reloaded 1 mock\n"
    assert served.reload_if_changed(now) == now  # nothing changed since
    assert capsys.readouterr().err == ""


def test_a_bad_save_keeps_the_last_good_mocks(
    served: Served, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    snapshot = watch_snapshot([tmp_path])
    save(tmp_path / "m.yaml", "request: {path: /x}\nresponse: {status: many}\n")
    now = served.reload_if_changed(snapshot, settle=False)
    assert now != snapshot  # the bad save is seen, and not tried again
    assert get(served) == "v1"
    err = capsys.readouterr().err
    assert err.startswith("mockhttp: not reloaded, still serving the previous mocks:\n")
    assert f"{tmp_path / 'm.yaml'}:2:20 at response.status: found text 'many'" in err
    assert served.reload_if_changed(now, settle=False) == now
    assert capsys.readouterr().err == ""


def test_a_reload_leaves_the_mocks_added_through_the_admin_api(
    served: Served, tmp_path: Path
) -> None:
    answer = httpx.post(
        served.server.url + "/__mockhttp/mocks",
        content="request: {path: /added}\nresponse: {body: mine}\n",
        headers={"Content-Type": "application/yaml"},
    )
    assert answer.status_code < 300, answer.text
    save(tmp_path / "m.yaml", "request: {path: /x}\nresponse: {body: v2}\n")
    served.reload_if_changed((), settle=False)
    assert (get(served), get(served, "/added")) == ("v2", "mine")


def test_a_mock_added_as_a_file_mock_is_served_and_kept(served: Served) -> None:
    served.add(mockhttp.get("/recorded").reply(mockhttp.ok().body("r")))
    assert get(served, "/recorded") == "r"
    assert [m.describe() for m in served.mocks] == ["* /x", "GET /recorded"]
