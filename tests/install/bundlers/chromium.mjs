// Loads a built app in headless Chromium (Debian's /usr/bin/chromium via playwright-core
// from tools/node_modules, as tests/browser/run.mjs does) and prints what the page put in
// globalThis.__result as JSON. The page is served from `dir`, with the stack's settings
// at /__env.json (the gateway answers CORS).
// Usage: node chromium.mjs <dir> <page>   (env: SUPABASE_URL, SUPABASE_ANON_KEY, AGENTMEM_USER_JWT)
//        node chromium.mjs <url>          a page some other server serves (a dev server)
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { extname, join, normalize } from "node:path";
import process from "node:process";

const [dir, page] = process.argv.slice(2);
const root = new URL("../../../", import.meta.url).pathname;
const { chromium } = createRequire(join(root, "tools/package.json"))("playwright-core");
const env = Object.fromEntries(["SUPABASE_URL", "SUPABASE_ANON_KEY", "AGENTMEM_USER_JWT"].map((k) => [k, process.env[k]]));
const types = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".json": "application/json" };
const server = createServer(async (req, res) => {
  const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname));
  if (path === "/__env.json") return res.writeHead(200, { "content-type": types[".json"] }).end(JSON.stringify(env));
  try {
    const body = await readFile(join(dir, path));
    res.writeHead(200, { "content-type": types[extname(path)] ?? "application/octet-stream" }).end(body);
  } catch {
    res.writeHead(404, { "content-type": "text/plain" }).end("not found");
  }
}).listen(0, "127.0.0.1");
await new Promise((r) => server.once("listening", r));
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
try {
  const tab = await browser.newPage();
  const logs = [];
  tab.on("console", (m) => logs.push(m.text()));
  tab.on("pageerror", (e) => logs.push(String(e)));
  await tab.goto(/^https?:/.test(dir) ? dir : `http://127.0.0.1:${server.address().port}/${page}`);
  const result = await tab.waitForFunction(() => globalThis.__result, null, { timeout: 30000 }).then((h) => h.jsonValue())
    .catch((e) => ({ failure: `no result: ${e.message}\n${logs.join("\n")}` }));
  process.stdout.write(`${JSON.stringify({ chromium: browser.version(), ...result })}\n`);
} finally {
  await browser.close();
  server.close();
}
