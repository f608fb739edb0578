// A graph with agentmem's saver and store, the package and LangGraph imported statically.
// Type-checked as it is in three project shapes (tests/install/run.sh): "type": "module"
// with module nodenext (esm/tsconfig.json), moduleResolution bundler
// (bundler/tsconfig.json) and Deno (deno check, from node_modules).
import { MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import type { BaseCheckpointSaver, BaseStore } from "@langchain/langgraph";
import { type AgentmemClient, createClient } from "__PACKAGE__";
import { AgentmemSaver, AgentmemStore } from "__PACKAGE__/langgraph";

export function build(client: AgentmemClient) {
  return new StateGraph(MessagesAnnotation)
    .addNode("reply", async ({ messages }, { store }) => {
      const seen = ((await store?.get(["visits"], "count"))?.value.n as number | undefined) ?? 0;
      await store?.put(["visits"], "count", { n: seen + 1 });
      return { messages: [{ role: "assistant", content: `turn ${messages.length}, visit ${seen + 1}` }] };
    })
    .addEdge(START, "reply")
    .compile({ checkpointer: new AgentmemSaver(client), store: new AgentmemStore(client) });
}

// Each is LangGraph's own type, as LangGraph's functions take them.
export function parts(url: string, apiKey: string): [BaseCheckpointSaver, BaseStore] {
  const client = createClient({ url, apiKey });
  const embed = (texts: string[]) => texts.map(() => [1, 0, 0]);
  return [new AgentmemSaver(client), new AgentmemStore(client, { index: { dims: 3, embed } })];
}
