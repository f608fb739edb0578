// Refusing anonymous users where a project wants to, exactly as README's "Visitors without
// accounts" shows it, on the local stack: Supabase's restrictive policy on the
// `is_anonymous` claim for a table of the project's own, and a trigger with the same check
// that refuses anonymous users a contractor even through agentmem's own function (whose
// writes row-level security does not see). The SQL is installed by psql for this test and
// removed after it. Run by tests/visitors/run.sh.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { readStackEnv } from "../support/env.mjs";
import { AgentmemError, ContractorStore, createClient, UnifiedStateManager } from "../../pkg/node.js";

const root = new URL("../../", import.meta.url).pathname;
const env = readStackEnv();
const run = crypto.randomUUID().slice(0, 8);
const feed = `visitors_feed_${run}`;
const sql = (text) => execFileSync(join(root, "scripts/postgres.sh"), ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c", text], { encoding: "utf8" });

/** Supabase Auth as supabase-js calls it (the stack's /auth/v1). */
async function auth(method, path, body, token) {
  const r = await fetch(`${env.SUPABASE_URL}/auth/v1/${path}`, {
    method,
    headers: { apikey: env.SUPABASE_ANON_KEY, "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const out = await r.json();
  assert.ok(r.ok, `${method} /auth/v1/${path}: ${r.status} ${JSON.stringify(out)}`);
  return out;
}
const signInAnonymously = () => auth("POST", "signup", { data: {} });
const signUp = (s) => auth("PUT", "user", { email: `anon-${crypto.randomUUID().slice(0, 8)}@test.local`, password: "visitor password" }, s.access_token);
const refresh = (s) => auth("POST", "token?grant_type=refresh_token", { refresh_token: s.refresh_token });

const rest = (token, method, body) =>
  fetch(`${env.SUPABASE_URL}/rest/v1/${feed}`, {
    method,
    headers: { apikey: env.SUPABASE_ANON_KEY, authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body && JSON.stringify(body),
  });

before(async () => {
  // README's policies, on a table of the project's own.
  sql(`
    create table public.${feed} (
      id bigint generated always as identity primary key,
      user_id uuid not null default auth.uid(),
      body text not null
    );
    alter table public.${feed} enable row level security;
    grant select, insert on public.${feed} to authenticated;
    create policy "Signed-in users read the feed" on public.${feed} for select to authenticated using (true);
    create policy "Users post as themselves" on public.${feed} for insert to authenticated
      with check (user_id = (select auth.uid()));
    create policy "Only permanent users can post to the news feed" on public.${feed} as restrictive for insert to authenticated
      with check ((auth.jwt() ->> 'is_anonymous')::boolean is false);

    create or replace function public.contractors_need_an_account()
    returns trigger language plpgsql set search_path = '' as $$
    begin
      if (auth.jwt() ->> 'is_anonymous')::boolean then
        raise exception 'create an account first' using errcode = '42501';
      end if;
      return new;
    end $$;
    create trigger contractors_need_an_account before insert on public.contractors
      for each row execute function public.contractors_need_an_account();
    notify pgrst, 'reload schema';
  `);
  // The schema reload is asynchronous: wait until the gateway knows the table.
  const visitor = await signInAnonymously();
  for (let i = 0; (await rest(visitor.access_token, "GET")).status !== 200; i++) {
    assert.ok(i < 100, `the gateway never learned of ${feed}`);
    await new Promise((r) => setTimeout(r, 50));
  }
});
after(() => {
  sql(`drop trigger if exists contractors_need_an_account on public.contractors;
       drop function if exists public.contractors_need_an_account();
       drop table if exists public.${feed};
       notify pgrst, 'reload schema';`);
});

test("Supabase's restrictive policy on is_anonymous: visitors read, only permanent users write; the token says which after a refresh", async () => {
  const visitor = await signInAnonymously();
  const refused = await rest(visitor.access_token, "POST", { body: "first!" });
  assert.equal(refused.status, 403);
  assert.equal((await refused.json()).code, "42501");
  assert.equal((await rest(visitor.access_token, "GET")).status, 200, "anonymous users still read");

  await signUp(visitor);
  // Until it is refreshed, the token was issued to an anonymous user and says so.
  assert.equal((await rest(visitor.access_token, "POST", { body: "still anonymous" })).status, 403);
  const member = await refresh(visitor);
  assert.equal(member.user.id, visitor.user.id);
  const posted = await rest(member.access_token, "POST", { body: "hello" });
  assert.equal(posted.status, 201, await posted.text());
  const rows = await (await rest(member.access_token, "GET")).json();
  assert.deepEqual(rows.map((r) => [r.user_id, r.body]), [[visitor.user.id, "hello"]]);
});

test("a trigger on is_anonymous refuses anonymous users a contractor, even through agentmem's one-door function", async () => {
  const visitor = await signInAnonymously();
  const client = (s) => createClient({ url: env.SUPABASE_URL, apiKey: env.SUPABASE_ANON_KEY, accessToken: s.access_token });
  const lead = `landing-${run}`;
  await new UnifiedStateManager({ client: client(visitor) }).saveState(lead, { company_name: "Acme Roofing" });

  const refused = await new ContractorStore({ client: client(visitor) }).convertLead(lead).then(() => null, (e) => e);
  assert.ok(refused instanceof AgentmemError, String(refused));
  assert.equal(refused.code, "forbidden");
  assert.equal(refused.pgrstCode, "42501");
  const store = new ContractorStore({ client: client(visitor) });
  assert.equal((await store.getLead(lead)).converted_to_contractor, false, "the refused conversion left the lead as it was");
  assert.equal(await store.contractorForLead(lead), null);

  await signUp(visitor);
  const member = new ContractorStore({ client: client(await refresh(visitor)) });
  const contractor = await member.convertLead(lead);
  assert.equal(contractor.company_name, "Acme Roofing");
  assert.equal((await member.getLead(lead)).converted_to_contractor, true);
});
