// The package as a copied folder (./agentmem/, as for a Supabase Edge Function) through
// the import map of README.md, which tests/install/run.sh copies into deno.json: type-
// checked with `deno check`, then run against the stack. The import map is the README's,
// so the names here are the ones it maps (__PACKAGE__: the name in pkg/package.json).
import { AgentmemError, createClient, MemoryTools, uuid5 } from "__PACKAGE__";
import type { MemoryToolResult } from "__PACKAGE__";
import { AgentmemSaver } from "__PACKAGE__/langgraph";
import { emptyCheckpoint } from "@langchain/langgraph-checkpoint";

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(what);
}

check(uuid5("python.org", "dns") === "886313e1-3b8a-5372-9b90-0c9aee199e5d", "uuid5");
const client = createClient({
  url: Deno.env.get("SUPABASE_URL")!,
  apiKey: Deno.env.get("SUPABASE_ANON_KEY")!,
  accessToken: Deno.env.get("AGENTMEM_USER_JWT"),
});
const { data } = await client.select<{ id: number; label: string }[]>("transport_public", { columns: "id,label", order: "id" });
check(JSON.stringify(data) === '[{"id":1,"label":"one"},{"id":2,"label":"two"}]', `select: ${JSON.stringify(data)}`);

const saver = new AgentmemSaver(client);
const config = { configurable: { thread_id: `install-${crypto.randomUUID()}`, checkpoint_ns: "" } };
const checkpoint = emptyCheckpoint();
const saved = await saver.put(config, checkpoint, { source: "input", step: -1, parents: {} }, {});
check((await saver.getTuple(saved))?.checkpoint.id === checkpoint.id, "saver round trip");

const tools = new MemoryTools({ client, embed: (texts) => Promise.resolve(texts.map(() => new Array(384).fill(0.5))), agentId: "install" });
const result: MemoryToolResult = await tools.handle("create_memory", JSON.stringify({ content: "x" }));
check(!result.success && result.error.code === "invalid_input" && result.error.field === "memory_type", JSON.stringify(result));
check(new AgentmemError("internal", "x") instanceof Error, "AgentmemError");
console.log(`deno ${Deno.version.deno}: copied folder via the README import map: deno check, uuid5, select, saver, tools ok`);
