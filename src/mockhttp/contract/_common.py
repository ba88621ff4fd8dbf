"""Rules every profile shares: the HTTP response and the SSE framing."""

from __future__ import annotations

from collections.abc import Iterator

from ._rule import Hit, Rule, hit, short
from ._stream import Stream

__all__ = ["COMMON", "spaced"]

_ENDINGS = {b"\n": "LF", b"\r\n": "CRLF", b"\r": "CR"}


def _transport(stream: Stream) -> Iterator[Hit]:
    if stream.transcript.error is not None:
        yield Hit(f"no complete response arrived: {stream.transcript.error}")


def _status(stream: Stream) -> Iterator[Hit]:
    t = stream.transcript
    if t.error is None and t.status != 200:
        yield Hit(f"status was {t.status}, expected 200; the body began {short(t.body, 120)}")


def _content_type(stream: Stream) -> Iterator[Hit]:
    t = stream.transcript
    if t.error is None and t.status == 200 and not stream.is_event_stream:
        seen = t.header("content-type")
        yield Hit(
            f"content-type was {short(seen)}, expected text/event-stream "
            "(a JSON reply means the stream parameter was ignored and the answer buffered)"
        )


def _unterminated(stream: Stream) -> Iterator[Hit]:
    if stream.tail is not None:
        first = stream.tail.lines[0].text_start(60)
        yield Hit(
            f"the stream ended inside an event: {short(first)} was never followed by a "
            "blank line, so clients discard it",
            offset=stream.tail.offset,
        )


def _comments(stream: Stream) -> Iterator[Hit]:
    if stream.comments:
        first = stream.comments[0]
        yield Hit(
            f"{len(stream.comments)} comment line(s), the first {short(first.line.text)}; "
            "tolerated by the spec, fatal to parsers that treat every line as data",
            offset=first.offset,
        )


def _line_endings(stream: Stream) -> Iterator[Hit]:
    endings = {line.ending for m in stream.messages for line in m.lines}
    if endings and endings != {b"\n"}:
        names = "/".join(sorted(_ENDINGS[e] for e in endings))
        kind = "mixed line endings" if len(endings) > 1 else "line endings"
        yield Hit(f"events use {names} {kind}, not LF; parsers that split on LF only break")


def _data_space(stream: Stream) -> Iterator[Hit]:
    bare = [m for m in stream.messages if not m.data_space]
    if bare:
        yield hit(
            bare[0],
            f"{len(bare)} event(s) write 'data:' without the space, e.g. "
            f"{short(bare[0].data_lines[0].text)}; legal, but some clients expect 'data: '",
        )


def _bom(stream: Stream) -> Iterator[Hit]:
    if stream.transcript.body.startswith(b"\xef\xbb\xbf"):
        yield Hit(
            "the body starts with a UTF-8 byte-order mark; the spec strips it, parsers that "
            "compare the first line with 'data:' miss the first event",
            offset=0,
        )


def spaced(text: str) -> bool:
    """True when JSON ``text`` has whitespace outside its strings (spaced or padded)."""
    quoted = escaped = False
    for char in text:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = quoted
        elif char == '"':
            quoted = not quoted
        elif not quoted and char in " \t\r\n":
            return True
    return False


def _json_spacing(stream: Stream) -> Iterator[Hit]:
    found = [p for p in stream.payloads if p.valid and spaced(p.message.data)]
    if found:
        yield hit(
            found[0].message,
            f"{len(found)} event(s) carry JSON with whitespace outside strings, e.g. "
            f"{short(found[0].message.data)}; valid JSON, but not the compact reference "
            "bytes, and parsers that match fixed byte patterns miss it",
        )


COMMON = (
    Rule(
        "http.transport",
        "violation",
        "A response arrives: the connection opens and the body is read to the end.",
        "A client cannot stream what never arrives; a reset mid-body must not look like a "
        "clean end.",
        "Any provider on network loss.",
        _transport,
        always=True,
        needs_response=False,
    ),
    Rule(
        "http.status",
        "violation",
        "The status is 200.",
        "EventSource fails the connection on any other status; SDKs raise before reading.",
        "Errors before streaming (401, 429, 5xx) arrive as JSON with their own status.",
        _status,
        always=True,
    ),
    Rule(
        "http.content-type",
        "violation",
        "The content-type essence is text/event-stream (parameters such as charset ignored).",
        "A provider answering application/json to stream: true has buffered the whole "
        "answer; latency-sensitive clients and EventSource depend on the stream.",
        "Gemini without alt=sse streams a JSON array (Q-JSON-ARRAY-STREAM); LiteLLM returns "
        "JSON when the first chunk fails.",
        _content_type,
        always=True,
    ),
    Rule(
        "sse.unterminated",
        "violation",
        "The last event is followed by a blank line (blank-line framing up to the end).",
        "The spec discards an event without its blank line at EOF, so its data never reaches "
        "a conforming client, while lenient parsers dispatch it: the two disagree.",
        "Any provider on a truncated connection (Q-ERR-TRUNCATE).",
        _unterminated,
    ),
    Rule(
        "sse.comments",
        "note",
        "Reports comment lines (': ...'): legal, and tolerated by every rule here.",
        "Hand-written parsers that treat every non-blank line as data throw on them.",
        "OpenRouter ': OPENROUTER PROCESSING', DeepSeek ': keep-alive' (Q-COMMENT-KEEPALIVE).",
        _comments,
    ),
    Rule(
        "sse.line-endings",
        "note",
        "Reports line endings other than LF (CRLF, lone CR, or a mix).",
        "Parsers that split on '\\n\\n' never see an event framed with CRLF.",
        "Gemini alt=sse uses CRLF (Q-CRLF).",
        _line_endings,
    ),
    Rule(
        "sse.data-space",
        "note",
        "Reports 'data:' lines without a space after the colon.",
        "Both forms are legal; parsers that strip a fixed 'data: ' prefix lose a character.",
        "TGI, Spring-based servers and some gateways (Q-DATA-NO-SPACE).",
        _data_space,
    ),
    Rule(
        "sse.bom",
        "note",
        "Reports a UTF-8 byte-order mark at the start of the body.",
        "The spec strips one leading BOM; a parser that does not reads a garbled first field "
        "name and drops the first event.",
        "None known among providers; test suites (Q-BOM).",
        _bom,
    ),
    Rule(
        "sse.json-spacing",
        "note",
        "Reports JSON data with whitespace outside strings (spaced separators, padding).",
        "Valid JSON either way; byte-level matchers and recorded-fixture comparisons differ.",
        "Anthropic pads before the last brace (Q-JSON-PADDING); Python json.dumps spacing in "
        "vLLM and OpenAI error frames, Gemini everywhere (Q-JSON-STYLE-MIXED).",
        _json_spacing,
    ),
)
