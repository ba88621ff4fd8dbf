"""LLM replies: provider-shaped answers, streamed or buffered from one reply.

```python
import mockhttp
from mockhttp import llm

with mockhttp.Server() as server:
    server.mock(mockhttp.post("/v1/chat/completions").reply(llm.openai_chat("Hello, world")))
```

Each reply is a :class:`~mockhttp.ReplyKind`: it is built for each request (the request's
``stream`` field picks the streamed or the buffered form, its ``model`` is echoed) and it
has a mock-file form (``response: {openai_chat: {text: Hello}}``).  How a reply is made,
as data first and bytes last (the hook for transforms such as provider quirks), is in
:mod:`mockhttp.llm._draft`.

Modules: ``_draft`` (Draft, Chunk, Framing, Context, the transform hook, render),
``_base`` (what every reply shares), ``_conversation`` (a script of turns answered in
every API, the turn read from the request; ``_expect``: what a turn expects), ``_history``
and ``_matchers`` (what a request's conversation holds, in the four shapes, and the body
matchers that read it: ``last_user_message``, ``system_prompt``, ``tool_result``,
``tool_offered``, ``turn_index``), one module per API (``_openai_chat``,
``_openai_responses``, ``_anthropic``, ``_gemini``, ``_models``; realtime sessions:
``_realtime`` (OpenAI Realtime), ``_gemini_live`` (Gemini Live), ``_live_turns`` (their
answers, from one line or a conversation)), ``_errors`` (provider error
shapes), ``_capacity`` (shared capacity and rate limits: ``capacity=``), ``_text``
(pieces, token counts, ids).  A module of transforms registers the ones
with a file form in ``TRANSFORMS``; replies take them as ``transforms=[...]``.
``QUIRKS`` (each catalogued provider divergence, ``Q-*``) and ``PROVIDERS`` (a provider's
quirks as one bundle) are data that :mod:`mockhttp.contract` owns; ``_transforms`` gives
each quirk id its transform (``_chunk_quirks``, ``_wire_quirks``, over the draft edits of
``_edits``), so replies take ``quirks=[...]`` and ``as_=...`` (``quirks:`` and ``as:`` in
mock files).
"""

from .._core._registry import register_reply_kind
from ..contract._catalogue import QUIRKS as QUIRKS
from ..contract._catalogue import Quirk as Quirk
from ..contract._providers import PROVIDERS as PROVIDERS
from ..contract._providers import Provider as Provider
from ._anthropic import AnthropicMessages as AnthropicMessages
from ._audio import Speech as Speech
from ._audio import Transcription as Transcription
from ._base import LLMReply as LLMReply
from ._capacity import Capacity as Capacity
from ._capacity import ManualClock as ManualClock
from ._capacity import capacity as capacity
from ._conversation import Conversation as Conversation
from ._conversation import ConversationError as ConversationError
from ._conversation import Turn as Turn
from ._conversation import conversation as conversation
from ._conversation import tool_call as tool_call
from ._conversation import turn as turn
from ._draft import TRANSFORMS as TRANSFORMS
from ._draft import Chunk as Chunk
from ._draft import Context as Context
from ._draft import Draft as Draft
from ._draft import Framing as Framing
from ._draft import Transform as Transform
from ._embeddings import Embeddings as Embeddings
from ._errors import ERRORS as ERRORS
from ._gemini import Gemini as Gemini
from ._gemini_live import GeminiLive as GeminiLive
from ._gemini_live import gemini_live as gemini_live
from ._images import Images as Images
from ._matchers import last_user_message as last_user_message
from ._matchers import register as _register_matchers
from ._matchers import system_prompt as system_prompt
from ._matchers import tool_offered as tool_offered
from ._matchers import tool_result as tool_result
from ._matchers import turn_index as turn_index
from ._models import ModelsList as ModelsList
from ._moderation import Moderation as Moderation
from ._openai_chat import OpenAIChat as OpenAIChat
from ._openai_responses import OpenAIResponses as OpenAIResponses
from ._realtime import OpenAIRealtime as OpenAIRealtime
from ._realtime import openai_realtime as openai_realtime

openai_chat = OpenAIChat
openai_responses = OpenAIResponses
anthropic_messages = AnthropicMessages
gemini = Gemini
models = ModelsList
embeddings = Embeddings
images = Images
speech = Speech
transcription = Transcription
moderation = Moderation

for _kind in (
    OpenAIChat, OpenAIResponses, AnthropicMessages, Gemini, ModelsList, Conversation,
    Embeddings, Images, Speech, Transcription, Moderation,
):  # fmt: skip
    register_reply_kind(_kind.file_key, _kind)
register_reply_kind(OpenAIRealtime.file_key, openai_realtime)
register_reply_kind(GeminiLive.file_key, gemini_live)
_register_matchers()

__all__ = [
    "ERRORS",
    "PROVIDERS",
    "QUIRKS",
    "TRANSFORMS",
    "AnthropicMessages",
    "Capacity",
    "Chunk",
    "Context",
    "Conversation",
    "ConversationError",
    "Draft",
    "Embeddings",
    "Framing",
    "Gemini",
    "GeminiLive",
    "Images",
    "LLMReply",
    "ManualClock",
    "ModelsList",
    "Moderation",
    "OpenAIChat",
    "OpenAIRealtime",
    "OpenAIResponses",
    "Provider",
    "Quirk",
    "Speech",
    "Transcription",
    "Transform",
    "Turn",
    "anthropic_messages",
    "capacity",
    "conversation",
    "embeddings",
    "gemini",
    "gemini_live",
    "images",
    "last_user_message",
    "models",
    "moderation",
    "openai_chat",
    "openai_realtime",
    "openai_responses",
    "speech",
    "system_prompt",
    "tool_call",
    "tool_offered",
    "tool_result",
    "transcription",
    "turn",
    "turn_index",
]
