// What `npm pack` puts in the tarball is what users get: checks that it holds everything
// they need (code that every import and export points at, the .wasm, the SQL of
// supabase/migrations and supabase/optional, the example Edge Functions, README, LICENSE,
// CHANGELOG, the bin) and
// nothing else, that the metadata a registry shows is there, and that no shipped document
// names a path the tarball does not have.
// Usage: node check-pack.mjs <npm pack --json output file> <repo root>
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, posix } from "node:path";
import process from "node:process";

const [packJson, root] = process.argv.slice(2);
const [pack] = JSON.parse(readFileSync(packJson, "utf8"));
const files = new Set(pack.files.map((f) => f.path));
const pkgDir = join(root, "pkg");
const meta = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));

for (const field of ["name", "version", "description", "license", "keywords"]) assert.ok(meta[field], `package.json has no ${field}`);
// Addresses are real or absent: none is published yet, so none is given (no placeholder).
for (const field of ["homepage", "repository", "bugs"]) assert.equal(meta[field], undefined, `package.json names a ${field} that does not exist`);

const required = ["package.json", "README.md", "LICENSE", "CHANGELOG.md", "agentmem_bg.wasm"];
for (const dir of ["supabase/migrations", "supabase/optional"]) {
  for (const f of readdirSync(join(root, dir)).filter((f) => f.endsWith(".sql"))) required.push(`${dir}/${f}`);
}
// The example Edge Functions README tells users to copy, with import maps that point at the
// copy of the package README describes (./agentmem/), not at this repository's build output.
for (const fn of ["_shared", "memory-tools", "langgraph-agent", "langgraph-store"]) {
  for (const f of readdirSync(join(root, "supabase/functions", fn))) required.push(`supabase/functions/${fn}/${f}`);
}
for (const f of files) {
  if (f.endsWith("/deno.json")) assert.doesNotMatch(readFileSync(join(pkgDir, f), "utf8"), /\.\.\/pkg\//, `${f} points at the repository's build output`);
}
const targets = (v) => (typeof v === "string" ? [v] : Object.values(v ?? {}).flatMap(targets));
required.push(...targets(meta.exports).map((t) => posix.normalize(t)), posix.normalize(meta.types), ...targets(meta.bin).map((t) => posix.normalize(t)));
for (const f of required) assert.ok(files.has(f), `the tarball lacks ${f}`);

// Every relative import of a packed module is packed too (a .d.cts file's "./x.cjs" is
// ./x.d.cts: declarations only, the package has no CommonJS code).
for (const f of files) {
  if (!/\.(js|d\.c?ts)$/.test(f)) continue;
  const text = readFileSync(join(pkgDir, f), "utf8");
  for (const [, spec] of text.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)) {
    const target = posix.normalize(posix.join(posix.dirname(f), f.endsWith(".d.cts") ? spec.replace(/\.cjs$/, ".d.cts") : spec));
    assert.ok(files.has(target), `${f} imports ${spec}, which is not in the tarball`);
  }
}
// Each declaration file has its CommonJS twin (scripts/declarations.mjs), and each entry's
// "types" send `require` to the twin of what they send everything else to.
for (const f of files) {
  if (f.endsWith(".d.ts")) assert.ok(files.has(f.replace(/\.d\.ts$/, ".d.cts")), `the tarball has ${f} but not its .d.cts`);
}
for (const [entry, conditions] of Object.entries(meta.exports)) {
  if (typeof conditions !== "object" || conditions.types === undefined) continue;
  const { require, default: esm, ...other } = conditions.types;
  assert.deepEqual(Object.keys(other), [], `exports["${entry}"].types has conditions other than require and default`);
  assert.equal(require, esm?.replace(/\.d\.ts$/, ".d.cts"), `exports["${entry}"].types.require is not the .d.cts of its default`);
  assert.equal(Object.keys(conditions)[0], "types", `exports["${entry}"]: "types" must come first`);
}
// No declaration file names another by a `.d.ts` specifier: TypeScript 4.x refuses one
// (TS2691) unless skipLibCheck is on, and the names behind it then read as `any`.
for (const f of files) {
  if (!/\.d\.c?ts$/.test(f)) continue;
  const text = readFileSync(join(pkgDir, f), "utf8").replace(/^\s*\/\/.*$/gm, "");
  for (const [, spec] of text.matchAll(/(?:from|import)\s*\(?\s*["']([^"']+\.d\.[cm]?ts)["']/g)) {
    assert.fail(`${f} names ${spec}: name it by its .js specifier (with a \`// @ts-types\` line for Deno), as index.d.ts does`);
  }
}
// Every declaration file that another names by its .js specifier is found, and is the same
// file, for each reader: tsc (any moduleResolution, and Deno for npm: packages) takes the
// x.d.ts next to x.js, so it must be packed; Deno reading a copied folder takes the
// `// @ts-types` line right before the statement, or else x.js's own `@ts-self-types`.
// Without either, Deno would type the export from the JavaScript, silently.
for (const f of files) {
  if (!f.endsWith(".d.ts")) continue;
  const text = readFileSync(join(pkgDir, f), "utf8");
  for (const [, pragma, spec] of text.matchAll(/^(?:\/\/ @ts-types="([^"]+)"\n)?(?:import|export)\b[^;]*?\bfrom\s*["'](\.{1,2}\/[^"']+\.js)["']/gm)) {
    const declared = posix.normalize(posix.join(posix.dirname(f), spec.replace(/\.js$/, ".d.ts")));
    assert.ok(files.has(declared), `${f} names ${spec}, whose declarations ${declared} are not in the tarball`);
    if (pragma !== undefined) {
      const named = posix.normalize(posix.join(posix.dirname(f), pragma));
      assert.equal(named, declared, `${f}: the @ts-types line before ${spec} names ${pragma}, not the ${declared} tsc reads`);
      continue;
    }
    const js = posix.normalize(posix.join(posix.dirname(f), spec));
    const self = readFileSync(join(pkgDir, js), "utf8").match(/^\/\* @ts-self-types="([^"]+)" \*\//m)?.[1];
    assert.ok(self !== undefined, `${f} names ${spec} with no \`// @ts-types="./${posix.basename(declared)}"\` line before it, and ${js} names no declarations of its own: Deno would type it from the JavaScript`);
    assert.equal(posix.normalize(posix.join(posix.dirname(js), self)), declared, `${js}'s @ts-self-types is not the ${declared} tsc reads`);
  }
}
// Nothing a user does not need: no sources, tests, maps or build leftovers.
for (const f of files) {
  assert.match(f, /^(package\.json|README\.md|CHANGELOG\.md|LICENSE|[\w-]+\.(js|d\.c?ts|wasm)|bin\/[\w-]+\.js|inspector\/[\w-]+\.(html|js|css)|supabase\/(migrations|optional)\/[\w-]+\.sql|supabase\/functions\/[\w-]+\/[\w.-]+\.(ts|json|md))$/, `unexpected file in the tarball: ${f}`);
}
// Every entry of `files` matches something (a listed README that did not exist went unnoticed once).
for (const entry of meta.files) {
  const re = new RegExp(`^${entry.replace(/[.]/g, "\\.").replace(/\*/g, "[^/]*")}(/|$)`);
  assert.ok([...files].some((f) => re.test(f)), `"files" lists ${entry}, which matches nothing`);
}
// No export for tests ships: the modules export only what the glue calls, and the glue and
// facades name no test hook (the tests provoke their traps from outside, deno/trap.ts).
const testOnly = /ForTests/;
for (const f of files) {
  if (f.endsWith(".wasm")) {
    const names = WebAssembly.Module.exports(new WebAssembly.Module(readFileSync(join(pkgDir, f)))).map((e) => e.name);
    assert.ok(names.length > 0, `${f} exports nothing`);
    for (const name of names) assert.doesNotMatch(name, testOnly, `${f} exports ${name}, a test-only export`);
  } else if (/\.(js|d\.ts)$/.test(f)) {
    assert.doesNotMatch(readFileSync(join(pkgDir, f), "utf8"), testOnly, `${f} names a test-only export`);
  }
}
// No dead paths: every path a shipped document names (README and the other .md files, the
// comments of the declarations, the inspector's page and script, the commands' help, the
// example functions) is in the tarball, or is a URL. A reader of the package has nothing
// else: not this repository's scripts, tests or docs. Paths are read where they are
// written as paths: in `code`, in links and images, in src/href, and words with a slash
// that end in a file's extension or start in one of the repository's folders.
const REPO_DIRS = ["scripts", "tests", "bench", "docs", "deno", "src", "crates", "gateway", "tools", "pkg-template", "pkg", ".ci"];
const EXT = "sql|ts|mts|cts|js|mjs|cjs|md|png|jpe?g|gif|svg|sh|json|html|css|wasm|toml|rs|py|txt|ya?ml";
// Paths in the user's own project that the documents name on purpose (where to put or
// find something of theirs), each as a pattern.
const USER_PATHS = [
  /^supabase\/config\.toml$/, // the project's Supabase CLI config, where static_files go
  /^supabase\/migrations\/?$/, // the project's migrations folder, where agentmem-sql copy writes
  /^supabase\/functions\/?$/,
  /^src\/app\.mjs$/, // a bundler's input and output in the Bundlers section
  /^dist\//,
  /^\.\/functions\/[\w-]+\/agentmem\//, // static_files entries, relative to the project's supabase/
  /^supabase\/functions\/[\w-]+\/agentmem\/?$/, // where a function's copy of the package goes
  /^agentmem\/[\w.-]+$/, // a function's copy of the package, from the function's folder
  /^\.\/agentmem\/([\w.-]+)?$/,
  /^app\.mjs$/,
];
// Paths that are not files of the package, on purpose: what agentmem-inspect serves the
// page besides the package's files.
const SERVED = { "inspector/inspector.js": ["./config.json"] };
const documents = [...files].filter((f) => /\.(md|d\.c?ts|html)$/.test(f) || /^(inspector|bin|supabase\/functions)\//.test(f));
const dirsOf = new Set([...files].flatMap((f) => f.split("/").slice(0, -1).map((_, i, parts) => parts.slice(0, i + 1).join("/"))));
const glob = (p) => new RegExp(`^${p.replace(/[.+^$()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*").replace(/\{([^}]*)\}/g, (_, alt) => `(${alt.split(",").join("|")})`)}$`);
const exists = (p) => {
  const bare = p.replace(/\/$/, "");
  if (files.has(bare) || dirsOf.has(bare)) return true;
  // A .d.cts file names its siblings "./x.cjs": declarations only, ./x.d.cts.
  if (bare.endsWith(".cjs") && files.has(bare.replace(/\.cjs$/, ".d.cts"))) return true;
  if (/[*{]/.test(bare)) {
    const re = glob(bare);
    return [...files, ...dirsOf].some((f) => re.test(f));
  }
  return false;
};
/** @type {string[]} */
const dead = [];
for (const f of documents) {
  const text = readFileSync(join(pkgDir, f), "utf8");
  const candidates = new Set();
  const word = new RegExp(`(?<![\\w@:/.<>*{}-])(?:\\.{1,2}/)?(?:(?:${REPO_DIRS.map((d) => d.replace(".", "\\.")).join("|")})/[\\w./*{},-]*|(?:[\\w.*{},-]+/)+[\\w.*{},-]+\\.(?:${EXT})|[\\w-]+\\.(?:png|jpe?g|gif|svg))(?![\\w/<>-])`, "g");
  for (const [m] of text.matchAll(word)) candidates.add(m);
  for (const [, m] of text.matchAll(/\]\(([^)\s]+)\)/g)) candidates.add(m);
  for (const [, m] of text.matchAll(/\b(?:src|href)=["']([^"']+)["']/g)) candidates.add(m);
  for (const raw of candidates) {
    const p = raw.replace(/[.,;:]+$/, "").replace(/#.*$/, "");
    if (p === "" || /^[a-z][\w+.-]*:/i.test(raw) || raw.startsWith("#") || p.includes("<")) continue;
    if (USER_PATHS.some((re) => re.test(p)) || SERVED[f]?.includes(p)) continue;
    const clean = p.replace(/^\.\//, "").replace(/^(node_modules\/)?agentmem-supabase\//, "");
    const local = posix.normalize(posix.join(posix.dirname(f), p));
    if (exists(clean) || (!local.startsWith("..") && exists(local))) continue;
    dead.push(`${f}: ${raw}`);
  }
}
assert.deepEqual(dead, [], `shipped files name paths that are not in the tarball (nor URLs):\n  ${dead.join("\n  ")}`);

console.log(`npm pack: ${pack.filename}, ${files.size} files, ${pack.size} bytes packed, ${pack.unpackedSize} unpacked`);
