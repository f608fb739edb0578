// AgentmemStore in headless Chromium (Debian's chromium via playwright-core from
// tools/node_modules): the page bundles the package's browser entry and LangGraph's
// checkpoint package with esbuild, runs a few store calls as a signed-in user against the
// stack, and compares them with InMemoryStore in the same page.
import { createServer } from "node:http";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { env, newUser } from "./stack.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const root = join(here, "..", "..");
const tools = createRequire(join(root, "tools", "package.json"));

test("AgentmemStore in Chromium answers as InMemoryStore", { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "agentmem-store-browser-"));
  const { build } = tools("esbuild");
  await build({
    entryPoints: [join(here, "browser", "store_page.mjs")],
    bundle: true,
    format: "esm",
    platform: "browser",
    outfile: join(dir, "page.js"),
    nodePaths: [join(here, "node_modules")],
    preserveSymlinks: true,
    logLevel: "error",
  });
  // The browser entry loads its .wasm next to the module that imports it: the bundle.
  copyFileSync(join(here, "node_modules", "agentmem-supabase", "agentmem_bg.wasm"), join(dir, "agentmem_bg.wasm"));
  writeFileSync(join(dir, "index.html"), `<!doctype html><meta charset="utf-8"><script type="module" src="/page.js"></script>`);
  const user = await newUser();
  const settings = JSON.stringify({ SUPABASE_URL: env.SUPABASE_URL, SUPABASE_ANON_KEY: env.SUPABASE_ANON_KEY, USER_JWT: user.token });
  const types = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm" };
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname));
    if (path === "/__env.json") return res.writeHead(200, { "content-type": "application/json" }).end(settings);
    let body;
    try {
      body = readFileSync(join(dir, path));
    } catch {
      return res.writeHead(404).end();
    }
    res.writeHead(200, { "content-type": types[extname(path)] ?? "application/octet-stream" }).end(body);
  }).listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  const { chromium } = tools("playwright-core");
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  try {
    const page = await browser.newPage();
    const logs = [];
    page.on("console", (m) => logs.push(m.text()));
    page.on("pageerror", (e) => logs.push(String(e)));
    await page.goto(`http://127.0.0.1:${server.address().port}/index.html`);
    const result = await page.waitForFunction(() => globalThis.__result, null, { timeout: 60_000 }).then((h) => h.jsonValue());
    expect(result.failure, logs.join("\n")).toBeUndefined();
    expect(result.agentmem).toEqual(result.reference);
    expect(result.agentmem.search[0].key).toBe("a");
    expect(result.agentmem.namespaces).toEqual([["prefs", "food"], ["prefs", "travel"]]);
    expect(result.error).toEqual({ agentmem: true, code: "invalid_input" });
  } finally {
    await browser.close();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
