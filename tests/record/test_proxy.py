"""The recording proxy on the wire: mockhttp's own server upstream, the openai SDK client."""

from __future__ import annotations

import io
import time
from pathlib import Path

import httpx
import openai
import pytest

import mockhttp
from mockhttp import fault
from mockhttp.record import Recorder, Recording
from tests.helpers.record_streams import PIECES, TEXT, openai_bytes, openai_events

CHAT = "/v1/chat/completions"
SECRET = "sk-live-Zq9secret7777"


def sdk(url: str, key: str = SECRET) -> openai.OpenAI:
    """An SDK client for the server at ``url`` (use it in ``with``: closed at the end)."""
    return openai.OpenAI(base_url=url + "/v1", api_key=key, max_retries=0)


def ask(client: openai.OpenAI, prompt: str = "hi") -> openai.Stream:  # type: ignore[type-arg]
    return client.chat.completions.create(
        model="gpt-test", messages=[{"role": "user", "content": prompt}], stream=True
    )


def text_of(stream: openai.Stream) -> str:  # type: ignore[type-arg]
    return "".join((c.choices[0].delta.content or "") for c in stream if c.choices)


def test_the_client_reads_the_first_event_before_the_upstream_has_finished(
    tmp_path: Path,
) -> None:
    with mockhttp.Server() as upstream:
        chat = upstream.mock(
            mockhttp.post(CHAT).reply(
                mockhttp.ok().event_stream(*openai_events(), event_delay=0.15)
            )
        )
        with Recorder(upstream.url, tmp_path) as recorder, sdk(recorder.url) as client:
            stream = ask(client)
            first = next(iter(stream))
            assert first.choices[0].delta.content == PIECES[0]
            assert chat.calls[0].outcome == "in progress"  # upstream still sending
            rest = "".join((c.choices[0].delta.content or "") for c in stream if c.choices)
            assert PIECES[0] + rest == TEXT
            recorder.wait(1)
    assert chat.calls[0].wait(5) == "complete"
    (path,) = tmp_path.iterdir()
    assert path.name == "001-post-v1-chat-completions.yaml"
    (mock,) = mockhttp.load(path)
    assert isinstance(mock.response, Recording)
    assert mock.response.body_bytes == b"".join(openai_bytes())


def _arrivals(url: str) -> tuple[bytes, list[float]]:
    """The body and when each event's end arrived (seconds after the head)."""
    body = b""
    times = []
    with httpx.stream(
        "POST",
        url + CHAT,
        json={"model": "gpt-test", "stream": True, "messages": [{"role": "user", "content": "hi"}]},
    ) as r:
        start = time.monotonic()
        for read in r.iter_raw():
            body += read
            times += [time.monotonic() - start] * read.count(b"\n\n")
    return body, times


def _sdk_arrivals(url: str) -> tuple[str, list[float]]:
    """The openai SDK's text and when each chunk arrived (seconds after the first)."""
    text, times = "", []
    with sdk(url) as client:
        for chunk in ask(client):
            times.append(time.monotonic())
            text += "".join(c.delta.content or "" for c in chunk.choices)
    return text, [t - times[0] for t in times]


def _event_ends(recording: Recording) -> list[float]:
    """When each event's end was written, as the file has it (seconds after the head)."""
    return [w.at for w in recording.writes for _ in range(w.data.count(b"\n\n"))]


def _relative(times: list[float]) -> list[float]:
    return [t - times[0] for t in times]


def test_the_replay_sends_the_same_bytes_with_the_same_timing(tmp_path: Path) -> None:
    """The file keeps when each event arrived from the upstream; a replay sends each at its
    time (measured by the client, against the file: a client's own measure of the live
    stream through the proxy jittered by 0.2 s on a loaded machine), twice as fast with
    ``speed=2``, at once with ``timing="none"``.  The gap is large enough that a margin for
    a loaded machine still tells a replay that keeps the timing from one that ignores it
    or scales it."""
    gap, margin = 0.25, 0.15
    with mockhttp.Server() as upstream:
        upstream.mock(
            mockhttp.post(CHAT).reply(mockhttp.ok().event_stream(*openai_events(), event_delay=gap))
        )
        with Recorder(upstream.url, tmp_path) as recorder:
            text, _ = _sdk_arrivals(recorder.url)
            recorder.wait(1)
    assert text == TEXT
    mocks = mockhttp.load(tmp_path)
    recording = mocks[0].response
    assert isinstance(recording, Recording)
    recorded = _relative(_event_ends(recording))
    assert len(recorded) == len(openai_events())
    for k, at in enumerate(recorded):  # the upstream sent event k at k gaps
        assert abs(at - k * gap) < margin, recorded
    with mockhttp.Server() as replay:
        replay.mock(mocks[0])
        again, _ = _sdk_arrivals(replay.url)
        assert again == TEXT
        body, raw = _arrivals(replay.url)
        assert body == b"".join(openai_bytes())
        for got, want in zip(_relative(raw), recorded, strict=True):
            assert abs(got - want) < margin, (raw, recorded)
        # scaled and untimed replays of the same file
        replay.reset()
        replay.mock(mocks[0].reply(recording.with_(speed=2)))
        _, fast = _arrivals(replay.url)
        assert abs((fast[-1] - fast[0]) - recorded[-1] / 2) < margin, (fast, recorded)
        replay.reset()
        replay.mock(mocks[0].reply(recording.with_(timing="none")))
        body, none = _arrivals(replay.url)
        assert body == b"".join(openai_bytes())
        assert none[-1] < 2 * gap, none  # the timed replay took 4 gaps


def test_no_secret_reaches_a_file(tmp_path: Path) -> None:
    """Authorization, x-api-key, cookies: not in the request part, and where the reply
    repeats them (a Set-Cookie, an error quoting the key) they are redacted."""
    error = {"error": {"message": f"Incorrect API key provided: {SECRET}", "type": "auth"}}
    with mockhttp.Server() as upstream:
        upstream.mock(
            mockhttp.post(CHAT).reply(
                mockhttp.status(401)
                .header("Set-Cookie", "session=abc123secretcookie; HttpOnly")
                .header("x-api-key", SECRET)
                .json(error)
            )
        )
        with Recorder(upstream.url, tmp_path) as recorder:
            with (
                openai.OpenAI(
                    base_url=recorder.url + "/v1",
                    api_key=SECRET,
                    max_retries=0,
                    default_headers={"Cookie": "session=abc123secretcookie", "api-key": SECRET},
                ) as client,
                pytest.raises(openai.AuthenticationError, match=SECRET),
            ):
                ask(client)  # the live client gets the reply as it came
            recorder.wait(1)
        got = upstream.journal[0].request.headers
        assert got["authorization"] == f"Bearer {SECRET}"  # forwarded as sent
    text = "".join(p.read_text() for p in tmp_path.iterdir())
    assert SECRET not in text
    assert "abc123secretcookie" not in text
    assert "Incorrect API key provided: REDACTED" in text
    (mock,) = mockhttp.load(tmp_path)
    assert mock.response is not None
    assert ("Set-Cookie", "REDACTED") in mock.response.headers


def _chat(url: str, prompt: str) -> object:
    body = {"model": "m", "messages": [{"role": "user", "content": prompt}]}
    return httpx.post(url + CHAT, json=body).json()


def test_repeats_of_one_request_replay_in_order(tmp_path: Path) -> None:
    """The same request twice is recorded twice; the replay answers as the upstream did,
    first call first, and the last answer goes on answering."""
    seen: dict[str, int] = {}

    def count(request: mockhttp.Request) -> mockhttp.Reply:
        prompt = request.json()["messages"][-1]["content"]
        seen[prompt] = seen.get(prompt, 0) + 1
        return mockhttp.ok().json({"prompt": prompt, "call": seen[prompt]})

    with mockhttp.Server() as upstream:
        upstream.mock(mockhttp.post(CHAT).respond_with(count))
        with Recorder(upstream.url, tmp_path) as recorder:
            live = [_chat(recorder.url, p) for p in ("hi", "hi", "bye", "hi")]
            recorder.wait(4)
    assert [a["call"] for a in live] == [1, 2, 1, 3]  # type: ignore[index]
    mocks = mockhttp.load(tmp_path)
    assert [(m.answers, m.priority) for m in mocks] == [(1, 0), (1, -1), (None, 0), (None, -2)]
    assert [m.name for m in mocks] == [  # unique, from what they hold: names address mocks
        'openai chat "hi" #1',
        'openai chat "hi" #2',
        'openai chat "bye" #1',  # another request to the same path
        'openai chat "hi" #3',
    ]
    with mockhttp.Server() as replay:
        for m in mocks:
            replay.mock(m)
        again = [_chat(replay.url, p) for p in ("bye", "hi", "hi", "hi", "hi", "bye")]
    assert again == [
        {"prompt": "bye", "call": 1},
        {"prompt": "hi", "call": 1},
        {"prompt": "hi", "call": 2},
        {"prompt": "hi", "call": 3},
        {"prompt": "hi", "call": 3},
        {"prompt": "bye", "call": 1},
    ]


def test_a_buffered_reply_keeps_its_status_length_and_bytes(tmp_path: Path) -> None:
    body = b'{"error": {"type": "rate_limit_error", "message": "slow down"}}'
    with mockhttp.Server() as upstream:
        upstream.mock(
            mockhttp.get("/v1/models").reply(
                mockhttp.status(429)
                .header("Retry-After", 7)
                .header("Content-Type", "application/json")
                .body(body)
            )
        )
        with Recorder(upstream.url, tmp_path) as recorder:
            live = httpx.get(recorder.url + "/v1/models")
            recorder.wait(1)
    (mock,) = mockhttp.load(tmp_path)
    with mockhttp.Server() as replay:
        replay.mock(mock)
        again = httpx.get(replay.url + "/v1/models")
    for response in (live, again):
        assert (response.status_code, response.content) == (429, body)
        assert response.headers["retry-after"] == "7"
        assert response.headers["content-length"] == str(len(body))


@pytest.mark.parametrize(
    ("cut", "end"),
    [(fault.limit_data(60), "close"), (fault.reset_after_bytes(60), "reset")],
    ids=["close", "reset"],
)
def test_a_cut_connection_is_recorded_as_it_happened(
    tmp_path: Path, cut: mockhttp.fault.Fault, end: str
) -> None:
    with mockhttp.Server() as upstream:
        upstream.mock(
            mockhttp.post(CHAT).reply(mockhttp.ok().event_stream(*openai_events())).pipe(cut)
        )
        with Recorder(upstream.url, tmp_path) as recorder, sdk(recorder.url) as client:
            with pytest.raises(openai.APIConnectionError):
                text_of(ask(client))  # the client is cut too
            recorder.wait(1)
    (mock,) = mockhttp.load(tmp_path)
    assert isinstance(mock.response, Recording)
    assert mock.response.end == end
    assert mock.response.body_bytes == b"".join(openai_bytes())[:60]
    with mockhttp.Server() as replay, sdk(replay.url) as client:
        replay.mock(mock)
        with pytest.raises(openai.APIConnectionError):
            text_of(ask(client))
        assert replay.journal[0].wait(5) == ("closed" if end == "close" else "reset")
        assert replay.journal[0].body_bytes == 60


@pytest.mark.parametrize(
    ("failure", "name"),
    [(fault.reset(), "reset"), (fault.empty_response(), "empty_response")],
    ids=["reset", "empty_response"],
)
def test_an_upstream_failing_before_its_head_is_recorded_as_a_fault(
    tmp_path: Path, failure: mockhttp.fault.Fault, name: str
) -> None:
    with mockhttp.Server() as upstream:
        upstream.mock(mockhttp.post(CHAT).reply(mockhttp.ok()).pipe(failure))
        with Recorder(upstream.url, tmp_path) as recorder:
            with pytest.raises(httpx.TransportError):
                httpx.post(recorder.url + CHAT, json={"model": "m"})
            recorder.wait(1)
    (mock,) = mockhttp.load(tmp_path)
    assert mock.faults == (failure,)
    with mockhttp.Server() as replay:
        replay.mock(mock)
        with pytest.raises(httpx.TransportError):
            httpx.post(replay.url + CHAT, json={"model": "m"})


def test_an_unreachable_upstream_is_a_502_that_says_why_and_is_not_recorded(
    tmp_path: Path,
) -> None:
    """No connection: nothing came from the upstream, so nothing is recorded (a reset in its
    place was replayed for good); the client gets what a gateway answers, a 502, and the
    openai SDK reports it as such."""
    import openai

    with mockhttp.Server() as gone:
        url = gone.url  # a port nobody listens on once closed
    log = io.StringIO()
    with Recorder(url, tmp_path / "out", log=log) as recorder:
        reply = httpx.get(recorder.url + "/v1/models?key=AIzaGone1234")
        with (
            openai.OpenAI(base_url=recorder.url + "/v1", api_key="sk-x", max_retries=0) as client,
            pytest.raises(openai.InternalServerError) as caught,
        ):
            client.models.list()
        assert recorder.count == 0
    assert reply.status_code == 502
    assert reply.text.startswith(f"mockhttp: the upstream {url} is unreachable (ConnectError")
    assert caught.value.status_code == 502
    said = log.getvalue()
    assert "GET /v1/models?key=[redacted]: not recorded: the upstream is unreachable" in said
    assert "AIzaGone1234" not in said + reply.text
    assert list((tmp_path / "out").iterdir()) == []


def test_the_upstream_path_prefix_and_query_are_kept(tmp_path: Path) -> None:
    with mockhttp.Server() as upstream:
        models = upstream.mock(
            mockhttp.get("/api/v1/models").reply(mockhttp.ok().json({"data": []}))
        )
        with Recorder(upstream.url + "/api/", None) as recorder:
            assert httpx.get(recorder.url + "/v1/models?limit=2").json() == {"data": []}
            (mock,) = recorder.wait(1)
        assert models.calls[0].request.target == "/api/v1/models?limit=2"
    assert (mock.method, mock.path) == ("GET", "/v1/models")


def test_a_bad_upstream_is_a_config_error() -> None:
    with pytest.raises(mockhttp.ConfigError, match="http:// or https://"):
        Recorder("ftp://example.com")


def test_a_client_that_hangs_up_ends_the_recording_there(tmp_path: Path) -> None:
    with mockhttp.Server() as upstream:
        chat = upstream.mock(
            mockhttp.post(CHAT).reply(
                mockhttp.ok().event_stream(*openai_events(), event_delay=0.05, repeat=True)
            )
        )
        with Recorder(upstream.url, tmp_path) as recorder:
            with httpx.stream("POST", recorder.url + CHAT, json={"model": "m"}) as response:
                first = next(response.iter_raw())
                assert first.startswith(b"data: ")
            (mock,) = recorder.wait(1, timeout=10)
        assert chat.calls[0].wait(5) == "client hung up"  # the proxy let go upstream too
    assert isinstance(mock.response, Recording)
    assert mock.response.end == "close"
    assert mock.response.body_bytes.startswith(first)


def test_a_second_session_adds_files_after_the_first(tmp_path: Path) -> None:
    with mockhttp.Server() as upstream:
        upstream.mock(mockhttp.get("/v1/models").reply(mockhttp.ok().json({"data": []})))
        for _ in range(2):
            with Recorder(upstream.url, tmp_path) as recorder:
                httpx.get(recorder.url + "/v1/models")
                recorder.wait(1)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "001-get-v1-models.yaml",
        "002-get-v1-models.yaml",
    ]
    # the second session named its mock apart from the first's: the folder serves
    assert [m.name for m in mockhttp.load(tmp_path)] == ["GET /v1/models #1", "GET /v1/models #2"]
