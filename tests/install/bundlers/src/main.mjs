// A browser app's entry, bundled by esbuild and by Vite (tests/install/run.sh replaces
// __PACKAGE__ with the package's name): uuid5 and a real select against the stack, whose
// settings the test server hands out at /__env.json.
import { AgentmemError, createClient, uuid5 } from "__PACKAGE__";

const result = {};
try {
  const env = await (await fetch("/__env.json")).json();
  result.uuid5 = uuid5("python.org", "dns");
  const client = createClient({ url: env.SUPABASE_URL, apiKey: env.SUPABASE_ANON_KEY, accessToken: env.AGENTMEM_USER_JWT });
  result.data = (await client.select("transport_public", { columns: "id,label", order: "id" })).data;
  try {
    uuid5("x", "not-a-namespace");
  } catch (e) {
    result.error = { agentmem: e instanceof AgentmemError, code: e.code };
  }
} catch (e) {
  result.failure = String(e?.stack ?? e);
}
globalThis.__result = result;
