"""Quirk and provider presets: the closed loop with the contract rules, and their file form."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import httpx
import pytest

import mockhttp
from mockhttp import ConfigError, MockfileError, llm
from mockhttp.contract import PROFILES, check, record
from mockhttp.contract.__main__ import main
from mockhttp.llm._loop import PROFILE, caught, findings, render_matrix, scenario, transcript
from mockhttp.llm._loop import update as update_matrix
from tests.helpers.modules import user_code

ROOT = Path(__file__).resolve().parents[2]
MATRIX = [(q.id, kind) for q in llm.QUIRKS.values() for kind in q.kinds]


@pytest.mark.parametrize("kind", list(PROFILE))
def test_reference_reply_draws_no_finding_at_all(kind: str) -> None:
    """Each generated reference reply passes every rule of its profile, without even a note."""
    assert findings(kind) == []


@pytest.mark.parametrize(("quirk", "kind"), MATRIX, ids=[f"{q}-{k}" for q, k in MATRIX])
def test_quirk_is_caught_by_exactly_its_rules(quirk: str, kind: str) -> None:
    """A quirk on a reference reply is reported by the rules it names, and by no other."""
    entry = llm.QUIRKS[quirk]
    assert set(caught(entry, kind)) == set(entry.rules[kind])


def test_catalogue_covers_every_layer_with_rules_that_exist() -> None:
    """At least 25 quirks over the four layers; each names real rules of its kind's profile."""
    assert len(llm.QUIRKS) >= 25
    assert {q.layer for q in llm.QUIRKS.values()} == {
        "framing",
        "chunk-structure",
        "error",
        "event-protocol",
    }
    for q in llm.QUIRKS.values():
        assert q.id.startswith("Q-")
        assert q.id == q.id.upper()
        assert q.summary.endswith(".")
        assert q.providers
        for kind, rules in q.rules.items():
            known = {r.id for r in PROFILES[PROFILE[kind]]}
            assert set(rules) <= known, (q.id, kind)


def test_quirks_exercise_most_rules() -> None:
    """The quirks exercise most rules of the LLM profiles (the matrix is not one-sided)."""
    used = {r for q in llm.QUIRKS.values() for rules in q.rules.values() for r in rules}
    assert len(used) >= 40


def test_quirk_ids_are_case_insensitive_and_kept_upper_case() -> None:
    """``q-crlf`` names Q-CRLF; the reply keeps the catalogue spelling."""
    reply = llm.openai_chat("Hi", quirks=["q-crlf", "Q-Done"])
    assert reply.quirks == ("Q-CRLF", "Q-DONE")
    assert reply.to_args() == {"text": "Hi", "quirks": ["Q-CRLF", "Q-DONE"]}


def test_misused_quirks_and_providers_are_config_errors() -> None:
    """An unknown id, a quirk of another API, or an unknown provider: ConfigError."""
    with pytest.raises(ConfigError, match=r"quirks=\['Q-NOPE'\]: unknown quirk 'Q-NOPE'"):
        llm.openai_chat("Hi", quirks=["Q-NOPE"])
    with pytest.raises(ConfigError, match="Q-SEQNO concerns openai_responses replies, not openai"):
        llm.openai_chat("Hi", quirks=["Q-SEQNO"])
    with pytest.raises(ConfigError, match="as='nope': unknown provider 'nope'"):
        llm.openai_chat("Hi", as_="nope")
    with pytest.raises(ConfigError, match="is a preset for openai_chat replies, not gemini"):
        llm.gemini("Hi", as_="groq")
    with pytest.raises(ConfigError, match="must be a list of quirk ids"):
        llm.openai_chat("Hi", quirks="Q-CRLF")


def test_mock_file_as_and_quirks_round_trip_with_dump() -> None:
    """``as: openrouter`` and ``quirks: [...]`` load, dump back the same, and load again."""
    text = (
        "request: {method: POST, path: /v1/chat/completions}\n"
        "response:\n  openai_chat: {text: Hi, as: OpenRouter, quirks: [q-crlf]}\n"
    )
    (mock,) = mockhttp.loads(text)
    assert mock.kind == llm.openai_chat("Hi", as_="openrouter", quirks=["Q-CRLF"])
    dumped = mockhttp.dump(mock)
    assert "as: openrouter" in dumped
    assert "- Q-CRLF" in dumped
    assert mockhttp.loads(dumped)[0].kind == mock.kind


def test_bad_quirk_in_a_mock_file_names_line_and_key() -> None:
    """A misspelt quirk id is reported at its place in the file."""
    text = (
        "request: {method: POST, path: /v1/chat/completions}\n"
        "response:\n  openai_chat:\n    text: Hi\n    quirks: [Q-CRLFF]\n"
    )
    with pytest.raises(
        MockfileError,
        match=r"<string>:5:13 at response.openai_chat.quirks: .*"
        r"unknown quirk 'Q-CRLFF' — did you mean 'Q-CRLF'",
    ):
        mockhttp.loads(text)


@pytest.mark.parametrize("name", list(llm.PROVIDERS))
@pytest.mark.parametrize("tools", [False, True], ids=["text", "tools"])
def test_provider_preset_is_only_its_documented_quirks(name: str, tools: bool) -> None:
    """A provider preset breaks only rules of its quirks, so --as turns all of it into notes."""
    chosen = scenario("openai_chat")
    options = {"text": "", "tool_calls": [{"name": "f", "arguments": {"a": 1}}]} if tools else {}
    reply = llm.openai_chat(**{**chosen.options, **options}, as_=name)
    seen = transcript(reply, chosen.path, chosen.request)
    preset = llm.PROVIDERS[name]
    allowed = {r for q in preset.quirks for r in llm.QUIRKS[q].rules["openai_chat"]}
    assert {f.rule for f in check(seen)} <= allowed
    notes = check(seen, as_=name)
    assert {f.severity for f in notes} <= {"note"}
    assert all(any(q in f.message for q in preset.quirks) for f in notes)


def test_as_leaves_other_findings_as_they_were() -> None:
    """--as groq does not excuse what Groq is not documented to do (a missing [DONE])."""
    chosen = scenario("openai_chat")
    reply = llm.openai_chat(chosen.options["text"], as_="groq", quirks=["Q-DONE"])
    seen = check(transcript(reply, chosen.path, chosen.request), as_="groq")
    assert [(f.rule, f.severity) for f in seen if f.severity != "note"] == [
        ("openai.done", "violation")
    ]
    usage = next(f for f in seen if f.rule == "openai.usage-chunk")
    assert usage.message.startswith("Q-USAGE-ON-FINISH (documented for groq): the usage chunk")


def test_check_cli_as_provider(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``mockhttp check --body ... --as groq`` exits 0 where the plain check exits 1."""
    chosen = scenario("openai_chat", llm.QUIRKS["Q-USAGE-WITHOUT-REQUEST"])
    seen = transcript(chosen.reply(as_="groq"), chosen.path, chosen.request)
    body, request = tmp_path / "body.sse", tmp_path / "request.json"
    body.write_bytes(seen.body)
    request.write_text(json.dumps(chosen.request))
    args = ["--body", str(body), "--request", str(request)]
    assert main(args) == 1
    assert main([*args, "--as", "GROQ"]) == 0
    assert "2 notes" in capsys.readouterr().out  # the summary counts notes
    assert main([*args, "--as", "GROQ", "--verbose"]) == 0  # and --verbose lists them
    out = capsys.readouterr().out
    assert "Q-USAGE-WITHOUT-REQUEST (documented for groq): usage arrived" in out
    assert main([*args, "--as", "nope"]) == 2


PAIR = ["Q-TOOL-NO-INDEX", "Q-TOOL-ARGS-WHOLE"]
TWO_CALLS = [{"name": "f", "arguments": {"a": 1}}, {"name": "g", "arguments": {"b": "two"}}]


@pytest.mark.parametrize("order", [PAIR, PAIR[::-1]], ids=["no-index-first", "whole-first"])
def test_tool_no_index_and_args_whole_compose_in_either_order(
    server: mockhttp.Server, order: list[str]
) -> None:
    """Both quirks show on the wire whatever their order (the first used to drop the
    second: no index left for it to join the fragments by), and so in the gemini-openai
    preset, which lists them in that order."""
    for options in ({"quirks": order}, {"as_": "gemini-openai"}):
        reply = llm.openai_chat(tool_calls=TWO_CALLS, chunk_size=2, **options)
        server.mock(mockhttp.post("/v1/chat/completions").reply(reply))
        request = {"model": "m", "messages": [{"role": "user", "content": "Hi"}], "stream": True}
        seen = record(server.url + "/v1/chat/completions", request, timeout=10)
        server.reset()
        calls = [
            call
            for line in seen.body.decode().splitlines()
            if line.startswith("data: {")
            for choice in json.loads(line[6:])["choices"]
            for call in (choice.get("delta") or {}).get("tool_calls") or []
        ]
        assert calls == [
            {"id": calls[0]["id"], "function": {"name": "f", "arguments": '{"a": 1}'}},
            {"id": calls[1]["id"], "function": {"name": "g", "arguments": '{"b": "two"}'}},
        ], options
        rules = {f.rule for f in check(seen)}
        assert {"openai.tool-call-index", "openai.tool-call-whole"} <= rules, options


def test_provider_preset_on_the_wire(server: mockhttp.Server) -> None:
    """``as: openrouter`` from a mock file sends OpenRouter's comments, roles and usage."""
    text = "request: {method: POST, path: /v1/chat/completions}\n"
    text += "response: {openai_chat: {text: Hello there, as: openrouter}}\n"
    server.mock(*mockhttp.loads(text))
    request = {"model": "m", "messages": [{"role": "user", "content": "Hi"}], "stream": True}
    seen = record(server.url + "/v1/chat/completions", request, timeout=10)
    assert seen.body.startswith(b": OPENROUTER PROCESSING\n\n" * 3)
    assert {f.rule for f in check(seen)} == {
        "sse.comments",
        "openai.role-repeated",
        "openai.usage-opt-in",
        "openai.extra-fields",
    }
    assert [f.severity for f in check(seen, as_="openrouter")] == ["note"] * 4


def test_quirk_transforms_are_pure() -> None:
    """The same quirk on the same request gives the same bytes, call after call."""
    chosen = scenario("anthropic_messages")
    reply = chosen.reply(quirks=["Q-JSON-PADDING"])
    first = transcript(reply, chosen.path, chosen.request).body
    again = transcript(chosen.reply(quirks=["Q-JSON-PADDING"]), chosen.path, chosen.request).body
    assert first == again
    assert b"  }" in first


def test_quirks_page_matrix_is_generated_from_the_runs() -> None:
    """docs/quirks.md shows the matrix exactly as the loop computes it."""
    text = (ROOT / "docs/quirks.md").read_text()
    assert update_matrix(text) == text, "stale: run python -m mockhttp.llm._loop docs/quirks.md"
    assert render_matrix().count("\n| [`Q-") == len(MATRIX)


def test_quirks_page_has_an_entry_per_preset() -> None:
    """Every quirk and every provider has its own section in docs/quirks.md."""
    text = (ROOT / "docs/quirks.md").read_text()
    for q in llm.QUIRKS:
        assert text.count(f"\n### {q}\n") == 1, q
    for name in llm.PROVIDERS:
        assert text.count(f"\n### `{name}`\n") == 1, name


def test_quirks_page_examples_run() -> None:
    """The page's python examples run as written, and its mock file loads."""
    import re

    text = (ROOT / "docs/quirks.md").read_text()
    code = re.findall(r"^```python\n(.*?)^```$", text, re.S | re.M)
    assert code
    with user_code() as namespace:
        for block in code:
            exec(compile(block, "docs/quirks.md:example", "exec"), namespace)
    (mocks,) = re.findall(r"^```yaml\n(.*?)^```$", text, re.S | re.M)
    loaded = mockhttp.loads(mocks, "docs/quirks.md")
    assert [m.kind for m in loaded] == [
        llm.openai_chat("Hello there", as_="groq"),
        llm.openai_chat("Hello there", quirks=["Q-CRLF", "Q-DONE"]),
    ]


def test_matrix_bytes_on_the_wire_equal_the_pure_ones(server: mockhttp.Server) -> None:
    """Every quirk served by one server and recorded over loopback: the same bytes and the
    same findings as the transcript the matrix checks without sockets."""
    for quirk, kind in MATRIX:
        chosen = scenario(kind, llm.QUIRKS[quirk])
        path = chosen.path.partition("?")[0]
        server.mock(mockhttp.post(f"/w/{quirk}{path}").reply(chosen.reply(quirks=[quirk])))
    with httpx.Client(timeout=10) as http:
        for quirk, kind in MATRIX:
            chosen = scenario(kind, llm.QUIRKS[quirk])
            pure = transcript(chosen.reply(quirks=[quirk]), chosen.path, chosen.request)
            wire = record(f"{server.url}/w/{quirk}{chosen.path}", chosen.request, client=http)
            assert wire.body == pure.body, (quirk, kind)
            assert wire.status == pure.status
            wire = replace(wire, buffered=pure.buffered)  # the buffered answer, for anthropic
            assert check(wire, PROFILE[kind]) == check(pure, PROFILE[kind]), quirk


def test_every_catalogue_quirk_has_one_transform_and_back() -> None:
    """llm gives each quirk id of contract's catalogue its transform, and no other id."""
    from mockhttp.llm._transforms import QUIRK_TRANSFORMS

    assert list(QUIRK_TRANSFORMS) == list(llm.QUIRKS)


@pytest.mark.parametrize("name", list(llm.PROVIDERS))
def test_provider_options_are_options_of_the_transforms(name: str) -> None:
    """A preset's options (a variant, a comment text) build its quirks' transforms."""
    from mockhttp.llm._transforms import QUIRK_TRANSFORMS

    preset = llm.PROVIDERS[name]
    for q in preset.quirks:
        assert callable(QUIRK_TRANSFORMS[q](**preset.options.get(q, {})))


def test_unknown_error_and_transform_names_say_what_is_known() -> None:
    """error= and transforms= fail in the registries' style: the closest name and the rest."""
    with pytest.raises(ConfigError, match=r"error='rate-limit': unknown error 'rate-limit' — "):
        llm.openai_chat("Hi", error="rate-limit")
    with pytest.raises(ConfigError, match=r"transforms\[0\]: unknown transform 'nope'\n"):
        llm.openai_chat("Hi", transforms=["nope"])
