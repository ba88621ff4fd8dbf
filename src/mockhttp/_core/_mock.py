"""Mocks: a request pattern, a reply and faults; and the handle that records its calls."""

from __future__ import annotations

import dataclasses
import difflib
import functools
import inspect
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from ._errors import ConfigError
from ._kept import Kept, KeptKind, Scoped
from ._match import MISSING, JSONPath, Matcher, as_matcher, cut
from ._plan import Fault
from ._registry import ReplyKind
from ._reply import Reply, ok
from ._request import Request

__all__ = [
    "EXHAUSTED",
    "STARTED",
    "Criterion",
    "Exhausted",
    "Mismatch",
    "Mock",
    "Scenario",
    "as_mock",
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
Exhausted = Literal["repeat", "unmatched", "error"]
EXHAUSTED: tuple[Exhausted, ...] = ("repeat", "unmatched", "error")
STARTED = "Started"  # the state every scenario is in at first (and after a reset)


@dataclass(frozen=True, slots=True)
class Scenario:
    """A mock's place in a named scenario (WireMock's scenarios): it answers only while
    the scenario is in ``state`` (None: in any state), then moves it to ``next_state``."""

    name: str
    state: str | None = None
    next_state: str | None = None


@dataclass(frozen=True, slots=True)
class Mismatch:
    """One field of a request that a mock did not accept.

    ``reason`` says it in words; ``expected`` is the matcher (or value) as text, ``actual``
    the request's value (None when absent), ``path`` the JSONPath a body matcher queried.
    """

    field: str
    reason: str
    weight: float = 1.0
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
        name = self.name
        found = [v for k, v in request.query if k == name]
        if not found:
            return MISSING
        return found[0] if len(found) == 1 else found  # ?tag=a&tag=b: every value

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
        method: the method to match (None: any; see ``method_matcher``).
        path: exact text, a ``{name}`` template, or a matcher (e.g. ``match.regex``).
        criteria: matchers on query parameters, headers and the body.
        response: the fixed reply (default: ``200`` with an empty body); None for a mock
            that answers with a reply kind, whose reply is built per request.
        kind: the reply kind the mock answers with (``mock.reply(openai_chat("Hi"))``),
            or None.
        handler: the Python callable the mock answers with (``respond_with``), or None.
        faults: faults applied to the reply, in order.
        name: a name for messages and the journal.
        priority: higher wins; equal priorities go to the most recently added mock.
        method_matcher: a matcher of the method instead (``match.any_of("GET", "POST")``
            given as the method; the method is then None).
        answers: how many requests the mock answers (None: unlimited): ``times=`` of
            :func:`get`, ``post`` ..., or ``.times(n)``.
    """

    method: str | None
    path: str | Matcher | None
    criteria: tuple[Criterion, ...] = ()
    response: Reply | None = field(default_factory=ok)
    faults: tuple[Fault, ...] = ()
    name: str | None = None
    priority: int = 0
    answers: int | None = None
    handler: Callable[..., Reply | ReplyKind] | None = None
    kind: ReplyKind | None = None
    sequence: tuple[tuple[Reply | ReplyKind, tuple[Fault, ...]], ...] = ()
    exhausted: Exhausted = "repeat"
    scenario_of: Scenario | None = None
    method_matcher: Matcher | None = None

    def __post_init__(self) -> None:
        if self.method is not None and (
            not isinstance(self.method, str) or not _METHOD.match(self.method)
        ):
            raise ConfigError(
                f"method={self.method!r} must be an HTTP method such as 'POST', or a matcher "
                "of methods such as match.any_of('GET', 'POST')"
            )
        if self.method is not None:
            object.__setattr__(self, "method", self.method.upper())
        if isinstance(self.path, str):
            if not self.path.startswith("/") and self.path != "*":
                raise ConfigError(f"path={self.path!r} must start with '/'")
            if "?" in self.path:
                path, _, query = self.path.partition("?")
                raise ConfigError(
                    f"path={self.path!r} has a query, which a path never matches (the query "
                    f"is matched apart): use {path!r} and .query(name, value) for each "
                    f"parameter of {query!r}"
                )
            object.__setattr__(self, "_template", _compile_path(self.path))
        elif self.path is not None and not isinstance(self.path, Matcher):
            raise ConfigError(f"path={self.path!r} must be text or a matcher such as match.regex")
        if isinstance(self.priority, bool) or not isinstance(self.priority, int):
            raise ConfigError(f"priority={self.priority!r} must be an int")
        if self.answers is not None and (
            isinstance(self.answers, bool) or not isinstance(self.answers, int) or self.answers < 1
        ):
            raise ConfigError(f"times={self.answers!r} must be a positive int or None")
        if self.name is not None and not isinstance(self.name, str):
            raise ConfigError(f"name={self.name!r} must be text")
        if self.kind is not None and not isinstance(self.kind, ReplyKind):
            raise ConfigError(f"kind={self.kind!r} must be a ReplyKind")
        if (self.response is None) != (self.kind is not None):
            raise ConfigError("a mock has a fixed response or a reply kind: one of them")
        if self.response is not None and not isinstance(self.response, Reply):
            raise ConfigError(f"reply={self.response!r} must be a Reply (mockhttp.ok(), ...)")

    # -- building ---------------------------------------------------------------------

    def header(self, name: str, matcher: Matcher | Any = None) -> Mock:
        """Match a header (name in any case); a plain value means ``equal(value)``.

        Without ``matcher`` the header must be present.
        """
        return self._add("header", _name("header", name).lower(), matcher)

    def query(self, name: str, matcher: Matcher | Any = None) -> Mock:
        """Match a query parameter; a plain value means ``equal``.

        A parameter given once is its text; given several times (``?tag=a&tag=b``) it is
        the list of its values, so ``match.contains("b")`` or ``equal(["a", "b"])`` apply.
        """
        return self._add("query", _name("query", name), matcher)

    def body(self, matcher: Matcher | Any) -> Mock:
        """Match the body, e.g. ``match.json_path("$.stream", match.equal(True))``."""
        return self._add("body", None, matcher)

    def times(self, n: int | None) -> Mock:
        """Answer at most ``n`` requests (None: any number), the method form of
        ``times=``: ``mockhttp.post(path).reply(...).times(1)``; past it the mock is
        exhausted and another mock (or the 404) answers."""
        return dataclasses.replace(self, answers=n)

    def reply(self, response: Reply | ReplyKind) -> Mock:
        """Answer with ``response``: a fixed reply, or a reply kind built per request
        (such as ``mockhttp.llm.openai_chat("Hi")``), which keeps a file form.

        A kind goes to ``mock.kind`` and leaves ``mock.response`` None (there is no fixed
        reply); a composing kind (a ``Reply`` such as a recording) is a fixed reply.
        """
        if isinstance(response, Reply):
            return dataclasses.replace(
                self, response=response, kind=None, handler=None, sequence=()
            )
        if not isinstance(response, ReplyKind):
            raise ConfigError(f"reply={response!r} must be a Reply (mockhttp.ok(), ...)")
        return dataclasses.replace(self, response=None, kind=response, handler=None, sequence=())

    def replies(
        self,
        *replies: Reply | ReplyKind | tuple[Reply | ReplyKind, Sequence[Fault]],
        exhausted: Exhausted = "repeat",
    ) -> Mock:
        """Answer the first request with the first reply, the second with the second, ...

        A reply is a fixed one or a reply kind built for its request (such as
        ``llm.openai_chat(tool_calls=[...])`` then ``llm.openai_chat("Done")``).  It may
        come with its own faults: ``(reply, [fault.close_after_events(2)])``.  When
        every reply has been sent, ``exhausted`` says what follows: ``"repeat"`` (the last
        reply again), ``"unmatched"`` (the mock stops matching; other mocks or a 404
        answer) or ``"error"`` (a 500, and ``server.check()`` fails).
        """
        if not replies:
            raise ConfigError("replies() needs at least one reply")
        if exhausted not in EXHAUSTED:
            raise ConfigError(f"exhausted={exhausted!r} must be one of {', '.join(EXHAUSTED)}")
        sequence = []
        for i, item in enumerate(replies):
            reply, faults = item if isinstance(item, tuple) else (item, ())
            if not isinstance(reply, Reply | ReplyKind):
                raise ConfigError(
                    f"replies() argument {i}={item!r} must be a Reply, a reply kind "
                    "(such as llm.openai_chat(...)) or (reply, [faults])"
                )
            sequence.append((reply, tuple(self._checked_faults(faults))))
        return dataclasses.replace(
            self,
            sequence=tuple(sequence),
            exhausted=exhausted,
            kind=None,
            response=self._fixed_response(),
        )

    def scenario(self, name: str, state: str | None = None, next_state: str | None = None) -> Mock:
        """Take part in scenario ``name``: answer only while it is in ``state`` (every
        scenario starts in ``"Started"``; None: in any state), then move it to
        ``next_state`` (None: stay).  ``server.reset()`` puts every scenario back to
        ``"Started"``.
        """
        for arg, value in (("name", name), ("state", state), ("next_state", next_state)):
            if not (isinstance(value, str) and value) and not (arg != "name" and value is None):
                raise ConfigError(f"scenario() {arg}={value!r} must be non-empty text")
        return dataclasses.replace(self, scenario_of=Scenario(name, state, next_state))

    def respond_with(self, handler: Callable[..., Reply | ReplyKind]) -> Mock:
        """Answer with the reply ``handler(request)`` builds, per request (Python only).

        The handler returns a ``Reply`` or a reply kind (such as ``llm.openai_chat("Hi")``,
        built for the same request).  It runs on the server thread; if it raises, or
        returns something else, the client gets a 500 and ``server.check()`` re-raises.
        A mock with a handler has no file form (a :class:`ReplyKind` has one: pass it to
        :meth:`reply`).
        """
        if not callable(handler):
            raise ConfigError(f"respond_with() handler={handler!r} must be callable")
        return dataclasses.replace(
            self, handler=handler, sequence=(), kind=None, response=self._fixed_response()
        )

    def reply_for(self, request: Request, index: int = 0, kept: Kept | None = None) -> Reply:
        """The reply to ``request``, the mock's ``index``-th call (0 for the first): the
        kind's, the handler's, the sequence's, or the fixed one.  A kind that keeps state
        (``_kept.KeptKind``) reads and changes it in ``kept``, the server's.

        The handler gets the path's template values as keyword arguments when it takes
        them: ``def handler(request, id)`` for the path ``/v1/files/{id}``.

        Raises:
            ConfigError: the handler returned something other than a ``Reply``.
        """
        kind = self.kind
        if kind is not None:
            if kept is not None and isinstance(kind, KeptKind):
                return kind.build_kept(request, Scoped(kept, kind.state_key))
            return kind.build(request)
        if self.handler is not None:
            params = self.path_params(request) or {}
            wanted = _handler_params(self.handler)
            kwargs = params if wanted is None else {k: params[k] for k in wanted if k in params}
            reply = self.handler(request, **kwargs)
            if isinstance(reply, ReplyKind) and not isinstance(reply, Reply):
                reply = reply.build(request)
            if not isinstance(reply, Reply):
                raise ConfigError(
                    f"the handler of mock {self.describe()} returned {reply!r}, "
                    "not a Reply nor a reply kind"
                )
            return reply
        if self.sequence:
            step = self.sequence[min(index, len(self.sequence) - 1)][0]
            return step if isinstance(step, Reply) else step.build(request)
        assert self.response is not None  # no kind: a fixed response
        return self.response

    def faults_for(self, index: int) -> tuple[Fault, ...]:
        """The faults of the ``index``-th call: its sequence reply's own, then the mock's."""
        if self.sequence:
            return (*self.sequence[min(index, len(self.sequence) - 1)][1], *self.faults)
        return self.faults

    @functools.cached_property
    def literal_path(self) -> str | None:
        """The one path the mock matches (a plain path, no ``{name}`` part), or None: a
        template, a matcher, or any path (read when the server indexes its mocks)."""
        path = self.path
        if isinstance(path, str) and path != "*" and self.__dict__["_template"] is None:
            return path
        return None

    @functools.cached_property
    def fixed(self) -> bool:
        """True when every reply is known up front (no kind, no handler, no kind in the
        sequence): framed once, replayed (read on every request: computed once)."""
        return (
            self.handler is None
            and self.kind is None
            and all(isinstance(r, Reply) for r, _ in self.sequence)
        )

    def pipe(self, *faults: Fault) -> Mock:
        """Apply ``faults`` to the reply, in order (see :mod:`mockhttp.fault`)."""
        return dataclasses.replace(self, faults=(*self.faults, *self._checked_faults(faults)))

    def _fixed_response(self) -> Reply:
        """The fixed response, ``ok()`` in place of a reply kind's None."""
        return ok() if self.response is None else self.response

    @staticmethod
    def _checked_faults(faults: Sequence[Fault]) -> list[Fault]:
        for f in faults:
            if not (hasattr(f, "body") and hasattr(f, "wire")):
                raise ConfigError(f"pipe() argument {f!r} must be a fault from mockhttp.fault")
        return list(faults)

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

    def differences(
        self, request: Request, states: Mapping[str, str] | None = None
    ) -> list[Mismatch]:
        """Every field of ``request`` this mock does not accept (empty: it matches);
        ``states`` are the scenarios' current states (see :meth:`scenario`)."""
        found: list[Mismatch] = []
        if not self.in_state(states or {}):
            assert self.scenario_of is not None
            now = (states or {}).get(self.scenario_of.name, STARTED)
            reason = (
                f"scenario {self.scenario_of.name!r} is in state {now!r}, "
                f"expected {self.scenario_of.state!r}"
            )
            found.append(Mismatch("scenario", reason, 1, str(self.scenario_of.state), now))
        method = request.method
        if self.method is not None and self.method not in (method, _AS_GET.get(method)):
            reason = f"got {cut(method)}, expected {self.method!r}"
            found.append(Mismatch("method", reason, 2, self.method, method))
        taken = self.method_matcher
        if taken is not None and not any(taken.matches(m) for m in (method, _AS_GET.get(method))):
            reason = taken.explain(method) or f"got {cut(method)}"
            found.append(Mismatch("method", reason, 2, repr(taken), method))
        if self.path_params(request) is None:
            reason = f"got {cut(request.path)}, expected {self._path_text()}"
            found.append(
                Mismatch(
                    "path", reason, self._path_weight(request), self._path_text(), request.path
                )
            )
        for c in self.criteria:
            value = c.value(request)
            why = c.matcher.explain(value)
            if why is not None:
                found.append(_mismatch(c, value, why))
        return found

    def in_state(self, states: Mapping[str, str]) -> bool:
        """True when the mock's scenario (if any) is in the state it answers in."""
        sc = self.scenario_of
        return sc is None or sc.state is None or states.get(sc.name, STARTED) == sc.state

    def matches(self, request: Request, method: str | None = None) -> bool:
        """True when the mock accepts ``request`` (taken as a ``method`` request if given)."""
        if self.method is not None and (method or request.method) != self.method:
            return False
        if self.method_matcher is not None and not self.method_matcher.matches(
            method or request.method
        ):
            return False
        if self.path_params(request) is None:
            return False
        for c in self.criteria:  # noqa: SIM110 (no genexpr: this runs for every request)
            if not c.matcher.matches(c.value(request)):
                return False
        return True

    def _path_text(self) -> str:
        return repr(self.path)

    def _path_weight(self, request: Request) -> float:
        """How far the request's path is from this mock's: 1 (nearly the same, such as a
        trailing slash) to 3 (nothing in common), so near misses rank first."""
        if not isinstance(self.path, str):
            return 3.0
        given, wanted = request.path[:300], self.path[:300]  # bounded work for a long path
        similar = difflib.SequenceMatcher(None, given, wanted, autojunk=False).ratio()
        return 1.0 + 2.0 * (1.0 - similar)

    def describe(self) -> str:
        """``'name'`` or ``METHOD /path``."""
        if self.name:
            return repr(self.name)
        if self.path is None:
            path = "*"
        else:
            path = self.path if isinstance(self.path, str) else repr(self.path)
        method = self.method or (repr(self.method_matcher) if self.method_matcher else "*")
        return f"{method} {path}"


def as_mock(item: Any) -> Any:
    """``item``, or the mock of a standalone reply kind (``server.mock(llm.conversation(
    ...))``: the kind's ``own_mock()``); anything else is left for the caller to refuse.

    Raises:
        ConfigError: ``item`` is a reply kind with no mock of its own.
    """
    if not isinstance(item, ReplyKind):
        return item
    own = item.own_mock()
    if own is None:
        raise ConfigError(
            f"mock={item.describe()} is a reply, not a mock: register mockhttp.post(path).reply(it)"
        )
    return own


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


def _handler_params(handler: Callable[..., Reply | ReplyKind]) -> tuple[str, ...] | None:
    """The keyword names a handler takes after the request (None: any, ``**kwargs``)."""
    try:
        sig = inspect.signature(handler)
    except (TypeError, ValueError):
        return ()
    names = []
    for i, p in enumerate(sig.parameters.values()):
        if p.kind is inspect.Parameter.VAR_KEYWORD:
            return None
        if i and p.kind in (
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            inspect.Parameter.KEYWORD_ONLY,
        ):
            names.append(p.name)
    return tuple(names)


def _mismatch(criterion: Criterion, value: Any, reason: str) -> Mismatch:
    """A criterion's miss, with the value it saw (for a JSONPath: what the path selected)."""
    matcher = criterion.matcher
    path = matcher.path if isinstance(matcher, JSONPath) else None
    if isinstance(value, Request):
        value = matcher.select(value)
        value = value.text if isinstance(value, Request) else value
    actual = None if value is MISSING else value
    return Mismatch(criterion.label(), reason, 1, repr(matcher), actual, path)


def _name(field: str, name: str) -> str:
    if not isinstance(name, str) or not name:
        raise ConfigError(f"{field} name={name!r} must be non-empty text")
    return name


def request(
    method: str | Matcher | None,
    path: str | Matcher | None = None,
    *,
    name: str | None = None,
    priority: int = 0,
    times: int | None = None,
) -> Mock:
    """A mock for ``method`` (None: any) and ``path`` (None: any).

    ``method`` is a method (``"POST"``) or a matcher of the upper-case method
    (``match.any_of("GET", "POST")``; ``method: [any_of, GET, POST]`` in files).
    ``path`` is exact text (``"/v1/models"``), a template (``"/v1/models/{id}"``) or a
    matcher (``match.regex(r"^/v1/")``).
    """
    if isinstance(method, Matcher):  # [any_of, GET, POST]: methods, upper case
        return Mock(None, path, name=name, priority=priority, answers=times, method_matcher=method)
    return Mock(method, path, name=name, priority=priority, answers=times)


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
        return Mock(verb, path, name=name, priority=priority, answers=times)

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
