"""mockhttp: a mock HTTP server for tests of streaming clients."""

from ._errors import ConfigError as ConfigError
from ._errors import MockfileError as MockfileError
from ._errors import MockHTTPError as MockHTTPError
from ._errors import ServerError as ServerError
from ._errors import UnmatchedRequestError as UnmatchedRequestError
from ._errors import VerificationError as VerificationError
from ._sse import Event as Event

__version__ = "0.1.0"

__all__ = [
    "ConfigError",
    "Event",
    "MockHTTPError",
    "MockfileError",
    "ServerError",
    "UnmatchedRequestError",
    "VerificationError",
]
