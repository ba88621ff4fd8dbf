// The openai npm SDK's native-WebSocket realtime client (OpenAIRealtimeWebSocket, the one
// browsers use: the key, organization and project travel as subprotocols, offered with
// `realtime`) on Node 22's own WebSocket.  Prints {"protocol": ...} once open (the
// subprotocol the server chose), then each server event as one JSON line, sends one
// response.create and exits 0 after response.done (1 on an error, a close before it, or
// a timeout).  Run by tests/record/test_ws_node.py:
//   NODE_EXTRA_CA_CERTS=CA.pem node browser.mjs https://127.0.0.1:PORT/v1 KEY
import OpenAI from "openai";
import { OpenAIRealtimeWebSocket } from "openai/realtime/websocket";

const [baseURL, apiKey] = process.argv.slice(2);
const client = new OpenAI({ apiKey, baseURL, organization: "org-node-4711", project: "proj_node_4712" });
const rt = new OpenAIRealtimeWebSocket({ model: "gpt-realtime" }, client);

let done = false;
const timer = setTimeout(() => fail("timeout: no response.done within 20 s"), 20000);
function fail(message) {
  console.error(message);
  process.exitCode = 1;
  clearTimeout(timer);
  rt.socket.close();
}

rt.on("error", (error) => fail(`error: ${error.message}`));
rt.on("event", (event) => {
  console.log(JSON.stringify(event));
  if (event.type === "response.done") {
    done = true;
    clearTimeout(timer);
    rt.close();
  }
});
rt.socket.addEventListener("open", () => {
  console.log(JSON.stringify({ protocol: rt.socket.protocol }));
  rt.send({ type: "response.create" });
});
rt.socket.addEventListener("close", (event) => {
  if (!done) fail(`closed before response.done: ${event.code}`);
});
