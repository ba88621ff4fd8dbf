"""The one redaction rule (pure): which names are secret, whole-token value matching."""

from __future__ import annotations

import pytest

from mockhttp._core._redact import Redactor, is_secret, masked

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
