// Rerunnable speed benchmarks against the local stack (not timed tests):
//   ./scripts/stack.sh up --test-fixtures && ./scripts/build.sh
//   cd deno && deno bench --allow-read --allow-env --allow-net bench/ops_bench.ts
// Each HTTP-backed bench is one logical operation = one request; compare the figures with
// a raw `fetch` of the same request to see what agentmem adds on top of the network.
import { createClient, MemoryTools, uuid5Batch } from "agentmem-supabase";
import { hashEmbedder } from "../../supabase/functions/_shared/hash_embedder.ts";
import { env, newUser } from "../support.ts";

const user = await newUser();
const tools = new MemoryTools({ client: user.client, embed: hashEmbedder(), agentId: "bench" });
for (let i = 0; i < 50; i++) await tools.createMemory({ content: `Benchmark memory number ${i} about vendors and lighting`, memory_type: "fact" });
const names = Array.from({ length: 1000 }, (_, i) => `lead-${i}`);
const raw = `${env.SUPABASE_URL}/rest/v1/transport_public?select=id,label&order=id`;
const headers = { apikey: env.SUPABASE_ANON_KEY };
const anon = createClient({ url: env.SUPABASE_URL, apiKey: env.SUPABASE_ANON_KEY });

Deno.bench("uuid5Batch, 1000 names (no I/O)", () => {
  uuid5Batch(names, "dns");
});
Deno.bench("select: raw fetch baseline", { group: "select", baseline: true }, async () => {
  await (await fetch(raw, { headers })).json();
});
Deno.bench("select: client.select", { group: "select" }, async () => {
  await anon.select("transport_public", { columns: "id,label", order: "id" });
});
Deno.bench("memory: search_memories (embed + 1 RPC with access logging)", async () => {
  await tools.searchMemories({ query: "vendors and lighting", limit: 5 });
});
Deno.bench("memory: get_memory_context (1 RPC)", async () => {
  await tools.getMemoryContext({ max_chars: 2000 });
});
Deno.bench("memory: create_memory (embed + 1 RPC)", async () => {
  await tools.createMemory({ content: "A new fact to remember for the benchmark", memory_type: "fact" });
});
