"""One ``/metrics`` for ``mockhttp serve --workers N``: the workers' families merged.

Each worker keeps its own registry (``_metrics``); the supervisor asks every worker for
its samples (``dump``, JSON over the worker's control port) and answers with them merged
(``Book``), so a scrape answered by any worker covers all of them.

Rule 1: counters and histograms (``_bucket`` by ``le``, ``_count``, ``_sum``) are summed
over the workers, and stay monotonic across scrapes: when a worker is replaced (its pid
changed) or does not answer, the totals it had at its last scrape are kept for its
number, so a dead worker's requests never leave the total.
Rule 2: gauges are summed over the workers that answered (requests running now on the
whole server); a dead worker's gauges are gone with it (its series read 0).
Rule 3: ``per_worker`` keeps one series per worker (label ``worker``, its number, the
totals of the processes that held that number before it included) instead of the sum.
Rule 4: ``_created`` samples (a process's start time) are left out: no sum means anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Book", "dump"]

Key = tuple[str, tuple[tuple[str, str], ...]]  # a sample's name and its labels, sorted


def dump(registry: Any) -> list[dict[str, Any]]:
    """A registry's families as JSON: name, type, help and samples ``[name, labels, value]``."""
    return [
        {
            "name": family.name,
            "type": family.type,
            "help": family.documentation,
            "samples": [
                [s.name, dict(s.labels), s.value]
                for s in family.samples
                if not s.name.endswith("_created")  # Rule 4
            ],
        }
        for family in registry.collect()
    ]


@dataclass
class _Family:
    name: str
    type: str
    help: str
    owner: dict[str, str] = field(default_factory=dict)  # sample name -> family name


@dataclass
class _Seen:
    pid: int
    totals: dict[Key, float]  # counters and histograms (Rule 1)
    gauges: dict[Key, float]


class Book:
    """The supervisor's record of the workers' samples, merged on each scrape."""

    def __init__(self) -> None:
        self.families: dict[str, _Family] = {}  # in the order first seen
        self.owner: dict[str, str] = {}  # sample name -> family name
        self.last: dict[int, _Seen] = {}  # worker number -> its last answer
        self.kept: dict[int, dict[Key, float]] = {}  # totals of its dead predecessors

    def read(self, number: int, pid: int, families: list[dict[str, Any]] | None) -> None:
        """Worker ``number`` (process ``pid``) answered ``families`` (None: no answer)."""
        before = self.last.get(number)
        if families is None:  # keep its totals (Rule 1), drop its gauges (Rule 2)
            if before is not None:
                before.gauges = dict.fromkeys(before.gauges, 0.0)
            return
        if before is not None and before.pid != pid:  # replaced: keep the dead one's totals
            kept = self.kept.setdefault(number, {})
            for key, value in before.totals.items():
                kept[key] = kept.get(key, 0.0) + value
        seen = _Seen(pid, {}, {})
        for family in families:
            kind = str(family["type"])
            name = str(family["name"])
            self.families.setdefault(name, _Family(name, kind, str(family["help"])))
            for sample, labels, value in family["samples"]:
                self.owner[sample] = name
                at: Key = (sample, tuple(sorted(labels.items())))
                (seen.gauges if kind == "gauge" else seen.totals)[at] = float(value)
        self.last[number] = seen

    def series(self, per_worker: bool = False) -> dict[str, dict[Key, float]]:
        """The merged samples by family (Rules 1-3)."""
        merged: dict[str, dict[Key, float]] = {name: {} for name in self.families}
        for number in sorted(set(self.last) | set(self.kept)):
            seen = self.last.get(number)
            parts = [self.kept.get(number, {})]
            parts += [] if seen is None else [seen.totals, seen.gauges]
            for part in parts:
                for (sample, labels), value in part.items():
                    if per_worker:
                        labels = (*labels, ("worker", str(number)))
                    into = merged[self.owner[sample]]
                    into[(sample, labels)] = into.get((sample, labels), 0.0) + value
        return merged

    def text(self, per_worker: bool = False) -> bytes:
        """The merged samples in Prometheus text (written by prometheus_client)."""
        from prometheus_client import CollectorRegistry, generate_latest
        from prometheus_client.metrics_core import Metric
        from prometheus_client.samples import Sample

        metrics = []
        for name, samples in self.series(per_worker).items():
            family = self.families[name]
            metric = Metric(name, family.help, family.type)
            for (sample, labels), value in sorted(samples.items(), key=_order):
                metric.samples.append(Sample(sample, dict(labels), value))
            metrics.append(metric)

        class _Merged:
            def collect(self) -> list[Metric]:
                return metrics

        registry = CollectorRegistry(auto_describe=False)
        registry.register(_Merged())
        return generate_latest(registry)


def _order(item: tuple[Key, float]) -> tuple[Any, ...]:
    """Samples in a stable order; a histogram's buckets by their bound (``+Inf`` last)."""
    (sample, labels), _ = item
    rest = tuple((k, v) for k, v in labels if k != "le")
    bound = dict(labels).get("le")
    return (rest, sample, float(bound) if bound is not None else 0.0)
