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
GET      /__mockhttp/journal              every request (``?mock=ref``: one mock's;
                                          ``?mock=none``: the unmatched ones, with why)
DELETE   /__mockhttp/journal              forget every call (the mocks stay)
POST     /__mockhttp/requests/count       count the calls matching the body's ``request``
                                          pattern (a mock file; no mock is added)
GET      /__mockhttp/scenarios            every scenario's state
POST     /__mockhttp/scenarios/reset      put every scenario back in ``Started``
POST     /__mockhttp/reset                remove the mocks and clear the journal
=======  ===============================  ==================================================

``ref`` is a mock's ``id`` (a number, given when it is added) or its ``name``; names are
unique (adding a mock under a name already taken is refused with 409).

Rule 1: the handler runs on the server's loop thread (``Server.admin``), so it reads and
changes the registry and journal without racing the requests it answers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from typing import Any
from urllib.parse import unquote

from ._errors import ConfigError, MockfileError
from ._mock import Mock
from ._mockfile import loads, to_dict
from ._reply import Reply, status
from ._request import Request
from ._verify import ActiveMock, Call

__all__ = ["PREFIX", "AdminAPI"]

PREFIX = "/__mockhttp/"

_Handler = Callable[["AdminAPI", Request, str], Reply]


def _json(code: int, value: Any) -> Reply:
    return status(code).json(value)


def _error(code: int, kind: str, message: str, **more: Any) -> Reply:
    return _json(code, {"error": {"type": kind, "message": message, **more}})


class AdminAPI:
    """The admin endpoints of one server; set it as ``server.admin`` (``Server(admin=True)``).

    Args:
        server: the server whose mocks and journal it manages.
        on_reset: called after ``POST /__mockhttp/reset`` (the CLI loads its files again).
    """

    def __init__(self, server: Any, on_reset: Callable[[], None] | None = None) -> None:
        self.server = server
        self.on_reset = on_reset

    def __call__(self, request: Request) -> Reply:
        """The reply to an admin request (404 for an unknown endpoint, 405 a wrong method)."""
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
            return handler(self, request, ref)
        return _error(
            404, "unknown_endpoint", f"no admin endpoint at {request.path}; GET {PREFIX} lists them"
        )

    # -- endpoints ----------------------------------------------------------------------

    def index(self, request: Request, ref: str) -> Reply:
        return _json(200, {"endpoints": [f"{m} {PREFIX}{p}" for m, p in _INDEX]})

    def list_mocks(self, request: Request, ref: str) -> Reply:
        return _json(200, {"mocks": [_mock_json(a) for a in self.server.mocks]})

    def add_mocks(self, request: Request, ref: str) -> Reply:
        mocks = _mocks_of(request)
        if isinstance(mocks, Reply):
            return mocks
        taken = {a.mock.name for a in self.server.mocks if a.mock.name is not None}
        seen: set[str] = set()
        for mock in mocks:
            if mock.name is not None and (mock.name in taken or mock.name in seen):
                where = "already registered" if mock.name in taken else "given twice in the body"
                return _error(
                    409, "duplicate_name",
                    f"a mock named {mock.name!r} is {where}: names address mocks, so they are "
                    f"unique; DELETE {PREFIX}mocks/{mock.name} first, or choose another name",
                    name=mock.name,
                )  # fmt: skip
            if mock.name is not None:
                seen.add(mock.name)
        added = self.server.mock(mocks) if mocks else []
        return _json(201, {"mocks": [_mock_json(a) for a in added]})

    def count(self, request: Request, ref: str) -> Reply:
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
        return _json(200, {"count": found})

    def clear_journal(self, request: Request, ref: str) -> Reply:
        cleared = len(self.server.journal)
        self.server.clear_journal()
        return _json(200, {"cleared": cleared})

    def scenarios(self, request: Request, ref: str) -> Reply:
        names = sorted({a.mock.scenario_of.name for a in self.server.mocks if a.mock.scenario_of})
        return _json(200, {"scenarios": {n: self.server.scenario_state(n) for n in names}})

    def reset_scenarios(self, request: Request, ref: str) -> Reply:
        self.server.reset_scenarios()
        return _json(200, {"scenarios": "Started"})

    def remove_mocks(self, request: Request, ref: str) -> Reply:
        removed = list(self.server.mocks)
        for active in removed:
            self.server.remove(active)
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
        calls = [_call_json(c, self._ids()) for c in active.calls]
        return _json(200, {"id": active.id, "call_count": active.call_count, "calls": calls})

    def journal(self, request: Request, ref: str) -> Reply:
        wanted = request.query_value("mock")
        calls: Sequence[Call] = self.server.journal
        if wanted == "none":
            calls = [c for c in calls if c.mock is None]
        elif wanted is not None:
            active = self._find(wanted)
            if active is None:
                return _missing(wanted)
            calls = active.calls
        return _json(200, {"calls": [_call_json(c, self._ids()) for c in calls]})

    def reset(self, request: Request, ref: str) -> Reply:
        self.server.reset()
        if self.on_reset is not None:
            self.on_reset()
        return _json(200, {"mocks": len(self.server.mocks), "journal": 0})

    # -- helpers ------------------------------------------------------------------------

    def _find(self, ref: str) -> ActiveMock | None:
        mocks: tuple[ActiveMock, ...] = self.server.mocks
        for active in mocks:
            if ref.isdigit() and active.id == int(ref):
                return active
        return next((a for a in mocks if a.mock.name == ref), None)

    def _ids(self) -> dict[int, int]:
        return {id(a.mock): a.id for a in self.server.mocks}


def _mocks_of(request: Request) -> list[Mock] | Reply:
    """The mocks in a request's body, or the 400 that says why there are none."""
    try:
        return loads(request.text, "request body")
    except MockfileError as exc:
        return _error(
            400, "mockfile_error", str(exc), reason=exc.reason,
            line=exc.line, column=exc.column, path=exc.path,
        )  # fmt: skip


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
        "mock": document,
    }


def _call_json(call: Call, ids: dict[int, int]) -> dict[str, Any]:
    mock = call.mock
    found = {
        "request": call.request.to_dict(),
        "mock": None if mock is None else ids.get(id(mock)),
        "mock_describe": None if mock is None else mock.describe(),
        "status": call.status,
        "outcome": call.outcome,
        "events": call.events,
        "body_bytes": call.body_bytes,
        "time": datetime.fromtimestamp(call.time, timezone.utc).isoformat(timespec="milliseconds"),
    }
    if call.explanation is not None:
        found["explanation"] = {
            "message": call.explanation.text,
            "closest": list(call.explanation.closest),
        }
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
    (re.compile(r"journal"), {"GET": AdminAPI.journal, "DELETE": AdminAPI.clear_journal}),
    (re.compile(r"requests/count"), {"POST": AdminAPI.count}),
    (re.compile(r"scenarios"), {"GET": AdminAPI.scenarios}),
    (re.compile(r"scenarios/reset"), {"POST": AdminAPI.reset_scenarios}),
    (re.compile(r"reset"), {"POST": AdminAPI.reset}),
)
_INDEX = (
    ("GET", "mocks"),
    ("POST", "mocks"),
    ("DELETE", "mocks"),
    ("GET", "mocks/{ref}"),
    ("DELETE", "mocks/{ref}"),
    ("GET", "mocks/{ref}/calls"),
    ("GET", "journal?mock={ref}"),
    ("DELETE", "journal"),
    ("POST", "requests/count"),
    ("GET", "scenarios"),
    ("POST", "scenarios/reset"),
    ("POST", "reset"),
)
