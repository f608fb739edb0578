// @ts-check
// The PostgREST client. State lives here, in JS; every call hands it to the module, so
// a module re-initialised after an internal error never sees stale Rust objects.
import { AgentmemError } from "./errors.js";
import { optionsJson, toJson } from "./json.js";
import { CAPABILITY, CLIENT_OP } from "./names.js";
import { platform } from "./platform.js";
import { call, checkClientOptions, inspectToken, prim, unreadable } from "./wasm.js";
/**
 * @import { AgentmemClient as Declared, ClientOptions, FilteredWriteOptions, Result, RpcOptions, SelectOptions,
 *   TokenInfo, UpsertOptions, WriteOptions } from "./client.d.ts"
 * @import { ClientState } from "./wasm.js"
 * @import { ClientCalls } from "./names.js"
 */

// What each client hands the module on every call: `{ options, fetch }`, the options as
// JSON text (copied once, so later changes to the caller's object never leak in) and the
// caller's fetch. Also read by the package's other classes (MemoryTools, the saver).
/** @type {WeakMap<object, Readonly<ClientState>>} */
const stateOf = new WeakMap();

/**
 * The module-facing state of `client` (package-internal).
 * @param {unknown} client
 * @returns {Readonly<ClientState>}
 */
export function clientOptions(client) {
  // A WeakMap answers undefined for any key it cannot hold (a primitive), without throwing.
  const state = stateOf.get(/** @type {object} */ (client));
  if (!state) throw new AgentmemError("invalid_input", "expected an AgentmemClient from createClient()", { field: "client" });
  return state;
}

/**
 * The state of an AgentmemClient, or of a client built from options (package-internal).
 * @param {Declared | ClientOptions} clientOrOptions
 * @returns {Readonly<ClientState>}
 */
export function clientState(clientOrOptions) {
  // A WeakMap lookup, not instanceof: it reads nothing of the value (a revoked Proxy
  // throws on instanceof).
  // Not a client: options, or anything else, which the constructor refuses.
  return stateOf.get(clientOrOptions) ?? clientOptions(new AgentmemClient(/** @type {ClientOptions} */ (clientOrOptions)));
}

/**
 * Whether `value` is an AgentmemClient (package-internal; never throws).
 * @param {unknown} value
 * @returns {value is AgentmemClient}
 */
export function isClient(value) {
  return stateOf.has(/** @type {object} */ (value));
}

/**
 * A plain copy of the caller's options: own enumerable keys, read once, here.
 * @param {unknown} options
 * @returns {ClientState}
 */
function snapshot(options) {
  if (options === null || typeof options !== "object") return { options: undefined, fetch: undefined };
  /** @type {Partial<ClientOptions>} */
  let own;
  try {
    own = { ...options };
  } catch (e) {
    throw unreadable("options", e);
  }
  // `fetch` is not JSON: it travels beside the options, and the module checks it
  // (src/wasm/client.rs `client`, when the client is made).
  const { fetch, ...rest } = own;
  const get = rest.accessToken;
  if (typeof get !== "function") return { options: optionsJson(rest), fetch: fetch ?? platform.fetch };
  // A token that follows a session: asked before each operation (io.js `withToken`); the
  // options the module checks here have no token, the ones of each call have its token.
  delete rest.accessToken;
  if (rest.actingFor !== undefined && rest.actingFor !== null) {
    throw new AgentmemError("invalid_input", "actingFor takes the service role's key and no accessToken: a signed-in user always acts as themselves", { field: "actingFor" });
  }
  const timeoutMs = typeof rest.timeoutMs === "number" ? rest.timeoutMs : DEFAULT_TIMEOUT_MS;
  return { options: optionsJson(rest), fetch: fetch ?? platform.fetch, token: { get, timeoutMs, last: undefined } };
}

/** ClientOptions.timeoutMs when not given (src/transport/client.rs RetryPolicy). */
const DEFAULT_TIMEOUT_MS = 15000;

/** @implements {Declared} */
export class AgentmemClient {
  /** @type {Readonly<ClientState>} */
  #state;
  /** The options as checked, without `fetch`. @type {ClientOptions} */
  #data;
  /** @type {string} */
  #restUrl;

  /** @param {ClientOptions} options */
  constructor(options) {
    const state = snapshot(options);
    this.#restUrl = checkClientOptions(state);
    this.#state = Object.freeze(state);
    // checkClientOptions refused options that are not an object, so there is JSON text.
    this.#data = JSON.parse(/** @type {string} */ (state.options));
    stateOf.set(this, this.#state);
    Object.freeze(this);
  }

  /** The PostgREST base URL requests go to (`.../rest/v1`). */
  /** @returns {string} */
  get restUrl() {
    return this.#restUrl;
  }

  /** Role, user id and expiry of the credentials in use (decoded, not verified). */
  /** @returns {TokenInfo} */
  get identity() {
    const source = this.#state.token;
    // Without a token function, accessToken is a string (or absent).
    if (source === undefined) return inspectToken(/** @type {string | undefined} */ (this.#data.accessToken) ?? this.#data.apiKey);
    // A token function: the token of the latest call; unknown before the first.
    if (source.last === undefined) return { role: null, sub: null, exp: null, kind: "jwt" };
    return inspectToken(source.last ?? this.#data.apiKey);
  }

  // The derived clients below keep this one's fetch: the caller's, or the entry's default
  // (node-http.js), which stands in for the global fetch as far as agentmem reads a Response.

  /** The same client acting for a signed-in user: RLS then sees that user. */
  /**
   * @param {string} accessToken
   * @returns {AgentmemClient}
   */
  withAccessToken(accessToken) {
    return new AgentmemClient({ ...this.#data, fetch: /** @type {typeof globalThis.fetch | undefined} */ (this.#state.fetch), accessToken });
  }

  /** The same service-role client acting for the user `userId`: agentmem's functions
   *  then work in that user's key space instead of the service role's own. */
  /**
   * @param {string} userId
   * @returns {AgentmemClient}
   */
  actingFor(userId) {
    // A token function goes along, and is refused with actingFor like a token string.
    const accessToken = /** @type {ClientOptions["accessToken"]} */ (this.#state.token?.get) ?? this.#data.accessToken;
    return new AgentmemClient({ ...this.#data, fetch: /** @type {typeof globalThis.fetch | undefined} */ (this.#state.fetch), accessToken, actingFor: userId });
  }

  /** Headers that act as the given user, for code that makes its own requests. */
  /**
   * @param {string} accessToken
   * @returns {{ apikey: string, Authorization: string }}
   */
  headersFor(accessToken) {
    if (typeof accessToken !== "string" || accessToken === "") {
      throw new AgentmemError("invalid_input", "headersFor needs the user's access token (a JWT string)", { field: "accessToken" });
    }
    this.withAccessToken(accessToken); // checks it the way a client would
    return { apikey: this.#data.apiKey, Authorization: `Bearer ${accessToken}` };
  }

  /**
   * @template [T=Record<string, unknown>[]]
   * @param {string} table
   * @param {SelectOptions} [options]
   * @returns {Promise<Result<T>>}
   */
  select(table, options) {
    return request(this.#state, CLIENT_OP.select, () => [prim(table), undefined, toJson("options", options)]);
  }
  /**
   * @template [T=null]
   * @param {string} table
   * @param {object | object[]} rows
   * @param {WriteOptions} [options]
   * @returns {Promise<Result<T>>}
   */
  insert(table, rows, options) {
    return request(this.#state, CLIENT_OP.insert, () => [prim(table), toJson("rows", rows), toJson("options", options)]);
  }
  /**
   * @template [T=null]
   * @param {string} table
   * @param {object | object[]} rows
   * @param {UpsertOptions} [options]
   * @returns {Promise<Result<T>>}
   */
  upsert(table, rows, options) {
    return request(this.#state, CLIENT_OP.upsert, () => [prim(table), toJson("rows", rows), toJson("options", options)]);
  }
  /**
   * @template [T=null]
   * @param {string} table
   * @param {object} patch
   * @param {FilteredWriteOptions} options
   * @returns {Promise<Result<T>>}
   */
  update(table, patch, options) {
    return request(this.#state, CLIENT_OP.update, () => [prim(table), toJson("patch", patch), toJson("options", options)]);
  }
  /**
   * @template [T=null]
   * @param {string} table
   * @param {FilteredWriteOptions} options
   * @returns {Promise<Result<T>>}
   */
  delete(table, options) {
    return request(this.#state, CLIENT_OP.delete, () => [prim(table), undefined, toJson("options", options)]);
  }
  /**
   * @template [T=unknown]
   * @param {string} fn
   * @param {Record<string, unknown>} [args]
   * @param {RpcOptions} [options]
   * @returns {Promise<Result<T>>}
   */
  rpc(fn, args, options) {
    return request(this.#state, CLIENT_OP.rpc, () => [prim(fn), toJson("args", args), toJson("options", options)]);
  }
}

/** One request of the client; `args` makes its arguments from the caller's values inside the
 *  tracked call, so that a conversion error rejects the promise instead of throwing.
 * @template {keyof ClientCalls} K
 * @param {Readonly<ClientState>} state
 * @param {K} op
 * @param {() => ClientCalls[K]["args"]} args
 * @returns {Promise<ClientCalls[K]["result"]>} the module's `{ data, count, status }`
 */
function request(state, op, args) {
  return call(state, CAPABILITY.client, op, args);
}

/**
 * @param {ClientOptions} options
 * @returns {AgentmemClient}
 */
export function createClient(options) {
  return new AgentmemClient(options);
}

/**
 * An `accessToken` function that follows a supabase-js client's session: each call of
 * agentmem sends the session's current access token, which supabase-js refreshes itself
 * (its `auth.getSession()` refreshes a token about to expire); null when nobody is signed in.
 * @param {unknown} supabase
 * @returns {() => Promise<string | null>}
 */
export function followSession(supabase) {
  /** @type {any} */
  let auth;
  let ok = false;
  try {
    auth = /** @type {any} */ (supabase)?.auth;
    ok = auth !== null && typeof auth === "object" && typeof auth.getSession === "function";
  } catch (e) {
    throw unreadable("supabase", e);
  }
  if (!ok) {
    throw new AgentmemError("invalid_input", "followSession takes a supabase-js client (createClient from @supabase/supabase-js), whose auth.getSession() gives the signed-in user's session", { field: "supabase" });
  }
  return async () => {
    const { data, error } = await auth.getSession();
    // supabase-js answers a failed refresh (a revoked refresh token, no network) as `error`.
    if (error) throw error;
    const token = data?.session?.access_token;
    return typeof token === "string" ? token : null;
  };
}
