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
    writes:
      - {at: 0ms, data: "data: {...}\\n\\n"}
      - {at: 21.5ms, base64: 8J+Ygg==}   # bytes that are not UTF-8 text on their own
```
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from .._core._errors import ConfigError
from .._core._reply import Reply
from .._core._units import format_seconds, seconds
from .._mockfile._dump import _Dumper, _FlowMap
from .._mockfile._kinds import ResponseKind, register_response_kind
from .._mockfile._nodes import At
from ._pieces import Write
from ._recording import ENDS, TIMINGS, Recording

__all__ = ["KEYS", "read", "register", "write"]

KEYS = ("writes", "length", "end", "timing", "speed", "variant")
WRITE_KEYS = ("at", "data", "base64")


class _Quoted(str):
    """Text written double-quoted, so line ends show as ``\n``, ``\r``."""

    __slots__ = ()


def _represent_quoted(dumper: Any, data: str) -> Any:
    return dumper.represent_scalar("tag:yaml.org,2002:str", str(data), style='"')


_Dumper.add_representer(_Quoted, _represent_quoted)


def _at(value: float) -> str:
    text = format_seconds(value)
    if text.endswith("ms") or text == "0s":
        return text
    ms = f"{value * 1000:.3f}".rstrip("0").rstrip(".")
    return f"{ms}ms"


def write(reply: Reply) -> dict[str, Any]:
    """The ``recording`` value for a :class:`Recording`."""
    assert isinstance(reply, Recording)
    out: dict[str, Any] = {}
    if reply.length is not None:
        out["length"] = reply.length
    if reply.end != "complete":
        out["end"] = reply.end
    if reply.timing != "original":
        out["timing"] = reply.timing
    if reply.speed != 1:
        out["speed"] = int(reply.speed) if reply.speed.is_integer() else reply.speed
    if reply.variant is not None:
        out["variant"] = reply.variant
    out["writes"] = [_write(w) for w in reply.writes]
    return out


def _write(w: Write) -> _FlowMap:
    try:
        return _FlowMap(at=_at(w.at), data=_Quoted(w.data.decode("utf-8")))
    except UnicodeDecodeError:
        return _FlowMap(at=_at(w.at), base64=base64.b64encode(w.data).decode("ascii"))


def read(reply: Reply, at: At) -> Reply:
    """``reply`` (status, headers so far) with the body recorded at ``at``."""
    f = at.fields(KEYS, "a recording: a mapping with writes, and timing, speed, variant, ...")
    if "writes" not in f:
        at.fail("a recording needs writes: a list of {at: 20ms, data: text}")
    writes = tuple(_read_write(item) for item in f["writes"].elements("a list of writes"))
    options: dict[str, Any] = {}
    if "length" in f:
        options["length"] = f["length"].integer("the announced Content-Length (an int)")
    for key, allowed in (("end", ENDS), ("timing", TIMINGS)):
        if key in f:
            value = f[key].text(" or ".join(allowed))
            if value not in allowed:
                f[key].expected(" or ".join(allowed))
            options[key] = value
    if "speed" in f:
        speed = f["speed"].scalar("a number above 0 (2: twice as fast)")
        if isinstance(speed, bool) or not isinstance(speed, int | float):
            f["speed"].expected("a number above 0 (2: twice as fast)")
        options["speed"] = speed
    if "variant" in f:
        options["variant"] = f["variant"].text("a variant name such as comment")
    with (f.get("variant") or f.get("speed") or at).building():
        return Recording(
            status_code=reply.status_code,
            reason=reply.reason,
            headers=reply.headers,
            head_delay=reply.head_delay,
            writes=writes,
            **options,
        )


def _read_write(at: At) -> Write:
    f = at.fields(WRITE_KEYS, "a write: {at: 20ms, data: text} or {at: ..., base64: ...}")
    if ("data" in f) == ("base64" in f):
        at.fail("a write needs one of data (text) or base64 (bytes)")
    when = 0.0
    if "at" in f:
        what = "a duration such as 20ms (since the head)"
        value = f["at"].scalar(what)
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            f["at"].expected(what)
        with f["at"].building():
            when = seconds(value, "at")
    if "data" in f:
        data = f["data"].text("text (the bytes of the write, as UTF-8)").encode("utf-8")
    else:
        text = f["base64"].text("base64 text")
        try:
            data = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            f["base64"].fail(f"found {text!r}, expected base64 text")
    try:
        return Write(when, data)
    except ConfigError as exc:  # pragma: no cover - checked above
        at.fail(str(exc))


def register() -> None:
    """Add the ``recording`` key to mock files."""
    register_response_kind(ResponseKind("recording", Recording, read, write))
