// @ts-check
// Written by scripts/generate.sh (crates/generate) from the Rust declarations of the names
// that cross the boundary (src/boundary.rs lists where each is declared); do not edit.
// wasm.js and the facades pass the module no name that is not taken from here, so a
// name the module does not know is a type error (tests/facades/check.sh), not a
// failure at run time. The operations' signatures are typedefs, so the facades'
// arguments and the results they take are held to the Rust declarations too.

/**
 * @import { CheckpointMetrics, ThreadSummary } from "./langgraph.d.ts"
 */
/** JSON text a facade made of a caller's value (json.js `toJson`). @typedef {string} JsonText */
/** A read's answer: its JSON text and the byte buffers the text refers to by index. @typedef {[text: string, blobs: Uint8Array[]]} ReadAnswer */

/** The capabilities of `call` (src/boundary.rs `Capability`). */
export const CAPABILITY = Object.freeze({ client: "client", memory: "memory", state: "state", checkpoint: "checkpoint" });
/** The functions of `callSync` (src/boundary.rs `SyncFunction`). */
export const SYNC = Object.freeze({
  uuid5: "uuid5",
  uuid5Batch: "uuid5Batch",
  conversationId: "conversationId",
  coiaThread: "coiaThread",
  cimThreadId: "cimThreadId",
  supervisorThreadId: "supervisorThreadId",
  parseThreadId: "parseThreadId",
  extractDealId: "extractDealId",
  checkClientOptions: "checkClientOptions",
  hasIdentity: "hasIdentity",
  inspectToken: "inspectToken",
  memoryDefinitions: "memoryDefinitions",
  checkMemoryOptions: "checkMemoryOptions",
  memoryId: "memoryId",
  stateCheckOptions: "stateCheckOptions",
  researchMergeState: "researchMergeState",
  researchValidateState: "researchValidateState",
  researchValidateTransition: "researchValidateTransition",
  workflowNormalizeState: "workflowNormalizeState",
  checkpointCheck: "checkpointCheck",
});
/** What a run waiting on the host asks for: an action's first element (src/boundary.rs `Action`). */
export const ACTION = Object.freeze({ fetch: "fetch", sleep: "sleep", embed: "embed" });
/** The client's operations (src/client.rs `ClientOp`). */
export const CLIENT_OP = Object.freeze({
  select: "select",
  insert: "insert",
  upsert: "upsert",
  update: "update",
  delete: "delete",
  rpc: "rpc",
});
/** The saver's operations against the database (src/checkpoint/ops.rs `CheckpointOp`). */
export const CHECKPOINT_OP = Object.freeze({
  getTuple: "getTuple",
  list: "list",
  put: "put",
  putWrites: "putWrites",
  deleteThread: "deleteThread",
  cleanupOldCheckpoints: "cleanupOldCheckpoints",
  metrics: "metrics",
  listThreads: "listThreads",
});
/**
 * Each operation of the saver's database backend: what `call` takes and answers for it (src/checkpoint/ops.rs `Call`).
 * @typedef {{
 *   getTuple: { args: [configurable?: JsonText | undefined], result: ReadAnswer },
 *   list: { args: [configurable?: JsonText | undefined, options?: JsonText | undefined, offset?: unknown], result: ReadAnswer },
 *   put: { args: [configurable: JsonText | undefined, checkpoint: JsonText | undefined, newVersions: JsonText | undefined, values: [channel: string, value: [type: string, bytes: Uint8Array]][], metadata: [type: string, bytes: Uint8Array], preview?: JsonText | undefined], result: { thread_id: string, checkpoint_ns: string, checkpoint_id: string } },
 *   putWrites: { args: [configurable: JsonText | undefined, taskId: unknown, taskPath: unknown, writes: [channel: string, value: [type: string, bytes: Uint8Array]][]], result: null },
 *   deleteThread: { args: [threadId: unknown], result: null },
 *   cleanupOldCheckpoints: { args: [daysOld: unknown], result: number },
 *   metrics: { args: [threadId?: unknown], result: CheckpointMetrics },
 *   listThreads: { args: [options?: JsonText | undefined], result: Omit<ThreadSummary, "config" | "step" | "source">[] },
 * }} CheckpointCalls
 */
/** The state stores (src/state/registry.rs `StateStore`). */
export const STATE_STORE = Object.freeze({
  unified: "unified",
  workflow: "workflow",
  research: "research",
  contractors: "contractors",
});
/** Each state store's operations (its `Op`, beside its planner in src/state/<store>/mod.rs). */
export const STATE_OP = Object.freeze({
  unified: Object.freeze({
    save: "save",
    restore: "restore",
    createCheckpoint: "createCheckpoint",
    restoreCheckpoint: "restoreCheckpoint",
    leadForConversation: "leadForConversation",
    delete: "delete",
  }),
  workflow: Object.freeze({ create: "create", get: "get", update: "update", list: "list", delete: "delete" }),
  research: Object.freeze({
    saveSession: "saveSession",
    loadSession: "loadSession",
    deleteSession: "deleteSession",
    saveDraft: "saveDraft",
    loadDraft: "loadDraft",
    listDrafts: "listDrafts",
    workflowSummary: "workflowSummary",
  }),
  contractors: Object.freeze({
    buildContractorProfile: "buildContractorProfile",
    convertLead: "convertLead",
    getLead: "getLead",
    contractorForLead: "contractorForLead",
  }),
});
/** The memory tools (src/memory/tools/mod.rs `TOOLS`). */
export const MEMORY_TOOL = Object.freeze({
  create_memory: "create_memory",
  search_memories: "search_memories",
  update_memory: "update_memory",
  delete_memory: "delete_memory",
  get_memory_context: "get_memory_context",
});
/** The memory tools in the order of their definitions. */
export const MEMORY_TOOLS = Object.freeze(/** @type {const} */ (["create_memory", "search_memories", "update_memory", "delete_memory", "get_memory_context"]));
