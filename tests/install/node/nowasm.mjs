// The package installed without its .wasm (what a bundler that inlines node.js leaves):
// importing it fails with wasm_not_loaded saying where the file was looked for.
import assert from "node:assert/strict";
import process from "node:process";

const name = process.env.AGENTMEM_PACKAGE;
let error;
try {
  await import(name);
} catch (e) {
  error = e;
}
assert.equal(error?.name, "AgentmemError", String(error?.stack));
assert.equal(error.code, "wasm_not_loaded");
assert.ok(error.message.includes(`/node_modules/${name}/agentmem_bg.wasm`), error.message);
assert.ok(error.message.includes("next to the bundle"), error.message);
console.log(`missing .wasm in Node: ${error.code}: ${error.message.slice(0, 120)}...`);
