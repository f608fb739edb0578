// @ts-check
// Defaults an entry file sets for its runtime before any client exists (node.js: a
// leaner HTTP client than the global fetch). A caller's own `fetch` always wins.
/** @type {{ fetch: import("./io.js").FetchLike | undefined }} */
export const platform = { fetch: undefined };
