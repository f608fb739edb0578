// @ts-check
// Written by scripts/generate.sh (crates/generate) from the Rust declarations of the names
// that cross the boundary (src/boundary.rs lists where each is declared); do not edit.
// wasm.js and the facades pass the module no name that is not taken from here, so a
// name the module does not know is a type error (tests/facades/check.sh), not a
// failure at run time. The operations' signatures are typedefs, so the facades'
// arguments and the results they take are held to the Rust declarations too.

/** JSON text a facade made of a caller's value (json.js `toJson`). @typedef {string} JsonText */
/** A read's answer: its JSON text and the byte buffers the text refers to by index. @typedef {[text: string, blobs: Uint8Array[]]} ReadAnswer */

/**
 * @import { Result } from "./client.d.ts"
 * @import { CheckpointMetrics, ThreadSummary } from "./langgraph.d.ts"
 * @import { MemoryToolResult } from "./memory.d.ts"
 * @import { CoiaCheckpoint, Contractor, ContractorLead, Draft, DraftInfo, RestoredCoiaState, SaveStateResult, SessionState, WorkflowState, WorkflowSummary } from "./state.d.ts"
 */
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
/**
 * Each function of `callSync`: what it takes and answers (src/boundary.rs `SyncCall`).
 * @typedef {{
 *   uuid5: { args: [name: unknown, namespace: unknown], result: string },
 *   uuid5Batch: { args: [names: unknown, namespace: unknown], result: string[] },
 *   conversationId: { args: [contractorLeadId: unknown, namespace: unknown], result: string },
 *   coiaThread: { args: [flow: unknown, id: unknown], result: import("./ids.d.ts").ThreadConfig },
 *   cimThreadId: { args: [dealId: unknown, cimId: unknown], result: string },
 *   supervisorThreadId: { args: [dealId: unknown, timestampMs: unknown], result: string },
 *   parseThreadId: { args: [threadId: unknown], result: import("./ids.d.ts").ParsedThreadId },
 *   extractDealId: { args: [threadId: unknown], result: string | null },
 *   checkClientOptions: { args: [state: unknown], result: string },
 *   hasIdentity: { args: [state: unknown], result: boolean },
 *   inspectToken: { args: [token: unknown], result: import("./client.d.ts").TokenInfo },
 *   memoryDefinitions: { args: [format: unknown, options: JsonText | undefined], result: import("./memory.d.ts").ToolDefinition<import("./memory.d.ts").ToolFormat>[] },
 *   checkMemoryOptions: { args: [clientState: unknown, options: JsonText | undefined], result: string },
 *   memoryId: { args: [id: unknown], result: string | undefined },
 *   stateCheckOptions: { args: [store: unknown, options: JsonText | undefined], result: { fields: string[], namespace: string } },
 *   researchMergeState: { args: [state: JsonText | undefined, updates: JsonText | undefined], result: import("./state.d.ts").ResearchState },
 *   researchValidateState: { args: [state: JsonText | undefined], result: ReturnType<typeof import("./state.d.ts").validateState> },
 *   researchValidateTransition: { args: [fromPhase: JsonText | undefined, toPhase: JsonText | undefined, state: JsonText | undefined], result: ReturnType<typeof import("./state.d.ts").validateTransition> },
 *   workflowNormalizeState: { args: [state: JsonText | undefined, options: JsonText | undefined], result: import("./state.d.ts").WorkflowState },
 *   checkpointCheck: { args: [op: unknown, args: unknown[]], result: boolean },
 * }} SyncCalls
 */
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
/**
 * Each operation of the client: what `call` takes and answers for it (src/client.rs `ClientCall`).
 * @typedef {{
 *   select: { args: [table: unknown, payload?: JsonText | undefined, options?: JsonText | undefined], result: Result<any> },
 *   insert: { args: [table: unknown, rows?: JsonText | undefined, options?: JsonText | undefined], result: Result<any> },
 *   upsert: { args: [table: unknown, rows?: JsonText | undefined, options?: JsonText | undefined], result: Result<any> },
 *   update: { args: [table: unknown, patch?: JsonText | undefined, options?: JsonText | undefined], result: Result<any> },
 *   delete: { args: [table: unknown, payload?: JsonText | undefined, options?: JsonText | undefined], result: Result<any> },
 *   rpc: { args: [function: unknown, args?: JsonText | undefined, options?: JsonText | undefined], result: Result<any> },
 * }} ClientCalls
 */
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
/** Each state store's operations (its `Call`). @typedef {{ unified: UnifiedCalls, workflow: WorkflowCalls, research: ResearchCalls, contractors: ContractorsCalls }} StateCalls */
/**
 * The operations of the state store `unified` (src/state/unified/mod.rs `Call`).
 * @typedef {{
 *   save: { args: [contractorLeadId?: JsonText | undefined, state?: JsonText | undefined, options?: JsonText | undefined], result: SaveStateResult },
 *   restore: { args: [contractorLeadId?: JsonText | undefined], result: RestoredCoiaState | null },
 *   createCheckpoint: { args: [contractorLeadId?: JsonText | undefined, state?: JsonText | undefined], result: CoiaCheckpoint },
 *   restoreCheckpoint: { args: [contractorLeadId?: JsonText | undefined], result: CoiaCheckpoint | null },
 *   leadForConversation: { args: [conversationId?: JsonText | undefined], result: string | null },
 *   delete: { args: [contractorLeadId?: JsonText | undefined], result: number },
 * }} UnifiedCalls
 */
/**
 * The operations of the state store `workflow` (src/state/workflow/mod.rs `Call`).
 * @typedef {{
 *   create: { args: [state?: JsonText | undefined], result: WorkflowState },
 *   get: { args: [sessionId?: JsonText | undefined], result: WorkflowState | null },
 *   update: { args: [sessionId?: JsonText | undefined, patch?: JsonText | undefined], result: WorkflowState },
 *   list: { args: [query?: JsonText | undefined], result: WorkflowState[] },
 *   delete: { args: [sessionId?: JsonText | undefined], result: boolean },
 * }} WorkflowCalls
 */
/**
 * The operations of the state store `research` (src/state/research/mod.rs `Call`).
 * @typedef {{
 *   saveSession: { args: [session?: JsonText | undefined], result: SessionState },
 *   loadSession: { args: [sessionId?: JsonText | undefined], result: SessionState | null },
 *   deleteSession: { args: [sessionId?: JsonText | undefined], result: boolean },
 *   saveDraft: { args: [sessionId?: JsonText | undefined, phase?: JsonText | undefined, content?: JsonText | undefined, metadata?: JsonText | undefined], result: DraftInfo },
 *   loadDraft: { args: [sessionId?: JsonText | undefined, phase?: JsonText | undefined], result: Draft | null },
 *   listDrafts: { args: [sessionId?: JsonText | undefined, options?: JsonText | undefined], result: DraftInfo[] },
 *   workflowSummary: { args: [sessionId?: JsonText | undefined], result: WorkflowSummary },
 * }} ResearchCalls
 */
/**
 * The operations of the state store `contractors` (src/state/contractors/mod.rs `Call`).
 * @typedef {{
 *   buildContractorProfile: { args: [contractorLeadId?: JsonText | undefined, profile?: JsonText | undefined], result: ContractorLead },
 *   convertLead: { args: [contractorLeadId?: JsonText | undefined, account?: JsonText | undefined], result: Contractor },
 *   getLead: { args: [contractorLeadId?: JsonText | undefined], result: ContractorLead | null },
 *   contractorForLead: { args: [contractorLeadId?: JsonText | undefined], result: Contractor | null },
 * }} ContractorsCalls
 */
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
/** A memory tool's call, the same for every tool (src/memory/mod.rs `ToolCall`). @typedef {{ args: [options?: JsonText | undefined, input?: JsonText | undefined, knownContent?: unknown], result: MemoryToolResult }} MemoryCall */
