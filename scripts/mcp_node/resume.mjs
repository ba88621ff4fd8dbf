// The @modelcontextprotocol/sdk client against a mock whose tools/call answer is cut:
// it calls `slow`, resumes the cut stream, then ends its session (DELETE) and closes.
// Prints {"text", "progress"}; tests/mcp/test_client_verdicts.py judges the journal.
// Usage: node resume.mjs URL
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const transport = new StreamableHTTPClientTransport(new URL(process.argv[2]));
const client = new Client({ name: "mockhttp-verdicts", version: "1.0.0" });
await client.connect(transport);
const progress = [];
const result = await client.callTool({ name: "slow", arguments: {} }, undefined, {
  onprogress: (p) => progress.push(p.progress),
  timeout: 10000,
});
await transport.terminateSession();
await client.close();
console.log(JSON.stringify({ text: result.content.map((c) => c.text).join(""), progress }));
