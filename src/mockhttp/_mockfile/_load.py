"""Mock files: YAML or JSON text in, :class:`Mock` objects out (and back with :func:`dump`).

One mock per document (``---`` separates documents; a document may also be a list of
mocks, the only way to put several in one JSON file).  A directory loads every ``*.yaml``,
``*.yml`` and ``*.json`` in it, in name order.

Rule 1: one vocabulary, two spellings.  The file keys and names are read off the Python
definitions: matcher names from ``MATCHERS``, fault names from ``FAULTS``, their arguments
from the constructors' signatures (a parameter typed ``Matcher`` takes a nested matcher, one
typed ``Fault`` a nested fault), event fields from ``Event``, stream options from
``Reply.event_stream`` and mock options from ``request``.  A new matcher, fault or option is
in the file format as soon as it is in Python.
Rule 2: a file is refused as a whole; the error names file, line, column and the path in
the document (``response.event_stream.events[2].data``), what was found and what was
expected, with a suggestion for a misspelt key or name.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import keyword
import os
import re
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal, NoReturn, get_args
from urllib.parse import parse_qsl

import yaml

from .._core import _mock
from .._core._errors import ConfigError, MockfileError, UnknownNameError
from .._core._gc import collector_off
from .._core._mock import Mock
from .._core._plan import Fault
from .._core._registry import REPLY_KINDS, RESPONSE_KEYS, KindEntry, ReplyKind
from .._core._reply import Reply, status
from .._core._shadow import shadowed
from .._core._sse import Event
from ._dump import dump as dump
from ._dump import to_dict as to_dict
from ._forms import KEYWORD, POSITIONAL, fault_of, matcher_arg, params, typed
from ._forms import shape as shape
from ._nodes import NOT_PLAIN, At, check_size, json_node, json_numbers, plain, too_deep
from ._quick import quick

__all__ = [
    "EVENT_KEYS",
    "EVENT_STREAM_KEYS",
    "MOCK_KEYS",
    "REQUEST_KEYS",
    "RESPONSE_KEYS",
    "SCENARIO_KEYS",
    "SUFFIXES",
    "Names",
    "dump",
    "file_problems",
    "files",
    "load",
    "load_sourced",
    "loads",
    "max_file_bytes",
    "overlap_warnings",
    "problems",
    "raise_with",
    "shape",
    "to_dict",
]

SUFFIXES = (".yaml", ".yml", ".json")


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """PyYAML's safe loader (its C parser when built), reading every JSON number as a
    number (``_nodes.json_numbers``)."""


json_numbers(_Loader)


_MOCK_OPTIONS = params(_mock.request, KEYWORD)  # name, priority, times
_REQUEST_TARGET = params(_mock.request, POSITIONAL)  # method, path
_STREAM_OPTIONS = params(Reply.event_stream, KEYWORD)
_EVENT_FIELDS = params(Event.__init__, POSITIONAL, KEYWORD)

_SEQUENCE_OPTIONS = params(Mock.replies, KEYWORD)  # exhausted
_SCENARIO_KEYS = params(Mock.scenario, POSITIONAL)  # name, state, next_state

MOCK_KEYS = ("request", "response", "replies", *_MOCK_OPTIONS, *_SEQUENCE_OPTIONS, "scenario")
SCENARIO_KEYS = tuple(_SCENARIO_KEYS)
REQUEST_KEYS = (*_REQUEST_TARGET, *get_args(_mock.Field))  # query, header, body
EVENT_STREAM_KEYS = (*_STREAM_OPTIONS, "events")
EVENT_KEYS = tuple(_EVENT_FIELDS)
_EXCLUSIVE = ("body", "json", "event_stream")
_MOCK_KEY_SET = frozenset(MOCK_KEYS)
_STR_TAG = "tag:yaml.org,2002:str"

MAX_FILE_BYTES = 32 << 20  # a mock file's size, checked before it is read
MAX_NODES = 1_000_000  # a file's YAML nodes (values, lists, mappings), counted as composed
FILE_BYTES_ENV = "MOCKHTTP_MAX_FILE_BYTES"
NODES_ENV = "MOCKHTTP_MAX_NODES"


# -- reading text and files -----------------------------------------------------------------


def loads(
    text: str,
    source: str = "<string>",
    *,
    strict_json: bool = False,
    syntax: Literal["yaml", "json"] | None = None,
) -> list[Mock]:
    """The mocks in YAML or JSON ``text`` (one mock per document).

    With ``strict_json`` the text must be JSON (RFC 8259: no comments, no trailing commas,
    no single quotes), as ``load`` reads a ``.json`` file.  ``syntax="json"`` parses the
    text as JSON only (fast, for big documents, as the admin API reads a JSON body); by
    default YAML, which JSON is a part of.  Aliases may add at most ``MAX_EXPANSION`` nodes.

    Raises:
        MockfileError: the text does not load (or holds no mock); the message names the
            line, column and path in the document.  Fix the text; no mock of it is returned.
    """
    return _loads(text, source, Names(), strict_json=strict_json, syntax=syntax)


def _loads(
    text: str,
    source: str,
    names: Names,
    *,
    strict_json: bool = False,
    syntax: Literal["yaml", "json"] | None = None,
    max_nodes: int = MAX_NODES,
) -> list[Mock]:
    """``loads``, with the names already taken (in other files ``load`` read)."""
    docs = None
    try:
        if syntax == "json":
            trial = names.copy()  # untouched when the document is read again
            try:
                docs = [_json_document(text, source)]
                mocks = [mock for doc in docs for mock in _document(doc, trial)]
                names.seen = trial.seen
            except MockfileError as exc:
                if exc.line is not None or len(text) > _RELOCATE:
                    raise
                docs = None  # a JSON node has no position: read a small document again
        if docs is None:
            docs = _documents(text, source, strict_json or syntax == "json", max_nodes)
            mocks = [mock for doc in docs for mock in _document(doc, names)]
    except RecursionError:  # a matcher chain too deep to build
        raise (too_deep(docs[-1]) if docs else _too_deep(source)) from None
    if not docs:
        raise _empty(source)
    _let_go(docs)
    return mocks


def _let_go(docs: list[At]) -> None:
    """Free the documents' nodes one mock at a time.  Dropped at once, the nodes of
    thousands of mocks were freed in one C call that held the interpreter (and so every
    other thread: a server's loop) for a third of a second per 14,000 mocks."""
    while docs:
        node = docs.pop().node
        if isinstance(node, yaml.SequenceNode):
            for items in (node.value, getattr(node, "json_value", None)):
                while isinstance(items, list) and items:
                    items.pop()


class Names:
    """The mock names read so far, with where each was given: a name given twice is an
    error that points at both places (names address mocks: ``journal?mock=NAME``)."""

    def __init__(self) -> None:
        self.seen: dict[str, str] = {}

    def copy(self) -> Names:
        fresh = Names()
        fresh.seen = dict(self.seen)
        return fresh

    def clash(self, mock: Mock, item: At) -> MockfileError | None:
        """The error for ``mock`` (read at ``item``) when its name is taken, else None
        (and the name is taken from now on)."""
        if mock.name is None:
            return None
        at = item.descend("name") or item
        first = self.seen.get(mock.name)
        if first is None:
            self.seen[mock.name] = _where(at)
            return None
        return at.error(
            f"a mock named {mock.name!r} is already defined at {first}; names address "
            "mocks (the admin API, journal?mock=NAME), so they are unique: rename one"
        )


def _where(at: At) -> str:
    """``file:line:column`` of a node (just the file when the node has no position)."""
    mark = at.node.start_mark
    return at.source if mark is None else f"{at.source}:{mark.line + 1}:{mark.column + 1}"


def problems(
    text: str,
    source: str = "<string>",
    *,
    strict_json: bool = False,
    names: Names | None = None,
    max_nodes: int = MAX_NODES,
) -> list[MockfileError]:
    """Every error of ``text``, one per mock that does not load (``mockhttp validate``):
    a syntax error stops the reading, a bad mock does not hide the next one.  ``names``:
    the names other files already took (a name given twice is an error)."""
    names = Names() if names is None else names
    try:
        docs = _documents(text, source, strict_json, max_nodes)
    except MockfileError as exc:
        return [exc]
    except RecursionError:  # a net: the parsers' own nesting limits come first
        return [_too_deep(source)]
    if not docs:
        return [_empty(source)]
    found: list[MockfileError] = []
    for doc in docs:
        items = doc.elements("a list of mocks") if doc.is_list else [doc]
        for item in items:
            try:
                clash = names.clash(_mock_of(item), item)
            except MockfileError as exc:
                found.append(exc)
            except RecursionError:
                found.append(too_deep(item))
            else:
                if clash is not None:
                    found.append(clash)
    return found


def _too_deep(source: str) -> MockfileError:
    return MockfileError("found a structure nested too deep (or inside itself)", source=source)


def _empty(source: str) -> MockfileError:
    return MockfileError(
        "found no mock (the text is empty, or only comments), expected a mock: a mapping "
        "with request and response, or a list of mocks",
        source=source,
    )


_RELOCATE = 1 << 20  # JSON documents up to this size are read again to place an error


def _limit(name: str, default: int) -> int:
    """A limit of mock files from the environment (``MOCKHTTP_MAX_NODES=2000000``), or
    its default."""
    given = os.environ.get(name, "").strip().replace("_", "")
    if not given:
        return default
    if not given.isdigit() or int(given) < 1:
        raise MockfileError(f"${name}={given!r}: expected a positive whole number", source=name)
    return int(given)


def max_file_bytes() -> int:
    """The size a mock file may have (``$MOCKHTTP_MAX_FILE_BYTES``, else 32 MiB)."""
    return _limit(FILE_BYTES_ENV, MAX_FILE_BYTES)


def raise_with(env: str, needed: int | None = None) -> str:
    """How to raise a limit (to ``needed``, when it is known): ``raise the limit:
    MOCKHTTP_MAX_FILE_BYTES=41965906 in the environment of mockhttp``."""
    if needed is None:
        return f"raise the limit with ${env} (docs/limits.md)"
    return f"raise the limit: {env}={needed} in the environment of mockhttp (docs/limits.md)"


def _too_large(
    source: str, found: str, limit: int, unit: str, env: str, needed: int | None = None
) -> MockfileError:
    return MockfileError(
        f"too large: {found}, over the limit of {limit:,} {unit}; split it into several "
        f"files, or {raise_with(env, needed)}",
        source=source,
    )


def load(*paths: str | os.PathLike[str]) -> list[Mock]:
    """The mocks in files and directories (``*.yaml``, ``*.yml``, ``*.json``, name order).

    Raises:
        MockfileError: a path is missing or a file does not load; nothing is returned, so a
            file set is never used in half.
    """
    return [mock for mock, _ in load_sourced(*paths)]


def load_sourced(*paths: str | os.PathLike[str]) -> list[tuple[Mock, Path]]:
    """:func:`load`, each mock with the file it came from."""
    if not paths:
        raise ConfigError("load() needs at least one file or directory")
    mocks: list[tuple[Mock, Path]] = []
    names = Names()
    for path in files(paths):
        mocks.extend((mock, path) for mock in _load_file(path, names))
    return mocks


def overlap_warnings(sourced: Sequence[tuple[Mock, Path]]) -> list[str]:
    """A warning for each mock a later one hides (``_core._shadow``): both files named."""
    lines = []
    for hidden, by in shadowed([mock for mock, _ in sourced]):
        (low, low_file), (high, high_file) = sourced[hidden], sourced[by]
        lines.append(
            f"{high_file}: warning: {_what(high)} takes every request {_what(low)} of "
            f"{low_file} would (no request: of its own tells them apart), so that one is "
            "never answered; give one of them a request: (a header or body matcher) or a "
            "priority:"
        )
    return lines


def _what(mock: Mock) -> str:
    if mock.name:
        return f"mock {mock.name!r}"
    if mock.kind is not None and mock.kind.standalone:
        return mock.kind.describe()
    return f"mock {mock.describe()}"


def files(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """The mock files named by ``paths``: files as they are; a directory's files, in its
    subdirectories too, in the order of their paths (hidden files and folders skipped).

    Raises:
        MockfileError: a path does not exist.
    """
    found: list[Path] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            found.extend(_tree(path))
        elif path.exists():
            _check_regular(path)
            found.append(path)
        elif path.is_symlink():
            raise MockfileError("a broken or looping symbolic link", source=str(given))
        else:
            raise MockfileError("no such file or directory", source=str(given))
    return found


MAX_FOLDER_DEPTH = 64  # levels of subfolders under a folder of mock files


def _tree(folder: Path) -> list[Path]:
    """The mock files under ``folder``, subfolders included, ordered by relative path
    (hidden files and an editor's lock files, ``.#name.yaml``, skipped).  Walked without
    recursion, symbolic links to folders not followed, at most ``MAX_FOLDER_DEPTH`` levels.

    Raises:
        MockfileError: a folder deeper than that, a broken or looping link to a mock file.
    """
    found = []
    todo: list[tuple[Path, int]] = [(folder, 0)]
    while todo:
        current, depth = todo.pop()
        for entry in _entries(current):
            path = current / entry.name
            if entry.name.startswith("."):
                continue
            if entry.is_dir(follow_symlinks=False):
                if depth >= MAX_FOLDER_DEPTH:
                    raise MockfileError(
                        f"a folder nested more than {MAX_FOLDER_DEPTH} levels deep (at "
                        f"{path.relative_to(folder).as_posix()[:200]}...); expected mock files "
                        "at most that deep",
                        source=str(folder),
                    )
                todo.append((path, depth + 1))
            elif path.suffix not in SUFFIXES:
                continue
            elif path.is_file():  # (a looping link is no file; DirEntry would raise)
                found.append((path.relative_to(folder).as_posix(), path))
            elif entry.is_symlink() and not path.exists():
                raise MockfileError("a broken or looping symbolic link", source=str(path))
    return [path for _, path in sorted(found)]


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    """A folder's entries (none when it cannot be read, as ``rglob`` did)."""
    try:
        with os.scandir(folder) as listing:
            return list(listing)
    except OSError:
        return []


def _check_regular(path: Path) -> None:
    """Refuse a FIFO, socket or device: reading one would block or never end."""
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        raise MockfileError(f"cannot read it: {exc.strerror}", source=str(path)) from None
    if not stat.S_ISREG(mode):
        raise MockfileError(
            "not a regular file (a FIFO, socket or device); expected a mock file",
            source=str(path),
        )


def _read(path: Path) -> str:
    limit = max_file_bytes()
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise MockfileError(f"cannot read it: {exc.strerror}", source=str(path)) from None
    if size > limit:
        raise _too_large(str(path), f"{size:,} bytes", limit, "bytes", FILE_BYTES_ENV, size)
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise MockfileError(f"not UTF-8 text: {exc.reason}", source=str(path)) from None
    except OSError as exc:
        raise MockfileError(f"cannot read it: {exc.strerror}", source=str(path)) from None


def _load_file(path: Path, names: Names) -> list[Mock]:
    text = _read(path)
    nodes = _limit(NODES_ENV, MAX_NODES)
    return _loads(text, str(path), names, strict_json=path.suffix == ".json", max_nodes=nodes)


def file_problems(path: Path, names: Names | None = None) -> list[MockfileError]:
    """Every error of the mock file ``path`` (see :func:`problems`)."""
    try:
        text = _read(path)
    except MockfileError as exc:
        return [exc]
    try:
        nodes = _limit(NODES_ENV, MAX_NODES)
    except MockfileError as exc:
        return [exc]
    strict = path.suffix == ".json"
    return problems(text, str(path), strict_json=strict, names=names, max_nodes=nodes)


def _documents(
    text: str, source: str, strict_json: bool = False, max_nodes: int = MAX_NODES
) -> list[At]:
    if strict_json:
        _strict_json(text, source)
    docs: list[At] = []
    total = 0
    try:
        if len(text) > 2 * max_nodes:  # (a node takes 2 bytes at least: "[1,1,...")
            _count_nodes(text, source, max_nodes)
        with collector_off():  # millions of new nodes: each pass of it would visit all
            # counted as each is composed (an empty document is None)
            for node in filter(None, yaml.compose_all(text, Loader=_Loader)):
                doc = At(node, source)
                total += check_size(doc)
                if total > max_nodes:
                    raise _too_large(source, f"at least {total:,} nodes", max_nodes, "nodes "
                                     "(values, lists and mappings)", NODES_ENV)  # fmt: skip
                docs.append(doc)
    except yaml.YAMLError as exc:
        if strict_json or text.lstrip().startswith(("{", "[")):
            try:
                return [_json_document(text, source)]  # JSON that YAML refuses (tabs, say)
            except MockfileError as deep:  # "[" * 100000: YAML's error has line and column
                if strict_json or not deep.reason.startswith(_JSON_TOO_DEEP):
                    raise
        raise _yaml_error(exc, source, text) from None
    return [doc for doc in docs if not doc.is_null]


def _count_nodes(text: str, source: str, max_nodes: int) -> None:
    """Refuse a text of more than ``max_nodes`` nodes before it is composed: counted from
    the parser's events (which are not kept), so a text over the limit costs seconds and
    no memory (composed, a 16 MiB list of small mocks took 56 s and 1.2 GiB to refuse)."""
    total = 0
    for event in yaml.parse(text, Loader=_Loader):  # (by document, as they are composed)
        if isinstance(event, _NODE_EVENTS):
            total += 1
        elif isinstance(event, yaml.DocumentEndEvent) and total > max_nodes:
            raise _too_large(source, f"at least {total:,} nodes", max_nodes, "nodes "
                                 "(values, lists and mappings)", NODES_ENV)  # fmt: skip


_NODE_EVENTS = (yaml.ScalarEvent, yaml.SequenceStartEvent, yaml.MappingStartEvent)


def _strict_json(text: str, source: str) -> None:
    """Refuse what is not RFC 8259 JSON (a ``.json`` file is read as JSON, not YAML)."""

    def constant(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    try:
        # A long int is not a strictness matter: left as text here, YAML's reading then
        # places it with its field.
        json.loads(text, parse_constant=constant, parse_int=_int_or_text)
    except json.JSONDecodeError as exc:
        where = f" (a {_JSON_HINTS[exc.msg]})" if exc.msg in _JSON_HINTS else ""
        raise MockfileError(
            f"not valid JSON: {exc.msg}{where}", source=source, line=exc.lineno, column=exc.colno
        ) from None
    except ValueError as exc:
        raise _json_value_error(exc, text, source) from None
    except RecursionError:  # "[" * 100000: nested deeper than the parser recurses
        raise _json_too_deep(text, source) from None


def _int_or_text(digits: str) -> int | str:
    return digits if len(digits.lstrip("-")) > 4300 else int(digits)


_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")


def _json_items(text: str) -> list[Any] | None:
    """A big JSON list parsed an item at a time (one ``json.loads`` of 16 MiB held the
    interpreter, and so the server's loop, for half a second), or None when the text is
    no list or does not parse this way (``json.loads`` then reads it, and words the error)."""
    at = _SPACE.match(text).end()  # type: ignore[union-attr]
    if not text.startswith("[", at):
        return None
    items: list[Any] = []
    at = _SPACE.match(text, at + 1).end()  # type: ignore[union-attr]
    if text.startswith("]", at):
        return None
    try:
        while True:
            item, at = _DECODER.raw_decode(text, at)
            items.append(item)
            at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
            if text.startswith(",", at):
                at = _SPACE.match(text, at + 1).end()  # type: ignore[union-attr]
            elif text.startswith("]", at) and not text[at + 1 :].strip(" \t\n\r"):
                return items
            else:
                return None
    except (ValueError, RecursionError):
        return None


_LONG_NUMBER = re.compile(r'"(?:[^"\\]|\\.)*"|-?\d{4301,}')


def _json_value_error(exc: ValueError, text: str, source: str) -> MockfileError:
    """A ``ValueError`` of ``json.loads`` that is no syntax error: NaN, or an int of more than
    4,300 digits, which is placed at its first digit."""
    for token in _LONG_NUMBER.finditer(text):
        if not token.group().startswith('"'):
            at = token.start()
            return MockfileError(
                f"found a number of {len(token.group().lstrip('-')):,} digits that Python "
                "refuses to read (over 4,300 digits)",
                source=source,
                line=text.count("\n", 0, at) + 1,
                column=at - text.rfind("\n", 0, at),
            )
    return MockfileError(f"not valid JSON: {exc}", source=source)


_JSON_TOO_DEEP = "not valid JSON: nested too deep to parse"
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _json_too_deep(text: str, source: str) -> MockfileError:
    """The error for JSON nested deeper than Python's parser recurses, placed at the first
    bracket of its deepest level."""
    depth = deepest = at = 0
    for token in _JSON_TOKEN.finditer(text):
        bracket = token.group()
        if bracket in "[{":
            depth += 1
            if depth > deepest:
                deepest, at = depth, token.start()
        elif bracket in "]}":
            depth -= 1
    line = text.count("\n", 0, at) + 1
    column = at - text.rfind("\n", 0, at)
    return MockfileError(
        f"{_JSON_TOO_DEEP} ({deepest:,} levels)", source=source, line=line, column=column
    )


_JSON_HINTS = {
    "Expecting property name enclosed in double quotes": "trailing comma or a single quote?",
    "Expecting value": "trailing comma, a comment or an empty file?",
}


def _yaml_error(exc: yaml.YAMLError, source: str, text: str = "") -> MockfileError:
    if isinstance(exc, yaml.MarkedYAMLError) and exc.problem_mark is not None:
        mark = exc.problem_mark
        problem = exc.problem or "syntax error"
        context = f" {exc.context}" if exc.context else ""
        if "'\\t'" in problem or _tab_at(text, mark.line):
            return MockfileError(
                "found a tab, expected spaces: YAML indents with spaces only (replace the tabs)",
                source=source,
                line=mark.line + 1,
                column=mark.column + 1,
            )
        return MockfileError(
            f"not valid YAML: {problem}{context}",
            source=source,
            line=mark.line + 1,
            column=mark.column + 1,
        )
    return MockfileError(f"not valid YAML: {exc}", source=source)


def _tab_at(text: str, line: int) -> bool:
    """True when ``line`` (0-based) of ``text`` is indented with a tab."""
    lines = text.splitlines()
    if not 0 <= line < len(lines):
        return False
    row = lines[line]
    return "\t" in row[: len(row) - len(row.lstrip())]


def _json_document(text: str, source: str) -> At:
    try:
        value = _json_items(text) if len(text) > _RELOCATE else None
        value = json.loads(text) if value is None else value
    except json.JSONDecodeError as exc:
        raise MockfileError(
            f"not valid JSON: {exc.msg}", source=source, line=exc.lineno, column=exc.colno
        ) from None
    except ValueError as exc:  # an int of more than 4,300 digits
        raise _json_value_error(exc, text, source) from None
    except RecursionError:  # "[" * 100000: nested deeper than the parser recurses
        raise _json_too_deep(text, source) from None
    return At(json_node(value), source)


# -- documents and mocks ----------------------------------------------------------------------


def _document(doc: At, names: Names) -> list[Mock]:
    if not doc.is_list:
        return [_checked(_mock_of(doc), doc, names)]
    node = doc.node
    parsed = getattr(node, "json_value", None)  # a JSON list: its items' values, no nodes
    items = parsed if parsed is not None else node.value
    constructor = yaml.constructor.SafeConstructor()
    mocks = []
    for i, item in enumerate(items):
        value = item if parsed is not None else plain(item, constructor)
        mock = None if value is NOT_PLAIN else quick(value)  # the common mock, built at once
        name = None if mock is None else mock.name
        if mock is not None and (name is None or name not in names.seen):
            if name is not None:
                names.seen[name] = _name_at(doc.source, item)
            mocks.append(mock)
            continue
        at = doc.index(i, json_node(item) if parsed is not None else item)
        mocks.append(_checked(_mock_of(at), at, names))  # the long way, errors placed
    return mocks


def _checked(mock: Mock, item: At, names: Names) -> Mock:
    clash = names.clash(mock, item)
    if clash is not None:
        raise clash
    return mock


def _name_at(source: str, item: Any) -> str:
    """Where a mock read by ``quick`` gives its name (as ``Names.clash`` records it)."""
    if isinstance(item, yaml.MappingNode):
        for key, value in item.value:
            if key.value == "name":
                return _where(At(value, source))
    return source


def _mock_of(at: At) -> Mock:
    f = at.fields(_mock_keys(at), "a mock: a mapping with request and response")
    options = {k: typed(f[k], _MOCK_OPTIONS[k].annotation) for k in _MOCK_OPTIONS if k in f}
    req = f["request"].fields(REQUEST_KEYS, "a request: a mapping") if "request" in f else {}
    target = {k: typed(req[k], p.annotation) for k, p in _REQUEST_TARGET.items() if k in req}
    if isinstance(target.get("path"), str) and "?" in target["path"]:
        _query_in_path(target["path"], req["path"])
    alone = [k for k in f if k not in MOCK_KEYS]
    if alone:
        _check_fields(f, req, target, options)
        return _standalone(f, alone[0], target, options, req)
    try:
        mock = _mock.request(**{"method": None, **target}, **options)
    except ConfigError:
        _check_fields(f, req, target, options)  # the error at the field's own node
        raise
    for key, child in req.items():
        if key not in _REQUEST_TARGET:
            mock = _criteria(mock, key, child)
    if "response" in f and "replies" in f:
        f["replies"].fail("found both 'response' and 'replies', expected one of them")
    if "response" in f:
        reply, faults = _response(f["response"])
        mock = mock.reply(reply)
        with f["response"].building():
            mock = mock.pipe(*faults)
    if "replies" in f:
        mock = _replies(mock, f)
    else:
        for key in _SEQUENCE_OPTIONS:
            if key in f:
                f[key].fail(f"{key}: goes with replies (a list of responses), found none")
    if "scenario" in f:
        mock = _scenario(mock, f["scenario"])
    return mock


def _check_fields(
    f: dict[str, At], req: dict[str, At], target: dict[str, Any], options: dict[str, Any]
) -> None:
    """Fail at the first field of ``request:`` and the mock's options that the core
    refuses (each checked alone, at its own node)."""
    for key, value in (*target.items(), *options.items()):
        with (req.get(key) or f[key]).building():
            _mock.request(**{"method": None, key: value})


def _mock_keys(at: At) -> tuple[str, ...]:
    """The keys of a mock: the core's, and the standalone kinds' when a key is not the
    core's (the kinds' entry points are imported only then)."""
    if at.is_mapping and not _core_keys(at.node):
        return (*MOCK_KEYS, *(e.key for e in REPLY_KINDS.values() if e.standalone))
    return MOCK_KEYS


def _core_keys(node: yaml.Node) -> bool:
    """True when every key of a mapping is plain text among the core's ``MOCK_KEYS`` (a
    look at the keys alone: a merge key or any other key is read the long way)."""
    return all(
        isinstance(k, yaml.ScalarNode) and k.tag == _STR_TAG and k.value in _MOCK_KEY_SET
        for k, _ in node.value
    )


def _standalone(
    f: dict[str, At], key: str, target: dict[str, Any], options: dict[str, Any], req: dict[str, At]
) -> Mock:
    """A standalone kind's mock (``conversation: [...]``): the kind's own mock, its method
    and path replaced by ``request:``'s, its criteria added, the mock's options set."""
    for other in ("response", "replies", "exhausted", "scenario"):
        if other in f:
            f[other].fail(f"found both {key!r} and {other!r}: {key} is the whole reply")
    entry = REPLY_KINDS.get(key)
    child = f[key]
    named = "name" in options and "name" in params(entry.make, POSITIONAL, KEYWORD)
    if named and child.is_mapping and any(k == "name" for k, _, _ in child.items("options")):
        named = False
    kind = _kind(entry, child, extra={"name": options["name"]} if named else {})
    own: Mock = kind.own_mock()
    with child.building():
        mock: Mock = dataclasses.replace(own, **{"name": None, **target, **options})
    for field, node in req.items():
        if field not in _REQUEST_TARGET:
            mock = _criteria(mock, field, node)
    return mock


def _query_in_path(path: str, at: At) -> NoReturn:
    """A path with a query, in the YAML user's words: the ``query:`` key."""
    bare, _, query = path.partition("?")
    pairs = parse_qsl(query, keep_blank_values=True)
    shown = ", ".join(f"{name}: {json.dumps(value)}" for name, value in pairs)
    at.fail(
        f"path {path!r} has a query, which a path never matches (the query is matched "
        f"apart): write path: {bare} and query: {{{shown}}}"
    )


def _replies(mock: Mock, f: dict[str, At]) -> Mock:
    """``replies: [response, ...]`` (each any response form, with its own ``pipe``)."""
    listed = f["replies"].elements("a list of responses")
    if not listed:
        f["replies"].fail("replies: found an empty list, expected at least one response")
    replies = [_response(item) for item in listed]
    options = {k: typed(f[k], p.annotation) for k, p in _SEQUENCE_OPTIONS.items() if k in f}
    with (f.get("exhausted") or f["replies"]).building():
        return mock.replies(*replies, **options)


def _scenario(mock: Mock, at: At) -> Mock:
    """``scenario: {name: agent, state: Started, next_state: answered}``."""
    f = at.fields(SCENARIO_KEYS, "a scenario: a mapping with name, state, next_state")
    if "name" not in f:
        at.fail("scenario: missing key 'name', expected a mapping with name, state, next_state")
    args = {k: typed(f[k], p.annotation) for k, p in _SCENARIO_KEYS.items() if k in f}
    with at.building():
        return mock.scenario(**args)


def _criteria(mock: Mock, field: str, at: At) -> Mock:
    with at.building():
        if field == "body":
            return mock.body(matcher_arg(at))
    names = at.items(f"a mapping of {field} names to matchers", fold_case=field == "header")
    for name, _, child in names:
        with child.building():
            mock = getattr(mock, field)(name, matcher_arg(child))  # mock.header, mock.query
    return mock


# -- responses ----------------------------------------------------------------------------


def _response(at: At) -> tuple[Reply | ReplyKind, list[Fault]]:
    """A response: the core's keys, or a reply kind's key (composing with status, header
    and delay when the kind composes)."""
    what = "a response: a mapping with status, header, body, ..."
    others = [(k, key_at) for k, key_at, _ in at.items(what) if k not in RESPONSE_KEYS]
    entry = None
    if others:
        with others[0][1].building():  # an unknown key: the kinds' did-you-mean, at the key
            entry = _kind_entry(others[0][0])
    keys = RESPONSE_KEYS if entry is None else _kind_keys(entry)
    f = at.fields(keys, what if entry is None else f"a {entry.key} response")
    bodies = (*_EXCLUSIVE, *(e.key for e in REPLY_KINDS.values() if e.composes))
    given = [k for k in bodies if k in f]
    if len(given) > 1:
        f[given[1]].fail(
            f"found both {given[0]!r} and {given[1]!r}, expected one of {', '.join(bodies)}"
        )
    pipe = f["pipe"].elements("a list of faults: [[name, arg, ...], ...]") if "pipe" in f else []
    faults = [fault_of(item) for item in pipe]
    if entry is not None and not entry.composes:
        return _kind(entry, f[entry.key]), faults
    reply = _base_reply(at, f)
    if entry is not None:
        return _kind(entry, f[entry.key], reply), faults
    return _content(reply, f), faults


def _kind_entry(key: str) -> KindEntry:
    """The reply kind of a response key that is not the core's.

    Raises:
        UnknownNameError: no kind has this key (with the closest key, kinds' or core's).
    """
    entry = REPLY_KINDS.find(key)
    if entry is None:
        raise UnknownNameError("response key", key, (*RESPONSE_KEYS, *REPLY_KINDS.names()))
    return entry


def _kind_keys(entry: KindEntry) -> tuple[str, ...]:
    """The keys that may go with a kind's key: ``pipe``; the response keys when it composes
    (``status``, ``header``, ``delay`` compose; a second body is refused by name)."""
    return (entry.key, *(RESPONSE_KEYS if entry.composes else ("pipe",)))


def _base_reply(at: At, f: dict[str, At]) -> Reply:
    """The reply of ``status``, ``reason``, ``header`` and ``delay``."""
    code = f["status"].integer("an HTTP status code such as 200") if "status" in f else 200
    reason = f["reason"].text("a reason phrase (text)") if "reason" in f else None
    with (f.get("status") or at).building():
        reply = status(code, reason)
    if "header" in f:
        reply = _headers(reply, f["header"])
    if "delay" in f:
        with f["delay"].building():
            reply = reply.delay(typed(f["delay"], "Duration"))
    return reply


def _kind(entry: KindEntry, child: At, *base: Reply, extra: dict[str, Any] | None = None) -> Any:
    """``{<kind>: {...}}`` (or ``{<kind>: value}``, its first parameter): the kind made by
    its factory; a composing one gets the ``base`` reply first, a standalone one the
    mock's options it takes (``extra``)."""
    make = entry.make
    extra = extra or {}
    found = params(make, POSITIONAL, KEYWORD)
    if base:  # a composing factory's first parameter takes the reply
        found = dict(list(found.items())[1:])
    if not child.is_mapping:
        first = next(iter(found.values()), None)
        rest = [p for p in list(found.values())[1:] if _required(p, extra)]
        if first is None or rest:
            child.expected(f"{entry.key} options: a mapping of its parameters")
        value = typed(child, first.annotation)
        try:
            return make(*base, value, **extra)
        except MockfileError:
            raise
        except ConfigError as exc:
            _place(exc, child, {}, first=first.name)
    # a parameter named after a Python keyword (``as_``) is written without the ``_``
    names = {n[:-1] if keyword.iskeyword(n[:-1]) else n: n for n in found}
    given = child.fields(tuple(names), f"{entry.key} options: a mapping of its parameters")
    missing = [k for k, n in names.items() if k not in given and _required(found[n], extra)]
    if missing:
        child.fail(f"{entry.key}: missing key {missing[0]!r}, expected {', '.join(names)}")
    kw = {names[k]: typed(c, found[names[k]].annotation) for k, c in given.items()}
    try:
        return make(*base, **kw, **extra)
    except MockfileError:
        raise
    except ConfigError as exc:
        _place(exc, child, given)


def _required(param: inspect.Parameter, extra: dict[str, Any]) -> bool:
    """True when a kind's factory needs ``param`` from the file (no default, not given by
    the mock's options)."""
    return param.default is inspect.Parameter.empty and param.name not in extra


_PLACE = re.compile(r"^([A-Za-z_]\w*(?:\[\d+\]|\.[A-Za-z_]\w*)*)(?:: (.*)|=.*)$", re.S)


def _place(exc: ConfigError, child: At, given: dict[str, At], first: str = "") -> NoReturn:
    """Fail at the node a kind's error is about: the place its message starts with
    (``writes[2].at: ...``, or ``turns[1].text=...``), the key it names
    (``finish_reason='x' ...``), the value an unknown name was given at, or else the kind's
    own node.  ``first``: the parameter ``child`` is the value of (a kind's single value)."""
    text = str(exc)
    found = _PLACE.match(text)
    path = found.group(1) if found else ""
    if first and re.match(rf"{first}(\[|\.|$)", path):
        path = path[len(first) :]
    inner = child.descend(path) if found else None
    if found and inner is not None:
        inner.fail(found.group(2) or text)
    for key, at in given.items():
        if re.match(rf"{key}\b", text):
            at.fail(text)
        scalar = not (at.is_list or at.is_mapping)
        if isinstance(exc, UnknownNameError) and scalar and at.value() == exc.name:
            at.fail(text)
    child.fail(text)


def _headers(reply: Reply, at: At) -> Reply:
    for name, _, child in at.items("a mapping of header names to values"):
        values = child.elements("a list of header values") if child.is_list else [child]
        for value in values:
            text = typed(value, "str | int")
            with value.building():
                reply = reply.header(name, text)
    return reply


def _content(reply: Reply, f: dict[str, At]) -> Reply:
    if "body" in f:
        text = f["body"].text("text (the body, sent as UTF-8)")
        return reply.body(text)
    if "json" in f:
        with f["json"].building():
            return reply.json(f["json"].value())
    if "event_stream" in f:
        return _event_stream(reply, f["event_stream"])
    return reply


def _event_stream(reply: Reply, at: At) -> Reply:
    f = at.fields(EVENT_STREAM_KEYS, "an event stream: a mapping with events")
    listed = f["events"].elements("a list of events") if "events" in f else []
    events = [_event(item) for item in listed]
    options = {k: typed(f[k], p.annotation) for k, p in _STREAM_OPTIONS.items() if k in f}
    with at.building():
        return reply.event_stream(*events, **options)


def _event(at: At) -> Event:
    f = at.fields(EVENT_KEYS, "an event: a mapping with data, event, id, retry, comment, delay")
    values = {k: typed(f[k], p.annotation) for k, p in _EVENT_FIELDS.items() if k in f}
    with at.building():
        return Event(**values)
