"""What a rule reports: a ``Finding`` with a rule id, a severity and a location."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["SEVERITIES", "Finding", "Severity"]

Severity = Literal["violation", "warning", "note"]
SEVERITIES: tuple[Severity, ...] = ("violation", "warning", "note")


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing a rule found in a transcript.

    Attributes:
        rule: the rule id, e.g. ``"openai.done"`` (see docs/contract.md).
        severity: ``"violation"`` (clients that rely on the contract break), ``"warning"``
            (worth a look: legal but commonly mishandled, or an approximate comparison),
            or ``"note"`` (a tolerated quirk, reported so you know it is there).
        message: one sentence: what was seen, against what was expected.
        event: index of the dispatched SSE event it concerns (0-based), if any.
        offset: byte offset in the body, if any.
        exchange: which request of a multi-request check it came from, if any.
    """

    rule: str
    severity: Severity
    message: str
    event: int | None = None
    offset: int | None = None
    exchange: str | None = None

    @property
    def where(self) -> str:
        """``"event 3, byte 120"``, ``"byte 40"`` or ``"stream"`` when it concerns it all."""
        parts = []
        if self.event is not None:
            parts.append(f"event {self.event}")
        if self.offset is not None:
            parts.append(f"byte {self.offset}")
        return ", ".join(parts) or "stream"

    def __str__(self) -> str:
        exchange = f"[{self.exchange}] " if self.exchange else ""
        return f"{exchange}{self.rule} ({self.severity}) at {self.where}: {self.message}"
