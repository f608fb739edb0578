// Graph-level scenarios that exercise what a checkpointer must get right beyond single
// operations: sibling forks made from one checkpoint, updateState with asNode, interrupts
// resumed with Command (also from an earlier checkpoint), subgraphs with their own
// namespaces, and getStateHistory. Each scenario returns a transcript of what a LangGraph
// user observes (values, next, tasks, interrupts, metadata source/step, history order),
// with the checkpoint ids and timestamps left out; a saver is correct when its transcripts
// equal MemorySaver's. Plain JS, so Node (vitest) and Deno run the same scenarios.
import { Annotation, Command, END, INTERRUPT, interrupt, START, StateGraph } from "@langchain/langgraph";

const last = (_, b) => b;
const State = Annotation.Root({
  text: Annotation({ reducer: last, default: () => "" }),
  log: Annotation({ reducer: (a, b) => [...a, ...b], default: () => [] }),
});

/** What getState shows, without ids and times. */
function seen(snapshot) {
  return {
    values: snapshot.values,
    next: snapshot.next,
    tasks: snapshot.tasks.map((t) => ({
      name: t.name,
      interrupts: (t.interrupts ?? []).map((i) => i.value),
      state: t.state && "values" in t.state ? seen(t.state) : undefined,
    })),
    source: snapshot.metadata?.source,
    step: snapshot.metadata?.step,
    hasParent: snapshot.parentConfig !== undefined,
  };
}

async function history(graph, config) {
  const out = [];
  for await (const s of graph.getStateHistory(config)) out.push(seen(s));
  return out;
}

/** draft → review, pausing before review; then two sibling forks and an asNode update. */
export async function forks(checkpointer, thread) {
  const graph = new StateGraph(State)
    .addNode("draft", (s) => ({ text: `${s.text}-draft`, log: ["draft"] }))
    .addNode("review", (s) => ({ text: `${s.text}+b`, log: ["review"] }))
    .addEdge(START, "draft")
    .addEdge("draft", "review")
    .addEdge("review", END)
    .compile({ checkpointer, interruptBefore: ["review"] });
  const config = { configurable: { thread_id: thread } };
  const t = {};
  t.first = await graph.invoke({ text: "x" }, config);
  const paused = await graph.getState(config);
  t.paused = seen(paused);

  // Two forks from the same checkpoint: each must keep its own value.
  const fork1 = await graph.updateState(paused.config, { text: "EDIT-1" });
  const fork2 = await graph.updateState(paused.config, { text: "EDIT-2" });
  t.fork1 = seen(await graph.getState(fork1));
  t.fork2 = seen(await graph.getState(fork2));
  t.continue2 = await graph.invoke(null, fork2);
  t.continue1 = await graph.invoke(null, fork1);
  t.fork1After = seen(await graph.getState(fork1));

  // As if "draft" had produced this: the graph then goes on to review.
  const asDraft = await graph.updateState(paused.config, { text: "AS-DRAFT" }, "draft");
  t.asDraft = seen(await graph.getState(asDraft));
  t.continueAsDraft = await graph.invoke(null, asDraft);
  t.latest = seen(await graph.getState(config));
  t.history = await history(graph, config);
  return t;
}

/** A node that asks (interrupt) and the graph resumed with an answer, then the same
 *  question answered differently from the checkpoint before the answer. */
export async function interrupts(checkpointer, thread) {
  const graph = new StateGraph(State)
    .addNode("prepare", (s) => ({ text: `${s.text}:prepared`, log: ["prepare"] }))
    .addNode("ask", (s) => {
      const answer = interrupt({ question: `approve ${s.text}?` });
      return { text: `${s.text}:${answer}`, log: [`ask:${answer}`] };
    })
    .addNode("finish", (s) => ({ text: `${s.text}:done`, log: ["finish"] }))
    .addEdge(START, "prepare")
    .addEdge("prepare", "ask")
    .addEdge("ask", "finish")
    .addEdge("finish", END)
    .compile({ checkpointer });
  const config = { configurable: { thread_id: thread } };
  const t = {};
  const first = await graph.invoke({ text: "plan" }, config);
  t.first = { text: first.text, interrupt: first[INTERRUPT]?.map((i) => i.value) };
  const asking = await graph.getState(config);
  t.asking = seen(asking);
  t.yes = await graph.invoke(new Command({ resume: "yes" }), config);
  t.afterYes = seen(await graph.getState(config));
  // Back to the question, answered "no" this time: a fork beside the "yes" run.
  t.no = await graph.invoke(new Command({ resume: "no" }), asking.config);
  t.latest = seen(await graph.getState(config));
  t.history = await history(graph, config);
  return t;
}

/** A parent graph with a subgraph that interrupts inside; resumed, then inspected. */
export async function subgraphs(checkpointer, thread) {
  const inner = new StateGraph(State)
    .addNode("s1", (s) => ({ text: `${s.text}>s1`, log: ["s1"] }))
    .addNode("s2", (s) => {
      const ok = interrupt(`inner ${s.text}`);
      return { text: `${s.text}>s2(${ok})`, log: ["s2"] };
    })
    .addEdge(START, "s1")
    .addEdge("s1", "s2")
    .addEdge("s2", END)
    .compile();
  const graph = new StateGraph(State)
    .addNode("prep", (s) => ({ text: `${s.text}>prep`, log: ["prep"] }))
    .addNode("sub", inner)
    .addNode("post", (s) => ({ text: `${s.text}>post`, log: ["post"] }))
    .addEdge(START, "prep")
    .addEdge("prep", "sub")
    .addEdge("sub", "post")
    .addEdge("post", END)
    .compile({ checkpointer });
  const config = { configurable: { thread_id: thread } };
  const t = {};
  await graph.invoke({ text: "in" }, config);
  t.paused = seen(await graph.getState(config, { subgraphs: true }));
  t.done = await graph.invoke(new Command({ resume: "ok" }), config);
  t.latest = seen(await graph.getState(config, { subgraphs: true }));
  t.history = await history(graph, config);
  // A fork of the parent from before the subgraph ran, resumed differently.
  let beforeSub;
  for await (const s of graph.getStateHistory(config)) if (s.next.includes("sub")) beforeSub = s;
  const fork = await graph.updateState(beforeSub.config, { text: "forked" });
  await graph.invoke(null, fork);
  t.forkPaused = seen(await graph.getState(config, { subgraphs: true }));
  t.forkDone = await graph.invoke(new Command({ resume: "again" }), config);
  t.finalHistoryLength = (await history(graph, config)).length;
  return t;
}

export const scenarios = { forks, interrupts, subgraphs };
