"""JSON-RPC 2.0, the shared envelope: what each body reads as, and the answers written."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mockhttp._core import _jsonrpc as rpc
from mockhttp._core._jsonrpc import Batch, Invalid, Request, Response


def test_a_request_is_read_with_its_id_and_params() -> None:
    body = b'{"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {"cursor": "c"}}'
    assert rpc.parse(body) == Request("tools/list", {"cursor": "c"}, 7)


def test_a_message_without_id_is_a_notification() -> None:
    read = rpc.parse('{"jsonrpc": "2.0", "method": "notifications/initialized"}')
    assert read == Request("notifications/initialized", notification=True)
    assert isinstance(read, Request)
    assert read.data() == {"jsonrpc": "2.0", "method": "notifications/initialized"}


def test_a_null_id_is_a_request_not_a_notification() -> None:
    """The spec allows null as an id (discouraged); the message still expects an answer."""
    read = rpc.parse('{"jsonrpc": "2.0", "id": null, "method": "ping"}')
    assert read == Request("ping", None, None, notification=False)


def test_params_by_position_are_kept_but_named_is_empty() -> None:
    read = rpc.parse('{"jsonrpc": "2.0", "id": "a", "method": "sum", "params": [1, 2]}')
    assert isinstance(read, Request)
    assert (read.params, dict(read.named)) == ([1, 2], {})


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('{"jsonrpc": "2.0", "id": 1, "result": {"ok": true}}', Response(1, {"ok": True})),
        (
            '{"jsonrpc": "2.0", "id": "x", "error": {"code": -1, "message": "no"}}',
            Response("x", None, {"code": -1, "message": "no"}),
        ),
        ('{"jsonrpc": "2.0", "id": 2, "result": null}', Response(2, None)),
    ],
)
def test_responses(body: str, expected: Response) -> None:
    assert rpc.parse(body) == expected


def test_not_json_is_a_parse_error_without_id() -> None:
    read = rpc.parse(b'{"jsonrpc": "2.0", "id": 1,')
    assert isinstance(read, Invalid)
    answer = read.answer()
    assert (answer["id"], answer["error"]["code"]) == (None, -32700)
    assert answer["error"]["message"].startswith("Parse error: ")


def test_bytes_that_are_not_utf8_are_a_parse_error() -> None:
    read = rpc.parse(b"\xff\xfe{}")
    assert isinstance(read, Invalid)
    assert read.code == rpc.PARSE_ERROR


@pytest.mark.parametrize(
    ("message", "why"),
    [
        ({"jsonrpc": "1.0", "id": 3, "method": "ping"}, 'jsonrpc must be "2.0"'),
        ({"id": 3, "method": "ping"}, 'jsonrpc must be "2.0"'),
        ({"jsonrpc": "2.0", "id": 3, "method": 5}, "method must be a string"),
        (
            {"jsonrpc": "2.0", "id": 3, "method": "m", "params": "x"},
            "params must be an object or an array",
        ),
        ({"jsonrpc": "2.0", "id": 3}, "a response has either result or error"),
        (
            {"jsonrpc": "2.0", "id": 3, "result": 1, "error": {"code": 1, "message": ""}},
            "a response has either result or error",
        ),
        (
            {"jsonrpc": "2.0", "id": 3, "error": {"code": True, "message": "m"}},
            "error must be an object with an integer code",
        ),
        (
            {"jsonrpc": "2.0", "id": 3, "error": "bad"},
            "error must be an object with an integer code",
        ),
    ],
)
def test_an_invalid_message_is_answered_with_its_readable_id(message: Any, why: str) -> None:
    """Rule 2: the id could be read, so the error carries it (not null)."""
    read = rpc.read(message)
    assert read == Invalid(rpc.INVALID_REQUEST, f"Invalid Request: {why}", 3)
    assert isinstance(read, Invalid)
    assert read.answer() == {
        "jsonrpc": "2.0",
        "id": 3,
        "error": {"code": -32600, "message": f"Invalid Request: {why}"},
    }


def test_neither_request_nor_response() -> None:
    assert rpc.read({"jsonrpc": "2.0"}) == Invalid(
        -32600, "Invalid Request: neither a request (method) nor a response (id)"
    )


@pytest.mark.parametrize(
    ("id_", "kind"), [({"a": 1}, "an object"), ([1], "an array"), (True, "a boolean")]
)
def test_an_id_that_is_no_id_is_invalid_and_answered_with_null(id_: object, kind: str) -> None:
    read = rpc.read({"jsonrpc": "2.0", "id": id_, "method": "ping"})
    assert read == Invalid(
        -32600, f"Invalid Request: an id is a string, a number or null, not {kind}", None
    )
    assert rpc.readable_id({"id": id_}) is None


@pytest.mark.parametrize("value", [1, "x", None, True])
def test_a_message_that_is_no_object_is_invalid(value: object) -> None:
    assert rpc.read(value) == Invalid(-32600, "Invalid Request: a message is a JSON object")


def test_a_batch_reads_each_member_on_its_own() -> None:
    read = rpc.read(
        [
            {"jsonrpc": "2.0", "id": 1, "method": "ping"},
            {"jsonrpc": "2.0", "method": "notifications/x"},
            {"jsonrpc": "2.0", "id": 2, "method": 9},
            7,
            {"jsonrpc": "2.0", "id": 9, "result": {}},
        ]
    )
    assert isinstance(read, Batch)
    assert read.messages == (
        Request("ping", None, 1),
        Request("notifications/x", notification=True),
        Invalid(-32600, "Invalid Request: method must be a string", 2),
        Invalid(-32600, "Invalid Request: a message is a JSON object"),
        Response(9, {}),
    )
    assert read.requests == (Request("ping", None, 1),)


def test_an_empty_batch_is_one_invalid_request() -> None:
    assert rpc.parse("[]") == Invalid(-32600, "Invalid Request: an empty batch")


@pytest.mark.parametrize(
    ("value", "expected"),
    [({"id": 5}, 5), ({"id": "a"}, "a"), ({"id": 1.5}, 1.5), ({"id": None}, None), ([], None)],
)
def test_readable_id(value: object, expected: object) -> None:
    assert rpc.readable_id(value) == expected


def test_writers() -> None:
    assert rpc.result(1, {"a": 1}) == {"jsonrpc": "2.0", "id": 1, "result": {"a": 1}}
    assert rpc.error(1, -32601, "Method not found: x") == {
        "jsonrpc": "2.0",
        "id": 1,
        "error": {"code": -32601, "message": "Method not found: x"},
    }
    assert rpc.error("a", 1, "m", {"why": 1})["error"]["data"] == {"why": 1}
    assert rpc.notification("n") == {"jsonrpc": "2.0", "method": "n"}
    assert rpc.notification("n", {"a": 1}) == {"jsonrpc": "2.0", "method": "n", "params": {"a": 1}}


def test_response_data() -> None:
    assert Response(1, 2).data() == {"jsonrpc": "2.0", "id": 1, "result": 2}
    err = {"code": -1, "message": "m"}
    assert Response(1, None, err).data() == {"jsonrpc": "2.0", "id": 1, "error": err}


_ids = st.one_of(st.integers(), st.text(max_size=8))
_params = st.one_of(
    st.none(),
    st.dictionaries(st.text(max_size=4), st.integers(), max_size=3),
    st.lists(st.integers(), max_size=3),
)


@given(method=st.text(max_size=12), params=_params, id_=_ids, notification=st.booleans())
def test_a_request_reads_back_from_its_data(
    method: str, params: Any, id_: Any, notification: bool
) -> None:
    request = Request(method, params, None if notification else id_, notification)
    assert rpc.parse(json.dumps(request.data())) == request


_KEYS = st.sampled_from(["jsonrpc", "id", "method", "params", "result", "error", "code"])
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5) | st.just("2.0"),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=5),
    max_leaves=12,
)


@given(_JSON)
def test_any_json_reads_without_raising_and_errors_keep_a_readable_id(value: Any) -> None:
    """Rule 2 on arbitrary data: an invalid member whose id is a string or number
    carries it."""
    read = rpc.read(value)
    pairs: list[tuple[Any, Any]] = (
        list(zip(read.messages, value, strict=True)) if isinstance(read, Batch) else [(read, value)]
    )
    for member, data in pairs:
        if isinstance(member, Invalid) and isinstance(data, dict) and rpc.is_id(data.get("id")):
            assert member.id == data["id"]
