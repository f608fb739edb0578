// AgentmemSaver against the real stack (Postgres + RLS behind agentmem-gateway), beyond the
// upstream suite: round trips per operation measured at the gateway, a dropped connection,
// row-level security between two users, typed errors for bad input, value fidelity, the
// explicit memory fallback, retention and metrics, list paging past max-rows, and a real
// LangGraph graph resumed by a second Node process.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import pg from "pg";
import { emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import { AgentmemError, createClient } from "agentmem-supabase";
import { AgentmemSaver } from "agentmem-supabase/langgraph";
import { buildGraph, describe as describeState } from "./graph.mjs";
import { env, gatewayWithMaxRows, newUser, recording, service, url } from "./stack.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const toArray = async (gen) => {
  const out = [];
  for await (const x of gen) out.push(x);
  return out;
};
const uid = () => crypto.randomUUID();
const meta = (extra = {}) => ({ source: "loop", step: 1, parents: {}, ...extra });
/** A v4 checkpoint with these channel values, every channel at version `version`. */
function checkpoint(values = {}, version = 1) {
  return {
    ...emptyCheckpoint(),
    id: uuid6(0),
    channel_values: values,
    channel_versions: Object.fromEntries(Object.keys(values).map((k) => [k, version])),
  };
}
const versions = (cp) => ({ ...cp.channel_versions });
/** Metrics of a user's thread as the service role acting for the user sees them: every row
 *  of it, whatever row-level security would allow. */
const serviceMetrics = async (user, thread) =>
  (await service().actingFor(user.id).rpc("langgraph_checkpoint_metrics", { p_thread_id: thread })).data;
const rpc = (fn) => `POST /rpc/${fn}`;

test("each saver operation is exactly one request", async () => {
  const saver = new AgentmemSaver((await newUser()).client);
  const thread = `ops-${uid()}`;
  const cp = checkpoint({ messages: [new HumanMessage("hi")], n: 1 });
  let config;
  const measured = {};
  const expectOne = async (name, fn, expected) => {
    const { result, requests } = await recording(fn);
    measured[name] = requests.length;
    expect(requests, name).toEqual([rpc(expected)]);
    return result;
  };
  config = await expectOne("put", () => saver.put({ configurable: { thread_id: thread } }, cp, meta(), versions(cp)), "langgraph_put");
  await expectOne("putWrites", () => saver.putWrites(config, [["n", 2], ["__error__", "boom"], ["messages", new AIMessage("yo")]], "task-1", "~1"), "langgraph_put_writes");
  const tuple = await expectOne("getTuple", () => saver.getTuple({ configurable: { thread_id: thread } }), "langgraph_get_tuple");
  expect(tuple.pendingWrites.map(([, ch]) => ch)).toEqual(["__error__", "n", "messages"]);
  await expectOne("getTuple (by id)", () => saver.getTuple(config), "langgraph_get_tuple");
  await expectOne("list (limit)", () => toArray(saver.list({ configurable: { thread_id: thread } }, { limit: 5 })), "langgraph_list");
  await expectOne("list (no limit, all namespaces)", () => toArray(saver.list({ configurable: { thread_id: thread } })), "langgraph_list");
  await expectOne("list (every thread, filter)", () => toArray(saver.list({}, { filter: { source: "loop" } })), "langgraph_list");
  await expectOne("metrics", () => saver.metrics(thread), "langgraph_checkpoint_metrics");
  await expectOne("cleanupOldCheckpoints", () => saver.cleanupOldCheckpoints(30), "cleanup_old_checkpoints");
  await expectOne("deleteThread", () => saver.deleteThread(thread), "langgraph_delete_thread");
  // Nothing to send, nothing sent: no thread to read, no writes to store.
  expect((await recording(() => saver.getTuple({ configurable: {} }))).requests).toEqual([]);
  expect((await recording(() => saver.putWrites(config, [], "task-1"))).requests).toEqual([]);
  console.log("requests per operation:", JSON.stringify(measured));
});

test("a put whose connection drops after commit is retried and stores exactly one checkpoint", async () => {
  const user = await newUser();
  const saver = new AgentmemSaver(user.client);
  const thread = `drop-${uid()}`;
  const cp = checkpoint({ a: "x".repeat(1000), b: new Uint8Array([1, 2, 3]) });
  const { result: config, requests } = await recording(
    () => saver.put({ configurable: { thread_id: thread } }, cp, meta(), versions(cp)),
    [{ action: "drop_after", path: "/rpc/langgraph_put", times: 1 }],
  );
  expect(requests).toEqual([rpc("langgraph_put"), rpc("langgraph_put")]);
  expect(config.configurable.checkpoint_id).toBe(cp.id);
  expect((await toArray(saver.list({ configurable: { thread_id: thread } }))).map((t) => t.checkpoint.id)).toEqual([cp.id]);
  expect(await serviceMetrics(user, thread)).toMatchObject({ checkpoint_count: 1, blob_count: 2, write_count: 0 });

  // The same for writes: the retry neither duplicates nor fails.
  const dropped = await recording(
    () => saver.putWrites(config, [["a", "w1"], ["b", "w2"]], "task"),
    [{ action: "drop_after", path: "/rpc/langgraph_put_writes", times: 1 }],
  );
  expect(dropped.requests).toEqual([rpc("langgraph_put_writes"), rpc("langgraph_put_writes")]);
  expect((await saver.getTuple(config)).pendingWrites).toEqual([["task", "a", "w1"], ["task", "b", "w2"]]);
  expect(await serviceMetrics(user, thread)).toMatchObject({ checkpoint_count: 1, blob_count: 2, write_count: 2 });
});

test("user B using A's thread ids gets B's own thread: A's is neither visible nor changed, and nothing tells B it exists", async () => {
  const [a, b] = [await newUser(), await newUser()];
  const [A, B] = [new AgentmemSaver(a.client), new AgentmemSaver(b.client)];
  const thread = `tenancy-${uid()}`;
  const cp = checkpoint({ secret: "A's data" });
  const config = await A.put({ configurable: { thread_id: thread } }, cp, meta(), versions(cp));
  await A.putWrites(config, [["secret", "pending"]], "task-a");
  const before = await serviceMetrics(a, thread);

  expect(await B.getTuple({ configurable: { thread_id: thread } })).toBeUndefined();
  expect(await B.getTuple(config)).toBeUndefined();
  expect(await toArray(B.list({ configurable: { thread_id: thread } }))).toEqual([]);
  expect((await toArray(B.list({}))).map((t) => t.config.configurable.thread_id)).not.toContain(thread);
  expect(await B.metrics(thread)).toMatchObject({ checkpoint_count: 0, write_count: 0, blob_count: 0 });
  await B.deleteThread(thread);
  expect(await B.cleanupOldCheckpoints(1)).toBe(0);

  // B writes under the same thread id, even the same checkpoint id: B's own thread.
  const cp2 = { ...checkpoint({ secret: "B's data" }, 2), id: cp.id };
  const bConfig = await B.put({ configurable: { thread_id: thread } }, cp2, meta(), versions(cp2));
  await B.putWrites(bConfig, [["secret", "B"]], "task-a");
  await B.putWrites(bConfig, [["__error__", "B"]], "task-a");
  expect((await B.getTuple(bConfig)).checkpoint).toEqual(cp2);
  expect((await B.getTuple(bConfig)).pendingWrites).toEqual([["task-a", "__error__", "B"], ["task-a", "secret", "B"]]);

  expect(await serviceMetrics(a, thread)).toEqual(before);
  const still = await A.getTuple({ configurable: { thread_id: thread } });
  expect(still.checkpoint).toEqual(cp);
  expect(still.pendingWrites).toEqual([["task-a", "secret", "pending"]]);
  // B deleting its thread leaves A's alone.
  await B.deleteThread(thread);
  expect(await B.getTuple(bConfig)).toBeUndefined();
  expect((await A.getTuple(config)).checkpoint).toEqual(cp);
  // The service role acting for A reads A's thread under A's thread id.
  const forA = new AgentmemSaver(service().actingFor(a.id));
  expect((await forA.getTuple({ configurable: { thread_id: thread } })).checkpoint).toEqual(cp);
  expect(await new AgentmemSaver(service()).getTuple({ configurable: { thread_id: thread } })).toBeUndefined();
});

test("a server on the service role: a client-chosen thread id names the service's own thread, never a user's", async () => {
  const b = await newUser();
  const thread = `server-${uid()}`;
  const cp = checkpoint({ secret: "B's data" });
  await new AgentmemSaver(b.client).put({ configurable: { thread_id: thread } }, cp, meta(), versions(cp));
  const server = new AgentmemSaver(service());
  // What a visitor would send to an edge function that passes their thread id on.
  for (const visitorChosen of [`${b.id}/${thread}`, `${b.id}/x`]) {
    const refused = await server.getTuple({ configurable: { thread_id: visitorChosen } }).then(() => null, (e) => e);
    expect(refused).toBeInstanceOf(AgentmemError);
    expect(refused.code).toBe("forbidden");
    await expect(server.put({ configurable: { thread_id: visitorChosen } }, checkpoint({ secret: "planted" }), meta(), {})).rejects.toMatchObject({ code: "forbidden" });
    await expect(server.deleteThread(visitorChosen)).rejects.toMatchObject({ code: "forbidden" });
  }
  expect(await server.getTuple({ configurable: { thread_id: thread } })).toBeUndefined();
  // The explicit step: acting for B.
  expect((await new AgentmemSaver(service().actingFor(b.id)).getTuple({ configurable: { thread_id: thread } })).checkpoint).toEqual(cp);
  expect((await new AgentmemSaver(b.client).getTuple({ configurable: { thread_id: thread } })).checkpoint).toEqual(cp);
  // Acting for an id that is no user: refused, like a forged one.
  await expect(new AgentmemSaver(service().actingFor(uid())).getTuple({ configurable: { thread_id: thread } })).rejects.toMatchObject({ code: "forbidden" });
});

test("ids longer than 255 characters are invalid_input naming the field, before anything is sent", async () => {
  const { client } = await newUser();
  const saver = new AgentmemSaver(client);
  const cp = checkpoint({ n: 1 });
  const long = "t".repeat(256);
  const { requests } = await recording(async () => {
    for (const [call, field] of [
      [() => saver.getTuple({ configurable: { thread_id: "t".repeat(3000) } }), "config.configurable.thread_id"],
      [() => saver.put({ configurable: { thread_id: long } }, cp, meta(), versions(cp)), "config.configurable.thread_id"],
      [() => saver.put({ configurable: { thread_id: "t", checkpoint_ns: long } }, cp, meta(), versions(cp)), "config.configurable.checkpoint_ns"],
      [() => saver.put({ configurable: { thread_id: "t" } }, { ...cp, id: long }, meta(), versions(cp)), "checkpoint.id"],
      [() => saver.put({ configurable: { thread_id: "t" } }, checkpoint({ [long]: 1 }), meta(), { [long]: 1 }), `newVersions.${long}`],
      [() => saver.putWrites({ configurable: { thread_id: "t", checkpoint_id: cp.id } }, [["x", 1]], long), "taskId"],
      [() => toArray(saver.list({ configurable: { thread_id: long } })), "config.configurable.thread_id"],
    ]) {
      await expect(call()).rejects.toMatchObject({ code: "invalid_input", field });
    }
  });
  expect(requests).toEqual([]);
});

test("a value already stored at a version with other content is a conflict, never silently the other value", async () => {
  const [a, b] = [await newUser(), await newUser()];
  const thread = `conflict-${uid()}`;
  const saver = new AgentmemSaver(a.client);
  const cp = checkpoint({ v: "first" });
  const config = await saver.put({ configurable: { thread_id: thread } }, cp, meta(), versions(cp));
  // The same put again (a retry) is accepted; other content at the same version is not.
  await saver.put({ configurable: { thread_id: thread } }, cp, meta(), versions(cp));
  const other = { ...checkpoint({ v: "second" }), id: uuid6(1) };
  await expect(saver.put({ configurable: { thread_id: thread } }, other, meta(), versions(other))).rejects.toMatchObject({ code: "conflict" });
  expect((await saver.getTuple({ configurable: { thread_id: thread } })).checkpoint).toEqual(cp);
  await saver.putWrites(config, [["x", "one"]], "task");
  await saver.putWrites(config, [["x", "one"]], "task");
  await expect(saver.putWrites(config, [["x", "two"]], "task")).rejects.toMatchObject({ code: "conflict" });
  expect((await saver.getTuple(config)).pendingWrites).toEqual([["task", "x", "one"]]);
  // Nothing of this is B's business: B's thread of the same id is B's own.
  expect(await new AgentmemSaver(b.client).getTuple({ configurable: { thread_id: thread } })).toBeUndefined();
});

test("a stored value the serializer cannot read is a server error naming the channel, the thread and the checkpoint", async () => {
  const user = await newUser();
  const saver = new AgentmemSaver(user.client);
  const thread = `undecodable-${uid()}`;
  const cp = checkpoint({ n: 1, ok: "fine" });
  const config = await saver.put({ configurable: { thread_id: thread } }, cp, meta(), versions(cp));
  // Only server code on the service role can write a table directly (the API roles write
  // through the RPCs); a value it stores in a shape the serializer does not read:
  const broken = await service().update("langgraph_checkpoint_blobs", { blob: "\\x7b6e6f74206a736f6e" }, {
    filters: [["thread_key", "eq", `${user.id}/${thread}`], ["channel", "eq", "n"]],
    returning: "representation",
  });
  expect(broken.data).toHaveLength(1);
  const e = await saver.getTuple({ configurable: { thread_id: thread } }).catch((x) => x);
  expect(e).toBeInstanceOf(AgentmemError);
  expect(e.code).toBe("server");
  expect(e.message).toContain(`the stored value of channel "n" of thread "${thread}", namespace "", checkpoint "${config.configurable.checkpoint_id}"`);
  expect(e.details).toContain(`thread "${thread}"`);
  // The thread's other reads still answer; another thread of the user reads as before.
  expect(await saver.listThreads({ prefix: thread })).toHaveLength(1);
  const other = checkpoint({ n: 2 });
  await saver.put({ configurable: { thread_id: `${thread}-other` } }, other, meta(), versions(other));
  expect((await saver.getTuple({ configurable: { thread_id: `${thread}-other` } })).checkpoint.channel_values).toEqual({ n: 2 });
});

test("bad input is a typed error, and nothing is sent", async () => {
  const user = await newUser();
  const { client } = user;
  const saver = new AgentmemSaver(client);
  const cp = checkpoint({ n: 1 });
  const cfg = { configurable: { thread_id: `bad-${uid()}`, checkpoint_id: cp.id } };
  const invalid = async (promise, field) => {
    const error = await promise.then(() => null, (e) => e);
    expect(error, field).toBeInstanceOf(AgentmemError);
    expect(error, field).toMatchObject({ code: "invalid_input", field });
  };
  const { requests } = await recording(async () => {
    await invalid(saver.put({}, cp, meta(), {}), "config.configurable");
    await invalid(saver.put({ configurable: {} }, cp, meta(), {}), "config.configurable.thread_id");
    await invalid(saver.put({ configurable: { thread_id: 42 } }, cp, meta(), {}), "config.configurable.thread_id");
    await invalid(saver.put({ configurable: { thread_id: "t", checkpoint_ns: ["x"] } }, cp, meta(), {}), "config.configurable.checkpoint_ns");
    await invalid(saver.put(cfg, { ...cp, id: "" }, meta(), {}), "checkpoint.id");
    await invalid(saver.put(cfg, undefined, meta(), {}), "checkpoint");
    await invalid(saver.put(cfg, { ...cp, channel_versions: 3 }, meta(), {}), "checkpoint.channel_versions");
    await invalid(saver.put(cfg, cp, meta(), { n: null }), "newVersions.n");
    await invalid(saver.put(cfg, cp, "not an object", {}), "metadata");
    await invalid(saver.putWrites({ configurable: { thread_id: "t" } }, [["a", 1]], "task"), "config.configurable.checkpoint_id");
    await invalid(saver.putWrites(cfg, [["a", 1]], ""), "taskId");
    await invalid(saver.putWrites(cfg, [["a", 1]], 7), "taskId");
    await invalid(saver.putWrites(cfg, "nope", "task"), "writes");
    await invalid(saver.putWrites(cfg, [[1, "x"]], "task"), "writes[0]");
    await invalid(toArray(saver.list({}, { limit: -1 })), "options.limit");
    await invalid(toArray(saver.list({}, { limit: 2.5 })), "options.limit");
    await invalid(toArray(saver.list({}, { filter: "source=loop" })), "options.filter");
    await invalid(toArray(saver.list({ configurable: { thread_id: 1 } })), "config.configurable.thread_id");
    await invalid(saver.deleteThread(5), "threadId");
    await invalid(saver.cleanupOldCheckpoints(0), "daysOld");
    await invalid(saver.cleanupOldCheckpoints("30"), "daysOld");
    await invalid(saver.metrics(5), "threadId");
    // A serializer that does not keep to the protocol is named, not trusted.
    const broken = new AgentmemSaver(client, { serde: { dumpsTyped: async () => ["json", "not bytes"], loadsTyped: async () => null } });
    await invalid(broken.put(cfg, cp, meta(), versions(cp)), "values[0]");
    const construct = async (fn, field) => invalid(Promise.resolve().then(fn), field);
    await construct(() => new AgentmemSaver({ url }), "apiKey");
    await construct(() => new AgentmemSaver(undefined), "options");
    await construct(() => new AgentmemSaver(client, { fallback: "disk" }), "fallback");
    await construct(() => new AgentmemSaver(client, { serde: undefined, fallbak: "memory" }), "fallbak");
  });
  expect(requests).toEqual([]);
  expect(await serviceMetrics(user, cfg.configurable.thread_id)).toMatchObject({ checkpoint_count: 0, write_count: 0, blob_count: 0 });
});

test("values, metadata and writes come back exactly, LangChain messages as message objects", async () => {
  const saver = new AgentmemSaver((await newUser()).client);
  const thread = `fidelity-${uid()}`;
  const sum = 0.1 + 0.2;
  const random = [Math.random(), Math.random() * 1e-300, Math.random() * 1e300];
  const values = {
    messages: [new HumanMessage({ content: "héllo 😀", id: "m1" }), new AIMessage({ content: [{ type: "text", text: "hi" }], additional_kwargs: { k: 1 } })],
    bytes: new Uint8Array([0, 1, 254, 255]),
    structures: { set: new Set([1, "a"]), map: new Map([["k", { v: [1, 2] }]]), date: "2026-01-01", nul: "a\u0000b", undef: undefined },
    empty: "",
    number: sum,
  };
  const cp = { ...checkpoint(values), channel_versions: { messages: 3, bytes: 2, structures: 1, empty: 1, number: 7, novalue: 4 } };
  const metadata = meta({ user: { id: "u1", tags: ["a", "b"] }, "k\u0000ey": "v\u0000al", sum, random, unicode: "∑ 𝄞" });
  const config = await saver.put({ configurable: { thread_id: thread, checkpoint_ns: "ns" } }, cp, metadata, versions(cp));
  await saver.putWrites(config, [["messages", new AIMessage("pending")], ["bytes", new Uint8Array([9])]], "task", "~0");

  const t = await saver.getTuple(config);
  // "novalue" is in newVersions without a value: stored as "empty", its version kept.
  expect(t.checkpoint.channel_versions).toEqual(cp.channel_versions);
  expect(Object.keys(t.checkpoint.channel_values).sort()).toEqual(Object.keys(values).sort());
  expect(t.checkpoint.channel_values).toEqual(values);
  expect(t.checkpoint.channel_values.messages[0]).toBeInstanceOf(HumanMessage);
  expect(t.checkpoint.channel_values.messages[1]).toBeInstanceOf(AIMessage);
  expect(t.checkpoint.channel_values.bytes).toBeInstanceOf(Uint8Array);
  expect(t.checkpoint.channel_values.structures.set).toBeInstanceOf(Set);
  expect(t.checkpoint.channel_values.number).toBe(sum);
  // jsonb cannot hold U+0000: it is removed from metadata keys and strings, nothing else.
  expect(t.metadata).toEqual({ ...meta(), user: { id: "u1", tags: ["a", "b"] }, key: "val", sum, random, unicode: "∑ 𝄞" });
  expect(t.metadata.random).toEqual(random); // every double survives exactly
  expect(t.pendingWrites[0][2]).toBeInstanceOf(AIMessage);
  expect(t.pendingWrites).toEqual([["task", "messages", new AIMessage("pending")], ["task", "bytes", new Uint8Array([9])]]);

  // Filters match metadata by containment, including nested objects.
  const find = (filter) => toArray(saver.list({ configurable: { thread_id: thread } }, { filter }));
  expect(await find({ user: { id: "u1" } })).toHaveLength(1);
  expect(await find({ key: "val" })).toHaveLength(1);
  expect(await find({ "k\u0000ey": "v\u0000al" })).toHaveLength(1);
  expect(await find({ user: { id: "u2" } })).toHaveLength(0);
});

test("the memory backend is explicit: requested, or a reported fallback, never silent", async () => {
  const memory = AgentmemSaver.inMemory();
  expect([memory.backend, memory.fallbackReason]).toEqual(["memory", null]);
  const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
  try {
    const fallback = new AgentmemSaver(undefined, { fallback: "memory" });
    expect(fallback.backend).toBe("memory");
    expect(fallback.fallbackReason).toMatchObject({ name: "AgentmemError", code: "invalid_input" });
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0][0])).toMatch(/in-memory checkpoints/);
    const { token } = await newUser();
    const working = new AgentmemSaver({ url, apiKey: env.SUPABASE_ANON_KEY, accessToken: token }, { fallback: "memory" });
    expect([working.backend, working.fallbackReason]).toEqual(["postgrest", null]);
    expect(warn).toHaveBeenCalledTimes(1);
    // No identity (the anon key alone) is refused at construction, with the fix, and never
    // falls back: every operation would be refused.
    for (const options of [undefined, { fallback: "memory" }]) {
      expect(() => new AgentmemSaver({ url, apiKey: env.SUPABASE_ANON_KEY }, options)).toThrow(
        expect.objectContaining({ code: "unauthorized", field: "client", message: expect.stringContaining("accessToken") }),
      );
    }
    expect(warn).toHaveBeenCalledTimes(1);
  } finally {
    warn.mockRestore();
  }

  // It behaves like the database backend, including retention and metrics.
  const { requests } = await recording(async () => {
    const cfg = { configurable: { thread_id: "mem" } };
    const old = { ...checkpoint({ a: 1 }), ts: new Date(Date.now() - 40 * 86_400_000).toISOString() };
    const c1 = await memory.put(cfg, old, meta(), versions(old));
    await memory.putWrites(c1, [["a", 2]], "task");
    const c2 = await memory.put(c1, checkpoint({ a: 2 }, 2), meta({ step: 2 }), { a: 2 });
    expect((await memory.getTuple(c2)).parentConfig.configurable.checkpoint_id).toBe(old.id);
    expect(await memory.metrics("mem")).toMatchObject({ checkpoint_count: 2, write_count: 1, thread_count: 1 });
    expect(await memory.cleanupOldCheckpoints(30)).toBe(1);
    expect(await memory.metrics()).toMatchObject({ checkpoint_count: 1, write_count: 0 });
    await memory.deleteThread("mem");
    expect(await memory.getTuple(cfg)).toBeUndefined();
  });
  expect(requests).toEqual([]);
});

test("retention deletes old checkpoints but each thread's latest, only the caller's", async () => {
  const [a, b] = [await newUser(), await newUser()];
  const [A, B] = [new AgentmemSaver(a.client), new AgentmemSaver(b.client)];
  const thread = `retention-${uid()}`;
  let config = { configurable: { thread_id: thread } };
  const ids = [];
  for (let i = 1; i <= 3; i += 1) {
    const cp = checkpoint({ n: i }, i);
    config = await A.put(config, cp, meta({ step: i }), versions(cp));
    await A.putWrites(config, [["n", i]], `task-${i}`);
    ids.push(cp.id);
  }
  const old = new Date(Date.now() - 40 * 86_400_000).toISOString();
  // created_at is the database's: a caller's value is ignored, even the service role's...
  const key = [["thread_key", "eq", `${a.id}/${thread}`]];
  await service().update("langgraph_checkpoints", { created_at: old }, { filters: key });
  expect(await A.cleanupOldCheckpoints(30)).toBe(0);
  // ...so the rows are aged the way only the database owner can, with triggers off.
  const db = new pg.Client({ connectionString: env.AGENTMEM_DB_URL });
  await db.connect();
  try {
    await db.query("set session_replication_role = replica");
    for (const table of ["langgraph_checkpoints", "langgraph_checkpoint_writes"]) {
      await db.query(`update ${table} set created_at = $1 where thread_key = $2`, [old, `${a.id}/${thread}`]);
    }
  } finally {
    await db.end();
  }

  expect(await B.cleanupOldCheckpoints(30)).toBe(0);
  expect(await A.cleanupOldCheckpoints(60)).toBe(0);
  expect(await A.cleanupOldCheckpoints(30)).toBe(2);
  const left = await toArray(A.list({ configurable: { thread_id: thread } }));
  expect(left.map((t) => t.checkpoint.id)).toEqual([ids[2]]);
  expect(left[0].checkpoint.channel_values).toEqual({ n: 3 });
  expect(left[0].pendingWrites).toEqual([["task-3", "n", 3]]);
  const m = await A.metrics(thread);
  expect(m).toMatchObject({ checkpoint_count: 1, write_count: 1, blob_count: 1, thread_count: 1 });
  expect(m.total_bytes).toBe(m.checkpoint_bytes + m.blob_bytes + m.write_bytes);
  expect(Date.parse(m.last_checkpoint_at)).toBe(Date.parse(old));
});

test("list pages past the server's max-rows instead of truncating", async () => {
  const gw = await gatewayWithMaxRows(2);
  try {
    // Started without --admin: its /__gateway/* routes (fault injection, request log) are off.
    expect((await fetch(`${gw.url}/__gateway/requests`)).status).toBe(404);
    expect((await fetch(`${gw.url}/__gateway/faults`, { method: "PUT", body: "[]" })).status).toBe(404);
    const { token } = await newUser();
    const small = createClient({ url: gw.url, apiKey: env.SUPABASE_ANON_KEY, accessToken: token });
    const saver = new AgentmemSaver(small);
    const thread = `paging-${uid()}`;
    const ids = [];
    let config = { configurable: { thread_id: thread } };
    for (let i = 0; i < 5; i += 1) {
      const cp = checkpoint({ i }, i + 1);
      config = await saver.put(config, cp, meta({ step: i }), versions(cp));
      ids.unshift(cp.id);
    }
    const all = await toArray(saver.list({ configurable: { thread_id: thread } }));
    expect(all.map((t) => t.checkpoint.id)).toEqual(ids);
    expect(all.map((t) => t.checkpoint.channel_values.i)).toEqual([4, 3, 2, 1, 0]);
    const limited = await toArray(saver.list({ configurable: { thread_id: thread } }, { limit: 4 }));
    expect(limited.map((t) => t.checkpoint.id)).toEqual(ids.slice(0, 4));
    expect((await toArray(saver.list({ configurable: { thread_id: thread } }, { limit: 2, before: limited[1].config }))).map((t) => t.checkpoint.id)).toEqual(ids.slice(2, 4));
  } finally {
    gw.close();
  }
});

test("a LangGraph graph runs with the saver, and a second process resumes the thread", async () => {
  const { token, client } = await newUser();
  const thread = `graph-${uid()}`;
  const config = { configurable: { thread_id: thread } };
  const graph = buildGraph(new AgentmemSaver(client));
  const { requests } = await recording(() => graph.invoke({ messages: [new HumanMessage("hello")] }, config));
  expect(requests.every((r) => /^POST \/rpc\/langgraph_(put|put_writes|get_tuple)$/.test(r)), requests.join()).toBe(true);
  console.log(`graph run (input, plan, act, interrupt): ${requests.length} requests:`, requests.map((r) => r.slice(10)).join(", "));

  const first = describeState(await graph.getState(config));
  expect(first).toMatchObject({
    next: ["review"],
    steps: 2,
    messages: [["HumanMessage", "hello"], ["AIMessage", "plan after 0 steps"], ["AIMessage", "act after 1 steps"]],
    humanIsHumanMessage: true,
  });

  const { stdout } = await promisify(execFile)(process.execPath, ["--preserve-symlinks", "graph.mjs", "resume"], {
    cwd: here,
    env: { ...process.env, SUPABASE_URL: url, SUPABASE_ANON_KEY: env.SUPABASE_ANON_KEY, ACCESS_TOKEN: token, THREAD_ID: thread },
  });
  const second = JSON.parse(stdout);
  expect(second.before).toEqual(first);
  expect(second.after).toEqual({
    next: [],
    steps: 3,
    messages: [["HumanMessage", "hello"], ["AIMessage", "plan after 0 steps"], ["AIMessage", "act after 1 steps"], ["AIMessage", "review after 2 steps"]],
    humanIsHumanMessage: true,
    notes: [["plan", 0, [0, 255]], ["act", 1, [1, 255]], ["review", 2, [2, 255]]],
  });
  expect(second.history).toBe(5); // input, plan, act, review and the initial empty checkpoint

  // This process sees what the other one stored; another user sees nothing of it.
  expect(describeState(await graph.getState(config))).toEqual(second.after);
  const stranger = buildGraph(new AgentmemSaver((await newUser()).client));
  expect((await stranger.getState(config)).values).toEqual({});
});

test("list sends each stored value once per answer, and JSON values as text (not base64)", async () => {
  const user = await newUser();
  let received = 0;
  const counting = async (url, init) => {
    const response = await fetch(url, init);
    const text = await response.text();
    received += text.length;
    return new Response(text, { status: response.status, headers: response.headers });
  };
  const saver = new AgentmemSaver(createClient({ url, apiKey: env.SUPABASE_ANON_KEY, accessToken: user.token, fetch: counting }));
  const big = "x".repeat(50_000);
  const thread = `dedupe-${uid()}`;
  let config = { configurable: { thread_id: thread } };
  for (let step = 1; step <= 10; step += 1) {
    // `big` is written once (version 1); only `n` changes afterwards.
    const cp = { ...checkpoint({ big, n: step }), channel_versions: { big: 1, n: step } };
    config = await saver.put(config, cp, meta({ step }), step === 1 ? { big: 1, n: 1 } : { n: step });
  }
  received = 0;
  const listed = await toArray(saver.list({ configurable: { thread_id: thread } }));
  expect(listed).toHaveLength(10);
  for (const t of listed) expect(t.checkpoint.channel_values.big).toBe(big);
  expect(new Set(listed.map((t) => t.checkpoint.channel_values.n))).toEqual(new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]));
  // Ten tuples of a 50 KB value in one answer: the value travels once, as JSON text.
  expect(received).toBeGreaterThan(50_000);
  expect(received).toBeLessThan(60_000);
  // Each tuple is its own object graph (the shared value is deserialized per tuple).
  listed[0].checkpoint.channel_values.n = "changed";
  expect(listed[1].checkpoint.channel_values.n).not.toBe("changed");
});
