#!/usr/bin/env node
// @ts-check
// Puts the SQL this package needs into a Supabase project: `copy` writes it into the
// project's supabase/migrations (for `supabase db push`), `print` writes it to stdout
// (for the dashboard's SQL editor). The files ship in the package under supabase/.
// `--only` takes the parts a project uses; each part's file says what it needs in its
// header (`-- Needs:`), and those files come along.
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

// The parts a project can take (--only), each one migration file, by its name without the
// version. The tenancy file comes with every part; the others a part needs (pgvector's
// extensions file, contractors for conversations) come from its header's `-- Needs:`.
/** @type {Record<string, { file: string, what: string }>} */
const PARTS = {
  langgraph: { file: "langgraph_checkpoints.sql", what: "LangGraph checkpoints: AgentmemSaver (agentmem-supabase/langgraph)" },
  store: { file: "langgraph_store.sql", what: "LangGraph long-term memory: AgentmemStore (agentmem-supabase/langgraph)" },
  memories: { file: "agent_memories.sql", what: "memory tools over pgvector: MemoryTools" },
  conversations: { file: "unified_conversations.sql", what: "COIA unified conversation memory: UnifiedStateManager" },
  contractors: { file: "contractors.sql", what: "COIA contractor leads and contractors: ContractorStore" },
  workflow: { file: "workflow_agent_states.sql", what: "workflow agent states: WorkflowStateStore" },
  research: { file: "research_sessions.sql", what: "TK9 research sessions and drafts: ResearchStore" },
};
const ALWAYS = "tenancy.sql";

const usage = `Usage: agentmem-sql <command> [options]

Commands:
  copy     copy the migrations into ./supabase/migrations with today's version
           prefixes, then apply them with \`supabase db push\` (never overwrites a file;
           files already there with the same content are skipped)
  print    print the migrations, in order, as one SQL script (paste it into the
           dashboard's SQL editor, or pipe it to psql); it shows no result rows
  list     list the files
  parts    list the parts (--only), what each creates and what it needs

Options:
  --only <parts>  only these parts and what they need, comma-separated:
                  ${Object.keys(PARTS).join(", ")}
                  (default: every part); e.g. --only langgraph,store
  --with <name>   also include an optional file: ${Object.keys(OPTIONAL).join(", ")} (repeatable)
  --dir <path>    copy: the migrations folder (default: supabase/migrations)
  --help          this text

${pkg.name} ${pkg.version}`;

/**
 * @typedef {{ command: string | undefined, with: string[], only: string[] | null, dir: string }} Args
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
  if (argv.some((a) => a === "--help" || a === "-h" || a === "help")) return { command: "help", with: [], only: null, dir: "" };
  /** @type {Args} */
  const args = { command: argv[0], with: [], only: null, dir: "supabase/migrations" };
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--with" || a === "--dir" || a === "--only") {
      const value = argv[++i];
      if (value === undefined) fail(`${a} needs a value`);
      if (a === "--dir") args.dir = value;
      else if (a === "--only") {
        for (const part of value.split(",").map((p) => p.trim()).filter(Boolean)) {
          if (!Object.hasOwn(PARTS, part)) fail(`unknown part "${part}"; expected one of: ${Object.keys(PARTS).join(", ")}`);
          (args.only ??= []).push(part);
        }
        if (args.only === null) fail("--only needs at least one part");
      } else if (Object.hasOwn(OPTIONAL, value)) args.with.push(value); // not a name of Object.prototype
      else fail(`unknown optional file "${value}"; expected one of: ${Object.keys(OPTIONAL).join(", ")}`);
    } else {
      fail(`unknown argument "${a}"\n\n${usage}`);
    }
  }
  return args;
}

/**
 * @typedef {{ name: string, from: string, text: string }} Source a file: its name without
 *   version, where it is in the package, its SQL
 */

/**
 * A header field of an SQL file (`-- Creates:`, `-- Needs:`), its lines joined.
 * @param {string} text
 * @param {string} field
 */
function header(text, field) {
  const lines = text.split("\n");
  const at = lines.findIndex((l) => l.startsWith(`-- ${field}:`));
  if (at < 0) return "";
  const out = [lines[at].slice(field.length + 4)];
  for (const l of lines.slice(at + 1)) {
    if (!/^-- {2,}\S/.test(l)) break; // a continuation is indented under the field's text
    out.push(l.slice(2));
  }
  return out.map((l) => l.trim()).join(" ");
}

/**
 * The migrations of the package that `text` names in its `-- Needs:` header, by name
 * without version (what Supabase itself provides, named there too, is not one).
 * @param {string} text
 */
function needs(text) {
  const names = new Set(migrations().map((f) => f.name));
  return [...header(text, "Needs").matchAll(/\b\d{14}_([a-z]\w*\.sql)/g)].map((m) => m[1]).filter((n) => names.has(n));
}

/** Every migration of the package, in order. @returns {Source[]} */
function migrations() {
  const dir = new URL("migrations/", here);
  const files = readdirSync(dir).filter((f) => /^\d+_.+\.sql$/.test(f)).sort();
  return files.map((f) => ({ name: f.replace(/^\d+_/, ""), from: `supabase/migrations/${f}`, text: readFileSync(new URL(f, dir), "utf8") }));
}

/**
 * The files to install, in order: every migration, or those of the parts in `only` and
 * what they need; then the optional files (which need migrations too).
 * @param {string[]} withOptional
 * @param {string[] | null} only
 * @returns {Source[]}
 */
function sources(withOptional, only) {
  const all = migrations();
  const optional = withOptional.map((key) => {
    const f = OPTIONAL[key];
    return { name: f, from: `supabase/optional/${f}`, text: readFileSync(new URL(`optional/${f}`, here), "utf8") };
  });
  if (only === null) return [...all, ...optional];
  const byName = new Map(all.map((f) => [f.name, f]));
  /** @type {Set<string>} */
  const chosen = new Set();
  /** @param {string} name @param {string} why */
  const take = (name, why) => {
    if (chosen.has(name)) return;
    const f = byName.get(name);
    if (f === undefined) fail(`${why} needs ${name}, which this package does not have (a bug: please report it)`);
    chosen.add(name);
    for (const n of needs(f.text)) take(n, f.from);
  };
  take(ALWAYS, "every part");
  for (const part of only) take(PARTS[part].file, `--only ${part}`);
  for (const f of optional) for (const n of needs(f.text)) take(n, f.from);
  return [...all.filter((f) => chosen.has(f.name)), ...optional];
}

/**
 * YYYYMMDDHHMMSS (UTC), the Supabase CLI's migration version format.
 * @param {number} ms
 */
function version(ms) {
  return new Date(ms).toISOString().replace(/[-:T]/g, "").slice(0, 14);
}

/** @param {Args} args */
function copy({ dir, with: withOptional, only }) {
  const files = sources(withOptional, only);
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

/**
 * The top-level statements of an SQL script, each with the text before it (whitespace and
 * comments). Reads quotes, quoted names, comments and dollar quotes, so a `;` inside a
 * function body or a string does not end a statement.
 * @param {string} sql
 * @returns {{ lead: string, body: string }[]}
 */
function statements(sql) {
  /** @type {{ lead: string, body: string }[]} */
  const out = [];
  let start = 0;
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i];
    if (c === "-" && sql[i + 1] === "-") {
      const end = sql.indexOf("\n", i);
      i = end < 0 ? n : end + 1;
    } else if (c === "/" && sql[i + 1] === "*") {
      let depth = 1; // Postgres block comments nest
      i += 2;
      while (i < n && depth > 0) {
        if (sql.startsWith("/*", i)) { depth++; i += 2; } else if (sql.startsWith("*/", i)) { depth--; i += 2; } else i++;
      }
    } else if (c === "'" || c === '"') {
      i++;
      while (i < n) {
        if (sql[i] === c && sql[i + 1] === c) i += 2;
        else if (sql[i] === c) { i++; break; } else i++;
      }
    } else if (c === "$" && !/[\w$]/.test(sql[i - 1] ?? " ")) {
      const tag = sql.slice(i).match(/^\$(?:[A-Za-z_][\w]*)?\$/)?.[0];
      if (tag === undefined) { i++; continue; }
      const end = sql.indexOf(tag, i + tag.length);
      i = end < 0 ? n : end + tag.length;
    } else if (c === ";") {
      out.push(split(sql.slice(start, i + 1)));
      i++;
      start = i;
    } else i++;
  }
  if (start < n) out.push(split(sql.slice(start)));
  return out;
}

/**
 * A statement's text as [what comes before its first word: whitespace and comments, the rest].
 * @param {string} text
 */
function split(text) {
  const lead = text.match(/^(?:\s+|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)*/)?.[0] ?? "";
  return { lead, body: text.slice(lead.length) };
}

/**
 * The script with each top-level `select` (the migrations call their grant and protect
 * helpers that way) run as a `do` block instead, with `perform`: the same calls, in the
 * same order, in the same session, but no result rows for psql or the SQL editor to show.
 * @param {string} sql
 */
function silent(sql) {
  const TAG = "$agentmem_print$";
  return statements(sql).map(({ lead, body }) => {
    const select = body.match(/^select\b/i);
    if (select === null) return lead + body;
    if (body.includes(TAG)) fail(`cannot print ${body.slice(0, 60)}…: it contains ${TAG}`);
    const call = body.replace(/;\s*$/, "");
    return `${lead}do ${TAG} begin perform${call.slice(select[0].length)}; end ${TAG};`;
  }).join("");
}

/** @param {Args} args */
function print({ with: withOptional, only }) {
  for (const f of sources(withOptional, only)) {
    const text = silent(f.text);
    process.stdout.write(`-- ${pkg.name} ${pkg.version}: ${f.from}\n${text.endsWith("\n") ? text : `${text}\n`}\n`);
  }
}

/** @param {Args} args */
function list({ with: withOptional, only }) {
  const root = new URL("..", import.meta.url).pathname;
  for (const f of sources(withOptional, only)) process.stdout.write(`${relative(process.cwd(), join(root, f.from))}\n`);
}

/** What each part is, its file, what it creates and needs (from the file's header). */
function parts() {
  const byName = new Map(migrations().map((f) => [f.name, f]));
  const base = [ALWAYS, ...new Set(Object.values(PARTS).flatMap((p) => needs(byName.get(p.file)?.text ?? "")))]
    .filter((name, i, all) => all.indexOf(name) === i && !Object.values(PARTS).some((p) => p.file === name));
  const show = (/** @type {string} */ label, /** @type {string} */ what, /** @type {Source | undefined} */ f) => {
    if (f === undefined) fail(`${label}: its file is missing from this package (a bug: please report it)`);
    const deps = needs(f.text).map((n) => Object.entries(PARTS).find(([, p]) => p.file === n)?.[0] ?? n.replace(/\.sql$/, ""));
    process.stdout.write(`${label}\n  ${what}\n  file: ${f.from}\n  creates: ${header(f.text, "Creates").replace("listed below", "listed in the file")}\n  needs: ${deps.length > 0 ? deps.join(", ") : "nothing of agentmem's"}\n\n`);
  };
  for (const [name, part] of Object.entries(PARTS)) show(name, part.what, byName.get(part.file));
  for (const name of base) {
    const users = Object.entries(PARTS).filter(([, p]) => needs(byName.get(p.file)?.text ?? "").includes(name)).map(([n]) => n);
    const label = `${name.replace(/\.sql$/, "")} (comes with ${name === ALWAYS ? "every part" : users.join(", ")})`;
    show(label, name === ALWAYS ? "who a request acts for; the grants and row-level security of every part" : "what those parts need", byName.get(name));
  }
}

const args = parse(process.argv.slice(2));
switch (args.command) {
  case "copy": copy(args); break;
  case "print": print(args); break;
  case "list": list(args); break;
  case "parts": parts(); break;
  case "help": case undefined: process.stdout.write(`${usage}\n`); break;
  default: fail(`unknown command "${args.command}"\n\n${usage}`);
}
