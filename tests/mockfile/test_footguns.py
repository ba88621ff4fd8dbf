"""Mock files: subfolders, every error at once, tabs, empty files, strict JSON, one reload
per save."""

from __future__ import annotations

from pathlib import Path

import pytest

import mockhttp
from mockhttp._cli._main import main
from mockhttp._cli._serve import Served, watch_snapshot


def test_a_directory_loads_its_subfolders_in_path_order(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / ".hidden").mkdir()
    (tmp_path / "a.yaml").write_text("request: {path: /a}\n")
    (tmp_path / "b" / "c.yaml").write_text("request: {path: /c}\n")
    (tmp_path / "b" / "d.json").write_text('{"request": {"path": "/d"}}')
    (tmp_path / ".hidden" / "x.yaml").write_text("request: {path: /x}\n")
    (tmp_path / "notes.txt").write_text("not a mock")
    assert [m.path for m in mockhttp.load(tmp_path)] == ["/a", "/c", "/d"]


def test_validate_reports_every_error_of_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "request: {path: /a, metod: GET}\n---\n"
        "request: {path: /b}\n---\n"
        "- request: {path: c}\n- response: {status: two}\n"
    )
    assert main(["validate", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.count(str(bad)) == 3, err
    assert "1:21 at request.metod: unknown key 'metod'" in err
    assert "5:19 at [0].request.path: path='c' must start with '/'" in err
    assert "6:22 at [1].response.status: found text 'two'" in err


def test_tabs_and_empty_files_get_a_clear_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "tabs.yaml").write_text("request:\n\tpath: /x\n")
    (tmp_path / "empty.yaml").write_text("# nothing yet\n")
    assert main(["validate", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "tabs.yaml:2:1: found a tab, expected spaces: YAML indents with spaces only" in err
    assert "empty.yaml: found no mock (the text is empty, or only comments)" in err
    with pytest.raises(mockhttp.MockfileError, match="found no mock"):
        mockhttp.loads("")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"request": {"path": "/x"},}', "1:28: not valid JSON: Expecting property name"),
        ("# a comment\n{}", "1:1: not valid JSON: Expecting value"),
        ("request: {path: /x}\n", "1:1: not valid JSON: Expecting value"),
        ('{"times": NaN}', "not valid JSON: NaN is not JSON"),
    ],
)
def test_a_json_file_is_strict_json(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "m.json"
    path.write_text(text)
    with pytest.raises(mockhttp.MockfileError) as raised:
        mockhttp.load(path)
    assert message in str(raised.value)
    assert str(raised.value).startswith(str(path))


def test_a_json_file_keeps_line_numbers_in_errors(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    path.write_text('{\n  "request": {\n    "path": "x"\n  }\n}\n')
    with pytest.raises(mockhttp.MockfileError, match=r"m.json:3:13 at request.path"):
        mockhttp.load(path)


def test_one_save_in_two_writes_reloads_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mocks = tmp_path / "m.yaml"
    mocks.write_text("request: {path: /a}\n")
    served = Served(mockhttp.Server(), [tmp_path], mockhttp.load(tmp_path), False, False)
    snapshot = watch_snapshot([tmp_path])
    mocks.write_text("request: {path: /b")  # the editor's first write: half the file
    snapshot = served.reload_if_changed(snapshot)
    mocks.write_text("request: {path: /b}\nresponse: {body: new}\n")  # the rest
    snapshot = served.reload_if_changed(snapshot)
    snapshot = served.reload_if_changed(snapshot)  # stable now
    snapshot = served.reload_if_changed(snapshot)  # nothing new
    err = capsys.readouterr().err
    assert err == "mockhttp: reloaded 1 mock\n"
    assert [a.mock.path for a in served.server.mocks] == ["/b"]


def test_a_name_given_twice_in_one_file_is_an_error_at_both_places(tmp_path: Path) -> None:
    """Names address mocks (``journal?mock=chat``): the second one would be unreachable."""
    text = "name: chat\nrequest: {path: /a}\n---\n- request: {path: /b}\n- name: chat\n"
    with pytest.raises(mockhttp.MockfileError) as caught:
        mockhttp.loads(text, "mocks.yaml")
    assert str(caught.value) == (
        "mocks.yaml:5:9 at [1].name: a mock named 'chat' is already defined at "
        "mocks.yaml:1:7; names address mocks (the admin API, journal?mock=NAME), so they "
        "are unique: rename one"
    )


def test_a_name_given_in_two_files_is_an_error_in_load_serve_and_validate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.yaml").write_text("name: chat\nrequest: {path: /a}\n")
    (tmp_path / "sub" / "b.json").write_text('{"request": {"path": "/b"}, "name": "chat"}')
    second = f"{tmp_path / 'sub' / 'b.json'}:1:37 at name: a mock named 'chat' is already "
    first = f"defined at {tmp_path / 'a.yaml'}:1:7"
    with pytest.raises(mockhttp.MockfileError) as caught:
        mockhttp.load(tmp_path)
    assert str(caught.value).startswith(second + first)
    assert main(["validate", str(tmp_path)]) == 1
    captured = capsys.readouterr()
    assert second + first in captured.err
    assert f"{tmp_path / 'a.yaml'}: ok, 1 mock" in captured.out
    assert main(["serve", "--port", "0", str(tmp_path)]) == 1
    assert second + first in capsys.readouterr().err
    # apart, each loads; names differing only in case are different names
    assert len(mockhttp.load(tmp_path / "a.yaml")) == 1
    (tmp_path / "sub" / "b.json").write_text('{"request": {"path": "/b"}, "name": "Chat"}')
    assert [m.name for m in mockhttp.load(tmp_path)] == ["chat", "Chat"]


def test_a_json_admin_body_with_a_name_twice_has_no_position_but_both_are_named() -> None:
    body = '[{"name": "x", "request": {"path": "/a"}}, {"name": "x", "request": {}}]'
    with pytest.raises(mockhttp.MockfileError) as caught:
        mockhttp.loads(body, "request body", syntax="json")
    assert "a mock named 'x' is already defined at request body" in str(caught.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "request: {body: [json_path, model, gpt]}\n",
            "1:17 at request.body: json_path path='model' is not valid JSONPath: a JSONPath "
            "starts with $ (found 'model'): try '$.model'",
        ),
        (
            "request: {body: [json_path, '[0].x', gpt]}\n",
            "a JSONPath starts with $ (found '[0].x'): try '$[0].x'",
        ),
        ("name: 1\n", "1:7 at name: found an int 1, expected text; quote it: '1'"),
        (
            "response: {event_stream: {events: [{id: 007, data: x}]}}\n",
            "at response.event_stream.events[0].id: found an int 7, expected text; quote it: '007'",
        ),
        ("response: {body: true}\n", "expected text (the body, sent as UTF-8); quote it: 'true'"),
        ("name: [1]\n", "at name: found a list, expected text"),
        (
            "request: {path: '/v1/items?tag=a&q='}\n",
            "1:17 at request.path: path '/v1/items?tag=a&q=' has a query, which a path never "
            'matches (the query is matched apart): write path: /v1/items and query: {tag: "a", '
            'q: ""}',
        ),
    ],
)
def test_messages_speak_the_yaml_users_words(text: str, message: str) -> None:
    with pytest.raises(mockhttp.MockfileError) as caught:
        mockhttp.loads(text, "m.yaml")
    assert message in str(caught.value)
    if message.endswith("expected text"):
        assert "quote it" not in str(caught.value)


METHODS = """
name: either
request: {method: [any_of, GET, POST], path: /v1/models}
response: {status: 200, json: {data: []}}
"""


def test_a_method_matcher_in_a_file_takes_either_method_on_the_wire(tmp_path: Path) -> None:
    """``method: [any_of, GET, POST]``: GET and POST (and HEAD, as GET) are answered, PUT
    misses with the method named; the file form writes back and loads the same."""
    import httpx

    (mock,) = mockhttp.loads(METHODS)
    assert mock.method is None
    assert mockhttp.loads(mock.to_yaml()) == [mock]
    with mockhttp.Server() as server:
        either = server.mock(mock)
        url = server.url + "/v1/models"
        assert httpx.get(url).json() == {"data": []}
        assert httpx.post(url).status_code == 200
        assert httpx.head(url).status_code == 200
        missed = httpx.put(url)
        assert either.call_count == 3
        server.clear_journal()
    assert missed.status_code == 404
    assert "method: got 'PUT', expected 'GET' and got 'PUT', expected 'POST'" in missed.text
    python = mockhttp.request(mockhttp.match.any_of("GET", "POST"), "/v1/models")
    assert python.method_matcher == mock.method_matcher
    with pytest.raises(mockhttp.MockfileError, match=r"at request.method\[0\]: found an int 1"):
        mockhttp.loads("request: {method: [1, 2], path: /x}\n")


def test_a_second_folders_conversation_without_request_warns_of_the_overlap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two folders, each a conversation with no ``request:``: the second takes every LLM
    request (the first is never answered), and ``serve`` and ``validate`` say so, naming
    both files; a ``request:`` that tells them apart silences it."""
    import httpx

    from tests.helpers.cli_process import Serving

    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "agent.yaml").write_text(f"conversation:\n  - text: from {name}\n")
    first, second = tmp_path / "a" / "agent.yaml", tmp_path / "b" / "agent.yaml"
    said = f"{second}: warning: the conversation (1 turn) takes every request the "
    said += f"conversation (1 turn) of {first} would"
    assert main(["validate", str(tmp_path / "a"), str(tmp_path / "b")]) == 0
    assert said in capsys.readouterr().err
    with Serving(str(tmp_path / "a"), str(tmp_path / "b")) as serving:
        serving.wait_for_log(said)
        body = {"model": "m", "messages": [{"role": "user", "content": "Hi"}]}
        reply = httpx.post(serving.url + "/v1/chat/completions", json=body)
        assert reply.json()["choices"][0]["message"]["content"] == "from b"
    second.write_text("request: {header: {x-agent: b}}\nconversation:\n  - text: from b\n")
    assert main(["validate", str(tmp_path / "a"), str(tmp_path / "b")]) == 0
    assert "warning" not in capsys.readouterr().err
