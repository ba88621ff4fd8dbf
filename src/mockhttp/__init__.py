"""mockhttp: a mock HTTP server for tests of streaming clients.

>>> import mockhttp
>>> with mockhttp.Server() as server:
...     chat = server.mock(mockhttp.post("/v1/chat").reply(mockhttp.ok().json({"a": 1})))
"""

from . import fault as fault
from . import match as match
from . import sse as sse
from ._errors import ConfigError as ConfigError
from ._errors import MockfileError as MockfileError
from ._errors import MockHTTPError as MockHTTPError
from ._errors import ServerError as ServerError
from ._errors import UnmatchedRequestError as UnmatchedRequestError
from ._errors import VerificationError as VerificationError
from ._feed import Feed as Feed
from ._kind import ReplyKind as ReplyKind
from ._kind import register_reply_kind as register_reply_kind
from ._mock import Mock as Mock
from ._mock import delete as delete
from ._mock import get as get
from ._mock import head as head
from ._mock import options as options
from ._mock import patch as patch
from ._mock import post as post
from ._mock import put as put
from ._mock import request as request
from ._mockfile import dump as dump
from ._mockfile import load as load
from ._mockfile import loads as loads
from ._reply import Reply as Reply
from ._reply import ok as ok
from ._reply import status as status
from ._request import Headers as Headers
from ._request import Request as Request
from ._server import Server as Server
from ._sse import Event as Event
from ._verify import ActiveMock as ActiveMock
from ._verify import Call as Call
from ._verify import CallList as CallList
from .record import variants as variants  # also adds `recording` to mock files

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
    "Reply",
    "ReplyKind",
    "Request",
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
    "put",
    "register_reply_kind",
    "request",
    "sse",
    "status",
    "variants",
]
