// agentmem/langgraph: a LangGraph checkpoint saver over PostgREST.
//
// Every operation is ONE RPC of supabase/migrations/*_langgraph_checkpoints.sql: one HTTP
// request, one transaction, run as the client's user, so row-level security decides what
// a user sees and changes. Row shapes and LangGraph's storage rules live in Rust
// (src/checkpoint); values are serialized here, with the saver's `serde`, so LangChain
// messages and other revivable objects round-trip as objects.
//
// A separate entry point: the main package must work without @langchain installed. This
// file assumes the wasm module is initialised; the runtime wrappers (langgraph-deno.js,
// langgraph-node.js, langgraph-browser.js, picked by the "./langgraph" exports map) import
// their runtime's entry first, which does that.
import { BaseCheckpointSaver, MemorySaver, TASKS } from "@langchain/langgraph-checkpoint";
import {
  checkpointDecodeRows,
  checkpointGetTupleArgs,
  checkpointListArgs,
  checkpointPutArgs,
  checkpointPutWritesArgs,
} from "./agentmem.js";
import { AgentmemClient, createClient } from "./client.js";
import { AgentmemError } from "./errors.js";

// Reads may be retried freely. So may put and putWrites: blobs are insert-once per
// (channel, version), the checkpoint row an upsert of the same content, ordinary writes
// insert-once and special writes an upsert of the same values; a retry after a response
// was lost therefore stores exactly what one call would have.
const IDEMPOTENT = { idempotent: true };

const MEMORY = Symbol("agentmem.memory");

/** The ids of a config, and nothing else: the rest of a RunnableConfig (callbacks,
 *  LangGraph internals, this saver itself) is not data and may not even be JSON-able. */
function ids(config) {
  const c = config?.configurable;
  if (c === null || typeof c !== "object") return c ?? null;
  // `thread_ts` is the pre-0.2 name of checkpoint_id, as in LangGraph's getCheckpointId.
  return { thread_id: c.thread_id, checkpoint_ns: c.checkpoint_ns, checkpoint_id: c.checkpoint_id || c.thread_ts };
}

export class AgentmemSaver extends BaseCheckpointSaver {
  #client = null;
  #memory = null;
  #fallbackReason = null;

  /**
   * @param {AgentmemClient | import("./index.d.ts").ClientOptions} clientOrOptions
   * @param {{ serde?: import("@langchain/langgraph-checkpoint").SerializerProtocol, fallback?: "memory" }} [options]
   */
  constructor(clientOrOptions, { serde, fallback, ...unknown } = {}) {
    super(serde);
    const extra = Object.keys(unknown);
    if (extra.length > 0) {
      throw new AgentmemError("invalid_input", `unknown AgentmemSaver option ${JSON.stringify(extra[0])}`, { field: extra[0] });
    }
    if (fallback !== undefined && fallback !== "memory") {
      throw new AgentmemError("invalid_input", `fallback must be "memory" or left out, got ${JSON.stringify(fallback)}`, { field: "fallback" });
    }
    if (clientOrOptions === MEMORY) {
      this.#memory = new MemorySaver(this.serde);
      return;
    }
    try {
      this.#client = clientOrOptions instanceof AgentmemClient ? clientOrOptions : createClient(clientOrOptions);
    } catch (error) {
      // Only a client that cannot be built (no URL or key configured, a malformed token)
      // falls back, and only when asked to; a running saver never switches backends, which
      // would split one thread's history across two stores.
      if (fallback !== "memory") throw error;
      this.#memory = new MemorySaver(this.serde);
      this.#fallbackReason = error;
      console.warn(`agentmem: AgentmemSaver falls back to in-memory checkpoints, lost when the process ends: ${error.message}`);
    }
  }

  /** A saver that keeps checkpoints in this process only (LangGraph's MemorySaver). */
  static inMemory({ serde } = {}) {
    return new AgentmemSaver(MEMORY, { serde });
  }

  /** Where checkpoints go: "postgrest" (the database) or "memory" (this process). */
  get backend() {
    return this.#memory ? "memory" : "postgrest";
  }

  /** Why a `fallback: "memory"` saver is in memory (the client error), else null. */
  get fallbackReason() {
    return this.#fallbackReason;
  }

  /**
   * The version of a channel after `current`: the next whole step plus a random fraction,
   * so versions stay ordered numbers (as LangGraph and PostgresSaver compare them) and are
   * unique per write. With LangGraph's default `current + 1`, two forks made from one
   * checkpoint give a channel the same version, and blobs are stored once per (channel,
   * version): the second fork would read the first fork's value. Threads stored with
   * integer versions continue from them; Python's "<step>.<random>" strings continue as
   * strings.
   */
  getNextVersion(current) {
    if (typeof current === "string") {
      const step = Number.parseInt(current.split(".")[0], 10);
      if (!Number.isSafeInteger(step)) {
        throw new AgentmemError("invalid_input", `cannot continue channel version ${JSON.stringify(current)}`, { field: "version" });
      }
      return `${String(step + 1).padStart(32, "0")}.${String(randomFraction()).slice(2, 18).padEnd(16, "0")}`;
    }
    if (current !== undefined && current !== null && !Number.isFinite(current)) {
      throw new AgentmemError("invalid_input", `a channel version must be a finite number, got ${String(current)}`, { field: "version" });
    }
    const step = current === undefined || current === null ? 1 : Math.floor(current) + 1;
    const next = step + randomFraction();
    return next < step + 1 ? next : step + 0.5;
  }

  async getTuple(config) {
    if (this.#memory) return this.#memory.getTuple(config);
    const args = checkpointGetTupleArgs(ids(config));
    if (args === null) return undefined; // no thread: nothing to find, no request
    const { data } = await this.#client.rpc("langgraph_get_tuple", args, IDEMPOTENT);
    const [row] = checkpointDecodeRows(data);
    return row === undefined ? undefined : this.#load(row);
  }

  async *list(config, options) {
    if (this.#memory) {
      yield* this.#memory.list(config, options);
      return;
    }
    const { filter, before, limit } = options ?? {};
    const args = checkpointListArgs(ids(config), { filter, before: before?.configurable?.checkpoint_id, limit });
    // The server's max-rows (1000 on Supabase) may cut an answer short. The exact count
    // (of at most `limit` rows, which the SQL applies) reveals it; only then do more pages
    // follow, skipping rows that a concurrent put pushed down onto the next page.
    const seen = new Set();
    for (let offset = 0; ;) {
      const { data, count } = await this.#client.rpc("langgraph_list", args, { ...IDEMPOTENT, count: "exact", offset });
      const rows = checkpointDecodeRows(data);
      for (const tuple of await Promise.all(rows.map((row) => this.#load(row)))) {
        const { thread_id, checkpoint_ns, checkpoint_id } = tuple.config.configurable;
        const key = JSON.stringify([thread_id, checkpoint_ns, checkpoint_id]);
        if (seen.has(key)) continue;
        seen.add(key);
        yield tuple;
      }
      offset += rows.length;
      if (rows.length === 0 || count === null || offset >= count) return;
    }
  }

  async put(config, checkpoint, metadata, newVersions) {
    if (this.#memory) return this.#memory.put(config, checkpoint, metadata, newVersions);
    const { channel_values: values, ...rest } = checkpoint ?? {};
    // Only the channels that changed (newVersions) are stored; the others keep their blob
    // of an earlier version, which the checkpoint's channel_versions still points to.
    const changed = Object.keys(newVersions ?? {}).filter((channel) => values != null && channel in values);
    const [serialized, meta] = await Promise.all([
      Promise.all(changed.map(async (channel) => [channel, await this.serde.dumpsTyped(values[channel])])),
      this.serde.dumpsTyped(metadata),
    ]);
    const args = checkpointPutArgs(ids(config), checkpoint == null ? checkpoint : rest, newVersions, serialized, meta);
    await this.#client.rpc("langgraph_put", args, IDEMPOTENT);
    return {
      configurable: { thread_id: args.p_thread_id, checkpoint_ns: args.p_checkpoint_ns, checkpoint_id: args.p_checkpoint_id },
    };
  }

  async putWrites(config, writes, taskId, taskPath) {
    if (this.#memory) return this.#memory.putWrites(config, writes, taskId, taskPath);
    if (!Array.isArray(writes)) {
      throw new AgentmemError("invalid_input", "writes must be an array of [channel, value] pairs", { field: "writes" });
    }
    const serialized = await Promise.all(writes.map(async ([channel, value]) => [channel, await this.serde.dumpsTyped(value)]));
    const args = checkpointPutWritesArgs(ids(config), taskId, taskPath, serialized);
    if (args !== null) await this.#client.rpc("langgraph_put_writes", args, IDEMPOTENT);
  }

  async deleteThread(threadId) {
    if (this.#memory) return this.#memory.deleteThread(threadId);
    await this.#client.rpc("langgraph_delete_thread", { p_thread_id: requireString("threadId", threadId) }, IDEMPOTENT);
  }

  /**
   * Deletes checkpoints older than `daysOld` days (at least 1), keeping the latest of every
   * thread and namespace, with their writes and the blobs nothing references any more.
   * Never called automatically. Returns how many checkpoints were deleted. A user cleans
   * their own threads; a service-role client cleans all.
   */
  async cleanupOldCheckpoints(daysOld) {
    if (!Number.isInteger(daysOld) || daysOld < 1) {
      throw new AgentmemError("invalid_input", `daysOld must be an integer of at least 1, got ${daysOld}`, { field: "daysOld" });
    }
    if (this.#memory) return memoryCleanup(this.#memory, daysOld);
    const { data } = await this.#client.rpc("cleanup_old_checkpoints", { days_old: daysOld }, IDEMPOTENT);
    return data;
  }

  /** Counts, bytes and `last_checkpoint_at` over one thread, or every visible one. */
  async metrics(threadId) {
    if (this.#memory) return memoryMetrics(this.#memory, threadId);
    const p_thread_id = threadId === undefined || threadId === null ? null : requireString("threadId", threadId);
    const { data } = await this.#client.rpc("langgraph_checkpoint_metrics", { p_thread_id }, IDEMPOTENT);
    return data;
  }

  async #load(row) {
    const serde = this.serde;
    const [metadata, values, pendingWrites, sends] = await Promise.all([
      serde.loadsTyped("json", row.metadata),
      Promise.all(row.values.map(async ([channel, type, bytes]) => [channel, await serde.loadsTyped(type, bytes)])),
      Promise.all(row.pendingWrites.map(async ([taskId, channel, type, bytes]) => [taskId, channel, await serde.loadsTyped(type, bytes)])),
      row.pendingSends && Promise.all(row.pendingSends.map(([type, bytes]) => serde.loadsTyped(type, bytes))),
    ]);
    const channel_values = Object.fromEntries(values);
    if (sends) channel_values[TASKS] = sends;
    const tuple = { config: row.config, checkpoint: { ...row.checkpoint, channel_values }, metadata, pendingWrites };
    if (row.parentConfig) tuple.parentConfig = row.parentConfig;
    return tuple;
  }
}

// A fraction in (0, 1) with 33 random bits: exact in a double next to a step below 2^20,
// and a collision between two forks of one checkpoint has odds of 1 in 8.6 billion.
function randomFraction() {
  const [high, low] = globalThis.crypto.getRandomValues(new Uint32Array(2));
  return (1 + ((high * 2 + (low & 1)) % (2 ** 33 - 1))) / 2 ** 33;
}

function requireString(field, value) {
  if (typeof value !== "string") {
    throw new AgentmemError("invalid_input", `${field} must be a string, got ${value === null ? "null" : typeof value}`, { field });
  }
  return value;
}

// The memory backend's retention and metrics, with the same rules as the SQL: checkpoint
// timestamps (`ts`) stand in for created_at, the latest checkpoint of every thread and
// namespace is kept. They read MemorySaver's public fields: `storage` (thread → namespace
// → id → [checkpoint, metadata, parent]) and `writes`, keyed by JSON [thread, namespace,
// id] as its _generateKey does (saver.test.mjs fails should that key change).
async function memoryCleanup(memory, daysOld) {
  const cutoff = Date.now() - daysOld * 86_400_000;
  let deleted = 0;
  for (const [thread, namespaces] of Object.entries(memory.storage)) {
    for (const [ns, checkpoints] of Object.entries(namespaces)) {
      for (const id of Object.keys(checkpoints).sort().slice(0, -1)) {
        const { ts } = await memory.serde.loadsTyped("json", checkpoints[id][0]);
        if (Date.parse(ts) < cutoff) {
          delete checkpoints[id];
          delete memory.writes[JSON.stringify([thread, ns, id])];
          deleted += 1;
        }
      }
    }
  }
  return deleted;
}

async function memoryMetrics(memory, threadId) {
  const threads = threadId === undefined || threadId === null ? Object.keys(memory.storage) : [requireString("threadId", threadId)];
  let checkpointCount = 0, checkpointBytes = 0, writeCount = 0, writeBytes = 0, last = null;
  for (const thread of threads) {
    for (const checkpoints of Object.values(memory.storage[thread] ?? {})) {
      for (const [checkpoint, metadata] of Object.values(checkpoints)) {
        checkpointCount += 1;
        checkpointBytes += checkpoint.length + metadata.length;
        const { ts } = await memory.serde.loadsTyped("json", checkpoint);
        if (last === null || ts > last) last = ts;
      }
    }
  }
  for (const [key, writes] of Object.entries(memory.writes)) {
    if (!threads.includes(JSON.parse(key)[0])) continue;
    for (const [, , value] of Object.values(writes)) {
      writeCount += 1;
      writeBytes += value.length;
    }
  }
  return {
    checkpoint_count: checkpointCount,
    write_count: writeCount,
    blob_count: 0, // MemorySaver keeps channel values inside the checkpoint
    total_bytes: checkpointBytes + writeBytes,
    checkpoint_bytes: checkpointBytes,
    blob_bytes: 0,
    write_bytes: writeBytes,
    last_checkpoint_at: last,
    thread_count: threads.filter((t) => memory.storage[t] !== undefined).length,
  };
}
