// Public types of the agentmem package. Written by hand, once: the generated glue is
// internal and typed as `any`.

/** Stable error codes; branch on these, never on messages. */
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
  | "internal";

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

// ---------------------------------------------------------------- ids

/** A UUID string, or one of RFC 9562's well-known namespaces (Python's `uuid.NAMESPACE_*`). */
export type UuidNamespace = "dns" | "url" | "oid" | "x500" | (string & {});

/** `uuid.uuid5(namespace, name)`, byte-identical to Python for any Unicode name. */
export declare function uuid5(name: string, namespace: UuidNamespace): string;
/** `uuid5` over many names with one namespace; errors name the offending index. */
export declare function uuid5Batch(names: string[], namespace: UuidNamespace): string[];
/**
 * COIA's unified-memory conversation id for a contractor lead (spec 000 §2):
 * `uuid5(contractorLeadId, namespace)`, namespace `00000000-0000-0000-0000-000000000001`
 * unless given.
 */
export declare function conversationId(contractorLeadId: string, namespace?: UuidNamespace | null): string;

/** What LangGraph reads from `config.configurable`. */
export interface ThreadConfig {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id?: string;
}

export type CoiaFlow = "chat" | "research" | "intelligence" | "landing" | "bidcard";

/**
 * COIA's LangGraph config for an entry flow (spec 000 §1). `id` is the contractor_lead_id
 * or session id; `landing` and `bidcard` mint `landing-{12 hex}` / `bidcard-{12 hex}` when
 * it is absent, the other flows require it.
 */
export declare function coiaThread(flow: CoiaFlow, id?: string | null): ThreadConfig;
/** `cim-{dealId}-{cimId}`; the deal id is written as a lowercase UUID. */
export declare function cimThreadId(dealId: string, cimId: string): string;
/** `supervisor-{dealId}-{timestampMs}`. */
export declare function supervisorThreadId(dealId: string, timestampMs: number): string;

export type ParsedThreadId =
  | { kind: "cim"; dealId: string; cimId: string }
  | { kind: "supervisor"; dealId: string; timestampMs: number }
  | { kind: "landing"; token: string }
  | { kind: "bidcard"; token: string }
  | { kind: "other" };

/** Takes apart the exact shapes the builders produce; anything else is `{ kind: "other" }`. */
export declare function parseThreadId(threadId: string): ParsedThreadId;
/**
 * Exactly what SQL `extract_deal_id_from_thread(thread_id)` returns (spec 002): the deal
 * UUID, or `null` (uppercase hex, malformed UUIDs, other prefixes, `null` input).
 */
export declare function extractDealId(threadId: string | null): string | null;

// ---------------------------------------------------------------- PostgREST client

export interface ClientOptions {
  /** Supabase project URL (`/rest/v1` is appended) or a full PostgREST URL. */
  url: string;
  /** The anon / publishable key (or, server-side only, the service-role / secret key). */
  apiKey: string;
  /** A signed-in user's JWT: requests then run as that user under RLS. */
  accessToken?: string | null;
  /** Injected fetch (edge runtimes, tests, tracing); defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Per-attempt time limit, 1..600000 ms (default 15000). */
  timeoutMs?: number;
  /** Retries of idempotent requests after network errors, timeouts, 502/503/504 (default 2, max 10). */
  retries?: number;
  /** Non-default schema (Accept-Profile / Content-Profile). */
  schema?: string;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /** Allow a service-role or secret key where `window`/`document` exist. Almost always a leak. */
  dangerouslyAllowSecretKeyInBrowser?: boolean;
}

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export type FilterOperator =
  | "eq" | "neq" | "gt" | "gte" | "lt" | "lte" | "like" | "ilike" | "match" | "imatch" | "isdistinct"
  | "is" | "in" | "cs" | "cd" | "ov" | "sl" | "sr" | "nxr" | "nxl" | "adj" | "fts" | "plfts" | "phfts" | "wfts";

/**
 * `[column, operator, value]` (prefix the operator with `not.` to negate; the column may be
 * a JSON path like `metadata->>source`), or a group of filters. Values are always sent as
 * data: quoting and escaping are done for you.
 */
export type Filter =
  | [column: string, operator: FilterOperator | `not.${FilterOperator}`, value: JsonValue | { query: string; config?: string }]
  | { or: Filter[] }
  | { and: Filter[] }
  | { not: { or: Filter[] } | { and: Filter[] } };

export type Order = string | { column: string; ascending?: boolean; nullsFirst?: boolean }[];
export type CountMode = "exact" | "planned" | "estimated";

export interface SelectOptions {
  /** PostgREST select list, e.g. `"id,body,source:metadata->>source"`. */
  columns?: string;
  filters?: Filter[];
  order?: Order;
  limit?: number;
  offset?: number;
  count?: CountMode;
  /** Exactly one row, else `not_found` (none) or `conflict` (several). */
  single?: boolean;
  /** Zero or one row: `data` is the row or null; several → `conflict`. */
  maybeSingle?: boolean;
  /** HEAD request: only `count`. */
  head?: boolean;
}

export interface WriteOptions {
  returning?: "minimal" | "representation";
  /** Columns returned with `returning: "representation"`. */
  columns?: string;
  /** Insert only these keys (rows may then differ in keys). */
  insertColumns?: string[];
  count?: CountMode;
  single?: boolean;
  /** Missing keys take the column DEFAULT instead of NULL. */
  missingDefault?: boolean;
}

export interface UpsertOptions extends WriteOptions {
  /** Conflict target (defaults to the primary key). */
  onConflict?: string[];
  /** Keep existing rows instead of merging into them. */
  ignoreDuplicates?: boolean;
}

export interface FilteredWriteOptions extends WriteOptions {
  /** Required: an update or delete without filters is refused. */
  filters: Filter[];
}

export interface RpcOptions {
  /** The function is safe to run twice, so failed attempts may be retried. */
  idempotent?: boolean;
  /** Call with GET (read-only functions; scalar arguments only). */
  get?: boolean;
  columns?: string;
  filters?: Filter[];
  order?: Order;
  limit?: number;
  offset?: number;
  count?: CountMode;
  single?: boolean;
  maybeSingle?: boolean;
}

export interface Result<T = unknown> {
  data: T;
  /** Total from Content-Range when `count` was requested, else null. */
  count: number | null;
  status: number;
}

export interface TokenInfo {
  role: string | null;
  sub: string | null;
  exp: number | null;
  kind: "jwt" | "publishable" | "secret";
}

export declare class AgentmemClient {
  constructor(options: ClientOptions);
  readonly restUrl: string;
  readonly identity: TokenInfo;
  withAccessToken(accessToken: string): AgentmemClient;
  headersFor(accessToken: string): { apikey: string; Authorization: string };
  select<T = Record<string, unknown>[]>(table: string, options?: SelectOptions): Promise<Result<T>>;
  insert<T = null>(table: string, rows: object | object[], options?: WriteOptions): Promise<Result<T>>;
  upsert<T = null>(table: string, rows: object | object[], options?: UpsertOptions): Promise<Result<T>>;
  update<T = null>(table: string, patch: object, options: FilteredWriteOptions): Promise<Result<T>>;
  delete<T = null>(table: string, options: FilteredWriteOptions): Promise<Result<T>>;
  rpc<T = unknown>(fn: string, args?: Record<string, unknown>, options?: RpcOptions): Promise<Result<T>>;
}

export declare function createClient(options: ClientOptions): AgentmemClient;
/** What a key or token stands for (decoded, never verified). */
export declare function inspectToken(token: string): TokenInfo;

// --- Memory tools -----------------------------------------------------------------------

export type MemoryType = "conversation" | "preference" | "fact" | "decision" | "context";
export type MemoryToolName = "create_memory" | "search_memories" | "update_memory" | "delete_memory" | "get_memory_context";

/**
 * The injected embedding function: one vector per text, each of `dimensions` finite
 * numbers. agentmem never calls an embedding API itself.
 */
export type EmbedFn = (texts: string[]) => Promise<ArrayLike<number>[]> | ArrayLike<number>[];

export interface MemoryToolsOptions {
  /** A client acting as the signed-in user (`accessToken`), or its options. */
  client: AgentmemClient | ClientOptions;
  embed: EmbedFn;
  /** Which agent the memories belong to (memories are per user and agent). */
  agentId: string;
  /** Recorded on created memories. */
  sessionId?: string;
  /** When given, must be the `sub` of the client's token (a guard against mix-ups). */
  userId?: string;
  /** Vector size of `embed` and of `agent_memories.embedding` (default 384). */
  dimensions?: number;
  /** Minimum cosine similarity for `search_memories` (default 0.5). */
  matchThreshold?: number;
}

export interface Memory {
  id: string;
  content: string;
  memory_type: MemoryType;
  importance_score: number;
  expires_at?: string;
  created_at: string;
  updated_at?: string;
  /** Cosine similarity to the query (search and context with a query). */
  similarity?: number;
}

export interface CreateMemoryInput {
  content: string;
  memory_type: MemoryType;
  /** 0..1; defaults by type: preference 0.9, decision 0.7, fact 0.6, context 0.5, conversation 0.3. */
  importance_score?: number;
  reference_type?: "rfp" | "bid" | "artifact" | "message" | "user_profile";
  reference_id?: string;
  /** ISO 8601 date or date-time in the future. */
  expires_at?: string;
}
export interface SearchMemoriesInput {
  query: string;
  memory_types?: MemoryType[];
  /** 1..50, default 10. */
  limit?: number;
}
export interface UpdateMemoryInput {
  memory_id: string;
  content?: string;
  memory_type?: MemoryType;
  importance_score?: number;
  /** null clears the expiry. */
  expires_at?: string | null;
}
export interface DeleteMemoryInput {
  memory_id: string;
}
export interface GetMemoryContextInput {
  query?: string;
  /** Budget for the memories' total length (default 4000). */
  max_chars?: number;
  /** Default 20, at most 100. */
  max_memories?: number;
  min_importance?: number;
}

export type MemoryToolResult =
  | { success: true; memory: Memory }
  | { success: true; count: number; memories: Memory[] }
  | { success: true; count: number; memories: Memory[]; context: string }
  | { success: true; deleted: string }
  | { success: false; error: { code: AgentmemErrorCode; message: string; field?: string } };

export interface AnthropicTool {
  name: MemoryToolName;
  description: string;
  input_schema: Record<string, unknown>;
}
export interface OpenAITool {
  type: "function";
  function: { name: MemoryToolName; description: string; parameters: Record<string, unknown> };
}

export declare class MemoryTools {
  constructor(options: MemoryToolsOptions);
  /** The user (JWT `sub`) these tools act for. */
  readonly userId: string;
  static readonly toolNames: MemoryToolName[];
  static definitions(format?: "anthropic"): AnthropicTool[];
  static definitions(format: "openai"): OpenAITool[];
  definitions(format?: "anthropic"): AnthropicTool[];
  definitions(format: "openai"): OpenAITool[];
  /** For the LLM loop: never throws for a failed call; returns `{ success: false, error }`. */
  handle(name: string, input: unknown): Promise<MemoryToolResult>;
  /** Typed calls: throw `AgentmemError` on failure. */
  createMemory(input: CreateMemoryInput): Promise<{ success: true; memory: Memory }>;
  searchMemories(input: SearchMemoriesInput): Promise<{ success: true; count: number; memories: Memory[] }>;
  updateMemory(input: UpdateMemoryInput): Promise<{ success: true; memory: Memory }>;
  deleteMemory(input: DeleteMemoryInput): Promise<{ success: true; deleted: string }>;
  getMemoryContext(input?: GetMemoryContextInput): Promise<{ success: true; count: number; memories: Memory[]; context: string }>;
}
