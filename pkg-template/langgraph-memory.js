// @ts-check
// AgentmemSaver's memory backend (`AgentmemSaver.inMemory()`, `fallback: "memory"`):
// LangGraph's MemorySaver behind agentmem's own checks, plus the retention and metrics the
// database backend has in SQL.
import { AgentmemError } from "./errors.js";
import { messageOf } from "./json.js";
/**
 * @import { MemorySaver } from "@langchain/langgraph-checkpoint"
 * @import { CheckpointMetrics } from "./langgraph.d.ts"
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
