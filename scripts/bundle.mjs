// Joins the main entry's JavaScript into one module, core.js, so that importing the
// package loads 3 modules instead of 12 (Deno: entry + core.js + errors.js). Each module
// of a graph costs the runtime a read, a parse and a compile of its own, the larger part
// of the import of the main entry (bench "import" measures it).
// Run by scripts/build.sh on pkg/ once pkg-template/ is in it: node scripts/bundle.mjs <pkg>
//
// What pkg/ holds afterwards:
//   core.js       the glue (agentmem.js) and every internal module (io, json, names, wasm, platform,
//                 client, memory, state, api), each export renamed <module>$<name>
//   deno.js, node.js, browser.js, langgraph.js
//                 as in pkg-template/, their imports of internal modules pointed at core.js
//                 (node.js also inlines node-http.js)
//   agentmem.js, io.js, wasm.js, api.js, …
//                 one line each: that module's exports, re-exported from core.js. Whatever
//                 imports an internal file by path (the tests do, to reach the instance the
//                 entry loaded) gets the same module instance, classes and state.
//   errors.js     unchanged, a module of its own: agentmem-supabase/ids shares it (one
//                 AgentmemError class for every entry) and must not load core.js.
//   unbundled/    the JavaScript as it was, not packed: tests/facades/check.sh type-checks it.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { build } = createRequire(join(root, "tools", "package.json"))("esbuild");
const pkg = process.argv[2] && resolve(process.argv[2]);
if (!pkg) throw new Error("usage: node scripts/bundle.mjs <pkg dir>");
if (existsSync(join(pkg, "core.js"))) throw new Error(`bundle.mjs: ${pkg} is bundled already (run scripts/build.sh)`);

// The modules core.js joins, and the files that import them.
const INTERNAL = ["agentmem.js", "io.js", "json.js", "names.js", "wasm.js", "platform.js", "client.js", "memory.js", "state.js", "api.js"];
const ENTRIES = ["deno.js", "node.js", "browser.js", "langgraph.js"];
const SHARED = ["errors.js"];
const PEERS = ["@langchain/langgraph-checkpoint", "node:*"];

const alias = (file, name) => `${basename(file, ".js").replace(/[^A-Za-z0-9_]/g, "_")}$${name}`;
const relative = /^\.\.?\//;

// 1. What each internal module exports, as esbuild reads it.
/** @type {Map<string, string[]>} */
const exportsOf = new Map();
for (const file of INTERNAL) {
  const result = await build({
    entryPoints: [join(pkg, file)],
    bundle: true,
    write: false,
    metafile: true,
    format: "esm",
    logLevel: "error",
    absWorkingDir: pkg,
    plugins: [{ name: "leaf", setup: (b) => b.onResolve({ filter: /.*/ }, (a) => (a.kind === "entry-point" ? undefined : { external: true })) }],
  });
  const [output] = Object.values(result.metafile.outputs);
  exportsOf.set(file, output.exports);
}

// `export * from "./x.js"` (api.js: state.js's public names) lists no names while x is
// external: they are x's.
for (const file of INTERNAL) {
  const source = readFileSync(join(pkg, file), "utf8");
  for (const [, from] of source.matchAll(/^export \* from "\.\/([\w-]+\.js)";$/gm)) {
    if (!exportsOf.has(from)) throw new Error(`bundle.mjs: ${file} re-exports ${from}, which is not in INTERNAL`);
    exportsOf.set(file, [...new Set([...exportsOf.get(file), ...exportsOf.get(from)])]);
  }
}

// Keeps `from "./errors.js"` (and peers) as imports in the output.
const sharedExternal = (b) => {
  b.onResolve({ filter: relative }, (a) => (SHARED.includes(basename(a.path)) ? { path: `./${basename(a.path)}`, external: true } : undefined));
};

// The glue creates its TextDecoder when it is evaluated, and decodes once (a warm-up
// for Safari): work every import pays for a decoder only a call into the module needs.
// Created on the first decode instead (docs/design.md states this patch). The build fails if the glue (wasm-bindgen,
// pinned in Cargo.toml) no longer reads as expected.
const LAZY_DECODER = [
  [/^let cachedTextDecoder = new TextDecoder\('utf-8', \{ ignoreBOM: true \}\);\ncachedTextDecoder\.decode\(\);\n/m, "let cachedTextDecoder;\n"],
  [/^(function decodeText\(bytes\) \{\n\s*numBytesDecoded \+= bytes\.length;\n\s*if \()(numBytesDecoded >= MAX_SAFARI_DECODE_BYTES\) \{)/m, "$1cachedTextDecoder === undefined || $2"],
];
const lazyDecoder = {
  name: "lazy-decoder",
  setup(b) {
    b.onLoad({ filter: /[\\/]agentmem\.js$/ }, (a) => {
      let text = readFileSync(a.path, "utf8");
      for (const [pattern, replacement] of LAZY_DECODER) {
        const found = text.match(new RegExp(pattern.source, "gm"))?.length ?? 0;
        if (found !== 1) throw new Error(`bundle.mjs: the wasm-bindgen glue changed (${pattern} found ${found} times); update LAZY_DECODER`);
        text = text.replace(pattern, replacement);
      }
      return { contents: text, loader: "js" };
    });
  },
};

// 2. core.js: every internal module, each export under its unique alias.
const coreEntry = INTERNAL.map((file) => {
  const names = exportsOf.get(file).map((n) => `${n} as ${alias(file, n)}`);
  return `export { ${names.join(", ")} } from "./${file}";`;
}).join("\n");
// What core.js and every entry are built with: ES modules for any runtime, the peers left
// as imports, the result kept in memory (with its inputs, for the check below).
const common = { bundle: true, write: false, format: "esm", platform: "neutral", external: PEERS, logLevel: "warning", absWorkingDir: pkg, metafile: true };
const core = await build({
  ...common,
  stdin: { contents: coreEntry, resolveDir: pkg, sourcefile: "core.js", loader: "js" },
  banner: { js: "// @ts-nocheck\n// Generated by scripts/bundle.mjs from the package's internal modules (see pkg-template/); import an entry, not this file." },
  plugins: [{ name: "shared", setup: sharedExternal }, lazyDecoder],
});

// 3. The entries: their imports of internal modules become imports of core.js.
// One statement per name, so that esbuild drops the ones an entry does not use.
const facade = (file) => exportsOf.get(file).map((n) => `export { ${alias(file, n)} as ${n} } from "./core.js";`).join("\n");
const toCore = {
  name: "to-core",
  setup(b) {
    sharedExternal(b);
    b.onResolve({ filter: /^\.\/core\.js$/, namespace: "facade" }, () => ({ path: "./core.js", external: true, sideEffects: false }));
    b.onResolve({ filter: relative }, (a) => (INTERNAL.includes(basename(a.path)) ? { path: basename(a.path), namespace: "facade" } : undefined));
    b.onLoad({ filter: /.*/, namespace: "facade" }, (a) => ({ contents: facade(a.path), loader: "js", resolveDir: pkg }));
  },
};
const entries = [];
/** @type {Map<string, string[]>} what each output holds, as esbuild's metafile names it */
const inlined = new Map([["core.js", Object.keys(core.metafile.inputs)]]);
for (const file of ENTRIES) {
  const source = readFileSync(join(pkg, file), "utf8");
  // The first line names the entry's declarations for Deno (`@ts-self-types`); keep it first.
  const header = source.split("\n").filter((l, i) => i < 2 && l.startsWith("/* @ts-self-types=")).join("\n");
  const result = await build({
    ...common,
    entryPoints: [join(pkg, file)],
    banner: { js: `${header ? `${header}\n` : ""}// Generated by scripts/bundle.mjs from pkg-template/${file}.` },
    plugins: [toCore],
  });
  inlined.set(file, Object.keys(result.metafile.inputs));
  // esbuild writes one import per name (see `facade`): one statement, where the first was.
  const names = [];
  const text = result.outputFiles[0].text
    .replace(/^\/\/ facade:.*\n/gm, "")
    .replace(/^import \{ ([\w$]+) \} from "\.\/core\.js";\n\n?/gm, (_, name) => (names.push(name) === 1 ? "\0" : ""));
  entries.push([file, text.replace("\0", `import { ${names.join(", ")} } from "./core.js";\n`)]);
}

// A module inlined in two outputs would be two instances (two AgentmemError or client
// classes, two loaded flags): core.js holds the internal modules and nothing else, an entry
// itself and modules only it uses (node-http.js). A new module of pkg-template/ that an
// internal module or two entries import must be added to INTERNAL above.
const OWN = { "node.js": ["node-http.js"], "langgraph.js": ["store.js", "langgraph-memory.js"] };
for (const [out, inputs] of inlined) {
  const allowed = out === "core.js" ? INTERNAL : [out, ...(OWN[out] ?? [])];
  // Not files: the facades (namespace "facade:") and core.js's own entry (stdin).
  const files = inputs.filter((i) => !i.startsWith("facade:")).map((i) => basename(i)).filter((f) => !(out === "core.js" && f === "core.js"));
  const stray = files.filter((f) => !allowed.includes(f));
  if (stray.length > 0) throw new Error(`bundle.mjs: ${out} would inline ${stray.join(", ")}; add it to INTERNAL (or OWN) in scripts/bundle.mjs`);
}

// 4. The JavaScript as it was, for the type check, then the outputs.
const keep = join(pkg, "unbundled");
mkdirSync(join(keep, "bin"), { recursive: true });
for (const f of readdirSync(pkg)) if (/\.(js|d\.ts)$/.test(f)) copyFileSync(join(pkg, f), join(keep, f));
for (const f of readdirSync(join(pkg, "bin"))) copyFileSync(join(pkg, "bin", f), join(keep, "bin", f));

writeFileSync(join(pkg, "core.js"), core.outputFiles[0].text);
for (const [file, text] of entries) writeFileSync(join(pkg, file), text);
for (const file of INTERNAL) {
  writeFileSync(join(pkg, file), `// An internal module of the package, joined into core.js (scripts/bundle.mjs): its exports, from there.\n${facade(file)}\n`);
}
const size = (f) => readFileSync(join(pkg, f)).length;
console.log(`bundle.mjs: core.js ${size("core.js")} bytes (${INTERNAL.length} modules); ${ENTRIES.map((f) => `${f} ${size(f)}`).join(", ")}`);
