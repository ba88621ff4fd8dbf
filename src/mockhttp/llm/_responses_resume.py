"""Resuming a Responses stream: ``GET /v1/responses/{id}?stream=true&starting_after=N``.

OpenAI's background-mode resume: a client whose stream was cut asks for the events of
response ``id`` after the ``sequence_number`` it saw last.  The reply that issued the id
answers it: it remembers, per response id it streamed, what the stream was made for (the
call number and the request body: the id alone cannot carry an arbitrary body), renders
the same stream again (the same ids, text, usage and quirks) and sends the events whose
``sequence_number`` is greater than N.  Without ``stream=true`` the GET gets the finished
response as JSON; so does a buffered ``background: true`` create, answered ``queued``
(its output empty) and remembered the same way.

Rule 1: the memory is bounded (``REMEMBERED`` ids, oldest forgotten first) and belongs to
the reply object, so it lives in one process: under ``serve --workers`` the GET must reach
the worker that streamed (docs/limits.md).
Rule 2: an id the reply did not issue (or has forgotten), or an N that is not a whole
number, gets OpenAI's error JSON (404, 400), never a stream.
"""

from __future__ import annotations

import random
import threading
from collections import OrderedDict
from dataclasses import replace
from typing import Any

from .._core._reply import Reply, status
from .._core._request import Request
from ._base import LLMReply
from ._draft import Context, Draft, render

__all__ = ["REMEMBERED", "remember", "retrieve"]

REMEMBERED = 1024  # response ids one reply remembers
_LOCK = threading.Lock()


def _memory(reply: LLMReply) -> OrderedDict[str, Context]:
    found: OrderedDict[str, Context] | None = reply.__dict__.get("_issued")
    if found is None:
        found = OrderedDict()
        reply.__dict__["_issued"] = found  # frozen dataclass: its own cache, as _salt
    return found


def remember(reply: LLMReply, response_id: str, context: Context) -> None:
    """Keep what the stream of ``response_id`` was made for (bounded, oldest out first)."""
    with _LOCK:
        memory = _memory(reply)
        memory[response_id] = context
        memory.move_to_end(response_id)
        while len(memory) > REMEMBERED:
            memory.popitem(last=False)


def retrieve(reply: LLMReply, request: Request) -> Reply:
    """The answer to ``GET .../responses/{id}``: the events after ``starting_after``."""
    response_id = request.path.rstrip("/").rpartition("/")[2]
    query = dict(request.query)
    with _LOCK:
        saved = _memory(reply).get(response_id)
    if saved is None:
        return _error(404, f"No response found with id '{response_id}'.", "not_found")
    after = query.get("starting_after", "-1")
    if not after.lstrip("-").isdigit():
        return _error(400, f"starting_after={after!r} is not an integer.", "invalid_value")
    streamed = query.get("stream", "false").lower() == "true"
    rng = random.Random(f"{reply.seed}:{saved.call}")  # as the first render drew it
    body = {**saved.body, "stream": streamed, "background": False}  # as it ran to the end
    context = Context(saved.request, body, saved.call, rng, saved.model)
    draft = reply.transformed(reply.draft(context), context)
    return render(_after(draft, int(after)), reply.timing, rng)


def _after(draft: Draft, after: int) -> Draft:
    """``draft`` with only the events whose ``sequence_number`` is greater than ``after``."""
    if not draft.streamed:
        return draft
    kept = tuple(c for c in draft.chunks if _number(c.data) > after)
    return replace(draft, chunks=kept)


def _number(data: Any) -> int:
    value = data.get("sequence_number") if isinstance(data, dict) else None
    return value if isinstance(value, int) else -1


def _error(code: int, message: str, short: str) -> Reply:
    error = {"message": message, "type": "invalid_request_error", "param": None, "code": short}
    return status(code).json({"error": error})
