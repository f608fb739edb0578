// The saver in Deno, the runtime of Supabase Edge Functions, through the package's "deno"
// entry (agentmem-supabase/langgraph → langgraph-deno.js, which loads the .wasm from disk). The
// full behaviour is tested in Node (validation.test.mjs, saver.test.mjs); this proves the
// entry, the wasm initialisation and one request per operation in this runtime.
import assert from "node:assert/strict";
import { emptyCheckpoint } from "@langchain/langgraph-checkpoint";
import { AgentmemError } from "agentmem-supabase";
import { AgentmemSaver } from "agentmem-supabase/langgraph";
import { newUser, recording } from "./stack.mjs";

Deno.test("AgentmemSaver in Deno: one request per operation, bytes intact, RLS", async () => {
  const saver = new AgentmemSaver((await newUser()).client);
  assert.equal(saver.backend, "postgrest");
  const thread = `deno-${crypto.randomUUID()}`;
  const cp = { ...emptyCheckpoint(), channel_values: { text: "héllo", bytes: new Uint8Array([0, 255]) }, channel_versions: { text: 1, bytes: 1 } };
  const step = async (fn) => {
    const { result, requests } = await recording(fn);
    assert.equal(requests.length, 1, requests.join());
    return result;
  };
  const config = await step(() => saver.put({ configurable: { thread_id: thread } }, cp, { source: "input", step: -1, parents: {} }, { text: 1, bytes: 1 }));
  await step(() => saver.putWrites(config, [["text", "next"]], "task"));
  const tuple = await step(() => saver.getTuple({ configurable: { thread_id: thread } }));
  assert.deepEqual(tuple.checkpoint, cp);
  assert.ok(tuple.checkpoint.channel_values.bytes instanceof Uint8Array);
  assert.deepEqual(tuple.pendingWrites, [["task", "text", "next"]]);

  // Another user's saver with the same ids: its own, empty thread; writing creates its own.
  const other = new AgentmemSaver((await newUser()).client);
  assert.equal(await other.getTuple(config), undefined);
  await other.putWrites(config, [["text", "x"]], "task");
  assert.deepEqual((await saver.getTuple(config)).pendingWrites, [["task", "text", "next"]]);

  await step(() => saver.deleteThread(thread));
  assert.equal(await saver.getTuple(config), undefined);
});
