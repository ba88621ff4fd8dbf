"""The script of a WebSocket session: what the mock sends, what it expects, when.

A script is a sequence of steps, run in order on each connection:

- ``Send(data, after)``: a text (``str``), binary (``bytes``) or JSON (any other value,
  sent as text) message, ``after`` seconds after the previous step.
- ``Expect(matcher)``: the client's next message must match (matched like a body:
  ``match.json_path`` and friends; text means equal, a mapping ``json_equal``).  A miss
  closes the session with 1008 and its explanation.
- ``Echo(times)``: send back the client's next ``times`` messages (None: all of them).
- ``Pause(seconds)``: wait.
- ``Close(code, reason)``: the closing handshake with this code.

File forms (one key a step): ``{send: text | {json: value} | {binary: base64}, after: 0.1}``,
``{expect: text | mapping | [matcher, ...]}``, ``{echo: true | N}``, ``{pause: 0.5}``,
``{close: 1000 | {code: 1000, reason: text}}``.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._core._errors import ConfigError, UnknownNameError
from .._core._forms import call_form, is_form
from .._core._match import MATCHERS, Matcher, equal, json_equal
from .._core._units import seconds
from ._faults import Cut, Drop, IgnorePings, Raw, invalid_utf8

__all__ = [
    "Close",
    "Echo",
    "Expect",
    "Pause",
    "Send",
    "Step",
    "payload",
    "steps_of",
    "to_data",
]

CLOSE_CODES_SENDABLE = range(1000, 5000)
"""Codes a close frame may carry (RFC 6455 §7.4; 1005, 1006 and 1015 never on the wire)."""
NOT_ON_THE_WIRE = frozenset({1004, 1005, 1006, 1015})


@dataclass(frozen=True, slots=True)
class Send:
    """Send ``data`` ``after`` seconds: text, bytes, or a JSON value sent as text; in
    ``fragments`` frames; its bytes written in pieces ``trickle`` seconds apart (0: at
    once)."""

    data: Any
    after: float = 0.0
    fragments: int = 1
    trickle: float = 0.0

    def __post_init__(self) -> None:
        n = self.fragments
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ConfigError(f"send fragments={n!r} must be an int >= 1")


@dataclass(frozen=True, slots=True)
class Expect:
    """The client's next message must match ``matcher``."""

    matcher: Matcher


@dataclass(frozen=True, slots=True)
class Echo:
    """Send back the next ``times`` messages (None: every message until the end)."""

    times: int | None = None


@dataclass(frozen=True, slots=True)
class Pause:
    """Wait ``seconds`` before the next step."""

    seconds: float


@dataclass(frozen=True, slots=True)
class Close:
    """Close with ``code`` and ``reason`` (the closing handshake)."""

    code: int = 1000
    reason: str = ""

    def __post_init__(self) -> None:
        code = self.code
        if isinstance(code, bool) or not isinstance(code, int):
            raise ConfigError(f"close code={code!r} must be an int such as 1000")
        if code not in CLOSE_CODES_SENDABLE or code in NOT_ON_THE_WIRE:
            raise ConfigError(
                f"close code={code} cannot be sent in a close frame (1000-4999, not"
                " 1004/1005/1006/1015; use fault drop for what a client reports as 1006)"
            )
        if not isinstance(self.reason, str) or len(self.reason.encode()) > 123:
            raise ConfigError(f"close reason={self.reason!r} must be text of <= 123 bytes")


Step = Send | Expect | Echo | Pause | Close | Drop | Cut | IgnorePings | Raw
STEP_KEYS = (
    "send",
    "expect",
    "echo",
    "pause",
    "close",
    "drop",
    "cut",
    "ignore_pings",
    "invalid_utf8",
    "raw",
)
SEND_OPTIONS = ("after", "fragments", "trickle")


def payload(data: Any) -> str | bytes:
    """What a ``Send`` puts on the wire: text or bytes as they are, JSON for the rest."""
    if isinstance(data, str | bytes):
        return data
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def expectation(value: Any, where: str = "expect") -> Matcher:
    """A matcher from ``value``: a matcher or its form as it is, a mapping ``json_equal``,
    other values ``equal``."""
    if isinstance(value, Matcher):
        return value
    if is_form(value):
        return call_form(value, MATCHERS, where, nested=_nested)
    if isinstance(value, Mapping):
        return json_equal(dict(value))
    if value is None or callable(value):
        raise ConfigError(f"{where}={value!r} must be text, a mapping or a matcher")
    return equal(value)


def _nested(_parameter: Any, value: Any) -> Any:
    return call_form(value, MATCHERS, nested=_nested) if is_form(value) else value


def steps_of(items: Sequence[Any]) -> tuple[Step, ...]:
    """The steps of ``items``: step records or their file forms.

    Raises:
        ConfigError: an entry that is not a step (the message names its index).
    """
    if isinstance(items, str | bytes | Mapping) or not isinstance(items, Sequence):
        raise ConfigError(f"script={items!r} must be a list of steps")
    return tuple(_step(item, f"script[{i}]") for i, item in enumerate(items))


def _step(item: Any, where: str) -> Step:
    if isinstance(item, Send | Expect | Echo | Pause | Close | Drop | Cut | IgnorePings | Raw):
        return item
    if not isinstance(item, Mapping):
        raise ConfigError(f"{where}={item!r} must be a step such as {{send: hello}}")
    keys = [k for k in item if k in STEP_KEYS]
    if len(keys) != 1:
        unknown = next((k for k in item if k not in (*STEP_KEYS, *SEND_OPTIONS)), None)
        if unknown is not None:
            raise ConfigError(f"{where}: {UnknownNameError('step', str(unknown), STEP_KEYS)}")
        raise ConfigError(f"{where}={dict(item)!r} must have exactly one of {STEP_KEYS}")
    key = keys[0]
    extra = [k for k in item if k != key and not (key == "send" and k in SEND_OPTIONS)]
    if extra:
        raise ConfigError(f"{where}: {key!r} takes no {extra[0]!r}")
    if key == "send":
        return Send(
            _sent(item[key], f"{where}.send"),
            seconds(item.get("after", 0.0), f"{where}.after"),
            item.get("fragments", 1),
            seconds(item.get("trickle", 0.0), f"{where}.trickle"),
        )
    return _read(key, item[key], f"{where}.{key}")


def _read(key: str, value: Any, where: str) -> Step:
    if key in ("drop", "ignore_pings", "invalid_utf8"):
        if value is not True:
            raise ConfigError(f"{where}={value!r} must be true")
        if key == "drop":
            return Drop()
        return IgnorePings() if key == "ignore_pings" else invalid_utf8()
    if key == "cut":
        return Cut(_sent(value, where))
    if key == "raw":
        return Raw(_sent({"binary": value}, where))
    if key == "expect":
        return Expect(expectation(value, where))
    if key == "echo":
        return Echo(_times(value, where))
    if key == "pause":
        return Pause(seconds(value, where))
    if isinstance(value, Mapping):
        return Close(value.get("code", 1000), value.get("reason", ""))
    return Close(value)


def _sent(value: Any, where: str) -> Any:
    if isinstance(value, Mapping) and set(value) == {"json"}:
        return value["json"] if not isinstance(value["json"], str) else json.dumps(value["json"])
    if isinstance(value, Mapping) and set(value) == {"binary"}:
        try:
            return base64.b64decode(str(value["binary"]), validate=True)
        except (binascii.Error, ValueError):
            raise ConfigError(f"{where}.binary must be base64") from None
    if isinstance(value, str):
        return value
    raise ConfigError(f"{where}={value!r} must be text, {{json: value}} or {{binary: base64}}")


def _times(value: Any, where: str) -> int | None:
    if value is True:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"{where}={value!r} must be true (every message) or a count >= 1")
    return value


_SEND_DEFAULTS = {"after": 0.0, "fragments": 1, "trickle": 0.0}


def to_data(step: Step) -> dict[str, Any]:
    """The file form of ``step``."""
    if isinstance(step, Send):
        data = step.data
        if isinstance(data, bytes):
            sent: Any = {"binary": base64.b64encode(data).decode()}
        else:
            sent = data if isinstance(data, str) else {"json": data}
        out = {"send": sent, "after": step.after, "fragments": step.fragments}
        out["trickle"] = step.trickle
        return {k: v for k, v in out.items() if k == "send" or v != _SEND_DEFAULTS[k]}
    if isinstance(step, Drop | IgnorePings):
        return {"drop" if isinstance(step, Drop) else "ignore_pings": True}
    if isinstance(step, Cut):
        cut = step.data
        return {"cut": cut if isinstance(cut, str) else {"binary": base64.b64encode(cut).decode()}}
    if isinstance(step, Raw):
        return {"raw": base64.b64encode(step.data).decode()}
    if isinstance(step, Expect):
        return {"expect": step.matcher.to_args()}
    if isinstance(step, Echo):
        return {"echo": True if step.times is None else step.times}
    if isinstance(step, Pause):
        return {"pause": step.seconds}
    if step.reason:
        return {"close": {"code": step.code, "reason": step.reason}}
    return {"close": step.code}
