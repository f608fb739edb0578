// @ts-check
// AgentmemSaver's memory backend (`AgentmemSaver.inMemory()`, `fallback: "memory"`):
// LangGraph's MemorySaver behind agentmem's own checks, plus the retention and metrics the
// database backend has in SQL.
import { AgentmemError } from "./errors.js";
import { messageOf } from "./json.js";
/**
 * @import { MemorySaver } from "@langchain/langgraph-checkpoint"
 * @import { CheckpointMetrics, ListThreadsOptions, ThreadSummary } from "./langgraph.d.ts"
 */

/** Runs an operation of LangGraph's MemorySaver, after agentmem's own checks passed: what
 *  it still refuses is the caller's input (a value it cannot copy, a key it does not
 *  allow), reported as invalid_input with its error as the cause.
 * @template T
 * @param {() => Promise<T>} operation
 * @returns {Promise<T>}
 */
export async function inMemory(operation) {
  try {
    return await operation();
  } catch (e) {
    if (e instanceof AgentmemError) throw e;
    throw new AgentmemError("invalid_input", `the in-memory saver refused the call: ${messageOf(e)}`, { cause: e });
  }
}

// The memory backend's retention and metrics, with the same rules as the SQL: checkpoint
// timestamps (`ts`) stand in for created_at, the latest checkpoint of every thread and
// namespace is kept. They read MemorySaver's public fields: `storage` (thread → namespace
// → id → [checkpoint, metadata, parent]) and `writes`, keyed by JSON [thread, namespace,
// id] as its _generateKey does (saver.test.mjs fails should that key change).
/**
 * @param {MemorySaver} memory
 * @param {number} daysOld
 * @returns {Promise<number>}
 */
export async function memoryCleanup(memory, daysOld) {
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

/**
 * @param {MemorySaver} memory
 * @param {string | null | undefined} threadId
 * @returns {Promise<CheckpointMetrics>}
 */
export async function memoryMetrics(memory, threadId) {
  const threads = threadId === undefined || threadId === null ? Object.keys(memory.storage) : [threadId];
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

/** How much of a message's text a thread's preview keeps. */
const PREVIEW_CHARS = 500;

/**
 * The text of a state's last human and AI messages (those with text: an AI message that
 * only calls tools is passed over), for thread listings; null when the state holds no
 * `messages` list or none of either. Never throws: a preview is no reason to fail a put.
 * @param {unknown} values the state's channel values
 * @returns {{ human: string | null, ai: string | null } | null}
 */
export function messagesPreview(values) {
  try {
    const messages = /** @type {any} */ (values)?.messages;
    if (!Array.isArray(messages)) return null;
    /** @type {{ human: string | null, ai: string | null }} */
    const found = { human: null, ai: null };
    for (let i = messages.length - 1; i >= 0 && (found.human === null || found.ai === null); i -= 1) {
      const type = roleOf(messages[i]);
      const role = type === "human" ? "human" : type === "ai" ? "ai" : null;
      if (role !== null && found[role] === null) {
        const text = textOf(messages[i]);
        if (text) found[role] = text.slice(0, PREVIEW_CHARS);
      }
    }
    return found.human === null && found.ai === null ? null : found;
  } catch {
    return null;
  }
}

/** "human" | "ai" | another role, for a LangChain message or a message-like object. */
function roleOf(/** @type {any} */ m) {
  const type = typeof m?.getType === "function" ? m.getType() : typeof m?._getType === "function" ? m._getType() : m?.type ?? m?.role;
  return type === "user" ? "human" : type === "assistant" ? "ai" : type;
}

/** A message's text: its string content, or the text parts of its content blocks. */
function textOf(/** @type {any} */ m) {
  const content = m?.content;
  if (typeof content === "string") return content.trim();
  if (!Array.isArray(content)) return "";
  return content.map((part) => typeof part === "string" ? part : part?.type === "text" && typeof part.text === "string" ? part.text : "")
    .filter(Boolean).join(" ").trim();
}

/**
 * A thread as listThreads answers it, from what the database sends (rpc/langgraph_list_threads
 * leaves out what follows from the rest): the config getTuple takes, the step and source.
 * @param {Omit<ThreadSummary, "config" | "step" | "source">} row
 * @returns {ThreadSummary}
 */
export function threadSummary(row) {
  const metadata = /** @type {Record<string, any>} */ (row.metadata ?? {});
  return {
    threadId: row.threadId,
    config: { configurable: { thread_id: row.threadId, checkpoint_ns: "", checkpoint_id: row.checkpointId } },
    checkpointId: row.checkpointId,
    step: typeof metadata.step === "number" ? metadata.step : null,
    source: typeof metadata.source === "string" ? metadata.source : null,
    metadata,
    checkpointCount: row.checkpointCount,
    lastHumanMessage: row.lastHumanMessage,
    lastAiMessage: row.lastAiMessage,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/**
 * listThreads on the memory backend, with the database's rules: a thread's root namespace,
 * its latest checkpoint (greatest id), most recently written first (checkpoint `ts`).
 * @param {MemorySaver} memory
 * @param {ListThreadsOptions} options (already checked)
 * @returns {Promise<ThreadSummary[]>}
 */
export async function memoryListThreads(memory, options) {
  const prefix = options?.prefix ?? null, filter = options?.filter ?? null;
  const limit = options?.limit ?? 50, offset = options?.offset ?? 0;
  /** @type {ThreadSummary[]} */
  const threads = [];
  for (const [thread, namespaces] of Object.entries(memory.storage)) {
    const root = namespaces[""];
    const ids = Object.keys(root ?? {}).sort();
    if (!root || ids.length === 0 || (prefix !== null && !thread.startsWith(prefix))) continue;
    const latest = ids[ids.length - 1];
    const checkpoint = await memory.serde.loadsTyped("json", root[latest][0]);
    const metadata = await memory.serde.loadsTyped("json", root[latest][1]);
    if (filter !== null && !Object.entries(filter).every(([k, v]) => JSON.stringify(metadata?.[k]) === JSON.stringify(v))) continue;
    let first = checkpoint.ts, last = checkpoint.ts;
    for (const id of ids) {
      const { ts } = await memory.serde.loadsTyped("json", root[id][0]);
      if (ts < first) first = ts;
      if (ts > last) last = ts;
    }
    const preview = messagesPreview(checkpoint.channel_values);
    threads.push(threadSummary({
      threadId: thread,
      checkpointId: latest,
      metadata: metadata ?? {},
      checkpointCount: ids.length,
      lastHumanMessage: preview?.human ?? null,
      lastAiMessage: preview?.ai ?? null,
      createdAt: first,
      updatedAt: last,
    }));
  }
  threads.sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : a.threadId < b.threadId ? -1 : 1));
  return threads.slice(offset, offset + limit);
}
