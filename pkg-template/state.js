// @ts-check
// State stores: unified conversation memory, workflow agent states, research sessions
// and drafts, COIA contractor leads and their conversion. The module validates, plans and
// sends ONE request per operation; these classes only keep what the module must not
// (the client's options and the store's own options) and turn values into JSON text.
// Store methods are async, so bad input (found as early as the JSON conversion) always
// arrives as a rejected promise, never as a synchronous throw.
import { clientState } from "./client.js";
import { AgentmemError } from "./errors.js";
import { optionsJson, toJson } from "./json.js";
import { CAPABILITY, STATE_OP, STATE_STORE } from "./names.js";
import {
  conversationId,
  researchMergeState,
  researchValidateState,
  researchValidateTransition,
  call as run,
  stateCheckOptions,
  unreadable,
  workflowNormalizeState,
} from "./wasm.js";
/**
 * @import { CoiaCheckpoint, CoiaState, Contractor, ContractorAccountInput, ContractorLead, ContractorProfileInput,
 *   ContractorStore as DeclaredContractorStore, Draft, DraftInfo, DraftPhaseInput,
 *   ResearchState, ResearchStore as DeclaredResearchStore, RestoredCoiaState, SaveStateResult, SessionState,
 *   SessionStateInput, StoreOptions, UnifiedStateManager as DeclaredUnifiedStateManager,
 *   UnifiedStateManagerOptions, WorkflowListQuery, WorkflowState, WorkflowStateInput, WorkflowStatePatch,
 *   WorkflowStateStore as DeclaredWorkflowStateStore, WorkflowStateStoreOptions, WorkflowSummary } from "./state.d.ts"
 * @import { JsonValue } from "./client.d.ts"
 * @import { ClientState } from "./wasm.js"
 * @import { StateCalls } from "./names.js"
 */
/** @typedef {typeof STATE_STORE[keyof typeof STATE_STORE]} StateStoreName */

/**
 * A store's client and options, checked once: what every call hands the module.
 * `described` is what the unified store reports of its settings; the other stores report
 * `{}` and never read it.
 * @typedef {{ client: Readonly<ClientState>, options: string | undefined, described: { fields: string[], namespace: string } }} Setup
 */

/**
 * Splits `{ client, ...options }` and checks both.
 * @param {StateStoreName} store
 * @param {string} what
 * @param {StoreOptions} options
 * @returns {Setup}
 */
function setup(store, what, options) {
  if (options === null || typeof options !== "object") {
    throw new AgentmemError("invalid_input", `${what} needs { client, ... }`, { field: "options" });
  }
  /** @type {Partial<StoreOptions>} */
  let own;
  try {
    own = { ...options };
  } catch (e) {
    throw unreadable("options", e);
  }
  const { client, ...rest } = own;
  // A missing client is refused by clientState (as options without a URL).
  const c = clientState(/** @type {StoreOptions["client"]} */ (client));
  const text = optionsJson(rest, "options");
  const described = stateCheckOptions(store, text);
  return { client: c, options: text, described };
}

/**
 * @template {StateStoreName} S
 * @template {keyof StateCalls[S] & typeof STATE_OP[S][keyof typeof STATE_OP[S]]} O
 * @param {Setup} s
 * @param {S} store
 * @param {O} op
 * @param {StateCalls[S][O] extends { args: infer A } ? A : never} args JSON text, as the store's `Call` declares them
 * @returns {Promise<StateCalls[S][O] extends { result: infer R } ? R : never>}
 */
function call(s, store, op, args) {
  return run(s.client, CAPABILITY.state, op, [store, s.options, .../** @type {unknown[]} */ (args)]);
}

/**
 * COIA's unified conversation memory: the state of a contractor lead across
 * visits, under conversation id uuid5(contractorLeadId). Every save is one atomic request.
 */
/** @implements {DeclaredUnifiedStateManager} */
export class UnifiedStateManager {
  /** @type {Setup} */
  #s;

  /** @param {UnifiedStateManagerOptions} options */
  constructor(options) {
    this.#s = setup(STATE_STORE.unified, "UnifiedStateManager", options);
    Object.freeze(this);
  }

  /** COIA's PERSISTENT_STATE_FIELDS, in order. */
  /** @returns {string[]} */
  static get PERSISTENT_STATE_FIELDS() {
    return stateCheckOptions(STATE_STORE.unified, undefined).fields;
  }

  /** The fields this manager saves (the default list, replaced by `fields`, plus `extraFields`). */
  /** @returns {string[]} */
  get persistentFields() {
    return [...this.#s.described.fields];
  }

  /** The conversation id of a lead: uuid5(contractorLeadId, namespace). */
  /**
   * @param {string} contractorLeadId
   * @returns {string}
   */
  conversationId(contractorLeadId) {
    return conversationId(contractorLeadId, this.#s.described.namespace);
  }

  /**
   * @param {string} contractorLeadId
   * @param {CoiaState} state
   * @param {{ conversationId?: string }} [options]
   * @returns {Promise<SaveStateResult>}
   */
  async saveState(contractorLeadId, state, options) {
    return call(this.#s, STATE_STORE.unified, STATE_OP.unified.save, [toJson("contractorLeadId", contractorLeadId), toJson("state", state), toJson("options", options)]);
  }
  /**
   * @param {string} contractorLeadId
   * @returns {Promise<RestoredCoiaState | null>}
   */
  async restoreState(contractorLeadId) {
    return call(this.#s, STATE_STORE.unified, STATE_OP.unified.restore, [toJson("contractorLeadId", contractorLeadId)]);
  }
  /**
   * @param {string} contractorLeadId
   * @param {CoiaState} state
   * @returns {Promise<CoiaCheckpoint>}
   */
  async createCheckpoint(contractorLeadId, state) {
    return call(this.#s, STATE_STORE.unified, STATE_OP.unified.createCheckpoint, [toJson("contractorLeadId", contractorLeadId), toJson("state", state)]);
  }
  /**
   * @param {string} contractorLeadId
   * @returns {Promise<CoiaCheckpoint | null>}
   */
  async restoreCheckpoint(contractorLeadId) {
    return call(this.#s, STATE_STORE.unified, STATE_OP.unified.restoreCheckpoint, [toJson("contractorLeadId", contractorLeadId)]);
  }
  /** The contractor lead a conversation was linked to by `saveState(..., { conversationId })`. */
  /**
   * @param {string} conversationId
   * @returns {Promise<string | null>}
   */
  async leadForConversation(conversationId) {
    return call(this.#s, STATE_STORE.unified, STATE_OP.unified.leadForConversation, [toJson("conversationId", conversationId)]);
  }
  /** Deletes the lead's conversation, its memory and its links; resolves to the row count. */
  /**
   * @param {string} contractorLeadId
   * @returns {Promise<number>}
   */
  async deleteState(contractorLeadId) {
    return call(this.#s, STATE_STORE.unified, STATE_OP.unified.delete, [toJson("contractorLeadId", contractorLeadId)]);
  }
}

/**
 * COIA's contractor leads and contractors, each written by one path:
 * `UnifiedStateManager.saveState` (a state with a company_name) and
 * `buildContractorProfile` write leads; `convertLead` is the one conversion. One request
 * per operation; every write is safe to resend.
 */
/** @implements {DeclaredContractorStore} */
export class ContractorStore {
  /** @type {Setup} */
  #s;

  /** @param {StoreOptions} options */
  constructor(options) {
    this.#s = setup(STATE_STORE.contractors, "ContractorStore", options);
    Object.freeze(this);
  }

  /** Creates the lead or merges enrichment into it; resolves to the lead. */
  /**
   * @param {string} contractorLeadId
   * @param {ContractorProfileInput} profile
   * @returns {Promise<ContractorLead>}
   */
  async buildContractorProfile(contractorLeadId, profile) {
    return call(this.#s, STATE_STORE.contractors, STATE_OP.contractors.buildContractorProfile, [toJson("contractorLeadId", contractorLeadId), toJson("profile", profile)]);
  }
  /** Makes the lead's contractor (once) and marks the lead converted; resolves to the contractor. */
  /**
   * @param {string} contractorLeadId
   * @param {ContractorAccountInput} [account]
   * @returns {Promise<Contractor>}
   */
  async convertLead(contractorLeadId, account) {
    return call(this.#s, STATE_STORE.contractors, STATE_OP.contractors.convertLead, [toJson("contractorLeadId", contractorLeadId), toJson("account", account)]);
  }
  /**
   * @param {string} contractorLeadId
   * @returns {Promise<ContractorLead | null>}
   */
  async getLead(contractorLeadId) {
    return call(this.#s, STATE_STORE.contractors, STATE_OP.contractors.getLead, [toJson("contractorLeadId", contractorLeadId)]);
  }
  /** The contractor the lead converted into, or null. */
  /**
   * @param {string} contractorLeadId
   * @returns {Promise<Contractor | null>}
   */
  async contractorForLead(contractorLeadId) {
    return call(this.#s, STATE_STORE.contractors, STATE_OP.contractors.contractorForLead, [toJson("contractorLeadId", contractorLeadId)]);
  }
}

/** `workflow_agent_states`: one WorkflowState per session. */
/** @implements {DeclaredWorkflowStateStore} */
export class WorkflowStateStore {
  /** @type {Setup} */
  #s;

  /** @param {WorkflowStateStoreOptions} options */
  constructor(options) {
    this.#s = setup(STATE_STORE.workflow, "WorkflowStateStore", options);
    Object.freeze(this);
  }

  /**
   * @param {WorkflowStateInput} state
   * @returns {Promise<WorkflowState>}
   */
  async create(state) {
    return call(this.#s, STATE_STORE.workflow, STATE_OP.workflow.create, [toJson("state", state)]);
  }
  /**
   * @param {string} sessionId
   * @returns {Promise<WorkflowState | null>}
   */
  async get(sessionId) {
    return call(this.#s, STATE_STORE.workflow, STATE_OP.workflow.get, [toJson("sessionId", sessionId)]);
  }
  /**
   * @param {string} sessionId
   * @param {WorkflowStatePatch} patch
   * @returns {Promise<WorkflowState>}
   */
  async update(sessionId, patch) {
    return call(this.#s, STATE_STORE.workflow, STATE_OP.workflow.update, [toJson("sessionId", sessionId), toJson("patch", patch)]);
  }
  /**
   * @param {WorkflowListQuery} [query]
   * @returns {Promise<WorkflowState[]>}
   */
  async list(query) {
    return call(this.#s, STATE_STORE.workflow, STATE_OP.workflow.list, [toJson("query", query)]);
  }
  /**
   * @param {string} sessionId
   * @returns {Promise<boolean>}
   */
  async delete(sessionId) {
    return call(this.#s, STATE_STORE.workflow, STATE_OP.workflow.delete, [toJson("sessionId", sessionId)]);
  }
}

/** TK9 research sessions and per-phase draft history, in tables. */
/** @implements {DeclaredResearchStore} */
export class ResearchStore {
  /** @type {Setup} */
  #s;

  /** @param {StoreOptions} options */
  constructor(options) {
    this.#s = setup(STATE_STORE.research, "ResearchStore", options);
    Object.freeze(this);
  }

  /**
   * @param {SessionStateInput} session
   * @returns {Promise<SessionState>}
   */
  async saveSession(session) {
    return call(this.#s, STATE_STORE.research, STATE_OP.research.saveSession, [toJson("session", session)]);
  }
  /**
   * @param {string} sessionId
   * @returns {Promise<SessionState | null>}
   */
  async loadSession(sessionId) {
    return call(this.#s, STATE_STORE.research, STATE_OP.research.loadSession, [toJson("sessionId", sessionId)]);
  }
  /** TK9's `SessionState.load`: the saved session, or null. */
  /**
   * @param {string} sessionId
   * @returns {Promise<SessionState | null>}
   */
  resumeSession(sessionId) {
    return this.loadSession(sessionId);
  }
  /**
   * @param {string} sessionId
   * @returns {Promise<boolean>}
   */
  async deleteSession(sessionId) {
    return call(this.#s, STATE_STORE.research, STATE_OP.research.deleteSession, [toJson("sessionId", sessionId)]);
  }
  /**
   * @param {string} sessionId
   * @param {DraftPhaseInput} phase
   * @param {string} content
   * @param {Record<string, JsonValue>} [metadata]
   * @returns {Promise<DraftInfo>}
   */
  async saveDraft(sessionId, phase, content, metadata) {
    return call(this.#s, STATE_STORE.research, STATE_OP.research.saveDraft, [toJson("sessionId", sessionId), toJson("phase", phase), toJson("content", content), toJson("metadata", metadata)]);
  }
  /**
   * @param {string} sessionId
   * @param {DraftPhaseInput} phase
   * @returns {Promise<Draft | null>}
   */
  async loadDraft(sessionId, phase) {
    return call(this.#s, STATE_STORE.research, STATE_OP.research.loadDraft, [toJson("sessionId", sessionId), toJson("phase", phase)]);
  }
  /**
   * @param {string} sessionId
   * @param {{ phase?: DraftPhaseInput }} [options]
   * @returns {Promise<DraftInfo[]>}
   */
  async listDrafts(sessionId, options) {
    return call(this.#s, STATE_STORE.research, STATE_OP.research.listDrafts, [toJson("sessionId", sessionId), toJson("options", options)]);
  }
  /**
   * @param {string} sessionId
   * @returns {Promise<WorkflowSummary>}
   */
  async workflowSummary(sessionId) {
    return call(this.#s, STATE_STORE.research, STATE_OP.research.workflowSummary, [toJson("sessionId", sessionId)]);
  }
}

/**
 * TK9's merge: `{ ...state, ...updates }` (shallow), after checking both.
 * @template {ResearchState} S
 * @param {S} state
 * @param {ResearchState} updates
 * @returns {S}
 */
export function mergeState(state, updates) {
  // The merge keeps every key of `state` (S's), with the updates over them.
  return /** @type {S} */ (researchMergeState(toJson("state", state), toJson("updates", updates)));
}

/**
 * TK9's `validate_state`: `{ valid, missing, errors }`.
 * @param {ResearchState} state
 * @returns {{ valid: boolean, missing: string[], errors: { field: string, message: string }[] }}
 */
export function validateState(state) {
  return researchValidateState(toJson("state", state));
}

/**
 * TK9's `validate_transition(from, to, state)`: `{ valid, required, missing }`.
 * @param {string} fromPhase
 * @param {string} toPhase
 * @param {ResearchState} state
 * @returns {{ valid: boolean, required: string[], missing: string[] }}
 */
export function validateTransition(fromPhase, toPhase, state) {
  return researchValidateTransition(toJson("fromPhase", fromPhase), toJson("toPhase", toPhase), toJson("state", state));
}

/**
 * A WorkflowState checked, with its column defaults filled in.
 * @param {WorkflowStateInput} state
 * @param {{ removedFields?: "reject" | "ignore" }} [options]
 * @returns {WorkflowState}
 */
export function normalizeWorkflowState(state, options) {
  return workflowNormalizeState(toJson("state", state), toJson("options", options));
}
