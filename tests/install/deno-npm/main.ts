// The installed tarball in a Deno project with package.json + node_modules (no registry
// to publish to: `npm:` resolves from node_modules with nodeModulesDir "manual"), both as
// an `npm:` specifier and as a bare name from package.json. __PACKAGE__ is replaced by
// tests/install/run.sh with the name in pkg/package.json.
import { createClient, uuid5 } from "npm:__PACKAGE__";
import * as bare from "__PACKAGE__";
import { AgentmemSaver } from "npm:__PACKAGE__/langgraph";
import { emptyCheckpoint } from "@langchain/langgraph-checkpoint";

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(what);
}

check(uuid5("python.org", "dns") === "886313e1-3b8a-5372-9b90-0c9aee199e5d", "uuid5");
check(bare.uuid5 === uuid5, "one module instance, whichever way it is named");

const client = createClient({
  url: Deno.env.get("SUPABASE_URL")!,
  apiKey: Deno.env.get("SUPABASE_ANON_KEY")!,
  accessToken: Deno.env.get("AGENTMEM_USER_JWT"),
});
const { data } = await client.select("transport_public", { columns: "id,label", order: "id" });
check(JSON.stringify(data) === '[{"id":1,"label":"one"},{"id":2,"label":"two"}]', `select: ${JSON.stringify(data)}`);

const saver = new AgentmemSaver(client);
const config = { configurable: { thread_id: `install-${crypto.randomUUID()}`, checkpoint_ns: "" } };
const checkpoint = emptyCheckpoint();
const saved = await saver.put(config, checkpoint, { source: "input", step: -1, parents: {} }, {});
check((await saver.getTuple(saved))?.checkpoint.id === checkpoint.id, "saver round trip");
console.log(`deno ${Deno.version.deno}: npm:__PACKAGE__ from node_modules: uuid5, select, saver put/getTuple ok`);
