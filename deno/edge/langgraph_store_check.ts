// The LangGraph store edge function over HTTP against the local stack, with two users: a
// preference told in one thread is recalled in another (AgentmemStore, semantic search),
// each thread keeps its own turns (AgentmemSaver), and the second user recalls nothing of
// the first's. Run by scripts/test.sh with the function's own import map and permissions.
import assert from "node:assert/strict";
import { createHandler } from "../../supabase/functions/langgraph-store/index.ts";
import { env, newUser } from "../support.ts";

Deno.test("the LangGraph store edge function: preferences across threads, per user", async () => {
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} },
    createHandler({ url: env.SUPABASE_URL, anonKey: env.SUPABASE_ANON_KEY }));
  const base = `http://127.0.0.1:${server.addr.port}/langgraph-store`;
  try {
    const [a, b] = [await newUser(), await newUser()];
    const say = async (token: string, thread: string, message: string) =>
      await (await fetch(base, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: JSON.stringify({ thread_id: thread, message }) })).json();

    assert.equal((await say(a.token, "monday", "Remember: I prefer window seats on flights")).reply, "I'll remember that.");
    assert.equal((await say(a.token, "monday", "Remember: I am vegetarian")).turns, 2, "the thread's turns are checkpointed");
    const tuesday = await say(a.token, "tuesday", "Which seats do I like on flights?");
    assert.deepEqual(tuesday.recalled[0], "I prefer window seats on flights");
    assert.equal(tuesday.turns, 1, "a new thread");
    assert.deepEqual((await say(b.token, "tuesday", "Which seats do I like on flights?")).recalled, []);
    assert.equal((await fetch(base, { method: "POST", body: "{}" })).status, 401);
  } finally {
    await server.shutdown();
  }
});
