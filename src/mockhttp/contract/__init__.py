"""Contract checks for LLM streaming endpoints, on the raw SSE bytes.

An SDK hides exactly the divergences a contract test must catch (comments, the sentinel,
empty choices), so these rules read the wire: a ``Transcript`` holds the status, headers
and timestamped body chunks of one exchange, and ``check(transcript, profile)`` returns
``Finding``s, each with a rule id, a severity, where it is and what was seen against what
was expected.

```python
from mockhttp.contract import Transcript, check

body = b'data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[]}\\n\\n'
findings = check(Transcript.from_body(body), "openai-chat")
assert "openai.done" in {f.rule for f in findings}
```

Profiles: ``openai-chat``, ``openai-responses``, ``anthropic-messages``, ``gemini``,
``stream-equals-buffered``; the rules of each are in ``PROFILES`` and documented one by one
in docs/contract.md.  ``check(..., as_="groq")`` reports a provider's documented quirks
as notes: the quirk and provider catalogue is data this package owns (``_catalogue``,
``_providers``; public as ``mockhttp.llm.QUIRKS`` and ``mockhttp.llm.PROVIDERS``, where
``mockhttp.llm`` gives each quirk the transform that reproduces it).
"""

from ._check import Outcome as Outcome
from ._check import assert_conforms as assert_conforms
from ._check import check as check
from ._check import evaluate as evaluate
from ._finding import Finding as Finding
from ._finding import Severity as Severity
from ._html import format_html as format_html
from ._mcp_capture import Exchange as Exchange
from ._mcp_capture import check_capture as check_capture
from ._mcp_capture import loads_capture as loads_capture
from ._profiles import PROFILES as PROFILES
from ._profiles import rules as rules
from ._record import Limits as Limits
from ._record import record as record
from ._report import format_json as format_json
from ._report import format_junit as format_junit
from ._report import format_summary as format_summary
from ._report import format_table as format_table
from ._rule import Rule as Rule
from ._transcript import Chunk as Chunk
from ._transcript import Transcript as Transcript
from ._transcript import parse_head as parse_head

__all__ = [
    "PROFILES",
    "Chunk",
    "Exchange",
    "Finding",
    "Limits",
    "Outcome",
    "Rule",
    "Severity",
    "Transcript",
    "assert_conforms",
    "check",
    "check_capture",
    "evaluate",
    "format_html",
    "format_json",
    "format_junit",
    "format_summary",
    "format_table",
    "loads_capture",
    "parse_head",
    "record",
    "rules",
]
