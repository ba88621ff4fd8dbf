"""mockhttp: a mock HTTP server for tests of streaming clients.

>>> import mockhttp
>>> with mockhttp.Server() as server:
...     chat = server.mock(mockhttp.post("/v1/chat").reply(mockhttp.ok().json({"a": 1})))
"""

from . import fault as fault
from . import match as match
from . import sse as sse
from . import verdicts as verdicts
from . import ws as ws
from ._core._errors import ConfigError as ConfigError
from ._core._errors import MockfileError as MockfileError
from ._core._errors import MockHTTPError as MockHTTPError
from ._core._errors import ServerError as ServerError
from ._core._errors import UnmatchedRequestError as UnmatchedRequestError
from ._core._errors import VerificationError as VerificationError
from ._core._mock import Mock as Mock
from ._core._mock import delete as delete
from ._core._mock import get as get
from ._core._mock import head as head
from ._core._mock import options as options
from ._core._mock import patch as patch
from ._core._mock import post as post
from ._core._mock import put as put
from ._core._mock import request as request
from ._core._pushed import pushed as pushed
from ._core._registry import ReplyKind as ReplyKind
from ._core._registry import register_reply_kind as register_reply_kind
from ._core._reply import Reply as Reply
from ._core._reply import ok as ok
from ._core._reply import status as status
from ._core._request import Headers as Headers
from ._core._request import Request as Request
from ._core._sse import Event as Event
from ._mockfile._load import dump as dump
from ._mockfile._load import load as load
from ._mockfile._load import loads as loads
from ._server._feed import Feed as Feed
from ._server._journal import Call as Call
from ._server._journal import CallList as CallList
from ._server._push import PushedStream as PushedStream
from ._server._server import Server as Server
from ._server._tests import ScopedServer as ScopedServer
from ._server._verify import ActiveMock as ActiveMock
from .record import variants as variants
from .ws import websocket as websocket

__version__ = "0.1.0"

__all__ = [
    "ActiveMock",
    "Call",
    "CallList",
    "ConfigError",
    "Event",
    "Feed",
    "Headers",
    "Mock",
    "MockHTTPError",
    "MockfileError",
    "PushedStream",
    "Reply",
    "ReplyKind",
    "Request",
    "ScopedServer",
    "Server",
    "ServerError",
    "UnmatchedRequestError",
    "VerificationError",
    "delete",
    "dump",
    "fault",
    "get",
    "head",
    "load",
    "loads",
    "match",
    "ok",
    "options",
    "patch",
    "post",
    "pushed",
    "put",
    "register_reply_kind",
    "request",
    "sse",
    "status",
    "variants",
    "verdicts",
    "websocket",
    "ws",
]
