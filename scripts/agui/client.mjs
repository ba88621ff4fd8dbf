// @ag-ui/client's HttpAgent runs against each mock of agui.yaml and prints what it got:
// the messages and state it built, or the error it raised.  Usage: node client.mjs URL
import { HttpAgent } from "@ag-ui/client";

const base = process.argv[2];
const cases = ["full", "error", "drop", "cut", "stall", "twice", "everything", "runs", "error-first"];
let failed = 0;
// the client also rejects a promise nobody awaits when the stream breaks: counted, not fatal
let stray = [];
process.on("unhandledRejection", (error) => { stray.push(`${error.name}: ${firstLine(error)}`); });

function firstLine(error) {
  return String(error?.message ?? error).split("\n")[0];
}
// the client logs its failures with console.error (a stack): kept as their first line
let logged = [];
console.error = (...parts) => { logged.push(parts.map(firstLine).join(" ")); };

async function run(name) {
  const agent = new HttpAgent({
    url: `${base}/${name}`,
    threadId: `thread-${name}`,
    initialMessages: [{ id: "u1", role: "user", content: "Weather in Paris?" }],
  });
  const seen = [];
  const timer = setTimeout(() => agent.abortRun(), 1000); // the client's own read timeout
  try {
    const { newMessages } = await agent.runAgent(
      { runId: `run-${name}` },
      {
        onEvent: ({ event }) => { seen.push(event.type); },
        onRunErrorEvent: ({ event }) => { seen.push(`(RUN_ERROR: ${event.message})`); },
      },
    );
    const said = newMessages.map((m) =>
      m.role === "tool" ? `tool: ${m.content}` :
      m.role === "activity" ? `activity: ${m.activityType} ${JSON.stringify(m.content)}` :
      m.toolCalls ? `${m.role}: ${m.content ?? ""} [calls ${m.toolCalls.map((c) => `${c.function.name}(${c.function.arguments})`).join(", ")}]` :
      `${m.role}: ${m.content}`);
    return `resolved, ${seen.length} events (last ${seen.at(-1)}); messages: ${said.join(" | ")}; state: ${JSON.stringify(agent.state)}`;
  } catch (error) {
    return `rejected after ${seen.length} events (last ${seen.at(-1) ?? "none"}): ${error.name}: ${firstLine(error)}`;
  } finally {
    clearTimeout(timer);
  }
}

const expected = {
  full: /^resolved/, error: /RUN_ERROR: weather service down/, drop: /^rejected/,
  cut: /^rejected/, stall: /RUN_ERROR: This operation was aborted/, twice: /already finished/,
  everything: /^resolved, \d+ events \(last RUN_FINISHED\)/,
  runs: /^resolved, \d+ events \(last RUN_FINISHED\).*Third run/,
  "error-first": /^resolved, \d+ events \(last \(RUN_ERROR: agent unavailable\)\)/,
};
for (const name of cases) {
  stray = [];
  logged = [];
  let line = await run(name);
  await new Promise((resolve) => setTimeout(resolve, 50));
  if (stray.length) line += ` (and an unhandled rejection: ${stray.join("; ")})`;
  if (logged.length) line += ` (logged: ${logged.join("; ")})`;
  const pass = expected[name].test(line);
  if (!pass) failed += 1;
  console.log(`${pass ? "PASS" : "FAIL"} ${name}: ${line}`);
}
console.log(failed ? `FAIL: ${failed} of ${cases.length}` : `PASS: ${cases.length} cases`);
process.exit(failed ? 1 : 0);
