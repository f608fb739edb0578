// A "type": "commonjs" project (npm's default) with module nodenext, compiled by tsc to
// CommonJS and run against the stack by tests/install/run.sh. Two ways to load the
// package, each with LangGraph loaded the same way (one copy of LangGraph's types per
// graph): static imports, which become require() (Node >= 20.19 / 22.12 load the
// package's ES modules that way), and `await import()` (any Node >= 20).
import assert from "node:assert/strict";
import { MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { createClient } from "__PACKAGE__";
import { AgentmemSaver, AgentmemStore } from "__PACKAGE__/langgraph";

const client = createClient({ url: process.env.SUPABASE_URL!, apiKey: process.env.SUPABASE_ANON_KEY!, accessToken: process.env.AGENTMEM_USER_JWT });

/** Two turns of a thread, each node reading and writing the store: the contents seen. */
async function twoTurns(invoke: (content: string, threadId: string) => Promise<{ messages: { content: unknown }[] }>) {
  const threadId = `cjs-${crypto.randomUUID()}`;
  await invoke("one", threadId);
  return (await invoke("two", threadId)).messages.map((m) => m.content);
}

const reply = (namespace: string[]) => async ({ messages }: { messages: unknown[] }, { store }: { store?: { get: Function; put: Function } }) => {
  const seen = ((await store?.get(namespace, "visits"))?.value.n as number | undefined) ?? 0;
  await store?.put(namespace, "visits", { n: seen + 1 });
  return { messages: [{ role: "assistant", content: `turn ${messages.length}, visit ${seen + 1}` }] };
};

async function staticImports() {
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("reply", reply(["cjs", crypto.randomUUID()]))
    .addEdge(START, "reply")
    .compile({ checkpointer: new AgentmemSaver(client), store: new AgentmemStore(client) });
  return twoTurns((content, threadId) => graph.invoke({ messages: [{ role: "user", content }] }, { configurable: { thread_id: threadId } }));
}

async function dynamicImports() {
  const langgraph = await import("@langchain/langgraph");
  const agentmem = await import("__PACKAGE__");
  const { AgentmemSaver, AgentmemStore } = await import("__PACKAGE__/langgraph");
  const esmClient = agentmem.createClient({ url: process.env.SUPABASE_URL!, apiKey: process.env.SUPABASE_ANON_KEY!, accessToken: process.env.AGENTMEM_USER_JWT });
  const graph = new langgraph.StateGraph(langgraph.MessagesAnnotation)
    .addNode("reply", reply(["cjs", crypto.randomUUID()]))
    .addEdge(langgraph.START, "reply")
    .compile({ checkpointer: new AgentmemSaver(esmClient), store: new AgentmemStore(esmClient) });
  return twoTurns((content, threadId) => graph.invoke({ messages: [{ role: "user", content }] }, { configurable: { thread_id: threadId } }));
}

async function main() {
  const want = ["one", "turn 1, visit 1", "two", "turn 3, visit 2"];
  assert.deepEqual(await staticImports(), want);
  assert.deepEqual(await dynamicImports(), want);
  console.log(`node ${process.version}, CommonJS: a graph with saver and store by static imports (require) and by await import(): thread kept, store read back`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
