// Public types of the agentmem package: the memory tools (memory.js). Written by hand,
// like every .d.ts here; index.d.ts re-exports them.

// @ts-types="./client.d.ts"
import type { AgentmemClient, ClientOptions } from "./client.js";
import type { AgentmemErrorCode } from "./errors.js";

// --- Memory tools -----------------------------------------------------------------------

export type MemoryType = "conversation" | "preference" | "fact" | "decision" | "context";
export type MemoryToolName = "create_memory" | "search_memories" | "update_memory" | "delete_memory" | "get_memory_context";

/**
 * The injected embedding function: one vector per text, each of `dimensions` finite
 * numbers (an array of numbers, a Float32Array or a Float64Array). agentmem never calls an
 * embedding API itself. `signal` is aborted when `embedTimeoutMs` passes; pass it on to
 * your HTTP client so the request stops too.
 */
export type EmbedFn = (texts: string[], options: { signal: AbortSignal }) => Promise<ArrayLike<number>[]> | ArrayLike<number>[];

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
  /**
   * Minimum cosine similarity for `search_memories` (default 0.3, measured with
   * all-MiniLM-L6-v2: every relevant memory scored above it). What it holds back of the
   * nearest ones, the answer counts in `held_back`.
   */
  matchThreshold?: number;
  /**
   * Time limit of one `embed` call, 1..600000 ms (default 30000). At the deadline the
   * call fails with `embedding_failed` and writes nothing, whether or not `embed` stops.
   */
  embedTimeoutMs?: number;
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
  /** An ISO 8601 date or date-time, or "never" to remove the expiry; null or absent keeps it. */
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

/** What `search_memories`' threshold held back of the nearest memories (never their content). */
export interface HeldBack {
  count: number;
  best_similarity: number;
  threshold: number;
}

/** `search_memories`' answer: the memories that passed the threshold, and what it held back. */
export interface SearchMemoriesResult {
  success: true;
  count: number;
  memories: Memory[];
  /** Present when some of the nearest memories were less similar than `matchThreshold`. */
  held_back?: HeldBack;
}

export type MemoryToolResult =
  | { success: true; memory: Memory }
  | SearchMemoriesResult
  | { success: true; count: number; memories: Memory[]; context: string }
  | { success: true; deleted: string }
  | {
      success: false;
      /** A model mistake (`invalid_input`, `not_found` of a memory: give it back to the
       *  model) or a server problem (`schema_not_installed`, `unauthorized`, `network`, ...:
       *  `status` and `pgrstCode` say which answer it was). */
      error: { code: AgentmemErrorCode; message: string; field?: string; status?: number; pgrstCode?: string };
    };

/** A tool's input schema: a JSON Schema object with no other properties allowed. */
export interface ToolInputSchema {
  type: "object";
  properties: Record<string, unknown>;
  required?: string[];
  additionalProperties: false;
  [keyword: string]: unknown;
}
/** Anthropic Messages API tool (assignable to the SDK's `Anthropic.Tool`). */
export interface AnthropicTool {
  name: MemoryToolName;
  description: string;
  input_schema: ToolInputSchema;
  strict?: boolean;
}
/** OpenAI Chat Completions tool (assignable to the SDK's `ChatCompletionTool`). */
export interface OpenAITool {
  type: "function";
  function: { name: MemoryToolName; description: string; parameters: ToolInputSchema; strict?: boolean };
}
/** OpenAI Responses API tool (assignable to the SDK's `FunctionTool`). */
export interface OpenAIResponsesTool {
  type: "function";
  name: MemoryToolName;
  description: string;
  parameters: ToolInputSchema;
  strict: boolean;
}
export type ToolFormat = "anthropic" | "openai" | "openai-responses";
/** The definition type of a format (a union of formats gives a union of types). */
export type ToolDefinition<F extends ToolFormat = "anthropic"> = F extends "openai" ? OpenAITool
  : F extends "openai-responses" ? OpenAIResponsesTool
  : AnthropicTool;
export interface DefinitionOptions {
  /**
   * Fit the vendor's strict mode (`strict: true` on every tool). OpenAI: every property
   * required, the optional ones nullable (null = not given). Anthropic: numeric bounds
   * stated in the descriptions instead of `minimum`/`maximum`, which it refuses.
   */
  strict?: boolean;
}

export declare class MemoryTools {
  constructor(options: MemoryToolsOptions);
  /** The user (JWT `sub`) these tools act for. */
  readonly userId: string;
  static readonly toolNames: MemoryToolName[];
  static definitions<F extends ToolFormat = "anthropic">(format?: F, options?: DefinitionOptions): ToolDefinition<F>[];
  definitions<F extends ToolFormat = "anthropic">(format?: F, options?: DefinitionOptions): ToolDefinition<F>[];
  /**
   * For the LLM loop: `input` is Anthropic's `tool_use.input` object or OpenAI's
   * `function.arguments` JSON string. Never throws for a failed call; returns
   * `{ success: false, error }`, which the model can read and correct.
   */
  handle(name: string, input: unknown): Promise<MemoryToolResult>;
  /** Typed calls: throw `AgentmemError` on failure. */
  createMemory(input: CreateMemoryInput): Promise<{ success: true; memory: Memory }>;
  searchMemories(input: SearchMemoriesInput): Promise<SearchMemoriesResult>;
  updateMemory(input: UpdateMemoryInput): Promise<{ success: true; memory: Memory }>;
  deleteMemory(input: DeleteMemoryInput): Promise<{ success: true; deleted: string }>;
  getMemoryContext(input?: GetMemoryContextInput): Promise<{ success: true; count: number; memories: Memory[]; context: string }>;
}
