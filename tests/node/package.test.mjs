// The built package in Node >= 20, imported by package name (exports map, "node" condition).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { AgentmemError, uuid5, uuid5Batch, coiaThread, extractDealId } from "agentmem-supabase";

const python = (names, ns) =>
  execFileSync(process.env.PYTHON ?? "python3", ["-c", `import json,sys,uuid\nfor n in json.load(sys.stdin): print(uuid.uuid5(uuid.NAMESPACE_${ns.toUpperCase()}, n))`], {
    input: JSON.stringify(names),
  }).toString().trim().split("\n");

test("uuid5 equals CPython", () => {
  const names = ["", "python.org", "😀 𝄞 é", "x".repeat(10240)];
  assert.deepEqual(names.map((n) => uuid5(n, "url")), python(names, "url"));
  assert.deepEqual(uuid5Batch(names, "dns"), python(names, "dns"));
});

test("errors are AgentmemError instances with stable codes", () => {
  assert.throws(() => uuid5("x", "nope"), (e) => e instanceof AgentmemError && e.code === "invalid_input" && e.field === "namespace");
});

test("minted thread ids use the platform's crypto", () => {
  assert.match(coiaThread("bidcard").thread_id, /^bidcard-[0-9a-f]{12}$/);
  assert.equal(extractDealId("cim-3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b-x"), "3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b");
});
