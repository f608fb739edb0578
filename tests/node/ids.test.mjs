// agentmem-supabase/ids in Node >= 20, imported by package name: the exports map's "node" condition
// must lead to the ids module, and the entry must work without the main module.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import * as ids from "agentmem-supabase/ids";
import * as main from "agentmem-supabase";

const DEAL = "3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b";
const python = (names, ns) =>
  execFileSync(process.env.PYTHON ?? "python3", ["-c", `import json,sys,uuid\nfor n in json.load(sys.stdin): print(uuid.uuid5(uuid.NAMESPACE_${ns.toUpperCase()}, n))`], {
    input: JSON.stringify(names),
  }).toString().trim().split("\n");

test("agentmem-supabase/ids resolves to the ids entry for Node", () => {
  assert.match(import.meta.resolve("agentmem-supabase/ids"), /\/ids-node\.js$/);
  assert.deepEqual(Object.keys(ids).sort(), [
    "AgentmemError", "cimThreadId", "coiaThread", "conversationId", "extractDealId",
    "parseThreadId", "supervisorThreadId", "uuid5", "uuid5Batch",
  ]);
  assert.equal(ids.AgentmemError, main.AgentmemError);
});

test("uuid5 equals CPython and the main entry", () => {
  const names = ["", "python.org", "😀 𝄞 é", "\ufffd", "x".repeat(10240)];
  assert.deepEqual(names.map((n) => ids.uuid5(n, "url")), python(names, "url"));
  assert.deepEqual(ids.uuid5Batch(names, "dns"), python(names, "dns"));
  assert.deepEqual(ids.uuid5Batch(names, "oid"), main.uuid5Batch(names, "oid"));
  assert.equal(ids.conversationId("landing-abc123def456"), main.conversationId("landing-abc123def456"));
});

test("thread helpers and errors behave as in the main entry", () => {
  const cim = ids.cimThreadId(DEAL.toUpperCase(), "draft-1");
  assert.equal(cim, main.cimThreadId(DEAL.toUpperCase(), "draft-1"));
  assert.deepEqual(ids.parseThreadId(cim), main.parseThreadId(cim));
  assert.equal(ids.extractDealId(cim), DEAL);
  assert.equal(ids.supervisorThreadId(DEAL, 17), main.supervisorThreadId(DEAL, 17));
  assert.deepEqual(ids.coiaThread("chat", "lead-1"), main.coiaThread("chat", "lead-1"));
  assert.match(ids.coiaThread("bidcard").thread_id, /^bidcard-[0-9a-f]{12}$/);
  for (const [fn, args, field] of [
    ["uuid5", ["x", "nope"], "namespace"],
    ["uuid5Batch", [["a", "\ud800"], "dns"], "names[1]"],
    ["supervisorThreadId", [DEAL, 1.5], "timestampMs"],
  ]) {
    const caught = (entry) => {
      try {
        entry[fn](...args);
      } catch (e) {
        return e;
      }
      assert.fail(`${fn} did not throw`);
    };
    const [a, b] = [caught(ids), caught(main)];
    assert.ok(a instanceof main.AgentmemError);
    assert.deepEqual([a.code, a.field, a.message], [b.code, b.field, b.message]);
    assert.equal(a.field, field);
  }
});

test("agentmem-supabase/ids loads by name from a package without the main module", () => {
  const pkg = fileURLToPath(new URL("./", import.meta.resolve("agentmem-supabase/ids")));
  const dir = mkdtempSync(join(tmpdir(), "agentmem-ids-node-"));
  try {
    const copy = join(dir, "node_modules", "agentmem-supabase");
    for (const name of readdirSync(pkg)) {
      if (name !== "agentmem_bg.wasm") cpSync(join(pkg, name), join(copy, name), { recursive: true });
    }
    const run = (specifier) => spawnSync(process.execPath, ["--input-type=module", "-e",
      `const m = await import(${JSON.stringify(specifier)}); console.log(m.uuid5("python.org", "dns"));`], { cwd: dir, encoding: "utf8" });
    const r = run("agentmem-supabase/ids");
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), "886313e1-3b8a-5372-9b90-0c9aee199e5d");
    // Control: without agentmem_bg.wasm the main entry cannot load from this copy.
    const m = run("agentmem-supabase");
    assert.notEqual(m.status, 0, "the main entry loaded without agentmem_bg.wasm");
    assert.match(m.stderr, /agentmem_bg\.wasm/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
