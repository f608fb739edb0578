// The LangGraph agent edge function against the local stack: serve it with the scripted
// model, sign a user in, tell it something, ask for it in a new thread (the memory carries
// across threads), and read the first thread back.
//   deno run --config supabase/functions/langgraph-agent/deno.json \
//     --allow-read --allow-env --allow-net --allow-sys deno/edge/langgraph_agent.ts
import { createHandler } from "../../supabase/functions/langgraph-agent/index.ts";
import { env, newUser } from "../support.ts";
import { scriptedModel } from "./scripted_model.ts";

const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} },
  createHandler({ model: scriptedModel, url: env.SUPABASE_URL, anonKey: env.SUPABASE_ANON_KEY }));
const base = `http://127.0.0.1:${server.addr.port}/langgraph-agent`;
const user = await newUser();
const auth = { authorization: `Bearer ${user.token}`, "content-type": "application/json" };
const say = async (thread: string, message: string) => {
  const r = await (await fetch(base, { method: "POST", headers: auth, body: JSON.stringify({ thread_id: thread, message }) })).json();
  console.log(`[${thread}] user: ${message}\n[${thread}] agent: ${r.reply ?? JSON.stringify(r)}\n`);
};
console.log(`langgraph-agent on ${base}, as user ${user.id}\n`);
await say("monday", "Remember: I prefer vendors based in the US");
await say("tuesday", "Which vendors do I prefer?");
const history = await (await fetch(`${base}?thread_id=monday`, { headers: auth })).json();
console.log(`thread "monday" holds ${history.messages.length} messages: ${history.messages.map((m: { type: string }) => m.type).join(", ")}`);
await server.shutdown();
