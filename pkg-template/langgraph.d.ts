// Types of agentmem-supabase/langgraph: the LangGraph checkpoint saver and store over PostgREST.
import type {
  BaseCheckpointSaver,
  ChannelVersions,
  Checkpoint,
  CheckpointListOptions,
  CheckpointMetadata,
  CheckpointTuple,
  Item,
  Operation,
  OperationResults,
  PendingWrite,
  SearchItem,
  SerializerProtocol,
} from "@langchain/langgraph-checkpoint";
import { BaseStore } from "@langchain/langgraph-checkpoint";
// The main entry's types, each from its capability's file by its `.js` specifier, as
// index.d.ts names them (its header says why): a `.d.ts` specifier is refused by
// TypeScript 4.x (TS2691) unless skipLibCheck is on.
// @ts-types="./client.d.ts"
import type { AgentmemClient, ClientOptions } from "./client.js";
// @ts-types="./memory.d.ts"
import type { EmbedFn } from "./memory.js";
import type { AgentmemError } from "./errors.js";
// RunnableConfig as the saver's base class takes it, rather than imported from
// @langchain/core: an import map (Deno) then needs only @langchain/langgraph-checkpoint.
type RunnableConfig = Parameters<BaseCheckpointSaver["getTuple"]>[0];

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

/** `AgentmemSaver.listThreads` options. */
export interface ListThreadsOptions {
  /** Only threads whose id starts with this. */
  prefix?: string | null;
  /** Only threads whose latest checkpoint's metadata contains this (as `list`'s filter). */
  filter?: Record<string, unknown> | null;
  /** How many (1 to 1000, default 50). */
  limit?: number | null;
  /** How many to skip (default 0). */
  offset?: number | null;
}

/** A thread, as `AgentmemSaver.listThreads` lists it. */
export interface ThreadSummary {
  threadId: string;
  /** The latest checkpoint's config: pass it to `getTuple` / `getState`. */
  config: { configurable: { thread_id: string; checkpoint_ns: string; checkpoint_id: string } };
  /** The latest checkpoint (greatest id) of the thread's root namespace. */
  checkpointId: string;
  /** Its metadata's `step` and `source`, when it has them. */
  step: number | null;
  source: string | null;
  metadata: Record<string, unknown>;
  checkpointCount: number;
  /** Text of the state's last human / AI message (null when none, or not written by AgentmemSaver). */
  lastHumanMessage: string | null;
  lastAiMessage: string | null;
  /** ISO timestamps: the thread's first checkpoint, and its latest write. */
  createdAt: string;
  updatedAt: string;
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
  /**
   * The caller's threads (and deal threads shared with them), most recently written first,
   * with their latest checkpoint, step, source, metadata, checkpoint count and last human and
   * AI message text. One request, however long the threads are.
   */
  listThreads(options?: ListThreadsOptions): Promise<ThreadSummary[]>;
}

// --- Long-term memory: AgentmemStore ------------------------------------------------------

/** A LangChain Embeddings object (what InMemoryStore and PostgresStore also take). */
export interface StoreEmbeddings {
  embedDocuments(texts: string[]): Promise<number[][]>;
  embedQuery(text: string): Promise<number[]>;
}

export interface AgentmemStoreIndex {
  /** Vector size of the embedder and of langgraph_store_vectors.embedding (384 unless set_langgraph_store_dimensions changed it). */
  dims: number;
  /**
   * The embedder: agentmem's callback `(texts, { signal }) => vectors` (one call per batch
   * for every text it needs, documents and queries; `signal` aborts at `embedTimeoutMs`), or
   * a LangChain Embeddings object. `embeddings` is InMemoryStore's name for it: give one.
   */
  embed?: EmbedFn | StoreEmbeddings;
  embeddings?: EmbedFn | StoreEmbeddings;
  /** Paths of the value to embed on put ("$": the whole value; "a.b", "a[*].b", "{a,b}"). Default ["$"]. */
  fields?: string[];
  /** The similarity a query search ranks by unless it names its own (default "cosine", as InMemoryStore). */
  distanceMetric?: StoreDistanceMetric;
  /** Accepted: every metric is searchable (searches are exact scans, no index per metric). */
  createAllMetricIndexes?: boolean;
  /**
   * Refused (`invalid_input`, with the reason): the vectors are one table shared by every
   * tenant, and an approximate index would pick candidates among all of them before
   * row-level security and the prefix keep the caller's, so a search could miss the
   * caller's nearest items. Searches are exact.
   */
  indexType?: never;
  /** Refused, with `indexType`. */
  hnsw?: never;
  /** Refused, with `indexType`. */
  ivfflat?: never;
}

/** PostgresStore's distance metrics: similarity 1 − cosine distance, 1 / (1 + Euclidean distance), or the inner product. */
export type StoreDistanceMetric = "cosine" | "l2" | "inner_product";

/**
 * How a query search ranks (PostgresStore's modes; without `mode`, InMemoryStore's ranking:
 * by similarity, then the items without vectors while the page has room).
 * - "vector": only items with vectors, by similarity in `distanceMetric`.
 * - "text": full-text search over the indexed fields (websearch_to_tsquery in
 *   `textSearchLanguage`, or the query as a substring), by ts_rank.
 * - "hybrid": items with vectors whose text matches or whose similarity reaches
 *   `similarityThreshold` (default 0), by vectorWeight × similarity + (1 − vectorWeight) × ts_rank.
 * - "auto": "vector" with an index, "text" without.
 */
export type StoreSearchMode = "vector" | "text" | "hybrid" | "auto";

export interface AgentmemStoreSearchOptions {
  filter?: Record<string, any>;
  limit?: number;
  offset?: number;
  query?: string;
  refreshTtl?: boolean;
  mode?: StoreSearchMode;
  /** Only items whose similarity (in `distanceMetric`) is at least this; in "hybrid", or whose text matches. */
  similarityThreshold?: number;
  /** Default: `index.distanceMetric`, else "cosine". */
  distanceMetric?: StoreDistanceMetric;
  /** "hybrid": the weight of similarity against text rank, 0..1 (default 0.7). */
  vectorWeight?: number;
}

/** The caller's own items (never another tenant's), as PostgresStore's getStats() counts them, and more. */
export interface AgentmemStoreStats {
  /** Every stored item, expired ones included until they are swept (as PostgresStore). */
  totalItems: number;
  /** Items past their expiry, not yet swept (never returned by reads). */
  expiredItems: number;
  /** Living items that have an expiry. */
  expiringItems: number;
  namespaceCount: number;
  /** Stored vectors (one per indexed field of an item). */
  vectorCount: number;
  oldestItem: Date | null;
  newestItem: Date | null;
}

export interface AgentmemStoreTtl {
  /** Minutes an item lives after a put that names no `ttl` (default: forever). */
  defaultTtl?: number;
  /** Whether get and search move an item's expiry forward (default true; per call: `refreshTtl`). */
  refreshOnRead?: boolean;
  /** With `start()`: sweep expired items this often (minutes). */
  sweepIntervalMinutes?: number;
}

export interface AgentmemStoreOptions {
  /** Semantic search: without it, a `query` without `mode` is ignored (items come unranked), and `mode: "auto"` is text search. */
  index?: AgentmemStoreIndex;
  ttl?: AgentmemStoreTtl;
  /** Time limit of one embedder call, 1..600000 ms (default 30000): then `embedding_failed`, nothing written. */
  embedTimeoutMs?: number;
  /** The text search configuration of full-text search ("english" by default, as PostgresStore; "simple", or "schema.name"). */
  textSearchLanguage?: string;
}

/**
 * LangGraph's long-term memory (BaseStore) in Supabase: items per tenant under row-level
 * security, semantic search with your embeddings, TTL; every batch() one HTTP request.
 * Results are InMemoryStore's for the same operations. Needs
 * supabase/migrations/20261122000700_langgraph_store.sql.
 */
export declare class AgentmemStore extends BaseStore {
  constructor(clientOrOptions: AgentmemClient | ClientOptions, options?: AgentmemStoreOptions);
  batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>>;
  get(namespace: string[], key: string, options?: { refreshTtl?: boolean }): Promise<Item | null>;
  search(namespacePrefix: string[], options?: AgentmemStoreSearchOptions): Promise<SearchItem[]>;
  /** PostgresStore's vectorSearch: `search` with `mode: "vector"`. */
  vectorSearch(namespacePrefix: string[], query: string,
    options?: Pick<AgentmemStoreSearchOptions, "filter" | "limit" | "offset" | "similarityThreshold" | "distanceMetric" | "refreshTtl">): Promise<SearchItem[]>;
  /** PostgresStore's hybridSearch: `search` with `mode: "hybrid"`. */
  hybridSearch(namespacePrefix: string[], query: string,
    options?: Pick<AgentmemStoreSearchOptions, "filter" | "limit" | "offset" | "vectorWeight" | "similarityThreshold" | "distanceMetric" | "refreshTtl">): Promise<SearchItem[]>;
  /** PostgresStore's textSearch: `search` with `mode: "text"`. */
  textSearch(namespacePrefix: string[], options?: Pick<AgentmemStoreSearchOptions, "query" | "filter" | "limit" | "offset" | "refreshTtl">): Promise<SearchItem[]>;
  /** The caller's own counts (one request). */
  getStats(): Promise<AgentmemStoreStats>;
  /** `options.ttl`: minutes this item lives (null: forever), instead of `ttl.defaultTtl`. */
  put(namespace: string[], key: string, value: Record<string, any>, index?: false | string[], options?: { ttl?: number | null }): Promise<void>;
  /** Deletes expired items (the caller's; every tenant's for the service role); resolves to how many. */
  sweepExpiredItems(): Promise<number>;
  /** Checks (one request) that the migration is installed and its vectors have `index.dims` dimensions. */
  setup(): Promise<void>;
  start(): void;
  stop(): void;
}
