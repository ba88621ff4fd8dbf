"""A small protocol mock that keeps sessions, the way the protocol kinds do, through the
server's kept state (``_core/_kept.py``): ``POST`` opens a session (its id is the count of
sessions so far), ``GET /{id}`` says whether it is open, ``DELETE /{id}`` closes it."""

from __future__ import annotations

from typing import Any

from mockhttp._core._kept import Kept, KeptKind
from mockhttp._core._reply import Reply, status
from mockhttp._core._request import Request


class Sessions(KeptKind):
    file_key = "test_sessions"
    state_key = "test-sessions"

    def build_kept(self, request: Request, kept: Kept) -> Reply:
        if request.method == "POST":
            number = kept.update("opened", lambda n: ((n or 0) + 1, (n or 0) + 1))
            kept.update(f"open:{number}", lambda _: (True, None))
            return status(201).json({"session": number})
        number = request.path.rstrip("/").rpartition("/")[2]
        if kept.get(f"open:{number}") is None:
            return status(404).json({"error": "no such session"})
        if request.method == "DELETE":
            kept.update(f"open:{number}", lambda _: (None, None))
            return status(204)
        return status(200).json({"session": int(number)})

    def to_args(self) -> dict[str, Any]:
        return {}
