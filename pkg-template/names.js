// @ts-check
// Written by scripts/generate.sh (crates/generate) from the Rust declarations of the names
// that cross the boundary (src/boundary.rs lists where each is declared); do not edit.
// wasm.js and the facades pass the module no name that is not taken from here, so a
// name the module does not know is a type error (tests/facades/check.sh), not a
// failure at run time.

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
