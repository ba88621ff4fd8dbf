"""Seeded chaos for WebSocket sessions: break some messages, the same ones on every run.

``Chaos(p, seed, faults)`` is an endpoint's option (``chaos=`` on any ``websocket``
endpoint, OpenAI Realtime and Gemini Live included): before each data message a session
sends, a draw decides whether the message is broken instead of sent, and how.  The draw
depends only on ``seed``, the session's number on its endpoint (0 for the first) and the
message's number in the session (0 for the first), as ``fault.sometimes`` depends on the
seed and the call: a run with the same seed breaks the same messages of the same
sessions, so a failure found once is found again.

The faults (``faults=``, any of them; default all but ``stall``):

- ``drop``: the TCP connection closed with no close frame (the client sees 1006);
- ``cut``: the message's frame written up to the middle of its payload, then dropped;
- ``close``: a close frame with **1011** (internal error) and the reason ``chaos``;
- ``invalid_utf8``: a text frame whose payload is not UTF-8 in place of the message;
- ``stall``: nothing more is sent (the session keeps answering pings).

Rule 1: once a session is broken nothing more is sent on it (a ``stall`` answers pings,
a ``close`` waits for the client's close); the frame journal shows the fault's kind.
Rule 2: ``p`` is a probability; a bad option names itself (file forms too).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._core._errors import ConfigError, UnknownNameError

__all__ = ["CHAOS_FAULTS", "Chaos", "chaos_of"]

CHAOS_FAULTS = ("drop", "cut", "close", "invalid_utf8", "stall")
DEFAULT_FAULTS = ("drop", "cut", "close", "invalid_utf8")


@dataclass(frozen=True, slots=True)
class Chaos:
    """Break a message with probability ``p`` (see the module's docstring)."""

    p: float
    seed: int = 0
    faults: Sequence[str] = DEFAULT_FAULTS

    def __post_init__(self) -> None:
        p = self.p
        if isinstance(p, bool) or not isinstance(p, int | float) or not 0 <= p <= 1:
            raise ConfigError(f"chaos p={p!r} must be a probability from 0 to 1")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise ConfigError(f"chaos seed={self.seed!r} must be an int")
        faults = self.faults
        if isinstance(faults, str) or not isinstance(faults, Sequence) or not faults:
            raise ConfigError(f"chaos faults={faults!r} must be a non-empty list of {CHAOS_FAULTS}")
        for name in faults:
            if name not in CHAOS_FAULTS:
                raise ConfigError(
                    f"chaos: {UnknownNameError('chaos fault', str(name), CHAOS_FAULTS)}"
                )
        object.__setattr__(self, "faults", tuple(faults))

    def decide(self, session: int, message: int) -> str | None:
        """The fault that breaks message ``message`` of session ``session`` (None: sent)."""
        draw = random.Random(f"ws-chaos:{self.seed}:{session}:{message}")
        if draw.random() >= self.p:
            return None
        return self.faults[draw.randrange(len(self.faults))]

    def to_args(self) -> dict[str, Any]:
        out: dict[str, Any] = {"p": self.p}
        if self.seed:
            out["seed"] = self.seed
        if tuple(self.faults) != DEFAULT_FAULTS:
            out["faults"] = list(self.faults)
        return out


def chaos_of(value: Any) -> Chaos | None:
    """A ``Chaos``, or its file form ``{p: 0.1, seed: 1, faults: [drop, cut]}``."""
    if value is None or isinstance(value, Chaos):
        return value
    if isinstance(value, Mapping):
        unknown = [k for k in value if k not in ("p", "seed", "faults")]
        if unknown:
            known = ("p", "seed", "faults")
            raise ConfigError(f"chaos: {UnknownNameError('chaos option', str(unknown[0]), known)}")
        if "p" not in value:
            raise ConfigError("chaos needs p (the probability a message is broken)")
        return Chaos(value["p"], value.get("seed", 0), value.get("faults", DEFAULT_FAULTS))
    raise ConfigError(f"chaos={value!r} must be {{p: 0.1, seed: 1, faults: [drop, cut]}}")
