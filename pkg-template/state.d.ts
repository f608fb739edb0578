// Public types of the agentmem package: the state stores (state.js). Written by hand,
// like every .d.ts here but for the unions marked as generated from a Rust declaration;
// index.d.ts re-exports them.

// @ts-types="./client.d.ts"
import type { AgentmemClient, ClientOptions, JsonValue } from "./client.js";
import type { UuidNamespace } from "./ids.js";

// --- State stores -----------------------------------------------------------------------

/** Options every store takes: the client (acting as a signed-in user, or the service role). */
export interface StoreOptions {
  client: AgentmemClient | ClientOptions;
}

// Unified conversation memory

export interface UnifiedStateManagerOptions extends StoreOptions {
  /** Replaces the persistent field list (default: `UnifiedStateManager.PERSISTENT_STATE_FIELDS`). */
  fields?: string[];
  /** Fields saved in addition to the list. */
  extraFields?: string[];
  /** Skip null, "", {} and [] as COIA's original did (default false: every present field is saved; null clears). */
  skipEmpty?: boolean;
  /** UUIDv5 namespace of conversation ids (default COIA's 00000000-0000-0000-0000-000000000001). */
  namespace?: UuidNamespace;
  /** Upsert the contractor lead of a state that has a company_name, in the same request (default true). */
  contractorLeads?: boolean;
}

/** A message as `restoreState` returns it: the stored `{content, type}` plus `role`. */
export interface RestoredMessage {
  role: "user" | "assistant" | "system" | "tool";
  type: "human" | "ai" | "system" | "tool";
  content: string | JsonValue[];
  name?: string;
  id?: string;
  tool_call_id?: string;
  tool_calls?: JsonValue[];
}

/**
 * What `saveState` accepts as a message: `{role, content}`, `{type, content}`, or a
 * LangChain message object (serialized through its toJSON).
 */
export type InputMessage =
  | { role: "user" | "human" | "assistant" | "ai" | "system" | "tool"; content: string | JsonValue[]; [k: string]: unknown }
  | { type: "human" | "ai" | "system" | "tool"; content: string | JsonValue[]; [k: string]: unknown }
  | { lc: number; type: "constructor"; id: string[]; kwargs: Record<string, unknown> }
  | { toJSON(): unknown };

export interface CoiaState {
  messages?: InputMessage[];
  company_name?: string | null;
  research_completed?: boolean | null;
  extraction_completed?: boolean | null;
  intelligence_completed?: boolean | null;
  contractor_created?: boolean | null;
  /** Conversation metadata (not saved as fields unless listed). */
  journey_stage?: string;
  interface?: string;
  current_mode?: string;
  [field: string]: unknown;
}

export interface RestoredCoiaState {
  messages?: RestoredMessage[];
  /** ISO 8601 UTC time of the last save. */
  last_state_update: string;
  [field: string]: unknown;
}

export interface SaveStateResult {
  conversationId: string;
  /** The fields written, in field-list order. */
  savedFields: string[];
  lastStateUpdate: string;
  /**
   * The contractor lead upserted in the same request (the state had a company_name), or
   * null. `fields`: the state fields copied to it; `skipped`: state fields whose value does
   * not fit the lead's column (e.g. years_in_business "10+"), kept in memory only.
   */
  lead: { id: string; fields: string[]; skipped: string[] } | null;
}

export interface CoiaCheckpoint {
  company_name: string | null;
  current_mode: unknown;
  extraction_completed: boolean | null;
  research_completed: boolean | null;
  intelligence_completed: boolean | null;
  contractor_created: boolean | null;
  checkpoint_timestamp: string;
}

export declare class UnifiedStateManager {
  constructor(options: UnifiedStateManagerOptions);
  /** COIA's PERSISTENT_STATE_FIELDS, in order. */
  static readonly PERSISTENT_STATE_FIELDS: string[];
  /** The fields this manager saves. */
  readonly persistentFields: string[];
  /** uuid5(contractorLeadId, namespace). */
  conversationId(contractorLeadId: string): string;
  /**
   * Saves every field of the list present in `state`, last_state_update, the conversation
   * record, (with `conversationId`) a contractor_mapping link and (when the state has a
   * company_name) the contractor lead: one atomic request.
   */
  saveState(contractorLeadId: string, state: CoiaState, options?: { conversationId?: string }): Promise<SaveStateResult>;
  /** The saved fields (unknown keys included), messages with roles; null when none. */
  restoreState(contractorLeadId: string): Promise<RestoredCoiaState | null>;
  createCheckpoint(contractorLeadId: string, state: CoiaState): Promise<CoiaCheckpoint>;
  restoreCheckpoint(contractorLeadId: string): Promise<CoiaCheckpoint | null>;
  leadForConversation(conversationId: string): Promise<string | null>;
  /** Deletes the conversation, its memory and links; resolves to the number of rows deleted. */
  deleteState(contractorLeadId: string): Promise<number>;
}

// Contractor leads and contractors

/** The lead fields a profile or a state names; `null` anywhere means "unknown": it never clears. */
export interface ContractorLeadFields {
  company_name?: string | null;
  contact_name?: string | null;
  contact_email?: string | null;
  contact_phone?: string | null;
  business_address?: string | null;
  license_number?: string | null;
  /** Rounded to a whole number; numeric strings ("15") accepted. */
  years_in_business?: number | string | null;
  employee_count?: number | string | null;
  specialties?: string[] | null;
  certifications?: string[] | null;
  service_areas?: string[] | null;
  project_types?: string[] | null;
}

/** `buildContractorProfile`'s input: lead fields, enrichment, and any other fields (kept in `details`). */
export interface ContractorProfileInput extends ContractorLeadFields {
  /** {platform: url}, merged into the lead's. */
  social_links?: Record<string, string | null> | null;
  /** {name: integer}, merged; numbers and numeric strings are rounded. */
  scores?: Record<string, number | string | null> | null;
  /** Where the data came from; added to the lead's as a set. */
  data_sources?: string[] | null;
  /** Other profile fields, merged by key (as are unknown top-level keys). */
  details?: Record<string, unknown> | null;
  [field: string]: unknown;
}

/** The profile a lead and its contractor share, as stored. */
export interface ContractorProfile {
  company_name: string;
  contact_name: string | null;
  contact_email: string | null;
  contact_phone: string | null;
  business_address: string | null;
  license_number: string | null;
  years_in_business: number | null;
  employee_count: number | null;
  specialties: JsonValue[];
  certifications: JsonValue[];
  service_areas: JsonValue[];
  project_types: JsonValue[];
  social_links: Record<string, string>;
}

export interface ContractorLead extends ContractorProfile {
  id: string;
  scores: Record<string, number>;
  data_sources: string[];
  details: Record<string, JsonValue>;
  /** Set by the first profile build, never changed; null if only state saves wrote the lead. */
  discovered_at: string | null;
  converted_to_contractor: boolean;
  converted_at: string | null;
  created_at: string;
  updated_at: string;
}

/** `convertLead`'s account: overrides of the lead's fields, and the account's own settings. */
export interface ContractorAccountInput extends ContractorLeadFields {
  /** Default "available". */
  availability_status?: string | null;
  /** Default 3 (the entry tier). */
  tier?: number | string | null;
}

export interface Contractor extends ContractorProfile {
  id: string;
  contractor_lead_id: string | null;
  availability_status: string;
  tier: number;
  /** The verified flags start false; a conversion never sets them. */
  verified: boolean;
  license_verified: boolean;
  insurance_verified: boolean;
  created_at: string;
  updated_at: string;
}

export declare class ContractorStore {
  constructor(options: StoreOptions);
  /**
   * Creates the lead (a new lead needs company_name) or enriches it: given fields replace,
   * social_links/scores/details merge by key, data_sources is a set, nulls never clear,
   * discovered_at is set once. One request.
   */
  buildContractorProfile(contractorLeadId: string, profile: ContractorProfileInput): Promise<ContractorLead>;
  /**
   * Inserts the lead's contractor (account fields over the lead's, defaults for the rest)
   * and marks the lead converted, in one transaction. A lead converts once: a second call
   * (or a resend, or a concurrent call) resolves to the same contractor. A lead that is not
   * the caller's is `not_found`, whether another tenant has it or nobody does.
   */
  convertLead(contractorLeadId: string, account?: ContractorAccountInput): Promise<Contractor>;
  getLead(contractorLeadId: string): Promise<ContractorLead | null>;
  /** The contractor the lead converted into, or null. */
  contractorForLead(contractorLeadId: string): Promise<Contractor | null>;
}

// Workflow agent states

// Generated from agentmem's Rust declaration WorkflowStage; do not edit.
export type WorkflowStage = "clarification" | "gap_analysis" | "workflow_generation" | "debug" | "completed";
// Generated from agentmem's Rust declaration GapStatus; do not edit.
export type GapStatus = "no_gap" | "has_gap" | "gap_resolved" | "blocking";
// Generated from agentmem's Rust declaration Origin; do not edit.
export type WorkflowOrigin = "create" | "edit" | "copy";

export interface WorkflowConversation {
  role: "user" | "assistant" | "system";
  text: string;
  /** ms since the epoch. */
  timestamp: number;
  metadata?: Record<string, JsonValue>;
}

export interface ClarificationContext {
  purpose: "initial_intent" | "template_modification" | "gap_negotiation" | "debug_issue";
  collected_info?: Record<string, JsonValue>;
  pending_questions?: string[];
  origin?: WorkflowOrigin;
}

export interface GapDetail {
  required_capability: string;
  missing_component: string;
  alternatives?: string[];
}

export interface DebugResult {
  success: boolean;
  errors?: string[];
  warnings?: string[];
  suggestions?: string[];
  iteration_count?: number;
  /** ms since the epoch. */
  timestamp?: number;
  [key: string]: JsonValue | undefined;
}

export interface WorkflowContext {
  origin?: WorkflowOrigin;
  requirements?: Record<string, JsonValue>;
  [key: string]: JsonValue | undefined;
}

/** A WorkflowState as stored and returned: every field, defaults filled in. */
export interface WorkflowState {
  session_id: string;
  user_id: string | null;
  created_at: number;
  updated_at: number;
  stage: WorkflowStage;
  previous_stage: WorkflowStage | null;
  intent_summary: string;
  conversations: Required<WorkflowConversation>[];
  execution_history: string[];
  clarification_context: Required<Omit<ClarificationContext, "origin">> & { origin?: WorkflowOrigin } | null;
  gap_status: GapStatus;
  identified_gaps: Required<GapDetail>[];
  current_workflow: JsonValue;
  template_workflow: JsonValue;
  workflow_context: WorkflowContext | null;
  debug_result: DebugResult | null;
  debug_loop_count: number;
  template_id: string | null;
}

/** What `create` takes: session_id required, the rest defaulted (timestamps: now). */
export type WorkflowStateInput = Partial<Omit<WorkflowState, "session_id" | "conversations" | "identified_gaps" | "clarification_context">> & {
  session_id: string;
  conversations?: WorkflowConversation[];
  identified_gaps?: GapDetail[];
  clarification_context?: ClarificationContext | null;
};

/** What `update` takes: any fields but the managed ones (null clears / resets). */
export type WorkflowStatePatch = Partial<Omit<WorkflowStateInput, "session_id" | "user_id" | "created_at" | "updated_at" | "previous_stage">>;

export interface WorkflowStateStoreOptions extends StoreOptions {
  /** Fields WorkflowState no longer has (user_message, clarification_questions, ...): refused (default) or dropped. */
  removedFields?: "reject" | "ignore";
}

export interface WorkflowListQuery {
  userId?: string;
  stage?: WorkflowStage;
  gapStatus?: GapStatus;
  templateId?: string;
  /** 1..1000, default 100. Newest update first. */
  limit?: number;
  offset?: number;
}

export declare class WorkflowStateStore {
  constructor(options: WorkflowStateStoreOptions);
  /** Creates the state of a session; `conflict` if the session exists with another state. */
  create(state: WorkflowStateInput): Promise<WorkflowState>;
  get(sessionId: string): Promise<WorkflowState | null>;
  /** Partial update: bumps updated_at, sets previous_stage on a stage change; `not_found` if absent. */
  update(sessionId: string, patch: WorkflowStatePatch): Promise<WorkflowState>;
  list(query?: WorkflowListQuery): Promise<WorkflowState[]>;
  delete(sessionId: string): Promise<boolean>;
}

/** A WorkflowState checked with its defaults filled in (no request). */
export declare function normalizeWorkflowState(state: WorkflowStateInput, options?: { removedFields?: "reject" | "ignore" }): WorkflowState;

// Research sessions and drafts

/** TK9's ResearchState (every field optional; other keys are kept). */
export interface ResearchState {
  query?: string;
  tone?: string;
  language?: string;
  guidelines?: string[];
  research_plan?: Record<string, JsonValue>[];
  methodology?: string;
  research_sections?: Record<string, JsonValue>[];
  research_data?: Record<string, JsonValue>;
  draft_report?: string;
  final_report?: string;
  published_files?: Record<string, string>;
  translated_report?: string | null;
  review_result?: Record<string, JsonValue>;
  revision_notes?: string[];
  task_id?: number;
  output_dir?: string;
  errors?: string[];
  [key: string]: unknown;
}

export interface SessionState {
  session_id: string;
  query: string;
  current_phase: string;
  completed_phases: string[];
  research_state: ResearchState;
  /** ms since the epoch; kept from the first save. */
  start_time: number;
  /** ms since the epoch; set by every save. */
  last_update: number;
}

export type SessionStateInput = Omit<SessionState, "completed_phases" | "research_state" | "start_time" | "last_update"> &
  Partial<Pick<SessionState, "completed_phases" | "research_state" | "start_time" | "last_update">>;

// Generated from agentmem's Rust declaration DraftPhase; do not edit.
export type DraftPhase = "1_browsing" | "2_planning" | "3_research" | "4_writing" | "5_reviewing" | "6_revision" | "7_publishing";
/** A phase, or its name without the number ("writing"). */
export type DraftPhaseInput = DraftPhase | "browsing" | "planning" | "research" | "writing" | "reviewing" | "revision" | "publishing";

export interface DraftInfo {
  id: string;
  session_id: string;
  phase: DraftPhase;
  /** 1, 2, ... per session and phase. */
  version: number;
  /** ms since the epoch. */
  created_at: number;
  content_chars: number;
  metadata: Record<string, JsonValue>;
}

export interface Draft extends DraftInfo {
  content: string;
}

export interface PhaseSummary {
  phase: DraftPhase;
  drafts: number;
  latest_version: number | null;
  first_saved_at: number | null;
  last_saved_at: number | null;
  latest_chars: number | null;
}

export interface WorkflowSummary extends Omit<SessionState, "research_state"> {
  research_state_fields: string[];
  /** All seven phases, in order. */
  phases: PhaseSummary[];
  total_drafts: number;
  /** What the original wrote to its drafts folder as WORKFLOW_SUMMARY.md. */
  markdown: string;
}

export declare class ResearchStore {
  constructor(options: StoreOptions);
  /** Saves (upserts) a session: one request. */
  saveSession(session: SessionStateInput): Promise<SessionState>;
  loadSession(sessionId: string): Promise<SessionState | null>;
  /** Same as loadSession (TK9's SessionState.load). */
  resumeSession(sessionId: string): Promise<SessionState | null>;
  /** Deletes the session and its drafts. */
  deleteSession(sessionId: string): Promise<boolean>;
  /** The next version of the phase's draft; `not_found` if the session is not saved. */
  saveDraft(sessionId: string, phase: DraftPhaseInput, content: string, metadata?: Record<string, JsonValue>): Promise<DraftInfo>;
  /** The latest draft of a phase, or null. */
  loadDraft(sessionId: string, phase: DraftPhaseInput): Promise<Draft | null>;
  /** Every draft (without content), by phase and version. */
  listDrafts(sessionId: string, options?: { phase?: DraftPhaseInput }): Promise<DraftInfo[]>;
  workflowSummary(sessionId: string): Promise<WorkflowSummary>;
}

/** TK9's merge: `{ ...state, ...updates }` (shallow; lists and objects are replaced). */
export declare function mergeState<S extends ResearchState>(state: S, updates: ResearchState): S;
/** TK9's validate_state (query, tone, language present; declared fields typed). */
export declare function validateState(state: ResearchState): {
  valid: boolean;
  missing: string[];
  errors: { field: string; message: string }[];
};
/** TK9's validate_transition: editor needs query+tone, researcher research_plan, writer research_sections, reviewer draft_report. */
export declare function validateTransition(fromPhase: string, toPhase: string, state: ResearchState): {
  valid: boolean;
  required: string[];
  missing: string[];
};
