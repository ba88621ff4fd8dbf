"""Capacity and rate limits of LLM replies, on the wire (httpx, the openai SDK).

A shared ``llm.capacity(...)``: running slots and a wait queue (429/503 with
``retry-after`` when full, the time to first token growing with the queue ahead), rpm/tpm
buckets per key or model with each provider's headers (a ``ManualClock`` moves them),
and ``GET /metrics`` under vLLM's names, parsed with prometheus_client's parser.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest
from prometheus_client.parser import text_string_to_metric_families

import mockhttp
from mockhttp import llm
from mockhttp.llm._capacity import go_duration

CHAT = "/v1/chat/completions"
MESSAGES = "/v1/messages"
_MODELS = itertools.count()
HTTP = httpx.Client()  # one client: a new one per call costs more than these replies take


@pytest.fixture(scope="module", autouse=True)
def _close_http() -> Iterator[None]:
    yield
    HTTP.close()


def model() -> str:
    """A model name of its own: the metrics are the process's, shared by every test."""
    return f"cap-model-{next(_MODELS)}"


def chat(name: str, *, stream: bool = False, prompt: str = "Hi there") -> dict[str, Any]:
    return {"model": name, "stream": stream, "messages": [{"role": "user", "content": prompt}]}


def wait_for(predicate: Any, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


@pytest.fixture
def server() -> Iterator[mockhttp.Server]:
    with mockhttp.Server(metrics=True) as s:
        yield s
        s.check()


HOLD = "/hold"


def holder(pool: llm.Capacity) -> mockhttp.Mock:
    """A mock on ``/hold`` whose stream runs (20 s at 50 words a second) until its client
    closes it: it holds one of ``pool``'s slots for as long as a test needs."""
    text = " ".join(["word"] * 1000)
    return mockhttp.post(HOLD).reply(llm.openai_chat(text, chunks_per_second=50, capacity=pool))


def held_open(server: mockhttp.Server, name: str) -> tuple[httpx.Client, httpx.Response]:
    """A streamed request to ``/hold`` that is generating, until it is closed."""
    client = httpx.Client(base_url=server.url)
    request = client.build_request("POST", HOLD, json=chat(name, stream=True))
    response = client.send(request, stream=True)
    assert response.status_code == 200
    return client, response


def let_go(held: tuple[httpx.Client, httpx.Response]) -> float:
    """Close a held stream; the server frees its slot at its next write (<= 20 ms)."""
    held[1].close()
    held[0].close()
    return time.monotonic()


def metrics(server: mockhttp.Server, name: str) -> dict[str, float]:
    """Each sample of ``/metrics`` for model ``name``, by its name (and reason)."""
    text = HTTP.get(server.url_for("/metrics")).text
    out: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.labels.get("model_name") != name or "le" in sample.labels:
                continue
            extra = sample.labels.get("reason") or sample.labels.get("finished_reason")
            out[sample.name + (f"[{extra}]" if extra else "")] = sample.value
    return out


# -- the queue ------------------------------------------------------------------------------


def test_a_full_queue_answers_429_in_openai_shape_then_the_slot_passes_on(server):
    """One running, one waiting: a third request gets OpenAI's 429 with retry-after at once;
    when the running one ends, the waiting one gets its slot (and its head)."""
    name = model()
    pool = llm.capacity(max_running=1, max_waiting=1, retry_after="2s")
    server.mock(holder(pool), mockhttp.post(CHAT).reply(llm.openai_chat("Hi", capacity=pool)))
    held = held_open(server, name)
    statuses: list[int] = []

    def wait_in_line() -> None:
        with httpx.stream("POST", server.url_for(CHAT), json=chat(name, stream=True)) as r:
            statuses.append(r.status_code)  # the head comes once it has the slot
            r.read()

    thread = threading.Thread(target=wait_in_line)
    thread.start()
    wait_for(lambda: pool.waiting == 1)
    seen = metrics(server, name)
    assert (seen["vllm:num_requests_running"], seen["vllm:num_requests_waiting"]) == (1.0, 1.0)
    full = HTTP.post(server.url_for(CHAT), json=chat(name))
    assert full.status_code == 429
    assert (full.headers["retry-after"], full.headers["retry-after-ms"]) == ("2", "2000")
    assert full.json()["error"]["code"] == "rate_limit_exceeded"
    assert set(full.json()["error"]) == {"message", "type", "param", "code"}
    assert statuses == []  # still waiting
    let_go(held)
    thread.join(5)
    assert statuses == [200]
    wait_for(lambda: pool.running == 0)
    seen = metrics(server, name)
    assert seen["mockhttp:requests_rejected_total[queue_full]"] == 1.0
    assert (seen["vllm:num_requests_running"], seen["vllm:num_requests_waiting"]) == (0.0, 0.0)
    assert seen["vllm:request_success_total[stop]"] == 1.0  # (the holder was cut)
    outcomes = sorted(c.outcome for c in server.journal if c.mock is not None)
    assert outcomes == ["client hung up", "complete", "complete"]


def test_a_client_that_hangs_up_frees_its_slot(server):
    """A stream cut by its client frees the slot at the server's next write."""
    pool = llm.capacity(max_running=1)
    server.mock(holder(pool))
    held = held_open(server, model())
    next(held[1].iter_bytes())
    started = let_go(held)
    wait_for(lambda: pool.running == 0, timeout=2)
    assert time.monotonic() - started < 1.0
    assert server.journal[0].outcome == "client hung up"


@pytest.mark.parametrize(
    ("kind", "path", "when_full", "code", "error_type"),
    [
        (llm.openai_chat, CHAT, "overloaded", 503, "server_error"),
        (llm.anthropic_messages, MESSAGES, "rate_limit", 429, "rate_limit_error"),
        (llm.anthropic_messages, MESSAGES, "overloaded", 529, "overloaded_error"),
    ],
)
def test_when_full_picks_the_providers_error(server, kind, path, when_full, code, error_type):
    """``when_full`` gives each provider's own status and body shape."""
    name = model()
    pool = llm.capacity(max_running=1, when_full=when_full)
    server.mock(mockhttp.post(path).reply(kind("Hi", ttft="5s", capacity=pool)))
    client = httpx.Client(base_url=server.url)
    held = client.send(
        client.build_request("POST", path, json=chat(name, stream=True)), stream=True
    )
    refused = HTTP.post(server.url_for(path), json=chat(name))
    held.close()
    client.close()
    assert refused.status_code == code
    assert refused.headers["retry-after"] == "1"
    body = refused.json()
    assert body["error"]["type"] == error_type
    if kind is llm.anthropic_messages:
        assert body["type"] == "error"
        assert body["request_id"].startswith("req_")


def test_time_to_first_token_grows_with_the_queue_ahead(server):
    """One slot, held; three wait in line: each one's first token comes a reply after the
    one before it (its queue wait, then its own ttft)."""
    name = model()
    pool = llm.capacity(max_running=1, max_waiting=3)
    reply = llm.openai_chat("Hi", ttft="100ms", capacity=pool)
    server.mock(holder(pool), mockhttp.post(CHAT).reply(reply))
    held = held_open(server, name)
    first_token: dict[int, float] = {}

    def ask(i: int) -> None:
        with httpx.stream("POST", server.url_for(CHAT), json=chat(name, stream=True)) as r:
            next(r.iter_bytes())
            first_token[i] = time.monotonic()

    threads = []
    for i in range(3):
        threads.append(threading.Thread(target=ask, args=(i,)))
        threads[-1].start()
        wait_for(lambda i=i: pool.waiting == i + 1)
    freed = let_go(held)
    for t in threads:
        t.join(5)
    after = [first_token[i] - freed for i in range(3)]
    assert 0.1 <= after[0] < 0.1 + 0.3, after
    assert after[1] - after[0] >= 0.09, after
    assert after[2] - after[1] >= 0.09, after
    assert after[2] < 0.3 + 0.4, after
    seen = metrics(server, name)
    assert seen["vllm:time_to_first_token_seconds_count"] == 4.0


def test_ttft_grows_with_the_prompt_tokens(server):
    """``ttft_per_token`` adds prefill time per prompt token to the reply's ``ttft``.

    The TTFT each request was given is read exactly from ``/metrics`` (a request admitted at
    once observes its planned TTFT, nothing measured); the wall clock shows the wait really
    happened (at least that long: a loaded machine only makes it longer, by 0.15 s and more
    with a CPU hog on each core), and not grossly longer."""
    pool = llm.capacity(ttft_per_token="30ms")
    server.mock(mockhttp.post(CHAT).reply(llm.openai_chat("Hi", capacity=pool)))
    with httpx.Client(base_url=server.url) as client:
        client.post(CHAT, json=chat(model(), prompt="warm"))  # connect first

        def took(name: str, prompt: str) -> float:
            started = time.monotonic()
            assert client.post(CHAT, json=chat(name, prompt=prompt)).status_code == 200
            return time.monotonic() - started

        short_model, long_model = model(), model()
        short = took(short_model, "Hi")
        long = took(long_model, "one two three four five six seven eight")
    given = {
        name: metrics(server, name)["vllm:time_to_first_token_seconds_sum"]
        for name in (short_model, long_model)
    }
    assert given[short_model] == pytest.approx(0.03)  # 1 prompt token
    assert given[long_model] == pytest.approx(0.24)  # 8 prompt tokens
    assert 0.03 <= short < 0.03 + 2
    assert 0.24 <= long < 0.24 + 2


# -- rate limits ----------------------------------------------------------------------------


def test_rpm_bucket_refills_by_the_manual_clock_with_openais_exact_headers(server):
    """rpm=2: two answers, then 429 with retry-after; 30 s on the clock refill one."""
    clock = llm.ManualClock()
    pool = llm.capacity(rpm=2, clock=clock)
    server.mock(mockhttp.post(CHAT).reply(llm.openai_chat("Hi", capacity=pool)))
    name = model()

    def limits() -> tuple[int, list[tuple[str, str]]]:
        r = HTTP.post(server.url_for(CHAT), json=chat(name))
        kept = [(k, v) for k, v in r.headers.items() if "ratelimit" in k or "retry" in k]
        return r.status_code, kept

    assert limits() == (
        200,
        [
            ("x-ratelimit-limit-requests", "2"),
            ("x-ratelimit-remaining-requests", "1"),
            ("x-ratelimit-reset-requests", "30s"),
        ],
    )
    assert limits()[1][1:] == [
        ("x-ratelimit-remaining-requests", "0"),
        ("x-ratelimit-reset-requests", "1m0s"),
    ]
    assert limits() == (
        429,
        [
            ("retry-after", "30"),
            ("retry-after-ms", "30000"),
            ("x-ratelimit-limit-requests", "2"),
            ("x-ratelimit-remaining-requests", "0"),
            ("x-ratelimit-reset-requests", "1m0s"),
        ],
    )
    clock.advance(29.9)
    assert limits()[0] == 429
    clock.advance(0.1)
    assert limits()[0] == 200
    assert metrics(server, name)["mockhttp:requests_rejected_total[rpm]"] == 2.0


def test_tpm_counts_prompt_and_reply_tokens_with_anthropics_headers(server):
    """tpm=10: a 3-token prompt and a 3-token reply take 6; the next is refused until the
    bucket holds 6 again (12 s at 10 per minute), with RFC 3339 resets."""
    clock = llm.ManualClock()  # 2026-01-01T00:00:00Z
    pool = llm.capacity(tpm=10, clock=clock)
    reply = llm.anthropic_messages("Hello, world", capacity=pool)
    server.mock(mockhttp.post(MESSAGES).reply(reply))
    body = chat(model(), prompt="Hi there friend")
    first = HTTP.post(server.url_for(MESSAGES), json=body)
    assert [(k, v) for k, v in first.headers.items() if k.startswith("anthropic-")] == [
        ("anthropic-ratelimit-tokens-limit", "10"),
        ("anthropic-ratelimit-tokens-remaining", "4"),
        ("anthropic-ratelimit-tokens-reset", "2026-01-01T00:00:36Z"),
    ]
    second = HTTP.post(server.url_for(MESSAGES), json=body)
    assert second.status_code == 429
    assert second.headers["retry-after"] == "12"
    assert second.json()["error"]["type"] == "rate_limit_error"
    clock.advance(12)
    assert HTTP.post(server.url_for(MESSAGES), json=body).status_code == 200


def test_buckets_are_per_key_and_keys_never_show(server):
    """Each API key has its own bucket; the key is in no header, body or metric."""
    pool = llm.capacity(rpm=1, clock=llm.ManualClock())
    server.mock(mockhttp.post(CHAT).reply(llm.openai_chat("Hi", capacity=pool)))
    name = model()
    answers = [
        HTTP.post(server.url_for(CHAT), json=chat(name), headers={"authorization": f"Bearer {k}"})
        for k in ("sk-alpha-secret", "sk-beta-secret", "sk-alpha-secret")
    ]
    assert [a.status_code for a in answers] == [200, 200, 429]
    seen = (
        "".join(str(a.headers) + a.text for a in answers)
        + HTTP.get(server.url_for("/metrics")).text
    )
    assert "secret" not in seen
    assert "sk-" not in seen


def test_limit_by_model_shares_a_bucket_across_keys(server):
    """``limit_by="model"``: one bucket per model, whatever the key."""
    pool = llm.capacity(rpm=1, limit_by="model", clock=llm.ManualClock())
    server.mock(mockhttp.post(CHAT).reply(llm.openai_chat("Hi", capacity=pool)))
    codes = [
        HTTP.post(server.url_for(CHAT), json=chat(m), headers={"authorization": k}).status_code
        for m, k in (("a", "k1"), ("a", "k2"), ("b", "k1"))
    ]
    assert codes == [200, 429, 200]


def test_the_openai_sdk_honours_retry_after_and_gets_through():
    """``rpm=1`` per 2 s: the SDK's retry waits the time it is told (retry-after-ms, up to
    2 s), not its own backoff (0.375-0.5 s, then 0.75-1 s, both inside the window: a second
    429, then a third and an error), and the call succeeds at its first retry.  (A 200 ms
    window told them apart only by an upper bound on the time, 0.35 s, which a loaded
    machine passed.)"""
    pool = llm.capacity(rpm=1, minute="2s")
    with (
        mockhttp.Server() as server,
        openai.OpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=2) as client,
    ):
        server.mock(mockhttp.post(CHAT).reply(llm.openai_chat("Hello", capacity=pool)))
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "Hi"}])
        answer = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "Hi"}]
        )
        assert answer.choices[0].message.content == "Hello"
        assert [c.status for c in server.journal] == [200, 429, 200]
        first, _, retry = (c.time for c in server.journal)
        assert retry - first >= 2 - 0.05  # after the window, where it was told to come back


# -- metrics, the file form, errors ---------------------------------------------------------


def test_metrics_have_vllms_names_tokens_and_success(server):
    """A stream that ends counts its prompt and generated tokens, a success, a gap."""
    name = model()
    pool = llm.capacity(max_running=4)
    reply = llm.openai_chat("Hello, world", chunks_per_second=200, capacity=pool)
    server.mock(mockhttp.post(CHAT).reply(reply))
    with httpx.stream("POST", server.url_for(CHAT), json=chat(name, stream=True)) as r:
        r.read()
    wait_for(lambda: pool.running == 0)
    seen = metrics(server, name)
    assert seen["vllm:prompt_tokens_total"] == 2.0  # "Hi there"
    assert seen["vllm:generation_tokens_total"] == 3.0  # Hello , world
    assert seen["vllm:request_success_total[stop]"] == 1.0
    assert seen["vllm:inter_token_latency_seconds_count"] == 1.0
    assert seen["vllm:inter_token_latency_seconds_sum"] == pytest.approx(0.005)
    assert seen["vllm:time_per_output_token_seconds_count"] == 1.0
    assert seen["vllm:num_requests_running"] == 0.0
    response = HTTP.get(server.url_for("/metrics"))
    assert response.headers["content-type"].startswith("text/plain; version=")


def test_metrics_are_off_by_default():
    """Without ``metrics=True``, ``/metrics`` is an ordinary (unmatched) path."""
    with mockhttp.Server() as server:
        assert HTTP.get(server.url_for("/metrics")).status_code == 404


def test_capacity_in_a_mock_file_and_back():
    """``capacity:`` on a reply in a mock file builds one; dumping gives it back."""
    text = (
        "- request: {method: POST, path: /v1/messages}\n"
        "  response:\n"
        "    anthropic_messages:\n"
        "      text: Hi\n"
        "      capacity: {max_running: 2, max_waiting: 4, ttft_per_token: 10ms, rpm: 100}\n"
    )
    (mock,) = mockhttp.loads(text)
    kind = mock.kind
    assert isinstance(kind, llm.AnthropicMessages)
    pool = kind.capacity
    assert (pool.max_running, pool.max_waiting, pool.ttft_per_token, pool.rpm) == (2, 4, 0.01, 100)
    assert kind.to_args()["capacity"] == {
        "max_running": 2,
        "max_waiting": 4,
        "ttft_per_token": "10ms",
        "rpm": 100,
    }


def test_a_misspelt_option_in_a_file_says_where_and_what():
    """An unknown option names file:line:column and the closest option."""
    text = (
        "- request: {method: POST, path: /v1/messages}\n"
        "  response:\n"
        "    anthropic_messages: {text: Hi, capacity: {max_runing: 2}}\n"
    )
    with pytest.raises(mockhttp.MockfileError) as info:
        mockhttp.loads(text)
    message = str(info.value)
    assert message.startswith("<string>:3:")
    assert "did you mean 'max_running'" in message


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"max_running": 0}, "max_running=0 must be a positive int"),
        ({"max_waiting": -1}, "max_waiting=-1 must be a non-negative int"),
        ({"when_full": "busy"}, "when_full='busy'"),
        ({"limit_by": "ip"}, "limit_by='ip'"),
        ({"minute": 0}, "minute=0"),
        ({"clock": 3}, "clock=3"),
    ],
)
def test_bad_options_are_config_errors(options, words):
    """Each bad option is refused when the capacity is made, by name."""
    with pytest.raises(mockhttp.ConfigError, match=words.replace("(", r"\(")):
        llm.capacity(**options)


def test_manual_clock_moves_only_forward():
    """``advance`` moves the clock; a negative step is refused."""
    clock = llm.ManualClock(start=10.0)
    clock.advance(2.5)
    assert clock() == 12.5
    with pytest.raises(mockhttp.ConfigError):
        clock.advance(-1)


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0.012, "12ms"), (1.0, "1s"), (30.0, "30s"), (60.0, "1m0s"), (360.0, "6m0s"), (8.64, "8.64s")],
)
def test_resets_are_go_durations(seconds, text):
    """OpenAI's reset headers are Go durations."""
    assert go_duration(seconds) == text


def test_serve_metrics_flag(tmp_path):
    """``mockhttp serve --metrics`` answers /metrics with a file's capacity counted."""
    from tests.helpers.cli_process import Serving

    mocks = tmp_path / "backend.yaml"
    mocks.write_text(
        "- request: {method: POST, path: /v1/chat/completions}\n"
        "  response: {openai_chat: {text: Hi, capacity: {max_running: 1, rpm: 5}}}\n"
    )
    with Serving(str(mocks), "--metrics", "--quiet") as serving:
        answer = HTTP.post(serving.url + CHAT, json=chat("served"))
        assert answer.headers["x-ratelimit-remaining-requests"] == "4"
        text = HTTP.get(serving.url + "/metrics").text
    names = {f.name for f in text_string_to_metric_families(text)}
    assert {"vllm:num_requests_running", "vllm:prompt_tokens"} <= names
    assert 'vllm:prompt_tokens_total{model_name="served"} 2.0' in text
