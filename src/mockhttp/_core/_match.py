"""Matchers: small composable predicates that explain a miss.

Every matcher takes a *value* and answers ``explain(value) -> None`` (it matches) or a short
reason (``"got False, expected true"``).  The values come from the request: a header or query
value (text, or ``MISSING`` when absent), the path, or the body (a :class:`Request`, which
``equal``/``regex``/... read as text and ``json_path``/``json_equal`` read as JSON).

Rule 1: arguments are checked when a matcher is built, never when a request arrives.
Rule 2: each matcher has a file form ``[name, arg, ...]`` (``to_args``); ``MATCHERS`` maps
the names back to constructors, so Python and mock files share one vocabulary.
"""

from __future__ import annotations

import functools
import json
import re
import reprlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from ._errors import ConfigError
from ._registry import Registry
from ._request import Request
from ._singular import NOTHING, steps, walk

__all__ = [
    "MATCHERS",
    "MISSING",
    "Matcher",
    "absent",
    "all_of",
    "any_of",
    "as_matcher",
    "contains",
    "ends_with",
    "equal",
    "exists",
    "json_equal",
    "json_path",
    "not_",
    "regex",
    "starts_with",
]


class _Missing:
    """The value of something the request does not have (a header, a JSONPath)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<missing>"

    def __bool__(self) -> bool:
        return False


MISSING: Any = _Missing()


JSONPATH_DEPTH = 256
"""How many objects/lists deep a body may be for a JSONPath with a descendant segment
(``$..z``, ``$..[?(@.z)]``, ``$[?(@..z)]``): a deeper one is a no-match that says so.
python-jsonpath stops at 100 (``JSONPathRecursionError``); a search's time grows with the
depth, and 256 stays well below Python's recursion limit."""


@functools.cache
def _jsonpath() -> Any:
    """The RFC 9535 environment (python-jsonpath, strict), imported on first use: it is the
    heaviest import of the package and many users never write a JSONPath."""
    import jsonpath

    env = jsonpath.JSONPathEnvironment(strict=True)
    # One more: the library counts a string as a level (it is a sequence).
    env.max_recursion_depth = JSONPATH_DEPTH + 1
    return env


_NOT_JSON = object()
_TOO_DEEP = object()  # a body nested deeper than a JSONPath search goes


SHOWN_CHARS = 120  # of a value in an explanation: a long prompt is cut, its length shown
SHOWN_DEPTH = 100  # a value nested deeper is shown by its depth (json.dumps would recurse)


def cut(text: str, limit: int = SHOWN_CHARS) -> str:
    """``text`` up to ``limit`` characters; a longer one is cut and its length shown:
    ``'aaa'… (200,000 chars)`` (as ``repr``)."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}… ({len(text):,} chars)"


def _show(value: Any) -> str:
    if value is MISSING:
        return "nothing (absent)"
    if isinstance(value, Request):
        return cut(value.text)
    if isinstance(value, str):
        return cut(value)
    if isinstance(value, bytes):
        return repr(value) if len(value) <= SHOWN_CHARS else cut(value.decode("latin-1"))
    if isinstance(value, (dict, list)) and _depth(value) > SHOWN_DEPTH:
        return f"a {type(value).__name__} nested {_depth(value):,} levels deep"
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    if len(text) <= SHOWN_CHARS:
        return text
    return f"{text[:SHOWN_CHARS]}… ({len(text):,} chars of JSON)"


def _text(value: Any) -> str | None:
    """The value as text, or None when it has no text form (absent)."""
    if value is MISSING:
        return None
    if isinstance(value, Request):
        return value.text
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _json(value: Any) -> Any:
    """The value as JSON (a body is parsed; other values are taken as they are)."""
    if isinstance(value, Request):
        try:
            return value.json()
        except ValueError:
            return _NOT_JSON
    return value


def _deep(value: Any) -> str:
    """`` (nested too deep to parse)`` when that is why a body is not JSON, else ``""``."""
    if isinstance(value, Request):
        try:
            value.json()
        except ValueError as exc:
            if "nested too deep" in str(exc):
                return ", nested too deep to parse"
    return ""


def _depth(doc: Any) -> int:
    """How many objects/lists deep ``doc`` is (``[[1]]``: 2; a scalar: 0), counted
    without recursion."""
    if not isinstance(doc, dict | list):
        return 0
    deepest = 0
    stack = [(doc, 1)]
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        children = node.values() if isinstance(node, dict) else node
        stack.extend((c, level + 1) for c in children if isinstance(c, (dict, list)))
    return deepest


def _descends(path: str) -> bool:
    """True when the JSONPath has a descendant segment (``..``), in a filter too."""
    from jsonpath.token import TOKEN_DDOT

    return any(token.kind == TOKEN_DDOT for token in _jsonpath().lexer.tokenize(path))


def _same(a: Any, b: Any) -> bool:
    """JSON equality: ``True`` is not ``1``, dicts ignore key order, lists keep order.

    Walked with a stack, not recursion: a body thousands of levels deep is compared too."""
    stack = [(a, b)]
    while stack:
        a, b = stack.pop()
        if isinstance(a, dict) and isinstance(b, dict):
            if a.keys() != b.keys():
                return False
            stack.extend((a[k], b[k]) for k in a)
        elif isinstance(a, list) and isinstance(b, list):
            if len(a) != len(b):
                return False
            stack.extend(zip(a, b, strict=True))
        elif not _same_leaf(a, b):
            return False
    return True


def _same_leaf(a: Any, b: Any) -> bool:
    """Equality of two values that are not both dicts nor both lists."""
    if isinstance(a, (dict, list)) or isinstance(b, (dict, list)):
        return False
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return type(a) is type(b) and a == b if a is None or b is None else bool(a == b)


class Options(dict[str, Any]):
    """Keyword options at the end of a file form: ``[json_equal, {...}, {ignore_extra: true}]``."""


class Matcher:
    """Base of all matchers.  Combine them with ``&``, ``|`` and ``~``."""

    name: ClassVar[str] = ""

    def explain(self, value: Any) -> str | None:
        """None when ``value`` matches, else why not (``got …, expected …``)."""
        raise NotImplementedError

    def matches(self, value: Any) -> bool:
        """True when ``value`` matches."""
        return self.explain(value) is None

    def select(self, value: Any) -> Any:
        """The part of ``value`` this matcher looks at, for reports (the value itself;
        a JSONPath: what it selects; a conversation matcher: what it read)."""
        return value

    def _args(self) -> tuple[Any, ...]:
        """The constructor's arguments (matchers as matchers)."""
        raise NotImplementedError

    def to_args(self) -> list[Any]:
        """The file form: ``[name, arg, ...]``, nested matchers as lists too."""
        return [self.name, *(a.to_args() if isinstance(a, Matcher) else a for a in self._args())]

    def __and__(self, other: Matcher) -> Matcher:
        return all_of(self, other)

    def __or__(self, other: Matcher) -> Matcher:
        return any_of(self, other)

    def __invert__(self) -> Matcher:
        return not_(self)

    def __repr__(self) -> str:
        try:
            args = self._args()
        except NotImplementedError:  # a user's matcher that has no file form
            return f"<{type(self).__name__}>"
        parts: list[str] = []
        for arg in args:
            if isinstance(arg, Options):
                parts.extend(f"{k}={v!r}" for k, v in arg.items())
            else:
                parts.append(repr(arg))
        name = "not_" if self.name == "not" else self.name
        return f"{name}({', '.join(parts)})"


@dataclass(frozen=True, repr=False)
class Equal(Matcher):
    """The value equals ``expected`` (a body compares as text, bytes or JSON by type)."""

    expected: Any
    name: ClassVar[str] = "equal"

    def matches(self, value: Any) -> bool:
        if isinstance(value, Request):
            if isinstance(self.expected, bytes):
                actual: Any = value.body
            elif isinstance(self.expected, str):
                actual = value.text
            else:
                actual = _json(value)
        else:
            actual = value
        return actual is not _NOT_JSON and _same(actual, self.expected)

    def explain(self, value: Any) -> str | None:
        if self.matches(value):
            return None
        return f"got {_show(value)}, expected {_show(self.expected)}"

    def _args(self) -> tuple[Any, ...]:
        return (self.expected,)


@dataclass(frozen=True, repr=False)
class Not(Matcher):
    """The inner matcher does not match."""

    inner: Matcher
    name: ClassVar[str] = "not"

    def explain(self, value: Any) -> str | None:
        if self.inner.matches(value):
            return f"got {_show(value)}, expected not {self.inner!r}"
        return None

    def _args(self) -> tuple[Any, ...]:
        return (self.inner,)


@dataclass(frozen=True, repr=False)
class _TextMatcher(Matcher):
    """Base for matchers over the value's text."""

    arg: str

    def check(self, text: str) -> bool:
        raise NotImplementedError

    def matches(self, value: Any) -> bool:
        return any(self.check(t) for t in _texts(value))

    def explain(self, value: Any) -> str | None:
        if self.matches(value):
            return None
        if isinstance(value, dict):
            return (
                f"got {_show(value)}, an object: {self.name} applies to text"
                " (select a field with json_path)"
            )
        return f"got {_show(value)}, expected {self!r}"

    def _args(self) -> tuple[Any, ...]:
        return (self.arg,)


def _texts(value: Any) -> list[str]:
    """The texts a text matcher tries (see docs/matching.md, "Text matchers on JSON"):
    text itself; a body's text; a number or boolean's JSON text; each such element of a
    list; nothing for an object, null or an absent value."""
    if isinstance(value, list):
        return [t for v in value if not isinstance(v, list | dict) for t in _texts(v)]
    if value is None or isinstance(value, dict):
        return []
    text = _text(value)
    return [] if text is None else [text]


@dataclass(frozen=True, repr=False)
class Regex(_TextMatcher):
    """The text matches the regular expression (``re.search``: anchor it with ^…$)."""

    name: ClassVar[str] = "regex"

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "_compiled", re.compile(self.arg))
        except re.error as exc:
            raise ConfigError(f"regex pattern={self.arg!r} does not compile: {exc}") from None

    def check(self, text: str) -> bool:
        compiled: re.Pattern[str] = self.__dict__["_compiled"]
        return compiled.search(text) is not None


@dataclass(frozen=True, repr=False)
class StartsWith(_TextMatcher):
    """The text starts with ``prefix``."""

    name: ClassVar[str] = "starts_with"

    def check(self, text: str) -> bool:
        return text.startswith(self.arg)


@dataclass(frozen=True, repr=False)
class EndsWith(_TextMatcher):
    """The text ends with ``suffix``."""

    name: ClassVar[str] = "ends_with"

    def check(self, text: str) -> bool:
        return text.endswith(self.arg)


@dataclass(frozen=True, repr=False)
class Contains(Matcher):
    """Text (a body's too) contains a substring; a list has an element equal to the item,
    or a text element containing it; an object has the key.  A number, boolean, null or
    absent value contains nothing."""

    item: Any
    name: ClassVar[str] = "contains"

    def matches(self, value: Any) -> bool:
        item = self.item
        if isinstance(value, list):
            return any(
                _same(x, item) or (isinstance(x, str) and isinstance(item, str) and item in x)
                for x in value
            )
        if isinstance(value, dict):
            return isinstance(item, str) and item in value
        if isinstance(value, str | bytes | Request):
            text = _text(value)
            return text is not None and isinstance(item, str) and item in text
        return False  # a number, true/false, null, or absent: nothing to contain

    def explain(self, value: Any) -> str | None:
        return None if self.matches(value) else f"got {_show(value)}, expected {self!r}"

    def _args(self) -> tuple[Any, ...]:
        return (self.item,)


@dataclass(frozen=True, repr=False)
class AnyOf(Matcher):
    """At least one of the matchers matches."""

    matchers: tuple[Matcher, ...]
    name: ClassVar[str] = "any_of"

    def matches(self, value: Any) -> bool:
        return any(m.matches(value) for m in self.matchers)

    def explain(self, value: Any) -> str | None:
        reasons = []
        for m in self.matchers:
            reason = m.explain(value)
            if reason is None:
                return None
            reasons.append(reason)
        return " and ".join(reasons) if reasons else "any_of() with no matcher never matches"

    def _args(self) -> tuple[Any, ...]:
        return self.matchers


@dataclass(frozen=True, repr=False)
class AllOf(Matcher):
    """Every matcher matches."""

    matchers: tuple[Matcher, ...]
    name: ClassVar[str] = "all_of"

    def matches(self, value: Any) -> bool:
        return all(m.matches(value) for m in self.matchers)

    def explain(self, value: Any) -> str | None:
        for m in self.matchers:
            reason = m.explain(value)
            if reason is not None:
                return reason
        return None

    def _args(self) -> tuple[Any, ...]:
        return self.matchers


@dataclass(frozen=True, repr=False)
class Exists(Matcher):
    """The value is present (a header sent, a JSONPath that finds something)."""

    name: ClassVar[str] = "exists"

    def explain(self, value: Any) -> str | None:
        return "got nothing (absent), expected it to exist" if value is MISSING else None

    def _args(self) -> tuple[Any, ...]:
        return ()


@dataclass(frozen=True, repr=False)
class Absent(Matcher):
    """The value is absent."""

    name: ClassVar[str] = "absent"

    def explain(self, value: Any) -> str | None:
        return None if value is MISSING else f"got {_show(value)}, expected it to be absent"

    def _args(self) -> tuple[Any, ...]:
        return ()


@dataclass(frozen=True, repr=False)
class JSONPath(Matcher):
    """An RFC 9535 JSONPath query on the JSON value (the body) matches ``matcher``.

    The query's result is the single node's value, a list when it selects several nodes,
    and ``MISSING`` when it selects none (so ``exists()``/``absent()`` apply).
    """

    path: str
    matcher: Matcher
    name: ClassVar[str] = "json_path"

    def __post_init__(self) -> None:
        if not isinstance(self.path, str):
            raise ConfigError(f"json_path path={self.path!r} must be text such as '$.stream'")
        if not self.path:
            raise ConfigError("json_path path='' is empty, expected a JSONPath such as '$.stream'")
        try:
            object.__setattr__(self, "_query", _jsonpath().compile(self.path))
        except (_jsonpath_error(), ValueError, RecursionError) as exc:
            why = _rootless(self.path) or _jsonpath_why(exc)
            raise ConfigError(
                f"json_path path={self.path!r} is not valid JSONPath: {why}"
            ) from None
        if not isinstance(self.matcher, Matcher):
            raise ConfigError(f"json_path matcher={self.matcher!r} must be a matcher")
        object.__setattr__(self, "_descends", _descends(self.path))
        object.__setattr__(self, "_steps", steps(self.path))  # (None: not a singular query)

    def select(self, value: Any) -> Any:
        """What the path selects in ``value`` (``MISSING`` also when it is too deep to search)."""
        found = self._search(value)
        return MISSING if found is _TOO_DEEP else found

    def _search(self, value: Any) -> Any:
        """What the path selects, or ``_TOO_DEEP`` when it has a descendant segment and the
        body is more than ``JSONPATH_DEPTH`` levels deep."""
        doc = _json(value)
        if doc is _NOT_JSON or doc is MISSING:
            return MISSING
        return self._find(doc)

    def _find(self, doc: Any) -> Any:
        """``_search`` in a parsed document."""
        path = self.__dict__["_steps"]
        if path is not None:  # at most one node, walked without the library (_singular.py)
            found = walk(doc, path)
            return MISSING if found is NOTHING else found
        if self.__dict__["_descends"] and _depth(doc) > JSONPATH_DEPTH:
            return _TOO_DEEP
        try:  # JSONPathRecursionError is a RecursionError: a net, for Python's own limit
            nodes = _findall(self.__dict__["_query"], doc)
        except RecursionError:
            return _TOO_DEEP
        if not nodes:
            return MISSING
        return nodes[0] if len(nodes) == 1 else nodes

    def matches(self, value: Any) -> bool:
        doc = _json(value)
        if doc is _NOT_JSON:
            return False
        found = MISSING if doc is MISSING else self._find(doc)
        return found is not _TOO_DEEP and self.matcher.matches(found)

    def explain(self, value: Any) -> str | None:
        doc = _json(value)
        if doc is _NOT_JSON:
            return f"{self.path}: body is not JSON{_deep(value)} (got {_show(value)})"
        found = self._search(value)
        if found is _TOO_DEEP:
            return (
                f"{self.path}: body nested too deep for {self.path} ({_depth(doc):,} levels;"
                f" a search with .. goes {JSONPATH_DEPTH} deep at most)"
            )
        reason = self.matcher.explain(found)
        return None if reason is None else f"{self.path}: {reason}"

    def _args(self) -> tuple[Any, ...]:
        return (self.path, self.matcher)


def _findall(query: Any, doc: Any) -> list[Any]:
    """The values ``query`` selects in ``doc``, with the matches' links undone.

    python-jsonpath links each match to its parent and the parent to its children, and
    every match holds the whole document: a reference cycle, so the parsed body (tens of
    MiB for a 10 MiB JSON body) stayed alive until a full garbage collection, which a
    server that allocates few containers seldom runs.  Unlinking frees it at once."""
    found: list[Any] = []
    last = None
    for match in query.finditer(doc):
        found.append(match.obj)
        last = match
    _unlink(last)
    return found


def _unlink(match: Any) -> None:
    """Clear the parent and children links of every match in ``match``'s tree."""
    while match is not None and match.parent is not None:
        match = match.parent
    stack = [] if match is None else [match]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        node.children = []
        node.parent = None


def _subset(expected: Any, actual: Any) -> bool:
    """``actual`` has ``expected``'s keys (and maybe more) with the same values, iteratively."""
    stack = [(expected, actual)]
    while stack:
        expected, actual = stack.pop()
        if isinstance(expected, dict):
            if not isinstance(actual, dict) or any(k not in actual for k in expected):
                return False
            stack.extend((v, actual[k]) for k, v in expected.items())
        elif isinstance(expected, list):
            if not isinstance(actual, list) or len(expected) != len(actual):
                return False
            stack.extend(zip(expected, actual, strict=True))
        elif not _same(expected, actual):
            return False
    return True


_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
DIFFS_SHOWN = 5  # differing paths a json_equal miss lists


def _member(path: str, key: str) -> str:
    """The JSONPath of ``key`` under ``path``: ``$.model`` or ``$['a key']``."""
    if _IDENTIFIER.match(key):
        return f"{path}.{key}"
    return f"{path}[{json.dumps(key, ensure_ascii=False)}]".replace('"', "'")


def json_diff(expected: Any, actual: Any, ignore_extra: bool = False) -> list[str]:
    """Each difference as ``JSONPath: got …, expected …``, in document order."""
    found: list[str] = []
    _diff(expected, actual, "$", ignore_extra, found)
    return found


def _diff(expected: Any, actual: Any, path: str, extra_ok: bool, out: list[str]) -> None:
    """Append each difference to ``out`` in document order, walked with a stack (a work item
    is a pair to compare or a message ready to append), so depth costs no Python stack."""
    stack: list[tuple[Any, Any, str] | str] = [(expected, actual, path)]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        expected, actual, path = item
        todo: list[tuple[Any, Any, str] | str] = []
        if isinstance(expected, dict) and isinstance(actual, dict):
            for key, value in expected.items():
                at = _member(path, key)
                if key in actual:
                    todo.append((value, actual[key], at))
                else:
                    todo.append(f"{at}: got nothing (absent), expected {_show(value)}")
            if not extra_ok:
                todo.extend(
                    f"{_member(path, key)}: got {_show(actual[key])}, expected it absent"
                    for key in actual
                    if key not in expected
                )
        elif isinstance(expected, list) and isinstance(actual, list):
            for i in range(max(len(expected), len(actual))):
                at = f"{path}[{i}]"
                if i >= len(actual):
                    todo.append(
                        f"{at}: got nothing (the list is shorter), expected {_show(expected[i])}"
                    )
                elif i >= len(expected):
                    todo.append(f"{at}: got {_show(actual[i])}, expected nothing (a longer list)")
                else:
                    todo.append((expected[i], actual[i], at))
        elif not _same(actual, expected):
            out.append(f"{path}: got {_show(actual)}, expected {_show(expected)}")
        stack.extend(reversed(todo))


@dataclass(frozen=True, repr=False)
class JSONEqual(Matcher):
    """The JSON value equals ``expected``; with ``ignore_extra``, objects may have more keys."""

    expected: Any
    ignore_extra: bool = False
    name: ClassVar[str] = "json_equal"

    def explain(self, value: Any) -> str | None:
        actual = _json(value)
        if actual is _NOT_JSON:
            return f"got {_show(value)}, which is not JSON{_deep(value)}"
        ok = _subset(self.expected, actual) if self.ignore_extra else _same(actual, self.expected)
        if ok:
            return None
        diffs = json_diff(self.expected, actual, self.ignore_extra)
        more = len(diffs) - DIFFS_SHOWN
        shown = "; ".join(diffs[:DIFFS_SHOWN])
        return shown + (f"; and {more} more difference{'s' * (more > 1)}" if more > 0 else "")

    def _args(self) -> tuple[Any, ...]:
        return (
            (self.expected, Options(ignore_extra=True)) if self.ignore_extra else (self.expected,)
        )


def _need_text(func: str, name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise ConfigError(f"{func}() {name}={value!r} must be text, not {type(value).__name__}")
    return value


def _need_matchers(func: str, matchers: tuple[Any, ...]) -> tuple[Matcher, ...]:
    return tuple(as_matcher(m, f"{func}() argument") for m in matchers)


def equal(expected: Any) -> Matcher:
    """Match a value equal to ``expected`` (JSON equality: ``True`` is not ``1``)."""
    return Equal(expected)


def not_(matcher: Matcher | Any) -> Matcher:
    """Match when ``matcher`` does not (a plain value means ``equal(value)``)."""
    return Not(as_matcher(matcher, "not_() argument"))


def regex(pattern: str) -> Matcher:
    """Match text in which ``pattern`` is found (``re.search``): the text itself, a body's
    text, a number's JSON text, or any such element of a list; never an object (select
    a field with ``json_path``)."""
    return Regex(_need_text("regex", "pattern", pattern))


def contains(item: Any) -> Matcher:
    """Match text containing ``item``; a list with an element equal to ``item`` or a text
    element containing it (so a JSONPath that selects one message or several reads
    alike); an object with the key ``item``."""
    return Contains(item)


def starts_with(prefix: str) -> Matcher:
    """Match text starting with ``prefix``."""
    return StartsWith(_need_text("starts_with", "prefix", prefix))


def ends_with(suffix: str) -> Matcher:
    """Match text ending with ``suffix``."""
    return EndsWith(_need_text("ends_with", "suffix", suffix))


def any_of(*matchers: Matcher | Any) -> Matcher:
    """Match when any of ``matchers`` does."""
    if not matchers:
        raise ConfigError("any_of() needs at least one matcher")
    return AnyOf(_need_matchers("any_of", matchers))


def all_of(*matchers: Matcher | Any) -> Matcher:
    """Match when all of ``matchers`` do."""
    if not matchers:
        raise ConfigError("all_of() needs at least one matcher")
    return AllOf(_need_matchers("all_of", matchers))


def exists() -> Matcher:
    """Match a value that is present."""
    return Exists()


def absent() -> Matcher:
    """Match a value that is absent."""
    return Absent()


def json_path(path: str, matcher: Matcher | Any = None) -> Matcher:
    """Match when the RFC 9535 JSONPath ``path`` selects a value that ``matcher`` matches.

    Without ``matcher`` the path must simply select something (``exists()``).
    """
    inner = exists() if matcher is None else as_matcher(matcher, "json_path() matcher")
    return JSONPath(path, inner)


MATCHERS_GROUP = "mockhttp.matchers"

_JSON_SCALARS = (str, int, float, bool, type(None))  # the leaves, and the keys json.dumps takes


def _not_json(value: Any) -> str:
    """Why ``value`` is not JSON that ``json.dumps`` writes, else ``""``; walked with a
    stack (no recursion limit), a value inside itself refused as ``json.dumps`` does."""
    inside: set[int] = set()  # the containers on the way down to the current node
    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        node, leaving = stack.pop()
        if leaving:
            inside.discard(id(node))
            continue
        if isinstance(node, _JSON_SCALARS):
            continue
        if not isinstance(node, (dict, list, tuple)):
            return f"Object of type {type(node).__name__} is not JSON serializable"
        if id(node) in inside:
            return "Circular reference detected"
        inside.add(id(node))
        stack.append((node, True))
        if isinstance(node, dict):
            bad = [k for k in node if not isinstance(k, _JSON_SCALARS)]
            if bad:
                return f"keys must be str, int, float, bool or None, not {type(bad[0]).__name__}"
            stack.extend((v, False) for v in node.values())
        else:
            stack.extend((v, False) for v in node)
    return ""


def json_equal(expected: Any, *, ignore_extra: bool = False) -> Matcher:
    """Match a JSON body equal to ``expected``; ``ignore_extra`` lets objects have more keys."""
    why = _not_json(expected)
    if why:
        shown = reprlib.repr(expected)  # bounded: a deep or circular value is cut short
        raise ConfigError(f"json_equal() expected={shown} is not JSON: {why}")
    if not isinstance(ignore_extra, bool):
        raise ConfigError(f"json_equal() ignore_extra={ignore_extra!r} must be True or False")
    return JSONEqual(expected, ignore_extra)


def as_matcher(value: Matcher | Any, what: str = "value") -> Matcher:
    """A matcher as it is; any other value means ``equal(value)``."""
    if isinstance(value, Matcher):
        return value
    if callable(value):
        raise ConfigError(f"{what}={value!r} must be a matcher or a plain value, not a callable")
    return Equal(value)


MATCHERS: Registry[Callable[..., Matcher]] = Registry(
    "matcher",
    {
        "equal": equal,
        "not": not_,
        "regex": regex,
        "contains": contains,
        "starts_with": starts_with,
        "ends_with": ends_with,
        "any_of": any_of,
        "all_of": all_of,
        "exists": exists,
        "absent": absent,
        "json_path": json_path,
        "jsonpath": json_path,
        "json_equal": json_equal,
    },
    group=MATCHERS_GROUP,
)
"""File-form names → constructors.  ``jsonpath`` is an alias of ``json_path``.  Packages
add theirs through the ``mockhttp.matchers`` entry-point group (``mockhttp.llm``'s
conversation matchers), imported the first time a name is not found."""


def _rootless(path: str) -> str | None:
    """Why ``path`` is no JSONPath when it lacks its root (``model`` → try ``$.model``)."""
    if path.lstrip().startswith("$"):
        return None
    bare = path.strip()
    fixed = "$" + bare if bare.startswith((".", "[")) else "$." + bare
    return f"a JSONPath starts with $ (found {path!r}): try {fixed!r}"


def _jsonpath_why(exc: Exception) -> str:
    """The library's message for a bad path.  Its ``str()`` draws the path with a caret and
    itself raises ``ValueError`` when the error sits past the end (an empty path)."""
    if isinstance(exc, RecursionError) and not isinstance(exc, _jsonpath_error()):
        return "nested too deep"
    try:
        return str(exc)
    except Exception:  # the caret drawing failed: keep the plain message
        return str(exc.args[0]) if exc.args else type(exc).__name__


def _jsonpath_error() -> type[Exception]:
    from jsonpath import JSONPathError

    return JSONPathError
