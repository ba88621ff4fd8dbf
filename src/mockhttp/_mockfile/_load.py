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

import inspect
import json
import keyword
import os
import re
import stat
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Literal, get_args

import yaml

from .._core import _mock
from .._core._errors import ConfigError, MockfileError
from .._core._match import MATCHERS
from .._core._mock import Mock
from .._core._plan import Fault
from .._core._registry import REPLY_KINDS, RESPONSE_KEYS, ReplyKind, reply_kind
from .._core._reply import Reply, status
from .._core._sse import Event
from ..fault import FAULTS
from ._dump import dump as dump
from ._dump import to_dict as to_dict
from ._kinds import RESPONSE_KINDS
from ._nodes import At, check_size, json_node, suggest, too_deep

__all__ = [
    "EVENT_KEYS",
    "EVENT_STREAM_KEYS",
    "MOCK_KEYS",
    "REQUEST_KEYS",
    "RESPONSE_KEYS",
    "SCENARIO_KEYS",
    "SUFFIXES",
    "dump",
    "file_problems",
    "files",
    "load",
    "loads",
    "problems",
    "shape",
    "to_dict",
]

SUFFIXES = (".yaml", ".yml", ".json")
_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _params(func: Callable[..., Any], *kinds: inspect._ParameterKind) -> dict[str, Any]:
    sig = inspect.signature(func)
    return {p.name: p for p in sig.parameters.values() if p.kind in kinds and p.name != "self"}


_KEYWORD = inspect.Parameter.KEYWORD_ONLY
_POSITIONAL = inspect.Parameter.POSITIONAL_OR_KEYWORD
_MOCK_OPTIONS = _params(_mock.request, _KEYWORD)  # name, priority, times
_REQUEST_TARGET = _params(_mock.request, _POSITIONAL)  # method, path
_STREAM_OPTIONS = _params(Reply.event_stream, _KEYWORD)
_EVENT_FIELDS = _params(Event.__init__, _POSITIONAL, _KEYWORD)

_SEQUENCE_OPTIONS = _params(Mock.replies, _KEYWORD)  # exhausted
_SCENARIO_KEYS = _params(Mock.scenario, _POSITIONAL)  # name, state, next_state

MOCK_KEYS = ("request", "response", "replies", *_MOCK_OPTIONS, *_SEQUENCE_OPTIONS, "scenario")
SCENARIO_KEYS = tuple(_SCENARIO_KEYS)
REQUEST_KEYS = (*_REQUEST_TARGET, *get_args(_mock.Field))  # query, header, body
EVENT_STREAM_KEYS = (*_STREAM_OPTIONS, "events")
EVENT_KEYS = tuple(_EVENT_FIELDS)
_EXCLUSIVE = ("body", "json", "event_stream")


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
    docs = None
    try:
        if syntax == "json":
            try:
                docs = [_json_document(text, source)]
                mocks = [mock for doc in docs for mock in _document(doc)]
            except MockfileError as exc:
                if exc.line is not None or len(text) > _RELOCATE:
                    raise
                docs = None  # a JSON node has no position: read a small document again
        if docs is None:
            docs = _documents(text, source, strict_json or syntax == "json")
            mocks = [mock for doc in docs for mock in _document(doc)]
    except RecursionError:  # a matcher chain too deep to build
        raise (too_deep(docs[-1]) if docs else _too_deep(source)) from None
    if not docs:
        raise _empty(source)
    return mocks


def problems(
    text: str, source: str = "<string>", *, strict_json: bool = False
) -> list[MockfileError]:
    """Every error of ``text``, one per mock that does not load (``mockhttp validate``):
    a syntax error stops the reading, a bad mock does not hide the next one."""
    try:
        docs = _documents(text, source, strict_json)
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
                _mock_of(item)
            except MockfileError as exc:
                found.append(exc)
            except RecursionError:
                found.append(too_deep(item))
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


def load(*paths: str | os.PathLike[str]) -> list[Mock]:
    """The mocks in files and directories (``*.yaml``, ``*.yml``, ``*.json``, name order).

    Raises:
        MockfileError: a path is missing or a file does not load; nothing is returned, so a
            file set is never used in half.
    """
    if not paths:
        raise ConfigError("load() needs at least one file or directory")
    mocks: list[Mock] = []
    for path in files(paths):
        mocks.extend(_load_file(path))
    return mocks


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


def _tree(folder: Path) -> list[Path]:
    """The mock files under ``folder``, subfolders included, ordered by relative path
    (hidden files and an editor's lock files, ``.#name.yaml``, skipped)."""
    found = []
    for path in folder.rglob("*"):
        relative = path.relative_to(folder)
        if any(part.startswith(".") for part in relative.parts) or path.suffix not in SUFFIXES:
            continue
        if path.is_file():
            found.append((relative.as_posix(), path))
        elif path.is_symlink() and not path.exists():
            raise MockfileError("a broken or looping symbolic link", source=str(path))
    return [path for _, path in sorted(found)]


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
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise MockfileError(f"not UTF-8 text: {exc.reason}", source=str(path)) from None
    except OSError as exc:
        raise MockfileError(f"cannot read it: {exc.strerror}", source=str(path)) from None


def _load_file(path: Path) -> list[Mock]:
    return loads(_read(path), str(path), strict_json=path.suffix == ".json")


def file_problems(path: Path) -> list[MockfileError]:
    """Every error of the mock file ``path`` (see :func:`problems`)."""
    try:
        text = _read(path)
    except MockfileError as exc:
        return [exc]
    return problems(text, str(path), strict_json=path.suffix == ".json")


def _documents(text: str, source: str, strict_json: bool = False) -> list[At]:
    if strict_json:
        _strict_json(text, source)
    try:
        nodes = list(yaml.compose_all(text, Loader=_Loader))
    except yaml.YAMLError as exc:
        if strict_json or text.lstrip().startswith(("{", "[")):
            try:
                return [_json_document(text, source)]  # JSON that YAML refuses (tabs, say)
            except MockfileError as deep:  # "[" * 100000: YAML's error has line and column
                if strict_json or not deep.reason.startswith(_JSON_TOO_DEEP):
                    raise
        raise _yaml_error(exc, source, text) from None
    docs = [At(node, source) for node in nodes if node is not None]
    for doc in docs:
        check_size(doc)
    return [doc for doc in docs if not doc.is_null]


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
        value = json.loads(text)
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


def _document(doc: At) -> list[Mock]:
    if doc.is_list:
        return [_mock_of(item) for item in doc.elements("a list of mocks")]
    return [_mock_of(doc)]


def _mock_of(at: At) -> Mock:
    f = at.fields(MOCK_KEYS, "a mock: a mapping with request and response")
    options = {k: _typed(f[k], _MOCK_OPTIONS[k].annotation) for k in _MOCK_OPTIONS if k in f}
    req = f["request"].fields(REQUEST_KEYS, "a request: a mapping") if "request" in f else {}
    target = {k: _typed(req[k], p.annotation) for k, p in _REQUEST_TARGET.items() if k in req}
    for key, value in (*target.items(), *options.items()):
        with (req.get(key) or f[key]).building():  # check each field at its own node
            _mock.request(**{"method": None, key: value})
    mock = _mock.request(**{"method": None, **target}, **options)
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


def _replies(mock: Mock, f: dict[str, At]) -> Mock:
    """``replies: [response, ...]`` (each any response form, with its own ``pipe``)."""
    listed = f["replies"].elements("a list of responses")
    if not listed:
        f["replies"].fail("replies: found an empty list, expected at least one response")
    replies: list[tuple[Reply, list[Fault]]] = []
    for item in listed:
        reply, faults = _response(item)
        if isinstance(reply, ReplyKind):
            item.fail("a reply kind (such as openai_chat) in replies:, expected a fixed response")
        replies.append((reply, faults))
    options = {k: _typed(f[k], p.annotation) for k, p in _SEQUENCE_OPTIONS.items() if k in f}
    with (f.get("exhausted") or f["replies"]).building():
        return mock.replies(*replies, **options)


def _scenario(mock: Mock, at: At) -> Mock:
    """``scenario: {name: agent, state: Started, next_state: answered}``."""
    f = at.fields(SCENARIO_KEYS, "a scenario: a mapping with name, state, next_state")
    if "name" not in f:
        at.fail("scenario: missing key 'name', expected a mapping with name, state, next_state")
    args = {k: _typed(f[k], p.annotation) for k, p in _SCENARIO_KEYS.items() if k in f}
    with at.building():
        return mock.scenario(**args)


def _criteria(mock: Mock, field: str, at: At) -> Mock:
    with at.building():
        if field == "body":
            return mock.body(_matcher_arg(at))
    names = at.items(f"a mapping of {field} names to matchers", fold_case=field == "header")
    for name, _, child in names:
        with child.building():
            mock = getattr(mock, field)(name, _matcher_arg(child))  # mock.header, mock.query
    return mock


# -- responses ----------------------------------------------------------------------------


def _response(at: At) -> tuple[Reply | ReplyKind, list[Fault]]:
    what = "a response: a mapping with status, header, body, ..."
    kinds = (*_EXCLUSIVE, *RESPONSE_KINDS)
    known = (*RESPONSE_KEYS, *RESPONSE_KINDS)
    others = [(k, c) for k, _, c in at.items(what) if k not in known]
    if others and reply_kind(others[0][0]) is not None:
        return _kind_response(at, *others[0])
    f = at.fields((*known, *sorted(REPLY_KINDS)) if others else known, what)
    given = [k for k in kinds if k in f]
    if len(given) > 1:
        f[given[1]].fail(
            f"found both {given[0]!r} and {given[1]!r}, expected one of {', '.join(kinds)}"
        )
    code = f["status"].integer("an HTTP status code such as 200") if "status" in f else 200
    reason = f["reason"].text("a reason phrase (text)") if "reason" in f else None
    with (f.get("status") or at).building():
        reply = status(code, reason)
    if "header" in f:
        reply = _headers(reply, f["header"])
    reply = _content(reply, f)
    if "delay" in f:
        with f["delay"].building():
            reply = reply.delay(_typed(f["delay"], "Duration"))
    pipe = f["pipe"].elements("a list of faults: [[name, arg, ...], ...]") if "pipe" in f else []
    return reply, [_fault(item) for item in pipe]


def _kind_response(at: At, key: str, child: At) -> tuple[ReplyKind, list[Fault]]:
    """``response: {<kind>: {...}, pipe: [...]}``: a reply kind (see ``_kind``)."""
    f = at.fields((key, "pipe"), f"a {key} response: a mapping with {key} and pipe")
    make = reply_kind(key)
    assert make is not None
    params = _params(make, _POSITIONAL, _KEYWORD)
    if child.is_mapping:
        # a parameter named after a Python keyword (``as_``) is written without the ``_``
        names = {n[:-1] if keyword.iskeyword(n[:-1]) else n: n for n in params}
        given = child.fields(tuple(names), f"{key} options: a mapping of its parameters")
        kw = {names[k]: _typed(c, params[names[k]].annotation) for k, c in given.items()}
        try:
            kind = make(**kw)
        except MockfileError:
            raise
        except ConfigError as exc:  # at the key the message names (``finish_reason='x' ...``)
            named = [c for k, c in given.items() if re.match(rf"{k}\b", str(exc))]
            (named[0] if named else child).fail(str(exc))
    else:
        first = next(iter(params.values()))
        value = _typed(child, first.annotation)
        with child.building():
            kind = make(value)
    pipe = f["pipe"].elements("a list of faults: [[name, arg, ...], ...]") if "pipe" in f else []
    return kind, [_fault(item) for item in pipe]


def _headers(reply: Reply, at: At) -> Reply:
    for name, _, child in at.items("a mapping of header names to values"):
        values = child.elements("a list of header values") if child.is_list else [child]
        for value in values:
            text = _typed(value, "str | int")
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
    for key, kind in RESPONSE_KINDS.items():  # added by subpackages (mockhttp.record)
        if key in f:
            return kind.read(reply, f[key])
    return reply


def _event_stream(reply: Reply, at: At) -> Reply:
    f = at.fields(EVENT_STREAM_KEYS, "an event stream: a mapping with events")
    listed = f["events"].elements("a list of events") if "events" in f else []
    events = [_event(item) for item in listed]
    options = {k: _typed(f[k], p.annotation) for k, p in _STREAM_OPTIONS.items() if k in f}
    with at.building():
        return reply.event_stream(*events, **options)


def _event(at: At) -> Event:
    f = at.fields(EVENT_KEYS, "an event: a mapping with data, event, id, retry, comment, delay")
    values = {k: _typed(f[k], p.annotation) for k, p in _EVENT_FIELDS.items() if k in f}
    with at.building():
        return Event(**values)


# -- matchers and faults: [name, arg, ..., {option: value}] ------------------------------


def _matcher_arg(at: At) -> Any:
    """A matcher place: a list is a matcher form, anything else a plain value (equal)."""
    return _form(at, "matcher", MATCHERS, "equal") if at.is_list else at.value()


def _fault(at: At) -> Fault:
    if not at.is_list:
        at.expected("a fault: [name, arg, ...] such as [limit_data, 100]")
    fault: Fault = _form(at, "fault", FAULTS, "limit_data")
    return fault


def _form(at: At, kind: str, registry: Mapping[str, Callable[..., Any]], example: str) -> Any:
    items = at.elements(f"a {kind}: [name, arg, ...]")
    if not items:
        at.fail(f"found an empty list, expected a {kind}: [name, arg, ...]")
    name = items[0].text(f"a {kind} name such as {example!r}")
    make = registry.get(name)
    if make is None:
        items[0].fail(
            f"unknown {kind} {name!r}{suggest(name, registry)}\n"
            f"  expected one of: {', '.join(sorted(registry))}"
        )
    return _call(at, f"{kind} {name!r}", name, make, items[1:])


def _call(at: At, what: str, name: str, make: Callable[..., Any], args: list[At]) -> Any:
    """Call ``make`` with file arguments, checked against its signature."""
    positional = list(_params(make, inspect.Parameter.POSITIONAL_ONLY, _POSITIONAL).values())
    rest = next(iter(_params(make, inspect.Parameter.VAR_POSITIONAL).values()), None)
    keywords = _params(make, _KEYWORD)
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
    values = [_typed(arg, p.annotation) for arg, p in zip(args, slots[: len(args)], strict=True)]
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
        kw[key] = _typed(child, keywords[key].annotation)
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
    positional = _params(make, inspect.Parameter.POSITIONAL_ONLY, _POSITIONAL).values()
    parts = [name]
    parts.extend(
        p.name if p.default is inspect.Parameter.empty else f"{p.name}?" for p in positional
    )
    parts.extend(f"{p}..." for p in _params(make, inspect.Parameter.VAR_POSITIONAL))
    keywords = _params(make, _KEYWORD)
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


def _typed(at: At, annotation: Any) -> Any:
    """The value at ``at`` as the annotation ``annotation`` (a string) wants it."""
    parts = [p.strip() for p in str(annotation).split("|")]
    if "None" in parts and at.is_null:
        return None
    if any("Matcher" in p for p in parts):
        return _matcher_arg(at)
    if any("Fault" in p for p in parts):
        return _fault(at)
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
