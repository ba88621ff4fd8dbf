"""HTTP/1.1 response framing: a body plan in, a wire plan out.

We write response bytes ourselves (rather than through an HTTP library) because faults must
be able to break them on purpose: cut a chunked body without its last chunk, announce a
Content-Length and send less, reset the connection mid-chunk.

Framing rules (RFC 9112 §6):
- ``Head.length`` known: ``Content-Length``; each ``Data`` goes out as it is.
- ``Head.length`` None: ``Transfer-Encoding: chunked``; each ``Data`` is one chunk, and
  ``End("complete")`` writes the last chunk ``0\\r\\n\\r\\n``.  For an HTTP/1.0 client the
  body is close-delimited instead (no chunking, the connection closes at the end).
- 1xx, 204 and 304 replies, and replies to HEAD, carry no body (RFC 9110 §6.4.1).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ._cors import exposed_names
from ._plan import Data, End, Head, Raw, Step

_Pairs = tuple[tuple[str, str], ...]

__all__ = ["frame", "head_bytes"]


def _no_body(status: int, head_only: bool) -> bool:
    return head_only or status < 200 or status in (204, 304)


def head_bytes(
    head: Head, *, chunked: bool, keep_alive: bool, no_body: bool, cors: _Pairs = ()
) -> bytes:
    """The status line and header block, framing headers (and ``cors`` headers, with
    the reply's own headers exposed to the page) added."""
    lines = [f"HTTP/1.1 {head.status} {head.reason}"]
    names = set()
    for name, value in head.headers:
        lines.append(f"{name}: {value}")
        names.add(name.lower())
    if cors:
        _add_cors(lines, names, head, cors)
    if not (head.status < 200 or head.status == 204):
        if head.length is not None:
            if "content-length" not in names:
                lines.append(f"content-length: {head.length}")
        elif chunked and not no_body and "transfer-encoding" not in names:
            lines.append("transfer-encoding: chunked")
    if not keep_alive and "connection" not in names:
        lines.append("connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def _add_cors(lines: list[str], names: set[str], head: Head, cors: _Pairs) -> None:
    """The CORS headers the reply does not set itself (a mock's own win)."""
    allowed = False
    for name, value in cors:
        lower = name.lower()
        if lower not in names:
            lines.append(f"{name}: {value}")
            allowed = allowed or lower == "access-control-allow-origin"
    if allowed and "access-control-expose-headers" not in names:
        exposed = exposed_names(name for name, _ in head.headers)
        if exposed:
            lines.append(f"Access-Control-Expose-Headers: {exposed}")


def frame(
    steps: Iterable[Step],
    *,
    head_only: bool = False,
    http10: bool = False,
    keep_alive: bool = True,
    cors: _Pairs = (),
) -> Iterator[Step]:
    """Turn a body plan into a wire plan (``Raw``/``Pause``/``End`` steps).

    ``keep_alive`` False adds ``connection: close`` (the executor closes after ``End``).
    HTTP/1.0 clients never get keep-alive, so their unknown-length bodies are
    close-delimited.  ``cors``: headers every head gets (see ``_cors.py``).
    """
    chunked = False
    no_body = False
    for step in steps:
        if isinstance(step, Head):
            no_body = _no_body(step.status, head_only)
            chunked = step.length is None and not http10
            head = head_bytes(
                step, chunked=chunked, keep_alive=keep_alive, no_body=no_body, cors=cors
            )
            yield Raw(head)
            if no_body:
                # Nothing of the body goes out, so its pauses and events (perhaps endless)
                # are not run: the reply ends with its head.
                yield End("complete")
                return
        elif isinstance(step, Data):
            if not step.data:
                continue
            if chunked:
                size = len(step.data)
                yield Raw(b"%x\r\n%b\r\n" % (size, step.data), body=size, event=step.event)
            else:
                yield Raw(step.data, body=len(step.data), event=step.event)
        elif isinstance(step, End):
            if step.how == "complete" and chunked:
                yield Raw(b"0\r\n\r\n")
            yield step
            return
        else:
            yield step
