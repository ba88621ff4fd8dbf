"""Server-Sent Events on the wire: write events, and read them back byte-exactly.

Writing: ``Event`` and ``encode_event`` (the encoder the mock server uses).

Reading: ``Decoder`` is an incremental WHATWG event-stream parser that keeps what a
contract test needs and a client library throws away -- comment lines (``Comment``),
each event's raw lines with byte offsets, line endings and arrival times (``Message``,
``Line``), and the unfinished tail discarded at EOF (``Unterminated``).  ``decode`` runs
it over a whole byte string.

```python
from mockhttp.sse import Decoder, Message

decoder = Decoder()
items = decoder.feed(b": keep-alive\\n\\ndata: {\\"a\\":1}\\r", at=0.25)
items += decoder.feed(b"\\n\\r\\n", at=0.5)
items += decoder.close()
assert [type(item).__name__ for item in items] == ["Comment", "Message"]
message = items[1]
assert isinstance(message, Message)
assert (message.data, message.at, message.endings) == ('{"a":1}', 0.5, {b"\\r\\n"})
```
"""

from ._core._sse import Event as Event
from ._core._sse import LineEnding as LineEnding
from ._core._sse import encode_event as encode_event
from ._core._sse_decode import Comment as Comment
from ._core._sse_decode import Decoder as Decoder
from ._core._sse_decode import Item as Item
from ._core._sse_decode import Line as Line
from ._core._sse_decode import Message as Message
from ._core._sse_decode import Unterminated as Unterminated
from ._core._sse_decode import decode as decode

__all__ = [
    "Comment",
    "Decoder",
    "Event",
    "Item",
    "Line",
    "LineEnding",
    "Message",
    "Unterminated",
    "decode",
    "encode_event",
]
