import assert from "node:assert/strict";
import {
  AgentmemError,
  cimThreadId,
  coiaThread,
  conversationId,
  extractDealId,
  parseThreadId,
  supervisorThreadId,
  uuid5,
  uuid5Batch,
} from "agentmem-supabase";
import { generatedNames, pythonUuid5 } from "./python.ts";
import { exhaustMemory, memoryOf, TOO_BIG } from "./trap.ts";

const DEAL = "3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b";

function assertInvalid(fn: () => unknown, field: string) {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof AgentmemError, `expected AgentmemError, got ${e}`);
    assert.ok(e instanceof Error);
    assert.equal(e.name, "AgentmemError");
    assert.equal(e.code, "invalid_input");
    assert.equal(e.field, field);
    return true;
  });
}

Deno.test("uuid5 equals CPython for edge-case and generated names, every namespace", async () => {
  const names = [
    "",
    "python.org",
    "\u0000",
    "😀",
    "e\u0301 𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
    "x".repeat(10 * 1024),
    "𝄞".repeat(2600),
    ...generatedNames(300),
  ];
  for (const ns of ["dns", "url", "oid", "x500", "00000000-0000-0000-0000-000000000001", "D9B2D63D-A233-4123-847A-76838BF2413A"]) {
    const expected = await pythonUuid5(names, ns);
    assert.deepEqual(names.map((n) => uuid5(n, ns)), expected, `namespace ${ns}`);
    assert.deepEqual(uuid5Batch(names, ns), expected, `batch, namespace ${ns}`);
  }
});

Deno.test("conversationId uses COIA's namespace unless told otherwise", async () => {
  const [expected] = await pythonUuid5(["landing-abc123def456"], "00000000-0000-0000-0000-000000000001");
  assert.equal(conversationId("landing-abc123def456"), expected);
  assert.equal(conversationId("landing-abc123def456", null), expected);
  assert.equal(conversationId("landing-abc123def456", "dns"), uuid5("landing-abc123def456", "dns"));
  assertInvalid(() => conversationId(""), "contractorLeadId");
  assertInvalid(() => conversationId("x", "bogus"), "namespace");
});

Deno.test("uuid5 rejects bad input with typed errors", () => {
  assertInvalid(() => uuid5("x", "DNS"), "namespace");
  assertInvalid(() => uuid5("x", "6ba7b810-9dad-11d1-80b4-00c04fd430c"), "namespace");
  // @ts-expect-error: runtime check of a non-string
  assertInvalid(() => uuid5(42, "dns"), "name");
  // @ts-expect-error: namespace missing
  assertInvalid(() => uuid5("x"), "namespace");
  assertInvalid(() => uuid5("lone \ud800 surrogate", "dns"), "name");
  assertInvalid(() => uuid5Batch(["ok", "\udc00"], "dns"), "names[1]");
  // @ts-expect-error: not an array
  assertInvalid(() => uuid5Batch("abc", "dns"), "names");
  // @ts-expect-error: element not a string
  assertInvalid(() => uuid5Batch(["a", null], "dns"), "names[1]");
});

Deno.test("COIA thread configs follow COIA's entry flows", () => {
  assert.deepEqual(coiaThread("chat", "lead-1"), { thread_id: "lead-1", checkpoint_ns: "coia_chat", checkpoint_id: "chat_lead-1" });
  assert.deepEqual(coiaThread("research", "s-1"), { thread_id: "s-1", checkpoint_ns: "coia_research", checkpoint_id: "research_s-1" });
  assert.deepEqual(coiaThread("intelligence", "s-1"), { thread_id: "s-1", checkpoint_ns: "coia_intelligence", checkpoint_id: "intelligence_s-1" });
  assert.deepEqual(coiaThread("landing", "lead-2"), { thread_id: "lead-2", checkpoint_ns: "coia_landing" });
  const landing = coiaThread("landing");
  assert.match(landing.thread_id, /^landing-[0-9a-f]{12}$/);
  assert.equal("checkpoint_id" in landing, false);
  const bid = coiaThread("bidcard", undefined);
  assert.match(bid.thread_id, /^bidcard-[0-9a-f]{12}$/);
  assert.equal(bid.checkpoint_id, `bidcard_${bid.thread_id}`);
  assert.notEqual(coiaThread("landing").thread_id, coiaThread("landing").thread_id);

  assertInvalid(() => coiaThread("chat"), "id");
  assertInvalid(() => coiaThread("chat", ""), "id");
  assertInvalid(() => coiaThread("chat", "a\u0000b"), "id");
  assertInvalid(() => coiaThread("chat", "x".repeat(513)), "id");
  // @ts-expect-error: unknown flow
  assertInvalid(() => coiaThread("Chat", "x"), "flow");
});

Deno.test("CIM and supervisor ids round-trip through parse and extract", () => {
  const cim = cimThreadId(DEAL.toUpperCase(), "draft-1");
  assert.equal(cim, `cim-${DEAL}-draft-1`);
  assert.deepEqual(parseThreadId(cim), { kind: "cim", dealId: DEAL, cimId: "draft-1" });
  assert.equal(extractDealId(cim), DEAL);

  const sup = supervisorThreadId(DEAL, 1704067200000);
  assert.equal(sup, `supervisor-${DEAL}-1704067200000`);
  assert.deepEqual(parseThreadId(sup), { kind: "supervisor", dealId: DEAL, timestampMs: 1704067200000 });

  assert.deepEqual(parseThreadId("session-1"), { kind: "other" });
  assert.deepEqual(parseThreadId(coiaThread("landing").thread_id).kind, "landing");
  assert.equal(extractDealId(null), null);
  assert.equal(extractDealId(cim.toUpperCase()), null);
  assert.equal(extractDealId(`cim-${"-".repeat(36)}`), null);
  assert.equal(extractDealId("cim-3f2b-8a9e-1c4d-4e5f-9a0b1c2d3e4f5a6b"), DEAL);

  assertInvalid(() => cimThreadId("abc123", "x"), "dealId");
  assertInvalid(() => cimThreadId(DEAL, ""), "cimId");
  assertInvalid(() => supervisorThreadId(DEAL, 1.5), "timestampMs");
  assertInvalid(() => supervisorThreadId(DEAL, -1), "timestampMs");
  assertInvalid(() => supervisorThreadId(DEAL, Number.MAX_SAFE_INTEGER + 2), "timestampMs");
  // @ts-expect-error: string timestamp
  assertInvalid(() => supervisorThreadId(DEAL, "1704067200000"), "timestampMs");
});

Deno.test("a trap costs one call, not the module", async () => {
  const glue = await import("../pkg/agentmem.js");
  uuid5("python.org", "dns"); // the module is instantiated on first use
  const originalError = console.error;
  const logged: unknown[] = [];
  console.error = (...args: unknown[]) => logged.push(args);
  try {
    // A real trap (deno/trap.ts): with its memory exhausted, copying a large argument in aborts.
    exhaustMemory(glue);
    assert.throws(() => uuid5(TOO_BIG, "dns"), (e: unknown) => e instanceof AgentmemError && e.code === "internal" && e.cause instanceof WebAssembly.RuntimeError);
  } finally {
    console.error = originalError;
  }
  assert.match(String(logged[0]), /will reinitialize/);
  // The next calls run on a fresh instance (memory small again, so the same large argument
  // fits) and behave normally, errors included.
  assert.match(uuid5(TOO_BIG, "dns"), /^[0-9a-f-]{36}$/);
  assert.ok(memoryOf(glue).buffer.byteLength < 1 << 30, "a fresh instance");
  assert.equal(uuid5("python.org", "dns"), "886313e1-3b8a-5372-9b90-0c9aee199e5d");
  assertInvalid(() => uuid5("x", "nope"), "namespace");
  assert.match(coiaThread("landing").thread_id, /^landing-/);
});
