// COIA's landing flow end to end in headless Chromium (Debian's chromium through
// playwright-core from tools/), on the local stack: landing.html signs the visitor in
// anonymously with supabase-js's browser build against /auth/v1, talks to the coia-landing
// edge function (served by Deno with the scripted model, deno/edge/coia_landing_serve.ts)
// with the visitor's token, and the test drives it as a visitor would: two turns make a
// lead, an anonymous visitor cannot claim it, a second visitor following a link with the
// first one's thread id gets a conversation of their own, the first visitor signs up, keeps
// everything across a reload, and claims the contractor profile in one request.
// Run by tests/visitors/run.sh.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { readStackEnv } from "../support/env.mjs";

const root = new URL("../../", import.meta.url).pathname;
const { chromium } = createRequire(join(root, "tools/package.json"))("playwright-core");
const env = readStackEnv();
const here = join(root, "tests/visitors");

let fn, functionUrl, server, origin, browser;
before(async () => {
  // The edge function, as `supabase functions serve` would run it: its own import map and
  // the permissions README gives.
  fn = spawn(join(root, "tools/node_modules/.bin/deno"), [
    "run", "--quiet", "--config", "supabase/functions/coia-landing/deno.json",
    "--allow-read", "--allow-env", "--allow-net", "--allow-sys", "deno/edge/coia_landing_serve.ts",
  ], { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise((_, reject) => fn.once("exit", (code) => reject(new Error(`the edge function exited with ${code}`))));
  functionUrl = await Promise.race([createInterface({ input: fn.stdout })[Symbol.asyncIterator]().next().then((l) => l.value), exited]);
  assert.match(functionUrl, /^http:\/\/127\.0\.0\.1:\d+\/functions\/v1\/coia-landing$/);

  // The page on an origin of its own: supabase-js reaches /auth/v1 and the function
  // reaches nothing but through CORS, as from a real site.
  server = createServer(async (req, res) => {
    const path = new URL(req.url, "http://x").pathname;
    if (path === "/config.json") {
      res.writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ url: env.SUPABASE_URL, anonKey: env.SUPABASE_ANON_KEY, functionUrl }));
    } else if (path === "/supabase.js") {
      res.writeHead(200, { "content-type": "text/javascript" })
        .end(await readFile(join(here, "node_modules/@supabase/supabase-js/dist/umd/supabase.js")));
    } else if (path === "/landing.html") {
      res.writeHead(200, { "content-type": "text/html" }).end(await readFile(join(here, "landing.html")));
    } else {
      res.writeHead(404).end();
    }
  }).listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  origin = `http://127.0.0.1:${server.address().port}`;
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
});
after(async () => {
  await browser?.close();
  server?.close();
  fn?.kill();
});

/** A visitor: a browser context of their own (their own localStorage, so their own session). */
async function visit(path) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const logs = [];
  page.on("console", (m) => logs.push(m.text()));
  page.on("pageerror", (e) => logs.push(String(e)));
  await page.goto(origin + path);
  await page.waitForFunction(() => Number(document.body.dataset.done) >= 1, null, { timeout: 20000 });
  const v = {
    page,
    logs,
    text: (selector) => page.textContent(selector),
    messages: () => page.$$eval("#messages li", (items) => items.map((li) => `${li.dataset.type}: ${li.textContent}`)),
    /** Runs what the visitor does and waits for the page to finish it; resolves to the error shown, or "". */
    async act(doing) {
      const before = Number(await page.getAttribute("body", "data-done"));
      await doing();
      await page.waitForFunction((n) => Number(document.body.dataset.done) > n, before, { timeout: 20000 });
      return await page.textContent("#error");
    },
    say(message) {
      return v.act(async () => {
        await page.fill("#chat input[name=message]", message);
        await page.click("#chat button");
      });
    },
  };
  assert.equal(await v.text("#error"), "", logs.join("\n"));
  return v;
}

/** The service role's view across tenants (it bypasses row-level security). */
async function everyTenant(table, query) {
  const r = await fetch(`${env.SUPABASE_URL}/rest/v1/${table}?${query}`, {
    headers: { apikey: env.SUPABASE_SERVICE_ROLE_KEY, authorization: `Bearer ${env.SUPABASE_SERVICE_ROLE_KEY}` },
  });
  assert.equal(r.status, 200);
  return Object.fromEntries((await r.json()).map((row) => [row.tenant_id, row.company_name ?? true]));
}

async function gatewayRequests(method) {
  const r = await fetch(`${env.SUPABASE_URL}/__gateway/requests`, { method, headers: { apikey: env.SUPABASE_SECRET_KEY } });
  assert.ok(r.ok, `gateway ${method} requests: ${r.status}`);
  return method === "GET" ? (await r.json()).requests.map((q) => `${q.method} ${q.path}`) : undefined;
}

test("a visitor without an account: landing thread, conversation and lead kept through sign-up, one-request conversion, a second visitor kept apart", async () => {
  const a = await visit("/landing.html");
  const visitor = await a.text("#user");
  assert.match(visitor, /^[0-9a-f-]{36}$/);
  assert.equal(await a.text("#kind"), "anonymous visitor");

  assert.equal(await a.say("Hi! We are Acme Roofing, 12 years in Miami. We do roofing and gutters."), "");
  const thread = await a.text("#thread");
  assert.match(thread, /^landing-[0-9a-f]{12}$/);
  assert.equal(await a.text("#lead"), "Acme Roofing");
  assert.equal(await a.say("My name is Jo Smith, jo@acme.test"), "");
  const conversation = [
    "human: Hi! We are Acme Roofing, 12 years in Miami. We do roofing and gutters.",
    "ai: Nice to meet you, Acme Roofing. What email can we reach you at?",
    "human: My name is Jo Smith, jo@acme.test",
    "ai: Thanks! Create an account to claim the Acme Roofing profile.",
  ];
  assert.deepEqual(await a.messages(), conversation);
  assert.equal(await a.text("#lead"), "Acme Roofing, jo@acme.test");
  // Still anonymous: no contractor yet.
  assert.match(await a.act(() => a.page.click("#claim")), /^forbidden: create an account first/);
  assert.equal(await a.text("#contractor"), "none");

  // A second visitor follows a link carrying A's thread (and lead) id.
  const b = await visit(`/landing.html?thread=${thread}`);
  assert.notEqual(await b.text("#user"), visitor);
  assert.equal(await b.text("#kind"), "anonymous visitor");
  assert.deepEqual(await b.messages(), []);
  assert.equal(await b.text("#lead"), "no profile yet");
  assert.equal(await b.say("hello"), "");
  assert.deepEqual(await b.messages(), ["human: hello", "ai: Welcome! What is your company called?"]);
  assert.match(await b.act(() => b.page.click("#claim")), /^forbidden:/);
  const bPage = await b.page.content();
  for (const secret of ["Acme", "jo@acme.test", "Jo Smith", "gutters"]) assert.ok(!bPage.includes(secret), `B's page shows ${secret}`);

  // A signs up: the same user, now with an email.
  const email = `landing-${crypto.randomUUID().slice(0, 8)}@test.local`;
  assert.equal(await a.act(async () => {
    await a.page.fill("#signup input[name=email]", email);
    await a.page.fill("#signup input[name=password]", "landing password");
    await a.page.click("#signup button");
  }), "");
  assert.equal(await a.text("#user"), visitor);
  assert.equal(await a.text("#kind"), email);

  // Back later (a reload): the session, the thread, the conversation and the lead are A's.
  await a.page.reload();
  await a.page.waitForFunction(() => Number(document.body.dataset.done) >= 1, null, { timeout: 20000 });
  assert.equal(await a.text("#error"), "", a.logs.join("\n"));
  assert.equal(await a.text("#user"), visitor);
  assert.equal(await a.text("#kind"), email);
  assert.equal(await a.text("#thread"), thread);
  assert.deepEqual(await a.messages(), conversation);
  assert.equal(await a.text("#lead"), "Acme Roofing, jo@acme.test");

  // The claim: one request from the page, one at the database.
  await gatewayRequests("DELETE");
  assert.equal(await a.act(() => a.page.click("#claim")), "");
  assert.deepEqual(await gatewayRequests("GET"), ["POST /rest/v1/rpc/convert_contractor_lead"]);
  assert.match(await a.text("#contractor"), /^Acme Roofing \([0-9a-f-]{36}\)$/);

  // B's view is still B's alone, and across tenants each object is its visitor's.
  await b.page.reload();
  await b.page.waitForFunction(() => Number(document.body.dataset.done) >= 1, null, { timeout: 20000 });
  assert.deepEqual(await b.messages(), ["human: hello", "ai: Welcome! What is your company called?"]);
  assert.equal(await b.text("#contractor"), "none");
  const bId = await b.text("#user");
  assert.deepEqual(await everyTenant("contractor_leads", `id=eq.${thread}&select=tenant_id,company_name`), { [visitor]: "Acme Roofing" });
  assert.deepEqual(await everyTenant("contractors", `contractor_lead_id=eq.${thread}&select=tenant_id,company_name`), { [visitor]: "Acme Roofing" });
  assert.deepEqual(await everyTenant("langgraph_checkpoints", `thread_id=eq.${thread}&select=tenant_id`), { [visitor]: true, [bId]: true });
});
