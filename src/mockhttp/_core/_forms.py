"""The ``[name, arg, ..., {option: value}]`` form of a named constructor, as plain data.

Faults, matchers and LLM transforms are written this way in Python (``fault.from_args``,
``transforms=[...]``) and in mock files.  This module is the one set of rules for it:

Rule 1: the first item is a name, looked up in the constructor's :class:`Registry` (an
unknown one fails with its did-you-mean).
Rule 2: a trailing mapping holds keyword options, unless a required argument needs it.
Rule 3: the arguments are counted against the constructor's signature, and a wrong count
or option says what the form takes (``[limit_data, bytes, {count: ...}]``).

:func:`call_form` reads plain values; the mock-file reader (``_mockfile._forms``) reads
positioned nodes with the same rules and messages (:func:`count_error`,
:func:`option_error`, :func:`shape`), so a form fails alike wherever it is written.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from ._errors import ConfigError, UnknownNameError
from ._registry import Registry

__all__ = [
    "KEYWORD",
    "POSITIONAL",
    "call_form",
    "count_error",
    "is_form",
    "option_error",
    "params",
    "shape",
    "signature_of",
    "takes_options",
]

T = TypeVar("T")
KEYWORD = inspect.Parameter.KEYWORD_ONLY
POSITIONAL = inspect.Parameter.POSITIONAL_OR_KEYWORD


def params(func: Callable[..., Any], *kinds: inspect._ParameterKind) -> dict[str, Any]:
    """The parameters of ``func`` of the given kinds, by name (``self`` left out)."""
    sig = inspect.signature(func)
    return {p.name: p for p in sig.parameters.values() if p.kind in kinds and p.name != "self"}


def signature_of(make: Callable[..., Any]) -> tuple[list[Any], Any, dict[str, Any], int]:
    """``make``'s positional parameters, its ``*args`` (or None), its keyword-only ones,
    and how many positional ones are required."""
    positional = list(params(make, inspect.Parameter.POSITIONAL_ONLY, POSITIONAL).values())
    rest = next(iter(params(make, inspect.Parameter.VAR_POSITIONAL).values()), None)
    keywords = params(make, KEYWORD)
    required = sum(p.default is inspect.Parameter.empty for p in positional)
    return positional, rest, keywords, required


def shape(name: str, make: Callable[..., Any]) -> str:
    """A form's shape read off its constructor: ``[json_path, path, matcher?]``."""
    positional, rest, keywords, _ = signature_of(make)
    parts = [name]
    parts.extend(
        p.name if p.default is inspect.Parameter.empty else f"{p.name}?" for p in positional
    )
    if rest is not None:
        parts.append(f"{rest.name}...")
    if keywords:
        parts.append("{" + ", ".join(f"{k}: ..." for k in keywords) + "}")
    return "[" + ", ".join(parts) + "]"


def count_error(what: str, name: str, make: Callable[..., Any], found: int) -> str | None:
    """Why ``found`` arguments do not fit ``make`` (Rule 3), or None when they do."""
    positional, rest, _, required = signature_of(make)
    if required <= found and (rest is not None or found <= len(positional)):
        return None
    return (
        f"{what} takes {_count(required, len(positional), rest is not None)}, found {found}"
        f"\n  expected: {shape(name, make)}"
    )


def option_error(what: str, key: str, keywords: Mapping[str, Any]) -> str | None:
    """Why ``key`` is no option of ``what``, with a did-you-mean; None when it is one."""
    if key in keywords:
        return None
    close = difflib.get_close_matches(key, list(keywords), n=1, cutoff=0.6)
    hint = f" — did you mean {close[0]!r}?" if close else ""
    return f"unknown option {key!r} of {what}{hint}\n  expected one of: {', '.join(keywords)}"


def takes_options(make: Callable[..., Any], args: Sequence[Any], is_mapping: bool) -> bool:
    """Rule 2: is the last of ``args`` (a mapping when ``is_mapping``) the options?"""
    _, _, keywords, required = signature_of(make)
    return bool(keywords) and bool(args) and is_mapping and len(args) - 1 >= required


def is_form(value: Any) -> bool:
    """Does ``value`` look like a form (a non-empty list or tuple starting with a name)?"""
    return isinstance(value, list | tuple) and bool(value) and isinstance(value[0], str)


def call_form(
    form: Any,
    registry: Registry[Callable[..., T]],
    where: str = "",
    nested: Callable[[Any, Any], Any] | None = None,
) -> T:
    """The object that the plain form ``form`` makes (Rules 1-3).

    ``where`` starts every message (``transforms[0]``); ``nested(parameter, value)``, when
    given, reads each positional value first (a fault's nested fault).

    Raises:
        ConfigError: not a form, an unknown name (with its did-you-mean), a wrong count, an
            unknown option, or an argument that the constructor refuses.
    """
    what = registry.what
    lead = f"{where}: " if where else ""
    if isinstance(form, str | bytes) or not isinstance(form, Sequence) or not form:
        raise ConfigError(f"{lead}{what} {form!r} must be a list: [name, arg, ...]")
    name, *args = form
    try:
        make = registry.get(name)
    except UnknownNameError as exc:
        if not where:
            raise
        raise ConfigError(f"{lead}{exc}") from None
    label = f"{lead}{what} {name!r}"
    options: dict[str, Any] = {}
    if takes_options(make, args, bool(args) and isinstance(args[-1], Mapping)):
        options = dict(args.pop())
    problem = count_error(label, name, make, len(args))
    keywords = signature_of(make)[2]
    problem = problem or next(
        (p for key in options if (p := option_error(label, key, keywords))), None
    )
    if problem:
        raise ConfigError(problem)
    if nested is not None:
        positional, rest, _, _ = signature_of(make)
        slots = [*positional, *([rest] * max(0, len(args) - len(positional)))]
        args = [nested(p, a) for p, a in zip(slots, args, strict=False)]
    try:
        return make(*args, **options)
    except ConfigError:
        raise  # the constructor's own message names the argument
    except TypeError as exc:
        raise ConfigError(f"{label}: {exc}") from None


def _count(required: int, maximum: int, more: bool) -> str:
    if more:
        text, n = f"at least {required}", required
    elif required == maximum:
        text, n = str(required), required
    else:
        text, n = f"{required} to {maximum}", maximum
    return f"{text} argument{'' if n == 1 else 's'}"
