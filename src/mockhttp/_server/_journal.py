"""The journal: every call the server received, what it did with each, and what it keeps.

A ``Call`` is one request and its reply's record; a ``CallList`` is the calls of a mock or
of the server, finished ones kept compact (marshalled) inside.  ``Journal`` is the server's:
its calls, its limits and its byte budget (``_budget.py`` counts and chooses; this module
empties the places a call is kept).

Rule 1: a call's counters (bytes, body kept, events) are written in one place,
``count_sent``, for the executor's steps and the one-write path alike.
Rule 2: the journal is written on the loop thread only; readers on other threads see whole
entries (a live ``Call`` or a compact one) and never a half-written one.
"""

from __future__ import annotations

import itertools
import marshal
import operator
import struct
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Iterator
from dataclasses import MISSING, dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol, SupportsIndex, overload

from .._core._errors import VerificationError
from .._core._request import Headers, Request
from .._core._sse_decode import Message, decode
from ._budget import Budget, Dropped, digests, two

if TYPE_CHECKING:
    from .._core._explain import Explanation
    from .._core._mock import Mock

_now = time.time

__all__ = [
    "BODY_KEPT",
    "EVENT_TIMES_KEPT",
    "EXACT_LIMIT",
    "PACKS_PLAIN",
    "SHARED",
    "Call",
    "CallList",
    "Done",
    "Journal",
    "Kept",
    "Outcome",
    "append_call",
    "count_sent",
    "event_began",
    "mark_ended",
    "read_back",
    "seal",
    "unmatched_calls",
]

Outcome = Literal[
    "in progress", "complete", "closed", "reset", "stalled", "client hung up", "server closed"
]

#: How much of each reply's body a call keeps (so tests can read what was delivered).
BODY_KEPT = 1 << 20
#: A first piece of a body at least this long is kept as the reply's own ``bytes`` (a
#: cached reply's are shared by every call that sends it), not copied: 1,000 streams of a
#: 1 MiB reply keep one MiB, not 1,000 (docs/limits.md, "HTTP/2").
SHARED = 64 * 1024
#: How many events' write times a call keeps (``Call.event_times``): 8 bytes each.
EVENT_TIMES_KEPT = 10_000


# Every Call shares one condition: waiters are rare (a test waiting for a stream to end)
# and calls are many, so a call holds no lock or Event of its own (cheaper to build, and
# fewer objects for the garbage collector to scan as the journal grows).
_ENDED = threading.Condition()
_SEQ = itertools.count(1)  # numbers every call (the journal's compact entries, _VIEWS)
_next_seq = _SEQ.__next__
_waiting = [0]  # threads inside Done.wait; the server notifies only when there are some


def mark_ended(call: Call) -> None:
    """The server's end of :class:`Done`: mark ``call`` ended and wake its waiters."""
    call._ended = True
    if _waiting[0]:  # read after the flag is set: a waiter that came later sees it
        with _ENDED:
            _ENDED.notify_all()


class Done:
    """Whether a call's reply has ended, shaped like ``threading.Event``: ``is_set()``,
    ``wait(timeout)``, and ``set()`` (which the server calls)."""

    __slots__ = ("_call",)

    def __init__(self, call: Call) -> None:
        self._call = call

    def is_set(self) -> bool:
        """True once the reply has ended."""
        return self._call._ended

    def set(self) -> None:
        """Mark the reply ended and wake the waiters (idempotent)."""
        mark_ended(self._call)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the reply has ended or ``timeout`` seconds passed; True when ended."""
        call = self._call
        if call._ended:
            return True
        with _ENDED:
            _waiting[0] += 1
            try:
                return _ENDED.wait_for(lambda: call._ended, timeout)
            finally:
                _waiting[0] -= 1


@dataclass(eq=False, init=False)
class Call:
    """One request and what the server did with it (an entry of the journal).

    Attributes:
        request: the request as received.
        mock: the mock that answered, or None when no mock matched.
        status: the status code sent (None when a fault cut the reply before the head).
        path_params: values of the mock path's ``{name}`` parts.
        body_bytes: body bytes written (before transfer coding).
        wire_bytes: bytes written on the wire (head and framing included).
        events: events of which at least one byte was written.
        body_sent: the body bytes written (the first MiB of them).
        explanation: for a request no mock matched, why (the closest mocks, field by
            field; ``str()`` gives the text of the 404).
        time: when the request arrived (seconds since the epoch, as ``time.time()``).
        outcome: how the reply ended: ``complete``, ``closed`` (clean close before the end),
            ``reset``, ``stalled``, ``client hung up``, ``server closed`` (the server was
            closed mid-reply), or ``in progress``.
        dropped: None, or what the journal's byte budget dropped (see the property).
        cut_time: when a reply that did not complete ended (``time.time()``), else None.
        after_cut: for a call to a resumable stream (``event_stream(resumable=True)``),
            seconds between the cut of the mock's previous call and this request's
            arrival (None: the previous call completed, or there was none).
        end_time: when the reply ended, however it ended (``time.time()``); None while
            it is in progress, and for a reply written in one write at once (the fast
            lane's: it ended at ``time``).
        event_times: when each event's first byte was written (``time.time()``), the
            first ``EVENT_TIMES_KEPT`` events; None when no event was written.
        test: the id of the test the request named (``docs/isolation.md``), else None.
        test_prefix: the URL prefix (``/__test/ID``) stripped from the request's target
            before matching (``request`` is the request as matched), else None.
    """

    request: Request
    mock: Mock | None = None
    status: int | None = None
    path_params: dict[str, str] = field(default_factory=dict)
    body_bytes: int = 0
    wire_bytes: int = 0
    events: int = 0
    body_sent: bytes | bytearray = field(default_factory=bytearray)
    outcome: Outcome = "in progress"
    explanation: Explanation | None = field(default=None, repr=False)
    time: float = field(default_factory=_now, repr=False)
    cut_time: float | None = field(default=None, init=False, repr=False)
    after_cut: float | None = field(default=None, init=False, repr=False)
    end_time: float | None = field(default=None, init=False, repr=False)
    # (read from the class until the first event: no store per request)
    event_times: list[float] | None = field(default=None, init=False, repr=False)
    # a test's call (per-test isolation) has them in its own ``__dict__``: not fields, so
    # that no other call's compact entry carries them; a test's calls stay whole (``seal``)
    test: ClassVar[str | None] = None
    test_prefix: ClassVar[str | None] = None
    # what the byte budget dropped, as plain values (cheap to keep): see ``dropped``
    _dropped: tuple[int, str, int, str] | None = field(default=None, init=False, repr=False)
    _ended: bool = field(default=False, init=False, repr=False)
    # the journal's bookkeeping (see "Compact journal entries" below)
    _seq: int = field(default_factory=_SEQ.__next__, init=False, repr=False)
    _handed: bool = field(default=False, init=False, repr=False)  # user code has seen it
    _where: tuple[Any, ...] = field(default=(), init=False, repr=False)  # list, index, ...
    # the reply's end hook (``Reply.on_end``), called once when the call ends, then None
    # (read from the class until a reply sets it: no store per request)
    _on_end: Callable[[Call], object] | None = field(default=None, init=False, repr=False)

    def __init__(
        self,
        request: Request,
        mock: Mock | None = None,
        status: int | None = None,
        path_params: dict[str, str] | None = None,
        body_bytes: int = 0,
        wire_bytes: int = 0,
        events: int = 0,
        body_sent: bytes | bytearray | None = None,
        outcome: Outcome = "in progress",
        explanation: Explanation | None = None,
        time: float | None = None,
    ) -> None:
        # Written by hand, into __dict__: the generated __init__ (default factories, one
        # attribute store each) cost 2 us of every request.
        values = self.__dict__
        values["request"] = request
        values["mock"] = mock
        values["status"] = status
        values["path_params"] = {} if path_params is None else path_params
        values["body_bytes"] = body_bytes
        values["wire_bytes"] = wire_bytes
        values["events"] = events
        values["body_sent"] = bytearray() if body_sent is None else body_sent
        values["outcome"] = outcome
        values["explanation"] = explanation
        values["time"] = _now() if time is None else time
        values["_dropped"] = None
        values["_ended"] = False
        values["_seq"] = _next_seq()
        values["_handed"] = False
        values["_where"] = ()

    @property
    def dropped(self) -> Dropped | None:
        """None, or what the journal's byte budget dropped of the request body and
        ``body_sent``: their lengths and SHA-256 digests (see docs/limits.md)."""
        return None if self._dropped is None else Dropped(*self._dropped)

    @property
    def finished(self) -> Done:
        """Whether the reply has ended (``.wait(timeout)``, ``.is_set()``)."""
        return Done(self)

    def __repr__(self) -> str:
        return f"<Call {self.summary()}, {self.body_bytes} body bytes, {self.events} events>"

    @property
    def last_event_id(self) -> str | None:
        """The ``Last-Event-ID`` the request carried (a reconnecting event-stream client
        sends the id of the last event it received), or None."""
        return self.request.headers.get("last-event-id")

    @property
    def event_ids(self) -> list[str]:
        """The ids of the events this call's reply delivered whole (decoded from
        ``body_sent``, so the first MiB of the body, and not after the byte budget
        dropped it); an event cut in the middle is not delivered, for a client."""
        return [item.id for item in decode(bytes(self.body_sent)) if isinstance(item, Message)]

    def json(self) -> Any:
        """The request body parsed as JSON (parsed on each call: the journal keeps bytes)."""
        return self.request.json()

    def wait(self, timeout: float = 5.0) -> Outcome:
        """Wait until the reply has ended; return its outcome."""
        self.finished.wait(timeout)
        return self.outcome

    def summary(self) -> str:
        """One line: the request and what answered it."""
        who = "no match" if self.mock is None else f"mock {self.mock.describe()}"
        status = "" if self.status is None else f" ({self.status})"
        return f"{self.request.summary()} → {who}{status}, {self.outcome}"


class CallList(list[Call]):
    """The calls of a mock (or of the server), oldest first.

    A list of :class:`Call`; finished calls are kept compact inside (see
    ``docs/performance.md``) and read back as equal ``Call`` objects.
    """

    def __init__(self, calls: Iterable[Call] = ()) -> None:
        super().__init__(calls)
        self._base = 0  # calls dropped from the front so far (positions stay absolute)
        self._mocks: dict[int, Mock] = {}  # the mocks that compact entries refer to, by id
        self._key = next(_LIST_KEYS)  # how the byte budget names this list (kept_at)
        _LISTS[self._key] = self

    @property
    def last(self) -> Call:
        """The most recent call.

        Raises:
            VerificationError: there is no call.
        """
        if not self:
            raise VerificationError("no calls were made")
        return self[-1]

    # -- reading: compact entries become Call objects ----------------------------------

    def _view(self, item: Any) -> Call:
        kind = type(item)
        if kind is bytes:
            return _unpack(_record(item), self._mocks)
        if kind is tuple:
            return _unpack(item, self._mocks)
        item._handed = True  # a live call seen by user code keeps its identity (_VIEWS)
        if not item._where:  # seal has begun (and may have read _handed before we set it)
            _VIEWS[item._seq] = item
        return item  # type: ignore[no-any-return]

    @overload
    def __getitem__(self, index: SupportsIndex) -> Call: ...

    @overload
    def __getitem__(self, index: slice) -> list[Call]: ...

    def __getitem__(self, index: SupportsIndex | slice) -> Call | list[Call]:
        if isinstance(index, slice):
            return [self._view(item) for item in super().__getitem__(index)]
        return self._view(super().__getitem__(index))

    def __iter__(self) -> Iterator[Call]:
        get = super().__getitem__
        i = 0
        while i < len(self):
            try:
                item = get(i)
            except IndexError:  # trimmed by the server thread meanwhile
                return
            yield self._view(item)
            i += 1

    def __reversed__(self) -> Iterator[Call]:
        return iter(self[::-1])

    def __contains__(self, value: object) -> bool:
        return any(call is value for call in self)

    def index(self, value: Call, start: SupportsIndex = 0, stop: SupportsIndex = 2**62) -> int:
        for i in range(len(self))[start:stop]:
            if self[i] is value:
                return i
        raise ValueError(f"{value!r} is not in the list")

    def count(self, value: Call) -> int:
        return sum(1 for call in self if call is value)

    def copy(self) -> list[Call]:
        return list(self)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, list):
            return NotImplemented
        return len(self) == len(other) and all(a is b for a, b in zip(self, other, strict=False))

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None

    def __repr__(self) -> str:
        return f"CallList({list(self)!r})"

    def __add__(self, other: list[Call]) -> list[Call]:  # type: ignore[override]
        return [*self, *other]


EXACT_LIMIT = 1024  # journal limits up to this are kept exactly (see append_call)


def append_call(calls: CallList, call: Call, limit: int | None) -> None:
    """Append ``call``; past ``limit``, drop the oldest, so that exactly ``limit`` stay (a
    limit above ``EXACT_LIMIT`` keeps up to an eighth more between trims, so that no request
    pays to move thousands of entries: 5 µs a drop at 10,000)."""
    calls.append(call)
    call._where += (calls, calls._base + len(calls) - 1)
    if limit is not None:
        _trim(calls, limit)


def _trim(calls: CallList, limit: int) -> None:
    """Past ``limit`` calls (with ``append_call``'s slack), drop the oldest."""
    if len(calls) > _most(limit):
        drop_oldest(calls, len(calls) - limit)


def _most(limit: int) -> int:
    """How many calls a list may hold, under ``limit``, before it is trimmed to ``limit``."""
    return limit + (limit // 8 if limit > EXACT_LIMIT else 0)


_append: Callable[[list[Any], Any], None] = list.append  # a compact entry (see _view)


def drop_oldest(calls: CallList, n: int) -> None:
    """Remove the ``n`` oldest calls (trim a CallList only through this: the positions of
    calls not yet ended, where they will be made compact, count from the first call ever)."""
    del calls[:n]
    calls._base += n


# -- Compact journal entries -------------------------------------------------------------
#
# A journal keeps every call, and every full pass of the garbage collector visits every
# object it tracks: a Call with its Request and Headers is three such objects, so a server
# that has answered a million requests paused ~0.5 s in each full collection.  A finished
# call is therefore stored in its lists as one bytes object (its fields, marshalled), which
# the collector never tracks, and read back as a Call on access.  A Call that user
# code holds keeps its identity: reading its entry again gives the same object (_VIEWS).

_VIEWS: weakref.WeakValueDictionary[int, Call] = weakref.WeakValueDictionary()
_KNOWN = {
    "request", "mock", "status", "path_params", "body_bytes", "wire_bytes", "events",
    "body_sent", "outcome", "_ended", "_seq", "_handed", "_where", "_on_end",
}  # fmt: skip
_EXTRA = tuple(f.name for f in fields(Call) if f.name not in _KNOWN)  # fields added later
_EXTRA_INIT = frozenset(f.name for f in fields(Call) if f.name in _EXTRA and f.init)
_REQUEST_FIELDS = tuple(f.name for f in fields(Request) if f.init)
_PLAIN_REQUEST = _REQUEST_FIELDS == (
    "method", "target", "headers", "body", "http_version", "trailers"
)  # fmt: skip
_HEADER_FIELDS = tuple(f.name for f in fields(Request) if f.init and f.type in ("Headers", Headers))
#: Whether a compact entry can be written without a ``Call`` (``Journal.answered_whole``): the
#: ``Request`` fields are the ones ``_pack`` writes by name.
PACKS_PLAIN = _PLAIN_REQUEST
_BODY = _REQUEST_FIELDS.index("body")
_get_extras = operator.attrgetter(*_EXTRA) if _EXTRA else None


def _extras(call: Call) -> tuple[Any, ...]:
    """The values of the fields in ``_EXTRA``, as a tuple (one C call)."""
    assert _get_extras is not None
    values = _get_extras(call)
    return values if len(_EXTRA) > 1 else (values,)


_LIST_KEYS = itertools.count(1)
_LISTS: weakref.WeakValueDictionary[int, CallList] = weakref.WeakValueDictionary()


def seal(call: Call) -> None:
    """The call has ended: replace it in its lists by a compact entry (server thread)."""
    where = call._where
    if not where:
        return
    call._where = ()  # (no call -> list -> call cycle either way)
    if call.mock is None or call.test is not None:  # unmatched calls, and a test's (its
        return  # ``test`` is no field of the compact entry), stay whole: read often
    record: bytes | tuple[Any, ...] | None = None
    mock = call.mock
    for n in range(0, len(where), 2):
        calls = where[n]
        i = where[n + 1] - calls._base
        try:
            if i < 0 or _get(calls, i) is not call:
                continue
        except IndexError:  # the list was reset or trimmed meanwhile
            continue
        if record is None:
            record = _pack(call)
            # bytes: never tracked (a tuple is, until a collection has looked at it); a
            # value marshal cannot write keeps the tuple, and so does a large body (the
            # reply's own bytes, shared with every call of a cached reply: see SHARED)
            if len(call.body_sent) < SHARED:
                try:  # noqa: SIM105 (a context manager costs a microsecond per request)
                    record = marshal.dumps(record)
                except ValueError:
                    pass
        _set(calls, i, record)
        if mock is not None:
            calls._mocks[id(mock)] = mock
    if call._handed:
        _VIEWS[call._seq] = call


_get = list.__getitem__
_set = list.__setitem__


def unmatched_calls(calls: CallList) -> list[Call]:
    """The calls of ``calls`` that no mock answered, without unpacking the others."""
    return [c for c in list.__iter__(calls) if type(c) is Call and c.mock is None]


def _pack(call: Call) -> tuple[Any, ...]:
    request = call.request
    if _PLAIN_REQUEST:
        packed_request: tuple[Any, ...] = (
            request.method,
            request.target,
            request.headers.items_list,
            request.body,
            request.http_version,
            request.trailers._items,  # () when there are none (no set built by len())
        )
    else:  # fields added to Request: keep them all (headers as their pairs)
        packed_request = tuple(
            v.items_list if isinstance(v, Headers) else v
            for v in (getattr(request, n) for n in _REQUEST_FIELDS)
        )
    mock = call.mock
    record = (
        call._seq,
        packed_request,
        None if mock is None else id(mock),
        call.status,
        tuple(call.path_params.items()) if call.path_params else (),
        call.body_bytes,
        call.wire_bytes,
        call.events,
        bytes(call.body_sent),
        call.outcome,
    )
    if _EXTRA:
        return record + _extras(call)
    return record


_TIME_AT = _EXTRA.index("time")
#: The extra fields of a call that has just arrived, ``time`` aside (see ``Kept``).
_EXTRA_BLANK = tuple(
    f.default if f.default is not MISSING else None for f in fields(Call) if f.name in _EXTRA
)


# A kept answer's entries (``Journal.answered_whole``) are records as ``_pack`` makes them,
# kept as the tuple itself rather than marshalled whole: every field but the call's
# number, its request's fields and its time is the same for each call of a kept answer,
# so an entry is one tuple that refers to objects it shares with the others (``Kept``):
# the reply's body, the path parameters, and its request (method, target, fields,
# version), marshalled into one ``bytes`` object each time a client sends other fields
# than the last request did (a client sends the same fields again and again; a request's
# fields as objects are two strings and a tuple a field).  Such a tuple holds nothing the
# garbage collector tracks, so its first collection stops tracking it, as it never
# tracked a marshalled entry.  Measured (``docs/performance.md``, session seven): the
# same CPU as the struct-packed marshal stream it replaces (one tuple build against one
# struct pack, ~0.15 us; ``marshal.dumps`` of a whole record costs 0.5 us without
# references, 0.8 us with them); memory, ``GET /small`` kept: see the table there.


class Kept:
    """What the entries of a kept answer's calls share (``Journal.answered_whole``): the
    fields of ``mock``'s answer to ``method target`` (``_lane.Hit`` holds one).

    The entry of call ``seq`` is bytes, as a sealed call's (the collector never tracks
    it): a zero byte (no marshal stream begins with one), ``seq`` and the call's time
    (``_LANE``), then ``rest``: ``(request, *before)`` marshalled once for the last
    ``fields()``.  Read back (``_record``), it is ``_pack``'s record, ``(seq, request,
    mock id, status, path params, body bytes, wire bytes, events, body sent, outcome,
    *extras)`` with the extras after ``time`` left out: an entry may end early, the fields
    it lacks are their defaults (``_full``).  Measured (``docs/performance.md``): a tuple
    entry, which the collector tracks until a collection has looked at it, made a lane
    request trigger a young collection every ~700 calls (132 and 11 of the middle
    generation per 100,000), and the server's p99 later on uvloop.
    """

    __slots__ = ("_fields", "before", "key", "mock", "request", "rest", "size")

    def __init__(
        self,
        mock: Mock,
        request: tuple[str, str, str],
        status: int,
        path_params: tuple[tuple[str, str], ...],
        whole: Written,
    ) -> None:
        self.mock = mock
        self.key = id(mock)
        self.size = len(whole.body)
        self.request = request  # method, target, version
        # the record's fields after its request, up to its time; and after its time
        self.before: tuple[Any, ...] = (
            self.key,
            status,
            path_params,
            whole.body_bytes,
            whole.wire_bytes,
            whole.events,
            whole.body,
            "complete",
            *_EXTRA_BLANK[:_TIME_AT],
        )
        self._fields: tuple[tuple[str, str], ...] | None = None  # the request's last fields
        self.rest = b""  # (request, *before), marshalled for them

    def fields(self, fields: tuple[tuple[str, str], ...]) -> None:
        """The next entries' request has the fields ``fields``."""
        method, target, version = self.request
        self._fields = fields
        self.rest = marshal.dumps(((method, target, fields, b"", version, ()), *self.before))


#: a lane entry's head (``Kept``): a zero byte, the call's number and its time
_LANE = struct.Struct("<xqd")
_lane_head = _LANE.pack


def _record(entry: bytes) -> tuple[Any, ...]:
    """The record of a compact entry held as bytes: a sealed call's, or a lane entry's."""
    if entry[0]:
        return marshal.loads(entry)  # type: ignore[no-any-return]
    seq, at = _LANE.unpack_from(entry)
    return (seq, *marshal.loads(memoryview(entry)[_LANE.size :]), at)


def _request_of(record: tuple[Any, ...]) -> tuple[Any, ...]:
    """A record's request fields (a kept answer's entry holds them marshalled)."""
    request = record[1]
    return marshal.loads(request) if type(request) is bytes else request  # type: ignore[no-any-return]


def read_back(entry: bytes, mock: Mock) -> Call:
    """The ``Call`` of a compact entry of ``mock``'s (``Journal.answered_whole``), as the
    journal's lists give it to a reader (the same object on every read)."""
    return _unpack(_record(entry), {id(mock): mock})


def _full(record: tuple[Any, ...]) -> tuple[Any, ...]:
    """``record`` with the fields an entry may leave out at its end (``Kept``) filled in
    with their defaults."""
    missing = _SIZE - len(record)
    return record + _EXTRA_BLANK[len(_EXTRA_BLANK) - missing :] if missing else record


def _unpack(record: tuple[Any, ...], mocks: dict[int, Mock]) -> Call:
    seq = record[0]
    view = _VIEWS.get(seq)
    if view is not None:
        return view
    record = _full(record)
    values = dict(zip(_REQUEST_FIELDS, _request_of(record), strict=True))
    for name in _HEADER_FIELDS:
        values[name] = Headers(values[name])
    extra = dict(zip(_EXTRA, record[10:], strict=True))
    view = Call(
        Request(**values),
        None if record[2] is None else mocks[record[2]],
        record[3],
        dict(record[4]),
        record[5],
        record[6],
        record[7],
        record[8] if len(record[8]) >= SHARED else bytearray(record[8]),  # see SHARED
        record[9],
        **{k: v for k, v in extra.items() if k in _EXTRA_INIT},
    )
    for name, value in extra.items():
        if name not in _EXTRA_INIT:
            setattr(view, name, value)
    view._seq = seq
    view._ended = True
    view._handed = True
    _VIEWS[seq] = view
    return view


# -- The byte budget's side (see _budget.py) ----------------------------------------------


def kept_at(call: Call) -> tuple[int, ...]:
    """Where the journal keeps ``call`` (before ``seal``), as numbers only: its number, then
    each list's key and position."""
    where: tuple[int, ...] = (call._seq,)
    places = call._where
    for n in range(0, len(places), 2):
        where += (places[n]._key, places[n + 1])
    return where


def drop_bodies(where: tuple[int, ...]) -> None:
    """Drop the bodies of the call kept at ``where`` (``kept_at``) in every place: a live
    call in place, a compact entry rewritten (once, shared by its lists), a view held by
    user code too; their lengths and digests stay in ``call.dropped``."""
    seq = where[0]
    stripped: Any = None
    for n in range(1, len(where), 2):
        calls = _LISTS.get(where[n])
        if calls is None:
            continue
        i = where[n + 1] - calls._base
        if not 0 <= i < list.__len__(calls):
            continue  # trimmed, or the list was reset
        item: Any = _get(calls, i)
        if type(item) is Call:
            if item._seq == seq:
                _strip(item)
            continue
        if stripped is None:
            record = _record(item) if type(item) is bytes else item
            if record[0] != seq:
                continue
            stripped = _stripped(record)
            if type(item) is bytes:
                stripped = marshal.dumps(stripped)
        _set(calls, i, stripped)
    view = _VIEWS.get(seq)
    if view is not None:
        _strip(view)


def _strip(call: Call) -> None:
    if call._dropped is None:
        call._dropped = digests(call.request.body, bytes(call.body_sent))
        call.request = replace(call.request, body=b"")
        call.body_sent = bytearray()


_DROPPED_AT = 10 + _EXTRA.index("_dropped")
_SIZE = 10 + len(_EXTRA)  # the fields of a whole entry


def _stripped(record: tuple[Any, ...]) -> tuple[Any, ...]:
    """A compact entry without its bodies (unchanged when they are already gone)."""
    record = _full(record)
    if record[_DROPPED_AT] is not None:
        return record
    request = list(_request_of(record))
    dropped = digests(request[_BODY], record[8])
    request[_BODY] = b""
    fresh = list(record)
    fresh[1] = tuple(request)
    fresh[8] = b""
    fresh[_DROPPED_AT] = dropped
    return tuple(fresh)


# -- What was sent: the one writer of a call's counters ---------------------------------


def count_sent(call: Call, wire: int, body: int, data: bytes, start: int, events: int) -> None:
    """Record ``wire`` bytes written for ``call``, ``body`` of them body bytes, which are
    ``data[start:start + body]`` (the first ``BODY_KEPT`` are kept), and ``events``: how
    many events have begun by now (0: none, or not an event stream)."""
    call.wire_bytes += wire
    if body:
        call.body_bytes += body
        sent = call.body_sent
        room = BODY_KEPT - len(sent)
        if room > 0:  # a slice of all of ``data`` is ``data`` itself (no copy)
            piece = data[start : start + min(body, room)]
            if not sent and len(piece) >= SHARED and type(piece) is bytes:
                call.body_sent = piece  # the reply's own bytes (a cached plan's: shared)
            else:
                if type(sent) is bytes:
                    sent = call.body_sent = bytearray(sent)
                sent += piece
    if events > call.events:
        event_began(call, events)


def event_began(call: Call, events: int) -> None:
    """``events`` events have begun by now (more than ``call.events``): count them and
    keep their write time (one ``time.time()`` for those that began in one write)."""
    call.events = events
    times = call.event_times
    if times is None:
        times = call.event_times = []
    missing = min(events, EVENT_TIMES_KEPT) - len(times)
    if missing > 0:  # (appended: a list made per event would make the collector run)
        now = _now()
        for _ in range(missing):
            times.append(now)


class Written(Protocol):
    """A reply written in one call, as the journal records it (``_runner.Whole``)."""

    body: bytes
    body_bytes: int
    wire_bytes: int
    events: int


class Answered(Protocol):
    """A registered mock as the journal records its calls (``ActiveMock`` is one)."""

    calls: CallList
    _count: int


class Journal:
    """The server's journal: its calls, the limit on how many it keeps (``limit``), and
    the byte budget for their bodies (``bytes``)."""

    __slots__ = ("_headers", "_most", "budget", "calls", "limit")

    def __init__(self, limit: int | None, nbytes: int | None) -> None:
        self.calls = CallList()
        self.limit = limit
        self._most = None if limit is None else _most(limit)
        self.budget = Budget(nbytes, limit, drop_bodies)
        # the last request fields a kept answer journaled (``answered_whole``)
        self._headers: tuple[tuple[str, str], ...] = ()

    def add(self, call: Call) -> None:
        """Journal a call that has just arrived (no mock answers it)."""
        append_call(self.calls, call, self.limit)

    def answered(self, call: Call, active: Answered) -> None:
        """Journal a call that has just arrived, in the calls of ``active``, which answers
        it, too, and count it there (exactly, whatever the limit drops)."""
        active._count += 1
        append_call(active.calls, call, self.limit)
        append_call(self.calls, call, self.limit)

    def answered_whole(self, active: Answered, kept: Kept, headers: list[tuple[str, str]]) -> bytes:
        """Journal a call that has just arrived with ``headers`` (and no body), answered by
        ``active`` with ``kept``'s reply in one write, as ``answered``, ``ended`` and
        ``seal`` do for a ``Call``, but with no ``Call`` at all: its compact entry is
        written at once (for the lane, ``_lane.py``).  Returns the entry (``read_back``
        gives its ``Call``)."""
        seq = _next_seq()
        fields = tuple(headers)
        if fields == self._headers:  # a client sends the same fields again and again:
            fields = self._headers  # one tuple for them all (``Kept.fields``)
        else:
            self._headers = fields
        if fields is not kept._fields:
            kept.fields(fields)
        record = _lane_head(seq, _now()) + kept.rest  # (see Kept)
        active._count += 1
        mine = active.calls
        calls = self.calls
        _append(mine, record)
        _append(calls, record)
        key = kept.key
        mine._mocks[key] = calls._mocks[key] = kept.mock
        size = kept.size  # (and no request body)
        if size and self.budget.limit is not None:
            at, at2 = mine._base + len(mine) - 1, calls._base + len(calls) - 1
            self.budget.add(size, two(size, 5, seq, mine._key, at, calls._key, at2))
        most = self._most
        if most is not None:  # (_trim, inlined)
            limit = self.limit
            assert limit is not None
            if len(mine) > most:
                drop_oldest(mine, len(mine) - limit)
            if len(calls) > most:
                drop_oldest(calls, len(calls) - limit)
        return record

    def ended(self, call: Call, kept: bool) -> None:
        """``call``'s reply has ended: mark it so and, when its bodies are ``kept`` (not an
        admin request's), count them in the byte budget."""
        if not call._ended:  # the executor marks most calls ended before their last write
            mark_ended(call)  # call.finished.set(), without building the view
        budget = self.budget
        if budget.limit is not None and call._dropped is None and kept:
            size = len(call.request.body) + len(call.body_sent)
            if size:
                places = call._where
                if len(places) == 4:  # (a mock's call: its list and the server's)
                    mine, at, calls, at2 = places
                    budget.add(size, two(size, 5, call._seq, mine._key, at, calls._key, at2))
                else:
                    budget.keep(size, kept_at(call))  # see _budget.py
