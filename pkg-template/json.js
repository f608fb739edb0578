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
      if (v !== null && typeof v === "object") paths.set(v, path);
      return v;
    });
  } catch (e) {
    if (e instanceof AgentmemError) throw e;
    throw new AgentmemError("invalid_input", `${label || "the value"} cannot be converted to JSON: ${messageOf(e)}`, { field: label, cause: e });
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
