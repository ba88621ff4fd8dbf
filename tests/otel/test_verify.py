"""otel/_verify: findings of client spans against served calls (pure: records in)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from mockhttp._core._genai import GenAI, ToolUse
from mockhttp.otel import CHECKS, Finding, Served, Span
from mockhttp.otel._verify import check, pair

T0 = 1_700_000_000.0


def served(number: int = 1, **changes: Any) -> Served:
    facts = GenAI(
        "chat_completions", "openai", "chat", "gpt-4o", "gpt-4o", f"chatcmpl-{number}", 5, 3,
        ["stop"], [], True, 4,
    )  # fmt: skip
    outcome = changes.pop("outcome", "complete")
    end = changes.pop("end", T0 + number + 0.5)
    facts = dataclasses.replace(facts, **changes)
    return Served(number, f"POST /v1/chat/completions #{number}", T0 + number, end, outcome, facts)


def span(number: int = 1, end: float | None = None, **attributes: Any) -> Span:
    """The truthful span of ``served(number)``, with ``attributes`` changed (None: left out)."""
    values: dict[str, Any] = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.response.model": "gpt-4o",
        "gen_ai.response.id": f"chatcmpl-{number}",
        "gen_ai.usage.input_tokens": 5,
        "gen_ai.usage.output_tokens": 3,
        "gen_ai.response.finish_reasons": ["stop"],
    }
    values.update({k.replace("__", "."): v for k, v in attributes.items()})
    values = {k: v for k, v in values.items() if v is not None}
    start = T0 + number - 0.01
    return Span("chat gpt-4o", "ab" * 16, f"{number:016x}", "", "client", start,
                T0 + number + 0.51 if end is None else end, values)  # fmt: skip


def tool(name: str, call_id: str | None, number: int = 100) -> Span:
    values = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name}
    if call_id is not None:
        values["gen_ai.tool.call.id"] = call_id
    return Span(f"execute_tool {name}", "ab" * 16, f"{number:016x}", "", "internal", T0, T0, values)


def only(findings: list[Finding]) -> Finding:
    assert len(findings) == 1, [str(f) for f in findings]
    return findings[0]


def test_truthful_spans_have_no_findings() -> None:
    assert check([served(1), served(2)], [span(2), span(1)]) == []


def test_a_span_that_leaves_attributes_out_says_nothing_false() -> None:
    """Rule 2."""
    bare = span(1, **{"gen_ai.usage.input_tokens": None, "gen_ai.response.finish_reasons": None})
    assert check([served(1)], [bare]) == []


def test_pairing_by_id_then_by_time() -> None:
    no_id = span(2, gen_ai__response__id=None)
    pairs, calls, spans = pair([served(1), served(2), served(3)], [no_id, span(1)], 0.25)
    assert [(c.number, s.span_id) for c, s in pairs] == [(1, span(1).span_id), (2, no_id.span_id)]
    assert [c.number for c in calls] == [3]
    assert spans == []


@pytest.mark.parametrize(
    ("attributes", "check_name", "message"),
    [
        ({"gen_ai.request.model": "gpt-4"}, "model",
         "gen_ai.request.model is 'gpt-4', but the request asked for 'gpt-4o'"),
        ({"gen_ai.response.model": "gpt-4o-mini"}, "model",
         "gen_ai.response.model is 'gpt-4o-mini', but mockhttp served 'gpt-4o'"),
        ({"gen_ai.provider.name": "anthropic"}, "provider",
         "gen_ai.provider.name is 'anthropic', but mockhttp served 'openai'"),
        ({"gen_ai.provider.name": None, "gen_ai.system": "azure"}, "provider",
         "gen_ai.provider.name is 'azure', but mockhttp served 'openai'"),
        ({"gen_ai.usage.input_tokens": 50}, "input_tokens",
         "gen_ai.usage.input_tokens is 50, but the reply carried 5"),
        ({"gen_ai.usage.output_tokens": 4}, "output_tokens",
         "gen_ai.usage.output_tokens is 4, but the reply carried 3"),
        ({"gen_ai.response.finish_reasons": ["length"]}, "finish_reasons",
         "gen_ai.response.finish_reasons is ['length'], but mockhttp served ['stop']"),
        ({"gen_ai.response.finish_reasons": "stop"}, None, None),  # (one value, not a list)
    ],
)  # fmt: skip
def test_each_attribute_check(
    attributes: dict[str, Any], check_name: str | None, message: str | None
) -> None:
    values = {k.replace(".", "__"): v for k, v in attributes.items()}
    findings = check([served(1)], [span(1, **values)])
    if check_name is None:
        assert findings == []
        return
    found = only(findings)
    assert (found.check, found.message) == (check_name, message)
    assert found.call == "call 1 (POST /v1/chat/completions #1)"
    assert found.span == f"span 'chat gpt-4o' ({span(1).span_id})"
    assert str(found) == f"[{check_name}] {message}\n      ({found.span}; {found.call})"


def test_usage_claimed_for_a_reply_that_carried_none() -> None:
    found = only(check([served(1, input_tokens=None)], [span(1)]))
    assert found.message == "gen_ai.usage.input_tokens is 5, but the reply carried no token usage"


def test_finish_reasons_claimed_for_a_stream_cut_before_them() -> None:
    call = served(1, finish_reasons=[], outcome="client hung up")
    found = only(check([call], [span(1)]))
    assert found.message == (
        "gen_ai.response.finish_reasons is ['stop'], but the reply ended before any finish "
        "reason was sent"
    )


def test_a_wrong_response_id_leaves_the_call_paired_by_time() -> None:
    found = only(check([served(1)], [span(1, gen_ai__response__id="chatcmpl-x")]))
    assert (found.check, found.message) == (
        "response_id",
        "gen_ai.response.id is 'chatcmpl-x', but mockhttp served 'chatcmpl-1'",
    )


def test_a_call_without_its_span_and_a_span_without_its_call() -> None:
    far = dataclasses.replace(
        span(7, gen_ai__response__id="chatcmpl-7"), start=T0 + 50, end=T0 + 51
    )
    findings = check([served(1)], [far])
    assert [f.check for f in findings] == ["span", "span"]
    assert findings[0].message == (
        "no span tells of this chat call (model 'gpt-4o', id 'chatcmpl-1'): no span has its "
        "gen_ai.response.id, and none was open when the request arrived"
    )
    assert findings[1].message == (
        "the span tells of a call mockhttp never served (gen_ai.response.id 'chatcmpl-7')"
    )


def test_a_streamed_span_that_ends_before_the_last_chunk() -> None:
    found = only(check([served(1)], [span(1, end=T0 + 1.1)]))
    assert found.check == "stream_end"
    assert found.message == (
        "the span ended 400 ms before the stream's last chunk was written (4 chunks): a "
        "streamed span ends after the last one"
    )
    assert check([served(1)], [span(1, end=T0 + 1.3)], tolerance=0.25) == []  # (within it)
    assert check([served(1, streamed=False)], [span(1, end=T0 + 1.1)]) == []  # (buffered)
    assert check([served(1, end=None)], [span(1, end=T0 + 1.1)]) == []  # (end unknown)


def test_a_span_that_outlives_the_hang_up() -> None:
    call = served(1, outcome="client hung up")
    found = only(check([call], [span(1, end=T0 + 3.5)]))
    assert found.message == (
        "the client hung up on the stream (the journal saw it), but its span ended 2000 ms later"
    )
    assert check([call], [span(1, end=T0 + 1.4)]) == []


def test_an_error_reply_needs_an_error_span() -> None:
    call = served(1, error="rate_limit_exceeded", finish_reasons=[], response_id=None)
    quiet = span(1, gen_ai__response__id=None, gen_ai__response__finish_reasons=None)
    found = only(check([call], [quiet]))
    assert found.check == "error"
    assert "'rate_limit_exceeded'" in found.message
    assert (
        check(
            [call],
            [
                span(
                    1,
                    gen_ai__response__id=None,
                    gen_ai__response__finish_reasons=None,
                    error__type="RateLimitError",
                )
            ],
        )
        == []
    )
    marked = dataclasses.replace(quiet, status="error")
    assert check([call], [marked]) == []


def test_a_tool_call_per_tool_call_turn() -> None:
    call = served(1, tool_calls=[ToolUse("get_weather", "call_1"), ToolUse("get_time", None)])
    findings = check([call], [span(1)])
    assert [f.message for f in findings] == [
        "the reply asked for the tool 'get_weather', but no execute_tool span has "
        "gen_ai.tool.call.id 'call_1' or gen_ai.tool.name 'get_weather'",
        "the reply asked for the tool 'get_time', but no execute_tool span has "
        "gen_ai.tool.name 'get_time'",
    ]
    assert (
        check([call], [span(1), tool("get_weather", "call_1", 1), tool("get_time", None, 2)]) == []
    )
    # by name when the span has no call id (or the reply gave none); a call id, wrong name
    assert check([call], [span(1), tool("get_weather", None, 1), tool("get_time", "zz", 2)]) == []
    wrong = check([call], [span(1), tool("get_time", "call_1", 1), tool("get_time", None, 2)])
    assert [f.message for f in wrong] == [
        "gen_ai.tool.name is 'get_time', but the reply asked for 'get_weather' (call_1)"
    ]


def test_a_tool_span_counts_once() -> None:
    twice = [served(1, tool_calls=[ToolUse("f", None)]), served(2, tool_calls=[ToolUse("f", None)])]
    findings = check(twice, [span(1), span(2), tool("f", None)])
    assert [f.call for f in findings] == ["call 2 (POST /v1/chat/completions #2)"]


def test_findings_are_listed_in_the_order_of_the_checks() -> None:
    findings = check(
        [served(1, tool_calls=[ToolUse("f", "c")])],
        [span(1, end=T0, gen_ai__usage__output_tokens=9, gen_ai__request__model="x")],
    )
    assert [f.check for f in findings] == ["model", "output_tokens", "stream_end", "tool_call"]
    assert set(CHECKS) >= {f.check for f in findings}


def test_spans_of_other_operations_are_not_model_calls() -> None:
    other = dataclasses.replace(span(5), attributes={"gen_ai.operation.name": "invoke_agent"})
    assert check([served(1)], [span(1), other]) == []


# -- others: spans that may tell of these calls (one test judged) ------------------------


def test_others_pair_with_the_calls_and_are_checked() -> None:
    """A span of ``others`` that tells of a call is held to it like the own spans."""
    assert check([served(1), served(2)], [span(1)], others=[span(2)]) == []
    finding = only(check([served(1)], [], others=[span(1, gen_ai__usage__output_tokens=9)]))
    assert (finding.check, finding.call) == ("output_tokens", served(1).describe())


def test_others_left_over_are_no_finding_but_own_spans_are() -> None:
    """Another test's span (in ``others``) is not this test's to judge; an own span that
    tells of no call is still a finding, and a call without any span too."""
    assert check([served(1)], [span(1)], others=[span(7), span(8)]) == []
    finding = only(check([served(1)], [span(1), span(7)], others=[span(8)]))
    assert (finding.check, finding.span) == ("span", span(7).describe())
    missing = only(check([served(1)], [], others=[span(7)]))
    assert (missing.check, missing.call) == ("span", served(1).describe())


def test_a_tool_span_among_others_counts() -> None:
    asked = served(1, tool_calls=[ToolUse("get_weather", "call_1")])
    assert check([asked], [span(1)], others=[tool("get_weather", "call_1")]) == []
