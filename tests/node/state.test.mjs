// The state stores' pure helpers in Node >= 20, imported by package name (exports map).
// The stores themselves run against the stack in deno/state_test.ts.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  AgentmemError,
  ContractorStore,
  UnifiedStateManager,
  WorkflowStateStore,
  mergeState,
  normalizeWorkflowState,
  validateState,
  validateTransition,
} from "agentmem-supabase";

test("research: merge, validate_state, validate_transition", () => {
  const state = { query: "AI", tone: "objective", research_data: { a: 1 } };
  assert.deepEqual(mergeState(state, { research_data: { b: 2 }, agent_output: "x" }), { query: "AI", tone: "objective", research_data: { b: 2 }, agent_output: "x" });
  assert.deepEqual(state.research_data, { a: 1 }, "the input is not changed");
  assert.deepEqual(validateState(state).missing, ["language"]);
  assert.deepEqual(validateTransition("researcher", "writer", state), { valid: false, required: ["research_sections"], missing: ["research_sections"] });
  assert.throws(() => mergeState(state, { task_id: NaN }), (e) => e instanceof AgentmemError && e.field === "updates.task_id");
});

test("workflow: the codec fills defaults and refuses 'end'", () => {
  const s = normalizeWorkflowState({ session_id: "s1", created_at: 1700000000000 });
  assert.deepEqual([s.stage, s.gap_status, s.updated_at, s.conversations], ["clarification", "no_gap", 1700000000000, []]);
  assert.throws(() => normalizeWorkflowState({ session_id: "s1", stage: "end" }), (e) => e instanceof AgentmemError && e.field === "state.stage");
});

test("stores check their options at construction", () => {
  const client = { url: "http://127.0.0.1:1", apiKey: "sb_publishable_x" };
  assert.equal(UnifiedStateManager.PERSISTENT_STATE_FIELDS[0], "messages");
  assert.deepEqual(new UnifiedStateManager({ client, fields: ["company_name"], extraFields: ["x"] }).persistentFields, ["company_name", "x"]);
  assert.throws(() => new WorkflowStateStore({ client, removedFields: "keep" }), (e) => e instanceof AgentmemError && e.field === "options.removedFields");
});

test("ContractorStore: bad input is refused before any request (the client points nowhere)", async () => {
  const client = { url: "http://127.0.0.1:1", apiKey: "sb_publishable_x" };
  assert.throws(() => new ContractorStore({ client, tier: 3 }), (e) => e instanceof AgentmemError && e.field === "options.tier");
  const store = new ContractorStore({ client });
  const invalid = (field) => (e) => e instanceof AgentmemError && e.code === "invalid_input" && e.field === field;
  await assert.rejects(store.buildContractorProfile("lead-1", { company_name: "Acme", years_in_business: "10+" }), invalid("profile.years_in_business"));
  await assert.rejects(store.buildContractorProfile("lead-1", { scores: { q: Infinity } }), invalid("profile.scores.q"));
  await assert.rejects(store.convertLead("lead-1", { verified: true }), invalid("account.verified"));
  await assert.rejects(store.getLead(""), invalid("contractorLeadId"));
});
