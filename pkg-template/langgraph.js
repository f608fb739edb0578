// @ts-check
// agentmem-supabase/langgraph: a LangGraph checkpoint saver over PostgREST.
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
import { clientOptions, createClient, isClient } from "./client.js";
import { AgentmemError } from "./errors.js";
import { asAgentmemError, guarded } from "./io.js";
import { inMemory, memoryCleanup, memoryListThreads, memoryMetrics, messagesPreview, threadSummary } from "./langgraph-memory.js";
import { describe, messageOf, toJson } from "./json.js";
import { CAPABILITY, CHECKPOINT_OP } from "./names.js";
import { call, checkpointCheck, hasIdentity, prim, unreadable } from "./wasm.js";
/**
 * @import { ChannelVersions, Checkpoint, CheckpointListOptions, CheckpointMetadata, CheckpointTuple, PendingWrite,
 *   SerializerProtocol } from "@langchain/langgraph-checkpoint"
 * @import { AgentmemClient, ClientOptions } from "./index.d.ts"
 * @import { AgentmemSaver as Declared, AgentmemSaverOptions, CheckpointMetrics, ListThreadsOptions, ThreadSummary } from "./langgraph.d.ts"
 * @import { CheckpointCalls } from "./names.js"
 */
/**
 * RunnableConfig as the base class takes it (as langgraph.d.ts names it).
 * @typedef {Parameters<BaseCheckpointSaver["getTuple"]>[0]} RunnableConfig
 */
/**
 * `[type, data]` as the serializer reads and writes it; the module passes text for a value
 * stored as text.
 * @typedef {[type: string, data: Uint8Array | string]} Serialized
 */
/**
 * A checkpoint tuple as the module decodes it, its values still serialized
 * (src/checkpoint/answer.rs, then `readAnswer`); `type` null is an "empty" channel.
 * @typedef {{
 *   config: RunnableConfig & { configurable: { thread_id: string, checkpoint_ns: string, checkpoint_id: string } },
 *   parentConfig?: RunnableConfig,
 *   checkpoint: Omit<Checkpoint, "channel_values">,
 *   metadata: string,
 *   values: [channel: string, version: string, type: string | null, data: Uint8Array | null][],
 *   refs: [channel: string, version: string][],
 *   pendingWrites: [taskId: string, channel: string, type: string, data: Uint8Array][],
 *   pendingSends?: Serialized[],
 * }} Row
 */

/** One call of the database backend: ONE request, built, sent and decoded by the module
 *  (src/checkpoint/ops.rs), which may retry it (every call is safe to send twice). */
/**
 * @template {keyof CheckpointCalls} K
 * @param {AgentmemClient | null} client
 * @param {K} op
 * @param {CheckpointCalls[K]["args"]} args
 * @returns {Promise<CheckpointCalls[K]["result"]>} for reads `[JSON text, blobs]` (see readAnswer)
 */
function database(client, op, args) {
  return call(clientOptions(client), CAPABILITY.checkpoint, op, args);
}

/**
 * A read's answer, `{ rows, count }`, from what the module sends: the JSON text of it and
 * the stored values' bytes beside it, a value's data in the text being the index of its
 * Uint8Array in `blobs` (src/checkpoint/answer.rs).
 * @param {[text: string, blobs: Uint8Array[]]} answer
 * @returns {{ rows: Row[], count: number | null }}
 */
function readAnswer([text, blobs]) {
  const answer = JSON.parse(text);
  /** @param {any[]} item @param {number} at */
  const bytes = (item, at) => {
    if (typeof item[at] === "number") item[at] = blobs[item[at]];
  };
  for (const row of answer.rows) {
    for (const value of row.values) bytes(value, 3);
    for (const write of row.pendingWrites) bytes(write, 3);
    if (row.pendingSends) for (const send of row.pendingSends) bytes(send, 1);
  }
  return answer;
}

const MEMORY = Symbol("agentmem.memory");

/** The ids of a config as JSON text, and nothing else: the rest of a RunnableConfig
 *  (callbacks, LangGraph internals, this saver itself) is not data and may not even be
 *  JSON-able.
 * @param {RunnableConfig | undefined} config
 * @returns {string | undefined}
 */
function ids(config) {
  let plain;
  try {
    const c = config?.configurable;
    // `thread_ts` is the pre-0.2 name of checkpoint_id, as in LangGraph's getCheckpointId.
    plain = c === null || typeof c !== "object"
      ? c ?? null
      : { thread_id: c.thread_id, checkpoint_ns: c.checkpoint_ns, checkpoint_id: c.checkpoint_id || c.thread_ts };
  } catch (e) {
    throw unreadable("config", e);
  }
  return toJson("config.configurable", plain);
}

/**
 * The saver's options, read once; `null` and non-objects are refused like unknown keys.
 * @param {unknown} options
 * @returns {AgentmemSaverOptions}
 */
function saverOptions(options) {
  if (options === undefined) return {};
  if (options === null || typeof options !== "object") {
    throw new AgentmemError("invalid_input", `AgentmemSaver options must be an object { serde?, fallback? }, got ${describe(options)}`, { field: "options" });
  }
  /** @type {AgentmemSaverOptions & Record<string, unknown>} */
  let own;
  try {
    own = { ...options };
  } catch (e) {
    throw unreadable("options", e);
  }
  const { serde, fallback, ...unknown } = own;
  const extra = Object.keys(unknown);
  if (extra.length > 0) {
    throw new AgentmemError("invalid_input", `${extra[0]} is not a known option; expected one of: serde, fallback`, { field: extra[0] });
  }
  if (fallback !== undefined && fallback !== "memory") {
    throw new AgentmemError("invalid_input", `fallback must be "memory" or left out, got ${describe(fallback)}`, { field: "fallback" });
  }
  if (serde !== undefined) {
    let ok = false;
    try {
      ok = serde !== null && typeof serde === "object" && typeof serde.dumpsTyped === "function" && typeof serde.loadsTyped === "function";
    } catch {
      // A serializer whose methods cannot even be looked up is no serializer.
    }
    if (!ok) {
      throw new AgentmemError("invalid_input", "serde must be a SerializerProtocol: an object with dumpsTyped and loadsTyped methods", { field: "serde" });
    }
  }
  return { serde, fallback };
}

/**
 * `serde.dumpsTyped(value)` as a copied `[type, Uint8Array]` pair the module can read.
 * @param {SerializerProtocol} serde
 * @param {string} field
 * @param {unknown} value
 * @returns {Promise<[string, Uint8Array]>}
 */
async function dumps(serde, field, value) {
  let out;
  try {
    out = await serde.dumpsTyped(value);
  } catch (e) {
    throw new AgentmemError("invalid_input", `${field} could not be serialized: ${messageOf(e)}`, { field, cause: e });
  }
  try {
    if (Array.isArray(out) && typeof out[0] === "string" && out[1] instanceof Uint8Array) return [out[0], new Uint8Array(out[1])];
  } catch (e) {
    throw unreadable(field, e);
  }
  throw new AgentmemError("invalid_input", `${field}: the serializer must return [type, Uint8Array]`, { field });
}

/** `serde.loadsTyped(type, bytes)`; a stored value the serializer cannot read is `server`
 *  (the database holds something this serializer does not understand), naming the value,
 *  and in `details` the thread, namespace and checkpoint it belongs to. Both names are
 *  functions, called only then: a list reads many values, and names no failure.
 * @param {SerializerProtocol} serde
 * @param {() => string} what
 * @param {string} type
 * @param {Uint8Array | string} bytes
 * @param {() => string} where the checkpoint's thread, namespace and id
 * @returns {Promise<any>}
 */
async function loads(serde, what, type, bytes, where) {
  try {
    return await serde.loadsTyped(type, bytes);
  } catch (e) {
    if (e instanceof AgentmemError) throw e;
    const place = where();
    const message = `the stored ${what()} of ${place} could not be deserialized: ${messageOf(e)}`;
    throw new AgentmemError("server", message, { cause: e, details: place });
  }
}

/**
 * `writes` as `[[channel, value]]`, each pair checked, read once.
 * @param {unknown} writes
 * @returns {PendingWrite[]}
 */
function pendingWrites(writes) {
  /** @type {unknown[] | null} */
  let array;
  try {
    array = Array.isArray(writes) ? Array.from(writes) : null;
  } catch (e) {
    throw unreadable("writes", e);
  }
  if (array === null) {
    throw new AgentmemError("invalid_input", "writes must be an array of [channel, value] pairs", { field: "writes" });
  }
  return array.map((w, i) => {
    const field = `writes[${i}]`;
    /** @type {[unknown, unknown] | null} */
    let pair;
    try {
      pair = Array.isArray(w) && w.length === 2 ? [w[0], w[1]] : null;
    } catch (e) {
      throw unreadable(field, e);
    }
    if (pair === null) {
      throw new AgentmemError("invalid_input", `${field} must be a [channel, value] pair, got ${describe(w)}`, { field });
    }
    if (typeof pair[0] !== "string") {
      throw new AgentmemError("invalid_input", `${field}: the channel must be a string, got ${describe(pair[0])}`, { field });
    }
    return /** @type {PendingWrite} */ (pair);
  });
}

/**
 * @extends {BaseCheckpointSaver<number>}
 * @implements {Declared}
 */
export class AgentmemSaver extends BaseCheckpointSaver {
  /** @type {AgentmemClient | null} */
  #client = null;
  /** @type {MemorySaver | null} */
  #memory = null;
  /** @type {AgentmemError | null} */
  #fallbackReason = null;

  /**
   * @param {AgentmemClient | ClientOptions | null | undefined | symbol} clientOrOptions
   *   (the symbol MEMORY: the memory backend, from `inMemory`)
   * @param {AgentmemSaverOptions} [options]
   */
  constructor(clientOrOptions, options) {
    const { serde, fallback } = saverOptions(options);
    super(serde);
    if (clientOrOptions === MEMORY) {
      this.#memory = new MemorySaver(this.serde);
      return;
    }
    try {
      // Anything but a client or its options is refused by createClient.
      this.#client = isClient(clientOrOptions) ? clientOrOptions : createClient(/** @type {ClientOptions} */ (clientOrOptions));
    } catch (error) {
      // Only a client that cannot be built (no URL or key configured, a malformed token)
      // falls back, and only when asked to; a running saver never switches backends, which
      // would split one thread's history across two stores.
      if (fallback !== "memory") throw error;
      this.#memory = new MemorySaver(this.serde);
      // createClient throws AgentmemErrors only; asAgentmemError keeps the declared type whatever happens.
      this.#fallbackReason = asAgentmemError(error);
      console.warn(`agentmem: AgentmemSaver falls back to in-memory checkpoints, lost when the process ends: ${this.#fallbackReason.message}`);
      return;
    }
    // The anon key alone has no key space: every operation would be refused (401). Said
    // here, with the fix, rather than at the first getTuple; a configuration mistake, so
    // never a reason to fall back.
    if (!hasIdentity(clientOptions(this.#client))) {
      throw new AgentmemError("unauthorized", "AgentmemSaver needs an identity: a signed-in user's accessToken (createClient({ url, apiKey, accessToken })), or the service role for server code (with actingFor to act for a user)", { field: "client" });
    }
  }

  /**
   * A saver that keeps checkpoints in this process only (LangGraph's MemorySaver).
   * @param {{ serde?: SerializerProtocol }} [options]
   * @returns {AgentmemSaver}
   */
  static inMemory(options) {
    const { serde, fallback } = saverOptions(options);
    if (fallback !== undefined) {
      throw new AgentmemError("invalid_input", "inMemory() takes { serde } only: it is the memory backend already", { field: "fallback" });
    }
    return new AgentmemSaver(MEMORY, { serde });
  }

  /** Where checkpoints go: "postgrest" (the database) or "memory" (this process). */
  /** @returns {"postgrest" | "memory"} */
  get backend() {
    return this.#memory ? "memory" : "postgrest";
  }

  /** Why a `fallback: "memory"` saver is in memory (the client error), else null. */
  /** @returns {AgentmemError | null} */
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
   * @overload
   * @param {number | null | undefined} current
   * @returns {number}
   */
  /**
   * @overload
   * @param {string} current
   * @returns {string}
   */
  /**
   * @override
   * @param {number | string | null | undefined} current
   * @returns {number | string}
   */
  getNextVersion(current) {
    if (typeof current === "string") {
      const step = Number.parseInt(current.split(".")[0], 10);
      if (!Number.isSafeInteger(step)) {
        throw new AgentmemError("invalid_input", `cannot continue channel version ${describe(current)}`, { field: "version" });
      }
      return `${String(step + 1).padStart(32, "0")}.${String(randomFraction()).slice(2, 18).padEnd(16, "0")}`;
    }
    if (current !== undefined && current !== null && !Number.isFinite(current)) {
      throw new AgentmemError("invalid_input", `a channel version must be a finite number, got ${describe(current)}`, { field: "version" });
    }
    const step = current === undefined || current === null ? 1 : Math.floor(current) + 1;
    const next = step + randomFraction();
    return next < step + 1 ? next : step + 0.5;
  }

  // The memory backend checks its arguments as the database one does, then hands the
  // caller's own config and values to LangGraph's MemorySaver.
  /**
   * @override
   * @param {RunnableConfig} config
   * @returns {Promise<CheckpointTuple | undefined>}
   */
  getTuple(config) {
    return guarded(async () => {
      const configurable = ids(config);
      const memory = this.#memory;
      if (memory) {
        if (!checkpointCheck(CHECKPOINT_OP.getTuple, [configurable])) return undefined; // no thread: nothing to find
        return inMemory(() => memory.getTuple(config));
      }
      // The module checks the same way and, without a thread, answers no rows without a
      // request: a separate check first would cross into it twice per read.
      const { rows } = readAnswer(await database(this.#client, CHECKPOINT_OP.getTuple, [configurable]));
      return rows.length === 0 ? undefined : this.#load(rows[0], new Map());
    });
  }

  /**
   * @override
   * @param {RunnableConfig} config
   * @param {CheckpointListOptions} [options]
   * @returns {AsyncGenerator<CheckpointTuple>}
   */
  async *list(config, options) {
    let configurable, optionsJson;
    try {
      configurable = ids(config);
      optionsJson = listOptions(options);
      // The database backend's call checks the same way, in the module's one entry.
      if (this.#memory) checkpointCheck(CHECKPOINT_OP.list, [configurable, optionsJson]);
    } catch (e) {
      throw asAgentmemError(e);
    }
    if (this.#memory) {
      try {
        // No config lists every thread, as in the database backend.
        yield* this.#memory.list(config ?? {}, options);
      } catch (e) {
        if (e instanceof AgentmemError) throw e;
        throw new AgentmemError("invalid_input", `the in-memory saver refused the call: ${messageOf(e)}`, { cause: e });
      }
      return;
    }
    // The server's max-rows (1000 on Supabase) may cut an answer short. The exact count
    // (of at most `limit` rows, which the SQL applies) reveals it; only then do more pages
    // follow, skipping rows that a concurrent put pushed down onto the next page.
    // A list answer carries each stored value once; later rows (also on later pages)
    // refer to it by (thread, namespace, channel, version).
    const seen = new Set();
    /** @type {Map<string, Serialized | null>} */
    const values = new Map();
    for (let offset = 0; ;) {
      const { rows, count } = readAnswer(await database(this.#client, CHECKPOINT_OP.list, [configurable, optionsJson, offset]));
      for (const row of rows) remember(values, row);
      for (const tuple of await guarded(() => Promise.all(rows.map((row) => this.#load(row, values))))) {
        // A checkpoint deleted meanwhile (read again on its own, see #load) is not listed.
        if (tuple === undefined) continue;
        // Every tuple this saver reads has the ids of its row.
        const { thread_id, checkpoint_ns, checkpoint_id } = /** @type {Row["config"]} */ (tuple.config).configurable;
        const key = JSON.stringify([thread_id, checkpoint_ns, checkpoint_id]);
        if (seen.has(key)) continue;
        seen.add(key);
        yield tuple;
      }
      offset += rows.length;
      if (rows.length === 0 || count === null || offset >= count) return;
    }
  }

  /**
   * @override
   * @param {RunnableConfig} config
   * @param {Checkpoint} checkpoint
   * @param {CheckpointMetadata} metadata
   * @param {ChannelVersions} newVersions
   * @returns {Promise<RunnableConfig>}
   */
  put(config, checkpoint, metadata, newVersions) {
    return guarded(async () => {
      const configurable = ids(config);
      /** @type {Partial<Checkpoint>} */
      let rest;
      /** @type {Checkpoint["channel_values"] | undefined} */
      let values;
      /** @type {string[]} */
      let changed;
      try {
        // checkpoint: null or undefined is refused below, as the module reads it.
        ({ channel_values: values, ...rest } = checkpoint ?? /** @type {Partial<Checkpoint>} */ ({}));
        // Only the channels that changed (newVersions) are stored; the others keep their
        // blob of an earlier version, which the checkpoint's channel_versions still points to.
        changed = Object.keys(newVersions ?? {}).filter((channel) => values != null && channel in values);
      } catch (e) {
        throw unreadable("checkpoint", e);
      }
      const checkpointJson = toJson("checkpoint", checkpoint == null ? checkpoint : rest);
      const versionsJson = toJson("newVersions", newVersions);
      // The memory backend stores values itself: only the metadata is serialized, to be
      // checked as the database would.
      const todo = this.#memory ? [] : changed;
      /** @type {[channel: string, value: [type: string, bytes: Uint8Array]][]} */
      const serialized = [];
      for (const [i, channel] of todo.entries()) {
        let value;
        try {
          value = /** @type {Checkpoint["channel_values"]} */ (values)[channel]; // `changed` has only channels of `values`
        } catch (e) {
          throw unreadable(`checkpoint.channel_values.${channel}`, e);
        }
        serialized.push([channel, await dumps(this.serde, `values[${i}]`, value)]);
      }
      const meta = await dumps(this.serde, "metadata", metadata);
      const memory = this.#memory;
      if (memory) {
        checkpointCheck(CHECKPOINT_OP.put, [configurable, checkpointJson, versionsJson, serialized, meta]);
        // MemorySaver makes the thread's entry before it serializes the values, and one it
        // cannot serialize (a 10,000-deep array) would leave that entry empty, which its
        // getTuple then fails on: serialized here first, so a bad value writes nothing.
        await dumps(this.serde, "checkpoint.channel_values", values ?? {});
        // newVersions as the base class passes it, though MemorySaver declares no such parameter.
        return inMemory(() => /** @type {BaseCheckpointSaver} */ (memory).put(config, checkpoint, metadata, newVersions));
      }
      const preview = messagesPreview(values);
      const stored = await database(this.#client, CHECKPOINT_OP.put, [configurable, checkpointJson, versionsJson, serialized, meta, preview === null ? undefined : toJson("preview", preview)]);
      return { configurable: stored };
    });
  }

  /**
   * @override
   * @param {RunnableConfig} config
   * @param {PendingWrite[]} writes
   * @param {string} taskId
   * @param {string} [taskPath]
   * @returns {Promise<void>}
   */
  putWrites(config, writes, taskId, taskPath) {
    return guarded(async () => {
      const configurable = ids(config);
      const pairs = pendingWrites(writes);
      /** @type {[channel: string, value: [type: string, bytes: Uint8Array]][]} */
      const serialized = [];
      for (const [i, [channel, value]] of pairs.entries()) {
        // The memory backend serializes for itself, but value by value, keeping those before
        // one it cannot serialize: each is serialized here first, so a bad one writes nothing.
        serialized.push([channel, await dumps(this.serde, `writes[${i}]`, value)]);
      }
      const memory = this.#memory;
      if (memory) {
        checkpointCheck(CHECKPOINT_OP.putWrites, [configurable, prim(taskId), prim(taskPath), serialized]);
        return inMemory(() => memory.putWrites(config, pairs, taskId, taskPath));
      }
      await database(this.#client, CHECKPOINT_OP.putWrites, [configurable, prim(taskId), prim(taskPath), serialized]);
    });
  }

  /**
   * @override
   * @param {string} threadId
   * @returns {Promise<void>}
   */
  deleteThread(threadId) {
    return guarded(async () => {
      /** @type {CheckpointCalls["deleteThread"]["args"]} */
      const args = [prim(threadId)];
      checkpointCheck(CHECKPOINT_OP.deleteThread, args); // for both backends
      // "" names no thread (the database deletes nothing); MemorySaver refuses it as a key.
      const memory = this.#memory;
      if (memory) return threadId === "" ? undefined : inMemory(() => memory.deleteThread(threadId));
      await database(this.#client, CHECKPOINT_OP.deleteThread, args);
    });
  }

  /**
   * Deletes checkpoints older than `daysOld` days (at least 1), keeping the latest of every
   * thread and namespace, with their writes and the blobs nothing references any more.
   * Never called automatically. Returns how many checkpoints were deleted. A user cleans
   * their own threads; a service-role client cleans all.
   * @param {number} daysOld
   * @returns {Promise<number>}
   */
  cleanupOldCheckpoints(daysOld) {
    return guarded(async () => {
      /** @type {CheckpointCalls["cleanupOldCheckpoints"]["args"]} */
      const args = [prim(daysOld)];
      checkpointCheck(CHECKPOINT_OP.cleanupOldCheckpoints, args); // for both backends
      if (this.#memory) return memoryCleanup(this.#memory, daysOld);
      return database(this.#client, CHECKPOINT_OP.cleanupOldCheckpoints, args);
    });
  }

  /**
   * Counts, bytes and `last_checkpoint_at` over one thread, or every visible one.
   * @param {string | null} [threadId]
   * @returns {Promise<CheckpointMetrics>}
   */
  metrics(threadId) {
    return guarded(async () => {
      /** @type {CheckpointCalls["metrics"]["args"]} */
      const args = [prim(threadId)];
      checkpointCheck(CHECKPOINT_OP.metrics, args); // for both backends
      if (this.#memory) return memoryMetrics(this.#memory, threadId);
      return database(this.#client, CHECKPOINT_OP.metrics, args);
    });
  }

  /**
   * The caller's threads, most recently written first, each with its latest checkpoint
   * (`config` is what `getTuple` takes), step, source, metadata, checkpoint count and the
   * text of its last human and AI messages. One request; `prefix` and `filter` (the latest
   * checkpoint's metadata) narrow it, `limit` (1 to 1000, default 50) and `offset` page it.
   * @param {ListThreadsOptions} [options]
   * @returns {Promise<ThreadSummary[]>}
   */
  listThreads(options) {
    return guarded(async () => {
      /** @type {CheckpointCalls["listThreads"]["args"]} */
      const args = [toJson("options", options ?? null)];
      checkpointCheck(CHECKPOINT_OP.listThreads, args); // for both backends
      if (this.#memory) return memoryListThreads(this.#memory, /** @type {ListThreadsOptions} */ (JSON.parse(/** @type {string} */ (args[0]))));
      return (await database(this.#client, CHECKPOINT_OP.listThreads, args)).map(threadSummary);
    });
  }

  /**
   * @param {Row} row
   * @param {Map<string, Serialized | null>} known
   * @returns {Promise<CheckpointTuple | undefined>}
   */
  async #load(row, known) {
    const serde = this.serde;
    /** @type {[channel: string, type: string, data: Uint8Array | string][]} */
    const stored = row.values.filter(([, , type]) => type !== null)
      .map(([channel, , type, data]) => [channel, /** @type {string} */ (type), /** @type {Uint8Array | string} */ (data)]);
    for (const [channel, version] of row.refs) {
      const value = known.get(valueKey(row, channel, version));
      // Always there (rows refer only to values of earlier rows of the same answer); should
      // a page ever be missing, the tuple is read on its own rather than left incomplete.
      if (value === undefined) return this.getTuple(row.config);
      if (value !== null) stored.push([channel, ...value]);
    }
    const where = () => {
      const { thread_id, checkpoint_ns, checkpoint_id } = row.config.configurable;
      return `thread ${JSON.stringify(thread_id)}, namespace ${JSON.stringify(checkpoint_ns)}, checkpoint ${JSON.stringify(checkpoint_id)}`;
    };
    const [metadata, values, pendingWrites, sends] = await Promise.all([
      loads(serde, () => "metadata", "json", row.metadata, where),
      Promise.all(stored.map(async ([channel, type, data]) => [channel, await loads(serde, () => `value of channel ${JSON.stringify(channel)}`, type, data, where)])),
      Promise.all(row.pendingWrites.map(async ([taskId, channel, type, bytes]) =>
        /** @type {[string, string, unknown]} */ ([taskId, channel, await loads(serde, () => `write to channel ${JSON.stringify(channel)}`, type, bytes, where)])
      )),
      row.pendingSends && Promise.all(row.pendingSends.map(([type, bytes]) => loads(serde, () => "pending send", type, bytes, where))),
    ]);
    const channel_values = Object.fromEntries(values);
    if (sends) channel_values[TASKS] = sends;
    /** @type {CheckpointTuple} */
    const tuple = { config: row.config, checkpoint: { ...row.checkpoint, channel_values }, metadata, pendingWrites };
    if (row.parentConfig) tuple.parentConfig = row.parentConfig;
    return tuple;
  }
}

/**
 * The values a row carries, for rows after it that refer to them (null: "empty").
 * @param {Map<string, Serialized | null>} known
 * @param {Row} row
 */
function remember(known, row) {
  for (const [channel, version, type, data] of row.values) {
    known.set(valueKey(row, channel, version), type === null ? null : [type, /** @type {Uint8Array | string} */ (data)]);
  }
}

/**
 * @param {Row} row
 * @param {string} channel
 * @param {string} version
 */
function valueKey(row, channel, version) {
  const { thread_id, checkpoint_ns } = row.config.configurable;
  return JSON.stringify([thread_id, checkpoint_ns, channel, version]);
}

// A fraction in (0, 1) with 33 random bits: exact in a double next to a step below 2^20,
// and a collision between two forks of one checkpoint has odds of 1 in 8.6 billion.
function randomFraction() {
  const [high, low] = globalThis.crypto.getRandomValues(new Uint32Array(2));
  return (1 + ((high * 2 + (low & 1)) % (2 ** 33 - 1))) / 2 ** 33;
}

/**
 * `list` options as JSON text, `before` reduced to its checkpoint id.
 * @param {CheckpointListOptions | undefined} options
 * @returns {string | undefined}
 */
function listOptions(options) {
  if (options !== undefined && options !== null && typeof options !== "object") return toJson("options", prim(options));
  let plain;
  try {
    const { filter, before, limit } = options ?? {};
    plain = { filter, before: before?.configurable?.checkpoint_id, limit };
  } catch (e) {
    throw unreadable("options", e);
  }
  return toJson("options", plain);
}

export { AgentmemStore } from "./store.js";
