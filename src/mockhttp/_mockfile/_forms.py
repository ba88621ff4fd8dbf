"""The ``[name, arg, ..., {option: value}]`` form of matchers and faults, read and written.

One reader (:func:`read_form`) for every file form of a named constructor, with errors at
file:line:column: the name is looked up in its :class:`Registry` (an unknown one fails with
the registry's did-you-mean, placed at the name), the arguments are checked against the
constructor's signature and read by its annotations (:func:`typed`: a parameter typed
``Matcher`` takes a nested matcher, one typed ``Fault`` a nested fault, ``Duration`` a
duration).  One writer (:func:`write_form`) turns an object's ``to_args()`` into the flow
list a person would write.

The style markers :class:`Flow`, :class:`FlowMap` and :class:`Quoted` are plain lists,
dicts and text that the dumper writes in flow style or double-quoted; an extension's
``to_args`` may return them (``recording`` does), so no extension touches the dumper.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Mapping
from typing import Any

from .._core._errors import ConfigError
from .._core._match import MATCHERS, Matcher
from .._core._plan import Fault
from .._core._registry import Registry
from ..fault import FAULTS
from ._nodes import At, suggest

__all__ = [
    "KEYWORD",
    "POSITIONAL",
    "Flow",
    "FlowMap",
    "Quoted",
    "fault_of",
    "json_value",
    "matcher_arg",
    "params",
    "read_form",
    "shape",
    "typed",
    "write_form",
]


class Flow(list[Any]):
    """A list written in flow style: ``[name, arg, ...]``."""


class FlowMap(dict[str, Any]):
    """A mapping written in flow style: ``{event: ping, data: {type: ping}}``."""


class Quoted(str):
    """Text written double-quoted, so line ends show as ``\\n``, ``\\r``."""

    __slots__ = ()


def params(func: Callable[..., Any], *kinds: inspect._ParameterKind) -> dict[str, Any]:
    sig = inspect.signature(func)
    return {p.name: p for p in sig.parameters.values() if p.kind in kinds and p.name != "self"}


KEYWORD = inspect.Parameter.KEYWORD_ONLY
POSITIONAL = inspect.Parameter.POSITIONAL_OR_KEYWORD


# -- reading --------------------------------------------------------------------------------


def matcher_arg(at: At) -> Any:
    """A matcher place: a list is a matcher form, anything else a plain value (equal)."""
    return read_form(at, MATCHERS, "equal") if at.is_list else at.value()


def fault_of(at: At) -> Fault:
    """A fault place: its form ``[name, arg, ...]``."""
    if not at.is_list:
        at.expected("a fault: [name, arg, ...] such as [limit_data, 100]")
    fault: Fault = read_form(at, FAULTS, "limit_data")
    return fault


def read_form(at: At, registry: Registry[Callable[..., Any]], example: str) -> Any:
    """The object of the file form at ``at``: ``[name, arg, ..., {option: value}]``, its
    arguments checked against the constructor that ``registry`` names (``example``: a
    name for the error when the first item is no text)."""
    kind = registry.what
    items = at.elements(f"a {kind}: [name, arg, ...]")
    if not items:
        at.fail(f"found an empty list, expected a {kind}: [name, arg, ...]")
    name = items[0].text(f"a {kind} name such as {example!r}")
    with items[0].building():  # an unknown name: UnknownNameError, placed at the name
        make = registry.get(name)
    return _call(at, f"{kind} {name!r}", name, make, items[1:])


def _call(at: At, what: str, name: str, make: Callable[..., Any], args: list[At]) -> Any:
    """Call ``make`` with file arguments, checked against its signature."""
    positional = list(params(make, inspect.Parameter.POSITIONAL_ONLY, POSITIONAL).values())
    rest = next(iter(params(make, inspect.Parameter.VAR_POSITIONAL).values()), None)
    keywords = params(make, KEYWORD)
    required = sum(p.default is inspect.Parameter.empty for p in positional)
    # A trailing mapping holds keyword options, unless a required argument needs it.
    options = None
    if keywords and args and args[-1].is_mapping and len(args) - 1 >= required:
        options = args.pop()
    if len(args) < required or (rest is None and len(args) > len(positional)):
        at.fail(
            f"{what} takes {_count(required, len(positional), rest is not None)}, "
            f"found {len(args)}\n  expected: {shape(name, make)}"
        )
    slots = [*positional, *([rest] * (len(args) - len(positional)) if rest else [])]
    values = [typed(arg, p.annotation) for arg, p in zip(args, slots[: len(args)], strict=True)]
    kw = _options(options, what, keywords) if options else {}
    with at.building():
        return make(*values, **kw)


def _options(at: At, what: str, keywords: Mapping[str, Any]) -> dict[str, Any]:
    """The keyword options of a file form: ``{count: wire}``."""
    kw: dict[str, Any] = {}
    for key, key_at, child in at.items("options"):
        if key not in keywords:
            key_at.fail(
                f"unknown option {key!r} of {what}{suggest(key, keywords)}\n"
                f"  expected one of: {', '.join(keywords)}"
            )
        kw[key] = typed(child, keywords[key].annotation)
    return kw


def _count(required: int, maximum: int, more: bool) -> str:
    if more:
        text, n = f"at least {required}", required
    elif required == maximum:
        text, n = str(required), required
    else:
        text, n = f"{required} to {maximum}", maximum
    return f"{text} argument{'' if n == 1 else 's'}"


def shape(name: str, make: Callable[..., Any]) -> str:
    """A file form's shape read off its constructor: ``[json_path, path, matcher?]``."""
    positional = params(make, inspect.Parameter.POSITIONAL_ONLY, POSITIONAL).values()
    parts = [name]
    parts.extend(
        p.name if p.default is inspect.Parameter.empty else f"{p.name}?" for p in positional
    )
    parts.extend(f"{p}..." for p in params(make, inspect.Parameter.VAR_POSITIONAL))
    keywords = params(make, KEYWORD)
    if keywords:
        parts.append("{" + ", ".join(f"{k}: ..." for k in keywords) + "}")
    return "[" + ", ".join(parts) + "]"


# -- typed values, read off the Python annotations --------------------------------------------

_TYPES: dict[str, tuple[tuple[type, ...], str]] = {
    "str": ((str,), "text"),
    "int": ((int,), "an int"),
    "float": ((int, float), "a number"),
    "bool": ((bool,), "true or false"),
}


_CONTAINERS = ("list", "tuple", "dict", "Sequence", "Mapping", "Any")


def typed(at: At, annotation: Any) -> Any:
    """The value at ``at`` as the annotation ``annotation`` (a string) wants it."""
    parts = [p.strip() for p in str(annotation).split("|")]
    if "None" in parts and at.is_null:
        return None
    if any("Matcher" in p for p in parts):
        return matcher_arg(at)
    if any("Fault" in p for p in parts):
        return fault_of(at)
    if "Duration" in parts:
        return _duration(at)
    if (at.is_list or at.is_mapping) and any(p.split("[")[0] in _CONTAINERS for p in parts):
        return at.value()  # checked by the constructor that takes it
    known = [_TYPES[p] for p in parts if p in _TYPES]
    if not known:
        return at.value()
    what = " or ".join(name for _, name in known)
    value = at.scalar(what)
    allowed = tuple(t for types, _ in known for t in types)
    if (isinstance(value, bool) and bool not in allowed) or not isinstance(value, allowed):
        at.expected(what)
    return value


def _duration(at: At) -> Any:
    what = "a duration such as 20ms, 1.5s or a number of seconds"
    value = at.scalar(what)
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        at.expected(what)
    return value


# -- writing --------------------------------------------------------------------------------


def write_form(value: Matcher | Fault) -> Flow:
    """The flow list of a matcher or fault (its ``to_args()``).

    Raises:
        ConfigError: it has no file form (no ``to_args``, or an argument not JSON).
    """
    to_args = getattr(value, "to_args", None)
    try:
        if to_args is None:
            raise NotImplementedError
        return _flow(to_args())
    except NotImplementedError:  # a matcher or fault defined outside mockhttp
        name = type(value).__name__  # its repr may need the missing arguments too
        raise ConfigError(f"{name} has no file form (no to_args method)") from None


def _flow(form: list[Any]) -> Flow:
    out = Flow()
    for item in form:
        if isinstance(item, list):
            out.append(_flow(item))
        elif isinstance(item, dict):
            out.append(dict(item))  # Options → a plain mapping
        else:
            out.append(json_value(item, form))
    return out


def json_value(value: Any, owner: object) -> Any:
    """``value`` when it is a JSON value, else a ``ConfigError`` naming ``owner``."""
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        raise ConfigError(f"{owner!r} has no file form: {value!r} is not a JSON value") from None
    return value
