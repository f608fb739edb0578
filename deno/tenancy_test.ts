// The cross-tenant matrix, over raw HTTP against the stack (gateway → Postgres with RLS),
// the way an attacker holding their own valid session would try it:
//
//   for every kind of object a client names (checkpoint thread, memory, unified
//   conversation, workflow session, research session, research draft, contractor lead,
//   contractor):
//     read / update / delete / RPC-with-A's-id by B  → nothing of A's seen or changed
//     oracle: B on A's id is answered exactly like B on an id nobody used
//     squatting: B takes an id first; A then uses it and gets an independent object
//   for every table and RPC: anon key only, expired, forged, wrong-secret, alg:none and
//   no-sub tokens are refused (401), and nothing is written.
//
// Every case is one Deno test step; the total is printed at the end.
import assert from "node:assert/strict";
import { uuid5 } from "agentmem-supabase";
import { env, mintJwt, service } from "./support.ts";
import { asUser } from "./attack.ts";

const run = crypto.randomUUID().slice(0, 8);
let cases = 0;

type Reply = { status: number; body: unknown };

/** A request as a client of the published API makes it: the anon key, and a user's JWT. */
const api = asUser;
const rpc = (token: string | null, fn: string, args: Record<string, unknown>) => api(token, "POST", `rpc/${fn}`, args);

/** A reply with every id, time and uuid replaced, so two replies about different ids compare. */
function shape(reply: Reply, ...ids: string[]): string {
  let text = JSON.stringify(reply);
  for (const id of ids) text = text.split(id).join("<id>");
  return text
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<uuid>")
    .replace(/\d{4}-\d\d-\d\dT[\d:.]+(Z|[+-]\d\d:\d\d)?/g, "<time>")
    .replace(/:1\d{12}\b/g, ":<ms>");
}

async function user() {
  const id = crypto.randomUUID();
  await service().rpc("test_create_user", { p_id: id });
  return { id, token: await mintJwt(id) };
}

const text = new TextEncoder();
/** The user a token names (its `sub`). */
const subOf = (token: string) => JSON.parse(atob(token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/"))).sub as string;
const b64url = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
async function sign(claims: Record<string, unknown>, secret = env.SUPABASE_JWT_SECRET, alg = "HS256") {
  const part = (o: unknown) => b64url(text.encode(JSON.stringify(o)));
  const body = `${part({ alg, typ: "JWT" })}.${part(claims)}`;
  if (alg === "none") return `${body}.`;
  const key = await crypto.subtle.importKey("raw", text.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return `${body}.${b64url(new Uint8Array(await crypto.subtle.sign("HMAC", key, text.encode(body))))}`;
}

// ----------------------------------------------------------------------------------------
// The kinds of objects a client names, each with the requests that create, read, change
// and delete one, as a client of the published API makes them.
type Kind = {
  name: string;
  create: (token: string, id: string, mark: string) => Promise<Reply>;
  reads: Record<string, (token: string, id: string) => Promise<Reply>>;
  updates: Record<string, (token: string, id: string) => Promise<Reply>>;
  deletes: Record<string, (token: string, id: string) => Promise<Reply>>;
  /** What the owner sees of the object (to prove it unchanged). */
  value: (token: string, id: string) => Promise<unknown>;
};

const vec = Array.from({ length: 384 }, (_, i) => (i % 7) / 7);
const storeBatch = (t: string | null, ops: unknown[]) => rpc(t, "langgraph_store_batch", { p_ops: ops });

const checkpoint = (id: string, mark: string) => ({
  p_thread_id: id, p_checkpoint_ns: "", p_checkpoint_id: "c1", p_parent_checkpoint_id: null, p_type: null,
  p_checkpoint: { v: 4, id: "c1", ts: "2026-01-01T00:00:00Z", channel_versions: { text: 1.5 }, versions_seen: {} },
  p_metadata: { mark }, p_blobs: [{ channel: "text", version: "1.5", type: "json", blob: btoa(JSON.stringify(mark)) }],
});

const kinds: Kind[] = [
  {
    name: "checkpoint thread",
    create: (t, id, mark) => rpc(t, "langgraph_put", checkpoint(id, mark)),
    reads: {
      "rpc langgraph_get_tuple": (t, id) => rpc(t, "langgraph_get_tuple", { p_thread_id: id }),
      "rpc langgraph_get_tuple by checkpoint id": (t, id) => rpc(t, "langgraph_get_tuple", { p_thread_id: id, p_checkpoint_id: "c1" }),
      "rpc langgraph_list": (t, id) => rpc(t, "langgraph_list", { p_thread_id: id }),
      "rpc langgraph_checkpoint_metrics": (t, id) => rpc(t, "langgraph_checkpoint_metrics", { p_thread_id: id }),
      "GET langgraph_checkpoints": (t, id) => api(t, "GET", `langgraph_checkpoints?thread_id=eq.${id}`),
      "GET langgraph_checkpoint_blobs": (t, id) => api(t, "GET", `langgraph_checkpoint_blobs?thread_id=eq.${id}`),
      "GET langgraph_checkpoint_writes": (t, id) => api(t, "GET", `langgraph_checkpoint_writes?thread_id=eq.${id}`),
      "rpc langgraph_list_threads": (t, id) => rpc(t, "langgraph_list_threads", { p_prefix: id }),
      "GET langgraph_threads": (t, id) => api(t, "GET", `langgraph_threads?thread_id=eq.${id}`),
    },
    updates: {
      "rpc langgraph_put_writes": (t, id) =>
        rpc(t, "langgraph_put_writes", { p_thread_id: id, p_checkpoint_ns: "", p_checkpoint_id: "c1", p_task_id: "t", p_task_path: "", p_writes: [{ channel: "__error__", type: "json", blob: btoa("1") }] }),
      "PATCH langgraph_checkpoints": (t, id) => api(t, "PATCH", `langgraph_checkpoints?thread_id=eq.${id}`, { metadata: { mark: "patched" } }),
    },
    deletes: {
      "rpc langgraph_delete_thread": (t, id) => rpc(t, "langgraph_delete_thread", { p_thread_id: id }),
      "DELETE langgraph_checkpoints": (t, id) => api(t, "DELETE", `langgraph_checkpoints?thread_id=eq.${id}`),
    },
    value: async (t, id) => {
      const r = await rpc(t, "langgraph_get_tuple", { p_thread_id: id });
      const tuple = r.body as { metadata: unknown; blobs: unknown; writes: unknown[] } | null;
      return tuple && { metadata: tuple.metadata, blobs: tuple.blobs, writes: tuple.writes.length };
    },
  },
  {
    name: "memory",
    // Memory ids are chosen by create_agent_memory and no signed-in user writes the table
    // (the functions are its one door), so the matrix plants a memory of a chosen id as the
    // service role would: in the token's user's key space.
    create: (t, id, mark) =>
      api(env.SUPABASE_SERVICE_ROLE_KEY, "POST", "agent_memories?columns=id,user_id,agent_id,content,memory_type,embedding", {
        id, user_id: subOf(t), agent_id: "agent", content: mark, memory_type: "fact", embedding: [1, ...Array(383).fill(0)],
      }),
    reads: {
      "GET agent_memories": (t, id) => api(t, "GET", `agent_memories?id=eq.${id}&select=id,content`),
      "rpc update_memory_access": (t, id) => rpc(t, "update_memory_access", { p_memory_ids: [id] }),
      "GET memory_references": (t, id) => api(t, "GET", `memory_references?memory_id=eq.${id}`),
      "GET memory_access_log": (t, id) => api(t, "GET", `memory_access_log?memory_id=eq.${id}`),
      "GET agent_memory_counters": (t, id) => api(t, "GET", `agent_memory_counters?memory_id=eq.${id}`),
      "GET agent_memory_vectors": (t, id) => api(t, "GET", `agent_memory_vectors?memory_id=eq.${id}&select=memory_id,agent_id`),
    },
    updates: {
      "rpc update_agent_memory": (t, id) => rpc(t, "update_agent_memory", { p_memory_id: id, p_metadata: { mark: "patched" } }),
      "PATCH agent_memories": (t, id) => api(t, "PATCH", `agent_memories?id=eq.${id}`, { content: "patched" }),
      "POST agent_memory_counters for it": (t, id) => api(t, "POST", "agent_memory_counters", { memory_id: id, access_count: 99 }),
      "PATCH agent_memory_counters": (t, id) => api(t, "PATCH", `agent_memory_counters?memory_id=eq.${id}`, { access_count: 99 }),
      "PATCH agent_memory_vectors": (t, id) => api(t, "PATCH", `agent_memory_vectors?memory_id=eq.${id}`, { agent_id: "moved" }),
      "POST agent_memory_vectors for it": (t, id) =>
        api(t, "POST", "agent_memory_vectors", { memory_id: id, agent_id: "planted", memory_type: "fact", embedding: [0, 1, ...Array(382).fill(0)] }),
      "POST memory_references to it": (t, id) =>
        api(t, "POST", "memory_references?columns=memory_id,reference_type,reference_id", { memory_id: id, reference_type: "rfp", reference_id: crypto.randomUUID() }),
    },
    deletes: {
      "rpc delete_agent_memory": (t, id) => rpc(t, "delete_agent_memory", { p_memory_id: id }),
      "DELETE agent_memories": (t, id) => api(t, "DELETE", `agent_memories?id=eq.${id}`),
    },
    value: async (t, id) => [
      (await api(t, "GET", `agent_memories?id=eq.${id}&select=content,metadata`)).body,
      (await api(t, "GET", `agent_memory_counters?memory_id=eq.${id}&select=access_count`)).body,
      (await api(t, "GET", `agent_memory_vectors?memory_id=eq.${id}&select=agent_id`)).body,
    ],
  },
  {
    name: "unified conversation",
    create: (t, lead, mark) =>
      rpc(t, "save_unified_state", { p_conversation_id: uuid5(lead, "00000000-0000-0000-0000-000000000001"), p_contractor_lead_id: lead, p_fields: { company_name: mark } }),
    reads: {
      "rpc restore_unified_state": (t, lead) => rpc(t, "restore_unified_state", { p_conversation_id: uuid5(lead, "00000000-0000-0000-0000-000000000001") }),
      "rpc restore_unified_checkpoint": (t, lead) => rpc(t, "restore_unified_checkpoint", { p_conversation_id: uuid5(lead, "00000000-0000-0000-0000-000000000001") }),
      "GET unified_conversations": (t, lead) => api(t, "GET", `unified_conversations?contractor_lead_id=eq.${lead}`),
      "GET unified_conversation_memory": (t, lead) => api(t, "GET", `unified_conversation_memory?conversation_id=eq.${uuid5(lead, "00000000-0000-0000-0000-000000000001")}`),
    },
    updates: {
      "rpc create_unified_checkpoint": (t, lead) =>
        rpc(t, "create_unified_checkpoint", { p_conversation_id: uuid5(lead, "00000000-0000-0000-0000-000000000001"), p_contractor_lead_id: lead, p_checkpoint: { current_mode: "x" } }),
      "PATCH unified_conversations": (t, lead) => api(t, "PATCH", `unified_conversations?contractor_lead_id=eq.${lead}`, { title: "patched" }),
    },
    deletes: {
      "rpc delete_unified_state": (t, lead) => rpc(t, "delete_unified_state", { p_conversation_id: uuid5(lead, "00000000-0000-0000-0000-000000000001"), p_contractor_lead_id: lead }),
      "DELETE unified_conversation_memory": (t, lead) => api(t, "DELETE", `unified_conversation_memory?conversation_id=eq.${uuid5(lead, "00000000-0000-0000-0000-000000000001")}`),
    },
    value: async (t, lead) => (await rpc(t, "restore_unified_state", { p_conversation_id: uuid5(lead, "00000000-0000-0000-0000-000000000001") })).body,
  },
  {
    name: "workflow session",
    create: (t, id, mark) => rpc(t, "create_workflow_state", { p_state: { session_id: id, stage: "debug", intent_summary: mark } }),
    reads: { "GET workflow_agent_states": (t, id) => api(t, "GET", `workflow_agent_states?session_id=eq.${id}&select=session_id,intent_summary`) },
    updates: {
      "rpc update_workflow_state": (t, id) => rpc(t, "update_workflow_state", { p_session_id: id, p_patch: { intent_summary: "patched" } }),
      "PATCH workflow_agent_states": (t, id) => api(t, "PATCH", `workflow_agent_states?session_id=eq.${id}`, { intent_summary: "patched" }),
    },
    deletes: { "DELETE workflow_agent_states": (t, id) => api(t, "DELETE", `workflow_agent_states?session_id=eq.${id}`) },
    value: async (t, id) => (await api(t, "GET", `workflow_agent_states?session_id=eq.${id}&select=intent_summary,stage`)).body,
  },
  {
    name: "research session",
    create: (t, id, mark) => rpc(t, "save_research_session", { p_session: { session_id: id, query: mark, current_phase: "1_browsing" } }),
    reads: {
      "rpc research_workflow_summary": (t, id) => rpc(t, "research_workflow_summary", { p_session_id: id }),
      "GET research_sessions": (t, id) => api(t, "GET", `research_sessions?session_id=eq.${id}&select=session_id,query`),
      "GET research_drafts": (t, id) => api(t, "GET", `research_drafts?session_id=eq.${id}&select=id`),
    },
    updates: {
      "rpc save_research_draft into it": (t, id) => rpc(t, "save_research_draft", { p_id: crypto.randomUUID(), p_session_id: id, p_phase: "1_browsing", p_content: "x" }),
      "PATCH research_sessions": (t, id) => api(t, "PATCH", `research_sessions?session_id=eq.${id}`, { query: "patched" }),
    },
    deletes: { "DELETE research_sessions": (t, id) => api(t, "DELETE", `research_sessions?session_id=eq.${id}`) },
    value: async (t, id) => (await api(t, "GET", `research_sessions?session_id=eq.${id}&select=query,current_phase`)).body,
  },
  {
    name: "research draft",
    // The draft id is the client's (it makes a resent save idempotent).
    create: async (t, id, mark) => {
      await rpc(t, "save_research_session", { p_session: { session_id: `s-${id}`, query: "q", current_phase: "1_browsing" } });
      return rpc(t, "save_research_draft", { p_id: id, p_session_id: `s-${id}`, p_phase: "1_browsing", p_content: mark });
    },
    reads: { "GET research_drafts": (t, id) => api(t, "GET", `research_drafts?id=eq.${id}&select=id,content`) },
    updates: { "PATCH research_drafts": (t, id) => api(t, "PATCH", `research_drafts?id=eq.${id}`, { content: "patched" }) },
    deletes: { "DELETE research_drafts": (t, id) => api(t, "DELETE", `research_drafts?id=eq.${id}`) },
    value: async (t, id) => (await api(t, "GET", `research_drafts?id=eq.${id}&select=content,version`)).body,
  },
  {
    name: "store item",
    // LangGraph store items (AgentmemStore): the namespace and key are the client's.
    create: (t, id, mark) =>
      storeBatch(t, [{ op: "put", namespace: ["users", id], key: id, value: { mark }, vectors: [{ field: "$", embedding: vec }], text: `${mark} pineapples`, config: "english" }]),
    reads: {
      "rpc langgraph_store_batch get": (t, id) => storeBatch(t, [{ op: "get", namespace: ["users", id], key: id, refresh: true }]),
      "rpc langgraph_store_batch search": (t, id) => storeBatch(t, [{ op: "search", prefix: ["users", id], vector: vec, limit: 10, offset: 0 }]),
      "rpc langgraph_store_batch list": (t, id) => storeBatch(t, [{ op: "list", conditions: [{ type: "suffix", path: [id] }] }]),
      "rpc langgraph_store_batch text search": (t, id) =>
        storeBatch(t, [{ op: "search", prefix: ["users", id], mode: "text", query: "pineapples", config: "english", limit: 10, offset: 0 }]),
      "rpc langgraph_store_batch hybrid search": (t, id) =>
        storeBatch(t, [{ op: "search", prefix: ["users", id], mode: "hybrid", query: "pineapples", vector: vec, threshold: -1, limit: 10, offset: 0 }]),
      "rpc langgraph_store_batch stats": (t) => storeBatch(t, [{ op: "stats" }]),
      "GET langgraph_store_items": (t, id) => api(t, "GET", `langgraph_store_items?key=eq.${id}&select=key,value`),
      "GET langgraph_store_vectors": (t, id) => api(t, "GET", `langgraph_store_vectors?key=eq.${id}&select=key,field`),
    },
    updates: {
      "rpc langgraph_store_batch put": (t, id) => storeBatch(t, [{ op: "put", namespace: ["users", id], key: id, value: { mark: "patched" } }]),
      "PATCH langgraph_store_items": (t, id) => api(t, "PATCH", `langgraph_store_items?key=eq.${id}`, { value: { mark: "patched" } }),
      "PATCH langgraph_store_vectors": (t, id) => api(t, "PATCH", `langgraph_store_vectors?key=eq.${id}`, { embedding: `[${Array(384).fill(0.5)}]` }),
      "POST langgraph_store_vectors for it": (t, id) =>
        api(t, "POST", "langgraph_store_vectors", { namespace: ["users", id], key: id, field: "planted", embedding: `[${vec}]` }),
    },
    deletes: {
      "rpc langgraph_store_batch delete": (t, id) => storeBatch(t, [{ op: "put", namespace: ["users", id], key: id, value: null }]),
      "rpc langgraph_store_sweep": (t) => rpc(t, "langgraph_store_sweep", {}),
      "DELETE langgraph_store_items": (t, id) => api(t, "DELETE", `langgraph_store_items?key=eq.${id}`),
    },
    value: async (t, id) => (await storeBatch(t, [{ op: "search", prefix: ["users", id], vector: vec, limit: 10, offset: 0 }])).body,
  },
  {
    name: "contractor lead",
    create: (t, id, mark) => rpc(t, "build_contractor_profile", { p_contractor_lead_id: id, p_profile: { company_name: mark, data_sources: ["matrix"] } }),
    reads: { "GET contractor_leads": (t, id) => api(t, "GET", `contractor_leads?id=eq.${id}&select=id,company_name`) },
    updates: {
      "rpc build_contractor_profile (enrich)": (t, id) => rpc(t, "build_contractor_profile", { p_contractor_lead_id: id, p_profile: { scores: { q: 1 } } }),
      "rpc save_unified_state with the lead": (t, id) =>
        rpc(t, "save_unified_state", { p_conversation_id: uuid5(id, "00000000-0000-0000-0000-000000000001"), p_contractor_lead_id: id, p_fields: {}, p_lead: { contact_name: "patched" } }),
      "rpc convert_contractor_lead": (t, id) => rpc(t, "convert_contractor_lead", { p_contractor_lead_id: id }),
      "PATCH contractor_leads": (t, id) => api(t, "PATCH", `contractor_leads?id=eq.${id}`, { company_name: "patched" }),
      "POST contractors linked to it": (t, id) =>
        api(t, "POST", "contractors?columns=contractor_lead_id,company_name", { contractor_lead_id: id, company_name: "squatter" }),
    },
    deletes: { "DELETE contractor_leads": (t, id) => api(t, "DELETE", `contractor_leads?id=eq.${id}`) },
    value: async (t, id) =>
      (await api(t, "GET", `contractor_leads?id=eq.${id}&select=company_name,contact_name,scores,converted_to_contractor`)).body,
  },
  {
    name: "contractor",
    // Keyed by its lead: the lead id is what a client names (the contractor's uuid is the server's).
    create: async (t, id, mark) => {
      await rpc(t, "build_contractor_profile", { p_contractor_lead_id: id, p_profile: { company_name: mark } });
      return rpc(t, "convert_contractor_lead", { p_contractor_lead_id: id });
    },
    reads: {
      "rpc convert_contractor_lead (answers with the contractor)": (t, id) => rpc(t, "convert_contractor_lead", { p_contractor_lead_id: id, p_account: { availability_status: "busy" } }),
      "GET contractors": (t, id) => api(t, "GET", `contractors?contractor_lead_id=eq.${id}&select=id,company_name`),
    },
    updates: { "PATCH contractors": (t, id) => api(t, "PATCH", `contractors?contractor_lead_id=eq.${id}`, { tier: 1, verified: true }) },
    deletes: { "DELETE contractors": (t, id) => api(t, "DELETE", `contractors?contractor_lead_id=eq.${id}`) },
    value: async (t, id) => (await api(t, "GET", `contractors?contractor_lead_id=eq.${id}&select=company_name,tier,verified`)).body,
  },
];

const freshId = (kind: string) => kind === "memory" || kind === "research draft" ? crypto.randomUUID() : `${kind.replace(/ /g, "-")}-${run}-${crypto.randomUUID()}`;

for (const kind of kinds) {
  Deno.test(`tenancy matrix: ${kind.name}`, async (t) => {
    const [a, b] = [await user(), await user()];
    /** A fresh object of A's, and what A sees of it. */
    const ofA = async () => {
      const id = freshId(kind.name);
      const created = await kind.create(a.token, id, "A's");
      assert.ok(created.status < 300, `A creates: ${JSON.stringify(created)}`);
      const value = await kind.value(a.token, id);
      assert.notDeepEqual(value, null);
      assert.notDeepEqual(value, []);
      return { id, value };
    };

    for (const [what, fn] of Object.entries({ ...kind.reads, ...kind.updates, ...kind.deletes })) {
      await t.step(`B ${what} on A's id is answered as on an unused id, and changes nothing`, async () => {
        const mine = await ofA();
        const unused = freshId(kind.name);
        const onA = await fn(b.token, mine.id);
        const onUnused = await fn(b.token, unused);
        assert.equal(shape(onA, mine.id), shape(onUnused, unused), `${what}: A's id vs unused id`);
        assert.deepEqual(await kind.value(a.token, mine.id), mine.value, `${what}: A's object unchanged`);
        cases += 1;
      });
    }

    await t.step("squatting: B takes an id first; A then gets an independent object under it", async () => {
      const id = freshId(kind.name);
      const byB = await kind.create(b.token, id, "B's");
      assert.ok(byB.status < 300, JSON.stringify(byB));
      const byA = await kind.create(a.token, id, "A's too");
      assert.ok(byA.status < 300, `A is not blocked by B: ${JSON.stringify(byA)}`);
      assert.match(JSON.stringify(await kind.value(a.token, id)), /A's too/);
      assert.match(JSON.stringify(await kind.value(b.token, id)), /B's/);
      assert.doesNotMatch(JSON.stringify(await kind.value(b.token, id)), /A's/);
      cases += 1;
    });

    await t.step("oracle: B creating under A's id is answered as under an unused id", async () => {
      const mine = await ofA();
      const unused = freshId(kind.name);
      const onA = await kind.create(b.token, mine.id, "B's");
      const onUnused = await kind.create(b.token, unused, "B's");
      assert.equal(shape(onA, mine.id), shape(onUnused, unused));
      assert.deepEqual(await kind.value(a.token, mine.id), mine.value);
      cases += 1;
    });

    // The service role bypasses row-level security on tables (it is the admin), but
    // agentmem's functions keep it in its own key space unless it says for whom it acts.
    for (const [what, fn] of Object.entries(kind.reads).filter(([w]) => w.startsWith("rpc "))) {
      await t.step(`service role ${what}: its own key space; A's when acting for A`, async () => {
        const mine = await ofA();
        const svc = env.SUPABASE_SERVICE_ROLE_KEY;
        const own = await fn(svc, mine.id);
        assert.doesNotMatch(JSON.stringify(own), /A's/, JSON.stringify(own));
        const origFetch = globalThis.fetch;
        globalThis.fetch = (input, init) => origFetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), "x-agentmem-tenant": a.id } });
        try {
          const acting = await fn(svc, mine.id);
          assert.equal(acting.status, 200);
          assert.equal(shape(acting, mine.id), shape(await fn(a.token, mine.id), mine.id), `${what} acting for A sees what A sees`);
        } finally {
          globalThis.fetch = origFetch;
        }
        cases += 1;
      });
    }
  });
}

// ----------------------------------------------------------------------------------------
// Every endpoint refuses callers without a valid identity.
const tables = ["langgraph_checkpoints", "langgraph_checkpoint_blobs", "langgraph_checkpoint_writes", "agent_memories", "memory_references",
  "memory_access_log", "unified_conversations", "unified_conversation_memory", "workflow_agent_states", "research_sessions", "research_drafts",
  "contractor_leads", "contractors", "langgraph_store_items", "langgraph_store_vectors", "langgraph_threads"];
const endpoints: [string, string, unknown][] = [
  ...tables
    .flatMap((table): [string, string, unknown][] => [["GET", `${table}?limit=1`, undefined], ["POST", table, {}]]),
  ...[
    ["langgraph_put", checkpoint(`x-${run}`, "m")], ["langgraph_put_writes", { p_thread_id: "x", p_checkpoint_ns: "", p_checkpoint_id: "c", p_task_id: "t", p_task_path: "", p_writes: [] }],
    ["langgraph_get_tuple", { p_thread_id: "x" }], ["langgraph_list", {}], ["langgraph_list_threads", {}], ["langgraph_delete_thread", { p_thread_id: "x" }],
    ["cleanup_old_checkpoints", { days_old: 30 }], ["langgraph_checkpoint_metrics", {}], ["agent_memory_dimensions", {}],
    ["create_agent_memory", { p_agent_id: "a", p_content: "c", p_memory_type: "fact" }], ["search_agent_memories", { p_query_embedding: `[${Array(384).fill(0.1)}]` }],
    ["update_memory_access", { p_memory_ids: [] }], ["get_memory_context", {}], ["cleanup_expired_memories", {}], ["get_memory_statistics", {}],
    ["set_agent_memory_dimensions", { p_dimensions: 384 }], ["update_agent_memory", { p_memory_id: crypto.randomUUID() }], ["delete_agent_memory", { p_memory_id: crypto.randomUUID() }],
    ["save_unified_state", { p_conversation_id: crypto.randomUUID(), p_contractor_lead_id: "l", p_fields: {} }], ["restore_unified_state", { p_conversation_id: crypto.randomUUID() }],
    ["create_unified_checkpoint", { p_conversation_id: crypto.randomUUID(), p_contractor_lead_id: "l", p_checkpoint: {} }], ["restore_unified_checkpoint", { p_conversation_id: crypto.randomUUID() }],
    ["delete_unified_state", { p_conversation_id: crypto.randomUUID(), p_contractor_lead_id: "l" }], ["create_workflow_state", { p_state: { session_id: "s" } }],
    ["update_workflow_state", { p_session_id: "s", p_patch: { stage: "debug" } }], ["save_research_session", { p_session: { session_id: "s", query: "q", current_phase: "p" } }],
    ["save_research_draft", { p_id: crypto.randomUUID(), p_session_id: "s", p_phase: "1_browsing", p_content: "c" }], ["research_workflow_summary", { p_session_id: "s" }],
    ["save_unified_state", { p_conversation_id: crypto.randomUUID(), p_contractor_lead_id: "l", p_fields: {}, p_lead: { company_name: "c" } }],
    ["build_contractor_profile", { p_contractor_lead_id: "l", p_profile: { company_name: "c" } }], ["convert_contractor_lead", { p_contractor_lead_id: "l" }],
    ["langgraph_store_batch", { p_ops: [{ op: "put", namespace: ["n"], key: "k", value: { a: 1 } }] }], ["langgraph_store_sweep", {}],
    ["langgraph_store_dimensions", {}], ["set_langgraph_store_dimensions", { p_dimensions: 384 }], ["set_embedding_dimensions", { p_dimensions: 384 }],
    ["delete_workflow_state", { p_session_id: "s" }], ["delete_research_session", { p_session_id: "s" }],
  ].map(([fn, args]): [string, string, unknown] => ["POST", `rpc/${fn}`, args]),
];

Deno.test("tenancy matrix: callers without a valid identity are refused by every table and RPC", async (t) => {
  // A token that names no user is refused by a table's policy, whose agentmem.tenant() runs
  // for the first row the policy tests: an empty table answers it 200 [] (nothing to refuse,
  // nothing shown). So every table first holds a row, of a user of this test's own, checked:
  // the refusals below are tested where there is something to refuse, whatever ran before
  // (alone on a fresh stack, memory_references was empty and answered 200).
  const seed = await user();
  for (const kind of kinds) {
    const created = await kind.create(seed.token, freshId(kind.name), "seed");
    assert.ok(created.status < 300, `seed ${kind.name}: ${JSON.stringify(created)}`);
  }
  const memory = await rpc(seed.token, "create_agent_memory", {
    p_agent_id: "seed", p_content: "seed", p_memory_type: "fact", p_embedding: `[${vec}]`,
    p_reference: { reference_type: "rfp", reference_id: crypto.randomUUID() },
  });
  assert.equal(memory.status, 200, `seed memory: ${JSON.stringify(memory)}`);
  const seeded = [
    await rpc(seed.token, "update_memory_access", { p_memory_ids: [(memory.body as { id: string }).id] }),
    await rpc(seed.token, "langgraph_put", checkpoint(`seed-${run}`, "seed")),
    await rpc(seed.token, "langgraph_put_writes", { p_thread_id: `seed-${run}`, p_checkpoint_ns: "", p_checkpoint_id: "c1", p_task_id: "t", p_task_path: "",
      p_writes: [{ channel: "text", type: "json", text: "1" }] }),
    await rpc(seed.token, "build_contractor_profile", { p_contractor_lead_id: `seed-${run}`, p_profile: { company_name: "seed" } }),
    await rpc(seed.token, "convert_contractor_lead", { p_contractor_lead_id: `seed-${run}` }),
  ];
  seeded.forEach((r, i) => assert.ok(r.status < 300, `seed call ${i}: ${JSON.stringify(r)}`));
  const empty = [];
  for (const table of tables) {
    const r = await api(env.SUPABASE_SERVICE_ROLE_KEY, "GET", `${table}?limit=1`);
    if (r.status !== 200 || (r.body as unknown[]).length === 0) empty.push(`${table} (${r.status})`);
  }
  assert.deepEqual(empty, [], "every table holds a row before the matrix");
  const id = crypto.randomUUID();
  const now = Math.floor(Date.now() / 1000);
  const claims = { sub: id, role: "authenticated", aud: "authenticated", iat: now, exp: now + 3600 };
  const valid = await sign(claims);
  const [head, , sig] = valid.split(".");
  const tokens: Record<string, { token: string | null; status: number; code?: string }> = {
    "anon key only": { token: null, status: 401, code: "42501" },
    "expired": { token: await sign({ ...claims, exp: now - 3600, iat: now - 7200 }), status: 401, code: "PGRST303" },
    "forged (payload changed, signature kept)": {
      token: `${head}.${b64url(text.encode(JSON.stringify({ ...claims, sub: crypto.randomUUID() })))}.${sig}`, status: 401, code: "PGRST301",
    },
    "wrong secret": { token: await sign(claims, "another-secret-with-at-least-32-characters!!"), status: 401, code: "PGRST301" },
    "alg none": { token: await sign(claims, undefined, "none"), status: 401, code: "PGRST301" },
    "authenticated without sub": { token: await sign({ ...claims, sub: undefined }), status: 401, code: "PT401" },
    "authenticated with a non-UUID sub": { token: await sign({ ...claims, sub: "admin" }), status: 401, code: "PT401" },
    "authenticated with the nil UUID as sub": { token: await sign({ ...claims, sub: "00000000-0000-0000-0000-000000000000" }), status: 401, code: "PT401" },
  };
  const before = await rowCounts();
  for (const [what, expected] of Object.entries(tokens)) {
    for (const [method, path, body] of endpoints) {
      await t.step(`${what}: ${method} ${path.split("?")[0]}`, async () => {
        const r = await api(expected.token, method, path, body);
        // A service-only function is refused to every authenticated token by its grant
        // (403), before it could even look at the identity.
        // So is a write to a table (the functions are the tables' one door): no signed-in
        // user has the privilege, whoever the token names.
        const { status, code } = (["rpc/set_agent_memory_dimensions", "rpc/set_langgraph_store_dimensions", "rpc/set_embedding_dimensions"].includes(path) || method === "POST" && !path.startsWith("rpc/")) &&
            expected.code === "PT401"
          ? { status: 403, code: "42501" }
          : expected;
        // The anon role reads an RLS table as empty (PostgREST's behaviour) only if it had
        // SELECT; agentmem grants anon nothing, so it is 401 throughout.
        assert.equal(r.status, status, `${what} ${method} ${path}: ${JSON.stringify(r.body)}`);
        if (code) assert.equal((r.body as { code?: string })?.code, code, `${what} ${method} ${path}: ${JSON.stringify(r.body)}`);
        cases += 1;
      });
    }
  }
  assert.deepEqual(await rowCounts(), before, "nothing was written");
});

async function rowCounts() {
  const out: Record<string, number | null> = {};
  for (const table of ["langgraph_checkpoints", "agent_memories", "unified_conversations", "workflow_agent_states", "research_sessions", "research_drafts", "contractor_leads", "contractors", "langgraph_store_items"]) {
    out[table] = (await service().select(table, { columns: "tenant_id", limit: 1, count: "exact" }).catch(() => service().select(table, { columns: "user_id", limit: 1, count: "exact" }))).count;
  }
  return out;
}

Deno.test("tenancy matrix: case count", () => {
  console.log(`tenancy matrix: ${cases} cases`);
  assert.ok(cases > 150, `${cases} cases`);
});
