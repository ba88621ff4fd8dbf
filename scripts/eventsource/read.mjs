// Reads an event stream with the `eventsource` package until `want` messages arrived,
// then prints what it got as JSON: each message's data and lastEventId, and the errors
// (reconnects) it saw.  Usage: node read.mjs URL WANT
import { EventSource } from "eventsource";

const [url, want] = [process.argv[2], Number(process.argv[3])];
const got = [];
const errors = [];
const source = new EventSource(url);
const timer = setTimeout(() => finish("timeout"), 10000);

function finish(how) {
  clearTimeout(timer);
  source.close();
  console.log(JSON.stringify({ how, got, errors }));
}

source.onmessage = (e) => {
  got.push({ data: e.data, lastEventId: e.lastEventId });
  if (got.length === want) finish("done");
};
source.onerror = () => errors.push(source.readyState);
