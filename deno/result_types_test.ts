// The results the package really returns, checked against the types its .d.ts files
// declare for them. Inside the package a result crosses the wasm boundary as JSON and is
// typed `any` until a facade's signature names it, so no type check sees a Rust result
// that drifted from its declaration (a renamed key, a number sent as text, a key the .d.ts
// does not know). Here every facade method runs against the stack, and each result is
// written out as a literal assigned to that method's declared return type:
//   const r3: Awaited<ReturnType<WorkflowStateStore["get"]>> = { ...the JSON... };
// which `deno check` (strict) then judges, excess-property checks included.
import assert from "node:assert/strict";
import {
  coiaThread,
  ContractorStore,
  conversationId,
  inspectToken,
  mergeState,
  MemoryTools,
  normalizeWorkflowState,
  parseThreadId,
  ResearchStore,
  UnifiedStateManager,
  validateState,
  validateTransition,
  WorkflowStateStore,
} from "agentmem-supabase";
import type { CoiaState, ResearchState, WorkflowStateInput } from "agentmem-supabase";
import { hashEmbedder } from "../supabase/functions/_shared/hash_embedder.ts";
import { newUser } from "./support.ts";

/** A result and the TypeScript type its facade declares for it. */
type Checked = [type: string, value: unknown];

/** Every result, as JSON text: what crossed the boundary (no class instances, no undefined). */
function literal(value: unknown): string {
  const text = JSON.stringify(value, null, 2);
  assert.ok(text !== undefined, "a result that JSON cannot write");
  return text;
}

/** The results of one run of every facade method, each with its declared type. */
async function results(): Promise<Checked[]> {
  const a = await newUser();
  const run = crypto.randomUUID().slice(0, 8);
  const out: Checked[] = [];
  const of = (type: string, value: unknown) => out.push([type, value]);
  const method = (cls: string, name: string) => `Awaited<ReturnType<A.${cls}["${name}"]>>`;

  // Memory tools.
  const tools = new MemoryTools({ client: a.client, embed: hashEmbedder(), agentId: "types-agent", sessionId: "s-1" });
  const created = await tools.createMemory({ content: "prefers window seats", memory_type: "preference", reference_type: "bid", reference_id: crypto.randomUUID() });
  of(method("MemoryTools", "createMemory"), created);
  of(method("MemoryTools", "searchMemories"), await tools.searchMemories({ query: "seats", limit: 5, memory_types: ["preference"] }));
  of(method("MemoryTools", "updateMemory"), await tools.updateMemory({ memory_id: created.memory.id, importance_score: 0.4 }));
  of(method("MemoryTools", "getMemoryContext"), await tools.getMemoryContext({ query: "seats" }));
  of(method("MemoryTools", "handle"), await tools.handle("search_memories", { query: "nothing like it" }));
  of(method("MemoryTools", "handle"), await tools.handle("update_memory", { memory_id: crypto.randomUUID(), importance_score: 0.1 }));
  of(method("MemoryTools", "deleteMemory"), await tools.deleteMemory({ memory_id: created.memory.id }));
  for (const format of ["anthropic", "openai", "openai-responses"] as const) {
    of(`ReturnType<typeof A.MemoryTools.definitions<"${format}">>`, MemoryTools.definitions(format));
  }

  // Unified conversation memory.
  const unified = new UnifiedStateManager({ client: a.client });
  const lead = `landing-${run}`;
  const state: CoiaState = {
    company_name: "Acme Roofing", contact_email: "jo@acme.test", years_in_business: 12, specialties: ["roofing"],
    research_completed: true, current_mode: "conversation",
    messages: [{ role: "user", content: "Hi" }, { lc: 1, type: "constructor", id: ["langchain_core", "messages", "AIMessage"], kwargs: { content: "Hello", tool_calls: [] } }],
  };
  of(method("UnifiedStateManager", "saveState"), await unified.saveState(lead, state));
  of(method("UnifiedStateManager", "restoreState"), await unified.restoreState(lead));
  of(method("UnifiedStateManager", "restoreState"), await unified.restoreState(`${lead}-none`));
  of(method("UnifiedStateManager", "createCheckpoint"), await unified.createCheckpoint(lead, state));
  of(method("UnifiedStateManager", "restoreCheckpoint"), await unified.restoreCheckpoint(lead));
  of(method("UnifiedStateManager", "leadForConversation"), await unified.leadForConversation(conversationId(lead)));

  // Contractors (the lead exists: the state save above wrote it).
  const contractors = new ContractorStore({ client: a.client });
  of(method("ContractorStore", "buildContractorProfile"), await contractors.buildContractorProfile(lead, {
    employee_count: 11, social_links: { facebook: "https://facebook.com/acme" }, scores: { lead_score: 87 },
    data_sources: ["google_places"], website: "https://acme.test",
  }));
  of(method("ContractorStore", "getLead"), await contractors.getLead(lead));
  of(method("ContractorStore", "contractorForLead"), await contractors.contractorForLead(lead));
  of(method("ContractorStore", "convertLead"), await contractors.convertLead(lead, { contact_phone: "+1 305 555 0100" }));
  of(method("ContractorStore", "contractorForLead"), await contractors.contractorForLead(lead));
  of(method("UnifiedStateManager", "deleteState"), await unified.deleteState(lead));

  // Workflow agent states.
  const workflow = new WorkflowStateStore({ client: a.client });
  const sid = `wf-${run}`;
  const input: WorkflowStateInput = {
    session_id: sid, stage: "gap_analysis", template_id: "t-1", conversations: [{ role: "user", text: "build me a flow", timestamp: Date.now() }],
    identified_gaps: [{ required_capability: "trigger", missing_component: "webhook", alternatives: ["schedule"] }],
  };
  of(method("WorkflowStateStore", "create"), await workflow.create(input));
  of(method("WorkflowStateStore", "get"), await workflow.get(sid));
  of(method("WorkflowStateStore", "update"), await workflow.update(sid, { stage: "workflow_generation" }));
  of(method("WorkflowStateStore", "list"), await workflow.list({ templateId: "t-1" }));
  of(method("WorkflowStateStore", "delete"), await workflow.delete(sid));
  of(method("WorkflowStateStore", "get"), await workflow.get(sid));
  of("ReturnType<typeof A.normalizeWorkflowState>", normalizeWorkflowState({ session_id: sid }));

  // Research sessions and drafts.
  const research = new ResearchStore({ client: a.client });
  const rid = `rs-${run}`;
  const researchState: ResearchState = { query: "AI trends", guidelines: ["cite sources"], research_data: { sources: ["https://example.test"] } };
  of(method("ResearchStore", "saveSession"), await research.saveSession({ session_id: rid, query: "AI trends", current_phase: "browsing", research_state: researchState }));
  of(method("ResearchStore", "loadSession"), await research.loadSession(rid));
  of(method("ResearchStore", "resumeSession"), await research.resumeSession(rid));
  of(method("ResearchStore", "saveDraft"), await research.saveDraft(rid, "1_browsing", "# Sources", { agent: "browser" }));
  of(method("ResearchStore", "loadDraft"), await research.loadDraft(rid, "browsing"));
  of(method("ResearchStore", "listDrafts"), await research.listDrafts(rid));
  of(method("ResearchStore", "workflowSummary"), await research.workflowSummary(rid));
  of(method("ResearchStore", "deleteSession"), await research.deleteSession(rid));
  of("ReturnType<typeof A.validateState>", validateState(researchState));
  of("ReturnType<typeof A.validateTransition>", validateTransition("browsing", "planning", researchState));
  of("A.ResearchState", mergeState(researchState, { guidelines: ["be brief"] }));

  // The client and the id helpers.
  of("ReturnType<typeof A.inspectToken>", inspectToken(a.token));
  of("ReturnType<typeof A.parseThreadId>", parseThreadId(`${a.id}/deal-1/cim-2`));
  of("ReturnType<typeof A.coiaThread>", coiaThread("landing", crypto.randomUUID()));
  return out;
}

/** `deno check` of `source` (strict, this folder's import map); its diagnostics. */
async function check(source: string): Promise<{ ok: boolean; errors: string }> {
  const file = new URL(`./.result_types.${crypto.randomUUID().slice(0, 8)}.gen.ts`, import.meta.url);
  await Deno.writeTextFile(file, source);
  try {
    const config = new URL("./deno.json", import.meta.url).pathname;
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["check", "--quiet", "--config", config, file.pathname],
    }).output();
    const errors = new TextDecoder().decode(stderr) + new TextDecoder().decode(stdout);
    return { ok: code === 0, errors };
  } finally {
    await Deno.remove(file);
  }
}

const source = (checked: Checked[]) =>
  [`import type * as A from "agentmem-supabase";`, ...checked.map(([type, value], i) => `export const r${i}: ${type} = ${literal(value)};`)].join("\n");

// One run of the facades serves both tests.
let ran: Promise<Checked[]> | undefined;
const all = () => (ran ??= results());

Deno.test("every facade method's result is what its .d.ts declares (deno check of the real results)", async () => {
  const checked = await all();
  assert.ok(checked.length >= 40, `${checked.length} results`);
  const { ok, errors } = await check(source(checked));
  assert.ok(ok, `results that do not match their declared types:\n${errors}`);
});

Deno.test("the check sees a drifted result: a key the .d.ts lacks, a value of another type, a missing key", async () => {
  const getType = `Awaited<ReturnType<A.WorkflowStateStore["get"]>>`;
  const found = (await all()).find(([type, value]) => type === getType && value !== null);
  assert.ok(found, "a workflow state read back");
  const state = found[1] as Record<string, unknown>;
  const { session_id: _, ...withoutId } = state;
  for (const drifted of [{ ...state, stagee: state.stage }, { ...state, updated_at: String(state.updated_at) }, withoutId]) {
    const { ok } = await check(source([[getType, drifted]]));
    assert.ok(!ok, `deno check accepted ${JSON.stringify(drifted).slice(0, 160)}`);
  }
});
