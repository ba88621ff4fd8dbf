// The Vercel AI SDK's tool loop against `mockhttp serve` on weather.yaml (a conversation:
// a get_weather call, then text).  Run by scripts/node_agents.sh with the server's URL;
// prints one line per case and a summary, and exits 1 if any case failed.
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, stepCountIs, streamText, tool } from "ai";
import { z } from "zod";
import { readFileSync } from "node:fs";

const url = process.argv[2];
const provider = createOpenAI({ baseURL: `${url}/v1`, apiKey: "sk-test" });
const version = (name) =>
  JSON.parse(readFileSync(new URL(`./node_modules/${name}/package.json`, import.meta.url))).version;

const tools = {
  get_weather: tool({
    description: "The weather in a city",
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => `18 °C in ${city}`,
  }),
};

async function run(api, how) {
  const options = {
    model: api === "chat" ? provider.chat("gpt-4o-mini") : provider.responses("gpt-4o-mini"),
    tools,
    stopWhen: stepCountIs(5),
    prompt: "What is the weather in Paris?",
  };
  if (how === "generateText") {
    const result = await generateText(options);
    return { text: result.text, steps: result.steps };
  }
  const result = streamText({ ...options, onError: ({ error }) => { throw error; } });
  let deltas = 0;
  for await (const part of result.fullStream) {
    if (part.type === "text-delta") deltas += 1;
    if (part.type === "error") throw part.error;
  }
  return { text: await result.text, steps: await result.steps, deltas };
}

function verdict({ text, steps, deltas }, how) {
  const [first, second] = steps;
  const call = first?.toolCalls?.[0];
  const result = first?.toolResults?.[0];
  const problems = [];
  if (steps.length !== 2) problems.push(`${steps.length} steps, expected 2`);
  if (call?.toolName !== "get_weather" || call?.input?.city !== "Paris")
    problems.push(`step 1 called ${JSON.stringify(call?.toolName)} with ${JSON.stringify(call?.input)}`);
  if (result?.output !== "18 °C in Paris") problems.push(`tool result ${JSON.stringify(result?.output)}`);
  if (first?.finishReason !== "tool-calls") problems.push(`step 1 finished ${first?.finishReason}`);
  if (second?.finishReason !== "stop") problems.push(`step 2 finished ${second?.finishReason}`);
  if (text !== "It is 18 °C in Paris.") problems.push(`text ${JSON.stringify(text)}`);
  if (how === "streamText" && !(deltas > 0)) problems.push("no text-delta parts");
  const shown = `${steps.length} steps: get_weather(${JSON.stringify(call?.input)}) -> ` +
    `${JSON.stringify(result?.output)}, then ${JSON.stringify(text)}`;
  return problems.length ? `FAIL ${problems.join("; ")}` : `PASS ${shown}`;
}

let failed = 0;
const cases = [["chat", "generateText"], ["chat", "streamText"],
               ["responses", "generateText"], ["responses", "streamText"]];
for (const [api, how] of cases) {
  let line;
  try {
    line = verdict(await run(api, how), how);
  } catch (error) {
    line = `FAIL ${error?.name}: ${error?.message}`;
  }
  if (line.startsWith("FAIL")) failed += 1;
  console.log(`${api.padEnd(9)} ${how.padEnd(12)} ${line}`);
}
const which = `ai@${version("ai")}, @ai-sdk/openai@${version("@ai-sdk/openai")}, node ${process.version}`;
console.log(`${failed ? "FAIL" : "PASS"}: ${cases.length - failed}/${cases.length} AI SDK tool loops (${which})`);
process.exit(failed ? 1 : 0);
