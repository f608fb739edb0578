// What the inspector's Chromium tests share: agentmem-inspect started from the built
// package, headless Chromium (Debian's chromium via playwright-core from tools/), a
// screenshot checked not to be blank, and axe-core's serious and critical rules.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { env } from "./stack.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const root = join(here, "..", "..");
const tools = createRequire(join(root, "tools", "package.json"));

/** Where screenshots go: $AGENTMEM_INSPECTOR_SHOTS, default tests/langgraph/inspector-screenshots/. */
export const shots = process.env.AGENTMEM_INSPECTOR_SHOTS ?? join(here, "inspector-screenshots");
export function shotsDir() {
  mkdirSync(shots, { recursive: true });
  writeFileSync(join(shots, ".gitignore"), "*\n");
  return shots;
}

/** Starts bin/agentmem-inspect.js of the built package on a free port, for the API at
 *  `api`; resolves to its URL. */
export function serve(api = env.SUPABASE_URL, extra = []) {
  const bin = join(here, "node_modules", "agentmem-supabase", "bin", "agentmem-inspect.js");
  const child = spawn(process.execPath, [bin, "--url", api, "--key", env.SUPABASE_ANON_KEY, "--port", "0", ...extra], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  return new Promise((resolve, reject) => {
    child.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/http:\/\/127\.0\.0\.1:\d+\/inspector\//);
      if (m) resolve({ url: m[0], child });
    });
    child.stderr.on("data", (d) => (out += d));
    child.on("exit", (code) => reject(new Error(`agentmem-inspect exited with ${code}: ${out}`)));
  });
}

export async function launch() {
  const { chromium } = tools("playwright-core");
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

/** A page that records its errors in `logs`. */
export async function newPage(browser, logs, options = {}) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, ...options });
  const page = await ctx.newPage();
  page.on("pageerror", (e) => logs.push(String(e)));
  page.on("console", (m) => m.type() === "error" && logs.push(m.text()));
  return page;
}

/** A screenshot of the page, saved, and checked in the page to have more than a handful of
 *  distinct colours (a blank or single-colour page has one or two). */
export async function screenshot(page, name, options = {}) {
  const png = await page.screenshot({ path: join(shots, name), fullPage: false, ...options });
  const colours = await page.evaluate(async (b64) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const canvas = new OffscreenCanvas(img.width, img.height);
    const ctx = canvas.getContext("2d");
    ctx.drawImage(img, 0, 0);
    const px = ctx.getImageData(0, 0, img.width, img.height).data;
    const seen = new Set();
    for (let i = 0; i < px.length; i += 4 * 7) seen.add((px[i] << 16) | (px[i + 1] << 8) | px[i + 2]);
    return seen.size;
  }, png.toString("base64"));
  expect(colours, `${name} looks blank`).toBeGreaterThan(8);
}

/** axe-core's rules in the page: no serious or critical violation. Evaluated, not added as a
 *  script tag, which the page's Content-Security-Policy refuses. */
const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
export async function accessible(page, view) {
  if (!(await page.evaluate(() => "axe" in globalThis))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () =>
    (await globalThis.axe.run(document, { resultTypes: ["violations"] })).violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(" | ")}`));
  expect(violations, `axe on the ${view} view`).toEqual([]);
}

export const go = (page, hash) => page.evaluate((h) => { location.hash = h; }, hash);

/** Signs in by pasting an access token (and, optionally, a refresh token). */
export async function signIn(page, url, token, refresh = "") {
  await page.goto(url);
  await page.waitForSelector("#f-token");
  await page.fill("#f-token", token);
  if (refresh) await page.fill("#f-refresh", refresh);
  await page.click('form[data-form="token"] button[type="submit"]');
  await page.waitForSelector("[data-threads], [data-state]");
}
