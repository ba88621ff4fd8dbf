"""Framing, error and event-protocol quirks: how providers' streams differ on the wire.

One maker per quirk of the ``framing``, ``error`` and ``event-protocol`` layers of the
catalogue (:mod:`mockhttp.contract._catalogue`); :mod:`._transforms` maps the ids to them.
The rules of :mod:`._chunk_quirks` hold here too: a transform changes only what its quirk
names, does nothing when there is nothing to act on, and is pure.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Callable
from typing import Any

from ..contract._catalogue import ANTHROPIC, RESPONSES
from ._draft import Chunk, Context, Draft, Transform
from ._edits import (
    choice_chunk,
    cut_after_first_content,
    index_of,
    insert,
    json_text,
    map_chunks,
    renumber,
)

# -- framing -----------------------------------------------------------------------------


def framing(**changes: Any) -> Callable[[], Transform]:
    def make() -> Transform:
        def transform(draft: Draft, context: Context) -> Draft:
            if not draft.streamed:
                return draft
            return dataclasses.replace(draft, framing=dataclasses.replace(draft.framing, **changes))

        return transform

    return make


def comments(text: str = "keep-alive", before: int = 2) -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        if not draft.streamed or not draft.chunks:
            return draft
        chunks = [Chunk(comment=text, kind="comment") for _ in range(before)]
        middle = len(draft.chunks) // 2
        for i, chunk in enumerate(draft.chunks):
            if i == middle:
                chunks.append(Chunk(comment=text, kind="comment"))
            chunks.append(chunk)
        return draft.with_chunks(chunks)

    return transform


def no_done() -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        return draft.with_chunks([c for c in draft.chunks if c.kind != "done"])

    return transform


def event_line(name: str = "completion.chunk") -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        return map_chunks(
            draft, lambda c: dataclasses.replace(c, event=name) if c.kind != "done" else c
        )

    return transform


def responses_no_event_line() -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        if not draft.streamed:
            return draft
        chunks = [dataclasses.replace(c, event=None) for c in draft.chunks]
        return draft.with_chunks([*chunks, Chunk("[DONE]", "done")])

    return transform


def json_padding(low: int = 2, high: int = 16) -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        def pad(chunk: Chunk) -> Chunk:
            if not isinstance(chunk.data, dict) or chunk.kind == "ping":
                return chunk
            text = json_text(chunk.data, draft)
            spaces = " " * context.rng.randint(low, high)
            return dataclasses.replace(chunk, data=text[:-1] + spaces + "}")

        return map_chunks(draft, pad) if draft.streamed else draft

    return transform


def json_mixed() -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        if not draft.streamed:
            return draft
        out = []
        for i, chunk in enumerate(draft.chunks):
            if isinstance(chunk.data, dict) and i % 2 == 1:
                spaced = json_text(chunk.data, draft, (", ", ": "))
                chunk = dataclasses.replace(chunk, data=spaced)
            out.append(chunk)
        return draft.with_chunks(out)

    return transform


def json_array() -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        if not draft.streamed:
            return draft
        headers = tuple(h for h in draft.headers if h[0].lower() != "content-type")
        body = [c.data for c in draft.chunks if isinstance(c.data, dict)]
        return Draft(
            draft.provider,
            False,
            draft.status,
            (("Content-Type", "application/json; charset=UTF-8"), *headers),
            body,
            framing=draft.framing,
        )

    return transform


# -- errors ------------------------------------------------------------------------------

_OPENAI_ERROR = {
    "message": "The server had an error while processing your request. Sorry about that!",
    "type": "server_error",
    "param": None,
    "code": None,
}


def bare_error(done: bool) -> Callable[[], Transform]:
    def make() -> Transform:
        def transform(draft: Draft, context: Context) -> Draft:
            if not draft.streamed:
                return draft
            error = Chunk(json.dumps({"error": _OPENAI_ERROR}), "error")
            tail = [Chunk("[DONE]", "done")] if done else []
            return draft.with_chunks([*cut_after_first_content(draft), error, *tail])

        return transform

    return make


def error_in_chunk() -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        if not draft.streamed:
            return draft
        failed = choice_chunk(draft, {"content": ""}, "error")
        failed.data["error"] = {"code": 400, "message": "Token limit reached"}
        kept = cut_after_first_content(draft)
        return draft.with_chunks([*kept, failed, Chunk("[DONE]", "done")])

    return transform


def error_event_named() -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        if not draft.streamed:
            return draft
        kept = cut_after_first_content(draft)
        error: dict[str, Any]
        if draft.provider == ANTHROPIC:
            error = {"details": None, "type": "overloaded_error", "message": "Overloaded"}
            chunk = Chunk({"type": "error", "error": error}, "error", event="error")
        elif draft.provider == RESPONSES:
            flat = {"code": "server_error", "message": "The server had an error.", "param": None}
            chunk = Chunk({"type": "error", "sequence_number": 0, **flat}, "error", event="error")
            return draft.with_chunks(renumber([*kept, chunk]))
        else:
            error = {
                "message": "Tool call validation failed: mock",
                "type": "invalid_request_error",
                "code": "tool_use_failed",
                "status_code": 400,
            }
            chunk = Chunk({"error": error}, "error", event="error")
        return draft.with_chunks([*kept, chunk])

    return transform


def truncate() -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        if not draft.streamed or len(draft.chunks) < 2:
            return draft
        middle = max(1, len(draft.chunks) // 2)
        kept = list(draft.chunks[:middle])
        cut = draft.chunks[middle]
        text = cut.data if isinstance(cut.data, str) else json_text(cut.data, draft)
        half = dataclasses.replace(cut, data=text[: max(1, len(text) // 2)], kind="error")
        framing = dataclasses.replace(draft.framing, final_blank_line=False)
        return dataclasses.replace(draft.with_chunks([*kept, half]), framing=framing)

    return transform


def responses_error_shapes() -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        if not draft.streamed:
            return draft
        kept = cut_after_first_content(draft)
        error = {
            "type": "insufficient_quota",
            "code": "insufficient_quota",
            "message": "You exceeded your current quota.",
            "param": None,
        }
        start: dict[str, Any] = next((c.data for c in draft.chunks if c.kind == "start"), {})
        response = {
            **copy.deepcopy(start.get("response", {})),
            "status": "failed",
            "error": {"code": error["code"], "message": error["message"]},
        }
        chunks = [
            Chunk({"type": "error", "sequence_number": 0, "error": error}, "error", event="error"),
            Chunk(
                {"type": "response.failed", "sequence_number": 0, "response": response},
                "error",
                event="response.failed",
            ),
        ]
        return draft.with_chunks(renumber([*kept, *chunks]))

    return transform


# -- event protocol ----------------------------------------------------------------------


def unknown_event(name: str = "future_event_xyz") -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        if not draft.streamed:
            return draft
        at = index_of(draft, "finish" if draft.provider == ANTHROPIC else "end")
        if at is None:
            return draft
        if draft.provider == RESPONSES:
            kind = f"response.{name}"
            event = Chunk({"type": kind, "sequence_number": 0}, "block", event=kind)
            return draft.with_chunks(renumber(list(insert(draft, at, event).chunks)))
        return insert(draft, at, Chunk({"type": name}, "block", event=name))

    return transform


def seqno(start: int = 1) -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        return draft.with_chunks(renumber(list(draft.chunks), start)) if draft.streamed else draft

    return transform


def ping_position() -> Transform:
    def transform(draft: Draft, context: Context) -> Draft:
        at = index_of(draft, "finish")
        if at is None or not draft.streamed:
            return draft
        ping = Chunk({"type": "ping"}, "ping", event="ping")
        return insert(draft, at, ping, ping)

    return transform
