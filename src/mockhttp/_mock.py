"""Mocks: a request pattern, a reply and faults; and the handle that records its calls."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from ._errors import ConfigError
from ._match import MISSING, JSONPath, Matcher, as_matcher
from ._plan import Fault
from ._reply import Reply, ok
from ._request import Request

__all__ = [
    "Criterion",
    "Mismatch",
    "Mock",
    "delete",
    "get",
    "head",
    "options",
    "patch",
    "post",
    "put",
    "request",
]

_TEMPLATE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_METHOD = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")

Field = Literal["query", "header", "body"]


@dataclass(frozen=True, slots=True)
class Mismatch:
    """One field of a request that a mock did not accept.

    ``reason`` says it in words; ``expected`` is the matcher (or value) as text, ``actual``
    the request's value (None when absent), ``path`` the JSONPath a body matcher queried.
    """

    field: str
    reason: str
    weight: int = 1
    expected: str = ""
    actual: Any = None
    path: str | None = None

    def __str__(self) -> str:
        return f"{self.field}: {self.reason}"


@dataclass(frozen=True, slots=True)
class Criterion:
    """A matcher on one request field: ``query`` and ``header`` have a name, ``body`` not."""

    field: Field
    name: str | None
    matcher: Matcher

    def value(self, request: Request) -> Any:
        if self.field == "body":
            return request
        assert self.name is not None
        if self.field == "header":
            return request.headers.get(self.name, MISSING)
        found = request.query_value(self.name)
        return MISSING if found is None else found

    def label(self) -> str:
        return "body" if self.name is None else f"{self.field} {self.name!r}"


def _compile_path(path: str) -> re.Pattern[str] | None:
    if not _TEMPLATE.search(path):
        return None
    pattern = ""
    last = 0
    for found in _TEMPLATE.finditer(path):
        pattern += re.escape(path[last : found.start()]) + f"(?P<{found.group(1)}>[^/]+)"
        last = found.end()
    try:
        return re.compile("^" + pattern + re.escape(path[last:]) + "$")
    except re.error as exc:
        raise ConfigError(f"path={path!r} is not a valid template: {exc}") from None


@dataclass(frozen=True)
class Mock:
    """A mock: which requests it answers, and how.

    Build one with :func:`get`, :func:`post`, ... or :func:`request`; each method returns a
    new ``Mock``, so a base mock can be shared.  Register it with ``server.mock(mock)``.

    Attributes:
        method: the method to match (None: any).
        path: exact text, a ``{name}`` template, or a matcher (e.g. ``match.regex``).
        criteria: matchers on query parameters, headers and the body.
        response: the reply (default: ``200`` with an empty body).
        faults: faults applied to the reply, in order.
        name: a name for messages and the journal.
        priority: higher wins; equal priorities go to the most recently added mock.
        times: how many requests the mock answers (None: unlimited).
    """

    method: str | None
    path: str | Matcher | None
    criteria: tuple[Criterion, ...] = ()
    response: Reply = field(default_factory=ok)
    faults: tuple[Fault, ...] = ()
    name: str | None = None
    priority: int = 0
    times: int | None = None
    handler: Callable[[Request], Reply] | None = None

    def __post_init__(self) -> None:
        if self.method is not None and (
            not isinstance(self.method, str) or not _METHOD.match(self.method)
        ):
            raise ConfigError(f"method={self.method!r} must be an HTTP method such as 'POST'")
        if self.method is not None:
            object.__setattr__(self, "method", self.method.upper())
        if isinstance(self.path, str):
            if not self.path.startswith("/") and self.path != "*":
                raise ConfigError(f"path={self.path!r} must start with '/'")
            object.__setattr__(self, "_template", _compile_path(self.path))
        elif self.path is not None and not isinstance(self.path, Matcher):
            raise ConfigError(f"path={self.path!r} must be text or a matcher such as match.regex")
        if isinstance(self.priority, bool) or not isinstance(self.priority, int):
            raise ConfigError(f"priority={self.priority!r} must be an int")
        if self.times is not None and (
            isinstance(self.times, bool) or not isinstance(self.times, int) or self.times < 1
        ):
            raise ConfigError(f"times={self.times!r} must be a positive int or None")
        if self.name is not None and not isinstance(self.name, str):
            raise ConfigError(f"name={self.name!r} must be text")
        if not isinstance(self.response, Reply):
            raise ConfigError(f"reply={self.response!r} must be a Reply (mockhttp.ok(), ...)")

    # -- building ---------------------------------------------------------------------

    def header(self, name: str, matcher: Matcher | Any = None) -> Mock:
        """Match a header (name in any case); a plain value means ``equal(value)``.

        Without ``matcher`` the header must be present.
        """
        return self._add("header", _name("header", name).lower(), matcher)

    def query(self, name: str, matcher: Matcher | Any = None) -> Mock:
        """Match a query parameter (its first value); a plain value means ``equal``."""
        return self._add("query", _name("query", name), matcher)

    def body(self, matcher: Matcher | Any) -> Mock:
        """Match the body, e.g. ``match.json_path("$.stream", match.equal(True))``."""
        return self._add("body", None, matcher)

    def reply(self, response: Reply) -> Mock:
        """Answer with ``response``."""
        if not isinstance(response, Reply):
            raise ConfigError(f"reply={response!r} must be a Reply (mockhttp.ok(), ...)")
        return dataclasses.replace(self, response=response, handler=None)

    def respond_with(self, handler: Callable[[Request], Reply]) -> Mock:
        """Answer with the reply ``handler(request)`` builds, per request (Python only).

        The handler runs on the server thread; if it raises, or returns something other
        than a ``Reply``, the client gets a 500 and ``server.check()`` re-raises the error.
        A mock with a handler has no file form.
        """
        if not callable(handler):
            raise ConfigError(f"respond_with() handler={handler!r} must be callable")
        return dataclasses.replace(self, handler=handler)

    def reply_for(self, request: Request) -> Reply:
        """The reply to ``request``: the handler's, or the fixed one.

        Raises:
            ConfigError: the handler returned something other than a ``Reply``.
        """
        if self.handler is None:
            return self.response
        reply = self.handler(request)
        if not isinstance(reply, Reply):
            raise ConfigError(
                f"the handler of mock {self.describe()} returned {reply!r}, not a Reply"
            )
        return reply

    def pipe(self, *faults: Fault) -> Mock:
        """Apply ``faults`` to the reply, in order (see :mod:`mockhttp.fault`)."""
        for f in faults:
            if not (hasattr(f, "body") and hasattr(f, "wire")):
                raise ConfigError(f"pipe() argument {f!r} must be a fault from mockhttp.fault")
        return dataclasses.replace(self, faults=(*self.faults, *faults))

    def to_yaml(self) -> str:
        """This mock as a mock file (YAML); ``mockhttp.loads`` reads it back unchanged.

        Raises:
            ConfigError: the mock has no file form (a binary body, a bytes matcher value).
        """
        if _WRITER is None:  # pragma: no cover (importing mockhttp loads the writer)
            raise ConfigError("the mock file writer is not loaded: import mockhttp first")
        return _WRITER(self)

    def _add(self, field: Field, name: str | None, matcher: Matcher | Any) -> Mock:
        from ._match import exists

        if field != "body":
            matcher = _as_text(matcher)
        m = exists() if matcher is None else as_matcher(matcher, f"{field} matcher")
        return dataclasses.replace(self, criteria=(*self.criteria, Criterion(field, name, m)))

    # -- matching ---------------------------------------------------------------------

    def path_params(self, request: Request) -> dict[str, str] | None:
        """The ``{name}`` values of a template path (None when the path does not match)."""
        if self.path is None or self.path == "*":
            return {}
        if isinstance(self.path, Matcher):
            return {} if self.path.matches(request.path) else None
        template: re.Pattern[str] | None = self.__dict__["_template"]
        if template is None:
            return {} if request.path == self.path else None
        found = template.match(request.path)
        return None if found is None else found.groupdict()

    def differences(self, request: Request) -> list[Mismatch]:
        """Every field of ``request`` this mock does not accept (empty: it matches)."""
        found: list[Mismatch] = []
        method = request.method
        if self.method is not None and self.method not in (method, _AS_GET.get(method)):
            reason = f"got {method!r}, expected {self.method!r}"
            found.append(Mismatch("method", reason, 2, self.method, method))
        if self.path_params(request) is None:
            reason = f"got {request.path!r}, expected {self._path_text()}"
            found.append(Mismatch("path", reason, 3, self._path_text(), request.path))
        for c in self.criteria:
            value = c.value(request)
            why = c.matcher.explain(value)
            if why is not None:
                found.append(_mismatch(c, value, why))
        return found

    def matches(self, request: Request, method: str | None = None) -> bool:
        """True when the mock accepts ``request`` (taken as a ``method`` request if given)."""
        if self.method is not None and (method or request.method) != self.method:
            return False
        if self.path_params(request) is None:
            return False
        for c in self.criteria:  # noqa: SIM110 (no genexpr: this runs for every request)
            if not c.matcher.matches(c.value(request)):
                return False
        return True

    def _path_text(self) -> str:
        return repr(self.path)

    def describe(self) -> str:
        """``'name'`` or ``METHOD /path``."""
        if self.name:
            return repr(self.name)
        if self.path is None:
            path = "*"
        else:
            path = self.path if isinstance(self.path, str) else repr(self.path)
        return f"{self.method or '*'} {path}"


_WRITER: Callable[[Mock], str] | None = None


def set_writer(writer: Callable[[Mock], str]) -> None:
    """Install the mock file writer (``_mockfile_dump.dump`` does it when imported), so
    ``Mock.to_yaml`` works without this module importing the file layer."""
    global _WRITER
    _WRITER = writer


_AS_GET = {"HEAD": "GET"}  # a GET mock answers HEAD when no HEAD mock does (RFC 9110 §9.3.2)


def _as_text(value: Any) -> Any:
    """Header and query values are text: a plain number or bool means its text form
    (``2`` → ``"2"``, ``True`` → ``"true"``), as a YAML file would mean it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return value


def _mismatch(criterion: Criterion, value: Any, reason: str) -> Mismatch:
    """A criterion's miss, with the value it saw (for a JSONPath: what the path selected)."""
    matcher = criterion.matcher
    path = matcher.path if isinstance(matcher, JSONPath) else None
    if isinstance(value, Request):
        value = matcher.select(value) if isinstance(matcher, JSONPath) else value.text
    actual = None if value is MISSING else value
    return Mismatch(criterion.label(), reason, 1, repr(matcher), actual, path)


def _name(field: str, name: str) -> str:
    if not isinstance(name, str) or not name:
        raise ConfigError(f"{field} name={name!r} must be non-empty text")
    return name


def request(
    method: str | None,
    path: str | Matcher | None = None,
    *,
    name: str | None = None,
    priority: int = 0,
    times: int | None = None,
) -> Mock:
    """A mock for ``method`` (None: any) and ``path`` (None: any).

    ``path`` is exact text (``"/v1/models"``), a template (``"/v1/models/{id}"``) or a
    matcher (``match.regex(r"^/v1/")``).
    """
    return Mock(method, path, name=name, priority=priority, times=times)


class _MethodMock(Protocol):
    def __call__(
        self,
        path: str | Matcher | None = None,
        *,
        name: str | None = None,
        priority: int = 0,
        times: int | None = None,
    ) -> Mock: ...


def _method(verb: str) -> _MethodMock:
    def build(
        path: str | Matcher | None = None,
        *,
        name: str | None = None,
        priority: int = 0,
        times: int | None = None,
    ) -> Mock:
        return Mock(verb, path, name=name, priority=priority, times=times)

    build.__name__ = verb.lower()
    build.__qualname__ = verb.lower()
    build.__doc__ = f"A mock for ``{verb}`` requests to ``path``; see :func:`request`."
    return build


get = _method("GET")
post = _method("POST")
put = _method("PUT")
patch = _method("PATCH")
delete = _method("DELETE")
head = _method("HEAD")
options = _method("OPTIONS")
