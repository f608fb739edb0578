// The saver's edges: options and arguments a caller can get wrong, for both backends, are
// invalid_input and write nothing; a caller's serializer that misbehaves is an
// AgentmemError, never an unhandled rejection.
import { emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import { AgentmemError } from "agentmem-supabase";
import { AgentmemSaver } from "agentmem-supabase/langgraph";
import { newUser, recording } from "./stack.mjs";

const uid = () => crypto.randomUUID();
const meta = { source: "loop", step: 1, parents: {} };
const checkpoint = () => ({ ...emptyCheckpoint(), id: uuid6(0), channel_values: { n: 1 }, channel_versions: { n: 1 } });
const revoked = () => {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
};
const deep = (depth) => {
  let v = "x";
  for (let i = 0; i < depth; i++) v = [v];
  return v;
};
const cyclic = () => {
  const o = {};
  o.self = o;
  return o;
};

async function invalid(run, field, what = field) {
  const error = await Promise.resolve().then(run).then(() => null, (e) => e);
  expect(error, what).toBeInstanceOf(AgentmemError);
  expect(error, `${what}: ${error?.message}`).toMatchObject({ code: "invalid_input", ...(field ? { field } : {}) });
  return error;
}

// Unhandled rejections fail this file (vitest reports them), so each case below also
// proves nothing was left rejecting in the background.
test("constructor and inMemory options are checked: null, cyclic, BigInt, a serde that is not one", async () => {
  const { client } = await newUser();
  await invalid(() => new AgentmemSaver(client, null), "options");
  await invalid(() => new AgentmemSaver(client, 5), "options");
  await invalid(() => new AgentmemSaver(client, revoked()), "options");
  await invalid(() => new AgentmemSaver(client, { fallback: cyclic() }), "fallback");
  await invalid(() => new AgentmemSaver(client, { fallback: 10n }), "fallback");
  await invalid(() => new AgentmemSaver(client, { fallback: Symbol("memory") }), "fallback");
  await invalid(() => new AgentmemSaver(client, { serde: 5 }), "serde");
  await invalid(() => new AgentmemSaver(client, { serde: {} }), "serde");
  await invalid(() => new AgentmemSaver(client, { serde: { dumpsTyped() {} } }), "serde");
  await invalid(() => new AgentmemSaver(client, { serde: revoked() }), "serde");
  await invalid(() => new AgentmemSaver(revoked()), "options");
  await invalid(() => AgentmemSaver.inMemory(null), "options");
  await invalid(() => AgentmemSaver.inMemory({ serde: 5 }), "serde");
  await invalid(() => AgentmemSaver.inMemory({ serde: null }), "serde");
  await invalid(() => AgentmemSaver.inMemory({ fallback: "memory" }), "fallback");
  await invalid(() => AgentmemSaver.inMemory({ seder: {} }), "seder");
  expect(AgentmemSaver.inMemory({}).backend).toBe("memory");
});

test("bad arguments are invalid_input on both backends, before anything is stored", async () => {
  const { client } = await newUser();
  const savers = { postgrest: new AgentmemSaver(client), memory: AgentmemSaver.inMemory() };
  const { requests } = await recording(async () => {
    for (const [backend, saver] of Object.entries(savers)) {
      const thread = `bad-${backend}-${uid()}`;
      const cfg = { configurable: { thread_id: thread, checkpoint_id: uuid6(0) } };
      const cases = {
        "putWrites with a number for a pair": [() => saver.putWrites(cfg, [1], "t"), "writes[0]"],
        "putWrites with null for a pair": [() => saver.putWrites(cfg, [null], "t"), "writes[0]"],
        "putWrites with a string for a pair": [() => saver.putWrites(cfg, ["messages"], "t"), "writes[0]"],
        "putWrites with a 3-tuple": [() => saver.putWrites(cfg, [["a", 1, 2]], "t"), "writes[0]"],
        "putWrites with a revoked Proxy": [() => saver.putWrites(cfg, revoked(), "t"), "writes"],
        "putWrites without taskId": [() => saver.putWrites(cfg, [["a", 1]]), "taskId"],
        "putWrites without a checkpoint id": [() => saver.putWrites({ configurable: { thread_id: thread } }, [["a", 1]], "t"), "config.configurable.checkpoint_id"],
        "cleanupOldCheckpoints(Symbol())": [() => saver.cleanupOldCheckpoints(Symbol("x")), "daysOld"],
        "cleanupOldCheckpoints(10n)": [() => saver.cleanupOldCheckpoints(10n), "daysOld"],
        "put without a thread": [() => saver.put({ configurable: {} }, checkpoint(), meta, { n: 1 }), "config.configurable.thread_id"],
        "put with a BigInt in the checkpoint": [() => saver.put(cfg, { ...checkpoint(), extra: 1n }, meta, { n: 1 }), "checkpoint"],
        "put with a cyclic newVersions": [() => saver.put(cfg, checkpoint(), meta, cyclic()), "newVersions"],
        "put with a revoked config": [() => saver.put(revoked(), checkpoint(), meta, { n: 1 }), "config"],
        "put with metadata that is not an object": [() => saver.put(cfg, checkpoint(), "x", { n: 1 }), "metadata"],
        "getTuple with a numeric thread id": [() => saver.getTuple({ configurable: { thread_id: 5 } }), "config.configurable.thread_id"],
        "getTuple with a throwing configurable": [() => saver.getTuple({ get configurable() { throw new Error("no"); } }), "config"],
        "list with a bad limit": [async () => { for await (const _ of saver.list({}, { limit: -1 })); }, "options.limit"],
        "list with a revoked options": [async () => { for await (const _ of saver.list({}, revoked())); }, "options"],
        "deleteThread(5)": [() => saver.deleteThread(5), "threadId"],
        // 10,000 levels deep: past JSON.stringify's and the serializer's stack.
        "getTuple with a 10,000-deep thread id": [() => saver.getTuple({ configurable: { thread_id: deep(10_000) } }), "config.configurable"],
        "list with a 10,000-deep filter": [async () => { for await (const _ of saver.list({}, { filter: { a: deep(10_000) } })); }, "options"],
        "put with a 10,000-deep checkpoint": [() => saver.put(cfg, { ...checkpoint(), extra: deep(10_000) }, meta, { n: 1 }), "checkpoint"],
        "put with a 10,000-deep channel value": [() => saver.put(cfg, { ...checkpoint(), channel_values: { n: deep(10_000) } }, meta, { n: 1 }), null],
        "put with 10,000-deep metadata": [() => saver.put(cfg, checkpoint(), { ...meta, extra: deep(10_000) }, { n: 1 }), "metadata"],
        "put with 10,000-deep newVersions": [() => saver.put(cfg, checkpoint(), meta, { n: deep(10_000) }), "newVersions"],
        "putWrites with a 10,000-deep value": [() => saver.putWrites(cfg, [["a", deep(10_000)]], "t"), null],
        "putWrites with a 10,000-deep task id": [() => saver.putWrites(cfg, [["a", 1]], deep(10_000)), "taskId"],
        "deleteThread with a 10,000-deep id": [() => saver.deleteThread(deep(10_000)), "threadId"],
      };
      for (const [what, [run, field]] of Object.entries(cases)) await invalid(run, field, `${backend}: ${what}`);
      expect(await saver.getTuple({ configurable: { thread_id: thread } }), backend).toBeUndefined();
    }
  });
  // Only the postgrest backend's final getTuple reached the server.
  expect(requests).toEqual(["POST /rpc/langgraph_get_tuple"]);
});

test("a serializer that throws, rejects or returns junk is an AgentmemError with its cause", async () => {
  const { client } = await newUser();
  const boom = new Error("serde exploded");
  const serde = (dumpsTyped, loadsTyped = async () => null) => ({ dumpsTyped, loadsTyped });
  const cfg = { configurable: { thread_id: `serde-${uid()}` } };
  const cases = [
    [serde(() => { throw boom; }), boom],
    [serde(async () => { throw boom; }), boom],
    [serde(() => ["json", revoked()]), undefined],
    [serde(() => revoked()), undefined],
    [serde(() => null), undefined],
  ];
  for (const [s, cause] of cases) {
    const e = await invalid(() => new AgentmemSaver(client, { serde: s }).put(cfg, checkpoint(), meta, { n: 1 }), "values[0]");
    if (cause) expect(e.cause).toBe(cause);
  }
  // Only metadata fails: the values serialized, the metadata did not.
  let calls = 0;
  const second = serde(async (v) => (++calls === 2 ? Promise.reject(boom) : ["json", new TextEncoder().encode(JSON.stringify(v))]));
  const e = await invalid(() => new AgentmemSaver(client, { serde: second }).put(cfg, checkpoint(), meta, { n: 1 }), "metadata");
  expect(e.cause).toBe(boom);

  // Reading back with a serializer that cannot read what is stored: `server`, with the cause.
  const saver = new AgentmemSaver(client);
  const config = await saver.put(cfg, checkpoint(), meta, { n: 1 });
  const unreadable = new AgentmemSaver(client, { serde: serde(async () => ["json", new Uint8Array()], async () => { throw boom; }) });
  const read = await unreadable.getTuple(config).then(() => null, (e) => e);
  expect(read).toBeInstanceOf(AgentmemError);
  expect(read).toMatchObject({ code: "server", cause: boom });
});
