// @ts-check
// JSON text for the module, refusing what JSON cannot say instead of letting
// JSON.stringify drop it silently. Shared by the package's facades.
import { AgentmemError } from "./errors.js";

/**
 * JSON text of `value` (undefined stays undefined). JSON has no NaN or Infinity and
 * JSON.stringify would turn them into null without a word; they are refused here with
 * the path of the value, e.g. `state.business_info.rating` (with `field` empty, top-level
 * keys are named alone: `importance_score`, and `label` names the whole value). A getter,
 * Proxy trap or toJSON that throws is an `invalid_input` with the exception as `cause`.
 * @param {string} field
 * @param {unknown} value
 * @param {string} [label]
 * @returns {string | undefined}
 */
export function toJson(field, value, label = field) {
  return jsonText(field, value, label, false);
}

/**
 * JSON text of an options object, as `toJson`, except that a function anywhere in it is
 * sent as a marker the module reads as "a function" (`{"\u0000function": true}`), so that a
 * misspelled option whose value is a function (`fetsh: fetch`) is refused like any unknown
 * option, with the list of valid ones, instead of vanishing as JSON.stringify would drop
 * it. The facades take their own function options (fetch, embed, ...) out first.
 * @param {unknown} value
 * @param {string} [field] the options' path in messages ("" names their keys alone)
 * @returns {string | undefined}
 */
export function optionsJson(value, field = "") {
  return jsonText(field, value, "options", true);
}

/**
 * @param {string} field
 * @param {unknown} value
 * @param {string} label
 * @param {boolean} markFunctions
 * @returns {string | undefined}
 */
function jsonText(field, value, label, markFunctions) {
  if (value === undefined) return undefined;
  /** @type {Map<unknown, string>} */
  const paths = new Map();
  let root = true; // the replacer's first call is for the value itself
  try {
    return JSON.stringify(value, /** @this {unknown} @param {string} key @param {unknown} v */ function (key, v) {
      const parent = paths.get(this);
      const path = root ? field : Array.isArray(this) ? `${parent}[${key}]` : parent ? `${parent}.${key}` : key;
      root = false;
      if (typeof v === "number" && !Number.isFinite(v)) {
        const name = path || label || "the value";
        throw new AgentmemError("invalid_input", `${name} must be a finite number (JSON has no ${v})`, { field: path || label });
      }
      if (markFunctions && typeof v === "function") return { "\u0000function": true };
      if (v !== null && typeof v === "object") paths.set(v, path);
      return v;
    });
  } catch (e) {
    if (e instanceof AgentmemError) throw e;
    throw new AgentmemError("invalid_input", `${label || "the value"} cannot be converted to JSON: ${messageOf(e)}`, { field: label, cause: e });
  }
}

/**
 * What a caller gave, in the words every message uses (as the module's): `the string "x"`,
 * `the number 0`, `true`, `null`, `undefined`, `an object`, `an array`, `a function`,
 * `a bigint`, `a symbol`. Never reads into the value, so it cannot throw or recurse.
 * @param {unknown} v
 * @returns {string}
 */
export function describe(v) {
  switch (typeof v) {
    case "string": return `the string ${JSON.stringify(v)}`;
    case "number": return `the number ${String(v)}`;
    case "boolean": return String(v);
    case "undefined": return "undefined";
    case "function": return "a function";
    case "object": return v === null ? "null" : isArray(v) ? "an array" : "an object";
    default: return `a ${typeof v}`;
  }
}

/**
 * Array.isArray, false for a revoked Proxy (for which Array.isArray throws).
 * @param {unknown} v
 * @returns {boolean}
 */
function isArray(v) {
  try {
    return Array.isArray(v);
  } catch {
    return false;
  }
}

/**
 * An exception's message, for error texts; never throws, whatever was thrown.
 * @param {unknown} e
 * @returns {string}
 */
export function messageOf(e) {
  try {
    if (e !== null && typeof e === "object") {
      // Read once: a getter may answer differently the second time, and the result must be a string.
      const message = /** @type {{ message?: unknown }} */ (e).message;
      if (typeof message === "string") return message;
    }
    return String(e);
  } catch {
    return "an exception without a readable message";
  }
}
