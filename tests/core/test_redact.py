"""The one redaction rule (pure): which names are secret, whole-token value matching."""

from __future__ import annotations

import pytest

from mockhttp._core._redact import Redactor, is_secret, masked, subprotocol_secrets

NAMES = [
    "Authorization", "Proxy-Authorization", "x-api-key", "api-key", "x-goog-api-key",
    "ocp-apim-subscription-key", "x-functions-key", "api_key", "x-api_key", "key", "x-auth",
    "x-amz-credential", "Cookie", "Set-Cookie", "X-Team-Token", "client_secret",
]  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
def test_secret_names(name: str) -> None:
    assert is_secret(name)


@pytest.mark.parametrize(
    "name", ["content-type", "x-request-id", "idempotency-key", "anthropic-version", "alt"]
)
def test_names_that_are_no_secret(name: str) -> None:
    assert not is_secret(name)


def test_a_value_is_hidden_as_a_whole_token_only() -> None:
    r = Redactor.of([("x-api-key", "key-42")])
    assert (
        r.text("monkey-420 key-42, xkey-42 (key-42)")
        == "monkey-420 [redacted], xkey-42 ([redacted])"
    )
    assert r.data(b"a key-42_b key-42") == b"a key-42_b [redacted]"


def test_a_short_value_is_hidden_by_its_name_only() -> None:
    r = Redactor.of([("x-api-key", "abc")])
    assert r.secrets == ()
    assert r.header("x-api-key", "abc") == "[redacted]"
    assert r.text("abc abc") == "abc abc"


def test_a_scheme_stays_and_its_token_is_the_secret() -> None:
    r = Redactor.of([("Authorization", "Bearer sk-ant-xyz1")])
    assert masked("Bearer sk-ant-xyz1") == "Bearer [redacted]"
    assert r.text('{"auth": "Bearer sk-ant-xyz1"}') == '{"auth": "Bearer [redacted]"}'


def test_query_parameters_known_or_not() -> None:
    r = Redactor.of(query=[("key", "AIza/Gem ni1")])
    assert r.text("/m:gen?alt=sse&key=AIza%2FGem%20ni1") == "/m:gen?alt=sse&key=[redacted]"
    assert r.text("said AIza/Gem ni1") == "said [redacted]"
    assert Redactor().text("/x?api_key=q&x-amz-credential=c&foo=bar") == (
        "/x?api_key=[redacted]&x-amz-credential=[redacted]&foo=bar"
    )


def test_each_cookie_value_and_more_names() -> None:
    r = Redactor.of(
        [("Cookie", "session=s3cr3tv; theme=darkmode"), ("X-Team", "team1234")], names=["x-team"]
    )
    assert r.text("s3cr3tv darkmode team1234") == "[redacted] [redacted] [redacted]"


def test_adding_hides_the_values_a_mock_expects() -> None:
    """``adding``: a secret header's expected value becomes a secret (its token after the
    scheme too); a header that is no secret adds nothing."""
    base = Redactor.of([("authorization", "Bearer sk-sent-1234")])
    more = base.adding([("Authorization", "Bearer sk-expected-99"), ("accept", "text/plain")])
    assert more.text("equal('Bearer sk-expected-99') text/plain sk-sent-1234") == (
        "equal('Bearer [redacted]') text/plain [redacted]"
    )
    assert base.adding([("accept", "text/plain")]) is base


# -- Rule 4: keys in Sec-WebSocket-Protocol -------------------------------------------------------

OPENAI_BROWSER = "realtime, openai-insecure-api-key.sk-proj-Abc_123, openai-beta.realtime-v1"


def test_openais_browser_key_in_a_subprotocol_is_a_secret_everywhere() -> None:
    assert subprotocol_secrets(OPENAI_BROWSER) == ["sk-proj-Abc_123"]
    r = Redactor.of([("Sec-WebSocket-Protocol", OPENAI_BROWSER)])
    assert r.secrets == ("sk-proj-Abc_123",)
    assert r.header("Sec-WebSocket-Protocol", OPENAI_BROWSER) == (
        "realtime, openai-insecure-api-key.[redacted], openai-beta.realtime-v1"
    )
    assert r.text('{"echo": "sk-proj-Abc_123"}') == '{"echo": "[redacted]"}'
    assert r.data(b"key sk-proj-Abc_123.") == b"key [redacted]."


def test_the_sdks_organization_and_project_subprotocols_are_secrets() -> None:
    # openai-node's OpenAIRealtimeWebSocket offers them beside the key (SECRET_NAMES)
    offered = "realtime, openai-insecure-api-key.sk-1234, openai-organization.org-abcd, " + (
        "openai-project.proj_efgh"
    )
    assert subprotocol_secrets(offered) == ["sk-1234", "org-abcd", "proj_efgh"]


def test_the_protocol_after_a_secret_name_or_bearer_is_a_secret() -> None:
    assert subprotocol_secrets("token, dg-key-0099") == ["dg-key-0099"]
    assert subprotocol_secrets("bearer,eyJhbGciOi.x.y") == ["eyJhbGciOi.x.y"]
    assert subprotocol_secrets("Authorization, abcd1234, chat") == ["abcd1234"]


@pytest.mark.parametrize(
    "value", ["chat", "realtime", "chat, superchat", "openai-beta.realtime-v1", "mqtt, v2.json", ""]
)
def test_subprotocols_without_a_key_hold_no_secret(value: str) -> None:
    assert subprotocol_secrets(value) == []
    assert Redactor.of([("Sec-WebSocket-Protocol", value)]).secrets == ()


def test_the_protocol_after_a_named_key_is_not_a_secret_for_it() -> None:
    # "openai-insecure-api-key.K" is a secret name with a dot: only K is the secret
    assert subprotocol_secrets("openai-insecure-api-key.sk-12345, realtime") == ["sk-12345"]


def test_a_key_in_a_subprotocol_reaches_a_requests_redactor() -> None:
    from mockhttp._core._request import Headers, Request

    headers = Headers((("sec-websocket-protocol", OPENAI_BROWSER),))
    r = Redactor.of_request(Request("GET", "/v1/realtime", headers, b""))
    found = r.request_json(
        {"path": "/v1/realtime", "query": [], "headers": [list(h) for h in headers.items_list],
         "body": "sk-proj-Abc_123"}
    )  # fmt: skip
    assert "sk-proj-Abc_123" not in str(found)
