// The LangGraph agent edge function over HTTP against the local stack, with two users: a
// turn runs to its end (tool call, tool result, reply), the memory it made is found from
// another thread, a thread's history comes back from the checkpoints, and the second user
// sees none of the first user's threads or memories. Run by scripts/test.sh with the
// function's own import map and permissions, exactly as README shows them.
import assert from "node:assert/strict";
import { createHandler } from "../../supabase/functions/langgraph-agent/index.ts";
import { env, newUser } from "../support.ts";
import { scriptedModel } from "./scripted_model.ts";

Deno.test("the LangGraph agent edge function: memory across threads, checkpointed history, per-user privacy", async () => {
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} },
    createHandler({ model: scriptedModel, url: env.SUPABASE_URL, anonKey: env.SUPABASE_ANON_KEY }));
  const base = `http://127.0.0.1:${server.addr.port}/langgraph-agent`;
  try {
    const [a, b] = [await newUser(), await newUser()];
    const as = (token: string) => ({ authorization: `Bearer ${token}`, "content-type": "application/json" });
    const say = async (token: string, thread: string, message: string) =>
      await (await fetch(base, { method: "POST", headers: as(token), body: JSON.stringify({ thread_id: thread, message }) })).json();
    const history = async (token: string, thread: string) => (await (await fetch(`${base}?thread_id=${thread}`, { headers: as(token) })).json()).messages;

    assert.deepEqual(await say(a.token, "monday", "Remember: I prefer vendors based in the US"),
      { thread_id: "monday", reply: "I'll remember that.", steps: 4 });
    assert.equal((await say(a.token, "tuesday", "Which vendors do I prefer?")).reply, "You told me: I prefer vendors based in the US");
    // The thread is the checkpoints': human, AI with a tool call, tool result, AI reply.
    assert.deepEqual((await history(a.token, "monday")).map((m: { type: string }) => m.type), ["human", "ai", "tool", "ai"]);
    // A second turn on the same thread continues it.
    assert.equal((await say(a.token, "monday", "thanks")).steps, 6);

    // B: same thread ids, nothing of A's.
    assert.deepEqual(await history(b.token, "monday"), []);
    assert.equal((await say(b.token, "tuesday", "Which vendors do I prefer?")).reply, "You have not told me yet.");
    assert.equal((await history(a.token, "tuesday")).length, 4, "A's thread untouched by B's turn under the same id");

    // No token, or a bad request: typed answers.
    assert.equal((await fetch(base, { method: "POST", body: "{}" })).status, 401);
    assert.equal((await fetch(base, { method: "POST", headers: as(a.token), body: "{}" })).status, 400);
  } finally {
    await server.shutdown();
  }
});

Deno.test("README's import map for the LangGraph agent is the function's own (the package at ./agentmem/)", async () => {
  const readme = await Deno.readTextFile(new URL("../../README.md", import.meta.url));
  const block = readme.split("<!-- langgraph-import-map -->")[1]?.match(/```json\n([\s\S]*?)```/)?.[1];
  assert.ok(block, "README.md has the langgraph-import-map block");
  const own = JSON.parse(await Deno.readTextFile(new URL("../../supabase/functions/langgraph-agent/deno.json", import.meta.url)));
  const asCopied = Object.fromEntries(Object.entries(own.imports as Record<string, string>).map(([k, v]) => [k, v.replace("../../../pkg/", "./agentmem/")]));
  assert.deepEqual(JSON.parse(block).imports, asCopied);
});
