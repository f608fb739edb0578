// A LangGraph agent as a Supabase Edge Function: a model node and the memory tools as a tool
// node, checkpointed with AgentmemSaver under the caller's JWT, so every user's threads and
// memories are their own (row-level security) and a conversation survives across requests.
//
//   POST /langgraph-agent  { "thread_id": "t1", "message": "I prefer US vendors" }
//                          → { thread_id, reply, steps }: the turn, run to its end
//   GET  /langgraph-agent?thread_id=t1
//                          → { thread_id, messages }: the thread as the caller sees it
//
// The model is yours: pass `model` to createHandler (any function from the conversation
// and the tool definitions to the next assistant message; an Anthropic or OpenAI call, or
// the scripted one the tests use). The saver and graph are made per request: each request
// carries its own user's JWT, and making them costs microseconds next to one round trip.
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { AIMessage, type BaseMessage, ToolMessage } from "@langchain/core/messages";
import { AgentmemError, createClient, type EmbedFn, MemoryTools } from "agentmem-supabase";
import { AgentmemSaver } from "agentmem-supabase/langgraph";
import { hashEmbedder } from "../_shared/hash_embedder.ts";

/** The next assistant message, given the conversation so far and the tools (Anthropic's
 *  shape). Tool calls go in `tool_calls` ({ id, name, args }), as LangChain models return them. */
export type Model = (messages: BaseMessage[], tools: ReturnType<MemoryTools["definitions"]>) => Promise<AIMessage>;

export interface AgentOptions {
  /** Your model (required): see `Model`. */
  model: Model;
  /** The project URL and its anon (publishable) key; default: the function's environment. */
  url?: string;
  anonKey?: string;
  /** Embeddings for the memory tools; default: an offline embedder (use a real model). */
  embed?: EmbedFn;
  /** The agent id memories are filed under. */
  agentId?: string;
}

/** The graph: the model, then the tools it calls, until it answers without a tool call. */
export function buildAgent(model: Model, tools: MemoryTools) {
  const definitions = tools.definitions("anthropic");
  return new StateGraph(MessagesAnnotation)
    .addNode("agent", async (state) => ({ messages: [await model(state.messages, definitions)] }))
    .addNode("tools", async (state) => {
      const last = state.messages.at(-1) as AIMessage;
      const results = [];
      for (const call of last.tool_calls ?? []) {
        // handle() never throws for a bad call: the model reads the typed error and corrects.
        const result = await tools.handle(call.name, call.args);
        results.push(new ToolMessage({ tool_call_id: call.id ?? call.name, content: JSON.stringify(result) }));
      }
      return { messages: results };
    })
    .addEdge(START, "agent")
    .addConditionalEdges("agent", (state) => ((state.messages.at(-1) as AIMessage).tool_calls?.length ? "tools" : END))
    .addEdge("tools", "agent");
}

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

export function createHandler(options: AgentOptions) {
  const url = options.url ?? Deno.env.get("SUPABASE_URL")!;
  const apiKey = options.anonKey ?? Deno.env.get("SUPABASE_ANON_KEY")!;
  const embed = options.embed ?? hashEmbedder(384);
  const agentId = options.agentId ?? "langgraph-agent";

  return async (req: Request): Promise<Response> => {
    const token = req.headers.get("authorization")?.replace(/^Bearer\s+/i, "");
    if (!token) return json({ error: { code: "unauthorized", message: "sign in: send Authorization: Bearer <access token>" } }, 401);
    try {
      const client = createClient({ url, apiKey, accessToken: token });
      const tools = new MemoryTools({ client, embed, agentId });
      const graph = buildAgent(options.model, tools).compile({ checkpointer: new AgentmemSaver(client) });
      if (req.method === "GET") {
        const threadId = new URL(req.url).searchParams.get("thread_id");
        if (!threadId) return json({ error: { code: "invalid_input", message: "thread_id is required", field: "thread_id" } }, 400);
        const state = await graph.getState({ configurable: { thread_id: threadId } });
        const messages = (state.values.messages ?? []) as BaseMessage[];
        return json({ thread_id: threadId, messages: messages.map((m) => ({ type: m.getType(), content: m.content })) });
      }
      if (req.method !== "POST") return json({ error: { code: "invalid_input", message: "use GET or POST" } }, 405);
      const body = await req.json().catch(() => null);
      if (typeof body?.thread_id !== "string" || typeof body?.message !== "string") {
        return json({ error: { code: "invalid_input", message: "send { thread_id: string, message: string }" } }, 400);
      }
      const config = { configurable: { thread_id: body.thread_id } };
      const result = await graph.invoke({ messages: [{ role: "user", content: body.message }] }, config);
      const last = result.messages.at(-1) as BaseMessage;
      return json({ thread_id: body.thread_id, reply: last.content, steps: result.messages.length });
    } catch (e) {
      if (e instanceof AgentmemError) {
        const status = e.code === "unauthorized" ? 401 : e.code === "invalid_input" ? 400 : e.code === "forbidden" ? 403 : 502;
        return json({ error: { code: e.code, message: e.message, field: e.field } }, status);
      }
      throw e;
    }
  };
}

// Deployed (or `deno run index.ts`): serve with the model you wire in here.
if (import.meta.main) {
  const model: Model = () => {
    throw new Error("langgraph-agent: wire your model into supabase/functions/langgraph-agent/index.ts (see Model)");
  };
  Deno.serve(createHandler({ model }));
}
