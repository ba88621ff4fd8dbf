"""Reading composed YAML nodes with their positions, for mock files.

A mock file is parsed with ``yaml.compose_all`` (PyYAML's C parser when available), so every
node keeps its line and column.  :class:`At` walks those nodes and knows the path inside the
document (``response.event_stream.events[2].data``); every error it raises is a
:class:`MockfileError` naming the file, line, column and path, what was found and what was
expected.

Rule 1: values are read with YAML's safe constructors, then checked to be JSON values (a
date, a set or binary data is refused: it could not be sent or compared).
Rule 2: a misspelt key or name gets a "did you mean" from ``difflib``.
"""

from __future__ import annotations

import datetime
import difflib
import re
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

import yaml

from .._core._errors import ConfigError, MockfileError

__all__ = [
    "MAX_EXPANSION",
    "NOT_PLAIN",
    "At",
    "check_size",
    "describe",
    "json_node",
    "json_numbers",
    "plain",
    "suggest",
]

MAX_EXPANSION = 100_000  # nodes that aliases (*name) may add to a document
_PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")
_STEP = re.compile(r"\[(\d+)\]|\.?([A-Za-z_]\w*)")


#: JSON's numbers with an exponent and no dot or no sign in it (``1e-06``, ``2E5``, ``1.5e3``):
#: YAML 1.1, and so PyYAML, reads them as text; YAML 1.2, of which JSON is a part, as numbers.
_EXPONENT = re.compile(r"^[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)[eE][-+]?[0-9]+$")


def json_numbers(cls: Any) -> None:
    """Make a PyYAML loader class read every JSON number as a number -- and a dumper class
    quote text that would read as one (``'0E0'``), so that what is written reads back."""
    cls.add_implicit_resolver("tag:yaml.org,2002:float", _EXPONENT, list("-+0123456789."))


def suggest(found: str, known: Collection[str]) -> str:
    """`` — did you mean 'x'?`` for the closest known name, or ``""``."""
    close = difflib.get_close_matches(found, sorted(known), n=1, cutoff=0.6)
    return f" — did you mean {close[0]!r}?" if close else ""


def describe(value: Any) -> str:
    """How an error names a value it found: ``text '200'``, ``an int 5``, ``a mapping``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"an int {value}"
    if isinstance(value, float):
        return f"a number {value!r}"
    if isinstance(value, str):
        return f"text {value!r}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, datetime.date):
        return f"a date {value.isoformat()}"
    if isinstance(value, bytes):
        return "binary data"
    return f"a {type(value).__name__}"


class At:
    """A node of a mock file, with where it is: the file, its position and its path."""

    __slots__ = ("node", "path", "source")

    def __init__(self, node: yaml.Node, source: str, path: str = "") -> None:
        self.node = node
        self.source = source
        self.path = path

    # -- errors -------------------------------------------------------------------------

    def fail(self, message: str) -> NoReturn:
        """Raise a :class:`MockfileError` for this node."""
        raise self.error(message)

    def error(self, message: str) -> MockfileError:
        """A :class:`MockfileError` for this node (file, line, column and path)."""
        mark = self.node.start_mark
        return MockfileError(
            message,
            source=self.source,
            line=None if mark is None else mark.line + 1,
            column=None if mark is None else mark.column + 1,
            path=self.path,
        )

    def expected(self, what: str) -> NoReturn:
        """Fail with ``found …, expected <what>``."""
        found = self._found()
        hint = _quote_hint(self.node, found) if what.startswith("text") else ""
        self.fail(f"found {describe(found)}, expected {what}{hint}")

    @contextmanager
    def building(self) -> Iterator[None]:
        """Turn a :class:`ConfigError` raised by a constructor into an error at this node."""
        try:
            yield
        except MockfileError:
            raise
        except ConfigError as exc:
            self.fail(str(exc))

    def _found(self) -> Any:
        if isinstance(self.node, yaml.SequenceNode):
            return []
        if isinstance(self.node, yaml.MappingNode):
            return {}
        return self._construct(self.node)

    def _construct(self, node: yaml.Node) -> Any:
        """A node's Python value, by YAML's safe rules (``yes`` is true, ``1.5`` a float);
        an unknown tag or an int too long for Python is an error at its node."""
        if isinstance(node, _JSON_NODES):
            return node.json_value
        try:
            constructor = yaml.constructor.SafeConstructor()
            try:
                return _plain(node, constructor, 0)
            except _NotPlain:
                return constructor.construct_document(node)
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or node.start_mark
            problem = exc.problem or "cannot read this value"
            if "constructor for the tag" in problem:
                problem = f"{problem}; tags (!name) are not part of mock files"
            raise MockfileError(
                problem, source=self.source, line=mark.line + 1, column=mark.column + 1,
                path=self.path,
            ) from None  # fmt: skip
        except ValueError:  # Python refuses ints of more than 4,300 digits
            at = _long_int(node) or node
            mark = at.start_mark
            digits = (
                f"of {len(at.value.lstrip('-+')):,} digits "
                if isinstance(at, yaml.ScalarNode)
                else ""
            )
            raise MockfileError(
                f"found a number {digits}that Python refuses to read (over 4,300 digits)",
                source=self.source, line=mark.line + 1, column=mark.column + 1, path=self.path,
            ) from None  # fmt: skip

    # -- children -----------------------------------------------------------------------

    def key(self, name: str, node: yaml.Node) -> At:
        """The child at mapping key ``name``."""
        part = name if _PLAIN_KEY.match(name) else f"[{name!r}]"
        sep = "." if self.path and not part.startswith("[") else ""
        return At(node, self.source, f"{self.path}{sep}{part}")

    def index(self, i: int, node: yaml.Node) -> At:
        """The child at list index ``i``."""
        return At(node, self.source, f"{self.path}[{i}]")

    def descend(self, path: str) -> At | None:
        """The node at ``path`` below this one (``writes[2].at``), or None."""
        at: At = self
        for index, name in _STEP.findall(path):
            if index and at.is_list and int(index) < len(at.node.value):
                at = at.index(int(index), at.node.value[int(index)])
            elif name and at.is_mapping:
                found = [
                    v
                    for k, v in at.node.value
                    if isinstance(k, yaml.ScalarNode) and k.value == name
                ]
                if not found:
                    return None
                at = at.key(name, found[0])
            else:
                return None
        return at

    @property
    def is_list(self) -> bool:
        return isinstance(self.node, yaml.SequenceNode)

    @property
    def is_mapping(self) -> bool:
        return isinstance(self.node, yaml.MappingNode)

    @property
    def is_null(self) -> bool:
        return isinstance(self.node, yaml.ScalarNode) and self.node.tag == "tag:yaml.org,2002:null"

    def items(self, what: str, fold_case: bool = False) -> list[tuple[str, At, At]]:
        """A mapping's entries as ``(key, key node, value node)``; keys must be unique text.

        With ``fold_case``, keys differing only in case are duplicates (header names).
        """
        if not self.is_mapping:
            self.expected(what)
        seen: dict[str, str] = {}
        result: list[tuple[str, At, At]] = []
        for key_node, value_node in self._entries():
            key_at = At(key_node, self.source, self.path)
            name = self._construct(key_node) if isinstance(key_node, yaml.ScalarNode) else None
            if not isinstance(name, str):
                key_at.fail(f"found {describe(name)} as a key, expected text")
            child = self.key(name, value_node)
            folded = name.lower() if fold_case else name
            if folded in seen:
                At(key_node, self.source, child.path).fail(
                    f"duplicate key {name!r} (already given as {seen[folded]!r})"
                )
            seen[folded] = name
            result.append((name, At(key_node, self.source, child.path), child))
        return result

    def _entries(self) -> list[tuple[yaml.Node, yaml.Node]]:
        """The mapping's entries with merge keys (``<<: *base``) applied: own keys win."""
        node = self.node
        assert isinstance(node, yaml.MappingNode)
        own = [(k, v) for k, v in node.value if k.tag != "tag:yaml.org,2002:merge"]
        if len(own) == len(node.value):
            return own
        yaml.constructor.SafeConstructor().flatten_mapping(node)
        merged = node.value[: len(node.value) - len(own)]
        taken = {k.value for k, _ in own if isinstance(k, yaml.ScalarNode)}
        entries: list[tuple[yaml.Node, yaml.Node]] = []
        for k, v in merged:
            if isinstance(k, yaml.ScalarNode) and k.value not in taken:
                taken.add(k.value)
                entries.append((k, v))
        return entries + own

    def fields(self, known: Collection[str], what: str) -> dict[str, At]:
        """A mapping with fixed keys; an unknown key is an error with a suggestion."""
        result: dict[str, At] = {}
        for name, key_at, child in self.items(what):
            if name not in known:
                key_at.fail(
                    f"unknown key {name!r}{suggest(name, known)}\n"
                    f"  expected one of: {', '.join(sorted(known))}"
                )
            result[name] = child
        return result

    def elements(self, what: str) -> list[At]:
        """A list's elements."""
        if not self.is_list:
            self.expected(what)
        assert isinstance(self.node, yaml.SequenceNode)
        return [self.index(i, n) for i, n in enumerate(self.node.value)]

    # -- values -------------------------------------------------------------------------

    def value(self) -> Any:
        """The node as a JSON value (refusing dates, sets, binary data)."""
        if isinstance(self.node, _JSON_NODES):  # read from JSON: a JSON value already
            return self.node.json_value
        value = self._construct(self.node)
        self._check_json(value, set())
        return value

    def _check_json(self, value: Any, seen: set[int]) -> None:
        if value is None or isinstance(value, str | bool | int | float):
            return
        if id(value) in seen:
            return  # an alias to a value already checked: walk each value once
        seen.add(id(value))
        if isinstance(value, list):
            for i, item in enumerate(value):
                self._at_index(i)._check_json(item, seen)
            return
        if isinstance(value, dict):
            for k, v in value.items():
                if not isinstance(k, str):
                    self.fail(f"found {describe(k)} as a key, expected text (JSON object keys)")
                self._at_key(k)._check_json(v, seen)
            return
        hint = "; quote it to send text" if isinstance(value, datetime.date) else ""
        self.fail(f"found {describe(value)}, expected a JSON value{hint}")

    def _at_index(self, i: int) -> At:
        node = self.node
        if isinstance(node, yaml.SequenceNode) and i < len(node.value):
            return self.index(i, node.value[i])
        return At(node, self.source, f"{self.path}[{i}]")

    def _at_key(self, name: str) -> At:
        node = self.node
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                if isinstance(k, yaml.ScalarNode) and k.value == name:
                    return self.key(name, v)
        return self.key(name, node)

    def text(self, what: str = "text") -> str:
        """A text scalar."""
        value = self.scalar(what)
        if not isinstance(value, str):
            self.expected(what)
        return value

    def integer(self, what: str = "an int") -> int:
        """An int scalar (not a bool)."""
        value = self.scalar(what)
        if isinstance(value, bool) or not isinstance(value, int):
            self.expected(what)
        return value

    def scalar(self, what: str) -> Any:
        """A single value (not a list or mapping); ``what`` is what an error expects."""
        if not isinstance(self.node, yaml.ScalarNode):
            self.expected(what)
        return self.value()


class _NotPlain(Exception):
    """A node that ``_plain`` leaves to the safe constructor."""


_PLAIN_DEPTH = 32  # deeper values go to the safe constructor (which does not recurse)


NOT_PLAIN: Any = _NotPlain  # what ``plain`` returns for a node it leaves to the walk


def plain(node: yaml.Node, constructor: yaml.constructor.SafeConstructor) -> Any:
    """A node's value by ``_plain``'s shortcut, a key given twice in a mapping refused
    too (the walk's error); ``NOT_PLAIN`` when the shortcut does not apply (or a scalar
    does not construct: the walk places the error)."""
    try:
        return _plain(node, constructor, 0, unique=True)
    except (_NotPlain, yaml.YAMLError, ValueError):
        return NOT_PLAIN


def _plain(
    node: yaml.Node,
    constructor: yaml.constructor.SafeConstructor,
    depth: int,
    unique: bool = False,
) -> Any:
    """A node's value as the safe constructor builds it, by a shortcut for what mock files
    hold: text, and plain lists and mappings (no merge key, no tag) of scalars, built
    directly (the constructor's generators cost most of the reading of a small mock).

    Raises:
        _NotPlain: anything else (merge keys, tags, a non-scalar key, deep nesting).
    """
    if isinstance(node, yaml.ScalarNode):
        return node.value if node.tag == _STR else constructor.construct_object(node)
    if depth > _PLAIN_DEPTH:
        raise _NotPlain
    if isinstance(node, yaml.SequenceNode) and node.tag == _SEQ:
        return [_plain(item, constructor, depth + 1, unique) for item in node.value]
    if isinstance(node, yaml.MappingNode) and node.tag == _MAP:
        result = {}
        for key, value in node.value:
            if not isinstance(key, yaml.ScalarNode) or key.tag == _MERGE:
                raise _NotPlain
            result[_plain(key, constructor, depth)] = _plain(value, constructor, depth + 1, unique)
        if unique and len(result) < len(node.value):
            raise _NotPlain  # a key given twice
        return result
    raise _NotPlain


def _quote_hint(node: yaml.Node, value: Any) -> str:
    """``; quote it: '1'`` for a YAML number, bool or null written where text belongs."""
    raw = node.value if isinstance(node, yaml.ScalarNode) else None
    if not isinstance(raw, str) or isinstance(node, _JsonScalar) or not raw:
        return ""
    if isinstance(value, bool | int | float) or value is None:
        return f"; quote it: '{raw}'" if "'" not in raw else ""
    return ""


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def too_deep(doc: At) -> MockfileError:
    """The error for a document too deep to build (its matchers are built by recursion),
    placed at its deepest node."""
    deepest, where = 0, doc.node
    todo: list[tuple[yaml.Node, int]] = [(doc.node, 1)]
    seen: set[int] = set()
    while todo:
        node, level = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if level > deepest and isinstance(node, (yaml.SequenceNode, yaml.MappingNode)):
            deepest, where = level, node
        todo.extend((c, level + 1) for c in _children(node))
    at = _at(where, doc)
    mark = at.node.start_mark
    return MockfileError(
        f"found a structure nested too deep to read ({deepest:,} levels), expected "
        "at most a couple of hundred",
        source=doc.source,
        line=None if mark is None else mark.line + 1,
        column=None if mark is None else mark.column + 1,
        path=at.path,
    )


def _long_int(node: yaml.Node) -> yaml.Node | None:
    """The first int scalar under ``node`` too long for Python (to place the error)."""
    seen: set[int] = set()
    todo = [node]
    while todo:
        current = todo.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, yaml.ScalarNode) and len(current.value) > 4000:
            return current
        todo.extend(reversed(_children(current)))
    return None


def _at(node: yaml.Node, doc: At) -> At:
    """``node`` inside ``doc`` with its path, found by a walk (for an error's location)."""
    todo = [doc]
    seen: set[int] = set()
    while todo:
        at = todo.pop()
        if at.node is node:
            return at
        if id(at.node) in seen:
            continue
        seen.add(id(at.node))
        if at.is_list:
            todo.extend(at.index(i, n) for i, n in enumerate(at.node.value))
        elif at.is_mapping:
            for k, v in at.node.value:
                name = k.value if isinstance(k, yaml.ScalarNode) else "?"
                todo.append(at.key(str(name), v))
    return At(node, doc.source)


def _foreign_tag(node: yaml.Node) -> str | None:
    """What a mapping or a list is called when it carries a tag other than its own
    (``!!map``, ``!!seq``, or none); None otherwise."""
    if isinstance(node, yaml.MappingNode):
        return None if node.tag == "tag:yaml.org,2002:map" else "mapping"
    if isinstance(node, yaml.SequenceNode):
        return None if node.tag == "tag:yaml.org,2002:seq" else "list"
    return None


def check_size(doc: At) -> int:
    """Refuse a document that aliases blow up (a "billion laughs"), or one inside itself.

    Counts the nodes as if every alias were written out, without writing them out (each
    distinct node is visited once): more than ``MAX_EXPANSION`` added by aliases is an
    error at the document's start.  Returns the number of distinct nodes.
    """
    sizes: dict[int, int] = {}
    unique = 0
    stack: list[tuple[yaml.Node, bool]] = [(doc.node, False)]
    on_path: set[int] = set()
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            on_path.discard(key)
            sizes[key] = 1 + sum(sizes[id(c)] for c in _children(node))
            if sizes[key] - unique > MAX_EXPANSION:
                break
            continue
        if key in sizes:
            continue
        if key in on_path:
            _at(node, doc).fail("found a structure inside itself (an alias within its own anchor)")
        kind = _foreign_tag(node)
        if kind is not None:
            _at(node, doc).fail(
                f"found the tag {node.tag.replace(_TAG, '!!')!r} on a {kind}; "
                "tags (!name) are not part of mock files"
            )
        on_path.add(key)
        unique += 1
        stack.append((node, True))
        stack.extend((c, False) for c in _children(node) if id(c) not in sizes)
    total = sizes.get(id(doc.node), 0)
    if not total or total - unique > MAX_EXPANSION:
        doc.fail(
            f"aliases (*name) expand this document by more than {MAX_EXPANSION:,} nodes; "
            "write the repeated parts out, or use fewer aliases"
        )
    return unique


# -- JSON documents: nodes made from the parsed value, on demand -----------------------------

_TAG = "tag:yaml.org,2002:"
_STR, _SEQ, _MAP, _MERGE = (_TAG + t for t in ("str", "seq", "map", "merge"))


class _JsonScalar(yaml.ScalarNode):
    def __init__(self, value: Any) -> None:
        if value is None:
            tag, text = "null", "null"
        elif isinstance(value, bool):
            tag, text = "bool", "true" if value else "false"
        elif isinstance(value, int):
            tag, text = "int", str(value)
        elif isinstance(value, float):
            tag, text = "float", repr(value)
        else:
            tag, text = "str", str(value)
        super().__init__(_TAG + tag, text)
        self.json_value = value


class _JsonMapping(yaml.MappingNode):
    """A JSON object's node: its entries become nodes only when walked; ``At.value()``
    returns the parsed object without walking it (a big ``json:`` reply costs nothing)."""

    def __init__(self, value: dict[str, Any]) -> None:
        self.json_value = value
        self._entries: list[tuple[yaml.Node, yaml.Node]] | None = None
        super().__init__(_TAG + "map", None)

    @property
    def value(self) -> list[tuple[yaml.Node, yaml.Node]]:
        if self._entries is None:
            self._entries = [(_JsonScalar(k), json_node(v)) for k, v in self.json_value.items()]
        return self._entries

    @value.setter
    def value(self, entries: list[tuple[yaml.Node, yaml.Node]] | None) -> None:
        if entries is not None:
            self._entries = entries


class _JsonSequence(yaml.SequenceNode):
    """A JSON array's node, its items made nodes only when walked (see ``_JsonMapping``)."""

    def __init__(self, value: list[Any]) -> None:
        self.json_value = value
        self._items: list[yaml.Node] | None = None
        super().__init__(_TAG + "seq", None)

    @property
    def value(self) -> list[yaml.Node]:
        if self._items is None:
            self._items = [json_node(item) for item in self.json_value]
        return self._items

    @value.setter
    def value(self, items: list[yaml.Node] | None) -> None:
        if items is not None:
            self._items = items


_JSON_NODES = (_JsonScalar, _JsonMapping, _JsonSequence)


def json_node(value: Any) -> yaml.Node:
    """A node for a parsed JSON value (no position: it was not read as YAML)."""
    if isinstance(value, dict):
        return _JsonMapping(value)
    if isinstance(value, list):
        return _JsonSequence(value)
    return _JsonScalar(value)
