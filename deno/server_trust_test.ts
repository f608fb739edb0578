// Trust where a server sits in the middle: attacks from outside against the stack (gateway →
// Postgres with RLS), as a visitor who chooses the ids an edge function on the service role
// passes on, as a deal member who writes the tables directly, and as a deleted user whose
// token has not expired. Each numbered group is one point of the server-side trust issue;
// every case states what used to work and must not.
import assert from "node:assert/strict";
import { AgentmemError, createClient, MemoryTools } from "agentmem-supabase";
import { env, mintJwt, newUser, service } from "./support.ts";
import { asService, asUser, checkpoint, deal, dealTenant, tuple, valueOf } from "./attack.ts";

const isCode = (code: string) => (e: unknown) => e instanceof AgentmemError && e.code === code;

Deno.test("1. a visitor-chosen thread id never reaches another tenant's thread through the service role", async (t) => {
  const b = await newUser();
  assert.equal((await asUser(b.token, "POST", "rpc/langgraph_put", checkpoint("t1", "B's"))).status, 200);
  const stolen = `${b.id}/t1`;
  await t.step("rpc langgraph_get_tuple / list / put / delete_thread with '<B>/t1': 403, nothing read or changed", async () => {
    for (const [fn, args] of [
      ["langgraph_get_tuple", { p_thread_id: stolen }],
      ["langgraph_list", { p_thread_id: stolen }],
      ["langgraph_put", checkpoint(stolen, "service's")],
      ["langgraph_put_writes", { p_thread_id: stolen, p_checkpoint_ns: "", p_checkpoint_id: "c1", p_task_id: "t", p_task_path: "", p_writes: [{ channel: "x", type: "json", blob: btoa("1") }] }],
      ["langgraph_delete_thread", { p_thread_id: stolen }],
      ["langgraph_checkpoint_metrics", { p_thread_id: stolen }],
    ] as const) {
      const r = await asService("POST", `rpc/${fn}`, args);
      assert.equal(r.status, 403, `${fn}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, "42501");
    }
    assert.equal(valueOf(await tuple(b.token, "t1")), "B's");
  });
  await t.step("the package's client on the service role: the same request is forbidden; actingFor(B) reads B's 't1'", async () => {
    const server = createClient({ url: env.SUPABASE_URL, apiKey: env.SUPABASE_SERVICE_ROLE_KEY });
    await assert.rejects(server.rpc("langgraph_get_tuple", { p_thread_id: stolen }), isCode("forbidden"));
    const forB = await server.actingFor(b.id).rpc("langgraph_get_tuple", { p_thread_id: "t1" });
    assert.equal((forB.data as { metadata: { mark: string } }).metadata.mark, "B's");
  });
  await t.step("the service tenant's own thread ids are its own: 't1' is not B's", async () => {
    assert.equal((await asService("POST", "rpc/langgraph_put", checkpoint(`svc-${b.id}`, "service's"))).status, 200);
    assert.equal((await asService("POST", "rpc/langgraph_get_tuple", { p_thread_id: "t1" })).body?.metadata?.mark, undefined);
    assert.equal(valueOf(await asService("POST", "rpc/langgraph_get_tuple", { p_thread_id: `svc-${b.id}` })), "service's");
  });
  await t.step("a deal's thread: refused to the service role, to it acting for a non-member; open acting for a member", async () => {
    const member = await newUser(), outsider = await newUser();
    const d = await deal([member.id]);
    const thread = `cim-${d}-x`;
    assert.equal((await asUser(member.token, "POST", "rpc/langgraph_put", checkpoint(thread, "deal's"))).status, 200);
    for (const headers of [{}, { "x-agentmem-tenant": outsider.id }] as Record<string, string>[]) {
      for (const [fn, args] of [["langgraph_get_tuple", { p_thread_id: thread }], ["langgraph_put", checkpoint(thread, "planted", "c2")], ["langgraph_delete_thread", { p_thread_id: thread }]] as const) {
        const r = await asService("POST", `rpc/${fn}`, args, headers);
        assert.equal(r.status, 403, `${fn} ${JSON.stringify(headers)}: ${JSON.stringify(r.body)}`);
      }
    }
    assert.equal(valueOf(await asService("POST", "rpc/langgraph_get_tuple", { p_thread_id: thread }, { "x-agentmem-tenant": member.id })), "deal's");
    assert.equal(valueOf(await tuple(member.token, thread)), "deal's");
  });
});

Deno.test("2. the acting header is honoured only for the service role, and only for an existing user", async (t) => {
  const member = await newUser(), a = await newUser();
  const d = await deal([member.id]);
  const dealSpace = await dealTenant(d);
  assert.equal((await asUser(member.token, "POST", "rpc/langgraph_put", checkpoint(`cim-${d}-x`, "deal's"))).status, 200);
  const refusals: string[] = [];
  for (const [what, id] of [["the deal's tenant", dealSpace], ["a random UUID", crypto.randomUUID()], ["the nil UUID", "00000000-0000-0000-0000-000000000000"], ["not a UUID", "nobody"]]) {
    await t.step(`x-agentmem-tenant: ${what} → 403, the same answer, nothing listed or written`, async () => {
      const headers = { "x-agentmem-tenant": id };
      const list = await asService("POST", "rpc/langgraph_list", {}, headers);
      const create = await asService("POST", "rpc/create_agent_memory", { p_agent_id: "x", p_content: "planted", p_memory_type: "fact" }, headers);
      assert.equal(list.status, 403);
      assert.equal(create.status, 403);
      refusals.push(JSON.stringify([list, create]));
    });
  }
  await t.step("every refusal is the same answer, whether or not the id exists or names a key space", () => {
    assert.equal(new Set(refusals).size, 1, refusals.join("\n"));
  });
  await t.step("an existing user: the service role acts for them", async () => {
    const r = await asService("POST", "rpc/create_agent_memory", { p_agent_id: "x", p_content: "for A", p_memory_type: "fact" }, { "x-agentmem-tenant": a.id });
    assert.equal(r.status, 200);
    assert.equal(r.body.user_id, a.id);
  });
});

Deno.test("3. keys are immutable, and insert-once values never silently keep someone else's", async (t) => {
  const a = await newUser(), b = await newUser(), c = await newUser();
  const d = await deal([a.id, b.id]), d2 = await deal([a.id]);
  const shared = `cim-${d}-x`;
  assert.equal((await asUser(b.token, "POST", "rpc/langgraph_put", checkpoint(shared, "deal's"))).status, 200);
  await t.step("a member's PATCH of thread_key (to their own thread, to another deal): refused, the row stays", async () => {
    for (const target of [`${a.id}/stolen`, `cim-${d2}-moved`]) {
      for (const table of ["langgraph_checkpoints", "langgraph_checkpoint_blobs"]) {
        const r = await asUser(a.token, "PATCH", `${table}?thread_key=eq.${shared}`, { thread_key: target });
        assert.equal(r.status, 403, `${table} → ${target}: ${JSON.stringify(r.body)}`);
      }
    }
    assert.equal((await asUser(a.token, "PATCH", `langgraph_checkpoints?thread_key=eq.${shared}`, { tenant_id: a.id })).status, 403);
    assert.equal((await asUser(a.token, "PATCH", `langgraph_checkpoints?thread_key=eq.${shared}`, { thread_id: "other" })).status, 403);
    assert.equal(valueOf(await tuple(b.token, shared)), "deal's");
    assert.equal((await tuple(a.token, "stolen")).body, null);
  });
  await t.step("a row's own keys: PATCH of a memory's id or user_id, a workflow's session_id: refused", async () => {
    const m = await asUser(c.token, "POST", "rpc/create_agent_memory", { p_agent_id: "x", p_content: "mine", p_memory_type: "fact" });
    assert.equal((await asUser(c.token, "PATCH", `agent_memories?id=eq.${m.body.id}`, { id: crypto.randomUUID() })).status, 403);
    // (No signed-in user writes a table directly at all: the functions are the one door.)
    assert.equal((await asUser(c.token, "PATCH", `agent_memories?id=eq.${m.body.id}`, { content: "changed" })).status, 403);
    assert.equal((await asUser(c.token, "POST", "rpc/create_workflow_state", { p_state: { session_id: "s1" } })).status, 200);
    assert.equal((await asUser(c.token, "PATCH", "workflow_agent_states?session_id=eq.s1", { session_id: "s2" })).status, 403);
  });
  await t.step("a blob planted at a version another member will write: refused (403); that member's put succeeds", async () => {
    const planted = await asUser(a.token, "POST", "langgraph_checkpoint_blobs", {
      thread_key: shared, checkpoint_ns: "", channel: "text", version: "2", type: "json", blob: `\\x${[...new TextEncoder().encode('"A planted"')].map((x) => x.toString(16).padStart(2, "0")).join("")}`,
    });
    assert.equal(planted.status, 403, JSON.stringify(planted.body));
    // Nor through the RPC: a blob is stored only at the version its own checkpoint names.
    const stray = checkpoint(shared, "A's stray", "c0");
    stray.p_blobs[0].version = "2";
    const viaRpc = await asUser(a.token, "POST", "rpc/langgraph_put", stray);
    assert.equal(viaRpc.status, 400, JSON.stringify(viaRpc.body));
    assert.match(viaRpc.body.message, /must be at the version p_checkpoint\.channel_versions gives its channel/);
    const put = await asUser(b.token, "POST", "rpc/langgraph_put", checkpoint(shared, "B's second", "c2", "2"));
    assert.equal(put.status, 200, JSON.stringify(put.body));
    const head = await tuple(b.token, shared);
    assert.equal(head.body.checkpoint_id, "c2");
    assert.equal(valueOf(head), "B's second");
  });
  await t.step("the same put again (a retry after a lost answer) succeeds; the package's put reads back its own value", async () => {
    const own = `retry-${crypto.randomUUID()}`;
    assert.equal((await asUser(b.token, "POST", "rpc/langgraph_put", checkpoint(own, "v"))).status, 200);
    assert.equal((await asUser(b.token, "POST", "rpc/langgraph_put", checkpoint(own, "v"))).status, 200);
    assert.equal(valueOf(await tuple(b.token, own)), "v");
  });
  await t.step("a pending write already stored with other content: 409; the same write again: accepted", async () => {
    const own = `writes-${crypto.randomUUID()}`;
    assert.equal((await asUser(b.token, "POST", "rpc/langgraph_put", checkpoint(own, "v"))).status, 200);
    const write = (value: string) => asUser(b.token, "POST", "rpc/langgraph_put_writes", {
      p_thread_id: own, p_checkpoint_ns: "", p_checkpoint_id: "c1", p_task_id: "task", p_task_path: "", p_writes: [{ channel: "x", type: "json", blob: btoa(value) }],
    });
    assert.equal((await write('"first"')).status, 200);
    assert.equal((await write('"first"')).status, 200);
    const other = await write('"other"');
    assert.equal(other.status, 409, JSON.stringify(other.body));
    // A pending write reads back as [task_id, channel, type, text, blob, task_path].
    assert.equal(atob((await tuple(b.token, own)).body.writes[0][4]), '"first"');
  });
});

Deno.test("4. the database keeps the bookkeeping: a caller's user_id, created_at, updated_at are ignored, access counts unwritable", async (t) => {
  const a = await newUser(), b = await newUser();
  await t.step("create_workflow_state with state.user_id = B, created_at 0: stored as A's, now", async () => {
    const before = Date.now();
    const r = await asUser(a.token, "POST", "rpc/create_workflow_state", { p_state: { session_id: "w1", user_id: b.id, created_at: 0, updated_at: 1 } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.user_id, a.id);
    assert.ok(r.body.created_at >= before - 1000 && r.body.updated_at >= r.body.created_at);
    // A signed-in user writes no table directly; the service role's direct writes (a
    // project's own server code) keep the same bookkeeping.
    assert.equal((await asUser(a.token, "POST", "workflow_agent_states", { session_id: "w2", created_at: 5, updated_at: 5, stage: "debug" })).status, 403);
    const direct = await asService("POST", "workflow_agent_states", { tenant_id: a.id, session_id: "w2", user_id: b.id, created_at: 5, updated_at: 5, stage: "debug" });
    assert.equal(direct.status, 201, JSON.stringify(direct.body));
    assert.equal(direct.body[0].user_id, a.id);
    assert.ok(direct.body[0].created_at >= before - 1000);
    const patched = await asService("PATCH", `workflow_agent_states?tenant_id=eq.${a.id}&session_id=eq.w2`, { user_id: b.id, created_at: 1 });
    assert.equal(patched.body[0].user_id, a.id);
    assert.equal(patched.body[0].created_at, direct.body[0].created_at);
  });
  await t.step("checkpoints: created_at (which retention trusts) is the database's on insert and update", async () => {
    assert.equal((await asUser(a.token, "POST", "rpc/langgraph_put", checkpoint("old", "x"))).status, 200);
    assert.equal((await asUser(a.token, "PATCH", "langgraph_checkpoints?thread_id=eq.old", { created_at: "2000-01-01T00:00:00Z" })).status, 403);
    const r = await asService("PATCH", `langgraph_checkpoints?thread_key=eq.${a.id}/old`, { created_at: "2000-01-01T00:00:00Z" });
    assert.equal(r.status, 200);
    assert.ok(new Date(r.body[0].created_at).getFullYear() >= 2026, r.body[0].created_at);
    const planted = await asService("POST", "langgraph_checkpoints", { thread_key: `${a.id}/planted`, checkpoint_id: "c", checkpoint: {}, created_at: "2000-01-01T00:00:00Z" });
    assert.equal(planted.status, 201, JSON.stringify(planted.body));
    assert.ok(new Date(planted.body[0].created_at).getFullYear() >= 2026);
  });
  await t.step("memories: created_at and updated_at from a POST or PATCH are ignored; access counts are the database's alone", async () => {
    assert.equal((await asUser(a.token, "POST", "agent_memories", { agent_id: "x", content: "c", memory_type: "fact" })).status, 403);
    const r = await asService("POST", "agent_memories", { user_id: a.id, agent_id: "x", content: "c", memory_type: "fact", created_at: "2000-01-01T00:00:00Z", updated_at: "2000-01-01T00:00:00Z" });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const m = r.body[0];
    assert.ok(new Date(m.created_at).getFullYear() >= 2026);
    const p = await asService("PATCH", `agent_memories?user_id=eq.${a.id}&id=eq.${m.id}`, { created_at: "2000-01-01T00:00:00Z", updated_at: "2000-01-01T00:00:00Z" });
    assert.equal(p.body[0].created_at, m.created_at);
    assert.equal(p.body[0].updated_at, m.updated_at);
    // The counters are written by agentmem's functions only: a user cannot plant or change them.
    assert.equal((await asUser(a.token, "POST", "agent_memory_counters", { memory_id: m.id, access_count: 1000 })).status, 403);
    assert.equal((await asUser(a.token, "POST", "rpc/update_memory_access", { p_memory_ids: [m.id] })).body, 1);
    assert.equal((await asUser(a.token, "PATCH", `agent_memory_counters?memory_id=eq.${m.id}`, { access_count: 1000 })).status, 403);
    assert.equal((await asUser(a.token, "GET", `agent_memory_counters?memory_id=eq.${m.id}&select=access_count`)).body[0].access_count, 1);
  });
});

Deno.test("5. a deleted user's still-valid token is refused for every operation", async () => {
  const u = await newUser();
  const tools = new MemoryTools({ client: u.client, embed: (texts: string[]) => texts.map(() => Array.from({ length: 384 }, (_, i) => (i === 0 ? 1 : 0))), agentId: "x" });
  assert.equal((await tools.handle("create_memory", { content: "before", memory_type: "fact" })).success, true);
  assert.equal((await service().rpc("test_delete_user", { p_id: u.id })).data, true);
  for (const [fn, args] of [
    ["create_agent_memory", { p_agent_id: "x", p_content: "orphan", p_memory_type: "fact" }],
    ["langgraph_put", checkpoint("t", "orphan")],
    ["langgraph_list", {}],
    ["create_workflow_state", { p_state: { session_id: "s" } }],
  ] as const) {
    const r = await asUser(u.token, "POST", `rpc/${fn}`, args);
    assert.equal(r.status, 401, `${fn}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.code, "PT401");
  }
  assert.equal((await asUser(u.token, "GET", "agent_memories?select=id")).status, 401);
  const result = await tools.handle("create_memory", { content: "after", memory_type: "fact" });
  assert.equal(result.success, false);
  assert.equal((result as { error: { code: string } }).error.code, "unauthorized");
  const rows = await asService("GET", `agent_memories?user_id=eq.${u.id}&select=id`);
  assert.deepEqual(rows.body, []);
});

Deno.test("6. ids have a bounded length: 400 naming the field, never 500 with storage internals", async (t) => {
  const u = await newUser();
  for (const n of [256, 3000, 100_000]) {
    await t.step(`a ${n}-character thread id`, async () => {
      const id = "t".repeat(n);
      for (const [fn, args] of [["langgraph_put", checkpoint(id, "x")], ["langgraph_get_tuple", { p_thread_id: id }], ["langgraph_delete_thread", { p_thread_id: id }]] as const) {
        const r = await asUser(u.token, "POST", `rpc/${fn}`, args);
        assert.equal(r.status, 400, `${fn}: ${JSON.stringify(r.body).slice(0, 300)}`);
        assert.equal(r.body.code, "22023");
        assert.match(r.body.message, /thread_id is \d+ characters; the limit is 255/);
      }
    });
  }
  await t.step("255 characters of 4-byte UTF-8 in each of thread id, namespace, channel and version: 400, not an index error", async () => {
    const wide = "😀".repeat(255);
    const r = await asUser(u.token, "POST", "rpc/langgraph_put", { ...checkpoint(wide, "x", "c1", wide), p_checkpoint_ns: wide, p_blobs: [{ channel: wide, version: wide, type: "json", blob: btoa("1") }] });
    assert.equal(r.status, 400, JSON.stringify(r.body).slice(0, 300));
    assert.doesNotMatch(JSON.stringify(r.body), /index row|tuple|relation/);
  });
});

Deno.test("7. gateway: JSON-path keys parse as PostgREST parses them; statement_timeout per role", async (t) => {
  const u = await newUser();
  await t.step("select/filter/order on metadata->-- : 400 PGRST100 as PostgREST answers, never a Postgres syntax error", async () => {
    for (const path of ["agent_memories?select=metadata->--", "agent_memories?select=id&metadata->>--=eq.1", "agent_memories?select=id&order=metadata->--", "agent_memories?select=metadata->-"]) {
      const r = await asUser(u.token, "GET", path);
      assert.equal(r.status, 400, `${path}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, "PGRST100", `${path}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.message, /^"failed to parse .*" \(line 1, column \d+\)$/);
    }
    // Quoted, the key of dashes is a key like any other.
    const quoted = await asUser(u.token, "GET", 'agent_memories?select=id&metadata->>"--"=eq.1');
    assert.equal(quoted.status, 200, JSON.stringify(quoted.body));
  });
  await t.step("authenticated: a statement over 8 s is cancelled (57014); under it runs", async () => {
    assert.equal((await asUser(u.token, "POST", "rpc/test_sleep", { p_seconds: 0.1 })).status, 200);
    const r = await asUser(u.token, "POST", "rpc/test_sleep", { p_seconds: 9 });
    assert.equal(r.body.code, "57014", JSON.stringify(r.body));
  });
});

Deno.test("a user token still works after the checks (no regression for the normal path)", async () => {
  const u = await newUser();
  assert.equal((await asUser(u.token, "POST", "rpc/langgraph_put", checkpoint("ok", "mine"))).status, 200);
  assert.equal(valueOf(await tuple(u.token, "ok")), "mine");
  assert.equal((await mintJwt(u.id)).split(".").length, 3);
});
