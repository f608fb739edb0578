// Faults of the real stack under load: Postgres restarted, Postgres frozen, the gateway
// killed, while savers keep writing. Every call must settle within a bounded time as a
// success or a typed AgentmemError (network / timeout / server), and every write that was
// acknowledged must be readable afterwards. Plus many graphs with fan-out in parallel,
// compared with LangGraph's MemorySaver.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Annotation, END, MemorySaver, Send, START, StateGraph } from "@langchain/langgraph";
import { emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import { AgentmemError, createClient } from "agentmem-supabase";
import { AgentmemSaver } from "agentmem-supabase/langgraph";
import { env, newUser, url } from "./stack.mjs";

const root = fileURLToPath(new URL("../../", import.meta.url));
const stackDir = process.env.AGENTMEM_STACK_DIR ?? "/tmp/agentmem-stack";
const script = (name, ...args) => execFileSync(`${root}/scripts/${name}`, args, { stdio: "ignore" });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const TYPED = new Set(["network", "timeout", "server"]);

/** A saver whose every call is bounded: 1.5 s per attempt, 2 retries with backoff. */
async function boundedSaver() {
  const user = await newUser();
  const client = createClient({ url, apiKey: env.SUPABASE_ANON_KEY, accessToken: user.token, timeoutMs: 1500, retries: 2 });
  return new AgentmemSaver(client);
}

/** Writes checkpoints in a loop until `stop()`; records what was acknowledged and how each
 *  call ended. */
function writer(saver, thread) {
  const acked = [];
  const outcomes = { ok: 0, typed: 0, other: [] };
  let running = true;
  let longest = 0;
  const done = (async () => {
    let step = 0;
    while (running) {
      step += 1;
      const cp = { ...emptyCheckpoint(), id: uuid6(step), channel_values: { n: step }, channel_versions: { n: step } };
      const started = performance.now();
      try {
        await saver.put({ configurable: { thread_id: thread, checkpoint_ns: "" } }, cp, { source: "loop", step, parents: {} }, { n: step });
        acked.push(cp.id);
        outcomes.ok += 1;
      } catch (e) {
        if (e instanceof AgentmemError && TYPED.has(e.code)) outcomes.typed += 1;
        else outcomes.other.push(String(e?.stack ?? e));
        await sleep(50);
      }
      longest = Math.max(longest, performance.now() - started);
    }
  })();
  return {
    async stop() {
      running = false;
      await done;
      return { acked, outcomes, longest };
    },
  };
}

async function allReadable(saver, thread, acked) {
  const stored = new Set();
  for await (const t of saver.list({ configurable: { thread_id: thread, checkpoint_ns: "" } })) stored.add(t.checkpoint.id);
  return acked.filter((id) => !stored.has(id));
}

function postgresPids() {
  const pid = Number(readFileSync(`${stackDir}/postgres/data/postmaster.pid`, "utf8").split("\n")[0]);
  const children = execFileSync("pgrep", ["-P", String(pid)], { encoding: "utf8" }).trim().split("\n").filter(Boolean).map(Number);
  return [pid, ...children];
}

// Each attempt is bounded by 1.5 s and a call makes at most 3 attempts with backoff
// (100 ms base, 2 s cap): well under 8 s, whatever the stack does.
const BOUND_MS = 8000;

test("Postgres restarted under load: every call settles typed and bounded, every acknowledged write stays", async () => {
  const saver = await boundedSaver();
  const thread = `fault-restart-${crypto.randomUUID()}`;
  const w = writer(saver, thread);
  await sleep(500);
  script("postgres.sh", "stop");
  await sleep(1000);
  script("postgres.sh", "start");
  await sleep(1500);
  const { acked, outcomes, longest } = await w.stop();
  expect(outcomes.other).toEqual([]);
  expect(outcomes.ok).toBeGreaterThan(0);
  expect(longest).toBeLessThan(BOUND_MS);
  expect(await allReadable(saver, thread, acked)).toEqual([]);
}, 60_000);

test("Postgres frozen (SIGSTOP) under load: calls time out, typed and bounded; after SIGCONT writes go on", async () => {
  const saver = await boundedSaver();
  const thread = `fault-freeze-${crypto.randomUUID()}`;
  const w = writer(saver, thread);
  await sleep(500);
  const pids = postgresPids();
  for (const pid of pids) process.kill(pid, "SIGSTOP");
  try {
    await sleep(3000);
  } finally {
    for (const pid of pids) process.kill(pid, "SIGCONT");
  }
  const before = (await w.stop()).acked.length;
  const w2 = writer(saver, thread);
  await sleep(1500);
  const { acked, outcomes, longest } = await w2.stop();
  expect(outcomes.other).toEqual([]);
  expect(outcomes.ok).toBeGreaterThan(0);
  expect(longest).toBeLessThan(BOUND_MS);
  expect(before).toBeGreaterThan(0);
  expect(await allReadable(saver, thread, acked)).toEqual([]);
}, 60_000);

test("the gateway killed under load and started again: typed network errors, bounded, nothing acknowledged lost", async () => {
  const saver = await boundedSaver();
  const thread = `fault-gateway-${crypto.randomUUID()}`;
  const w = writer(saver, thread);
  await sleep(500);
  const pid = Number(readFileSync(`${stackDir}/gateway/pid`, "utf8"));
  process.kill(pid, "SIGKILL");
  await sleep(1000);
  script("stack.sh", "up", "--test-fixtures");
  await sleep(1000);
  const { acked, outcomes, longest } = await w.stop();
  expect(outcomes.other).toEqual([]);
  expect(outcomes.typed).toBeGreaterThan(0);
  expect(outcomes.ok).toBeGreaterThan(0);
  expect(longest).toBeLessThan(BOUND_MS);
  expect(await allReadable(saver, thread, acked)).toEqual([]);
}, 60_000);

test("20 graphs with fan-out (Send) in parallel: each thread's state and history equal MemorySaver's", async () => {
  const State = Annotation.Root({
    topic: Annotation({ reducer: (_, b) => b, default: () => "" }),
    parts: Annotation({ reducer: (a, b) => [...a, ...b].sort(), default: () => [] }),
  });
  const build = (checkpointer) => new StateGraph(State)
    .addNode("plan", (s) => ({ topic: `${s.topic}!` }))
    .addNode("work", (s) => ({ parts: [`${s.topic}#${s.i}`] }))
    .addNode("join", (s) => ({ parts: [`joined ${s.parts.length}`] }))
    .addEdge(START, "plan")
    .addConditionalEdges("plan", (s) => [0, 1, 2, 3].map((i) => new Send("work", { topic: s.topic, i })))
    .addEdge("work", "join")
    .addEdge("join", END)
    .compile({ checkpointer });
  const run = async (checkpointer, n) => {
    const graph = build(checkpointer);
    const config = { configurable: { thread_id: `fanout-${n}` } };
    await graph.invoke({ topic: `t${n}` }, config);
    const history = [];
    for await (const s of graph.getStateHistory(config)) history.push({ values: s.values, next: s.next, step: s.metadata?.step });
    return history;
  };
  const saver = new AgentmemSaver((await newUser()).client);
  const ours = await Promise.all(Array.from({ length: 20 }, (_, n) => run(saver, n)));
  const memory = new MemorySaver();
  const theirs = await Promise.all(Array.from({ length: 20 }, (_, n) => run(memory, n)));
  expect(ours).toEqual(theirs);
  expect(ours[3][0].values.parts).toEqual(["joined 4", "t3!#0", "t3!#1", "t3!#2", "t3!#3"]);
}, 120_000);
