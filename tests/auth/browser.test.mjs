// supabase-js's browser build against the local Supabase Auth in headless Chromium (Debian's
// chromium through playwright-core from tools/): a page on another origin signs in through
// CORS, and auth-js must see the answer's X-Supabase-Api-Version to read error codes
// (lib/fetch.ts handleError), so the header has to be exposed as GoTrue's CORS does.
// Run by tests/auth/run.sh after auth.test.mjs.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { readStackEnv } from "../support/env.mjs";

const root = new URL("../../", import.meta.url).pathname;
const { chromium } = createRequire(join(root, "tools/package.json"))("playwright-core");
const env = readStackEnv();
const umd = join(root, "tests/auth/node_modules/@supabase/supabase-js/dist/umd/supabase.js");

let server, browser, page;
before(async () => {
  server = createServer(async (req, res) => {
    if (req.url === "/supabase.js") {
      res.writeHead(200, { "content-type": "text/javascript" }).end(await readFile(umd));
    } else {
      res.writeHead(200, { "content-type": "text/html" }).end('<!doctype html><script src="/supabase.js"></script>');
    }
  }).listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update"],
  });
  page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${server.address().port}/`);
  await page.waitForFunction(() => typeof window.supabase?.createClient === "function");
});
after(async () => {
  await browser?.close();
  server?.close();
});

test("a page on another origin: error codes, anonymous sign-in, sign-up by updateUser, REST as the user, refresh, sign-out", async () => {
  const out = await page.evaluate(async ({ url, key }) => {
    const db = window.supabase.createClient(url, key, { auth: { persistSession: false, autoRefreshToken: false } });
    const email = `browser-${crypto.randomUUID().slice(0, 8)}@test.local`;
    const wrong = await db.auth.signInWithPassword({ email, password: "whatever1" });
    const anon = await db.auth.signInAnonymously();
    const visitor = anon.data.user?.id;
    const whoAnon = await db.rpc("test_whoami");
    const upgraded = await db.auth.updateUser({ email, password: "browser password" });
    const refreshed = await db.auth.refreshSession();
    const whoAfter = await db.rpc("test_whoami");
    const out = await db.auth.signOut();
    const again = await db.auth.signInWithPassword({ email, password: "browser password" });
    return {
      wrong: { name: wrong.error?.name, status: wrong.error?.status, code: wrong.error?.code, message: wrong.error?.message },
      anonError: anon.error?.message ?? null,
      visitor,
      whoAnon: whoAnon.data,
      upgraded: { error: upgraded.error?.message ?? null, id: upgraded.data.user?.id, anonymous: upgraded.data.user?.is_anonymous },
      refreshedError: refreshed.error?.message ?? null,
      whoAfter: whoAfter.data,
      signOutError: out.error?.message ?? null,
      againId: again.data.user?.id,
    };
  }, { url: env.SUPABASE_URL, key: env.SUPABASE_ANON_KEY });
  assert.deepEqual(out.wrong, { name: "AuthApiError", status: 400, code: "invalid_credentials", message: "Invalid login credentials" });
  assert.equal(out.anonError, null);
  assert.equal(out.whoAnon.uid, out.visitor);
  assert.equal(out.whoAnon.is_anonymous, true);
  assert.deepEqual(out.upgraded, { error: null, id: out.visitor, anonymous: false });
  assert.equal(out.refreshedError, null);
  assert.equal(out.whoAfter.uid, out.visitor);
  assert.equal(out.whoAfter.is_anonymous, false);
  assert.equal(out.signOutError, null);
  assert.equal(out.againId, out.visitor);
});
