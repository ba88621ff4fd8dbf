"""The mock A2A agent: a reply kind that serves an agent card and answers JSON-RPC.

``A2aAgent.build(request)`` answers ``GET`` of a well-known card path with the card (at
the host's root and under the agent's ``path``, so the agent's one URL serves both), and
``POST`` of one JSON-RPC request to ``path`` with its answer in the version the method
names (see :mod:`._spec`; the operations are :mod:`._calls`).

Rule (JSON-RPC 2.0 §5, read by :mod:`mockhttp._core._jsonrpc`, the envelope MCP shares):
an error answers with the request's id whenever it could be read (a string or a number);
``null`` when it could not (not JSON: -32700; an id that is an object, an array or a
boolean: -32600).  A2A has no batches: an array is -32600.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .._core import _jsonrpc as jsonrpc
from .._core._errors import ConfigError
from .._core._kept import Kept, KeptKind, Scoped, registered_key
from .._core._match import any_of, regex
from .._core._mock import Mock, request
from .._core._reply import Reply, ok, status
from .._core._request import Request
from . import _rest as rest_binding
from ._calls import Call
from ._push import Push
from ._script import Entry, Task, artifact, entries, task
from ._script import status as status_step
from ._spec import CARD_PATHS, ERRORS, METHODS, VERSION_HEADER, VERSIONS, error
from ._tasks import Tasks
from ._validate import camel

__all__ = ["A2aAgent"]


def _default_tasks() -> tuple[Task, ...]:
    return (
        task(status_step("working"), artifact("Hello from mockhttp"), status_step("completed")),
    )


@dataclass(frozen=True)
class A2aAgent(KeptKind):
    """A mock A2A agent on the JSON-RPC binding.

    Args:
        tasks: the answers to new conversations, in order, the last repeating: task
            scripts (``a2a.task(...)``), ``a2a.message(text)`` or ``a2a.error(text, code)``.
        card: fields of the agent card, over the defaults (name, description, skills...).
        name: the card's ``name``.
        description: the card's ``description``.
        versions: the A2A versions the agent speaks (``"0.3"``, ``"1.0"``; both by
            default): the card lists an interface for each, and a method of another
            version gets "method not found".
        path: the JSON-RPC endpoint (the card's ``url``); the card is served under it too.
        event_delay: seconds before each step of a run (a step's ``delay`` replaces it):
            a stream's events and the task's states move on this schedule.
        blocking_timeout: the longest a blocking ``message/send`` waits for its run to
            stop (None: until it stops); then it answers the task as it stands and the
            run goes on on its schedule.
        push_notifications: the agent takes push notification configs and posts each
            step of a task to the client's webhook (else ``-32003``).
        extended_card: fields over the card for the extended agent card (None: the
            agent has none, ``-32007``); it is for authenticated clients, so it needs
            ``bearer_token``.
        http_json: the agent answers A2A 1.0's HTTP+JSON binding too, under ``path``
            (``POST /message:send``, ``GET /tasks/{id}``...; see :mod:`._rest`), and its
            card lists that interface.
        bearer_token: the agent requires ``Authorization: Bearer <bearer_token>`` on every
            JSON-RPC request (else HTTP 401 with ``WWW-Authenticate: Bearer``); its card,
            public, declares the scheme (``securitySchemes``, ``securityRequirements``).
    """

    file_key: ClassVar[str] = "a2a"

    tasks: Sequence[Entry | Any] = field(default_factory=_default_tasks)
    card: Mapping[str, Any] = field(default_factory=dict)
    name: str = "mockhttp-a2a"
    description: str = "A mock A2A agent"
    versions: str | Sequence[str] = VERSIONS
    path: str = "/"
    event_delay: float = 0.0
    blocking_timeout: float | None = None
    push_notifications: bool = False
    extended_card: Mapping[str, Any] | None = None
    bearer_token: str | None = None
    http_json: bool = False
    state: Tasks = field(default_factory=Tasks, compare=False, repr=False)
    push: Push = field(default_factory=Push, compare=False, repr=False)
    state_key = "a2a"  # (until registered: ``forget``)

    def __post_init__(self) -> None:
        object.__setattr__(self, "tasks", entries(self.tasks))
        if not self.tasks:
            raise ConfigError("tasks: the agent needs at least one answer")
        for key in ("card", "extended_card"):
            value = getattr(self, key)
            if value is not None and not isinstance(value, Mapping):
                raise ConfigError(f"{key}: {value!r} must be a mapping of card fields")
        versions = (self.versions,) if isinstance(self.versions, str) else tuple(self.versions)
        if not versions or any(v not in VERSIONS for v in versions):
            raise ConfigError(f"versions: {self.versions!r} must be among {', '.join(VERSIONS)}")
        object.__setattr__(self, "versions", tuple(sorted(set(versions))))
        for key in ("name", "description", "path"):
            if not isinstance(getattr(self, key), str):
                raise ConfigError(f"{key}: {getattr(self, key)!r} must be text")
        if not self.path.startswith("/"):
            raise ConfigError(f"path: {self.path!r} must start with /")
        for key in ("event_delay", "blocking_timeout"):
            delay = getattr(self, key)
            if key == "blocking_timeout" and delay is None:
                continue
            if isinstance(delay, bool) or not isinstance(delay, int | float) or delay < 0:
                raise ConfigError(f"{key}: {delay!r} must be a number of seconds (0 or more)")
        if self.bearer_token is not None and (
            not isinstance(self.bearer_token, str) or not self.bearer_token
        ):
            raise ConfigError(f"bearer_token: {self.bearer_token!r} must be text")
        if self.extended_card is not None and self.bearer_token is None:
            raise ConfigError(
                "extended_card: the extended card is for authenticated clients; "
                "give bearer_token too"
            )
        if not isinstance(self.http_json, bool):
            raise ConfigError(f"http_json: {self.http_json!r} must be true or false")
        if not isinstance(self.push_notifications, bool):
            raise ConfigError(
                f"push_notifications: {self.push_notifications!r} must be true or false"
            )

    # -- the test's side -----------------------------------------------------------------

    @property
    def card_paths(self) -> tuple[str, ...]:
        """Where the card is served: the well-known paths at the root and under ``path``."""
        base = self.path.rstrip("/")
        under = tuple(base + p for p in CARD_PATHS) if base else ()
        return (*CARD_PATHS, *under)

    def mock(self, *, name: str | None = "a2a") -> Mock:
        """A mock answering the card's well-known paths and the JSON-RPC endpoint."""
        paths: list[Any] = [self.path, *self.card_paths]
        if self.http_json:
            paths.append(regex("^" + re.escape(self.path.rstrip("/")) + rest_binding.PATTERN + "$"))
        return request(None, any_of(*paths), name=name).reply(self)

    def task_states(self) -> dict[str, str]:
        """Each task's id and state now, oldest first."""
        return {t.id: t.state for t in self.state.all()}

    def reset(self) -> None:
        """Forget every task, push config and delivery, and start the answers again."""
        self.state.reset()
        self.push.reset()

    def forget(self) -> None:
        """Called when the mock is registered and when the server's journal is cleared: an
        agent reused by another test starts with no tasks (``task-1`` again): its state
        takes a new key (``registered_key``), and what the old one held goes at the next
        request."""
        old = self.state.kept
        object.__setattr__(self, "state_key", registered_key("a2a"))
        self.push.reset()
        if isinstance(old, Scoped):  # (the server's: read under the new key from now on)
            self.state.forget(old)
            self.state.kept = Scoped(old.kept, self.state_key)
            self.push.bind(self.state.kept)
        else:
            self.state.reset()

    def to_args(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        default = A2aAgent()
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name in ("state", "push") or value == getattr(default, f.name):
                continue
            if f.name == "tasks":
                value = [e.to_data() for e in value]
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out

    # -- answering -----------------------------------------------------------------------

    def build(self, request: Request) -> Reply:
        """The answer outside a server: the state is the agent's own (``Tasks.own``)."""
        return self.build_kept(request, self.state.own)

    def build_kept(self, request: Request, kept: Kept) -> Reply:
        """The answer, with the tasks and push configs in ``kept`` (the server's)."""
        self.state.bind(kept, self.tasks)
        self.push.bind(kept)
        if request.method in ("GET", "HEAD") and request.path in self.card_paths:
            return ok().json(self.agent_card(request))
        if self.bearer_token is not None and not self._authorized(request):
            return (
                status(401)
                .header("WWW-Authenticate", 'Bearer realm="a2a"')
                .json({"error": "unauthorized: this agent needs a bearer token"})
            )
        if request.method == "POST" and request.path == self.path:
            return self._rpc(request)
        if self.http_json:
            answer = self._rest(request)
            if answer is not None:
                return answer
        return status(405).header("Allow", "POST" if request.path == self.path else "GET")

    def _rest(self, req: Request) -> Reply | None:
        """The HTTP+JSON binding's answer, None when the path is none of its routes."""
        base = self.path.rstrip("/")
        if not req.path.startswith(base + "/"):
            return None
        try:
            body = req.json() if req.body else {}
        except ValueError as exc:
            code = ERRORS["parse"]
            reply = status(400).json(rest_binding.rest_error(code, f"Parse error: {exc}"))
            return reply
        query = dict(req.query)
        found = rest_binding.route(req.method, req.path[len(base) :], query, body)
        if found is None:
            return None
        operation, params = found
        return Call(self, req, "1.0", None, camel(params), rest=True).answer(operation)

    def _authorized(self, request: Request) -> bool:
        return request.headers.get("authorization") == f"Bearer {self.bearer_token}"

    def agent_card(self, request: Request | None = None) -> dict[str, Any]:
        """The agent card (its URLs on the request's host)."""
        host = request.headers.get("host", "localhost") if request is not None else "localhost"
        url = f"http://{host}{self.path}"
        newest_first = sorted(self.versions, reverse=True)
        bindings = ["JSONRPC", "HTTP+JSON"] if self.http_json else ["JSONRPC"]
        capabilities: dict[str, Any] = {
            "streaming": True,
            "pushNotifications": self.push_notifications,
        }
        if self.extended_card is not None:
            capabilities["extendedAgentCard"] = True  # 1.0
        card: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "version": "1.0.0",
            "supportedInterfaces": [
                {"url": url, "protocolBinding": b, "protocolVersion": v}
                for v in newest_first
                for b in bindings
                if b == "JSONRPC" or v == "1.0"
            ],
            "url": url,  # 0.3's fields, for clients that read no supportedInterfaces
            "protocolVersion": "0.3.0" if "0.3" in self.versions else "1.0",
            "preferredTransport": "JSONRPC",
            "capabilities": capabilities,
            "defaultInputModes": ["text/plain"],
            "defaultOutputModes": ["text/plain"],
            "skills": [
                {"id": "chat", "name": "chat", "description": self.description, "tags": ["chat"]}
            ],
        }
        if self.extended_card is not None:
            card["supportsAuthenticatedExtendedCard"] = True  # 0.3
        if self.bearer_token is not None:
            card["securitySchemes"] = {"bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer"}}}
            card["securityRequirements"] = [{"schemes": {"bearer": {"list": []}}}]
        card.update(self.card)
        return card

    def extended_agent_card(self, request: Request | None = None) -> dict[str, Any] | None:
        """The extended agent card (None: the agent has none)."""
        if self.extended_card is None:
            return None
        return {**self.agent_card(request), **self.extended_card}

    def _rpc(self, req: Request) -> Reply:
        message = jsonrpc.parse(req.body)
        if isinstance(message, jsonrpc.Invalid):
            return ok().json(message.answer())
        if not isinstance(message, jsonrpc.Request):
            return _invalid(None, "expected one JSON-RPC 2.0 request (A2A has no batches)")
        id_, method = message.id, message.method
        known = METHODS.get(method)
        if known is None or known[0] not in self.versions:
            spoken = " and ".join(self.versions)
            return ok().json(
                error(
                    id_,
                    ERRORS["method_not_found"],
                    f"Method not found: {method} (this agent speaks A2A {spoken})",
                )
            )
        asked = req.headers.get(VERSION_HEADER)
        if asked is not None and asked.strip()[:3] not in self.versions:
            return ok().json(
                error(
                    id_,
                    ERRORS["version_not_supported"],
                    f"Version not supported: {VERSION_HEADER}: {asked}",
                )
            )
        params = {} if message.params is None else message.params
        if not isinstance(params, dict):
            return ok().json(
                error(id_, ERRORS["invalid_params"], "Invalid params: params must be an object")
            )
        version, operation = known
        if version == "1.0":
            params = camel(params)
        return Call(self, req, version, id_, params).answer(operation)


def _invalid(id_: Any, why: str) -> Reply:
    return ok().json(error(id_, ERRORS["invalid_request"], f"Invalid Request: {why}"))
