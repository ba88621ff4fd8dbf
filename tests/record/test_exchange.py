"""From one recorded exchange to a mock (``record/_exchange.py``): what identifies a
request, which values are secrets, and the redacted reply."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

import mockhttp
from mockhttp._core._fault import EmptyResponse, Reset
from mockhttp._core._request import Headers, Request
from mockhttp.record import REDACTED, Recording, Write
from mockhttp.record._exchange import Exchange, identity, key_of, secrets_of, to_mock

CHAT = "/v1/chat/completions"
TOKEN = "sk-live-0123456789abcdef"


def _post(body: Any, *headers: tuple[str, str], path: str = CHAT) -> Request:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return Request("POST", path, Headers(headers), raw)


def _ask(last: str, **extra: Any) -> Request:
    messages = [{"role": "system", "content": "be brief"}, {"role": "user", "content": last}]
    return _post({"model": "gpt-test", "stream": True, "messages": messages, **extra})


def _exchange(req: Request, *writes: Write, **fields: Any) -> Exchange:
    head = (("Content-Type", "text/event-stream"), ("Transfer-Encoding", "chunked"))
    base: dict[str, Any] = {"status": 200, "reason": "OK", "headers": head, "head_delay": 0.05}
    base.update(fields)
    return Exchange(req, writes=writes, length=None, **base)


# -- identity and repeats ------------------------------------------------------------------


def test_the_identity_is_model_stream_and_the_last_message() -> None:
    assert identity(_ask("hi", temperature=0.2)) == [
        ("$.model", "gpt-test"),
        ("$.stream", True),
        ("$.messages[-1]", {"role": "user", "content": "hi"}),
    ]


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({"model": "m", "input": "hello"}, [("$.model", "m"), ("$.input", "hello")]),
        ({"input": [{"role": "user"}, "last"]}, [("$.input[-1]", "last")]),
        ({"model": "m", "messages": [], "input": "x"}, [("$.model", "m"), ("$.input", "x")]),
        ({"input": []}, []),
        ({"stream": False}, [("$.stream", False)]),
        ([1, 2], []),  # JSON, but not an object
        (b"not json", []),
        (b"", []),
    ],
)
def test_the_identity_of_other_bodies(body: Any, fields: list[tuple[str, Any]]) -> None:
    assert identity(_post(body)) == fields


def test_repeats_share_a_key_whatever_else_differs() -> None:
    once = _ask("hi", temperature=0.2)
    again = _ask("hi", temperature=0.9)
    assert key_of(once) == key_of(again)
    assert key_of(once) != key_of(_ask("bye"))
    assert key_of(once) != key_of(Request("PUT", CHAT, body=once.body))
    assert key_of(once) != key_of(_post(json.loads(once.body), path="/v2/chat"))


# -- secrets -------------------------------------------------------------------------------


def test_secrets_are_the_values_of_the_named_headers_tokens_without_their_scheme() -> None:
    req = Request(
        "POST",
        CHAT,
        Headers(
            (
                ("Authorization", f"Bearer {TOKEN}"),
                ("X-Api-Key", "key-42"),
                ("Cookie", "  "),  # blank: nothing to hide
                ("User-Agent", "not-a-secret"),
            )
        ),
    )
    assert secrets_of(req) == [TOKEN, "key-42"]  # longest first, without the scheme


def test_a_value_shorter_than_four_characters_is_not_searched_for() -> None:
    """``abc`` would scrub every "abc" in a body: its header alone is hidden."""
    req = Request("GET", "/", Headers((("authorization", "Basic abc"),)))
    assert secrets_of(req) == []


def test_a_short_secret_is_replaced_as_a_whole_token_only() -> None:
    """A secret inside a longer token (``key-42`` in ``monkey-420``) is left alone."""
    req = Request("POST", CHAT, Headers((("x-api-key", "key-42"),)), b"{}")
    body = b"monkey-420 key-42, xkey-42 (key-42)"
    reply = to_mock(_exchange(req, Write(0, body))).response
    assert isinstance(reply, Recording)
    assert reply.body_bytes == b"monkey-420 REDACTED, xkey-42 (REDACTED)"


def test_a_query_key_is_a_secret_wherever_the_reply_repeats_it() -> None:
    """Gemini clients send their key as ``?key=``."""
    req = Request("POST", "/v1beta/models/g:streamGenerateContent?alt=sse&key=AIzaGem1ni")
    reply = to_mock(_exchange(req, Write(0, b'{"echo": "key=AIzaGem1ni"}'))).response
    assert isinstance(reply, Recording)
    assert reply.body_bytes == b'{"echo": "key=REDACTED"}'


# -- to_mock -------------------------------------------------------------------------------


def test_the_mock_answers_the_same_request_and_not_another_last_message() -> None:
    mock = to_mock(_exchange(_ask("hi"), Write(0, b"data: x\n\n")))
    assert mock.matches(_ask("hi", temperature=1))
    assert not mock.matches(_ask("bye"))
    assert not mock.matches(Request("GET", CHAT, body=_ask("hi").body))
    assert (mock.name, mock.priority) == ('openai chat stream "hi"', 0)


def test_a_later_call_of_the_same_request_ranks_lower_and_says_which_it_is() -> None:
    mock = to_mock(_exchange(_ask("hi")), call=2, name="chat")
    assert (mock.name, mock.priority) == ("chat (call 3)", -2)


def test_the_reply_keeps_status_timing_and_writes_without_hop_by_hop_headers() -> None:
    writes = (Write(0.0, b"data: a\n\n"), Write(0.25, b"data: [DONE]\n\n"))
    mock = to_mock(_exchange(_ask("hi"), *writes, head_delay=0.1234567, end="close"))
    reply = mock.response
    assert isinstance(reply, Recording)
    assert (reply.status_code, reply.writes, reply.end) == (200, writes, "close")
    assert reply.head_delay == 0.123457
    assert reply.headers == (("Content-Type", "text/event-stream"),)
    assert reply.length is None


def test_named_headers_are_redacted_and_secrets_replaced_wherever_the_reply_repeats_them() -> None:
    req = Request("POST", CHAT, Headers((("Authorization", f"Bearer {TOKEN}"),)), b"{}")
    headers = (
        ("Set-Cookie", "s=1"),
        ("X-Echo", f"you sent {TOKEN}"),
        ("Content-Length", "60"),
    )
    body = f'{{"error": "bad key {TOKEN}"}}'.encode()
    exchange = Exchange(req, 401, "Unauthorized", headers, 0.0, (Write(0, body),), len(body))
    reply = to_mock(exchange).response
    assert isinstance(reply, Recording)
    assert reply.headers == (("Set-Cookie", REDACTED), ("X-Echo", f"you sent {REDACTED}"))
    assert reply.body_bytes == b'{"error": "bad key REDACTED"}'
    assert reply.length == len(reply.body_bytes)  # the announced length follows the body


def test_a_secret_cut_across_writes_is_joined_then_replaced() -> None:
    """Writes keep their boundaries, except those a secret spans: joined at the time of
    the last, so no piece of the secret is left in any write."""
    req = Request("POST", CHAT, Headers((("x-api-key", TOKEN),)), b"{}")
    writes = (
        Write(0.0, b"data: a\n\n"),
        Write(0.1, b"data: " + TOKEN[:5].encode()),
        Write(0.2, TOKEN[5:12].encode()),
        Write(0.3, TOKEN[12:].encode() + b"\n\n"),
        Write(0.4, b"data: [DONE]\n\n"),
    )
    reply = to_mock(_exchange(req, *writes)).response
    assert isinstance(reply, Recording)
    assert reply.writes == (
        Write(0.0, b"data: a\n\n"),
        Write(0.3, b"data: REDACTED\n\n"),
        Write(0.4, b"data: [DONE]\n\n"),
    )


def test_a_custom_redaction_list_adds_to_the_rule() -> None:
    req = Request("POST", CHAT, Headers((("X-Team", "team-secret"),)), b"{}")
    headers = (("X-Team", "team-secret"), ("Set-Cookie", "s=1"))
    exchange = Exchange(req, 200, "OK", headers, 0.0, (Write(0, b"team-secret"),), None)
    reply = to_mock(exchange, redact=["x-team"]).response
    assert isinstance(reply, Recording)
    assert reply.headers == (("X-Team", REDACTED), ("Set-Cookie", REDACTED))
    assert reply.body_bytes == REDACTED.encode()


@pytest.mark.parametrize(
    ("failure", "kind"),
    [("reset", Reset), ("empty_response", EmptyResponse)],
)
def test_a_failure_before_the_head_replays_as_its_fault(failure: str, kind: type) -> None:
    exchange = Exchange(_ask("hi"), 0, "", (), 0.0, (), None, failure=failure)
    mock = to_mock(exchange)
    assert [type(f) for f in mock.faults] == [kind]
    assert not isinstance(mock.response, Recording)


def test_a_reset_upstream_resets_the_replayed_connection(server: mockhttp.Server) -> None:
    server.mock(to_mock(Exchange(_ask("hi"), 0, "", (), 0.0, (), None, failure="reset")))
    with pytest.raises((httpx.ReadError, httpx.RemoteProtocolError)):
        httpx.post(server.url + CHAT, content=_ask("hi").body)
