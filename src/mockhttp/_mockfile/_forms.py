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

import functools
import json
from collections.abc import Callable, Mapping
from typing import Any

from .._core._errors import ConfigError
from .._core._forms import (
    KEYWORD,
    POSITIONAL,
    count_error,
    option_error,
    params,
    shape,
    signature_of,
    takes_options,
)
from .._core._match import MATCHERS, Matcher
from .._core._plan import Fault
from .._core._registry import Registry
from ..fault import FAULTS
from ._nodes import At

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
    """Call ``make`` with file arguments, checked against its signature (the core's rules:
    ``_core._forms``)."""
    positional, rest, keywords, _ = signature_of(make)
    options = args.pop() if takes_options(make, args, bool(args) and args[-1].is_mapping) else None
    problem = count_error(what, name, make, len(args))
    if problem:
        at.fail(problem)
    slots = [*positional, *([rest] * (len(args) - len(positional)) if rest else [])]
    values = [typed(arg, p.annotation) for arg, p in zip(args, slots[: len(args)], strict=True)]
    kw = _options(options, what, keywords) if options else {}
    with at.building():
        return make(*values, **kw)


def _options(at: At, what: str, keywords: Mapping[str, Any]) -> dict[str, Any]:
    """The keyword options of a file form: ``{count: wire}``."""
    kw: dict[str, Any] = {}
    for key, key_at, child in at.items("options"):
        problem = option_error(what, key, keywords)
        if problem:
            key_at.fail(problem)
        kw[key] = typed(child, keywords[key].annotation)
    return kw


# -- typed values, read off the Python annotations --------------------------------------------

_TYPES: dict[str, tuple[tuple[type, ...], str]] = {
    "str": ((str,), "text"),
    "int": ((int,), "an int"),
    "float": ((int, float), "a number"),
    "bool": ((bool,), "true or false"),
}


_LISTS = ("list", "tuple", "Sequence", "Iterable", "Collection")
_MAPS = ("dict", "Mapping")
_SHAPES = {**dict.fromkeys(_LISTS, "a list"), **dict.fromkeys(_MAPS, "a mapping")}


def typed(at: At, annotation: Any) -> Any:
    """The value at ``at`` as the annotation ``annotation`` (a string) wants it: its shape
    (a list, a mapping, text, a number...) checked here, elements and mapping values
    included (``Sequence[str]``, ``Mapping[str, int]``), so a value of the wrong type is
    an error at its own node; what an annotation does not spell out (``Any``, a class) is
    left to the constructor that takes it."""
    parts = union(str(annotation))
    if "None" in parts and at.is_null:
        return None
    if any("Matcher" in p for p in parts):
        return matcher_arg(at)
    if any("Fault" in p for p in parts):
        return fault_of(at)
    if "Duration" in parts:
        return _duration(at)
    conform(at, parts)
    return at.value()


@functools.lru_cache(maxsize=1024)
def union(annotation: str) -> tuple[str, ...]:
    """The parts of a union annotation, split at its top-level ``|`` only
    (``Mapping[str, int | None] | None`` has two); cached, as a few annotations are read
    for every value of a file."""
    return tuple(_split(annotation, "|"))


_Shapes = tuple[tuple[str, tuple[str, ...]], ...]


@functools.lru_cache(maxsize=1024)
def _plan(parts: tuple[str, ...]) -> tuple[_Shapes, str | None, tuple[type, ...]]:
    """What ``conform`` checks for ``parts`` (cached with ``union``): each part's base and
    type arguments, what an error expects (None: a part takes any value) and the scalar
    types allowed."""
    shapes = tuple((base, tuple(args)) for base, args in map(_base_and_args, parts))
    if any(base not in _SHAPES and base not in _TYPES and base != "None" for base, _ in shapes):
        return shapes, None, ()
    what = " or ".join(dict.fromkeys(_describe(b) for b, _ in shapes if b != "None"))
    known = [_TYPES[b] for b, _ in shapes if b in _TYPES]
    return shapes, what, tuple(t for types, _ in known for t in types)


def _base_and_args(part: str) -> tuple[str, list[str]]:
    """``Mapping[str, int]`` -> ``("Mapping", ["str", "int"])`` (top-level commas only)."""
    base, _, inner = part.partition("[")
    return base.strip(), _split(inner[:-1], ",") if inner else []


def _split(text: str, separator: str) -> list[str]:
    """``text`` split at ``separator`` outside brackets, each part stripped."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += (char == "[") - (char == "]")
        if char == separator and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return parts


def conform(at: At, parts: tuple[str, ...]) -> None:
    """Fail at ``at`` (or at the element, the mapping value inside it) unless its value
    has one of the types ``parts`` names; a part this does not know (``Any``, a class,
    ``Literal[...]``) takes any value."""
    shapes, what, allowed = _plan(parts)
    if what is None:
        return
    if at.is_list or at.is_mapping:
        kinds = _LISTS if at.is_list else _MAPS
        found = [args for base, args in shapes if base in kinds]
        if not found:
            at.expected(what)
        _conform_inside(at, found[0])
        return
    if at.is_null and "None" in parts:
        return
    value = at.scalar(what)
    if (isinstance(value, bool) and bool not in allowed) or not isinstance(value, allowed):
        at.expected(what)


def _conform_inside(at: At, args: tuple[str, ...]) -> None:
    """The elements of a list (``Sequence[X]``, ``tuple[X, ...]``) or the values of a
    mapping (``Mapping[str, X]``) checked against ``X``."""
    if at.is_list:
        if len(args) == 1 or (len(args) == 2 and args[1] == "..."):
            for element in at.elements("a list"):
                conform(element, union(args[0]))
    elif len(args) == 2:
        for _, _, child in at.items("a mapping"):
            conform(child, union(args[1]))


def _describe(base: str) -> str:
    return _SHAPES.get(base) or _TYPES[base][1]


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
