"""Matchers: what they accept, and how they explain a miss (pure, no sockets)."""

from __future__ import annotations

import json

import pytest

from mockhttp import ConfigError, Headers, Request, match
from mockhttp.match import MISSING


def body(text: str) -> Request:
    return Request("POST", "/x", Headers(), text.encode())


def test_equal_is_json_equality_so_true_is_not_one() -> None:
    """equal(True) accepts true and refuses 1, as JSON would."""
    assert match.equal(True).matches(True)
    assert not match.equal(True).matches(1)
    assert match.equal(1).explain(2) == "got 2, expected 1"


def test_equal_on_a_body_compares_by_the_expected_type() -> None:
    """A body compares as text to text, bytes to bytes, and JSON to other values."""
    req = body('{"a": 1}')
    assert match.equal('{"a": 1}').matches(req)
    assert match.equal(b'{"a": 1}').matches(req)
    assert match.equal({"a": 1}).matches(req)
    assert not match.equal({"a": 2}).matches(req)


def test_text_matchers() -> None:
    """regex searches, starts_with/ends_with/contains look at the text."""
    assert match.regex(r"^Bearer \w+$").matches("Bearer abc")
    assert not match.regex(r"^Bearer").matches("bearer abc")
    assert match.starts_with("Bear").matches("Bearer")
    assert match.ends_with("er").matches("Bearer")
    assert match.contains("are").matches("Bearer")
    assert match.contains(2).matches([1, 2])
    assert match.contains("k").matches({"k": 0})
    assert match.regex("x").explain(MISSING) == "got nothing (absent), expected regex('x')"


def test_exists_and_absent() -> None:
    """exists/absent tell a missing value from an empty one."""
    assert match.exists().matches("")
    assert not match.exists().matches(MISSING)
    assert match.absent().matches(MISSING)
    assert match.absent().explain("x") == "got 'x', expected it to be absent"


def test_composition_with_operators() -> None:
    """&, | and ~ build all_of, any_of and not_."""
    m = match.starts_with("a") & ~match.equal("ab") | match.equal("zz")
    assert m.matches("ac")
    assert not m.matches("ab")
    assert m.matches("zz")
    assert repr(m) == "any_of(all_of(starts_with('a'), not_(equal('ab'))), equal('zz'))"


def test_json_path_selects_and_explains() -> None:
    """json_path applies its matcher to what an RFC 9535 query selects, and says where."""
    req = body('{"stream": false, "messages": [{"role": "user"}, {"role": "tool"}]}')
    assert match.json_path("$.stream", match.equal(False)).matches(req)
    assert match.json_path("$.messages[*].role", match.contains("tool")).matches(req)
    assert match.json_path("$.messages[?@.role == 'tool']").matches(req)
    m = match.json_path("$.stream", match.equal(True))
    assert m.explain(req) == "$.stream: got false, expected true"
    assert match.json_path("$.model").explain(req) == (
        "$.model: got nothing (absent), expected it to exist"
    )
    reason = match.json_path("$.a").explain(body("not json"))
    assert reason is not None
    assert reason.startswith("$.a: body is not JSON")


def test_json_equal_with_and_without_extra_fields() -> None:
    """json_equal compares whole bodies; ignore_extra lets objects carry more keys."""
    req = body('{"model": "m", "stream": true, "n": [1, {"x": 1, "y": 2}]}')
    assert not match.json_equal({"model": "m"}).matches(req)
    assert match.json_equal({"model": "m", "n": [1, {"x": 1}]}, ignore_extra=True).matches(req)
    assert not match.json_equal({"n": [1]}, ignore_extra=True).matches(req)


def test_file_forms_round_trip_through_the_registry() -> None:
    """to_args gives [name, args...] and MATCHERS rebuilds an equal matcher from it."""
    original = match.json_path(
        "$.stream", match.any_of(match.equal(True), match.not_(match.regex("x")))
    )
    args = original.to_args()
    assert args == ["json_path", "$.stream", ["any_of", ["equal", True], ["not", ["regex", "x"]]]]

    def build(form: list[object]) -> match.Matcher:
        name, *rest = form
        assert isinstance(name, str)
        built = [
            build(a) if isinstance(a, list) and a and a[0] in match.MATCHERS else a for a in rest
        ]
        return match.MATCHERS[name](*built)

    assert build(args) == original


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: match.regex("("), "regex pattern='(' does not compile"),
        (
            lambda: match.regex(3),  # type: ignore[arg-type]
            "regex() pattern=3 must be text, not int",
        ),
        (
            lambda: match.json_path("$[", match.equal(1)),
            "json_path path='$[' is not valid JSONPath",
        ),
        (lambda: match.any_of(), "any_of() needs at least one matcher"),
        (lambda: match.json_equal({1, 2}), "json_equal() expected={1, 2} is not JSON"),
        (lambda: match.not_(print), "must be a matcher or a plain value, not a callable"),
    ],
)
def test_bad_arguments_raise_config_error_at_construction(call, message) -> None:
    """A bad matcher argument raises ConfigError naming it, before any request arrives."""
    with pytest.raises(ConfigError, match=None) as info:
        call()
    assert message in str(info.value)


def test_a_users_own_matcher_composes_and_explains() -> None:
    """A Matcher subclass with only explain() works with the operators and has a repr."""

    class Even(match.Matcher):
        def explain(self, value: object) -> str | None:
            return None if isinstance(value, int) and value % 2 == 0 else f"got {value!r}, odd"

    m = Even() & match.not_(0)
    assert m.matches(2)
    assert m.explain(3) == "got 3, odd"
    assert repr(m) == "all_of(<Even>, not_(equal(0)))"


# -- text matchers on JSON values (docs/matching.md, "Text matchers on JSON") ----------------

TWO_TURNS = {
    "messages": [
        {"role": "user", "content": "What is the weather?"},
        {"role": "assistant", "content": "Sunny."},
        {"role": "user", "content": "And tomorrow?"},
    ]
}
USER_CONTENT = "$.messages[?@.role == 'user'].content"


def json_body(doc: object) -> Request:
    return Request("POST", "/", Headers(()), json.dumps(doc).encode())


def test_contains_reads_one_selected_text_and_several_alike() -> None:
    """A JSONPath that selects one text or a list of texts: ``contains`` is a substring
    test on the text, and on any text of the list (the issue's trap: membership before)."""
    one = {"messages": TWO_TURNS["messages"][:1]}
    for doc in (one, TWO_TURNS):
        assert match.json_path(USER_CONTENT, match.contains("weather")).matches(json_body(doc))
    assert not match.json_path(USER_CONTENT, match.contains("rain")).matches(json_body(TWO_TURNS))
    assert match.contains(2).matches([1, 2])  # an element equal to the item
    assert match.contains({"a": 1}).matches([{"a": 1}])
    assert not match.contains("a").matches([{"a": 1}])  # an object element is no text


def test_contains_on_objects_scalars_and_bodies() -> None:
    """An object contains its keys; numbers, booleans and null contain nothing; a body is
    its text."""
    assert match.contains("role").matches({"role": "user"})
    assert not match.contains("user").matches({"role": "user"})
    assert not match.contains("1").matches(18)
    assert not match.contains(True).matches(True)
    assert not match.contains("x").matches(None)
    assert match.contains('"stream"').matches(json_body({"stream": True}))
    assert match.contains("1").explain(18) == "got 18, expected contains('1')"


def test_regex_never_searches_serialized_json() -> None:
    """On a list, regex tries each text (or number) element; an object is never searched
    as JSON text (keys and history included), and the miss says to select a field."""
    msgs = match.json_path("$.messages", match.regex("weather"))
    assert not msgs.matches(json_body(TWO_TURNS))  # a list of objects: no text element
    first = match.json_path("$.messages[0]", match.regex("weather"))
    assert first.explain(json_body(TWO_TURNS)) == (
        '$.messages[0]: got {"role": "user", "content": "What is the weather?"}, an object:'
        " regex applies to text (select a field with json_path)"
    )
    assert match.json_path(USER_CONTENT, match.regex(r"^And")).matches(json_body(TWO_TURNS))
    assert match.json_path("$.n", match.regex(r"^1\d$")).matches(json_body({"n": 18}))
    assert match.json_path("$.s", match.regex("^true$")).matches(json_body({"s": True}))
    assert not match.regex("null").matches(None)
    assert match.starts_with("And").matches(["What", "And then"])
    assert match.ends_with("?").matches(["a", "b?"])
    assert not match.starts_with("role").matches({"role": 1})
    assert match.regex("weather").matches(json_body(TWO_TURNS))  # a body: its text, as sent
