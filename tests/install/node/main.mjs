// The installed tarball in a fresh Node project, imported by its name as a user would:
// the main entry (uuid5, a real select) and /langgraph with its peer from npm (a saver
// put/getTuple against the stack). Run by tests/install/run.sh with the stack's settings
// in the environment and the package name in AGENTMEM_PACKAGE.
import assert from "node:assert/strict";
import process from "node:process";

const name = process.env.AGENTMEM_PACKAGE;
const { uuid5, createClient, AgentmemError } = await import(name);
const { AgentmemSaver } = await import(`${name}/langgraph`);
const { emptyCheckpoint } = await import("@langchain/langgraph-checkpoint");

// Python: uuid.uuid5(uuid.NAMESPACE_DNS, "python.org")
assert.equal(uuid5("python.org", "dns"), "886313e1-3b8a-5372-9b90-0c9aee199e5d");

const client = createClient({ url: process.env.SUPABASE_URL, apiKey: process.env.SUPABASE_ANON_KEY, accessToken: process.env.AGENTMEM_USER_JWT });
const { data } = await client.select("transport_public", { columns: "id,label", order: "id" });
assert.deepEqual(data, [{ id: 1, label: "one" }, { id: 2, label: "two" }]);

const saver = new AgentmemSaver(client);
assert.equal(saver.backend, "postgrest");
const config = { configurable: { thread_id: `install-${crypto.randomUUID()}`, checkpoint_ns: "" } };
const checkpoint = emptyCheckpoint();
const saved = await saver.put(config, checkpoint, { source: "input", step: -1, parents: {} }, {});
const tuple = await saver.getTuple(saved);
assert.equal(tuple.checkpoint.id, checkpoint.id);
assert.equal(tuple.metadata.source, "input");

// Errors are the package's one class, with a code.
assert.throws(() => uuid5("x", "not-a-namespace"), (e) => e instanceof AgentmemError && e.code === "invalid_input");
console.log(`node ${process.version}: ${name} by name: uuid5, select, saver put/getTuple ok`);
