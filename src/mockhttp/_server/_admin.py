"""The admin API: set up and verify mocks over HTTP, for tests written in any language.

Every path under ``/__mockhttp/`` is reserved for it (mocks never see those requests, and
the journal does not record them).  Bodies are mock files (YAML or JSON, the same schema);
answers are JSON.

=======  ===============================  ==================================================
method   path                             what it does
=======  ===============================  ==================================================
GET      /__mockhttp/mocks                list the mocks, in the order they are tried
POST     /__mockhttp/mocks                add the mocks of a YAML or JSON body (201)
DELETE   /__mockhttp/mocks                remove every mock (the journal stays)
GET      /__mockhttp/mocks/{ref}          one mock, with its ``call_count``
DELETE   /__mockhttp/mocks/{ref}          remove one mock
GET      /__mockhttp/mocks/{ref}/calls    its ``call_count`` and its calls
POST     /__mockhttp/mocks/{ref}/push     push events to a ``pushed`` mock's streams
POST     /__mockhttp/mocks/{ref}/close    end its streams (``_push_admin.py``)
GET      /__mockhttp/mocks/{ref}/streams  its streams: what was pushed and delivered
GET      /__mockhttp/journal              every request (``?mock=ref``: one mock's;
                                          ``?mock=none``: the unmatched ones, with why)
GET      /__mockhttp/journal/events       the journal as it happens: a ``text/event-stream``
                                          (``_watch.py``; resumes by ``Last-Event-ID``)
DELETE   /__mockhttp/journal              forget every call (the mocks stay)
GET      /__mockhttp/ui/                  the dashboard (``_dashboard.py``: static files,
                                          served without the token; ``POST ui/session``
                                          sets the cookie its event stream sends)
POST     /__mockhttp/requests/count       count the calls matching the body's ``request``
                                          pattern (a mock file; no mock is added)
GET      /__mockhttp/scenarios            every scenario's state
PUT      /__mockhttp/scenarios/{name}/state
                                          move a scenario to the body's ``{"state": S}``
POST     /__mockhttp/scenarios/reset      put every scenario back in ``Started``
POST     /__mockhttp/reset                remove the mocks and clear the journal
GET      /__mockhttp/health               the readiness probe (answered by the server
                                          itself: also without the admin API, no token)
=======  ===============================  ==================================================

``ref`` is a mock's ``id`` (a number, given when it is added) or its ``name``; names are
unique (adding a mock under a name already taken is refused with 409).

Every endpoint takes a test (per-test isolation, ``docs/isolation.md``): ``?test=ID``, or
the server's test header (``x-mockhttp-test: ID``) on the admin request itself; it then
works on that test's mocks, journal, scenarios and reset alone (``server.test(ID)``:
``_tests.ScopedServer``), never reloading the files a shared reset loads again.

Rule 1: the handler runs on the server's admin worker thread (one, so admin requests take
effect in order), never on the loop thread: parsing a big body does not stall streams.  It
changes the registry through the server's locked methods.
Rule 2: it is not an open door (see docs/limits.md): a request must name this server in
``Host`` (an IP address, ``localhost``, the bound host or an allowed name: DNS rebinding),
must not come from another web page (``Origin``, ``Sec-Fetch-Site``), must carry the bearer
token when one is set, and writes must be JSON or YAML (``Content-Type``), which a page
cannot send cross-origin without asking first.  Secret headers are redacted in the journal,
in the requests and in the explanations of unmatched ones.
"""

from __future__ import annotations

import base64
import copy
import dataclasses
import hmac
import ipaddress
import json
import re
from collections.abc import Callable, Collection, Iterable, Sequence
from datetime import datetime, timezone
from typing import Any
from urllib.parse import unquote, urlsplit

from .._core._errors import ConfigError, MockfileError, UnknownNameError
from .._core._isolation import bad_test_id
from .._core._mock import Mock
from .._core._redact import SECRET_NAMES, Redactor, is_secret, masked
from .._core._reply import Reply, status
from .._core._request import Request
from .._core._sse import dumps_compact
from .._mockfile._load import MAX_NODES, loads, to_dict
from . import _dashboard, _push_admin
from ._heap import collector_paused, kept
from ._journal import Call
from ._tests import ScopedServer
from ._verify import ActiveMock
from ._watch import Watch, watch_of

__all__ = [
    "MAX_ADMIN_BODY",
    "PREFIX",
    "SECRET_HEADERS",
    "AdminAPI",
    "is_loopback",
    "is_secret",
    "redacted",
    "request_json",
    "test_header",
]

PREFIX = "/__mockhttp/"
MAX_ADMIN_BODY = 16 * 1024 * 1024  # a mock document sent to POST /__mockhttp/mocks
#: Names whose values the admin journal shows as ``[redacted]`` (the one rule of
#: ``_core._redact`` also takes names with a secret word: ``x-team-token``, ``x-api_key``).
SECRET_HEADERS = SECRET_NAMES
_JSON_TYPES = ("application/json",)
_YAML_TYPES = ("application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml")
_WRITES = ("POST", "PUT", "PATCH", "DELETE")

_Handler = Callable[["AdminAPI", Request, str], Reply]


def _json(code: int, value: Any) -> Reply:
    return status(code).json(value)


def _json_list(code: int, key: str, items: Iterable[Any]) -> Reply:
    """``{key: items}`` as ``_json`` sends it, encoded item by item: one C call over
    thousands of mocks held the interpreter from the loop for a third of a second (and
    ``items`` may be an iterator: each made when encoded, not all of them at once)."""
    body = ",".join(map(dumps_compact, items))
    return status(code).header("Content-Type", "application/json").body(f'{{"{key}":[{body}]}}')


def _error(code: int, kind: str, message: str, **more: Any) -> Reply:
    return _json(code, {"error": {"type": kind, "message": message, **more}})


class AdminAPI:
    """The admin endpoints of one server; set it as ``server.admin`` (``Server(admin=True)``).

    Args:
        server: the server whose mocks and journal it manages.
        on_reset: called after ``POST /__mockhttp/reset`` (the CLI loads its files again).
        token: when set, every request must send ``Authorization: Bearer <token>``.
        hosts: more names accepted in the ``Host`` header (besides IP addresses,
            ``localhost`` and the address the server is bound to); a token lifts the check.
        redact: True: journal answers hide secrets by the one rule (``_core._redact``:
            secret headers and query parameters, and their values wherever they appear);
            a collection: that rule and these header names too; False: nothing hidden.
    """

    def __init__(
        self,
        server: Any,
        on_reset: Callable[[], None] | None = None,
        *,
        token: str | None = None,
        hosts: Collection[str] = (),
        redact: bool | Collection[str] = True,
    ) -> None:
        self.server = server
        self.on_reset = on_reset
        self.token = token or None
        self.hosts = frozenset(h.lower() for h in hosts)
        self.redact = redact if isinstance(redact, bool) else frozenset(r.lower() for r in redact)

    def __call__(self, request: Request) -> Reply:
        """The reply to an admin request (404 for an unknown endpoint, 405 a wrong method;
        403, 401, 413 or 415 when a guard refuses it)."""
        refused = self.refusal(request)
        return refused if refused is not None else self.handle(request)

    def handle(self, request: Request) -> Reply:
        """The reply to an admin request that the guards let through (``refusal``)."""
        api = self._for_test(request)
        if isinstance(api, Reply):
            return api
        route = request.path[len(PREFIX) :].strip("/")
        for pattern, methods in _ROUTES:
            found = pattern.fullmatch(route)
            if found is None:
                continue
            handler = methods.get(request.method)
            if handler is None:
                allowed = ", ".join(methods)
                return _error(
                    405,
                    "method_not_allowed",
                    f"{request.method} {request.path}: expected one of {allowed}",
                ).header("Allow", allowed)
            ref = unquote(found.group("ref")) if "ref" in pattern.groupindex else ""
            return handler(api, request, ref)
        return _error(
            404, "unknown_endpoint", f"no admin endpoint at {request.path}; GET {PREFIX} lists them"
        )

    def _for_test(self, request: Request) -> AdminAPI | Reply:
        """This API, or the same API on the test the request names (``?test=ID`` or the
        test header): its ``server`` is then ``server.test(ID)``; or a 400 saying why
        the id cannot be one."""
        test = request.query_value("test")
        header = test_header(self.server)
        if test is None and header is not None:
            test = request.headers.get(header)
        if test is None:
            return self
        if header is None:
            return _error(400, "no_tests", "this server names no tests (test_header=None)")
        why = bad_test_id(test.strip())
        if why is not None:
            return _error(400, "bad_test_id", why)
        scoped = copy.copy(self)
        scoped.server = self.server.test(test.strip())
        scoped.on_reset = None  # (a test's reset loads no files again)
        return scoped

    # -- guards -------------------------------------------------------------------------

    def refusal(self, request: Request) -> Reply | None:
        """Why the request may not use the admin API (the 4xx reply), or None."""
        headers = request.headers
        if self.token is None:
            host = headers.get("host")
            if host is not None and not self._known_host(host):
                return _error(
                    403, "forbidden_host",
                    f"Host {host!r} does not name this server (DNS rebinding?); use an IP "
                    "address or localhost, allow the name (--allow-host), or set a token",
                )  # fmt: skip
        origin = headers.get("origin")
        if origin is not None and not _same_origin(origin, headers.get("host")):
            return _error(
                403, "forbidden_origin",
                f"requests from web pages ({origin}) may not use the admin API",
            )  # fmt: skip
        if headers.get("sec-fetch-site", "same-origin").lower() not in ("same-origin", "none"):
            return _error(403, "forbidden_origin", "cross-site requests may not use the admin API")
        if (
            self.token is not None
            and not self._authorized(headers.get("authorization", ""))
            and not _page(request)
            and not (request.method == "GET" and _dashboard.cookie_token(request, self.token))
        ):
            return _error(
                401, "unauthorized", "this admin API needs 'Authorization: Bearer <token>'"
            ).header("WWW-Authenticate", 'Bearer realm="mockhttp"')
        if request.method in _WRITES:
            return _write_refused(request)
        return None

    def _known_host(self, host: str) -> bool:
        name = _host_name(host)
        bound = str(getattr(self.server, "host", "")).lower()
        if name in self.hosts or name == bound or name == "localhost":
            return True
        if name.endswith(".localhost"):
            return True
        try:
            ipaddress.ip_address(name)
        except ValueError:
            return False
        return True

    def _authorized(self, value: str) -> bool:
        assert self.token is not None
        scheme, _, given = value.partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(
            given.strip().encode(), self.token.encode()
        )

    # -- endpoints ----------------------------------------------------------------------

    def index(self, request: Request, ref: str) -> Reply:
        return _json(200, {"endpoints": [f"{m} {PREFIX}{p}" for m, p in _INDEX]})

    def list_mocks(self, request: Request, ref: str) -> Reply:
        with collector_paused():  # (100,000 mocks: one json.dumps held the loop 0.35 s)
            return _json_list(200, "mocks", map(_mock_json, self.server.mocks))

    def add_mocks(self, request: Request, ref: str) -> Reply:
        with collector_paused():  # its passes over the parse stalled every stream
            return self._add_mocks(request)

    def _add_mocks(self, request: Request) -> Reply:
        mocks = _mocks_of(request)
        if isinstance(mocks, Reply):
            return mocks
        for mock in mocks:  # (a name twice in the body is a mock file error: loads)
            if mock.name is not None and self.server._ranked.named(mock.name):  # O(1): no walk
                return _error(
                    409, "duplicate_name",
                    f"a mock named {mock.name!r} is already registered: names address mocks, "
                    f"so they are unique; DELETE {PREFIX}mocks/{mock.name} first, or choose "
                    "another name",
                    name=mock.name,
                )  # fmt: skip
        add = getattr(self.server, "_add", None)
        added = add(mocks) if add is not None else [self.server.mock(m) for m in mocks]
        kept(len(added))
        ranked = getattr(self.server, "_ranked", None)
        if ranked is not None:  # sorted and indexed by path here, not on the loop's next
            ranked.index(ranked.snapshot())  # request (10,000 mocks: 2-30 ms it held)
        return _json_list(201, "mocks", map(_mock_json, added))

    def count(self, request: Request, ref: str) -> Reply:
        with collector_paused():
            mocks = _mocks_of(request)
        if isinstance(mocks, Reply):
            return mocks
        if len(mocks) != 1:
            return _error(
                400, "bad_pattern",
                f"expected one request pattern (a mock file with `request:`), found {len(mocks)}",
            )  # fmt: skip
        pattern = mocks[0]
        journal: Sequence[Call] = self.server.journal
        found = sum(1 for c in journal if pattern.matches(c.request))
        dropped = getattr(journal, "_base", 0)  # calls the journal limit dropped
        answer: dict[str, Any] = {"count": found, "exact": not dropped, "dropped": dropped}
        if dropped:
            answer["message"] = (
                f"counted among the calls still in the journal: the {dropped} oldest were "
                "dropped (--journal-limit); a mock's call_count stays exact"
            )
        return _json(200, answer)

    def clear_journal(self, request: Request, ref: str) -> Reply:
        cleared = len(self.server.journal)
        self.server.clear_journal()
        watch = self._watching()
        if watch is not None and not _scoped(self.server):
            watch.cleared()
        return _json(200, {"cleared": cleared})

    def scenarios(self, request: Request, ref: str) -> Reply:
        """Every scenario's state (a test's: the scenarios of its mocks and the shared)."""
        names = sorted(_scenario_names(self.server))
        return _json(200, {"scenarios": {n: self.server.scenario_state(n) for n in names}})

    def set_scenario(self, request: Request, ref: str) -> Reply:
        """``PUT scenarios/{name}/state`` with ``{"state": S}`` (WireMock's form): the
        scenario in ``S`` (a test's own, with ``?test=``); under ``--workers`` the
        supervisor's, for every worker (``_shared.move_scenario``)."""
        try:
            state = _state_of(request)
            known = _scenario_names(self.server)
            if ref not in known:
                raise UnknownNameError("scenario", ref, sorted(known))
            self.server.set_scenario_state(ref, state)
        except UnknownNameError as exc:
            return _error(404, "unknown_scenario", str(exc), known=sorted(exc.known))
        except ConfigError as exc:
            return _error(400, "bad_scenario_state", str(exc))
        except ConnectionError as exc:  # (the supervisor is gone: ``_shared.StateChannel``)
            return _error(503, "workers", str(exc))
        return _json(200, {"scenario": ref, "state": state})

    def reset_scenarios(self, request: Request, ref: str) -> Reply:
        """Every scenario back in ``Started``; answers as ``GET scenarios`` does."""
        self.server.reset_scenarios()
        return self.scenarios(request, ref)

    def remove_mocks(self, request: Request, ref: str) -> Reply:
        removed = list(self.server.mocks)
        self.server.replace(removed, [])  # in one step, however many there are
        return _json(200, {"removed": len(removed)})

    def get_mock(self, request: Request, ref: str) -> Reply:
        active = self._find(ref)
        return _missing(ref) if active is None else _json(200, _mock_json(active))

    def remove_mock(self, request: Request, ref: str) -> Reply:
        active = self._find(ref)
        if active is None:
            return _missing(ref)
        self.server.remove(active)
        return _json(200, {"removed": _mock_json(active)})

    def mock_calls(self, request: Request, ref: str) -> Reply:
        active = self._find(ref)
        if active is None:
            return _missing(ref)
        calls = self._journal_json(list(active.calls))
        return _json(200, {"id": active.id, "call_count": active.call_count, "calls": calls})

    def push(self, request: Request, ref: str) -> Reply:
        return self._pushes(_push_admin.push, request, ref)

    def close_streams(self, request: Request, ref: str) -> Reply:
        return self._pushes(_push_admin.close, request, ref)

    def streams(self, request: Request, ref: str) -> Reply:
        return self._pushes(_push_admin.streams, request, ref)

    def _pushes(self, do: Callable[..., tuple[int, Any]], request: Request, ref: str) -> Reply:
        active = self._find(ref)
        return _missing(ref) if active is None else _json(*do(active, request))

    def journal(self, request: Request, ref: str) -> Reply:
        wanted = request.query_value("mock")
        calls: Sequence[Call] = list(self.server.journal)
        if wanted == "none":
            calls = [c for c in calls if c.mock is None]
        elif wanted is not None:
            active = self._find(wanted)
            if active is None:
                return _missing(wanted)
            calls = list(active.calls)
        return _json(200, {"calls": self._journal_json(calls)})

    def events(self, request: Request, ref: str) -> Reply:
        """The journal as it happens (``_watch.Watch.stream``): every call, the tests'
        too; with a test named (``?test=ID``), that test's calls only."""
        test = getattr(self.server, "id", None) if _scoped(self.server) else None
        watch = self.watch
        keep = None if test is None else (lambda call: call.test == test)
        return watch.stream(
            request.headers.get("last-event-id"),
            lambda: {"calls": self._journal_json(self._every_call(watch, keep)), **self._mocks()},
            self._live_json,
            keep,
        )

    def _every_call(self, watch: Watch, keep: Callable[[Call], bool] | None = None) -> list[Call]:
        """The journal's calls and, on the whole server, each test's, with those the
        watch's log still holds that a reset has emptied from the journal (a pytest run's
        earlier tests): by arrival."""
        calls = list(self.server.journal)
        tests = None if _scoped(self.server) else getattr(self.server, "_tests", None)
        if tests:
            for scoped in list(tests._scopes.values()):
                calls += list(scoped.journal)
        seen = {call._seq for call in calls}
        calls += [c for c in watch.recent() if c._seq not in seen and (keep is None or keep(c))]
        calls.sort(key=lambda call: call._seq)
        return calls

    def ui(self, request: Request, ref: str) -> Reply:
        if not request.path.endswith("/") and not ref:  # relative links need the slash
            return status(308).header("Location", _dashboard.UI_PATH)
        return _dashboard.static(ref)

    def ui_session(self, request: Request, ref: str) -> Reply:
        return _dashboard.session_cookie(self.token)

    @property
    def watch(self) -> Watch:
        """The server's journal log for the dashboard (watching from now on)."""
        server = self.server
        watch = watch_of(server._server if _scoped(server) else server)  # (the whole server's)
        watch.install()
        return watch

    def reset(self, request: Request, ref: str) -> Reply:
        self.server.reset()
        if self.on_reset is not None:
            self.on_reset()
        return _json(200, {"mocks": len(self.server.mocks), "journal": 0})

    # -- helpers ------------------------------------------------------------------------

    def _find(self, ref: str) -> ActiveMock | None:
        by_id = ref.isascii() and ref.isdecimal() and len(ref) <= _ID_DIGITS
        found: ActiveMock | None = self.server._ranked.get(int(ref)) if by_id else None
        if found is not None:  # by id, in O(1); else by name
            return found
        named: list[ActiveMock] = self.server._ranked.named(ref)
        return named[0] if named else None

    def _ids(self) -> dict[int, int]:
        return {id(a.mock): a.id for a in self._every_mock()}

    def _every_mock(self) -> list[ActiveMock]:
        """The mocks and, on the whole server, each test's (ids are the server's)."""
        found = list(self.server.mocks)
        tests = None if _scoped(self.server) else getattr(self.server, "_tests", None)
        if tests:
            for scoped in list(tests._scopes.values()):
                found += scoped.mocks
        return found

    def _redactor(self, call: Call) -> Redactor | None:
        if self.redact is False:
            return None
        names = () if self.redact is True else self.redact
        return Redactor.of_request(call.request, names=names)

    def _call_json(
        self, call: Call, ids: dict[int, int], resumes: int | None = None
    ) -> dict[str, Any]:
        redactor = self._redactor(call)
        found = _call_json(call, ids, redactor)
        watch = self._watching()
        planned = None if watch is None else watch.plan_of(call)
        found.update(_dashboard.call_extras(call, planned, resumes, redactor))
        return found

    def _journal_json(self, calls: Sequence[Call]) -> list[dict[str, Any]]:
        """The JSON of ``calls`` (oldest first), each reconnect linked to what it resumes."""
        ids = self._ids()
        linked = _dashboard.resumes(calls)
        return [self._call_json(c, ids, linked.get(c._seq)) for c in calls]

    def _live_json(self, call: Call) -> dict[str, Any]:
        """One call's JSON as the event stream sends it (on the page's thread)."""
        ids = self._ids()
        resumes = None
        number = None if call.mock is None else ids.get(id(call.mock))
        active = None if number is None else self.server._ranked.get(number)
        if active is None and number is not None:  # (one test's mock)
            active = next((a for a in self._every_mock() if a.id == number), None)
        if active is not None:
            calls = active.calls  # (its last calls only: a slice reads no others)
            resumes = _dashboard.resumes_of(call, calls[max(0, len(calls) - _EARLIER) :])
        return self._call_json(call, ids, resumes)

    def _watching(self) -> Watch | None:
        server = self.server
        found: Watch | None = getattr(server._server if _scoped(server) else server, "_watch", None)
        return found

    def _mocks(self) -> dict[str, Any]:
        return {"mocks": [_mock_json(a) for a in self.server.mocks]}


def test_header(server: Any) -> str | None:
    """The header that names a request's test on ``server`` (None: it names none)."""
    tests = getattr(server, "_tests", None)
    header = None if tests is None else tests.header
    return None if header is None else str(header)


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (``127.0.0.1``, ``::1``)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _host_name(host: str) -> str:
    """The name in a ``Host`` value, without its port: ``[::1]:80`` → ``::1``."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].partition("]")[0]
    return host.rpartition(":")[0] if host.count(":") == 1 else host


def _same_origin(origin: str, host: str | None) -> bool:
    """True when ``Origin`` is this server as the request reached it (a page it served)."""
    parts = urlsplit(origin.strip().lower())
    return parts.scheme == "http" and host is not None and parts.netloc == host.strip().lower()


def _essence(request: Request) -> str:
    return request.headers.get("content-type", "").partition(";")[0].strip().lower()


_ID_DIGITS = 20  # a longer ref is no id (int() refuses more than 4,300 digits), maybe a name


def _write_refused(request: Request) -> Reply | None:
    """A write's body must be a mock file, sent as JSON or YAML: a web page cannot send
    those cross-origin without a preflight (which is not answered)."""
    if len(request.body) > MAX_ADMIN_BODY:
        return _error(
            413, "too_large", f"the body is larger than {MAX_ADMIN_BODY} bytes; split the mocks"
        )
    if not request.body:  # nothing to read: its Content-Type does not matter
        return None
    essence = _essence(request)
    if essence in _JSON_TYPES or essence in _YAML_TYPES or essence.endswith("+json"):
        return None
    found = f"Content-Type {essence!r}" if essence else "no Content-Type"
    return _error(
        415, "unsupported_media_type",
        f"{request.method} {request.path} with {found}; send application/json or "
        "application/yaml",
    )  # fmt: skip


def redacted(value: str) -> str:
    """``Bearer sk-123`` → ``Bearer [redacted]``; anything else → ``[redacted]``."""
    return masked(value)


def _mocks_of(request: Request) -> list[Mock] | Reply:
    """The mocks in a request's body (JSON read as JSON), or the 400 that says why there
    are none."""
    if not request.body.strip():
        return _error(400, "empty_body", "the body is empty; expected a mock file (YAML or JSON)")
    essence = _essence(request)
    json = essence in _JSON_TYPES or essence.endswith("+json")
    try:
        return loads(request.text, "request body", syntax="json" if json else "yaml")
    except MockfileError as exc:
        if exc.reason.startswith("too large"):  # over the YAML node limit (docs/limits.md)
            return _error(
                413, "too_large",
                f"the YAML body holds more than {MAX_NODES:,} nodes (values, lists and "
                "mappings; about 40,000 small mocks): split the mocks over several POSTs, or "
                "send them as JSON (application/json), which has no node limit",
            )  # fmt: skip
        return _error(
            400, "mockfile_error", str(exc), reason=exc.reason,
            line=exc.line, column=exc.column, path=exc.path,
        )  # fmt: skip


def _scenario_names(server: Any) -> set[str]:
    """The scenarios of the mocks a request to ``server`` may meet (a test's: its own
    and the shared ones)."""
    return {m.scenario_of.name for m in server._tried() if m.scenario_of is not None}


def _state_of(request: Request) -> str:
    """The ``state`` of a ``PUT scenarios/{name}/state`` body (JSON: ``{"state": S}``).

    Raises:
        ConfigError: the body is not that."""
    try:
        value = json.loads(request.body or b"null")
    except ValueError as exc:
        raise ConfigError(f'the body is not JSON ({exc}); expected {{"state": "..."}}') from None
    if not isinstance(value, dict) or set(value) != {"state"}:
        raise ConfigError(f'the body is {value!r}; expected {{"state": "..."}}')
    state = value["state"]
    if not isinstance(state, str) or not state:
        raise ConfigError(f'"state": {state!r} must be a non-empty text')
    return state


def _scoped(server: Any) -> bool:
    """True for one test's view of the server (``server.test(ID)``)."""
    return isinstance(server, ScopedServer)


def _page(request: Request) -> bool:
    """A request for one of the dashboard's static files (they hold no data)."""
    return request.method == "GET" and (
        request.path == _dashboard.UI_PATH.rstrip("/")
        or request.path.startswith(_dashboard.UI_PATH)
    )


_EARLIER = 20  # a live call's reconnect is looked for among its mock's last calls


def _missing(ref: str) -> Reply:
    return _error(404, "unknown_mock", f"no mock with id or name {ref!r}")


def _mock_json(active: ActiveMock) -> dict[str, Any]:
    try:
        document: Any = to_dict(active.mock)
    except ConfigError:
        document = None  # a mock built in Python with no file form (a binary body)
    return {
        "id": active.id,
        "name": active.mock.name,
        "describe": active.mock.describe(),
        "call_count": active.call_count,
        "remaining": None if active._limit is None else max(0, active._limit - active._count),
        "mock": document,
    }


def request_json(request: Request, redactor: Redactor | None = None) -> dict[str, Any]:
    """A request as the journal answers show it (docs/journal.md): ``headers`` and
    ``query`` as mappings of lists (header names lower-cased), the pairs as received in
    ``header_pairs`` and ``query_pairs``, and the body as text or, when it is not UTF-8,
    as base64 (``body_encoding`` says which).  ``redactor`` hides the secrets (the one rule
    of ``_core._redact``)."""
    pairs = request.headers.items_list
    query = request.query
    raw = request.body
    path = request.path
    if redactor is not None:
        pairs = tuple((name, redactor.header(name, value)) for name, value in pairs)
        query = tuple(
            (k, redactor.mark if redactor.is_secret(k) else redactor.text(v)) for k, v in query
        )
        path = redactor.text(path)
        raw = _hidden(raw, redactor)
    body, encoding = _body_json(raw)
    return {
        "method": request.method,
        "path": path,
        "query": _grouped(query, lower=False),
        "query_pairs": [list(pair) for pair in query],
        "headers": _grouped(pairs, lower=True),
        "header_pairs": [list(pair) for pair in pairs],
        "body": body,
        "body_encoding": encoding,
    }


def _grouped(pairs: Iterable[tuple[str, str]], *, lower: bool) -> dict[str, list[str]]:
    """``[("A", "1"), ("a", "2")]`` → ``{"a": ["1", "2"]}`` (in the order received)."""
    found: dict[str, list[str]] = {}
    for name, value in pairs:
        found.setdefault(name.lower() if lower else name, []).append(value)
    return found


def _hidden(body: bytes, redactor: Redactor) -> bytes:
    """``body`` with the secrets hidden: as text by the one rule, or, when it is not UTF-8,
    each secret's bytes replaced."""
    try:
        return redactor.text(body.decode("utf-8")).encode("utf-8")
    except UnicodeDecodeError:
        for secret in redactor.secrets:
            body = body.replace(secret.encode("utf-8"), redactor.mark.encode("utf-8"))
        return body


def _body_json(body: bytes) -> tuple[str, str]:
    """The body as JSON can carry it, and how: ``utf-8`` text, else ``base64``."""
    try:
        return body.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return base64.b64encode(body).decode("ascii"), "base64"


def _call_json(call: Call, ids: dict[int, int], redactor: Redactor | None) -> dict[str, Any]:
    """A call as the journal answers show it; ``redactor`` hides its secrets."""
    mock = call.mock
    found = {
        "request": request_json(call.request, redactor),
        "mock": None if mock is None else ids.get(id(mock)),
        "mock_describe": None if mock is None else mock.describe(),
        "status": call.status,
        "outcome": call.outcome,
        "events": call.events,
        "body_bytes": call.body_bytes,
        "time": datetime.fromtimestamp(call.time, timezone.utc).isoformat(timespec="milliseconds"),
    }
    if call.test is not None:  # the test the request named (docs/isolation.md)
        found["test"] = call.test
        if call.test_prefix is not None:  # stripped from the target before matching
            found["test_prefix"] = call.test_prefix
    dropped = call.dropped
    if dropped is not None:  # the byte budget dropped the bodies (docs/limits.md)
        found["dropped"] = dataclasses.asdict(dropped)
    explanation = call.explanation
    if explanation is not None:
        if redactor is not None:
            explanation = explanation.redacted(redactor)
        found["explanation"] = {"message": explanation.text, "closest": list(explanation.closest)}
    if call.status == 101 and mock is not None:  # a WebSocket session (ws/_journal.py)
        journal = getattr(mock.kind, "session_json", None)
        hide = None if redactor is None else redactor.text
        session = None if journal is None else journal(call.request, hide)
        if session is not None:
            found["websocket"] = session
    return found


_REF = r"(?P<ref>[^/]+)"
_ROUTES: tuple[tuple[re.Pattern[str], dict[str, _Handler]], ...] = (
    (re.compile(r""), {"GET": AdminAPI.index}),
    (
        re.compile(r"mocks"),
        {"GET": AdminAPI.list_mocks, "POST": AdminAPI.add_mocks, "DELETE": AdminAPI.remove_mocks},
    ),
    (re.compile(rf"mocks/{_REF}"), {"GET": AdminAPI.get_mock, "DELETE": AdminAPI.remove_mock}),
    (re.compile(rf"mocks/{_REF}/calls"), {"GET": AdminAPI.mock_calls}),
    (re.compile(rf"mocks/{_REF}/push"), {"POST": AdminAPI.push}),
    (re.compile(rf"mocks/{_REF}/close"), {"POST": AdminAPI.close_streams}),
    (re.compile(rf"mocks/{_REF}/streams"), {"GET": AdminAPI.streams}),
    (re.compile(r"journal"), {"GET": AdminAPI.journal, "DELETE": AdminAPI.clear_journal}),
    (re.compile(r"journal/events"), {"GET": AdminAPI.events}),
    (re.compile(r"ui"), {"GET": AdminAPI.ui}),
    (re.compile(r"ui/session"), {"POST": AdminAPI.ui_session}),
    (re.compile(r"ui/(?P<ref>[A-Za-z0-9_-]+\.[a-z]+)"), {"GET": AdminAPI.ui}),
    (re.compile(r"requests/count"), {"POST": AdminAPI.count}),
    (re.compile(r"scenarios"), {"GET": AdminAPI.scenarios}),
    (re.compile(r"scenarios/reset"), {"POST": AdminAPI.reset_scenarios}),
    (re.compile(rf"scenarios/{_REF}/state"), {"PUT": AdminAPI.set_scenario}),
    (re.compile(r"reset"), {"POST": AdminAPI.reset}),
)
_INDEX = (
    ("GET", "mocks"),
    ("POST", "mocks"),
    ("DELETE", "mocks"),
    ("GET", "mocks/{ref}"),
    ("DELETE", "mocks/{ref}"),
    ("GET", "mocks/{ref}/calls"),
    ("POST", "mocks/{ref}/push"),
    ("POST", "mocks/{ref}/close"),
    ("GET", "mocks/{ref}/streams"),
    ("GET", "journal?mock={ref}"),
    ("GET", "journal/events"),
    ("GET", "ui/"),
    ("DELETE", "journal"),
    ("POST", "requests/count"),
    ("GET", "scenarios"),
    ("POST", "scenarios/reset"),
    ("PUT", "scenarios/{name}/state"),
    ("POST", "reset"),
    ("GET", "health"),
)
