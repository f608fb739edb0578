// Reliability of the boundary between callers and the module, with the built package
// against the real stack: a caller's throwing getters and Proxies, a misbehaving fetch
// or embedding callback, traps, and waits that must end.
import assert from "node:assert/strict";
import { AgentmemError, createClient, MemoryTools, UnifiedStateManager, uuid5, uuid5Batch, WorkflowStateStore } from "agentmem-supabase";
import { hashEmbedder } from "../supabase/functions/_shared/hash_embedder.ts";
import { countRequests, env, newUser, service } from "./support.ts";
import { exhaustMemory, memoryOf, TOO_BIG } from "./trap.ts";

const PYTHON_ORG_DNS = "886313e1-3b8a-5372-9b90-0c9aee199e5d"; // uuid.uuid5(uuid.NAMESPACE_DNS, "python.org")

function isError(e: unknown, code: string, field?: string): e is AgentmemError {
  assert.ok(e instanceof AgentmemError, `not an AgentmemError: ${e}`);
  assert.equal(e.code, code, e.message);
  if (field !== undefined) assert.equal(e.field, field, e.message);
  return true;
}
const rejects = (p: Promise<unknown>, code: string, field?: string) =>
  assert.rejects(p, (e: unknown) => isError(e, code, field));
const throws = (fn: () => unknown, code: string, field?: string) => assert.throws(fn, (e: unknown) => isError(e, code, field));

function throwingArray() {
  const a = ["a"];
  Object.defineProperty(a, 0, { get() { throw new Error("getter says no"); } });
  return a;
}
function revoked() {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}
const hostile = new Proxy({}, { get() { throw new Error("trap says no"); }, ownKeys() { throw new Error("trap says no"); } });

async function faults(rules: unknown[] | null) {
  const r = await fetch(`${env.SUPABASE_URL}/__gateway/faults`, {
    method: rules ? "PUT" : "DELETE",
    headers: { apikey: env.SUPABASE_SECRET_KEY },
    body: rules ? JSON.stringify(rules) : undefined,
  });
  assert.ok(r.ok, `faults: ${r.status}`);
  await r.body?.cancel();
}

Deno.test("throwing getters, traps and revoked Proxies are invalid_input, and the module stays sound", async () => {
  const a = throwingArray();
  // Before, the module trapped for good after about 1,560 of these.
  for (let i = 0; i < 5000; i++) {
    throws(() => uuid5Batch(a, "dns"), "invalid_input", "names[0]");
  }
  const e = (() => { try { uuid5Batch(a, "dns"); } catch (e) { return e as AgentmemError; } })()!;
  assert.equal((e.cause as Error).message, "getter says no", "the caller's exception is the cause");
  throws(() => uuid5Batch(revoked() as never, "dns"), "invalid_input", "names");
  throws(() => uuid5(revoked() as never, "dns"), "invalid_input", "name");
  assert.equal(uuid5("python.org", "dns"), PYTHON_ORG_DNS);

  const user = await newUser();
  const tools = new MemoryTools({ client: user.client, embed: hashEmbedder(), agentId: "a" });
  const sent = await countRequests(async () => {
    await rejects(user.client.select("agent_memories", revoked() as never), "invalid_input", "options");
    await rejects(user.client.select("agent_memories", hostile as never), "invalid_input", "options");
    await rejects(user.client.insert("agent_memories", [hostile]), "invalid_input", "rows");
    await rejects(user.client.rpc("f", { a: throwingArray() }), "invalid_input", "args");
    const handled = await tools.handle("create_memory", revoked());
    assert.deepEqual([handled.success, !handled.success && handled.error.code], [false, "invalid_input"]);
    await rejects(tools.createMemory(hostile as never), "invalid_input");
    throws(() => createClient(revoked() as never), "invalid_input", "options");
    throws(() => new MemoryTools(hostile as never), "invalid_input", "options");
    throws(() => new UnifiedStateManager({ client: revoked() as never }), "invalid_input");
  });
  assert.deepEqual(sent, [], "nothing was sent");
  const { data } = await user.client.select("agent_memories", { columns: "id" });
  assert.deepEqual(data, [], "nothing was written");
});

Deno.test("a trap costs one call on every entry point, and calls in flight reject instead of hanging", async () => {
  const glue = await import("../pkg/agentmem.js");
  const user = await newUser();
  const quiet = console.error;
  let logged: unknown[][] = [];
  console.error = (...args: unknown[]) => logged.push(args);
  // A real trap (deno/trap.ts): the module's memory is exhausted, so copying a large
  // argument in aborts. The caller sees `internal`, the glue logs it once, and the next
  // call runs on a fresh instance, whose memory is small again.
  const fresh = () => assert.ok(memoryOf(glue).buffer.byteLength < 1 << 30, "the call after a trap ran on a fresh instance");
  const trap = () => {
    fresh();
    logged = [];
    exhaustMemory(glue);
    throws(() => uuid5(TOO_BIG, "dns"), "internal");
    assert.match(String(logged[0]), /will reinitialize/);
    assert.equal(logged.length, 1, "one trap, one message");
  };
  try {
    // Each entry point, as the first call after a trap. Before, the glue copied string
    // arguments into the dead instance first: select/rpc failed uncaught and never settled.
    trap();
    assert.equal((await user.client.select("agent_memories", { columns: "id" })).status, 200);
    trap();
    assert.equal((await user.client.rpc("test_create_user", { p_id: crypto.randomUUID() }).catch((e) => e)).code, "forbidden");
    trap();
    const store = new WorkflowStateStore({ client: user.client });
    trap();
    assert.equal(await store.get(crypto.randomUUID()), null);
    trap();
    assert.equal(new UnifiedStateManager({ client: user.client }).persistentFields[0], "messages");
    trap();
    const tools = new MemoryTools({ client: user.client, embed: hashEmbedder(), agentId: "a" });
    trap();
    assert.equal((await tools.handle("search_memories", { query: "x" })).success, true);
    trap();
    assert.equal(uuid5("python.org", "dns"), PYTHON_ORG_DNS);

    // A call waiting on the network when another call traps: it ran on the discarded
    // instance, so it rejects (internal) rather than never settling.
    await faults([{ action: "delay", delay_ms: 300, times: 1 }]);
    const inFlight = user.client.select("agent_memories");
    await new Promise((r) => setTimeout(r, 50));
    trap();
    await rejects(inFlight, "internal");
    // A trap inside an async call, after an await, where no caller's stack can catch it:
    // the memory runs out while the call waits on its fetch, and reading the response traps.
    // The call rejects, and nothing escapes as an uncaught exception (which would fail this
    // test, as Deno reports it).
    const starved = createClient({
      url: env.SUPABASE_URL,
      apiKey: env.SUPABASE_ANON_KEY,
      retries: 0,
      fetch: async () => {
        await new Promise((r) => setTimeout(r, 10));
        exhaustMemory(glue);
        return new Response(TOO_BIG, { status: 200, headers: { "content-type": "application/json" } });
      },
    });
    logged = [];
    await rejects(starved.select("agent_memories"), "internal");
    assert.equal(logged.length, 1, "the trap was reported once");
    assert.equal((await user.client.select("agent_memories", { columns: "id" })).status, 200);
    fresh();
    assert.equal(uuid5("python.org", "dns"), PYTHON_ORG_DNS);
  } finally {
    console.error = quiet;
    await faults(null);
  }
});

Deno.test("an injected fetch that misbehaves gives network errors, never uncaught ones", async () => {
  const make = (fetch: unknown) => createClient({ url: env.SUPABASE_URL, apiKey: env.SUPABASE_ANON_KEY, retries: 0, fetch: fetch as typeof globalThis.fetch });
  const boom = new Error("fetch exploded");
  const cases: Record<string, unknown> = {
    "resolves to null": () => Promise.resolve(null),
    "resolves to {}": () => Promise.resolve({}),
    "resolves to a Response look-alike with plain headers": () => Promise.resolve({ status: 200, headers: {}, text: () => Promise.resolve("[]") }),
    "whose headers.get throws": () => Promise.resolve({ status: 200, headers: { get() { throw boom; } }, text: () => Promise.resolve("[]") }),
    "whose status getter throws": () => Promise.resolve({ get status() { throw boom; } }),
    "whose text() rejects": () => Promise.resolve({ status: 200, headers: new Headers(), text: () => Promise.reject(boom) }),
    "whose text() resolves to a number": () => Promise.resolve({ status: 200, headers: new Headers(), text: () => Promise.resolve(5) }),
    "with status 0": () => Promise.resolve({ status: 0, headers: new Headers(), text: () => Promise.resolve("") }),
    "that throws synchronously": () => { throw boom; },
    "that returns a revoked Proxy": () => revoked(),
    "that returns a thenable whose then throws": () => ({ then() { throw boom; } }),
  };
  for (const [what, fetch] of Object.entries(cases)) {
    await assert.rejects(make(fetch).select("agent_memories"), (e: unknown) => isError(e, "network") && e.retries === 0, what);
  }
  const e = await make(cases["whose headers.get throws"]).select("t").catch((e) => e);
  assert.equal(e.cause, boom, "the fetch's own exception is the cause");
  throws(() => make("not a function"), "invalid_input", "fetch");
  throws(() => make(42), "invalid_input", "fetch");
});

Deno.test("timeoutMs bounds a call even when fetch ignores its AbortSignal", async () => {
  const signals: AbortSignal[] = [];
  const hang = (_url: string | URL | Request, init?: RequestInit) => {
    signals.push(init!.signal!);
    return new Promise<Response>(() => {});
  };
  const client = createClient({ url: env.SUPABASE_URL, apiKey: env.SUPABASE_ANON_KEY, timeoutMs: 200, retries: 1, fetch: hang });
  const started = Date.now();
  await rejects(client.select("agent_memories"), "timeout");
  const elapsed = Date.now() - started;
  assert.ok(elapsed >= 400 && elapsed < 2000, `two attempts of 200 ms and a backoff, took ${elapsed} ms`);
  assert.equal(signals.length, 2, "retried once (a read)");
  assert.ok(signals.every((s) => s.aborted), "each attempt's signal was aborted at its deadline");
  // A write is not retried; it times out all the same.
  const writer = createClient({ url: env.SUPABASE_URL, apiKey: env.SUPABASE_ANON_KEY, timeoutMs: 100, fetch: hang });
  const e = await writer.insert("agent_memories", { content: "x" }).catch((e) => e);
  assert.ok(isError(e, "timeout") && e.retries === 0);
});

Deno.test("client options and headers that fetch would refuse are invalid_input naming the field", async () => {
  const base = { url: env.SUPABASE_URL, apiKey: env.SUPABASE_ANON_KEY };
  throws(() => createClient({ ...base, headers: { "X-Trace": "a\r\nSet-Cookie: x" } }), "invalid_input", "headers.X-Trace");
  throws(() => createClient({ ...base, headers: { "X-Trace": "a\nb" } }), "invalid_input", "headers.X-Trace");
  throws(() => createClient({ ...base, headers: { "X Trace": "1" } }), "invalid_input", "headers.X Trace");
  throws(() => createClient({ ...base, schema: "api\r\n" }), "invalid_input", "schema");
  throws(() => createClient({ ...base, timeoutMs: NaN }), "invalid_input", "timeoutMs");
  throws(() => createClient({ ...base, retries: Infinity }), "invalid_input", "retries");
  const user = await newUser();
  for (const token of [undefined, null, "", 5]) {
    throws(() => user.client.headersFor(token as never), "invalid_input", "accessToken");
  }
  // A string that cannot be a user's token is what the server would answer 401 to.
  throws(() => user.client.headersFor("not-a-jwt"), "unauthorized", "accessToken");
  assert.deepEqual(user.client.headersFor(user.token), { apikey: env.SUPABASE_ANON_KEY, Authorization: `Bearer ${user.token}` });

  const sent = await countRequests(async () => {
    await rejects(user.client.select("agent_memories", { limit: NaN }), "invalid_input", "options.limit");
    await rejects(user.client.select("agent_memories", { offset: Infinity }), "invalid_input", "options.offset");
    await rejects(user.client.insert("agent_memories", { importance_score: NaN }), "invalid_input", "rows.importance_score");
  });
  assert.deepEqual(sent, []);
});

Deno.test("the embedding callback: a time limit, an AbortSignal, and results that throw are embedding_failed", async () => {
  const user = await newUser();
  const good = hashEmbedder();
  const tools = (embed: unknown, extra: Record<string, unknown> = {}) =>
    new MemoryTools({ client: user.client, embed: embed as never, agentId: "a", ...extra });
  const failed = async (embed: unknown, code = "embedding_failed", extra: Record<string, unknown> = {}) => {
    const result = await tools(embed, extra).handle("create_memory", { content: "the user likes tea", memory_type: "preference" });
    assert.equal(result.success, false, JSON.stringify(result));
    if (!result.success) assert.equal(result.error.code, code, result.error.message);
    return result;
  };

  // The time limit: the call fails, the signal is aborted, nothing is sent or written.
  let signal: AbortSignal | undefined;
  const started = Date.now();
  const sent = await countRequests(async () => {
    const r = await failed((_: string[], options: { signal: AbortSignal }) => {
      signal = options.signal;
      return new Promise(() => {});
    }, "embedding_failed", { embedTimeoutMs: 300 });
    assert.match(!r.success ? r.error.message : "", /within 300 ms \(embedTimeoutMs\)/);
  });
  assert.ok(Date.now() - started < 2000);
  assert.ok(signal instanceof AbortSignal && signal.aborted, "the callback's signal was aborted");
  assert.deepEqual(sent, [], "nothing was sent");
  // Within the limit, a slow callback is fine.
  const slow = await tools(async (texts: string[]) => {
    await new Promise((r) => setTimeout(r, 100));
    return good(texts);
  }, { embedTimeoutMs: 2000 }).handle("create_memory", { content: "slow but fine", memory_type: "fact" });
  assert.equal(slow.success, true);
  for (const bad of [0, -1, 1.5, NaN, Infinity, 600_001]) {
    throws(() => tools(good, { embedTimeoutMs: bad }), "invalid_input", "embedTimeoutMs");
  }
  throws(() => tools(good, { embedTimeoutMs: "1000" }), "invalid_input"); // a type error of the options object

  // Results that cannot be read as vectors.
  const vector = Array.from({ length: 384 }, (_, i) => (i === 0 ? 1 : 0));
  const throwingVector = [...vector];
  Object.defineProperty(throwingVector, 5, { get() { throw new Error("component getter"); } });
  const outerThrows: number[][] = [[]];
  Object.defineProperty(outerThrows, 0, { get() { throw new Error("vector getter"); } });
  await failed(() => [new BigInt64Array(384)]);
  await failed(() => [new BigUint64Array(384)]);
  await failed(() => [new DataView(new ArrayBuffer(384 * 8))]);
  await failed(() => [throwingVector]);
  await failed(() => outerThrows);
  await failed(() => [new Proxy(vector, { get() { throw new Error("trap"); } })]);
  await failed(() => new Proxy([vector], { get() { throw new Error("trap"); } }));
  await failed(() => [revoked()]);
  await failed(() => revoked());
  await failed(() => ({ then() { throw new Error("then"); } }));
  await failed(() => [vector.map(BigInt)]);
  await failed(() => [vector.slice(1)], "dimension_mismatch");
  const r = await failed(() => [throwingVector]);
  assert.match(!r.success ? r.error.message : "", /component getter/);
  // Typed methods reject with the caller's exception as the cause.
  const e = await tools(() => [throwingVector]).createMemory({ content: "x", memory_type: "fact" }).catch((e) => e);
  assert.ok(isError(e, "embedding_failed"));
  assert.equal((e.cause as Error).message, "component getter");

  const { data } = await user.client.select("agent_memories", { columns: "content" });
  assert.deepEqual(data, [{ content: "slow but fine" }], "only the successful call wrote");
});

Deno.test("MemoryTools options: NaN and Infinity are refused, not defaulted; bounds hold to the last bit", async () => {
  const user = await newUser();
  const make = (extra: Record<string, unknown>) => new MemoryTools({ client: user.client, embed: hashEmbedder(), agentId: "a", ...extra });
  throws(() => make({ dimensions: NaN }), "invalid_input", "dimensions");
  throws(() => make({ dimensions: Infinity }), "invalid_input", "dimensions");
  throws(() => make({ matchThreshold: NaN }), "invalid_input", "matchThreshold");
  throws(() => make({ matchThreshold: -Infinity }), "invalid_input", "matchThreshold");
  throws(() => new MemoryTools({ client: user.client, embed: 5 as never, agentId: "a" }), "invalid_input", "embed");
  // Values whose shortest text has 16-17 digits are read by the host's parser (the module
  // carries none of its own, src/number.rs): the exact double counts, one ulp over 1 is out.
  make({ matchThreshold: 0.1 + 0.2 });
  make({ matchThreshold: -0.9999999999999999 });
  make({ matchThreshold: 1 });
  throws(() => make({ matchThreshold: 1.0000000000000002 }), "invalid_input", "matchThreshold");
  throws(() => make({ matchThreshold: -1.0000000000000002 }), "invalid_input", "matchThreshold");
});

Deno.test("idempotent requests ride out a Postgres restart (57P01, 57P03, 08006); plain inserts do not", async () => {
  const user = await newUser();
  const cases = [
    { status: 500, code: "57P01" }, // admin_shutdown, as PostgREST reports it
    { status: 500, code: "57P03" }, // cannot_connect_now
    { status: 503, code: "08006" }, // connection failure
  ];
  try {
    for (const fault of cases) {
      await faults([{ action: "status", ...fault, times: 1 }]);
      const reads = await countRequests(() => user.client.select("agent_memories", { columns: "id" }));
      assert.deepEqual(reads, ["GET /agent_memories", "GET /agent_memories"], `${fault.code}: retried once, then answered`);

      await faults([{ action: "status", ...fault, times: 1 }]);
      let error: AgentmemError | undefined;
      const writes = await countRequests(async () => {
        error = await user.client.insert("agent_memories", { content: "x", agent_id: "a", user_id: user.id }).catch((e) => e);
      });
      assert.deepEqual(writes, ["POST /agent_memories"], `${fault.code}: a plain insert is sent once`);
      assert.ok(isError(error, "server") && error.pgrstCode === fault.code && error.retries === 0);
    }
    // The same budget as for other transient failures: two retries, then the error.
    await faults([{ action: "status", status: 500, code: "57P01", times: 3 }]);
    const e = await user.client.select("agent_memories").catch((e) => e);
    assert.ok(isError(e, "server") && e.retries === 2 && e.pgrstCode === "57P01");
    // Other 500s are answers, not outages.
    await faults([{ action: "status", status: 500, code: "XX000", times: 1 }]);
    assert.deepEqual(await countRequests(() => user.client.select("agent_memories").catch(() => null)), ["GET /agent_memories"]);
  } finally {
    await faults(null);
  }
  assert.equal((await service().select("agent_memories", { columns: "id", filters: [["user_id", "eq", user.id]] })).data.length, 0);
});

Deno.test("the main module reuses freed memory: many large calls leave its heap where one left it", async () => {
  uuid5("first call", "dns"); // instantiates the module, if no earlier test did
  // The same module instance the entry initialised (same URL), for its memory export.
  const glue = await import("../pkg/agentmem.js");
  const memory = (glue.initSync({ module: new Uint8Array() }) as { memory: WebAssembly.Memory }).memory;
  const rows = Array.from({ length: 2_000 }, (_, i) => ({ id: i, note: "é".repeat(i % 400), tags: [String(i), "x"] }));
  const answer = JSON.stringify(rows);
  const fetch = () => Promise.resolve(new Response(answer, { status: 200, headers: { "content-type": "application/json" } }));
  const client = createClient({ url: "http://127.0.0.1:9", apiKey: "anon-key", fetch });
  const round = async () => {
    await client.upsert("notes", rows, { onConflict: ["id"] });
    const { data } = await client.select("notes", { filters: [["id", "in", rows.slice(0, 500).map((r) => r.id)]] });
    assert.equal((data as unknown[]).length, rows.length);
    uuid5Batch(rows.map((r) => r.note), "dns");
    await assert.rejects(client.select("notes", { filters: [["id", "nope" as "eq", 1]] }), AgentmemError);
  };
  await round();
  await round();
  const after = memory.buffer.byteLength;
  for (let i = 0; i < 10; i += 1) await round();
  // 10 rounds allocate ~10x what the first ones did; a heap that did not reuse freed
  // blocks would have grown by that much.
  assert.equal(memory.buffer.byteLength, after, "the heap grew on repeated calls of sizes it had seen");
});
