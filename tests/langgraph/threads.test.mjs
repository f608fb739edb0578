// AgentmemSaver.listThreads against the stack: a user's threads from real LangGraph graphs,
// most recently written first, with the text of their last human and AI messages; paging,
// prefix and metadata filters; one request; another user sees none of them; the memory
// backend answers the same.
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { MessagesAnnotation, StateGraph, START, END } from "@langchain/langgraph";
import { AgentmemError } from "agentmem-supabase";
import { AgentmemSaver } from "agentmem-supabase/langgraph";
import { newUser, recording } from "./stack.mjs";

/** A model turn: a tool call first (an AI message without text), then the answer. */
function chat(checkpointer) {
  return new StateGraph(MessagesAnnotation)
    .addNode("model", (s) => {
      const last = s.messages[s.messages.length - 1];
      if (last instanceof HumanMessage) {
        return { messages: [new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "look", args: { q: last.content } }] })] };
      }
      if (last instanceof ToolMessage) return { messages: [new AIMessage(`About ${last.content}: fine.`)] };
      return {};
    })
    .addNode("tool", (s) => ({ messages: [new ToolMessage({ content: String(s.messages[s.messages.length - 1].tool_calls[0].args.q), tool_call_id: "c1" })] }))
    .addEdge(START, "model")
    .addConditionalEdges("model", (s) => (s.messages[s.messages.length - 1].tool_calls?.length ? "tool" : END))
    .addEdge("tool", "model")
    .compile({ checkpointer });
}

async function threadsOf(saver, run) {
  const graph = chat(saver);
  for (const [thread, question] of [[`${run}-a`, "roofs"], [`${run}-b`, "windows"], [`${run}-a`, "slate"]]) {
    await graph.invoke({ messages: [new HumanMessage(question)] }, { configurable: { thread_id: thread } });
  }
  return graph;
}

for (const backend of ["postgrest", "memory"]) {
  test(`listThreads (${backend}): newest first, with the last human and AI text, filtered and paged`, async () => {
    const user = await newUser();
    const saver = backend === "memory" ? AgentmemSaver.inMemory() : new AgentmemSaver(user.client);
    const run = `chat-${crypto.randomUUID().slice(0, 8)}`;
    const graph = await threadsOf(saver, run);
    const threads = await saver.listThreads({ prefix: run });
    expect(threads.map((t) => t.threadId)).toEqual([`${run}-a`, `${run}-b`]);
    const [a, b] = threads;
    expect([a.lastHumanMessage, a.lastAiMessage]).toEqual(["slate", "About slate: fine."]);
    expect([b.lastHumanMessage, b.lastAiMessage]).toEqual(["windows", "About windows: fine."]);
    // The head is what getState reads, and its config reads it back.
    const state = await graph.getState({ configurable: { thread_id: `${run}-a` } });
    expect(a.checkpointId).toBe(state.config.configurable.checkpoint_id);
    expect(a.step).toBe(state.metadata.step);
    expect(a.source).toBe(state.metadata.source);
    expect((await saver.getTuple(a.config)).checkpoint.id).toBe(a.checkpointId);
    let history = 0;
    for await (const _ of saver.list({ configurable: { thread_id: `${run}-a`, checkpoint_ns: "" } })) history += 1;
    expect(a.checkpointCount).toBe(history);
    expect(Date.parse(a.updatedAt)).toBeGreaterThanOrEqual(Date.parse(b.updatedAt));
    expect(Date.parse(a.createdAt)).toBeLessThanOrEqual(Date.parse(a.updatedAt));
    // Filters and pages.
    expect((await saver.listThreads({ prefix: run, limit: 1 })).map((t) => t.threadId)).toEqual([`${run}-a`]);
    expect((await saver.listThreads({ prefix: run, offset: 1 })).map((t) => t.threadId)).toEqual([`${run}-b`]);
    expect((await saver.listThreads({ prefix: run, filter: { step: b.step } })).map((t) => t.threadId)).toEqual([`${run}-b`]);
    expect(await saver.listThreads({ prefix: `${run}-none` })).toEqual([]);
    // Bad options are typed errors, on both backends alike.
    for (const [options, field] of [[{ limit: 0 }, "options.limit"], [{ offset: -1 }, "options.offset"], [{ filter: "x" }, "options.filter"], [{ before: "x" }, "options.before"], ["x", "options"]]) {
      const e = await saver.listThreads(options).catch((x) => x);
      expect(e, JSON.stringify(options)).toBeInstanceOf(AgentmemError);
      expect([e.code, e.field]).toEqual(["invalid_input", field]);
    }
  });
}

test("listThreads is one request, and another user sees none of the threads", async () => {
  const [alice, bob] = [await newUser(), await newUser()];
  const run = `chat-${crypto.randomUUID().slice(0, 8)}`;
  await threadsOf(new AgentmemSaver(alice.client), run);
  const saver = new AgentmemSaver(alice.client);
  const { result, requests } = await recording(() => saver.listThreads({ prefix: run }));
  expect(requests).toEqual(["POST /rpc/langgraph_list_threads"]);
  expect(result).toHaveLength(2);
  expect(await new AgentmemSaver(bob.client).listThreads({ prefix: run })).toEqual([]);
});

test("a state without messages lists with null texts; a put never fails on its preview", async () => {
  const user = await newUser();
  const saver = new AgentmemSaver(user.client);
  const thread = `plain-${crypto.randomUUID()}`;
  const hostile = new Proxy([], { get() { throw new Error("no"); } });
  const graph = new StateGraph(MessagesAnnotation).addNode("n", () => ({})).addEdge(START, "n").addEdge("n", END).compile({ checkpointer: saver });
  await graph.invoke({ messages: [] }, { configurable: { thread_id: thread } });
  const [t] = await saver.listThreads({ prefix: thread });
  expect([t.lastHumanMessage, t.lastAiMessage]).toEqual([null, null]);
  // A messages channel the preview cannot read: the put still stores the checkpoint.
  const cp = { v: 4, id: "1f0c7a00-0000-6000-8000-0000000000ff", ts: new Date().toISOString(), channel_values: { messages: hostile }, channel_versions: {}, versions_seen: {} };
  await saver.put({ configurable: { thread_id: `${thread}-x` } }, cp, { source: "update", step: 5, parents: {} }, {});
  const [x] = await saver.listThreads({ prefix: `${thread}-x` });
  expect([x.step, x.lastHumanMessage]).toEqual([5, null]);
});
