"""The ``[name, arg, ..., {option: value}]`` form of matchers and faults in a mock file
(``_mockfile._forms``): what it builds, and the error a user sees for each way to get it
wrong — at file:line:column, with the form expected and a did-you-mean."""

from __future__ import annotations

import pytest

import mockhttp
from mockhttp import MockfileError, fault, match
from mockhttp._mockfile._forms import write_form


def body_matcher(form: str) -> match.Matcher:
    (mock,) = mockhttp.loads(f"request: {{path: /x, body: {form}}}\n")
    (criterion,) = mock.criteria
    return criterion.matcher


def faults(form: str) -> tuple[object, ...]:
    (mock,) = mockhttp.loads(f"request: {{path: /x}}\nresponse:\n  pipe:\n    - {form}\n")
    return mock.faults


def error(text: str) -> str:
    with pytest.raises(MockfileError) as caught:
        mockhttp.loads(text)
    return str(caught.value)


def test_nested_matchers_build_what_python_builds() -> None:
    assert repr(body_matcher("[json_path, $.a, [contains, 2]]")) == repr(
        match.json_path("$.a", match.contains(2))
    )
    (mock,) = mockhttp.loads(
        "request: {path: /x, header: {a: [any_of, [equal, x], [starts_with, y]]}}\n"
    )
    assert repr(mock.criteria[0].matcher) == repr(
        match.any_of(match.equal("x"), match.starts_with("y"))
    )


def test_a_plain_value_in_a_matcher_place_means_equal() -> None:
    assert repr(body_matcher("[json_path, $.stream, true]")) == repr(
        match.json_path("$.stream", match.equal(True))
    )


def test_faults_take_positional_arguments_options_and_nested_faults() -> None:
    assert repr(faults("[limit_data, 10]")) == repr((fault.limit_data(10),))
    assert repr(faults("[stall, {after_events: 2}]")) == repr((fault.stall(after_events=2),))
    assert repr(faults("[first, 1, [reset]]")) == repr((fault.first(1, fault.reset()),))


def test_write_form_is_the_list_a_person_writes_and_reads_back() -> None:
    for made in (fault.limit_data(10), fault.stall(after_events=2), fault.first(1, fault.reset())):
        form = write_form(made)
        text = "[" + ", ".join(_flow(x) for x in form) + "]"
        assert repr(faults(text)) == repr((made,))


def _flow(value: object) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_flow(x) for x in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_flow(v)}" for k, v in value.items()) + "}"
    return str(value).lower() if isinstance(value, bool) else str(value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "request: {path: /x, body: [json_path]}\n",
            "<string>:1:27 at request.body: matcher 'json_path' takes 1 to 2 arguments, found 0\n"
            "  expected: [json_path, path, matcher?]",
        ),
        (
            "request: {path: /x, body: []}\n",
            "<string>:1:27 at request.body: found an empty list, expected a matcher: "
            "[name, arg, ...]",
        ),
        (
            "request: {path: /x, body: [5]}\n",
            "<string>:1:28 at request.body[0]: found an int 5, expected a matcher name "
            "such as 'equal'",
        ),
        (
            "request: {path: /x}\nresponse:\n  pipe:\n    - [limit_data, many]\n",
            "<string>:4:20 at response.pipe[0][1]: found text 'many', expected an int",
        ),
        (
            "request: {path: /x}\nresponse:\n  pipe:\n    - limit_data\n",
            "<string>:4:7 at response.pipe[0]: found text 'limit_data', expected a fault: "
            "[name, arg, ...] such as [limit_data, 100]",
        ),
        (
            "request: {path: /x}\nresponse:\n  pipe:\n    - [first, 1, reset]\n",
            "<string>:4:18 at response.pipe[0][2]: found text 'reset', expected a fault: "
            "[name, arg, ...] such as [limit_data, 100]",
        ),
        (
            "request: {path: /x}\nresponse:\n  pipe:\n    - [limit_data, 10, {cont: wire}]\n",
            "<string>:4:25 at response.pipe[0][2].cont: unknown option 'cont' of fault "
            "'limit_data' — did you mean 'count'?\n  expected one of: count",
        ),
    ],
)
def test_each_mistake_is_named_where_it_is(text: str, message: str) -> None:
    assert error(text) == message


def test_an_unknown_name_is_placed_at_the_name_with_a_guess() -> None:
    message = error("request: {path: /x, body: [json_pat, $.a, 1]}\n")
    assert message.startswith(
        "<string>:1:28 at request.body[0]: unknown matcher 'json_pat' — did you mean 'json_path'?\n"
        "known matchers: "
    )
    assert error("request: {path: /x}\nresponse:\n  pipe:\n    - [rest]\n").startswith(
        "<string>:4:8 at response.pipe[0][0]: unknown fault 'rest' — did you mean 'reset'?"
    )


def test_a_constructors_own_refusal_is_placed_at_its_form() -> None:
    message = error("request: {path: /x, query: {a: [regex, '(']}}\n")
    assert message.startswith(
        "<string>:1:32 at request.query.a: regex pattern='(' does not compile"
    )
    duration = error("request: {path: /x}\nresponse:\n  pipe:\n    - [slice, 16, {delay: soon}]\n")
    assert (
        "delay='soon' is not a duration; expected a number of seconds or text such as '20ms'"
        in (duration)
    )


def test_too_many_arguments_say_what_the_form_takes() -> None:
    message = error("request: {path: /x}\nresponse:\n  pipe:\n    - [reset, 1, 2]\n")
    assert "fault 'reset' takes" in message
    assert "found 2" in message
    assert "\n  expected: [reset" in message
