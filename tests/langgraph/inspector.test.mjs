// The inspector (pkg/inspector, served by `agentmem-inspect` from the built package) in
// headless Chromium (Debian's chromium via playwright-core from tools/node_modules),
// against the stack, as two users:
// - user A has a real graph run: an interrupt, resumed ("yes"), resumed again from the
//   question ("no": fork 1) and updated there (updateState: fork 2); the page's tree has
//   the checkpoints and branches the saver lists, the diff names the channels that differ,
//   a fork made in the page is read back by AgentmemSaver here with the edited values, and
//   a thread deleted in the page is gone;
// - user B sees none of A's threads or memories, and A's thread id in the URL is "not found".
// Screenshots of each view go to $AGENTMEM_INSPECTOR_SHOTS (default:
// tests/langgraph/inspector-screenshots/), each checked for non-blank rendering in the page.
import { readFileSync } from "node:fs";
import { createServer, request } from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Annotation, Command, END, interrupt, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { AgentmemSaver, AgentmemStore } from "agentmem-supabase/langgraph";
import { env, gatewayWithMaxRows, newUser } from "./stack.mjs";
import { bagOfWords } from "./bag_of_words.mjs";
import { accessible, go, launch, screenshot, serve, shotsDir, signIn } from "./inspector_support.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));

const State = Annotation.Root({
  ...MessagesAnnotation.spec,
  text: Annotation({ reducer: (_, b) => b, default: () => "" }),
});

function buildGraph(checkpointer) {
  return new StateGraph(State)
    .addNode("prepare", (s) => ({ messages: [new AIMessage(`preparing ${s.text}`)], text: `${s.text}:prepared` }))
    .addNode("ask", (s) => {
      const answer = interrupt({ question: `approve ${s.text}?` });
      return { messages: [new AIMessage(`answer: ${answer}`)], text: `${s.text}:${answer}` };
    })
    .addNode("finish", (s) => ({ text: `${s.text}:done` }))
    .addEdge(START, "prepare")
    .addEdge("prepare", "ask")
    .addEdge("ask", "finish")
    .addEdge("finish", END)
    .compile({ checkpointer });
}

/** The thread's checkpoints in the root namespace as the saver lists them, and the leaves
 *  of their parent links (one per branch). */
async function shape(saver, threadId) {
  const tuples = [];
  for await (const t of saver.list({ configurable: { thread_id: threadId, checkpoint_ns: "" } })) tuples.push(t);
  const parents = new Set(tuples.map((t) => t.parentConfig?.configurable.checkpoint_id).filter(Boolean));
  return { tuples, checkpoints: tuples.length, branches: tuples.filter((t) => !parents.has(t.config.configurable.checkpoint_id)).length };
}

test("the inspector shows a user's threads, forks, diffs and memories, and nothing of another user's", { timeout: 240_000 }, async () => {
  shotsDir();
  const a = await newUser();
  const b = await newUser();
  const saver = new AgentmemSaver(a.client);
  const graph = buildGraph(saver);
  const thread = `inspect-${crypto.randomUUID()}`;
  const config = { configurable: { thread_id: thread } };

  // The run: interrupted at "ask", resumed "yes"; from the question again "no" (fork 1);
  // and the question's checkpoint updated by hand (fork 2).
  await graph.invoke({ messages: [new HumanMessage("hello inspector")], text: "plan" }, config);
  const asking = await graph.getState(config);
  expect(asking.next).toEqual(["ask"]);
  await graph.invoke(new Command({ resume: "yes" }), config);
  const yes = await graph.getState(config);
  await graph.invoke(new Command({ resume: "no" }), asking.config);
  await graph.updateState(asking.config, { text: "EDITED" });
  const askingId = asking.config.configurable.checkpoint_id;
  const yesId = yes.config.configurable.checkpoint_id;
  const before = await shape(saver, thread);
  expect(before.branches).toBe(3); // the "yes" line and the two forks

  // A second thread, deleted in the page; two memories.
  const doomed = `doomed-${crypto.randomUUID()}`;
  await graph.invoke({ messages: [new HumanMessage("bye")], text: "x" }, { configurable: { thread_id: doomed } });
  for (const [content, type] of [["prefers coffee over tea", "preference"], ["the deal closes in March", "fact"]]) {
    await a.client.rpc("create_agent_memory", { p_agent_id: "inspector-test", p_content: content, p_memory_type: type });
  }
  // One with an embedding, for the search by meaning (the page's embedder is the same).
  await a.client.rpc("create_agent_memory", {
    p_agent_id: "inspector-test", p_content: "likes window seats on long flights", p_memory_type: "preference",
    p_embedding: JSON.stringify(bagOfWords("likes window seats on long flights")),
  });

  await new AgentmemStore(a.client).put(["prefs", "food"], "lunch", { likes: "soup" });
  // Items with vectors (the page's embedder is the same) and one with a TTL.
  const indexed = new AgentmemStore(a.client, { index: { dims: 384, embed: (texts) => texts.map(bagOfWords), fields: ["text"] } });
  await indexed.put(["trips", "2026"], "oslo", { text: "window seat on the morning flight to Oslo" });
  await indexed.put(["trips", "2026"], "rome", { text: "hotel near the station in Rome" }, undefined, { ttl: 90 });

  const { url, child } = await serve();
  const browser = await launch();
  const logs = [];
  try {
    const ctxA = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    // The embedding hook a deployment defines before the page loads.
    await ctxA.addInitScript(`globalThis.agentmemInspector = { embed: async (texts) => texts.map(${bagOfWords.toString()}) };`);
    const page = await ctxA.newPage();
    page.on("pageerror", (e) => logs.push(String(e)));
    page.on("console", (m) => m.type() === "error" && logs.push(m.text()));

    // A token that is not a JWT: the package's typed error, shown with its code.
    await signIn(page, url, "not-a-jwt");
    expect(await page.textContent('[data-state="error"] code')).toMatch(/^[a-z_]+$/);
    await accessible(page, "sign-in");
    await screenshot(page, "signin-error.png");

    // Threads.
    await signIn(page, url, a.token);
    expect(await page.getAttribute("#whoami", "data-sub")).toBe(a.id);
    expect(await page.textContent("#whoami")).toContain(`signed in as ${a.id} (authenticated)`);
    expect(await page.getAttribute("[data-threads]", "data-threads")).toBe("2");
    expect(await page.locator(`tr[data-thread="${thread}"]`).count()).toBe(1);
    await screenshot(page, "threads.png");
    await accessible(page, "threads");
    // The prefix filter.
    await page.fill("#f-prefix", "doomed-");
    await page.click('form[role="search"] button');
    await page.waitForFunction(() => document.querySelector("[data-threads]")?.getAttribute("data-threads") === "1");
    expect(await page.locator(`tr[data-thread="${doomed}"]`).count()).toBe(1);
    // The metadata filter: only the first thread has a checkpoint made by updateState.
    await page.fill("#f-prefix", "");
    await page.fill("#f-meta", '{"source":"update"}');
    await page.click('form[role="search"] button');
    await page.waitForFunction((t) => document.querySelector("[data-threads]")?.getAttribute("data-threads") === "1" &&
      document.querySelector(`tr[data-thread="${t}"]`) !== null, thread);

    // The thread: its tree, as the saver lists it.
    await go(page, `#/thread/${encodeURIComponent(thread)}`);
    await page.waitForSelector(".tree");
    expect(Number(await page.getAttribute(".tree", "data-checkpoints"))).toBe(before.checkpoints);
    expect(await page.locator(".tree button.node").count()).toBe(before.checkpoints);
    expect(await page.locator(".tree [data-head]").count()).toBe(before.branches);
    expect(await page.locator(".tree ul[data-branch]").count()).toBe(before.branches - 1);
    expect(await page.locator(".tree .badge.interrupt").count()).toBeGreaterThan(0);

    // The question's checkpoint: chat, pending writes (the interrupt), metadata.
    await go(page, `#/thread/${encodeURIComponent(thread)}/${encodeURIComponent(askingId)}`);
    await page.waitForSelector(`[data-detail="${askingId}"]`);
    expect(await page.textContent("[data-chat] .msg.human")).toContain("hello inspector");
    expect(await page.textContent("[data-chat] .msg.ai")).toContain("preparing plan");
    expect(JSON.parse(await page.getAttribute("[data-interrupt-value]", "data-interrupt-value"))).toEqual(asking.tasks[0].interrupts[0].value);
    await screenshot(page, "thread.png");
    await accessible(page, "thread");

    // Diff: the question vs the end of the "yes" line.
    await page.selectOption("#f-diff-a", askingId);
    await page.selectOption("#f-diff-b", yesId);
    await page.click('[data-action="diff"]');
    await page.waitForSelector("[data-diff]");
    const changed = (await page.getAttribute("[data-diff]", "data-diff")).split(",").filter(Boolean).sort();
    const ta = before.tuples.find((t) => t.config.configurable.checkpoint_id === askingId).checkpoint.channel_values;
    const tb = before.tuples.find((t) => t.config.configurable.checkpoint_id === yesId).checkpoint.channel_values;
    const expected = [...new Set([...Object.keys(ta), ...Object.keys(tb)])].filter((c) => JSON.stringify(ta[c]) !== JSON.stringify(tb[c])).sort();
    expect(changed).toEqual(expected);
    expect(changed).toEqual(expect.arrayContaining(["messages", "text"]));
    await page.locator("[data-diff]").scrollIntoViewIfNeeded();
    await screenshot(page, "diff.png");
    await accessible(page, "diff");

    // Fork from the question with an edited value; read back here by AgentmemSaver.
    await page.click('[data-action="fork"]');
    await page.waitForSelector('[data-fork-channel="text"]');
    await page.fill('[data-fork-channel="text"]', '"FORKED-IN-PAGE"');
    await screenshot(page, "fork-form.png");
    await accessible(page, "fork form");
    await page.click('[data-form="fork"] button[type="submit"]');
    await page.waitForFunction((id) => {
      const d = document.querySelector("[data-detail]");
      return d && d.getAttribute("data-detail") !== id;
    }, askingId);
    const forkId = await page.getAttribute("[data-detail]", "data-detail");
    const tuple = await saver.getTuple({ configurable: { thread_id: thread, checkpoint_ns: "", checkpoint_id: forkId } });
    expect(tuple.checkpoint.channel_values.text).toBe("FORKED-IN-PAGE");
    expect(tuple.checkpoint.channel_values.messages[0]).toBeInstanceOf(HumanMessage);
    expect(tuple.checkpoint.channel_values.messages.map((m) => m.content)).toEqual(asking.values.messages.map((m) => m.content));
    expect(tuple.parentConfig.configurable.checkpoint_id).toBe(askingId);
    expect(tuple.metadata).toMatchObject({ source: "update", step: asking.metadata.step + 1 });
    // The fork is the thread's latest checkpoint, as updateState's would be.
    expect((await graph.getState(config)).values.text).toBe("FORKED-IN-PAGE");
    const after = await shape(saver, thread);
    expect(after.branches).toBe(before.branches + 1);
    expect(Number(await page.getAttribute(".tree", "data-checkpoints"))).toBe(before.checkpoints + 1);
    expect(await page.locator(".tree [data-head]").count()).toBe(after.branches);

    // Phone width.
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, "thread-phone.png");
    await page.setViewportSize({ width: 1280, height: 800 });

    // Memories: all, then a full-text search.
    await go(page, "#/memories");
    await page.waitForSelector("[data-memories]");
    expect(await page.getAttribute("[data-memories]", "data-memories")).toBe("3");
    for (const c of await page.locator("[data-memories] [data-created]").evaluateAll((els) => els.map((e) => e.getAttribute("data-created")))) {
      expect(Date.now() - Date.parse(c)).toBeLessThan(10 * 60_000);
    }
    await screenshot(page, "memories.png");
    await accessible(page, "memories");
    await page.fill("#f-q", "coffee");
    await page.click('form[role="search"] button');
    await page.waitForFunction(() => document.querySelector("[data-memories]")?.getAttribute("data-memories") === "1");
    expect(await page.textContent("[data-memories] tbody")).toContain("prefers coffee");
    // By meaning: the memory with an embedding, scored (the others have none to compare).
    await page.fill("#f-q", "window seats on flights");
    await page.selectOption("#f-by", "meaning");
    await page.click('form[role="search"] button');
    await page.waitForSelector("[data-similarity]");
    expect(await page.textContent("[data-memories] tbody")).toContain("window seats");
    const similarity = Number(await page.getAttribute("[data-similarity]", "data-similarity"));
    expect(similarity).toBeGreaterThan(0.5);
    expect(similarity).toBeLessThan(1);
    await screenshot(page, "memories-by-meaning.png");

    // One Memory view for both places: the header's "Memory" leads to the memory tools'
    // memories, whose tab leads to the LangGraph store's items.
    await go(page, "#/threads");
    await page.click('.top a[data-nav="memory"]');
    await page.waitForSelector("[data-memories]");
    expect(await page.getAttribute('.top a[data-nav="memory"]', "aria-current")).toBe("page");
    expect(await page.textContent('nav.tabs a[aria-current="page"]')).toBe("Memory tools");
    await page.click('nav.tabs a[href="#/store"]');

    // The long-term store.
    await page.waitForSelector('[data-namespace="prefs / food"] [data-item="lunch"]');
    expect(await page.getAttribute('.top a[data-nav="memory"]', "aria-current")).toBe("page");
    expect(await page.textContent('nav.tabs a[aria-current="page"]')).toBe("LangGraph store");
    expect(await page.textContent('[data-item="lunch"]')).toContain("soup");
    // Times, TTL and expiry per item.
    const rome = page.locator('[data-namespace="trips / 2026"] [data-item="rome"]');
    expect(await rome.locator("[data-times]").textContent()).toMatch(/created .+ · updated .+ · TTL 90 min/);
    const expires = Date.parse(await rome.locator("[data-expires]").getAttribute("data-expires"));
    expect(expires - Date.now()).toBeGreaterThan(80 * 60_000);
    expect(expires - Date.now()).toBeLessThan(91 * 60_000);
    expect(await page.getAttribute('[data-item="oslo"] [data-expires]', "data-expires")).toBe("never");
    await screenshot(page, "store.png");
    await accessible(page, "store");
    // Filtered by namespace and words; then by meaning, scored.
    await page.fill("#f-ns-prefix", "trips");
    await page.fill("#f-q", "hotel");
    await page.click('form[role="search"] button');
    await page.waitForFunction(() => document.querySelectorAll("[data-item]").length === 1);
    expect(await page.locator('[data-item="rome"]').count()).toBe(1);
    await page.fill("#f-q", "a seat on a flight");
    await page.selectOption("#f-by", "meaning");
    await page.click('form[role="search"] button');
    await page.waitForSelector("[data-score]");
    expect(await page.locator("[data-item] h3").evaluateAll((els) => els.map((e) => e.firstChild.textContent))).toEqual(["oslo", "rome"]);
    expect(Number(await page.getAttribute('[data-item="oslo"] [data-score]', "data-score"))).toBeGreaterThan(Number(await page.getAttribute('[data-item="rome"] [data-score]', "data-score")));
    expect(await page.textContent('[data-item="rome"] [data-times]')).toContain("TTL 90 min");
    await screenshot(page, "store-by-meaning.png");

    // Delete a thread, confirmed in the dialog.
    await go(page, `#/thread/${encodeURIComponent(doomed)}`);
    await page.waitForSelector(".tree");
    await page.click('[data-action="delete"]');
    await screenshot(page, "delete-confirm.png");
    await page.click('[data-action="confirm-delete"]');
    await page.waitForSelector("[data-threads]");
    expect(await page.locator(`tr[data-thread="${doomed}"]`).count()).toBe(0);
    expect((await shape(saver, doomed)).checkpoints).toBe(0);

    // User B: nothing of A's.
    const ctxB = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const pageB = await ctxB.newPage();
    pageB.on("pageerror", (e) => logs.push(String(e)));
    await signIn(pageB, url, b.token);
    expect(await pageB.getAttribute("#whoami", "data-sub")).toBe(b.id);
    expect(await pageB.locator("[data-threads]").count()).toBe(0);
    expect(await pageB.getAttribute("[data-state]", "data-state")).toBe("empty");
    await screenshot(pageB, "other-user-threads.png");
    await go(pageB, `#/thread/${encodeURIComponent(thread)}`);
    await pageB.waitForSelector('[data-state="not-found"]');
    await screenshot(pageB, "not-found.png");
    await go(pageB, "#/memories");
    await pageB.waitForSelector('[data-state="empty"]');
    expect(await pageB.locator("[data-memories]").count()).toBe(0);
    await go(pageB, "#/store");
    await pageB.waitForSelector('[data-state="empty"]');
    expect(await pageB.locator("[data-namespace]").count()).toBe(0);
    expect(logs).toEqual([]);
  } finally {
    await browser.close();
    child.kill();
  }
});

test("the inspector reads past the server's max-rows: every thread, every checkpoint, values sent on earlier pages", { timeout: 120_000 }, async () => {
  const a = await newUser();
  const saver = new AgentmemSaver(a.client);
  const graph = buildGraph(saver);
  const thread = `paged-${crypto.randomUUID()}`;
  const config = { configurable: { thread_id: thread } };
  await graph.invoke({ messages: [new HumanMessage("hello pages")], text: "plan" }, config);
  const asking = await graph.getState(config);
  await graph.invoke(new Command({ resume: "yes" }), config);
  const yes = await graph.getState(config);
  const other = `paged-other-${crypto.randomUUID()}`;
  await graph.invoke({ messages: [new HumanMessage("second")], text: "x" }, { configurable: { thread_id: other } });
  const full = await shape(saver, thread);
  expect(full.checkpoints).toBeGreaterThan(4);

  // The page talks to a gateway that answers at most 2 rows a request.
  const gw = await gatewayWithMaxRows(2);
  const { url, child } = await serve(gw.url);
  const browser = await launch();
  const logs = [];
  try {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    page.on("pageerror", (e) => logs.push(String(e)));
    page.on("console", (m) => m.type() === "error" && logs.push(m.text()));
    await signIn(page, url, a.token);
    expect(await page.getAttribute("[data-threads]", "data-threads")).toBe("2");
    expect(await page.getAttribute(`tr[data-thread="${thread}"]`, "data-count")).toBe(String(full.checkpoints));
    expect(await page.locator("[data-partial]").count()).toBe(0);

    await go(page, `#/thread/${encodeURIComponent(thread)}/${encodeURIComponent(asking.config.configurable.checkpoint_id)}`);
    await page.waitForSelector(".tree");
    expect(Number(await page.getAttribute(".tree", "data-checkpoints"))).toBe(full.checkpoints);
    expect(await page.locator(".tree button.node").count()).toBe(full.checkpoints);
    expect(await page.locator(".tree [data-head]").count()).toBe(full.branches);
    expect(await page.locator("[data-partial]").count()).toBe(0);
    // The question's messages, though the list sent them with a newer checkpoint on an earlier page.
    expect(await page.textContent("[data-chat] .msg.human")).toContain("hello pages");
    expect(await page.locator('[data-section="channels"] em', { hasText: "missing" }).count()).toBe(0);
    await page.selectOption("#f-diff-a", asking.config.configurable.checkpoint_id);
    await page.selectOption("#f-diff-b", yes.config.configurable.checkpoint_id);
    await page.click('[data-action="diff"]');
    await page.waitForSelector("[data-diff]");
    expect((await page.getAttribute("[data-diff]", "data-diff")).split(",")).toEqual(expect.arrayContaining(["messages", "text"]));
    expect(logs).toEqual([]);
  } finally {
    await browser.close();
    child.kill();
    gw.close();
  }
});

/** An HTTP server on 127.0.0.1 that records every request (method, path, Authorization)
 *  and answers as an embedding endpoint would, CORS included. */
async function recorder() {
  const seen = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      seen.push({ method: req.method, path: req.url, authorization: req.headers.authorization ?? null });
      res.setHeader("access-control-allow-origin", "*");
      res.setHeader("access-control-allow-headers", "authorization, content-type");
      if (req.method === "OPTIONS") return res.writeHead(204).end();
      const texts = req.method === "POST" ? JSON.parse(body || "{}").texts ?? [] : [];
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ vectors: texts.map(bagOfWords) }));
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${server.address().port}/embed`, seen, close: () => server.close() };
}

/** The package's files served as a static deployment would (no config.json); resolves to the page's URL. */
async function staticSite() {
  const pkg = join(here, "node_modules", "agentmem-supabase");
  const types = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".wasm": "application/wasm" };
  const server = createServer((req, res) => {
    const path = new URL(req.url, "http://x").pathname.replace(/\/$/, "/index.html");
    const type = types[path.slice(path.lastIndexOf("."))];
    try {
      if (!type || path.includes("..")) throw new Error("no");
      res.writeHead(200, { "content-type": type }).end(readFileSync(join(pkg, path)));
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${server.address().port}/inspector/`, close: () => server.close() };
}

/** A GET of `url` with the Host header `host`: its status and headers. */
function getWithHost(url, host) {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { host } }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers }));
    });
    req.on("error", reject);
    req.end();
  });
}

test("agentmem-inspect answers its own Host only and sends a CSP; the token goes to the project and the configured embedder, never to an endpoint planted in storage", { timeout: 120_000 }, async () => {
  const a = await newUser();
  await a.client.rpc("create_agent_memory", {
    p_agent_id: "inspector-test", p_content: "likes window seats on long flights", p_memory_type: "preference",
    p_embedding: JSON.stringify(bagOfWords("likes window seats on long flights")),
  });
  const planted = await recorder();
  const embedder = await recorder();
  const site = await staticSite();
  const { url, child } = await serve(env.SUPABASE_URL, ["--embed-url", embedder.url]);
  const browser = await launch();
  const logs = [];
  try {
    // Host: only the address it listens on (DNS rebinding sends the attacker's name).
    const port = new URL(url).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      expect((await getWithHost(`${url}config.json`, host)).status, host).toBe(200);
    }
    for (const host of [`attacker.example:${port}`, "127.0.0.1", `127.0.0.1:${Number(port) + 1}`, `evil.127.0.0.1.nip.io:${port}`]) {
      const answer = await getWithHost(`${url}config.json`, host);
      expect(answer.status, host).toBe(403);
    }
    const page = await getWithHost(url, `127.0.0.1:${port}`);
    const csp = page.headers["content-security-policy"];
    const directives = Object.fromEntries(csp.split(";").map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k, v]));
    expect(directives["frame-ancestors"]).toEqual(["'none'"]);
    expect(directives["connect-src"]).toEqual(["'self'", new URL(env.SUPABASE_URL).origin, embedder.url]);
    expect(directives["default-src"]).toEqual(["'self'"]);
    expect(directives["script-src"]).toEqual(["'self'", "'wasm-unsafe-eval'"]);

    // Served by agentmem-inspect: search by meaning goes to the configured endpoint, with
    // the user's token; the CSP refuses any other destination.
    const ctx = await browser.newContext();
    const tab = await ctx.newPage();
    tab.on("pageerror", (e) => logs.push(String(e)));
    tab.on("console", (m) => m.type() === "error" && logs.push(m.text()));
    await signIn(tab, url, a.token);
    await go(tab, `#/memories?${new URLSearchParams({ q: "window seat", by: "meaning" })}`);
    await tab.waitForSelector("#f-q");
    await tab.waitForSelector("[data-memories], [data-state]");
    expect(await tab.locator("[data-memories]").count(), `${await tab.textContent("main")}\n${logs.join("\n")}`).toBe(1);
    expect(await tab.textContent("[data-memories] tbody")).toContain("window seats");
    expect(embedder.seen.filter((r) => r.method === "POST")).toEqual([{ method: "POST", path: "/embed", authorization: `Bearer ${a.token}` }]);
    const elsewhere = await tab.evaluate((to) => fetch(to, { method: "POST", body: "x" }).then(() => "sent", (e) => e.name), planted.url);
    expect(elsewhere).toBe("TypeError");
    expect(planted.seen).toEqual([]);
    expect(logs.some((l) => l.includes("Content Security Policy"))).toBe(true);
    logs.length = 0;
    await ctx.close();

    // A static deployment (no config.json) whose origin's storage a script once wrote: the
    // page takes the URL and key from it, never an endpoint, and the token goes nowhere else.
    const staticCtx = await browser.newContext();
    const staticTab = await staticCtx.newPage();
    staticTab.on("pageerror", (e) => logs.push(String(e)));
    staticTab.on("console", (m) => m.type() === "error" && !m.text().includes("404") && logs.push(m.text()));
    await staticTab.goto(site.url);
    await staticTab.evaluate(([project, embedUrl]) => {
      localStorage.setItem("agentmem-inspector-project", JSON.stringify({ ...project, embedUrl, fixed: false }));
    }, [{ url: env.SUPABASE_URL, apiKey: env.SUPABASE_ANON_KEY }, planted.url]);
    await staticTab.reload();
    await staticTab.waitForSelector("#f-token");
    expect(await staticTab.inputValue("#f-url")).toBe(env.SUPABASE_URL);
    await staticTab.fill("#f-token", a.token);
    await staticTab.click('form[data-form="token"] button[type="submit"]');
    await staticTab.waitForSelector("[data-threads], [data-state]");
    await go(staticTab, `#/memories?${new URLSearchParams({ q: "window seat", by: "meaning" })}`);
    await staticTab.waitForSelector("#f-q");
    await staticTab.waitForSelector("[data-memories], [data-state]");
    expect(planted.seen, "the planted endpoint received nothing").toEqual([]);
    expect(await staticTab.locator("#f-by").count(), "no embedder: no search by meaning").toBe(0);
    expect(logs).toEqual([]);
    await staticCtx.close();
  } finally {
    await browser.close();
    child.kill();
    planted.close();
    embedder.close();
    site.close();
  }
});
