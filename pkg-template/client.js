// The PostgREST client. State lives here, in JS; every call hands it to the module, so
// a module re-initialised after an internal error never sees stale Rust objects.
import { AgentmemError } from "./errors.js";
import { toJson } from "./json.js";
import { platform } from "./platform.js";
import { call, checkClientOptions, inspectToken, prim, unreadable } from "./wasm.js";

// What each client hands the module on every call: `{ options, fetch }`, the options as
// JSON text (copied once, so later changes to the caller's object never leak in) and the
// caller's fetch. Also read by the package's other classes (MemoryTools, the saver).
const stateOf = new WeakMap();

/** The module-facing state of `client` (package-internal). */
export function clientOptions(client) {
  const state = stateOf.get(client);
  if (!state) throw new AgentmemError("invalid_input", "expected an AgentmemClient from createClient()", { field: "client" });
  return state;
}

/** The state of an AgentmemClient, or of a client built from options (package-internal). */
export function clientState(clientOrOptions) {
  // A WeakMap lookup, not instanceof: it reads nothing of the value (a revoked Proxy
  // throws on instanceof).
  return stateOf.get(clientOrOptions) ?? clientOptions(new AgentmemClient(clientOrOptions));
}

/** Whether `value` is an AgentmemClient (package-internal; never throws). */
export function isClient(value) {
  return stateOf.has(value);
}

/** A plain copy of the caller's options: own enumerable keys, read once, here. */
function snapshot(options) {
  if (options === null || typeof options !== "object") return { options: undefined, fetch: undefined };
  let own;
  try {
    own = { ...options };
  } catch (e) {
    throw unreadable("options", e);
  }
  const { fetch, ...rest } = own;
  if (fetch !== undefined && fetch !== null && typeof fetch !== "function") {
    throw new AgentmemError("invalid_input", "fetch must be a function like the global fetch", { field: "fetch" });
  }
  return { options: toJson("", rest, "options"), fetch: fetch ?? platform.fetch };
}

export class AgentmemClient {
  #state;
  #data;
  #restUrl;

  constructor(options) {
    const state = snapshot(options);
    this.#restUrl = checkClientOptions(state);
    this.#state = Object.freeze(state);
    this.#data = JSON.parse(state.options);
    stateOf.set(this, this.#state);
    Object.freeze(this);
  }

  /** The PostgREST base URL requests go to (`.../rest/v1`). */
  get restUrl() {
    return this.#restUrl;
  }

  /** Role, user id and expiry of the credentials in use (decoded, not verified). */
  get identity() {
    return inspectToken(this.#data.accessToken ?? this.#data.apiKey);
  }

  /** The same client acting for a signed-in user: RLS then sees that user. */
  withAccessToken(accessToken) {
    return new AgentmemClient({ ...this.#data, fetch: this.#state.fetch, accessToken });
  }

  /** The same service-role client acting for the user `userId`: agentmem's functions
   *  then work in that user's key space instead of the service role's own. */
  actingFor(userId) {
    return new AgentmemClient({ ...this.#data, fetch: this.#state.fetch, actingFor: userId });
  }

  /** Headers that act as the given user, for code that makes its own requests. */
  headersFor(accessToken) {
    if (typeof accessToken !== "string" || accessToken === "") {
      throw new AgentmemError("invalid_input", "headersFor needs the user's access token (a JWT string)", { field: "accessToken" });
    }
    this.withAccessToken(accessToken); // checks it the way a client would
    return { apikey: this.#data.apiKey, Authorization: `Bearer ${accessToken}` };
  }

  select(table, options) {
    return request(this.#state, "select", table, "payload", undefined, options);
  }
  insert(table, rows, options) {
    return request(this.#state, "insert", table, "rows", rows, options);
  }
  upsert(table, rows, options) {
    return request(this.#state, "upsert", table, "rows", rows, options);
  }
  update(table, patch, options) {
    return request(this.#state, "update", table, "patch", patch, options);
  }
  delete(table, options) {
    return request(this.#state, "delete", table, "payload", undefined, options);
  }
  rpc(fn, args, options) {
    return request(this.#state, "rpc", fn, "args", args, options);
  }
}

/** One request of the client; `payload` and `options` are caller values, converted inside
 *  the tracked call so that a conversion error rejects the promise instead of throwing. */
function request(state, op, name, field, payload, options) {
  return call(state, "client", op, () => [prim(name), toJson(field, payload), toJson("options", options)]);
}

export function createClient(options) {
  return new AgentmemClient(options);
}
