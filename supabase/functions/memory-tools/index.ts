// Memory tools over HTTP for the signed-in user, as a Supabase Edge Function.
//
//   GET  /memory-tools?format=anthropic|openai   → the tool definitions for your model
//   POST /memory-tools  { "name": "create_memory", "input": { ... } }
//                                                 → the tool's result, { success, ... }
//
// Every request carries the user's JWT (Authorization: Bearer <access token>): the tools
// act as that user, and row-level security keeps each user's memories their own.
// Embeddings: Supabase's built-in gte-small model (384 dimensions) on the hosted edge
// runtime; elsewhere (local runs, tests) a deterministic offline embedder. See README.md.
import { AgentmemError, createClient, MemoryTools } from "agentmem-supabase";
import type { EmbedFn } from "agentmem-supabase";
import { hashEmbedder } from "../_shared/hash_embedder.ts";

const AGENT_ID = Deno.env.get("MEMORY_AGENT_ID") ?? "assistant";

declare const Supabase: { ai?: { Session: new (model: string) => { run(text: string, o: object): Promise<number[]> } } } | undefined;

/** gte-small inside Supabase's edge runtime; the offline embedder anywhere else. */
function defaultEmbedder(): EmbedFn {
  if (typeof Supabase !== "undefined" && Supabase?.ai) {
    const session = new Supabase.ai.Session("gte-small");
    return (texts) => Promise.all(texts.map((t) => session.run(t, { mean_pool: true, normalize: true })));
  }
  return hashEmbedder(384);
}

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", "access-control-allow-origin": "*" } });

export function createHandler(options: { url?: string; anonKey?: string; embed?: EmbedFn } = {}) {
  const url = options.url ?? Deno.env.get("SUPABASE_URL")!;
  const apiKey = options.anonKey ?? Deno.env.get("SUPABASE_ANON_KEY")!;
  const embed = options.embed ?? defaultEmbedder();

  return async (req: Request): Promise<Response> => {
    if (req.method === "OPTIONS") {
      return new Response(null, { headers: { "access-control-allow-origin": "*", "access-control-allow-headers": "authorization, apikey, content-type" } });
    }
    if (req.method === "GET") {
      const format = new URL(req.url).searchParams.get("format") ?? "anthropic";
      try {
        return json(MemoryTools.definitions(format as "anthropic"));
      } catch (e) {
        return json({ error: (e as Error).message }, 400);
      }
    }
    if (req.method !== "POST") return json({ error: "use GET for definitions or POST { name, input } for a tool call" }, 405);

    const token = req.headers.get("authorization")?.match(/^Bearer\s+(\S+)$/i)?.[1];
    if (!token) return json({ error: "sign in: send the user's access token as Authorization: Bearer <jwt>" }, 401);
    let body: { name?: unknown; input?: unknown };
    try {
      body = await req.json();
    } catch {
      return json({ error: "the body must be JSON: { name, input }" }, 400);
    }
    let tools: MemoryTools;
    try {
      tools = new MemoryTools({ client: createClient({ url, apiKey, accessToken: token }), embed, agentId: AGENT_ID });
    } catch (e) {
      // A malformed or service-role token: not a signed-in user.
      if (e instanceof AgentmemError) return json({ error: e.message }, 401);
      throw e;
    }
    // Model mistakes come back as { success: false, error } with 200, for the model to read.
    const result = await tools.handle(String(body.name), body.input);
    if (!result.success && result.error.code === "unauthorized") return json(result, 401);
    return json(result);
  };
}

if (import.meta.main) {
  Deno.serve(createHandler());
}
