// The memory-tools edge function against the local stack: serve it, sign a user in, and
// let "the model" remember something and find it again.
import { createHandler } from "../../supabase/functions/memory-tools/index.ts";
import { env, newUser } from "../support.ts";

const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, createHandler({ url: env.SUPABASE_URL, anonKey: env.SUPABASE_ANON_KEY }));
const base = `http://127.0.0.1:${server.addr.port}/memory-tools`;
const user = await newUser();
const call = async (name: string, input: unknown) => {
  const r = await fetch(base, { method: "POST", headers: { authorization: `Bearer ${user.token}`, "content-type": "application/json" }, body: JSON.stringify({ name, input }) });
  const result = await r.json();
  console.log(`${name}(${JSON.stringify(input)})\n  → ${JSON.stringify(result)}\n`);
  return result;
};

console.log(`memory-tools function on ${base}, acting as user ${user.id}\n`);
await call("create_memory", { content: "User prefers US-based vendors for all procurement", memory_type: "preference" });
await call("create_memory", { content: "The company headquarters are in Denver", memory_type: "fact" });
await call("search_memories", { query: "which vendors does the user prefer?" });
await call("create_memory", { content: "x", memory_type: "wish" });
await server.shutdown();
