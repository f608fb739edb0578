// Public types of the agentmem package: the PostgREST client (client.js). Written by hand,
// like every .d.ts here; index.d.ts re-exports them.

// ---------------------------------------------------------------- PostgREST client

export interface ClientOptions {
  /** Supabase project URL (`/rest/v1` is appended) or a full PostgREST URL. */
  url: string;
  /** The anon / publishable key (or, server-side only, the service-role / secret key). */
  apiKey: string;
  /**
   * A signed-in user's JWT: requests then run as that user under RLS. Or a function (sync
   * or async) that gives it, asked before each operation, so that a long-lived client
   * follows a session whose token is refreshed (`followSession(supabase)` makes one from a
   * supabase-js client). The function returns the token, or null when nobody is signed in
   * (the API key alone is sent). When the server answers that the token has expired (401,
   * "JWT expired"), the function is asked once more and, given another token, the
   * operation runs once more: the refused request ran nothing, and every operation writes
   * in one request. A function that throws or rejects is `unauthorized` (its error as
   * `cause`), one that returns anything but a string or null is `invalid_input`, one that
   * does not answer within `timeoutMs` is `timeout`; a string that is no JWT is
   * `unauthorized`, as when given directly. Not with `actingFor`.
   */
  accessToken?: string | null | AccessTokenFunction;
  /**
   * Injected fetch (edge runtimes, tests, tracing); defaults to the global fetch. Called
   * with `(url, { method, headers, body, signal })`. Whatever it does (throw, reject,
   * resolve to something that is not a Response) is a `network` error with its exception
   * as `cause`.
   */
  fetch?: typeof fetch;
  /**
   * Per-attempt time limit, 1..600000 ms (default 15000), covering the response body too.
   * Enforced by agentmem: the attempt fails with `timeout` at the deadline even if `fetch`
   * ignores its aborted signal.
   */
  timeoutMs?: number;
  /**
   * Retries of idempotent requests after network errors, timeouts, 502/503/504 and
   * Postgres restarts (SQLSTATE 57P01, 57P02, 57P03, class 08) (default 2, max 10).
   */
  retries?: number;
  /** Non-default schema (Accept-Profile / Content-Profile). */
  schema?: string;
  /** Extra headers on every request: token names, values without CR, LF or characters beyond U+00FF. */
  headers?: Record<string, string>;
  /**
   * Service role only: act for this user (a UUID). agentmem's functions then read and
   * write that user's key space (sent as the `x-agentmem-tenant` header). Without it, the
   * service role works in its own key space, which no user sees.
   *
   * A client acting for a user has no table calls: `select`, `insert`, `upsert`, `update`
   * and `delete` reject with `invalid_input` (`field` `"actingFor"`) before sending, since
   * the service role bypasses row-level security and would reach every user's rows. Use
   * `rpc` or agentmem's stores, which keep to the user's key space.
   */
  actingFor?: string | null;
  /** Allow a service-role or secret key where `window`/`document` exist. Almost always a leak. */
  dangerouslyAllowSecretKeyInBrowser?: boolean;
}

/** Gives the signed-in user's access token (a JWT), or null when nobody is signed in. */
export type AccessTokenFunction = () => string | null | Promise<string | null>;

/** What `followSession` needs of a supabase-js client: its `auth.getSession()`. */
export interface SupabaseSessionSource {
  auth: {
    getSession(): Promise<{ data: { session: { access_token: string } | null }; error: unknown }>;
  };
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

/** Which rows come back and how: of a table (`select`) or of a function's result (`rpc`). */
export interface RowOptions {
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
}

export interface SelectOptions extends RowOptions {
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

export interface RpcOptions extends RowOptions {
  /** The function is safe to run twice, so failed attempts may be retried. */
  idempotent?: boolean;
  /** Call with GET (read-only functions; scalar arguments only). */
  get?: boolean;
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
  /**
   * Role, user id and expiry of the credentials in use (decoded, not verified). With an
   * `accessToken` function: of the token the latest operation was sent with (all null
   * before the first).
   */
  readonly identity: TokenInfo;
  withAccessToken(accessToken: string): AgentmemClient;
  /**
   * The same service-role client acting for the user `userId` (see `ClientOptions.actingFor`):
   * its `rpc` and the stores built on it act in that user's key space; its table calls
   * (`select`, `insert`, `upsert`, `update`, `delete`) reject with `invalid_input`
   * (`field` `"actingFor"`).
   */
  actingFor(userId: string): AgentmemClient;
  headersFor(accessToken: string): { apikey: string; Authorization: string };
  select<T = Record<string, unknown>[]>(table: string, options?: SelectOptions): Promise<Result<T>>;
  insert<T = null>(table: string, rows: object | object[], options?: WriteOptions): Promise<Result<T>>;
  upsert<T = null>(table: string, rows: object | object[], options?: UpsertOptions): Promise<Result<T>>;
  update<T = null>(table: string, patch: object, options: FilteredWriteOptions): Promise<Result<T>>;
  delete<T = null>(table: string, options: FilteredWriteOptions): Promise<Result<T>>;
  rpc<T = unknown>(fn: string, args?: Record<string, unknown>, options?: RpcOptions): Promise<Result<T>>;
}

export declare function createClient(options: ClientOptions): AgentmemClient;
/**
 * An `accessToken` function that follows a supabase-js client's session: every operation
 * sends the session's current access token (`auth.getSession()`, which supabase-js
 * refreshes itself: no second refresh loop), or null when nobody is signed in. A failed
 * refresh (`getSession()`'s `error`) makes the operation `unauthorized`, with it as `cause`.
 *
 * ```ts
 * const db = createClient({ url, apiKey: anonKey, accessToken: followSession(supabase) });
 * ```
 */
export declare function followSession(supabase: SupabaseSessionSource): () => Promise<string | null>;
/** What a key or token stands for (decoded, never verified). */
export declare function inspectToken(token: string): TokenInfo;
