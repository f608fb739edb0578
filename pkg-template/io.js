// @ts-check
// What agentmem runs in JavaScript on the module's behalf: the caller's `fetch` and
// `embed` and the timers (the actions of a run, which wasm.js performs between calls into
// the module), the runtime check the module imports (`inBrowser`), and what happens to
// the calls in flight when a trap discards the instance.
//
// The caller's functions never run while a wasm frame is on the stack: an exception
// unwinding through wasm frames skips Rust's cleanup (the shadow stack pointer stays moved,
// heap and table slots leak) until every call traps. And every promise here resolves,
// never rejects, to a plain object that agentmem built; whatever the injected function
// did is described inside it. Each one also settles within its time limit, whether or
// not the injected function honours its AbortSignal.
import { AgentmemError } from "./errors.js";
import { describe as describeValue, messageOf } from "./json.js";
/** @import { EmbedFn } from "./index.d.ts" */

/**
 * What agentmem's requests pass to a fetch (built here from the action src/wasm/run.rs hands wasm.js):
 * the global fetch accepts it, and so does node-http.js.
 * @typedef {{ method: string, headers: Record<string, string>, body?: string, signal: AbortSignal }} FetchInit
 */
/**
 * A fetch as agentmem calls it: the caller's (ClientOptions.fetch) or an entry's default.
 * What it returns is checked here, not trusted.
 * @typedef {(url: string, init: FetchInit) => unknown} FetchLike
 */
/**
 * What `fetchOnce` resolves to: a response read whole, a timeout, or what went wrong.
 * @typedef {{ status: number, contentRange: string | null, body: string }
 *   | { timeout: true }
 *   | { message: string, cause: unknown }} FetchOutcome
 */
/**
 * What `embedOnce` resolves to: one vector per text, or what went wrong.
 * @typedef {{ vectors: Float64Array[] }
 *   | { code: "embedding_failed" | "dimension_mismatch", message: string, cause?: unknown }} EmbedOutcome
 */

// Bumped when the module panics. A promise created for an instance that has since been
// discarded never settles: settling it would run a callback of the dead instance (which
// throws outside any caller's reach). The calls waiting on it were rejected already.
let generation = 0;
/** @type {Set<(e: AgentmemError) => void>} */
const inFlight = new Set();

/**
 * Called by wasm.js when a trap left the module: the calls waiting on its instance reject.
 * @param {string} message
 */
export function moduleFailed(message) {
  generation += 1;
  const calls = [...inFlight];
  inFlight.clear();
  for (const reject of calls) {
    reject(new AgentmemError("internal", `agentmem hit an internal error (a bug, please report it) and restarted its module; this call was abandoned: ${message}`));
  }
}

/**
 * Runs `start()` (an async call into the module) and settles with it, or rejects with
 * `internal` as soon as the module panics, since the discarded instance can no longer
 * finish the call. Errors that are not AgentmemErrors are wrapped as `internal`.
 * @template T
 * @param {() => T | PromiseLike<T>} start
 * @returns {Promise<T>}
 */
export function track(start) {
  return new Promise((resolve, reject) => {
    /** @param {AgentmemError} e */
    const abandon = (e) => reject(e);
    inFlight.add(abandon);
    /** @type {<V>(settle: (value: V) => void) => (value: V) => void} */
    const done = (settle) => (value) => {
      inFlight.delete(abandon);
      settle(value);
    };
    let promise;
    try {
      promise = start();
    } catch (e) {
      done(reject)(asAgentmemError(e));
      return;
    }
    Promise.resolve(promise).then(done(resolve), (e) => done(reject)(hinted(asAgentmemError(e))));
  });
}

/**
 * `e`, with a hint when it is the server saying that the token expired (PostgREST's
 * answer has none): what a long-lived client meets once its session was refreshed.
 * @param {AgentmemError} e
 * @returns {AgentmemError}
 */
function hinted(e) {
  if (e.status === 401 && e.hint === undefined && e.message === "JWT expired") {
    /** @type {any} */ (e).hint = "pass the current token (withAccessToken), or accessToken as a function (followSession(supabase)) that gives it";
  }
  return e;
}

/**
 * Runs an operation of a facade; whatever escapes it is an AgentmemError, except errors
 * named in `passThrough` (LangGraph's own, which LangGraph code expects by name).
 * @template T
 * @param {() => Promise<T>} operation
 * @param {string[]} [passThrough]
 * @returns {Promise<T>}
 */
export async function guarded(operation, passThrough = []) {
  try {
    return await operation();
  } catch (e) {
    if (e instanceof Error && passThrough.includes(e.name)) throw e;
    throw asAgentmemError(e);
  }
}

/**
 * The module's own errors as they are; a trap or anything else as `internal`, with the cause.
 * @param {unknown} e
 * @returns {AgentmemError}
 */
export function asAgentmemError(e) {
  if (e instanceof AgentmemError) return e;
  const trap = typeof WebAssembly !== "undefined" && e instanceof WebAssembly.RuntimeError;
  const message = trap
    ? `agentmem hit an internal error (a bug, please report it); its module restarts on the next call: ${e.message}`
    : `agentmem failed unexpectedly (a bug, please report it): ${messageOf(e)}`;
  return new AgentmemError("internal", message, { cause: e });
}

/** @param {unknown} v */
function describe(v) {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v === "object" ? "an object that is not a Response" : typeof v;
}

/**
 * @template T
 * @param {(outcome: T) => void} resolve
 * @param {number} gen
 * @returns {(outcome: T) => boolean}
 */
function once(resolve, gen) {
  let done = false;
  return (outcome) => {
    if (done) return false;
    done = true;
    if (gen === generation) resolve(outcome);
    return true;
  };
}

/**
 * One HTTP attempt with the caller's fetch. Resolves to `{ status, contentRange, body }`,
 * `{ timeout: true }` once `timeoutMs` passed (the signal is aborted too), or
 * `{ message, cause }` when fetch threw, rejected, or resolved to something that is not
 * a Response. The body is read within the same time limit.
 * @param {FetchLike} fetch
 * @param {string} url
 * @param {string} method
 * @param {string} headersJson the headers as a JSON object's text (the module's, in order)
 * @param {string | undefined} requestBody
 * @param {number} timeoutMs
 * @returns {Promise<FetchOutcome>}
 */
export function fetchOnce(fetch, url, method, headersJson, requestBody, timeoutMs) {
  const gen = generation;
  return new Promise((resolve) => {
    const settle = once(resolve, gen);
    const controller = new AbortController();
    const timer = setTimeout(() => {
      settle({ timeout: true });
      try {
        controller.abort();
      } catch {
        // An abort listener of the caller's threw; the attempt is over either way.
      }
    }, timeoutMs);
    /** @returns {Promise<FetchOutcome>} */
    const attempt = async () => {
      /** @type {FetchInit} */
      const init = requestBody === undefined
        ? { method, headers: JSON.parse(headersJson), signal: controller.signal }
        : { method, headers: JSON.parse(headersJson), body: requestBody, signal: controller.signal };
      const answer = await fetch.call(globalThis, url, init);
      if (answer === null || typeof answer !== "object") {
        throw new TypeError(`fetch resolved to ${describe(answer)}, not a Response`);
      }
      // Whatever the caller's fetch resolved to: `any` fields, each checked below before use.
      const response = /** @type {Record<string, any>} */ (answer);
      const status = response.status;
      if (!Number.isInteger(status) || status < 100 || status > 599) {
        throw new TypeError(`fetch resolved to ${describe(response)} (status ${messageOf(status)}), not a usable Response`);
      }
      const headers = response.headers;
      if (headers === null || typeof headers !== "object" || typeof headers.get !== "function") {
        throw new TypeError("fetch resolved to a Response without headers.get()");
      }
      const contentRange = headers.get("content-range");
      if (contentRange !== null && typeof contentRange !== "string") {
        throw new TypeError("the Response's headers.get() returned neither a string nor null");
      }
      if (typeof response.text !== "function") throw new TypeError("fetch resolved to a Response without text()");
      const body = await response.text();
      if (typeof body !== "string") throw new TypeError("the Response's text() did not resolve to a string");
      return { status, contentRange, body };
    };
    /** @type {Promise<FetchOutcome>} */
    let pending;
    try {
      pending = attempt();
    } catch (cause) {
      pending = Promise.reject(cause);
    }
    pending.then(
      (outcome) => {
        clearTimeout(timer);
        settle(outcome);
      },
      (cause) => {
        clearTimeout(timer);
        settle({ message: messageOf(cause), cause });
      },
    );
  });
}

/**
 * Where a client's access token comes from when `accessToken` is a function (client.js):
 * the function, how long it may take (the client's `timeoutMs`), and the token it gave
 * last (for `client.identity`).
 * @typedef {{ get: () => unknown, timeoutMs: number, last: string | null | undefined }} TokenSource
 */

/**
 * The token `source` gives now: the signed-in user's JWT, or null when nobody is signed in
 * (the API key alone is sent). Rejects with `unauthorized` when the function throws or
 * rejects (its error as `cause`), `timeout` when it does not answer within its time, and
 * `invalid_input` when it gives anything but a string or null. Whether a string is a JWT
 * is the module's to say, as for a token given as a string.
 * @param {TokenSource} source
 * @returns {Promise<string | null>}
 */
export function askToken(source) {
  const gen = generation;
  return new Promise((resolve, reject) => {
    // As fetchOnce: a call abandoned by a trap meanwhile never continues (it would send
    // its request after its caller was told it failed).
    const settle = once((/** @type {() => void} */ finish) => finish(), gen);
    const timer = setTimeout(() => {
      settle(() => reject(new AgentmemError("timeout", `the accessToken function did not answer within ${source.timeoutMs} ms (timeoutMs)`, { field: "accessToken" })));
    }, source.timeoutMs);
    /** @returns {Promise<unknown>} */
    const attempt = async () => source.get();
    attempt().then(
      (token) => {
        clearTimeout(timer);
        if (token === null || typeof token === "string") {
          settle(() => {
            source.last = token;
            resolve(token);
          });
          return;
        }
        settle(() => reject(new AgentmemError("invalid_input", `the accessToken function must return the signed-in user's JWT (a string), or null when nobody is signed in; it returned ${describeValue(token)}`, { field: "accessToken" })));
      },
      (cause) => {
        clearTimeout(timer);
        settle(() => reject(new AgentmemError("unauthorized", `the accessToken function failed, so there is no token to send: ${messageOf(cause)}`, { field: "accessToken", cause })));
      },
    );
  });
}

/**
 * Whether `e` is the server saying that the token it was sent has expired (PostgREST:
 * 401 PGRST303 "JWT expired"; before version 12, PGRST301).
 * @param {unknown} e
 * @returns {boolean}
 */
function expiredToken(e) {
  return e instanceof AgentmemError && e.code === "unauthorized" && e.status === 401
    && (e.pgrstCode === "PGRST303" || e.pgrstCode === "PGRST301") && /\bexpired\b/i.test(e.message);
}

/**
 * Runs `attempt` (one operation, through the module) with the client state `state`; when
 * its token comes from a function, with the token the function gives now, written into
 * the options the module reads. If the server answers that this token expired, the
 * function is asked once more and, given another token, the operation runs once more: a
 * request refused for its token ran nothing, and every operation sends its writes in one
 * request, so nothing runs twice.
 * @template T
 * @param {{ options: string | undefined, fetch: FetchLike | undefined, token?: TokenSource }} state
 * @param {(state: { options: string | undefined, fetch: FetchLike | undefined }) => Promise<T>} attempt
 * @returns {Promise<T>}
 */
export async function withToken(state, attempt) {
  const source = state.token;
  if (source === undefined) return attempt(state);
  const token = await askToken(source);
  try {
    return await attempt(tokenState(state, token));
  } catch (e) {
    if (!expiredToken(e)) throw e;
    const again = await askToken(source);
    if (again === token) throw e;
    return attempt(tokenState(state, again));
  }
}

/**
 * `state` with `token` as its access token (null: none, the API key alone).
 * @param {{ options: string | undefined, fetch: FetchLike | undefined }} state
 * @param {string | null} token
 * @returns {{ options: string | undefined, fetch: FetchLike | undefined }}
 */
function tokenState(state, token) {
  const text = state.options;
  // The options are JSON text of an object without accessToken (client.js takes the function out).
  if (token === null || text === undefined || !text.endsWith("}")) return { options: text, fetch: state.fetch };
  const options = `${text.slice(0, -1)}${text === "{}" ? "" : ","}"accessToken":${JSON.stringify(token)}}`;
  return { options, fetch: state.fetch };
}

/**
 * Whether this runtime is a browser (src/wasm/transport.rs): `document` exists, or
 * `window` without `Deno`. A global whose getter throws counts as absent.
 * @returns {boolean}
 */
export function inBrowser() {
  /** @param {string} name */
  const has = (name) => {
    try {
      return /** @type {Record<string, unknown>} */ (globalThis)[name] !== undefined;
    } catch {
      return false;
    }
  };
  return has("document") || (has("window") && !has("Deno"));
}

/**
 * Resolves after `ms` milliseconds (a backoff pause).
 * @param {number} ms
 * @returns {Promise<void>}
 */
export function sleep(ms) {
  const gen = generation;
  return new Promise((resolve) => setTimeout(() => gen === generation && resolve(), ms));
}

const NOT_NUMBERS = ["BigInt64Array", "BigUint64Array", "DataView"];

/**
 * Calls the embedding callback with `texts` and `{ signal }` and copies what it returned
 * into one Float64Array per text. Resolves to `{ vectors }`, or `{ code, message, cause }`
 * with code `embedding_failed` (it threw, rejected, returned something unusable, or did
 * not finish within `timeoutMs`) or `dimension_mismatch`.
 * @param {EmbedFn} embed
 * @param {string[]} texts
 * @param {number} timeoutMs
 * @param {number} dimensions
 * @param {string} [expects] who expects `dimensions`, for the dimension_mismatch message
 * @returns {Promise<EmbedOutcome>}
 */
export function embedOnce(embed, texts, timeoutMs, dimensions, expects = "this MemoryTools instance (and the agent_memories.embedding column)") {
  const gen = generation;
  return new Promise((resolve) => {
    const settle = once(resolve, gen);
    /** @type {(message: string, cause?: unknown) => EmbedOutcome} */
    const failed = (message, cause) => ({ code: "embedding_failed", message, cause });
    const controller = new AbortController();
    const timer = setTimeout(() => {
      settle(failed(`the embedding callback did not finish within ${timeoutMs} ms (embedTimeoutMs)`));
      try {
        controller.abort();
      } catch {
        // As in fetchOnce: the call is over either way.
      }
    }, timeoutMs);
    /** @returns {Promise<EmbedOutcome>} */
    const attempt = async () => {
      /** @type {unknown} */
      let returned;
      try {
        returned = await embed([...texts], { signal: controller.signal });
      } catch (cause) {
        return failed(`the embedding callback failed: ${messageOf(cause)}`, cause);
      }
      try {
        return copyVectors(returned, texts.length, dimensions, expects);
      } catch (cause) {
        return failed(`the embedding callback's result could not be read: ${messageOf(cause)}`, cause);
      }
    };
    /** @type {Promise<EmbedOutcome>} */
    let pending;
    try {
      pending = attempt();
    } catch (cause) {
      pending = Promise.resolve(failed(`the embedding callback failed: ${messageOf(cause)}`, cause));
    }
    pending.then(settle, (cause) => settle(failed(`the embedding callback failed: ${messageOf(cause)}`, cause)))
      .finally(() => clearTimeout(timer));
  });
}

/**
 * @param {unknown} returned what the embedding callback resolved to
 * @param {number} count
 * @param {number} dimensions
 * @param {string} expects
 * @returns {EmbedOutcome}
 */
function copyVectors(returned, count, dimensions, expects) {
  /** @type {(message: string) => EmbedOutcome} */
  const failed = (message) => ({ code: "embedding_failed", message });
  if (!Array.isArray(returned)) return failed("the embedding callback must resolve to an array with one vector per text");
  const n = returned.length;
  if (n !== count) return failed(`the embedding callback returned ${n} vectors for ${count} text(s)`);
  const vectors = [];
  for (let i = 0; i < n; i++) {
    const item = returned[i];
    const typed = ArrayBuffer.isView(item);
    const kind = typed ? Object.prototype.toString.call(item).slice(8, -1) : "";
    if (typed ? NOT_NUMBERS.includes(kind) : !Array.isArray(item)) {
      return failed(`embedding ${i} is ${typed ? `a ${kind}` : describe(item)}; expected an array of numbers or a Float32Array/Float64Array`);
    }
    const size = item.length;
    if (size !== dimensions) {
      return {
        code: "dimension_mismatch",
        message: `embedding ${i} has ${size} dimensions; ${expects} expects ${dimensions}`,
      };
    }
    const vector = new Float64Array(size);
    for (let j = 0; j < size; j++) {
      const x = item[j];
      if (typeof x !== "number") return failed(`embedding ${i}[${j}] is not a number`);
      vector[j] = x;
    }
    vectors.push(vector);
  }
  return { vectors };
}
