// A Deno program bundled by esbuild (tests/install/run.sh): uuid5 and a real select.
import { createClient, uuid5 } from "__PACKAGE__";

if (uuid5("python.org", "dns") !== "886313e1-3b8a-5372-9b90-0c9aee199e5d") throw new Error("uuid5");
const client = createClient({ url: Deno.env.get("SUPABASE_URL"), apiKey: Deno.env.get("SUPABASE_ANON_KEY"), accessToken: Deno.env.get("AGENTMEM_USER_JWT") });
const { data } = await client.select("transport_public", { columns: "id", order: "id" });
if (JSON.stringify(data) !== '[{"id":1},{"id":2}]') throw new Error(`select: ${JSON.stringify(data)}`);
console.log("bundle ok");
