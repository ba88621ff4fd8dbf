"""Push notifications: the configs clients set on a task, and their delivery to the
client's webhook.

Rule 1 (the specification): a config names the webhook ``url``, an optional ``token``
and optional ``authentication`` (1.0: ``{scheme, credentials}``; 0.3: ``{schemes: [...],
credentials}``).  Each delivery is an HTTP POST of JSON to ``url`` with the token in
``X-A2A-Notification-Token`` and the credentials in ``Authorization: <scheme>
<credentials>``, so the webhook can tell the notification is the agent's.  1.0 posts a
``StreamResponse`` (``{"statusUpdate": ...}``, ``{"artifactUpdate": ...}``), 0.3 the task.
Rule 2: a task's step is delivered to each config the task has when the step is due (the
delivery leaves at the step's time); canceling the task drops its deliveries to come.
Rule 3: the configs are the server's state (``_core/_kept.py``, under ``p:<task id>``, read
and changed on the server's thread: ``bind``); the deliveries are I/O, this process's.
Rule 4: one daemon thread delivers, in due order; a webhook that fails is recorded
(``status`` 0 and the error), never retried, and never stops the agent.  Only ``http``
and ``https`` URLs are taken.  When no delivery is left queued, the HTTP client is closed
(its connections with it) before ``wait_idle`` sees the thread idle.
"""

from __future__ import annotations

import dataclasses
import heapq
import itertools
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx

from .._core._kept import Kept, Memory
from ._spec import Version
from ._tasks import counted, push_key
from ._validate import Invalid

__all__ = ["TOKEN_HEADER", "Config", "Delivery", "Push", "config_from"]

TOKEN_HEADER = "X-A2A-Notification-Token"


@dataclass(frozen=True)
class Config:
    """A push notification config of a task."""

    id: str
    task_id: str
    url: str
    token: str | None = None
    scheme: str | None = None
    credentials: str | None = None
    version: Version = "1.0"
    """The version of the request that set it: its deliveries are written in it."""

    def headers(self) -> dict[str, str]:
        out = {"content-type": "application/json"}
        if self.token:
            out[TOKEN_HEADER] = self.token
        if self.scheme and self.credentials:
            out["authorization"] = f"{self.scheme} {self.credentials}"
        return out

    def render(self, version: Version) -> dict[str, Any]:
        """The config on the wire: 1.0's flat ``TaskPushNotificationConfig``, 0.3's
        ``{taskId, pushNotificationConfig}``."""
        inner: dict[str, Any] = {"id": self.id, "url": self.url}
        if self.token:
            inner["token"] = self.token
        if version == "1.0":
            out: dict[str, Any] = {"id": self.id, "taskId": self.task_id, "url": self.url}
            if self.token:
                out["token"] = self.token
            if self.scheme:
                out["authentication"] = {"scheme": self.scheme}
            return out
        if self.scheme:
            inner["authentication"] = {"schemes": [self.scheme]}
        return {"taskId": self.task_id, "pushNotificationConfig": inner}


def config_from(params: dict[str, Any], version: Version, task_id: str, number: int) -> Config:
    """The config a set/create request carries (raises :class:`Invalid`)."""
    body = params if version == "1.0" else params.get("pushNotificationConfig")
    if version == "1.0" and isinstance(params.get("config"), dict):
        body = params["config"]  # the draft's {taskId, config: {...}} form
    if not isinstance(body, dict):
        raise Invalid("Invalid params: the push notification config is missing")
    url = body.get("url")
    if not isinstance(url, str) or urlsplit(url).scheme not in ("http", "https"):
        raise Invalid(f"Invalid params: url {url!r} must be an http or https URL")
    token = body.get("token")
    if token is not None and not isinstance(token, str):
        raise Invalid("Invalid params: token must be text")
    auth = body.get("authentication")
    scheme = credentials = None
    if isinstance(auth, dict):
        schemes = auth.get("schemes")
        named = schemes[0] if isinstance(schemes, list) and schemes else None
        scheme = auth.get("scheme") or named
        credentials = auth.get("credentials")
        if not isinstance(scheme, str) or not isinstance(credentials, str | None):
            raise Invalid("Invalid params: authentication needs a scheme (text) and credentials")
    config_id = body.get("id")
    if not isinstance(config_id, str) or not config_id:
        config_id = f"push-{number}"
    return Config(config_id, task_id, url, token, scheme, credentials, version)


@dataclass(frozen=True)
class Delivery:
    """A notification sent (or tried): where, the headers, the JSON body, the answer's
    status (0: it failed, ``error`` says how)."""

    url: str
    headers: dict[str, str]
    body: Any
    status: int = 0
    error: str | None = None


Post = Callable[[str, dict[str, str], bytes], int]


class _Poster:
    """POSTs with one HTTP client, made on first use (a client per delivery would pay for
    its TLS context each time: ~0.1 s, and a notification due now would come late), and
    closed when the deliveries run out (``close``): its kept-alive connection is not left
    open for the garbage collector to find."""

    def __init__(self) -> None:
        self._client: httpx.Client | None = None

    def __call__(self, url: str, headers: dict[str, str], body: bytes) -> int:
        if self._client is None:
            self._client = httpx.Client(timeout=5.0)
        return self._client.post(url, headers=headers, content=body).status_code

    def close(self) -> None:
        """Close the client and its connections; the next POST makes a new one."""
        client, self._client = self._client, None
        if client is not None:
            client.close()


@dataclass
class Push:
    """The configs of every task (kept by the server), and the deliveries (a thread's,
    under the lock)."""

    post: Post = field(default_factory=_Poster)
    clock: Callable[[], float] = time.time
    own: Memory = field(default_factory=Memory)  # the configs outside a server
    kept: Kept | None = None  # the server's (``bind``)
    _queue: list[tuple[float, int, str, Config, Any]] = field(default_factory=list)
    _sent: list[Delivery] = field(default_factory=list)
    _lock: threading.Condition = field(default_factory=threading.Condition)
    _count: itertools.count[int] = field(default_factory=itertools.count)
    _worker: threading.Thread | None = None
    _busy: bool = False

    # -- configs ----------------------------------------------------------------------

    def bind(self, kept: Kept) -> None:
        """Keep the configs in ``kept`` (the server's) from now on."""
        self.kept = kept

    @property
    def _kept(self) -> Kept:
        return self.own if self.kept is None else self.kept

    def add(self, config: Config) -> None:
        value = dataclasses.asdict(config)
        self._kept.update(push_key(config.task_id), lambda old: (_with(old, value), None))

    def number(self) -> int:
        """The number of a config the client gave no id (``push-N``)."""
        n: int = self._kept.update("pushes", counted)
        return n + 1

    def get(self, task_id: str, config_id: str | None) -> Config | None:
        configs = self.of(task_id)
        if config_id is None:
            return next(iter(configs), None)
        return next((c for c in configs if c.id == config_id), None)

    def of(self, task_id: str) -> list[Config]:
        found = self._kept.get(push_key(task_id)) or {}
        return [Config(**c) for c in found.values()]

    def delete(self, task_id: str, config_id: str) -> bool:
        def change(old: Any) -> tuple[Any, bool]:
            if not old or config_id not in old:
                return old, False
            rest = {k: v for k, v in old.items() if k != config_id}
            return rest or None, True

        done: bool = self._kept.update(push_key(task_id), change)
        return done

    # -- deliveries -------------------------------------------------------------------

    def send(self, task_id: str, when: float, body: Any, only: Config | None = None) -> None:
        """Deliver ``body`` to the task's configs (or ``only``) at ``when``."""
        configs = [only] if only is not None else self.of(task_id)
        with self._lock:
            for config in configs:
                heapq.heappush(self._queue, (when, next(self._count), task_id, config, body))
            self._start()
            self._lock.notify()

    def drop(self, task_id: str, after: float = float("-inf")) -> None:
        """Forget the task's deliveries due later than ``after`` (by default all of them
        still queued); those due by then go as planned."""
        with self._lock:
            self._queue = [item for item in self._queue if item[2] != task_id or item[0] <= after]
            heapq.heapify(self._queue)

    def sent(self) -> list[Delivery]:
        with self._lock:
            return list(self._sent)

    def wait_idle(self, timeout: float) -> bool:
        """Wait until no delivery is queued (True) or ``timeout`` passes (False)."""
        end = time.monotonic() + timeout
        with self._lock:
            while self._queue or self._busy:
                left = end - time.monotonic()
                if left <= 0:
                    return False
                self._lock.wait(min(left, 0.05))
            return True

    def reset(self) -> None:
        """Forget the deliveries (the configs go with the tasks: ``Tasks.reset``)."""
        self.own.clear()
        with self._lock:
            self._queue.clear()
            self._sent.clear()

    def _start(self) -> None:
        if self._worker is None or not self._worker.is_alive():
            self._worker = threading.Thread(target=self._deliver, name="a2a-push", daemon=True)
            self._worker.start()

    def _deliver(self) -> None:
        while True:
            with self._lock:
                while not self._queue or self._queue[0][0] > self.clock():
                    wait = self._queue[0][0] - self.clock() if self._queue else 1.0
                    self._lock.wait(max(min(wait, 1.0), 0.001))
                _, _, _, config, body = heapq.heappop(self._queue)
                self._busy = True
            delivery = self._one(config, body)
            with self._lock:
                idle = not self._queue
            if idle:  # (before ``_busy`` drops: ``wait_idle`` returns with it closed)
                _close(self.post)
            with self._lock:
                self._sent.append(delivery)
                self._busy = False
                self._lock.notify_all()

    def _one(self, config: Config, body: Any) -> Delivery:
        headers = config.headers()
        shown = {
            k: f"{config.scheme} ***" if k == "authorization" else v for k, v in headers.items()
        }
        try:
            status = self.post(config.url, headers, json.dumps(body).encode())
        except Exception as exc:  # a webhook's failure is recorded, not raised
            return Delivery(config.url, shown, body, 0, f"{type(exc).__name__}: {exc}")
        return Delivery(config.url, shown, body, status)


def _close(post: Post) -> None:
    """Close what ``post`` holds open, if it can be closed (a plain function cannot)."""
    close = getattr(post, "close", None)
    if callable(close):
        close()


def _with(configs: Any, value: dict[str, Any]) -> dict[str, Any]:
    """A task's configs (id -> config) with ``value`` set."""
    return {**(configs or {}), value["id"]: value}
