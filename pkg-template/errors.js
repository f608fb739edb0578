/* @ts-self-types="./errors.d.ts" */
// @ts-check
// The one error type agentmem throws. Rust builds these through the glue (it imports this
// file as "./errors.js"), so `instanceof AgentmemError` holds for every error we raise.
/** @import { AgentmemError as Declared, AgentmemErrorCode, AgentmemErrorProps } from "./errors.d.ts" */

/** @implements {Declared} */
export class AgentmemError extends Error {
  /**
   * @param {AgentmemErrorCode} code stable machine-readable code, e.g. "invalid_input"
   * @param {string} message
   * @param {Partial<AgentmemErrorProps> & { cause?: unknown }} [props] status, pgrstCode, details, hint, field, retries, cause
   */
  constructor(code, message, props) {
    // Constructing an error must not fail: a property that cannot be read is left out.
    /** @param {string} key */
    const read = (key) => {
      try {
        return props !== null && typeof props === "object" ? /** @type {Record<string, unknown>} */ (props)[key] : undefined;
      } catch {
        return undefined;
      }
    };
    const cause = read("cause");
    super(message === undefined ? undefined : safeString(message), cause !== undefined ? { cause } : undefined);
    this.name = /** @type {const} */ ("AgentmemError");
    this.code = /** @type {AgentmemErrorCode} */ (safeString(code));
    for (const key of ["status", "pgrstCode", "details", "hint", "field", "retries"]) {
      const value = read(key);
      // `any`: errors.d.ts's optional properties, set only when present.
      if (value !== undefined && value !== null) /** @type {any} */ (this)[key] = value;
    }
  }
}

/** @param {unknown} v */
function safeString(v) {
  try {
    return String(v);
  } catch {
    return typeof v;
  }
}
