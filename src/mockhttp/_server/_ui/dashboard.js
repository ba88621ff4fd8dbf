// mockhttp's dashboard: the journal of a running server, live (an EventSource on
// /__mockhttp/journal/events), or of a saved journal JSON opened from a file.
// No build step, no dependency: plain DOM (text only, never HTML from the data).
"use strict";

(function () {
  const state = {
    calls: new Map(), // id -> call JSON (the journal's, with the dashboard's extras)
    mocks: [],
    chosen: null, // the id of the call shown
    token: null,
    source: null,
    mode: "live",
  };
  const $ = (id) => document.getElementById(id);
  const API = new URL("../", document.baseURI); // /__mockhttp/

  // -- building elements ------------------------------------------------------------------

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  const SVG = "http://www.w3.org/2000/svg";
  function svg(tag, attrs, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, String(value));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // -- status and notices -------------------------------------------------------------------

  function say(text, kind) {
    const status = $("status");
    status.textContent = text;
    status.className = kind || "";
  }

  function notice(text) {
    const box = $("notice");
    box.textContent = text || "";
    box.hidden = !text;
  }

  // -- the data -------------------------------------------------------------------------------

  function upsert(call) {
    // under serve --workers a call's id and resumes are numbers on its worker: "worker.id"
    const worker = call.worker !== undefined && call.worker !== null ? `${call.worker}.` : "";
    const key = call.id !== undefined && call.id !== null ? `${worker}${call.id}` : `${call.time}|${state.calls.size}`;
    if (worker && call.resumes !== undefined && call.resumes !== null) call.resumes = `${worker}${call.resumes}`;
    call.id = key;
    state.calls.set(key, call);
  }

  function forget(worker) { // "cleared": the whole journal, or one worker's
    if (worker === undefined || worker === null) { state.calls.clear(); return; }
    for (const [key, call] of [...state.calls]) if (call.worker === worker) state.calls.delete(key);
  }

  function load(snapshot) {
    state.calls.clear();
    const calls = Array.isArray(snapshot) ? snapshot : snapshot.calls || [];
    calls.forEach(upsert);
    if (snapshot.mocks) state.mocks = snapshot.mocks;
    render();
  }

  const CUT = new Set(["closed", "reset", "stalled", "client hung up", "server closed"]);
  const testOf = (call) => call.test_id || call.test || "";

  function matches(call) {
    const mock = $("f-mock").value;
    if (mock === "none" && call.mock !== null) return false;
    if (mock && mock !== "none" && String(call.mock) !== mock) return false;
    const status = $("f-status").value;
    if (status === "cut" && !CUT.has(call.outcome)) return false;
    if (status === "progress" && call.outcome !== "in progress") return false;
    if (/^[0-9]$/.test(status) && !(call.status !== null && String(call.status)[0] === status)) return false;
    const test = $("f-test").value;
    if (test && testOf(call) !== test) return false;
    const text = $("f-text").value.trim().toLowerCase();
    if (text) {
      const events = call.timeline ? call.timeline.events.map((e) => e.data).join("\n") : "";
      const hay = [
        call.request.method, call.request.path, call.request.body, call.mock_describe,
        call.outcome, events, call.explanation ? call.explanation.message : "",
      ].join("\n").toLowerCase();
      if (!hay.includes(text)) return false;
    }
    return true;
  }

  // -- rendering ------------------------------------------------------------------------------

  let pending = false;
  function render() { // at most once a frame, however many events arrive
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => { pending = false; renderNow(); });
  }

  function renderNow() {
    renderOptions();
    renderCalls();
    renderMocks();
    renderDetail();
  }

  function setOptions(select, values) {
    const have = new Set([...select.options].map((o) => o.value));
    for (const [value, label] of values) {
      if (!have.has(value)) select.append(el("option", { value }, label));
    }
  }

  function renderOptions() {
    const mocks = new Map();
    for (const mock of state.mocks) mocks.set(String(mock.id), `${mock.id}: ${mock.name || mock.describe}`);
    for (const call of state.calls.values()) {
      if (call.mock !== null && !mocks.has(String(call.mock))) {
        mocks.set(String(call.mock), `${call.mock}: ${call.mock_describe}`);
      }
    }
    setOptions($("f-mock"), [...mocks]);
    const tests = new Set([...state.calls.values()].map(testOf).filter(Boolean));
    setOptions($("f-test"), [...tests].sort().map((t) => [t, t]));
  }

  function outcomeClass(outcome) {
    if (outcome === "complete") return "outcome-complete";
    if (outcome === "in progress") return "outcome-progress";
    return CUT.has(outcome) ? "outcome-cut" : "";
  }

  function clock(iso) {
    return iso ? iso.slice(11, 23) : "";
  }

  function renderCalls() {
    const body = $("call-table").tBodies[0];
    const rows = [];
    const all = [...state.calls.values()].reverse();
    const shown = all.filter(matches);
    for (const call of shown) {
      const request = `${call.request.method} ${call.request.path}`;
      rows.push(el("tr", { class: call.id === state.chosen ? "chosen" : null, "data-id": call.id },
        el("td", {}, el("button", {
          type: "button", class: "row", "aria-label": `Show call ${call.id}: ${request}`,
          onclick: () => choose(call.id),
        }, String(call.id))),
        el("td", {}, clock(call.time)),
        el("td", {}, request),
        el("td", { class: call.mock === null ? "miss" : null }, call.mock === null ? "no match" : call.mock_describe),
        el("td", {}, call.status === null ? "—" : String(call.status)),
        el("td", { class: outcomeClass(call.outcome) }, call.outcome),
        el("td", {}, String(call.events)),
        el("td", {}, call.duration_ms === null || call.duration_ms === undefined ? "" : `${call.duration_ms} ms`),
        el("td", {}, testOf(call)),
      ));
    }
    const focused = document.activeElement && body.contains(document.activeElement)
      ? document.activeElement.closest("tr").dataset.id : null;
    body.replaceChildren(...rows);
    if (focused !== null) { // a keyboard user keeps their place as calls arrive
      const again = body.querySelector(`tr[data-id="${CSS.escape(focused)}"] button`);
      if (again) again.focus();
    }
    $("shown").textContent = `${shown.length} of ${all.length} calls shown`;
  }

  function renderMocks() {
    const rows = state.mocks.map((mock) => el("tr", {},
      el("td", {}, String(mock.id)),
      el("td", {}, mock.describe),
      el("td", {}, String(mock.call_count)),
      el("td", {}, mock.remaining === null || mock.remaining === undefined ? "any number" : String(mock.remaining)),
    ));
    $("mock-table").tBodies[0].replaceChildren(...rows);
  }

  function choose(id) {
    state.chosen = id;
    renderNow();
    $("detail").focus();
  }

  function renderDetail() {
    const box = $("detail-body");
    const call = state.calls.get(state.chosen);
    document.querySelector("#detail .empty").hidden = Boolean(call);
    box.hidden = !call;
    if (!call) return;
    $("detail-title").textContent = `Call ${call.id}: ${call.request.method} ${call.request.path}`;
    const parts = [summary(call), call.recording ? recorded(call.recording) : request(call)];
    if (call.explanation) parts.push(explanation(call.explanation));
    if (call.timeline) parts.push(timeline(call));
    box.replaceChildren(...parts);
  }

  function pairList(pairs) {
    return el("dl", {}, pairs.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)]));
  }

  function link(id, text) {
    return el("button", { type: "button", class: "row", onclick: () => choose(id) }, text);
  }

  function summary(call) {
    const pairs = [
      ["Mock", call.mock === null ? "no match" : call.mock_describe],
      ["Status", call.status === null ? "none sent" : String(call.status)],
      ["Outcome", call.outcome],
      ["Arrived", call.time],
      ["Ended", call.end_time || "not yet"],
      ["Events", String(call.events)],
      ["Body bytes", String(call.body_bytes)],
    ];
    if (testOf(call)) pairs.push(["Test", testOf(call)]);
    if (call.last_event_id) pairs.push(["Last-Event-ID", call.last_event_id]);
    const list = pairList(pairs);
    if (call.resumes !== null && call.resumes !== undefined) {
      const wait = call.after_cut_ms === null || call.after_cut_ms === undefined ? "" : ` (${call.after_cut_ms} ms after its cut)`;
      list.append(el("dt", {}, "Resumes"), el("dd", {}, link(call.resumes, `call ${call.resumes}`), wait));
    }
    const later = [...state.calls.values()].filter((c) => c.resumes === call.id);
    if (later.length) {
      list.append(el("dt", {}, "Resumed by"), el("dd", {}, later.map((c) => link(c.id, `call ${c.id}`))));
    }
    return el("div", {}, el("h3", {}, "What happened"), list);
  }

  function request(call) {
    const headers = el("table", {},
      el("caption", {}, "Request headers, as received"),
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Name"), el("th", { scope: "col" }, "Value"))),
      el("tbody", {}, call.request.header_pairs.map(([n, v]) => el("tr", {}, el("td", {}, n), el("td", {}, v)))));
    const query = call.request.query_pairs.map(([k, v]) => `${k}=${v}`).join("&");
    return el("div", {},
      el("h3", {}, "Request"),
      el("p", {}, `${call.request.method} ${call.request.path}${query ? "?" + query : ""}`),
      headers,
      call.request.body ? el("pre", { "aria-label": "Request body" }, call.request.body_encoding === "base64" ? `(base64) ${call.request.body}` : call.request.body) : null);
  }

  function recorded(found) { // a recording (mockhttp ui): its file, matcher and reply headers
    const headers = el("table", {},
      el("caption", {}, "Reply headers, as recorded"),
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Name"), el("th", { scope: "col" }, "Value"))),
      el("tbody", {}, (found.headers || []).map(([n, v]) => el("tr", {}, el("td", {}, n), el("td", {}, v)))));
    return el("div", {},
      el("h3", {}, "Recording"),
      pairList([["File", found.file || "unknown"], ["Truncated at", found.truncated === null || found.truncated === undefined ? "no" : `${found.truncated} bytes`]]),
      el("pre", { "aria-label": "Request matcher" }, found.matcher || ""),
      headers);
  }

  function explanation(found) {
    const closest = (found.closest || []).map((near) => {
      const differences = (near.differences || []).map((d) => el("li", {}, typeof d === "string" ? d : JSON.stringify(d)));
      return el("li", {}, near.mock || near.describe || JSON.stringify(near), differences.length ? el("ul", {}, differences) : null);
    });
    return el("div", {},
      el("h3", {}, "Why no mock matched"),
      el("pre", {}, found.message),
      closest.length ? el("h3", {}, "Near misses") : null,
      closest.length ? el("ol", { class: "near" }, closest) : null);
  }

  // -- the timeline ---------------------------------------------------------------------------

  function timeline(call) {
    const line = call.timeline;
    const events = line.events;
    const times = [line.duration_ms, line.planned_end_ms, ...events.map((e) => e.at_ms), ...events.map((e) => e.planned_ms), ...line.marks.map((m) => m.at_ms)]
      .filter((t) => t !== null && t !== undefined);
    const span = Math.max(1, ...times);
    const width = 640, left = 70, right = 20, height = 110;
    const x = (ms) => left + (ms / span) * (width - left - right);
    const yPlan = 30, yWritten = 70;
    const chart = svg("svg", { class: "timeline", viewBox: `0 0 ${width} ${height}`, role: "img", "aria-labelledby": "tl-title tl-desc" });
    chart.append(svg("title", { id: "tl-title" }, `Timeline of call ${call.id}`));
    chart.append(svg("desc", { id: "tl-desc" }, `${events.length} events over ${span} ms; the table below lists them.`));
    chart.append(svg("text", { x: 4, y: yPlan + 4 }, "planned"));
    chart.append(svg("text", { x: 4, y: yWritten + 4 }, "written"));
    chart.append(svg("line", { class: "axis", x1: left, x2: width - right, y1: 95, y2: 95 }));
    chart.append(svg("text", { x: left, y: 107 }, "0 ms"));
    chart.append(svg("text", { x: width - right - 50, y: 107 }, `${Math.round(span)} ms`));
    for (const event of events) {
      const label = `event ${event.index}${event.id ? ` (id ${event.id})` : ""}`;
      if (event.planned_ms !== null && event.at_ms !== null) {
        chart.append(svg("line", { class: "drift", x1: x(event.planned_ms), y1: yPlan, x2: x(event.at_ms), y2: yWritten }));
      }
      if (event.planned_ms !== null) {
        const dot = svg("circle", { class: "planned", cx: x(event.planned_ms), cy: yPlan, r: 4 });
        dot.append(svg("title", {}, `${label}: planned at ${event.planned_ms} ms`));
        chart.append(dot);
      }
      if (event.at_ms !== null) {
        const dot = svg("circle", { class: event.whole ? "written" : "written partial", cx: x(event.at_ms), cy: yWritten, r: 4 });
        dot.append(svg("title", {}, `${label}: written at ${event.at_ms} ms${event.whole ? "" : " (not whole)"}`));
        chart.append(dot);
      }
    }
    for (const mark of line.marks) {
      if (mark.at_ms === null) continue;
      const m = svg("line", { class: `mark ${mark.kind.replace(" ", "-")}`, x1: x(mark.at_ms), x2: x(mark.at_ms), y1: 12, y2: 88 });
      m.append(svg("title", {}, `${mark.kind} at ${mark.at_ms} ms: ${mark.text}`));
      chart.append(m);
    }
    const legend = el("p", { class: "legend" },
      el("span", {}, "○ planned"), el("span", {}, "● written"), el("span", {}, "dashed purple: a fault in the plan"),
      el("span", {}, "red: cut"), el("span", {}, "amber: hung up or behind"), el("span", {}, "green: end"));
    const marks = el("ul", { class: "marks", "aria-label": "Marks" }, line.marks.map((m) =>
      el("li", { class: `mark-${m.kind.replace(" ", "-")}` }, `${m.at_ms === null ? "" : m.at_ms + " ms: "}${m.text}`)));
    const rows = events.map((e) => el("tr", {},
      el("td", {}, String(e.index)),
      el("td", {}, e.at_ms === null ? "not written" : `${e.at_ms}`),
      el("td", {}, e.planned_ms === null ? "" : `${e.planned_ms}`),
      el("td", {}, e.id || ""), el("td", {}, e.event || ""),
      el("td", {}, e.data),
      el("td", {}, e.whole ? "yes" : "no")));
    const table = el("table", { class: "events" },
      el("caption", {}, "Events: written and planned times in ms after the request arrived"),
      el("thead", {}, el("tr", {}, ["#", "Written", "Planned", "Id", "Event", "Data", "Whole"].map((h) => el("th", { scope: "col" }, h)))),
      el("tbody", {}, rows));
    const faults = line.faults.length ? el("p", {}, `Faults: ${line.faults.join(", ")}`) : null;
    return el("div", { class: "timeline-box" }, el("h3", {}, "Timeline"), faults, chart, legend, marks, table);
  }

  // -- talking to the server --------------------------------------------------------------------

  function headers() {
    return state.token ? { Authorization: `Bearer ${state.token}` } : {};
  }

  async function getJSON(path) {
    const answer = await fetch(new URL(path, API), { headers: headers(), cache: "no-store" });
    if (answer.status === 401) throw Object.assign(new Error("unauthorized"), { status: 401 });
    if (!answer.ok) throw new Error(`${path}: ${answer.status}`);
    return answer.json();
  }

  let mocksTimer = null;
  function refreshMocks() { // after calls: the counts moved (at most twice a second)
    if (mocksTimer !== null || state.mode !== "live") return;
    mocksTimer = setTimeout(async () => {
      mocksTimer = null;
      try { state.mocks = (await getJSON("mocks")).mocks; render(); } catch (e) { /* the stream says */ }
    }, 500);
  }

  function listen() {
    if (state.source) state.source.close();
    const source = new EventSource(new URL("journal/events", API));
    state.source = source;
    source.addEventListener("open", () => say("Live: the journal as it happens", "live"));
    source.addEventListener("error", () => {
      if (source.readyState === EventSource.CLOSED) say("Disconnected: reload to try again", "down");
      else say("Reconnecting…", "down");
    });
    source.addEventListener("snapshot", (e) => { notice(""); load(JSON.parse(e.data)); });
    source.addEventListener("call", (e) => { upsert(JSON.parse(e.data)); render(); refreshMocks(); });
    source.addEventListener("cleared", (e) => { forget(JSON.parse(e.data || "{}").worker); render(); refreshMocks(); });
    source.addEventListener("dropped", (e) => {
      notice(JSON.parse(e.data).message + "; the journal is read again.");
      getJSON("journal").then(load).catch(() => {});
    });
  }

  async function connect() {
    try {
      state.mocks = (await getJSON("mocks")).mocks;
    } catch (e) {
      if (e.status === 401) { askToken(); return; }
      say(`Cannot reach the admin API (${e.message})`, "down");
      return;
    }
    if (state.token) {
      await fetch(new URL("ui/session", API), { method: "POST", headers: headers() });
    }
    listen();
  }

  function askToken() {
    say("Waiting for the admin token", "down");
    const form = $("token-form");
    form.hidden = false;
    $("token").focus();
  }

  $("token-form").addEventListener("submit", (e) => {
    e.preventDefault();
    state.token = $("token").value;
    sessionStorage.setItem("mockhttp-token", state.token);
    $("token-form").hidden = true;
    connect();
  });

  // -- a saved journal, offline ---------------------------------------------------------------

  $("open-file").addEventListener("change", async (e) => {
    const file = e.target.files[0];
    if (!file) return;
    try {
      const saved = JSON.parse(await file.text());
      if (state.source) { state.source.close(); state.source = null; }
      state.mode = "file";
      state.chosen = null;
      state.mocks = saved.mocks || [];
      load(saved);
      say(`Offline: ${file.name} (${state.calls.size} calls)`);
      notice("");
    } catch (err) {
      notice(`${file.name} is not a saved journal: ${err.message}`);
    }
  });

  for (const id of ["f-mock", "f-status", "f-test"]) $(id).addEventListener("change", render);
  $("f-text").addEventListener("input", render);
  $("filters").addEventListener("submit", (e) => e.preventDefault());

  // -- start ---------------------------------------------------------------------------------------

  const fromHash = new URLSearchParams(location.hash.slice(1)).get("token");
  if (fromHash) history.replaceState(null, "", location.pathname + location.search);
  state.token = fromHash || sessionStorage.getItem("mockhttp-token");
  if (location.protocol === "file:") {
    state.mode = "file";
    say("Offline: open a saved journal (the JSON of GET /__mockhttp/journal, or of mockhttp ui)");
  } else {
    connect();
  }
})();
