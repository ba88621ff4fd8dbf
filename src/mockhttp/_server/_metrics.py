"""``GET /metrics``: Prometheus text, under the names vLLM's server exports.

The families live in one registry per process (not prometheus_client's global one, which
belongs to the application under test).  Whatever models load (``mockhttp.llm``'s
capacity) records into :func:`families`; a server made with ``metrics=True`` answers
``GET /metrics`` with that registry, written by ``prometheus_client`` (``pip install
'mockhttp[metrics]'``).

Rule 1: the names and labels are vLLM's (``vllm:num_requests_running{model_name=...}``),
so dashboards and autoscalers made for vLLM read a mock as they read vLLM; what vLLM has
no name for (requests refused by a rate limit or a full queue) is under ``mockhttp:``.
Rule 2: one registry per process: under ``mockhttp serve --workers`` each worker counts
its own requests, and ``/metrics`` is the supervisor's merge of them all (``_merged``).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from .._core._errors import ConfigError
from .._core._reply import Reply, ok

__all__ = ["Families", "families", "metrics_reply", "require"]

# vLLM's own buckets (vllm/v1/metrics/loggers.py), so histograms line up with its dashboards
_TTFT_BUCKETS: tuple[float, ...] = (0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25)
_TTFT_BUCKETS += (0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0)
_ITL_BUCKETS: tuple[float, ...] = (0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5)
_ITL_BUCKETS += (0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0)
_MODEL = ("model_name",)


@dataclass(frozen=True)
class Families:
    """The metric families (prometheus_client objects), labelled by ``model_name``."""

    registry: Any
    running: Any
    waiting: Any
    ttft: Any
    itl: Any
    tpot: Any
    prompt_tokens: Any
    generation_tokens: Any
    success: Any
    rejected: Any


_LOCK = threading.Lock()
_FAMILIES: list[Families] = []


def require() -> None:
    """Raise unless prometheus_client can be imported.

    Raises:
        ConfigError: it is not installed (``pip install 'mockhttp[metrics]'``).
    """
    try:
        import prometheus_client  # noqa: F401
    except ImportError:
        raise ConfigError(
            "metrics=True needs prometheus_client: pip install 'mockhttp[metrics]'"
        ) from None


def families() -> Families | None:
    """The process's metric families, made on first use (None without prometheus_client)."""
    if _FAMILIES:
        return _FAMILIES[0]
    try:
        import prometheus_client  # noqa: F401
    except ImportError:
        return None
    with _LOCK:
        if not _FAMILIES:
            _FAMILIES.append(_make())
    return _FAMILIES[0]


def _make() -> Families:
    from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

    r = CollectorRegistry()
    return Families(
        registry=r,
        running=Gauge("vllm:num_requests_running", "Requests generating now.", _MODEL, registry=r),
        waiting=Gauge(
            "vllm:num_requests_waiting", "Requests waiting for a slot.", _MODEL, registry=r
        ),
        ttft=Histogram(
            "vllm:time_to_first_token_seconds",
            "Time to first token (queue wait and prefill), in seconds.",
            _MODEL,
            buckets=_TTFT_BUCKETS,
            registry=r,
        ),
        itl=Histogram(
            "vllm:inter_token_latency_seconds",
            "Time between two output chunks, in seconds.",
            _MODEL,
            buckets=_ITL_BUCKETS,
            registry=r,
        ),
        tpot=Histogram(
            "vllm:time_per_output_token_seconds",
            "Time per output token (the older name of inter-token latency), in seconds.",
            _MODEL,
            buckets=_ITL_BUCKETS,
            registry=r,
        ),
        prompt_tokens=Counter(
            "vllm:prompt_tokens", "Prompt tokens of admitted requests.", _MODEL, registry=r
        ),
        generation_tokens=Counter(
            "vllm:generation_tokens", "Tokens generated for admitted requests.", _MODEL, registry=r
        ),
        success=Counter(
            "vllm:request_success",
            "Requests whose reply was sent to its end.",
            ("model_name", "finished_reason"),
            registry=r,
        ),
        rejected=Counter(
            "mockhttp:requests_rejected",
            "Requests refused with 429/503: a full queue or a rate limit.",
            ("model_name", "reason"),
            registry=r,
        ),
    )


def metrics_reply() -> Reply:
    """The ``GET /metrics`` answer: the registry in Prometheus text format."""
    from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

    found = families()
    assert found is not None  # require() was called when the server was made
    return ok().header("Content-Type", CONTENT_TYPE_LATEST).body(generate_latest(found.registry))
