// The COIA landing edge function over HTTP against the local stack, with visitors signed in
// anonymously through the stack's Supabase Auth (/auth/v1): a visitor's landing thread,
// unified conversation and lead, kept when the visitor signs up (same user id) and
// converted into a contractor in one request; a second visitor who sends the first one's
// thread id gets objects of their own and never the first visitor's data; a new thread
// starts from what the unified conversation holds. Run by tests/visitors/run.sh (from
// scripts/test.sh) with the function's own import map and permissions.
import assert from "node:assert/strict";
import { createHandler } from "../../supabase/functions/coia-landing/index.ts";
import { createClient, UnifiedStateManager } from "agentmem-supabase";
import { countRequests, env } from "../support.ts";
import { landingModel } from "./landing_model.ts";

interface Session {
  access_token: string;
  refresh_token: string;
  user: { id: string; is_anonymous: boolean; email?: string };
}

/** Supabase Auth as supabase-js calls it (the stack's /auth/v1). */
async function auth(method: string, path: string, body: unknown, token?: string) {
  const r = await fetch(`${env.SUPABASE_URL}/auth/v1/${path}`, {
    method,
    headers: { apikey: env.SUPABASE_ANON_KEY, "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const out = await r.json();
  assert.ok(r.ok, `${method} /auth/v1/${path}: ${r.status} ${JSON.stringify(out)}`);
  return out;
}
/** `signInAnonymously()`: a user of auth.users with is_anonymous, and a session. */
const signInAnonymously = (): Promise<Session> => auth("POST", "signup", { data: {} });
/** `updateUser({ email, password })`: the anonymous user becomes permanent, same id. */
const signUp = (s: Session, email: string) => auth("PUT", "user", { email, password: "landing password" }, s.access_token);
/** `refreshSession()`: a new access token, whose claims say what the user is now. */
const refresh = (s: Session): Promise<Session> => auth("POST", "token?grant_type=refresh_token", { refresh_token: s.refresh_token });

const claims = (token: string) => JSON.parse(atob(token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")));

/** The service role's view across tenants (it bypasses row-level security). */
async function everyTenant(table: string, query: string) {
  const r = await fetch(`${env.SUPABASE_URL}/rest/v1/${table}?${query}`, {
    headers: { apikey: env.SUPABASE_SERVICE_ROLE_KEY, authorization: `Bearer ${env.SUPABASE_SERVICE_ROLE_KEY}` },
  });
  assert.equal(r.status, 200, await r.clone().text());
  return await r.json();
}

Deno.test("COIA landing: anonymous visitors, sign-up keeps thread, conversation and lead, one-request conversion, visitors kept apart", async () => {
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} },
    createHandler({ model: landingModel, url: env.SUPABASE_URL, anonKey: env.SUPABASE_ANON_KEY }));
  const base = `http://127.0.0.1:${server.addr.port}/coia-landing`;
  const headers = (s: Session) => ({ authorization: `Bearer ${s.access_token}`, "content-type": "application/json" });
  const say = async (s: Session, message: string, thread_id?: string) => {
    const r = await fetch(base, { method: "POST", headers: headers(s), body: JSON.stringify({ thread_id, message }) });
    const out = await r.json();
    assert.equal(r.status, 200, JSON.stringify(out));
    return out;
  };
  const look = async (s: Session, thread: string) => {
    const r = await fetch(`${base}?thread_id=${encodeURIComponent(thread)}`, { headers: headers(s) });
    const text = await r.text();
    assert.equal(r.status, 200, text);
    return { ...JSON.parse(text), text };
  };
  const convert = (s: Session, thread_id: string, account?: unknown) =>
    fetch(`${base}/convert`, { method: "POST", headers: headers(s), body: JSON.stringify({ thread_id, account }) });
  try {
    // Visitor A arrives without an account: an anonymous user of auth.users.
    let a = await signInAnonymously();
    assert.equal(a.user.is_anonymous, true);
    assert.equal(claims(a.access_token).is_anonymous, true);
    assert.equal(claims(a.access_token).role, "authenticated");

    // The first turn mints COIA's landing lead id, which is also the thread id.
    const first = await say(a, "Hi! We are Acme Roofing, 12 years in Miami. We do roofing and gutters.");
    const thread: string = first.thread_id;
    assert.match(thread, /^landing-[0-9a-f]{12}$/);
    assert.equal(first.reply, "Nice to meet you, Acme Roofing. What email can we reach you at?");
    assert.deepEqual(first.profile, { company_name: "Acme Roofing", years_in_business: 12, specialties: ["roofing", "gutters"] });
    // A company name makes the state a lead, in the same save.
    assert.deepEqual(first.lead, { id: thread, fields: ["company_name", "years_in_business", "specialties"], skipped: [] });
    assert.equal(first.steps, 2);
    const second = await say(a, "My name is Jo Smith, jo@acme.test", thread);
    assert.equal(second.reply, "Thanks! Create an account to claim the Acme Roofing profile.");
    assert.equal(second.steps, 4);

    const seenByA = await look(a, thread);
    assert.deepEqual(seenByA.messages.map((m: { type: string }) => m.type), ["human", "ai", "human", "ai"]);
    assert.equal(seenByA.state.company_name, "Acme Roofing");
    assert.equal(seenByA.state.contact_email, "jo@acme.test");
    assert.equal(seenByA.state.messages.length, 4, "the unified conversation holds the turns");
    assert.equal(seenByA.lead.company_name, "Acme Roofing");
    assert.equal(seenByA.lead.contact_email, "jo@acme.test");
    assert.equal(seenByA.lead.converted_to_contractor, false);
    assert.equal(seenByA.contractor, null);

    // An anonymous visitor is not converted: the account comes first.
    const early = await convert(a, thread);
    assert.equal(early.status, 403);
    assert.equal((await early.json()).error.code, "forbidden");
    assert.equal((await look(a, thread)).lead.converted_to_contractor, false);

    // Visitor B sends A's thread id (and lead id): B's own, empty thread; nothing of A's.
    let b = await signInAnonymously();
    assert.notEqual(b.user.id, a.user.id);
    const bFirst = await say(b, "hello", thread);
    assert.equal(bFirst.thread_id, thread);
    assert.equal(bFirst.reply, "Welcome! What is your company called?", "B's turn saw none of A's profile");
    assert.deepEqual(bFirst.profile, {});
    assert.equal(bFirst.lead, null);
    assert.equal(bFirst.steps, 2, "B's thread starts empty");
    const seenByB = await look(b, thread);
    assert.deepEqual(seenByB.messages, [{ type: "human", content: "hello" }, { type: "ai", content: "Welcome! What is your company called?" }]);
    assert.equal(seenByB.lead, null);
    assert.equal(seenByB.contractor, null);
    for (const secret of ["Acme", "jo@acme.test", "Jo Smith", "gutters"]) {
      assert.ok(!seenByB.text.includes(secret), `B's view of A's thread id holds ${secret}: ${seenByB.text}`);
    }
    // B's lead under the same id is B's; A's is untouched.
    assert.deepEqual((await say(b, "We are Bravo Builders", thread)).lead, { id: thread, fields: ["company_name"], skipped: [] });
    assert.equal((await look(a, thread)).lead.company_name, "Acme Roofing");
    assert.equal((await look(b, thread)).lead.company_name, "Bravo Builders");

    // A signs up: updateUser({ email, password }) makes the same user permanent.
    const email = `landing-${crypto.randomUUID().slice(0, 8)}@test.local`;
    const upgraded = await signUp(a, email);
    assert.equal(upgraded.id, a.user.id);
    assert.equal(upgraded.is_anonymous, false);
    // The token A holds was issued to an anonymous user and still says so until refreshed.
    assert.equal(claims(a.access_token).is_anonymous, true);
    assert.equal((await convert(a, thread)).status, 403);
    a = await refresh(a);
    assert.equal(a.user.id, upgraded.id);
    assert.equal(claims(a.access_token).is_anonymous, false);
    assert.equal(claims(a.access_token).email, email);

    // Everything is still A's: the same thread (it continues), conversation and lead.
    const after = await look(a, thread);
    assert.equal(after.conversation_id, seenByA.conversation_id);
    assert.deepEqual(after.messages, seenByA.messages);
    assert.deepEqual(after.state.messages, seenByA.state.messages);
    assert.equal(after.lead.company_name, "Acme Roofing");
    assert.equal((await say(a, "Thanks", thread)).steps, 6);

    // The conversion: one request from the page, one request to the database.
    let response: Response | undefined;
    const requests = await countRequests(async () => {
      response = await convert(a, thread, { contact_phone: "+1 305 555 0100" });
    });
    assert.deepEqual(requests, ["POST /rpc/convert_contractor_lead"]);
    const { contractor } = await response!.json();
    assert.equal(response!.status, 200);
    assert.equal(contractor.contractor_lead_id, thread);
    assert.equal(contractor.company_name, "Acme Roofing");
    assert.equal(contractor.contact_email, "jo@acme.test");
    assert.equal(contractor.contact_phone, "+1 305 555 0100");
    assert.equal(contractor.verified, false);
    const converted = await look(a, thread);
    assert.equal(converted.lead.converted_to_contractor, true);
    assert.equal(converted.contractor.id, contractor.id);
    // Converting again answers with the same contractor.
    assert.equal((await (await convert(a, thread)).json()).contractor.id, contractor.id);

    // B, anonymous, cannot convert; B with an account converts B's own lead under that id,
    // never A's; a user with no lead of that id gets not_found, as for an id nobody used.
    assert.equal((await convert(b, thread)).status, 403);
    await signUp(b, `landing-${crypto.randomUUID().slice(0, 8)}@test.local`);
    b = await refresh(b);
    const bContractor = (await (await convert(b, thread)).json()).contractor;
    assert.equal(bContractor.company_name, "Bravo Builders");
    assert.notEqual(bContractor.id, contractor.id);
    assert.equal((await look(a, thread)).contractor.company_name, "Acme Roofing");
    const c = await refresh(await signInAnonymously()).then(async (s) => {
      await signUp(s, `landing-${crypto.randomUUID().slice(0, 8)}@test.local`);
      return await refresh(s);
    });
    const stranger = await convert(c, thread);
    assert.equal(stranger.status, 404);
    assert.equal((await stranger.json()).error.code, "not_found");

    // Across every tenant (the service role): two leads, two contractors and two threads
    // under the one id, each in its own visitor's tenant.
    const byTenant = (rows: { tenant_id: string; company_name?: string }[]) =>
      Object.fromEntries(rows.map((r) => [r.tenant_id, r.company_name ?? true]));
    assert.deepEqual(byTenant(await everyTenant("contractor_leads", `id=eq.${thread}&select=tenant_id,company_name`)),
      { [a.user.id]: "Acme Roofing", [b.user.id]: "Bravo Builders" });
    assert.deepEqual(byTenant(await everyTenant("contractors", `contractor_lead_id=eq.${thread}&select=tenant_id,company_name`)),
      { [a.user.id]: "Acme Roofing", [b.user.id]: "Bravo Builders" });
    assert.deepEqual(byTenant(await everyTenant("langgraph_checkpoints", `thread_id=eq.${thread}&select=tenant_id`)),
      { [a.user.id]: true, [b.user.id]: true });
  } finally {
    await server.shutdown();
  }
});

Deno.test("COIA landing: typed refusals, and CORS for the page", async () => {
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} },
    createHandler({ model: landingModel, url: env.SUPABASE_URL, anonKey: env.SUPABASE_ANON_KEY }));
  const base = `http://127.0.0.1:${server.addr.port}/coia-landing`;
  try {
    const visitor = await signInAnonymously();
    const as = { authorization: `Bearer ${visitor.access_token}`, "content-type": "application/json" };
    const post = async (body: string, headers: Record<string, string> = as, path = "") => {
      const r = await fetch(base + path, { method: "POST", headers, body });
      return { status: r.status, error: (await r.json()).error };
    };
    assert.deepEqual((await post("{}", {})).status, 401);
    assert.equal((await post("{}", { authorization: "Bearer not-a-jwt" })).error.code, "unauthorized");
    assert.equal((await post(JSON.stringify({ message: "hi" }), { ...as, authorization: `Bearer ${env.SUPABASE_ANON_KEY}` })).status, 401,
      "the anon key is no visitor");
    assert.deepEqual(await post("[1]"), { status: 400, error: { code: "invalid_input", message: "send a JSON object" } });
    assert.equal((await post(JSON.stringify({ message: "" }))).error.field, "message");
    assert.equal((await post(JSON.stringify({ message: "x".repeat(4001) }))).error.field, "message");
    assert.equal((await post(JSON.stringify({ message: "hi", thread_id: 7 }))).error.field, "thread_id");
    const long = await post(JSON.stringify({ message: "hi", thread_id: "landing-" + "x".repeat(300) }));
    assert.equal(long.status, 400);
    assert.equal(long.error.code, "invalid_input");
    assert.equal((await post("{}", as, "/convert")).error.field, "thread_id");
    const get = await fetch(base, { headers: as });
    assert.equal(get.status, 400);
    assert.equal((await get.json()).error.field, "thread_id");

    const preflight = await fetch(base, {
      method: "OPTIONS",
      headers: { origin: "http://page.test", "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" },
    });
    await preflight.body?.cancel();
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get("access-control-allow-origin"), "*");
    assert.match(preflight.headers.get("access-control-allow-headers")!, /authorization/);
    const answer = await fetch(base, { method: "POST", headers: { ...as, origin: "http://page.test" }, body: JSON.stringify({ message: "hi" }) });
    assert.equal(answer.headers.get("access-control-allow-origin"), "*");
    await answer.body?.cancel();
  } finally {
    await server.shutdown();
  }
});

Deno.test("COIA landing: a new thread starts from what the unified conversation holds for the lead (COIA's restore)", async () => {
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} },
    createHandler({ model: landingModel, url: env.SUPABASE_URL, anonKey: env.SUPABASE_ANON_KEY }));
  const base = `http://127.0.0.1:${server.addr.port}/coia-landing`;
  try {
    const visitor = await signInAnonymously();
    // Saved by another entry point (a bid-card link, say) under the visitor's token.
    const lead = `landing-${crypto.randomUUID().replace(/-/g, "").slice(0, 12)}`;
    const client = createClient({ url: env.SUPABASE_URL, apiKey: env.SUPABASE_ANON_KEY, accessToken: visitor.access_token });
    await new UnifiedStateManager({ client }).saveState(lead, { company_name: "Cedar Decks", contact_email: "hi@cedar.test" });
    const r = await fetch(base, {
      method: "POST",
      headers: { authorization: `Bearer ${visitor.access_token}`, "content-type": "application/json" },
      body: JSON.stringify({ thread_id: lead, message: "hello again" }),
    });
    const turn = await r.json();
    assert.equal(r.status, 200, JSON.stringify(turn));
    assert.equal(turn.reply, "Thanks! Create an account to claim the Cedar Decks profile.");
    assert.equal(turn.profile.company_name, "Cedar Decks");
    assert.equal(turn.steps, 2);
  } finally {
    await server.shutdown();
  }
});
