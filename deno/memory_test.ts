// Memory tools end to end: the built package in Deno, the real stack (pgvector, RLS,
// the memory SQL functions), and the deterministic offline embedder.
import assert from "node:assert/strict";
import { AgentmemError, createClient, MemoryTools } from "agentmem-supabase";
import type { Memory, MemoryToolResult } from "agentmem-supabase";
import { hashEmbed, hashEmbedder } from "../supabase/functions/_shared/hash_embedder.ts";
import { countRequests, env, newUser, service } from "./support.ts";

type User = Awaited<ReturnType<typeof newUser>>;

/** Tools for `user`, counting embedding calls. */
function toolsFor(user: User, extra: Record<string, unknown> = {}) {
  const calls: string[][] = [];
  const embed = (texts: string[]) => {
    calls.push(texts);
    return hashEmbedder()(texts);
  };
  const tools = new MemoryTools({ client: user.client, embed, agentId: "procurement-agent", sessionId: "s-1", ...extra });
  return { tools, calls };
}

/** The successful result; each test knows which of its fields its tool fills. */
type Success = { memory: Memory; memories: Memory[]; count: number; context: string; deleted: string };
function ok(r: MemoryToolResult): Success {
  assert.equal(r.success, true, JSON.stringify(r));
  return r as unknown as Success;
}

function failed(r: MemoryToolResult, code: string, field?: string) {
  assert.equal(r.success, false, `expected a failure, got ${JSON.stringify(r)}`);
  if (r.success) return;
  assert.equal(r.error.code, code, JSON.stringify(r.error));
  if (field) assert.equal(r.error.field, field, JSON.stringify(r.error));
  assert.ok(r.error.message.length > 10);
}

const MEMORIES = [
  { content: "User prefers US-based vendors for all procurement projects", memory_type: "preference" },
  { content: "User requires LED lighting fixtures with at least 90% energy efficiency", memory_type: "preference" },
  { content: "The company has 40 employees and its headquarters are in Denver", memory_type: "fact" },
  { content: "Decided to run the warehouse RFP as a two-stage tender", memory_type: "decision" },
  { content: "Current bid review covers roofing contractors", memory_type: "context" },
  { content: "User said thanks and goodbye", memory_type: "conversation" },
] as const;

Deno.test("definitions: five tools in Anthropic and OpenAI shapes", () => {
  const anthropic = MemoryTools.definitions("anthropic");
  const openai = MemoryTools.definitions("openai");
  assert.deepEqual(anthropic.map((t) => t.name), MemoryTools.toolNames);
  assert.deepEqual(openai.map((t) => t.function.name), MemoryTools.toolNames);
  assert.deepEqual(anthropic[0].input_schema, openai[0].function.parameters);
  assert.match(anthropic[0].description, /preference 0\.9/);
  assert.throws(() => MemoryTools.definitions("gemini" as never), AgentmemError);
  assert.throws(() => MemoryTools.definitions("openai", { strict: "yes" } as never), AgentmemError);
  const responses = MemoryTools.definitions("openai-responses", { strict: true });
  assert.deepEqual(responses.map((t) => [t.type, t.name, t.strict]), MemoryTools.toolNames.map((n) => ["function", n, true]));
  assert.equal(MemoryTools.definitions("anthropic", { strict: true })[0].strict, true);
});

Deno.test("handle() takes what each SDK hands over: Anthropic's input object, OpenAI's arguments string, strict-mode nulls", async () => {
  const a = await newUser();
  const { tools } = toolsFor(a, { matchThreshold: -1 });
  // OpenAI (strict): a JSON string with every field, null for those not given.
  const created = ok(await tools.handle("create_memory", JSON.stringify({
    content: "User prefers quotes in EUR", memory_type: "preference", importance_score: null, reference_type: null, reference_id: null, expires_at: null,
  })));
  assert.equal(created.memory.importance_score, 0.9, "null importance: the type's default");
  const found = ok(await tools.handle("search_memories", JSON.stringify({ query: "currency for quotes", memory_types: null, limit: null })));
  assert.ok(found.memories.some((m) => m.id === created.memory.id));
  const updated = ok(await tools.handle("update_memory", JSON.stringify({
    memory_id: created.memory.id, content: null, memory_type: null, importance_score: 0.95, expires_at: null,
  })));
  assert.equal(updated.memory.importance_score, 0.95);
  // Anthropic: an object.
  ok(await tools.handle("get_memory_context", { query: "quotes" }));
  failed(await tools.handle("create_memory", "{not json"), "invalid_input", "input");
});

Deno.test("constructor refuses what cannot work", async () => {
  const a = await newUser();
  const invalid = (options: unknown, field: string) =>
    assert.throws(() => new MemoryTools(options as never), (e: unknown) => e instanceof AgentmemError && e.code === "invalid_input" && e.field === field);
  const embed = hashEmbedder();
  invalid(undefined, "options");
  invalid({ client: a.client, agentId: "x" }, "embed");
  invalid({ client: a.client, embed, agentId: " " }, "agentId");
  invalid({ client: a.client, embed, agentId: "x", dimensions: 0 }, "dimensions");
  invalid({ client: a.client, embed, agentId: "x", matchThreshold: 2 }, "matchThreshold");
  invalid({ client: a.client, embed, agentId: "x", agent: "typo" }, "agent");
  // A misspelled option whose value is a function is refused too (JSON would drop it), and
  // the message lists every option, the facade's own included.
  for (const key of ["embedder", "onError"]) invalid({ client: a.client, embed, agentId: "x", [key]: () => [] }, key);
  assert.throws(() => new MemoryTools({ client: a.client, embed, agentId: "x", embedder: embed } as never),
    (e: unknown) => e instanceof AgentmemError && e.message === "embedder is not a known option; expected one of: client, embed, agentId, sessionId, userId, dimensions, matchThreshold, embedTimeoutMs");
  invalid({ client: a.client, embed, agentId: "x", userId: crypto.randomUUID() }, "userId");
  // No identity (the anon key alone) is what the server would answer with 401.
  assert.throws(
    () => new MemoryTools({ client: createClient({ url: env.SUPABASE_URL, apiKey: env.SUPABASE_ANON_KEY }), embed, agentId: "x" }),
    (e: unknown) => e instanceof AgentmemError && e.code === "unauthorized" && e.field === "client",
  );
  invalid({ client: service(), embed, agentId: "x", userId: a.id }, "userId");
  // The service role has its own key space, or a user's when it acts for them.
  assert.equal(new MemoryTools({ client: service(), embed, agentId: "x" }).userId, "00000000-0000-0000-0000-000000000000");
  assert.equal(new MemoryTools({ client: service().actingFor(a.id), embed, agentId: "x", userId: a.id }).userId, a.id);
  const tools = new MemoryTools({ client: a.client, embed, agentId: "x", userId: a.id.toUpperCase() });
  assert.equal(tools.userId, a.id);
  // Client options work as well as a client.
  assert.equal(new MemoryTools({ client: { url: env.SUPABASE_URL, apiKey: env.SUPABASE_ANON_KEY, accessToken: a.token }, embed, agentId: "x" }).userId, a.id);
});

Deno.test("server code with the service role writes a user's memories only when acting for them", async () => {
  const a = await newUser();
  const embed = hashEmbedder();
  const agentId = `svc-${crypto.randomUUID()}`;
  const forA = new MemoryTools({ client: service().actingFor(a.id), embed, agentId, matchThreshold: -1 });
  const own = new MemoryTools({ client: service(), embed, agentId, matchThreshold: -1 });
  const mine = new MemoryTools({ client: a.client, embed, agentId, matchThreshold: -1 });
  ok(await forA.handle("create_memory", { content: "A prefers email over phone", memory_type: "preference" }));
  ok(await own.handle("create_memory", { content: "the service's own note about email", memory_type: "fact" }));
  const seen = ok(await mine.handle("search_memories", { query: "email" })) as { memories: { content: string }[] };
  assert.deepEqual(seen.memories.map((m) => m.content), ["A prefers email over phone"]);
  const seenByService = ok(await own.handle("search_memories", { query: "email" })) as { memories: { content: string }[] };
  assert.deepEqual(seenByService.memories.map((m) => m.content), ["the service's own note about email"]);
});

Deno.test("create, then semantic search ranks near memories above far ones, one request per call", async () => {
  const a = await newUser();
  const { tools, calls } = toolsFor(a);
  for (const m of MEMORIES) {
    const requests = await countRequests(() => tools.handle("create_memory", m).then(ok));
    assert.deepEqual(requests, ["POST /rpc/create_agent_memory"], "one request per create");
  }
  const created = await a.client.select<Memory[]>("agent_memories", { columns: "content,memory_type,importance_score,agent_id,session_id", order: "created_at" });
  assert.deepEqual(created.data.map((m) => [m.memory_type, m.importance_score]), [
    ["preference", 0.9], ["preference", 0.9], ["fact", 0.6], ["decision", 0.7], ["context", 0.5], ["conversation", 0.3],
  ], "default importance by type");

  calls.length = 0;
  let result: MemoryToolResult | undefined;
  const requests = await countRequests(async () => {
    result = await tools.handle("search_memories", { query: "which vendors does the user prefer for procurement?" });
  });
  assert.deepEqual(requests, ["POST /rpc/search_agent_memories"], "search and its access logging: one request");
  assert.deepEqual(calls, [["which vendors does the user prefer for procurement?"]], "one embedding call");
  const found = ok(result!) as { count: number; memories: Memory[] };
  assert.ok(found.count >= 1);
  assert.equal(found.memories[0].content, MEMORIES[0].content, "the vendor preference ranks first");
  const sims = found.memories.map((m) => m.similarity!);
  assert.deepEqual(sims, [...sims].sort((x, y) => y - x), "ordered by similarity");
  assert.ok(sims.every((s) => s >= 0.5), "threshold applied");
  assert.ok(!found.memories.some((m) => m.content.includes("goodbye")), "far memory excluded");

  const lighting = ok(await tools.handle("search_memories", { query: "LED lighting efficiency", memory_types: ["preference"] }));
  assert.equal(lighting.memories[0].content, MEMORIES[1].content);
  assert.ok(lighting.memories.every((m) => m.memory_type === "preference"), "type filter");
  const none = ok(await tools.handle("search_memories", { query: "LED lighting efficiency", memory_types: ["fact"] }));
  assert.equal(none.memories.length, 0);

  // Search recorded the access, in that same request.
  const vendor = await a.client.select<{ id: string }>("agent_memories", {
    columns: "id", filters: [["content", "eq", MEMORIES[0].content]], single: true,
  });
  const counted = await a.client.select<{ access_count: number; last_accessed_at: string }>("agent_memory_counters", {
    columns: "access_count,last_accessed_at", filters: [["memory_id", "eq", vendor.data.id]], single: true,
  });
  assert.equal(counted.data.access_count, 1);
  assert.ok(counted.data.last_accessed_at);
  const log = await a.client.select("memory_access_log", { count: "exact", head: true, filters: [["access_type", "eq", "search"]] });
  assert.ok(log.count! >= 2);
});

Deno.test("every validation error is a typed failure the model can read, and nothing is written", async () => {
  const a = await newUser();
  const { tools, calls } = toolsFor(a);
  const uuid = crypto.randomUUID();
  failed(await tools.handle("create_memory", { content: "x", memory_type: "opinion" }), "invalid_input", "memory_type");
  failed(await tools.handle("create_memory", { content: "x", memory_type: "fact", importance_score: 1.5 }), "invalid_input", "importance_score");
  failed(await tools.handle("create_memory", { content: "x", memory_type: "fact", importance_score: NaN }), "invalid_input", "importance_score");
  failed(await tools.handle("create_memory", { content: "x", memory_type: "fact", importance_score: "high" }), "invalid_input", "importance_score");
  failed(await tools.handle("create_memory", { content: "x", memory_type: "fact", metadata: { source: "chat" } }), "invalid_input", "metadata");
  failed(await tools.handle("create_memory", { content: "   ", memory_type: "fact" }), "invalid_input", "content");
  failed(await tools.handle("create_memory", { content: "x".repeat(10_001), memory_type: "fact" }), "invalid_input", "content");
  failed(await tools.handle("create_memory", { memory_type: "fact" }), "invalid_input", "content");
  failed(await tools.handle("create_memory", { content: "x", memory_type: "fact", importance: 0.5 }), "invalid_input", "importance");
  failed(await tools.handle("create_memory", { content: "x", memory_type: "fact", reference_type: "rfp", reference_id: "not-a-uuid" }), "invalid_input", "reference_id");
  failed(await tools.handle("create_memory", { content: "x", memory_type: "fact", reference_type: "rfp" }), "invalid_input", "reference_id");
  failed(await tools.handle("create_memory", { content: "x", memory_type: "fact", expires_at: "2001-01-01" }), "invalid_input", "expires_at");
  failed(await tools.handle("create_memory", { content: "x", memory_type: "fact", expires_at: "next week" }), "invalid_input", "expires_at");
  failed(await tools.handle("search_memories", { query: "" }), "invalid_input", "query");
  failed(await tools.handle("search_memories", { query: "x", limit: 0 }), "invalid_input", "limit");
  failed(await tools.handle("search_memories", { query: "x", memory_types: ["facts"] }), "invalid_input", "memory_types[0]");
  failed(await tools.handle("update_memory", { memory_id: "123", content: "x" }), "invalid_input", "memory_id");
  failed(await tools.handle("update_memory", { memory_id: uuid }), "invalid_input", "input");
  failed(await tools.handle("delete_memory", { memory_id: "' or 1=1 --" }), "invalid_input", "memory_id");
  failed(await tools.handle("get_memory_context", { max_chars: -5 }), "invalid_input", "max_chars");
  failed(await tools.handle("forget_everything", {}), "invalid_input", "name");
  failed(await tools.handle("create_memory", "remember this"), "invalid_input", "input");
  assert.equal(calls.length, 0, "no embedding was computed for invalid input");
  const rows = await a.client.select("agent_memories", { count: "exact", head: true });
  assert.equal(rows.count, 0, "nothing written");
  // The typed methods throw the same errors.
  await assert.rejects(tools.createMemory({ content: "x", memory_type: "opinion" as never }), (e: unknown) => e instanceof AgentmemError && e.code === "invalid_input");
});

Deno.test("embedding callback failures: wrong size, NaN, throwing, rejecting, wrong shape", async () => {
  const a = await newUser();
  const make = (embed: (t: string[]) => unknown) => new MemoryTools({ client: a.client, embed: embed as never, agentId: "x" });
  const input = { content: "User prefers email", memory_type: "preference" };
  failed(await make((t) => t.map(() => new Float32Array(383).fill(0.1))).handle("create_memory", input), "dimension_mismatch");
  failed(await make((t) => t.map(() => Array.from({ length: 384 }, (_, i) => (i === 7 ? NaN : 0.1)))).handle("create_memory", input), "embedding_failed");
  failed(await make((t) => t.map(() => Array.from({ length: 384 }, (_, i) => (i === 7 ? Infinity : 0.1)))).handle("create_memory", input), "embedding_failed");
  failed(await make(() => { throw new Error("quota exceeded"); }).handle("create_memory", input), "embedding_failed");
  failed(await make(() => Promise.reject(new Error("503 from provider"))).handle("create_memory", input), "embedding_failed");
  failed(await make(() => [[0.1, 0.2]].slice(1)).handle("create_memory", input), "embedding_failed");
  failed(await make(() => "nope").handle("create_memory", input), "embedding_failed");
  failed(await make((t) => t.map(() => new Array(384).fill("0.1"))).handle("create_memory", input), "embedding_failed");
  failed(await make((t) => t.map(() => new Float32Array(384))).handle("create_memory", input), "embedding_failed");
  const e = await make(() => { throw new Error("quota exceeded"); }).createMemory(input as never).catch((e) => e);
  assert.ok(e instanceof AgentmemError && e.code === "embedding_failed" && e.cause instanceof Error && /quota exceeded/.test(e.message));
  // Sync callbacks returning plain arrays work too.
  ok(await make((t) => t.map((x) => Array.from(hashEmbed(x)))).handle("create_memory", input));
  // A tools instance configured for 384 while the column is 384 but the callback makes 1536:
  const big = new MemoryTools({ client: a.client, embed: (t: string[]) => t.map(() => new Float32Array(1536).fill(0.01)), agentId: "x", dimensions: 1536 });
  failed(await big.handle("create_memory", input), "dimension_mismatch");
  assert.equal((await a.client.select("agent_memories", { count: "exact", head: true })).count, 1, "only the good one was written");
});

Deno.test("update re-embeds only changed content; delete; expired memories are invisible", async () => {
  const a = await newUser();
  const { tools, calls } = toolsFor(a);
  const m = ok(await tools.handle("create_memory", { content: "User prefers morning meetings", memory_type: "preference" })).memory;
  calls.length = 0;

  ok(await tools.handle("update_memory", { memory_id: m.id, importance_score: 0.95 }));
  assert.equal(calls.length, 0, "no content: no embedding");
  ok(await tools.handle("update_memory", { memory_id: m.id, content: "User prefers morning meetings" }));
  assert.equal(calls.length, 0, "same content: no embedding");
  const requests = await countRequests(() => tools.handle("update_memory", { memory_id: m.id, content: "User prefers afternoon meetings after 2pm" }).then(ok));
  assert.deepEqual(calls, [["User prefers afternoon meetings after 2pm"]], "changed content: embedded once");
  assert.deepEqual(requests, ["POST /rpc/update_agent_memory"], "one request");
  const hit = ok(await tools.handle("search_memories", { query: "afternoon meetings after 2pm" }));
  assert.equal(hit.memories[0]?.id, m.id, "found by its new content");
  assert.equal(hit.memories[0].importance_score, 0.95);

  // Another instance changed the content meanwhile: this one's knowledge is stale, the
  // database refuses the unembedded update (nothing written), and the call re-embeds.
  const other = toolsFor(a).tools;
  await other.updateMemory({ memory_id: m.id, content: "User prefers evening meetings" });
  calls.length = 0;
  const r = ok(await tools.handle("update_memory", { memory_id: m.id, content: "User prefers afternoon meetings after 2pm" }));
  assert.equal(r.memory.content, "User prefers afternoon meetings after 2pm");
  assert.equal(calls.length, 1, "stale knowledge detected, content embedded");

  ok(await tools.handle("update_memory", { memory_id: m.id, expires_at: new Date(Date.now() + 86_400_000).toISOString() }));
  ok(await tools.handle("update_memory", { memory_id: m.id, expires_at: "never" }));
  const row = await a.client.select<{ expires_at: string | null }>("agent_memories", { columns: "expires_at", filters: [["id", "eq", m.id]], single: true });
  assert.equal(row.data.expires_at, null, "expiry cleared");

  // Expire it (as the service role would, time passing): gone from search, context, update.
  await service().update("agent_memories", { expires_at: new Date(Date.now() - 1000).toISOString() }, { filters: [["id", "eq", m.id]] });
  const after = ok(await tools.handle("search_memories", { query: "afternoon meetings after 2pm" }));
  assert.equal(after.memories.length, 0, "expired memory not found");
  assert.equal(ok(await tools.handle("get_memory_context", {})).memories.length, 0);
  failed(await tools.handle("update_memory", { memory_id: m.id, importance_score: 0.1 }), "not_found");

  const d = ok(await tools.handle("create_memory", { content: "Temporary note", memory_type: "context" })).memory;
  assert.deepEqual(await countRequests(() => tools.handle("delete_memory", { memory_id: d.id }).then(ok)), ["POST /rpc/delete_agent_memory"]);
  failed(await tools.handle("delete_memory", { memory_id: d.id }), "not_found");
});

Deno.test("a memory id in any form the tools accept is the same memory to what the facade knows", async () => {
  const a = await newUser();
  const { tools, calls } = toolsFor(a);
  const m = ok(await tools.handle("create_memory", { content: "User prefers tea", memory_type: "preference" })).memory;
  calls.length = 0;
  for (const id of [m.id.replaceAll("-", ""), ` ${m.id.toUpperCase()} `, `urn:uuid:${m.id}`]) {
    ok(await tools.handle("update_memory", { memory_id: id, content: "User prefers tea" }));
    assert.equal(calls.length, 0, `${id}: the content is known, nothing to embed`);
  }
  ok(await tools.handle("delete_memory", { memory_id: m.id.replaceAll("-", "").toUpperCase() }));
});

Deno.test("create with a reference is one atomic call", async () => {
  const a = await newUser();
  const { tools } = toolsFor(a);
  const rfp = crypto.randomUUID();
  const m = ok(await tools.handle("create_memory", { content: "Budget for the HVAC RFP is 50k", memory_type: "fact", reference_type: "rfp", reference_id: rfp })).memory;
  const refs = await a.client.select("memory_references", { columns: "memory_id,reference_type,reference_id" });
  assert.deepEqual(refs.data, [{ memory_id: m.id, reference_type: "rfp", reference_id: rfp }]);
});

Deno.test("get_memory_context: most important first, within the character budget", async () => {
  const a = await newUser();
  const { tools } = toolsFor(a);
  for (const m of MEMORIES) await tools.createMemory(m as never);
  const all = ok(await tools.handle("get_memory_context", {}));
  assert.equal(all.memories.length, MEMORIES.length);
  const importance = all.memories.map((m) => m.importance_score);
  assert.deepEqual(importance, [...importance].sort((x, y) => y - x), "by importance");
  assert.match(all.context, /^- \[preference\] /);
  const budget = MEMORIES[0].content.length + MEMORIES[1].content.length;
  const small = ok(await tools.handle("get_memory_context", { max_chars: budget }));
  assert.equal(small.memories.length, 2);
  assert.ok(small.memories.reduce((n, m) => n + m.content.length, 0) <= budget);
  const focused = ok(await tools.handle("get_memory_context", { query: "LED lighting efficiency", max_memories: 1 }));
  assert.equal(focused.memories[0].content, MEMORIES[1].content, "relevance breaks the importance tie");
  const important = ok(await tools.handle("get_memory_context", { min_importance: 0.65 }));
  assert.ok(important.memories.every((m) => m.importance_score >= 0.65));
});

Deno.test("RLS: user B never sees or changes user A's memories, even through the RPCs", async () => {
  const a = await newUser();
  const b = await newUser();
  const ta = toolsFor(a).tools;
  const tb = toolsFor(b).tools;
  const m = ok(await ta.handle("create_memory", { content: "A's secret vendor list: Acme, Globex", memory_type: "fact" })).memory;
  assert.equal(ok(await tb.handle("search_memories", { query: "secret vendor list Acme Globex" })).memories.length, 0);
  assert.equal(ok(await tb.handle("get_memory_context", {})).memories.length, 0);
  failed(await tb.handle("update_memory", { memory_id: m.id, content: "pwned" }), "not_found");
  failed(await tb.handle("delete_memory", { memory_id: m.id }), "not_found");
  assert.deepEqual((await b.client.select("agent_memories")).data, []);
  const direct = await b.client.rpc("search_agent_memories", { p_query_embedding: Array.from(hashEmbed("secret vendor list")), p_match_threshold: -1 });
  assert.deepEqual(direct.data, [], "the raw RPC is filtered by RLS too");
  const still = ok(await ta.handle("search_memories", { query: "secret vendor list Acme Globex" }));
  assert.equal(still.memories[0].content, "A's secret vendor list: Acme, Globex", "A's memory intact");
});

Deno.test("parallel tool calls never deadlock: 64 concurrent searches, contexts and creates over the same memories, every access counted once", async () => {
  const a = await newUser();
  const agentId = `parallel-${crypto.randomUUID()}`;
  // Threshold -1: every search returns its top 10 of the same 24 memories, each query
  // ranking them differently, so concurrent calls bump overlapping rows in different orders.
  const tools = new MemoryTools({ client: a.client, embed: hashEmbedder(), agentId, matchThreshold: -1 });
  const topics = ["vendors", "lighting", "roofing", "tender", "budget", "schedule", "safety", "permits"];
  for (let i = 0; i < 24; i += 1) {
    ok(await tools.handle("create_memory", { content: `${topics[i % 8]} note ${i} about ${topics[(i * 3) % 8]}`, memory_type: "fact" }));
  }
  const calls = Array.from({ length: 64 }, (_, i) => {
    if (i % 8 === 7) return tools.handle("create_memory", { content: `new ${topics[i % 8]} note ${i}`, memory_type: "context" });
    if (i % 8 === 6) return tools.handle("get_memory_context", { query: topics[(i + 3) % 8] });
    return tools.handle("search_memories", { query: `${topics[i % 8]} ${topics[(i * 5) % 8]}`, limit: 10 });
  });
  const results = await Promise.all(calls);
  const failures = results.filter((r) => !r.success);
  assert.deepEqual(failures, [], "no call failed (no 40P01 deadlock)");

  // Every returned memory was counted exactly once per call that returned it.
  const returned = new Map<string, number>();
  for (const r of results) {
    const s = r as unknown as Success;
    for (const m of s.memories ?? []) returned.set(m.id, (returned.get(m.id) ?? 0) + 1);
  }
  const { data } = await a.client.select<{ id: string }[]>("agent_memories", { columns: "id", filters: [["agent_id", "eq", agentId]] });
  const { data: counters } = await a.client.select<{ memory_id: string; access_count: number }[]>("agent_memory_counters", {
    columns: "memory_id,access_count", filters: [["memory_id", "in", data.map((r) => r.id)]],
  });
  const counts = new Map(counters.map((c) => [c.memory_id, c.access_count]));
  for (const row of data) assert.equal(counts.get(row.id) ?? 0, returned.get(row.id) ?? 0, `access_count of ${row.id}`);
  const logged = await a.client.select("memory_access_log", { columns: "id", filters: [["agent_id", "eq", agentId]], count: "exact", limit: 1 });
  assert.equal(logged.count, [...returned.values()].reduce((x, y) => x + y, 0), "one log row per access");
});

Deno.test("handle() tells a server problem from a model mistake: missing SQL, auth and network keep their code, status and pgrstCode", async () => {
  const a = await newUser();
  const embed = hashEmbedder();
  // The database's create_agent_memory has another signature, as after an older version
  // of the SQL: PostgREST's real answer, reached by renaming one argument on the way out.
  const olderSql: typeof fetch = (input, init) =>
    fetch(input, { ...init, body: String(init?.body).replace('"p_content"', '"p_text"') });
  const client = createClient({ url: env.SUPABASE_URL, apiKey: env.SUPABASE_ANON_KEY, accessToken: a.token, fetch: olderSql });
  const tools = new MemoryTools({ client, embed, agentId: "a" });
  const r = await tools.handle("create_memory", { content: "User prefers EUR", memory_type: "preference" });
  assert.equal(r.success, false);
  if (r.success) return;
  assert.equal(r.error.code, "schema_not_installed");
  assert.equal(r.error.status, 404);
  assert.equal(r.error.pgrstCode, "PGRST202");
  assert.match(r.error.message, /supabase\/migrations\/20261122000200_agent_memories\.sql/);
  // The model's own mistakes carry neither.
  const mine = new MemoryTools({ client: a.client, embed, agentId: "a" });
  const missing = await mine.handle("delete_memory", { memory_id: crypto.randomUUID() });
  assert.equal(missing.success, false);
  if (!missing.success) assert.deepEqual([missing.error.code, missing.error.status, missing.error.pgrstCode], ["not_found", undefined, undefined]);
  // A host that does not answer is named.
  const down = new MemoryTools({ client: createClient({ url: "http://127.0.0.1:9", apiKey: env.SUPABASE_ANON_KEY, accessToken: a.token, retries: 0 }), embed, agentId: "a" });
  const net = await down.handle("search_memories", { query: "x" });
  assert.equal(net.success, false);
  if (!net.success) assert.deepEqual([net.error.code, net.error.message.startsWith("could not reach http://127.0.0.1:9 (")], ["network", true]);
  // An expired token: the server's 401, kept as such.
  const { mintJwt } = await import("../tests/support/jwt.js");
  const expired = await mintJwt(env.SUPABASE_JWT_SECRET, a.id, { expiresIn: -60 });
  const late = new MemoryTools({ client: a.client.withAccessToken(expired), embed, agentId: "a" });
  const auth = await late.handle("search_memories", { query: "x" });
  assert.equal(auth.success, false);
  if (!auth.success) assert.deepEqual([auth.error.code, auth.error.status], ["unauthorized", 401]);
});
