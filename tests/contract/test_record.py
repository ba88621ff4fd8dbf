"""Recording a live exchange (contract/_record.py): the limits' counting, pure, then
``record`` on loopback against a server whose bytes the test writes itself.

The hostile endpoints at scale (a body dripped for minutes, endless lines) are
``test_hardening.py``'s; here each rule of the counting is checked by itself."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mockhttp.contract._record import Limits, _Alarm, _Reading, record

NO_LIMITS = Limits(max_bytes=None, max_event=None, max_lines=None)


def reading(**limits: int | None) -> _Reading:
    return _Reading(Limits(**{"max_bytes": None, "max_event": None, "max_lines": None, **limits}))


# -- the counting, pure ------------------------------------------------------------------------


def test_max_bytes_is_passed_by_the_first_byte_over() -> None:
    read = reading(max_bytes=10)
    assert not read.over(b"x" * 6)
    assert not read.over(b"x" * 4)  # exactly 10: not over
    assert read.error is None
    assert read.over(b"x")
    assert read.error == "the body passed 10 bytes (--max-bytes); stopped reading"


@pytest.mark.parametrize(
    ("reads", "lines"),
    [
        ([b"a\nb\nc\n"], 3),
        ([b"a\rb\rc\r"], 3),
        ([b"a\r\nb\r\n"], 2),  # a CRLF is one ending
        ([b"a\n\r\n"], 2),  # LF, then CRLF
        ([b"\r\r\n\n"], 3),  # CR, CRLF, LF
        ([b"a\r", b"\nb"], 2),  # a CRLF split between reads counts twice (documented)
        ([b"no ending"], 0),
    ],
)
def test_lines_are_counted_by_their_endings(reads: list[bytes], lines: int) -> None:
    read = reading()
    for data in reads:
        assert not read.over(data)
    assert read.lines == lines


def test_max_lines_is_passed_by_the_first_line_over() -> None:
    read = reading(max_lines=3)
    assert not read.over(b"\n\n\n")
    assert read.over(b"\n")
    assert read.error == "the body passed 3 lines (--max-lines); stopped reading"


@pytest.mark.parametrize(
    ("reads", "event"),
    [
        ([b"data: a\n\n"], 0),
        ([b"data: a\n\ndata: bc"], 8),
        ([b"data: a\r\n\r\ndata"], 4),
        ([b"data: a\r\rdata"], 4),
        ([b"data: a\n", b"\ndata"], 4),  # the blank line split between reads
        ([b"data: a\r\n", b"\r", b"\ndata"], 4),
        ([b"x" * 5, b"y" * 5], 10),  # no blank line: one growing event
        ([b"a\n\n", b"b", b"c", b"d"], 3),
        ([b"data: a\n\r\ndata"], 4),  # LF then CRLF: a blank line too
        ([b"data: a\r\n\rdata"], 4),  # CRLF then CR
        ([b"data: a\n", b"\rdata"], 4),  # LF then CR, split
    ],
)
def test_the_event_size_counts_from_the_last_blank_line(reads: list[bytes], event: int) -> None:
    read = reading()
    for data in reads:
        assert not read.over(data)
    assert read.event == event


def test_max_event_is_passed_by_one_long_line_not_by_many_short_events() -> None:
    read = reading(max_event=16)
    for _ in range(100):
        assert not read.over(b"data: 0123456\n\n")  # 15 bytes an event: never over
    assert read.over(b"data: " + b"x" * 11)  # 17 bytes since the last blank line
    assert read.error == (
        "one line or event passed 16 bytes without ending (--max-event-bytes); stopped reading"
    )


ENDINGS = st.sampled_from([b"\n", b"\r", b"\r\n"])


@st.composite
def streams(draw: st.DrawFn) -> tuple[list[bytes], int]:
    """An SSE stream with any line endings (an event: its lines, then a blank line), cut
    into reads at any places; and its longest event in bytes."""
    events = []
    for text in draw(st.lists(st.text("abc: ", min_size=1, max_size=40), min_size=1, max_size=8)):
        line_end, blank = draw(ENDINGS), draw(ENDINGS)
        if (line_end, blank) == (b"\r", b"\n"):  # that is one CRLF, no blank line
            blank = b"\r"
        events.append(text.encode() + line_end + blank)
    whole = b"".join(events)
    cuts = sorted(draw(st.sets(st.integers(1, max(1, len(whole) - 1)), max_size=10)))
    reads = [whole[a:b] for a, b in zip([0, *cuts], [*cuts, len(whole)], strict=True)]
    return [r for r in reads if r], max(map(len, events))


@given(streams())
def test_any_endings_and_any_cuts_never_count_an_event_past_its_size(
    stream: tuple[list[bytes], int],
) -> None:
    """A valid stream whose events are all under ``max_event`` is read whole, however its
    lines end and however the reads cut it."""
    reads, longest = stream
    read = reading(max_event=longest)
    for data in reads:
        assert not read.over(data), read.error
    assert read.event == 0  # the stream ends with a blank line


def test_late_errors_say_what_was_still_to_come() -> None:
    read = reading()
    assert read.late_error() == (
        "the check's deadline passed (--deadline) while waiting for the response"
    )
    read.status = 200
    assert read.late_error() == (
        "the check's deadline passed (--deadline) while the body was still arriving"
    )


def test_a_deadline_passed_ends_the_reading_at_the_next_read() -> None:
    read = _Reading(Limits(deadline=time.monotonic() - 1))
    read.status = 200
    assert read.past_deadline()
    assert read.over(b"data: x\n\n")
    assert read.error is not None
    assert "while the body was still arriving" in read.error
    assert not _Reading(Limits(deadline=time.monotonic() + 3600)).past_deadline()
    assert not _Reading(Limits()).past_deadline()


def test_the_transcript_keeps_only_the_protocol_headers_sent() -> None:
    read = reading()
    read.status, read.head = 200, (("Content-Type", "text/event-stream"),)
    sent = {"content-type": "application/json", "authorization": "Bearer sk-x", "Accept": "*/*"}
    transcript = read.transcript({"a": 1}, sent)
    assert transcript.request_headers == (("content-type", "application/json"), ("Accept", "*/*"))
    assert (transcript.status, transcript.request, transcript.error) == (200, {"a": 1}, None)


def test_an_alarm_shuts_a_socket_adopted_after_it_rang() -> None:
    alarm = _Alarm(time.monotonic() - 1)
    alarm._ring()
    assert alarm.late
    a, b = socket.socketpair()
    with a, b:
        alarm.adopt(a)
        assert b.recv(1) == b""  # a was shut down: its peer reads the end
    alarm.adopt("not a socket")  # ignored


def test_an_alarm_with_no_deadline_never_rings() -> None:
    alarm = _Alarm(None)
    alarm.arm()
    alarm.disarm()
    assert not alarm.late


# -- record, on loopback ---------------------------------------------------------------------


class Canned:
    """A one-connection HTTP server that answers one request with the bytes given (its
    parts written one by one), and keeps the request it read."""

    def __init__(self, *parts: bytes, then_hold: bool = False) -> None:
        self.parts = parts
        self.then_hold = then_hold
        self.request = b""
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/v1/x"
        self.release = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        conn, _ = self.listener.accept()
        with conn:
            conn.settimeout(10)
            while b"\r\n\r\n" not in self.request:
                self.request += conn.recv(65536)
            head, _, body = self.request.partition(b"\r\n\r\n")
            length = next(
                (int(line.split(b":")[1]) for line in head.split(b"\r\n")
                 if line.lower().startswith(b"content-length:")),
                0,
            )  # fmt: skip
            while len(body) < length:
                body += conn.recv(65536)
            self.request = head + b"\r\n\r\n" + body
            for part in self.parts:
                conn.sendall(part)
            if self.then_hold:
                self.release.wait(30)

    def close(self) -> None:
        self.release.set()
        self.thread.join(30)
        self.listener.close()


@pytest.fixture
def canned() -> Iterator[list[Canned]]:
    made: list[Canned] = []
    yield made
    for server in made:
        server.close()


HEAD = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n"


def test_record_keeps_the_body_byte_for_byte_and_the_request_sent(canned: list[Canned]) -> None:
    body = b"data: one\r\n\r\n: comment\n\ndata: two\rdata: more\r\r"
    server = Canned(HEAD + body)
    canned.append(server)
    transcript = record(
        server.url, {"model": "m"}, headers={"x-api-key": "k-1", "Accept": "text/event-stream"}
    )
    assert transcript.error is None
    assert transcript.status == 200
    assert ("content-type", "text/event-stream") in transcript.headers
    assert b"".join(c.data for c in transcript.chunks) == body
    ats = [c.at for c in transcript.chunks]
    assert all(at is not None and at >= 0 for at in ats)
    assert transcript.request == {"model": "m"}
    head, _, sent = server.request.partition(b"\r\n\r\n")
    assert head.startswith(b"POST /v1/x HTTP/1.1\r\n")
    assert json.loads(sent) == {"model": "m"}
    lines = head.lower().split(b"\r\n")
    assert b"content-type: application/json" in lines
    assert b"accept-encoding: identity" in lines  # the body's bytes, not gzip's
    assert b"x-api-key: k-1" in lines
    assert ("Accept", "text/event-stream") in transcript.request_headers
    assert all(name != "x-api-key" for name, _ in transcript.request_headers)


def test_record_get_sends_no_body_and_no_content_type(canned: list[Canned]) -> None:
    server = Canned(HEAD + b"data: x\n\n")
    canned.append(server)
    transcript = record(server.url, method="GET")
    head = server.request.partition(b"\r\n\r\n")[0].lower()
    assert head.startswith(b"get /v1/x http/1.1")
    assert b"content-type" not in head
    assert b"content-length" not in head
    assert transcript.request is None
    assert transcript.status == 200


def test_record_stops_at_max_bytes_with_a_finding(canned: list[Canned]) -> None:
    server = Canned(HEAD, b"data: " + b"x" * 5000 + b"\n\n", then_hold=True)
    canned.append(server)
    transcript = record(server.url, {}, limits=Limits(max_bytes=1000))
    assert transcript.error == "the body passed 1,000 bytes (--max-bytes); stopped reading"
    assert transcript.status == 200  # what came before the limit is kept
    assert sum(len(c.data) for c in transcript.chunks) > 1000


def test_a_deadline_while_waiting_for_the_head_is_a_finding_not_a_hang(
    canned: list[Canned],
) -> None:
    server = Canned(then_hold=True)  # reads the request, answers nothing
    canned.append(server)
    start = time.monotonic()
    transcript = record(server.url, {}, timeout=30, limits=Limits(deadline=start + 0.3))
    assert transcript.status is None
    assert transcript.error == (
        "the check's deadline passed (--deadline) while waiting for the response"
    )
    assert time.monotonic() - start < 20  # well before the 30 s read timeout


def test_a_deadline_while_the_body_drips_is_a_finding(canned: list[Canned]) -> None:
    server = Canned(HEAD, b"data: first\n\n", then_hold=True)
    canned.append(server)
    start = time.monotonic()  # 3 s: for the head to come first on a loaded machine
    transcript = record(server.url, {}, timeout=30, limits=Limits(deadline=start + 3))
    assert transcript.status == 200
    assert transcript.error == (
        "the check's deadline passed (--deadline) while the body was still arriving"
    )
    assert b"".join(c.data for c in transcript.chunks) == b"data: first\n\n"
    assert time.monotonic() - start < 20


def test_a_refused_connection_is_recorded_not_raised() -> None:
    with socket.create_server(("127.0.0.1", 0)) as spare:
        port = spare.getsockname()[1]
    transcript = record(f"http://127.0.0.1:{port}/", {}, timeout=5)
    assert transcript.status is None
    assert transcript.error is not None
    assert transcript.error.startswith("ConnectError")
    assert transcript.chunks == ()


def test_a_client_given_is_used_and_left_open(canned: list[Canned]) -> None:
    server = Canned(HEAD + b"data: x\n\n")
    canned.append(server)
    with httpx.Client(headers={"x-from-client": "yes"}) as client:
        record(server.url, {}, client=client)
        assert not client.is_closed
    assert b"x-from-client: yes" in server.request.lower()
