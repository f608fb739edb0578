// Types of agentmem-supabase/langgraph: the LangGraph checkpoint saver over PostgREST.
import type {
  BaseCheckpointSaver,
  ChannelVersions,
  Checkpoint,
  CheckpointListOptions,
  CheckpointMetadata,
  CheckpointTuple,
  PendingWrite,
  SerializerProtocol,
} from "@langchain/langgraph-checkpoint";
// RunnableConfig as the saver's base class takes it, rather than imported from
// @langchain/core: an import map (Deno) then needs only @langchain/langgraph-checkpoint.
type RunnableConfig = Parameters<BaseCheckpointSaver["getTuple"]>[0];
import type { AgentmemClient, AgentmemError, ClientOptions } from "./index.d.ts";

export interface AgentmemSaverOptions {
  /**
   * Serializer of channel values, writes and metadata (default: LangGraph's
   * JsonPlusSerializer). Checked at construction (`invalid_input` unless it has
   * `dumpsTyped` and `loadsTyped`); a value it cannot serialize is `invalid_input`, a
   * stored value it cannot read back is `server`, each with its error as `cause`.
   */
  serde?: SerializerProtocol;
  /**
   * `"memory"`: when no client can be built from `clientOrOptions` (missing URL or key,
   * malformed token), keep checkpoints in this process instead of throwing, warn once on
   * the console, and report it through `backend` and `fallbackReason`. A saver never
   * switches backends after construction.
   */
  fallback?: "memory";
}

export interface CheckpointMetrics {
  checkpoint_count: number;
  write_count: number;
  blob_count: number;
  /** Checkpoint and metadata jsonb plus blob and write bytes. */
  total_bytes: number;
  checkpoint_bytes: number;
  blob_bytes: number;
  write_bytes: number;
  /** ISO timestamp of the newest checkpoint, or null when there is none. */
  last_checkpoint_at: string | null;
  thread_count: number;
}

/**
 * LangGraph checkpoints in Supabase/PostgREST, as the client's user (row-level security
 * applies: a thread belongs to its first writer). Each method is one HTTP request.
 *
 * ```ts
 * const saver = new AgentmemSaver(createClient({ url, apiKey, accessToken }));
 * const graph = builder.compile({ checkpointer: saver });
 * ```
 */
export declare class AgentmemSaver extends BaseCheckpointSaver<number> {
  constructor(clientOrOptions: AgentmemClient | ClientOptions | null | undefined, options?: AgentmemSaverOptions);
  /**
   * A saver that keeps checkpoints in this process only (LangGraph's MemorySaver). Its
   * arguments are checked as the database saver checks them (`invalid_input`).
   */
  static inMemory(options?: { serde?: SerializerProtocol }): AgentmemSaver;
  /** Where checkpoints go: the database ("postgrest") or this process ("memory"). */
  readonly backend: "postgrest" | "memory";
  /** Why a `fallback: "memory"` saver is in memory, else null. */
  readonly fallbackReason: AgentmemError | null;

  getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined>;
  /**
   * Newest first. Without `checkpoint_ns` in the config: every namespace; without
   * `thread_id`: every thread the user can see. `filter` matches metadata by containment.
   * One request, unless the server's max-rows cut the answer short: then further pages follow.
   */
  list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple>;
  put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig>;
  putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void>;
  deleteThread(threadId: string): Promise<void>;
  /**
   * Deletes checkpoints created more than `daysOld` (≥ 1) days ago, except the latest of
   * every thread and namespace, with their writes and unreferenced blobs; returns how many
   * checkpoints went. Never called automatically.
   */
  cleanupOldCheckpoints(daysOld: number): Promise<number>;
  /** Counts, sizes and the newest checkpoint's time, for one thread or all visible ones. */
  metrics(threadId?: string | null): Promise<CheckpointMetrics>;
}
