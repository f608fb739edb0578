// One door for writes: every attack of the "shared threads no member can break" report, from
// outside, against the stack (gateway → Postgres with RLS), as deal members with their own
// JWTs, a contractor, and server code on the service role that passes on a visitor's input.
// Each numbered test is the report's point of that number; each case names the request that
// used to work and what it answers now.
import assert from "node:assert/strict";
import { newUser, service } from "./support.ts";
import { asService, asUser, checkpoint, deal, dealTenant, type Reply, tuple, valueOf } from "./attack.ts";

const rpc = (token: string, fn: string, args: unknown) => asUser(token, "POST", `rpc/${fn}`, args);
const listAll = (token: string) => rpc(token, "langgraph_list", {});
const hex = (text: string) => `\\x${[...new TextEncoder().encode(text)].map((x) => x.toString(16).padStart(2, "0")).join("")}`;
const refused = (r: Reply, what: string) => assert.equal(r.status, 403, `${what}: ${JSON.stringify(r.body)}`);
/** 400 with SQLSTATE `code`, never a 500 naming storage internals. */
function invalid(r: Reply, what: string, code = "22023") {
  assert.equal(r.status, 400, `${what}: ${r.status} ${JSON.stringify(r.body)}`);
  assert.equal(r.body.code, code, `${what}: ${JSON.stringify(r.body)}`);
  assert.doesNotMatch(JSON.stringify(r.body), /index row|btree|tuple \(/, what);
}

/** Members A and B of an organization with deal D, and the deal's shared thread B wrote. */
async function sharedThread() {
  const a = await newUser(), b = await newUser();
  const d = await deal([a.id, b.id]);
  const thread = `cim-${d}-x`;
  assert.equal((await rpc(b.token, "langgraph_put", checkpoint(thread, "B's"))).status, 200);
  assert.equal((await rpc(b.token, "langgraph_put_writes", {
    p_thread_id: thread, p_checkpoint_ns: "", p_checkpoint_id: "c1", p_task_id: "t", p_task_path: "", p_writes: [{ channel: "x", type: "json", blob: btoa('"w"') }],
  })).status, 200);
  assert.equal((await rpc(b.token, "langgraph_put", checkpoint(`private-${crypto.randomUUID()}`, "B's private"))).status, 200);
  return { a, b, d, thread };
}

/** What B reads of the shared thread and of all their threads (must never change). */
async function bReads(b: { token: string }, thread: string) {
  const one = await tuple(b.token, thread);
  const all = await listAll(b.token);
  assert.equal(one.status, 200, JSON.stringify(one.body));
  assert.equal(all.status, 200, JSON.stringify(all.body));
  return JSON.stringify([one.body, all.body.length]);
}

Deno.test("1. one member cannot break every co-member's reads", async (t) => {
  const { a, b, thread } = await sharedThread();
  const before = await bReads(b, thread);
  await t.step("PATCH of a blob to bytes that are not UTF-8, marked as text: 403 (was 200, then B's reads answered 22021)", async () => {
    refused(await asUser(a.token, "PATCH", `langgraph_checkpoint_blobs?thread_key=eq.${thread}`, { utf8: true, blob: "\\xff" }), "PATCH blobs");
  });
  await t.step("POST of such a pending write: 403", async () => {
    refused(await asUser(a.token, "POST", "langgraph_checkpoint_writes", {
      thread_key: thread, checkpoint_id: "c1", task_id: "evil", idx: 0, channel: "x", type: "json", blob: "\\xff", utf8: true,
    }), "POST writes");
  });
  await t.step("even the service role's direct write of such bytes is refused (22021), so no stored row can fail a read", async () => {
    const r = await asService("PATCH", `langgraph_checkpoint_blobs?thread_key=eq.${thread}`, { utf8: true, blob: "\\xff" });
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.equal(r.body.code, "22021");
  });
  await t.step("B's get_tuple and unfiltered list read as before", async () => {
    assert.equal(await bReads(b, thread), before);
  });
});

Deno.test("2. acknowledged history is never rewritten", async (t) => {
  const { a, b, thread } = await sharedThread();
  const before = await bReads(b, thread);
  for (const table of ["langgraph_checkpoint_blobs", "langgraph_checkpoint_writes", "langgraph_checkpoints"]) {
    await t.step(`PATCH ${table} (was 200, B then read A's values): 403`, async () => {
      const patch = table === "langgraph_checkpoints" ? { metadata: { source: "forged" } } : { blob: hex('"A-forged"') };
      refused(await asUser(a.token, "PATCH", `${table}?thread_key=eq.${thread}`, patch), `PATCH ${table}`);
    });
  }
  await t.step("POST with Prefer: resolution=merge-duplicates on blobs and checkpoints: 403", async () => {
    const merge = { Prefer: "return=representation,resolution=merge-duplicates" };
    refused(await asUser(a.token, "POST", "langgraph_checkpoint_blobs", { thread_key: thread, checkpoint_ns: "", channel: "text", version: "1.5", type: "json", blob: hex('"A-forged"') }, merge), "upsert blob");
    refused(await asUser(a.token, "POST", "langgraph_checkpoints", { thread_key: thread, checkpoint_ns: "", checkpoint_id: "c1", checkpoint: {}, metadata: { source: "forged" } }, merge), "upsert checkpoint");
  });
  await t.step("rpc/langgraph_put with B's checkpoint_id and other content (was 200, the row replaced): 409", async () => {
    const r = await rpc(a.token, "langgraph_put", { ...checkpoint(thread, "A-forged"), p_blobs: [] });
    assert.equal(r.status, 409, JSON.stringify(r.body));
    assert.equal(r.body.code, "23505");
    assert.match(r.body.message, /checkpoint 'c1' is already stored with other content/);
  });
  await t.step("the same put again (a retry after a lost answer): 200, nothing changes", async () => {
    assert.equal((await rpc(b.token, "langgraph_put", checkpoint(thread, "B's"))).status, 200);
  });
  await t.step("B reads what B wrote", async () => {
    assert.equal(await bReads(b, thread), before);
    assert.equal(valueOf(await tuple(b.token, thread)), "B's");
  });
});

Deno.test("3. no forged listing entries", async (t) => {
  const { a, b, d, thread } = await sharedThread();
  const dealKey = await dealTenant(d);
  const before = await bReads(b, thread);
  for (const key of [`${dealKey}/t1`, `${dealKey}/${thread}`, `${b.id}/t1`]) {
    await t.step(`POST /langgraph_checkpoints {"thread_key": "${key.replace(/[0-9a-f-]{36}/g, "<uuid>")}", "metadata": {"note": "pay invoice 77"}}: 403 (was 201)`, async () => {
      refused(await asUser(a.token, "POST", "langgraph_checkpoints", { thread_key: key, checkpoint_id: "f1", checkpoint: {}, metadata: { note: "pay invoice 77 to IBAN X" } }), key);
    });
  }
  await t.step("through the RPC, a '<deal tenant>/t1' id stays in A's own key space", async () => {
    assert.equal((await rpc(a.token, "langgraph_put", { ...checkpoint(`${dealKey}/t1`, "A's"), p_blobs: [], p_checkpoint: { v: 4, id: "c1", ts: "x", channel_versions: {} } })).status, 200);
    assert.equal((await tuple(b.token, "t1")).body, null);
  });
  await t.step("B's list shows no planted entry", async () => {
    assert.equal(await bReads(b, thread), before);
    assert.doesNotMatch(JSON.stringify((await listAll(b.token)).body), /pay invoice/);
  });
});

Deno.test("4. planted versions cannot block a member's next put", async (t) => {
  const { a, b, thread } = await sharedThread();
  await t.step("POST blobs at versions 2…20 (was 201): 403", async () => {
    const rows = Array.from({ length: 19 }, (_, i) => ({ thread_key: thread, checkpoint_ns: "", channel: "text", version: String(i + 2), type: "json", blob: hex('"planted"') }));
    refused(await asUser(a.token, "POST", "langgraph_checkpoint_blobs", rows), "POST blobs");
  });
  await t.step("a blob at a version its own checkpoint does not name, through the RPC: 400", async () => {
    const stray = checkpoint(thread, "stray", "c0");
    stray.p_blobs[0].version = "2";
    invalid(await rpc(a.token, "langgraph_put", stray), "stray blob");
  });
  await t.step("B's put of version 2: 200 (was 409)", async () => {
    assert.equal((await rpc(b.token, "langgraph_put", checkpoint(thread, "B's second", "c2", "2"))).status, 200);
    assert.equal(valueOf(await tuple(b.token, thread)), "B's second");
  });
});

Deno.test("5. a contractor cannot verify itself, and a lead converts once, ever", async (t) => {
  const c = await newUser();
  const lead = `landing-${crypto.randomUUID().slice(0, 12)}`;
  assert.equal((await rpc(c.token, "build_contractor_profile", { p_contractor_lead_id: lead, p_profile: { company_name: "Acme" } })).status, 200);
  const contractor = await rpc(c.token, "convert_contractor_lead", { p_contractor_lead_id: lead });
  assert.equal(contractor.status, 200);
  await t.step(`PATCH /contractors {"verified":true,"license_verified":true,"insurance_verified":true,"tier":0} (was 200): 403`, async () => {
    refused(await asUser(c.token, "PATCH", `contractors?id=eq.${contractor.body.id}`, { verified: true, license_verified: true, insurance_verified: true, tier: 0 }), "PATCH contractors");
  });
  await t.step("a conversion's account cannot set the tier: 403", async () => {
    const other = `${lead}-2`;
    await rpc(c.token, "build_contractor_profile", { p_contractor_lead_id: other, p_profile: { company_name: "Acme 2" } });
    refused(await rpc(c.token, "convert_contractor_lead", { p_contractor_lead_id: other, p_account: { tier: 0 } }), "tier");
  });
  await t.step("un-converting the lead and unlinking the contractor (was 200 twice, then a second contractor): 403", async () => {
    refused(await asUser(c.token, "PATCH", `contractor_leads?id=eq.${lead}`, { converted_to_contractor: false }), "PATCH lead");
    refused(await asUser(c.token, "PATCH", `contractors?id=eq.${contractor.body.id}`, { contractor_lead_id: null }), "PATCH contractor");
  });
  await t.step("even after the service role unlinks and un-flags it, the lead does not convert again (409), and stays converted", async () => {
    assert.equal((await asService("PATCH", `contractors?tenant_id=eq.${c.id}&id=eq.${contractor.body.id}`, { contractor_lead_id: null })).status, 200);
    const flag = await asService("PATCH", `contractor_leads?tenant_id=eq.${c.id}&id=eq.${lead}`, { converted_to_contractor: false, converted_at: null });
    assert.equal(flag.body[0].converted_to_contractor, true, "the database keeps the conversion");
    const again = await rpc(c.token, "convert_contractor_lead", { p_contractor_lead_id: lead });
    assert.equal(again.status, 409, JSON.stringify(again.body));
    const mine = await asUser(c.token, "GET", "contractors?select=id,verified,tier");
    assert.deepEqual(mine.body.map((x: { verified: boolean }) => x.verified), [false]);
  });
});

Deno.test("6. long keys are a 400 naming the field, never a 500 with storage internals", async (t) => {
  const a = await newUser();
  const long = "x".repeat(3000);
  await t.step("3,000 characters as thread id, checkpoint id, channel (put), task id (put_writes): 400 22023", async () => {
    invalid(await rpc(a.token, "langgraph_put", checkpoint(long, "m")), "thread id");
    invalid(await rpc(a.token, "langgraph_put", checkpoint("t", "m", long)), "checkpoint id");
    const channel = checkpoint("t", "m");
    channel.p_blobs[0].channel = long;
    (channel.p_checkpoint.channel_versions as Record<string, string>)[long] = "1.5";
    invalid(await rpc(a.token, "langgraph_put", channel), "channel");
    invalid(await rpc(a.token, "langgraph_put_writes", { p_thread_id: "t", p_checkpoint_ns: "", p_checkpoint_id: "c1", p_task_id: long, p_task_path: "", p_writes: [] }), "task id");
  });
  await t.step("a 1,000-character checkpoint id (inside the old index limit, past the documented 255): 400", async () => {
    invalid(await rpc(a.token, "langgraph_put", checkpoint("t", "m", "c".repeat(1000))), "1,000");
  });
  await t.step("the tables refuse them too: POST as a user 403; as the service role 400 23514 (was 500 54000)", async () => {
    refused(await asUser(a.token, "POST", "langgraph_checkpoints", { thread_key: long, checkpoint_id: "c", checkpoint: {} }), "user POST");
    for (const [table, row] of [
      ["langgraph_checkpoints", { thread_key: long, checkpoint_id: "c", checkpoint: {} }],
      ["langgraph_checkpoints", { thread_key: "t", checkpoint_id: "c".repeat(1000), checkpoint: {} }],
      ["langgraph_checkpoint_blobs", { thread_key: "t", channel: long, version: "1", type: "json" }],
      ["langgraph_checkpoint_writes", { thread_key: "t", checkpoint_id: "c", task_id: long, idx: 0, channel: "x", blob: "\\x00" }],
    ] as const) {
      invalid(await asService("POST", table, row), `service POST ${table}`, "23514");
    }
  });
  await t.step("search_agent_memories with a 3,000- or 1,000-character session id: 400, nothing logged (was 500 / logged)", async () => {
    const q = `[${Array.from({ length: 384 }, (_, i) => (i === 0 ? 1 : 0))}]`;
    for (const n of [3000, 1000]) {
      invalid(await rpc(a.token, "search_agent_memories", { p_query_embedding: q, p_session_id: "s".repeat(n) }), `session ${n}`);
    }
    refused(await asUser(a.token, "POST", "memory_access_log", { memory_id: crypto.randomUUID(), session_id: long }), "POST log");
  });
  const storeBatch = (ops: unknown[]) => rpc(a.token, "langgraph_store_batch", { p_ops: ops });
  const vector = Array.from({ length: 384 }, (_, i) => (i === 0 ? 1 : 0));
  await t.step("store: a 2,000-byte namespace with a 1,000-character field; a field of 1,024 CJK characters; 255 labels of 7 characters: 400 (was 500)", async () => {
    invalid(await storeBatch([{ op: "put", namespace: ["n".repeat(1000), "m".repeat(1000)], key: "k", value: { a: 1 }, vectors: [{ field: "f".repeat(1000), embedding: vector }] }]), "namespace + field");
    invalid(await storeBatch([{ op: "put", namespace: ["n"], key: "k", value: { a: 1 }, vectors: [{ field: "字".repeat(1024), embedding: vector }] }]), "CJK field");
    invalid(await storeBatch([{ op: "put", namespace: Array.from({ length: 255 }, (_, i) => `l${String(i).padStart(6, "0")}`), key: "k", value: { a: 1 } }]), "255 labels");
  });
  await t.step("store: the largest namespace and key the bound allows, with a 256-byte field, is stored", async () => {
    const ns = Array.from({ length: 32 }, (_, i) => `${i}`.padStart(2, "0"));
    const key = "k".repeat(2048 - 32 * (2 + 8));
    const r = await storeBatch([{ op: "put", namespace: ns, key, value: { a: 1 }, vectors: [{ field: "字".repeat(85) + "f", embedding: vector }] }]);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    invalid(await storeBatch([{ op: "put", namespace: ns, key: `${key}k`, value: { a: 1 } }]), "one byte more");
  });
});

Deno.test("7. store bounds: vectors, batches, values; a big batch is fast and holds no other writer up", async (t) => {
  const a = await newUser();
  const storeBatch = (token: string, ops: unknown[]) => asUser(token, "POST", "rpc/langgraph_store_batch", { p_ops: ops });
  await t.step("a 20,000-dimension query vector: 400 22023 naming the dimension (was 500 54000)", async () => {
    const r = await storeBatch(a.token, [{ op: "search", prefix: ["n"], vector: Array(20000).fill(0.5) }]);
    invalid(r, "query vector");
    assert.match(r.body.message, /20000 dimensions/);
  });
  await t.step("a batch of 10,001 operations: 400 (the bound is 10,000)", async () => {
    invalid(await storeBatch(a.token, Array.from({ length: 10001 }, (_, i) => ({ op: "get", namespace: ["n"], key: `${i}` }))), "10,001");
  });
  await t.step("a value of more than 1 MiB of JSON text: 400 (was stored)", async () => {
    invalid(await storeBatch(a.token, [{ op: "put", namespace: ["n"], key: "big", value: { text: "x".repeat(1048576) } }]), "big value");
  });
  await t.step("10,000 puts into one namespace in one batch, as a user (statement timeout 8 s; was 57014)", async () => {
    const t0 = performance.now();
    const r = await storeBatch(a.token, Array.from({ length: 10000 }, (_, i) => ({ op: "put", namespace: ["bulk"], key: `k${i}`, value: { i } })));
    const ms = performance.now() - t0;
    assert.equal(r.status, 200, JSON.stringify(r.body).slice(0, 300));
    console.log(`  10,000 puts in one namespace, one batch: ${Math.round(ms)} ms`);
    const page = await storeBatch(a.token, [{ op: "search", prefix: ["bulk"], limit: 3, offset: 9997 }]);
    assert.deepEqual(page.body[0].map((x: { key: string }) => x.key), ["k9997", "k9998", "k9999"], "in put order");
  });
  await t.step("the service tenant's visitors: a put into another namespace does not wait for a big batch", async () => {
    const svc = (ops: unknown[]) => asService("POST", "rpc/langgraph_store_batch", { p_ops: ops });
    const ns = `visitor-${crypto.randomUUID()}`;
    const t0 = performance.now();
    const big = svc(Array.from({ length: 10000 }, (_, i) => ({ op: "put", namespace: [ns, "big"], key: `k${i}`, value: { i } }))).then((r) => ({ r, at: performance.now() - t0 }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const small = await svc([{ op: "put", namespace: [ns, "small"], key: "k", value: { x: 1 } }]);
    const smallAt = performance.now() - t0;
    const done = await big;
    assert.equal(small.status, 200);
    assert.equal(done.r.status, 200);
    console.log(`  big batch ${Math.round(done.at)} ms; the other visitor's put answered at ${Math.round(smallAt)} ms`);
    assert.ok(smallAt < done.at, `the small put (${Math.round(smallAt)} ms) finished before the big batch (${Math.round(done.at)} ms)`);
  });
});

Deno.test("12. a member whose role only reads cannot put, delete or clean up the deal's threads", async (t) => {
  const { b, d, thread } = await sharedThread();
  const viewer = await newUser();
  const org = (await asService("GET", `deals?id=eq.${d}&select=organization_id`)).body[0].organization_id;
  assert.equal((await asService("POST", "organization_members", { organization_id: org, user_id: viewer.id, role: "viewer" })).status, 201);
  const before = await bReads(b, thread);
  await t.step("the viewer reads the thread", async () => {
    assert.equal(valueOf(await tuple(viewer.token, thread)), "B's");
  });
  await t.step("put, put_writes, delete_thread: 403 (was 200)", async () => {
    refused(await rpc(viewer.token, "langgraph_put", checkpoint(thread, "viewer's", "c9", "9")), "put");
    refused(await rpc(viewer.token, "langgraph_put_writes", { p_thread_id: thread, p_checkpoint_ns: "", p_checkpoint_id: "c1", p_task_id: "v", p_task_path: "", p_writes: [{ channel: "x", type: "json", blob: btoa("1") }] }), "put_writes");
    refused(await rpc(viewer.token, "langgraph_delete_thread", { p_thread_id: thread }), "delete_thread");
  });
  await t.step("cleanup_old_checkpoints as the viewer leaves the deal's threads", async () => {
    assert.equal((await rpc(viewer.token, "cleanup_old_checkpoints", { days_old: 1 })).status, 200);
    assert.equal(await bReads(b, thread), before);
  });
});

Deno.test("identity: banned and soft-deleted users' still-valid tokens are refused, by RPCs and tables", async (t) => {
  for (const [what, state] of [["banned (banned_until in the future)", { p_banned_until: new Date(Date.now() + 3600_000).toISOString() }], ["soft-deleted (deleted_at)", { p_deleted_at: new Date().toISOString() }]] as const) {
    await t.step(what, async () => {
      const u = await newUser();
      assert.equal((await rpc(u.token, "langgraph_put", checkpoint("t", "before"))).status, 200);
      assert.equal((await service().rpc("test_set_user_state", { p_id: u.id, ...state })).data, true);
      for (const [fn, args] of [["langgraph_get_tuple", { p_thread_id: "t" }], ["langgraph_list", {}], ["langgraph_put", checkpoint("t2", "after")], ["create_agent_memory", { p_agent_id: "x", p_content: "c", p_memory_type: "fact" }]] as const) {
        const r = await rpc(u.token, fn, args);
        assert.equal(r.status, 401, `${fn}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.code, "PT401");
      }
      const read = await asUser(u.token, "GET", "langgraph_checkpoints?select=thread_id");
      assert.equal(read.status, 401, JSON.stringify(read.body));
      const acting = await asService("POST", "rpc/langgraph_list", {}, { "x-agentmem-tenant": u.id });
      assert.equal(acting.status, 403, "the service role cannot act for them either");
      // Lifted: the same token works again.
      assert.equal((await service().rpc("test_set_user_state", { p_id: u.id })).data, true);
      assert.equal((await rpc(u.token, "langgraph_get_tuple", { p_thread_id: "t" })).status, 200);
    });
  }
});
