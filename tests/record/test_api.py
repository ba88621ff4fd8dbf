"""variants(), recordings() and each_variant() (record/_api.py): what they take and refuse."""

from __future__ import annotations

from pathlib import Path

import pytest

import mockhttp
from mockhttp._core._errors import ConfigError
from mockhttp._core._reply import Reply
from mockhttp.record._api import each_variant, recordings, variants
from mockhttp.record._file import recording

SSE = Reply(headers=(("Content-Type", "text/event-stream"),))
STREAM = recording(SSE, writes=[{"at": "0ms", "data": "data: héllo\n\n"}, {"data": "data: 2\n\n"}])

FILE = """\
name: stream
request: {method: POST, path: /s}
response:
  status: 200
  header: {Content-Type: text/event-stream}
  recording:
    writes:
      - {at: 0ms, data: "data: 1\\n\\n"}
---
name: json
request: {method: POST, path: /j}
response:
  status: 200
  header: {Content-Type: application/json}
  recording:
    writes:
      - {at: 0ms, data: "{}"}
---
name: plain
request: {method: GET, path: /p}
response: {status: 200, body: hi}
"""


def test_variants_of_a_recording_are_recordings_named_by_their_variant() -> None:
    found = variants(STREAM.with_(variant="crlf"))
    assert found
    for name, rec in found.items():
        assert rec.variant == name
        assert rec.writes == STREAM.writes
    assert "crlf" in found


def test_variants_of_a_mock_are_that_mock_per_variant() -> None:
    mock = mockhttp.post("/s", name="s").reply(STREAM)
    found = variants(mock)
    assert set(found) == set(variants(STREAM))
    for name, m in found.items():
        assert m.name == f"s [{name}]"
        assert m.path == "/s"


def test_variants_refuse_what_is_not_a_recording() -> None:
    with pytest.raises(ConfigError, match=r"variants\(\) recording='x' must be a Recording"):
        variants("x")  # type: ignore[call-overload]


def test_recordings_keep_the_event_stream_recordings(tmp_path: Path) -> None:
    path = tmp_path / "mocks.yaml"
    path.write_text(FILE)
    assert [m.name for m in recordings(path)] == ["stream"]


def test_each_variant_of_a_file_without_a_stream_says_so(tmp_path: Path) -> None:
    path = tmp_path / "plain.yaml"
    path.write_text(FILE.split("---\n")[2])
    with pytest.raises(ConfigError, match=r"plain.yaml: no event-stream recording in it"):
        each_variant(path)


def test_each_variant_has_the_original_first_then_each_variant() -> None:
    mark = each_variant(STREAM, "rec")
    argname, params = mark.args
    assert argname == "rec"
    assert [p.id for p in params] == ["original", *variants(STREAM)]
    assert params[0].values == (STREAM,)
