"""Client verdicts: assertions on the journal about how a client behaved.

A mock can break a stream; these say whether the client under test then did the right
thing: came back, waited the stream's ``retry`` (not sooner: a reconnect storm fails; not
much later), resumed with ``Last-Event-ID``, sent the protocol-version header, deleted its
MCP session, honoured ``Retry-After``, gave up after N tries, resubscribed to its A2A task
without sending the message again, or surfaced an AG-UI ``RUN_ERROR``.  Each check reads
the calls a mock or the server received (``mock.calls``, ``server.calls``) and gives a
``Verdict`` with an explanation; ``assert_client`` raises with every failed one.

```python
import httpx
import mockhttp
from mockhttp import Event, fault, verdicts

with mockhttp.Server() as server:
    stream = server.mock(mockhttp.get("/events").reply(mockhttp.ok().event_stream(
        *(Event(data=f"e{n}") for n in range(4)), resumable=True, retry=50,
    )).pipe(fault.first(1, fault.close_after_events(2))))
    for _ in range(2):                     # cut after 2 events; back without Last-Event-ID
        try:
            httpx.get(server.url + "/events")
        except httpx.RemoteProtocolError:
            pass
    stream.calls[-1].wait()
    (verdict,) = verdicts.judge(stream.calls, verdicts.resumed())

assert not verdict.passed
assert verdict.explanation == ("call 2 came with Last-Event-ID None, expected '2' "
                               "(the last event delivered whole before it)")
```

docs/verification.md shows each check, and docs/agent-protocols.md the official MCP
clients judged by them.
"""

from ._core._verdicts import Check as Check
from ._core._verdicts import Verdict as Verdict
from ._core._verdicts import a2a_did_not_resend as a2a_did_not_resend
from ._core._verdicts import a2a_resubscribed as a2a_resubscribed
from ._core._verdicts import agui_recovered as agui_recovered
from ._core._verdicts import assert_client as assert_client
from ._core._verdicts import deleted_session as deleted_session
from ._core._verdicts import delivered_once as delivered_once
from ._core._verdicts import gave_up_after as gave_up_after
from ._core._verdicts import honoured_retry_after as honoured_retry_after
from ._core._verdicts import judge as judge
from ._core._verdicts import mcp_protocol_version as mcp_protocol_version
from ._core._verdicts import reconnected as reconnected
from ._core._verdicts import resumed as resumed
from ._core._verdicts import waited_retry as waited_retry

__all__ = [
    "Check",
    "Verdict",
    "a2a_did_not_resend",
    "a2a_resubscribed",
    "agui_recovered",
    "assert_client",
    "deleted_session",
    "delivered_once",
    "gave_up_after",
    "honoured_retry_after",
    "judge",
    "mcp_protocol_version",
    "reconnected",
    "resumed",
    "waited_retry",
]
