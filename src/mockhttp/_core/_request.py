"""The request model: what the server received, frozen."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlsplit

__all__ = ["Headers", "Request"]

_MISSING = object()


class Headers(Mapping[str, str]):
    """Request headers: names case-insensitive, order and repeats kept.

    ``headers["content-type"]`` gives the first value; ``get_all(name)`` every value.
    """

    __slots__ = ("_items",)

    def __init__(self, items: tuple[tuple[str, str], ...] = ()) -> None:
        self._items = items

    @property
    def items_list(self) -> tuple[tuple[str, str], ...]:
        """Every (name, value) pair as received, names in their original case."""
        return self._items

    def get_all(self, name: str) -> list[str]:
        """Every value of ``name`` (any case), in order."""
        lower = name.lower()
        return [v for k, v in self._items if k.lower() == lower]

    def __getitem__(self, name: str) -> str:
        lower = name.lower()
        for k, v in self._items:
            if k.lower() == lower:
                return v
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        seen: set[str] = set()
        for k, _ in self._items:
            if k.lower() not in seen:
                seen.add(k.lower())
                yield k

    def __len__(self) -> int:
        return len({k.lower() for k, _ in self._items})

    def __repr__(self) -> str:
        return f"Headers({list(self._items)!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Headers):
            return self._items == other._items
        return super().__eq__(other)

    def __hash__(self) -> int:
        return hash(self._items)


_NO_HEADERS = Headers()  # immutable: one empty instance serves every default


@dataclass(frozen=True, init=False)
class Request:
    """A request as the server received it.

    Attributes:
        method: upper-case method, e.g. ``"POST"``.
        target: the request target as sent (path and query).
        path: the path, percent-encoding kept.
        query: the query parameters, in order (repeats kept).
        headers: case-insensitive :class:`Headers`.
        body: the body bytes (de-chunked).
        http_version: ``"1.1"`` or ``"1.0"``.
        trailers: the trailer fields of a chunked body (kept apart from ``headers``:
            matchers never see them).
    """

    method: str
    target: str
    headers: Headers = field(default_factory=Headers)
    body: bytes = b""
    http_version: str = "1.1"
    trailers: Headers = field(default_factory=Headers)  # (the defaults: see __init__)
    path: str = field(init=False)
    query: tuple[tuple[str, str], ...] = field(init=False)

    def __init__(
        self,
        method: str,
        target: str,
        headers: Headers = _NO_HEADERS,
        body: bytes = b"",
        http_version: str = "1.1",
        trailers: Headers = _NO_HEADERS,
    ) -> None:
        # Written by hand, into __dict__: the generated __init__ of a frozen dataclass
        # (object.__setattr__ per field, default factories) cost 3 us of every request.
        values = self.__dict__
        values["method"] = method
        values["target"] = target
        values["headers"] = headers
        values["body"] = body
        values["http_version"] = http_version
        values["trailers"] = trailers
        if target.startswith("//"):
            # origin-form (RFC 9112 §3.2.1) is a path, never a host: urlsplit would read
            # "//evil.example/e" as host and path "/e"
            path, _, query = target.partition("#")[0].partition("?")
        else:  # urlsplit caches: most targets repeat
            parts = urlsplit(target)
            path, query = parts.path, parts.query
        values["path"] = path or "/"
        # most requests have no query: skip parse_qsl (1 us)
        values["query"] = tuple(parse_qsl(query, keep_blank_values=True)) if query else ()

    @property
    def query_dict(self) -> dict[str, list[str]]:
        """The query as a dict of lists."""
        result: dict[str, list[str]] = {}
        for k, v in self.query:
            result.setdefault(k, []).append(v)
        return result

    @property
    def test(self) -> str | None:
        """The id of the test the request named (per-test isolation: its header, or the
        ``/__test/ID/`` prefix stripped from ``target``), as the server routed it; None:
        none, or the request was not routed by a server."""
        found: str | None = self.__dict__.get("_test")
        return found

    def query_value(self, name: str) -> str | None:
        """The first value of query parameter ``name``, or None."""
        for k, v in self.query:
            if k == name:
                return v
        return None

    @property
    def text(self) -> str:
        """The body decoded as UTF-8 (invalid bytes replaced)."""
        return self.body.decode("utf-8", "replace")

    def json(self) -> Any:
        """The body parsed as JSON.

        Raises:
            ValueError: the body is not JSON.
        """
        cached = self.__dict__.get("_json", _MISSING)
        if cached is _MISSING:
            cached = _parse_json(self.body)
            if self.__dict__.get("_keep_json"):
                self.__dict__["_json"] = cached
        if isinstance(cached, Exception):
            raise ValueError(f"body is not JSON: {cached}") from None
        return cached

    def _matching(self, on: bool) -> bool:
        """While the server matches the request, parse its JSON once for every matcher;
        afterwards the parsed tree is dropped (the journal keeps bytes, not trees).
        Returns whether a parsed tree was dropped."""
        if on:
            self.__dict__["_keep_json"] = True
            return False
        self.__dict__.pop("_keep_json", None)
        return self.__dict__.pop("_json", _MISSING) is not _MISSING

    def summary(self) -> str:
        """One line: method, target and a short body."""
        body = self.text
        if len(body) > 200:
            body = body[:200] + "…"
        return f"{self.method} {self.target}" + (f" {body}" if body else "")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready description of the request."""
        return {
            "method": self.method,
            "path": self.path,
            "query": [list(pair) for pair in self.query],
            "headers": [list(pair) for pair in self.headers.items_list],
            "body": self.text,
        }


def _parse_json(body: bytes) -> Any:
    """The JSON value of ``body``, or the exception that says why it is not JSON."""
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        return exc
    except RecursionError:  # "[" * 10000: nested deeper than the parser recurses
        return ValueError("nested too deep to parse (thousands of levels)")
