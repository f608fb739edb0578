// AgentmemStore against the real stack: results compared with LangGraph's InMemoryStore
// over seeded random operation sequences, one request per call, tenancy, TTL, concurrent
// writers and typed errors.
//
// Seeds: AGENTMEM_STORE_SEEDS="1,2,3" replays those (default: four fixed seeds);
// AGENTMEM_STORE_STEPS sets the operations per seed (default 300).
import { emptyCheckpoint, InMemoryStore, InvalidNamespaceError, uuid6 } from "@langchain/langgraph-checkpoint";
import { AgentmemError, createClient, MemoryTools } from "agentmem-supabase";
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import { AgentmemSaver, AgentmemStore } from "agentmem-supabase/langgraph";
import { bagOfWords as vectorOf } from "./bag_of_words.mjs";
import pg from "pg";
import { env, mintJwt, newUser, recording, service, url } from "./stack.mjs";

const DIMS = 384;
const rpc = (fn) => `POST /rpc/${fn}`;

/** agentmem's embedder callback, counting its calls. */
function countingEmbed() {
  const calls = [];
  const embed = (texts) => {
    calls.push(texts.length);
    return texts.map(vectorOf);
  };
  return { embed, calls };
}
const embeddings = { embedDocuments: async (texts) => texts.map(vectorOf), embedQuery: async (text) => vectorOf(text) };

/**
 * InMemoryStore with the three differences AgentmemStore documents, so the comparison
 * covers everything else: a namespace whose last item is deleted is no longer listed; a
 * put replaces the vectors of the item's older value (InMemoryStore keeps stale ones,
 * even after a delete).
 */
class Reference extends InMemoryStore {
  putOperation(op) {
    super.putOperation(op);
    const ns = op.namespace.join(":");
    if (op.value === null && this.data.get(ns)?.size === 0) this.data.delete(ns);
  }
  extractTexts(ops) {
    for (const op of ops) this.vectors.get(op.namespace.join(":"))?.delete(op.key);
    return super.extractTexts(ops);
  }
}

/** A small seeded generator (mulberry32). */
function random(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n) => Math.floor(next() * n);
  const pick = (list) => list[int(list.length)];
  return { next, int, pick, chance: (p) => next() < p };
}

const LABELS = ["users", "1", "10", "prefs", "ünïcødé", "日本語", "%", "_", "\\", "*", "a b", "langgraph", "x"];
const KEYS = ["a", "b", "k-1", "", "ключ", "%_", "*", "long key with spaces"];
const WORDS = ["pizza", "sushi", "dark", "mode", "likes", "python", "rust", "tea", "coffee", "morning", "night", "cats", "dogs"];
// Values the filters compare: numbers, numeric text, blanks, booleans, null, arrays.
const SCALARS = [0, 1, 5, 7.5, -3, 1e21, "5", " 7 ", "", "abc", "0x10", "Infinity", true, false, null, [3], [], ["4"]];

function generator(seed) {
  const r = random(seed);
  const namespace = () => Array.from({ length: 1 + r.int(3) }, () => r.pick(LABELS));
  const sentence = () => Array.from({ length: 1 + r.int(4) }, () => r.pick(WORDS)).join(" ");
  const value = () => {
    const v = { text: sentence() };
    if (r.chance(0.7)) v.n = r.pick(SCALARS);
    if (r.chance(0.5)) v.tags = Array.from({ length: r.int(3) }, () => r.pick(WORDS));
    if (r.chance(0.3)) v.nested = { a: { b: sentence() }, list: [1, "two", { three: 3 }] };
    if (r.chance(0.2)) v.kind = r.pick(["note", "pref", null]);
    return v;
  };
  const filter = () => {
    const f = {};
    for (let i = 0; i < 1 + r.int(2); i++) {
      const field = r.pick(["n", "kind", "text", "missing"]);
      const scalar = () => {
        const s = r.pick(SCALARS);
        return Array.isArray(s) ? 5 : s; // arrays compare by reference in InMemoryStore
      };
      switch (r.int(9)) {
        case 0: f[field] = scalar(); break;
        case 1: f[field] = { $eq: scalar() }; break;
        case 2: f[field] = { $ne: scalar() }; break;
        case 3: f[field] = { $gt: scalar() }; break;
        case 4: f[field] = { $gte: scalar(), $lte: scalar() }; break;
        case 5: f[field] = { $lt: scalar() }; break;
        case 6: f[field] = { $in: [scalar(), scalar(), "note"] }; break;
        case 7: f[field] = { $nin: [scalar(), "pref"] }; break;
        default: f[field] = {}; // an empty operator set: always true
      }
    }
    return f;
  };
  const op = () => {
    const roll = r.next();
    if (roll < 0.45) {
      const put = { namespace: namespace(), key: r.pick(KEYS), value: value() };
      if (r.chance(0.15)) put.index = false;
      else if (r.chance(0.15)) put.index = r.pick([["text"], ["tags[*]"], ["nested.a.b", "text"], ["$"], ["{text,kind}"], ["tags[-1]"]]);
      return put;
    }
    if (roll < 0.55) return { namespace: namespace(), key: r.pick(KEYS), value: null };
    if (roll < 0.65) return { namespace: namespace(), key: r.pick(KEYS) };
    if (roll < 0.88) {
      const search = { namespacePrefix: r.chance(0.3) ? [] : namespace().slice(0, 1 + r.int(2)) };
      if (r.chance(0.4)) search.filter = filter();
      if (r.chance(0.5)) search.query = sentence();
      search.limit = r.pick([1, 3, 10, 50]);
      search.offset = r.pick([0, 0, 1, 4]);
      return search;
    }
    const list = { limit: r.pick([100, 2, 5]), offset: r.pick([0, 1, 3]) };
    const conditions = [];
    if (r.chance(0.4)) conditions.push({ matchType: "prefix", path: namespace().slice(0, 1 + r.int(2)).map((l) => (r.chance(0.2) ? "*" : l)) });
    if (r.chance(0.4)) conditions.push({ matchType: "suffix", path: [r.chance(0.3) ? "*" : r.pick(LABELS)] });
    list.matchConditions = conditions.length ? conditions : undefined;
    if (r.chance(0.4)) list.maxDepth = 1 + r.int(3);
    return list;
  };
  return { batch: () => Array.from({ length: r.chance(0.3) ? 2 + r.int(6) : 1 }, op) };
}

/** A result with what legitimately differs taken out: the dates (checked elsewhere) and
 *  scores beyond float4 precision. */
function comparable(result) {
  if (result === null || result === undefined) return null;
  if (Array.isArray(result)) return result.map(comparable);
  if (typeof result === "object" && "namespace" in result && "key" in result) {
    const { createdAt, updatedAt, score, ...rest } = result;
    expect(createdAt).toBeInstanceOf(Date);
    expect(updatedAt.getTime()).toBeGreaterThanOrEqual(createdAt.getTime());
    return "score" in result ? { ...rest, score: score === undefined ? "none" : Math.round(score * 1e5) / 1e5 } : rest;
  }
  return result;
}

/**
 * `actual` with each search item that differs from the reference's at its place, but ties
 * with it (|Δscore| < 1e-6), replaced by the reference's: two texts whose cosine is
 * mathematically equal (1/√2 as 3/(3√2)) come out a rounding apart, in float64 in
 * InMemoryStore and through float4 in pgvector, so their order is noise. The scores at
 * every place must still agree, and every unscored item must be the same.
 */
function alignTies(actual, expected) {
  return actual.map((result, i) => {
    if (!Array.isArray(result) || !Array.isArray(expected[i]) || result.length !== expected[i].length) return result;
    return result.map((item, j) => {
      const want = expected[i][j];
      const tie = typeof item?.score === "number" && typeof want?.score === "number" && Math.abs(item.score - want.score) < 1e-6;
      return tie ? { ...want, score: item.score } : item;
    });
  });
}

const seeds = (process.env.AGENTMEM_STORE_SEEDS ?? "1,2,3,4").split(",").map(Number);
const steps = Number(process.env.AGENTMEM_STORE_STEPS ?? 300);

describe.each(seeds)("seed %i: AgentmemStore answers as InMemoryStore", (seed) => {
  test(`${steps} batches`, { timeout: 300_000 }, async () => {
    const user = await newUser();
    const { embed, calls } = countingEmbed();
    const store = new AgentmemStore(user.client, { index: { dims: DIMS, embed, fields: ["text", "tags[*]"] } });
    const reference = new Reference({ index: { dims: DIMS, embeddings, fields: ["text", "tags[*]"] } });
    const g = generator(seed);
    // What the sequence exercised, so that a generator gone dull cannot pass unnoticed.
    const seen = { hits: 0, scored: 0, filtered: 0, namespaces: 0 };
    for (let step = 0; step < steps; step++) {
      const ops = g.batch();
      const copy = structuredClone(ops);
      const expected = structuredClone(await reference.batch(ops));
      const before = calls.length;
      const actual = await store.batch(copy);
      expect(calls.length - before, "the embedder is called at most once per batch").toBeLessThanOrEqual(1);
      const where = `seed ${seed} (AGENTMEM_STORE_SEEDS=${seed}), batch ${step}: ${JSON.stringify(ops)}`;
      expect(comparable(alignTies(actual, expected)), where).toEqual(comparable(expected));
      ops.forEach((op, i) => {
        if (!("namespacePrefix" in op || "matchConditions" in op) || expected[i].length === 0) return;
        if ("matchConditions" in op) seen.namespaces += 1;
        else seen.hits += 1;
        if (op.query && expected[i].some((item) => item.score !== undefined)) seen.scored += 1;
        if (op.filter) seen.filtered += 1;
      });
    }
    const enough = Math.floor(steps / 100);
    for (const [what, count] of Object.entries(seen)) expect(count, `non-empty ${what}`).toBeGreaterThanOrEqual(enough);
    // The end state, whole.
    const everything = [{ namespacePrefix: [], limit: 10_000 }, { matchConditions: undefined, limit: 10_000 }];
    expect(comparable(await store.batch(everything))).toEqual(comparable(await reference.batch(everything)));
  });
});

describe("AgentmemStore", () => {
  test("a graph with AgentmemSaver and AgentmemStore remembers a user across threads, and a new process sees it", async () => {
    const user = await newUser();
    const State = Annotation.Root({ message: Annotation(), reply: Annotation() });
    const graph = (client) => new StateGraph(State)
      .addNode("respond", async (state, config) => {
        if (state.message.startsWith("remember ")) {
          await config.store.put(["prefs"], "latest", { text: state.message.slice(9) });
          return { reply: "ok" };
        }
        const [hit] = await config.store.search(["prefs"], { query: state.message });
        return { reply: hit ? hit.value.text : "nothing" };
      })
      .addEdge(START, "respond")
      .addEdge("respond", END)
      .compile({ checkpointer: new AgentmemSaver(client), store: new AgentmemStore(client, { index: { dims: DIMS, embed: countingEmbed().embed } }) });
    await graph(user.client).invoke({ message: "remember tea in the morning" }, { configurable: { thread_id: "one" } });
    // Another graph instance (a new request, a new process): the store is the database.
    const later = graph(createClient({ url, apiKey: env.SUPABASE_ANON_KEY, accessToken: user.token }));
    expect((await later.invoke({ message: "morning drink?" }, { configurable: { thread_id: "two" } })).reply).toBe("tea in the morning");
    expect((await later.getState({ configurable: { thread_id: "one" } })).values.reply).toBe("ok");
    const stranger = graph((await newUser()).client);
    expect((await stranger.invoke({ message: "morning drink?" }, { configurable: { thread_id: "two" } })).reply).toBe("nothing");
  });

  test("every call is one request, every batch one embedder call", async () => {
    const user = await newUser();
    const { embed, calls } = countingEmbed();
    const store = new AgentmemStore(user.client, { index: { dims: DIMS, embed } });
    const one = [rpc("langgraph_store_batch")];
    const measure = async (fn) => (await recording(fn)).requests;
    expect(await measure(() => store.put(["docs"], "a", { text: "pizza night" }))).toEqual(one);
    expect(await measure(() => store.get(["docs"], "a"))).toEqual(one);
    expect(await measure(() => store.search(["docs"], { query: "pizza" }))).toEqual(one);
    expect(await measure(() => store.listNamespaces())).toEqual(one);
    expect(await measure(() => store.delete(["docs"], "a"))).toEqual(one);
    calls.length = 0;
    const ten = Array.from({ length: 10 }, (_, i) =>
      i % 2 ? { namespace: ["docs"], key: `k${i}`, value: { text: `doc ${i}` } } : { namespacePrefix: ["docs"], query: `doc ${i}` });
    expect(await measure(() => store.batch(ten))).toEqual(one);
    expect(calls).toEqual([10], "one embedder call with each distinct text once");
    expect(await measure(() => store.batch([]))).toEqual([]);
  });

  test("a LangChain Embeddings object works as InMemoryStore's does", async () => {
    const store = new AgentmemStore((await newUser()).client, { index: { dims: DIMS, embeddings, fields: ["text"] } });
    await store.put(["docs"], "a", { text: "cats and dogs" });
    await store.put(["docs"], "b", { text: "tea in the morning" });
    const [first] = await store.search(["docs"], { query: "tea in the morning" });
    expect(first.key).toBe("b");
    expect(first.score).toBeCloseTo(1, 5);
  });

  test("namespaces are private to their tenant", async () => {
    const [alice, bob] = [await newUser(), await newUser()];
    const a = new AgentmemStore(alice.client, { index: { dims: DIMS, embed: countingEmbed().embed } });
    const b = new AgentmemStore(bob.client, { index: { dims: DIMS, embed: countingEmbed().embed } });
    const serviceStore = new AgentmemStore(service());
    const actingForAlice = new AgentmemStore(service().actingFor(alice.id));
    await a.put(["users", alice.id], "prefs", { text: "dark mode" });
    expect(await b.get(["users", alice.id], "prefs")).toBeNull();
    expect(await b.search([])).toEqual([]);
    expect(await b.search(["users"], { query: "dark mode" })).toEqual([]);
    expect(await b.listNamespaces()).toEqual([]);
    expect(await serviceStore.get(["users", alice.id], "prefs")).toBeNull();
    expect((await actingForAlice.get(["users", alice.id], "prefs")).value).toEqual({ text: "dark mode" });
    // The same key in another tenant is another item.
    await b.put(["users", alice.id], "prefs", { text: "light mode" });
    expect((await a.get(["users", alice.id], "prefs")).value).toEqual({ text: "dark mode" });
    await b.delete(["users", alice.id], "prefs");
    expect((await a.get(["users", alice.id], "prefs")).value).toEqual({ text: "dark mode" });
    // The tables themselves, as Bob: nothing of Alice's, and no way to move a row.
    for (const table of ["langgraph_store_items", "langgraph_store_vectors"]) {
      expect((await bob.client.select(table)).data).toEqual([]);
    }
    const moved = await alice.client.update("langgraph_store_items", { tenant_id: bob.id }, { filters: [["key", "eq", "prefs"]] }).catch((e) => e);
    expect(moved).toBeInstanceOf(AgentmemError);
    expect(moved.code).toBe("forbidden");
    const anon = createClient({ url, apiKey: env.SUPABASE_ANON_KEY });
    expect(() => new AgentmemStore(anon)).toThrow(/needs an identity/);
  });

  test("the saver, the store and the memory tools refuse a client without a key space by one rule", async () => {
    // A token of a role that is neither a signed-in user nor the service role has no
    // tenant; the saver and the store let it through while MemoryTools refused it.
    const token = await mintJwt(crypto.randomUUID(), { role: "reporting", expiresIn: 3600 });
    const client = createClient({ url, apiKey: env.SUPABASE_ANON_KEY, accessToken: token });
    const refused = (make, what) => {
      let error;
      try {
        make();
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(AgentmemError);
      expect([error.code, error.field]).toEqual(["unauthorized", "client"]);
      expect(error.message).toMatch(new RegExp(`^${what} needs an identity`));
    };
    refused(() => new AgentmemSaver(client), "AgentmemSaver");
    refused(() => new AgentmemStore(client), "AgentmemStore");
    refused(() => new MemoryTools({ client, embed: () => [], agentId: "a" }), "MemoryTools");
  });

  test("the helpers that read as the table's owner answer for the caller's own tenant only", async () => {
    const [alice, bob] = [await newUser(), await newUser()];
    await new AgentmemStore(alice.client).put(["secret"], "k", { v: 1 });
    const db = new pg.Client({ connectionString: env.AGENTMEM_DB_URL });
    await db.connect();
    try {
      // As Bob, in SQL, naming Alice's tenant.
      const asBob = (sql) => db.query(`begin; select set_config('request.jwt.claims', '${JSON.stringify({ sub: bob.id, role: "authenticated" })}', true);
        set local role authenticated; ${sql}; commit;`).finally(() => db.query("rollback").catch(() => {}));
      const found = await asBob(`select agentmem.langgraph_store_search('${alice.id}', '{}', null, null, 10, 0, '{"mode": "text", "query": "v"}') as r`);
      expect(found.find((r) => r.command === "SELECT" && r.rows[0]?.r !== undefined).rows[0].r).toEqual([]);
      await expect(asBob(`select agentmem.langgraph_store_list('${alice.id}', '[]', null)`)).rejects.toMatchObject({ code: "42501" });
    } finally {
      await db.end();
    }
  });

  test("labels are compared whole, and every character is plain text", async () => {
    const store = new AgentmemStore((await newUser()).client);
    await store.put(["users", "1"], "k", { v: 1 });
    await store.put(["users", "10"], "k", { v: 10 });
    await store.put(["users", "1_"], "k", { v: "underscore" });
    await store.put(["users", "%"], "k", { v: "percent" });
    await store.put(["a\\b"], "k", { v: "backslash" });
    expect((await store.search(["users", "1"])).map((i) => i.value.v)).toEqual([1]);
    expect((await store.search(["users", "%"])).map((i) => i.value.v)).toEqual(["percent"]);
    expect((await store.search([])).length).toBe(5);
    expect(await store.listNamespaces({ suffix: ["_"] })).toEqual([]);
    expect(await store.listNamespaces({ suffix: ["1_"] })).toEqual([["users", "1_"]]);
    expect(await store.listNamespaces({ prefix: ["*", "1"] })).toEqual([["users", "1"]]);
    expect(await store.listNamespaces({ prefix: ["a\\b"] })).toEqual([["a\\b"]]);
    // A prefix without a wildcard is answered by its key range alone: labels that only
    // start with the prefix's last label (in code point order just after it, or at its
    // bound, "1" followed by U+0001) stay out.
    await store.put(["users", "1\u0001"], "k", { v: "one-control" });
    await store.put(["users", "1", "prefs"], "k", { v: "deeper" });
    expect(await store.listNamespaces({ prefix: ["users", "1"] })).toEqual([["users", "1"], ["users", "1", "prefs"]]);
    expect(await store.listNamespaces({ prefix: ["users", "1\u0001"] })).toEqual([["users", "1\u0001"]]);
    await store.delete(["users", "1\u0001"], "k");
    await store.delete(["users", "1", "prefs"], "k");
    // maxDepth before limit: one namespace of depth 1, not a page of truncated duplicates.
    expect(await store.listNamespaces({ maxDepth: 1, limit: 1 })).toEqual([["a\\b"]]);
    expect(await store.listNamespaces({ maxDepth: 1, offset: 1 })).toEqual([["users"]]);
  });

  test("filters: types are kept, missing fields pass $ne, null matches null, nested objects field by field", async () => {
    const store = new AgentmemStore((await newUser()).client);
    await store.put(["f"], "num", { n: 5, tags: ["a"], meta: { lang: "en", level: 2 } });
    await store.put(["f"], "str", { n: "5", meta: { lang: "de" } });
    await store.put(["f"], "nul", { n: null });
    await store.put(["f"], "none", {});
    const keys = async (filter) => (await store.search(["f"], { filter })).map((i) => i.key).sort();
    expect(await keys({ n: 5 })).toEqual(["num"]);
    expect(await keys({ n: { $eq: "5" } })).toEqual(["str"]);
    expect(await keys({ n: { $ne: 5 } })).toEqual(["none", "nul", "str"]);
    expect(await keys({ n: null })).toEqual(["nul"]);
    expect(await keys({ n: { $gte: 5 } })).toEqual(["num", "str"]);
    expect(await keys({ tags: ["a"] })).toEqual(["num"]);
    expect(await keys({ meta: { lang: "en" } })).toEqual(["num"]);
    expect(await keys({ meta: { level: { $gt: 1 } } })).toEqual(["num"]);
    const bad = await store.search(["f"], { filter: { n: { $regex: "5" } } }).catch((e) => e);
    expect(bad).toBeInstanceOf(AgentmemError);
    expect([bad.code, bad.message]).toEqual(["invalid_input", expect.stringMatching(/unknown operator/)]);
  });

  test("TTL: expired items are never returned, reads refresh, the sweep deletes them", async () => {
    const user = await newUser();
    const store = new AgentmemStore(user.client, { ttl: { defaultTtl: 60, refreshOnRead: true } });
    await store.put(["t"], "short", { v: 1 }, undefined, { ttl: 0.001 }); // 60 ms
    await store.put(["t"], "default", { v: 2 });
    await store.put(["t"], "forever", { v: 3 }, undefined, { ttl: null });
    // Namespaces whose items all expired, before, between and after living ones (the
    // listing steps from namespace to namespace in key order).
    for (const label of ["a", "c", "c2", "e"]) await store.put(["t", label], "gone", { v: 0 }, undefined, { ttl: 0.001 });
    await store.put(["t", "c"], "gone too", { v: 0 }, undefined, { ttl: 0.001 });
    for (const label of ["b", "d"]) await store.put(["t", label], "here", { v: 0 }, undefined, { ttl: null });
    // As the service role (which row-level security does not narrow): this user's rows only.
  const db = async (key) =>
    (await service().select("langgraph_store_items", { columns: "key,expires_at,updated_at", filters: [["tenant_id", "eq", user.id], ["key", "eq", key]] })).data[0];
    const before = await db("default");
    expect(new Date(before.expires_at).getTime() - Date.now()).toBeGreaterThan(59 * 60_000);
    expect((await db("forever")).expires_at).toBeNull();
    await new Promise((r) => setTimeout(r, 150));
    expect(await store.get(["t"], "short")).toBeNull();
    expect((await store.search(["t"])).map((i) => i.key)).toEqual(["default", "forever", "here", "here"]);
    expect(await store.listNamespaces({ prefix: ["t"] })).toEqual([["t"], ["t", "b"], ["t", "d"]]);
    await new Promise((r) => setTimeout(r, 20));
    await store.get(["t"], "default");
    const after = await db("default");
    expect(new Date(after.expires_at).getTime()).toBeGreaterThan(new Date(before.expires_at).getTime());
    expect(after.updated_at, "a refresh is not an update").toBe(before.updated_at);
    expect(await store.sweepExpiredItems()).toBe(6);
    expect(await db("short")).toBeUndefined();
    // A put over an expired item makes a new one.
    await store.put(["t"], "again", { v: 1 }, undefined, { ttl: 0.001 });
    await new Promise((r) => setTimeout(r, 150));
    await store.put(["t"], "again", { v: 2 });
    const again = await store.get(["t"], "again");
    expect(again.value).toEqual({ v: 2 });
    expect(again.createdAt.getTime()).toBe(again.updatedAt.getTime());
  });

  test("overwrites keep createdAt and move updatedAt", async () => {
    const store = new AgentmemStore((await newUser()).client);
    await store.put(["d"], "k", { v: 1 });
    const first = await store.get(["d"], "k");
    await new Promise((r) => setTimeout(r, 5));
    await store.put(["d"], "k", { v: 1 });
    const second = await store.get(["d"], "k");
    expect(second.createdAt).toEqual(first.createdAt);
    expect(second.updatedAt.getTime()).toBeGreaterThan(first.updatedAt.getTime());
  });

  test("concurrent puts of one key end with one of the values and its vectors", async () => {
    const store = new AgentmemStore((await newUser()).client, { index: { dims: DIMS, embed: countingEmbed().embed, fields: ["text"] } });
    const texts = WORDS.map((w) => `${w} ${w}`);
    await Promise.all(texts.map((text) => store.put(["race"], "k", { text })));
    const final = await store.get(["race"], "k");
    expect(texts).toContain(final.value.text);
    const [hit] = await store.search(["race"], { query: final.value.text });
    expect(hit.score).toBeCloseTo(1, 5);
    // Batches that write the same keys in opposite orders do not deadlock.
    const keys = ["x", "y", "z"];
    await Promise.all(Array.from({ length: 8 }, (_, i) => {
      const order = i % 2 ? keys : [...keys].reverse();
      return store.batch(order.map((key) => ({ namespace: ["race"], key, value: { text: `${key} ${i}` } })));
    }));
    expect((await store.search(["race"], { limit: 10 })).length).toBe(4);
  });

  test("bad input is a typed error and sends nothing", async () => {
    const store = new AgentmemStore((await newUser()).client, { index: { dims: DIMS, embed: countingEmbed().embed } });
    const { requests } = await recording(async () => {
      await expect(store.put(["a.b"], "k", { v: 1 })).rejects.toBeInstanceOf(InvalidNamespaceError);
      await expect(store.put([], "k", { v: 1 })).rejects.toBeInstanceOf(InvalidNamespaceError);
      const cases = [
        () => store.put(["ns"], "k", ["not", "an", "object"]),
        () => store.put(["ns"], 5, { v: 1 }),
        () => store.put(["ns"], "k", { v: Number.NaN }),
        () => store.put(["ns"], "k", { v: 1 }, undefined, { ttl: -1 }),
        () => store.put(["ns"], "k", { v: 1 }, [""]),
        () => store.search(["ns"], { limit: -1 }),
        () => store.search(["ns"], { query: "q", mode: "semantic" }),
        () => store.search(["ns"], { query: "q", distanceMetric: "manhattan" }),
        () => store.search(["ns"], { query: "q", mode: "hybrid", vectorWeight: 2 }),
        () => store.search(["ns"], { query: "q", similarityThreshold: Number.NaN }),
        () => store.search(["ns"], { filter: "n = 5" }),
        () => store.listNamespaces({ maxDepth: 0 }),
        () => store.batch([{ nonsense: true }]),
        () => store.batch("not an array"),
      ];
      for (const run of cases) {
        const e = await run().catch((e) => e);
        expect(e, String(run)).toBeInstanceOf(AgentmemError);
        expect(e.code, String(run)).toBe("invalid_input");
      }
    });
    expect(requests).toEqual([]);
    // The store's bounds, before anything is embedded or sent, naming the field.
    const embedder = countingEmbed();
    const bounded = new AgentmemStore((await newUser()).client, { index: { dims: DIMS, embed: embedder.embed, fields: ["text"] } });
    const bounds = await recording(async () => {
      for (const [run, field, message] of [
        [() => bounded.put(Array.from({ length: 32 }, () => "ab"), "k".repeat(1729), { text: "x" }), "operations[0].key", /take 2049 bytes/],
        [() => bounded.put(["ns"], "字".repeat(680), { text: "x" }), "operations[0].key", /take 2050 bytes/],
        [() => bounded.put(["ns"], "k", { text: "x" }, ["f".repeat(257)]), "operations[0].index[0]", /257 bytes/],
        [() => bounded.put(["ns"], "k", { text: "x".repeat(1048576) }), "operations[0].value", /at most 1048576/],
        [() => bounded.batch(Array.from({ length: 10001 }, (_, i) => ({ namespace: ["ns"], key: `${i}` }))), "operations", /at most 10000 operations/],
      ]) {
        const e = await run().catch((e) => e);
        expect(e, String(run)).toBeInstanceOf(AgentmemError);
        expect([e.code, e.field], String(run)).toEqual(["invalid_input", field]);
        expect(e.message, String(run)).toMatch(message);
      }
    });
    expect(bounds.requests).toEqual([]);
    expect(embedder.calls).toEqual([]);
    // At the bound exactly, it is stored.
    await bounded.put(Array.from({ length: 32 }, () => "ab"), "k".repeat(1728), { text: "x" });
    expect((await bounded.get(Array.from({ length: 32 }, () => "ab"), "k".repeat(1728))).value).toEqual({ text: "x" });
    const client = (await newUser()).client;
    expect(() => new AgentmemStore(client, { index: { dims: DIMS } })).toThrow(/index.embed/);
    expect(() => new AgentmemStore(client, { index: { dims: 0, embed: () => [] } })).toThrow(/index.dims/);
    expect(() => new AgentmemStore(client, { indx: {} })).toThrow(/not a known option/);
    expect(() => new AgentmemStore(client, { ttl: { defaultTTL: 5 } })).toThrow(/not a known option/);
    // An embedder that fails: embedding_failed, nothing written.
    const failing = new AgentmemStore(client, { index: { dims: DIMS, embed: () => { throw new Error("quota"); } } });
    await expect(failing.put(["ns"], "k", { text: "x" })).rejects.toMatchObject({ code: "embedding_failed" });
    // Components that are no finite 32-bit float (as stored): embedding_failed, naming one.
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, -1e39]) {
      const odd = new AgentmemStore(client, { index: { dims: DIMS, embed: (t) => t.map(() => Array.from({ length: DIMS }, (_, i) => (i === 5 ? bad : 0.5))) } });
      await expect(odd.put(["ns"], "k", { text: "x" })).rejects.toMatchObject({ code: "embedding_failed", message: `embedding 0[5] is ${bad}, not a finite number` });
      await expect(odd.search(["ns"], { query: "x" })).rejects.toMatchObject({ code: "embedding_failed" });
    }
    const wrongDims = new AgentmemStore(client, { index: { dims: 3, embed: (t) => t.map(() => [1, 2, 3]) } });
    await expect(wrongDims.setup()).rejects.toMatchObject({ code: "dimension_mismatch" });
    // Past setup(), the database's refusal of a vector of another size is the same code,
    // for a put and for a search; nothing is written.
    await expect(wrongDims.put(["dims"], "k", { text: "x" })).rejects.toMatchObject({ code: "dimension_mismatch" });
    await expect(wrongDims.search(["dims"], { query: "x" })).rejects.toMatchObject({ code: "dimension_mismatch" });
    expect(await new AgentmemStore(client).get(["dims"], "k")).toBeNull();
    expect(await new AgentmemStore(client).get(["ns"], "k")).toBeNull();
  });

  test("AgentmemStore and AgentmemSaver on a client whose token comes from a function act for whoever it gives, call by call", async () => {
    const a = await newUser();
    const b = await newUser();
    let token = a.token;
    const client = createClient({ url, apiKey: env.SUPABASE_ANON_KEY, accessToken: async () => token });
    // Constructed before any token was asked for: the identity is not known yet, and not anon.
    const store = new AgentmemStore(client);
    const saver = new AgentmemSaver(client);
    await store.put(["prefs"], "k", { who: "a" });
    token = b.token;
    expect(await store.get(["prefs"], "k")).toBeNull();
    await store.put(["prefs"], "k", { who: "b" });
    token = a.token;
    expect((await store.get(["prefs"], "k")).value).toEqual({ who: "a" });

    const config = { configurable: { thread_id: "follows", checkpoint_ns: "" } };
    const checkpoint = { ...emptyCheckpoint(), id: uuid6(0), channel_values: { n: 1 }, channel_versions: { n: 1 } };
    await saver.put(config, checkpoint, { source: "input", step: 0, parents: {} }, { n: 1 });
    expect((await saver.getTuple(config)).checkpoint.channel_values).toEqual({ n: 1 });
    token = b.token;
    expect(await saver.getTuple(config)).toBeUndefined();
    // Signed out: the anon key alone, which has no key space.
    token = null;
    await expect(store.get(["prefs"], "k")).rejects.toMatchObject({ code: "unauthorized" });
    await expect(saver.getTuple(config)).rejects.toMatchObject({ code: "unauthorized" });
    // Built while signed out: whoever signs in next is who the calls act for.
    const later = new AgentmemStore(client);
    token = a.token;
    expect((await later.get(["prefs"], "k")).value).toEqual({ who: "a" });
    expect((await new AgentmemSaver(client).getTuple(config)).checkpoint.channel_values).toEqual({ n: 1 });
    // The anon key alone, with no token to come: refused up front, as before.
    const anonOnly = createClient({ url, apiKey: env.SUPABASE_ANON_KEY });
    expect(() => new AgentmemStore(anonOnly)).toThrow(expect.objectContaining({ code: "unauthorized" }));
    expect(() => new AgentmemSaver(anonOnly)).toThrow(expect.objectContaining({ code: "unauthorized" }));
  });

  test("hostile arguments to every entry point are typed errors: deep arrays, Proxies, throwing getters; nothing written, the store works after", async () => {
    const { client } = await newUser();
    const store = new AgentmemStore(client, { index: { dims: DIMS, embed: countingEmbed().embed } });
    const deep = (depth, leaf = "x") => {
      let v = leaf;
      for (let i = 0; i < depth; i++) v = [v];
      return v;
    };
    const deepObject = (depth) => {
      let v = { leaf: 1 };
      for (let i = 0; i < depth; i++) v = { v };
      return v;
    };
    const revoked = () => {
      const r = Proxy.revocable([], {});
      r.revoke();
      return r.proxy;
    };
    const throwingGetter = (key) => Object.defineProperty({}, key, { enumerable: true, get() { throw new Error(`getter of ${key}`); } });
    const trapping = new Proxy(["ns"], { get() { throw new Error("get trap"); }, ownKeys() { throw new Error("ownKeys trap"); } });
    const symbolLabel = ["ns", Symbol("s")];
    const loudLabel = ["ns", { toString() { throw new Error("toString ran"); } }];
    // Every call, and the error class it must reject with.
    const namespaceError = "InvalidNamespaceError";
    const cases = [
      ["get, a 10,000-deep namespace", () => store.get(deep(10_000), "k"), namespaceError],
      ["get, a 10,000-deep label", () => store.get(["ns", deep(10_000)], "k"), namespaceError],
      ["get, a 10,000-deep key", () => store.get(["ns"], deep(10_000)), "invalid_input"],
      ["get, a Symbol label", () => store.get(symbolLabel, "k"), namespaceError],
      ["get, a label whose toString throws", () => store.get(loudLabel, "k"), namespaceError],
      ["get, a revoked Proxy namespace", () => store.get(revoked(), "k"), "invalid_input"],
      ["get, a revoked Proxy label", () => store.get(["ns", revoked()], "k"), namespaceError],
      ["search, a revoked Proxy label", () => store.search(["ns", revoked()]), namespaceError],
      ["batch, a put of a revoked Proxy label", () => store.batch([{ namespace: [revoked()], key: "k", value: {} }]), namespaceError],
      ["get, a trapping Proxy namespace", () => store.get(trapping, "k"), "invalid_input"],
      ["get, options with a throwing getter", () => store.get(["ns"], "k", throwingGetter("refreshTtl")), "invalid_input"],
      ["put, a 10,000-deep namespace", () => store.put(deep(10_000), "k", { v: 1 }), namespaceError],
      ["put, a 10,000-deep value", () => store.put(["ns"], "k", { v: deep(10_000) }), "invalid_input"],
      ["put, a 10,000-deep object value", () => store.put(["ns"], "k", deepObject(10_000)), "invalid_input"],
      ["put, a 200-deep value", () => store.put(["ns"], "k", { v: deep(200) }), "invalid_input"],
      ["put, a value with a throwing getter", () => store.put(["ns"], "k", throwingGetter("v")), "invalid_input"],
      ["put, a revoked Proxy value", () => store.put(["ns"], "k", revoked()), "invalid_input"],
      ["put, a 10,000-deep index", () => store.put(["ns"], "k", { v: 1 }, deep(10_000)), "invalid_input"],
      ["put, a revoked Proxy index", () => store.put(["ns"], "k", { v: 1 }, revoked()), "invalid_input"],
      ["put, options with a throwing getter", () => store.put(["ns"], "k", { v: 1 }, undefined, throwingGetter("ttl")), "invalid_input"],
      ["delete, a 10,000-deep namespace", () => store.delete(deep(10_000), "k"), namespaceError],
      ["delete, a Symbol label", () => store.delete(symbolLabel, "k"), namespaceError],
      ["search, a 10,000-deep prefix", () => store.search(deep(10_000)), namespaceError],
      ["search, a 10,000-deep filter", () => store.search(["ns"], { filter: { a: deep(10_000) } }), "invalid_input"],
      ["search, a 10,000-deep query", () => store.search(["ns"], { query: deep(10_000) }), "invalid_input"],
      ["search, a revoked Proxy filter", () => store.search(["ns"], { filter: revoked() }), "invalid_input"],
      ["search, options behind a trapping Proxy", () => store.search(["ns"], trapping), "invalid_input"],
      ["listNamespaces, a 10,000-deep prefix", () => store.listNamespaces({ prefix: deep(10_000) }), namespaceError],
      ["listNamespaces, a 10,000-deep suffix", () => store.listNamespaces({ suffix: ["a", deep(10_000)] }), namespaceError],
      ["listNamespaces, a revoked Proxy prefix", () => store.listNamespaces({ prefix: revoked() }), "invalid_input"],
      ["listNamespaces, options with a throwing getter", () => store.listNamespaces(throwingGetter("prefix")), "invalid_input"],
      ["batch, a 10,000-deep operation list", () => store.batch(deep(10_000)), "invalid_input"],
      ["batch, a get of a 10,000-deep namespace", () => store.batch([{ namespace: deep(10_000), key: "k" }]), namespaceError],
      ["batch, a put behind a throwing getter", () => store.batch([{ namespace: ["ns"], key: "k", get value() { throw new Error("value getter"); } }]), "invalid_input"],
      ["batch, a put whose value is a revoked Proxy", () => store.batch([{ namespace: ["ns"], key: "k", value: revoked() }]), "invalid_input"],
      ["batch, a search whose filter is a revoked Proxy", () => store.batch([{ namespacePrefix: ["ns"], filter: revoked() }]), "invalid_input"],
      ["batch, a put whose index is a trapping Proxy", () => store.batch([{ namespace: ["ns"], key: "k", value: { v: 1 }, index: trapping }]), "invalid_input"],
      ["batch, an operation that is a revoked Proxy", () => store.batch([revoked()]), "invalid_input"],
      ["batch, a revoked Proxy as the list", () => store.batch(revoked()), "invalid_input"],
    ];
    const { requests } = await recording(async () => {
      for (const [what, run, expected] of cases) {
        let e;
        try {
          await run();
        } catch (error) {
          e = error;
        }
        expect(e, what).toBeDefined();
        if (expected === namespaceError) {
          expect(e, `${what}: ${e}`).toBeInstanceOf(InvalidNamespaceError);
        } else {
          expect(e, `${what}: ${e}`).toBeInstanceOf(AgentmemError);
          expect(e.code, `${what}: ${e.message}`).toBe(expected);
        }
        expect(String(e.message), what).not.toContain("toString ran");
      }
    });
    expect(requests).toEqual([]);
    // Options read when the store is made.
    expect(() => new AgentmemStore(client, { ttl: { defaultTtl: revoked() } })).toThrow(expect.objectContaining({ code: "invalid_input", field: "ttl.defaultTtl" }));
    expect(() => new AgentmemStore(client, { index: { dims: revoked(), embed: () => [] } })).toThrow(expect.objectContaining({ code: "invalid_input", field: "index.dims" }));
    // The module and the store work afterwards.
    await store.put(["ns"], "k", { text: "still works" });
    expect((await store.get(["ns"], "k")).value).toEqual({ text: "still works" });
    expect(await store.listNamespaces()).toEqual([["ns"]]);
  });
});
