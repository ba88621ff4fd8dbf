"""The exceptions mockhttp raises.

```
MockHTTPError
├── ConfigError(MockHTTPError, ValueError)   bad matcher / reply / fault arguments
│   ├── MockfileError                        a mock file that does not load (file, line, path)
│   └── UnknownNameError                     a name no registry knows (with a did-you-mean)
└── ServerError                              cannot bind, not started, already closed

AssertionError
└── VerificationError                        the client under test did not do what was expected
    ├── UnmatchedRequestError                requests reached the server that no mock matched
    └── RefusedRequest                       a reply kind refused a request (with its reply)
```

Library misuse raises ``MockHTTPError``; what the client under test did wrong is an
``AssertionError``, because in a test it *is* a failed assertion.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Any

__all__ = [
    "ConfigError",
    "MockHTTPError",
    "MockfileError",
    "RefusedRequest",
    "ServerError",
    "UnknownNameError",
    "UnmatchedRequestError",
    "VerificationError",
]


class MockHTTPError(Exception):
    """Root of the errors that mean mockhttp itself was misused."""


class ConfigError(MockHTTPError, ValueError):
    """A matcher, reply, event or fault was built with a bad argument."""


class MockfileError(ConfigError):
    """A mock file could not be loaded.

    Attributes:
        source: the file name (or ``"<string>"``).
        line: 1-based line of the offending node, or None.
        column: 1-based column, or None.
        path: where inside the document, e.g. ``response.event_stream.events[2].data``.
    """

    def __init__(
        self,
        message: str,
        *,
        source: str = "<string>",
        line: int | None = None,
        column: int | None = None,
        path: str = "",
    ) -> None:
        self.source = source
        self.line = line
        self.column = column
        self.path = path
        self.reason = message
        where = source
        if line is not None:
            where += f":{line}"
            if column is not None:
                where += f":{column}"
        at = f" at {path}" if path else ""
        super().__init__(f"{where}{at}: {message}")


class UnknownNameError(ConfigError):
    """A name that a named set (faults, matchers, reply kinds, quirks...) does not know.

    ``what`` says which set (``"fault"``), ``name`` is the name asked for, ``known`` the
    names there are and ``close`` the closest of them (None when none is close).
    """

    def __init__(self, what: str, name: object, known: Sequence[str]) -> None:
        self.what, self.name, self.known = what, name, tuple(known)
        close = (
            difflib.get_close_matches(name, self.known, n=1, cutoff=0.6)
            if isinstance(name, str)
            else []
        )
        self.close: str | None = close[0] if close else None
        hint = f" — did you mean {self.close!r}?" if self.close else ""
        listing = ", ".join(sorted(self.known)) or "none"
        super().__init__(f"unknown {what} {name!r}{hint}\nknown {what}s: {listing}")


class ServerError(MockHTTPError):
    """The server could not start, or was used when not running."""


class VerificationError(AssertionError):
    """A verification (``assert_called`` and friends) failed."""


class UnmatchedRequestError(VerificationError):
    """Requests reached the server that no mock matched."""


class RefusedRequest(VerificationError):
    """A reply kind refused a request, the client's fault (a conversation's turn whose
    expectation the request misses): the client gets ``reply`` (an error in its API's
    shape, with this message), and ``server.check()`` raises this error."""

    def __init__(self, message: str, reply: Any) -> None:
        super().__init__(message)
        self.reply = reply
