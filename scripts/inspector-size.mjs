// The inspector's first load (pkg/inspector): its HTML, CSS, every module it imports
// (statically or with import(), followed through relative imports) and the .wasm the
// browser entry fetches, each gzipped as a server would send it. Prints the total and
// fails when it is over the budget (gzip bytes), so growth is a decision.
// Usage: node scripts/inspector-size.mjs <pkg dir> <budget>
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import process from "node:process";
import { gzipSync } from "node:zlib";

const [pkgArg, budgetArg] = process.argv.slice(2);
const pkg = resolve(pkgArg);
const budget = Number(budgetArg);
if (!pkgArg || !Number.isInteger(budget)) throw new Error("usage: node scripts/inspector-size.mjs <pkg dir> <budget>");

const files = new Set([join(pkg, "inspector/index.html"), join(pkg, "inspector/inspector.css"), join(pkg, "agentmem_bg.wasm")]);
const todo = [join(pkg, "inspector/inspector.js")];
while (todo.length > 0) {
  const file = /** @type {string} */ (todo.pop());
  if (files.has(file)) continue;
  files.add(file);
  const text = readFileSync(file, "utf8");
  for (const [, spec] of text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)) {
    // JSDoc `@import ... from "./x.d.ts"` names types, which the browser never loads.
    if (!spec.endsWith(".d.ts")) todo.push(join(dirname(file), spec));
  }
}
let raw = 0;
let gz = 0;
for (const f of files) {
  const bytes = readFileSync(f);
  raw += bytes.length;
  gz += gzipSync(bytes, { level: 9 }).length;
}
const names = [...files].map((f) => relative(pkg, f)).sort().join(", ");
console.log(`inspector first load (${names}): ${raw} bytes raw, ${gz} bytes gzip (budget ${budget})`);
if (gz > budget) {
  console.error(`inspector-size.mjs: the inspector's first load is ${gz} bytes gzip, over its budget of ${budget} (scripts/build.sh)`);
  process.exit(1);
}
