"""A2A server mocks: an agent card and the JSON-RPC binding, in A2A 0.3 and 1.0.

```python
import mockhttp
from mockhttp import a2a

with mockhttp.Server() as server:
    server.mock(a2a.agent(tasks=[
        a2a.task(a2a.status("working"), a2a.artifact("Hi"), a2a.status("completed")),
    ]))
```

:func:`agent` makes a mock answering the card's well-known paths
(``/.well-known/agent-card.json`` and the older ``/.well-known/agent.json``) and the
JSON-RPC endpoint with an :class:`A2aAgent`, a reply kind (``response: {a2a: {tasks:
[...]}}`` in mock files).  The request's method says the version: 0.3's ``message/send``,
``message/stream``, ``tasks/get``, ``tasks/cancel``, ``tasks/resubscribe``, or 1.0's
``SendMessage``, ``SendStreamingMessage``, ``GetTask``, ``CancelTask``, ``SubscribeToTask``.

Modules: ``_spec`` (versions, methods, states and transitions, error codes), ``_script``
(a task's steps as data), ``_tasks`` (the tasks the agent keeps, a run of a script),
``_render`` (the wire shapes of each version), ``_kind`` (the card and the JSON-RPC
answers).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._core._mock import Mock
from .._core._registry import register_reply_kind
from ._kind import A2aAgent as A2aAgent
from ._script import Artifact as Artifact
from ._script import Error as Error
from ._script import Message as Message
from ._script import Status as Status
from ._script import Task as Task
from ._script import artifact as artifact
from ._script import error as error
from ._script import message as message
from ._script import status as status
from ._script import task as task
from ._spec import STATES as STATES
from ._spec import TRANSITIONS as TRANSITIONS
from ._spec import VERSIONS as VERSIONS

register_reply_kind(A2aAgent.file_key, A2aAgent)


def agent(tasks: Sequence[Any] | None = None, **options: Any) -> Mock:
    """A mock answering the agent card and the JSON-RPC endpoint with
    ``A2aAgent(tasks, **options)`` (see :class:`A2aAgent`); ``mock.kind`` is that agent.

    Raises:
        ConfigError: a bad task, step or option (the message says which).
    """
    kind = A2aAgent(**options) if tasks is None else A2aAgent(tasks, **options)
    return kind.mock()


__all__ = [  # noqa: RUF022 (plain sorted order, as tests/test_exports.py checks)
    "A2aAgent",
    "Artifact",
    "Error",
    "Message",
    "STATES",
    "Status",
    "TRANSITIONS",
    "Task",
    "VERSIONS",
    "agent",
    "artifact",
    "error",
    "message",
    "status",
    "task",
]
