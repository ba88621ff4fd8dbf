// @ag-ui/client's HttpAgent on one run that breaks: what it surfaced to its caller (the
// event types its subscriber saw; RUN_ERROR among them when it turned the failure into
// one) and how runAgent() ended.  tests/agui/test_client_verdicts.py judges the journal
// with mockhttp.verdicts.agui_recovered.  Usage: node recover.mjs URL
import { HttpAgent } from "@ag-ui/client";

process.on("unhandledRejection", () => {}); // the client leaves one behind on a cut
console.error = () => {}; // and logs the failure
const agent = new HttpAgent({ url: process.argv[2], threadId: "t1",
  initialMessages: [{ id: "u1", role: "user", content: "Hi" }] });
const surfaced = [];
const timer = setTimeout(() => agent.abortRun(), 1000); // the client's own read timeout
let ended = "resolved";
try {
  await agent.runAgent({ runId: "r1" }, {
    onEvent: ({ event }) => { surfaced.push(event.type); },
    onRunErrorEvent: () => { if (surfaced.at(-1) !== "RUN_ERROR") surfaced.push("RUN_ERROR"); },
  });
} catch (error) {
  ended = `rejected: ${error.name}: ${String(error.message).split("\n")[0]}`;
}
clearTimeout(timer);
console.log(JSON.stringify({ surfaced, ended }));
