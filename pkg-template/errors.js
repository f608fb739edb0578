/* @ts-self-types="./errors.d.ts" */
// The one error type agentmem throws. Rust builds these through the glue (it imports this
// file as "./errors.js"), so `instanceof AgentmemError` holds for every error we raise.
export class AgentmemError extends Error {
  /**
   * @param {string} code stable machine-readable code, e.g. "invalid_input"
   * @param {string} message
   * @param {Record<string, unknown>} [props] status, pgrstCode, details, hint, field, retries, cause
   */
  constructor(code, message, props) {
    // Constructing an error must not fail: a property that cannot be read is left out.
    const read = (key) => {
      try {
        return props !== null && typeof props === "object" ? props[key] : undefined;
      } catch {
        return undefined;
      }
    };
    const cause = read("cause");
    super(message === undefined ? undefined : safeString(message), cause !== undefined ? { cause } : undefined);
    this.name = "AgentmemError";
    this.code = safeString(code);
    for (const key of ["status", "pgrstCode", "details", "hint", "field", "retries"]) {
      const value = read(key);
      if (value !== undefined && value !== null) this[key] = value;
    }
  }
}

function safeString(v) {
  try {
    return String(v);
  } catch {
    return typeof v;
  }
}
