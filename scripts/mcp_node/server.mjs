// The official MCP TypeScript SDK's server (McpServer on StreamableHTTPServerTransport,
// one transport per session, the SDK's example InMemoryEventStore for resumability),
// on loopback, for scripts/mcp_capture.py to record.  Usage: node server.mjs PORT
import http from "node:http";
import { randomUUID } from "node:crypto";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { InMemoryEventStore } from "@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js";
import { z } from "zod";

function build() {
  const server = new McpServer({ name: "capture-ts", version: "1.0.0" });
  server.registerTool("add", { description: "a + b", inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }));
  server.registerTool("slow", { description: "progress, then done", inputSchema: {} },
    async (_args, extra) => {
      const token = extra._meta?.progressToken;
      for (const progress of [1, 2]) {
        if (token !== undefined) {
          await extra.sendNotification({ method: "notifications/progress",
            params: { progressToken: token, progress, total: 2 } });
        }
        await new Promise((r) => setTimeout(r, 150));
      }
      return { content: [{ type: "text", text: "done" }] };
    });
  return server;
}

const transports = new Map();

async function readBody(req) {
  const parts = [];
  for await (const part of req) parts.push(part);
  const text = Buffer.concat(parts).toString("utf8");
  return text ? JSON.parse(text) : undefined;
}

const httpServer = http.createServer(async (req, res) => {
  try {
    const body = req.method === "POST" ? await readBody(req) : undefined;
    const id = req.headers["mcp-session-id"];
    let transport = id ? transports.get(id) : undefined;
    if (!transport && req.method === "POST" && !id && isInitializeRequest(body)) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        eventStore: new InMemoryEventStore(),
        retryInterval: 300,
        onsessioninitialized: (sid) => transports.set(sid, transport),
      });
      transport.onclose = () => { if (transport.sessionId) transports.delete(transport.sessionId); };
      await build().connect(transport);
    }
    if (!transport) {
      res.writeHead(id ? 404 : 400, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: null,
        error: { code: -32000, message: id ? "Session not found" : "Bad Request: no session" } }));
      return;
    }
    await transport.handleRequest(req, res, body);
  } catch (err) {
    if (!res.headersSent) res.writeHead(500);
    res.end(String(err));
  }
});
httpServer.listen(Number(process.argv[2]), "127.0.0.1", () => console.log("listening"));
