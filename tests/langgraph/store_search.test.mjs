// AgentmemStore's PostgresStore features against the real stack: full-text, vector and
// hybrid search (compared with LangGraph's PostgresStore on the same Postgres, on the same
// items, where their definitions agree), distance metrics and similarity thresholds,
// getStats(), the index options, one request per call, and tenancy on each new path.
import { PostgresStore } from "@langchain/langgraph-checkpoint-postgres/store";
import { AgentmemError } from "agentmem-supabase";
import { AgentmemStore } from "agentmem-supabase/langgraph";
import pg from "pg";
import { bagOfWords } from "./bag_of_words.mjs";
import { env, newUser, recording, service } from "./stack.mjs";

const DIMS = 384;
const embed = (texts) => texts.map(bagOfWords);
const rpc = (fn) => `POST /rpc/${fn}`;
const run = crypto.randomUUID().slice(0, 8);

// PostgresStore in a schema of its own in the stack's database, as the superuser (how it is
// deployed); the comparisons use namespaces of this run only.
const SCHEMA = "agentmem_test_postgres_store";
const pgUrl = () => {
  const u = new URL(env.AGENTMEM_DB_URL);
  u.searchParams.set("options", "-c search_path=public,extensions");
  return u.toString();
};
const postgresStores = [];
function postgresStore(options = {}) {
  const store = new PostgresStore({ connectionOptions: pgUrl(), schema: SCHEMA, ...options });
  postgresStores.push(store);
  return store;
}
afterAll(async () => {
  await Promise.all(postgresStores.map((s) => s.stop()));
  const db = new pg.Client({ connectionString: env.AGENTMEM_DB_URL });
  await db.connect();
  await db.query(`drop schema if exists ${SCHEMA} cascade`);
  await db.end();
});

/** Documents whose words make distinct text ranks and similarities for the queries below.
 *  Keys in jsonb's order (shorter first), so the whole value reads the same as JSON text
 *  in both stores. */
const DOCS = {
  a: { title: "Vendor list", content: "Preferred vendor for office chairs; the vendor ships weekly" },
  b: { title: "Travel notes", content: "Flights booked with the travel agent, hotel near the vendor fair" },
  c: { title: "Pricing", content: "Vendor pricing vendor discounts vendor contracts and vendor terms" },
  d: { title: "Kitchen", content: "Recipes for soup, bread and pasta" },
  e: { title: "Vendorship", content: "Notes on supplier relations" },
};

/** The same items in an AgentmemStore (a new user) and a PostgresStore (a namespace of
 *  this run), indexing the whole value. */
async function both(indexed = true) {
  const ns = ["cmp", run, crypto.randomUUID().slice(0, 8)];
  const index = { dims: DIMS, embed, fields: ["$"] };
  const ours = new AgentmemStore((await newUser()).client, indexed ? { index } : {});
  const theirs = postgresStore(indexed ? { index } : {});
  await theirs.setup();
  for (const [key, value] of Object.entries(DOCS)) {
    await ours.put(ns, key, value);
    await theirs.put(ns, key, value);
  }
  return { ns, ours, theirs };
}

/** Keys and scores, in order, scores rounded beyond float4 noise. */
const ranked = (items) => items.map((i) => [i.key, i.score === undefined ? undefined : Math.round(i.score * 1e6) / 1e6]);
/** No two neighbours tie: an order between equal scores is each store's own. */
const distinct = (items) => items.every((item, i) => i === 0 || Math.abs(items[i - 1].score - item.score) > 1e-6);

describe("AgentmemStore ranks as PostgresStore where their definitions agree", () => {
  test("text search: ts_rank of websearch_to_tsquery over the document, a substring match after, filters", async () => {
    for (const indexed of [false, true]) {
      const { ns, ours, theirs } = await both(indexed);
      for (const [query, filter] of [["vendor", undefined], ["vendor pricing", undefined], ["travel hotel", undefined], ["vendor", { title: "Pricing" }]]) {
        const mine = await ours.search(ns, { query, mode: "text", filter });
        const peer = await theirs.search(ns, { query, mode: "text", filter });
        expect(mine.length, query).toBeGreaterThan(0);
        expect(distinct(mine), `${query}: a test of order needs distinct scores`).toBe(true);
        // PostgresStore's text scores are `ts_rank || undefined`: a rank of 0 is undefined there.
        expect(ranked(mine), `${query} (indexed: ${indexed})`).toEqual(ranked(peer.map((i) => ({ ...i, score: i.score ?? 0 }))));
      }
      // "e" matches "vendor" only as a substring (Vendorship): last, at ts_rank's floor.
      const all = await ours.search(ns, { query: "vendor", mode: "text" });
      expect(all.map((i) => i.key)).toEqual(["c", "a", "b", "e"]);
      expect(all[3].score).toBe(0);
      // Without an index, "auto" is text search (PostgresStore's choice).
      if (!indexed) expect(ranked(await ours.search(ns, { query: "vendor", mode: "auto" }))).toEqual(ranked(all));
    }
  });

  test("vector search: cosine and l2 similarity, a threshold, pages", async () => {
    const { ns, ours, theirs } = await both();
    // Cosine thresholds above 0 mean the same in both (PostgresStore ignores 0); they keep
    // out the items that share no word with the query, whose equal scores would tie.
    for (const options of [
      { query: "vendor pricing terms", similarityThreshold: 0.01 },
      { query: "vendor pricing terms", distanceMetric: "l2" },
      { query: "travel agent hotel", similarityThreshold: 0.2 },
      { query: "vendor pricing terms", limit: 2, offset: 1, similarityThreshold: 0.01 },
    ]) {
      const mine = await ours.search(ns, { ...options, mode: "vector" });
      const peer = await theirs.search(ns, { ...options, mode: "vector" });
      expect(mine.length, JSON.stringify(options)).toBeGreaterThan(0);
      expect(distinct(mine), JSON.stringify(options)).toBe(true);
      expect(ranked(mine), JSON.stringify(options)).toEqual(ranked(peer));
    }
    // With an index, "auto" is vector search.
    expect(ranked(await ours.search(ns, { query: "vendor pricing terms", mode: "auto", limit: 2 })))
      .toEqual(ranked(await theirs.search(ns, { query: "vendor pricing terms", mode: "auto", limit: 2 })));
  });

  test("hybrid search: vectorWeight × similarity + (1 − vectorWeight) × ts_rank, text matches or similar items", async () => {
    const { ns, ours, theirs } = await both();
    // A threshold keeps out the items that neither match nor share a word (equal scores).
    for (const options of [
      { query: "vendor pricing", similarityThreshold: 0.05 },
      { query: "vendor pricing", vectorWeight: 0.1, similarityThreshold: 0.05 },
      { query: "vendor pricing", vectorWeight: 0.9, similarityThreshold: 0.05 },
      { query: "travel hotel", vectorWeight: 0.5, similarityThreshold: 0.3 },
      { query: "soup", vectorWeight: 0.5, similarityThreshold: 0.05 },
    ]) {
      const mine = await ours.search(ns, { ...options, mode: "hybrid" });
      const peer = await theirs.search(ns, { ...options, mode: "hybrid" });
      expect(mine.length, JSON.stringify(options)).toBeGreaterThan(0);
      expect(distinct(mine), JSON.stringify(options)).toBe(true);
      expect(ranked(mine), JSON.stringify(options)).toEqual(ranked(peer));
    }
    // The two ends of vectorWeight: the text rank alone, the similarity alone.
    const query = "vendor pricing";
    const text = Object.fromEntries((await ours.search(ns, { query, mode: "text" })).map((i) => [i.key, i.score]));
    const similarity = Object.fromEntries((await ours.vectorSearch(ns, query)).map((i) => [i.key, i.score]));
    const byText = await ours.hybridSearch(ns, query, { vectorWeight: 0 });
    const bySimilarity = await ours.hybridSearch(ns, query, { vectorWeight: 1 });
    expect(byText[0].key).toBe("c");
    for (const item of byText) expect(item.score).toBeCloseTo(text[item.key] ?? 0, 6);
    for (const item of bySimilarity) expect(item.score).toBeCloseTo(similarity[item.key], 6);
    expect(bySimilarity.map((i) => i.key)).toEqual(Object.keys(similarity));
  });

  test("inner product: the inner product, highest first (PostgresStore gives its negative, lowest first)", async () => {
    const { ns, ours, theirs } = await both();
    const query = "vendor pricing vendor";
    const mine = await ours.search(ns, { query, mode: "vector", distanceMetric: "inner_product" });
    const q = bagOfWords(query);
    const dot = (text) => bagOfWords(text).reduce((s, x, i) => s + x * q[i], 0);
    const expected = Object.entries(DOCS).map(([key, value]) => [key, dot(JSON.stringify(value))]).sort((x, y) => y[1] - x[1]);
    expect(mine.map((i) => [i.key, i.score])).toEqual(expected);
    const peer = await theirs.search(ns, { query, mode: "vector", distanceMetric: "inner_product" });
    const dots = Object.fromEntries(expected);
    for (const item of peer) expect(0 - item.score + 0).toBe(dots[item.key]);
    for (let i = 1; i < peer.length; i++) expect(-peer[i - 1].score).toBeLessThanOrEqual(-peer[i].score);
  });
});

describe("AgentmemStore search modes, metrics and thresholds", () => {
  /** A store of a new user with `n` items whose vectors and documents are known here. */
  async function seeded(options = {}) {
    const store = new AgentmemStore((await newUser()).client, { index: { dims: DIMS, embed, fields: ["text"], ...options } });
    const words = ["vendor", "pricing", "travel", "hotel", "soup", "bread", "chairs", "office"];
    const items = Array.from({ length: 60 }, (_, i) => ({
      key: `k${String(i).padStart(2, "0")}`,
      value: { text: Array.from({ length: 1 + (i % 5) }, (_, j) => words[(i * 3 + j * 5) % words.length]).join(" "), n: i % 3 },
    }));
    await store.batch(items.map(({ key, value }) => ({ namespace: ["m"], key, value })));
    await store.put(["m"], "plain", { text: "vendor pricing", n: 0 }, false);
    return { store, items };
  }
  const cos = (a, b) => {
    const dot = a.reduce((s, x, i) => s + x * b[i], 0);
    const norm = (v) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
    return dot / (norm(a) * norm(b));
  };
  const l2 = (a, b) => 1 / (1 + Math.sqrt(a.reduce((s, x, i) => s + (x - b[i]) ** 2, 0)));

  test("each metric is exact over every item the filter keeps, from the index's default or per query", async () => {
    const { store, items } = await seeded({ distanceMetric: "l2" });
    const query = "vendor pricing hotel";
    const q = bagOfWords(query);
    for (const [metric, score] of [["cosine", cos], ["l2", l2]]) {
      const options = metric === "l2" ? {} : { distanceMetric: metric }; // l2: the index's default
      const mine = await store.search(["m"], { query, mode: "vector", filter: { n: 1 }, limit: 100, ...options });
      const expected = items.filter((i) => i.value.n === 1).map((i) => [i.key, score(bagOfWords(i.value.text), q)]);
      expect(mine.map((i) => i.key).sort()).toEqual(expected.map(([k]) => k).sort());
      for (const item of mine) expect(item.score).toBeCloseTo(Object.fromEntries(expected)[item.key], 6);
      for (let i = 1; i < mine.length; i++) expect(mine[i - 1].score).toBeGreaterThanOrEqual(mine[i].score);
    }
  });

  test("similarityThreshold keeps the items whose score reaches it, in every metric and mode", async () => {
    const { store } = await seeded();
    const query = "vendor pricing";
    for (const metric of ["cosine", "l2", "inner_product"]) {
      const all = await store.search(["m"], { query, mode: "vector", distanceMetric: metric, limit: 100 });
      const cut = all[Math.floor(all.length / 3)].score;
      const kept = await store.search(["m"], { query, mode: "vector", distanceMetric: metric, similarityThreshold: cut, limit: 100 });
      expect(kept).toEqual(all.filter((i) => i.score >= cut));
      expect(kept.length).toBeLessThan(all.length);
    }
    // InMemoryStore's ranking (no mode): the items without vectors follow, unless a
    // threshold asks for similar items only.
    const open = await store.search(["m"], { query, limit: 100 });
    expect(open.at(-1)).toMatchObject({ key: "plain", score: undefined });
    const closed = await store.search(["m"], { query, similarityThreshold: 0.5, limit: 100 });
    expect(closed.every((i) => i.score >= 0.5)).toBe(true);
    expect(closed.map((i) => i.key)).not.toContain("plain");
    // Vector mode never returns an item without vectors (PostgresStore's join).
    expect((await store.search(["m"], { query, mode: "vector", limit: 100 })).map((i) => i.key)).not.toContain("plain");
  });

  test("full text: the indexed fields only, the put's own paths, index: false, the configuration, websearch syntax", async () => {
    const user = await newUser();
    const store = new AgentmemStore(user.client, { index: { dims: DIMS, embed, fields: ["text"] } });
    await store.put(["t"], "a", { text: "running shoes for the marathon", note: "pancakes" });
    await store.put(["t"], "b", { text: "shoes for running", note: "waffles" }, ["note"]);
    await store.put(["t"], "c", { text: "running late" }, false);
    const keys = async (query, store_ = store) => (await store_.search(["t"], { query, mode: "text" })).map((i) => i.key);
    expect(await keys("pancakes")).toEqual([]); // not an indexed field
    expect(await keys("waffles")).toEqual(["b"]); // the put's own paths
    expect(await keys("runs")).toEqual(["a"]); // english stems; "c" has no document
    expect(await keys('"running shoes"')).toEqual(["a"]); // a phrase
    expect(await keys("running -marathon")).toEqual([]); // b is indexed by its note only
    expect((await keys("marathon or waffles")).sort()).toEqual(["a", "b"]);
    // Another configuration: "simple" does not stem, and the stored document is read again.
    const simple = new AgentmemStore(user.client, { textSearchLanguage: "simple" });
    expect(await keys("runs", simple)).toEqual([]);
    expect(await keys("running", simple)).toEqual(["a"]);
    const unknown = await new AgentmemStore(user.client, { textSearchLanguage: "klingon" }).search(["t"], { query: "x", mode: "text" }).catch((e) => e);
    expect(unknown).toBeInstanceOf(AgentmemError);
    expect([unknown.code, unknown.message]).toEqual(["invalid_input", expect.stringMatching(/no text search configuration named 'klingon'/)]);
    expect(() => new AgentmemStore(user.client, { textSearchLanguage: "english; drop table x" })).toThrow(/textSearchLanguage/);
    // Only stop words: nothing matches as words, and the substring still may.
    expect(await keys("the")).toEqual(["a"]);
    // The substring is literal text: % and _ are characters (PostgresStore's ILIKE takes them as wildcards).
    await store.put(["t"], "pct", { text: "100% sure_thing" });
    expect(await keys("%")).toEqual(["pct"]);
    expect(await keys("_")).toEqual(["pct"]);
    // The whole value as the one field: its stored JSON text is the document (nothing kept
    // twice), read again in another configuration.
    await new AgentmemStore(user.client).put(["w"], "whole", { title: "Running shoes" });
    await store.put(["w"], "field", { text: "Running shoes" });
    const rows = (await service().select("langgraph_store_items", { columns: "key,search_text,search_config", filters: [["tenant_id", "eq", user.id], ["namespace", "eq", "{w}"]] })).data;
    expect(Object.fromEntries(rows.map((r) => [r.key, [r.search_text, r.search_config]]))).toEqual({ whole: [null, "english"], field: ["Running shoes", "english"] });
    expect((await simple.search(["w"], { query: "running title", mode: "text" })).map((i) => i.key)).toEqual(["whole"]);
    expect((await store.search(["w"], { query: "runs", mode: "text" })).map((i) => i.key).sort()).toEqual(["field", "whole"]);
  });

  test("the batch function's own checks: the document's bound, its configuration, the search's fields (22023, nothing written)", async () => {
    const user = await newUser();
    const call = (ops) => user.client.rpc("langgraph_store_batch", { p_ops: ops }).then(() => null, (e) => e);
    const put = (extra) => ({ op: "put", namespace: ["b"], key: "k", value: { a: 1 }, ...extra });
    for (const [ops, message] of [
      [[put({ text: "x ".repeat(1048577) })], /indexed text is 2097154 bytes; at most 2 MiB/],
      [[put({ text: "x", config: "nope" })], /no text search configuration named 'nope'/],
      [[put({ text: "x", config: "pg_catalog.nope" })], /no text search configuration named 'pg_catalog.nope'/],
      [[{ op: "search", prefix: [], mode: "fuzzy" }], /mode must be "vector", "text" or "hybrid"/],
      [[{ op: "search", prefix: [], metric: "hamming" }], /metric must be/],
      [[{ op: "search", prefix: [], threshold: "high" }], /threshold must be a number/],
      [[{ op: "search", prefix: [], mode: "vector" }], /needs the query's vector/],
      [[{ op: "search", prefix: [], mode: "text" }], /needs the query text/],
      [[{ op: "search", prefix: [], mode: "hybrid", query: "x", vector: Array(DIMS).fill(1), vectorWeight: 1.5 }], /vectorWeight must be a number from 0 to 1/],
      // A vector as its text is counted before it is built, and bounded by its count.
      [[{ op: "search", prefix: [], vector: `[${Array(DIMS - 1).fill(1)}]` }], new RegExp(`query embedding has ${DIMS - 1} dimensions`)],
      [[{ op: "search", prefix: [], vector: `[${" ".repeat(30 * DIMS)}${Array(DIMS).fill(1)}]` }], /query embedding has no valid dimensions/],
      [[{ op: "search", prefix: [], vector: 7 }], /query embedding has no valid dimensions/],
      [[put({ vectors: [{ field: "a", embedding: `[${Array(DIMS + 1).fill(1)}]` }] })], new RegExp(`an embedding does not have ${DIMS} dimensions`)],
      [[put({ vectors: [{ field: "a", embedding: { x: 1 } }] })], new RegExp(`an embedding does not have ${DIMS} dimensions`)],
    ]) {
      const e = await call(ops);
      expect(e, String(message)).toBeInstanceOf(AgentmemError);
      expect([e.code, e.pgrstCode, e.message], String(message)).toEqual(["invalid_input", "22023", expect.stringMatching(message)]);
    }
    // A text with the right count but a number that is none: the vector type's own error,
    // nothing written.
    const malformed = await call([put({ vectors: [{ field: "a", embedding: `[${Array(DIMS - 1).fill(1)},x]` }] })]);
    expect(malformed).toBeInstanceOf(AgentmemError);
    expect([malformed.pgrstCode, malformed.message]).toEqual(["22P02", expect.stringMatching(/invalid input syntax for type vector/)]);
    expect(await new AgentmemStore(user.client).get(["b"], "k")).toBeNull();
    // A schema-qualified configuration is found.
    expect(await call([put({ text: "x", config: "pg_catalog.simple" })])).toBeNull();
    // A vector as a JSON array or as its text: the same vector.
    const unit = (i) => Array.from({ length: DIMS }, (_, j) => (j === i ? 1 : 0));
    expect(await call([put({ vectors: [{ field: "a", embedding: unit(0) }] }), { ...put({ vectors: [{ field: "a", embedding: `[${unit(1)}]` }] }), key: "k2" }])).toBeNull();
    const { data: found } = await user.client.rpc("langgraph_store_batch", { p_ops: [
      { op: "search", prefix: ["b"], vector: `[${unit(1)}]`, limit: 1, offset: 0 }, { op: "search", prefix: ["b"], vector: unit(0), limit: 1, offset: 0 }] });
    expect(found.map((rows) => [rows[0].key, rows[0].score])).toEqual([["k2", 1], ["k", 1]]);
  });

  test("modes as PostgresStore names them, its errors, and a mode without a query lists the items", async () => {
    const client = (await newUser()).client;
    const plain = new AgentmemStore(client);
    await plain.put(["e"], "k", { text: "hello" });
    await expect(plain.search(["e"], { query: "q", mode: "vector" })).rejects.toThrow(/Vector search requested but not configured/);
    await expect(plain.search(["e"], { query: "q", mode: "hybrid" })).rejects.toThrow(/Hybrid search requested but vector search not configured/);
    await expect(plain.vectorSearch(["e"], "q")).rejects.toThrow(/Vector search not configured/);
    await expect(plain.search(["e"], { query: "q", mode: "fuzzy" })).rejects.toThrow(/Unknown search mode/);
    expect((await plain.search(["e"], { mode: "vector" })).map((i) => i.key)).toEqual(["k"]);
    expect((await plain.textSearch(["e"])).map((i) => i.key)).toEqual(["k"]);
    // In a batch, as a search operation's fields.
    const [hits] = await plain.batch([{ namespacePrefix: ["e"], query: "hello", mode: "text" }]);
    expect(hits.map((i) => i.key)).toEqual(["k"]);
  });
});

describe("AgentmemStore getStats, index options, requests, tenancy", () => {
  test("getStats: the caller's own items, namespaces, vectors and expiring items", async () => {
    const [alice, bob] = [await newUser(), await newUser()];
    const a = new AgentmemStore(alice.client, { index: { dims: DIMS, embed, fields: ["text"] } });
    const b = new AgentmemStore(bob.client);
    const empty = { totalItems: 0, expiredItems: 0, expiringItems: 0, namespaceCount: 0, vectorCount: 0, oldestItem: null, newestItem: null };
    expect(await a.getStats()).toEqual(empty);
    const servicesOwn = await new AgentmemStore(service()).getStats();
    await a.put(["s", "1"], "k1", { text: "one" });
    await a.put(["s", "1"], "k2", { text: "two" }, undefined, { ttl: 60 });
    await a.put(["s", "2"], "k3", { text: "three" }, undefined, { ttl: 0.001 });
    await a.put(["s", "2"], "k4", { other: "no text field" });
    await new Promise((r) => setTimeout(r, 150));
    const stats = await a.getStats();
    expect(stats).toMatchObject({ totalItems: 4, expiredItems: 1, expiringItems: 1, namespaceCount: 2, vectorCount: 3 });
    expect(stats.oldestItem).toBeInstanceOf(Date);
    expect(stats.newestItem.getTime()).toBeGreaterThanOrEqual(stats.oldestItem.getTime());
    // Bob, the service role and another store of Alice's on her own client.
    expect(await b.getStats()).toEqual(empty);
    expect(await new AgentmemStore(service()).getStats()).toEqual(servicesOwn);
    expect(await new AgentmemStore(service().actingFor(alice.id)).getStats()).toEqual(stats);
    await a.sweepExpiredItems();
    expect(await a.getStats()).toMatchObject({ totalItems: 3, expiredItems: 0, vectorCount: 2 });
  });

  test("index options: indexType, hnsw and ivfflat are refused with the reason; the rest is accepted", async () => {
    const client = (await newUser()).client;
    const index = { dims: DIMS, embed };
    for (const [option, value] of [["indexType", "hnsw"], ["indexType", "ivfflat"], ["hnsw", { m: 16, efConstruction: 200 }], ["ivfflat", { lists: 100 }]]) {
      const e = (() => {
        try {
          new AgentmemStore(client, { index: { ...index, [option]: value } });
        } catch (error) {
          return error;
        }
      })();
      expect(e, option).toBeInstanceOf(AgentmemError);
      expect([e.code, e.field], option).toEqual(["invalid_input", `index.${option}`]);
      expect(e.message).toMatch(/shared by every tenant.*exact scans/s);
    }
    for (const metric of ["cosine", "l2", "inner_product"]) {
      expect(() => new AgentmemStore(client, { index: { ...index, distanceMetric: metric, createAllMetricIndexes: true } })).not.toThrow();
    }
    expect(() => new AgentmemStore(client, { index: { ...index, distanceMetric: "hamming" } })).toThrow(/index.distanceMetric/);
    expect(() => new AgentmemStore(client, { index: { ...index, createAllMetricIndexes: "yes" } })).toThrow(/createAllMetricIndexes/);
  });

  test("every mode, getStats and a batch of them are one request; text search embeds nothing", async () => {
    const calls = [];
    const counting = (texts) => {
      calls.push(texts);
      return embed(texts);
    };
    const store = new AgentmemStore((await newUser()).client, { index: { dims: DIMS, embed: counting, fields: ["text"] } });
    await store.put(["r"], "a", { text: "vendor pricing" });
    const one = [rpc("langgraph_store_batch")];
    const measure = async (fn) => (await recording(fn)).requests;
    calls.length = 0;
    expect(await measure(() => store.search(["r"], { query: "vendor", mode: "text" }))).toEqual(one);
    expect(calls).toEqual([]);
    for (const mode of ["vector", "hybrid", "auto"]) expect(await measure(() => store.search(["r"], { query: "vendor", mode }))).toEqual(one);
    expect(await measure(() => store.getStats())).toEqual(one);
    calls.length = 0;
    expect(await measure(() => store.batch([
      { namespacePrefix: ["r"], query: "vendor", mode: "text" },
      { namespacePrefix: ["r"], query: "pricing", mode: "hybrid", vectorWeight: 0.4 },
      { namespacePrefix: ["r"], query: "pricing", mode: "vector", distanceMetric: "l2", similarityThreshold: 0.1 },
      { namespace: ["r"], key: "b", value: { text: "travel" } },
    ]))).toEqual(one);
    expect(calls).toEqual([["travel", "pricing"]]);
  });

  test("another tenant's items never appear in text or hybrid results, statistics or errors", async () => {
    const [alice, bob] = [await newUser(), await newUser()];
    const index = { dims: DIMS, embed, fields: ["text"] };
    const a = new AgentmemStore(alice.client, { index });
    const b = new AgentmemStore(bob.client, { index });
    await a.put(["users", "shared"], "secret", { text: "alice pineapple allergy" });
    await b.put(["users", "shared"], "mine", { text: "bob likes tea" });
    for (const mode of ["text", "hybrid", "vector", "auto"]) {
      for (const prefix of [[], ["users"], ["users", "shared"]]) {
        const found = await b.search(prefix, { query: "alice pineapple allergy", mode, similarityThreshold: mode === "text" ? undefined : -1, limit: 100 });
        expect(JSON.stringify(found), `${mode} ${JSON.stringify(prefix)}`).not.toMatch(/alice|secret/);
      }
    }
    expect((await b.textSearch([], { query: "tea" })).map((i) => i.key)).toEqual(["mine"]);
    expect(await b.getStats()).toMatchObject({ totalItems: 1, namespaceCount: 1, vectorCount: 1 });
    // An error says nothing of what others stored.
    const refusal = await new AgentmemStore(bob.client, { textSearchLanguage: "nope" }).search(["users"], { query: "pineapple", mode: "text" }).catch((e) => e);
    expect(JSON.stringify({ m: refusal.message, d: refusal.details, h: refusal.hint })).not.toMatch(/alice|pineapple|secret/);
    // In SQL, as Bob, naming Alice's tenant: nothing.
    const db = new pg.Client({ connectionString: env.AGENTMEM_DB_URL });
    await db.connect();
    try {
      const results = await db.query(`begin; select set_config('request.jwt.claims', '${JSON.stringify({ sub: bob.id, role: "authenticated" })}', true);
        set local role authenticated;
        select agentmem.langgraph_store_search('${alice.id}', '{}', null, null, 10, 0, '{"mode": "text", "query": "pineapple"}') as r; rollback;`);
      expect(results.find((r) => r.command === "SELECT" && r.fields[0]?.name === "r").rows[0].r).toEqual([]);
    } finally {
      await db.end();
    }
  });
});
