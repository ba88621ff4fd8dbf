"""The request model (``_core/_request.py``): ``Headers`` and ``Request`` as the server
builds them, and one request through a real socket for the bytes a header can carry."""

from __future__ import annotations

import math

import pytest

import mockhttp
from mockhttp._core._request import Headers, Request
from tests.helpers.clients import raw_exchange

SENT = Headers(
    (
        ("Content-Type", "application/json"),
        ("X-Tag", "a"),
        ("x-tag", "b"),
        ("Accept", "*/*"),
        ("X-TAG", "c"),
    )
)


# -- Headers -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["content-type", "Content-Type", "CONTENT-TYPE", "cOnTeNt-TyPe"])
def test_a_header_is_found_by_its_name_in_any_case(name: str) -> None:
    assert SENT[name] == "application/json"
    assert name in SENT
    assert SENT.get(name) == "application/json"


def test_a_repeated_header_gives_its_first_value_and_every_value_in_order() -> None:
    assert SENT["x-tag"] == "a"
    assert SENT.get_all("X-Tag") == ["a", "b", "c"]
    assert SENT.get_all("x-missing") == []


def test_names_are_listed_once_each_in_the_case_first_received() -> None:
    assert list(SENT) == ["Content-Type", "X-Tag", "Accept"]
    assert len(SENT) == 3
    assert dict(SENT.items()) == {"Content-Type": "application/json", "X-Tag": "a", "Accept": "*/*"}


def test_items_list_keeps_every_pair_as_received() -> None:
    assert SENT.items_list[1:3] == (("X-Tag", "a"), ("x-tag", "b"))
    assert len(SENT.items_list) == 5


def test_a_missing_header_raises_key_error_with_its_name() -> None:
    with pytest.raises(KeyError, match="X-Missing"):
        SENT["X-Missing"]
    assert SENT.get("X-Missing") is None
    assert "X-Missing" not in SENT


def test_headers_compare_by_their_pairs_in_order() -> None:
    same = Headers(SENT.items_list)
    assert same == SENT
    assert hash(same) == hash(SENT)
    assert Headers((("A", "1"), ("B", "2"))) != Headers((("B", "2"), ("A", "1")))
    assert Headers((("A", "1"),)) != Headers((("a", "1"),))  # as received, case kept


def test_a_header_value_with_latin1_bytes_arrives_decoded_one_byte_per_character(
    server: mockhttp.Server,
) -> None:
    """RFC 9110 §5.5: obs-text bytes (0x80-0xFF) in a field value; the server reads them
    as latin-1, so each byte is one character and none is lost or replaced."""
    handle = server.mock(mockhttp.get("/h"))
    raw_exchange(
        server.url,
        b"GET /h HTTP/1.1\r\nHost: x\r\nX-Name: caf\xe9 \xff\x80\r\nConnection: close\r\n\r\n",
    )
    received = handle.calls[0].request.headers
    assert received["x-name"] == "caf\xe9 \xff\x80"
    assert received["x-name"].encode("latin-1") == b"caf\xe9 \xff\x80"


# -- target: path and query ---------------------------------------------------------------


def test_the_target_splits_into_a_path_and_query_parameters_in_order() -> None:
    r = Request("GET", "/v1/files?tag=a&limit=10&tag=b")
    assert r.path == "/v1/files"
    assert r.query == (("tag", "a"), ("limit", "10"), ("tag", "b"))
    assert r.query_dict == {"tag": ["a", "b"], "limit": ["10"]}
    assert r.query_value("tag") == "a"
    assert r.query_value("limit") == "10"
    assert r.query_value("missing") is None


def test_query_values_are_decoded_and_blank_ones_kept() -> None:
    r = Request("GET", "/s?q=caf%C3%A9+au+lait&empty=&flag&a%26b=1%3D2")
    assert r.query == (("q", "café au lait"), ("empty", ""), ("flag", ""), ("a&b", "1=2"))


def test_the_path_keeps_its_percent_encoding() -> None:
    r = Request("GET", "/files/a%2Fb%20c?x=1")
    assert r.path == "/files/a%2Fb%20c"
    assert r.target == "/files/a%2Fb%20c?x=1"


@pytest.mark.parametrize(
    ("target", "path", "query"),
    [
        ("//evil.example/e?x=1", "//evil.example/e", (("x", "1"),)),  # a path, not a host
        ("//a//b#frag", "//a//b", ()),
        ("/p#frag?not=query", "/p", ()),
        ("?only=query", "/", (("only", "query"),)),
        ("", "/", ()),
        ("/p?", "/p", ()),
    ],
)
def test_odd_targets_still_give_a_path_and_a_query(
    target: str, path: str, query: tuple[tuple[str, str], ...]
) -> None:
    r = Request("GET", target)
    assert (r.path, r.query) == (path, query)


def test_defaults_are_an_empty_body_and_no_headers_over_http11() -> None:
    r = Request("GET", "/")
    assert (r.body, r.http_version, len(r.headers), len(r.trailers)) == (b"", "1.1", 0, 0)


def test_requests_compare_by_what_was_received() -> None:
    a = Request("POST", "/x?q=1", Headers((("A", "1"),)), b"body")
    assert a == Request("POST", "/x?q=1", Headers((("A", "1"),)), b"body")
    assert a != Request("POST", "/x?q=1", Headers((("A", "1"),)), b"other")
    assert a != Request("POST", "/x?q=1", Headers((("A", "1"),)), b"body", "1.0")


# -- the body: text and JSON ---------------------------------------------------------------


def test_the_text_replaces_bytes_that_are_not_utf8() -> None:
    assert Request("POST", "/", body="héllo".encode()).text == "héllo"
    assert Request("POST", "/", body=b"caf\xe9").text == "caf\ufffd"


@pytest.mark.parametrize(
    ("body", "value"),
    [
        (
            b'{"model": "gpt", "n": [1, 2.5, null, true]}',
            {"model": "gpt", "n": [1, 2.5, None, True]},
        ),
        (b'  "just a string"  \n', "just a string"),
        (b"42", 42),
        ('{"text": "✓"}'.encode("utf-16"), {"text": "✓"}),  # JSON in UTF-16 (RFC 8259 §8.1)
        (b'\xef\xbb\xbf{"bom": 1}', {"bom": 1}),  # a UTF-8 byte order mark is skipped
        (b'{"a": 1, "a": 2}', {"a": 2}),  # a repeated name: the last wins
    ],
)
def test_json_parses_the_body(body: bytes, value: object) -> None:
    assert Request("POST", "/", body=body).json() == value


def test_json_accepts_nan_as_python_does() -> None:
    assert math.isnan(Request("POST", "/", body=b"NaN").json())


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (b"", "Expecting value"),
        (b"{", "Expecting property name"),
        (b'{"a": 1} trailing', "Extra data"),
        (b"\xff\xfe\xfd", "body is not JSON"),  # not text in any encoding JSON allows
        (b"[" * 100_000, "nested too deep"),
    ],
)
def test_json_of_a_body_that_is_not_json_raises_value_error(body: bytes, why: str) -> None:
    with pytest.raises(ValueError, match="body is not JSON") as info:
        Request("POST", "/", body=body).json()
    assert why in str(info.value)


def test_json_is_parsed_once_while_the_request_is_matched_then_dropped() -> None:
    r = Request("POST", "/", body=b'{"a": [1]}')
    assert r.json() is not r.json()  # outside matching: parsed per call, nothing kept
    r._matching(True)
    first = r.json()
    assert r.json() is first  # every matcher shares one parse
    r._matching(False)
    assert r.json() is not first
    assert r.json() == {"a": [1]}


def test_a_kept_parse_failure_raises_each_time() -> None:
    r = Request("POST", "/", body=b"{bad")
    r._matching(True)
    for _ in range(2):
        with pytest.raises(ValueError, match="body is not JSON"):
            r.json()


# -- summary and to_dict -------------------------------------------------------------------


def test_the_summary_is_one_line_with_the_body_cut_at_200_characters() -> None:
    assert Request("GET", "/v1/models?x=1").summary() == "GET /v1/models?x=1"
    long = Request("POST", "/in", body=b"a" * 250)
    assert long.summary() == "POST /in " + "a" * 200 + "…"
    assert Request("POST", "/in", body=b"a" * 200).summary() == "POST /in " + "a" * 200


def test_to_dict_is_json_ready_and_keeps_repeats() -> None:
    r = Request("POST", "/p?k=1&k=2", Headers((("A", "1"), ("a", "2"))), b"caf\xe9")
    assert r.to_dict() == {
        "method": "POST",
        "path": "/p",
        "query": [["k", "1"], ["k", "2"]],
        "headers": [["A", "1"], ["a", "2"]],
        "body": "caf\ufffd",
    }
