"""``_server/_merged.py``: the workers' metric families merged into one answer (pure)."""

from __future__ import annotations

from typing import Any

import pytest

from mockhttp._server._merged import Book, dump

pytest.importorskip("prometheus_client")
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.parser import text_string_to_metric_families


def families(done: float, running: float, seconds: list[float]) -> list[dict[str, Any]]:
    """One worker's dump: a counter, a gauge, a histogram (buckets 0.1, 1)."""
    r = CollectorRegistry()
    Counter("done", "Done.", ["model_name"], registry=r).labels("m").inc(done)
    Gauge("running", "Running.", ["model_name"], registry=r).labels("m").set(running)
    h = Histogram("ttft_seconds", "TTFT.", ["model_name"], buckets=(0.1, 1.0), registry=r)
    for s in seconds:
        h.labels("m").observe(s)
    return dump(r)


def samples(book: Book, per_worker: bool = False) -> dict[tuple[str, str], float]:
    """The text answer parsed: value by sample name and its labels (as one string)."""
    text = book.text(per_worker).decode()
    return {
        (s.name, ",".join(f"{k}={v}" for k, v in sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def test_dump_keeps_types_and_samples_but_not_created() -> None:
    dumped = families(2, 1, [0.05])
    kinds = {f["name"]: f["type"] for f in dumped}
    assert kinds == {"done": "counter", "running": "gauge", "ttft_seconds": "histogram"}
    names = {s[0] for f in dumped for s in f["samples"]}
    assert "done_total" in names
    assert not any(n.endswith("_created") for n in names)


def test_counters_gauges_and_histograms_are_summed() -> None:
    book = Book()
    book.read(0, 100, families(3, 1, [0.05, 0.5]))
    book.read(1, 101, families(4, 2, [2.0]))
    got = samples(book)
    assert got[("done_total", "model_name=m")] == 7
    assert got[("running", "model_name=m")] == 3
    assert got[("ttft_seconds_bucket", "le=0.1,model_name=m")] == 1
    assert got[("ttft_seconds_bucket", "le=1.0,model_name=m")] == 2
    assert got[("ttft_seconds_bucket", "le=+Inf,model_name=m")] == 3
    assert got[("ttft_seconds_count", "model_name=m")] == 3
    assert got[("ttft_seconds_sum", "model_name=m")] == pytest.approx(2.55)


def test_a_replaced_worker_keeps_its_totals_not_its_gauges() -> None:
    book = Book()
    book.read(0, 100, families(5, 2, [0.05]))
    book.read(1, 101, families(1, 0, []))
    book.read(0, 200, families(1, 1, []))  # pid 100 died; 200 took its number
    got = samples(book)
    assert got[("done_total", "model_name=m")] == 5 + 1 + 1
    assert got[("running", "model_name=m")] == 1
    assert got[("ttft_seconds_count", "model_name=m")] == 1
    book.read(0, 200, families(3, 0, []))  # the same process again: no double count
    assert samples(book)[("done_total", "model_name=m")] == 5 + 3 + 1


def test_a_worker_that_does_not_answer_keeps_its_last_totals() -> None:
    book = Book()
    book.read(0, 100, families(5, 2, []))
    book.read(0, 100, None)
    got = samples(book)
    assert got[("done_total", "model_name=m")] == 5
    assert got[("running", "model_name=m")] == 0


def test_per_worker_labels_each_worker_with_its_predecessors_totals() -> None:
    book = Book()
    book.read(0, 100, families(5, 2, []))
    book.read(1, 101, families(1, 1, []))
    book.read(0, 200, families(2, 0, []))
    got = samples(book, per_worker=True)
    assert got[("done_total", "model_name=m,worker=0")] == 7
    assert got[("done_total", "model_name=m,worker=1")] == 1
    assert got[("running", "model_name=m,worker=0")] == 0
    assert got[("running", "model_name=m,worker=1")] == 1


def test_buckets_are_written_in_order_of_their_bound() -> None:
    book = Book()
    book.read(0, 1, families(0, 0, [0.5]))
    text = book.text().decode()
    at = [text.index(f'le="{le}"') for le in ("0.1", "1.0", "+Inf")]
    assert at == sorted(at)
    assert "# TYPE ttft_seconds histogram" in text


def test_no_worker_yet_is_an_empty_answer() -> None:
    assert Book().text() == b""
