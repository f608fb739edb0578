// Semantic search with a real embedding model: all-MiniLM-L6-v2 (384 dimensions) running
// offline (tests/embedder/minilm.py, installed by scripts/bootstrap.sh), injected as the
// `embed` callback exactly as a user would inject OpenAI or Supabase's gte-small.
// The queries share no words with the memories they must find, so the offline hash
// embedder of the other tests could not pass this; a real model must.
import assert from "node:assert/strict";
import { MemoryTools } from "agentmem-supabase";
import type { Memory } from "agentmem-supabase";
import { newUser } from "./support.ts";

const cache = Deno.env.get("AGENTMEM_CACHE") ?? `${Deno.env.get("HOME")}/.cache/agentmem`;

async function startMiniLM() {
  const child = new Deno.Command(`${cache}/minilm/bin/python`, {
    args: [new URL("../tests/embedder/minilm.py", import.meta.url).pathname, "serve", "0"],
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the MiniLM embedder exited before it was ready (run scripts/bootstrap.sh)");
    out += value;
  }
  reader.releaseLock();
  const port = Number(out.match(/ready (\d+)/)![1]);
  const embed = async (texts: string[]) => {
    const r = await fetch(`http://127.0.0.1:${port}/embed`, { method: "POST", body: JSON.stringify({ texts }), headers: { "content-type": "application/json" } });
    return (await r.json()).vectors as number[][];
  };
  return { embed, stop: async () => { child.kill(); await child.status; await child.stdout.cancel().catch(() => {}); } };
}

Deno.test("real model (all-MiniLM-L6-v2): search finds memories by meaning, not shared words", async () => {
  const model = await startMiniLM();
  try {
    const user = await newUser();
    const tools = new MemoryTools({ client: user.client, embed: model.embed, agentId: "procurement-agent", matchThreshold: 0.3 });
    const memories = [
      "The user prefers environmentally friendly suppliers",
      "The company's office is located in Denver, Colorado",
      "They decided to postpone the roof replacement until spring",
      "The user is allergic to peanuts",
    ];
    for (const content of memories) await tools.createMemory({ content, memory_type: "fact" });
    const top = async (query: string): Promise<Memory[]> => (await tools.searchMemories({ query, limit: 4 })).memories;

    const cases: [string, string][] = [
      ["green vendors", memories[0]],
      ["which city is the headquarters in?", memories[1]],
      ["delaying the repairs to next year", memories[2]],
      ["nut allergy", memories[3]],
    ];
    for (const [query, expected] of cases) {
      const found = await top(query);
      assert.equal(found[0]?.content, expected, `${query} → ${JSON.stringify(found.map((m) => [m.content, m.similarity]))}`);
      assert.ok(found.every((m, i) => i === 0 || m.similarity! <= found[0].similarity!));
    }
    const unrelated = await top("quantum chromodynamics lattice simulation");
    assert.equal(unrelated.length, 0, `nothing is about physics: ${JSON.stringify(unrelated.map((m) => [m.content, m.similarity]))}`);
  } finally {
    await model.stop();
  }
});

Deno.test("real model: the default threshold finds a memory right after it is created, and says what it held back", async () => {
  const model = await startMiniLM();
  try {
    const user = await newUser();
    const tools = new MemoryTools({ client: user.client, embed: model.embed, agentId: "procurement-agent" });
    await tools.createMemory({ content: "User prefers vendors located within 50 miles of the job site", memory_type: "preference" });
    await tools.createMemory({ content: "The user's dog is named Biscuit", memory_type: "fact" });
    // The report: with the old default (0.5) this answered count 0.
    const found = await tools.searchMemories({ query: "which vendors does the user prefer" });
    assert.equal(found.memories[0]?.content, "User prefers vendors located within 50 miles of the job site", JSON.stringify(found));
    // Nothing about physics: no memory returned, and the answer says how close the nearest came.
    const none = await tools.searchMemories({ query: "quantum chromodynamics lattice simulation" });
    assert.equal(none.count, 0);
    assert.equal(none.held_back?.count, 2, JSON.stringify(none));
    assert.ok(none.held_back!.best_similarity < 0.3 && none.held_back!.threshold === 0.3, JSON.stringify(none));
    assert.doesNotMatch(JSON.stringify(none), /Biscuit|50 miles/, "no content of what was held back");
  } finally {
    await model.stop();
  }
});
