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

// supabase-js refreshes a session itself against Supabase Auth (/auth/v1), which the local
// stack does not serve: here the session is the one the test writes into supabase-js's
// storage, as its refresh (or another tab's) would.
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
