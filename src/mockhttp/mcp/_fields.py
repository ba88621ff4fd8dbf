"""The checks every record of a mock MCP server shares: data read with errors at the
innermost place (``tools[0].answers[1].progress: ...``), and records written back as data
(defaults left out)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import fields
from typing import Any

from .._core._errors import ConfigError

__all__ = [
    "check_keys",
    "check_mapping",
    "check_sequence",
    "check_text",
    "fail",
    "record_data",
    "records",
]


_PATH = re.compile(r"^[A-Za-z_]\w*(?:\[\d+\]|\.[A-Za-z_]\w*)*: ")


def fail(where: str, text: str) -> ConfigError:
    """An error at ``where`` (``tools[0]``); an inner place (``answers[1].progress: ...``)
    is joined to it, so a mock file's error points at the innermost node."""
    if not where:
        return ConfigError(text)
    return ConfigError(f"{where}.{text}" if _PATH.match(text) else f"{where}: {text}")


def check_keys(data: Mapping[str, Any], known: Sequence[str], where: str) -> None:
    for key in data:
        if key not in known:
            raise fail(where, f"unknown key {key!r}, expected one of {', '.join(known)}")


def check_text(value: Any, where: str, *, empty: bool = True) -> str:
    if not isinstance(value, str) or (not empty and not value):
        raise fail(where, f"{value!r} must be {'' if empty else 'non-empty '}text")
    return value


def check_mapping(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise fail(where, f"{value!r} must be a mapping")
    return dict(value)


def record_data(record: Any) -> dict[str, Any]:
    """A record's fields that differ from their defaults, as data."""
    out: dict[str, Any] = {}
    for f in fields(record):
        value = getattr(record, f.name)
        default = f.default_factory() if callable(f.default_factory) else f.default
        if value != default:
            out[f.name] = [_as_data(v) for v in value] if isinstance(value, tuple) else value
    return out


def _as_data(value: Any) -> Any:
    return value.to_data() if hasattr(value, "to_data") else value


def check_sequence(value: Any, where: str) -> tuple[Any, ...]:
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Sequence):
        raise fail(where, f"{value!r} must be a list")
    return tuple(value)


def _record(cls: type[Any], value: Any, where: str) -> Any:
    """A record of ``cls`` from itself or from data (a mapping of its fields)."""
    if isinstance(value, cls):
        return value
    data = check_mapping(value, where)
    check_keys(data, [f.name for f in fields(cls)], where)
    try:
        return cls(**data)
    except (ConfigError, TypeError) as exc:
        text = str(exc).replace("__init__() ", "")
        raise fail(where, text) from None


def records(cls: type[Any], values: Any, where: str) -> tuple[Any, ...]:
    """``values`` (records or their data) as a tuple of ``cls`` records."""
    return tuple(
        _record(cls, v, f"{where}[{i}]") for i, v in enumerate(check_sequence(values, where))
    )
