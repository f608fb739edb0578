// The inspector signs in for real, in headless Chromium against the stack's Supabase Auth
// (/auth/v1): email and password (a wrong one shows Auth's own message and error code), an
// anonymous sign-in, a visitor's pasted session (access + refresh token); it refreshes the
// session before the access token expires (a second gateway issues 6-second tokens), shows
// the expiry, and offers to sign in again when a pasted token expired or the refresh token
// was revoked (with Auth's message).
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import { createClient } from "agentmem-supabase";
import { AgentmemSaver } from "agentmem-supabase/langgraph";
import { env, mintJwt, newUser } from "./stack.mjs";
import { accessible, go, launch, newPage, screenshot, serve, shotsDir, signIn } from "./inspector_support.mjs";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A second gateway on the stack's database whose Auth issues access tokens of `exp` seconds. */
async function shortLivedAuth(exp) {
  const port = await new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = /** @type {import("node:net").AddressInfo} */ (s.address());
      s.close(() => resolve(port));
    });
  });
  const gw = spawn(env.AGENTMEM_GATEWAY_BIN, ["serve", "--db-url", env.AGENTMEM_AUTHENTICATOR_DB_URL, "--jwt-secret", env.SUPABASE_JWT_SECRET,
    "--listen", `127.0.0.1:${port}`, "--auth-db-url", env.AGENTMEM_AUTH_DB_URL, "--auth-jwt-exp", String(exp), "--auth-bcrypt-cost", "4"], { stdio: ["ignore", "pipe", "inherit"] });
  await new Promise((resolve, reject) => {
    gw.stdout.once("data", resolve);
    gw.once("exit", (code) => reject(new Error(`gateway exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, close: () => gw.kill() };
}

/** POST to the stack's Auth, as a page would. */
async function auth(base, path, body, bearer) {
  const r = await fetch(`${base}/auth/v1${path}`, {
    method: "POST",
    headers: { apikey: env.SUPABASE_ANON_KEY, "content-type": "application/json", ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
    body: JSON.stringify(body),
  });
  if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`);
  return r.status === 204 ? null : r.json();
}

/** One checkpointed step for `token`'s user, so the page has a thread to show. */
async function aThread(token, thread) {
  const State = Annotation.Root({ text: Annotation({ reducer: (_, b) => b, default: () => "" }) });
  const graph = new StateGraph(State).addNode("say", (s) => ({ text: `${s.text}!` })).addEdge(START, "say").addEdge("say", END)
    .compile({ checkpointer: new AgentmemSaver(createClient({ url: env.SUPABASE_URL, apiKey: env.SUPABASE_ANON_KEY, accessToken: token })) });
  await graph.invoke({ text: "hi" }, { configurable: { thread_id: thread } });
}

const expOf = async (page) => Number(await page.getAttribute("#whoami", "data-exp"));

test("the inspector signs in with Supabase Auth (password, anonymous, a visitor's session), refreshes it, and asks again when it ends", { timeout: 240_000 }, async () => {
  shotsDir();
  const gw = await shortLivedAuth(6);
  const { url, child } = await serve(gw.url);
  const browser = await launch();
  const logs = [];
  try {
    // A user with a password and a thread.
    const email = `inspector-${crypto.randomUUID().slice(0, 8)}@test.local`;
    const signedUp = await auth(env.SUPABASE_URL, "/signup", { email, password: "a long password" });
    const userId = signedUp.user.id;
    const thread = `signed-in-${crypto.randomUUID()}`;
    await aThread(signedUp.access_token, thread);

    const page = await newPage(browser, logs);
    await page.goto(url);
    await page.waitForSelector('form[data-form="password"]');
    // A wrong password: Auth's own message and code, not a status line.
    await page.fill("#f-email", email);
    await page.fill("#f-password", "not the password");
    await page.click('form[data-form="password"] button[type="submit"]');
    await page.waitForSelector('[data-state="error"]');
    expect(await page.textContent('[data-state="error"] code')).toBe("unauthorized");
    expect(await page.textContent('[data-state="error"]')).toContain("Supabase Auth: Invalid login credentials");
    expect(await page.textContent('[data-state="error"]')).toContain("error_code invalid_credentials");
    expect(await page.textContent('[data-state="error"]')).toContain("status: 400");
    await screenshot(page, "signin-wrong-password.png");
    await accessible(page, "sign-in with an error");

    // The right one: the user's threads, their email and the token's expiry in the header.
    await page.fill("#f-email", email);
    await page.fill("#f-password", "a long password");
    await page.click('form[data-form="password"] button[type="submit"]');
    await page.waitForSelector("[data-threads]");
    expect(await page.getAttribute("#whoami", "data-sub")).toBe(userId);
    expect(await page.textContent("#whoami")).toContain(`signed in as ${email} (authenticated)`);
    expect(await page.textContent("#whoami")).toMatch(/refreshes \d/);
    expect(await page.locator(`tr[data-thread="${thread}"]`).count()).toBe(1);
    await screenshot(page, "signed-in.png");

    // The session is followed: after the 6-second token expired, the next view refreshes it
    // (a rotated refresh token), twice.
    for (let round = 0; round < 2; round++) {
      const before = await expOf(page);
      await sleep(Math.max(0, before * 1000 - Date.now()) + 1500);
      await go(page, round === 0 ? "#/memories" : "#/threads");
      await page.waitForSelector(round === 0 ? "[data-memories], [data-state]" : "[data-threads]");
      await page.waitForFunction((b) => Number(document.querySelector("#whoami")?.getAttribute("data-exp")) > b, before);
      expect(await page.getAttribute("#whoami", "data-sub")).toBe(userId);
      expect(await page.locator('[data-state="error"], [data-state="expired"]').count()).toBe(0);
    }

    // A revoked session: the refresh is refused, Auth's message is shown, sign in again.
    const current = await page.evaluate(() => JSON.parse(sessionStorage.getItem("agentmem-inspector-session") ?? "{}").access_token);
    await auth(gw.url, "/logout?scope=global", {}, current);
    await sleep(Math.max(0, (await expOf(page)) * 1000 - Date.now()) + 1500);
    await go(page, "#/memories");
    await page.waitForSelector('[data-state="expired"]');
    expect(await page.textContent('[data-state="expired"]')).toContain("Supabase Auth: Invalid Refresh Token");
    expect(await page.textContent('[data-state="expired"]')).toContain("error_code refresh_token_not_found");
    expect(await page.getAttribute("#whoami", "data-session")).toBe("ended");
    expect(await page.locator('#whoami [data-action="sign-in-again"]').count()).toBe(1);
    await screenshot(page, "session-ended.png");
    await accessible(page, "ended session");
    await page.click('#whoami [data-action="sign-in-again"]');
    await page.waitForSelector('form[data-form="password"]');

    // Anonymous: a new visitor, with nothing to see yet.
    const anonPage = await newPage(browser, logs);
    await anonPage.goto(url);
    await anonPage.waitForSelector('form[data-form="anonymous"]');
    await anonPage.click('form[data-form="anonymous"] button[type="submit"]');
    await anonPage.waitForSelector('[data-state="empty"]');
    expect(await anonPage.textContent("#whoami")).toContain("(authenticated, anonymous)");
    await screenshot(anonPage, "anonymous.png");

    // A visitor's session, pasted with its refresh token: the visitor's data.
    const visitor = await auth(env.SUPABASE_URL, "/signup", { data: {} });
    const visitorThread = `landing-${crypto.randomUUID().slice(0, 12)}`;
    await aThread(visitor.access_token, visitorThread);
    const visitorPage = await newPage(browser, logs);
    await signIn(visitorPage, url, visitor.access_token, visitor.refresh_token);
    expect(await visitorPage.getAttribute("#whoami", "data-sub")).toBe(visitor.user.id);
    expect(await visitorPage.textContent("#whoami")).toContain("anonymous");
    expect(await visitorPage.locator(`tr[data-thread="${visitorThread}"]`).count()).toBe(1);

    // A pasted token that expired: the header and the view say so and offer to sign in.
    const old = await newUser();
    const expiredPage = await newPage(browser, logs);
    await signIn(expiredPage, url, await mintJwt(old.id, { expiresIn: -120 }));
    await expiredPage.waitForSelector('[data-state="expired"]');
    expect(await expiredPage.getAttribute("#whoami", "data-session")).toBe("expired");
    expect(await expiredPage.textContent("#whoami")).toContain("session expired");
    expect(await expiredPage.textContent('[data-state="error"] code')).toBe("unauthorized");
    await screenshot(expiredPage, "session-expired.png");

    // Signing out ends the session at Auth too.
    await go(visitorPage, "#/signin");
    await visitorPage.click('[data-action="sign-out"]');
    await visitorPage.waitForSelector('form[data-form="password"]');
    expect(await visitorPage.textContent("#whoami")).toBe("not signed in");
    // (The page clears itself at once; its logout request may still be on its way: asked
    // again for a few seconds before the refusal is expected.)
    const refresh = () => fetch(`${env.SUPABASE_URL}/auth/v1/token?grant_type=refresh_token`, {
      method: "POST", headers: { apikey: env.SUPABASE_ANON_KEY, "content-type": "application/json" }, body: JSON.stringify({ refresh_token: visitor.refresh_token }),
    });
    let refused = await refresh();
    for (let i = 0; i < 50 && refused.status === 200; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      refused = await refresh();
    }
    expect(refused.status).toBe(400);
    expect(logs.filter((l) => !/status of 40[01]/.test(l))).toEqual([]);
  } finally {
    await browser.close();
    child.kill();
    gw.close();
  }
});
