"""The ``recording`` response key: a recording in a mock file, read and written.

```yaml
response:
  status: 200
  header: {Content-Type: text/event-stream}
  delay: 180ms                      # until the head arrived
  recording:
    speed: 2                        # optional: replay twice as fast
    timing: none                    # optional: no pauses at all
    variant: comment                # optional: replay a variant
    truncated: 268435456            # set by the recorder past --max-recording-size
    writes:
      - {at: 0ms, data: "data: {...}\\n\\n"}
      - {at: 21.5ms, base64: 8J+Ygg==}   # bytes that are not UTF-8 text on their own
```

``recording`` is a composing reply kind: ``status``, ``header`` and ``delay`` make the
reply, :func:`recording` adds the body.  This module is the ``record`` entry point of the
``mockhttp.reply_kinds`` group (pyproject.toml): the core imports it the first time a file
names ``recording``; writing is ``Recording.to_args``.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Any

from .._core._errors import ConfigError
from .._core._registry import register_reply_kind
from .._core._reply import Reply
from .._core._units import seconds
from ._pieces import Write
from ._recording import Recording

__all__ = ["WRITE_KEYS", "recording"]

WRITE_KEYS = ("at", "data", "base64")


def recording(
    reply: Reply,
    writes: list[Any] | None = None,
    length: int | None = None,
    end: str = "complete",
    timing: str = "original",
    speed: float = 1.0,
    variant: str | None = None,
    truncated: int | None = None,
) -> Recording:
    """The recording of a mock file: ``reply`` (status, headers, delay) with the body
    ``writes`` (``{at: 20ms, data: text}`` or ``{at: ..., base64: ...}`` each).

    Raises:
        ConfigError: a bad write (the message starts with its place: ``writes[2].at: ...``)
            or a bad option.
    """
    if writes is None:
        raise ConfigError("a recording needs writes: a list of {at: 20ms, data: text}")
    if not isinstance(writes, list):
        raise ConfigError(f"writes: found {writes!r}, expected a list of writes")
    return Recording(
        status_code=reply.status_code,
        reason=reply.reason,
        headers=reply.headers,
        head_delay=reply.head_delay,
        writes=tuple(_write(f"writes[{i}]", item) for i, item in enumerate(writes)),
        length=length,
        end=end,  # type: ignore[arg-type]  # checked by Recording
        timing=timing,  # type: ignore[arg-type]  # checked by Recording
        speed=speed,
        variant=variant,
        truncated=truncated,
    )


def _write(where: str, item: Any) -> Write:
    if not isinstance(item, Mapping) or any(k not in WRITE_KEYS for k in item):
        raise ConfigError(
            f"{where}: a write is {{at: 20ms, data: text}} or {{at: ..., base64: ...}}"
        )
    if ("data" in item) == ("base64" in item):
        raise ConfigError(f"{where}: a write needs one of data (text) or base64 (bytes)")
    try:
        when = seconds(item.get("at", 0), "at")
    except ConfigError as exc:
        raise ConfigError(f"{where}.at: {exc}") from None
    if "data" in item:
        if not isinstance(item["data"], str):
            raise ConfigError(f"{where}.data: found {item['data']!r}, expected text")
        return Write(when, item["data"].encode("utf-8"))
    try:
        data = base64.b64decode(item["base64"], validate=True)
    except (binascii.Error, ValueError, TypeError):
        raise ConfigError(
            f"{where}.base64: found {item['base64']!r}, expected base64 text"
        ) from None
    return Write(when, data)


register_reply_kind("recording", recording, composes=True)
