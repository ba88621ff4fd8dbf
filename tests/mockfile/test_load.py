"""Mock files: the seed's examples, round trips, the registry behind both spellings."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import pytest

import mockhttp
from mockhttp import Event, MockfileError, fault, llm, match
from mockhttp._core._match import MATCHERS, Matcher
from mockhttp._core._reply import Reply
from mockhttp._mockfile._load import (
    EVENT_KEYS,
    EVENT_STREAM_KEYS,
    MOCK_KEYS,
    REQUEST_KEYS,
    dump,
    load,
    loads,
    to_dict,
)
from tests.core.test_fault_registry import EXAMPLES as FAULT_EXAMPLES
from tests.docs.test_seed import named_events, streamed_answer

DATA = Path(__file__).resolve().parents[1] / "data"
SEED = DATA / "seed"
DEFAULTS = Path(mockhttp.__file__).parent / "defaults"


# -- the seed's two examples ------------------------------------------------------------


def test_seed_stream_file_is_the_python_mock() -> None:
    """The guide's chat-stream YAML loads to the very mock the guide builds in Python."""
    assert load(SEED / "chat_stream.yaml") == [streamed_answer()]


def test_seed_named_events_file_is_the_python_mock() -> None:
    """The guide's named-events YAML loads to the very mock the guide builds in Python."""
    assert load(SEED / "named_events.yaml") == [named_events()]


def test_a_directory_loads_in_name_order() -> None:
    """A directory's files load in name order: chat_stream before named_events."""
    assert load(SEED) == [streamed_answer(), named_events()]


def test_data_text_is_sent_as_it_is_and_objects_as_compact_json() -> None:
    """In data, an object is sent as compact JSON and text as it is."""
    reply = load(SEED / "chat_stream.yaml")[0].response
    assert reply is not None
    stream = reply.stream
    assert stream is not None
    assert stream.encoded[0] == (
        b'data: {"object":"chat.completion.chunk","choices":[{"index":0,'
        b'"delta":{"content":"Hel"}}]}\n\n'
    )
    assert stream.encoded[3] == b"data: [DONE]\n\n"
    assert stream.delays == (0.0, 0.02, 0.02, 0.02)


# -- round trips ------------------------------------------------------------------------


def rich_mock() -> mockhttp.Mock:
    """A mock using every part of the schema."""
    return (
        mockhttp.post("/v1/items/{id}", name="rich", priority=3, times=2)
        .query("page", "2")
        .query("sort", match.any_of("asc", match.regex("^de")))
        .header("X-Trace")
        .header("Authorization", match.starts_with("Bearer "))
        .body(match.json_equal({"a": [1, 2]}, ignore_extra=True))
        .reply(
            mockhttp.status(201, "Made")
            .header("Set-Cookie", "a=1")
            .header("Set-Cookie", "b=2")
            .header("Retry-After", 3)
            .event_stream(
                Event({"n": 1}, event="tick", id="1", retry=500, comment="first"),
                Event("two\nlines", delay="5ms"),
                Event(comment="keep-alive"),
                event_delay="20ms",
                first_event_delay=0.5,
                repeat=3,
                line_ending="\r\n",
                space=False,
            )
            .delay("1.5s")
        )
        .pipe(fault.first(1, fault.limit_data(10)), fault.latency(0.02))
    )


ROUND_TRIPS = {
    "rich": rich_mock(),
    "any": mockhttp.request(None),
    "regex path": mockhttp.get(match.regex(r"^/v1/")).reply(mockhttp.ok().body("hi\n")),
    "json reply": mockhttp.get("/j").reply(mockhttp.status(429).header("X", "1").json([1, None])),
    "json header first": mockhttp.get("/j").reply(mockhttp.ok().json({"a": 1}).header("X", "1")),
    "endless": mockhttp.get("/s").reply(mockhttp.ok().event_stream(Event(1), repeat=True)),
    "body null": mockhttp.post("/n").body(match.equal(None)).header("h", match.equal([1])),
    "body text": mockhttp.post("/t").body("exact text").query("q", match.absent()),
    "not": mockhttp.get("/x").header("a", ~match.contains("b") & match.ends_with("c")),
}


@pytest.mark.parametrize("mock", ROUND_TRIPS.values(), ids=ROUND_TRIPS.keys())
def test_to_yaml_and_loads_round_trip(mock: mockhttp.Mock) -> None:
    """``loads(mock.to_yaml())`` gives back an equal mock."""
    assert loads(mock.to_yaml()) == [mock]


def test_dump_of_several_mocks_round_trips_and_reads_as_written() -> None:
    """Several mocks dump as documents; matchers and events are written in flow style."""
    mocks = [streamed_answer(), named_events(), *load(DEFAULTS)]
    text = dump(mocks)
    assert loads(text) == mocks
    assert text.count("---\n") == len(mocks)
    assert "  body: [json_path, $.stream, [equal, true]]\n" in text
    assert "      - {data: '[DONE]'}\n" in text


def test_dump_of_the_seed_stream_reads_like_the_guide() -> None:
    """The dumped seed mock is the guide's YAML, up to quoting and the canonical names."""
    chunk = "{data: {object: chat.completion.chunk, choices: [{index: 0, delta: {content: %s}}]}}"
    assert streamed_answer().to_yaml() == (
        "request:\n"
        "  method: POST\n"
        "  path: /v1/chat/completions\n"
        "  header: {authorization: Bearer sk-test}\n"
        "  body: [json_path, $.stream, [equal, true]]\n"
        "response:\n"
        "  status: 200\n"
        "  event_stream:\n"
        "    event_delay: 20ms\n"
        "    events:\n"
        + "".join(f"      - {chunk % c}\n" for c in ("Hel", "'lo, '", "world"))
        + "      - {data: '[DONE]'}\n"
    )


def test_a_mock_without_file_form_is_refused() -> None:
    """A binary body cannot be written, rather than be written differently."""
    mock = mockhttp.get("/b").reply(mockhttp.ok().body(b"\xff\xfe"))
    with pytest.raises(mockhttp.ConfigError, match="its body is not UTF-8 text"):
        mock.to_yaml()


class Odd(Matcher):
    """A matcher defined outside mockhttp, without a file form."""

    def explain(self, value: object) -> str | None:
        return None


class Quiet:
    """A fault defined outside mockhttp, without a file form."""

    def body(self, steps: object, ctx: object) -> object:
        return steps

    def wire(self, steps: object, ctx: object) -> object:
        return steps


def test_matchers_and_faults_without_file_form_are_refused() -> None:
    """A user's own matcher or fault cannot be written: ConfigError names it."""
    with pytest.raises(mockhttp.ConfigError, match=r"^Odd has no file form \(no to_args method\)$"):
        mockhttp.get("/").body(Odd()).to_yaml()
    with pytest.raises(mockhttp.ConfigError, match=r"^Quiet has no file form"):
        mockhttp.get("/").pipe(Quiet()).to_yaml()  # type: ignore[arg-type]  # duck-typed fault


def test_json_documents_and_lists_of_mocks() -> None:
    """JSON loads like YAML, and a document may be a list of mocks."""
    docs = [to_dict(streamed_answer()), to_dict(named_events())]
    assert loads(json.dumps(docs, indent="\t"), "mocks.json") == [
        streamed_answer(),
        named_events(),
    ]


def test_null_documents_are_skipped_and_null_headers_mean_present() -> None:
    """Empty documents hold no mock; a header given as null must only be present."""
    mocks = loads("---\n---\nrequest: {header: {x-key: null}}\n---\n")
    assert mocks == [mockhttp.request(None).header("x-key")]


# -- one registry behind both spellings ------------------------------------------------------

MATCHER_EXAMPLES: list[Matcher] = [
    match.equal({"a": 1}),
    match.not_("x"),
    match.regex("^a+$"),
    match.contains("b"),
    match.starts_with("c"),
    match.ends_with("d"),
    match.any_of("a", match.exists()),
    match.all_of(match.exists(), "a"),
    match.exists(),
    match.absent(),
    match.json_path("$.a[0]", match.equal(True)),
    match.json_equal({"a": [1]}, ignore_extra=True),
    llm.last_user_message(match.contains("weather")),
    llm.system_prompt("Be brief."),
    llm.turn_index(1),
    llm.tool_offered("get_weather"),
    llm.tool_result(name="get_weather", content=match.contains("18"), anywhere=True),
]


def test_every_registered_matcher_loads_from_a_file() -> None:
    """Each name of MATCHERS (jsonpath too) loads from a file, as its Python constructor."""
    names = {m.name for m in MATCHER_EXAMPLES} | {"jsonpath"}
    assert names == set(MATCHERS)
    for example in MATCHER_EXAMPLES:
        form = example.to_args()
        for name in [n for n, make in MATCHERS.items() if make is MATCHERS[form[0]]]:
            text = json.dumps({"request": {"body": [name, *form[1:]]}})
            assert loads(text) == [mockhttp.request(None).body(example)], name


def test_every_registered_fault_loads_from_a_file() -> None:
    """Each name of FAULTS loads from a file, as its Python constructor."""
    assert {form[0] for _, form, _ in FAULT_EXAMPLES} == set(fault.FAULTS)
    for made, form, _ in FAULT_EXAMPLES:
        text = json.dumps({"response": {"pipe": [form]}})
        assert loads(text) == [mockhttp.request(None).pipe(made)], form


def test_every_reply_event_and_mock_option_has_a_file_key() -> None:
    """Keys come from the Python signatures: mock options, stream options, event fields."""
    assert set(MOCK_KEYS) == {
        "request", "response", "name", "priority", "times", "replies", "exhausted", "scenario"
    }  # fmt: skip
    assert set(REQUEST_KEYS) == {"method", "path", "query", "header", "body"}
    stream = inspect.signature(Reply.event_stream).parameters
    assert set(EVENT_STREAM_KEYS) == {"events", *(n for n in stream if n not in ("self", "events"))}
    assert set(EVENT_KEYS) == set(inspect.signature(Event.__init__).parameters) - {"self"}


# -- errors, compared in full --------------------------------------------------------------

BAD: dict[str, tuple[str, str]] = {
    "misspelt matcher": (
        "request:\n  body: [jsonpath, $.stream, [equals, true]]\n",
        "bad.yaml:2:31 at request.body[2][0]: unknown matcher 'equals' — did you mean 'equal'?\n"
        "known matchers: absent, all_of, any_of, contains, ends_with, equal, exists, "
        "json_equal, json_path, jsonpath, last_user_message, not, regex, starts_with, "
        "system_prompt, tool_offered, tool_result, turn_index",
    ),
    "unknown key": (
        "request:\n  path: /x\nresponse:\n  event_stream:\n    evnts: []\n",
        "bad.yaml:5:5 at response.event_stream.evnts: unknown key 'evnts' — did you mean "
        "'events'?\n  expected one of: event_delay, events, first_event_delay, line_ending, "
        "repeat, resumable, retry, space",
    ),
    "unknown top key": (
        "requets: {path: /x}\n",
        "bad.yaml:1:1 at requets: unknown key 'requets' — did you mean 'request'?\n"
        "  expected one of: conversation, exhausted, name, otel_collector, priority, replies, "
        "request, response, scenario, times",
    ),
    "date in data": (
        "response:\n  event_stream:\n    events:\n      - data: a\n      - data: b\n"
        "      - data: 2023-06-01\n",
        "bad.yaml:6:15 at response.event_stream.events[2].data: found a date 2023-06-01, "
        "expected a JSON value; quote it to send text",
    ),
    "status as text": (
        "response:\n  status: '200'\n",
        "bad.yaml:2:11 at response.status: found text '200', expected an HTTP status code "
        "such as 200",
    ),
    "matcher arity": (
        "request:\n  body: [json_path]\n",
        "bad.yaml:2:9 at request.body: matcher 'json_path' takes 1 to 2 arguments, found 0\n"
        "  expected: [json_path, path, matcher?]",
    ),
    "misspelt fault": (
        "response:\n  pipe: [[limit_dat, 100]]\n",
        "bad.yaml:2:11 at response.pipe[0][0]: unknown fault 'limit_dat' — did you mean "
        "'limit_data'?\nknown faults: close_after_events, empty_response, end_after_events, first, "
        "first_byte_delay, garbage, latency, limit_data, malformed_chunk, reset, "
        "reset_after_bytes, reset_after_events, slice, sometimes, stall, throttle, "
        "truncate_event",
    ),
    "misspelt option": (
        "response:\n  pipe: [[limit_data, 100, {cont: wire}]]\n",
        "bad.yaml:2:29 at response.pipe[0][2].cont: unknown option 'cont' of fault "
        "'limit_data' — did you mean 'count'?\n  expected one of: count",
    ),
    "fault argument type": (
        "response:\n  pipe: [[limit_data, '100']]\n",
        "bad.yaml:2:23 at response.pipe[0][1]: found text '100', expected an int",
    ),
    "fault argument value": (
        "response:\n  pipe: [[limit_data, -1]]\n",
        "bad.yaml:2:10 at response.pipe[0]: n=-1 must be a non-negative int",
    ),
    "bad duration": (
        "response:\n  delay: soon\n",
        "bad.yaml:2:10 at response.delay: delay='soon' is not a duration; expected a number "
        "of seconds or text such as '20ms', '1.5s'",
    ),
    "duplicate header": (
        "request:\n  header: {Authorization: a, authorization: b}\n",
        "bad.yaml:2:30 at request.header.authorization: duplicate key 'authorization' "
        "(already given as 'Authorization')",
    ),
    "two bodies": (
        "response:\n  body: hi\n  json: {a: 1}\n",
        "bad.yaml:3:9 at response.json: found both 'body' and 'json', expected one of body, "
        "json, event_stream, pushed, recording",
    ),
    "not yaml": (
        "request:\n  path: [/x\n",
        "bad.yaml:3:1: not valid YAML: did not find expected ',' or ']' while parsing a flow "
        "sequence",
    ),
    "not a mock": (
        "hello\n",
        "bad.yaml:1:1: found text 'hello', expected a mock: a mapping with request and response",
    ),
    "bad regex": (
        "request:\n  path: [regex, '(']\n",
        "bad.yaml:2:9 at request.path: regex pattern='(' does not compile: missing ), "
        "unterminated subpattern at position 0",
    ),
    "id as a number": (
        "response:\n  event_stream:\n    events: [{id: 1}]\n",
        "bad.yaml:3:19 at response.event_stream.events[0].id: found an int 1, expected text; "
        "quote it: '1'",
    ),
    "bad method": (
        "request:\n  method: 'GE T'\n",
        "bad.yaml:2:11 at request.method: method='GE T' must be an HTTP method such as 'POST', "
        "or a matcher of methods such as match.any_of('GET', 'POST')",
    ),
    "second document": (
        "request: {path: /ok}\n---\nrequest: {path: nope}\n",
        "bad.yaml:3:17 at request.path: path='nope' must start with '/'",
    ),
    "nested date": (
        "response: {event_stream: {events: [{data: {a: [1, 2023-01-01]}}]}}\n",
        "bad.yaml:1:51 at response.event_stream.events[0].data.a[1]: found a date 2023-01-01, "
        "expected a JSON value; quote it to send text",
    ),
    "binary": (
        "response: {json: !!binary aGVsbG8=}\n",
        "bad.yaml:1:18 at response.json: found binary data, expected a JSON value",
    ),
    "list for a status": (
        "response:\n  status: [200]\n",
        "bad.yaml:2:11 at response.status: found a list, expected an HTTP status code such as 200",
    ),
    "bool for an int": ("times: true\n", "bad.yaml:1:8 at times: found true, expected an int"),
    "fault not a list": (
        "response: {pipe: [limit_data]}\n",
        "bad.yaml:1:19 at response.pipe[0]: found text 'limit_data', expected a fault: "
        "[name, arg, ...] such as [limit_data, 100]",
    ),
    "empty matcher": (
        "request: {body: []}\n",
        "bad.yaml:1:17 at request.body: found an empty list, expected a matcher: [name, arg, ...]",
    ),
    "matcher name not text": (
        "request: {body: [1, 2]}\n",
        "bad.yaml:1:18 at request.body[0]: found an int 1, expected a matcher name such as 'equal'",
    ),
    "too many arguments": (
        "request: {body: [exists, 1]}\n",
        "bad.yaml:1:17 at request.body: matcher 'exists' takes 0 arguments, found 1\n"
        "  expected: [exists]",
    ),
    "any_of with nothing": (
        "request: {body: [any_of]}\n",
        "bad.yaml:1:17 at request.body: any_of() needs at least one matcher",
    ),
    "key not text": (
        "request: {header: {1: a}}\n",
        "bad.yaml:1:20 at request.header: found an int 1 as a key, expected text",
    ),
    "alias inside itself": (
        "request: {body: &a [not, *a]}\n",
        "bad.yaml:1:17 at request.body: found a structure inside itself (an alias within its "
        "own anchor)",
    ),
    "not json": (
        '{"request": {"path": "/x"}\n\t}}',
        "bad.yaml:2:3: not valid JSON: Extra data",
    ),
}


@pytest.mark.parametrize(("text", "message"), BAD.values(), ids=BAD.keys())
def test_bad_file_errors_in_full(text: str, message: str) -> None:
    """Each bad file is refused with the file, line, column, path, found and expected."""
    with pytest.raises(MockfileError) as caught:
        loads(text, "bad.yaml")
    assert str(caught.value) == message


def test_error_attributes_locate_the_problem() -> None:
    """The error carries source, line, column and path for tools."""
    with pytest.raises(MockfileError) as caught:
        loads(BAD["date in data"][0], "m.yaml")
    error = caught.value
    assert (error.source, error.line, error.column) == ("m.yaml", 6, 15)
    assert error.path == "response.event_stream.events[2].data"


def test_a_bad_file_in_a_set_refuses_the_whole_set(tmp_path: Path) -> None:
    """One bad file in a directory fails the load; nothing is returned half-way."""
    (tmp_path / "a.yaml").write_text("request: {path: /a}\n")
    (tmp_path / "b.yml").write_text("request: {pth: /b}\n")
    (tmp_path / "c.txt").write_text("not a mock file, ignored\n")
    with pytest.raises(MockfileError) as caught:
        load(tmp_path)
    assert str(caught.value) == (
        f"{tmp_path / 'b.yml'}:1:11 at request.pth: unknown key 'pth' — did you mean 'path'?\n"
        "  expected one of: body, header, method, path, query"
    )


def test_yaml_anchors_and_merge_keys_are_read() -> None:
    """Anchors, aliases and merge keys work as in any YAML file."""
    text = (
        "- request: &chat {method: POST, path: /v1/chat}\n"
        "  response: {status: 201}\n"
        "- request: {<<: *chat, header: {x-a: b}}\n"
    )
    first, second = loads(text)
    assert second == mockhttp.post("/v1/chat").header("x-a", "b")
    assert first.response is not None
    assert first.response.status_code == 201


def test_missing_paths_and_undecodable_files(tmp_path: Path) -> None:
    """A missing path and a file that is not UTF-8 are named in the error."""
    with pytest.raises(MockfileError, match=r"^nowhere\.yaml: no such file or directory$"):
        load("nowhere.yaml")
    (tmp_path / "latin.yaml").write_bytes(b"request: {path: /\xe9}\n")
    with pytest.raises(MockfileError, match=r"latin.yaml: not UTF-8 text: invalid"):
        load(tmp_path / "latin.yaml")
    with pytest.raises(mockhttp.ConfigError, match="needs at least one"):
        load()


# -- numbers: every JSON number is a number in YAML too -------------------------------------


@pytest.mark.parametrize(
    ("written", "value"),
    [("1e-06", 1e-06), ("2E5", 2e5), ("1.5e3", 1500.0), ("-3e+2", -300.0), (".5e1", 5.0)],
)
def test_an_exponent_without_a_dot_is_a_number_as_in_json(written: str, value: float) -> None:
    """PyYAML (YAML 1.1) read ``1e-06`` as text: a JSON body dumped and loaded back changed
    (found by tests/mockfile/test_properties.py), and so did a YAML file's ``json:`` value."""
    text = f"request: {{body: [json_equal, {{x: {written}}}]}}\nresponse: {{json: {written}}}\n"
    [mock] = loads(text)
    assert mock.response is not None
    assert mock.response.content == json.dumps(value).encode()
    assert mock == mockhttp.request(None).body(match.json_equal({"x": value})).reply(
        mockhttp.ok().json(value)
    )
    assert loads(json.dumps(to_dict(mock))) == [mock]


@pytest.mark.parametrize("written", ["'1e-06'", '"2E5"', "1e", "e5", "1e-", "1_0e5"])
def test_quoted_or_not_a_number_stays_text(written: str) -> None:
    [mock] = loads(f"request: {{path: /x}}\nresponse: {{json: {{v: {written}}}}}\n")
    assert mock.response is not None
    assert isinstance(json.loads(mock.response.content)["v"], str)


@pytest.mark.parametrize("text", ["0E0", "1e-06", "-3e+2", ".5e1", "1.5e3"])
def test_text_that_reads_as_a_number_is_written_quoted(text: str) -> None:
    """The dumper quotes what the loader would read as a number (a name ``0E0`` was written
    plain and came back a number: found by the dump/load property)."""
    mock = mockhttp.get("/x", name=text).reply(mockhttp.ok().json({"v": text}))
    assert f"'{text}'" in dump(mock)
    assert loads(dump(mock)) == [mock]
