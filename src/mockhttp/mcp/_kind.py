"""The mock MCP server: a reply kind that answers the Streamable HTTP transport.

``McpServer.build(request)`` reads one HTTP request to the MCP endpoint and answers it as
the transport says (see :mod:`mockhttp.mcp._spec`): ``POST`` of a request gets its
response as JSON or as an SSE stream (notifications first, the response last), ``POST``
of a notification or response gets ``202``, ``GET`` opens the session's stream of
server-to-client messages (or resumes one after ``Last-Event-ID``), ``DELETE`` ends the
session.  Its state (sessions, streams kept for resumption, the tools' script places)
lives in a :class:`~mockhttp.mcp._sessions.State` it owns.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, cast

from .._core import _jsonrpc as jsonrpc
from .._core._errors import ConfigError
from .._core._kept import Kept, KeptKind, registered_key
from .._core._mock import Mock, request
from .._core._reply import Reply, ok, status
from .._core._request import Request
from .._server._feed import Feed
from . import _stateless as stateless
from ._asking import ClientResponse, Exchange, problem
from ._catalog import Tool
from ._faults import MethodFault
from ._fields import check_sequence, check_text, records
from ._guard import refusal
from ._methods import answer
from ._prompts import Prompt
from ._resources import Resource, ResourceTemplate
from ._sessions import Cancelled, Session, State, sse_event
from ._spec import (
    BATCHES_UNTIL,
    INTERNAL_ERROR,
    INVALID_REQUEST,
    LIST_CHANGED,
    PARSE_ERROR,
    PRIMING_FROM,
    REVISIONS,
    SESSION_HEADER,
    STATEFUL,
    VERSION_HEADER,
    error,
    negotiate,
    notification,
    result,
)

__all__ = ["McpServer"]

AnswerAs = Literal["auto", "json", "sse"]
Aimed = MethodFault  # (a name without "Fault": the file reader takes those for fault forms)
_ANSWER_AS = ("auto", "json", "sse")


@dataclass(frozen=True)
class McpServer(KeptKind):
    """A mock MCP server on the Streamable HTTP transport.

    Args:
        tools: the tools (``mcp.tool(...)``, or their data) with their scripted answers.
        resources: the resources (``mcp.resource(uri, text)``).
        prompts: the prompts (``mcp.prompt(name, text)``).
        name: the ``serverInfo`` name (also the logger of log notifications).
        version: the ``serverInfo`` version.
        instructions: the ``instructions`` of the initialize result, if any.
        protocol_versions: the revisions the mock speaks; ``initialize`` answers the
            client's when it is one of them, else the newest.
        answer_as: ``"auto"``: an SSE stream when there are notifications to send before
            the response, else JSON; ``"sse"`` or ``"json"``: always that (when the
            request's ``Accept`` allows it; JSON drops the notifications).
        sessions: issue an ``Mcp-Session-Id`` on initialize and require it after.
        get_stream: offer the GET stream (False: ``405``).
        retry: the SSE ``retry`` field (milliseconds) on each stream's first event: how
            soon a client reconnects after a cut.
        templates: the resource templates (``mcp.template(uri_template, text)``).
        page_size: list at most this many tools, resources, templates or prompts a page
            (a ``nextCursor`` to the next); None: all in one.
        faults: faults aimed at one method's answers (``mcp.method_fault(...)``).
        allow_hosts: ``Host`` names answered beside IP addresses and localhost ("*": any).
        allow_origins: ``Origin`` values answered beside loopback ones ("*": any).
        max_sessions: sessions kept at most; ``initialize`` beyond ends the oldest.
        max_batch: messages in a JSON-RPC batch at most (revision 2025-03-26).
    """

    file_key: ClassVar[str] = "mcp"

    tools: Sequence[Tool | Mapping[str, Any]] = ()
    resources: Sequence[Resource | Mapping[str, Any]] = ()
    prompts: Sequence[Prompt | Mapping[str, Any]] = ()
    name: str = "mockhttp-mcp"
    version: str = "1.0.0"
    instructions: str | None = None
    protocol_versions: Sequence[str] = REVISIONS
    answer_as: AnswerAs = "auto"
    sessions: bool = True
    get_stream: bool = True
    retry: int | None = None
    templates: Sequence[ResourceTemplate | Mapping[str, Any]] = ()
    page_size: int | None = None
    faults: Sequence[Aimed | Mapping[str, Any]] = ()
    allow_hosts: Sequence[str] = ()
    allow_origins: Sequence[str] = ()
    max_sessions: int = 1000
    max_batch: int = 100
    state: State = field(default_factory=State, compare=False, repr=False)
    state_key = "mcp"  # (until registered: ``forget``)

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "tools", records(Tool, self.tools, "tools"))
        set_(self, "resources", records(Resource, self.resources, "resources"))
        set_(self, "prompts", records(Prompt, self.prompts, "prompts"))
        set_(self, "templates", records(ResourceTemplate, self.templates, "templates"))
        faults = check_sequence(self.faults, "faults")
        set_(self, "faults", tuple(MethodFault.of(f, f"faults[{i}]") for i, f in enumerate(faults)))
        for name in ("allow_hosts", "allow_origins"):
            values = check_sequence(getattr(self, name), name)
            set_(self, name, tuple(check_text(v, f"{name}[{i}]") for i, v in enumerate(values)))
        names = [t.name for t in self.offered_tools]
        for i, name in enumerate(names):
            if name in names[:i]:
                raise ConfigError(f"tools[{i}].name: {name!r} is a second tool of that name")
        self._check_options()

    def _check_options(self) -> None:
        versions = self.protocol_versions
        if isinstance(versions, str):
            versions = (versions,)
        if not versions or any(v not in REVISIONS for v in versions):
            raise ConfigError(
                f"protocol_versions={self.protocol_versions!r} must be revisions among "
                f"{', '.join(REVISIONS)}"
            )
        object.__setattr__(self, "protocol_versions", tuple(sorted(set(versions))))
        if self.answer_as not in _ANSWER_AS:
            raise ConfigError(
                f"answer_as={self.answer_as!r} must be one of {', '.join(_ANSWER_AS)}"
            )
        for flag in ("sessions", "get_stream"):
            if not isinstance(getattr(self, flag), bool):
                raise ConfigError(f"{flag}={getattr(self, flag)!r} must be true or false")
        retry = self.retry
        if retry is not None and (
            isinstance(retry, bool) or not isinstance(retry, int) or retry < 0
        ):
            raise ConfigError(f"retry={retry!r} must be a number of milliseconds (an int)")
        for name in ("page_size", "max_sessions", "max_batch"):
            value = getattr(self, name)
            if (value is not None or name != "page_size") and (
                isinstance(value, bool) or not isinstance(value, int) or value < 1
            ):
                raise ConfigError(f"{name}={value!r} must be a whole number from 1")

    @property
    def offered_tools(self) -> tuple[Tool, ...]:
        """The tools, as records (``tools`` holds them once built)."""
        return cast("tuple[Tool, ...]", self.tools)

    @property
    def offered_resources(self) -> tuple[Resource, ...]:
        return cast("tuple[Resource, ...]", self.resources)

    @property
    def offered_prompts(self) -> tuple[Prompt, ...]:
        return cast("tuple[Prompt, ...]", self.prompts)

    @property
    def offered_templates(self) -> tuple[ResourceTemplate, ...]:
        return cast("tuple[ResourceTemplate, ...]", self.templates)

    @property
    def method_faults(self) -> tuple[MethodFault, ...]:
        return cast("tuple[MethodFault, ...]", self.faults)

    # -- the test's side -----------------------------------------------------------------

    def mock(self, path: str = "/mcp", *, name: str | None = "mcp") -> Mock:
        """A mock answering every method at ``path`` with this server."""
        return request(None, path, name=name).reply(self)

    def notify(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        """Send a notification to every live session on its GET stream (held for the next
        GET when none is open), e.g. ``notify("notifications/tools/list_changed")``."""
        if not isinstance(method, str) or not method.startswith("notifications/"):
            raise ConfigError(
                f"method={method!r} must be a notification such as 'notifications/message'"
            )
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = dict(params)
        self.state.push(message)
        self.state.tell_listeners(method, message.get("params"))

    def update(self, uri: str) -> int:
        """Tell the sessions subscribed to ``uri`` (``resources/subscribe``) that it
        changed: ``notifications/resources/updated`` on their GET streams.  Returns how
        many sessions were told."""
        if not isinstance(uri, str) or not uri:
            raise ConfigError(f"uri={uri!r} must be a resource's URI")
        message = notification("notifications/resources/updated", {"uri": uri})
        listening = self.state.tell_listeners(message["method"], {"uri": uri})
        return self.state.push(message, uri=uri) + listening

    def list_changed(self, what: str) -> None:
        """Send ``notifications/<what>/list_changed`` (``what``: tools, resources or
        prompts) to every live session, on its GET stream."""
        if what not in LIST_CHANGED:
            raise ConfigError(f"what={what!r} must be one of {', '.join(LIST_CHANGED)}")
        self.notify(f"notifications/{what}/list_changed")

    @property
    def cancelled(self) -> tuple[Cancelled, ...]:
        """The requests the client cancelled (``notifications/cancelled``), in order."""
        return self.state.cancelled()

    def expire(self, session_id: str | None = None) -> int:
        """End ``session_id`` (None: every session), as if it expired: its next request
        gets ``404 Not Found``.  Returns how many sessions ended."""
        return self.state.expire(session_id)

    @property
    def client_responses(self) -> tuple[ClientResponse, ...]:
        """What the client answered to the mock's requests (sampling, elicitation,
        roots), in order."""
        return self.state.client_responses()

    @property
    def session_ids(self) -> tuple[str, ...]:
        """The live sessions' ids, oldest first."""
        return self.state.session_ids()

    def reset(self) -> None:
        """Forget every session and start each tool's answers again."""
        self.state.reset()

    def forget(self) -> None:
        """Called when the mock is registered (and when the server's journal is cleared:
        then nothing changes, the sessions live on): its state takes a key of its own
        (``registered_key``)."""
        if "state_key" not in self.__dict__:
            object.__setattr__(self, "state_key", registered_key("mcp"))

    # -- the file form -------------------------------------------------------------------

    def to_args(self) -> dict[str, Any]:
        default = _default()
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name not in ("state", "state_key") and value != getattr(default, f.name):
                out[f.name] = [v.to_data() for v in value] if f.name in _RECORDS else _plain(value)
        return out

    # -- answering -----------------------------------------------------------------------

    def build(self, request: Request) -> Reply:
        """The answer outside a server: the state is the kind's own (``State.own``)."""
        return self.build_kept(request, self.state.own)

    def build_kept(self, request: Request, kept: Kept) -> Reply:
        """The answer, with the sessions and script places in ``kept`` (the server's)."""
        self.state.bind(kept)
        headers = request.headers
        refused = refusal(
            headers.get("host"), headers.get("origin"), self.allow_hosts, self.allow_origins
        )
        if refused is not None:
            id_ = jsonrpc.readable_id(_json_or_none(request)) if request.method == "POST" else None
            return _http_error(403, refused, id_=id_)
        if request.method == "POST":
            return self._post(request)
        if request.method == "GET":
            return self._get(request)
        if request.method == "DELETE":
            return self._delete(request)
        return _http_error(405, "Method Not Allowed: use POST, GET or DELETE").header(
            "Allow", "GET, POST, DELETE"
        )

    def _post(self, req: Request) -> Reply:
        try:
            raw = req.json()
        except ValueError as exc:
            return _http_error(400, f"Parse error: {exc}", PARSE_ERROR)
        read = jsonrpc.read(raw)
        id_ = jsonrpc.readable_id(raw)
        if not any(_accepts(req)):
            return _http_error(
                406, "Not Acceptable: accept application/json or text/event-stream", id_=id_
            )
        if isinstance(read, jsonrpc.Batch):
            return self._batch(req, raw, read)
        if isinstance(read, jsonrpc.Invalid):
            return status(400).json(read.answer())
        if isinstance(read, jsonrpc.Request) and stateless.is_stateless(
            req.headers, read, STATEFUL
        ):
            return self._stateless(req, read, raw)
        if _calls(read, "initialize"):
            return self._initialize(req, raw)
        session = self._session(req, id_)
        if isinstance(session, Reply):
            return session
        if isinstance(read, jsonrpc.Response):  # a response to the mock's request
            if self.state.reply(session, raw):
                return status(202)
            return _http_error(400, f"Bad Request: no request of the mock has id {id_!r}", id_=id_)
        if read.notification:
            self._notified(session, read)
            return status(202)
        found = self._aimed(read)
        aimed = found[1] if found is not None else None
        messages = answer(self, session, raw)
        resume = found[0] if found is not None and found[1].resume else None
        reply = self._answer(req, session, messages, resume=resume, sse=aimed is not None)
        return reply.pipe(*aimed.pipe) if aimed is not None else reply

    def _stateless(self, req: Request, read: jsonrpc.Request, raw: Any) -> Reply:
        """A request of revision 2026-07-28 (see ``_stateless``): checked, answered with
        no session, its result shaped as that revision writes it."""
        refused = stateless.refusal(req.headers, read, self.protocol_versions)
        if refused is not None:
            return status(refused[0]).json(refused[1])
        if read.notification:
            return status(202)
        session = stateless.session_for(read)
        mismatch = self._param_mismatch(req, read)
        if mismatch is not None:
            return status(400).json(error(read.id, stateless.HEADER_MISMATCH, mismatch))
        if read.method == "server/discover":
            messages: list[Any] = [result(read.id, self._discover())]
        elif read.method == "subscriptions/listen":
            return self._listen(read)
        else:
            messages = answer(self, session, raw)
        if isinstance(messages[-1], Exchange):
            messages[-1] = stateless.input_required(read, messages[-1], session, self.state)
        messages[-1] = stateless.shape(read.method, messages[-1])
        code = messages[-1].get("error", {}).get("code")
        if code in stateless.HTTP_STATUS:
            return status(stateless.HTTP_STATUS[code]).json(messages[-1])
        found = self._aimed(read)
        aimed = found[1] if found is not None else None
        json_ok, sse_ok = _accepts(req)
        wants_sse = (
            aimed is not None
            or self.answer_as == "sse"
            or (self.answer_as == "auto" and len(messages) > 1)
        )
        if not (sse_ok and (wants_sse or not json_ok)):
            reply = ok().json(messages[-1])
        else:
            reply = ok().event_stream(*(sse_event(None, m) for m in messages))
        return reply.pipe(*aimed.pipe) if aimed is not None else reply

    def _param_mismatch(self, req: Request, read: jsonrpc.Request) -> str | None:
        """A call's ``Mcp-Param-*`` headers checked against its arguments (SEP-2243)."""
        if read.method != "tools/call":
            return None
        tool = next((t for t in self.offered_tools if t.name == read.named.get("name")), None)
        arguments = read.named.get("arguments")
        if tool is None or not isinstance(arguments, Mapping):
            return None
        return stateless.param_mismatch(req.headers, arguments, tool.input_schema)

    def _discover(self) -> dict[str, Any]:
        """``server/discover``: the revisions spoken, the capabilities, who it is."""
        info = {"name": self.name, "version": self.version}
        value: dict[str, Any] = {
            "supportedVersions": list(self.protocol_versions),
            "capabilities": _CAPABILITIES,
            "_meta": {"io.modelcontextprotocol/serverInfo": info},
        }
        if self.instructions is not None:
            value["instructions"] = self.instructions
        return value

    def _listen(self, read: jsonrpc.Request) -> Reply:
        """``subscriptions/listen``: a stream acknowledging the notifications it will
        carry (those the server has), then each as it happens."""
        asked = read.named.get("notifications")
        asked = asked if isinstance(asked, Mapping) else {}
        wanted = {k: v for k, v in asked.items() if k in _LISTENABLE and v}
        meta = {"io.modelcontextprotocol/subscriptionId": read.id}
        ack = notification(
            "notifications/subscriptions/acknowledged",
            {"notifications": wanted, "_meta": meta},
        )
        feed = Feed()
        feed.head(200, [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")])
        feed.data(sse_event(None, ack).encode())
        self.state.listen(feed, read.id, wanted)
        return feed.reply()

    def _notified(self, session: Session, note: jsonrpc.Request) -> None:
        """A notification from the client: ``initialized``, or ``cancelled``."""
        if note.method == "notifications/initialized":
            self.state.initialized(session)
        elif note.method == "notifications/cancelled":
            params = note.named
            self.state.cancel(session, params.get("requestId"), params.get("reason"))

    def _aimed(self, request: jsonrpc.Request) -> tuple[int, MethodFault] | None:
        """The first method fault aimed at this request (its ``call``-th counted), and
        its place in ``faults``."""
        for i, aimed in enumerate(self.method_faults):
            if aimed.aims_at(request.method, request.named):
                n = self.state.count(("fault", i)) + 1
                if aimed.call is None or aimed.call == n:
                    return i, aimed
        return None

    def _batch(self, req: Request, raw: list[Any], batch: jsonrpc.Batch) -> Reply:
        """A JSON-RPC batch: answered in revision 2025-03-26, which has them; from
        2025-06-18 (which removed them) a ``400`` with an Invalid Request error."""
        session = self._session(req)
        if isinstance(session, Reply):
            return session
        revision = session.revision or req.headers.get(VERSION_HEADER) or BATCHES_UNTIL
        if revision > BATCHES_UNTIL or BATCHES_UNTIL not in self.protocol_versions:
            return _http_error(
                400,
                f"Invalid Request: revision {revision} has no JSON-RPC batches "
                f"(only {BATCHES_UNTIL} had them)",
            )
        if len(batch.messages) > self.max_batch:
            return _http_error(
                400,
                f"Invalid Request: a batch of {len(batch.messages)} messages is more than "
                f"this server takes (max_batch={self.max_batch})",
            )
        if any(_calls(m, "initialize") for m in batch.messages):
            return _http_error(400, "Invalid Request: a batch is not empty and has no initialize")
        messages: list[dict[str, Any]] = []
        responses: list[dict[str, Any]] = []
        for data, message in zip(raw, batch.messages, strict=True):
            out = self._in_batch(session, data, message)
            messages.extend(out)
            responses.extend(out[-1:])
        if not responses:
            return status(202)
        return self._answer(req, session, messages, batch=responses)

    def _in_batch(
        self, session: Session, data: Any, message: jsonrpc.Message
    ) -> list[dict[str, Any]]:
        """What one message of a batch gets: its notifications and response (none for a
        notification or a response the mock was waiting for)."""
        if isinstance(message, jsonrpc.Invalid):
            return [message.answer()]
        if isinstance(message, jsonrpc.Response):
            if self.state.reply(session, data):
                return []
            return [error(message.id, INVALID_REQUEST, "no request has this id")]
        if message.notification:
            self._notified(session, message)
            return []
        out = answer(self, session, data)
        if isinstance(out[-1], Exchange):  # asking the client waits: not inside a batch
            text = "a tool that asks the client cannot answer inside a batch"
            return [error(message.id, INVALID_REQUEST, text)]
        return cast("list[dict[str, Any]]", out)

    def _initialize(self, req: Request, message: dict[str, Any]) -> Reply:
        params = message.get("params")
        asked = params.get("protocolVersion") if isinstance(params, dict) else None
        revision = negotiate(asked, self.protocol_versions)
        capabilities = params.get("capabilities") if isinstance(params, dict) else None
        capabilities = capabilities if isinstance(capabilities, dict) else {}
        if self.sessions:
            session = self.state.open(revision, capabilities, self.max_sessions)
        else:
            session = self.state.stateless(capabilities)
        info = {"name": self.name, "version": self.version}
        value: dict[str, Any] = {
            "protocolVersion": revision,
            "capabilities": _CAPABILITIES,
            "serverInfo": info,
        }
        if self.instructions is not None:
            value["instructions"] = self.instructions
        reply = self._answer(req, session, [result(message["id"], value)], revision)
        return reply.header(SESSION_HEADER, session.id) if self.sessions else reply

    def _session(self, req: Request, id_: jsonrpc.Id = None) -> Session | Reply:
        """The request's session, or the error reply (with the request's id ``id_``): 400
        without one, 404 for an unknown or ended one, 400 for a revision the mock does not
        speak."""
        version = req.headers.get(VERSION_HEADER)
        if version is not None and version not in self.protocol_versions:
            text = f"Bad Request: unsupported {VERSION_HEADER}: {version}"
            return _http_error(400, text, id_=id_)
        if not self.sessions:
            return self.state.stateless()
        session_id = req.headers.get(SESSION_HEADER)
        if not session_id:
            text = f"Bad Request: no {SESSION_HEADER} header (initialize first)"
            return _http_error(400, text, id_=id_)
        session = self.state.find(session_id)
        if session is None:
            text = "Session not found"
            if self.state.evicted(session_id):
                text += (
                    f": ended as the oldest when a session beyond max_sessions="
                    f"{self.max_sessions} began"
                )
            return _http_error(404, text, -32001, id_=id_)
        return session

    def _answer(
        self,
        req: Request,
        session: Session,
        messages: list[dict[str, Any]],
        revision: str = "",
        batch: list[dict[str, Any]] | None = None,
        resume: int | None = None,
        sse: bool = False,
    ) -> Reply:
        """The messages as a JSON answer (the response alone, or the ``batch`` of
        responses) or an SSE stream (``sse``: a stream whenever the client accepts one: a method
        fault aimed at it has events to cut; ``resume``: the one whose ``resume`` cuts its
        resumption)."""
        json_ok, sse_ok = _accepts(req)
        if isinstance(messages[-1], Exchange):
            return self._converse(req, session, messages[:-1], messages[-1])
        responses = 1 if batch is None else len(batch)
        wants_sse = (
            sse
            or self.answer_as == "sse"
            or (self.answer_as == "auto" and len(messages) > responses)
        )
        if not (sse_ok and (wants_sse or not json_ok)):
            return ok().json(messages[-1] if batch is None else batch)
        revision = revision or session.revision
        priming: list[dict[str, Any] | None] = [None] if revision >= PRIMING_FROM else []
        events: list[dict[str, Any] | None] = [*priming, *messages]
        number = self.state.stream(session, events, resume)
        return ok().event_stream(*self._events(number, 0, events))

    def _converse(
        self, req: Request, session: Session, before: list[dict[str, Any]], exchange: Exchange
    ) -> Reply:
        """A call that asks the client first: its SSE stream stays open (a feed) while the
        client answers each request (see ``_asking``)."""
        revision = session.revision or self.protocol_versions[-1]
        why = next(
            (
                p
                for a in exchange.asks
                if (p := problem(a["method"], revision, session.capabilities))
            ),
            None,
        )
        if why is None and not _accepts(req)[1]:
            why = "asking the client needs an SSE answer (Accept: text/event-stream)"
        if why is not None:
            return self._answer(
                req, session, [*before, error(exchange.call_id, INTERNAL_ERROR, why)]
            )
        priming: list[dict[str, Any] | None] = [None] if revision >= PRIMING_FROM else []
        events: list[dict[str, Any] | None] = [*priming, *before]
        number = self.state.stream(session, events)
        feed = Feed()
        feed.head(200, [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")])
        for i, event in enumerate(self._events(number, 0, events)):
            feed.data(event.encode(), event=i)
        self.state.converse(session, number, feed, exchange)
        return feed.reply()

    def _events(self, number: int, start: int, messages: Sequence[Any]) -> list[Any]:
        return [
            sse_event(f"{number}-{start + i}", m, self.retry if i == 0 else None)
            for i, m in enumerate(messages)
        ]

    def _get(self, req: Request) -> Reply:
        if not self.get_stream:
            return _http_error(405, "Method Not Allowed: this server offers no GET stream").header(
                "Allow", "POST, DELETE"
            )
        if "text/event-stream" not in req.headers.get("accept", ""):
            return _http_error(406, "Not Acceptable: a GET stream is text/event-stream")
        session = self._session(req)
        if isinstance(session, Reply):
            return session
        last = req.headers.get("last-event-id")
        start = None
        if last is not None:
            place = self.state.replay(session, last)
            if place is None:
                return _http_error(400, f"Bad Request: no event {last!r} in this session")
            number, start = place
            if number != 0:  # the rest of a POST answer's stream, then its end
                rest = self.state.events(session, number, start)
                resumed = ok().event_stream(*(sse_event(i, m) for i, m in rest))
                fault = session.resume.get(number)
                return resumed.pipe(*(() if fault is None else self.method_faults[fault].resume))
        feed = Feed()
        feed.head(200, [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")])
        self.state.attach(session, feed, start)
        return feed.reply()

    def _delete(self, req: Request) -> Reply:
        if not self.sessions:
            return _http_error(405, "Method Not Allowed: this server keeps no sessions")
        session = self._session(req)
        if isinstance(session, Reply):
            return session
        self.state.end(session.id)
        return status(200)


_RECORDS = ("tools", "resources", "prompts", "templates", "faults")
_LISTENABLE = (
    "toolsListChanged",
    "promptsListChanged",
    "resourcesListChanged",
    "resourceSubscriptions",
)
_CAPABILITIES: dict[str, Any] = {
    "tools": {"listChanged": True},
    "resources": {"subscribe": True, "listChanged": True},
    "prompts": {"listChanged": True},
    "logging": {},
    "completions": {},
}


def _default() -> McpServer:
    """A server with every default (what ``to_args`` leaves out)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = McpServer()
    return _DEFAULT


_DEFAULT: McpServer | None = None


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _accepts(req: Request) -> tuple[bool, bool]:
    """Whether the request accepts a JSON answer, and an SSE answer."""
    accept = req.headers.get("accept", "")
    json_ok = "application/json" in accept or "*/*" in accept or not accept
    return json_ok, "text/event-stream" in accept


def _json_or_none(req: Request) -> Any:
    try:
        return req.json()
    except ValueError:
        return None


def _calls(message: jsonrpc.Message, method: str) -> bool:
    """Whether ``message`` is a request (not a notification) of ``method``."""
    return isinstance(message, jsonrpc.Request) and (
        message.method == method and not message.notification
    )


def _http_error(
    code: int, message: str, rpc_code: int = INVALID_REQUEST, *, id_: jsonrpc.Id = None
) -> Reply:
    """An HTTP error whose body is a JSON-RPC error, with the request's id when it could
    be read (null otherwise)."""
    return status(code).json(error(id_, rpc_code, message))
