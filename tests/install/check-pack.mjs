// What `npm pack` puts in the tarball is what users get: checks that it holds everything
// they need (code that every import and export points at, the .wasm, the SQL of
// supabase/migrations and supabase/optional, the example Edge Functions, README, LICENSE,
// CHANGELOG, the bin) and
// nothing else, and that the metadata a registry shows is there.
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

// Every relative import of a packed module is packed too.
for (const f of files) {
  if (!/\.(js|d\.ts)$/.test(f)) continue;
  const text = readFileSync(join(pkgDir, f), "utf8");
  for (const [, spec] of text.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)) {
    const target = posix.normalize(posix.join(posix.dirname(f), spec));
    assert.ok(files.has(target), `${f} imports ${spec}, which is not in the tarball`);
  }
}
// No declaration file names another by a `.d.ts` specifier: TypeScript 4.x refuses one
// (TS2691) unless skipLibCheck is on, and the names behind it then read as `any`.
for (const f of files) {
  if (!f.endsWith(".d.ts")) continue;
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
  assert.match(f, /^(package\.json|README\.md|CHANGELOG\.md|LICENSE|[\w-]+\.(js|d\.ts|wasm)|bin\/[\w-]+\.js|inspector\/[\w-]+\.(html|js|css)|supabase\/(migrations|optional)\/[\w-]+\.sql|supabase\/functions\/[\w-]+\/[\w.-]+\.(ts|json|md))$/, `unexpected file in the tarball: ${f}`);
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
console.log(`npm pack: ${pack.filename}, ${files.size} files, ${pack.size} bytes packed, ${pack.unpackedSize} unpacked`);
