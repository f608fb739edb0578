// Types of errors.js: the one error class, shared by the main entry and agentmem-supabase/ids.

/** Stable error codes; branch on these, never on messages. */
// Generated from agentmem's Rust declaration ErrorCode; do not edit.
export type AgentmemErrorCode =
  | "invalid_input"
  | "not_found"
  | "conflict"
  | "unauthorized"
  | "forbidden"
  | "timeout"
  | "network"
  | "server"
  | "embedding_failed"
  | "dimension_mismatch"
  | "internal"
  | "schema_not_installed"
  | "wasm_not_loaded";

/** The only error agentmem throws or rejects with. */
export declare class AgentmemError extends Error {
  constructor(code: AgentmemErrorCode, message: string, props?: Partial<AgentmemErrorProps> & { cause?: unknown });
  readonly name: "AgentmemError";
  readonly code: AgentmemErrorCode;
  /** HTTP status, when the error came from a response. */
  readonly status?: number;
  /** PostgREST or Postgres error code, e.g. "PGRST116", "23505". */
  readonly pgrstCode?: string;
  readonly details?: string;
  readonly hint?: string;
  /** The input at fault for `invalid_input`, e.g. "namespace" or "names[3]". */
  readonly field?: string;
  /** Retries made before giving up. */
  readonly retries?: number;
}

export interface AgentmemErrorProps {
  status: number;
  pgrstCode: string;
  details: string;
  hint: string;
  field: string;
  retries: number;
}
