"""Writing mocks as mock files: the inverse of ``_mockfile``'s reading.

:func:`to_dict` gives a mock's document (plain dicts and lists, ready for YAML or JSON);
:func:`dump` writes one or several mocks as YAML, matchers and faults as flow lists
(``[json_path, $.stream, [equal, true]]``) and events as flow mappings, as a person would.

Rule 1: ``loads(dump(mock)) == [mock]`` for every mock with a file form.  What has none
(a bytes body that is not UTF-8, a bytes matcher value) raises ``ConfigError`` rather
than being written differently.  Criteria are written grouped by field (``query``,
``header``, ``body``), in the order each field first appears, so a mock whose criteria
interleave fields, or that matches one header or the body twice (written as ``all_of``),
loads back as an equivalent mock rather than an equal one.  Likewise a reply header sent
several times is written as a list under its first name, so repeats of a name that are
apart come back together.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Iterable
from typing import Any

import yaml

from .._core._errors import ConfigError
from .._core._match import Equal, Matcher, all_of
from .._core._mock import Criterion, Mock, set_writer
from .._core._plan import Fault
from .._core._registry import ReplyKind
from .._core._reply import EventStream, Reply, _reason
from .._core._sse import Event, dumps_compact
from .._core._units import format_seconds
from ._forms import Flow, FlowMap, Quoted, json_value, write_form
from ._nodes import json_numbers

__all__ = ["dump", "to_dict"]


class _Dumper(yaml.SafeDumper):
    """SafeDumper that writes ``Flow``/``FlowMap`` in flow style, ``Quoted`` text in double
    quotes, and indents lists."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


def _represent_flow(dumper: yaml.SafeDumper, data: list[Any]) -> yaml.Node:
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=True)


def _represent_flow_map(dumper: yaml.SafeDumper, data: dict[str, Any]) -> yaml.Node:
    return dumper.represent_mapping("tag:yaml.org,2002:map", data, flow_style=True)


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.Node:
    # PyYAML writes NEL and the Unicode line and paragraph separators raw in plain and
    # single-quoted scalars, where its reader then folds them: double quotes escape them.
    style = '"' if any(c in data for c in "\x85\u2028\u2029") else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


def _represent_quoted(dumper: yaml.SafeDumper, data: str) -> yaml.Node:
    return dumper.represent_scalar("tag:yaml.org,2002:str", str(data), style='"')


_Dumper.add_representer(str, _represent_str)
_Dumper.add_representer(Flow, _represent_flow)
_Dumper.add_representer(FlowMap, _represent_flow_map)
_Dumper.add_representer(Quoted, _represent_quoted)
json_numbers(_Dumper)


def dump(mocks: Mock | Iterable[Mock]) -> str:
    """One or several mocks as a YAML mock file (``---`` between documents).

    Raises:
        ConfigError: a mock has no file form (a binary body, a bytes matcher value).
    """
    docs = [to_dict(mocks)] if isinstance(mocks, Mock) else [to_dict(m) for m in mocks]
    return yaml.dump_all(
        docs,
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=1 << 16,
        explicit_start=len(docs) > 1,
    )


def to_dict(mock: Mock) -> dict[str, Any]:
    """A mock as its document: ``{"request": {...}, "response": {...}, ...}``."""
    if mock.handler is not None:
        raise ConfigError(
            f"mock {mock.describe()} answers with a Python handler, which has no file form"
        )
    doc: dict[str, Any] = {}
    if mock.name is not None:
        doc["name"] = mock.name
    if mock.priority:
        doc["priority"] = mock.priority
    if mock.answers is not None:
        doc["times"] = mock.answers
    own = mock.kind.own_mock() if mock.kind is not None and not mock.faults else None
    request = _request(mock, own)
    if request:
        doc["request"] = request
    if own is not None and mock.kind is not None:  # a standalone kind: its key on top
        doc[mock.kind.file_key] = _standalone(mock.kind, mock.name)
        return doc
    if mock.scenario_of is not None:
        sc = mock.scenario_of
        doc["scenario"] = {
            k: v
            for k, v in (("name", sc.name), ("state", sc.state), ("next_state", sc.next_state))
            if v is not None
        }
    if mock.kind is not None:
        doc["response"] = _kind(mock.kind, mock.faults)
    elif mock.sequence:
        doc["replies"] = [
            _response(r, (*own, *mock.faults))
            if isinstance(r, Reply)
            else _kind(r, (*own, *mock.faults))
            for r, own in mock.sequence
        ]
        if mock.exhausted != "repeat":
            doc["exhausted"] = mock.exhausted
    else:
        assert mock.response is not None  # no kind: a fixed response
        doc["response"] = _response(mock.response, mock.faults)
    return doc


def _request(mock: Mock, own: Mock | None = None) -> dict[str, Any]:
    """The ``request:`` of ``mock``; its method and path left out when they are those of
    ``own``, a standalone kind's own mock."""
    request: dict[str, Any] = {}
    if mock.method is not None and (own is None or mock.method != own.method):
        request["method"] = mock.method
    elif mock.method_matcher is not None:
        request["method"] = write_form(mock.method_matcher)
    if own is not None and mock.path == own.path:
        pass
    elif isinstance(mock.path, Matcher):
        request["path"] = write_form(mock.path)
    elif mock.path is not None:
        request["path"] = mock.path
    for c in mock.criteria:
        request.setdefault(c.field, [])
    for field in ("query", "header", "body"):
        if field in request:
            request[field] = _criteria([c for c in mock.criteria if c.field == field])
    return request


def _criteria(criteria: list[Criterion]) -> Any:
    if criteria[0].name is None:
        return _matcher([c.matcher for c in criteria])
    names: dict[str, list[Matcher]] = {}
    for c in criteria:
        assert c.name is not None
        names.setdefault(c.name, []).append(c.matcher)
    return FlowMap({name: _matcher(matchers) for name, matchers in names.items()})


def _matcher(matchers: list[Matcher]) -> Any:
    m = matchers[0] if len(matchers) == 1 else all_of(*matchers)
    if isinstance(m, Equal) and m.expected is not None and not isinstance(m.expected, list):
        return json_value(m.expected, m)
    return write_form(m)


# -- responses ----------------------------------------------------------------------------


def _response(reply: Reply, faults: tuple[Fault, ...]) -> dict[str, Any]:
    response: dict[str, Any] = {"status": reply.status_code}
    if reply.reason != _reason(reply.status_code):
        response["reason"] = reply.reason
    headers = list(reply.headers)
    content = _content(reply, headers)
    if headers:
        response["header"] = _headers(headers)
    response.update(content)
    if reply.head_delay:
        response["delay"] = format_seconds(reply.head_delay)
    if faults:
        response["pipe"] = [write_form(f) for f in faults]
    return response


def _kind(kind: ReplyKind, faults: tuple[Fault, ...]) -> dict[str, Any]:
    """``{<file_key>: {arg: value, ...}}``, the file form of a reply kind."""
    response: dict[str, Any] = {kind.file_key: _kind_args(kind)}
    if faults:
        response["pipe"] = [write_form(f) for f in faults]
    return response


def _standalone(kind: ReplyKind, name: str | None) -> Any:
    """A standalone kind's top-level value: its first argument alone (``conversation:
    [turns]``) when that is all, else its arguments; the mock's ``name`` is the kind's
    when they are the same (the reader hands it down), else the kind's is written."""
    args = _kind_args(kind)
    if args.get("name") == name:
        args.pop("name", None)
    elif name is not None:
        args["name"] = args.get("name")
    if len(args) == 1:
        return next(iter(args.values()))
    return args


def _kind_args(kind: ReplyKind) -> dict[str, Any]:
    """A kind's ``to_args()``, checked to be JSON values."""
    args = kind.to_args()
    for value in args.values():
        json_value(value, kind)
    return args


def _headers(headers: list[tuple[str, str]]) -> dict[str, Any]:
    grouped: dict[str, list[str]] = {}
    for name, value in headers:
        grouped.setdefault(name, []).append(value)
    return FlowMap(
        {name: values[0] if len(values) == 1 else values for name, values in grouped.items()}
    )


def _content(reply: Reply, headers: list[tuple[str, str]]) -> dict[str, Any]:
    """``event_stream``, ``json`` or ``body``; a JSON body drops the header ``.json`` adds;
    a composing reply kind's key for its replies (``recording``)."""
    if isinstance(reply, ReplyKind):
        return {reply.file_key: _kind_args(reply)}
    if reply.stream is not None:
        return {"event_stream": _event_stream(reply.stream)}
    if not reply.content:
        return {}
    try:
        text = reply.content.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{reply!r} has no file form: its body is not UTF-8 text") from None
    if headers and headers[-1] == ("Content-Type", "application/json"):
        try:
            value = json.loads(text)
        except ValueError:
            value = None
        if value is not None and dumps_compact(value) == text:
            headers.pop()
            return {"json": value}
    return {"body": text}


def _event_stream(stream: EventStream) -> dict[str, Any]:
    out: dict[str, Any] = {}
    options = inspect.signature(Reply.event_stream).parameters
    for name in ("event_delay", "first_event_delay"):
        if getattr(stream, name):
            out[name] = format_seconds(getattr(stream, name))
    if stream.repeat != 1:
        out["repeat"] = True if stream.repeat is None else stream.repeat
    for name in ("line_ending", "space", "resumable", "retry"):
        if getattr(stream, name) != options[name].default:
            out[name] = getattr(stream, name)
    out["events"] = [_event(e) for e in stream.events]
    return out


def _event(event: Event) -> FlowMap:
    out = FlowMap()
    for name in ("event", "id", "retry", "comment"):
        if getattr(event, name) is not None:
            out[name] = getattr(event, name)
    if event.delay is not None:
        out["delay"] = format_seconds(event.delay)
    if event.data is not None:
        out["data"] = event.data
    return out


set_writer(dump)
