#!/usr/bin/env node
// @ts-check
// Puts the SQL this package needs into a Supabase project: `copy` writes it into the
// project's supabase/migrations (for `supabase db push`), `print` writes it to stdout
// (for the dashboard's SQL editor). The files ship in the package under supabase/.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import process from "node:process";

const here = new URL("../supabase/", import.meta.url);
const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
/** @type {Record<string, string>} */
const OPTIONAL = {
  "deal-scoped": "langgraph_deal_scoped.sql",
  "postgres-saver": "langgraph_postgres_saver.sql",
};

const usage = `Usage: agentmem-sql <command> [options]

Commands:
  copy     copy the migrations into ./supabase/migrations with today's version
           prefixes, then apply them with \`supabase db push\` (never overwrites a file;
           files already there with the same content are skipped)
  print    print every migration, in order, as one SQL script (paste it into the
           dashboard's SQL editor, or pipe it to psql)
  list     list the files

Options:
  --with <name>   also include an optional file: ${Object.keys(OPTIONAL).join(", ")} (repeatable)
  --dir <path>    copy: the migrations folder (default: supabase/migrations)
  --help          this text

${pkg.name} ${pkg.version}`;

/**
 * @typedef {{ command: string | undefined, with: string[], dir: string }} Args
 */

/**
 * @param {string} message
 * @returns {never}
 */
function fail(message) {
  process.stderr.write(`agentmem-sql: ${message}\n`);
  process.exit(1);
}

/**
 * @param {string[]} argv
 * @returns {Args}
 */
function parse(argv) {
  // --help, -h or help anywhere on the line: the usage, whatever else is there.
  if (argv.some((a) => a === "--help" || a === "-h" || a === "help")) return { command: "help", with: [], dir: "" };
  /** @type {Args} */
  const args = { command: argv[0], with: [], dir: "supabase/migrations" };
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--with" || a === "--dir") {
      const value = argv[++i];
      if (value === undefined) fail(`${a} needs a value`);
      if (a === "--dir") args.dir = value;
      else if (Object.hasOwn(OPTIONAL, value)) args.with.push(value); // not a name of Object.prototype
      else fail(`unknown optional file "${value}"; expected one of: ${Object.keys(OPTIONAL).join(", ")}`);
    } else {
      fail(`unknown argument "${a}"\n\n${usage}`);
    }
  }
  return args;
}

/**
 * The files to install, in order: [name without version, text, where it comes from].
 * @param {string[]} withOptional
 */
function sources(withOptional) {
  const dir = new URL("migrations/", here);
  const files = readdirSync(dir).filter((f) => /^\d+_.+\.sql$/.test(f)).sort();
  const out = files.map((f) => ({ name: f.replace(/^\d+_/, ""), from: `supabase/migrations/${f}`, text: readFileSync(new URL(f, dir), "utf8") }));
  for (const key of withOptional) {
    const f = OPTIONAL[key];
    out.push({ name: f, from: `supabase/optional/${f}`, text: readFileSync(new URL(`optional/${f}`, here), "utf8") });
  }
  return out;
}

/**
 * YYYYMMDDHHMMSS (UTC), the Supabase CLI's migration version format.
 * @param {number} ms
 */
function version(ms) {
  return new Date(ms).toISOString().replace(/[-:T]/g, "").slice(0, 14);
}

/** @param {Args} args */
function copy({ dir, with: withOptional }) {
  const files = sources(withOptional);
  mkdirSync(dir, { recursive: true });
  const existing = readdirSync(dir);
  const versions = existing.map((f) => f.match(/^(\d{14})_/)?.[1]).filter(Boolean).sort();
  const todo = [];
  const conflicts = [];
  for (const f of files) {
    const there = existing.find((e) => e.replace(/^\d+_/, "") === `agentmem_${f.name}`);
    if (!there) todo.push(f);
    else if (readFileSync(join(dir, there), "utf8") !== f.text) conflicts.push(there);
    else process.stdout.write(`already there: ${join(dir, there)}\n`);
  }
  if (conflicts.length > 0) {
    fail(
      `refusing to write: ${conflicts.map((c) => join(dir, c)).join(", ")} differ from this package's version ` +
        `(${pkg.version}). Applied migrations are never edited; compare them with the package's supabase/ folder ` +
        `and write a new migration for the difference. Nothing was written.`,
    );
  }
  // After every migration already in the folder, so `supabase db push` applies these last.
  const last = versions.at(-1);
  const lastMs = last ? Date.UTC(+last.slice(0, 4), +last.slice(4, 6) - 1, +last.slice(6, 8), +last.slice(8, 10), +last.slice(10, 12), +last.slice(12, 14)) : 0;
  let at = Math.max(Math.floor(Date.now() / 1000) * 1000, lastMs + 1000);
  for (const f of todo) {
    const target = join(dir, `${version(at)}_agentmem_${f.name}`);
    if (existsSync(target)) fail(`${target} exists`);
    writeFileSync(target, f.text, { flag: "wx" });
    process.stdout.write(`wrote ${target} (${f.from})\n`);
    at += 1000;
  }
  if (todo.length > 0) {
    process.stdout.write(`\n${todo.length} migration(s) added. Apply them: supabase db push (or supabase migration up locally).\n`);
  } else {
    process.stdout.write("\nNothing to add: every migration is already in place.\n");
  }
}

/** @param {Args} args */
function print({ with: withOptional }) {
  for (const f of sources(withOptional)) {
    process.stdout.write(`-- ${pkg.name} ${pkg.version}: ${f.from}\n${f.text.endsWith("\n") ? f.text : `${f.text}\n`}\n`);
  }
}

/** @param {Args} args */
function list({ with: withOptional }) {
  const root = new URL("..", import.meta.url).pathname;
  for (const f of sources(withOptional)) process.stdout.write(`${relative(process.cwd(), join(root, f.from))}\n`);
}

const args = parse(process.argv.slice(2));
switch (args.command) {
  case "copy": copy(args); break;
  case "print": print(args); break;
  case "list": list(args); break;
  case "help": case undefined: process.stdout.write(`${usage}\n`); break;
  default: fail(`unknown command "${args.command}"\n\n${usage}`);
}
