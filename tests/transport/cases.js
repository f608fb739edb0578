import { mintJwt as signJwt } from "../support/jwt.js";

// Transport cases against the real stack (Postgres + RLS behind agentmem-gateway), shared
// by the Deno runner (deno/transport_test.ts) and the Chromium page
// (tests/browser/transport.html). Plain JS with no imports: each runner passes the
// package it loaded and the stack's settings.
//
// The gateway's admin endpoints (fault rules, request log) are global, so cases run one
// after another and each clears what it set.

/** @param {{ agentmem: any, env: Record<string, string> }} ctx */
export function transportCases({ agentmem, env }) {
  const { createClient, inspectToken, AgentmemError } = agentmem;
  const url = env.SUPABASE_URL;
  const anonKey = env.SUPABASE_ANON_KEY;
  const inBrowser = typeof document !== "undefined";
  const run = Math.random().toString(36).slice(2, 10); // keeps reruns against one stack apart

  // --- tiny assertion kit (the same in both runtimes) ----------------------------------
  const show = (v) => JSON.stringify(v);
  function fail(message) {
    throw new Error(message);
  }
  function ok(cond, message) {
    if (!cond) fail(message);
  }
  function eq(actual, expected, message = "") {
    if (show(canon(actual)) !== show(canon(expected))) fail(`${message}\n  actual:   ${show(actual)}\n  expected: ${show(expected)}`);
  }
  function canon(v) {
    if (Array.isArray(v)) return v.map(canon);
    if (v && typeof v === "object") return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canon(v[k])]));
    return v;
  }
  /** Awaits a rejection and checks it is an AgentmemError with the given fields. */
  async function rejects(promise, expected, message = "") {
    let error;
    try {
      await promise;
    } catch (e) {
      error = e;
    }
    ok(error !== undefined, `${message}: expected a rejection with ${show(expected)}`);
    ok(error instanceof AgentmemError && error instanceof Error, `${message}: not an AgentmemError: ${error}`);
    eq(error.name, "AgentmemError", message);
    for (const [k, v] of Object.entries(expected)) eq(error[k], v, `${message}: error.${k} (${error.message})`);
    return error;
  }
  function throwsSync(fn, expected, message = "") {
    return rejects(Promise.resolve().then(fn), expected, message);
  }

  // --- stack helpers --------------------------------------------------------------------
  /** An HS256 JWT signed with the stack's secret, as Supabase Auth would issue. */
  const mintJwt = (sub, { secret = env.SUPABASE_JWT_SECRET, ...options } = {}) => signJwt(secret, sub, options);
  const newUuid = () => crypto.randomUUID();
  async function admin(method, path, body) {
    // The admin routes need the service key and answer no CORS: a page reaches them through
    // its own origin (tests/browser/run.mjs forwards them), other runtimes directly.
    const r = await fetch(`${env.AGENTMEM_GATEWAY_ADMIN_URL ?? url}/__gateway/${path}`, {
      method,
      headers: { apikey: env.SUPABASE_SECRET_KEY },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    ok(r.ok, `gateway admin ${method} ${path}: ${r.status} ${await r.clone().text()}`);
    return r.json();
  }
  const setFaults = (rules) => admin("PUT", "faults", rules);
  const clearFaults = () => admin("DELETE", "faults");
  const clearLog = () => admin("DELETE", "requests");
  /** Requests the gateway saw since the last clearLog(), optionally only those on `table`. */
  async function seen(table) {
    const { requests } = await admin("GET", "requests");
    return requests.filter((r) => !table || r.path.endsWith(`/${table}`)).map((r) => r.method);
  }
  /** Runs `body` with fault rules in place and a fresh request log; always clears both. */
  async function withFaults(rules, body) {
    await clearLog();
    await setFaults(rules);
    try {
      return await body();
    } finally {
      await clearFaults();
    }
  }

  const anon = () => createClient({ url, apiKey: anonKey });
  async function user() {
    const id = newUuid();
    const token = await mintJwt(id);
    return { id, token, client: createClient({ url, apiKey: anonKey, accessToken: token }) };
  }
  const service = () => createClient({ url, apiKey: env.SUPABASE_SERVICE_ROLE_KEY, dangerouslyAllowSecretKeyInBrowser: true });
  const slug = (s) => `${run}-${s}`;

  const cases = [];
  const test = (name, fn) => cases.push({ name, fn });

  test("createClient validates every option with a typed error", async () => {
    const invalid = (options, field, what) => throwsSync(() => createClient(options), { code: "invalid_input", field }, what);
    await invalid(undefined, "options", "no options");
    await invalid({ apiKey: anonKey }, "url", "missing url");
    await invalid({ url: "ftp://x", apiKey: anonKey }, "url", "non-http url");
    await invalid({ url, apiKey: "" }, "apiKey", "empty key");
    await invalid({ url, apiKey: anonKey, timeout: 5 }, "timeout", "unknown option (typo of timeoutMs)");
    await invalid({ url, apiKey: anonKey, retries: 11 }, "retries", "too many retries");
    await invalid({ url, apiKey: anonKey, timeoutMs: 0 }, "timeoutMs", "zero timeout");
    await invalid({ url, apiKey: anonKey, fetch: 42 }, "fetch", "fetch not a function");
    await throwsSync(() => createClient({ url, apiKey: anonKey, accessToken: "not-a-jwt" }), { code: "unauthorized", field: "accessToken" }, "malformed token");
    eq(anon().restUrl, `${url}/rest/v1`, "project URL gets /rest/v1");
    eq(createClient({ url: `${url}/rest/v1/`, apiKey: anonKey }).restUrl, `${url}/rest/v1`, "a REST URL is kept");
  });

  test("errors say what to fix, in words: options, URLs, tokens, hosts, agentmem's missing SQL", async () => {
    const message = async (fn, expected, what) => (await throwsSync(fn, expected, what)).message;
    // An unset environment variable is the most common mistake in an edge function.
    eq(await message(() => createClient({ url: undefined, apiKey: anonKey }), { code: "invalid_input", field: "url" }, "url undefined"),
      "url is required; it is missing or undefined (an unset environment variable?)");
    eq(await message(() => createClient({ url, apiKey: anonKey, timeoutMs: "5000" }), { code: "invalid_input", field: "timeoutMs" }, "timeoutMs as a string"),
      'timeoutMs must be a whole number from 1 to 600000, got the string "5000"');
    eq(await message(() => createClient({ url, apiKey: anonKey, headers: { "x-n": 1 } }), { code: "invalid_input", field: "headers.x-n" }, "header value"),
      "headers.x-n must be a string, got the number 1");
    const typo = await message(() => createClient({ url, apiKey: anonKey, timeout: 5 }), { code: "invalid_input", field: "timeout" }, "typo");
    ok(typo.startsWith("timeout is not a known option; expected one of: url, apiKey, accessToken, fetch, timeoutMs,"), typo);
    // A misspelled option whose value is a function (JSON.stringify would drop it unseen).
    for (const key of ["fetsh", "customFetch", "onError"]) {
      const fnTypo = await message(() => createClient({ url, apiKey: anonKey, [key]: fetch }), { code: "invalid_input", field: key }, `${key}: a function`);
      ok(fnTypo.startsWith(`${key} is not a known option; expected one of: url, apiKey, accessToken, fetch,`), fnTypo);
    }
    eq(await message(() => createClient({ url: () => url, apiKey: anonKey }), { code: "invalid_input", field: "url" }, "url: a function"),
      "url must be a string, got a function");
    eq(await message(() => createClient({ url, apiKey: anonKey, headers: { "x-f": () => "v" } }), { code: "invalid_input", field: "headers.x-f" }, "a header as a function"),
      "headers.x-f must be a string, got a function");
    const selectTypo = await rejects(anon().select("transport_public", { colums: "id" }), { code: "invalid_input", field: "colums" }, "select option typo");
    ok(selectTypo.message.startsWith("colums is not a known option; expected one of: columns,"), selectTypo.message);
    for (const e of [selectTypo.message, typo]) ok(!/line \d+ column|missing field|invalid type/.test(e), `serde's words leaked: ${e}`);
    // An edge function's own URL instead of the project's.
    eq(await message(() => createClient({ url: `${url}/functions/v1`, apiKey: anonKey }), { code: "invalid_input", field: "url" }, "functions URL"),
      `url must be the project URL (${url}) or its REST URL (${url}/rest/v1), not ${url}/functions/v1: agentmem talks to PostgREST, which Supabase serves at /rest/v1`);
    // A user token that is no JWT is an auth problem (401), not bad input.
    const bad = await message(() => createClient({ url, apiKey: anonKey, accessToken: "undefined" }), { code: "unauthorized", field: "accessToken" }, "token 'undefined'");
    ok(bad.includes("not a JWT") && !bad.includes("undefined"), bad);
    // A host that does not answer is named (port 9: discard, closed here, and refused by browsers).
    const down = await rejects(createClient({ url: "http://127.0.0.1:9", apiKey: anonKey, retries: 0 }).select("transport_public"), { code: "network", retries: 0 }, "unreachable");
    ok(down.message.startsWith("could not reach http://127.0.0.1:9 (") && down.message.endsWith("): is the url right and the server up?"), down.message);
    // One of agentmem's functions that this database lacks in this shape (an older SQL
    // version): the migration to apply is named; a caller's own unknown table stays not_found.
    const { client } = await user();
    const missing = await rejects(client.rpc("create_agent_memory", { p_old_argument: 1 }), { code: "schema_not_installed", status: 404, pgrstCode: "PGRST202" }, "agentmem function");
    ok(missing.message.includes("supabase/migrations/20261122000200_agent_memories.sql") && missing.message.includes("notify pgrst, 'reload schema'"), missing.message);
    await rejects(client.select("no_such_table"), { code: "not_found", status: 404, pgrstCode: "PGRST205" }, "a caller's unknown table");
  });

  test("requests carry apikey, the user's bearer token, custom headers and schema profiles", async () => {
    const { token, id } = await user();
    const sent = [];
    const spy = (input, init) => {
      sent.push({ url: String(input), method: init.method, headers: Object.fromEntries(new Headers(init.headers)) });
      return fetch(input, init);
    };
    const c = createClient({ url, apiKey: anonKey, accessToken: token, fetch: spy, headers: { "x-trace": "t1" } });
    const who = await c.rpc("transport_whoami", {}, { get: true });
    eq(who.data, { uid: id, role: "authenticated" }, "RLS sees the user");
    eq(sent.length, 1, "one request");
    eq(sent[0].method, "GET");
    eq(sent[0].headers.apikey, anonKey);
    eq(sent[0].headers.authorization, `Bearer ${token}`);
    eq(sent[0].headers["x-trace"], "t1");
    eq(c.identity, { role: "authenticated", sub: id, exp: c.identity.exp, kind: "jwt" });
    ok(c.identity.exp > Date.now() / 1000, "exp decoded");
    eq(c.headersFor(token), { apikey: anonKey, Authorization: `Bearer ${token}` });
    eq(inspectToken(anonKey).role, "anon");
    eq(inspectToken(env.SUPABASE_SECRET_KEY), { role: "service_role", sub: null, exp: null, kind: "secret" });
    const other = createClient({ url, apiKey: anonKey, schema: "storage", fetch: spy });
    await rejects(other.select("objects"), { status: 406 }, "unknown schema is refused by the server");
    eq(sent.at(-1).headers["accept-profile"], "storage", "schema sent as Accept-Profile");
  });

  test("insert, select, update, delete round trip as a signed-in user", async () => {
    const { client, id } = await user();
    const inserted = await client.insert(
      "transport_notes",
      [{ slug: slug("crud-1"), title: "first", body: { source: "web", n: 1 }, tags: ["a", "b"] }, { slug: slug("crud-2"), title: "second", body: { source: "chat", n: 2 }, tags: [] }],
      { returning: "representation", columns: "id,owner_id,slug,title,body,tags" },
    );
    eq(inserted.status, 201);
    eq(inserted.data.length, 2);
    eq(inserted.data[0].owner_id, id, "owner defaults to auth.uid()");
    const minimal = await client.insert("transport_notes", { slug: slug("crud-3"), title: "third" });
    eq([minimal.status, minimal.data], [201, null], "return=minimal");

    const all = await client.select("transport_notes", { columns: "slug,title,src:body->>source", order: [{ column: "slug" }], count: "exact" });
    eq(all.count, 3);
    eq(all.data.map((r) => r.slug), [slug("crud-1"), slug("crud-2"), slug("crud-3")]);
    eq(all.data[0].src, "web", "JSON path alias");
    const web = await client.select("transport_notes", { columns: "slug", filters: [["body->>source", "eq", "web"]] });
    eq(web.data, [{ slug: slug("crud-1") }], "JSON path filter");
    const tagged = await client.select("transport_notes", { columns: "slug", filters: [["tags", "cs", ["a"]]] });
    eq(tagged.data, [{ slug: slug("crud-1") }], "array contains");
    const page = await client.select("transport_notes", { columns: "slug", order: "slug.desc", limit: 1, offset: 1, count: "exact" });
    eq([page.status, page.count, page.data], [206, 3, [{ slug: slug("crud-2") }]], "partial page with count");
    const head = await client.select("transport_notes", { head: true, count: "exact" });
    eq([head.data, head.count], [null, 3], "HEAD count");

    const updated = await client.update("transport_notes", { title: "FIRST" }, { filters: [["slug", "eq", slug("crud-1")]], returning: "representation", columns: "title" });
    eq(updated.data, [{ title: "FIRST" }]);
    const removed = await client.delete("transport_notes", { filters: [["slug", "in", [slug("crud-2"), slug("crud-3")]]], count: "exact" });
    eq(removed.count, 2, "deleted count");
    eq((await client.select("transport_notes", { columns: "title" })).data, [{ title: "FIRST" }]);
    await throwsSync(() => client.update("transport_notes", { title: "x" }, {}), { code: "invalid_input" }, "unfiltered update refused");
    await throwsSync(() => client.delete("transport_notes", { filters: [] }), { code: "invalid_input" }, "unfiltered delete refused");
  });

  test("hostile filter values are data, never syntax", async () => {
    const { client } = await user();
    const titles = ["a,b", "x)y", "(p)", '"q"', "back\\slash", "dot.ted:colon", "or=(id.gt.0)", "é 日本 😀", " padded ", "null", "*star*", "a&b=c#d", "100%"];
    await client.insert("transport_notes", titles.map((title, i) => ({ slug: slug(`hostile-${i}`), title })));
    for (const title of titles) {
      const r = await client.select("transport_notes", { columns: "title", filters: [["title", "eq", title]] });
      eq(r.data, [{ title }], `eq ${show(title)}`);
    }
    const inList = await client.select("transport_notes", { columns: "title", filters: [["title", "in", titles]], count: "exact" });
    eq(inList.count, titles.length, "in.(...) with every hostile value");
    const notIn = await client.select("transport_notes", { columns: "title", filters: [["title", "not.in", titles.slice(1)]] });
    eq(notIn.data, [{ title: titles[0] }], "not.in");
    const either = await client.select("transport_notes", { columns: "title", filters: [{ or: [["title", "eq", "x)y"], ["title", "eq", "a,b"]] }], order: "title" });
    eq(either.data, [{ title: "a,b" }, { title: "x)y" }], "or group with quoted values");
    const none = await client.select("transport_notes", { filters: [["title", "in", []]] });
    eq(none.data, [], "empty in matches nothing");
    const like = await client.select("transport_notes", { columns: "title", filters: [["title", "like", "*star*"]] });
    eq(like.data, [{ title: "*star*" }], "like uses * as wildcard");
  });

  test("single and maybeSingle", async () => {
    const { client } = await user();
    await client.insert("transport_notes", [{ slug: slug("s1"), title: "same" }, { slug: slug("s2"), title: "same" }, { slug: slug("s3"), title: "alone" }]);
    const one = await client.select("transport_notes", { columns: "title", filters: [["title", "eq", "alone"]], single: true });
    eq(one.data, { title: "alone" }, "single row as object");
    await rejects(client.select("transport_notes", { filters: [["title", "eq", "nobody"]], single: true }), { code: "not_found", status: 406, pgrstCode: "PGRST116" }, "single on none");
    await rejects(client.select("transport_notes", { filters: [["title", "eq", "same"]], single: true }), { code: "conflict", status: 406, pgrstCode: "PGRST116" }, "single on two");
    eq((await client.select("transport_notes", { filters: [["title", "eq", "nobody"]], maybeSingle: true })).data, null, "maybeSingle on none");
    eq((await client.select("transport_notes", { columns: "slug", filters: [["title", "eq", "alone"]], maybeSingle: true })).data, { slug: slug("s3") });
    await rejects(client.select("transport_notes", { filters: [["title", "eq", "same"]], maybeSingle: true }), { code: "conflict" }, "maybeSingle on two");
    // A singular update that would touch two rows is rolled back.
    await rejects(client.update("transport_notes", { title: "changed" }, { filters: [["title", "eq", "same"]], single: true, returning: "representation" }), { code: "conflict" });
    eq((await client.select("transport_notes", { filters: [["title", "eq", "same"]], count: "exact", head: true })).count, 2, "rolled back");
  });

  test("upsert merges on the conflict target; ignoreDuplicates keeps the row", async () => {
    const { client } = await user();
    const first = await client.upsert("transport_notes", { slug: slug("up"), title: "v1" }, { onConflict: ["slug"], returning: "representation", columns: "title" });
    eq([first.status, first.data], [201, [{ title: "v1" }]], "inserted");
    const second = await client.upsert("transport_notes", { slug: slug("up"), title: "v2" }, { onConflict: ["slug"], returning: "representation", columns: "title" });
    eq([second.status, second.data], [200, [{ title: "v2" }]], "merged");
    await client.upsert("transport_notes", { slug: slug("up"), title: "v3" }, { onConflict: ["slug"], ignoreDuplicates: true });
    const rows = await client.select("transport_notes", { columns: "title", filters: [["slug", "eq", slug("up")]] });
    eq(rows.data, [{ title: "v2" }], "ignored duplicate");
  });

  test("rpc: POST and GET, scalars, JSON results, results as the caller", async () => {
    const { client, id } = await user();
    eq((await client.rpc("transport_add", { a: 2, b: 40 })).data, 42, "POST");
    eq((await client.rpc("transport_add", { a: 2, b: 40 }, { get: true })).data, 42, "GET");
    eq((await anon().rpc("transport_whoami")).data, { uid: null, role: "anon" }, "anon call");
    eq((await client.rpc("transport_whoami")).data.uid, id);
    const none = await client.rpc("transport_fail", { p_code: "P0001", p_message: "nope" }).catch((e) => e);
    eq([none.code, none.status, none.pgrstCode, none.details, none.hint], ["invalid_input", 400, "P0001", "detail of P0001", "hint of P0001"], "RAISE maps to 400 with details and hint");
    await rejects(client.rpc("transport_add", { a: 1 }), { code: "not_found", status: 404, pgrstCode: "PGRST202" }, "unknown signature");
    await rejects(client.rpc("no_such_function"), { code: "not_found", status: 404, pgrstCode: "PGRST202" });
  });

  test("RLS: user B never reads, changes or deletes user A's rows", async () => {
    const a = await user();
    const b = await user();
    await a.client.insert("transport_notes", { slug: slug("rls-a"), title: "A's secret" });
    eq((await b.client.select("transport_notes", { filters: [["slug", "eq", slug("rls-a")]] })).data, [], "B reads nothing");
    await rejects(b.client.select("transport_notes", { filters: [["slug", "eq", slug("rls-a")]], single: true }), { code: "not_found" }, "single read by B is not found");
    const upd = await b.client.update("transport_notes", { title: "pwned" }, { filters: [["slug", "eq", slug("rls-a")]], returning: "representation" });
    eq(upd.data, [], "B's update touches nothing");
    const del = await b.client.delete("transport_notes", { filters: [["slug", "eq", slug("rls-a")]], count: "exact" });
    eq(del.count, 0, "B's delete touches nothing");
    const e = await rejects(b.client.insert("transport_notes", { slug: slug("rls-b"), title: "forged", owner_id: a.id }), { code: "forbidden", status: 403, pgrstCode: "42501" }, "B cannot write as A");
    ok(/row-level security/.test(e.message), e.message);
    await rejects(b.client.insert("transport_public", { id: 99, label: "x" }), { code: "forbidden", status: 403, pgrstCode: "42501" }, "RLS write denial is forbidden, not not_found");
    eq((await a.client.select("transport_notes", { columns: "title", filters: [["slug", "eq", slug("rls-a")]] })).data, [{ title: "A's secret" }], "A's row intact");
    eq((await service().select("transport_notes", { columns: "title", filters: [["slug", "eq", slug("rls-a")]] })).data, [{ title: "A's secret" }], "service_role sees all");
  });

  test("a client acting for a user has no table calls; its rpc acts for the user; the plain service role keeps its tables", async () => {
    // Registered users: agentmem's functions act only for users of auth.users.
    const registered = async () => {
      const id = newUuid();
      await service().rpc("test_create_user", { p_id: id });
      return { id, client: createClient({ url, apiKey: anonKey, accessToken: await mintJwt(id) }) };
    };
    const a = await registered();
    const b = await registered();
    const content = (who) => `${run} ${who}'s memory`;
    for (const [who, u] of [["A", a], ["B", b]]) {
      await u.client.rpc("create_agent_memory", { p_agent_id: "acting", p_content: content(who), p_memory_type: "fact" });
    }
    const forB = service().actingFor(b.id);
    const mine = [["content", "like", `${run} *`]];
    const tableCalls = [
      ["select", () => forB.select("agent_memories")],
      ["select", () => forB.select("agent_memories", { filters: mine, head: true, count: "exact" })],
      ["select", () => forB.select("transport_notes")],
      ["insert", () => forB.insert("agent_memories", { agent_id: "acting", content: "planted", memory_type: "fact" })],
      ["upsert", () => forB.upsert("transport_notes", { slug: slug("acting"), title: "x" }, { onConflict: ["slug"] })],
      ["update", () => forB.update("agent_memories", { content: "changed" }, { filters: mine })],
      ["delete", () => forB.delete("agent_memories", { filters: mine })],
    ];
    await clearLog();
    for (const [op, call] of tableCalls) {
      const e = await rejects(call(), { code: "invalid_input", field: "actingFor" }, `actingFor(B).${op}`);
      ok(e.message.startsWith(`${op} on the table "`) && e.message.includes("client.rpc()"), e.message);
    }
    const inOptions = createClient({ url, apiKey: env.SUPABASE_SERVICE_ROLE_KEY, actingFor: b.id, dangerouslyAllowSecretKeyInBrowser: true });
    await rejects(inOptions.select("agent_memories"), { code: "invalid_input", field: "actingFor" }, "actingFor in the options");
    eq(await seen(), [], "nothing was sent");
    // The header by hand would do what actingFor refuses.
    await throwsSync(() => createClient({ url, apiKey: env.SUPABASE_SERVICE_ROLE_KEY, headers: { "X-Agentmem-Tenant": b.id }, dangerouslyAllowSecretKeyInBrowser: true }),
      { code: "invalid_input", field: "headers.X-Agentmem-Tenant" }, "x-agentmem-tenant in headers");
    // RPCs act for B: B's memories only.
    const found = await forB.rpc("get_memory_context", { p_agent_id: "acting" });
    eq(found.data.map((m) => m.content), [content("B")], "rpc as B");
    eq((await b.client.select("agent_memories", { columns: "content", filters: mine })).data, [{ content: content("B") }], "B's own read, unchanged");
    // The plain service role keeps its table calls, and sees every tenant's rows.
    const all = await service().select("agent_memories", { columns: "content", filters: mine, order: "content" });
    eq(all.data, [{ content: content("A") }, { content: content("B") }], "service role, no actingFor");
  });

  test("anon and bad credentials get 401 unauthorized", async () => {
    await rejects(anon().select("transport_notes"), { code: "unauthorized", status: 401, pgrstCode: "42501" }, "anon has no grant");
    eq((await anon().select("transport_public", { columns: "label", order: "id" })).data, [{ label: "one" }, { label: "two" }], "anon reads public data");
    const forged = await mintJwt(newUuid(), { secret: "another-secret-that-is-at-least-32-chars" });
    await rejects(anon().withAccessToken(forged).select("transport_public"), { code: "unauthorized", status: 401, pgrstCode: "PGRST301" }, "bad signature");
    const expired = await mintJwt(newUuid(), { expiresIn: -60 });
    await rejects(anon().withAccessToken(expired).select("transport_public"), { code: "unauthorized", status: 401, pgrstCode: "PGRST303" }, "expired");
    const e = await rejects(createClient({ url, apiKey: "sb_publishable_wrong_key_000000" }).select("transport_public"), { code: "unauthorized", status: 401 }, "unknown API key (gateway error without a PostgREST code)");
    eq(e.pgrstCode, undefined);
  });

  test("an accessToken function is asked before each operation and followed across the token's expiry; a string token expires", async () => {
    const { id } = await user();
    // The gateway, as PostgREST, allows 30 s of clock skew: this token lives about 2 s more.
    const short = await mintJwt(id, { expiresIn: -28 });
    const fresh = await mintJwt(id);
    /** What the function hands out next: the session's token, as a session holder would. */
    const session = { token: short, asked: 0 };
    const follow = createClient({ url, apiKey: anonKey, accessToken: async () => {
      session.asked += 1;
      return session.token;
    } });
    const fixed = createClient({ url, apiKey: anonKey, accessToken: short });
    eq(follow.identity, { role: null, sub: null, exp: null, kind: "jwt" }, "no token asked for yet");
    eq((await follow.rpc("transport_whoami")).data, { uid: id, role: "authenticated" }, "the function's token");
    eq(session.asked, 1, "asked once for one operation");
    eq(follow.identity.sub, id, "identity: the latest token's");
    eq((await fixed.rpc("transport_whoami")).data.uid, id, "the string token, while it lives");

    const exp = JSON.parse(atob(short.split(".")[1].replace(/-/g, "+").replace(/_/g, "/"))).exp;
    await new Promise((r) => setTimeout(r, Math.max(0, (exp + 31) * 1000 - Date.now())));
    await clearLog();
    const expired = await rejects(fixed.rpc("transport_whoami"), { code: "unauthorized", status: 401, pgrstCode: "PGRST303" }, "a string token, expired");
    ok(/expired/.test(expired.message), expired.message);
    ok(/followSession/.test(expired.hint), `the hint says how to follow the session: ${expired.hint}`);
    eq(await seen("transport_whoami"), ["POST"], "not sent again: there is no other token");

    // The holder still hands out the expired token (its clock lags), and the refreshed one
    // when asked again: the refused request is sent once more, with it.
    const refreshing = createClient({ url, apiKey: anonKey, accessToken: () => {
      session.asked += 1;
      const t = session.token;
      session.token = fresh;
      return t;
    } });
    session.token = short;
    session.asked = 0;
    await clearLog();
    eq((await refreshing.rpc("transport_whoami")).data.uid, id, "followed across the expiry");
    eq([session.asked, await seen("transport_whoami")], [2, ["POST", "POST"]], "asked twice, sent twice");
    await clearLog();
    eq((await refreshing.rpc("transport_whoami")).data.uid, id);
    eq([session.asked, await seen("transport_whoami")], [3, ["POST"]], "then the fresh token at once");
    eq(refreshing.identity.exp > Date.now() / 1000 + 60, true, "identity: the fresh token's");

    // A write refused for its token ran nothing: sent again, it is written once.
    session.token = short;
    await clearLog();
    await refreshing.insert("transport_notes", { slug: slug("expired-insert"), title: "once" });
    eq(await seen("transport_notes"), ["POST", "POST"], "refused, then written");
    const rows = await createClient({ url, apiKey: anonKey, accessToken: fresh }).select("transport_notes", { filters: [["slug", "eq", slug("expired-insert")]], count: "exact", head: true });
    eq(rows.count, 1, "one row");

    // A function that keeps handing out the expired token: asked once more, not resent.
    const stale = createClient({ url, apiKey: anonKey, accessToken: () => short });
    await clearLog();
    await rejects(stale.rpc("transport_whoami"), { code: "unauthorized", status: 401, pgrstCode: "PGRST303" }, "the same expired token again");
    eq(await seen("transport_whoami"), ["POST"]);
  });

  test("what an accessToken function gives or does is checked: typed errors, nothing sent, the module fine afterwards", async () => {
    const { id, token } = await user();
    const withFn = (fn, options = {}) => createClient({ url, apiKey: anonKey, accessToken: fn, ...options });
    const boom = new Error("no session here");
    const revoked = Proxy.revocable({}, {});
    revoked.revoke();
    await clearLog();
    for (const [what, fn, expected] of [
      ["a number", () => 42, { code: "invalid_input", field: "accessToken" }],
      ["undefined", () => undefined, { code: "invalid_input", field: "accessToken" }],
      ["an object", async () => ({ access_token: token }), { code: "invalid_input", field: "accessToken" }],
      // Resolving a promise with it reads its `then`, which throws: the function failed.
      ["a revoked Proxy", () => revoked.proxy, { code: "unauthorized", field: "accessToken" }],
      ["a throw", () => { throw boom; }, { code: "unauthorized", field: "accessToken" }],
      ["a rejection", () => Promise.reject(boom), { code: "unauthorized", field: "accessToken" }],
      ["a thenable whose then throws", () => ({ get then() { throw boom; } }), { code: "unauthorized", field: "accessToken" }],
      ["not a JWT", () => "not-a-jwt", { code: "unauthorized", field: "accessToken" }],
      ["an API key", () => "sb_publishable_abc", { code: "unauthorized", field: "accessToken" }],
      ["an empty string", () => "", { code: "unauthorized", field: "accessToken" }],
      ["no answer in time", () => new Promise(() => {}), { code: "timeout", field: "accessToken" }],
    ]) {
      const e = await rejects(withFn(fn, { timeoutMs: 200 }).select("transport_public"), expected, `the function gives ${what}`);
      if (expected.code === "unauthorized" && (what === "a throw" || what === "a rejection")) {
        eq(e.cause === boom, true, `${what}: the function's error is the cause`);
        ok(e.message.includes("no session here"), e.message);
      }
      ok(!e.message.includes(token), `leaked: ${e.message}`);
    }
    eq(await seen(), [], "nothing was sent");
    // null: nobody signed in, the API key alone (anon).
    eq((await withFn(() => null).rpc("transport_whoami")).data, { uid: null, role: "anon" }, "null: anon");
    await rejects(Promise.resolve().then(() => createClient({ url, apiKey: env.SUPABASE_SERVICE_ROLE_KEY, accessToken: () => token, actingFor: id, dangerouslyAllowSecretKeyInBrowser: true })),
      { code: "invalid_input", field: "actingFor" }, "actingFor takes no token function");
    await throwsSync(() => createClient({ url, apiKey: env.SUPABASE_SERVICE_ROLE_KEY, accessToken: () => token, dangerouslyAllowSecretKeyInBrowser: true }).actingFor(id),
      { code: "invalid_input", field: "actingFor" }, "nor does actingFor()");
    // The module is fine afterwards: the same kind of client works.
    eq((await withFn(async () => token).rpc("transport_whoami")).data, { uid: id, role: "authenticated" }, "works afterwards");
    eq((await withFn(async () => token).withAccessToken(token).rpc("transport_whoami")).data.uid, id, "withAccessToken: a string token again");
  });

  test("PostgREST and Postgres errors map to stable codes", async () => {
    const { client } = await user();
    await rejects(client.select("no_such_table"), { code: "not_found", status: 404, pgrstCode: "PGRST205" }, "unknown table");
    await rejects(client.select("transport_notes", { columns: "nope" }), { code: "invalid_input", status: 400, pgrstCode: "42703" }, "unknown column");
    await rejects(client.insert("transport_notes", { title: "x", nope: 1 }), { code: "invalid_input", status: 400, pgrstCode: "PGRST204" }, "unknown column in body");
    await rejects(client.insert("transport_notes", { slug: slug("x"), title: null }), { code: "invalid_input", status: 400, pgrstCode: "23502" }, "not null");
    await client.insert("transport_notes", { slug: slug("dup"), title: "x" });
    await rejects(client.insert("transport_notes", { slug: slug("dup"), title: "y" }), { code: "conflict", status: 409, pgrstCode: "23505" }, "unique violation");
    await rejects(client.select("transport_notes", { filters: [["id", "eq", "abc"]] }), { code: "invalid_input", status: 400, pgrstCode: "22P02" }, "bad integer");
    await rejects(client.rpc("transport_fail", { p_code: "42501", p_message: "custom denial" }), { code: "forbidden", status: 403, pgrstCode: "42501" });
    await rejects(client.rpc("transport_fail", { p_code: "XX000", p_message: "internal" }), { code: "server", status: 500, pgrstCode: "XX000" });
    for (const [status, code] of [[500, "server"], [502, "server"], [503, "server"], [504, "timeout"], [400, "invalid_input"]]) {
      await withFaults([{ action: "status", status, path: "/transport_public" }], () =>
        rejects(createClient({ url, apiKey: anonKey, retries: 0 }).select("transport_public"), { code, status, retries: 0 }, `injected ${status}`));
    }
  });

  test("timeouts abort the request; idempotent reads are retried", async () => {
    const c = createClient({ url, apiKey: anonKey, timeoutMs: 300, retries: 0 });
    await withFaults([{ action: "delay", delay_ms: 1500, path: "/transport_public", times: 1 }], async () => {
      const e = await rejects(c.select("transport_public"), { code: "timeout", retries: 0 }, "timed out");
      ok(/300 ?ms/.test(e.message), e.message);
    });
    const retrying = createClient({ url, apiKey: anonKey, timeoutMs: 300, retries: 2 });
    await withFaults([{ action: "delay", delay_ms: 1500, path: "/transport_public", times: 1 }], async () => {
      eq((await retrying.select("transport_public", { columns: "id", order: "id" })).data, [{ id: 1 }, { id: 2 }], "second attempt succeeds");
      eq(await seen("transport_public"), ["GET", "GET"]);
    });
    await withFaults([{ action: "status", status: 503, path: "/transport_public", nth: [1, 2] }], async () => {
      eq((await retrying.select("transport_public", { columns: "id", limit: 1 })).data, [{ id: 1 }], "503 twice, then ok");
      eq(await seen("transport_public"), ["GET", "GET", "GET"]);
    });
    await withFaults([{ action: "status", status: 503, path: "/transport_public" }], async () => {
      await rejects(retrying.select("transport_public"), { code: "server", status: 503, retries: 2 }, "retries exhausted");
      eq(await seen("transport_public"), ["GET", "GET", "GET"], "1 + 2 retries");
    });
    await withFaults([{ action: "status", status: 500, path: "/transport_public" }], async () => {
      await rejects(retrying.select("transport_public"), { code: "server", status: 500, retries: 0 }, "500 is not retried");
      eq(await seen("transport_public"), ["GET"]);
    });
  });

  test("an upsert retried after a dropped connection leaves exactly one row", async () => {
    const { client } = await user();
    const s = slug("dropped-upsert");
    await withFaults([{ action: "drop_after", method: "POST", path: "/transport_notes", times: 1 }], async () => {
      const r = await client.upsert("transport_notes", { slug: s, title: "once" }, { onConflict: ["slug"], returning: "representation", columns: "title" });
      eq(r.data, [{ title: "once" }]);
      eq(await seen("transport_notes"), ["POST", "POST"], "retried once");
    });
    eq((await client.select("transport_notes", { filters: [["slug", "eq", s]], count: "exact", head: true })).count, 1, "exactly one row");
  });

  test("a plain insert is never retried; the same failure retries an upsert", async () => {
    const { client } = await user();
    await withFaults([{ action: "status", status: 503, method: "POST", path: "/transport_notes", nth: [1] }], async () => {
      await rejects(client.insert("transport_notes", { slug: slug("503-insert"), title: "no" }), { code: "server", status: 503, retries: 0 }, "insert fails at once");
      eq(await seen("transport_notes"), ["POST"], "sent once");
    });
    await withFaults([{ action: "status", status: 503, method: "POST", path: "/transport_notes", nth: [1] }], async () => {
      await client.upsert("transport_notes", { slug: slug("503-upsert"), title: "yes" }, { onConflict: ["slug"] });
      eq(await seen("transport_notes"), ["POST", "POST"], "upsert retried");
    });
    eq((await client.select("transport_notes", { columns: "slug", filters: [["slug", "like", `${run}-503-*`]] })).data, [{ slug: slug("503-upsert") }]);
  });

  test("a plain insert whose connection drops after commit is reported, not resent by agentmem", async () => {
    const { client } = await user();
    const s = slug("dropped-insert");
    await withFaults([{ action: "drop_after", method: "POST", path: "/transport_notes", times: 1 }], async () => {
      const outcome = await client.insert("transport_notes", { slug: s, title: "maybe" }).then(() => null, (e) => e);
      const posts = await seen("transport_notes");
      if (typeof Deno !== "undefined" || inBrowser) {
        // Deno's fetch (hyper) and Chromium re-send, on their own, a request whose reused
        // keep-alive connection closed without a single response byte; agentmem cannot see
        // or stop that. The unique slug turns the duplicate into a conflict, not a 2nd row.
        eq(posts, ["POST", "POST"], "the runtime's fetch resent the request on its own");
        ok(outcome instanceof AgentmemError, "the resend is refused by the unique key");
        eq([outcome.code, outcome.retries], ["conflict", 0], "and agentmem did not retry");
      } else {
        eq(posts, ["POST"], "sent once");
        ok(outcome instanceof AgentmemError, "the dropped insert is an error");
        eq([outcome.code, outcome.retries], ["network", 0], outcome.message);
        ok(outcome.cause !== undefined, "the fetch failure is the cause");
      }
    });
    // The write committed before the connection dropped: the caller must check, as here.
    eq((await client.select("transport_notes", { filters: [["slug", "eq", s]], count: "exact", head: true })).count, 1);
  });

  test("an RPC is retried only when declared idempotent", async () => {
    const { client } = await user();
    await withFaults([{ action: "status", status: 502, path: "/rpc/transport_add", nth: [1] }], async () => {
      await rejects(client.rpc("transport_add", { a: 1, b: 1 }), { code: "server", status: 502, retries: 0 });
      eq(await seen(), ["POST"]);
    });
    await withFaults([{ action: "status", status: 502, path: "/rpc/transport_add", nth: [1] }], async () => {
      eq((await client.rpc("transport_add", { a: 1, b: 1 }, { idempotent: true })).data, 2);
      eq(await seen(), ["POST", "POST"]);
    });
    await withFaults([{ action: "status", status: 502, path: "/rpc/transport_add", nth: [1] }], async () => {
      eq((await client.rpc("transport_add", { a: 1, b: 1 }, { get: true })).data, 2, "GET calls are idempotent");
      eq(await seen(), ["GET", "GET"]);
    });
  });

  test("keys and tokens never appear in errors", async () => {
    const { token } = await user();
    const leaky = (input) => Promise.reject(new TypeError(`connect failed for ${input} with ${token} and ${anonKey}`));
    const c = createClient({ url, apiKey: anonKey, accessToken: token, fetch: leaky, retries: 0 });
    const e = await rejects(c.select("transport_notes"), { code: "network" });
    ok(!e.message.includes(token) && !e.message.includes(anonKey), `leaked: ${e.message}`);
    ok(e.message.includes("[redacted]"), e.message);
    const bad = await rejects(Promise.resolve().then(() => createClient({ url, apiKey: anonKey, accessToken: `${token}x.y` })), { code: "unauthorized", field: "accessToken" });
    ok(!bad.message.includes(token), bad.message);
  });

  test("service-role and secret keys are refused in browsers unless explicitly allowed", async () => {
    const secretKeys = [env.SUPABASE_SERVICE_ROLE_KEY, env.SUPABASE_SECRET_KEY];
    for (const apiKey of secretKeys) {
      if (inBrowser) {
        const e = await throwsSync(() => createClient({ url, apiKey }), { code: "invalid_input", field: "apiKey" });
        ok(!e.message.includes(apiKey) && /dangerouslyAllowSecretKeyInBrowser/.test(e.message), e.message);
      } else {
        eq((await createClient({ url, apiKey }).select("transport_public", { count: "exact", head: true })).count, 2, "server-side use stays simple");
      }
      const allowed = createClient({ url, apiKey, dangerouslyAllowSecretKeyInBrowser: true });
      eq((await allowed.rpc("transport_whoami")).data.role, "service_role");
    }
    if (inBrowser) {
      const asToken = await mintJwt(newUuid(), { role: "service_role" });
      await throwsSync(() => createClient({ url, apiKey: anonKey, accessToken: asToken }), { code: "invalid_input", field: "accessToken" });
    }
  });

  return cases;
}
