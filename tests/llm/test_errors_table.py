"""llm/_errors.py: the error table of the module's docstring, entry by entry, and each
official SDK's view of every entry.

Pure: for each name and provider, the status and the type/code/status name the docstring's
table gives; the rate-limit header families; ``ErrorOptions`` and ``merge_headers``.
Then on a loopback socket: openai, anthropic and google-genai raise the exception class
that belongs to each status, with the provider's own type or code read from the body.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import anthropic
import openai
import pytest
from google.genai import errors as genai_errors
from google.genai import types

import mockhttp
from mockhttp import llm
from mockhttp.llm._errors import (
    ERRORS,
    NO_OPTIONS,
    ErrorOptions,
    _seconds_text,
    anthropic_error,
    gemini_error,
    merge_headers,
    openai_error,
)

# name: (OpenAI status, type, code), (Anthropic status, type), (Gemini status, status name)
TABLE: dict[str, tuple[tuple[int, str, str | None], tuple[int, str], tuple[int, str]]] = {
    "rate_limit": (
        (429, "requests", "rate_limit_exceeded"),
        (429, "rate_limit_error"),
        (429, "RESOURCE_EXHAUSTED"),
    ),
    "overloaded": ((503, "server_error", None), (529, "overloaded_error"), (503, "UNAVAILABLE")),
    "context_length": (
        (400, "invalid_request_error", "context_length_exceeded"),
        (400, "invalid_request_error"),
        (400, "INVALID_ARGUMENT"),
    ),
    "invalid_key": (
        (401, "invalid_request_error", "invalid_api_key"),
        (401, "authentication_error"),
        (400, "INVALID_ARGUMENT"),
    ),
    "server_error": ((500, "server_error", None), (500, "api_error"), (500, "INTERNAL")),
}


def test_the_table_names_every_error_in_order() -> None:
    assert list(ERRORS) == list(TABLE)


@pytest.mark.parametrize("name", list(TABLE))
def test_each_entry_in_each_providers_shape(name: str) -> None:
    (o_status, o_type, o_code), (a_status, a_type), (g_status, g_name) = TABLE[name]
    status, body, _ = openai_error(name)
    assert status == o_status
    assert set(body["error"]) == {"message", "type", "param", "code"}
    assert (body["error"]["type"], body["error"]["code"]) == (o_type, o_code)
    status, body, _ = anthropic_error(name)
    assert status == a_status
    assert body == {"type": "error", "error": {"type": a_type, "message": body["error"]["message"]}}
    status, body, _ = gemini_error(name)
    assert (status, body["error"]["code"], body["error"]["status"]) == (g_status, g_status, g_name)
    assert body["error"]["message"]


def test_openais_context_length_names_its_param() -> None:
    assert openai_error("context_length")[1]["error"]["param"] == "messages"
    assert openai_error("server_error")[1]["error"]["param"] is None


def test_a_rate_limit_carries_each_providers_header_family() -> None:
    openai_headers = dict(openai_error("rate_limit")[2])
    assert openai_headers["retry-after"] == "1"
    assert openai_headers["x-ratelimit-reset-requests"] == "1s"  # durations
    assert openai_headers["x-ratelimit-remaining-requests"] == "0"
    anthropic_headers = dict(anthropic_error("rate_limit")[2])
    assert anthropic_headers["retry-after"] == "1"
    reset = anthropic_headers["anthropic-ratelimit-requests-reset"]
    assert datetime.fromisoformat(reset.replace("Z", "+00:00")).tzinfo is not None  # RFC 3339
    assert gemini_error("rate_limit")[2] == ()  # Gemini puts the wait in the body
    details = gemini_error("rate_limit")[1]["error"]["details"]
    assert details == [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "1s"}]


def test_other_errors_carry_no_rate_limit_headers() -> None:
    for name in ("overloaded", "context_length", "invalid_key", "server_error"):
        assert openai_error(name)[2] == ()
        assert anthropic_error(name)[2] == ()


def test_geminis_bad_key_says_its_reason() -> None:
    details = gemini_error("invalid_key")[1]["error"]["details"]
    assert details[0]["reason"] == "API_KEY_INVALID"
    assert "details" not in gemini_error("server_error")[1]["error"]


def test_error_options_replace_the_tables_words() -> None:
    own = ErrorOptions("msg", "E42", "my_type", 2.5)
    assert openai_error("overloaded", own)[1]["error"] == {
        "message": "msg",
        "type": "my_type",
        "param": None,
        "code": "E42",
    }
    assert anthropic_error("overloaded", own)[1]["error"] == {"type": "my_type", "message": "msg"}
    error = gemini_error("server_error", own)[1]["error"]
    assert (error["message"], error["status"]) == ("msg", "my_type")
    assert error["details"][0]["retryDelay"] == "2.5s"  # a wait given: in the body too
    for made in (openai_error("overloaded", own), anthropic_error("overloaded", own)):
        assert dict(made[2]) == {"retry-after": "2.5"}


def test_a_given_wait_replaces_the_tables_retry_after_once() -> None:
    headers = openai_error("rate_limit", ErrorOptions(retry_after=0))[2]
    assert [v for k, v in headers if k == "retry-after"] == ["0"]
    assert len(headers) == len(openai_error("rate_limit")[2])


def test_no_options_change_nothing() -> None:
    assert NO_OPTIONS.headers((("a", "1"),)) == (("a", "1"),)
    assert openai_error("rate_limit", NO_OPTIONS) == openai_error("rate_limit")


@pytest.mark.parametrize(
    ("value", "text"), [(0, "0"), (2, "2"), (2.0, "2"), (0.5, "0.5"), (1.25, "1.25")]
)
def test_seconds_text(value: float, text: str) -> None:
    assert _seconds_text(value) == text


def test_merge_headers_later_groups_replace_earlier_names_in_any_case() -> None:
    merged = merge_headers(
        (("Retry-After", "1"), ("x-a", "1")), (("retry-after", "0"),), (("X-A", "2"), ("x-b", "3"))
    )
    assert merged == (("retry-after", "0"), ("X-A", "2"), ("x-b", "3"))
    assert merge_headers() == ()
    assert merge_headers((("a", "1"), ("a", "2"))) == (
        ("a", "1"),
        ("a", "2"),
    )  # repeats kept within a group


# -- each SDK's view, on a loopback socket -------------------------------------------------

OPENAI_CLASSES = {
    "rate_limit": openai.RateLimitError,
    "overloaded": openai.InternalServerError,
    "context_length": openai.BadRequestError,
    "invalid_key": openai.AuthenticationError,
    "server_error": openai.InternalServerError,
}
ANTHROPIC_CLASSES = {
    "rate_limit": anthropic.RateLimitError,
    "overloaded": anthropic.OverloadedError,
    "context_length": anthropic.BadRequestError,
    "invalid_key": anthropic.AuthenticationError,
    "server_error": anthropic.InternalServerError,
}
USER: Any = [{"role": "user", "content": "Hi"}]


@pytest.mark.parametrize("name", list(TABLE))
def test_the_openai_sdk_raises_the_class_of_each_status(server: mockhttp.Server, name: str) -> None:
    server.mock(mockhttp.post("/v1/chat/completions").reply(llm.openai_chat(error=name)))
    with (
        openai.OpenAI(base_url=server.url + "/v1", api_key="sk", max_retries=0) as client,
        pytest.raises(OPENAI_CLASSES[name]) as raised,
    ):
        client.chat.completions.create(model="m", messages=USER)
    (status, kind, code) = TABLE[name][0]
    assert (raised.value.status_code, raised.value.type, raised.value.code) == (status, kind, code)
    assert raised.value.request_id is not None


@pytest.mark.parametrize("name", list(TABLE))
def test_the_anthropic_sdk_raises_the_class_of_each_status(
    server: mockhttp.Server, name: str
) -> None:
    server.mock(mockhttp.post("/v1/messages").reply(llm.anthropic_messages(error=name)))
    with (
        anthropic.Anthropic(base_url=server.url, api_key="sk", max_retries=0) as client,
        pytest.raises(ANTHROPIC_CLASSES[name]) as raised,
    ):
        client.messages.create(model="m", max_tokens=8, messages=USER)
    status, kind = TABLE[name][1]
    assert raised.value.status_code == status
    assert isinstance(raised.value.body, dict)
    assert raised.value.body["error"]["type"] == kind
    assert raised.value.request_id == raised.value.body["request_id"]


@pytest.mark.parametrize("name", list(TABLE))
def test_google_genai_raises_client_or_server_errors(server: mockhttp.Server, name: str) -> None:
    from google import genai

    path = mockhttp.match.regex(r"^/v1beta/models/[^/]+:generateContent$")
    server.mock(mockhttp.post(path).reply(llm.gemini(error=name)))
    options = types.HttpOptions(
        base_url=server.url, api_version="v1beta", retry_options=types.HttpRetryOptions(attempts=1)
    )
    status, state = TABLE[name][2]
    expected = genai_errors.ClientError if status < 500 else genai_errors.ServerError
    with (
        genai.Client(api_key="k", http_options=options) as client,
        pytest.raises(expected) as raised,
    ):
        client.models.generate_content(model="g", contents="Hi")
    assert (raised.value.code, raised.value.status) == (status, state)
