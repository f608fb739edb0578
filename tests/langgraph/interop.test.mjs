// One thread, two savers: LangGraph's own PostgresSaver (direct Postgres, as server code
// runs it, through supabase/optional/langgraph_postgres_saver.sql) and AgentmemSaver
// (PostgREST with a user's JWT, row-level security) continue each other's runs.
//
//   who wrote                          who read / resumed              thread id used by each
//   PostgresSaver (server)             AgentmemSaver (user A)          "<A>/T"   | "T"
//   AgentmemSaver (user A)             PostgresSaver (server)          "T"       | "<A>/T"
//   PostgresSaver (server)             AgentmemSaver (deal member)     "cim-{deal}-x" on both sides
//   AgentmemSaver (service role)       PostgresSaver                   "T" on both sides
import pg from "pg";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { AgentmemError } from "agentmem-supabase";
import { AgentmemSaver } from "agentmem-supabase/langgraph";
import { buildGraph, describe as describeState, HumanMessage } from "./graph.mjs";
import { scenarios } from "./timetravel.mjs";
import { env, newUser, service } from "./stack.mjs";

const uid = () => crypto.randomUUID();
let server;
let db;

beforeAll(async () => {
  server = PostgresSaver.fromConnString(env.AGENTMEM_DB_URL, { schema: "agentmem_langgraph" });
  await server.setup(); // a no-op: the optional file recorded PostgresSaver's migrations
  db = new pg.Client({ connectionString: env.AGENTMEM_DB_URL });
  await db.connect();
});
afterAll(async () => {
  await server?.end();
  await db?.end();
});

const at = (thread) => ({ configurable: { thread_id: thread } });
const start = (saver, thread) => buildGraph(saver).invoke({ messages: [new HumanMessage("hello")] }, at(thread));
const state = async (saver, thread) => describeState(await buildGraph(saver).getState(at(thread)));

test("a run PostgresSaver started on the server is resumed by the user's AgentmemSaver, and back", async () => {
  const a = await newUser();
  const mine = new AgentmemSaver(a.client);
  const thread = `interop-${uid()}`;
  const key = `${a.id}/${thread}`; // the same thread, seen from the server

  await start(server, key); // plan, act; paused before review
  const onServer = await state(server, key);
  expect(onServer.next).toEqual(["review"]);
  expect(await state(mine, thread)).toEqual(onServer);

  await buildGraph(mine).invoke(null, at(thread)); // the user runs review
  const afterUser = await state(mine, thread);
  expect(afterUser.next).toEqual([]);
  expect(afterUser.messages.map(([cls, text]) => [cls, text])).toEqual([
    ["HumanMessage", "hello"], ["AIMessage", "plan after 0 steps"], ["AIMessage", "act after 1 steps"], ["AIMessage", "review after 2 steps"],
  ]);
  expect(afterUser.humanIsHumanMessage).toBe(true);
  expect(await state(server, key)).toEqual(afterUser);

  // Another turn started by the server on top of the user's checkpoint.
  await buildGraph(server).invoke({ messages: [new HumanMessage("again")] }, at(key));
  expect(await state(mine, thread)).toEqual(await state(server, key));
  // Nobody else sees it: another user's same thread id is empty.
  expect(await buildGraph(new AgentmemSaver((await newUser()).client)).getState(at(thread))).toMatchObject({ values: {} });
});

test("a run the user's AgentmemSaver started is resumed by PostgresSaver on the server", async () => {
  const a = await newUser();
  const mine = new AgentmemSaver(a.client);
  const thread = `interop-${uid()}`;
  const key = `${a.id}/${thread}`;
  await start(mine, thread);
  const paused = await state(mine, thread);
  expect(await state(server, key)).toEqual(paused);
  await buildGraph(server).invoke(null, at(key));
  const done = await state(server, key);
  expect(done.next).toEqual([]);
  expect(done.notes).toEqual([["plan", 0, [0, 255]], ["act", 1, [1, 255]], ["review", 2, [2, 255]]]);
  expect(await state(mine, thread)).toEqual(done);
});

test("forks made with AgentmemSaver read back right through PostgresSaver", async () => {
  const a = await newUser();
  const thread = `interop-tt-${uid()}`;
  const t = await scenarios.forks(new AgentmemSaver(a.client), thread);
  expect([t.fork1.values.text, t.fork2.values.text]).toEqual(["EDIT-1", "EDIT-2"]);
  // The server lists the same history, newest first, with the same values.
  const fromServer = [];
  for await (const tuple of server.list(at(`${a.id}/${thread}`))) fromServer.push(tuple.checkpoint.channel_values.text ?? null);
  const fromUser = [];
  for await (const tuple of new AgentmemSaver(a.client).list(at(thread))) fromUser.push(tuple.checkpoint.channel_values.text ?? null);
  expect(fromServer).toEqual(fromUser);
  expect(fromServer).toContain("EDIT-1");
  expect(fromServer).toContain("EDIT-2");
});

test("PostgresSaver's own forks still share channel versions (its limitation, documented)", async () => {
  // PostgresSaver mints `previous + 1`: two forks from one checkpoint write the same
  // (channel, version) and the second fork reads the first one's value. AgentmemSaver's
  // versions are unique per write, so the same scenario keeps both (timetravel.test.mjs).
  const t = await scenarios.forks(server, `pg-only-${uid()}`);
  expect(t.fork1.values.text).toBe("EDIT-1");
  expect(t.fork2.values.text).toBe("EDIT-1");
});

test("deal-scoped threads: PostgresSaver on the server and the deal's members share one thread", async () => {
  const [member, outsider] = [await newUser(), await newUser()];
  const { rows: [{ id: org }] } = await db.query("insert into public.organizations (name) values ('interop') returning id");
  const { rows: [{ id: deal }] } = await db.query("insert into public.deals (organization_id, name) values ($1, 'd') returning id", [org]);
  await db.query("insert into public.organization_members (organization_id, user_id) values ($1, $2)", [org, member.id]);
  const thread = `cim-${deal}-${uid()}`;

  await start(server, thread);
  const memberSaver = new AgentmemSaver(member.client);
  expect(await state(memberSaver, thread)).toEqual(await state(server, thread));
  await buildGraph(memberSaver).invoke(null, at(thread));
  expect((await state(server, thread)).next).toEqual([]);

  const outsiderSaver = new AgentmemSaver(outsider.client);
  for (const attempt of [
    () => outsiderSaver.getTuple(at(thread)),
    () => outsiderSaver.getTuple(at(`cim-${uid()}-${uid()}`)), // no such deal: the same answer
    () => start(outsiderSaver, thread),
  ]) {
    const error = await attempt().then(() => null, (e) => e);
    expect(error).toBeInstanceOf(AgentmemError);
    expect(error).toMatchObject({ code: "forbidden", pgrstCode: "42501" });
  }
});

test("the service role's own threads are PostgresSaver's bare thread ids", async () => {
  const thread = `interop-service-${uid()}`;
  const saver = new AgentmemSaver(service());
  await start(saver, thread);
  expect(await state(server, thread)).toEqual(await state(saver, thread));
  await buildGraph(server).invoke(null, at(thread));
  expect((await state(saver, thread)).next).toEqual([]);
  await saver.deleteThread(thread);
  expect(await server.getTuple(at(thread))).toBeUndefined();
});
