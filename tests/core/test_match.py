"""Matchers: what they accept, and how they explain a miss (pure, no sockets)."""

from __future__ import annotations

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
