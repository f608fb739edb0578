// COIA's business rows end to end: contractor leads written by the state
// save and by buildContractorProfile, and the one conversion into a contractor. The built
// package in Deno against the real stack (Postgres with RLS behind the gateway).
import assert from "node:assert/strict";
import { AgentmemError, ContractorStore, createClient, UnifiedStateManager } from "agentmem-supabase";
import type { Contractor, ContractorLead } from "agentmem-supabase";
import { countRequests, env, newUser, service, withFaults } from "./support.ts";

type User = Awaited<ReturnType<typeof newUser>>;
const run = crypto.randomUUID().slice(0, 8); // keeps reruns against one stack apart
const leadId = (name: string) => `landing-${run}-${name}`;

/** Awaits a rejection with an AgentmemError of `code` (and `field`, when given). */
async function rejects(p: Promise<unknown>, code: string, field?: string): Promise<AgentmemError> {
  const e = await p.then(() => undefined, (e: unknown) => e);
  assert.ok(e instanceof AgentmemError, `expected an AgentmemError ${code}, got ${e}`);
  assert.equal(e.code, code, e.message);
  if (field !== undefined) assert.equal(e.field, field, e.message);
  return e;
}

/** The user's rows in `table` (RLS applies). */
async function rows(user: User, table: string, filters: [string, string, unknown][] = []) {
  return (await user.client.select(table, { filters: filters as never, count: "exact", head: true })).count;
}

/** One call, and the requests it made at the gateway. */
async function counted<T>(body: () => Promise<T>): Promise<[T, string[]]> {
  let out: T | undefined;
  const requests = await countRequests(async () => {
    out = await body();
  });
  return [out as T, requests];
}

Deno.test("contractors: the state save writes the lead in its own request; profile builds merge; the conversion makes one contractor", async () => {
  const a = await newUser();
  const lead = leadId("flow");
  const memory = new UnifiedStateManager({ client: a.client });
  const store = new ContractorStore({ client: a.client });

  // A state without a company_name is not a lead.
  const [early, r0] = await counted(() => memory.saveState(lead, { contact_name: "Jo", messages: [{ role: "user", content: "hi" }] }));
  assert.deepEqual(r0, ["POST /rpc/save_unified_state"]);
  assert.equal(early.lead, null);
  assert.equal(await store.getLead(lead), null);

  // With a company_name the lead is upserted by the same request; what does not fit a lead
  // column stays in memory only, and says so.
  const state = {
    company_name: "Acme Roofing", contact_name: "Jo Smith", contact_email: "jo@acme.test", years_in_business: "12",
    employee_count: "a dozen", specialties: ["roofing", "gutters"], website_summary: "Family roofer since 2013",
  };
  const [saved, r1] = await counted(() => memory.saveState(lead, state));
  assert.deepEqual(r1, ["POST /rpc/save_unified_state"], "state + lead: one request");
  assert.deepEqual(saved.lead, {
    id: lead, fields: ["company_name", "contact_name", "contact_email", "years_in_business", "specialties"], skipped: ["employee_count"],
  });
  assert.deepEqual(saved.savedFields, ["company_name", "specialties", "years_in_business", "website_summary", "contact_name", "contact_email", "employee_count"]);
  assert.equal((await memory.restoreState(lead))!.employee_count, "a dozen", "the skipped value is still in memory");

  const [fromState, r2] = await counted(() => store.getLead(lead));
  assert.deepEqual(r2, ["GET /contractor_leads"]);
  assert.deepEqual(
    pick(fromState!, ["id", "company_name", "contact_name", "contact_email", "years_in_business", "employee_count", "specialties", "discovered_at", "converted_to_contractor"]),
    { id: lead, company_name: "Acme Roofing", contact_name: "Jo Smith", contact_email: "jo@acme.test", years_in_business: 12, employee_count: null,
      specialties: ["roofing", "gutters"], discovered_at: null, converted_to_contractor: false },
  );

  // The profile build: coerced, nulls stripped (they never clear), enrichment merged.
  const [built, r3] = await counted(() =>
    store.buildContractorProfile(lead, {
      employee_count: 11.6, contact_email: null, license_number: "CCC1330000",
      social_links: { facebook: "https://facebook.com/acme", yelp: null },
      scores: { lead_score: "87", google_rating: 4.6 },
      data_sources: ["google_places", "tavily", "google_places"],
      website: "https://acme.test", city: "Miami",
    })
  );
  assert.deepEqual(r3, ["POST /rpc/build_contractor_profile"]);
  assert.equal(built.employee_count, 12, "rounded");
  assert.equal(built.contact_email, "jo@acme.test", "a null never clears");
  assert.equal(built.years_in_business, 12, "fields not given are kept");
  assert.deepEqual(built.social_links, { facebook: "https://facebook.com/acme" });
  assert.deepEqual(built.scores, { lead_score: 87, google_rating: 5 });
  assert.deepEqual(built.data_sources, ["google_places", "tavily"]);
  assert.deepEqual(built.details, { website: "https://acme.test", city: "Miami" }, "fields COIA does not name");
  assert.ok(built.discovered_at, "captured by the first profile build");
  assert.ok(!("tenant_id" in built));

  await new Promise((r) => setTimeout(r, 5));
  const again = await store.buildContractorProfile(lead, {
    social_links: { instagram: "https://instagram.com/acme" }, scores: { lead_score: 91 }, data_sources: ["tavily", "bbb"],
    details: { city: "Miami Beach" }, specialties: ["roofing"],
  });
  assert.equal(again.discovered_at, built.discovered_at, "discovered_at is set once");
  assert.ok(again.updated_at > built.updated_at);
  assert.deepEqual(again.social_links, { facebook: "https://facebook.com/acme", instagram: "https://instagram.com/acme" }, "merged by key");
  assert.deepEqual(again.scores, { lead_score: 91, google_rating: 5 });
  assert.deepEqual(again.data_sources, ["google_places", "tavily", "bbb"], "a set, first-seen order");
  assert.deepEqual(again.details, { website: "https://acme.test", city: "Miami Beach" });
  assert.deepEqual(again.specialties, ["roofing"], "lists given replace");

  // A later state save updates the lead's columns without touching its enrichment.
  await memory.saveState(lead, { company_name: "Acme Roofing & Gutters" });
  const renamed = (await store.getLead(lead))!;
  assert.equal(renamed.company_name, "Acme Roofing & Gutters");
  assert.deepEqual([renamed.scores, renamed.discovered_at], [again.scores, built.discovered_at]);

  // The conversion: COIA's defaults, the lead's profile, the lead marked; one request.
  const [contractor, r4] = await counted(() => store.convertLead(lead, { contact_phone: "+1 305 555 0100" }));
  assert.deepEqual(r4, ["POST /rpc/convert_contractor_lead"]);
  assert.deepEqual(
    pick(contractor, ["contractor_lead_id", "company_name", "contact_name", "contact_email", "contact_phone", "license_number", "years_in_business",
      "employee_count", "specialties", "social_links", "availability_status", "tier", "verified", "license_verified", "insurance_verified"]),
    { contractor_lead_id: lead, company_name: "Acme Roofing & Gutters", contact_name: "Jo Smith", contact_email: "jo@acme.test",
      contact_phone: "+1 305 555 0100", license_number: "CCC1330000", years_in_business: 12, employee_count: 12, specialties: ["roofing"],
      social_links: again.social_links, availability_status: "available", tier: 3, verified: false, license_verified: false, insurance_verified: false },
  );
  assert.match(contractor.id, /^[0-9a-f-]{36}$/);
  const converted = (await store.getLead(lead))!;
  assert.equal(converted.converted_to_contractor, true);
  assert.ok(converted.converted_at);

  // Once: a second conversion (other account data, even) answers with the same contractor.
  const [second, r5] = await counted(() => store.convertLead(lead, { availability_status: "busy" }));
  assert.deepEqual(r5, ["POST /rpc/convert_contractor_lead"]);
  assert.deepEqual(second, contractor, "the same contractor, unchanged");
  assert.equal((await store.getLead(lead))!.converted_at, converted.converted_at);
  const [forLead, r6] = await counted(() => store.contractorForLead(lead));
  assert.deepEqual(r6, ["GET /contractors"]);
  assert.deepEqual(forLead, contractor);
  assert.equal(await rows(a, "contractors"), 1);
  assert.equal(await store.contractorForLead(leadId("never")), null);

  // Account settings apply to a lead's first conversion; the tier is the service role's to
  // set (a user converting their own lead cannot rank themselves), nothing written.
  const other = leadId("flow-2");
  await store.buildContractorProfile(other, { company_name: "Bolt Electric" });
  const refused = await store.convertLead(other, { tier: 0 }).catch((e: AgentmemError) => e);
  assert.ok(refused instanceof AgentmemError && refused.code === "forbidden" && refused.status === 403, String(refused));
  assert.match(refused.message, /account\.tier is set by the service role only/);
  assert.equal((await store.getLead(other))!.converted_to_contractor, false, "nothing converted");
  const bolt = await store.convertLead(other, { availability_status: "busy", specialties: ["electrical"] });
  assert.deepEqual([bolt.tier, bolt.availability_status, bolt.specialties, bolt.company_name], [3, "busy", ["electrical"], "Bolt Electric"]);
  const forA = new ContractorStore({ client: service().actingFor(a.id) });
  const third = leadId("flow-3");
  await store.buildContractorProfile(third, { company_name: "Tier Two Roofing" });
  assert.equal((await forA.convertLead(third, { tier: "2" })).tier, 2, "the service role acting for the user sets it");
});

Deno.test("contractors: a write resent after a dropped response stores once", async () => {
  const a = await newUser();
  const store = new ContractorStore({ client: a.client });
  const memory = new UnifiedStateManager({ client: a.client });
  const drop = (fn: string) => [{ action: "drop_after", method: "POST", path: `/rpc/${fn}`, times: 1 }];
  // The gateway commits, then closes the connection without answering; agentmem (or
  // Deno's fetch) sends the request again.
  const twice = (requests: string[], fn: string) =>
    assert.deepEqual(requests, [`POST /rpc/${fn}`, `POST /rpc/${fn}`], `the dropped ${fn} was sent again`);

  const lead = leadId("drop");
  const saved = await withFaults(drop("save_unified_state"), async () => {
    const [r, requests] = await counted(() => memory.saveState(lead, { company_name: "Once Roofing", specialties: ["roofing"] }));
    twice(requests, "save_unified_state");
    return r;
  });
  assert.equal(saved.lead!.id, lead);
  assert.equal(await rows(a, "contractor_leads"), 1);

  const built = await withFaults(drop("build_contractor_profile"), async () => {
    const [r, requests] = await counted(() =>
      store.buildContractorProfile(lead, { data_sources: ["google", "tavily"], social_links: { yelp: "https://yelp.com/once" }, scores: { q: 5 } })
    );
    twice(requests, "build_contractor_profile");
    return r;
  });
  assert.deepEqual([built.data_sources, built.social_links, built.scores], [["google", "tavily"], { yelp: "https://yelp.com/once" }, { q: 5 }], "applied twice, stored once");
  assert.equal(await rows(a, "contractor_leads"), 1);

  const contractor = await withFaults(drop("convert_contractor_lead"), async () => {
    const [r, requests] = await counted(() => store.convertLead(lead));
    twice(requests, "convert_contractor_lead");
    return r;
  });
  assert.equal(contractor.contractor_lead_id, lead, "the resend returned the contractor the first attempt made");
  assert.equal(await rows(a, "contractors"), 1);
  assert.deepEqual(await store.contractorForLead(lead), contractor);
});

Deno.test("contractors: 20 concurrent conversions of one lead make one contractor; concurrent profile builds make one lead", async () => {
  const a = await newUser();
  const store = new ContractorStore({ client: a.client });
  const lead = leadId("race");
  // Ten builds of a lead nobody wrote yet, at once: one lead, every source kept.
  const builds = await Promise.all(
    Array.from({ length: 10 }, (_, i) => store.buildContractorProfile(lead, { company_name: "Race Roofing", data_sources: [`source-${i}`] })),
  );
  assert.equal(new Set(builds.map((b) => b.created_at)).size, 1, "one lead");
  assert.equal(await rows(a, "contractor_leads"), 1);
  const merged = (await store.getLead(lead))!;
  assert.deepEqual([...merged.data_sources].sort(), Array.from({ length: 10 }, (_, i) => `source-${i}`).sort(), "no build lost");

  const results: (Contractor | AgentmemError)[] = await Promise.all(
    Array.from({ length: 20 }, (_, i) => store.convertLead(lead, { availability_status: `busy-${i}` }).catch((e: AgentmemError) => e)),
  );
  const errors = results.filter((r) => r instanceof AgentmemError);
  assert.deepEqual(errors, [], "no conversion failed");
  const contractors = results as Contractor[];
  assert.equal(new Set(contractors.map((c) => c.id)).size, 1, "all 20 answered with one contractor");
  assert.equal(new Set(contractors.map((c) => c.availability_status)).size, 1, "the first conversion's account, for everyone");
  assert.equal(await rows(a, "contractors"), 1);
  assert.equal(await rows(a, "contractors", [["contractor_lead_id", "eq", lead]]), 1);
});

Deno.test("contractors: bad input is an invalid_input naming the field, and nothing is written", async () => {
  const a = await newUser();
  const store = new ContractorStore({ client: a.client });
  const memory = new UnifiedStateManager({ client: a.client });
  const lead = leadId("bad");
  const cases: [() => Promise<unknown>, string][] = [
    [() => store.buildContractorProfile("", { company_name: "x" }), "contractorLeadId"],
    [() => store.buildContractorProfile("x".repeat(256), { company_name: "x" }), "contractorLeadId"],
    [() => store.buildContractorProfile(lead, undefined as never), "profile"],
    [() => store.buildContractorProfile(lead, { company_name: "Acme", years_in_business: "10+" }), "profile.years_in_business"],
    [() => store.buildContractorProfile(lead, { company_name: "Acme", employee_count: "a dozen" }), "profile.employee_count"],
    [() => store.buildContractorProfile(lead, { company_name: "Acme", employee_count: -3 }), "profile.employee_count"],
    [() => store.buildContractorProfile(lead, { company_name: "Acme", scores: { lead_score: "high" } }), "profile.scores.lead_score"],
    [() => store.buildContractorProfile(lead, { company_name: "Acme", scores: { lead_score: NaN } }), "profile.scores.lead_score"],
    [() => store.buildContractorProfile(lead, { company_name: "Acme", social_links: { facebook: 42 as never } }), "profile.social_links.facebook"],
    [() => store.buildContractorProfile(lead, { company_name: "Acme", data_sources: "google" as never }), "profile.data_sources"],
    [() => store.buildContractorProfile(lead, { company_name: "Acme", specialties: ["roofing", 7 as never] }), "profile.specialties[1]"],
    [() => store.buildContractorProfile(lead, { company_name: " " }), "profile.company_name"],
    [() => store.buildContractorProfile(lead, { company_name: "Acme", discovered_at: "2020-01-01" }), "profile.discovered_at"],
    [() => store.buildContractorProfile(lead, { company_name: "Acme", converted_to_contractor: true }), "profile.converted_to_contractor"],
    [() => store.buildContractorProfile(lead, { company_name: "Acme", verified: true }), "profile.verified"],
    [() => store.convertLead(lead, { tier: "gold" }), "account.tier"],
    [() => store.convertLead(lead, { verified: true } as never), "account.verified"],
    [() => store.convertLead(lead, { scores: {} } as never), "account.scores"],
    [() => store.convertLead(lead, "account" as never), "account"],
    [() => store.convertLead(42 as never), "contractorLeadId"],
    [() => store.getLead(null as never), "contractorLeadId"],
  ];
  const requests = await countRequests(async () => {
    for (const [call, field] of cases) await rejects(call(), "invalid_input", field);
  });
  assert.deepEqual(requests, [], "nothing was sent");

  // What only the database can tell: a new lead needs a company_name. One request, the
  // field named, nothing written.
  const [e, r] = await counted(() => rejects(store.buildContractorProfile(lead, { social_links: { x: "https://x.com/acme" } }), "invalid_input", "profile.company_name"));
  assert.deepEqual(r, ["POST /rpc/build_contractor_profile"]);
  assert.match(e.message, /new lead needs profile\.company_name/);
  await rejects(store.convertLead(lead), "not_found");
  assert.equal(await rows(a, "contractor_leads"), 0);
  assert.equal(await rows(a, "contractors"), 0);

  // A state save whose lead part does not fit writes the state, never a half lead.
  const saved = await memory.saveState(lead, { company_name: "x".repeat(501) });
  assert.equal(saved.lead, null, "a company_name over 500 characters makes no lead");
  assert.equal(await rows(a, "contractor_leads"), 0);
  assert.throws(() => new ContractorStore({ client: a.client, tier: 3 } as never), (x: unknown) => x instanceof AgentmemError && x.field === "options.tier");
  assert.throws(() => new UnifiedStateManager({ client: a.client, contractorLeads: "no" } as never), (x: unknown) => x instanceof AgentmemError && x.field === "options.contractorLeads");
  // Leads can be left to the application.
  const plain = new UnifiedStateManager({ client: a.client, contractorLeads: false });
  assert.equal((await plain.saveState(lead, { company_name: "Acme" })).lead, null);
  assert.equal(await rows(a, "contractor_leads"), 0);
});

Deno.test("contractors: two tenants' leads are independent; another tenant's lead is answered as an unknown one", async () => {
  const [a, b] = [await newUser(), await newUser()];
  const [sa, sb] = [a, b].map((u) => new ContractorStore({ client: u.client }));
  const lead = leadId("tenancy");
  await new UnifiedStateManager({ client: a.client }).saveState(lead, { company_name: "A's company", contact_email: "a@a.test" });
  await sa.buildContractorProfile(lead, { scores: { q: 1 }, data_sources: ["a-only"] });
  const aLead = (await sa.getLead(lead))!;

  assert.equal(await sb.getLead(lead), null, "B sees nothing");
  assert.equal(await sb.contractorForLead(lead), null);
  // Converting A's lead and converting a lead nobody has are the same answer to B.
  const unknown = leadId("tenancy-nobody");
  const onA = await rejects(sb.convertLead(lead), "not_found");
  const onNobody = await rejects(sb.convertLead(unknown), "not_found");
  const same = (e: AgentmemError, id: string) => JSON.stringify({ status: e.status, code: e.pgrstCode, message: e.message.split(id).join("<id>"), hint: e.hint, details: e.details });
  assert.equal(same(onA, lead), same(onNobody, unknown));
  // Enriching A's lead id: B has no such lead, so B needs a company_name, as for any new id.
  const eOnA = await rejects(sb.buildContractorProfile(lead, { scores: { q: 99 } }), "invalid_input", "profile.company_name");
  const eOnNobody = await rejects(sb.buildContractorProfile(unknown, { scores: { q: 99 } }), "invalid_input", "profile.company_name");
  assert.equal(same(eOnA, lead), same(eOnNobody, unknown));

  // B takes the same id: B's own lead and contractor; A's lead is as it was, unconverted.
  const bLead = await sb.buildContractorProfile(lead, { company_name: "B's company", data_sources: ["b-only"] });
  assert.deepEqual([bLead.company_name, bLead.data_sources, bLead.contact_email], ["B's company", ["b-only"], null]);
  const bContractor = await sb.convertLead(lead);
  assert.equal(bContractor.company_name, "B's company");
  assert.deepEqual(await sa.getLead(lead), aLead, "A's lead unchanged");
  assert.equal(await sa.contractorForLead(lead), null, "A's lead did not convert");
  const aContractor = await sa.convertLead(lead);
  assert.notEqual(aContractor.id, bContractor.id);
  assert.equal(aContractor.company_name, "A's company");
  assert.equal((await sb.contractorForLead(lead))!.id, bContractor.id);

  // The service role has its own key space, and reaches a user's leads only acting for them.
  const svc = new ContractorStore({ client: service() });
  assert.equal(await svc.getLead(lead), null);
  await rejects(svc.convertLead(lead), "not_found");
  const forA = new ContractorStore({ client: service().actingFor(a.id) });
  assert.equal((await forA.getLead(lead))!.company_name, "A's company");
  assert.deepEqual(await forA.convertLead(lead), aContractor, "acting for A: A's contractor, still one");
  assert.equal(await rows(a, "contractors"), 1);
  // No identity, no access.
  const anon = new ContractorStore({ client: createClient({ url: env.SUPABASE_URL, apiKey: env.SUPABASE_ANON_KEY }) });
  await rejects(anon.getLead(lead), "unauthorized");
  await rejects(anon.convertLead(lead), "unauthorized");
});

function pick(o: ContractorLead | Contractor, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [k, (o as unknown as Record<string, unknown>)[k]]));
}
