"""Variants of a recorded stream, served by the real server: a correct parser (mockhttp's
decoder, the openai and anthropic SDKs) keeps the text in every one; closed_without_done
is the one a correct client must report."""

from __future__ import annotations

import itertools
import json

import anthropic
import httpx
import openai
import pytest

import mockhttp
from mockhttp import llm
from mockhttp.contract import Transcript, check
from mockhttp.record import VARIANTS, Recording, Write, variants
from mockhttp.record._cli import with_variants
from tests.helpers.clients import raw_exchange
from tests.helpers.record_streams import (
    TEXT,
    anthropic_events,
    openai_events,
    recording_of,
    text_of_anthropic_body,
    text_of_openai_body,
)

OPENAI = recording_of(openai_events())
ANTHROPIC = recording_of(anthropic_events())
OPENAI_VARIANTS = variants(OPENAI)
ANTHROPIC_VARIANTS = variants(ANTHROPIC)
CHAT = "/v1/chat/completions"


def test_every_variant_applies_to_an_openai_stream() -> None:
    assert list(OPENAI_VARIANTS) == list(VARIANTS)
    assert all(v.variant == name for name, v in OPENAI_VARIANTS.items())


def test_the_openai_only_variants_do_not_apply_to_an_anthropic_stream() -> None:
    assert set(VARIANTS) - set(ANTHROPIC_VARIANTS) == {
        "empty_choices",
        "event_lines",
        "closed_without_done",
    }
    with pytest.raises(mockhttp.ConfigError, match="first event is not a JSON chunk"):
        ANTHROPIC.with_(variant="empty_choices")


def _served(server: mockhttp.Server, reply: Recording, path: str = CHAT) -> None:
    server.reset()
    server.mock(mockhttp.post(path).reply(reply))


@pytest.mark.parametrize("name", list(VARIANTS))
def test_mockhttp_decoder_and_openai_sdk_keep_the_text(server: mockhttp.Server, name: str) -> None:
    variant = OPENAI_VARIANTS[name]
    _served(server, variant)
    with httpx.stream("POST", server.url + CHAT) as response:
        reads = list(response.iter_raw())
    body = b"".join(reads)
    assert body == b"".join(w.data for w in variant.played.writes)
    text, done = text_of_openai_body(body)
    assert text == TEXT
    # no_last_blank: [DONE] is there, but an event without its blank line is never
    # dispatched (WHATWG), so a correct decoder keeps the text and not the sentinel
    assert done is (name not in ("closed_without_done", "no_last_blank"))
    with openai.OpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=0) as client:
        stream = client.chat.completions.create(model="gpt-test", messages=[], stream=True)
        assert "".join((c.choices[0].delta.content or "") for c in stream if c.choices) == TEXT


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_contract_check_reports_a_missing_done(name: str) -> None:
    """A correct client reports closed_without_done (here: the contract rules).  With
    no_last_blank the [DONE] is sent but never dispatched (an event needs its blank line),
    which the check reports too, as an unterminated event; the others keep [DONE]."""
    body = b"".join(w.data for w in OPENAI_VARIANTS[name].played.writes)
    findings = {f.rule for f in check(Transcript.from_body(body), "openai-chat")}
    assert ("openai.done" in findings) is (name in ("closed_without_done", "no_last_blank"))
    assert ("sse.unterminated" in findings) is (name == "no_last_blank")


@pytest.mark.parametrize("name", list(variants(ANTHROPIC)))
def test_mockhttp_decoder_and_anthropic_sdk_keep_the_text(
    server: mockhttp.Server, name: str
) -> None:
    variant = ANTHROPIC_VARIANTS[name]
    _served(server, variant, "/v1/messages")
    body = httpx.post(server.url + "/v1/messages").content
    assert text_of_anthropic_body(body) == TEXT
    with (
        anthropic.Anthropic(base_url=server.url, api_key="sk-test", max_retries=0) as client,
        client.messages.stream(
            model="claude-test", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
        ) as stream,
    ):
        assert "".join(stream.text_stream) == TEXT


def _body(name: str) -> bytes:
    return b"".join(w.data for w in OPENAI_VARIANTS[name].played.writes)


def test_the_variants_change_what_they_say() -> None:
    original = OPENAI.body_bytes
    assert _body("comment").startswith(b": mockhttp comment\ndata: ")
    assert _body("comment").count(b": mockhttp comment\n") == len(openai_events())
    assert _body("keep_alive").count(b": keep-alive\n\n") == 2
    assert _body("crlf") == original.replace(b"\n", b"\r\n")
    assert _body("cr") == original.replace(b"\n", b"\r")
    assert _body("no_space") == original.replace(b"data: ", b"data:")
    assert _body("split_crlf") == original.replace(b"\n", b"\r\n")
    assert _body("id_retry").startswith(b"id: 1\nretry: 3000\ndata: ")
    assert _body("event_lines").count(b"event: message\n") == len(openai_events())
    assert _body("no_last_blank") == original[:-1]
    assert _body("closed_without_done") == original[: -len(b"data: [DONE]\n\n")]
    first = json.loads(_body("empty_choices").split(b"\n\n")[0][len(b"data: ") :])
    assert first == {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-test",
        "choices": [],
    }
    for name in ("one_byte_writes", "split_utf8"):
        assert _body(name) == original


def test_the_write_variants_cut_where_they_say() -> None:
    writes = OPENAI_VARIANTS["one_byte_writes"].played.writes
    assert {len(w.data) for w in writes} == {1}
    assert [w.at for w in writes][:: len(writes) - 1] == [0.0, OPENAI.writes[-1].at]
    split = OPENAI_VARIANTS["split_utf8"].played.writes
    cut = [w.data for w in split]
    assert any(d.endswith(b"H\xc3") for d in cut)  # "é" is cut after its first byte
    assert len(cut) == len(OPENAI.writes) + 2  # and the first of "ö" and of "✓"
    crlf = [w.data for w in OPENAI_VARIANTS["split_crlf"].played.writes]
    assert not any(b"\r\n" in d for d in crlf)  # every CRLF is cut in two
    assert sum(d.count(b"\r") for d in crlf) == OPENAI.body_bytes.count(b"\n")
    for this, after in itertools.pairwise(crlf):
        assert this.endswith(b"\r") == after.startswith(b"\n")


def test_the_keep_alives_come_between_the_events() -> None:
    writes = OPENAI_VARIANTS["keep_alive"].played.writes
    pings = [i for i, w in enumerate(writes) if w.data == b": keep-alive\n\n"]
    for i in pings:
        assert writes[i - 1].at < writes[i].at < writes[i + 1].at


def test_a_variant_of_a_mock_is_a_mock_with_the_variants_reply() -> None:
    mock = mockhttp.post(CHAT, name="chat").reply(OPENAI)
    found = variants(mock)
    assert found["crlf"].name == "chat [crlf]"
    assert found["crlf"].response == OPENAI.with_(variant="crlf")
    with pytest.raises(mockhttp.ConfigError, match="does not reply with a recording"):
        variants(mockhttp.post(CHAT))


def test_variants_need_an_event_stream() -> None:
    buffered = Recording(headers=(("Content-Type", "application/json"),), writes=(Write(0, b"{}"),))
    with pytest.raises(mockhttp.ConfigError, match="need an event stream"):
        variants(buffered)
    with pytest.raises(mockhttp.ConfigError, match="unknown variant 'crlff'"):
        OPENAI.with_(variant="crlff")


def test_split_utf8_needs_a_multi_byte_character() -> None:
    ascii_only = recording_of([mockhttp.Event(data="plain"), mockhttp.Event(data="[DONE]")])
    assert "split_utf8" not in variants(ascii_only)


def test_each_variant_gives_one_test_id_per_variant(pytester: pytest.Pytester) -> None:
    path = pytester.path / "chat.yaml"
    path.write_text(mockhttp.dump(mockhttp.post(CHAT, name="chat").reply(OPENAI)))
    pytester.makepyfile(
        test_user=f"""
import httpx
import mockhttp.record

@mockhttp.record.each_variant({str(path)!r})
def test_client(mockhttp_server, variant):
    mockhttp_server.mock(variant)
    body = httpx.post(mockhttp_server.url + "{CHAT}").content
    assert b"data: [DONE]" in body.replace(b"data:[DONE]", b"data: [DONE]")
"""
    )
    result = pytester.runpytest("-p", "mockhttp", "-p", "no:cacheprovider", "-v")
    result.assert_outcomes(passed=len(VARIANTS), failed=1)
    result.stdout.fnmatch_lines(
        [
            "*test_client?original? PASSED*",
            "*test_client?crlf? PASSED*",
            "*test_client?closed_without_done? FAILED*",
        ]
    )


def test_an_unfinished_last_event_stays_unfinished() -> None:
    """A recording cut inside its last event: the variants keep the cut lines, unfinished."""
    cut = Recording(
        headers=(("Content-Type", "text/event-stream"),),
        writes=(Write(0, b"data: one\n\n"), Write(0.01, b"data: tw")),
    )
    found = variants(cut)
    assert "no_last_blank" not in found
    crlf = b"".join(w.data for w in found["crlf"].played.writes)
    assert crlf == b"data: one\r\n\r\ndata: tw\r\n"
    from mockhttp.sse import Message, decode

    assert [i.data for i in decode(crlf) if isinstance(i, Message)] == ["one"]


# -- every mock again under /<variant>/ (mockhttp serve --variants) ---------------------


def _serve_with_variants(server: mockhttp.Server, *mocks: mockhttp.Mock) -> None:
    """``mocks`` served as ``mockhttp serve --variants`` serves them, beside a recording."""
    expanded, names = with_variants([mockhttp.post(CHAT, name="chat").reply(OPENAI), *mocks])
    assert names == list(VARIANTS)
    for mock in expanded:
        server.mock(mock)


def _raw(server: mockhttp.Server, path: str, body: bytes) -> bytes:
    """Every byte of the reply to a POST of ``body``, on its own connection."""
    head = f"POST {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: {len(body)}"
    return raw_exchange(server.url, head.encode() + b"\r\n\r\n" + body)


def test_a_reply_kind_answers_under_a_variant_byte_for_byte_as_unprefixed(
    server: mockhttp.Server,
) -> None:
    _serve_with_variants(server, mockhttp.post("/v1/kind").reply(llm.openai_chat("Hi there")))
    asks = [
        json.dumps({"model": "gpt-kind", "stream": stream, "messages": []}).encode()
        for stream in (True, False, True)
    ]
    original = [_raw(server, "/v1/kind", body) for body in asks]
    assert original[0].startswith(b"HTTP/1.1 200 OK\r\n")
    assert b"data: [DONE]" in original[0]
    assert b'"content":"Hi there"' in original[1]
    assert original[2] != original[0]  # the third call has ids of its own
    for name in ("comment", "crlf", "closed_without_done"):
        assert [_raw(server, f"/{name}/v1/kind", body) for body in asks] == original, name


def test_a_sequence_answers_under_a_variant_in_order(server: mockhttp.Server) -> None:
    steps = mockhttp.get("/v1/steps").replies(
        mockhttp.ok().body("one"), mockhttp.ok().body("two"), exhausted="unmatched"
    )
    _serve_with_variants(server, steps)
    with httpx.Client(base_url=server.url) as client:
        for prefix in ("", "/crlf", "/one_byte_writes"):
            answers = [client.get(f"{prefix}/v1/steps") for _ in range(3)]
            assert [(r.status_code, r.text) for r in answers[:2]] == [(200, "one"), (200, "two")]
            assert answers[2].status_code == 404, prefix


def test_a_scenario_starts_again_under_each_variant(server: mockhttp.Server) -> None:
    first = mockhttp.get("/v1/turn").reply(mockhttp.ok().body("first"))
    second = mockhttp.get("/v1/turn").reply(mockhttp.ok().body("second"))
    _serve_with_variants(
        server,
        first.scenario("talk", "Started", "answered"),
        second.scenario("talk", "answered"),
    )
    with httpx.Client(base_url=server.url) as client:
        for prefix in ("", "/cr", "/keep_alive"):
            turns = [client.get(f"{prefix}/v1/turn").text for _ in range(3)]
            assert turns == ["first", "second", "second"], prefix
    assert server.scenario_state("talk") == "answered"
    assert server.scenario_state("cr/talk") == "answered"
    assert server.scenario_state("crlf/talk") == "Started"
