"""Faults aimed at one JSON-RPC method: the answers of ``tools/call`` cut, the rest whole.

A :class:`MethodFault` applies its faults (``pipe``, from :mod:`mockhttp.fault`) to the
answers of the requests whose ``method`` it names, only the ``tool``'s calls when it
names one (``tools/call``), only the ``call``-th such request when it gives a number
(1 for the first).  The client's resume of a cut answer (a ``GET`` with
``Last-Event-ID``) is a stream of its own: kept whole by default, or cut by ``resume``
(its own faults), so a test can cut a call at event 2 and see the client take the rest.

In a mock file::

    faults:
      - {method: tools/call, tool: slow, call: 1, pipe: [[close_after_events, 2]]}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._core._plan import Fault
from ..fault import from_args
from ._fields import check_keys, check_mapping, check_sequence, check_text, fail

__all__ = ["MethodFault", "method_fault"]


def _faults(value: Any, where: str) -> tuple[Fault, ...]:
    """Faults, or their file forms (``[[close_after_events, 2]]``)."""
    out = []
    for i, item in enumerate(check_sequence(value, where)):
        if isinstance(item, list | tuple):
            try:
                item = from_args(item)
            except ValueError as exc:
                raise fail(f"{where}[{i}]", str(exc)) from None
        if not callable(getattr(item, "to_args", None)):
            raise fail(f"{where}[{i}]", f"{item!r} must be a fault such as [close_after_events, 2]")
        out.append(item)
    return tuple(out)


@dataclass(frozen=True)
class MethodFault:
    """Faults for the answers of one JSON-RPC method (see the module's docstring)."""

    method: str
    pipe: tuple[Fault, ...] = ()
    tool: str | None = None
    call: int | None = None
    resume: tuple[Fault, ...] = ()

    def __post_init__(self) -> None:
        check_text(self.method, "method", empty=False)
        if self.tool is not None:
            check_text(self.tool, "tool", empty=False)
            if self.method != "tools/call":
                raise fail("tool", f"{self.tool!r} names a tool: the method is tools/call")
        call = self.call
        if call is not None and (isinstance(call, bool) or not isinstance(call, int) or call < 1):
            raise fail("call", f"{call!r} must be a number from 1 (the first call)")
        object.__setattr__(self, "pipe", _faults(self.pipe, "pipe"))
        object.__setattr__(self, "resume", _faults(self.resume, "resume"))

    @classmethod
    def of(cls, value: Any, where: str) -> MethodFault:
        if isinstance(value, MethodFault):
            return value
        data = check_mapping(value, where)
        check_keys(data, ("method", "pipe", "tool", "call", "resume"), where)
        try:
            return cls(**data)
        except (ValueError, TypeError) as exc:
            raise fail(where, str(exc).replace("__init__() ", "")) from None

    def key(self) -> tuple[str, str | None]:
        """What its calls are counted by: the method, and the tool."""
        return (self.method, self.tool)

    def aims_at(self, method: Any, params: Mapping[str, Any]) -> bool:
        """Whether a request of ``method`` with ``params`` is of its kind (any call)."""
        return method == self.method and (self.tool is None or params.get("name") == self.tool)

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {"method": self.method}
        if self.tool is not None:
            data["tool"] = self.tool
        if self.call is not None:
            data["call"] = self.call
        data["pipe"] = [f.to_args() for f in self.pipe]  # type: ignore[attr-defined]
        if self.resume:
            data["resume"] = [f.to_args() for f in self.resume]  # type: ignore[attr-defined]
        return data


def method_fault(
    method: str,
    *faults: Fault,
    tool: str | None = None,
    call: int | None = None,
    resume: Sequence[Fault] = (),
) -> MethodFault:
    """Apply ``faults`` to the answers of ``method`` (the ``tool``'s calls only; the
    ``call``-th only, 1 for the first); the client's resume of a cut answer gets
    ``resume`` (default: whole).

    Raises:
        ConfigError: a bad method, tool, call number or fault.
    """
    return MethodFault(method, tuple(faults), tool, call, tuple(resume))
