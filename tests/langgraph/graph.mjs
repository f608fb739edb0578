// A real LangGraph graph persisted with AgentmemSaver. Imported by saver.test.mjs (first
// process), and run as `node graph.mjs resume` by it: a second process that continues the
// thread from the checkpoint the first one stored, and prints what it saw as JSON.
import { Annotation, END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { AgentmemSaver } from "agentmem-supabase/langgraph";

const State = Annotation.Root({
  ...MessagesAnnotation.spec,
  steps: Annotation({ reducer: (a, b) => a + b, default: () => 0 }),
  notes: Annotation({ reducer: (a, b) => [...a, ...b], default: () => [] }),
});

const say = (name) => (s) => ({
  messages: [new AIMessage({ content: `${name} after ${s.steps} steps`, additional_kwargs: { node: name } })],
  steps: 1,
  notes: [{ node: name, at: s.steps, bytes: new Uint8Array([s.steps, 255]) }],
});

/** plan → act → review, pausing before review (a human-in-the-loop step). */
export function buildGraph(checkpointer) {
  return new StateGraph(State)
    .addNode("plan", say("plan"))
    .addNode("act", say("act"))
    .addNode("review", say("review"))
    .addEdge(START, "plan")
    .addEdge("plan", "act")
    .addEdge("act", "review")
    .addEdge("review", END)
    .compile({ checkpointer, interruptBefore: ["review"] });
}

export { HumanMessage };

/** What a process can tell about the state: message classes prove LangChain revival. */
export function describe(state) {
  return {
    next: state.next,
    steps: state.values.steps,
    messages: state.values.messages.map((m) => [m.constructor.name, m.content]),
    humanIsHumanMessage: state.values.messages[0] instanceof HumanMessage,
    notes: state.values.notes.map((n) => [n.node, n.at, n.bytes instanceof Uint8Array ? [...n.bytes] : null]),
  };
}

if (process.argv[2] === "resume") {
  const { SUPABASE_URL: url, SUPABASE_ANON_KEY: apiKey, ACCESS_TOKEN: accessToken, THREAD_ID: thread_id } = process.env;
  const graph = buildGraph(new AgentmemSaver({ url, apiKey, accessToken }));
  const config = { configurable: { thread_id } };
  const before = describe(await graph.getState(config));
  await graph.invoke(null, config); // continue from the stored checkpoint: runs review
  const after = describe(await graph.getState(config));
  let history = 0;
  for await (const _ of graph.getStateHistory(config)) history += 1;
  process.stdout.write(JSON.stringify({ before, after, history }));
}
