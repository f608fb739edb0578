// COIA's landing page as a Supabase Edge Function, for visitors who have no account yet.
// The page signs the visitor in anonymously (supabase-js `signInAnonymously()`) and calls
// this function with the visitor's access token; everything below runs under that token,
// so row-level security keeps every visitor's thread, conversation and lead their own, and
// they stay the visitor's when the visitor signs up (`updateUser({ email, password })`
// keeps the user id).
//
//   POST /coia-landing          { "message": "We are Acme Roofing", "thread_id"?: "landing-…" }
//                               → { thread_id, conversation_id, reply, profile, lead, steps }
//        a turn of the landing conversation. Without thread_id a lead id is minted
//        (COIA's `landing-{12 hex}`); it is the thread id and the contractor lead id.
//   GET  /coia-landing?thread_id=landing-…
//                               → { thread_id, conversation_id, messages, state, lead, contractor }
//        what the visitor has: the thread's messages (checkpoints), the unified
//        conversation's saved fields, the lead and the contractor made from it.
//   POST /coia-landing/convert  { "thread_id": "landing-…", "account"?: { contact_phone, … } }
//                               → { contractor }
//        the lead becomes a contractor, in one request to the database; only for a
//        visitor who has created an account (a token whose is_anonymous claim is false).
//
// A thread id a visitor sends names that visitor's own objects and nobody else's: another
// visitor's id gets an empty thread and no lead, exactly like an id nobody used. Ids are not
// secrets here, because the JWT decides whose they are.
//
// The graph: `restore` (a new thread starts from what the unified conversation already
// holds for the lead, as COIA's invoke_coia_landing_page does), `converse` (your model:
// the reply and the profile fields it learned), `remember` (UnifiedStateManager.saveState:
// the conversation's fields and, once a company_name is known, the contractor lead, in one
// request). Checkpointed with AgentmemSaver. The saver, stores and graph are built per
// request: each request carries its own visitor's token.
import { Annotation, END, type LangGraphRunnableConfig, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import {
  AgentmemError,
  type AgentmemClient,
  coiaThread,
  ContractorStore,
  createClient,
  type SaveStateResult,
  UnifiedStateManager,
} from "agentmem-supabase";
import { AgentmemSaver } from "agentmem-supabase/langgraph";

/** What the landing conversation learns about the visitor's business: COIA state fields
 *  (the lead's columns among them: company_name, contact_*, years_in_business, …). */
export type LandingProfile = Record<string, unknown>;

/** One turn of your model: the reply, and the profile fields it learned from the
 *  conversation (merged into what is known; an LLM with structured output, say). */
export type LandingModel = (messages: BaseMessage[], profile: LandingProfile) => Promise<{ reply: string; profile?: LandingProfile }>;

export interface LandingOptions {
  /** Your model (required): see `LandingModel`. */
  model: LandingModel;
  /** The project URL and its anon (publishable) key; default: the function's environment. */
  url?: string;
  anonKey?: string;
  /** Origins allowed to call the function from a browser (default "*": the token decides). */
  allowOrigin?: string;
}

/** The longest message a turn takes. */
export const MAX_MESSAGE = 4000;

const LandingState = Annotation.Root({
  ...MessagesAnnotation.spec,
  profile: Annotation<LandingProfile>({ reducer: (known, learned) => ({ ...known, ...learned }), default: () => ({}) }),
  saved: Annotation<SaveStateResult | null>({ reducer: (_, next) => next, default: () => null }),
});
type State = typeof LandingState.State;

export function buildLandingGraph(model: LandingModel, memory: UnifiedStateManager) {
  const leadId = (config: LangGraphRunnableConfig) => config.configurable!.thread_id as string;
  return new StateGraph(LandingState)
    .addNode("restore", async (_state: State, config: LangGraphRunnableConfig) => {
      const restored = await memory.restoreState(leadId(config));
      if (!restored) return {};
      const { messages: _messages, last_state_update: _stamp, ...fields } = restored;
      return { profile: fields };
    })
    .addNode("converse", async (state: State) => {
      const turn = await model(state.messages, state.profile);
      return { messages: [new AIMessage(turn.reply)], profile: turn.profile ?? {} };
    })
    .addNode("remember", async (state: State, config: LangGraphRunnableConfig) => {
      const saved = await memory.saveState(leadId(config), {
        ...state.profile,
        messages: state.messages,
        interface: "landing_page",
        journey_stage: state.profile.company_name ? "profile" : "welcome",
      });
      return { saved };
    })
    // Only a thread's first turn looks for earlier state: later turns have it in the thread.
    .addConditionalEdges(START, (state: State) => (state.messages.length === 1 ? "restore" : "converse"), ["restore", "converse"])
    .addEdge("restore", "converse")
    .addEdge("converse", "remember")
    .addEdge("remember", END);
}

/** The token's claims, decoded, not verified: the same token goes to the database, which
 *  verifies it, so a forged claim gets nothing there. */
function claims(token: string): Record<string, unknown> {
  try {
    const payload = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
    return JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(payload), (c) => c.charCodeAt(0))));
  } catch {
    return {};
  }
}

const STATUS: Record<string, number> = { unauthorized: 401, forbidden: 403, not_found: 404, conflict: 409, invalid_input: 400 };

export function createHandler(options: LandingOptions) {
  const url = options.url ?? Deno.env.get("SUPABASE_URL")!;
  const apiKey = options.anonKey ?? Deno.env.get("SUPABASE_ANON_KEY")!;
  const cors = {
    "access-control-allow-origin": options.allowOrigin ?? "*",
    "access-control-allow-headers": "authorization, x-client-info, apikey, content-type",
    "access-control-allow-methods": "GET, POST, OPTIONS",
  };
  const json = (body: unknown, status = 200) =>
    new Response(JSON.stringify(body), { status, headers: { ...cors, "content-type": "application/json" } });
  const refuse = (status: number, code: string, message: string, field?: string) => json({ error: { code, message, field } }, status);

  return async (req: Request): Promise<Response> => {
    if (req.method === "OPTIONS") return new Response(null, { status: 204, headers: cors });
    const token = req.headers.get("authorization")?.replace(/^Bearer\s+/i, "");
    if (!token) return refuse(401, "unauthorized", "sign in first (supabase.auth.signInAnonymously() for a visitor): send Authorization: Bearer <access token>");
    const convert = new URL(req.url).pathname.endsWith("/convert");
    try {
      const client: AgentmemClient = createClient({ url, apiKey, accessToken: token });
      const memory = new UnifiedStateManager({ client });
      const contractors = new ContractorStore({ client });
      const graph = buildLandingGraph(options.model, memory).compile({ checkpointer: new AgentmemSaver(client) });

      if (req.method === "GET" && !convert) {
        const threadId = new URL(req.url).searchParams.get("thread_id");
        if (!threadId) return refuse(400, "invalid_input", "thread_id is required", "thread_id");
        // LangGraph JS keeps a root graph's checkpoints in the namespace "" whatever the
        // config names (checkpoint_ns is its subgraphs'), so COIA's "coia_landing" is not
        // passed: the thread is its thread_id.
        const config = { configurable: { thread_id: coiaThread("landing", threadId).thread_id } };
        const [snapshot, state, lead, contractor] = await Promise.all([
          graph.getState(config),
          memory.restoreState(threadId),
          contractors.getLead(threadId),
          contractors.contractorForLead(threadId),
        ]);
        const messages = ((snapshot.values as State).messages ?? []).map((m) => ({ type: m.getType(), content: m.content }));
        return json({ thread_id: threadId, conversation_id: memory.conversationId(threadId), messages, state, lead, contractor });
      }
      if (req.method !== "POST") return refuse(405, "invalid_input", "use GET, or POST a message");
      const body = await req.json().catch(() => null);
      if (body === null || typeof body !== "object" || Array.isArray(body)) {
        return refuse(400, "invalid_input", "send a JSON object");
      }
      if (body.thread_id !== undefined && typeof body.thread_id !== "string") {
        return refuse(400, "invalid_input", "thread_id must be a string (or absent, to start a new thread)", "thread_id");
      }

      if (convert) {
        if (typeof body.thread_id !== "string") return refuse(400, "invalid_input", "thread_id is required", "thread_id");
        // COIA makes a contractor when the visitor creates an account. This is the
        // function's rule; a project that must hold it against direct database calls too
        // checks the same claim in SQL (see README, "Visitors without accounts").
        if (claims(token).is_anonymous !== false) {
          return refuse(403, "forbidden", "create an account first (supabase.auth.updateUser({ email, password })), then refresh the session so the token is no longer anonymous");
        }
        const contractor = await contractors.convertLead(body.thread_id, body.account ?? undefined);
        return json({ contractor });
      }

      if (typeof body.message !== "string" || body.message.trim() === "" || body.message.length > MAX_MESSAGE) {
        return refuse(400, "invalid_input", `message must be a non-empty string of at most ${MAX_MESSAGE} characters`, "message");
      }
      const { thread_id } = coiaThread("landing", body.thread_id ?? null);
      const result = await graph.invoke({ messages: [{ role: "user", content: body.message }] }, { configurable: { thread_id } });
      return json({
        thread_id,
        conversation_id: memory.conversationId(thread_id),
        reply: (result.messages.at(-1) as BaseMessage).content,
        profile: result.profile,
        lead: result.saved?.lead ?? null,
        steps: result.messages.length,
      });
    } catch (e) {
      if (e instanceof AgentmemError) return refuse(STATUS[e.code] ?? 502, e.code, e.message, e.field);
      throw e;
    }
  };
}

// Deployed (or `deno run index.ts`): serve with the model you wire in here.
if (import.meta.main) {
  const model: LandingModel = () => {
    throw new Error("coia-landing: wire your model into supabase/functions/coia-landing/index.ts (see LandingModel)");
  };
  Deno.serve(createHandler({ model }));
}
