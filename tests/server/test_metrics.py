"""``GET /metrics``'s families (_server/_metrics.py), pure: their names, types, labels
and buckets (vLLM's), read back through prometheus_client's own text parser; one
registry per process, apart from the global one of the application under test."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from mockhttp._core._errors import ConfigError
from mockhttp._server import _metrics
from mockhttp._server._metrics import Families, families, metrics_reply, require

prometheus_client = pytest.importorskip("prometheus_client")
from prometheus_client.parser import text_string_to_metric_families  # noqa: E402

TTFT: tuple[float, ...] = (
    0.001,
    0.005,
    0.01,
    0.02,
    0.04,
    0.06,
    0.08,
    0.1,
    0.25,
    0.5,
    0.75,
    1.0,
    2.5,
    5.0,
)
TTFT += (7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0)
ITL: tuple[float, ...] = (
    0.01,
    0.025,
    0.05,
    0.075,
    0.1,
    0.15,
    0.2,
    0.3,
    0.4,
    0.5,
    0.75,
    1.0,
    2.5,
    5.0,
    7.5,
)
ITL += (10.0, 20.0, 40.0, 80.0)

# name as written (the parser's family name), type, labels besides le
EXPECTED = {
    "vllm:num_requests_running": ("gauge", {"model_name"}),
    "vllm:num_requests_waiting": ("gauge", {"model_name"}),
    "vllm:time_to_first_token_seconds": ("histogram", {"model_name"}),
    "vllm:inter_token_latency_seconds": ("histogram", {"model_name"}),
    "vllm:time_per_output_token_seconds": ("histogram", {"model_name"}),
    "vllm:prompt_tokens": ("counter", {"model_name"}),
    "vllm:generation_tokens": ("counter", {"model_name"}),
    "vllm:request_success": ("counter", {"model_name", "finished_reason"}),
    "mockhttp:requests_rejected": ("counter", {"model_name", "reason"}),
}


def parsed(made: Families) -> dict[str, Any]:
    text = prometheus_client.generate_latest(made.registry).decode()
    return {
        f.name: f
        for f in text_string_to_metric_families(text)
        if not f.name.endswith("_created")  # (the text format's creation times)
    }


@pytest.fixture
def fresh() -> Families:
    """Families of this test alone (the process's are shared by every test)."""
    return _metrics._make()


def test_rule_1_the_names_types_and_labels_are_vllms(fresh: Families) -> None:
    fresh.running.labels("m").set(2)
    fresh.waiting.labels("m").set(1)
    for histogram in (fresh.ttft, fresh.itl, fresh.tpot):
        histogram.labels("m").observe(0.03)
    fresh.prompt_tokens.labels("m").inc(9)
    fresh.generation_tokens.labels("m").inc(4)
    fresh.success.labels("m", "stop").inc()
    fresh.rejected.labels("m", "rate_limit").inc()
    found = parsed(fresh)
    assert set(found) == set(EXPECTED)
    for name, (kind, labels) in EXPECTED.items():
        family = found[name]
        assert family.type == kind, name
        for sample in family.samples:
            assert set(sample.labels) - {"le"} == labels, (name, sample)
    counters = {s.name: s.value for s in found["vllm:prompt_tokens"].samples}
    assert counters["vllm:prompt_tokens_total"] == 9  # counters get _total on the wire


@pytest.mark.parametrize(("attribute", "buckets"), [("ttft", TTFT), ("itl", ITL), ("tpot", ITL)])
def test_the_buckets_are_vllms(fresh: Families, attribute: str, buckets: tuple[float, ...]) -> None:
    getattr(fresh, attribute).labels("m").observe(1e9)
    family = next(f for f in parsed(fresh).values() if f.name == getattr(fresh, attribute)._name)
    bounds = [float(s.labels["le"]) for s in family.samples if s.name.endswith("_bucket")]
    assert bounds == [*buckets, float("inf")]


def test_an_observation_lands_in_its_bucket(fresh: Families) -> None:
    fresh.ttft.labels("m").observe(0.03)
    family = parsed(fresh)["vllm:time_to_first_token_seconds"]
    cumulative = {
        float(s.labels["le"]): s.value for s in family.samples if s.name.endswith("_bucket")
    }
    assert cumulative[0.02] == 0
    assert cumulative[0.04] == 1
    assert cumulative[float("inf")] == 1


def test_rule_2_one_registry_a_process_not_the_global_one() -> None:
    made = families()
    assert made is not None
    assert families() is made
    assert made.registry is not prometheus_client.REGISTRY
    global_names = {f.name for f in prometheus_client.REGISTRY.collect()}
    assert not any(name.startswith(("vllm:", "mockhttp:")) for name in global_names)


def test_the_reply_is_the_registry_in_prometheus_text() -> None:
    made = families()
    assert made is not None
    reply = metrics_reply()
    assert reply.status_code == 200
    assert dict(reply.headers)["Content-Type"] == prometheus_client.CONTENT_TYPE_LATEST
    found = text_string_to_metric_families(reply.content.decode())
    names = {f.name for f in found if not f.name.endswith("_created")}
    assert names == set(EXPECTED)


def test_without_prometheus_client_require_says_how_to_get_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    require()  # installed here: nothing to say
    monkeypatch.setitem(sys.modules, "prometheus_client", None)
    with pytest.raises(ConfigError) as refused:
        require()
    assert str(refused.value) == (
        "metrics=True needs prometheus_client: pip install 'mockhttp[metrics]'"
    )


def test_without_prometheus_client_there_are_no_families(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_metrics, "_FAMILIES", [])
    monkeypatch.setitem(sys.modules, "prometheus_client", None)
    assert families() is None
    assert _metrics._FAMILIES == []
