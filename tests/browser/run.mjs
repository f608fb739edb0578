// Runs the built package in headless Chromium (Debian's /usr/bin/chromium via
// playwright-core): a smoke page checked against CPython, then the shared transport cases
// (tests/transport/cases.js) against the running stack (scripts/stack.sh up --test-fixtures).
// Usage: node tests/browser/run.mjs
import { createServer } from "node:http";
import { readFile, writeFile, rm } from "node:fs/promises";
import { execFileSync } from "node:child_process";
import { extname, join, normalize } from "node:path";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { readStackEnv } from "../support/env.mjs";

const root = new URL("../../", import.meta.url).pathname;
// playwright-core lives with the other project-local tools (tools/node_modules).
const { chromium } = createRequire(join(root, "tools/package.json"))("playwright-core");
const names = ["", "python.org", "😀 𝄞 é", "\u0000", "x".repeat(10240)];
const namesFile = join(root, "tests/browser/names.json");
await writeFile(namesFile, JSON.stringify(names));
const expected = execFileSync(process.env.PYTHON ?? "python3", ["-c", "import json,sys,uuid\nfor n in json.load(sys.stdin): print(uuid.uuid5(uuid.NAMESPACE_DNS, n))"], {
  input: JSON.stringify(names),
}).toString().trim().split("\n");

const stackEnv = readStackEnv();

// What a browser app gets for `import "agentmem-supabase/ids"`: the exports map's "browser" target.
const pkgJson = JSON.parse(await readFile(join(root, "pkg/package.json"), "utf8"));
const importMap = { imports: { "agentmem-supabase/ids": `/pkg/${pkgJson.exports["./ids"].browser.replace(/^\.\//, "")}` } };
// Every path the pages fetch, to show what the ids entry downloads.
const requested = [];

const types = { ".html": "text/html", ".js": "text/javascript", ".json": "application/json", ".wasm": "application/wasm" };
const server = createServer(async (req, res) => {
  const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname));
  requested.push(path);
  if (path === "/__env.json") {
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ...stackEnv, AGENTMEM_GATEWAY_ADMIN_URL: "" }));
    return;
  }
  // The gateway's admin routes answer no CORS, so the transport page reaches them here,
  // same-origin, and this server forwards them with the key the page sent.
  if (path.startsWith("/__gateway/")) {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = chunks.length ? Buffer.concat(chunks) : undefined;
    const r = await fetch(`${stackEnv.SUPABASE_URL}${req.url}`, { method: req.method, headers: { apikey: req.headers.apikey ?? "" }, body });
    res.writeHead(r.status, { "content-type": r.headers.get("content-type") ?? "application/json" }).end(Buffer.from(await r.arrayBuffer()));
    return;
  }
  try {
    let body = await readFile(join(root, path));
    if (path === "/tests/browser/ids.html") {
      body = body.toString().replace("<!--IMPORTMAP-->", `<script type="importmap">${JSON.stringify(importMap)}</script>`);
    }
    res.writeHead(200, { "content-type": types[extname(path)] ?? "application/octet-stream" });
    res.end(body);
  } catch {
    res.writeHead(404).end();
  }
}).listen(0, "127.0.0.1");
await new Promise((r) => server.once("listening", r));

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
try {
  const page = await browser.newPage();
  const logs = [];
  page.on("console", (m) => logs.push(m.text()));
  page.on("pageerror", (e) => logs.push(String(e)));
  await page.goto(`http://127.0.0.1:${server.address().port}/tests/browser/smoke.html`);
  const result = await page.waitForFunction(() => window.__result, null, { timeout: 20000 }).then((h) => h.jsonValue());
  assert.equal(result.failure, undefined, `${result.failure}\n${logs.join("\n")}`);
  assert.deepEqual(result.uuid5, expected);
  assert.match(result.minted, /^landing-[0-9a-f]{12}$/);
  assert.deepEqual(result.error, { isAgentmemError: true, code: "invalid_input", field: "namespace" });
  console.log(`chromium ${browser.version()}: package smoke ok (${names.length} uuid5 vectors, minted ${result.minted})`);

  // agentmem-supabase/ids in a context of its own (no cache shared with the page above), so what
  // it downloads is its own.
  requested.length = 0;
  const idsContext = await browser.newContext();
  const idsPage = await idsContext.newPage();
  const idsLogs = [];
  idsPage.on("console", (m) => idsLogs.push(m.text()));
  idsPage.on("pageerror", (e) => idsLogs.push(String(e)));
  await idsPage.goto(`http://127.0.0.1:${server.address().port}/tests/browser/ids.html`);
  const ids = await idsPage.waitForFunction(() => window.__result, null, { timeout: 20000 }).then((h) => h.jsonValue());
  assert.equal(ids.failure, undefined, `${ids.failure}\n${idsLogs.join("\n")}`);
  assert.deepEqual(ids.exports, ["AgentmemError", "cimThreadId", "coiaThread", "conversationId", "extractDealId", "parseThreadId", "supervisorThreadId", "uuid5", "uuid5Batch"]);
  assert.deepEqual(ids.uuid5, expected);
  assert.deepEqual(ids.batch, expected);
  assert.match(ids.minted, /^landing-[0-9a-f]{12}$/);
  assert.deepEqual(ids.parsed, { kind: "supervisor", dealId: "3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b", timestampMs: 1704067200000 });
  assert.equal(ids.extracted, "3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b");
  assert.deepEqual(ids.error, { isAgentmemError: true, code: "invalid_input", field: "namespace" });
  const fetchedPkg = requested.filter((p) => p.startsWith("/pkg/")).sort();
  assert.deepEqual(fetchedPkg, ["/pkg/agentmem_ids.js", "/pkg/agentmem_ids_bg.wasm", "/pkg/errors.js", "/pkg/ids-browser.js", "/pkg/ids.js"]);
  console.log(`chromium: agentmem-supabase/ids by package name ok, downloading only ${fetchedPkg.join(", ")}`);
  await idsContext.close();

  const transport = await browser.newPage();
  const tlogs = [];
  transport.on("console", (m) => tlogs.push(m.text()));
  transport.on("pageerror", (e) => tlogs.push(String(e)));
  await transport.goto(`http://127.0.0.1:${server.address().port}/tests/browser/transport.html`);
  const t = await transport.waitForFunction(() => window.__result, null, { timeout: 120000, polling: 200 }).then((h) => h.jsonValue());
  for (const r of t.results) console.log(`${r.ok ? "ok  " : "FAIL"} ${r.name}${r.ok ? ` (${r.ms} ms)` : `\n${r.error}`}`);
  assert.equal(t.failure, undefined, `${t.failure}\n${tlogs.join("\n")}`);
  const failed = t.results.filter((r) => !r.ok);
  assert.ok(t.results.length > 0, "no transport cases ran");
  assert.equal(failed.length, 0, `${failed.length} transport case(s) failed in Chromium`);
  console.log(`chromium: ${t.results.length} transport cases passed against the stack`);
} finally {
  await browser.close();
  server.close();
  await rm(namesFile, { force: true });
}
