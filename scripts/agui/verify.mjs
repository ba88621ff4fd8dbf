// The referee for mockhttp's AG-UI differential (tests/agui/test_differential.py,
// scripts/agui_differential.py): @ag-ui/client's HttpAgent reads each stream's bytes as
// it reads a server's answer (its SSE parser, compatibility boundary, schema check,
// chunk expansion, verifyEvents, then applying the events) and says whether the run
// was accepted or rejected, and why.
//
// stdin: one JSON object a line, {"id": ..., "body": "<the SSE text>"}
// stdout: one JSON object a line, {"id": ..., "accepted": true|false, "error": "..."}
import { HttpAgent } from "@ag-ui/client";
import { createInterface } from "node:readline";

process.env.SUPPRESS_TRANSFORMATION_WARNINGS = "true";
console.warn = () => {};
console.error = () => {};
console.debug = () => {};
const encoder = new TextEncoder();

async function judge(body) {
  const bytes = encoder.encode(body);
  const agent = new HttpAgent({
    url: "http://agent.invalid/",
    fetch: async () =>
      new Response(
        new ReadableStream({ start(controller) { controller.enqueue(bytes); controller.close(); } }),
        { status: 200, headers: { "content-type": "text/event-stream" } },
      ),
  });
  try {
    await agent.runAgent({ runId: "run-1" });
    return { accepted: true };
  } catch (error) {
    return { accepted: false, error: `${error?.name}: ${String(error?.message ?? error).split("\n")[0]}` };
  }
}

// Each stream gets its own agent; a batch of them runs at once (the client awaits between
// stages, so one at a time leaves the CPU idle), and the verdicts come out in input order.
const BATCH = 32;
let batch = [];
async function flush() {
  const verdicts = await Promise.all(batch.map(({ body }) => judge(body)));
  batch.forEach(({ id }, i) => process.stdout.write(JSON.stringify({ id, ...verdicts[i] }) + "\n"));
  batch = [];
}
const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) continue;
  batch.push(JSON.parse(line));
  if (batch.length === BATCH) await flush();
}
await flush();

process.exit(0); // a timer the client leaves behind would hold the process ~3 s
