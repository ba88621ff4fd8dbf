"""The one redaction rule: what of a request is a secret, and how an output hides it (pure).

Every output that repeats a request or what answered it goes through a :class:`Redactor`:
the log lines of ``mockhttp serve`` at every verbosity, the unmatched-request reply, the
admin journal, miss explanations, ``server.check()``, recordings and the recording proxy's
log, ``mockhttp check --save`` files and ``mockhttp check`` reports.

Rule 1 (names): a header or query parameter is a secret when its name says so
(``is_secret``): a known name (``Authorization``, ``x-api-key``, ``Cookie``, ``key``,
``OpenAI-Organization``, ``OpenAI-Project`` ...) or
a name with a secret word in it (``token``, ``secret``, ``password``, ``api-key``,
``auth``, ``key``, ``credential``, ``signature``), ``_`` read as ``-``.  Its value is shown
as ``[redacted]`` (``Bearer [redacted]``: an auth scheme stays).
Rule 2 (values): the values of those headers and parameters (a token without its scheme,
each cookie's value, a parameter both as sent and decoded) are secrets wherever else they
appear: in a body, another header, an explanation.  They are matched as whole tokens (not
inside a longer run of letters, digits, ``-`` and ``_``), and only when at least
``MIN_SECRET`` characters long, so a short secret never rewrites unrelated bytes.
Rule 3 (targets): in any text, a ``?name=`` or ``&name=`` of a secret parameter has its
value hidden, known or not (``/v1beta/models?key=[redacted]``).
Rule 4 (subprotocols): a browser cannot send a header with a WebSocket upgrade, so keys
travel in ``Sec-WebSocket-Protocol`` (``subprotocol_secrets``): a protocol ``NAME.VALUE``
whose NAME is a secret name (OpenAI's ``openai-insecure-api-key.<key>``) carries VALUE, and
the protocol after one that is a secret name or ``bearer`` by itself (``token, <key>``) is
one; each is a secret as in Rule 2 (``realtime, openai-insecure-api-key.[redacted]``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, unquote

__all__ = [
    "MARK",
    "MIN_SECRET",
    "SECRET_NAMES",
    "Redactor",
    "is_secret",
    "masked",
    "subprotocol_secrets",
]

MARK = "[redacted]"
MIN_SECRET = 4  # shorter values are hidden where their name says so, not searched for
#: Names (headers or query parameters, ``_`` read as ``-``) whose values are secrets.
SECRET_NAMES = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "cookie",
        "set-cookie",
        "x-api-key",
        "api-key",
        "apikey",
        "key",
        "x-goog-api-key",
        "ocp-apim-subscription-key",
        "x-functions-key",
        "x-auth",
        "x-amz-credential",
        "x-amz-signature",
        "x-amz-security-token",
        "sig",
        # who pays: OpenAI's account ids, sent by its SDKs and answered back by the API
        "openai-organization",
        "openai-project",
    }
)
_SECRET_WORDS = frozenset(
    {"auth", "key", "token", "secret", "password", "passwd", "credential", "signature"}
)
_SECRET_PARTS = ("token", "secret", "password", "api-key", "apikey", "authorization")
_NOT_SECRET = frozenset({"idempotency-key"})
_TOKEN = r"A-Za-z0-9_\-"
_SCHEME = re.compile(r"^\s*([A-Za-z][A-Za-z0-9-]*)\s+(\S.*?)\s*$")
_PARAM = re.compile(r"([?&;]([^=&#\s\"'?;]+)=)([^&#\s\"';]*)")


def is_secret(name: str) -> bool:
    """True for a header or query parameter whose value is a secret (Rule 1)."""
    lower = name.strip().lower().replace("_", "-")
    if lower in _NOT_SECRET:
        return False
    if lower in SECRET_NAMES or any(part in lower for part in _SECRET_PARTS):
        return True
    return any(word in _SECRET_WORDS for word in lower.split("-"))


def subprotocol_secrets(value: str) -> list[str]:
    """The secrets a ``Sec-WebSocket-Protocol`` value carries (Rule 4)."""
    offered = [p.strip() for p in value.split(",")]
    found = []
    for before, protocol in zip(["", *offered], offered, strict=False):
        name, dot, rest = protocol.partition(".")
        if dot and rest and is_secret(name):
            found.append(rest)
        elif "." not in before and (is_secret(before) or before.lower() == "bearer"):
            found.append(protocol)
    return [f for f in found if f]


def masked(value: str, mark: str = MARK) -> str:
    """``Bearer sk-123`` → ``Bearer [redacted]``; anything else → ``[redacted]``."""
    scheme = _SCHEME.match(value)
    return f"{scheme.group(1)} {mark}" if scheme and scheme.group(1).isalpha() else mark


@dataclass(frozen=True)
class Redactor:
    """Hides the secrets of one request in any output (see the module's docstring).

    Build one with :meth:`of` (from headers and query parameters) or :meth:`of_request`;
    ``names`` adds header names to Rule 1; ``mark`` is what a secret becomes.
    """

    secrets: tuple[str, ...] = ()
    names: frozenset[str] = frozenset()
    mark: str = MARK
    _pattern: re.Pattern[str] | None = field(default=None, repr=False, compare=False)
    _bytes: re.Pattern[bytes] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def of(
        cls,
        headers: Iterable[tuple[str, str]] = (),
        query: Iterable[tuple[str, str]] = (),
        *,
        names: Iterable[str] = (),
        mark: str = MARK,
    ) -> Redactor:
        """The redactor of a request with these ``headers`` and ``query`` parameters."""
        extra = frozenset(n.lower() for n in names)
        found: set[str] = set()
        for name, value in headers:
            if is_secret(name) or name.lower() in extra:
                found.update(_values(name, value))
            elif name.lower() == "sec-websocket-protocol":
                found.update(subprotocol_secrets(value))
        for name, value in query:
            if is_secret(name) or name.lower() in extra:
                found.update((value, quote(value, safe=""), quote(value)))
        return cls._made(found, extra, mark)

    @classmethod
    def _made(cls, found: Iterable[str], extra: frozenset[str], mark: str) -> Redactor:
        secrets = tuple(sorted({s for s in found if len(s) >= MIN_SECRET}, key=len, reverse=True))
        if not secrets:
            return cls((), extra, mark)
        alternatives = "|".join(re.escape(s) for s in secrets)
        pattern = re.compile(f"(?<![{_TOKEN}])(?:{alternatives})(?![{_TOKEN}])")
        raw = b"|".join(re.escape(s.encode("utf-8", "surrogateescape")) for s in secrets)
        edge = _TOKEN.encode()
        data = re.compile(b"(?<![" + edge + b"])(?:" + raw + b")(?![" + edge + b"])")
        return cls(secrets, extra, mark, pattern, data)

    @classmethod
    def of_request(cls, request: Any, *, names: Iterable[str] = (), mark: str = MARK) -> Redactor:
        """The redactor of a ``Request`` (its headers and query)."""
        return cls.of(request.headers.items_list, request.query, names=names, mark=mark)

    def adding(self, headers: Iterable[tuple[str, str]]) -> Redactor:
        """This redactor with the values of these secret ``headers`` as secrets too (Rule 2),
        e.g. the value a mock expects of ``Authorization``, for its explanation of a miss."""
        found = [v for name, value in headers if self.is_secret(name) for v in _values(name, value)]
        if not found:
            return self
        return self._made((*self.secrets, *found), self.names, self.mark)

    def is_secret(self, name: str) -> bool:
        """Rule 1, with this redactor's own ``names``."""
        return is_secret(name) or name.lower() in self.names

    def header(self, name: str, value: str) -> str:
        """A header's value as outputs show it."""
        return masked(value, self.mark) if self.is_secret(name) else self.text(value)

    def headers(self, pairs: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
        """Each header's value as outputs show it."""
        return [(name, self.header(name, value)) for name, value in pairs]

    def text(self, text: str) -> str:
        """``text`` with every known secret (Rule 2) and secret parameter (Rule 3) hidden."""
        if self._pattern is not None:
            text = self._pattern.sub(self.mark, text)
        if "=" in text:
            text = _PARAM.sub(self._param, text)
        return text

    def data(self, data: bytes) -> bytes:
        """Bytes with every known secret hidden (Rule 2)."""
        return data if self._bytes is None else self._bytes.sub(self.mark.encode(), data)

    def spans(self, data: bytes) -> list[tuple[int, int]]:
        """Where ``data`` holds a known secret: ``(start, end)`` byte offsets."""
        return [] if self._bytes is None else [m.span() for m in self._bytes.finditer(data)]

    def value(self, value: Any) -> Any:
        """A JSON value with every string in it passed through :meth:`text`."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list | tuple):
            return [self.value(v) for v in value]
        if isinstance(value, dict):
            return {k: self.value(v) for k, v in value.items()}
        return value

    def request_json(self, found: dict[str, Any]) -> dict[str, Any]:
        """A ``Request.to_dict()`` with its secrets hidden."""
        return {
            **found,
            "path": self.text(found["path"]),
            "query": [
                [k, self.mark if self.is_secret(k) else self.text(v)] for k, v in found["query"]
            ],
            "headers": [[k, self.header(k, v)] for k, v in found["headers"]],
            "body": self.text(found["body"]),
        }

    def _param(self, found: re.Match[str]) -> str:
        name = unquote(found.group(2))
        return found.group(1) + self.mark if self.is_secret(name) and found.group(3) else found[0]


def _values(name: str, value: str) -> list[str]:
    """The secret strings a secret header carries: the value, its token without the
    scheme, each cookie's value."""
    value = value.strip()
    found = [value]
    scheme = _SCHEME.match(value)
    if scheme:
        found = [scheme.group(2)]
    if name.lower() in ("cookie", "set-cookie"):
        found.extend(pair.partition("=")[2].strip() for pair in value.split(";"))
    return found
