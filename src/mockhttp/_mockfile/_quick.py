"""The common mock, built straight from its parsed value (a big admin POST of small mocks).

``_load`` reads a mock by walking its nodes (:class:`At`): every key and value is checked
against the schema with its place in the file, so an error names line, column and path.
That walk cost most of the reading of a small mock (issue 19: a 16 MiB POST of 100,000
of them).  :func:`quick` builds the mocks most files hold (a name, options, a method and
path, header and query values, a status, headers and a ``body`` or ``json`` reply) from
the plain value, with the same builder calls the walk makes, so the mock is the same.

Rule 1: anything else is None, and the caller reads that mock the long way: another key
or form (a matcher list, faults, a reply kind, ``replies``, ``scenario``), a value of an
unexpected type, or a builder's ``ConfigError`` (the long way then places the error).  So
a mock this builds is one the walk builds alike, and every error is the walk's.
"""

from __future__ import annotations

from typing import Any

from .._core import _mock
from .._core._errors import ConfigError
from .._core._mock import Mock
from .._core._reply import Reply, status

__all__ = ["is_json", "quick"]

_MOCK = frozenset(("name", "priority", "times", "request", "response"))
_REQUEST = frozenset(("method", "path", "header", "query"))
_RESPONSE = frozenset(("status", "header", "body", "json"))
_SCALARS = (str, int, float, bool, type(None))


def quick(value: Any) -> Mock | None:
    """The mock of a parsed mock (a mapping), or None when it is not the common kind (or
    does not build): read it the long way then."""
    if type(value) is not dict or not value.keys() <= _MOCK:
        return None
    request = value.get("request", {})
    if type(request) is not dict or not request.keys() <= _REQUEST:
        return None
    name = value.get("name")
    priority = value.get("priority", 0)
    times = value.get("times")
    method = request.get("method")
    path = request.get("path")
    if not (
        type(name) in (str, type(None))
        and type(priority) is int
        and type(times) in (int, type(None))
        and type(method) in (str, type(None))
        and type(path) in (str, type(None))
    ):
        return None
    if path is not None and "?" in path:
        return None  # (the long way says to write query:)
    try:
        mock = _mock.request(method, path, name=name, priority=priority, times=times)
        for field in request:  # in the file's order, as the walk reads them
            if field in ("header", "query"):
                added = _criteria(mock, field, request[field])
                if added is None:
                    return None
                mock = added
        if "response" in value:
            reply = _reply(value["response"])
            if reply is None:
                return None
            mock = mock.reply(reply)
    except ConfigError:
        return None
    return mock


def _criteria(mock: Mock, field: str, given: Any) -> Mock | None:
    """``header: {name: value}`` or ``query:``: plain values only (a list is a matcher)."""
    if type(given) is not dict:
        return None
    if field == "header" and len({k.lower() for k in given if type(k) is str}) < len(given):
        return None  # names that differ only in case (the walk refuses them)
    for key, value in given.items():
        if type(key) is not str or type(value) not in _SCALARS:
            return None
        mock = mock.header(key, value) if field == "header" else mock.query(key, value)
    return mock


def _reply(given: Any) -> Reply | None:
    if type(given) is not dict or not given.keys() <= _RESPONSE:
        return None
    if "body" in given and "json" in given:
        return None
    code = given.get("status", 200)
    if type(code) is not int:
        return None
    headers = given.get("header", {})
    if type(headers) is not dict:
        return None
    reply = status(code, None)
    for name, values in headers.items():
        if type(name) is not str:
            return None
        for one in values if type(values) is list else (values,):
            if type(one) not in (str, int):
                return None
            reply = reply.header(name, one)
    if "body" in given:
        return reply.body(given["body"]) if type(given["body"]) is str else None
    if "json" in given:
        return reply.json(given["json"]) if is_json(given["json"]) else None
    return reply


def is_json(value: Any) -> bool:
    """True when ``value`` is made of JSON values only (text keys; no date, set, bytes:
    what YAML may build and the walk refuses), walked without recursion."""
    todo = [value]
    while todo:
        item = todo.pop()
        kind = type(item)
        if kind is dict:
            if any(type(k) is not str for k in item):
                return False
            todo.extend(item.values())
        elif kind is list:
            todo.extend(item)
        elif kind not in _SCALARS:
            return False
    return True
