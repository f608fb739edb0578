// Importing a file of the package that is not an entry (by path, which the exports map
// cannot stop) either works or fails with wasm_not_loaded naming the entries to use.
// One fresh process per file: an entry loaded earlier would hide the problem.
// Usage: node internal.mjs <package dir> <file>
import assert from "node:assert/strict";
import process from "node:process";

const [dir, file] = process.argv.slice(2);
const m = await import(`${dir}/${file}`);
const opts = { url: "http://127.0.0.1:9", apiKey: "anon-key-0000" };
const attempts = {
  "api.js": () => m.uuid5("python.org", "dns"),
  "wasm.js": () => m.uuid5("python.org", "dns"),
  "client.js": () => m.createClient(opts),
  "memory.js": () => m.MemoryTools.definitions("anthropic"),
  "state.js": () => m.mergeState({}, {}),
  "langgraph.js": () => new m.AgentmemSaver(opts),
};
const attempt = attempts[file];
if (attempt) {
  let error;
  try {
    await attempt();
  } catch (e) {
    error = e;
  }
  assert.equal(error?.name, "AgentmemError", `${file}: ${error?.stack ?? "no error"}`);
  assert.equal(error.code, "wasm_not_loaded", error.message);
  for (const entry of ["deno.js", "node.js", "browser.js", "langgraph-node.js"]) assert.ok(error.message.includes(entry), error.message);
  console.log(`${file}: wasm_not_loaded, naming the entries`);
} else {
  // No module needed: these work on their own.
  assert.ok(Object.keys(m).length > 0, file);
  console.log(`${file}: works on its own`);
}
