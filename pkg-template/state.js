// State stores: unified conversation memory, workflow agent states, research sessions
// and drafts, COIA contractor leads and their conversion. The module validates, plans and
// sends ONE request per operation; these classes only keep what the module must not
// (the client's options and the store's own options) and turn values into JSON text.
// Store methods are async, so bad input (found as early as the JSON conversion) always
// arrives as a rejected promise, never as a synchronous throw.
import { clientState } from "./client.js";
import { AgentmemError } from "./errors.js";
import { toJson } from "./json.js";
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

/** Splits `{ client, ...options }` and checks both. */
function setup(store, what, options) {
  if (options === null || typeof options !== "object") {
    throw new AgentmemError("invalid_input", `${what} needs { client, ... }`, { field: "options" });
  }
  let own;
  try {
    own = { ...options };
  } catch (e) {
    throw unreadable("options", e);
  }
  const { client, ...rest } = own;
  const c = clientState(client);
  const text = toJson("options", rest);
  const described = stateCheckOptions(store, text);
  return { client: c, options: text, described };
}

function call(s, store, op, ...args) {
  return run(s.client, "state", op, [store, s.options, ...args]);
}

/**
 * COIA's unified conversation memory: the state of a contractor lead across
 * visits, under conversation id uuid5(contractorLeadId). Every save is one atomic request.
 */
export class UnifiedStateManager {
  #s;

  constructor(options) {
    this.#s = setup("unified", "UnifiedStateManager", options);
    Object.freeze(this);
  }

  /** COIA's PERSISTENT_STATE_FIELDS, in order. */
  static get PERSISTENT_STATE_FIELDS() {
    return stateCheckOptions("unified", undefined).fields;
  }

  /** The fields this manager saves (the default list, replaced by `fields`, plus `extraFields`). */
  get persistentFields() {
    return [...this.#s.described.fields];
  }

  /** The conversation id of a lead: uuid5(contractorLeadId, namespace). */
  conversationId(contractorLeadId) {
    return conversationId(contractorLeadId, this.#s.described.namespace);
  }

  async saveState(contractorLeadId, state, options) {
    return call(this.#s, "unified", "save", toJson("contractorLeadId", contractorLeadId), toJson("state", state), toJson("options", options));
  }
  async restoreState(contractorLeadId) {
    return call(this.#s, "unified", "restore", toJson("contractorLeadId", contractorLeadId));
  }
  async createCheckpoint(contractorLeadId, state) {
    return call(this.#s, "unified", "createCheckpoint", toJson("contractorLeadId", contractorLeadId), toJson("state", state));
  }
  async restoreCheckpoint(contractorLeadId) {
    return call(this.#s, "unified", "restoreCheckpoint", toJson("contractorLeadId", contractorLeadId));
  }
  /** The contractor lead a conversation was linked to by `saveState(..., { conversationId })`. */
  async leadForConversation(conversationId) {
    return call(this.#s, "unified", "leadForConversation", toJson("conversationId", conversationId));
  }
  /** Deletes the lead's conversation, its memory and its links; resolves to the row count. */
  async deleteState(contractorLeadId) {
    return call(this.#s, "unified", "delete", toJson("contractorLeadId", contractorLeadId));
  }
}

/**
 * COIA's contractor leads and contractors, each written by one path:
 * `UnifiedStateManager.saveState` (a state with a company_name) and
 * `buildContractorProfile` write leads; `convertLead` is the one conversion. One request
 * per operation; every write is safe to resend.
 */
export class ContractorStore {
  #s;

  constructor(options) {
    this.#s = setup("contractors", "ContractorStore", options);
    Object.freeze(this);
  }

  /** Creates the lead or merges enrichment into it; resolves to the lead. */
  async buildContractorProfile(contractorLeadId, profile) {
    return call(this.#s, "contractors", "buildContractorProfile", toJson("contractorLeadId", contractorLeadId), toJson("profile", profile));
  }
  /** Makes the lead's contractor (once) and marks the lead converted; resolves to the contractor. */
  async convertLead(contractorLeadId, account) {
    return call(this.#s, "contractors", "convertLead", toJson("contractorLeadId", contractorLeadId), toJson("account", account));
  }
  async getLead(contractorLeadId) {
    return call(this.#s, "contractors", "getLead", toJson("contractorLeadId", contractorLeadId));
  }
  /** The contractor the lead converted into, or null. */
  async contractorForLead(contractorLeadId) {
    return call(this.#s, "contractors", "contractorForLead", toJson("contractorLeadId", contractorLeadId));
  }
}

/** `workflow_agent_states`: one WorkflowState per session. */
export class WorkflowStateStore {
  #s;

  constructor(options) {
    this.#s = setup("workflow", "WorkflowStateStore", options);
    Object.freeze(this);
  }

  async create(state) {
    return call(this.#s, "workflow", "create", toJson("state", state));
  }
  async get(sessionId) {
    return call(this.#s, "workflow", "get", toJson("sessionId", sessionId));
  }
  async update(sessionId, patch) {
    return call(this.#s, "workflow", "update", toJson("sessionId", sessionId), toJson("patch", patch));
  }
  async list(query) {
    return call(this.#s, "workflow", "list", toJson("query", query));
  }
  async delete(sessionId) {
    return call(this.#s, "workflow", "delete", toJson("sessionId", sessionId));
  }
}

/** TK9 research sessions and per-phase draft history, in tables. */
export class ResearchStore {
  #s;

  constructor(options) {
    this.#s = setup("research", "ResearchStore", options);
    Object.freeze(this);
  }

  async saveSession(session) {
    return call(this.#s, "research", "saveSession", toJson("session", session));
  }
  async loadSession(sessionId) {
    return call(this.#s, "research", "loadSession", toJson("sessionId", sessionId));
  }
  /** TK9's `SessionState.load`: the saved session, or null. */
  resumeSession(sessionId) {
    return this.loadSession(sessionId);
  }
  async deleteSession(sessionId) {
    return call(this.#s, "research", "deleteSession", toJson("sessionId", sessionId));
  }
  async saveDraft(sessionId, phase, content, metadata) {
    return call(this.#s, "research", "saveDraft", toJson("sessionId", sessionId), toJson("phase", phase), toJson("content", content), toJson("metadata", metadata));
  }
  async loadDraft(sessionId, phase) {
    return call(this.#s, "research", "loadDraft", toJson("sessionId", sessionId), toJson("phase", phase));
  }
  async listDrafts(sessionId, options) {
    return call(this.#s, "research", "listDrafts", toJson("sessionId", sessionId), toJson("options", options));
  }
  async workflowSummary(sessionId) {
    return call(this.#s, "research", "workflowSummary", toJson("sessionId", sessionId));
  }
}

/** TK9's merge: `{ ...state, ...updates }` (shallow), after checking both. */
export function mergeState(state, updates) {
  return researchMergeState(toJson("state", state), toJson("updates", updates));
}

/** TK9's `validate_state`: `{ valid, missing, errors }`. */
export function validateState(state) {
  return researchValidateState(toJson("state", state));
}

/** TK9's `validate_transition(from, to, state)`: `{ valid, required, missing }`. */
export function validateTransition(fromPhase, toPhase, state) {
  return researchValidateTransition(toJson("fromPhase", fromPhase), toJson("toPhase", toPhase), toJson("state", state));
}

/** A WorkflowState checked, with its column defaults filled in. */
export function normalizeWorkflowState(state, options) {
  return workflowNormalizeState(toJson("state", state), toJson("options", options));
}
