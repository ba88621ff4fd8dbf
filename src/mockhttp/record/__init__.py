"""Record, replay, and the variants of a recorded stream that break parsers.

- :class:`Recorder` (``mockhttp record``): a proxy that forwards each request to an
  upstream, streams the reply back as it arrives, and records each exchange as a mock;
  a WebSocket upgrade is relayed and its session recorded as a ``websocket:`` mock
  (``_ws``).
- :class:`Recording`: a reply that replays the recorded bytes with their timing
  (``speed``, ``timing="none"``); in mock files, ``response: {recording: ...}``.
- :func:`variants`: the forms of one recorded stream that real streams differ by;
  :func:`each_variant` runs a pytest test once per variant.

Built on the core (``Feed``, replies, faults, mock files), which does not import it.
"""

from __future__ import annotations

from .._core._registry import Registry
from ._api import each_variant as each_variant
from ._api import recordings as recordings
from ._api import variants as variants
from ._exchange import REDACT as REDACT
from ._exchange import REDACTED as REDACTED
from ._pieces import Write as Write
from ._proxy import Recorder as Recorder
from ._proxy import record as record
from ._recording import Recording as Recording
from ._transcripts import from_transcript as from_transcript
from ._variants import VARIANTS as _VARIANTS

VARIANTS: Registry[str] = Registry(
    "variant", {name: variant.what for name, variant in _VARIANTS.items()}
)
"""Each variant's name and what it changes (``VARIANTS["crlf"]``; an unknown name raises
``UnknownNameError`` with a did-you-mean)."""

__all__ = [
    "REDACT",
    "REDACTED",
    "VARIANTS",
    "Recorder",
    "Recording",
    "Write",
    "each_variant",
    "from_transcript",
    "record",
    "recordings",
    "variants",
]
