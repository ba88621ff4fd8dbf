"""The ``websocket`` reply kind: an upgrade request answered with 101 and a scripted
session (``_session.Session``) on the connection.

Rule 1: a request that does not ask to upgrade to ``websocket`` gets 426 (the upgrade
seam's refusal); one that asks without ``Sec-WebSocket-Key`` or with a version other than
13 gets 400 (RFC 6455 §4.2.1), naming what is missing.
Rule 2: ``subprotocol`` is chosen only when the client offers it (``Sec-WebSocket-Protocol``).
Rule 3: every session is kept in ``sessions`` (its frames both ways) until ``forget``.
Rule 4 (Origin, against cross-site WebSocket hijacking: browsers send ``Origin`` and no
CORS applies to a WebSocket): an upgrade with no ``Origin`` (no browser's) or one from a
loopback page, or from the request's own host, is answered; another page's gets 403
unless ``allow_origins`` lists it (``*``: any; ``mockhttp serve --allow-origin``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, ClassVar

from wsproto.utilities import generate_accept_token

from .._core._errors import ConfigError, VerificationError
from .._core._mock import Mock, request
from .._core._origin import allowed_origin
from .._core._registry import ReplyKind
from .._core._reply import Reply, status
from .._core._request import Request
from .._server._upgrade import switching
from ._chaos import chaos_of
from ._journal import session_json, session_of
from ._script import Step, steps_of, to_data
from ._session import MAX_MESSAGE, Responder, Session

__all__ = ["WebSocket"]


@dataclass(frozen=True)
class WebSocket(ReplyKind):
    """A scripted WebSocket endpoint.

    Args:
        script: the steps (``send``, ``expect``, ``echo``, ``pause``, ``close``; records
            from :mod:`mockhttp.ws` or their file forms), run on each connection.
        subprotocol: the ``Sec-WebSocket-Protocol`` to choose when the client offers it.
        max_message: the largest message the mock takes (bytes); a bigger one closes 1009.
        allow_origins: ``Origin`` values answered beside loopback ones and the request's own
            host (``"*"``: any); an upgrade from another page gets 403 (Rule 4).
        chaos: seeded faults in place of some messages (``ws.chaos(p, seed=, faults=)``,
            or its file form ``{p: 0.1, seed: 1, faults: [drop, cut]}``; ``_chaos``).
    """

    file_key: ClassVar[str] = "websocket"

    script: Sequence[Any] = ()
    _: KW_ONLY
    subprotocol: str | None = None
    max_message: int = MAX_MESSAGE
    chaos: Any = None
    allow_origins: Sequence[str] = ()
    _sessions: list[Session] = field(
        default_factory=list, init=False, repr=False, compare=False, hash=False
    )
    _changed: threading.Condition = field(
        default_factory=threading.Condition, init=False, repr=False, compare=False, hash=False
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "script", steps_of(self.script))
        object.__setattr__(self, "chaos", chaos_of(self.chaos))
        origins = self.allow_origins
        if isinstance(origins, str) or not isinstance(origins, Sequence):
            raise ConfigError(f"allow_origins={origins!r} must be a list of origins")
        if not all(isinstance(o, str) and o for o in origins):
            raise ConfigError(
                f"allow_origins={list(origins)!r} must hold origins such as 'http://app.example'"
            )
        object.__setattr__(self, "allow_origins", tuple(origins))
        sub = self.subprotocol
        if sub is not None and (not isinstance(sub, str) or not sub or " " in sub):
            raise ConfigError(f"subprotocol={sub!r} must be one token such as 'chat'")
        size = self.max_message
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ConfigError(f"max_message={size!r} must be a positive int (bytes)")

    # -- the test's side -----------------------------------------------------------------------

    def mock(self, path: str = "/", *, name: str | None = None) -> Mock:
        """A mock answering ``GET path`` (an upgrade request) with this endpoint."""
        return request("GET", path, name=name).reply(self)

    @property
    def sessions(self) -> list[Session]:
        """The sessions so far, oldest first (each with its ``frames``)."""
        with self._changed:
            return list(self._sessions)

    def wait_ended(self, count: int = 1, timeout: float = 10.0) -> list[Session]:
        """Wait until ``count`` sessions have ended (closed or dropped); they, oldest first.

        Raises:
            VerificationError: fewer ended within ``timeout`` seconds.
        """
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                ended = [s for s in self._sessions if s.ended.is_set()]
                if len(ended) >= count:
                    return ended
                left = deadline - time.monotonic()
                if left <= 0:
                    raise VerificationError(
                        f"websocket: {len(ended)} of {count} sessions ended within {timeout}s"
                        f" ({len(self._sessions)} began)"
                    )
                self._changed.wait(left)

    def session_json(
        self, request: Request, hide: Callable[[str], str] | None = None
    ) -> dict[str, Any] | None:
        """The journal (JSON) of the session ``request`` opened, matched by its
        ``Sec-WebSocket-Key``, or None (the admin journal's ``websocket`` of a call)."""
        found = session_of(self.sessions, request.headers.get("sec-websocket-key"))
        return None if found is None else session_json(found, hide)

    def check(self) -> None:
        """Raise the first refusal of any session so far (a responder's
        ``RefusedRequest``, such as a conversation's turn the client missed).

        Raises:
            RefusedRequest: what a session refused, with its message.
        """
        __tracebackhide__ = True
        for session in self.sessions:
            if session.errors:
                raise session.errors[0]

    def forget(self) -> None:
        with self._changed:
            self._sessions.clear()

    # -- the file form ---------------------------------------------------------------------------

    def to_args(self) -> dict[str, Any]:
        out: dict[str, Any] = {"script": [to_data(s) for s in self.script]}
        if self.subprotocol is not None:
            out["subprotocol"] = self.subprotocol
        if self.max_message != MAX_MESSAGE:
            out["max_message"] = self.max_message
        return self.with_chaos(out)

    def with_chaos(self, args: dict[str, Any]) -> dict[str, Any]:
        """``args`` with this endpoint's ``chaos`` and ``allow_origins`` (file forms), if set."""
        if self.chaos is not None:
            args["chaos"] = self.chaos.to_args()
        if self.allow_origins:
            args["allow_origins"] = list(self.allow_origins)
        return args

    # -- answering -------------------------------------------------------------------------------

    def build(self, request: Request) -> Reply:
        script: tuple[Step, ...] = tuple(self.script)
        reply: Reply = switching(lambda: self._session(script, request), "websocket")
        if "websocket" not in request.headers.get("upgrade", "").lower():
            return reply  # (refused with 426 by the seam)
        origin = request.headers.get("origin")
        host = request.headers.get("host")
        if origin is not None and not allowed_origin(origin, host, self.allow_origins):
            return (
                status(403)
                .header("Content-Type", "text/plain; charset=utf-8")
                .body(
                    f"Forbidden: Origin {origin!r} is not allowed (a web page of another "
                    "site); allow it with allow_origins (--allow-origin)\n"
                )
            )
        key = request.headers.get("sec-websocket-key", "")
        version = request.headers.get("sec-websocket-version", "")
        if not key or version != "13":
            missing = (
                "Sec-WebSocket-Key" if not key else f"Sec-WebSocket-Version 13 (got {version!r})"
            )
            return (
                status(400)
                .header("Sec-WebSocket-Version", "13")
                .header("Content-Type", "text/plain; charset=utf-8")
                .body(f"a WebSocket upgrade needs {missing}\n")
            )
        reply = reply.header("Sec-WebSocket-Accept", generate_accept_token(key.encode()).decode())
        offered = [p.strip() for p in request.headers.get("sec-websocket-protocol", "").split(",")]
        if self.subprotocol is not None and self.subprotocol in offered:
            reply = reply.header("Sec-WebSocket-Protocol", self.subprotocol)
        return reply

    def _session(self, script: tuple[Step, ...], request: Request) -> Session:
        with self._changed:
            number = len(self._sessions)
            session = Session(
                script, request, self._ended, self.max_message, self.responder(),
                chaos=self.chaos, number=number,
            )  # fmt: skip
            self._sessions.append(session)
            self._changed.notify_all()
        return session

    def responder(self) -> Responder | None:
        """A protocol's mock for a new session (None: the script only)."""
        return None

    def _ended(self, _session: Session) -> None:
        with self._changed:
            self._changed.notify_all()
