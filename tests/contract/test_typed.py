"""What the typed event streams share (``contract._typed``: Anthropic Messages, OpenAI
Responses): each data a JSON object with a ``type``, repeated by the ``event:`` line."""

from __future__ import annotations

from mockhttp.contract import Transcript
from mockhttp.contract._stream import Stream
from mockhttp.contract._typed import event_name, typed, untyped


def stream(body: bytes) -> Stream:
    return Stream(Transcript.from_body(body))


TYPED = (
    b'event: message_start\ndata: {"type": "message_start"}\n\n'
    b'data: {"type": "ping"}\n\n'
    b'event: delta\ndata: {"type": "content_block_delta"}\n\n'
    b'data: {"no": "type"}\n\n'
    b"data: [DONE]\n\n"
)


def test_typed_events_are_read_as_message_type_object() -> None:
    seen = stream(TYPED)
    assert [kind for _, kind, _ in typed(seen)] == ["message_start", "ping", "content_block_delta"]


def test_data_without_a_type_is_a_hit_unless_allowed() -> None:
    seen = stream(TYPED)
    assert [h.message for h in untyped(seen)] == [
        'data is not a JSON object with a type: "{\\"no\\": \\"type\\"}"',  # the data, quoted
        'data is not a JSON object with a type: "[DONE]"',
    ]
    assert len(list(untyped(seen, frozenset({"[DONE]"})))) == 1


def test_the_event_line_must_repeat_the_type() -> None:
    hits = list(event_name(stream(TYPED)))
    assert [(h.event, h.message) for h in hits] == [
        (1, 'no event: line on data of type "ping", expected event: ping'),
        (
            2,
            'event: delta on data of type "content_block_delta", expected event: '
            "content_block_delta",
        ),
    ]
