"""An ``a2a-sdk`` server on loopback (the official Python SDK's JSON-RPC endpoint, 0.3
compatibility on): the reference the ``a2a`` profile is held to (tests/contract/
test_a2a_sdk.py, scripts/a2a_sdk_streams.py)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn
from a2a.helpers.proto_helpers import new_task_from_user_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes.agent_card_routes import create_agent_card_routes
from a2a.server.routes.jsonrpc_routes import create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import a2a_pb2 as pb
from starlette.applications import Starlette


class Weather(AgentExecutor):
    """Works, streams "Sunny, " then "21 °C" as one artifact, completes."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.message is not None
        task = context.current_task or new_task_from_user_message(context.message)
        if context.current_task is None:
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        await updater.start_work()
        await updater.add_artifact([new_text_part("Sunny, ")], "forecast-1", name="forecast")
        await updater.add_artifact(
            [new_text_part("21 °C")], "forecast-1", append=True, last_chunk=True
        )
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError


def app(url: str) -> Starlette:
    card = pb.AgentCard(
        name="weather",
        description="Tells the weather",
        version="1.0.0",
        supported_interfaces=[
            pb.AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="1.0"),
            pb.AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="0.3"),
        ],
        capabilities=pb.AgentCapabilities(streaming=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[pb.AgentSkill(id="w", name="weather", description="weather", tags=["w"])],
    )
    handler = DefaultRequestHandler(
        agent_executor=Weather(), task_store=InMemoryTaskStore(), agent_card=card
    )
    routes = create_agent_card_routes(card) + create_jsonrpc_routes(
        handler, "/", enable_v0_3_compat=True
    )
    return Starlette(routes=routes)


@contextmanager
def serving() -> Iterator[str]:
    """The SDK server on a free loopback port: its URL (the JSON-RPC endpoint is ``/``)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/"
    server = uvicorn.Server(uvicorn.Config(app(url), port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    end = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > end or not thread.is_alive():
            raise RuntimeError("the a2a-sdk server did not start")
        time.sleep(0.05)
    try:
        yield url
    finally:
        server.should_exit = True
        thread.join(timeout=10)
