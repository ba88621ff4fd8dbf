// The openai npm SDK's realtime client (OpenAIRealtimeWS, on `ws`) against a mockhttp
// OpenAI Realtime mock: session.update, a user item, response.create; a function call is
// answered with its function_call_output item and a second response.create.  Prints each
// server event it received as one JSON line and exits 0 when the session ended cleanly
// (1 on an error event, a transport error or a timeout).  Run by
// tests/llm/test_realtime_node.py:
//   node client.mjs https://127.0.0.1:PORT/v1 CA.pem
import { readFileSync } from "node:fs";
import OpenAI from "openai";
import { OpenAIRealtimeWS } from "openai/realtime/ws";

const [baseURL, caPath] = process.argv.slice(2);
const client = new OpenAI({ apiKey: "sk-test", baseURL });
// The SDK always opens wss://: the mock serves TLS and its CA is trusted here.
const rt = new OpenAIRealtimeWS(
  { model: "gpt-realtime", options: { ca: readFileSync(caPath) } },
  client,
);

const timer = setTimeout(() => fail("timeout: no response.done within 20 s"), 20000);
function fail(message) {
  console.error(message);
  process.exitCode = 1;
  clearTimeout(timer);
  rt.socket.terminate();
}

let answered = false;
let calls = [];
rt.on("error", (error) => fail(`error: ${error.message}`));
rt.on("event", (event) => {
  console.log(JSON.stringify(event));
  if (event.type === "response.output_item.done" && event.item.type === "function_call") {
    calls.push(event.item);
  }
  if (event.type !== "response.done") return;
  if (calls.length && !answered) {
    answered = true;
    for (const call of calls) {
      rt.send({
        type: "conversation.item.create",
        item: { type: "function_call_output", call_id: call.call_id, output: "18 C" },
      });
    }
    rt.send({ type: "response.create" });
    return;
  }
  clearTimeout(timer);
  rt.close();
});

rt.socket.on("open", () => {
  rt.send({
    type: "session.update",
    session: {
      type: "realtime",
      instructions: "be brief",
      output_modalities: ["text"],
      tools: [
        {
          type: "function",
          name: "get_weather",
          description: "The weather in a city",
          parameters: { type: "object", properties: { city: { type: "string" } } },
        },
      ],
    },
  });
  rt.send({
    type: "conversation.item.create",
    item: { type: "message", role: "user", content: [{ type: "input_text", text: "Weather in Paris?" }] },
  });
  rt.send({ type: "response.create" });
});
