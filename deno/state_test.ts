// State stores end to end: the built package in Deno against the real stack (Postgres
// with RLS behind the gateway). Unified conversation memory, workflow agent
// states, research sessions and drafts.
import assert from "node:assert/strict";
import {
  AgentmemError,
  conversationId,
  mergeState,
  normalizeWorkflowState,
  ResearchStore,
  UnifiedStateManager,
  validateState,
  validateTransition,
  WorkflowStateStore,
} from "agentmem-supabase";
import type { RestoredMessage } from "agentmem-supabase";
import { countRequests, env, newUser, service, withFaults } from "./support.ts";

type User = Awaited<ReturnType<typeof newUser>>;
const run = crypto.randomUUID().slice(0, 8); // keeps reruns against one stack apart

/** Awaits a rejection with an AgentmemError of `code` (and `field`, when given). */
async function rejects(p: Promise<unknown>, code: string, field?: string) {
  const e = await p.then(() => undefined, (e: unknown) => e);
  assert.ok(e instanceof AgentmemError, `expected an AgentmemError ${code}, got ${e}`);
  assert.equal(e.code, code, e.message);
  if (field !== undefined) assert.equal(e.field, field, e.message);
  return e;
}

/** A count of the user's rows in `table` (RLS applies). */
async function rows(user: User, table: string, filters: [string, string, unknown][] = []) {
  return (await user.client.select(table, { filters: filters as never, count: "exact", head: true })).count;
}

// What JSON.stringify makes of a LangChain JS message (Serializable.toJSON).
const lcMessage = (cls: string, kwargs: Record<string, unknown>) => ({
  lc: 1,
  type: "constructor" as const,
  id: ["langchain_core", "messages", cls],
  kwargs: { additional_kwargs: {}, response_metadata: {}, ...kwargs },
});

// ---------------------------------------------------------------- unified conversation memory

Deno.test("unified: saveState is one request; restoreState brings every field back typed, unknown keys kept", async () => {
  const a = await newUser();
  const lead = `landing-${run}a`;
  const manager = new UnifiedStateManager({ client: a.client });
  assert.equal(UnifiedStateManager.PERSISTENT_STATE_FIELDS.length, 34);
  assert.deepEqual(manager.persistentFields, UnifiedStateManager.PERSISTENT_STATE_FIELDS);
  assert.equal(manager.conversationId("landing-abc123def456"), "1636806e-18db-5536-b0d9-dcd21dd1699b", "Python's uuid5");

  // A value for every persistent field, of the kinds a COIA state holds.
  const state: Record<string, unknown> = {};
  for (const [i, f] of UnifiedStateManager.PERSISTENT_STATE_FIELDS.entries()) {
    state[f] = [`text ${f}`, { nested: { i, list: [1, "two", null] } }, [f, i], i * 1.5, i % 2 === 0][i % 5];
  }
  Object.assign(state, {
    company_name: "Acme Roofing",
    research_completed: true,
    extraction_completed: false,
    intelligence_completed: null,
    messages: [
      { role: "user", content: "Hi, I run a roofing company" },
      { role: "assistant", content: "Great! What's the name?" },
      lcMessage("HumanMessage", { content: "Acme Roofing" }),
      lcMessage("AIMessage", { content: [{ type: "text", text: "Looking it up" }], tool_calls: [{ name: "search", args: { q: "Acme" }, id: "call_1" }], id: "msg-4" }),
      { role: "tool", content: "{\"found\": true}", tool_call_id: "call_1" },
    ],
    current_mode: "conversation", // not in the list: not saved
    interface: "landing_page",
    journey_stage: "research",
  });

  let saved: Awaited<ReturnType<typeof manager.saveState>> | undefined;
  const requests = await countRequests(async () => {
    saved = await manager.saveState(lead, state);
  });
  assert.deepEqual(requests, ["POST /rpc/save_unified_state"], "34 fields + stamp + conversation: one request");
  assert.equal(saved!.conversationId, conversationId(lead));
  assert.deepEqual(saved!.savedFields, UnifiedStateManager.PERSISTENT_STATE_FIELDS);
  assert.match(saved!.lastStateUpdate, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  assert.equal(await rows(a, "unified_conversation_memory", [["conversation_id", "eq", saved!.conversationId]]), 35, "one row per field + last_state_update");

  const conv = await a.client.select<Record<string, unknown>>("unified_conversations", {
    columns: "id,conversation_type,entity_type,title,status,contractor_lead_id,metadata", filters: [["id", "eq", saved!.conversationId]], single: true,
  });
  assert.deepEqual(conv.data, {
    id: saved!.conversationId, conversation_type: "COIA_LANDING", entity_type: "contractor_lead", title: "COIA Landing: Acme Roofing",
    status: "active", contractor_lead_id: lead,
    metadata: { contractor_lead_id: lead, journey_stage: "research", interface: "landing_page", company_name: "Acme Roofing", research_completed: true },
  });

  let restored: Record<string, unknown> | null = null;
  const reads = await countRequests(async () => {
    restored = await manager.restoreState(lead);
  });
  assert.deepEqual(reads, ["GET /rpc/restore_unified_state"], "one request");
  const back = restored! as Record<string, unknown>;
  for (const f of UnifiedStateManager.PERSISTENT_STATE_FIELDS) {
    if (f === "messages") continue;
    assert.deepEqual(back[f], state[f], `${f} comes back with its type`);
  }
  assert.equal(back.current_mode, undefined, "fields outside the list are not saved");
  assert.equal(back.last_state_update, saved!.lastStateUpdate);
  assert.deepEqual(back.messages as RestoredMessage[], [
    { role: "user", type: "human", content: "Hi, I run a roofing company" },
    { role: "assistant", type: "ai", content: "Great! What's the name?" },
    { role: "user", type: "human", content: "Acme Roofing" },
    { role: "assistant", type: "ai", content: [{ type: "text", text: "Looking it up" }], tool_calls: [{ name: "search", args: { q: "Acme" }, id: "call_1" }], id: "msg-4" },
    { role: "tool", type: "tool", content: "{\"found\": true}", tool_call_id: "call_1" },
  ]);
  // The stored form is COIA's [{content, type}].
  const stored = await a.client.select<{ memory_value: unknown }>("unified_conversation_memory", {
    columns: "memory_value", filters: [["conversation_id", "eq", saved!.conversationId], ["memory_key", "eq", "messages"]], single: true,
  });
  assert.deepEqual((stored.data.memory_value as unknown[])[0], { content: "Hi, I run a roofing company", type: "human" });

  // Restored state saves back unchanged (restore → merge → save is stable).
  await manager.saveState(lead, back);
  assert.deepEqual((await manager.restoreState(lead))!.messages, back.messages);

  // An extended field list saves current_mode; a default manager still restores it (unknown keys kept).
  const extended = new UnifiedStateManager({ client: a.client, extraFields: ["current_mode", "lead_score"] });
  assert.deepEqual(extended.persistentFields.slice(-2), ["current_mode", "lead_score"]);
  const r = await extended.saveState(lead, { current_mode: "research", lead_score: 87, company_name: null });
  assert.deepEqual(r.savedFields, ["company_name", "current_mode", "lead_score"]);
  const again = (await manager.restoreState(lead))!;
  assert.equal(again.current_mode, "research");
  assert.equal(again.lead_score, 87);
  assert.equal(again.company_name, null, "a present null is saved: it clears the field");
  assert.deepEqual(again.specialties, state.specialties, "fields absent from a save are kept");

  // skipEmpty reproduces the original, which never wrote None, "", {} or [].
  const skipping = new UnifiedStateManager({ client: a.client, skipEmpty: true });
  assert.deepEqual((await skipping.saveState(lead, { company_name: "", specialties: [], years_in_business: 0 })).savedFields, ["years_in_business"]);

  assert.equal(await manager.restoreState(`landing-${run}-never-saved`), null);
});

Deno.test("unified: checkpoints, the contractor_mapping link, delete", async () => {
  const a = await newUser();
  const lead = `bidcard-${run}b`;
  const manager = new UnifiedStateManager({ client: a.client });
  assert.equal(await manager.restoreCheckpoint(lead), null);
  let checkpoint: Awaited<ReturnType<typeof manager.createCheckpoint>> | undefined;
  const requests = await countRequests(async () => {
    checkpoint = await manager.createCheckpoint(lead, { company_name: "Acme", current_mode: "research", research_completed: true, messages: [] });
  });
  assert.deepEqual(requests, ["POST /rpc/create_unified_checkpoint"]);
  assert.deepEqual({ ...checkpoint, checkpoint_timestamp: undefined }, {
    company_name: "Acme", current_mode: "research", extraction_completed: null, research_completed: true,
    intelligence_completed: null, contractor_created: null, checkpoint_timestamp: undefined,
  });
  assert.match(String(checkpoint!.checkpoint_timestamp), /^\d{4}-\d\d-\d\dT/);
  const reads = await countRequests(async () => assert.deepEqual(await manager.restoreCheckpoint(lead), checkpoint));
  assert.deepEqual(reads, ["GET /rpc/restore_unified_checkpoint"]);
  assert.equal(await manager.restoreState(lead), null, "a checkpoint is not state");

  const chat = crypto.randomUUID();
  await manager.saveState(lead, { company_name: "Acme" }, { conversationId: chat.toUpperCase() });
  assert.equal(await manager.leadForConversation(chat), lead, "the chat conversation maps back to the lead");
  assert.equal(await manager.leadForConversation(crypto.randomUUID()), null);

  assert.equal(await manager.deleteState(lead), 5, "conversation + company_name + last_state_update + checkpoint + mapping");
  assert.equal(await manager.restoreState(lead), null);
  assert.equal(await manager.restoreCheckpoint(lead), null);
  assert.equal(await manager.leadForConversation(chat), null);
});

// ---------------------------------------------------------------- workflow agent states

Deno.test("workflow: create, get, update, list, delete: one request each; previous_stage and updated_at", async () => {
  const a = await newUser();
  const store = new WorkflowStateStore({ client: a.client });
  const sid = `wf-${run}-1`;
  const t0 = Date.now();
  let created: Awaited<ReturnType<typeof store.create>> | undefined;
  const requests = await countRequests(async () => {
    created = await store.create({
      session_id: sid,
      intent_summary: "Email me new invoices",
      conversations: [{ role: "user", text: "Email me new invoices", timestamp: t0 }],
      clarification_context: { purpose: "initial_intent", collected_info: { source: "gmail" }, pending_questions: ["Which folder?"], origin: "create" },
      workflow_context: { origin: "create", requirements: { trigger: "email" }, ui: "chat" },
    });
  });
  assert.deepEqual(requests, ["POST /rpc/create_workflow_state"]);
  const c = created!;
  assert.equal(c.stage, "clarification");
  assert.equal(c.previous_stage, null);
  assert.equal(c.user_id, a.id, "user_id defaults to the signed-in user");
  assert.ok(c.created_at >= t0 && c.created_at <= Date.now() && Number.isInteger(c.created_at), "ms timestamps");
  assert.equal(c.updated_at, c.created_at);
  assert.deepEqual(c.conversations, [{ role: "user", text: "Email me new invoices", timestamp: t0, metadata: {} }]);
  assert.deepEqual(c.workflow_context, { origin: "create", requirements: { trigger: "email" }, ui: "chat" }, "extra keys of a Dict kept");
  assert.deepEqual([c.gap_status, c.identified_gaps, c.execution_history, c.debug_loop_count], ["no_gap", [], [], 0]);

  const gets = await countRequests(async () => assert.deepEqual(await store.get(sid), c));
  assert.deepEqual(gets, ["GET /workflow_agent_states"]);
  assert.equal(await store.get(`wf-${run}-missing`), null);

  let updated: Awaited<ReturnType<typeof store.update>> | undefined;
  const updates = await countRequests(async () => {
    updated = await store.update(sid, {
      stage: "gap_analysis",
      gap_status: "has_gap",
      identified_gaps: [{ required_capability: "send email", missing_component: "smtp credentials", alternatives: ["gmail api"] }],
      execution_history: ["clarification"],
      clarification_context: null,
    });
  });
  assert.deepEqual(updates, ["POST /rpc/update_workflow_state"]);
  assert.equal(updated!.stage, "gap_analysis");
  assert.equal(updated!.previous_stage, "clarification", "previous_stage set on the stage change");
  assert.ok(updated!.updated_at > c.updated_at, "updated_at bumped");
  assert.equal(updated!.clarification_context, null, "null clears");
  assert.equal(updated!.intent_summary, "Email me new invoices", "untouched fields kept");

  const same = await store.update(sid, { debug_loop_count: 1 });
  assert.equal(same.previous_stage, "clarification", "no stage change: previous_stage kept");
  assert.ok(same.updated_at > updated!.updated_at);
  const done = await store.update(sid, { stage: "completed", debug_result: { success: true, iteration_count: 1, timestamp: Date.now() } });
  assert.deepEqual([done.stage, done.previous_stage], ["completed", "gap_analysis"]);
  assert.deepEqual(done.debug_result, { success: true, errors: [], warnings: [], suggestions: [], iteration_count: 1, timestamp: done.debug_result!.timestamp });
  await rejects(store.update(`wf-${run}-missing`, { stage: "debug" }), "not_found");

  await store.create({ session_id: `wf-${run}-2`, stage: "debug", gap_status: "blocking" });
  await store.create({ session_id: `wf-${run}-3`, stage: "completed" });
  const lists = await countRequests(async () => {
    const completed = await store.list({ stage: "completed" });
    assert.deepEqual(completed.map((s) => s.session_id), [`wf-${run}-3`, sid], "newest update first");
  });
  assert.deepEqual(lists, ["GET /workflow_agent_states"]);
  assert.deepEqual((await store.list({ gapStatus: "blocking" })).map((s) => s.session_id), [`wf-${run}-2`]);
  assert.equal((await store.list({ userId: a.id })).length, 3);
  assert.equal((await store.list({ limit: 1 })).length, 1);

  const deletes = await countRequests(async () => assert.equal(await store.delete(`wf-${run}-2`), true));
  assert.deepEqual(deletes, ["POST /rpc/delete_workflow_state"]);
  assert.equal(await store.delete(`wf-${run}-2`), false);

  // Creating an existing session with another state is a conflict, not an overwrite.
  await rejects(store.create({ session_id: sid, stage: "clarification" }), "conflict");
  assert.equal((await store.get(sid))!.stage, "completed");
});

Deno.test("workflow: 'completed' not 'end', enums, sub-structures and removed fields are checked before any request", async () => {
  const a = await newUser();
  const store = new WorkflowStateStore({ client: a.client });
  const sid = `wf-${run}-bad`;
  const cases: [Record<string, unknown>, string][] = [
    [{ session_id: sid, stage: "end" }, "state.stage"],
    [{ session_id: sid, stage: "Clarification" }, "state.stage"],
    [{ session_id: sid, previous_stage: "end" }, "state.previous_stage"],
    [{ session_id: sid, gap_status: "gaps" }, "state.gap_status"],
    [{ session_id: sid, conversations: [{ role: "bot", text: "x", timestamp: 1 }] }, "state.conversations[0].role"],
    [{ session_id: sid, conversations: [{ role: "user", text: "x", timestamp: "2024-01-01" }] }, "state.conversations[0].timestamp"],
    [{ session_id: sid, clarification_context: { purpose: "chitchat" } }, "state.clarification_context.purpose"],
    [{ session_id: sid, clarification_context: { purpose: "initial_intent", questions: [] } }, "state.clarification_context.questions"],
    [{ session_id: sid, identified_gaps: [{ required_capability: "x", missing_component: "y", alternatives: "z" }] }, "state.identified_gaps[0].alternatives"],
    [{ session_id: sid, debug_result: { errors: [] } }, "state.debug_result.success"],
    [{ session_id: sid, workflow_context: { origin: "fork" } }, "state.workflow_context.origin"],
    [{ session_id: sid, debug_loop_count: -1 }, "state.debug_loop_count"],
    [{ session_id: sid, created_at: new Date() }, "state.created_at"],
    [{ session_id: sid, user_message: "hi" }, "state.user_message"],
    [{ session_id: sid, clarification_questions: [] }, "state.clarification_questions"],
    [{ session_id: sid, current_workflow_json: "{}" }, "state.current_workflow_json"],
    [{ session_id: sid, colour: "blue" }, "state.colour"],
    [{ session_id: sid, debug_result: { success: true, iteration_count: NaN } }, "state.debug_result.iteration_count"],
    [{ stage: "debug" }, "state.session_id"],
  ];
  const requests = await countRequests(async () => {
    for (const [state, field] of cases) await rejects(store.create(state as never), "invalid_input", field);
    await rejects(store.update(sid, { previous_stage: "debug" } as never), "invalid_input", "patch.previous_stage");
    await rejects(store.update(sid, { updated_at: 1 } as never), "invalid_input", "patch.updated_at");
    await rejects(store.update(sid, { stage: "end" } as never), "invalid_input", "patch.stage");
    await rejects(store.update(sid, {}), "invalid_input", "patch");
    await rejects(store.update("", { stage: "debug" }), "invalid_input", "sessionId");
    await rejects(store.list({ stage: "end" as never }), "invalid_input", "query.stage");
    await rejects(store.get(42 as never), "invalid_input", "sessionId");
  });
  assert.deepEqual(requests, [], "nothing was sent");
  assert.equal(await rows(a, "workflow_agent_states"), 0, "nothing was written");
  assert.throws(() => new WorkflowStateStore({ client: a.client, removedFields: "drop" as never }), (e: unknown) => e instanceof AgentmemError && e.field === "options.removedFields");

  // Removed fields can be dropped instead, for states from older code.
  const lenient = new WorkflowStateStore({ client: a.client, removedFields: "ignore" });
  const s = await lenient.create({ session_id: sid, user_message: "hi", previous_errors: ["x"] } as never);
  assert.equal((s as unknown as Record<string, unknown>).user_message, undefined);
  assert.deepEqual(normalizeWorkflowState({ session_id: "n", created_at: 5 }).updated_at, 5, "the pure codec fills the WorkflowState defaults");
});

// ---------------------------------------------------------------- research sessions and drafts

Deno.test("research: sessions save and resume, drafts are versioned per phase, the summary; one request each", async () => {
  const a = await newUser();
  const store = new ResearchStore({ client: a.client });
  const sid = `rs-${run}-1`;
  const research_state = { query: "AI trends 2026", tone: "objective", language: "en", guidelines: ["cite sources"], task_id: 7, agent_output: { by: "browser" } };
  let saved: Awaited<ReturnType<typeof store.saveSession>> | undefined;
  const requests = await countRequests(async () => {
    saved = await store.saveSession({ session_id: sid, query: "AI trends 2026", current_phase: "browsing", research_state });
  });
  assert.deepEqual(requests, ["POST /rpc/save_research_session"]);
  assert.deepEqual(saved!.research_state, research_state, "declared and undeclared keys alike");
  assert.deepEqual(saved!.completed_phases, []);
  assert.ok(Number.isInteger(saved!.start_time) && saved!.last_update >= saved!.start_time);

  const next = mergeState(saved!.research_state, { research_plan: [{ section: "Overview" }], agent_output: "planned" });
  const again = await store.saveSession({ ...saved!, current_phase: "planning", completed_phases: ["browsing"], research_state: next, start_time: 1 });
  assert.equal(again.start_time, saved!.start_time, "start_time is kept from the first save");
  assert.ok(again.last_update > saved!.last_update, "last_update moves");
  const resumed = await countRequests(async () => assert.deepEqual(await store.resumeSession(sid), again));
  assert.deepEqual(resumed, ["GET /research_sessions"]);
  assert.equal(await store.loadSession(`rs-${run}-none`), null);

  // Drafts: each save is the next version of its phase.
  const draftRequests = await countRequests(async () => {
    const d1 = await store.saveDraft(sid, "1_browsing", "# Sources\n- a", { agent: "browser", timestamp: 1 });
    assert.deepEqual([d1.phase, d1.version, d1.content_chars, d1.metadata], ["1_browsing", 1, 13, { agent: "browser", timestamp: 1 }]);
  });
  assert.deepEqual(draftRequests, ["POST /rpc/save_research_draft"]);
  const d2 = await store.saveDraft(sid, "browsing", "# Sources\n- a\n- b");
  assert.deepEqual([d2.phase, d2.version], ["1_browsing", 2], "bare phase names are accepted");
  await store.saveDraft(sid, "4_writing", "draft one ✍️");
  const loads = await countRequests(async () => {
    const latest = await store.loadDraft(sid, "1_browsing");
    assert.deepEqual([latest!.version, latest!.content], [2, "# Sources\n- a\n- b"], "the latest version");
  });
  assert.deepEqual(loads, ["GET /research_drafts"]);
  assert.equal(await store.loadDraft(sid, "7_publishing"), null);
  const list = await store.listDrafts(sid);
  assert.deepEqual(list.map((d) => `${d.phase}@${d.version}`), ["1_browsing@1", "1_browsing@2", "4_writing@1"]);
  assert.ok(list.every((d) => !("content" in d)), "listings leave content out");
  assert.deepEqual((await store.listDrafts(sid, { phase: "writing" })).map((d) => d.content_chars), [[..."draft one ✍️"].length], "code points, as char_length counts");

  let summary: Awaited<ReturnType<typeof store.workflowSummary>> | undefined;
  const sums = await countRequests(async () => {
    summary = await store.workflowSummary(sid);
  });
  assert.deepEqual(sums, ["GET /rpc/research_workflow_summary"]);
  assert.equal(summary!.total_drafts, 3);
  assert.deepEqual(summary!.completed_phases, ["browsing"]);
  assert.deepEqual(summary!.phases.map((p) => p.drafts), [2, 0, 0, 1, 0, 0, 0]);
  assert.match(summary!.markdown, /\| 1_browsing \| 2 \| 2 \| .* \| 17 \|/);
  assert.match(summary!.markdown, /- \*\*Query:\*\* AI trends 2026/);
  await rejects(store.workflowSummary(`rs-${run}-none`), "not_found");

  assert.equal(await store.deleteSession(sid), true);
  assert.equal(await rows(a, "research_drafts"), 0, "drafts go with their session");
});

Deno.test("research: TK9's merge and validation rules, and bad input refused before any request", async () => {
  assert.deepEqual(mergeState({ query: "q", research_data: { a: 1 }, errors: ["e"] }, { research_data: { b: 2 }, errors: [] }), { query: "q", research_data: { b: 2 }, errors: [] }, "shallow: values replaced");
  assert.deepEqual(validateState({ query: "q", tone: "objective", language: "en" }), { valid: true, missing: [], errors: [] });
  const v = validateState({ query: "q", task_id: "7" } as never);
  assert.deepEqual([v.valid, v.missing, v.errors.map((e) => e.field)], [false, ["tone", "language"], ["state.task_id"]]);
  assert.deepEqual(validateTransition("editor", "writer", { research_plan: [] }), { valid: false, required: ["research_sections"], missing: ["research_sections"] });
  assert.equal(validateTransition("researcher", "editor", { query: "q", tone: "formal" }).valid, true);
  assert.throws(() => mergeState({ query: 1 } as never, {}), (e: unknown) => e instanceof AgentmemError && e.field === "state.query");
  assert.throws(() => mergeState({}, { research_data: { score: Infinity } }), (e: unknown) => e instanceof AgentmemError && e.field === "updates.research_data.score");

  const a = await newUser();
  const store = new ResearchStore({ client: a.client });
  const sid = `rs-${run}-bad`;
  const requests = await countRequests(async () => {
    await rejects(store.saveSession({ session_id: sid, current_phase: "x" } as never), "invalid_input", "session.query");
    await rejects(store.saveSession({ session_id: sid, query: "q", current_phase: "x", research_state: { guidelines: "be brief" } } as never), "invalid_input", "session.research_state.guidelines");
    await rejects(store.saveSession({ session_id: sid, query: "q", current_phase: "x", phase: 2 } as never), "invalid_input", "session.phase");
    await rejects(store.saveSession({ session_id: sid, query: "q", current_phase: "x", start_time: "yesterday" } as never), "invalid_input", "session.start_time");
    await rejects(store.saveDraft(sid, "8_bonus" as never, "x"), "invalid_input", "phase");
    await rejects(store.saveDraft(sid, "writing", undefined as never), "invalid_input", "content");
    await rejects(store.saveDraft(sid, "writing", "x", [] as never), "invalid_input", "metadata");
    await rejects(store.listDrafts(sid, { phases: ["x"] } as never), "invalid_input", "options.phases");
    await rejects(store.loadSession(""), "invalid_input", "sessionId");
  });
  assert.deepEqual(requests, []);
  assert.equal(await rows(a, "research_sessions"), 0);
  // A draft needs its session first; the server says so and writes nothing.
  await rejects(store.saveDraft(sid, "writing", "orphan"), "not_found");
  assert.equal(await rows(a, "research_drafts"), 0);
});

// ---------------------------------------------------------------- bad input, RLS, retries

Deno.test("unified: bad input is a typed error naming the field, and nothing is sent or written", async () => {
  const a = await newUser();
  const manager = new UnifiedStateManager({ client: a.client });
  const lead = `landing-${run}-bad`;
  const requests = await countRequests(async () => {
    await rejects(manager.saveState("", {}), "invalid_input", "contractorLeadId");
    await rejects(manager.saveState(lead, "state" as never), "invalid_input", "state");
    await rejects(manager.saveState(lead, { messages: [{ role: "robot", content: "beep" }] } as never), "invalid_input", "state.messages[0].role");
    await rejects(manager.saveState(lead, { messages: [{ role: "user" }] } as never), "invalid_input", "state.messages[0].content");
    await rejects(manager.saveState(lead, { messages: [lcMessage("FunctionMessage", { content: "x" })] }), "invalid_input", "state.messages[0].id");
    await rejects(manager.saveState(lead, { company_name: 42 } as never), "invalid_input", "state.company_name");
    await rejects(manager.saveState(lead, { research_completed: "yes" } as never), "invalid_input", "state.research_completed");
    await rejects(manager.saveState(lead, { business_info: { rating: NaN } }), "invalid_input", "state.business_info.rating");
    await rejects(manager.saveState(lead, { bid_history: [1, 2, Infinity] }), "invalid_input", "state.bid_history[2]");
    await rejects(manager.saveState(lead, {}, { conversationId: "chat-1" }), "invalid_input", "options.conversationId");
    await rejects(manager.createCheckpoint(lead, { contractor_created: "no" } as never), "invalid_input", "state.contractor_created");
    await rejects(manager.leadForConversation("nope"), "invalid_input", "conversationId");
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    await rejects(manager.saveState(lead, { business_info: cyclic }), "invalid_input", "state");
  });
  assert.deepEqual(requests, [], "nothing was sent");
  assert.equal(await rows(a, "unified_conversation_memory"), 0);
  assert.equal(await rows(a, "unified_conversations"), 0);
  const invalid = (options: unknown, field: string) =>
    assert.throws(() => new UnifiedStateManager(options as never), (e: unknown) => e instanceof AgentmemError && e.code === "invalid_input" && e.field === field);
  invalid(undefined, "options");
  invalid({ client: a.client, fields: ["last_state_update"] }, "options.fields[0]");
  invalid({ client: a.client, extraField: ["x"] }, "options.extraField");
  invalid({ client: a.client, namespace: "not-a-namespace" }, "options.namespace");
  invalid({ client: a.client, skipEmpty: "yes" }, "options.skipEmpty");
});

Deno.test("tenancy: the same ids in two tenants are two independent states; the service role acts for a user only when asked", async () => {
  const a = await newUser();
  const b = await newUser();
  const lead = `landing-${run}-tenancy`;
  const [ua, ub] = [a, b].map((u) => new UnifiedStateManager({ client: u.client }));
  await ua.saveState(lead, { company_name: "A's company", messages: [{ role: "user", content: "secret" }] });
  await ua.createCheckpoint(lead, { current_mode: "chat" });
  assert.equal(await ub.restoreState(lead), null, "B restores nothing");
  assert.equal(await ub.restoreCheckpoint(lead), null);
  assert.equal(await ub.deleteState(lead), 0, "B deletes nothing");
  // B uses the same (predictable) lead id: B's own conversation, A's stays as it was.
  await ub.saveState(lead, { company_name: "B's company" });
  await ub.createCheckpoint(lead, { current_mode: "research" });
  assert.equal((await ub.restoreState(lead))!.company_name, "B's company");
  assert.equal((await ua.restoreState(lead))!.company_name, "A's company", "A's state unchanged");
  assert.equal((await ua.restoreCheckpoint(lead))!.current_mode, "chat");
  assert.equal((await ub.restoreCheckpoint(lead))!.current_mode, "research");

  const [wa, wb] = [a, b].map((u) => new WorkflowStateStore({ client: u.client }));
  const sid = `wf-${run}-tenancy`;
  await wa.create({ session_id: sid, stage: "debug" });
  assert.equal(await wb.get(sid), null);
  assert.deepEqual(await wb.list(), []);
  await rejects(wb.update(sid, { stage: "completed" }), "not_found");
  assert.equal(await wb.delete(sid), false);
  const bs = await wb.create({ session_id: sid, stage: "completed" }); // not a conflict: B's own session
  assert.equal(bs.stage, "completed");
  assert.equal(bs.user_id, b.id, "user_id defaults to the tenant's user");
  assert.equal((await wa.get(sid))!.stage, "debug");
  assert.equal((await wb.list()).length, 1);

  const [ra, rb] = [a, b].map((u) => new ResearchStore({ client: u.client }));
  const rs = `rs-${run}-tenancy`;
  await ra.saveSession({ session_id: rs, query: "A's research", current_phase: "writing" });
  await ra.saveDraft(rs, "writing", "A's draft");
  assert.equal(await rb.loadSession(rs), null);
  assert.equal(await rb.loadDraft(rs, "writing"), null);
  assert.deepEqual(await rb.listDrafts(rs), []);
  await rejects(rb.workflowSummary(rs), "not_found");
  await rejects(rb.saveDraft(rs, "writing", "B's draft"), "not_found");
  assert.equal(await rb.deleteSession(rs), false);
  await rb.saveSession({ session_id: rs, query: "B's", current_phase: "x" });
  const bDraft = await rb.saveDraft(rs, "writing", "B's draft");
  assert.equal(bDraft.version, 1, "B's session has its own draft versions");
  assert.equal((await ra.loadDraft(rs, "writing"))!.content, "A's draft");
  assert.equal((await ra.loadSession(rs))!.query, "A's research");

  // The anon key alone is refused by the database, not by a client-side guess.
  const { createClient } = await import("agentmem-supabase");
  const anon = new UnifiedStateManager({ client: createClient({ url: env.SUPABASE_URL, apiKey: env.SUPABASE_ANON_KEY }) });
  await rejects(anon.saveState(lead, { company_name: "anon" }), "unauthorized");
  // The service role has its own key space (e.g. landing-page visitors without an account)...
  const admin = new UnifiedStateManager({ client: service() });
  assert.equal(await admin.restoreState(lead), null, "the service tenant is not A");
  await admin.saveState(lead, { company_name: "visitor" });
  assert.equal((await admin.restoreState(lead))!.company_name, "visitor");
  assert.equal((await ua.restoreState(lead))!.company_name, "A's company");
  // ...and reaches a user's state only when it says for whom.
  const forA = new UnifiedStateManager({ client: service().actingFor(a.id) });
  assert.equal((await forA.restoreState(lead))!.company_name, "A's company");
  assert.equal((await new WorkflowStateStore({ client: service().actingFor(a.id) }).get(sid))!.stage, "debug");
  assert.equal(await new WorkflowStateStore({ client: service() }).get(sid), null);
  assert.equal((await new ResearchStore({ client: service().actingFor(b.id) }).loadSession(rs))!.query, "B's");
  // A signed-in user cannot act for anyone else.
  assert.throws(() => a.client.actingFor(b.id), (e: unknown) => (e as { code?: string }).code === "invalid_input");
});

Deno.test("a save retried after a dropped connection stays single, in every store", async () => {
  const a = await newUser();
  const drop = (fn: string) => [{ action: "drop_after", method: "POST", path: `/rpc/${fn}`, times: 1 }];
  // The gateway commits, then closes the connection without answering. agentmem resends
  // (the RPCs are idempotent) — or Deno's own fetch does, for a reused connection — and
  // the second run must not duplicate anything.
  const twice = (requests: string[], fn: string) =>
    assert.deepEqual(requests, [`POST /rpc/${fn}`, `POST /rpc/${fn}`], `the dropped ${fn} was sent again`);

  const manager = new UnifiedStateManager({ client: a.client });
  const lead = `landing-${run}-drop`;
  const id = manager.conversationId(lead);
  const saved = await withFaults(drop("save_unified_state"), async () => {
    let r: Awaited<ReturnType<typeof manager.saveState>> | undefined;
    twice(await countRequests(async () => {
      r = await manager.saveState(lead, { company_name: "Once", messages: [{ role: "user", content: "hi" }] }, { conversationId: crypto.randomUUID() });
    }), "save_unified_state");
    return r!;
  });
  assert.deepEqual(saved.savedFields, ["messages", "company_name"]);
  assert.equal(await rows(a, "unified_conversation_memory"), 4, "messages, company_name, last_state_update, mapping: once each");
  assert.equal(await rows(a, "unified_conversations", [["id", "eq", id]]), 1);
  await withFaults(drop("create_unified_checkpoint"), async () => {
    twice(await countRequests(() => manager.createCheckpoint(lead, { current_mode: "chat" })), "create_unified_checkpoint");
  });
  assert.equal(await rows(a, "unified_conversation_memory", [["memory_type", "eq", "checkpoint"]]), 1);

  const store = new WorkflowStateStore({ client: a.client });
  const sid = `wf-${run}-drop`;
  const created = await withFaults(drop("create_workflow_state"), async () => {
    let s: Awaited<ReturnType<typeof store.create>> | undefined;
    twice(await countRequests(async () => {
      s = await store.create({ session_id: sid, stage: "clarification" });
    }), "create_workflow_state");
    return s!;
  });
  assert.equal(created.session_id, sid, "the resent create returned the row the first one wrote");
  assert.equal(await rows(a, "workflow_agent_states"), 1);
  const updated = await withFaults(drop("update_workflow_state"), async () => {
    let s: Awaited<ReturnType<typeof store.update>> | undefined;
    twice(await countRequests(async () => {
      s = await store.update(sid, { stage: "gap_analysis" });
    }), "update_workflow_state");
    return s!;
  });
  assert.deepEqual([updated.stage, updated.previous_stage], ["gap_analysis", "clarification"], "the resent update kept previous_stage right");

  const research = new ResearchStore({ client: a.client });
  const rs = `rs-${run}-drop`;
  await withFaults(drop("save_research_session"), async () => {
    twice(await countRequests(() => research.saveSession({ session_id: rs, query: "q", current_phase: "browsing" })), "save_research_session");
  });
  assert.equal(await rows(a, "research_sessions"), 1);
  const draft = await withFaults(drop("save_research_draft"), async () => {
    let d: Awaited<ReturnType<typeof research.saveDraft>> | undefined;
    twice(await countRequests(async () => {
      d = await research.saveDraft(rs, "writing", "only once");
    }), "save_research_draft");
    return d!;
  });
  assert.equal(draft.version, 1, "the resend found the draft the first attempt wrote");
  assert.equal(await rows(a, "research_drafts"), 1, "one draft, not two versions");
  assert.equal((await research.saveDraft(rs, "writing", "second")).version, 2);
});
