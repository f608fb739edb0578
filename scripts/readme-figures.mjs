// README.md's figures, written from what measured them so they cannot go stale:
//   sizes from pkg/SIZE (scripts/build.sh), each between <!-- figure: NAME --> and <!-- /figure -->;
//   benchmark tables from a committed report (bench/run.sh), each between
//   <!-- bench: REPORT | HEADING [| ROWS] --> and <!-- /bench -->: the first table under the
//   report's "## HEADING…" section, only the rows matching the regular expression ROWS if given.
//   node scripts/readme-figures.mjs          rewrite them in README.md
//   node scripts/readme-figures.mjs --check  fail (listing them) when any differs
// Only a pinned-route build counts: the stable route's sizes are not the package's.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const pkg = process.env.AGENTMEM_PKG ?? `${root}pkg`;
const size = readFileSync(`${pkg}/SIZE`, "utf8");
if (!/^build: the pinned route$/m.test(size)) throw new Error(`${pkg}/SIZE is not a pinned-route build`);
const grab = (re, what) => {
  const m = size.match(re);
  if (!m) throw new Error(`${pkg}/SIZE has no ${what}`);
  return m.slice(1).map(Number);
};
const [mainRaw, mainGzip] = grab(/^agentmem_bg\.wasm: (\d+) bytes raw, (\d+) bytes gzip/m, "main module size");
const [, idsGzip] = grab(/^agentmem-supabase\/ids download \(wasm \+ JS\): (\d+) bytes raw, (\d+) bytes gzip/m, "ids download size");
const n = (x) => x.toLocaleString("en-US");
const figures = {
  "main-wasm": `${n(mainRaw)} bytes raw / ${n(mainGzip)} gzip`,
  "ids-download": `${(idsGzip / 1000).toFixed(1)} KB`,
};

const file = `${root}README.md`;
const text = readFileSync(file, "utf8");
const stale = [];
const unknown = [];

/** The table a <!-- bench: … --> marker names, from the committed report. */
function benchTable(spec) {
  // " | " separates the parts; the row pattern, last, may hold "|" of its own.
  const [report, heading, ...pattern] = spec.split(" | ").map((x) => x.trim());
  const rows = pattern.join(" | ");
  const lines = readFileSync(`${root}${report}`, "utf8").split("\n");
  const at = lines.findIndex((l) => l.startsWith(`## ${heading}`));
  if (at < 0) throw new Error(`${report} has no section "## ${heading}"`);
  const start = lines.findIndex((l, i) => i > at && l.startsWith("|"));
  const next = lines.findIndex((l, i) => i > at && l.startsWith("## "));
  if (start < 0 || (next >= 0 && start > next)) throw new Error(`${report}: no table under "## ${heading}"`);
  let end = start;
  while (end < lines.length && lines[end].startsWith("|")) end += 1;
  const [head, rule, ...body] = lines.slice(start, end);
  const keep = rows ? body.filter((l) => new RegExp(rows).test(l)) : body;
  if (keep.length === 0) throw new Error(`${report}: no row of "## ${heading}" matches ${rows}`);
  return `\n${[head, rule, ...keep].join("\n")}\n`;
}
const benched = text.replace(/(<!-- bench: ([^>]*?) -->)([\s\S]*?)(<!-- \/bench -->)/g, (all, open, spec, value, close) => {
  const table = benchTable(spec);
  if (value !== table) stale.push(`bench table "${spec}" differs from the report`);
  return `${open}${table}${close}`;
});
const written = benched.replace(/(<!-- figure: ([\w-]+) -->)([\s\S]*?)(<!-- \/figure -->)/g, (all, open, name, value, close) => {
  if (!(name in figures)) {
    unknown.push(name);
    return all;
  }
  if (value !== figures[name]) stale.push(`${name}: README says "${value}", the build "${figures[name]}"`);
  return `${open}${figures[name]}${close}`;
});
if (unknown.length) throw new Error(`README.md names figures this script does not make: ${unknown.join(", ")}`);
const missing = Object.keys(figures).filter((f) => !text.includes(`<!-- figure: ${f} -->`));
if (missing.length) throw new Error(`README.md no longer shows: ${missing.join(", ")}`);
if (process.argv.includes("--check")) {
  if (stale.length) {
    console.error(`README.md's figures are stale (run node scripts/readme-figures.mjs):\n  ${stale.join("\n  ")}`);
    process.exit(1);
  }
  console.log(`README.md's figures match the build and the bench report: ${Object.values(figures).join("; ")}`);
} else {
  writeFileSync(file, written);
  console.log(stale.length ? `README.md: ${stale.length} figure(s) rewritten` : "README.md's figures were current");
}
