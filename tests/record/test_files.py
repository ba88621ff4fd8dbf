"""Recordings in mock files: round trips, validation with file:line, replay options."""

from __future__ import annotations

import time

import httpx
import pytest

import mockhttp
from mockhttp.record import Recording, Write
from tests.helpers.record_streams import openai_events, recording_of

FILE = """\
name: chat
request: {method: POST, path: /v1/chat/completions}
response:
  status: 200
  header: {Content-Type: text/event-stream}
  delay: 5ms
  recording:
    speed: 2
    writes:
      - {at: 0ms, data: "data: {\\"a\\":1}\\n\\n"}
      - {at: 100ms, base64: 8J+Y}
      - {at: 120ms, data: "\\u0082\\n\\n"}
"""


def test_a_recording_file_loads_and_round_trips() -> None:
    (mock,) = mockhttp.loads(FILE)
    reply = mock.response
    assert isinstance(reply, Recording)
    assert reply.writes == (
        Write(0, b'data: {"a":1}\n\n'),
        Write(0.1, b"\xf0\x9f\x98"),
        Write(0.12, b"\xc2\x82\n\n"),
    )
    assert (reply.speed, reply.head_delay, reply.timing) == (2.0, 0.005, "original")
    text = mockhttp.dump(mock)
    assert "base64: 8J+Y" in text
    assert mockhttp.loads(text) == [mock]


def test_every_option_round_trips() -> None:
    reply = recording_of(openai_events(), gap=0.0123456).with_(
        length=None, end="close", timing="none", speed=1.5, variant="crlf"
    )
    mock = mockhttp.post("/v1/chat/completions", name="x", times=1, priority=-1).reply(reply)
    assert mockhttp.loads(mockhttp.dump(mock)) == [mock]
    buffered = Recording(status_code=503, reason="Busy", writes=(Write(0, b"{}"),), length=2)
    mock = mockhttp.get("/x").reply(buffered)
    assert mockhttp.loads(mockhttp.dump(mock)) == [mock]


def test_the_replay_is_byte_exact_with_its_pauses(server: mockhttp.Server) -> None:
    (mock,) = mockhttp.loads(FILE)
    server.mock(mock)
    with httpx.stream("POST", server.url + "/v1/chat/completions") as response:
        start = time.monotonic()
        reads = [(time.monotonic() - start, read) for read in response.iter_raw()]
    assert b"".join(r for _, r in reads) == b'data: {"a":1}\n\n\xf0\x9f\x98\xc2\x82\n\n'
    assert reads[-1][0] >= 0.05  # 120 ms at speed 2
    assert server.journal[0].events == 2


@pytest.mark.parametrize(
    ("recording", "error"),
    [
        (
            "{writes: [{at: soon, data: x}]}",
            "bad.yaml:3:29 at response.recording.writes[0].at: at='soon' is not a duration",
        ),
        (
            "{writes: [], speeed: 2}",
            "bad.yaml:3:27 at response.recording.speeed: unknown key 'speeed' — did you mean "
            "'speed'?",
        ),
        (
            "{writes: [{data: x, base64: eA==}]}",
            "bad.yaml:3:24 at response.recording.writes[0]: a write needs one of data (text) "
            "or base64 (bytes)",
        ),
        (
            "{writes: [{base64: '%%%'}]}",
            "bad.yaml:3:33 at response.recording.writes[0].base64: found '%%%', expected base64",
        ),
        (
            "{writes: [], speed: 0}",
            "bad.yaml:3:34 at response.recording.speed: speed=0 must be a number above 0",
        ),
        (
            "{writes: [], timing: later}",
            "bad.yaml:3:35 at response.recording.timing: timing='later' must be one of original, "
            "none",
        ),
        (
            "{writes: [{data: 'data: x\\n\\n'}], variant: crlff}",
            "bad.yaml:3:57 at response.recording.variant: unknown variant 'crlff' — did you mean "
            "'crlf'?\nknown variants: closed_without_done, comment,",
        ),
        (
            "{speed: 2}",
            "bad.yaml:3:14 at response.recording: a recording needs writes",
        ),
    ],
)
def test_a_bad_recording_names_file_line_and_field(recording: str, error: str) -> None:
    text = "response:\n  header: {Content-Type: text/event-stream}\n  recording: " + recording
    with pytest.raises(mockhttp.MockfileError) as caught:
        mockhttp.loads(text, "bad.yaml")
    assert str(caught.value).startswith(error), str(caught.value)


def test_a_recording_is_one_kind_of_body() -> None:
    with pytest.raises(mockhttp.MockfileError, match="found both 'body' and 'recording'"):
        mockhttp.loads("response:\n  body: hi\n  recording: {writes: []}\n")


def test_a_recording_misused_in_python_is_a_config_error() -> None:
    with pytest.raises(mockhttp.ConfigError, match="speed=-1"):
        Recording(speed=-1)
    with pytest.raises(mockhttp.ConfigError, match="timing='none'"):
        Recording(speed=float("inf"))
    with pytest.raises(mockhttp.ConfigError, match="end='stall'"):
        Recording(end="stall")
    with pytest.raises(mockhttp.ConfigError, match="at=-1"):
        Write(-1, b"")
    with pytest.raises(mockhttp.ConfigError, match="must be a tuple of Write"):
        Recording(writes=[Write(0, b"")])  # type: ignore[arg-type]
