-- COIA's business rows: contractor leads and the contractors they convert into, written
-- by ONE path each instead of the original's two.
--
-- Creates: tables contractor_leads, contractors (and their shared columns,
--          agentmem.contractor_profile); functions build_contractor_profile,
--          convert_contractor_lead; helpers agentmem.contractor_lead_merge (also called by
--          save_unified_state's p_lead), agentmem.jsonb_array_union,
--          agentmem.contractor_only_keys, agentmem.contractor_check_lead_id,
--          agentmem.contractor_check_types, agentmem.contractor_lead_fields.
-- Needs:   20261121000100_tenancy.sql.
--
-- The original wrote `contractor_leads` from two places (UnifiedStateManager upserted a
-- lead on save when the state had a company_name; build_contractor_profile() inserted
-- one) and `contractors` from two (create_contractor_account() and bid_submission_node,
-- which also set contractor_leads.converted_to_contractor), so the writers could drift
-- apart. Here:
--
--   save_unified_state(..., p_lead)      the state's lead fields, in the same transaction
--                                        as the state (20261122000300_unified_conversations.sql;
--                                        p_lead defaults to null)
--   build_contractor_profile(id, p)      the one profile write: merges enrichment
--   convert_contractor_lead(id, acct)    the one conversion: inserts the contractor and
--                                        marks the lead converted, one transaction; a lead
--                                        converts at most once, ever: a repeat returns the
--                                        same contractor, and a converted lead whose
--                                        contractor is gone or unlinked is 23505
-- Both lead writers go through agentmem.contractor_lead_merge, so they cannot drift.
--
-- The columns are the fields the original's flows handle:
--   the lead id       contractor_lead_id: "landing-{uuid12}", "bidcard-{uuid12}", or the
--                     app's own id; also the thread id and the uuid5 input of the
--                     conversation id
--   profile fields    UnifiedStateManager.PERSISTENT_STATE_FIELDS, the fields persisted
--                     per lead; a state with a company_name is a lead
--   enrichment        what a profile build merges: social links, scores, data_sources;
--                     numbers become integers, null values are dropped, discovered_at is
--                     recorded
--   account defaults  what making an account sets: availability_status, tier, verified
--                     flags, specialties
--   conversion        contractor_leads.converted_to_contractor
-- Where the original leaves a value, a type or a name open, the column says what agentmem
-- chose; such columns are nullable unless a default is stated there.
--
-- Tenancy (20261121000100_tenancy.sql): tenant_id is part of every key, so a lead id names
-- a different lead in each tenant; a contractor references a lead of its own tenant; the
-- functions filter by agentmem.tenant() explicitly (the service role bypasses RLS). The
-- API roles write neither table except through these functions (the one door), so the
-- verification flags (verified, license_verified, insurance_verified) are written by the
-- service role only, and so is tier (a conversion's account may set it for the service
-- role only); a lead's conversion (converted_to_contractor, converted_at), once made, is
-- kept by the database whatever a later write says.
--
-- Errors: 22023 for bad arguments (the message names the field; `detail` is
-- 'field: <path>' so clients can report it), PT404 for a lead that is not the caller's,
-- PT401/42501 without an identity.
--
-- Re-runnable, like every agentmem SQL file (see 20261121000100_tenancy.sql).

-- Tables ----------------------------------------------------------------------------------
-- The profile columns leads and contractors share, declared once: both tables copy them
-- (with their defaults and checks) through LIKE, so a conversion cannot fail on checks that
-- drifted apart. Never written: no privilege on it for anyone.
create table if not exists agentmem.contractor_profile (
  -- Its presence is what makes a state a lead; required for a new lead.
  company_name      text not null check (char_length(company_name) between 1 and 500),
  contact_name      text check (char_length(contact_name) <= 500),
  contact_email     text check (char_length(contact_email) <= 320),
  contact_phone     text check (char_length(contact_phone) <= 100),
  business_address  text check (char_length(business_address) <= 1000),
  license_number    text check (char_length(license_number) <= 255),
  -- The profile's numbers, kept as integers (a profile build turns numbers into integers;
  -- which fields the original converted is not known: these two).
  years_in_business integer check (years_in_business >= 0),
  employee_count    integer check (employee_count >= 0),
  -- The profile's lists (of strings, as agentmem writes them; any element type is kept).
  specialties       jsonb not null default '[]'::jsonb check (jsonb_typeof(specialties) = 'array'),
  certifications    jsonb not null default '[]'::jsonb check (jsonb_typeof(certifications) = 'array'),
  service_areas     jsonb not null default '[]'::jsonb check (jsonb_typeof(service_areas) = 'array'),
  project_types     jsonb not null default '[]'::jsonb check (jsonb_typeof(project_types) = 'array'),
  -- Social links {platform: url}, merged by key by every profile build.
  social_links      jsonb not null default '{}'::jsonb check (jsonb_typeof(social_links) = 'object')
);
revoke all on agentmem.contractor_profile from public, anon, authenticated, service_role;

create table if not exists public.contractor_leads (
  -- The contractor_lead_id the COIA flows and the unified memory use.
  id                      text not null
                            constraint contractor_leads_id_check check (char_length(id) between 1 and 255),
  tenant_id               uuid not null default agentmem.tenant(),
  like agentmem.contractor_profile including defaults including constraints,
  -- Enrichment, merged by every profile build: scores {name: integer} by key, data_sources
  -- as a set (first-seen order).
  scores                  jsonb not null default '{}'::jsonb
                            constraint contractor_leads_scores_check check (jsonb_typeof(scores) = 'object'),
  data_sources            jsonb not null default '[]'::jsonb
                            constraint contractor_leads_data_sources_check check (jsonb_typeof(data_sources) = 'array'),
  -- Every other profile field (website, city, ratings, research findings, ...): kept as
  -- given, merged by key; their shape is the caller's.
  details                 jsonb not null default '{}'::jsonb
                            constraint contractor_leads_details_check check (jsonb_typeof(details) = 'object'),
  -- Set by the first profile build, never changed.
  -- Null for a lead only a state save has written so far.
  discovered_at           timestamptz,
  -- Set by convert_contractor_lead only.
  converted_to_contractor boolean not null default false,
  -- When the lead converted (the flag alone cannot say).
  converted_at            timestamptz,
  -- Bookkeeping.
  created_at              timestamptz not null default now(),
  updated_at              timestamptz not null default now(),
  primary key (tenant_id, id)
);

comment on table public.contractor_leads is
  'COIA contractor leads, per tenant: written by save_unified_state (state with a company_name) and build_contractor_profile; converted by convert_contractor_lead.';
comment on column public.contractor_leads.details is
  'Profile fields without a column of their own (shape: the caller''s), merged by key.';
comment on column public.contractor_leads.scores is
  'Enrichment scores {name: integer}, merged by key.';

create table if not exists public.contractors (
  -- The account's id.
  id                  uuid not null default gen_random_uuid(),
  tenant_id           uuid not null default agentmem.tenant(),
  -- The lead the account was made from. Unique per tenant, so a lead converts
  -- at most once; null for a contractor the application made without a lead, or whose
  -- lead was deleted since.
  contractor_lead_id  text,
  -- The account is made from the lead's profile fields, the account argument
  -- overriding; specialties: the lead's, else none.
  like agentmem.contractor_profile including defaults including constraints,
  -- Set by default when an account is made; its values are open: agentmem's default is
  -- 'available'.
  availability_status text not null default 'available'
                        constraint contractors_availability_status_check check (char_length(availability_status) between 1 and 50),
  -- Set by default when an account is made; its type and values are open: agentmem's
  -- default is 3, the entry tier (lower is better) as InstaBids' later contractor tool has it.
  tier                integer not null default 3
                        constraint contractors_tier_check check (tier >= 0),
  -- Verified flags: these three start false and are not set by the conversion
  -- (verifying is someone else's job).
  verified            boolean not null default false,
  license_verified    boolean not null default false,
  insurance_verified  boolean not null default false,
  created_at          timestamptz not null default now(),
  updated_at          timestamptz not null default now(),
  primary key (tenant_id, id),
  constraint contractors_contractor_lead_id_key unique (tenant_id, contractor_lead_id),
  -- A deleted lead leaves its contractor, unlinked.
  constraint contractors_contractor_lead_fkey foreign key (tenant_id, contractor_lead_id)
    references public.contractor_leads (tenant_id, id) on update cascade on delete set null (contractor_lead_id)
);

comment on table public.contractors is
  'COIA contractor accounts, per tenant; made from a lead by convert_contractor_lead, at most one per lead.';

-- Indexes ---------------------------------------------------------------------------------
create index if not exists contractor_leads_updated_idx on public.contractor_leads (tenant_id, updated_at desc);
-- The unique constraint's index serves lookups by lead.

-- Row-level security and grants -----------------------------------------------------------
select agentmem.protect('public.contractor_leads', 'tenant_id');
select agentmem.protect('public.contractors', 'tenant_id');
-- created_at / updated_at are the database's (20261121000100_tenancy.sql).
select agentmem.keep_bookkeeping('public.contractor_leads', 'agentmem.stamp_times');
select agentmem.keep_bookkeeping('public.contractors', 'agentmem.stamp_times');

-- A conversion is for good: once converted_at is set, an update keeps it and the flag.
create or replace function agentmem.contractor_lead_keep_conversion()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if old.converted_at is not null or old.converted_to_contractor then
    new.converted_to_contractor := true;
    new.converted_at := coalesce(old.converted_at, new.converted_at, pg_catalog.now());
  end if;
  return new;
end;
$$;
drop trigger if exists agentmem_keep_conversion on public.contractor_leads;
create trigger agentmem_keep_conversion before update on public.contractor_leads
  for each row execute function agentmem.contractor_lead_keep_conversion();

-- Helpers ---------------------------------------------------------------------------------

-- The elements of a, then those of b not in a: a set that keeps first-seen order.
create or replace function agentmem.jsonb_array_union(a jsonb, b jsonb)
returns jsonb
language sql
immutable
set search_path = ''
as $$
  select coalesce(jsonb_agg(e order by first), '[]'::jsonb)
  from (select e, min(n) as first
        from (select x.e, x.n from jsonb_array_elements(coalesce(a, '[]'::jsonb)) with ordinality x(e, n)
              union all
              select y.e, y.n + 2147483648 from jsonb_array_elements(coalesce(b, '[]'::jsonb)) with ordinality y(e, n)) u
        group by e) g
$$;

-- Refuses keys of p_value outside p_allowed: 22023 naming the first, as '<p_path>.<key>'.
create or replace function agentmem.contractor_only_keys(p_value jsonb, p_path text, p_allowed text[])
returns void
language plpgsql
immutable
set search_path = ''
as $$
declare
  v_key text;
begin
  if p_value is null or jsonb_typeof(p_value) <> 'object' then
    raise exception '% must be a JSON object', p_path using errcode = '22023', detail = 'field: ' || p_path;
  end if;
  select k into v_key from jsonb_object_keys(p_value) k where k <> all (p_allowed) order by k limit 1;
  if v_key is not null then
    raise exception '%.% is not a field agentmem writes here; the fields are %', p_path, v_key, array_to_string(p_allowed, ', ')
      using errcode = '22023', detail = 'field: ' || p_path || '.' || v_key;
  end if;
end;
$$;

-- A lead id a write names: 1 to 255 characters, or 22023 naming contractorLeadId.
create or replace function agentmem.contractor_check_lead_id(p_id text)
returns void
language plpgsql
immutable
set search_path = ''
as $$
begin
  if p_id is null or char_length(p_id) not between 1 and 255 then
    raise exception 'contractorLeadId must be 1 to 255 characters' using errcode = '22023', detail = 'field: contractorLeadId';
  end if;
end;
$$;

-- Refuses the first key of p_value named in p_arrays (then p_objects) whose value is not a
-- JSON array (object): 22023 as '<p_path>.<key> must be a JSON array (object)'.
create or replace function agentmem.contractor_check_types(p_value jsonb, p_path text, p_arrays text[],
                                                           p_objects text[] default '{}')
returns void
language plpgsql
immutable
set search_path = ''
as $$
declare
  v_key  text;
  v_type text;
begin
  select f.k, f.t into v_key, v_type
    from (select a.k, 'array' as t, a.n from unnest(p_arrays) with ordinality a(k, n)
          union all
          select o.k, 'object', o.n + 2147483648 from unnest(p_objects) with ordinality o(k, n)) f
   where p_value ? f.k and jsonb_typeof(p_value -> f.k) <> f.t
   order by f.n limit 1;
  if v_key is not null then
    raise exception '%.% must be a JSON %', p_path, v_key, v_type using errcode = '22023', detail = 'field: ' || p_path || '.' || v_key;
  end if;
end;
$$;

-- The lead columns a write may give (everything but keys, flags and bookkeeping).
create or replace function agentmem.contractor_lead_fields()
returns text[]
language sql
immutable
set search_path = ''
as $$
  select array['company_name', 'contact_name', 'contact_email', 'contact_phone', 'business_address', 'license_number',
               'years_in_business', 'employee_count', 'specialties', 'certifications', 'service_areas', 'project_types',
               'social_links', 'scores', 'data_sources', 'details']
$$;

-- contractor_lead_merge: THE lead write, shared by save_unified_state (p_profile false)
-- and build_contractor_profile (p_profile true). p_lead holds lead columns; nulls are
-- stripped first (a null never clears what an earlier write stored). Scalars and lists
-- given replace; social_links, scores and details merge by key; data_sources is a set;
-- discovered_at is set by the first profile build. A new lead needs a company_name.
-- The lead's row lock orders concurrent writes and conversions of one lead.
create or replace function agentmem.contractor_lead_merge(p_tenant uuid, p_id text, p_lead jsonb, p_profile boolean, p_path text)
returns public.contractor_leads
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_lead jsonb := jsonb_strip_nulls(coalesce(p_lead, '{}'::jsonb));
  v_in   public.contractor_leads;
  v_row  public.contractor_leads;
  v_key  text;
begin
  perform agentmem.contractor_check_lead_id(p_id);
  perform agentmem.contractor_only_keys(v_lead, p_path, agentmem.contractor_lead_fields());
  perform agentmem.contractor_check_types(v_lead, p_path,
    array['specialties', 'certifications', 'service_areas', 'project_types', 'data_sources'],
    array['social_links', 'scores', 'details']);
  select p_path || '.scores.' || s.key into v_key from jsonb_each(v_lead -> 'scores') s
   where jsonb_typeof(s.value) <> 'number' or s.value::text !~ '^-?[0-9]+$' limit 1;
  if v_key is not null then
    raise exception '% must be an integer', v_key using errcode = '22023', detail = 'field: ' || v_key;
  end if;
  v_in := jsonb_populate_record(null::public.contractor_leads, v_lead);

  loop
    update public.contractor_leads l set
      company_name      = coalesce(v_in.company_name, l.company_name),
      contact_name      = coalesce(v_in.contact_name, l.contact_name),
      contact_email     = coalesce(v_in.contact_email, l.contact_email),
      contact_phone     = coalesce(v_in.contact_phone, l.contact_phone),
      business_address  = coalesce(v_in.business_address, l.business_address),
      license_number    = coalesce(v_in.license_number, l.license_number),
      years_in_business = coalesce(v_in.years_in_business, l.years_in_business),
      employee_count    = coalesce(v_in.employee_count, l.employee_count),
      specialties       = coalesce(v_in.specialties, l.specialties),
      certifications    = coalesce(v_in.certifications, l.certifications),
      service_areas     = coalesce(v_in.service_areas, l.service_areas),
      project_types     = coalesce(v_in.project_types, l.project_types),
      social_links      = l.social_links || coalesce(v_in.social_links, '{}'::jsonb),
      scores            = l.scores || coalesce(v_in.scores, '{}'::jsonb),
      data_sources      = agentmem.jsonb_array_union(l.data_sources, v_in.data_sources),
      details           = l.details || coalesce(v_in.details, '{}'::jsonb),
      discovered_at     = case when p_profile then coalesce(l.discovered_at, now()) else l.discovered_at end,
      updated_at        = now()
    where l.tenant_id = p_tenant and l.id = p_id
    returning l.* into v_row;
    if found then
      return v_row;
    end if;
    if v_in.company_name is null then
      raise exception 'no contractor lead % yet: a new lead needs %.company_name', quote_literal(p_id), p_path
        using errcode = '22023', detail = 'field: ' || p_path || '.company_name';
    end if;
    insert into public.contractor_leads as l
      (tenant_id, id, company_name, contact_name, contact_email, contact_phone, business_address, license_number,
       years_in_business, employee_count, specialties, certifications, service_areas, project_types,
       social_links, scores, data_sources, details, discovered_at)
    values
      (p_tenant, p_id, v_in.company_name, v_in.contact_name, v_in.contact_email, v_in.contact_phone,
       v_in.business_address, v_in.license_number, v_in.years_in_business, v_in.employee_count,
       coalesce(v_in.specialties, '[]'::jsonb), coalesce(v_in.certifications, '[]'::jsonb),
       coalesce(v_in.service_areas, '[]'::jsonb), coalesce(v_in.project_types, '[]'::jsonb),
       coalesce(v_in.social_links, '{}'::jsonb), coalesce(v_in.scores, '{}'::jsonb),
       agentmem.jsonb_array_union('[]'::jsonb, v_in.data_sources), coalesce(v_in.details, '{}'::jsonb),
       case when p_profile then now() end)
    on conflict (tenant_id, id) do nothing
    returning l.* into v_row;
    if found then
      return v_row;
    end if;
    -- Another transaction created the lead meanwhile: merge into it.
  end loop;
end;
$$;

-- Functions -------------------------------------------------------------------------------

-- build_contractor_profile: the profile write: creates the lead or merges into it.
-- Returns the lead (without tenant_id).
create or replace function public.build_contractor_profile(p_contractor_lead_id text, p_profile jsonb)
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
as $$
begin
  return to_jsonb(agentmem.contractor_lead_merge(agentmem.tenant(), p_contractor_lead_id, p_profile, true, 'profile'))
         - 'tenant_id';
end;
$$;

comment on function public.build_contractor_profile(text, jsonb) is
  'Creates or enriches a contractor lead: scalars and lists replace, social_links/scores/details merge by key, data_sources is a set, discovered_at set once.';

-- convert_contractor_lead: the one conversion path (the original's
-- create_contractor_account and bid_submission_node, merged). Inserts the contractor made
-- from the lead (p_account overriding its fields; the column defaults for the rest) and marks the lead converted,
-- in one transaction. A lead that already converted returns its contractor unchanged, so
-- a resend or a concurrent second conversion gets the same account. A lead that is not
-- the caller's (another tenant's, or none) is PT404 with the same message either way.
create or replace function public.convert_contractor_lead(p_contractor_lead_id text, p_account jsonb default '{}'::jsonb)
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_tenant  uuid := agentmem.tenant();
  v_account jsonb := jsonb_strip_nulls(coalesce(p_account, '{}'::jsonb));
  v_in      public.contractors;
  v_lead    public.contractor_leads;
  v_row     public.contractors;
begin
  perform agentmem.contractor_check_lead_id(p_contractor_lead_id);
  perform agentmem.contractor_only_keys(v_account, 'account',
    array['company_name', 'contact_name', 'contact_email', 'contact_phone', 'business_address', 'license_number',
          'years_in_business', 'employee_count', 'specialties', 'certifications', 'service_areas', 'project_types',
          'availability_status', 'tier']);
  perform agentmem.contractor_check_types(v_account, 'account',
    array['specialties', 'certifications', 'service_areas', 'project_types']);
  if v_account ? 'tier' and not agentmem.is_service() then
    raise exception 'account.tier is set by the service role only' using errcode = '42501', detail = 'field: account.tier';
  end if;
  v_in := jsonb_populate_record(null::public.contractors, v_account);

  -- Locks the lead: concurrent conversions of it run one after another, and every one
  -- after the first finds the contractor.
  select * into v_lead from public.contractor_leads
   where tenant_id = v_tenant and id = p_contractor_lead_id for update;
  if not found then
    raise exception 'no contractor lead %', quote_literal(p_contractor_lead_id)
      using errcode = 'PT404', hint = 'write the lead first (saveState with a company_name, or buildContractorProfile)';
  end if;

  select * into v_row from public.contractors where tenant_id = v_tenant and contractor_lead_id = p_contractor_lead_id;
  if not found and v_lead.converted_to_contractor then
    raise exception 'contractor lead % converted already; its contractor was deleted or unlinked', quote_literal(p_contractor_lead_id)
      using errcode = '23505', hint = 'a lead converts once';
  end if;
  if not found then
    insert into public.contractors as c
      (tenant_id, contractor_lead_id, company_name, contact_name, contact_email, contact_phone, business_address,
       license_number, years_in_business, employee_count, specialties, certifications, service_areas, project_types,
       social_links, availability_status, tier)
    values
      (v_tenant, p_contractor_lead_id, coalesce(v_in.company_name, v_lead.company_name),
       coalesce(v_in.contact_name, v_lead.contact_name), coalesce(v_in.contact_email, v_lead.contact_email),
       coalesce(v_in.contact_phone, v_lead.contact_phone), coalesce(v_in.business_address, v_lead.business_address),
       coalesce(v_in.license_number, v_lead.license_number), coalesce(v_in.years_in_business, v_lead.years_in_business),
       coalesce(v_in.employee_count, v_lead.employee_count), coalesce(v_in.specialties, v_lead.specialties),
       coalesce(v_in.certifications, v_lead.certifications), coalesce(v_in.service_areas, v_lead.service_areas),
       coalesce(v_in.project_types, v_lead.project_types), v_lead.social_links,
       coalesce(v_in.availability_status, 'available'), coalesce(v_in.tier, 3))
    returning c.* into v_row;
  end if;

  update public.contractor_leads
     set converted_to_contractor = true, converted_at = coalesce(converted_at, now()), updated_at = now()
   where tenant_id = v_tenant and id = p_contractor_lead_id and not converted_to_contractor;

  return to_jsonb(v_row) - 'tenant_id';
end;
$$;

comment on function public.convert_contractor_lead(text, jsonb) is
  'Converts a contractor lead: inserts its contractor (account fields overriding the lead''s) and marks the lead converted, atomically; at most once per lead (a repeat returns the same contractor).';

-- Grants ----------------------------------------------------------------------------------
select agentmem.expose(
  'agentmem.jsonb_array_union(jsonb, jsonb)',
  'agentmem.contractor_only_keys(jsonb, text, text[])',
  'agentmem.contractor_check_lead_id(text)',
  'agentmem.contractor_check_types(jsonb, text, text[], text[])',
  'agentmem.contractor_lead_fields()',
  'public.build_contractor_profile(text, jsonb)',
  'public.convert_contractor_lead(text, jsonb)');
-- Called only by the writers (as the owner): build_contractor_profile, save_unified_state.
select agentmem.keep_private('agentmem.contractor_lead_merge(uuid, text, jsonb, boolean, text)',
                             'agentmem.contractor_lead_keep_conversion()');

notify pgrst, 'reload schema';
