// @ts-check
// The module's exports as the facades call them. Two rules hold here for every export:
//
// 1. The module only ever receives values agentmem made: primitives, JSON text, plain
//    arrays and Uint8Arrays copied here or in a facade, and the caller's fetch/embed
//    functions, which it only calls through io.js. Reading a caller's object inside wasm
//    would run the caller's getters and Proxy traps there, and an exception unwinding
//    through wasm frames leaves the instance unsound (see io.js).
// 2. What comes out is a value or an AgentmemError: a trap (a bug) becomes `internal`,
//    and async calls settle even if the module restarts under them (io.js `track`).
//
// Every call into the module is synchronous and made here (`enter`): an operation that
// needs the network or the embedding callback comes back as an action, which this file
// performs through io.js and hands back (`call`). So a trap always leaves the module
// inside a call made here, where it is caught, and the instance is replaced before the
// next call (wasm-bindgen's `__wbg_reset_state`); the generated glue is used as it is.
import * as glue from "./agentmem.js";
import { AgentmemError } from "./errors.js";
import { asAgentmemError, embedOnce, fetchOnce, moduleFailed, sleep, track, withToken } from "./io.js";
import { messageOf, toJson } from "./json.js";
import { ACTION, SYNC } from "./names.js";
/** @import * as Declared from "./index.d.ts" */
/** @import { EmbedFn } from "./index.d.ts" */
/** @import { FetchLike, TokenSource } from "./io.js" */
/** @import { CAPABILITY, CheckpointCalls, SyncCalls } from "./names.js" */
/** @typedef {typeof SYNC[keyof typeof SYNC]} SyncFunction */
/** @typedef {typeof CAPABILITY[keyof typeof CAPABILITY]} Capability */

/**
 * What a client hands the module on every call (client.js): its options as JSON text and
 * the fetch to send requests with (the caller's, or the entry's default); `token` when its
 * access token comes from a function, which `call` asks (io.js `withToken`).
 * @typedef {{ options: string | undefined, fetch: FetchLike | undefined, token?: TokenSource }} ClientState
 */

const STAND_IN_FUNCTION = () => {};

// Set by the entry files (deno.js, node.js, browser.js): instantiated, or to instantiate
// on first use. Without an entry every export fails with a message naming the entries:
// this file, api.js, langgraph.js and the others are internal and load no .wasm themselves.
let loaded = false;
/** @type {(() => void) | null} */
let instantiate = null;

/** Marks the module as instantiated (entry files only). */
export function moduleLoaded() {
  loaded = true;
}

/** Instantiates the module on the first call that needs it (entry files only): importing
 *  then costs reading the .wasm, not compiling it, so an app (or an edge function's cold
 *  start) that imports the package without calling into it yet pays nothing more.
 * @param {() => void} fn
 */
export function loadOnFirstUse(fn) {
  instantiate = fn;
}

function ensureLoaded() {
  if (loaded) return;
  if (instantiate === null) throw notLoaded();
  instantiate(); // throws the entry's wasm_not_loaded error; a later call tries again
  instantiate = null;
  loaded = true;
}

function notLoaded() {
  return new AgentmemError(
    "wasm_not_loaded",
    "agentmem's WebAssembly module is not loaded: the file you imported is internal to the package. " +
      "Import the package by name (its main entry, or its /langgraph entry for the checkpoint saver), " +
      "or an entry file: deno.js, node.js or browser.js; for the saver langgraph-deno.js, langgraph-node.js or langgraph-browser.js",
  );
}

/**
 * The error an entry file throws when the .wasm cannot be loaded: where it looked, what
 * went wrong, and how to ship the file (`how`, per runtime).
 * @param {string} where
 * @param {unknown} cause
 * @param {string} how
 * @returns {AgentmemError}
 */
export function loadFailed(where, cause, how) {
  return new AgentmemError(
    "wasm_not_loaded",
    `agentmem could not load its WebAssembly module from ${where}: ${messageOf(cause)}. ${how}`,
    { cause },
  );
}

/**
 * A primitive as it is; an object or function as an empty one of the same kind, so the
 * module can still say "must be a string, got an array" without reading the original.
 * @param {unknown} v
 * @returns {unknown}
 */
export function prim(v) {
  if (v === null || (typeof v !== "object" && typeof v !== "function")) return v;
  if (typeof v === "function") return STAND_IN_FUNCTION;
  let array = false;
  try {
    array = Array.isArray(v); // throws for a revoked Proxy
  } catch {
    // Reported as an object.
  }
  return array ? [] : {};
}

/**
 * A caller's exception while agentmem read `field`, as `invalid_input` with that cause.
 * @param {string} field
 * @param {unknown} e
 * @returns {AgentmemError}
 */
export function unreadable(field, e) {
  return new AgentmemError("invalid_input", `${field} could not be read: ${messageOf(e)}`, { field, cause: e });
}

/**
 * An array as a plain copy of primitives (see `prim`); anything else through `prim`.
 * @param {string} field
 * @param {unknown} v
 * @returns {unknown}
 */
function primArray(field, v) {
  let array;
  try {
    array = Array.isArray(v);
  } catch (e) {
    throw unreadable(field, e);
  }
  if (!array) return prim(v);
  const items = /** @type {unknown[]} */ (v);
  const out = [];
  let i = 0;
  try {
    for (const n = items.length; i < n; i++) out.push(prim(items[i]));
  } catch (e) {
    throw unreadable(`${field}[${i}]`, e);
  }
  return out;
}

/**
 * The module's synchronous function `name` (src/wasm/mod.rs `callSync`, one export for
 * all of them) on `args`, once the module is loaded, whatever it throws as an
 * AgentmemError; its parameters and result as src/boundary.rs `SyncCall` declares them.
 * @type {<K extends SyncFunction>(name: K, ...args: SyncCalls[K]["args"]) => SyncCalls[K]["result"]}
 */
const callSync = (name, ...args) => {
  try {
    return enter(() => glue.callSync(name, args));
  } catch (e) {
    throw asAgentmemError(e);
  }
};

// Set when a trap left the module: its instance is discarded, and the next call starts a
// fresh one. `instances` counts them: a run of a discarded instance must not resume on the
// next (its id may name another call's run there).
let failed = false;
let instances = 0;

/**
 * `fn`, a call into the module, once it is loaded and sound. A WebAssembly.RuntimeError
 * (a panic, which aborts on the spot, or any other trap) leaves its memory in whatever
 * state the call left it: it is logged once, the calls waiting on that instance are
 * rejected (io.js `moduleFailed`), and the next call runs on a fresh instance. A
 * long-lived edge worker loses one call to a bug, not itself.
 * @template T
 * @param {() => T} fn
 * @returns {T}
 */
function enter(fn) {
  ensureLoaded();
  if (failed) {
    glue.__wbg_reset_state();
    failed = false;
    instances += 1;
  }
  try {
    return fn();
  } catch (e) {
    if (e instanceof WebAssembly.RuntimeError && !failed) {
      failed = true;
      console.error(`agentmem: internal error, the module will reinitialize on the next call: ${e.message}`);
      moduleFailed(e.message);
    }
    throw e;
  }
}

// ids: primitives only (a name list as a copy), typed as declared.
/** @type {typeof Declared.uuid5} */
export const uuid5 = (name, namespace) => callSync(SYNC.uuid5, prim(name), prim(namespace));
/** @type {typeof Declared.uuid5Batch} */
export const uuid5Batch = (names, namespace) => callSync(SYNC.uuid5Batch, primArray("names", names), prim(namespace));
/** @type {typeof Declared.conversationId} */
export const conversationId = (lead, namespace) => callSync(SYNC.conversationId, prim(lead), prim(namespace));
/** @type {typeof Declared.coiaThread} */
export const coiaThread = (flow, id) => callSync(SYNC.coiaThread, prim(flow), prim(id));
/** @type {typeof Declared.cimThreadId} */
export const cimThreadId = (dealId, cimId) => callSync(SYNC.cimThreadId, prim(dealId), prim(cimId));
/** @type {typeof Declared.supervisorThreadId} */
export const supervisorThreadId = (dealId, ts) => callSync(SYNC.supervisorThreadId, prim(dealId), prim(ts));
/** @type {typeof Declared.parseThreadId} */
export const parseThreadId = (threadId) => callSync(SYNC.parseThreadId, prim(threadId));
/** @type {typeof Declared.extractDealId} */
export const extractDealId = (threadId) => callSync(SYNC.extractDealId, prim(threadId));
/** @type {typeof Declared.inspectToken} */
export const inspectToken = (token) => callSync(SYNC.inspectToken, prim(token));

/**
 * Runs one operation of any capability (src/wasm/mod.rs `call`): `state` is a client's
 * `{ options: JSON text, fetch }` (client.js), `capability` "client", "memory", "state" or
 * "checkpoint", `op` the operation (a memory tool's name), `args` its arguments as the
 * facade made them (JSON text, copied `[type, Uint8Array]` pairs), or a function returning
 * them, called inside the tracked call so that a conversion error rejects instead of
 * throwing; `embed` the memory tools' callback. The module plans the operation and answers
 * with an action (send this request, wait, embed this text) or the result; each action is
 * performed here and its outcome handed back (`resume`) until the result comes: JSON the
 * operation defines, hence `any` here; each facade method states its type as its .d.ts
 * declares it.
 * @param {ClientState} state
 * @param {Capability} capability
 * @param {unknown} op
 * @param {unknown[] | (() => unknown[])} args
 * @param {EmbedFn} [embed]
 * @returns {Promise<any>}
 */
export const call = (state, capability, op, args, embed) => {
  /** @type {unknown[] | undefined} */
  let input;
  // Made once: an operation runs again when its token expired (io.js `withToken`).
  const made = () => (input ??= typeof args === "function" ? args() : args);
  return track(() => withToken(state, (tokenState) => runOnce(tokenState, capability, op, made, embed)));
};

/**
 * One run of `call`'s operation, with the client's access token in place.
 * @param {ClientState} state
 * @param {Capability} capability
 * @param {unknown} op
 * @param {() => unknown[]} args
 * @param {EmbedFn} [embed]
 * @returns {Promise<any>}
 */
async function runOnce(state, capability, op, args, embed) {
  /** @type {[number, any]} `[run id, action]` while the run waits, `[-1, result]` when done */
  let [id, next] = enter(() => glue.call(state, capability, op, args()));
  const instance = instances;
  while (id >= 0) {
    const outcome = await perform(state, embed, next);
    // The run died with its instance; `track` has rejected this call already.
    if (instance !== instances || failed) return new Promise(() => {});
    const run = id;
    [id, next] = enter(() => glue.resume(run, outcome));
  }
  return next;
}

/**
 * An action of a run (src/wasm/run.rs), through io.js, whose promises resolve to a plain
 * outcome object and never reject.
 * @param {ClientState} state
 * @param {EmbedFn | undefined} embed
 * @param {any[]} action `["fetch", url, method, headers JSON, body, timeout ms]`,
 *   `["sleep", ms]` or `["embed", texts, timeout ms, dimensions]`
 * @returns {Promise<unknown>}
 */
function perform(state, embed, action) {
  switch (action[0]) {
    case ACTION.fetch:
      // The module checked it: the client's function, or the global fetch when none was given.
      return fetchOnce(/** @type {FetchLike} */ (state.fetch ?? globalThis.fetch), action[1], action[2], action[3], action[4], action[5]);
    case ACTION.sleep:
      return sleep(action[1]);
    case ACTION.embed:
      return embedOnce(/** @type {EmbedFn} */ (embed), action[1], action[2], action[3]);
    default:
      // A module and a wasm.js of different builds: nothing to perform, and the run cannot go on.
      throw new AgentmemError("internal", `the module asked for an unknown action ${JSON.stringify(String(action[0]))}`);
  }
}

/**
 * A function of `callSync` whose arguments the facades pass on as they have them (JSON
 * text they made, a client's state), as `SyncCall` declares it.
 * @type {<K extends SyncFunction>(name: K) => (...args: SyncCalls[K]["args"]) => SyncCalls[K]["result"]}
 */
const sync = (name) => (...args) => callSync(name, ...args);

// Transport: `state` is a client's `{ options: JSON text, fetch }` (client.js).
export const checkClientOptions = sync(SYNC.checkClientOptions);
/**
 * Whether a client has a key space to act in (the module's rule, which MemoryTools follows
 * there): not the anonymous key alone.
 */
export const hasIdentity = sync(SYNC.hasIdentity);

// Memory tools: options as JSON text (memory.js).
/**
 * @param {unknown} format
 * @param {unknown} options
 */
export const memoryDefinitions = (format, options) =>
  callSync(SYNC.memoryDefinitions, prim(format), toJson("options", options));
/**
 * A memory id as the memory tools read it (any case, any UUID form, around whitespace),
 * lowercase and hyphenated; `undefined` for anything that is not one.
 * @type {(id: unknown) => string | undefined}
 */
export const memoryId = (id) => callSync(SYNC.memoryId, prim(id));
export const checkMemoryOptions = sync(SYNC.checkMemoryOptions);

// State stores: every argument is already JSON text (state.js).
export const stateCheckOptions = sync(SYNC.stateCheckOptions);
export const researchMergeState = sync(SYNC.researchMergeState);
export const researchValidateState = sync(SYNC.researchValidateState);
export const researchValidateTransition = sync(SYNC.researchValidateTransition);
export const workflowNormalizeState = sync(SYNC.workflowNormalizeState);

// Checkpoints: the memory backend's check of a call, with the database backend's rules
// (`args` as for `call`).
/**
 * @template {keyof CheckpointCalls} K
 * @param {K} op
 * @param {CheckpointCalls[K]["args"]} args
 * @returns {boolean}
 */
export const checkpointCheck = (op, args) => callSync(SYNC.checkpointCheck, op, args);
