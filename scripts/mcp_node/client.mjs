// The @modelcontextprotocol/sdk client (Client + StreamableHTTPClientTransport) against a
// mockhttp.mcp server: initialize, listTools, callTool, a cut answer it resumes, a cut
// answer it cannot resume, a dropped GET stream, an expired session.
// Prints one JSON line per case; a line {"ask": ...} asks scripts/mcp_node.py to act on
// the mock (notify, expire), which answers with a line on stdin.
// Usage: node client.mjs URL   (the MCP endpoint; scripts/mcp_node.py starts it)
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const url = new URL(process.argv[2]);
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const ask = async (what) => {
  console.log(JSON.stringify({ ask: what }));
  await lines.next();
};
const raised = (error) => `raised ${error.constructor.name}: ${error.message}`;
const attempt = async (call) => {
  try {
    return await call();
  } catch (error) {
    return raised(error);
  }
};
const text = (result) => result.content.map((c) => c.text).join("");

const errors = [];
const transport = new StreamableHTTPClientTransport(url);
const client = new Client({ name: "mockhttp-mcp-node", version: "1.0.0" });
client.onerror = (error) => errors.push(error.message);
let changed = 0;
let onChange = () => {};
client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
  changed += 1;
  onChange();
});
const changes = (n) =>
  new Promise((resolve) => {
    onChange = () => changed >= n && resolve(changed);
    onChange();
  });

const cases = {};
await client.connect(transport);
cases.initialize = [transport.protocolVersion, client.getServerVersion().name];
cases.list_tools = (await client.listTools()).tools.map((t) => t.name);
cases.call_tool = text(await client.callTool({ name: "get_weather", arguments: { city: "Paris" } }));
const progress = [];
cases.cut_resumed = await attempt(async () => {
  const result = await client.callTool({ name: "slow", arguments: {} }, undefined, {
    onprogress: (p) => progress.push(p.progress),
  });
  return [text(result), progress];
});
cases.cut_unresumable = await attempt(() =>
  client.callTool({ name: "flaky", arguments: {} }, undefined, { timeout: 1000 }),
);
cases.cut_unresumable_onerror = errors.splice(0);
await ask("notify");
await changes(1);
await ask("notify");
cases.get_stream_dropped = [await changes(2), errors.splice(0)];
await ask("expire");
cases.session_expired = await attempt(() => client.listTools());
for (const [name, value] of Object.entries(cases)) console.log(JSON.stringify({ name, value }));
await client.close().catch(() => {});
process.exit(0);
