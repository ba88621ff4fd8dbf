"""Reading a mock file's YAML nodes (``_mockfile._nodes.At``): every error names the file,
line, column and path, what was found and what was expected; values are JSON values;
aliases cannot blow a document up.  Pure: nodes composed from text, no server."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from mockhttp import ConfigError, MockfileError
from mockhttp._mockfile._nodes import (
    MAX_EXPANSION,
    NOT_PLAIN,
    At,
    check_size,
    describe,
    json_node,
    plain,
    suggest,
)


def node(text: str) -> yaml.Node:
    composed = yaml.compose(text)
    assert composed is not None
    return composed


def at(text: str) -> At:
    return At(node(text), "m.yaml")


def error(call) -> MockfileError:
    with pytest.raises(MockfileError) as caught:
        call()
    return caught.value


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (None, "null"),
        (True, "true"),
        (False, "false"),
        (5, "an int 5"),
        (1.5, "a number 1.5"),
        ("200", "text '200'"),
        ([], "a list"),
        ({}, "a mapping"),
        (b"x", "binary data"),
        ({1}, "a set"),
    ],
)
def test_describe_names_what_was_found(value, shown: str) -> None:
    assert describe(value) == shown


def test_suggest_offers_the_closest_known_name_or_nothing() -> None:
    assert suggest("respnse", {"request", "response"}) == " — did you mean 'response'?"
    assert suggest("zzz", {"request", "response"}) == ""


def test_paths_name_keys_and_indexes_the_way_a_user_writes_them() -> None:
    doc = at("response:\n  event_stream:\n    events:\n      - {data: 1}\n      - {data: x}\n")
    events = doc.descend("response.event_stream.events")
    assert events is not None
    second = events.elements("a list")[1]
    assert second.path == "response.event_stream.events[1]"
    data = second.descend("data")
    assert data is not None
    assert data.path == "response.event_stream.events[1].data"
    assert doc.descend("response.event_stream.events[7]") is None
    assert doc.descend("response.nothing") is None


def test_a_key_that_is_not_a_name_is_shown_in_brackets() -> None:
    doc = at("headers:\n  x-api-key: 1\n  'a b': 2\n")
    headers = doc.fields({"headers"}, "a mapping")["headers"]
    names = [(name, child.path) for name, _, child in headers.items("headers")]
    assert names == [("x-api-key", "headers.x-api-key"), ("a b", "headers['a b']")]


def test_an_error_points_at_the_line_and_column_of_the_node() -> None:
    doc = at("request:\n  path: /x\nresponse:\n  status: '200'\n")
    status = doc.descend("response.status")
    assert status is not None
    found = error(lambda: status.integer("an int"))
    assert str(found) == "m.yaml:4:11 at response.status: found text '200', expected an int"
    assert (found.line, found.column, found.path) == (4, 11, "response.status")


@pytest.mark.parametrize(
    ("raw", "hint"),
    [("200", "; quote it: '200'"), ("yes", "; quote it: 'yes'"), ("null", "; quote it: 'null'"),
     ("1.5", "; quote it: '1.5'")],
)  # fmt: skip
def test_a_number_or_bool_where_text_belongs_gets_a_quoting_hint(raw: str, hint: str) -> None:
    doc = at(f"name: {raw}\n")
    name = doc.descend("name")
    assert name is not None
    assert str(error(lambda: name.text("text"))).endswith(hint)


def test_no_quoting_hint_for_a_list_or_for_what_is_not_text() -> None:
    doc = at("name: [a]\nstatus: x\n")
    name, status = doc.descend("name"), doc.descend("status")
    assert name is not None
    assert status is not None
    assert str(error(lambda: name.text("text"))).endswith("found a list, expected text")
    assert str(error(lambda: status.integer())).endswith("found text 'x', expected an int")


def test_a_bool_is_not_an_int() -> None:
    times = at("times: true\n").descend("times")
    assert times is not None
    assert str(error(lambda: times.integer())).endswith("found true, expected an int")


def test_an_unknown_key_gets_a_suggestion_and_the_list_of_keys() -> None:
    doc = at("request: {}\nrespons: {}\n")
    found = error(lambda: doc.fields({"request", "response", "name"}, "a mock"))
    assert str(found) == (
        "m.yaml:2:1 at respons: unknown key 'respons' — did you mean 'response'?\n"
        "  expected one of: name, request, response"
    )


def test_a_key_given_twice_is_an_error_at_the_second() -> None:
    doc = at("a: 1\nb: 2\na: 3\n")
    found = error(lambda: doc.items("a mapping"))
    assert str(found) == "m.yaml:3:1 at a: duplicate key 'a' (already given as 'a')"


def test_header_names_differing_in_case_are_duplicates_when_folded() -> None:
    doc = at("Authorization: a\nauthorization: b\n")
    assert len(doc.items("headers")) == 2
    found = error(lambda: doc.items("headers", fold_case=True))
    assert "duplicate key 'authorization' (already given as 'Authorization')" in str(found)


def test_a_key_that_is_not_text_is_refused() -> None:
    doc = at("1: a\n")
    assert str(error(lambda: doc.items("a mapping"))).endswith(
        "found an int 1 as a key, expected text"
    )


def test_merge_keys_apply_and_the_mappings_own_keys_win() -> None:
    doc = at("base: &b {status: 200, body: base}\nreply:\n  <<: *b\n  body: own\n")
    reply = doc.descend("reply")
    assert reply is not None
    assert {name: child.value() for name, _, child in reply.items("a mapping")} == {
        "status": 200,
        "body": "own",
    }


def test_items_of_a_list_is_an_error_saying_what_was_expected() -> None:
    assert str(error(lambda: at("[1, 2]").items("the headers"))).endswith(
        "found a list, expected the headers"
    )
    assert str(error(lambda: at("{a: 1}").elements("a list of events"))).endswith(
        "found a mapping, expected a list of events"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "when: 2024-01-02\n",
            "found a date 2024-01-02, expected a JSON value; quote it to send text",
        ),
        ("tags: !!set {a, b}\n", "found a set, expected a JSON value"),
        ("blob: !!binary aGk=\n", "found binary data, expected a JSON value"),
        ("json: {1: x}\n", "found an int 1 as a key, expected text (JSON object keys)"),
    ],
)
def test_values_must_be_json_values(text: str, message: str) -> None:
    assert str(error(lambda: at(text).value())).endswith(message)


def test_a_refused_value_deep_inside_is_placed_at_its_own_path() -> None:
    found = error(lambda: at("json:\n  items:\n    - ok\n    - 2024-01-02\n").value())
    assert found.path == "json.items[1]"
    assert found.line == 4


def test_an_application_tag_is_not_part_of_a_mock_file() -> None:
    found = error(lambda: at("body: !secret x\n").value())
    assert "tags (!name) are not part of mock files" in str(found)
    assert found.line == 1


def test_a_number_too_long_for_python_is_an_error_at_it() -> None:
    found = error(lambda: at("a: 1\nb: [" + "9" * 5000 + "]\n").value())
    assert "found a number of 5,000 digits that Python refuses to read" in str(found)
    assert (found.line, found.column) == (2, 5)


def test_building_turns_a_config_error_into_one_at_the_node() -> None:
    doc = at("status: 99\n")
    status = doc.descend("status")
    assert status is not None

    def build() -> None:
        with status.building():
            raise ConfigError("status=99 must be 100-599")

    assert str(error(build)) == "m.yaml:1:9 at status: status=99 must be 100-599"


def test_billion_laughs_is_refused_at_the_document() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 8)]
    found = error(lambda: check_size(at("\n".join(lines) + "\n")))
    assert f"aliases (*name) expand this document by more than {MAX_EXPANSION:,} nodes" in str(
        found
    )
    assert found.line == 1


def test_a_few_aliases_are_fine_and_counted_once() -> None:
    doc = at("base: &b {a: 1, b: 2}\none: *b\ntwo: *b\n")
    # the document, its three keys, the shared mapping once with its two keys and values
    assert check_size(doc) == 1 + 3 + 1 + 4


def test_a_tag_on_a_mapping_is_refused_where_it_is() -> None:
    found = error(lambda: check_size(at("reply: !!omap [{a: 1}]\n")))
    assert "found the tag '!!omap' on a list; tags (!name) are not part of mock files" in str(found)
    assert found.path == "reply"


def test_plain_reads_what_mock_files_hold_and_leaves_the_rest() -> None:
    constructor = yaml.constructor.SafeConstructor()
    assert plain(node("{a: [1, 'x', true, null]}"), constructor) == {"a": [1, "x", True, None]}
    assert plain(node("{a: 1, a: 2}"), constructor) is NOT_PLAIN  # the walk's error
    assert plain(node("{<<: {a: 1}}"), constructor) is NOT_PLAIN


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.text(max_size=5)
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=10,
)


@given(JSON)
def test_a_json_value_read_as_a_node_is_the_same_value(value) -> None:
    """A ``.json`` mock file's values reach the reader as nodes made from the parsed JSON."""
    assert At(json_node(value), "m.json").value() == value


def test_a_json_node_is_walked_like_a_yaml_one() -> None:
    doc = At(json_node({"response": {"status": "200"}}), "m.json")
    status = doc.descend("response.status")
    assert status is not None
    assert status.path == "response.status"
    found = error(lambda: status.integer())
    assert str(found) == "m.json at response.status: found text '200', expected an int"
