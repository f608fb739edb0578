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
    super(message, props && props.cause !== undefined ? { cause: props.cause } : undefined);
    this.name = "AgentmemError";
    this.code = code;
    if (props) {
      for (const key of ["status", "pgrstCode", "details", "hint", "field", "retries"]) {
        if (props[key] !== undefined && props[key] !== null) this[key] = props[key];
      }
    }
  }
}
