// @ag-ui/client's HttpAgent on one run that breaks: what it surfaced to its caller (the
// event types its subscriber saw; RUN_ERROR among them when it turned the failure into
// one) and how runAgent() ended.  tests/agui/test_client_verdicts.py judges the journal
// with mockhttp.verdicts.agui_recovered.  Usage: node recover.mjs URL [ABORT_MS]
import { HttpAgent } from "@ag-ui/client";

process.on("unhandledRejection", () => {}); // the client leaves one behind on a cut
console.error = () => {}; // and logs the failure
const agent = new HttpAgent({ url: process.argv[2], threadId: "t1",
  initialMessages: [{ id: "u1", role: "user", content: "Hi" }] });
const surfaced = [];
// a read timeout (the client has none: the caller aborts): ABORT_MS without an event
const idle = Number(process.argv[3] ?? 1000);
let timer = setTimeout(() => agent.abortRun(), Math.max(idle, 20000)); // connecting
const quiet = () => { clearTimeout(timer); timer = setTimeout(() => agent.abortRun(), idle); };
let ended = "resolved";
try {
  await agent.runAgent({ runId: "r1" }, {
    onEvent: ({ event }) => { surfaced.push(event.type); quiet(); },
    onRunErrorEvent: () => { if (surfaced.at(-1) !== "RUN_ERROR") surfaced.push("RUN_ERROR"); },
  });
} catch (error) {
  ended = `rejected: ${error.name}: ${String(error.message).split("\n")[0]}`;
}
clearTimeout(timer);
console.log(JSON.stringify({ surfaced, ended }));
