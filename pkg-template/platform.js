// Defaults an entry file sets for its runtime before any client exists (node.js: a
// leaner HTTP client than the global fetch). A caller's own `fetch` always wins.
export const platform = { fetch: undefined };
