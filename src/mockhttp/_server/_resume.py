"""Checking a reconnecting event-stream client against a resumable stream's calls.

``mock.assert_resumed()`` reads a mock's calls as one resumable stream (each call after
the first is the reconnect of the one before) with the client verdicts of
``_core/_verdicts.py`` (``mockhttp.verdicts``): ``resumed``, ``delivered_once`` and, with a
``retry``, ``waited_retry``.  It stays, as the alias it always was, for those three.
"""

from __future__ import annotations

from .._core._verdicts import resume_problems

__all__ = ["resume_problems"]
