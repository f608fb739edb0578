// The transport against the real stack, in Deno. The cases are shared with the Chromium
// run (tests/browser/transport.html), so both runtimes are held to the same behaviour.
import assert from "node:assert/strict";
import * as agentmem from "agentmem-supabase";
import { createClient, followSession, MemoryTools } from "agentmem-supabase";
import { createClient as createSupabaseClient } from "npm:@supabase/supabase-js@2.109.0";
import { transportCases } from "../tests/transport/cases.js";
import { countRequests, env, mintJwt, newUser } from "./support.ts";

for (const { name, fn } of transportCases({ agentmem, env })) {
  Deno.test(name, fn);
}

/** Storage for supabase-js's session: what the test writes is the session supabase-js has. */
function sessionStorage() {
  const items = new Map<string, string>();
  /** Called on every read of the session: lets a test change it between two reads. */
  let onRead: (() => void) | null = null;
  return {
    getItem: (key: string) => {
      onRead?.();
      return items.get(key) ?? null;
    },
    setItem: (key: string, value: string) => void items.set(key, value),
    removeItem: (key: string) => void items.delete(key),
    /** The session supabase-js holds: this access token, expiring (for supabase-js) at `expiresAt`. */
    hold(accessToken: string, expiresAt = Math.floor(Date.now() / 1000) + 3600) {
      items.set("sb-agentmem-test", JSON.stringify({ access_token: accessToken, refresh_token: "refresh-token", token_type: "bearer", expires_in: expiresAt - Math.floor(Date.now() / 1000), expires_at: expiresAt, user: { id: "x" } }));
    },
    set onRead(fn: (() => void) | null) {
      onRead = fn;
    },
  };
}

const whoami = async (db: agentmem.AgentmemClient) => (await db.rpc<{ uid: string | null; role: string }>("transport_whoami")).data;
const expOf = (jwt: string) => JSON.parse(atob(jwt.split(".")[1].replace(/-/g, "+").replace(/_/g, "/"))).exp as number;

/** A second gateway on the stack's database whose Auth issues access tokens that live
 *  `exp` seconds (scripts/stack.sh env names the binary and the databases). */
async function gatewayWithTokenLife(exp: number) {
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  const child = new Deno.Command(env.AGENTMEM_GATEWAY_BIN, {
    args: ["serve", "--db-url", env.AGENTMEM_AUTHENTICATOR_DB_URL, "--jwt-secret", env.SUPABASE_JWT_SECRET,
      "--listen", `127.0.0.1:${port}`, "--auth-db-url", env.AGENTMEM_AUTH_DB_URL, "--auth-jwt-exp", String(exp)],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.getReader();
  await reader.read(); // the gateway says where it listens once it does
  reader.releaseLock();
  child.stdout.cancel().catch(() => {});
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      child.kill();
      await child.status;
    },
  };
}

// A real session: signed up with the stack's Supabase Auth, refreshed by supabase-js itself
// (its access tokens here live 95 s, so supabase-js, which refreshes 90 s ahead, refreshes
// a few seconds in).
Deno.test("followSession: a supabase-js session refreshed by supabase-js against Supabase Auth is followed, with no refresh of agentmem's own", async () => {
  const gw = await gatewayWithTokenLife(95);
  try {
    const supabase = createSupabaseClient(gw.url, env.SUPABASE_ANON_KEY, {
      auth: { storage: sessionStorage(), storageKey: "sb-agentmem-real", autoRefreshToken: false, persistSession: true, detectSessionInUrl: false },
    });
    const events: string[] = [];
    supabase.auth.onAuthStateChange((event) => void events.push(event));
    const sent: string[] = [];
    const db = createClient({
      url: gw.url,
      apiKey: env.SUPABASE_ANON_KEY,
      accessToken: followSession(supabase),
      fetch: (input, init) => {
        sent.push(new Headers(init?.headers).get("authorization") ?? "");
        return fetch(input, init);
      },
    });
    const { data, error } = await supabase.auth.signUp({ email: `follow-${crypto.randomUUID()}@example.com`, password: "a long password" });
    assert.equal(error, null);
    const userId = data.user!.id;
    assert.deepEqual(await whoami(db), { uid: userId, role: "authenticated" }, "the signed-up user");
    const first = sent.at(-1)!;
    assert.equal(first, `Bearer ${data.session!.access_token}`);
    // 95 s tokens are within supabase-js's 90 s margin after 5 s: its next getSession refreshes.
    await new Promise((r) => setTimeout(r, 5500));
    const tools = new MemoryTools({ client: db, embed: (t: string[]) => t.map(() => Array.from({ length: 384 }, (_, i) => (i ? 0.01 : 1))), agentId: "real-session" });
    await tools.createMemory({ content: "written after the refresh", memory_type: "fact" });
    assert.deepEqual(await whoami(db), { uid: userId, role: "authenticated" }, "the same user, after the refresh");
    const refreshed = sent.at(-1)!;
    assert.notEqual(refreshed, first, "the refreshed session's token was sent, not the first one");
    assert.equal(refreshed, `Bearer ${(await supabase.auth.getSession()).data.session!.access_token}`);
    assert.ok(events.includes("TOKEN_REFRESHED"), `supabase-js refreshed: ${events}`);
    assert.equal((await tools.getMemoryContext({})).count, 1);
    // Signed out (the session and its refresh token deleted): the API key alone.
    await supabase.auth.signOut();
    assert.deepEqual(await whoami(db), { uid: null, role: "anon" }, "signed out");
  } finally {
    await gw.close();
  }
});

// The session's changes, set by the test in supabase-js's storage (as its refresh, or
// another tab's, writes them): each is followed at the next operation, and a token the
// server finds expired is asked for again.
Deno.test("followSession: each operation sends the supabase-js session's current token; an expired one is asked again; a failed refresh is unauthorized", async () => {
  const a = await newUser();
  const b = await newUser();
  const storage = sessionStorage();
  const supabase = createSupabaseClient(env.SUPABASE_URL, env.SUPABASE_ANON_KEY, {
    auth: { storage, storageKey: "sb-agentmem-test", autoRefreshToken: false, persistSession: true, detectSessionInUrl: false },
  });
  const db = createClient({ url: env.SUPABASE_URL, apiKey: env.SUPABASE_ANON_KEY, accessToken: followSession(supabase) });
  assert.deepEqual(await whoami(db), { uid: null, role: "anon" }, "nobody signed in: the API key alone");
  storage.hold(a.token);
  assert.deepEqual(await whoami(db), { uid: a.id, role: "authenticated" }, "A's session");
  storage.hold(b.token);
  assert.equal((await whoami(db)).uid, b.id, "the session changed: the next operation follows it");
  assert.equal(db.identity.sub, b.id);

  // A token the server finds expired while supabase-js holds it as valid (its clock, or a
  // refresh another tab did and this one has not read yet): the operation asks again and
  // supabase-js's session by then is the refreshed one.
  const short = await mintJwt(a.id, "authenticated", -28); // the gateway allows 30 s of clock skew
  storage.hold(short);
  assert.equal((await whoami(db)).uid, a.id, "while it lives");
  await new Promise((r) => setTimeout(r, Math.max(0, (expOf(short) + 31) * 1000 - Date.now())));
  const fixed = createClient({ url: env.SUPABASE_URL, apiKey: env.SUPABASE_ANON_KEY, accessToken: short });
  await assert.rejects(whoami(fixed), { code: "unauthorized", status: 401, pgrstCode: "PGRST303" });
  let reads = 0;
  storage.onRead = () => {
    reads += 1;
    if (reads === 2) storage.hold(a.token);
  };
  const sent = await countRequests(async () => assert.equal((await whoami(db)).uid, a.id, "followed across the expiry"));
  storage.onRead = null;
  assert.deepEqual(sent, ["POST /rpc/transport_whoami", "POST /rpc/transport_whoami"], "the expired token's request, then the new one's");

  // A session supabase-js must refresh, and cannot (the refresh token is refused, or here
  // no Auth answers): the operation is unauthorized with supabase-js's error as its cause,
  // and nothing is sent to PostgREST.
  storage.hold(short, expOf(short));
  const sentMeanwhile = await countRequests(async () => {
    const e = await whoami(db).then(() => null, (e) => e);
    assert.ok(e instanceof agentmem.AgentmemError, String(e));
    assert.equal(e.code, "unauthorized");
    assert.equal(e.field, "accessToken");
    assert.ok(e.cause instanceof Error, "supabase-js's error is the cause");
  });
  assert.deepEqual(sentMeanwhile.filter((r) => r.includes("transport_whoami")), []);
  // Signed in again: the same client works.
  storage.hold(b.token);
  assert.equal((await whoami(db)).uid, b.id, "works afterwards");

  assert.throws(() => followSession({} as never), { code: "invalid_input", field: "supabase" });
  assert.throws(() => followSession(null as never), { code: "invalid_input", field: "supabase" });
  const hostile = new Proxy({}, { get() { throw new Error("trap"); } });
  assert.throws(() => followSession(hostile as never), { code: "invalid_input", field: "supabase" });
});

Deno.test("MemoryTools on a client whose token comes from a function: each call is the user the function gives then", async () => {
  const a = await newUser();
  const b = await newUser();
  let token: string | null = a.token;
  const client = createClient({ url: env.SUPABASE_URL, apiKey: env.SUPABASE_ANON_KEY, accessToken: () => token });
  const embed = (texts: string[]) => texts.map((t) => Array.from({ length: 384 }, (_, i) => (i === t.length % 384 ? 1 : 0.01)));
  // Made before the function was asked: whose tools they are is known call by call.
  const tools = new MemoryTools({ client, embed, agentId: "follows" });
  assert.equal(tools.userId, "");
  await tools.createMemory({ content: "A's preference for window seats", memory_type: "preference" });
  token = b.token;
  assert.equal((await tools.getMemoryContext({})).count, 0, "B sees none of A's memories");
  token = a.token;
  assert.deepEqual((await tools.getMemoryContext({})).memories.map((m) => m.content), ["A's preference for window seats"]);
  // userId, when given, is checked against each call's user.
  const forA = new MemoryTools({ client, embed, agentId: "follows", userId: a.id });
  assert.equal(forA.userId, a.id);
  token = b.token;
  const result = await forA.handle("get_memory_context", {});
  assert.equal(result.success, false);
  assert.equal(!result.success && result.error.code, "invalid_input");
  // Signed out: no identity.
  token = null;
  assert.equal((await tools.handle("get_memory_context", {})).success, false);
  await assert.rejects(tools.getMemoryContext({}), { code: "unauthorized" });
});
