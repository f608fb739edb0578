// agentmem against its peers from npm, side by side in one run (bench/run.sh runs it after
// scripts/stack.sh up and scripts/build.sh). Writes a Markdown report with ratios
// (agentmem ÷ peer: below 1 is better for agentmem) to bench/results/latest.md.
//
// Peers: @supabase/postgrest-js and @supabase/supabase-js (client size, import cost),
// npm uuid (uuid5), LangGraph's MemorySaver and PostgresSaver on its own tables over `pg`
// on the same Postgres (checkpoints). Network: every database-backed figure is measured at
// 0 ms (direct) and behind a delay proxy in front of BOTH Postgres and the gateway that adds the
// given delay in each direction, i.e. 2× per round trip.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import pg from "pg";
import { build } from "esbuild";
import { v5 as uuidV5 } from "uuid";
import { InMemoryStore, MemorySaver, emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { PostgresStore } from "@langchain/langgraph-checkpoint-postgres/store";
import { PostgrestClient } from "@supabase/postgrest-js";
import { createClient, MemoryTools, uuid5, uuid5Batch } from "agentmem-supabase";
import { AgentmemSaver, AgentmemStore } from "agentmem-supabase/langgraph";
import { delayProxy } from "./proxy.mjs";
// The transport the Node entry uses by default (not an export of the package).
const { nodeHttpFetch } = await import(new URL("./node-http.js", import.meta.resolve("agentmem-supabase")).href);
import { readStackEnv } from "../tests/support/env.mjs";
import { mintJwt } from "../tests/support/jwt.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const env = readStackEnv();
const require = createRequire(import.meta.url);
const QUICK = process.env.BENCH_QUICK === "1";
const DELAYS = (process.env.BENCH_DELAYS ?? "0,2,10").split(",").map(Number);
// Rounds of the 0-ms checkpoint rows, the concurrency and the CPU figures: on a shared
// 2-core machine one round's ratio moves by ±50%; the report gives the median round, with
// agentmem and the peer alternating which goes first.
const ROUNDS = QUICK ? 1 : Number(process.env.BENCH_ROUNDS ?? 3);
/** The median of `rounds` results, field by field (numbers only). */
const medianOf = (rounds) => Object.fromEntries(Object.keys(rounds[0]).map((k) => [k,
  typeof rounds[0][k] === "number" ? median(rounds.map((r) => r[k])) : medianOf(rounds.map((r) => r[k]))]));
/** Runs `a` and `b` `ROUNDS` times, alternating which goes first. */
async function alternating(a, b) {
  const as = [], bs = [];
  for (let r = 0; r < ROUNDS; r += 1) {
    if (r % 2 === 0) { as.push(await a()); bs.push(await b()); } else { bs.push(await b()); as.push(await a()); }
  }
  return { a: as, b: bs };
}
// BENCH_ONLY=concurrency,cpu runs only those sections (sizes, import, uuid5, agent, checkpoints,
// concurrency, cpu, floor, length, memory, store); the report then says so in its first line.
const ONLY = process.env.BENCH_ONLY ? process.env.BENCH_ONLY.split(",") : null;
const want = (section) => !ONLY || ONLY.includes(section);
const out = [];
const say = (line = "") => {
  out.push(line);
  console.log(line);
};

// -------------------------------------------------------------------------------- helpers
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const median = (xs) => pct(xs, 50);
const f = (x, digits = 2) => (x >= 100 ? x.toFixed(0) : x.toFixed(digits));
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
const ratio = (a, b) => (b > 0 ? `${(a / b).toFixed(2)}x` : "–");

async function timeIt(fn, n, warmup = Math.min(5, n)) {
  for (let i = 0; i < warmup; i += 1) await fn(i);
  const ms = [];
  for (let i = 0; i < n; i += 1) {
    const t = performance.now();
    await fn(i + warmup);
    ms.push(performance.now() - t);
  }
  return { p50: median(ms), p95: pct(ms, 95) };
}
const table = (head, rows) => {
  say(`| ${head.join(" | ")} |`);
  say(`|${head.map(() => " --- ").join("|")}|`);
  for (const r of rows) say(`| ${r.join(" | ")} |`);
  say();
};

// ------------------------------------------------------------------- 1. download size
async function bundle(name, source, platform = "browser") {
  const dir = mkdtempSync(join(tmpdir(), "agentmem-bench-"));
  const entry = join(dir, "entry.mjs");
  writeFileSync(entry, source);
  const result = await build({
    entryPoints: [entry], bundle: true, minify: true, format: "esm", platform, write: false,
    absWorkingDir: here, nodePaths: [join(here, "node_modules")], logLevel: "silent",
    loader: { ".wasm": "file" }, outdir: dir, conditions: ["browser"], preserveSymlinks: true,
  });
  let raw = 0, gz = 0;
  for (const file of result.outputFiles) {
    raw += file.contents.length;
    gz += gzipSync(file.contents, { level: 9 }).length;
  }
  return { name, raw, gz };
}

async function sizes() {
  const wasmFile = (name) => {
    const bytes = readFileSync(join(root, "pkg", name));
    return { raw: bytes.length, gz: gzipSync(bytes, { level: 9 }).length };
  };
  const wasm = wasmFile("agentmem_bg.wasm");
  const idsWasm = wasmFile("agentmem_ids_bg.wasm");
  // Each entry fetches its .wasm next to itself (esbuild leaves `new URL(…, import.meta.url)`
  // alone): it is downloaded with the bundle.
  const withWasm = (b, w) => ({ ...b, raw: b.raw + w.raw, gz: b.gz + w.gz });
  const rows = [
    withWasm(await bundle("agentmem, main entry", `export * from "agentmem-supabase";`), wasm),
    withWasm(await bundle("agentmem-supabase/ids, an app using only uuid5", `import { uuid5 } from "agentmem-supabase/ids"; console.log(uuid5("a", "dns"));`), idsWasm),
    withWasm(await bundle("agentmem-supabase/ids, every id helper", `export * from "agentmem-supabase/ids";`), idsWasm),
    await bundle("@supabase/postgrest-js", `export * from "@supabase/postgrest-js";`),
    await bundle("@supabase/supabase-js", `export * from "@supabase/supabase-js";`),
    await bundle("uuid (v5 only)", `import { v5 } from "uuid"; console.log(v5("a", v5.DNS));`),
  ];
  say("## Download size (esbuild bundle, minified; agentmem includes its .wasm)");
  say();
  const pgjs = rows[3].gz, sbjs = rows[4].gz, uuid = rows[5].gz;
  table(["bundle", "raw", "gzip", "vs postgrest-js", "vs supabase-js", "vs uuid"],
    rows.map((r) => [r.name, kb(r.raw), kb(r.gz), ratio(r.gz, pgjs), ratio(r.gz, sbjs), ratio(r.gz, uuid)]));
  return { wasmRaw: wasm.raw, wasmGz: wasm.gz };
}

// ------------------------------------------------------------------- 2. import cost
function importCost() {
  const runs = QUICK ? 3 : 9;
  const nodeImport = (spec) => {
    const ms = [];
    for (let i = 0; i < runs; i += 1) {
      const r = spawnSync(process.execPath, ["--preserve-symlinks", "--input-type=module", "-e",
        `const t = performance.now(); await import(${JSON.stringify(spec)}); console.log(performance.now() - t);`], { cwd: here, encoding: "utf8" });
      if (r.status !== 0) throw new Error(`node import ${spec}: ${r.stderr}`);
      ms.push(Number(r.stdout.trim()));
    }
    return median(ms);
  };
  const deno = join(root, "tools", "node_modules", ".bin", "deno");
  const denoImport = (url) => {
    const ms = [];
    for (let i = 0; i < runs; i += 1) {
      const r = spawnSync(deno, ["eval", "--quiet", `const t = performance.now(); await import(${JSON.stringify(url)}); console.log(performance.now() - t);`],
        { cwd: here, encoding: "utf8", env: { ...process.env, DENO_NO_UPDATE_CHECK: "1" } });
      if (r.status !== 0) throw new Error(`deno import ${url}: ${r.stderr}`);
      ms.push(Number(r.stdout.trim().split("\n").pop()));
    }
    return median(ms);
  };
  const pgjsFile = `file://${require.resolve("@supabase/postgrest-js").replace(/\.cjs$/, ".mjs").replace(/\.js$/, ".mjs")}`;
  const rows = [
    ["Node", nodeImport("agentmem-supabase"), nodeImport("@supabase/postgrest-js"), nodeImport("@supabase/supabase-js")],
    ["Node, agentmem-supabase/ids", nodeImport("agentmem-supabase/ids"), null, null],
    ["Deno", denoImport(`file://${join(root, "pkg", "deno.js")}`), denoImport(pgjsFile), null],
    ["Deno, agentmem-supabase/ids", denoImport(`file://${join(root, "pkg", "ids-deno.js")}`), null, null],
  ];
  say("## Import cost (median of fresh processes; module load + wasm instantiation)");
  say();
  table(["runtime", "agentmem", "postgrest-js", "supabase-js", "agentmem ÷ postgrest-js"],
    rows.map(([rt, a, p, s]) => [rt, `${f(a)} ms`, p === null ? "–" : `${f(p)} ms`, s === null ? "–" : `${f(s)} ms`, p === null ? "–" : ratio(a, p)]));
}

// ------------------------------------------------------------------- 3. uuid5
function uuid5s() {
  const names = Array.from({ length: 1000 }, (_, i) => `lead-${i}`);
  const rounds = QUICK ? 20 : 200;
  const rate = (fn) => {
    fn();
    const t = performance.now();
    for (let r = 0; r < rounds; r += 1) fn();
    return (rounds * names.length) / ((performance.now() - t) / 1000);
  };
  const single = rate(() => { for (const n of names) uuid5(n, "dns"); });
  const batch = rate(() => uuid5Batch(names, "dns"));
  const npm = rate(() => { for (const n of names) uuidV5(n, uuidV5.DNS); });
  if (uuid5("python.org", "dns") !== uuidV5("python.org", uuidV5.DNS)) throw new Error("uuid5 disagrees with npm uuid");
  say("## uuid5 (Node, ids per second; higher is better)");
  say();
  table(["call", "agentmem", "npm uuid v5", "agentmem ÷ uuid"], [
    ["one id per call", `${f(single / 1000, 0)}k/s`, `${f(npm / 1000, 0)}k/s`, ratio(single, npm)],
    ["uuid5Batch, per id", `${f(batch / 1000, 0)}k/s`, `${f(npm / 1000, 0)}k/s`, ratio(batch, npm)],
  ]);
}

// ------------------------------------------------------------------- 4. checkpoints
const message = (i, size) => ({ lc: 1, type: "constructor", id: ["langchain_core", "messages", "HumanMessage"], kwargs: { content: `m${i} `.padEnd(size, "x") } });
function checkpointOf(step, size, prev) {
  const values = size === "small"
    ? { count: step, note: `step ${step}` }
    : { messages: Array.from({ length: 40 }, (_, i) => message(i, 1350)), count: step };
  // Large: the messages were written once, at version 1, and every later checkpoint still
  // holds them (its channel_versions point at that version), so reads carry the ≈55 KB.
  const versions = size === "large" && prev ? { messages: 1, count: step } : Object.fromEntries(Object.keys(values).map((k) => [k, step]));
  return {
    checkpoint: { ...emptyCheckpoint(), id: uuid6(step), channel_values: values, channel_versions: versions, versions_seen: { node: { ...versions } } },
    newVersions: size === "large" && prev ? { count: step } : versions,
  };
}
const meta = (step) => ({ source: "loop", step, parents: {} });

/** Puts n checkpoints; returns the configs of the first and the last. */
async function fill(saver, thread, n, size) {
  let config = { configurable: { thread_id: thread, checkpoint_ns: "" } };
  let first;
  for (let s = 1; s <= n; s += 1) {
    const { checkpoint, newVersions } = checkpointOf(s, size, s > 1);
    config = await saver.put(config, checkpoint, meta(s), newVersions);
    first ??= config;
  }
  return { first, last: config };
}

async function opsFor(saver, size, n, label) {
  const thread = `bench-${label}-${size}-${crypto.randomUUID()}`;
  const filled = await fill(saver, thread, 12, size);
  let config = filled.last;
  let step = 100;
  const put = await timeIt(async () => {
    step += 1;
    const { checkpoint, newVersions } = checkpointOf(step, size, true);
    config = await saver.put(config, checkpoint, meta(step), newVersions);
  }, n);
  // Pending writes go to the thread's first checkpoint: the latest one (getTuple, list)
  // keeps the few writes a step leaves, and reading the first shows the cost of many.
  const putWrites = await timeIt((i) => saver.putWrites(filled.first, [["count", i], ["note", "w"]], `task-${i}`), n);
  // Each row measures what its name says: a large read returns the 40 messages.
  const expected = size === "large" ? 40 : undefined;
  const carries = (tuple) => {
    if (tuple?.checkpoint.channel_values.messages?.length !== expected) {
      throw new Error(`${label} ${size}: the checkpoint read carries ${tuple?.checkpoint.channel_values.messages?.length} messages, not ${expected}`);
    }
  };
  carries(await saver.getTuple({ configurable: { thread_id: thread, checkpoint_ns: "" } }));
  const getTuple = await timeIt(() => saver.getTuple({ configurable: { thread_id: thread, checkpoint_ns: "" } }), n);
  const getTupleWrites = await timeIt(() => saver.getTuple(filled.first), n);
  const list = await timeIt(async () => {
    let k = 0;
    for await (const tuple of saver.list({ configurable: { thread_id: thread, checkpoint_ns: "" } }, { limit: 10 })) {
      if (k === 0) carries(tuple);
      k += 1;
    }
    if (k !== 10) throw new Error(`list gave ${k}`);
  }, n);
  return { put, putWrites, getTuple, getTupleWrites, list };
}

async function checkpoints(ctx) {
  say("## Checkpoints: p50 / p95 per operation (ms; lower is better)");
  say();
  say("AgentmemSaver: one HTTP request per operation through the gateway (PostgREST-compatible), as a signed-in user with RLS. PostgresSaver: LangGraph's own saver over `pg`, on its own tables in the same Postgres, as the superuser (no RLS). Small: two tiny channels; large: 40 messages (≈55 KB) written once and carried by every later checkpoint, only `count` changing per put (each put sends the checkpoint and one small blob; getTuple and list return the 55 KB, checked). Pending writes (putWrites) go to the first checkpoint of the thread, so getTuple and list read checkpoints with the few writes a step leaves; the last row of each size reads the checkpoint holding all of them." + ` At 0 ms every figure is the median of ${ROUNDS} rounds (the ratio: of the rounds' ratios).`);
  say();
  const rows = [];
  for (const delay of DELAYS) {
    const { agentmem, postgres, close } = await ctx.savers(delay);
    const n = delay === 0 ? (QUICK ? 30 : 200) : delay <= 2 ? (QUICK ? 10 : 60) : (QUICK ? 5 : 20);
    for (const size of ["small", "large"]) {
      // Several rounds at 0 ms only: behind the delay proxy the network dominates and one
      // round is steady.
      const rounds = delay === 0 ? await alternating(() => opsFor(agentmem, size, n, "am"), () => opsFor(postgres, size, n, "pg"))
        : { a: [await opsFor(agentmem, size, n, "am")], b: [await opsFor(postgres, size, n, "pg")] };
      const a = medianOf(rounds.a), p = medianOf(rounds.b);
      const m = delay === 0 ? await opsFor(new MemorySaver(), size, n, "mem") : null;
      for (const op of ["put", "putWrites", "getTuple", "list", "getTupleWrites"]) {
        // The ratio of each round, then the median: the two savers of one round share its conditions.
        const r = median(rounds.a.map((ra, i) => ra[op].p50 / rounds.b[i][op].p50));
        rows.push([`${delay} ms`, size, { list: "list(10)", getTupleWrites: `getTuple, ${2 * n} pending writes` }[op] ?? op, `${f(a[op].p50)} / ${f(a[op].p95)}`, `${f(p[op].p50)} / ${f(p[op].p95)}`,
          m ? `${f(m[op].p50, 3)}` : "–", `${r.toFixed(2)}x`]);
      }
    }
    await close();
  }
  table(["one-way delay", "size", "operation", "AgentmemSaver", "PostgresSaver", "MemorySaver", "agentmem ÷ PostgresSaver (p50)"], rows);
}

/** CPU time (ms) used so far by each process whose name `match`es: pid → ms (Linux /proc;
 *  empty elsewhere). utime and stime are fields 14 and 15 of /proc/<pid>/stat, in clock
 *  ticks (100 per second on Linux). */
function processCpuMs(match) {
  const used = new Map();
  let pids = [];
  try {
    pids = readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  } catch {
    return used;
  }
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (!match(stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")), pid, fields[1])) continue;
      used.set(pid, (Number(fields[11]) + Number(fields[12])) * 10);
    } catch {
      // The process ended while we read.
    }
  }
  return used;
}

/** The stack's postmaster (set by context()): its processes are "Postgres" below, not those
 *  of another Postgres on the machine. Null: every process named postgres. */
let postmaster = null;

/** CPU used so far (ms): this process (the client), the gateway's and Postgres's processes. */
const cpuNow = () => ({
  client: (({ user, system }) => (user + system) / 1000)(process.cpuUsage()),
  gateway: processCpuMs((name) => name.startsWith("agentmem-gate")),
  postgres: processCpuMs((name, pid, ppid) => name === "postgres" && (postmaster === null || pid === postmaster || ppid === postmaster)),
});

/** The CPU (ms) each side used since `before` (a cpuNow()): per process, what it added; a
 *  process started since counts whole; one that ended since counts nothing (a sum of the
 *  processes' totals would go back by its whole life: a pool's connection closing). */
function cpuSince(before) {
  const now = cpuNow();
  const grew = (was, is) => [...is].reduce((ms, [pid, t]) => ms + t - (was.get(pid) ?? 0), 0);
  return { client: now.client - before.client, gateway: grew(before.gateway, now.gateway), postgres: grew(before.postgres, now.postgres) };
}

async function concurrency(ctx) {
  const { agentmem, postgres, close } = await ctx.savers(0);
  const seconds = QUICK ? 1 : 3;
  const run = async (saver, label) => {
    let ops = 0;
    const until = performance.now() + seconds * 1000;
    const before = cpuNow();
    await Promise.all(Array.from({ length: 16 }, async (_, w) => {
      const thread = `bench-conc-${label}-${w}-${crypto.randomUUID()}`;
      let config = (await fill(saver, thread, 1, "small")).last;
      let step = 1;
      while (performance.now() < until) {
        step += 1;
        const { checkpoint, newVersions } = checkpointOf(step, "small", true);
        config = await saver.put(config, checkpoint, meta(step), newVersions);
        await saver.getTuple({ configurable: { thread_id: thread, checkpoint_ns: "" } });
        ops += 2;
      }
    }));
    const used = cpuSince(before);
    const per = (k) => used[k] / ops;
    return { rate: ops / seconds, client: per("client"), gateway: per("gateway"), postgres: per("postgres") };
  };
  const rounds = await alternating(() => run(agentmem, "am"), () => run(postgres, "pg"));
  const a = medianOf(rounds.a), p = medianOf(rounds.b);
  const rateRatio = median(rounds.a.map((ra, i) => ra.rate / rounds.b[i].rate));
  // The floor of any saver answering each operation with one request through the gateway:
  // the same 16 workers, each operation one bare exchange (a one-statement RPC).
  const exchange = gatewayExchange(ctx.gatewayPort, await ctx.newUser());
  const bareSaver = { put: async (config) => (await exchange(), config), getTuple: exchange };
  const bareRounds = [];
  for (let r = 0; r < ROUNDS; r += 1) bareRounds.push(await run(bareSaver, "floor"));
  const bare = medianOf(bareRounds);
  await close();
  say("## Concurrency: 16 writers, small put + getTuple, 0 ms (operations per second; higher is better)");
  say();
  say(`With the CPU each operation cost every process on the machine (ms per operation; the client, the gateway, all Postgres backends): on 2 cores the sum bounds throughput. Medians of ${ROUNDS} rounds of ${seconds} s (the rate ratio: of the rounds' ratios). The floor row: the same 16 workers where each operation is one bare exchange with the gateway (a one-statement RPC as a signed-in user, PostgREST's transaction around it), the least any saver answering each operation with one request through the gateway can cost.`);
  say();
  const cpuCells = (r) => [`${f(r.client, 3)}`, r === p ? "–" : `${f(r.gateway, 3)}`, `${f(r.postgres, 3)}`, `${f(r.client + r.gateway + r.postgres, 3)}`];
  table(["saver", "ops/s", "client CPU", "gateway CPU", "Postgres CPU", "total CPU"], [
    ["AgentmemSaver", `${f(a.rate, 0)}/s`, ...cpuCells(a)],
    ["PostgresSaver", `${f(p.rate, 0)}/s`, ...cpuCells(p)],
    ["agentmem ÷ PostgresSaver", `${rateRatio.toFixed(2)}x`, ratio(a.client, p.client), "", ratio(a.postgres, p.postgres), ratio(a.client + a.gateway + a.postgres, p.client + p.postgres)],
    ["one bare request per operation (floor)", `${f(bare.rate, 0)}/s`, ...cpuCells(bare)],
    ["floor ÷ PostgresSaver", `${(bare.rate / p.rate).toFixed(2)}x`, ratio(bare.client, p.client), "", ratio(bare.postgres, p.postgres), ratio(bare.client + bare.gateway + bare.postgres, p.client + p.postgres)],
  ]);
}

async function cpu(ctx) {
  const { agentmem, postgres, close } = await ctx.savers(0);
  const n = QUICK ? 100 : 400;
  const measure = async (saver, label) => {
    const thread = `bench-cpu-${label}-${crypto.randomUUID()}`;
    let config = (await fill(saver, thread, 2, "small")).last;
    await opsFor(saver, "small", 5, `${label}-warm`);
    const before = process.cpuUsage();
    for (let s = 10; s < 10 + n; s += 1) {
      const { checkpoint, newVersions } = checkpointOf(s, "small", true);
      config = await saver.put(config, checkpoint, meta(s), newVersions);
      await saver.getTuple({ configurable: { thread_id: thread, checkpoint_ns: "" } });
    }
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1000 / (2 * n);
  };
  const rounds = await alternating(() => measure(agentmem, "am"), () => measure(postgres, "pg"));
  const a = median(rounds.a), p = median(rounds.b);
  await close();
  say("## Client CPU per small operation (Node process CPU time ÷ operations, put + getTuple)");
  say();
  say(`Medians of ${ROUNDS} rounds of ${n} put + getTuple.`);
  say();
  table(["AgentmemSaver", "PostgresSaver", "agentmem ÷ PostgresSaver"], [[`${f(a, 3)} ms`, `${f(p, 3)} ms`, ratio(a, p)]]);
}

/** The floor under any one-request operation at 0 ms: one exchange with each server and
 *  nothing else, so the gap in the small-checkpoint rows can be split into transport and
 *  agentmem's own work. */
async function floor(ctx) {
  const n = QUICK ? 100 : 500;
  const user = await ctx.newUser();
  // The same one-statement SQL function on both sides, so only the transport differs; over
  // HTTP with the transport AgentmemSaver uses in Node (the package's node-http.js).
  const get = gatewayExchange(ctx.gatewayPort, user);
  const db = new pg.Client({ connectionString: env.AGENTMEM_DB_URL });
  await db.connect();
  const measure = async (fn) => {
    const before = process.cpuUsage();
    const t = await timeIt(fn, n);
    const used = process.cpuUsage(before);
    return { ...t, cpu: (used.user + used.system) / 1000 / (n + Math.min(5, n)) };
  };
  const h = await measure(get);
  const q = await measure(() => db.query("select agent_memory_dimensions()"));
  await db.end();
  say("## Transport floor at 0 ms: one exchange, no saver (p50 ms; client CPU per exchange)");
  say();
  say("The same one-statement SQL function called once: over HTTP through the gateway (agentmem's Node transport, keep-alive, as a signed-in user) and over `pg` (as the superuser). Every AgentmemSaver operation costs at least the first; a PostgresSaver operation costs one to several of the second.");
  say();
  table(["exchange", "p50", "p95", "client CPU"], [
    ["HTTP request via the gateway", f(h.p50), f(h.p95), `${f(h.cpu, 3)} ms`],
    ["pg query", f(q.p50), f(q.p95), `${f(q.cpu, 3)} ms`],
    ["ratio", ratio(h.p50, q.p50), "", ratio(h.cpu, q.cpu)],
  ]);
}

async function threadLength(ctx) {
  const { agentmem, postgres, close } = await ctx.savers(0);
  const lengths = QUICK ? [100, 300] : [100, 1000, 3000];
  const n = QUICK ? 10 : 50;
  const rows = [];
  for (const [label, saver] of [["AgentmemSaver", agentmem], ["PostgresSaver", postgres]]) {
    // One thread per length, all filled first, then measured in rounds that alternate the
    // order: the longest is not always the one read right after thousands of writes.
    const threads = {};
    for (const len of lengths) {
      threads[len] = `bench-len-${label}-${len}-${crypto.randomUUID()}`;
      let config = { configurable: { thread_id: threads[len], checkpoint_ns: "" } };
      for (let step = 1; step <= len; step += 1) {
        const { checkpoint, newVersions } = checkpointOf(step, "small", step > 1);
        config = await saver.put(config, checkpoint, meta(step), newVersions);
      }
    }
    const measured = Object.fromEntries(lengths.map((len) => [len, []]));
    for (let r = 0; r < ROUNDS; r += 1) {
      for (const len of r % 2 === 0 ? lengths : [...lengths].reverse()) {
        const configurable = { thread_id: threads[len], checkpoint_ns: "" };
        const get = await timeIt(() => saver.getTuple({ configurable }), n);
        const list = await timeIt(async () => {
          for await (const _ of saver.list({ configurable }, { limit: 10 }));
        }, n);
        measured[len].push({ get: get.p50, list: list.p50 });
      }
    }
    const at = Object.fromEntries(lengths.map((len) => [len, medianOf(measured[len])]));
    const first = at[lengths[0]];
    for (const len of lengths) {
      rows.push([label, String(len), f(at[len].get), f(at[len].list), ratio(at[len].get, first.get), ratio(at[len].list, first.list)]);
    }
  }
  await close();
  say(`## Reads by thread length (p50 ms, median of ${ROUNDS} rounds; the ratio is to the same saver at ${lengths[0]} checkpoints)`);
  say();
  table(["saver", "checkpoints in thread", "getTuple", "list(10)", "getTuple vs shortest", "list vs shortest"], rows);
}

// ------------------------------------------------------------------- 4b. one agent turn
/** What a user would write: a model node whose (scripted) model calls a tool for each user
 *  message and answers from the tool's result, LangGraph's prebuilt ToolNode, and back to the
 *  model; MessagesAnnotation's messages channel grows over the thread's turns. One turn is
 *  one `invoke` with the user's message: LangGraph reads the thread (getTuple), then stores
 *  5 checkpoints (the input, then after __start__, model, tools, model) and each task's writes. */
async function agentGraph() {
  const { END, MessagesAnnotation, START, StateGraph } = await import("@langchain/langgraph");
  const { ToolNode, toolsCondition } = await import("@langchain/langgraph/prebuilt");
  const { AIMessage, HumanMessage } = await import("@langchain/core/messages");
  const { tool } = await import("@langchain/core/tools");
  const lookup = tool(async ({ query }) => `Three vendors match "${query}": `.padEnd(480, "Acme Supply (4.6, net 30), Northwind (4.4, net 45), Contoso (4.1, net 15); "), {
    name: "lookup_vendors",
    description: "Finds vendors matching a query, with their rating and payment terms.",
    schema: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
  });
  let calls = 0;
  const model = async (state) => {
    const last = state.messages.at(-1);
    if (HumanMessage.isInstance(last)) {
      calls += 1;
      return { messages: [new AIMessage({ content: "", tool_calls: [{ id: `call_${calls}`, name: "lookup_vendors", args: { query: String(last.content) }, type: "tool_call" }],
        usage_metadata: { input_tokens: 40 * state.messages.length, output_tokens: 24, total_tokens: 40 * state.messages.length + 24 } })] };
    }
    return { messages: [new AIMessage({ content: `From the lookup: ${String(last.content).slice(0, 200)} I would start with Acme Supply.`,
      usage_metadata: { input_tokens: 40 * state.messages.length, output_tokens: 60, total_tokens: 40 * state.messages.length + 60 } })] };
  };
  const build = (checkpointer) => new StateGraph(MessagesAnnotation)
    .addNode("model", model)
    .addNode("tools", new ToolNode([lookup]))
    .addEdge(START, "model")
    .addConditionalEdges("model", toolsCondition, ["tools", END])
    .addEdge("tools", "model")
    .compile({ checkpointer });
  const userMessage = (turn) => new HumanMessage(`Turn ${turn}: which vendors can deliver 40 pallets of tile to the Elm Street job by Friday, and on what terms?`);
  return { build, userMessage };
}

/** Runs `turns` turns on a new thread; the time of each turn (ms). Then checks what a user
 *  would check: the thread's state holds every turn's 4 messages in order, and its history
 *  lists every checkpoint, newest first, each one's parent the next. */
async function agentThread(graph, saver, label, turns, durability) {
  const app = graph.build(saver);
  const config = { configurable: { thread_id: `bench-agent-${label}-${crypto.randomUUID()}` } };
  const ms = [];
  const before = cpuNow();
  for (let t = 1; t <= turns; t += 1) {
    const started = performance.now();
    await app.invoke({ messages: [graph.userMessage(t)] }, { ...config, ...(durability ? { durability } : {}) });
    ms.push(performance.now() - started);
  }
  const used = cpuSince(before);
  // CPU per turn of each side (the checks below excluded); at 0 ms no proxy runs in this
  // process, so "client" is LangGraph's and the saver's own work.
  ms.cpu = Object.fromEntries(Object.entries(used).map(([k, v]) => [k, v / turns]));
  const state = await app.getState(config);
  const kinds = state.values.messages.map((m) => m.getType()).join(",");
  const expected = Array.from({ length: turns }, () => "human,ai,tool,ai").join(",");
  if (kinds !== expected) throw new Error(`${label}: the thread's messages are ${kinds}`);
  state.values.messages.forEach((m, i) => {
    if (i % 4 === 0 && !String(m.content).startsWith(`Turn ${i / 4 + 1}:`)) throw new Error(`${label}: message ${i} is "${m.content}", out of order`);
  });
  const history = [];
  for await (const snapshot of app.getStateHistory(config)) history.push(snapshot);
  if (history.length !== 5 * turns) throw new Error(`${label}: the history has ${history.length} checkpoints, not ${5 * turns}`);
  history.forEach((s, i) => {
    const parent = history[i + 1];
    if (parent && s.parentConfig?.configurable?.checkpoint_id !== parent.config.configurable.checkpoint_id) throw new Error(`${label}: checkpoint ${i} of the history does not follow its parent`);
    if (parent && s.values.messages.length < parent.values.messages.length) throw new Error(`${label}: checkpoint ${i} has fewer messages than its parent`);
  });
  return ms;
}

async function agentTurns(ctx) {
  const graph = await agentGraph();
  const turns = 20;
  const admin = async (method) => {
    const res = await fetch(`http://127.0.0.1:${ctx.gatewayPort}/__gateway/requests`, { method, headers: { apikey: env.SUPABASE_SECRET_KEY } });
    if (res.status !== 200) throw new Error(`the gateway's request log: HTTP ${res.status} (start the stack with --test-fixtures or AGENTMEM_GATEWAY_ADMIN=1)`);
    return (await res.json()).count;
  };
  let statements = 0;
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (...args) {
    statements += 1;
    return query.apply(this, args);
  };
  const rows = [];
  const cpuRows = [];
  const trips = {};
  const user = await ctx.newUser();
  try {
    for (const durability of [undefined, "sync"]) {
      for (const delay of DELAYS) {
        const { agentmem, postgres, ports, close } = await ctx.savers(delay);
        const threads = QUICK ? 1 : delay === 0 ? ROUNDS : 2;
        // One bare round trip through the same proxies: a Postgres statement and an HTTP
        // request through the gateway, to count the round trips a turn waits for in sequence.
        if (delay > 0 && durability === undefined) trips[delay] = await bareRoundTrips(ports, user);
        const am = [], pgs = [], ratios = [];
        const cpus = { am: [], pg: [], floor: [], mem: [] };
        let requests = 0, sent = 0;
        for (let r = 0; r < threads; r += 1) {
          const runAm = async () => {
            await admin("DELETE");
            const t = await agentThread(graph, agentmem, "am", turns, durability);
            requests += await admin("GET");
            return t;
          };
          const runPg = async () => {
            const before = statements;
            const t = await agentThread(graph, postgres, "pg", turns, durability);
            sent += statements - before;
            return t;
          };
          const { a: [a], b: [p] } = r % 2 === 0 ? { a: [await runAm()], b: [await runPg()] } : await (async () => { const p = await runPg(); return { a: [await runAm()], b: [p] }; })();
          am.push(...a);
          pgs.push(...p);
          ratios.push(median(a) / median(p));
          cpus.am.push(a.cpu);
          cpus.pg.push(p.cpu);
        }
        const floorTurns = [];
        for (let r = 0; r < threads; r += 1) {
          const t = await agentThread(graph, new OneRequestFloorSaver(gatewayExchange(ports.gateway, user)), "floor", turns, durability);
          floorTurns.push(...t);
          cpus.floor.push(t.cpu);
        }
        await close();
        let mem = null;
        if (delay === 0) {
          mem = await agentThread(graph, new MemorySaver(), "mem", turns, durability);
          cpus.mem.push(mem.cpu);
        }
        if (delay === 0 && durability === undefined) cpuRows.push(...cpuPerTurn(cpus));
        const sequential = trips[delay] ? `${f(median(am) / trips[delay].http, 1)} / ${f(median(pgs) / trips[delay].pg, 1)}` : "–";
        rows.push([`${delay} ms`, durability ?? "default (async)", `${f(median(am))} / ${f(pct(am, 95))}`, `${f(median(pgs))} / ${f(pct(pgs, 95))}`,
          mem ? `${f(median(mem))} / ${f(pct(mem, 95))}` : "–", `${f(median(floorTurns))} / ${f(pct(floorTurns, 95))}`, `${f(requests / (threads * turns), 1)} / ${f(sent / (threads * turns), 1)}`, sequential, `${median(ratios).toFixed(2)}x`, ratio(median(floorTurns), median(pgs))]);
      }
    }
  } finally {
    pg.Client.prototype.query = query;
  }
  say("## One agent turn: a LangGraph graph with a tool call, p50 / p95 per turn (ms; lower is better)");
  say();
  say(`The graph a user writes: a model node (scripted: it calls a tool for each user message, then answers from the result), LangGraph's prebuilt ToolNode with one tool, back to the model; MessagesAnnotation's messages channel grows by 4 messages a turn over ${turns} turns on one thread. A turn is one \`invoke\` with the user's message: LangGraph reads the thread and stores 5 checkpoints (the input, then after each of __start__, model, tools, model) and each task's writes. The same graph on AgentmemSaver (through the gateway, as a signed-in user), PostgresSaver (over \`pg\`, as the superuser) and MemorySaver (LangGraph's own work, in this process). "One request per call" is the floor of any saver that answers each call with one request through the gateway: MemorySaver making one bare exchange with the gateway (a one-statement RPC, through the same proxy) before each getTuple, put and putWrites, so LangGraph's own work and the round trips it waits for, as it schedules a saver's calls, with nothing stored remotely. Durability: LangGraph's default ("async" in @langchain/langgraph 1.7.3: a step does not wait for its checkpoint, each put waits for the one before, the turn waits for all) and "sync" (each step waits for its checkpoint and writes). After every thread the bench checks that its state holds every turn's messages in order and its history lists all ${5 * turns} checkpoints, each one's parent the next. Round trips per turn: HTTP requests at the gateway's request log, or SQL statements sent by \`pg\`. Each ratio is the median of the threads' ratios (${QUICK ? 1 : ROUNDS} threads at 0 ms, ${QUICK ? 1 : 2} behind the proxy, alternating which saver goes first).`);
  say();
  table(["one-way delay", "durability", "AgentmemSaver", "PostgresSaver", "MemorySaver", "one request per call (floor)", "round trips per turn (agentmem / Postgres)", "turn ÷ one round trip (agentmem / Postgres)", "agentmem ÷ PostgresSaver (p50)", "floor ÷ PostgresSaver (p50)"], rows);
  const floors = DELAYS.filter((d) => trips[d]).map((d) => `${d} ms: ${f(trips[d].http)} ms over HTTP through the gateway, ${f(trips[d].pg)} ms for a Postgres statement`);
  if (floors.length) {
    say(`One bare round trip through the same proxies (p50; the column before the ratio divides each saver's p50 turn by its own): ${floors.join("; ")}. A turn waits for its read and its five puts one after the other (LangGraph chains the puts), so AgentmemSaver's floor is six of its round trips.`);
    say();
  }
  if (cpuRows.length) {
    say("## CPU per agent turn at 0 ms (ms per turn; lower is better)");
    say();
    say("The turns above at 0 ms, default durability: the CPU each side used per turn, medians of the threads: the bench's process (LangGraph and the saver's client; no proxy runs in it at 0 ms), the gateway (the local PostgREST-compatible stand-in; on Supabase, PostgREST) and the stack's Postgres processes, read from /proc (10 ms ticks) before and after each thread's 20 turns.");
    say();
    table(["saver", "client", "gateway", "Postgres", "total", "÷ PostgresSaver (total)"], cpuRows);
  }
}

/** The rows of the CPU-per-turn table: each saver's median client, gateway and Postgres CPU
 *  per turn over its threads, and its total against PostgresSaver's. */
function cpuPerTurn(cpus) {
  const med = (list) => ({ client: median(list.map((c) => c.client)), gateway: median(list.map((c) => c.gateway)), postgres: median(list.map((c) => c.postgres)) });
  const total = (c) => c.client + c.gateway + c.postgres;
  const pg = med(cpus.pg);
  return [["AgentmemSaver", med(cpus.am)], ["PostgresSaver", pg], ["MemorySaver", med(cpus.mem)], ["one request per call (floor)", med(cpus.floor)]]
    .map(([name, c]) => [name, f(c.client), f(c.gateway), f(c.postgres), f(total(c)), ratio(total(c), total(pg))]);
}

/** One bare exchange over HTTP through the gateway at `port`: a one-statement RPC as `user`,
 *  with agentmem's Node transport. */
function gatewayExchange(port, user) {
  const url = `http://127.0.0.1:${port}/rest/v1/rpc/agent_memory_dimensions`;
  const headers = { apikey: env.SUPABASE_ANON_KEY, authorization: `Bearer ${user.token}`, accept: "application/json" };
  return async () => {
    const res = await nodeHttpFetch(url, { method: "GET", headers });
    if (res.status !== 200) throw new Error(`round trip: HTTP ${res.status}`);
    await res.text();
  };
}

/** p50 of one bare exchange through the proxies at `ports`: a `select 1` over `pg` and a
 *  one-statement RPC over HTTP through the gateway (agentmem's Node transport, as `user`). */
async function bareRoundTrips(ports, user) {
  const u = new URL(env.AGENTMEM_DB_URL);
  u.port = String(ports.pg);
  const db = new pg.Client({ connectionString: u.toString() });
  await db.connect();
  const n = QUICK ? 10 : 40;
  const http = await timeIt(gatewayExchange(ports.gateway, user), n);
  const viaPg = await timeIt(() => db.query("select 1"), n);
  await db.end();
  return { http: http.p50, pg: viaPg.p50 };
}

/** MemorySaver that makes one bare exchange through the gateway before each call LangGraph
 *  waits on: the floor of any saver answering each call with one request through the
 *  gateway (LangGraph's own work, plus the round trips as LangGraph schedules a saver's
 *  calls), with nothing stored or read remotely. */
class OneRequestFloorSaver extends MemorySaver {
  constructor(exchange) {
    super();
    this.exchange = exchange;
  }
  async getTuple(config) {
    await this.exchange();
    return super.getTuple(config);
  }
  async put(config, checkpoint, metadata, newVersions) {
    await this.exchange();
    return super.put(config, checkpoint, metadata, newVersions);
  }
  async putWrites(config, writes, taskId) {
    await this.exchange();
    return super.putWrites(config, writes, taskId);
  }
}

// ------------------------------------------------------------------- 5. store
/** Bag-of-words vectors: the same deterministic embedder for every store. */
function bagOfWords(texts, dims = 384) {
  return texts.map((t) => {
    const v = new Array(dims).fill(0);
    for (const w of t.toLowerCase().split(/\W+/)) if (w) v[[...w].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7) % dims] += 1;
    return v;
  });
}

async function stores(ctx) {
  const dims = 384;
  const embed = async (texts) => bagOfWords(texts, dims);
  const index = { dims, embed, fields: ["text"] };
  // Round trips per call: HTTP requests (AgentmemStore) and SQL statements sent (PostgresStore,
  // BEGIN and COMMIT included), counted in this process.
  let statements = 0;
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (...args) {
    statements += 1;
    return query.apply(this, args);
  };
  const user = await ctx.newUser();
  const pgUrl = (port) => {
    const u = new URL(env.AGENTMEM_DB_URL);
    u.port = String(port);
    u.searchParams.set("options", "-c search_path=public,extensions");
    return u.toString();
  };
  const setup = new PostgresStore({ connectionOptions: pgUrl(ctx.pgPort), schema: "bench_postgres_store", index });
  await setup.setup();
  await setup.stop();
  const run = crypto.randomUUID().slice(0, 8);
  /** The rows on one store; `count()` reads the round trips so far. `modes`: the store has
   *  PostgresStore's search modes (text and hybrid rows; InMemoryStore has neither). */
  const ops = async (store, n, count, modes = true) => {
    const ns = ["bench", run, `s${Math.random().toString(36).slice(2, 8)}`];
    // 100 items in 10 namespaces, so that search and listNamespaces have something to do.
    for (let i = 0; i < 100; i += 1) await store.put([...ns, `n${i % 10}`], `seed-${i}`, { text: `note ${i} about ${["vendors", "pricing", "travel", "food"][i % 4]}` });
    const measured = {};
    const row = async (name, fn) => {
      const before = count();
      const t = await timeIt(fn, n);
      measured[name] = { ...t, requests: (count() - before) / (n + Math.min(5, n)) };
    };
    await row("put", (i) => store.put([...ns, "n0"], `k${i}`, { text: `a new note ${i} about vendors` }));
    await row("get", (i) => store.get([...ns, "n1"], `seed-${(i % 10) * 10 + 1}`));
    await row("search (query, limit 10)", () => store.search(ns, { query: "vendors pricing", limit: 10 }));
    if (modes) {
      // Full text (PostgresStore: over the whole value; AgentmemStore: over the indexed
      // field), and hybrid: both over the same 100 items, each with its own definition.
      const text = { query: "vendors", mode: "text", limit: 10 };
      const hybrid = { query: "vendors pricing", mode: "hybrid", vectorWeight: 0.5, limit: 10 };
      for (const options of [text, hybrid]) {
        const found = await store.search(ns, options);
        if (found.length !== 10 || typeof found[0].score !== "number") throw new Error(`${options.mode} search found ${found.length} scored items, not 10`);
      }
      await row("search (text, limit 10)", () => store.search(ns, text));
      await row("search (hybrid, limit 10)", () => store.search(ns, hybrid));
    }
    await row("listNamespaces", () => store.listNamespaces({ prefix: ns, limit: 100 }));
    await row("batch of 10 (5 get, 3 put, search, list)", (i) => store.batch([
      ...Array.from({ length: 5 }, (_, j) => ({ namespace: [...ns, `n${j}`], key: `seed-${j}` })),
      ...Array.from({ length: 3 }, (_, j) => ({ namespace: [...ns, "n9"], key: `b${i}-${j}`, value: { text: `batch note ${j}` } })),
      { namespacePrefix: ns, query: "travel", limit: 5 },
      { matchConditions: [{ matchType: "prefix", path: ns }], limit: 100 },
    ]));
    return measured;
  };
  const rows = [];
  for (const delay of DELAYS) {
    const pgp = await delayProxy(ctx.pgPort, delay);
    const gwp = await delayProxy(ctx.gatewayPort, delay);
    let requests = 0;
    const counting = (input, init) => {
      requests += 1;
      return nodeHttpFetch(input, init);
    };
    const agentmem = new AgentmemStore(createClient({ url: `http://127.0.0.1:${gwp.port}`, apiKey: env.SUPABASE_ANON_KEY, accessToken: user.token, fetch: counting }), { index });
    const postgres = new PostgresStore({ connectionOptions: pgUrl(pgp.port), schema: "bench_postgres_store", index, ensureTables: false });
    const n = delay === 0 ? (QUICK ? 20 : 100) : delay <= 2 ? (QUICK ? 5 : 30) : (QUICK ? 3 : 10);
    const rounds = delay === 0
      ? await alternating(() => ops(agentmem, n, () => requests), () => ops(postgres, n, () => statements))
      : { a: [await ops(agentmem, n, () => requests)], b: [await ops(postgres, n, () => statements)] };
    const a = medianOf(rounds.a), p = medianOf(rounds.b);
    const m = delay === 0 ? await ops(new InMemoryStore({ index: { dims, embeddings: { embedDocuments: embed, embedQuery: async (q) => (await embed([q]))[0] }, fields: ["text"] } }), n, () => 0, false) : null;
    for (const op of Object.keys(a)) {
      const r = median(rounds.a.map((ra, i) => ra[op].p50 / rounds.b[i][op].p50));
      rows.push([`${delay} ms`, op, `${f(a[op].p50)} / ${f(a[op].p95)}`, `${f(p[op].p50)} / ${f(p[op].p95)}`, m?.[op] ? f(m[op].p50, 3) : "–",
        `${f(a[op].requests, 1)} / ${f(p[op].requests, 1)}`, `${r.toFixed(2)}x`]);
    }
    await postgres.stop();
    pgp.close();
    gwp.close();
  }
  pg.Client.prototype.query = query;
  // Where AgentmemStore's time goes at 0 ms: its SQL function called over `pg` as the same
  // user (row-level security, the same plpgsql) in one round trip, against the full call
  // over HTTP through the gateway; the rest is the HTTP hop (see the transport floor).
  const direct = new pg.Client({ connectionString: env.AGENTMEM_DB_URL });
  await direct.connect();
  const asUser = (ops) => `begin; select set_config('request.jwt.claims', '${JSON.stringify({ sub: user.id, role: "authenticated" })}', true);
    set local role authenticated; select public.langgraph_store_batch('${JSON.stringify(ops).replace(/'/g, "''")}'); commit;`;
  const floorNs = ["bench", run, "floor"];
  const floorStore = new AgentmemStore(createClient({ url: env.SUPABASE_URL, apiKey: env.SUPABASE_ANON_KEY, accessToken: user.token }), { index });
  for (let i = 0; i < 100; i += 1) await floorStore.put([...floorNs, `n${i % 10}`], `seed-${i}`, { text: `note ${i} about ${["vendors", "pricing"][i % 2]}` });
  const [queryVector] = await embed(["vendors pricing"]);
  const nFloor = QUICK ? 20 : 200;
  const floorRows = [];
  for (const [name, ops, call] of [
    ["get", [{ op: "get", namespace: [...floorNs, "n1"], key: "seed-1", refresh: true }], () => floorStore.get([...floorNs, "n1"], "seed-1")],
    // The vector as AgentmemStore sends it: as its text.
    ["search (query, limit 10)", [{ op: "search", prefix: floorNs, limit: 10, offset: 0, refresh: true, vector: `[${queryVector.join(",")}]` }], () => floorStore.search(floorNs, { query: "vendors pricing", limit: 10 })],
    ["listNamespaces", [{ op: "list", conditions: [{ type: "prefix", path: floorNs }], maxDepth: null }], () => floorStore.listNamespaces({ prefix: floorNs })],
  ]) {
    const sql = asUser(ops);
    const viaPg = await timeIt(() => direct.query(sql), nFloor);
    const viaHttp = await timeIt(call, nFloor);
    floorRows.push([name, f(viaHttp.p50), f(viaPg.p50), f(viaHttp.p50 - viaPg.p50)]);
  }
  await direct.end();
  // Search at scale: 5,000 items under one prefix in each store (both score every item's
  // vector: neither has an index that answers a prefix's nearest), at 0 ms.
  const manyWords = ["vendors", "pricing", "travel", "food", "tile", "pallets", "invoice", "delivery", "crew", "permit", "budget", "schedule"];
  const MANY = 5000;
  const load = async (store, ns) => {
    for (let i = 0; i < MANY; i += 500) {
      await store.batch(Array.from({ length: Math.min(500, MANY - i) }, (_, j) => ({
        namespace: [...ns, `n${(i + j) % 10}`], key: `k${i + j}`,
        value: { text: `note ${i + j} about ${manyWords[(i + j) % 12]} and ${manyWords[((i + j) * 7) % 12]} ${manyWords[((i + j) * 5) % 11]}` } })));
    }
  };
  const manyAm = new AgentmemStore(createClient({ url: env.SUPABASE_URL, apiKey: env.SUPABASE_ANON_KEY, accessToken: user.token }), { index });
  const manyPg = new PostgresStore({ connectionOptions: pgUrl(ctx.pgPort), schema: "bench_postgres_store", index, ensureTables: false });
  const manyNs = ["bench", run, "many"];
  await load(manyAm, manyNs);
  await load(manyPg, manyNs);
  const nMany = QUICK ? 5 : 30;
  const manySearch = (store, ns) => async () => {
    const found = await store.search(ns, { query: "vendors pricing", limit: 10 });
    if (found.length !== 10) throw new Error(`search over ${MANY} items found ${found.length}, not 10`);
  };
  const many = await alternating(() => timeIt(manySearch(manyAm, manyNs), nMany), () => timeIt(manySearch(manyPg, manyNs), nMany));
  await manyPg.stop();
  const manyA = medianOf(many.a), manyP = medianOf(many.b);
  const manyRows = [["search (query, limit 10)", `${f(manyA.p50)} / ${f(manyA.p95)}`, `${f(manyP.p50)} / ${f(manyP.p95)}`,
    `${median(many.a.map((a, i) => a.p50 / many.b[i].p50)).toFixed(2)}x`]];
  say("## LangGraph store: p50 / p95 per call (ms; lower is better)");
  say();
  say("AgentmemStore: one HTTP request per call through the gateway, as a signed-in user with RLS. PostgresStore (@langchain/langgraph-checkpoint-postgres/store): its own tables in the same Postgres over `pg`, as the superuser. InMemoryStore: this process. The same bag-of-words embedder (384 dims) for all three; each store holds 100 items in 10 namespaces under the searched prefix. Text and hybrid: PostgresStore's `mode: \"text\"` and `mode: \"hybrid\"` (vectorWeight 0.5) in both (full text over the whole value in PostgresStore, over the indexed field in AgentmemStore; InMemoryStore has neither). Round trips: HTTP requests, or SQL statements sent (BEGIN / COMMIT included), per call." + ` At 0 ms the median of ${ROUNDS} rounds.`);
  say();
  table(["one-way delay", "call", "AgentmemStore", "PostgresStore", "InMemoryStore", "round trips (agentmem / Postgres)", "agentmem ÷ PostgresStore (p50)"], rows);
  say("## LangGraph store at 0 ms: the SQL function alone and the rest (p50 ms)");
  say();
  say("The same call through AgentmemStore (HTTP through the gateway), and its SQL function over `pg` as the same user under row-level security, in one round trip (BEGIN, the user's claims and role, the call, COMMIT); the difference is the HTTP hop, the gateway and the client.");
  say();
  table(["call", "AgentmemStore", "its SQL function over pg, as the user", "HTTP, gateway and client"], floorRows);
  say(`## LangGraph store: search over ${MANY.toLocaleString("en-US")} items at 0 ms (p50 / p95 ms)`);
  say();
  say(`${MANY.toLocaleString("en-US")} items under the searched prefix in each store (10 namespaces, three words each from twelve), the same embedder; both score every item under the prefix. At 0 ms, the median of ${ROUNDS} rounds of ${nMany} searches, alternating.`);
  say();
  table(["call", "AgentmemStore", "PostgresStore", "agentmem ÷ PostgresStore (p50)"], manyRows);
}

/** A standard fetch (Headers in, Response out) over the HTTP transport of agentmem's Node
 *  entry, which speaks a minimal subset (plain header records; status, headers.get, text). */
async function fetchOverAgentmemTransport(input, init = {}) {
  const res = await nodeHttpFetch(String(input), { ...init, headers: Object.fromEntries(new Headers(init.headers)) });
  const text = await res.text();
  const headers = new Headers();
  for (const name of ["content-type", "content-range", "content-length"]) {
    const value = res.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  return new Response(res.status === 204 ? null : text, { status: res.status, headers });
}

async function memoryTools(ctx) {
  const user = await ctx.newUser();
  const dims = 384;
  const embed = (texts) => texts.map((t) => {
    const v = new Array(dims).fill(0);
    for (let i = 0; i < t.length; i += 1) v[(t.charCodeAt(i) * 31 + i) % dims] += 1;
    return v;
  });
  const rows = [];
  for (const delay of DELAYS) {
    const gw = await delayProxy(ctx.gatewayPort, delay);
    const url = `http://127.0.0.1:${gw.port}`;
    const tools = new MemoryTools({ client: createClient({ url, apiKey: env.SUPABASE_ANON_KEY, accessToken: user.token }), embed, agentId: "bench" });
    const headers = { apikey: env.SUPABASE_ANON_KEY, Authorization: `Bearer ${user.token}` };
    // postgrest-js on Node's built-in fetch (as supabase-js runs by default), and on the
    // transport agentmem's Node entry uses: the second compares the same request over the
    // same kind of connection.
    const supa = new PostgrestClient(`${url}/rest/v1`, { headers });
    const supaSame = new PostgrestClient(`${url}/rest/v1`, { headers, fetch: fetchOverAgentmemTransport });
    const n = delay === 0 ? (QUICK ? 20 : 100) : (QUICK ? 5 : 20);
    const create = await timeIt((i) => tools.createMemory({ content: `bench memory ${i} about vendors`, memory_type: "fact" }), n);
    const search = await timeIt(() => tools.searchMemories({ query: "vendors", limit: 5 }), n);
    const [query] = embed(["vendors"]);
    const rpcWith = (client) => timeIt(async () => {
      const { error } = await client.rpc("search_agent_memories", { p_query_embedding: JSON.stringify(query), p_match_count: 5 });
      if (error) throw new Error(`postgrest-js: ${JSON.stringify(error)}`);
    }, n);
    const raw = await rpcWith(supa);
    const same = await rpcWith(supaSame);
    rows.push([`${delay} ms`, `${f(create.p50)} ms`, `${f(search.p50)} ms`, `${f(raw.p50)} ms`, `${f(same.p50)} ms`, ratio(search.p50, raw.p50), ratio(search.p50, same.p50)]);
    gw.close();
  }
  say("## Memory tools (p50; the peer is the same search RPC called with postgrest-js, the client inside supabase-js)");
  say();
  say("postgrest-js twice: on Node's built-in fetch (supabase-js's default) and on the HTTP transport agentmem's Node entry uses (the same request over the same kind of connection; the fair comparison of the work on top).");
  say();
  table(["one-way delay", "create_memory", "search_memories", "postgrest-js rpc (built-in fetch)", "postgrest-js rpc (agentmem's transport)", "search ÷ built-in fetch", "search ÷ same transport"], rows);
}

// ------------------------------------------------------------------- setup and run
async function context() {
  const db = new pg.Client({ connectionString: env.AGENTMEM_DB_URL });
  await db.connect();
  const dbUrl = new URL(env.AGENTMEM_DB_URL);
  try {
    const dir = (await db.query("show data_directory")).rows[0].data_directory;
    postmaster = readFileSync(`${dir}/postmaster.pid`, "utf8").split("\n")[0].trim();
  } catch {
    // Not readable here: every Postgres process on the machine counts.
  }
  const gatewayPort = Number(new URL(env.SUPABASE_URL).port);
  const pgPort = Number(dbUrl.port);
  const newUser = async () => {
    const id = crypto.randomUUID();
    await db.query("insert into auth.users (id) values ($1)", [id]);
    return { id, token: await mintJwt(env.SUPABASE_JWT_SECRET, id, { expiresIn: 7200 }) };
  };
  // PostgresSaver on its own tables (its setup()), as a project using it would run it.
  const setup = PostgresSaver.fromConnString(env.AGENTMEM_DB_URL, { schema: "bench_postgres_saver" });
  await setup.setup();
  await setup.end();
  const user = await newUser();
  // The deal-scope option adds a membership check to every thread's row-level security.
  const options = (await db.query("select 'langgraph_deal_scoped.sql' as name from pg_proc where proname = 'member_deal_tenants' and pronamespace = 'agentmem'::regnamespace")).rows.map((r) => r.name);
  return {
    gatewayPort,
    pgPort,
    options,
    newUser,
    async savers(delay) {
      const pgp = await delayProxy(pgPort, delay);
      const gwp = await delayProxy(gatewayPort, delay);
      dbUrl.port = String(pgp.port);
      const postgres = PostgresSaver.fromConnString(dbUrl.toString(), { schema: "bench_postgres_saver" });
      const agentmem = new AgentmemSaver(createClient({ url: `http://127.0.0.1:${gwp.port}`, apiKey: env.SUPABASE_ANON_KEY, accessToken: user.token }));
      return { agentmem, postgres, ports: { pg: pgp.port, gateway: gwp.port }, close: async () => { await postgres.end(); pgp.close(); gwp.close(); } };
    },
    close: () => db.end(),
  };
}

const started = new Date();
say(`# agentmem benchmark, ${started.toISOString().slice(0, 10)}`);
say();
const git = (() => { try { return execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).trim(); } catch { return "?"; } })();
say(`Commit ${git}; Node ${process.version}; load average at the start ${loadavg()[0].toFixed(2)} on ${cpus().length} cores; ${QUICK ? "QUICK run (few samples); " : ""}${ONLY ? `only: ${ONLY.join(", ")}; ` : ""}one-way delays: ${DELAYS.join(", ")} ms. Ratios are agentmem ÷ peer: below 1.00x agentmem is smaller/faster, except for rates (uuid5, concurrency) where above 1.00x is better.`);
say();
if (want("sizes")) await sizes();
if (want("import")) importCost();
if (want("uuid5")) uuid5s();
const ctx = await context();
say(`Database: ${ctx.options.length ? `with the optional SQL ${ctx.options.join(", ")} installed (as the test stack runs)` : "the migrations only (no optional SQL)"}.`);
say();
try {
  if (want("agent")) await agentTurns(ctx);
  if (want("checkpoints")) await checkpoints(ctx);
  if (want("concurrency")) await concurrency(ctx);
  if (want("cpu")) await cpu(ctx);
  if (want("floor")) await floor(ctx);
  if (want("length")) await threadLength(ctx);
  if (want("memory")) await memoryTools(ctx);
  if (want("store")) await stores(ctx);
} finally {
  await ctx.close();
}
say(`Run took ${((Date.now() - started.getTime()) / 1000).toFixed(0)} s; load average at the end ${loadavg().map((x) => x.toFixed(2)).join(" / ")} (1 / 5 / 15 min) on ${cpus().length} cores: other work on the machine inflates agentmem's and the peers' times alike, and ratios less than absolute times.`);
mkdirSync(join(here, "results"), { recursive: true });
writeFileSync(join(here, "results", "latest.md"), `${out.join("\n")}\n`);
console.error(`report: bench/results/latest.md`);
