"""Resuming a Responses stream with the openai SDK: ``retrieve(stream=True, starting_after=N)``."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import openai
import pytest
from openai.types.responses import ResponseStreamEvent

import mockhttp
from mockhttp import fault, llm

TEXT = "One, two, three, four, five, six."


@pytest.fixture
def client(server: mockhttp.Server) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=0) as c:
        yield c


def mount(server: mockhttp.Server, reply: llm.OpenAIResponses, cut: int | None = None) -> None:
    """POST creates (the first cut after ``cut`` events); GET retrieves from the same reply."""
    server.mock(mockhttp.get("/v1/responses/{id}").reply(reply))
    created = mockhttp.post("/v1/responses").reply(reply)
    if cut is not None:
        created = created.pipe(fault.first(1, fault.close_after_events(cut)))
    server.mock(created)


def test_a_cut_stream_resumes_after_its_last_sequence_number(
    server: mockhttp.Server, client: openai.OpenAI
) -> None:
    """Cut at event 5, resumed from there: the text is whole, each event exactly once."""
    reply = llm.openai_responses(TEXT)
    mount(server, reply, 5)
    seen: list[ResponseStreamEvent] = []
    stream = client.responses.create(model="gpt-test", input="Count", stream=True)
    with pytest.raises((httpx.HTTPError, openai.APIError)):  # the cut, after event 5
        seen.extend(stream)
    assert len(seen) == 5
    last = seen[-1].sequence_number
    response_id = seen[0].response.id  # type: ignore[union-attr]
    rest = list(client.responses.retrieve(response_id, stream=True, starting_after=last))
    events = seen + rest
    assert [e.sequence_number for e in events] == list(range(len(events)))
    text = "".join(e.delta for e in events if e.type == "response.output_text.delta")
    assert text == TEXT
    assert events[-1].type == "response.completed"
    assert events[-1].response.output_text == TEXT
    assert events[-1].response.id == response_id


def test_the_resumed_events_are_those_of_an_uncut_stream(
    server: mockhttp.Server, client: openai.OpenAI
) -> None:
    """The same bytes as a whole second stream would have from N on: ids, usage, model."""
    reply = llm.openai_responses(TEXT)
    mount(server, reply)
    whole = list(client.responses.create(model="gpt-x", input="Count", stream=True))
    rid = whole[0].response.id  # type: ignore[union-attr]
    rest = list(client.responses.retrieve(rid, stream=True, starting_after=2))
    assert [e.model_dump() for e in rest] == [e.model_dump() for e in whole[3:]]
    assert all(isinstance(e.sequence_number, int) for e in whole)
    done = client.responses.retrieve(rid)  # no stream: the finished response
    assert (done.id, done.status, done.output_text, done.model) == (rid, "completed", TEXT, "gpt-x")
    bad = httpx.get(f"{server.url}/v1/responses/{rid}?stream=true&starting_after=x")
    assert bad.status_code == 400
    assert bad.json()["error"]["message"] == "starting_after='x' is not an integer."


def test_an_unknown_id_is_a_404_in_openai_shape(
    server: mockhttp.Server, client: openai.OpenAI
) -> None:
    server.mock(mockhttp.get("/v1/responses/{id}").reply(llm.openai_responses(TEXT)))
    with pytest.raises(openai.NotFoundError, match="No response found with id 'resp_nope'"):
        client.responses.retrieve("resp_nope", stream=True, starting_after=3)


def test_a_background_create_is_queued_then_retrieved_whole(
    server: mockhttp.Server, client: openai.OpenAI
) -> None:
    """``background=True``: the create answers ``queued`` (no output), retrieve the rest."""
    reply = llm.openai_responses(TEXT)
    mount(server, reply)
    queued = client.responses.create(model="gpt-test", input="Count", background=True)
    assert (queued.status, queued.output) == ("queued", [])
    done = client.responses.retrieve(queued.id)
    assert (done.id, done.status, done.output_text) == (queued.id, "completed", TEXT)
    assert done.usage is not None
    assert done.usage.output_tokens > 0
    events = list(client.responses.retrieve(queued.id, stream=True))  # all of it, from 0
    assert [e.sequence_number for e in events] == list(range(len(events)))
    assert "".join(e.delta for e in events if e.type == "response.output_text.delta") == TEXT
