"""``mockhttp.dump``: the mock file a user gets for mocks built in Python — the file a person
would write (flow lists for matchers and faults, defaults left out), read back unchanged."""

from __future__ import annotations

import pytest

import mockhttp
from mockhttp import ConfigError, Event, fault, match


def back(text: str) -> list[mockhttp.Mock]:
    return mockhttp.loads(text)


def test_a_plain_mock_is_its_method_path_and_status() -> None:
    assert mockhttp.dump(mockhttp.get("/v1/models")) == (
        "request:\n  method: GET\n  path: /v1/models\nresponse:\n  status: 200\n"
    )


def test_matchers_are_flow_lists_and_the_options_come_first() -> None:
    mock = (
        mockhttp.post("/v1/chat/completions", name="chat", priority=2, times=1)
        .header("Authorization", match.starts_with("Bearer "))
        .query("api-version", "2024")
        .body(match.json_path("$.stream", True))
        .reply(
            mockhttp.status(201).header("x-request-id", "r1").json({"ok": True, "text": "héllo"})
        )
    )
    assert mockhttp.dump(mock) == (
        "name: chat\n"
        "priority: 2\n"
        "times: 1\n"
        "request:\n"
        "  method: POST\n"
        "  path: /v1/chat/completions\n"
        "  header: {authorization: [starts_with, 'Bearer ']}\n"
        "  query: {api-version: '2024'}\n"  # quoted: text, not the int 2024
        "  body: [json_path, $.stream, [equal, true]]\n"
        "response:\n"
        "  status: 201\n"
        "  header: {x-request-id: r1}\n"
        "  json:\n"
        "    ok: true\n"
        "    text: héllo\n"  # unicode as it is, not escaped
    )
    (read,) = back(mockhttp.dump(mock))
    assert mockhttp.dump(read) == mockhttp.dump(mock)


def test_an_event_stream_with_its_timing_and_faults() -> None:
    mock = (
        mockhttp.post("/s")
        .reply(
            mockhttp.ok().event_stream(
                Event(data={"a": 1}), Event(event="done", data="[DONE]", id="7"), event_delay="20ms"
            )
        )
        .pipe(fault.close_after_events(1))
    )
    assert mockhttp.dump(mock) == (
        "request:\n"
        "  method: POST\n"
        "  path: /s\n"
        "response:\n"
        "  status: 200\n"
        "  event_stream:\n"
        "    event_delay: 20ms\n"
        "    events:\n"
        "      - {data: {a: 1}}\n"
        "      - {event: done, id: '7', data: '[DONE]'}\n"
        "  pipe:\n"
        "    - [close_after_events, 1]\n"
    )


def test_a_sequence_keeps_each_replys_faults_and_what_follows() -> None:
    mock = mockhttp.get("/seq").replies(
        mockhttp.status(500), (mockhttp.ok().body("fine"), [fault.reset()]), exhausted="unmatched"
    )
    text = mockhttp.dump(mock)
    assert text == (
        "request:\n"
        "  method: GET\n"
        "  path: /seq\n"
        "replies:\n"
        "  - status: 500\n"
        "  - status: 200\n"
        "    body: fine\n"
        "    pipe:\n"
        "      - [reset]\n"
        "exhausted: unmatched\n"
    )
    (read,) = back(text)
    assert read.exhausted == "unmatched"
    assert [r.status_code for r, _ in read.sequence] == [500, 200]  # type: ignore[union-attr]
    assert len(read.faults_for(1)) == 1


def test_the_default_exhausted_is_left_out() -> None:
    text = mockhttp.dump(mockhttp.get("/seq").replies(mockhttp.status(500), mockhttp.ok()))
    assert "exhausted" not in text


def test_a_scenario_lists_only_what_was_given() -> None:
    text = mockhttp.dump(mockhttp.get("/sc").scenario("login", None, "LoggedIn"))
    assert "scenario:\n  name: login\n  next_state: LoggedIn\n" in text
    (read,) = back(text)
    assert read.scenario_of == mockhttp.get("/sc").scenario("login", None, "LoggedIn").scenario_of


@pytest.mark.parametrize(
    "body",
    ["multi\nline\n", "  leading spaces", "yes", "null", "123", "# not a comment", "a: b",
     "line\u2028separator", "nel\x85here", "tab\there", "'quoted'", '"double"', ""],
)  # fmt: skip
def test_any_text_body_reads_back_as_the_same_text(body: str) -> None:
    """Text YAML would read as something else (a bool, null, a number, a comment, a
    mapping, a folded line separator) is quoted."""
    (read,) = back(mockhttp.dump(mockhttp.get("/b").reply(mockhttp.ok().body(body))))
    assert read.response is not None
    assert read.response.content == body.encode()


def test_several_mocks_are_documents_separated_by_three_dashes() -> None:
    text = mockhttp.dump([mockhttp.get("/a"), mockhttp.post("/b")])
    assert text.startswith("---\nrequest:\n  method: GET\n  path: /a\n")
    assert "\n---\nrequest:\n  method: POST\n  path: /b\n" in text
    assert [m.describe() for m in back(text)] == ["GET /a", "POST /b"]


def test_one_mock_in_a_list_is_one_document_without_a_separator() -> None:
    assert not mockhttp.dump([mockhttp.get("/a")]).startswith("---")


def test_a_python_handler_has_no_file_form() -> None:
    mock = mockhttp.get("/h", name="dynamic").respond_with(lambda request: mockhttp.ok())
    with pytest.raises(
        ConfigError, match="mock 'dynamic' answers with a Python handler, which has no file form"
    ):
        mockhttp.dump(mock)


def test_a_binary_body_has_no_file_form() -> None:
    with pytest.raises(ConfigError):
        mockhttp.dump(mockhttp.get("/bin").reply(mockhttp.ok().body(b"\xff\xfe")))


def test_to_yaml_is_dump_of_one_mock() -> None:
    mock = mockhttp.put("/x").header("if-match", "e1").reply(mockhttp.status(412))
    assert mock.to_yaml() == mockhttp.dump(mock)


def test_a_reply_kind_is_written_under_its_own_key() -> None:
    from mockhttp import llm

    mock = mockhttp.post("/v1/chat/completions").reply(llm.openai_chat("Hi"))
    text = mockhttp.dump(mock)
    assert "response:\n  openai_chat:" in text
    (read,) = back(text)
    assert mockhttp.dump(read) == text
