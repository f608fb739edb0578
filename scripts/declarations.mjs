// Writes the CommonJS declarations (x.d.cts) of the package from its ES-module ones (x.d.ts).
// Run by scripts/build.sh on pkg/ once pkg-template/ is in it: node scripts/declarations.mjs <pkg>
//
// Why: in a "type": "commonjs" project (npm's default) with module nodenext, TypeScript
// resolves a static `import` (a require() once compiled) or an `import type` of this
// package with the `require` condition, and LangGraph's own types there are its .d.cts
// ones. Reached through our .d.ts alone, agentmem's classes extended the .d.ts copy of
// BaseCheckpointSaver / BaseStore (and of @langchain/core under them), which TypeScript
// holds unrelated to the .d.cts copy: `compile({ checkpointer })` failed with TS2322. The
// exports map sends the `require` side of "types" to these files, whose imports of
// @langchain/langgraph-checkpoint resolve as CommonJS too, so each project shape sees one
// copy of LangGraph's types.
//
// The declarations are the same; only how their imports resolve differs. At runtime the
// package stays ES modules: Node's require() loads them (Node >= 20.19 / 22.12, which
// load ES modules without a top-level await synchronously; the Node entries have none).
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import process from "node:process";

const pkg = process.argv[2] && resolve(process.argv[2]);
if (!pkg) throw new Error("usage: node scripts/declarations.mjs <pkg dir>");

const header = (file) =>
  `// Generated from ./${file} when the package is built: the same declarations, for CommonJS\n` +
  `// projects, whose imports (LangGraph's types among them) resolve as CommonJS.\n`;

let written = 0;
for (const file of readdirSync(pkg).filter((f) => f.endsWith(".d.ts")).sort()) {
  const text = readFileSync(join(pkg, file), "utf8")
    // Sibling declarations by their CommonJS counterparts: "./x.js" is ./x.d.ts, "./x.cjs" ./x.d.cts.
    .replace(/(\bfrom\s*["']\.\/[\w.-]+)\.js(["'])/g, "$1.cjs$2")
    .replace(/^(\/\/ @ts-types="\.\/[\w.-]+\.d)\.ts"/gm, '$1.cts"');
  const left = text.match(/["']\.\.?\/[^"']+\.js["']/);
  if (left) throw new Error(`declarations.mjs: ${file} names ${left[0]} in a form it does not convert`);
  writeFileSync(join(pkg, file.replace(/\.d\.ts$/, ".d.cts")), header(file) + text);
  written += 1;
}
console.log(`declarations.mjs: ${written} .d.cts files`);
