// agentmem-supabase/ids against the main entry: the same functions, results and errors, from a
// module of its own that never loads the main .wasm.
import assert from "node:assert/strict";
import { isDeepStrictEqual } from "node:util";
import * as ids from "agentmem-supabase/ids";
import * as main from "agentmem-supabase";
import { generatedNames, pythonUuid5 } from "./python.ts";
import { exhaustMemory, memoryOf, TOO_BIG } from "./trap.ts";

const DEAL = "3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b";
const HELPERS = [
  "uuid5",
  "uuid5Batch",
  "conversationId",
  "coiaThread",
  "cimThreadId",
  "supervisorThreadId",
  "parseThreadId",
  "extractDealId",
] as const;
type Helper = (typeof HELPERS)[number];

/** What a call did, in a form deepEqual can compare across the two entries. */
function outcome(fn: (...args: unknown[]) => unknown, args: unknown[]) {
  try {
    const value = fn(...args);
    // Key order too: JSON.stringify is what callers often do with these objects.
    return { value, json: JSON.stringify(value) };
  } catch (e) {
    if (!(e instanceof Error)) return { thrown: e };
    const { name, message, code, field } = e as main.AgentmemError;
    return { error: { agentmem: e instanceof main.AgentmemError, name, message, code, field, keys: Object.keys(e).sort() } };
  }
}

function sameOutcome(helper: Helper, args: unknown[]) {
  const a = outcome(ids[helper] as (...args: unknown[]) => unknown, args);
  const b = outcome(main[helper] as (...args: unknown[]) => unknown, args);
  if (!isDeepStrictEqual(a, b)) assert.deepEqual(a, b, `${helper}(${args.map((x) => Deno.inspect(x)).join(", ")})`);
  return a;
}

// Inputs that are not strings, for every argument position.
const NOT_STRINGS: unknown[] = [undefined, null, 0, 42, -1.5, NaN, true, {}, [], ["a"], 10n, Symbol("s"), () => 1, new String("boxed")];

/** Deterministic variations of a valid id: case, truncation, extra characters, hyphen moves. */
function mutations(valid: string, seed: number): string[] {
  let s = seed >>> 0;
  const rand = (n: number) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s % n;
  };
  const out = [valid, valid.toUpperCase(), valid.slice(0, -1), `${valid}-`, `-${valid}`, ` ${valid}`, `${valid}\u0000`];
  const alphabet = "0123456789abcdefABCDEF-_{}xz:é😀\ud800";
  for (let i = 0; i < 60; i += 1) {
    const chars = [...valid];
    const at = rand(chars.length + 1);
    switch (rand(4)) {
      case 0: chars.splice(at, 1); break;
      case 1: chars.splice(at, 0, alphabet[rand(alphabet.length)]); break;
      case 2: chars[at] = alphabet[rand(alphabet.length)]; break;
      default: chars.splice(at, 0, "-"); chars.splice(rand(chars.length), 1);
    }
    out.push(chars.join(""));
  }
  return out;
}

const NAMESPACES = [
  "dns", "url", "oid", "x500", "DNS", "", "nope",
  "00000000-0000-0000-0000-000000000001",
  "D9B2D63D-A233-4123-847A-76838BF2413A",
  "{6ba7b810-9dad-11d1-80b4-00c04fd430c8}",
  "urn:uuid:6ba7b810-9dad-11d1-80b4-00c04fd430c8",
  "6ba7b8109dad11d180b400c04fd430c8",
  ...mutations("6ba7b810-9dad-11d1-80b4-00c04fd430c8", 7),
];

Deno.test("the ids entry exports exactly the id helpers and the shared AgentmemError", () => {
  assert.deepEqual(Object.keys(ids).sort(), [...HELPERS, "AgentmemError"].sort());
  assert.equal(ids.AgentmemError, main.AgentmemError, "one class: instanceof holds across entries");
  for (const helper of HELPERS) assert.notEqual(ids[helper], main[helper], `${helper} must come from the ids module`);
});

Deno.test("uuid5, uuid5Batch and conversationId equal the main entry and CPython", async () => {
  const names = ["", "python.org", "\u0000", "\ufffd", "a\ufffdb", "😀", "e\u0301 𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "x".repeat(10 * 1024), "𝄞".repeat(2600), ...generatedNames(300, 7)];
  for (const ns of ["dns", "url", "oid", "x500", "00000000-0000-0000-0000-000000000001", "D9B2D63D-A233-4123-847A-76838BF2413A"]) {
    const expected = await pythonUuid5(names, ns);
    assert.deepEqual(names.map((n) => ids.uuid5(n, ns)), expected, `uuid5, namespace ${ns}`);
    assert.deepEqual(ids.uuid5Batch(names, ns), expected, `uuid5Batch, namespace ${ns}`);
    assert.deepEqual(ids.uuid5Batch(names, ns), main.uuid5Batch(names, ns));
  }
  for (const ns of NAMESPACES) {
    for (const name of ["python.org", "", "lead-1"]) {
      sameOutcome("uuid5", [name, ns]);
      sameOutcome("conversationId", [name, ns]);
    }
    sameOutcome("uuid5Batch", [["a", "b"], ns]);
  }
  for (const name of [...generatedNames(200, 11), "lone \ud800", "\udc00", "ok\ud83d", "\ud83d\ude00"]) {
    sameOutcome("uuid5", [name, "dns"]);
    sameOutcome("conversationId", [name]);
    sameOutcome("conversationId", [name, null]);
  }
  for (const bad of NOT_STRINGS) {
    sameOutcome("uuid5", [bad, "dns"]);
    sameOutcome("uuid5", ["x", bad]);
    sameOutcome("conversationId", [bad]);
    sameOutcome("conversationId", ["x", bad]);
    sameOutcome("uuid5Batch", [bad, "dns"]);
    sameOutcome("uuid5Batch", [["ok", bad], "dns"]);
  }
  sameOutcome("uuid5Batch", [[], "dns"]);
  sameOutcome("uuid5Batch", [["a", "b\ud800", "c"], "dns"]);
  sameOutcome("uuid5Batch", [["a", "b"], "nope"]);
  sameOutcome("uuid5Batch", [["a", 1], "nope"]);
});

Deno.test("coiaThread equals the main entry; minted ids have the same shape", () => {
  const flows = ["chat", "research", "intelligence", "landing", "bidcard", "Chat", "", "other"];
  const leads = ["lead-1", "", "a\u0000b", "a\nb", "x".repeat(512), "x".repeat(513), "ünïcødé 🚀", "\ud800", ...generatedNames(40, 3)];
  for (const flow of flows) {
    for (const id of leads) sameOutcome("coiaThread", [flow, id]);
    for (const bad of NOT_STRINGS.filter((v) => v !== undefined && v !== null)) sameOutcome("coiaThread", [flow, bad]);
  }
  for (const bad of NOT_STRINGS) sameOutcome("coiaThread", [bad, "x"]);
  for (const flow of ["chat", "research", "intelligence"]) {
    sameOutcome("coiaThread", [flow]);
    sameOutcome("coiaThread", [flow, null]);
  }
  // Minted ids are random, so compare their shape: same keys, same pattern, same parse.
  for (const flow of ["landing", "bidcard"] as const) {
    for (const absent of [undefined, null]) {
      const a = ids.coiaThread(flow, absent);
      const b = main.coiaThread(flow, absent);
      assert.deepEqual(Object.keys(a), Object.keys(b));
      assert.match(a.thread_id, new RegExp(`^${flow}-[0-9a-f]{12}$`));
      assert.equal(a.checkpoint_ns, b.checkpoint_ns);
      assert.equal(a.checkpoint_id, flow === "bidcard" ? `bidcard_${a.thread_id}` : undefined);
      assert.deepEqual(ids.parseThreadId(a.thread_id), { kind: flow, token: a.thread_id.slice(flow.length + 1) });
    }
  }
  const minted = new Set(Array.from({ length: 200 }, () => ids.coiaThread("landing").thread_id));
  assert.equal(minted.size, 200, "minted ids must be random");
});

Deno.test("cimThreadId, supervisorThreadId, parseThreadId and extractDealId equal the main entry", () => {
  const deals = [DEAL, DEAL.toUpperCase(), DEAL.replaceAll("-", ""), `{${DEAL}}`, "abc123", "", ...mutations(DEAL, 1)];
  const cims = ["draft-7", "", "a\u0000", "x".repeat(513), "é", "\udfff"];
  const stamps: unknown[] = [0, 1, 1704067200000, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 1, -1, -0, 1.5, NaN, Infinity, "5", null, undefined, 5n];
  const threads: string[] = ["", "session-42", "landing-abc123def456", "landing-ABC123DEF456", "bidcard-abc123def4567", `cim-${"-".repeat(36)}`];
  for (const deal of deals) {
    for (const cim of cims) {
      const made = sameOutcome("cimThreadId", [deal, cim]);
      if ("value" in made) threads.push(made.value as string);
    }
    for (const ts of stamps) {
      const made = sameOutcome("supervisorThreadId", [deal, ts]);
      if ("value" in made) threads.push(made.value as string);
    }
  }
  for (const bad of NOT_STRINGS) {
    sameOutcome("cimThreadId", [bad, "c"]);
    sameOutcome("cimThreadId", [DEAL, bad]);
    sameOutcome("supervisorThreadId", [bad, 1]);
    sameOutcome("parseThreadId", [bad]);
    sameOutcome("extractDealId", [bad]);
  }
  const built = [...threads];
  for (const [i, thread] of built.entries()) threads.push(...mutations(thread, i).slice(0, 12));
  threads.push("CIM-3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b-x", "cim-3f2b-8a9e-1c4d-4e5f-9a0b1c2d3e4f5a6b", `supervisor-${DEAL}-0123`, `supervisor-${DEAL}-99999999999999999999`);
  const kinds = new Set<string>();
  for (const thread of threads) {
    const parsed = sameOutcome("parseThreadId", [thread]);
    if ("value" in parsed) kinds.add((parsed.value as { kind: string }).kind);
    sameOutcome("extractDealId", [thread]);
  }
  // The generated inputs reach every shape, not just "other".
  assert.deepEqual([...kinds].sort(), ["bidcard", "cim", "landing", "other", "supervisor"]);
  assert.equal(ids.extractDealId(null), null);
});

Deno.test("errors are the main entry's AgentmemError with the same code and field", () => {
  const cases: [Helper, unknown[], string][] = [
    ["uuid5", ["x", "DNS"], "namespace"],
    ["uuid5", [42, "dns"], "name"],
    ["uuid5Batch", [["ok", "\udc00"], "dns"], "names[1]"],
    ["conversationId", [""], "contractorLeadId"],
    ["coiaThread", ["Chat", "x"], "flow"],
    ["coiaThread", ["chat"], "id"],
    ["cimThreadId", ["abc123", "x"], "dealId"],
    ["cimThreadId", [DEAL, ""], "cimId"],
    ["supervisorThreadId", [DEAL, 1.5], "timestampMs"],
    ["parseThreadId", [7], "threadId"],
    ["extractDealId", [7], "threadId"],
  ];
  for (const [helper, args, field] of cases) {
    const got = sameOutcome(helper, args);
    assert.ok(got.error, `${helper} must throw`);
    assert.deepEqual(
      { agentmem: got.error.agentmem, name: got.error.name, code: got.error.code, field: got.error.field },
      { agentmem: true, name: "AgentmemError", code: "invalid_input", field },
    );
  }
});

Deno.test("the ids module reuses freed memory: many large calls leave its heap where one left it", async () => {
  // The same module instance the entry initialised (same URL), for its memory export.
  const glue = await import("../pkg/agentmem_ids.js");
  const memory = (glue.initSync({ module: new Uint8Array() }) as { memory: WebAssembly.Memory }).memory;
  const batch = (n: number, len: number) => Array.from({ length: n }, (_, i) => `${i}-${"é".repeat(len)}`);
  const big = batch(10_000, 20);
  ids.uuid5Batch(big, "dns");
  ids.uuid5Batch(batch(5_000, 200), "dns");
  const after = memory.buffer.byteLength;
  for (let round = 0; round < 10; round += 1) {
    // Every size class again, interleaved with the calls that allocate objects and errors.
    assert.deepEqual(ids.uuid5Batch(big, "url"), main.uuid5Batch(big, "url"));
    ids.uuid5Batch(batch(5_000, 200), "dns");
    ids.uuid5("x".repeat(100_000), "oid");
    ids.coiaThread("landing");
    ids.parseThreadId(`cim-${DEAL}-${"d".repeat(round * 50)}`);
    assert.throws(() => ids.cimThreadId("nope", "x"), ids.AgentmemError);
  }
  // 10 rounds allocate ~10x the first calls' memory in total; a heap that did not reuse
  // freed blocks would have grown by that much.
  assert.equal(memory.buffer.byteLength, after, "the heap grew on repeated calls of sizes it had seen");
});

Deno.test("a trap in the ids module costs one call, not the module", async () => {
  const glue = await import("../pkg/agentmem_ids.js");
  ids.uuid5("python.org", "dns"); // the module is instantiated on first use
  const originalError = console.error;
  const logged: unknown[] = [];
  console.error = (...args: unknown[]) => logged.push(args);
  try {
    // A real trap (deno/trap.ts): with its memory exhausted, copying a large argument in aborts.
    exhaustMemory(glue);
    assert.throws(() => ids.uuid5(TOO_BIG, "dns"), WebAssembly.RuntimeError);
  } finally {
    console.error = originalError;
  }
  assert.match(String(logged[0]), /will reinitialize/);
  // A fresh instance: the same large argument fits again.
  assert.equal(ids.uuid5(TOO_BIG, "dns"), main.uuid5(TOO_BIG, "dns"));
  assert.ok(memoryOf(glue).buffer.byteLength < 1 << 30, "a fresh instance");
  assert.equal(ids.uuid5("python.org", "dns"), "886313e1-3b8a-5372-9b90-0c9aee199e5d");
  assert.throws(() => ids.uuid5("x", "nope"), ids.AgentmemError);
  assert.match(ids.coiaThread("landing").thread_id, /^landing-/);
});

Deno.test("the ids entry never loads the main module", async () => {
  const pkg = new URL("../pkg/", import.meta.url);
  // Its module graph: the entry, the small module's glue, ids.js, errors.js (+ types).
  const info = await new Deno.Command(Deno.execPath(), { args: ["info", "--json", new URL("ids-deno.js", pkg).href], stdout: "piped" }).output();
  assert.ok(info.success);
  const graph = (JSON.parse(new TextDecoder().decode(info.stdout)).modules as { specifier: string }[])
    .map((m) => m.specifier.slice(pkg.href.length)).sort();
  assert.deepEqual(graph, ["agentmem_ids.js", "errors.d.ts", "errors.js", "ids-deno.js", "ids.d.ts", "ids.js"]);

  // At run time, in a fresh process that may read anything except the main .wasm.
  const mainWasm = new URL("agentmem_bg.wasm", pkg).pathname;
  const run = async (entry: string) => {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-config", "--allow-read", `--deny-read=${mainWasm}`, "-"],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const writer = child.stdin.getWriter();
    const script = `const m = await import(${JSON.stringify(new URL(entry, pkg).href)});
      console.log(m.uuid5("python.org", "dns"), m.parseThreadId(m.cimThreadId(${JSON.stringify(DEAL)}, "c")).kind);`;
    await writer.write(new TextEncoder().encode(script));
    await writer.close();
    const out = await child.output();
    return { ok: out.success, stdout: new TextDecoder().decode(out.stdout).trim(), stderr: new TextDecoder().decode(out.stderr) };
  };
  const idsRun = await run("ids-deno.js");
  assert.ok(idsRun.ok, idsRun.stderr);
  assert.equal(idsRun.stdout, "886313e1-3b8a-5372-9b90-0c9aee199e5d cim");
  // Control: the denial is real, the main entry cannot load under it.
  const mainRun = await run("deno.js");
  assert.equal(mainRun.ok, false, "the main entry loaded without reading agentmem_bg.wasm");
  assert.match(mainRun.stderr, /agentmem_bg\.wasm/);
});
