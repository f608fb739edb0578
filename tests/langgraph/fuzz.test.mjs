// Seeded hostile calls across every export of both entries (agentmem and
// agentmem-supabase/langgraph): throwing getters, Proxy traps, revoked Proxies, cyclic and BigInt
// values, and injected fetch / embed / serde that throw, hang or return junk. Every call
// must return, throw or reject with an AgentmemError and settle; afterwards the module
// must still be sound: uuid5 equals CPython's, and real calls against the stack work.
//
// AGENTMEM_FUZZ_SEED and AGENTMEM_FUZZ_CALLS replay or extend a run.
import { execFileSync } from "node:child_process";
import * as agentmem from "agentmem-supabase";
import * as langgraph from "agentmem-supabase/langgraph";
import { emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import { env, newUser, url } from "./stack.mjs";

const SEED = Number(process.env.AGENTMEM_FUZZ_SEED ?? 20261124);
const CALLS = Number(process.env.AGENTMEM_FUZZ_CALLS ?? 12_000);
const SETTLE_MS = 5_000; // far above every time limit the fuzzed clients and tools use

const { AgentmemError, AgentmemClient, MemoryTools, UnifiedStateManager, WorkflowStateStore, ResearchStore } = agentmem;
const { AgentmemSaver } = langgraph;

/** mulberry32: small, seedable, good enough to pick cases. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hostileValues(random) {
  const boom = () => {
    throw new Error("caller's getter threw");
  };
  const revoked = () => {
    const { proxy, revoke } = Proxy.revocable(random() < 0.5 ? {} : [], {});
    revoke();
    return proxy;
  };
  const trapping = (target) =>
    new Proxy(target, { get: boom, has: boom, ownKeys: boom, getOwnPropertyDescriptor: boom, getPrototypeOf: boom });
  const getterArray = () => {
    const a = ["a", "b"];
    Object.defineProperty(a, 1, { get: boom, enumerable: true });
    return a;
  };
  const getterObject = () => Object.defineProperty({ a: 1 }, "thread_id", { get: boom, enumerable: true });
  const cyclic = () => {
    const o = { a: [] };
    o.a.push(o);
    return o;
  };
  const badToJson = () => ({ toJSON: boom });
  return [
    () => undefined, () => null, () => NaN, () => Infinity, () => -0, () => 1.5, () => 2 ** 53 + 2, () => "", () => "x",
    () => "\ud800", () => "a\r\nb", () => "y".repeat(3000), () => Symbol("s"), () => 10n, () => true,
    () => ({}), () => [], () => [[]], revoked, () => trapping({}), () => trapping([]), getterArray, getterObject, cyclic,
    badToJson, () => ({ toJSON: () => 1n }), () => new Date(NaN), () => () => {}, () => new Map([[1, 2]]),
    () => new Uint8Array(3), () => new BigInt64Array(2), () => [, 1], () => Object.create(null),
    () => ({ configurable: trapping({}) }), () => ({ configurable: { thread_id: trapping({}) } }),
    () => ({ configurable: { thread_id: "t", checkpoint_id: getterObject() } }),
    () => ({ query: getterObject() }), () => ({ content: revoked(), memory_type: "fact" }),
    () => ({ session_id: "s", conversations: getterArray() }), () => [["channel", revoked()]], () => [revoked()],
    () => ({ limit: NaN }), () => ({ filters: [["id", "eq", trapping({})]] }), () => ({ headers: trapping({}) }),
  ];
}

/** Injected dependencies that misbehave in every way io.js must absorb. */
function injected(random) {
  const boom = new Error("injected dependency threw");
  const fetches = [
    () => { throw boom; },
    () => Promise.reject(boom),
    () => new Promise(() => {}),
    () => Promise.resolve(null),
    () => Promise.resolve({}),
    () => Promise.resolve({ status: 200, headers: {}, text: () => Promise.resolve("[]") }),
    () => Promise.resolve({ status: 200, headers: { get() { throw boom; } }, text: () => Promise.resolve("[]") }),
    () => Promise.resolve(new Response("not json", { status: 200 })),
    () => Promise.resolve(new Response('{"code":"57P01","message":"terminating"}', { status: 500 })),
    () => ({ then() { throw boom; } }),
    (u, init) => fetch(u, init),
  ];
  const vector = () => Array.from({ length: 384 }, (_, i) => (i % 7) + 1);
  const embeds = [
    () => { throw boom; },
    () => Promise.reject(boom),
    () => new Promise(() => {}),
    () => [new BigInt64Array(384)],
    () => { const v = vector(); Object.defineProperty(v, 3, { get() { throw boom; } }); return [v]; },
    () => [new Proxy(vector(), { get() { throw boom; } })],
    () => new Proxy([vector()], { get() { throw boom; } }),
    () => null,
    () => [vector().slice(2)],
    (texts) => texts.map(vector),
  ];
  const serdes = [
    { dumpsTyped() { throw boom; }, loadsTyped() { throw boom; } },
    { dumpsTyped: async () => ["json", new Proxy(new Uint8Array(2), { get() { throw boom; } })], loadsTyped: async () => null },
    { dumpsTyped: async () => null, loadsTyped: async () => undefined },
    { dumpsTyped: async (v) => ["json", new TextEncoder().encode(JSON.stringify(v ?? null))], loadsTyped: async () => { throw boom; } },
  ];
  const pick = (list) => list[Math.floor(random() * list.length)];
  return { fetch: () => pick(fetches), embed: () => pick(embeds), serde: () => pick(serdes) };
}

const python = (names) =>
  execFileSync(process.env.PYTHON ?? "python3", ["-c", "import json,sys,uuid\nfor n in json.load(sys.stdin): print(uuid.uuid5(uuid.NAMESPACE_DNS, n))"], {
    input: JSON.stringify(names),
  }).toString().trim().split("\n");

test(`${CALLS} seeded hostile calls (seed ${SEED}) across both entries: only AgentmemErrors, all settled, module sound`, { timeout: 600_000 }, async () => {
  const random = rng(SEED);
  const values = hostileValues(random);
  const deps = injected(random);
  const user = await newUser();
  const any = () => values[Math.floor(random() * values.length)]();
  const pick = (list) => list[Math.floor(random() * list.length)];
  const maybe = (good) => (random() < 0.5 ? good : any());

  // Clients the calls go through: the real user, and clients whose fetch misbehaves
  // (short time limits, so a hanging fetch costs 20 ms).
  const realClient = user.client;
  const hostileClient = () =>
    agentmem.createClient({ url, apiKey: env.SUPABASE_ANON_KEY, accessToken: user.token, timeoutMs: 20, retries: random() < 0.5 ? 0 : 1, fetch: deps.fetch() });
  const clientOf = () => (random() < 0.5 ? realClient : hostileClient());
  const tools = () =>
    new MemoryTools({ client: clientOf(), embed: random() < 0.8 ? deps.embed() : any(), agentId: maybe("fuzz"), embedTimeoutMs: 20 });
  const saver = () =>
    random() < 0.3 ? AgentmemSaver.inMemory(random() < 0.5 ? {} : { serde: deps.serde() }) : new AgentmemSaver(clientOf(), random() < 0.5 ? undefined : { serde: deps.serde() });
  const cp = () => ({ ...emptyCheckpoint(), id: uuid6(0), channel_values: { n: maybe(1) }, channel_versions: { n: 1 } });
  const cfg = () => maybe({ configurable: { thread_id: `fuzz-${user.id}`, checkpoint_id: uuid6(0) } });
  const list = async (gen) => {
    for await (const _ of gen) {
      // drain
    }
  };

  const ops = {
    uuid5: () => agentmem.uuid5(any(), maybe("dns")),
    uuid5Batch: () => agentmem.uuid5Batch(any(), maybe("dns")),
    conversationId: () => agentmem.conversationId(any(), any()),
    coiaThread: () => agentmem.coiaThread(maybe("chat"), any()),
    cimThreadId: () => agentmem.cimThreadId(any(), any()),
    supervisorThreadId: () => agentmem.supervisorThreadId(any(), any()),
    parseThreadId: () => agentmem.parseThreadId(any()),
    extractDealId: () => agentmem.extractDealId(any()),
    inspectToken: () => agentmem.inspectToken(any()),
    AgentmemError: () => new AgentmemError(any(), any(), any()),
    createClient: () => agentmem.createClient(maybe({ url, apiKey: maybe(env.SUPABASE_ANON_KEY), timeoutMs: any(), headers: any(), fetch: any() })),
    AgentmemClient: () => new AgentmemClient(any()),
    "client.select": () => clientOf().select(maybe("agent_memories"), any()),
    "client.insert": () => clientOf().insert(maybe("agent_memories"), any(), any()),
    "client.upsert": () => clientOf().upsert(maybe("agent_memories"), any(), any()),
    "client.update": () => clientOf().update(maybe("agent_memories"), any(), any()),
    "client.delete": () => clientOf().delete(maybe("agent_memories"), any()),
    "client.rpc": () => clientOf().rpc(maybe("test_create_user"), any(), any()),
    "client.withAccessToken": () => realClient.withAccessToken(any()),
    "client.headersFor": () => realClient.headersFor(any()),
    "client.identity": () => clientOf().identity,
    MemoryTools: () => new MemoryTools(maybe({ client: maybe(realClient), embed: maybe(deps.embed()), agentId: maybe("fuzz"), dimensions: any(), embedTimeoutMs: any() })),
    "MemoryTools.definitions": () => MemoryTools.definitions(any()),
    "tools.handle": () => tools().handle(maybe(pick(MemoryTools.toolNames)), any()),
    "tools.createMemory": () => tools().createMemory(maybe({ content: maybe("likes tea"), memory_type: maybe("preference") })),
    "tools.searchMemories": () => tools().searchMemories(maybe({ query: maybe("tea") })),
    "tools.updateMemory": () => tools().updateMemory(maybe({ memory_id: any(), content: any() })),
    "tools.deleteMemory": () => tools().deleteMemory(any()),
    "tools.getMemoryContext": () => tools().getMemoryContext(any()),
    UnifiedStateManager: () => new UnifiedStateManager(maybe({ client: clientOf(), extraFields: any() })),
    "unified.saveState": () => new UnifiedStateManager({ client: clientOf() }).saveState(maybe(`lead-${user.id}`), any(), any()),
    "unified.restoreState": () => new UnifiedStateManager({ client: clientOf() }).restoreState(any()),
    "unified.createCheckpoint": () => new UnifiedStateManager({ client: clientOf() }).createCheckpoint(any(), any()),
    "unified.restoreCheckpoint": () => new UnifiedStateManager({ client: clientOf() }).restoreCheckpoint(any()),
    "unified.leadForConversation": () => new UnifiedStateManager({ client: clientOf() }).leadForConversation(any()),
    "unified.deleteState": () => new UnifiedStateManager({ client: clientOf() }).deleteState(any()),
    "unified.conversationId": () => new UnifiedStateManager({ client: realClient }).conversationId(any()),
    WorkflowStateStore: () => new WorkflowStateStore(maybe({ client: clientOf(), removedFields: any() })),
    "workflow.create": () => new WorkflowStateStore({ client: clientOf() }).create(any()),
    "workflow.get": () => new WorkflowStateStore({ client: clientOf() }).get(any()),
    "workflow.update": () => new WorkflowStateStore({ client: clientOf() }).update(any(), any()),
    "workflow.list": () => new WorkflowStateStore({ client: clientOf() }).list(any()),
    "workflow.delete": () => new WorkflowStateStore({ client: clientOf() }).delete(any()),
    ResearchStore: () => new ResearchStore(maybe({ client: clientOf() })),
    "research.saveSession": () => new ResearchStore({ client: clientOf() }).saveSession(any()),
    "research.loadSession": () => new ResearchStore({ client: clientOf() }).loadSession(any()),
    "research.resumeSession": () => new ResearchStore({ client: clientOf() }).resumeSession(any()),
    "research.deleteSession": () => new ResearchStore({ client: clientOf() }).deleteSession(any()),
    "research.saveDraft": () => new ResearchStore({ client: clientOf() }).saveDraft(any(), any(), any(), any()),
    "research.loadDraft": () => new ResearchStore({ client: clientOf() }).loadDraft(any(), any()),
    "research.listDrafts": () => new ResearchStore({ client: clientOf() }).listDrafts(any(), any()),
    "research.workflowSummary": () => new ResearchStore({ client: clientOf() }).workflowSummary(any()),
    mergeState: () => agentmem.mergeState(any(), any()),
    validateState: () => agentmem.validateState(any()),
    validateTransition: () => agentmem.validateTransition(any(), any(), any()),
    normalizeWorkflowState: () => agentmem.normalizeWorkflowState(any(), any()),
    AgentmemSaver: () => new AgentmemSaver(maybe(realClient), any()),
    "AgentmemSaver.inMemory": () => AgentmemSaver.inMemory(any()),
    "saver.get": () => saver().get(cfg()),
    "saver.getTuple": () => saver().getTuple(cfg()),
    "saver.list": () => list(saver().list(cfg(), any())),
    "saver.put": () => saver().put(cfg(), maybe(cp()), maybe({ source: "loop", step: 1, parents: {} }), maybe({ n: 1 })),
    "saver.putWrites": () => saver().putWrites(cfg(), any(), maybe("task"), any()),
    "saver.deleteThread": () => saver().deleteThread(any()),
    "saver.cleanupOldCheckpoints": () => saver().cleanupOldCheckpoints(any()),
    "saver.metrics": () => saver().metrics(any()),
  };
  const names = Object.keys(ops);

  const counts = { calls: 0, values: 0, agentmemErrors: 0, internal: 0, other: 0, unsettled: 0 };
  const others = [];
  const unhandled = [];
  const onUnhandled = (e) => unhandled.push(e);
  process.on("unhandledRejection", onUnhandled);
  const warn = console.warn;
  const error = console.error;
  console.warn = () => {};
  console.error = () => {};
  const outcome = (name, e) => {
    if (e instanceof AgentmemError) {
      counts.agentmemErrors += 1;
      // `internal` means a bug in agentmem; none is expected.
      if (e.code === "internal") {
        counts.internal += 1;
        if (others.length < 10) others.push(`${name}: internal: ${e.message}`);
      }
    } else {
      counts.other += 1;
      if (others.length < 10) others.push(`${name}: ${e?.constructor?.name}: ${e?.message ?? e}`);
    }
  };
  const one = async () => {
    const name = names[Math.floor(random() * names.length)];
    counts.calls += 1;
    let result;
    try {
      result = ops[name]();
    } catch (e) {
      return outcome(name, e);
    }
    if (!(result instanceof Promise)) {
      counts.values += 1;
      return;
    }
    let timer;
    const late = new Promise((resolve) => (timer = setTimeout(() => resolve("unsettled"), SETTLE_MS)));
    try {
      if ((await Promise.race([result, late])) === "unsettled") {
        counts.unsettled += 1;
        if (others.length < 10) others.push(`${name}: never settled`);
      } else counts.values += 1;
    } catch (e) {
      outcome(name, e);
    } finally {
      clearTimeout(timer);
    }
  };
  try {
    for (let done = 0; done < CALLS; done += 8) await Promise.all(Array.from({ length: 8 }, one));
    await new Promise((r) => setTimeout(r, 100)); // let late rejections surface
  } finally {
    process.off("unhandledRejection", onUnhandled);
    console.warn = warn;
    console.error = error;
  }
  console.log(`fuzz seed ${SEED}: ${JSON.stringify(counts)} over ${names.length} operations`);
  expect(others).toEqual([]);
  expect(unhandled.map((e) => String(e))).toEqual([]);
  expect(counts.calls).toBeGreaterThanOrEqual(CALLS);
  expect(counts.agentmemErrors).toBeGreaterThan(CALLS / 4);

  // The module is sound: ids as CPython computes them, and real calls against the stack.
  const names5 = ["python.org", "", "😀 𝄞 é", "x".repeat(10240)];
  expect(names5.map((n) => agentmem.uuid5(n, "dns"))).toEqual(python(names5));
  expect(agentmem.uuid5Batch(names5, "dns")).toEqual(python(names5));
  const { status } = await realClient.select("agent_memories", { columns: "id", limit: 1 });
  expect(status).toBe(200);
  const s = new AgentmemSaver(realClient);
  const fresh = { ...emptyCheckpoint(), id: uuid6(0), channel_values: { n: 1 }, channel_versions: { n: 1 } };
  const config = await s.put({ configurable: { thread_id: `after-fuzz-${user.id}` } }, fresh, { source: "loop", step: 1, parents: {} }, { n: 1 });
  expect((await s.getTuple(config)).checkpoint.id).toBe(config.configurable.checkpoint_id);
  const good = new MemoryTools({ client: realClient, embed: (texts) => texts.map(() => Array.from({ length: 384 }, (_, i) => i + 1)), agentId: "after" });
  expect((await good.handle("create_memory", { content: "still works", memory_type: "fact" })).success).toBe(true);
});
