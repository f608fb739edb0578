// LangGraph long-term memory as a Supabase Edge Function: a graph compiled with
// AgentmemSaver (each thread's history) and AgentmemStore (what it learns about the user,
// shared by all of the user's threads), both under the caller's JWT, so row-level security
// keeps every user's threads and memories their own. The nodes use the store LangGraph
// hands them (`config.store`), as with any BaseStore.
//
//   POST /langgraph-store  { "thread_id": "t1", "message": "Remember: I prefer window seats" }
//                          → { thread_id, reply, recalled }
//
// "Remember: …" stores a preference; anything else is answered with the preferences most
// like it (semantic search with your embedder). No model is needed to try it: put yours in
// the `respond` node to turn recalled preferences into answers.
import { Annotation, END, type LangGraphRunnableConfig, START, StateGraph } from "@langchain/langgraph";
import { AgentmemError, createClient, type EmbedFn } from "agentmem-supabase";
import { AgentmemSaver, AgentmemStore } from "agentmem-supabase/langgraph";
import { hashEmbedder } from "../_shared/hash_embedder.ts";

const State = Annotation.Root({
  message: Annotation<string>(),
  reply: Annotation<string>(),
  recalled: Annotation<string[]>(),
  turns: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }),
});

/** Where preferences go. The store is per user already (row-level security), so no user
 *  id is needed in the namespace. */
const PREFERENCES = ["preferences"];

export function buildGraph() {
  return new StateGraph(State)
    .addNode("respond", async (state, config: LangGraphRunnableConfig) => {
      const store = config.store!;
      const remember = state.message.match(/^remember:\s*(.+)$/is);
      if (remember) {
        await store.put(PREFERENCES, crypto.randomUUID(), { text: remember[1].trim() });
        return { reply: "I'll remember that.", recalled: [], turns: 1 };
      }
      const found = await store.search(PREFERENCES, { query: state.message, limit: 3 });
      const recalled = found.filter((item) => (item.score ?? 0) > 0.2).map((item) => item.value.text as string);
      return { reply: recalled.length ? `You told me: ${recalled.join("; ")}` : "You have not told me yet.", recalled, turns: 1 };
    })
    .addEdge(START, "respond")
    .addEdge("respond", END);
}

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

export interface StoreAgentOptions {
  /** The project URL and its anon (publishable) key; default: the function's environment. */
  url?: string;
  anonKey?: string;
  /** Your embedder (texts → vectors of 384 numbers); default: an offline one (use a real model). */
  embed?: EmbedFn;
}

export function createHandler(options: StoreAgentOptions = {}) {
  const url = options.url ?? Deno.env.get("SUPABASE_URL")!;
  const apiKey = options.anonKey ?? Deno.env.get("SUPABASE_ANON_KEY")!;
  const embed = options.embed ?? hashEmbedder(384);
  const graph = buildGraph();

  return async (req: Request): Promise<Response> => {
    const token = req.headers.get("authorization")?.replace(/^Bearer\s+/i, "");
    if (!token) return json({ error: { code: "unauthorized", message: "sign in: send Authorization: Bearer <access token>" } }, 401);
    const body = req.method === "POST" ? await req.json().catch(() => null) : null;
    if (typeof body?.thread_id !== "string" || typeof body?.message !== "string") {
      return json({ error: { code: "invalid_input", message: "POST { thread_id: string, message: string }" } }, 400);
    }
    try {
      // Per request: each carries its own user's JWT.
      const client = createClient({ url, apiKey, accessToken: token });
      const app = graph.compile({
        checkpointer: new AgentmemSaver(client),
        store: new AgentmemStore(client, { index: { dims: 384, embed, fields: ["text"] } }),
      });
      const result = await app.invoke({ message: body.message }, { configurable: { thread_id: body.thread_id } });
      return json({ thread_id: body.thread_id, reply: result.reply, recalled: result.recalled, turns: result.turns });
    } catch (e) {
      if (e instanceof AgentmemError) {
        const status = e.code === "unauthorized" ? 401 : e.code === "invalid_input" ? 400 : e.code === "forbidden" ? 403 : 502;
        return json({ error: { code: e.code, message: e.message, field: e.field } }, status);
      }
      throw e;
    }
  };
}

if (import.meta.main) Deno.serve(createHandler());
