// @ts-check
// AgentmemStore: LangGraph's long-term memory (BaseStore) over PostgREST, exported by
// agentmem-supabase/langgraph beside AgentmemSaver.
//
// Every batch() is ONE call of public.langgraph_store_batch
// (supabase/migrations/*_langgraph_store.sql): one HTTP request, one transaction, run as
// the client's user, so row-level security keeps each tenant's namespaces its own. The
// results are InMemoryStore's for the same operations (the reference the differential
// test compares against): reads see the state before the batch's writes, a key written
// twice keeps its last value, searches and namespaces come in its order. What it does
// differently, on purpose: an empty namespace is not listed, a put replaces the vectors
// of the item's older value, and a nested object in a filter matches field by field (as
// LangGraph's Python stores do) rather than never.
//
// Embeddings come from the caller: `index.embed` (agentmem's callback, (texts, { signal })
// => vectors, the memory tools' kind) or a LangChain Embeddings object; a batch sends all
// the texts it needs embedded in one invocation, before its request.
import { BaseStore, InvalidNamespaceError, validateNamespace } from "@langchain/langgraph-checkpoint";
import { clientOptions, createClient, isClient } from "./client.js";
import { AgentmemError } from "./errors.js";
import { embedOnce, guarded } from "./io.js";
import { describe, toJson } from "./json.js";
import { CAPABILITY, CLIENT_OP } from "./names.js";
import { call, hasIdentity, prim, unreadable } from "./wasm.js";
/**
 * @import { GetOperation, Item, ListNamespacesOperation, Operation, OperationResults, PutOperation, SearchItem,
 *   SearchOperation } from "@langchain/langgraph-checkpoint"
 * @import { AgentmemClient, ClientOptions, EmbedFn } from "./index.d.ts"
 * @import { AgentmemStore as Declared, AgentmemStoreOptions, AgentmemStoreSearchOptions, StoreEmbeddings } from "./langgraph.d.ts"
 */

const EMBED_TIMEOUT_MS = 30000;
const MAX_EMBED_TIMEOUT_MS = 600000;
// The store's bounds, as its migration states and enforces them. Checked here too, so an
// operation that cannot be stored is refused, naming its field, before any text of the
// batch is embedded (the batch's total size only once it is assembled).
const MAX_KEY_BYTES = 2048; // the labels' and the key's UTF-8 bytes, plus 8 per label
const MAX_FIELD_BYTES = 256; // an indexed field's path
const MAX_VALUE_BYTES = 1048576; // a value's JSON text
const MAX_BATCH_OPS = 10000;
const MAX_BATCH_BYTES = 33554432; // the batch's JSON text

/**
 * The UTF-8 bytes of a string, without encoding it.
 * @param {string} s
 */
function utf8Length(s) {
  let n = s.length;
  for (let i = 0; i < s.length; i += 1) {
    const c = s.charCodeAt(i);
    // A surrogate is half of a 4-byte character: 2 bytes each.
    if (c >= 0x80) n += c < 0x800 || (c >= 0xd800 && c <= 0xdfff) ? 1 : 2;
  }
  return n;
}

/**
 * @param {string} field
 * @param {string} message
 * @returns {AgentmemError}
 */
const invalid = (field, message) => new AgentmemError("invalid_input", message, { field });

/**
 * A caller's object as a plain copy of its own keys, read once; refuses keys not in `known`.
 * @param {string} field
 * @param {unknown} value
 * @param {string[]} known
 * @returns {Record<string, unknown>}
 */
function ownKeys(field, value, known) {
  let array = false;
  try {
    array = Array.isArray(value);
  } catch (e) {
    throw unreadable(field, e);
  }
  if (value === null || typeof value !== "object" || array) {
    throw invalid(field, `${field} must be an object { ${known.join(", ")} }, got ${describe(value)}`);
  }
  /** @type {Record<string, unknown>} */
  let own;
  try {
    own = { ...value };
  } catch (e) {
    throw unreadable(field, e);
  }
  for (const key of Object.keys(own)) {
    if (!known.includes(key)) {
      throw invalid(`${field}.${key}`, `${field}.${key} is not a known option; expected one of: ${known.join(", ")}`);
    }
  }
  return own;
}

/**
 * @param {string} field
 * @param {unknown} v
 * @param {number} min
 * @param {number} max
 * @returns {number}
 */
function integer(field, v, min, max) {
  if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) {
    throw invalid(field, `${field} must be an integer from ${min} to ${max}, got ${describe(v)}`);
  }
  return v;
}

/**
 * TTL in minutes: a positive finite number, or null for "never expires".
 * @param {string} field
 * @param {unknown} v
 * @returns {number | null}
 */
function minutes(field, v) {
  if (v === null) return null;
  if (typeof v !== "number" || !Number.isFinite(v) || v <= 0 || v > 5256000000) {
    throw invalid(field, `${field} must be a number of minutes greater than 0 (or null: never expires), got ${describe(v)}`);
  }
  return v;
}

// Paths of the fields to embed, as LangGraph's stores read them: "a.b", "a[0]", "a[-1]",
// "a[*].b", "*", "{a,b.c}", and "$" for the whole value.

/**
 * @param {string} path
 * @returns {string[]}
 */
export function tokenizePath(path) {
  /** @type {string[]} */
  const tokens = [];
  let current = "";
  for (let i = 0; i < path.length;) {
    const c = path[i];
    if (c === "[" || c === "{") {
      if (current) tokens.push(current);
      current = "";
      const close = c === "[" ? "]" : "}";
      let depth = 1;
      let token = c;
      i += 1;
      while (i < path.length && depth > 0) {
        if (path[i] === c) depth += 1;
        else if (path[i] === close) depth -= 1;
        token += path[i];
        i += 1;
      }
      tokens.push(token);
      continue;
    }
    if (c === ".") {
      if (current) tokens.push(current);
      current = "";
    } else {
      current += c;
    }
    i += 1;
  }
  if (current) tokens.push(current);
  return tokens;
}

/** @param {unknown} v */
const isScalar = (v) => typeof v === "string" || typeof v === "number" || typeof v === "boolean";
/**
 * @param {unknown} v
 * @returns {v is Record<string, any>}
 */
const isObject = (v) => typeof v === "object" && v !== null;

/**
 * The texts at `tokens` in `value`: scalars as text, objects and arrays as JSON, indented
 * by `indent` (InMemoryStore embeds indented JSON; the full-text document takes it
 * compact, whose words are the same).
 * @param {unknown} value
 * @param {string[]} tokens
 * @param {number} [indent]
 * @returns {string[]}
 */
export function textsAt(value, tokens, indent = 2) {
  /**
   * @param {any} v
   * @param {number} at
   * @returns {string[]}
   */
  const walk = (v, at) => {
    if (at >= tokens.length) {
      if (isScalar(v)) return [String(v)];
      return isObject(v) ? [JSON.stringify(v, null, indent)] : [];
    }
    const token = tokens[at];
    /** @type {string[]} */
    const out = [];
    if (at === 0 && token === "$") out.push(JSON.stringify(v, null, indent));
    if (token.startsWith("[") && token.endsWith("]")) {
      if (!Array.isArray(v)) return [];
      const index = token.slice(1, -1);
      if (index === "*") {
        for (const item of v) out.push(...walk(item, at + 1));
      } else {
        let i = Number.parseInt(index, 10);
        if (i < 0) i += v.length;
        if (i >= 0 && i < v.length) out.push(...walk(v[i], at + 1));
      }
    } else if (token.startsWith("{") && token.endsWith("}")) {
      if (!isObject(v)) return [];
      for (const field of token.slice(1, -1).split(",").map((f) => f.trim())) {
        const nested = tokenizePath(field);
        if (!nested.length) continue;
        let cur = v;
        for (const part of nested) {
          cur = isObject(cur) && part in cur ? cur[part] : undefined;
          if (cur === undefined) break;
        }
        if (cur === undefined) continue;
        if (isScalar(cur)) out.push(String(cur));
        else if (isObject(cur)) out.push(JSON.stringify(cur, null, indent));
      }
    } else if (token === "*") {
      if (isObject(v)) for (const item of Array.isArray(v) ? v : Object.values(v)) out.push(...walk(item, at + 1));
    } else if (isObject(v) && token in v) {
      out.push(...walk(v[token], at + 1));
    }
    return out;
  };
  return walk(value, 0);
}

/** @typedef {[path: string, tokens: string[]]} Field */
/** @typedef {"cosine" | "l2" | "inner_product"} Metric */
/**
 * @typedef {{ dims: number, fields: Field[], documents: (texts: string[]) => Promise<Float64Array[]>,
 *   queries: (texts: string[]) => Promise<Float64Array[]>, together: boolean, metric: Metric }} Index
 */

const METRICS = ["cosine", "l2", "inner_product"];
const MODES = ["vector", "text", "hybrid", "auto"];

/**
 * @param {string} field
 * @param {unknown} v
 * @returns {Metric}
 */
function metricOf(field, v) {
  if (typeof v !== "string" || !METRICS.includes(v)) {
    throw invalid(field, `${field} must be "cosine", "l2" or "inner_product", got ${describe(v)}`);
  }
  return /** @type {Metric} */ (v);
}

/**
 * @param {string} field
 * @param {unknown} paths
 * @returns {Field[]}
 */
function fieldList(field, paths) {
  if (!Array.isArray(paths)) throw invalid(field, `${field} must be an array of paths (strings), got ${describe(paths)}`);
  return Array.from(paths, (p, i) => {
    if (typeof p !== "string" || p === "") throw invalid(`${field}[${i}]`, `${field}[${i}] must be a non-empty path, got ${describe(p)}`);
    if (utf8Length(p) > MAX_FIELD_BYTES) throw invalid(`${field}[${i}]`, `${field}[${i}] is ${utf8Length(p)} bytes of UTF-8; an indexed path is at most ${MAX_FIELD_BYTES}`);
    return /** @type {Field} */ ([p, p === "$" ? ["$"] : tokenizePath(p)]);
  });
}

/**
 * The vectors of `texts`, or the embedder's failure as an AgentmemError.
 * @param {EmbedFn} embed
 * @param {string[]} texts
 * @param {number} timeoutMs
 * @param {number} dims
 * @returns {Promise<Float64Array[]>}
 */
async function embedded(embed, texts, timeoutMs, dims) {
  if (texts.length === 0) return [];
  const outcome = await embedOnce(embed, texts, timeoutMs, dims, "this AgentmemStore's index.dims");
  if (!("vectors" in outcome)) throw new AgentmemError(outcome.code, outcome.message, { cause: outcome.cause });
  // Stored as 32-bit floats: a component that is not finite there is no vector (the memory
  // tools refuse the same, src/memory/embedding.rs).
  for (const [i, vector] of outcome.vectors.entries()) {
    for (let j = 0; j < vector.length; j++) {
      if (!Number.isFinite(Math.fround(vector[j]))) {
        throw new AgentmemError("embedding_failed", `embedding ${i}[${j}] is ${vector[j]}, not a finite number`);
      }
    }
  }
  return outcome.vectors;
}

/**
 * @param {unknown} index
 * @param {number} timeoutMs
 * @returns {Index | null}
 */
function indexConfig(index, timeoutMs) {
  if (index === undefined || index === null) return null;
  const own = ownKeys("index", index,
    ["dims", "fields", "embed", "embeddings", "distanceMetric", "createAllMetricIndexes", "indexType", "hnsw", "ivfflat"]);
  const dims = integer("index.dims", own.dims, 1, 16000);
  const metric = own.distanceMetric === undefined ? "cosine" : metricOf("index.distanceMetric", own.distanceMetric);
  // Every metric is searchable without an index of its own (searches are exact scans), so
  // asking for one per metric asks for nothing more.
  if (own.createAllMetricIndexes !== undefined && typeof own.createAllMetricIndexes !== "boolean") {
    throw invalid("index.createAllMetricIndexes", `index.createAllMetricIndexes must be true or false, got ${describe(own.createAllMetricIndexes)}`);
  }
  for (const option of ["indexType", "hnsw", "ivfflat"]) {
    if (own[option] === undefined) continue;
    throw invalid(`index.${option}`, `index.${option}: AgentmemStore keeps no approximate (HNSW / IVFFlat) index. Its vectors are one table `
      + "shared by every tenant, and an approximate index picks its candidates among all of them before row-level security, the "
      + "namespace prefix and the filter keep the caller's: a search could then miss the caller's nearest items, or return fewer "
      + `than its limit. Searches here are exact scans of the caller's items under the prefix, in every distanceMetric; remove index.${option}.`);
  }
  // PostgresStore names the embedder `embed`, InMemoryStore `embeddings`; either, not both.
  if ((own.embed === undefined) === (own.embeddings === undefined)) {
    throw invalid("index.embed", "index.embed must be given (a function (texts, { signal }) => vectors, or a LangChain Embeddings object)");
  }
  const field = own.embed !== undefined ? "index.embed" : "index.embeddings";
  const embedder = own.embed ?? own.embeddings;
  const fields = own.fields === undefined ? fieldList("index.fields", ["$"]) : fieldList("index.fields", own.fields);
  if (typeof embedder === "function") {
    const fn = /** @type {EmbedFn} */ (embedder);
    const run = (/** @type {string[]} */ texts) => embedded(fn, texts, timeoutMs, dims);
    return { dims, fields, documents: run, queries: run, together: true, metric };
  }
  /** @type {StoreEmbeddings | null} */
  let object = null;
  try {
    if (isObject(embedder) && typeof (/** @type {any} */ (embedder)).embedDocuments === "function"
        && typeof (/** @type {any} */ (embedder)).embedQuery === "function") {
      object = /** @type {StoreEmbeddings} */ (embedder);
    }
  } catch (e) {
    throw unreadable(field, e);
  }
  if (object === null) {
    throw invalid(field, `${field} must be a function (texts, { signal }) => vectors or an object with embedDocuments and embedQuery, got ${describe(embedder)}`);
  }
  const embeddings = object;
  return {
    dims,
    fields,
    documents: (texts) => embedded((t) => embeddings.embedDocuments(t), texts, timeoutMs, dims),
    queries: (texts) => embedded((t) => Promise.all(t.map((q) => embeddings.embedQuery(q))), texts, timeoutMs, dims),
    together: false,
    metric,
  };
}

/**
 * @typedef {{ defaultTtl: number | null, refreshOnRead: boolean, sweepIntervalMinutes: number | null }} Ttl
 */

/**
 * @param {unknown} ttl
 * @returns {Ttl}
 */
function ttlConfig(ttl) {
  if (ttl === undefined || ttl === null) return { defaultTtl: null, refreshOnRead: true, sweepIntervalMinutes: null };
  const own = ownKeys("ttl", ttl, ["defaultTtl", "refreshOnRead", "sweepIntervalMinutes"]);
  if (own.refreshOnRead !== undefined && typeof own.refreshOnRead !== "boolean") {
    throw invalid("ttl.refreshOnRead", `ttl.refreshOnRead must be true or false, got ${describe(own.refreshOnRead)}`);
  }
  return {
    defaultTtl: own.defaultTtl === undefined ? null : minutes("ttl.defaultTtl", own.defaultTtl),
    refreshOnRead: own.refreshOnRead !== false,
    sweepIntervalMinutes: own.sweepIntervalMinutes === undefined || own.sweepIntervalMinutes === null
      ? null : minutes("ttl.sweepIntervalMinutes", own.sweepIntervalMinutes),
  };
}

/**
 * A namespace, copied and checked as LangGraph's stores check it (by default
 * InMemoryStore's rule in batch: the reserved root "langgraph" is allowed, an empty one is
 * not). Labels that are not strings are refused here, by type: LangGraph's
 * validateNamespace writes them into its message as text, which recurses through a deeply
 * nested array until the stack overflows, throws for a Symbol and runs the caller's
 * toString.
 * @param {string} field
 * @param {unknown} namespace
 * @param {{ allowEmpty?: boolean, allowReservedRoot?: boolean }} [rules]
 * @returns {string[]}
 */
function labels(field, namespace, { allowEmpty = false, allowReservedRoot = true } = {}) {
  /** @type {unknown[] | null} */
  let copy;
  try {
    copy = Array.isArray(namespace) ? Array.from(namespace) : null;
  } catch (e) {
    throw unreadable(field, e);
  }
  if (copy === null) throw invalid(field, `${field} must be an array of strings, got ${describe(namespace)}`);
  copy.forEach((label, i) => {
    if (typeof label !== "string") {
      throw new InvalidNamespaceError(`Invalid namespace label at ${field}[${i}]: namespace labels must be strings, but got ${describe(label)}.`);
    }
  });
  const strings = /** @type {string[]} */ (copy);
  if (!(allowEmpty && strings.length === 0)) validateNamespace(strings, { allowReservedRoot });
  return strings;
}

/**
 * @param {string} field
 * @param {unknown} key
 * @returns {string}
 */
function keyOf(field, key) {
  if (typeof key !== "string") throw invalid(field, `${field} must be a string, got ${describe(key)}`);
  return key;
}

/**
 * @typedef {{ kind: "get", at: number, namespace: string[], key: string, refresh: boolean }
 *   | { kind: "search", at: number, prefix: string[], filter: string | undefined, limit: number, offset: number,
 *       query: string | null, refresh: boolean, mode: "vector" | "text" | "hybrid" | null, metric: Metric,
 *       threshold: number | null, vectorWeight: number | null }
 *   | { kind: "list", at: number, conditions: { type: string, path: string[] }[], maxDepth: number | null,
 *       limit: number | null, offset: number }
 *   | { kind: "put", at: number, namespace: string[], key: string, value: string | null,
 *       index: false | Field[] | null, ttl: number | null | undefined, parsed?: unknown }} StoreOp
 */

/**
 * One operation of a batch, read once and checked, classified as InMemoryStore does.
 * @param {unknown} raw
 * @param {number} at
 * @param {Ttl} ttl
 * @param {Index | null} index
 * @returns {StoreOp}
 */
function readOp(raw, at, ttl, index) {
  try {
    return readOpOnce(raw, at, ttl, index);
  } catch (e) {
    // A Proxy trap or getter of the caller's that threw while the operation was read.
    if (e instanceof AgentmemError || e instanceof InvalidNamespaceError) throw e;
    throw unreadable(`operations[${at}]`, e);
  }
}

/**
 * @param {unknown} raw
 * @param {number} at
 * @param {Ttl} ttl
 * @param {Index | null} index
 * @returns {StoreOp}
 */
function readOpOnce(raw, at, ttl, index) {
  const field = `operations[${at}]`;
  /** @type {Record<string, any>} */
  let op;
  try {
    if (!isObject(raw) || Array.isArray(raw)) throw invalid(field, `${field} must be an operation object, got ${describe(raw)}`);
    op = { ...raw };
  } catch (e) {
    throw e instanceof AgentmemError ? e : unreadable(field, e);
  }
  const optionalInt = (/** @type {string} */ name, /** @type {number | null} */ fallback) =>
    op[name] === undefined || op[name] === null ? fallback : integer(`${field}.${name}`, op[name], 0, 1_000_000);
  const refresh = (/** @type {unknown} */ v) => {
    if (v === undefined || v === null) return ttl.refreshOnRead;
    if (typeof v !== "boolean") throw invalid(`${field}.refreshTtl`, `${field}.refreshTtl must be true or false, got ${describe(v)}`);
    return v;
  };
  if ("namespace" in op && "key" in op && !("value" in op)) {
    return { kind: "get", at, namespace: labels(`${field}.namespace`, op.namespace), key: keyOf(`${field}.key`, op.key), refresh: refresh(op.refreshTtl) };
  }
  if ("namespacePrefix" in op) {
    const filter = op.filter;
    if (filter !== undefined && filter !== null && (!isObject(filter) || Array.isArray(filter))) {
      throw invalid(`${field}.filter`, `${field}.filter must be an object of field: value or { $op: value }, got ${describe(filter)}`);
    }
    const query = op.query;
    if (query !== undefined && query !== null && typeof query !== "string") {
      throw invalid(`${field}.query`, `${field}.query must be a string, got ${describe(query)}`);
    }
    const how = searchMode(field, op, Boolean(query), index);
    return {
      kind: "search",
      at,
      prefix: labels(`${field}.namespacePrefix`, op.namespacePrefix, { allowEmpty: true }),
      filter: filter === undefined || filter === null ? undefined : toJson(`${field}.filter`, filter),
      limit: /** @type {number} */ (optionalInt("limit", 10)),
      offset: /** @type {number} */ (optionalInt("offset", 0)),
      query: query || null,
      refresh: refresh(op.refreshTtl),
      ...how,
    };
  }
  if ("value" in op) {
    const namespace = labels(`${field}.namespace`, op.namespace);
    const key = keyOf(`${field}.key`, op.key);
    const size = namespace.reduce((n, label) => n + utf8Length(label) + 8, utf8Length(key));
    if (size > MAX_KEY_BYTES) {
      throw invalid(`${field}.key`, `${field}.namespace and key take ${size} bytes (their UTF-8 bytes plus 8 per label); at most ${MAX_KEY_BYTES}`);
    }
    const value = op.value;
    if (value !== null && (!isObject(value) || Array.isArray(value))) {
      throw invalid(`${field}.value`, `${field}.value must be an object (or null to delete), got ${describe(value)}`);
    }
    /** @type {false | Field[] | null} */
    let index = null;
    if (op.index === false) index = false;
    else if (op.index !== undefined && op.index !== null) index = fieldList(`${field}.index`, op.index);
    // The TTL of the PutOperation (LangGraph Python: `ttl`) or of PostgresStore's put options.
    let ttlMinutes;
    try {
      ttlMinutes = op.ttl !== undefined ? op.ttl : op.options?.ttl;
    } catch (e) {
      throw unreadable(`${field}.options`, e);
    }
    const text = value === null ? null : /** @type {string} */ (toJson(`${field}.value`, value));
    if (text !== null && text.length > MAX_VALUE_BYTES / 3 && utf8Length(text) > MAX_VALUE_BYTES) {
      throw invalid(`${field}.value`, `${field}.value is ${utf8Length(text)} bytes of JSON text; at most ${MAX_VALUE_BYTES} (1 MiB)`);
    }
    return {
      kind: "put",
      at,
      namespace,
      key,
      value: text,
      index,
      ttl: ttlMinutes === undefined ? undefined : minutes(`${field}.ttl`, ttlMinutes),
    };
  }
  if ("matchConditions" in op) {
    /** @type {{ type: string, path: string[] }[]} */
    let conditions = [];
    if (op.matchConditions !== undefined && op.matchConditions !== null) {
      if (!Array.isArray(op.matchConditions)) {
        throw invalid(`${field}.matchConditions`, `${field}.matchConditions must be an array, got ${describe(op.matchConditions)}`);
      }
      conditions = Array.from(op.matchConditions, (c, i) => {
        const at = `${field}.matchConditions[${i}]`;
        const own = ownKeys(at, c, ["matchType", "path"]);
        if (own.matchType !== "prefix" && own.matchType !== "suffix") {
          throw invalid(`${at}.matchType`, `${at}.matchType must be "prefix" or "suffix", got ${describe(own.matchType)}`);
        }
        return { type: own.matchType, path: labels(`${at}.path`, own.path, { allowEmpty: true }) };
      });
    }
    return {
      kind: "list",
      at,
      conditions,
      maxDepth: op.maxDepth === undefined || op.maxDepth === null ? null : integer(`${field}.maxDepth`, op.maxDepth, 1, 1_000_000),
      limit: optionalInt("limit", null),
      offset: /** @type {number} */ (optionalInt("offset", 0)),
    };
  }
  throw invalid(field, `${field} is not a store operation: expected a get { namespace, key }, search { namespacePrefix }, put { namespace, key, value } or listNamespaces { matchConditions }`);
}

/**
 * How a search ranks: PostgresStore's `mode` ("auto": vector search with an index, text
 * search without), `similarityThreshold`, `distanceMetric` (default: the index's) and
 * `vectorWeight`. Without a mode, InMemoryStore's ranking. A mode means something only
 * with a query (as in PostgresStore): without one, every search lists the items.
 * @param {string} field
 * @param {Record<string, any>} op
 * @param {boolean} hasQuery
 * @param {Index | null} index
 * @returns {{ mode: "vector" | "text" | "hybrid" | null, metric: Metric, threshold: number | null, vectorWeight: number | null }}
 */
function searchMode(field, op, hasQuery, index) {
  const { mode, similarityThreshold, distanceMetric, vectorWeight } = op;
  if (mode !== undefined && mode !== null && !MODES.includes(mode)) {
    throw invalid(`${field}.mode`, `Unknown search mode: ${describe(mode)}; expected "vector", "text", "hybrid" or "auto"`);
  }
  if (similarityThreshold !== undefined && similarityThreshold !== null && (typeof similarityThreshold !== "number" || !Number.isFinite(similarityThreshold))) {
    throw invalid(`${field}.similarityThreshold`, `${field}.similarityThreshold must be a finite number, got ${describe(similarityThreshold)}`);
  }
  if (vectorWeight !== undefined && vectorWeight !== null && (typeof vectorWeight !== "number" || !(vectorWeight >= 0 && vectorWeight <= 1))) {
    throw invalid(`${field}.vectorWeight`, `${field}.vectorWeight must be a number from 0 to 1, got ${describe(vectorWeight)}`);
  }
  const metric = distanceMetric === undefined || distanceMetric === null
    ? index?.metric ?? "cosine" : metricOf(`${field}.distanceMetric`, distanceMetric);
  /** @type {"vector" | "text" | "hybrid" | null} */
  let resolved = null;
  if (hasQuery && mode !== undefined && mode !== null) {
    if (mode === "auto") resolved = index ? "vector" : "text";
    else if (mode === "vector" && !index) {
      throw invalid(`${field}.mode`, "Vector search requested but not configured: give the AgentmemStore an index ({ dims, embed, fields })");
    } else if (mode === "hybrid" && !index) {
      throw invalid(`${field}.mode`, "Hybrid search requested but vector search not configured: give the AgentmemStore an index ({ dims, embed, fields })");
    } else resolved = mode;
  }
  return { mode: resolved, metric, threshold: similarityThreshold ?? null, vectorWeight: vectorWeight ?? null };
}

/**
 * An item as the database sends it, with dates.
 * @param {any} row
 * @returns {Item}
 */
const item = (row) => ({
  namespace: row.namespace,
  key: row.key,
  value: row.value,
  createdAt: new Date(row.createdAt),
  updatedAt: new Date(row.updatedAt),
});

/**
 * Runs a store operation; whatever escapes it is an AgentmemError, except LangGraph's
 * InvalidNamespaceError, which LangGraph code expects from every store.
 * @template T
 * @param {() => Promise<T>} operation
 * @returns {Promise<T>}
 */
const storeOperation = (operation) => guarded(operation, ["InvalidNamespaceError"]);

/**
 * @implements {Declared}
 */
export class AgentmemStore extends BaseStore {
  /** @type {AgentmemClient} */
  #client;
  /** @type {Index | null} */
  #index;
  /** @type {Ttl} */
  #ttl;
  /** @type {string} */
  #textConfig;
  /** @type {ReturnType<typeof setInterval> | null} */
  #sweeper = null;

  /**
   * @param {AgentmemClient | ClientOptions} clientOrOptions
   * @param {AgentmemStoreOptions} [options]
   */
  constructor(clientOrOptions, options) {
    super();
    const own = options === undefined ? {} : ownKeys("options", options, ["index", "ttl", "embedTimeoutMs", "textSearchLanguage"]);
    const timeoutMs = own.embedTimeoutMs === undefined ? EMBED_TIMEOUT_MS : integer("embedTimeoutMs", own.embedTimeoutMs, 1, MAX_EMBED_TIMEOUT_MS);
    this.#index = indexConfig(own.index, timeoutMs);
    this.#ttl = ttlConfig(own.ttl);
    // PostgresStore's name for the text search configuration of full-text search.
    const config = own.textSearchLanguage ?? "english";
    if (typeof config !== "string" || !/^[A-Za-z_][A-Za-z0-9_$]*(\.[A-Za-z_][A-Za-z0-9_$]*)?$/.test(config)) {
      throw invalid("textSearchLanguage", `textSearchLanguage must name a text search configuration ("english", "simple", or "schema.name"), got ${describe(config)}`);
    }
    this.#textConfig = config;
    this.#client = isClient(clientOrOptions) ? clientOrOptions : createClient(/** @type {ClientOptions} */ (clientOrOptions));
    // As AgentmemSaver: the anon key alone has no key space.
    if (!hasIdentity(clientOptions(this.#client))) {
      throw new AgentmemError("unauthorized", "AgentmemStore needs an identity: a signed-in user's accessToken (createClient({ url, apiKey, accessToken })), or the service role for server code (with actingFor to act for a user)", { field: "client" });
    }
  }

  /**
   * One RPC of the store's migration; resolves to its data.
   * @param {string} fn
   * @param {string} [argsText] the arguments as JSON text
   * @returns {Promise<any>}
   */
  async #rpc(fn, argsText) {
    try {
      const { data } = await call(clientOptions(this.#client), CAPABILITY.client, CLIENT_OP.rpc, [prim(fn), argsText, undefined]);
      return data;
    } catch (e) {
      // The database refuses a vector whose size is not its column's (index.dims set to
      // another size than the migration's): the code MemoryTools gives the same mistake.
      if (e instanceof AgentmemError && e.code === "invalid_input" && (e.pgrstCode === "22023" || e.pgrstCode === "22000") && /dimensions/.test(e.message)) {
        const { status, pgrstCode, details, hint } = e;
        throw new AgentmemError("dimension_mismatch", e.message, { status, pgrstCode, details, hint, cause: e });
      }
      throw e;
    }
  }

  /**
   * @template {Operation[]} Ops
   * @param {Ops} operations
   * @returns {Promise<OperationResults<Ops>>}
   * @override
   */
  batch(operations) {
    return storeOperation(async () => {
      /** @type {unknown[]} */
      let list;
      try {
        list = Array.isArray(operations) ? Array.from(operations) : [];
      } catch (e) {
        throw unreadable("operations", e);
      }
      if (!Array.isArray(operations)) throw invalid("operations", `batch takes an array of operations, got ${describe(operations)}`);
      if (list.length > MAX_BATCH_OPS) throw invalid("operations", `a batch holds at most ${MAX_BATCH_OPS} operations, got ${list.length}`);
      const ops = list.map((op, at) => readOp(op, at, this.#ttl, this.#index));
      if (ops.length === 0) return /** @type {OperationResults<Ops>} */ (/** @type {unknown} */ ([]));
      // A key written twice in one batch: its last write, in the place of its first.
      /** @type {Map<string, Extract<StoreOp, { kind: "put" }>>} */
      const puts = new Map();
      for (const op of ops) if (op.kind === "put") puts.set(JSON.stringify([op.namespace, op.key]), /** @type {any} */ (op));
      const reads = ops.filter((op) => op.kind !== "put");

      const vectors = await this.#embed([...puts.values()], reads);
      const parts = reads.map((op) => readText(op, vectors.queries, this.#textConfig));
      for (const op of puts.values()) {
        parts.push(putText(op, this.#ttl, vectors.documents.get(op) ?? [], documentOf(op, this.#index), this.#textConfig));
      }
      const body = `{"p_ops":[${parts.join(",")}]}`;
      if (body.length > MAX_BATCH_BYTES / 3 && utf8Length(body) > MAX_BATCH_BYTES) {
        throw invalid("operations", `the batch is ${utf8Length(body)} bytes of JSON text; at most ${MAX_BATCH_BYTES} (32 MiB)`);
      }
      const answer = await this.#rpc("langgraph_store_batch", body);
      if (!Array.isArray(answer) || answer.length !== parts.length) {
        throw new AgentmemError("server", "langgraph_store_batch answered with something other than one result per operation");
      }
      /** @type {unknown[]} */
      const results = ops.map(() => null);
      reads.forEach((op, i) => {
        results[op.at] = shape(op, answer[i]);
      });
      return /** @type {OperationResults<Ops>} */ (/** @type {unknown} */ (results));
    });
  }

  /**
   * The embeddings a batch needs, in at most one call of the embedder (two for a LangChain
   * Embeddings object: documents and queries), each distinct text once.
   * @param {Extract<StoreOp, { kind: "put" }>[]} puts
   * @param {StoreOp[]} reads
   * @returns {Promise<{ documents: Map<StoreOp, { field: string, vector: Float64Array }[]>, queries: Map<string, Float64Array> }>}
   */
  async #embed(puts, reads) {
    /** @type {Map<StoreOp, { field: string, vector: Float64Array }[]>} */
    const documents = new Map();
    /** @type {Map<string, Float64Array>} */
    const queries = new Map();
    const index = this.#index;
    if (index === null) return { documents, queries };
    /** @type {Map<string, number>} */
    const docTexts = new Map();
    /** @type {[StoreOp, string, string][]} */
    const wanted = [];
    for (const op of puts) {
      if (op.value === null || op.index === false) continue;
      const plain = plainOf(op);
      /** @type {Map<string, string>} field → text; a path listed twice is one vector */
      const fields = new Map();
      for (const [path, tokens] of op.index ?? index.fields) {
        const texts = textsAt(plain, tokens);
        if (texts.length === 1) fields.set(path, texts[0]);
        else texts.forEach((text, i) => fields.set(`${path}.${i}`, text));
      }
      for (const [field, text] of fields) {
        if (!docTexts.has(text)) docTexts.set(text, docTexts.size);
        wanted.push([op, field, text]);
      }
    }
    const queryTexts = [...new Set(reads.flatMap((op) => (op.kind === "search" && op.query && op.mode !== "text" ? [op.query] : [])))];
    const docs = [...docTexts.keys()];
    let docVectors;
    let queryVectors;
    if (index.together) {
      const all = await index.documents([...docs, ...queryTexts]);
      docVectors = all.slice(0, docs.length);
      queryVectors = all.slice(docs.length);
    } else {
      [docVectors, queryVectors] = await Promise.all([index.documents(docs), index.queries(queryTexts)]);
    }
    for (const [op, field, text] of wanted) {
      const list = documents.get(op) ?? [];
      list.push({ field, vector: docVectors[/** @type {number} */ (docTexts.get(text))] });
      documents.set(op, list);
    }
    queryTexts.forEach((q, i) => queries.set(q, queryVectors[i]));
    return { documents, queries };
  }

  // The single-operation methods read their arguments here rather than through
  // BaseStore's, whose namespace check stringifies labels of any type (see `labels`), and
  // outside any guard: a bad argument then rejects with a RangeError or TypeError.

  /**
   * @param {string[]} namespace
   * @param {string} key
   * @param {{ refreshTtl?: boolean }} [options]
   * @returns {Promise<Item | null>}
   * @override
   */
  get(namespace, key, options) {
    return storeOperation(async () => {
      const ns = labels("namespace", namespace, { allowEmpty: true });
      const own = options === undefined ? {} : ownKeys("options", options, ["refreshTtl"]);
      return (await this.batch([/** @type {GetOperation} */ ({ namespace: ns, key, refreshTtl: own.refreshTtl })]))[0];
    });
  }

  /**
   * @param {string[]} namespacePrefix
   * @param {AgentmemStoreSearchOptions} [options]
   * @returns {Promise<SearchItem[]>}
   * @override
   */
  search(namespacePrefix, options) {
    return storeOperation(async () => {
      const prefix = labels("namespacePrefix", namespacePrefix, { allowEmpty: true });
      const own = options === undefined ? {} : ownKeys("options", options,
        ["filter", "limit", "offset", "query", "refreshTtl", "mode", "similarityThreshold", "distanceMetric", "vectorWeight"]);
      const { filter, limit = 10, offset = 0, query, refreshTtl, mode, similarityThreshold, distanceMetric, vectorWeight } = own;
      const op = { namespacePrefix: prefix, filter, limit, offset, query, refreshTtl, mode, similarityThreshold, distanceMetric, vectorWeight };
      return (await this.batch([/** @type {SearchOperation} */ (op)]))[0];
    });
  }

  /**
   * PostgresStore's vector search: `search` with `mode: "vector"`.
   * @param {string[]} namespacePrefix
   * @param {string} query
   * @param {{ filter?: Record<string, any>, limit?: number, offset?: number, similarityThreshold?: number,
   *   distanceMetric?: Metric, refreshTtl?: boolean }} [options]
   * @returns {Promise<SearchItem[]>}
   */
  vectorSearch(namespacePrefix, query, options) {
    return this.#searchAs("vector", namespacePrefix, query, options,
      ["filter", "limit", "offset", "similarityThreshold", "distanceMetric", "refreshTtl"]);
  }

  /**
   * PostgresStore's hybrid search: `search` with `mode: "hybrid"`.
   * @param {string[]} namespacePrefix
   * @param {string} query
   * @param {{ filter?: Record<string, any>, limit?: number, offset?: number, vectorWeight?: number,
   *   similarityThreshold?: number, distanceMetric?: Metric, refreshTtl?: boolean }} [options]
   * @returns {Promise<SearchItem[]>}
   */
  hybridSearch(namespacePrefix, query, options) {
    return this.#searchAs("hybrid", namespacePrefix, query, options,
      ["filter", "limit", "offset", "vectorWeight", "similarityThreshold", "distanceMetric", "refreshTtl"]);
  }

  /**
   * PostgresStore's full-text search: `search` with `mode: "text"` (without a query, the
   * items unranked).
   * @param {string[]} namespacePrefix
   * @param {{ query?: string, filter?: Record<string, any>, limit?: number, offset?: number, refreshTtl?: boolean }} [options]
   * @returns {Promise<SearchItem[]>}
   */
  textSearch(namespacePrefix, options) {
    return storeOperation(async () => {
      const own = options === undefined ? {} : ownKeys("options", options, ["query", "filter", "limit", "offset", "refreshTtl"]);
      return this.search(namespacePrefix, { ...own, mode: "text" });
    });
  }

  /**
   * @param {"vector" | "hybrid"} mode
   * @param {string[]} namespacePrefix
   * @param {unknown} query
   * @param {unknown} options
   * @param {string[]} known
   * @returns {Promise<SearchItem[]>}
   */
  #searchAs(mode, namespacePrefix, query, options, known) {
    return storeOperation(async () => {
      if (typeof query !== "string" || query === "") throw invalid("query", `query must be a non-empty string, got ${describe(query)}`);
      if (this.#index === null) {
        throw invalid("query", "Vector search not configured: give the AgentmemStore an index ({ dims, embed, fields })");
      }
      const own = options === undefined ? {} : ownKeys("options", options, known);
      return this.search(namespacePrefix, { ...own, query, mode });
    });
  }

  /**
   * The caller's own items, as PostgresStore's getStats() counts them (every stored item,
   * expired or not, until swept), with the items that will expire and the vectors; one
   * request. Another tenant's items are never counted.
   * @returns {Promise<{ totalItems: number, expiredItems: number, expiringItems: number, namespaceCount: number,
   *   vectorCount: number, oldestItem: Date | null, newestItem: Date | null }>}
   */
  getStats() {
    return storeOperation(async () => {
      const answer = await this.#rpc("langgraph_store_batch", `{"p_ops":[{"op":"stats"}]}`);
      const stats = Array.isArray(answer) ? answer[0] : null;
      if (stats === null || typeof stats !== "object") {
        throw new AgentmemError("server", "langgraph_store_batch answered a stats operation with something other than counts");
      }
      const date = (/** @type {unknown} */ v) => (typeof v === "string" ? new Date(v) : null);
      return {
        totalItems: Number(stats.totalItems),
        expiredItems: Number(stats.expiredItems),
        expiringItems: Number(stats.expiringItems),
        namespaceCount: Number(stats.namespaceCount),
        vectorCount: Number(stats.vectorCount),
        oldestItem: date(stats.oldestItem),
        newestItem: date(stats.newestItem),
      };
    });
  }

  /**
   * @param {string[]} namespace
   * @param {string} key
   * @param {Record<string, any>} value
   * @param {false | string[]} [index]
   * @param {{ ttl?: number | null }} [options]
   * @returns {Promise<void>}
   * @override
   */
  put(namespace, key, value, index, options) {
    return storeOperation(async () => {
      const ns = labels("namespace", namespace, { allowReservedRoot: false });
      const own = options === undefined ? {} : ownKeys("options", options, ["ttl"]);
      await this.batch([/** @type {PutOperation} */ ({ namespace: ns, key, value, index, ...(own.ttl !== undefined ? { ttl: own.ttl } : {}) })]);
    });
  }

  /**
   * @param {string[]} namespace
   * @param {string} key
   * @returns {Promise<void>}
   * @override
   */
  delete(namespace, key) {
    return storeOperation(async () => {
      const ns = labels("namespace", namespace, { allowEmpty: true });
      await this.batch([/** @type {PutOperation} */ ({ namespace: ns, key, value: null })]);
    });
  }

  /**
   * @param {{ prefix?: string[], suffix?: string[], maxDepth?: number, limit?: number, offset?: number }} [options]
   * @returns {Promise<string[][]>}
   * @override
   */
  listNamespaces(options) {
    return storeOperation(async () => {
      const own = options === undefined ? {} : ownKeys("options", options, ["prefix", "suffix", "maxDepth", "limit", "offset"]);
      /** @type {{ matchType: "prefix" | "suffix", path: string[] }[]} */
      const matchConditions = [];
      if (own.prefix) matchConditions.push({ matchType: "prefix", path: labels("options.prefix", own.prefix, { allowEmpty: true }) });
      if (own.suffix) matchConditions.push({ matchType: "suffix", path: labels("options.suffix", own.suffix, { allowEmpty: true }) });
      const { maxDepth, limit = 100, offset = 0 } = own;
      // Checked by the batch, as every operation is.
      const op = /** @type {ListNamespacesOperation} */ ({ matchConditions: matchConditions.length ? matchConditions : undefined, maxDepth, limit, offset });
      return (await this.batch([op]))[0];
    });
  }

  /**
   * Deletes the items whose TTL has passed: the caller's (every tenant's for the service
   * role). Resolves to how many.
   * @returns {Promise<number>}
   */
  sweepExpiredItems() {
    return storeOperation(() => this.#rpc("langgraph_store_sweep"));
  }

  /**
   * Checks that the store's migration is installed and its vector column has `index.dims`
   * dimensions (one request); nothing to create: the migration did.
   * @returns {Promise<void>}
   */
  setup() {
    return storeOperation(async () => {
      const dims = await this.#rpc("langgraph_store_dimensions");
      if (this.#index !== null && dims !== this.#index.dims) {
        throw new AgentmemError("dimension_mismatch", `index.dims is ${this.#index.dims} but langgraph_store_vectors.embedding has ${dims} dimensions: run select public.set_langgraph_store_dimensions(${this.#index.dims}); as the service role (before storing embeddings)`);
      }
    });
  }

  /** Starts sweeping expired items every `ttl.sweepIntervalMinutes`, if set. @override */
  start() {
    const every = this.#ttl.sweepIntervalMinutes;
    if (every === null || this.#sweeper !== null) return;
    this.#sweeper = setInterval(() => {
      this.sweepExpiredItems().catch((e) => console.warn(`agentmem: AgentmemStore could not sweep expired items: ${e.message}`));
    }, every * 60_000);
    // A sweeper alone does not keep a Node or Deno process alive.
    const timer = /** @type {any} */ (this.#sweeper);
    if (typeof timer?.unref === "function") timer.unref();
    else if (typeof timer === "number" && typeof (/** @type {any} */ (globalThis)).Deno?.unrefTimer === "function") {
      (/** @type {any} */ (globalThis)).Deno.unrefTimer(timer);
    }
  }

  /** Stops the sweeper. @override */
  stop() {
    if (this.#sweeper !== null) clearInterval(this.#sweeper);
    this.#sweeper = null;
  }
}

/**
 * A read as the batch function takes it.
 * @param {StoreOp} op
 * @param {Map<string, Float64Array>} queries
 * @param {string} config the text search configuration
 * @returns {string}
 */
function readText(op, queries, config) {
  if (op.kind === "get") return JSON.stringify({ op: "get", namespace: op.namespace, key: op.key, refresh: op.refresh });
  if (op.kind === "list") return JSON.stringify({ op: "list", conditions: op.conditions, maxDepth: op.maxDepth });
  if (op.kind !== "search") throw new AgentmemError("internal", "a put among the reads");
  const vector = op.query === null || op.mode === "text" ? undefined : queries.get(op.query);
  const text = op.mode === "text" || op.mode === "hybrid";
  const head = JSON.stringify({
    op: "search",
    prefix: op.prefix,
    limit: op.limit,
    offset: op.offset,
    refresh: op.refresh,
    vector: vector && vectorText(vector),
    mode: op.mode ?? undefined,
    query: text ? op.query : undefined,
    config: text ? config : undefined,
    metric: op.metric,
    threshold: op.threshold ?? undefined,
    vectorWeight: op.vectorWeight ?? undefined,
  });
  return op.filter === undefined ? head : `${head.slice(0, -1)},"filter":${op.filter}}`;
}

/**
 * A put's value as data, parsed once from its JSON text: the texts to embed and index come
 * from the value as it was converted, not from the caller's object, whose getters would
 * run again and whose Proxy could answer differently.
 * @param {Extract<StoreOp, { kind: "put" }>} op
 * @returns {unknown}
 */
function plainOf(op) {
  if (op.parsed === undefined) op.parsed = op.value === null ? null : JSON.parse(op.value);
  return op.parsed;
}

/**
 * The full-text document of a put: the texts of the fields it indexes (the put's paths,
 * else `index.fields`, else the whole value), objects as compact JSON, one per line; true
 * when the whole value is the one field (the database reads the value's own JSON text,
 * rather than store it twice); null for `index: false` or a delete.
 * @param {Extract<StoreOp, { kind: "put" }>} op
 * @param {Index | null} index
 * @returns {string | true | null}
 */
function documentOf(op, index) {
  if (op.value === null || op.index === false) return null;
  const fields = op.index ?? index?.fields ?? [/** @type {Field} */ (["$", ["$"]])];
  if (fields.every(([path]) => path === "$")) return fields.length > 0 ? true : null;
  const plain = plainOf(op);
  const texts = fields.flatMap(([, tokens]) => textsAt(plain, tokens, undefined));
  return texts.length === 0 ? null : texts.join("\n");
}

/**
 * A vector as the batch function takes it: its text, "[0.1,0.2]" (a JSON array's numbers
 * would be parsed into JSON numbers and printed back to text in Postgres before the vector
 * is built: ~50 µs for 384 integers, ~400 µs for 1,536 decimals).
 * @param {Float64Array} vector
 * @returns {string}
 */
function vectorText(vector) {
  return `[${vector.join(",")}]`;
}

/**
 * A put (or delete) as the batch function takes it, the value as the caller's JSON text.
 * @param {Extract<StoreOp, { kind: "put" }>} op
 * @param {Ttl} ttl
 * @param {{ field: string, vector: Float64Array }[]} vectors
 * @param {string | true | null} text its full-text document (true: the whole value)
 * @param {string} config the text search configuration
 * @returns {string}
 */
function putText(op, ttl, vectors, text, config) {
  const minutes = op.ttl === undefined ? ttl.defaultTtl : op.ttl;
  const head = JSON.stringify({
    op: "put",
    namespace: op.namespace,
    key: op.key,
    ttl: minutes,
    vectors: vectors.map(({ field, vector }) => ({ field, embedding: vectorText(vector) })),
    text: text ?? undefined,
    config: text === null ? undefined : config,
  });
  return `${head.slice(0, -1)},"value":${op.value ?? "null"}}`;
}

/**
 * A read's result as InMemoryStore gives it.
 * @param {StoreOp} op
 * @param {any} answer
 * @returns {unknown}
 */
function shape(op, answer) {
  if (op.kind === "get") return answer === null ? null : item(answer);
  if (op.kind === "search") {
    return answer.map((/** @type {any} */ row) => ({ ...item(row), score: row.score === null ? undefined : row.score }));
  }
  if (op.kind !== "list") return null;
  // Sorted as InMemoryStore sorts them (the runtime's localeCompare of the joined labels),
  // then paged; the database sent every match, cut to maxDepth.
  /** @type {string[][]} */
  const namespaces = answer;
  const keyed = namespaces.map((ns) => /** @type {[string, string[]]} */ ([ns.join(":"), ns]));
  keyed.sort((a, b) => a[0].localeCompare(b[0]));
  const end = op.limit === null ? keyed.length : op.offset + op.limit;
  return keyed.slice(op.offset, end).map(([, ns]) => ns);
}
