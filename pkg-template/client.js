// The PostgREST client. State lives here, in JS; every call hands it to the module, so
// a module re-initialised after an internal error never sees stale Rust objects.
import { checkClientOptions, clientRequest, inspectToken } from "./agentmem.js";

// The validated options of each client, for the package's other classes (MemoryTools,
// the checkpoint saver) that hand them to the module on every call.
const optionsOf = new WeakMap();

/** The options `client` was created with (package-internal). */
export function clientOptions(client) {
  const options = optionsOf.get(client);
  if (!options) throw new TypeError("expected an AgentmemClient from createClient()");
  return options;
}

export class AgentmemClient {
  #options;
  #restUrl;

  constructor(options) {
    this.#restUrl = checkClientOptions(options);
    this.#options = { ...options };
    optionsOf.set(this, this.#options);
    Object.freeze(this);
  }

  /** The PostgREST base URL requests go to (`.../rest/v1`). */
  get restUrl() {
    return this.#restUrl;
  }

  /** Role, user id and expiry of the credentials in use (decoded, not verified). */
  get identity() {
    return inspectToken(this.#options.accessToken ?? this.#options.apiKey);
  }

  /** The same client acting for a signed-in user: RLS then sees that user. */
  withAccessToken(accessToken) {
    return new AgentmemClient({ ...this.#options, accessToken });
  }

  /** The same service-role client acting for the user `userId`: agentmem's functions
   *  then work in that user's key space instead of the service role's own. */
  actingFor(userId) {
    return new AgentmemClient({ ...this.#options, actingFor: userId });
  }

  /** Headers that act as the given user, for code that makes its own requests. */
  headersFor(accessToken) {
    const user = this.withAccessToken(accessToken);
    return { apikey: user.#options.apiKey, Authorization: `Bearer ${accessToken}` };
  }

  select(table, options) {
    return clientRequest(this.#options, "select", table, undefined, options);
  }
  insert(table, rows, options) {
    return clientRequest(this.#options, "insert", table, rows, options);
  }
  upsert(table, rows, options) {
    return clientRequest(this.#options, "upsert", table, rows, options);
  }
  update(table, patch, options) {
    return clientRequest(this.#options, "update", table, patch, options);
  }
  delete(table, options) {
    return clientRequest(this.#options, "delete", table, undefined, options);
  }
  rpc(fn, args, options) {
    return clientRequest(this.#options, "rpc", fn, args, options);
  }
}

export function createClient(options) {
  return new AgentmemClient(options);
}
