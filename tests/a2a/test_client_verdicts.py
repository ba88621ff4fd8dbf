"""Client verdicts on the official A2A client (``a2a-sdk``): after a cut stream it
resubscribes to its task and does not send the message again, on both wire versions; a
client that asks again instead fails, with the call named."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest
from a2a.client import A2AClientError, Client, create_client
from a2a.types import a2a_pb2 as pb

import mockhttp
from mockhttp import a2a, fault, match, verdicts

SCRIPT = a2a.task(a2a.status("working", "Looking it up"), a2a.status("completed"))
STREAMS = match.json_path("$.method", match.any_of("SendStreamingMessage", "message/stream"))
CHECKS = (verdicts.a2a_resubscribed(), verdicts.a2a_did_not_resend())


def message() -> pb.SendMessageRequest:
    text = pb.Part(text="Weather in Brest?")
    return pb.SendMessageRequest(
        message=pb.Message(message_id="m1", role=pb.ROLE_USER, parts=[text])
    )


async def stream(client: Client) -> None:
    try:
        async for _ in client.send_message(message()):
            pass
    except A2AClientError:
        pass  # the cut


async def resubscribes(client: Client) -> None:
    await stream(client)
    async for _ in client.subscribe(pb.SubscribeToTaskRequest(id="task-1")):
        pass


async def asks_again(client: Client) -> None:
    await stream(client)
    await stream(client)


def judge(versions: list[str], body: Callable[[Client], Awaitable[None]]) -> list[verdicts.Verdict]:
    async def main(url: str) -> None:
        client = await create_client(url)
        try:
            await asyncio.wait_for(body(client), 10)
        finally:
            await client.close()

    kind = a2a.A2aAgent([SCRIPT], versions=versions)
    with mockhttp.Server() as server:
        server.mock(kind.mock())
        server.mock(kind.mock(name="cut").body(STREAMS).pipe(fault.close_after_events(1)))
        asyncio.run(main(server.url))
        for call in server.journal:
            call.wait()
        return verdicts.judge(server.journal, *CHECKS)


@pytest.mark.parametrize("versions", [["1.0"], ["0.3"]])
def test_the_sdk_resubscribes_after_a_cut(versions: list[str]) -> None:
    found = judge(versions, resubscribes)
    assert all(found), [str(v) for v in found]
    assert found[0].explanation == "1 resubscription(s) after the cut"


def test_a_client_that_asks_again_fails_both() -> None:
    failed = [v.explanation for v in judge(["1.0"], asks_again) if not v.passed]
    assert len(failed) == 2
    assert failed[0].startswith(
        "the client never resubscribed to task task-1 after the cut of call"
    )
    assert failed[1].startswith("message 'm1' was sent again in call ")
