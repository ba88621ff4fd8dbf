// The @a2a-js/sdk client against a mockhttp.a2a agent: card, stream, get, cancel's
// errors, a cut stream and resubscribe.  Prints one JSON line per case.
// Usage: node client.mjs URL   (the agent's base URL; scripts/a2a_node.py starts it)
import { ClientFactory } from "@a2a-js/sdk/client";

const url = process.argv[2];
const ask = (text, headers) => [
  {
    message: { messageId: "m1", role: 1, parts: [{ content: { $case: "text", value: text } }] },
  },
  headers ? { serviceParameters: headers } : undefined,
];
const kinds = (event) => event.payload?.$case;
const state = (task) => task.status?.state;

async function collect(stream) {
  const seen = [];
  try {
    for await (const event of stream) seen.push(kinds(event));
  } catch (error) {
    seen.push(`raised ${error.constructor.name}: ${error.message}`);
  }
  return seen;
}

async function attempt(call) {
  try {
    return await call();
  } catch (error) {
    return `raised ${error.constructor.name}: ${error.message}`;
  }
}

const client = await new ClientFactory().createFromUrl(url);
const cases = {};
cases.stream = await collect(client.sendMessageStream(...ask("Weather in Brest?")));
cases.get = state(await client.getTask({ id: "task-1" }));
cases.cancel_done = await attempt(() => client.cancelTask({ id: "task-1" }));
cases.get_unknown = await attempt(() => client.getTask({ id: "task-9" }));
cases.cut_stream = await collect(client.sendMessageStream(...ask("again", { "x-cut": "1" })));
cases.resubscribe = await collect(client.resubscribeTask({ id: "task-2" }));
cases.wrong_id = await collect(client.sendMessageStream(...ask("once more")));
for (const [name, value] of Object.entries(cases)) console.log(JSON.stringify({ name, value }));
