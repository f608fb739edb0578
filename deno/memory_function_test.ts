// The example edge function (supabase/functions/memory-tools) served over real HTTP
// against the stack: definitions, then a create → search round trip as a signed-in user.
import assert from "node:assert/strict";
import { createHandler } from "../supabase/functions/memory-tools/index.ts";
import { env, newUser } from "./support.ts";

Deno.test("memory-tools function: definitions, create then search over HTTP, auth required", async () => {
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, createHandler({ url: env.SUPABASE_URL, anonKey: env.SUPABASE_ANON_KEY }));
  const base = `http://127.0.0.1:${server.addr.port}/memory-tools`;
  try {
    const defs = await (await fetch(`${base}?format=openai`)).json();
    assert.deepEqual(defs.map((d: { function: { name: string } }) => d.function.name), ["create_memory", "search_memories", "update_memory", "delete_memory", "get_memory_context"]);

    const user = await newUser();
    const call = (name: string, input: unknown, token: string | null = user.token) =>
      fetch(base, {
        method: "POST",
        headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify({ name, input }),
      });
    const created = await call("create_memory", { content: "User prefers US-based vendors", memory_type: "preference" });
    assert.equal(created.status, 200);
    const c = await created.json();
    assert.equal(c.success, true, JSON.stringify(c));
    const found = await (await call("search_memories", { query: "which US vendors does the user prefer?" })).json();
    assert.equal(found.success, true);
    assert.equal(found.memories[0].id, c.memory.id);
    assert.equal(found.memories[0].content, "User prefers US-based vendors");

    const bad = await (await call("create_memory", { content: "x", memory_type: "wish" })).json();
    assert.deepEqual([bad.success, bad.error.code, bad.error.field], [false, "invalid_input", "memory_type"], "model mistakes come back readable");
    const anonymous = await call("search_memories", { query: "vendors" }, null);
    assert.equal(anonymous.status, 401);
    await anonymous.body?.cancel();
    const forged = await call("search_memories", { query: "vendors" }, "not.a.jwt");
    assert.equal(forged.status, 401);
    await forged.body?.cancel();
  } finally {
    await server.shutdown();
  }
});
