"""The CORS decisions: which headers a reply gets, what a preflight is answered."""

from __future__ import annotations

import re

import pytest

from mockhttp import ConfigError
from mockhttp._core._cors import Cors, cors_policy, exposed_names
from mockhttp._core._request import Headers, Request

PAGE = "http://localhost:3000"


def _request(method: str = "POST", **headers: str) -> Request:
    pairs = tuple((name.replace("_", "-"), value) for name, value in headers.items())
    return Request(method, "/v1/chat/completions", Headers(pairs), b"")


def test_an_allowed_origin_is_echoed_with_credentials() -> None:
    """Rule 1: the page's origin comes back (never ``*``), with credentials allowed."""
    assert Cors().headers(_request(Origin=PAGE)) == (
        ("Access-Control-Allow-Origin", PAGE),
        ("Access-Control-Allow-Credentials", "true"),
        ("Vary", "Origin"),
    )


def test_another_origin_and_no_origin_get_only_vary() -> None:
    """An origin not in the list, or a request without one, gets ``Vary: Origin`` only."""
    cors = Cors(frozenset({PAGE}))
    assert cors.headers(_request(Origin="http://evil.test")) == (("Vary", "Origin"),)
    assert cors.headers(_request()) == (("Vary", "Origin"),)
    assert cors.allows(PAGE + "/")
    assert cors.allows("HTTP://LOCALHOST:3000")


def test_a_preflight_is_answered_for_the_method_and_headers_asked() -> None:
    """Rule 3: exactly what the preflight asks for is allowed."""
    asked = "authorization, content-type, x-stainless-os, anthropic-version, x-api-key"
    reply = Cors().preflight(
        _request(
            "OPTIONS",
            Origin=PAGE,
            Access_Control_Request_Method="POST",
            Access_Control_Request_Headers=asked,
        )
    )
    assert reply is not None
    assert reply.status_code == 204
    assert dict(reply.headers) == {
        "Access-Control-Allow-Origin": PAGE,
        "Access-Control-Allow-Credentials": "true",
        "Vary": "Origin",
        "Access-Control-Allow-Methods": "POST",
        "Access-Control-Allow-Headers": asked,
    }


def test_only_an_options_with_origin_and_method_is_a_preflight() -> None:
    """A plain OPTIONS, or one without Access-Control-Request-Method, goes to the mocks."""
    cors = Cors()
    assert cors.preflight(_request("OPTIONS", Origin=PAGE)) is None
    assert cors.preflight(_request("OPTIONS", Access_Control_Request_Method="POST")) is None
    assert (
        cors.preflight(_request("POST", Origin=PAGE, Access_Control_Request_Method="POST")) is None
    )


def test_a_preflight_from_another_origin_is_refused_with_the_reason() -> None:
    """A 403 that names the origin and the allowed ones."""
    reply = Cors(frozenset({PAGE})).preflight(
        _request("OPTIONS", Origin="http://evil.test", Access_Control_Request_Method="POST")
    )
    assert reply is not None
    assert reply.status_code == 403
    assert "Access-Control-Allow-Origin" not in dict(reply.headers)
    assert "'http://evil.test' is not allowed by cors (allowed: http://localhost:3000)" in (
        reply.content.decode()
    )


def test_private_network_access_is_allowed_when_asked() -> None:
    """Chromium's Private Network Access preflight gets its allow header."""
    reply = Cors().preflight(
        _request(
            "OPTIONS",
            Origin=PAGE,
            Access_Control_Request_Method="GET",
            Access_Control_Request_Private_Network="true",
        )
    )
    assert reply is not None
    assert dict(reply.headers)["Access-Control-Allow-Private-Network"] == "true"


@pytest.mark.parametrize(
    ("value", "origins"),
    [
        (True, frozenset()),
        ("*", frozenset()),
        ([], frozenset()),
        (PAGE, frozenset({PAGE})),
        (
            ["http://A.test/", "https://b.test:8443"],
            frozenset({"http://a.test", "https://b.test:8443"}),
        ),
    ],
)
def test_cors_values(value: object, origins: frozenset[str]) -> None:
    """True, ``*`` or no origins: any; else the origins given (normalised)."""
    assert cors_policy(value) == Cors(origins)


@pytest.mark.parametrize("value", [None, False])
def test_cors_off(value: object) -> None:
    """None and False: off."""
    assert cors_policy(value) is None


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (3, "cors=3 must be True (any origin), an origin"),
        ("localhost:3000", "cors origin 'localhost:3000' must be scheme://host[:port]"),
        ("http://a.test/app", "cors origin 'http://a.test/app' must not have a path"),
    ],
)
def test_bad_cors_values_say_what_is_expected(value: object, message: str) -> None:
    """A ConfigError naming the value."""
    with pytest.raises(ConfigError, match="^" + re.escape(message)):
        cors_policy(value)


def test_exposed_names_leave_out_safelisted_and_cors_headers() -> None:
    """A page can read the reply's own headers; safelisted ones need no exposing."""
    names = ["Content-Type", "x-request-id", "Retry-After", "Vary", "Access-Control-Max-Age"]
    assert exposed_names([*names, "X-Request-Id"]) == "x-request-id, retry-after"
    assert exposed_names(["content-type"]) == ""


def test_origin_null_is_never_echoed_with_credentials() -> None:
    """Rule 5: ``Origin: null`` (sandboxed iframes, ``file://`` pages) gets ``*`` and no
    credentials with any origin allowed; a list refuses it like any other origin."""
    assert Cors().headers(_request(Origin="null")) == (
        ("Access-Control-Allow-Origin", "*"),
        ("Vary", "Origin"),
    )
    asked = Cors().preflight(
        _request("OPTIONS", Origin="null", Access_Control_Request_Method="POST")
    )
    assert asked is not None
    assert ("Access-Control-Allow-Credentials", "true") not in asked.headers
    assert ("Access-Control-Allow-Origin", "*") in asked.headers
    listed = Cors(frozenset({PAGE}))
    assert listed.headers(_request(Origin="null")) == (("Vary", "Origin"),)
    refused = listed.preflight(
        _request("OPTIONS", Origin="null", Access_Control_Request_Method="GET")
    )
    assert refused is not None
    assert refused.status_code == 403
    with pytest.raises(ConfigError, match="scheme://host"):
        cors_policy(["null"])
