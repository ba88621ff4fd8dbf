"""llm/_openai_responses.py: the Responses API reference stream and answer, event by event.

Pure tests first: every event named and numbered from 0, the items in order (reasoning,
message, function calls) with the events of each, the finished response, usage, errors;
each event validated by the openai SDK's ``ResponseStreamEvent`` union and the answer by
its ``Response`` type, with no key they do not name.  Then on a loopback socket: the exact
bytes, and the openai SDK reading the stream and the answer.
"""

from __future__ import annotations

from typing import Any

import openai
import pytest
from hypothesis import given
from hypothesis import strategies as st
from openai.types.responses import Response, ResponseStreamEvent
from pydantic import TypeAdapter

import mockhttp
from mockhttp import llm
from mockhttp.llm._openai_chat import CREATED
from mockhttp.llm._openai_responses import OpenAIResponses
from mockhttp.llm._text import count_tokens
from tests.helpers.llm_build import (
    body_of,
    payloads,
    raw_exchange,
    request,
    sdk_extras,
    stream_bytes,
)

PATH = "/v1/responses"
BODY: dict[str, Any] = {"model": "gpt-test", "input": "What is the weather?"}  # 5 tokens
STREAM = {**BODY, "stream": True}
CALLS: list[dict[str, Any]] = [
    {"name": "get_weather", "arguments": {"city": "Paris"}},
    {"name": "get_time", "arguments": '{"zone": "CET"}', "id": "call_given"},
]
EVENT = TypeAdapter(ResponseStreamEvent)


def events(reply: OpenAIResponses, body: dict[str, Any] = STREAM) -> list[dict[str, Any]]:
    return payloads(reply.build(request(body, PATH)))


def buffered(reply: OpenAIResponses, body: dict[str, Any] = BODY) -> dict[str, Any]:
    return body_of(reply.build(request(body, PATH)))  # type: ignore[no-any-return]


# The API's response object has ``store`` (its reference documents it); openai-python's
# ``Response`` type does not name it, so the SDK keeps it as an extra: the one allowed.
STORE = {".store", ".response.store"}


def sdk_event(payload: dict[str, Any]) -> Any:
    event = EVENT.validate_python(payload)
    assert type(event).__name__ != "dict"
    assert set(sdk_extras(event)) <= STORE, payload
    return event


# -- the stream, event by event ------------------------------------------------------------


def test_a_text_stream_event_by_event() -> None:
    data = events(OpenAIResponses("Sunny and warm"))
    assert [e["type"] for e in data] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    assert [e["sequence_number"] for e in data] == list(range(len(data)))
    assert [e["delta"] for e in data[4:7]] == ["Sunny", " and", " warm"]
    assert data[7]["text"] == "Sunny and warm"
    item = data[9]["item"]
    assert data[2]["item"] == {**item, "status": "in_progress", "content": []}
    assert item["status"] == "completed"
    assert item["id"].startswith("msg_")
    assert {e["item_id"] for e in data[3:9]} == {item["id"]}
    assert {e["output_index"] for e in data[2:10]} == {0}
    assert data[3]["part"]["text"] == ""
    assert data[8]["part"]["text"] == "Sunny and warm"


def test_each_event_line_names_its_type_and_there_is_no_done() -> None:
    answer = OpenAIResponses("Hi", reasoning="Hm", tool_calls=CALLS).build(request(STREAM, PATH))
    assert answer.stream is not None
    for event in answer.stream.events:
        assert event.event is not None
        assert f'"type":"{event.event}"' in (event.data_text or "")
    assert b"[DONE]" not in stream_bytes(answer)


def test_the_response_goes_in_progress_then_completed_with_everything() -> None:
    reply = OpenAIResponses("Sunny", reasoning="Hm", tool_calls=CALLS)
    data = events(reply)
    created, progress, done = data[0]["response"], data[1]["response"], data[-1]["response"]
    assert created == progress
    assert (created["status"], created["output"], created["usage"]) == ("in_progress", [], None)
    assert done["status"] == "completed"
    assert done["id"] == created["id"]
    assert done["id"].startswith("resp_")
    assert [i["type"] for i in done["output"]] == [
        "reasoning",
        "message",
        "function_call",
        "function_call",
    ]
    assert (
        done["output"]
        == buffered(OpenAIResponses("Sunny", reasoning="Hm", tool_calls=CALLS))["output"]
    )
    assert done["created_at"] == CREATED
    assert done["model"] == "gpt-test"


def test_reasoning_is_a_summary_item_streamed_first() -> None:
    data = events(OpenAIResponses("Yes", reasoning="Let me see"))
    names = [e["type"] for e in data]
    assert names[2:10] == [
        "response.output_item.added",
        "response.reasoning_summary_part.added",
        "response.reasoning_summary_text.delta",
        "response.reasoning_summary_text.delta",
        "response.reasoning_summary_text.delta",
        "response.reasoning_summary_text.done",
        "response.reasoning_summary_part.done",
        "response.output_item.done",
    ]
    assert data[2]["item"]["summary"] == []
    assert [e["delta"] for e in data[4:7]] == ["Let", " me", " see"]
    assert data[7]["text"] == "Let me see"
    assert data[9]["item"]["summary"] == [{"type": "summary_text", "text": "Let me see"}]
    assert data[10]["output_index"] == 1  # the message comes next
    usage = data[-1]["response"]["usage"]
    assert usage["output_tokens_details"]["reasoning_tokens"] == 3
    assert usage["output_tokens"] == 1 + 3


def test_a_function_call_streams_its_arguments() -> None:
    data = events(OpenAIResponses(tool_calls=CALLS))
    assert [
        e["type"] for e in data if e["type"] == "response.content_part.added"
    ] == []  # no message
    added = [e for e in data if e["type"] == "response.output_item.added"]
    assert [
        (a["output_index"], a["item"]["name"], a["item"]["arguments"], a["item"]["status"])
        for a in added
    ] == [
        (0, "get_weather", "", "in_progress"),
        (1, "get_time", "", "in_progress"),
    ]
    assert added[0]["item"]["call_id"].startswith("call_")
    assert added[1]["item"]["call_id"] == "call_given"
    for index, expected in ((0, '{"city": "Paris"}'), (1, '{"zone": "CET"}')):
        fragments = [
            e["delta"]
            for e in data
            if e["type"] == "response.function_call_arguments.delta" and e["output_index"] == index
        ]
        assert len(fragments) > 1
        assert "".join(fragments) == expected
        done = next(
            e
            for e in data
            if e["type"] == "response.function_call_arguments.done" and e["output_index"] == index
        )
        assert done["arguments"] == expected
        assert done["item_id"] == added[index]["item"]["id"]


def test_the_request_is_echoed_in_the_response() -> None:
    body = {**BODY, "instructions": "Be brief.", "reasoning": {"effort": "low", "summary": "auto"}}
    response = buffered(OpenAIResponses("x"), body)
    assert response["instructions"] == "Be brief."
    assert response["reasoning"] == {"effort": "low", "summary": "auto"}
    assert buffered(OpenAIResponses("x"))["reasoning"] == {"effort": None, "summary": None}
    assert buffered(OpenAIResponses("x"), {**BODY, "reasoning": "high"})["reasoning"] == {
        "effort": None,
        "summary": None,
    }


def test_usage_counted_or_given_with_the_total_following() -> None:
    usage = buffered(OpenAIResponses("One two"))["usage"]
    assert usage == {
        "input_tokens": 5,
        "input_tokens_details": {"cache_write_tokens": 0, "cached_tokens": 0},
        "output_tokens": 2,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 7,
    }
    given = buffered(OpenAIResponses("x", usage={"input_tokens": 10}))["usage"]
    assert (given["input_tokens"], given["total_tokens"]) == (10, 11)
    fixed = buffered(OpenAIResponses("x", usage={"total_tokens": 99}))["usage"]
    assert fixed["total_tokens"] == 99


def test_an_empty_reply_still_has_a_message() -> None:
    output = buffered(OpenAIResponses())["output"]
    assert [i["type"] for i in output] == ["message"]
    assert output[0]["content"][0]["text"] == ""


def test_ids_unique_per_call_and_the_given_id() -> None:
    reply = OpenAIResponses("x")
    assert len({buffered(reply)["id"] for _ in range(3)}) == 3
    assert buffered(OpenAIResponses("x", id="resp_mine"))["id"] == "resp_mine"
    assert dict(reply.build(request(BODY, PATH)).headers)["x-request-id"].startswith("req_")


# -- background and retrieve ----------------------------------------------------------------


def test_a_background_create_is_queued_and_a_get_gives_it_finished() -> None:
    reply = OpenAIResponses("Done later")
    queued = buffered(reply, {**BODY, "background": True})
    assert (queued["status"], queued["output"], queued["usage"]) == ("queued", [], None)
    fetched = body_of(reply.build(request(b"", f"{PATH}/{queued['id']}", method="GET")))
    assert fetched["id"] == queued["id"]
    assert fetched["status"] == "completed"
    assert fetched["output"][0]["content"][0]["text"] == "Done later"


def test_a_get_resumes_a_stream_after_a_sequence_number() -> None:
    reply = OpenAIResponses("a b c")
    first = events(reply)
    rest = payloads(
        reply.build(
            request(
                b"",
                f"{PATH}/{first[0]['response']['id']}?stream=true&starting_after=4",
                method="GET",
            )
        )
    )
    assert rest == first[5:]
    missing = reply.build(request(b"", f"{PATH}/resp_unknown", method="GET"))
    assert missing.status_code == 404


# -- errors --------------------------------------------------------------------------------


def test_an_error_answer_in_openais_shape() -> None:
    answer = OpenAIResponses(error="context_length").build(request(STREAM, PATH))
    assert answer.status_code == 400
    assert set(body_of(answer)["error"]) == {"message", "type", "param", "code"}
    assert dict(answer.headers)["x-request-id"].startswith("req_")


def test_a_mid_stream_error_is_an_error_event_then_response_failed() -> None:
    data = events(OpenAIResponses("one two three", error="server_error", error_after=2))
    names = [e["type"] for e in data]
    assert names[-2:] == ["error", "response.failed"]
    assert names.count("response.output_text.delta") == 2
    assert [e["sequence_number"] for e in data] == list(range(len(data)))
    error = data[-2]
    assert set(error) == {"type", "sequence_number", "code", "message", "param"}
    failed = data[-1]["response"]
    assert failed["status"] == "failed"
    assert failed["error"] == {"code": error["code"], "message": error["message"]}
    assert failed["id"] == data[0]["response"]["id"]


# -- the official SDK's types --------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {"text": "Sunny"},
        {"text": "", "tool_calls": CALLS},
        {"text": "x", "reasoning": "Hm", "tool_calls": CALLS[:1]},
        {"text": "one two", "error": "rate_limit", "error_after": 1},
    ],
)
def test_every_event_is_a_response_stream_event_to_the_sdk(options: dict[str, Any]) -> None:
    for payload in events(OpenAIResponses(**options)):
        sdk_event(payload)


def test_the_answer_is_a_response_to_the_sdk() -> None:
    for options in ({"text": "Hi"}, {"tool_calls": CALLS, "reasoning": "Hm"}):
        answer = Response.model_validate(buffered(OpenAIResponses(**options)))
        assert set(sdk_extras(answer)) == STORE - {".response.store"}
    assert Response.model_validate(buffered(OpenAIResponses("Hi there"))).output_text == "Hi there"


@given(st.text(st.characters(codec="utf-8"), max_size=30), st.none() | st.integers(1, 5))
def test_the_deltas_join_to_the_text_and_the_output_is_counted(text: str, size: int | None) -> None:
    data = events(OpenAIResponses(text, chunk_size=size))
    joined = "".join(e["delta"] for e in data if e["type"] == "response.output_text.delta")
    assert joined == text
    assert data[-1]["response"]["usage"]["output_tokens"] == count_tokens(text)
    assert [e["sequence_number"] for e in data] == list(range(len(data)))


# -- on a loopback socket ------------------------------------------------------------------


def test_the_server_sends_exactly_the_rendered_bytes(server: mockhttp.Server) -> None:
    options: dict[str, Any] = {"text": "Sunny, 21 °C.", "reasoning": "Hm", "tool_calls": CALLS[:1]}
    server.mock(mockhttp.post(PATH).reply(llm.openai_responses(**options)))
    head, body = raw_exchange(server.url, PATH, STREAM)
    assert body == stream_bytes(OpenAIResponses(**options).build(request(STREAM, PATH)))
    assert head.startswith(b"HTTP/1.1 200 ")


def test_the_openai_sdk_reads_the_stream_and_the_answer(
    server: mockhttp.Server, openai_client: openai.OpenAI
) -> None:
    server.mock(
        mockhttp.post(PATH).reply(
            llm.openai_responses("Hi there", reasoning="Hm", tool_calls=CALLS)
        )
    )
    client = openai_client
    with client.responses.stream(model="gpt-test", input="Weather?") as stream:
        text = "".join(e.delta for e in stream if e.type == "response.output_text.delta")
        final = stream.get_final_response()
    answer = client.responses.create(model="gpt-test", input="Weather?")
    assert text == final.output_text == answer.output_text == "Hi there"
    calls = [(i.name, i.arguments, i.call_id) for i in final.output if i.type == "function_call"]
    assert calls[0][:2] == ("get_weather", '{"city": "Paris"}')
    assert calls[1] == ("get_time", '{"zone": "CET"}', "call_given")
    assert final.usage is not None
    assert answer.usage is not None
    assert final.usage.output_tokens == answer.usage.output_tokens


def test_the_openai_sdk_sees_the_mid_stream_error_event(
    server: mockhttp.Server, openai_client: openai.OpenAI
) -> None:
    server.mock(
        mockhttp.post(PATH).reply(
            llm.openai_responses("one two", error="server_error", error_after=1)
        )
    )
    client = openai_client
    kinds = [e.type for e in client.responses.create(model="m", input="x", stream=True)]
    assert kinds[-2:] == ["error", "response.failed"]
    assert kinds.count("response.output_text.delta") == 1
