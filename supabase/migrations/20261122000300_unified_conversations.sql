-- Unified conversation memory: the state the COIA agent keeps for a contractor lead
-- between visits, outside LangGraph checkpoints.
--
-- Creates: tables unified_conversations, unified_conversation_memory; the functions
--          listed below; helpers agentmem.unified_iso_now, unified_check_ids,
--          unified_conversation_write.
-- Needs:   20261121000100_tenancy.sql; save_unified_state's p_lead (the contractor lead)
--          calls agentmem.contractor_lead_merge of 20261122000600_contractors.sql when it
--          runs, so that file must be applied too before p_lead is used.
--
-- Tables
--   unified_conversations        one row per conversation; for COIA, id = UUIDv5 of the
--                                contractor_lead_id (namespace 00000000-0000-0000-0000-000000000001,
--                                agentmem's conversationId()), type COIA_LANDING,
--                                entity contractor_lead, metadata journey_stage /
--                                interface / company_name / research_completed
--   unified_conversation_memory  one row per (conversation_id, memory_type, memory_key):
--                                memory_type 'coia_state' (one row per state field, plus
--                                'last_state_update'), 'checkpoint' (key
--                                'state_checkpoint'), 'contractor_mapping' (key
--                                'contractor_lead_id', under a linked conversation id)
--
-- memory_value is the field's JSON value itself. (The Python original json.dumps()ed
-- dicts and lists into it, and guessed on restore whether a string starting with "{" was
-- JSON; storing the value is exact and needs no guess.)
--
-- Functions. The readers are SECURITY INVOKER (row-level security decides as the caller);
-- the writers are the tables' only door for the API roles (see 20261121000100_tenancy.sql)
-- and run as the owner, in the caller's tenant. Each is ONE request and one transaction;
-- the original made one upsert per field (~40 requests).
--   save_unified_state(...)          every present field + last_state_update (+ mapping)
--                                    + the conversation row (+ the contractor lead),
--                                    atomically
--   restore_unified_state(id)        {memory_key: memory_value} of 'coia_state', or null
--   create_unified_checkpoint(...)   the lightweight checkpoint record (creates the
--                                    conversation row if the lead has none yet)
--   restore_unified_checkpoint(id)   that record's value, or null
--   delete_unified_state(id, lead)   the conversation, its memory and its mapping rows
--
-- Tenancy (20261121000100_tenancy.sql): every row has a tenant_id, part of every key. A
-- conversation id (predictable: uuid5 of the lead) names a different conversation in
-- each tenant, so one user can neither take nor detect another's; the service role
-- (landing-page visitors without an account) writes the service tenant's, or a user's
-- when it acts for one. anon has no access.
--
-- Errors: 22023 for bad arguments (message names the argument), PT401/42501 without an
-- identity.
--
-- Re-runnable, like every agentmem SQL file (see 20261121000100_tenancy.sql).

-- Tables ----------------------------------------------------------------------------------
create table if not exists public.unified_conversations (
  id                 uuid not null,
  conversation_type  text not null default 'COIA_LANDING'
                       constraint unified_conversations_conversation_type_check
                       check (char_length(conversation_type) between 1 and 100),
  entity_type        text not null default 'contractor_lead'
                       constraint unified_conversations_entity_type_check
                       check (char_length(entity_type) between 1 and 100),
  title              text
                       constraint unified_conversations_title_check check (char_length(title) <= 1000),
  status             text not null default 'active'
                       constraint unified_conversations_status_check check (char_length(status) between 1 and 50),
  contractor_lead_id text
                       constraint unified_conversations_contractor_lead_id_check
                       check (char_length(contractor_lead_id) <= 255),
  metadata           jsonb not null default '{}'::jsonb
                       constraint unified_conversations_metadata_check check (jsonb_typeof(metadata) = 'object'),
  created_at         timestamptz not null default now(),
  updated_at         timestamptz not null default now(),
  last_message_at    timestamptz,
  tenant_id          uuid not null default agentmem.tenant(),
  primary key (tenant_id, id)
);

comment on table public.unified_conversations is
  'Conversations of the unified memory, per tenant. COIA: id = uuid5(contractor_lead_id), written by save_unified_state.';

create table if not exists public.unified_conversation_memory (
  id               uuid not null default gen_random_uuid(),
  -- No foreign key to unified_conversations: a contractor_mapping row lives under the
  -- caller's own conversation id, which may belong to another system's table.
  conversation_id  uuid not null,
  memory_type      text not null
                     constraint unified_conversation_memory_memory_type_check
                     check (memory_type ~ '^[a-z][a-z0-9_]{0,62}$'),
  memory_key       text not null
                     constraint unified_conversation_memory_memory_key_check
                     check (char_length(memory_key) between 1 and 255),
  memory_value     jsonb,
  importance_score numeric not null default 50
                     constraint unified_conversation_memory_importance_score_check
                     check (importance_score >= 0),
  created_at       timestamptz not null default now(),
  updated_at       timestamptz not null default now(),
  tenant_id        uuid not null default agentmem.tenant(),
  primary key (tenant_id, id),
  constraint unified_conversation_memory_conversation_id_memory_type_memory_key_key
    unique (tenant_id, conversation_id, memory_type, memory_key)
);

comment on table public.unified_conversation_memory is
  'Per-field memory of a unified conversation: coia_state fields, the state_checkpoint, contractor_mapping links. memory_value is the JSON value itself.';

-- Indexes ---------------------------------------------------------------------------------
create index if not exists unified_conversations_contractor_lead_id_idx on public.unified_conversations (tenant_id, contractor_lead_id);
create index if not exists unified_conversations_updated_idx on public.unified_conversations (tenant_id, updated_at desc);
-- The unique constraint's index serves lookups by conversation_id (+ memory_type).
-- The links to a lead (delete_unified_state removes them with the lead's conversation),
-- by a hash of the value: a btree entry holds at most 2,704 bytes, and memory_value is
-- any JSON a server's own code may store; the hash is checked against the value itself.
-- Without it, that delete read every memory row of the caller's conversations.
create index if not exists unified_conversation_memory_lead_links_idx
  on public.unified_conversation_memory (tenant_id, hashtext(memory_value::text))
  where memory_type = 'contractor_mapping' and memory_key = 'contractor_lead_id';

-- Row-level security and grants -----------------------------------------------------------
select agentmem.protect('public.unified_conversations', 'tenant_id');
select agentmem.protect('public.unified_conversation_memory', 'tenant_id');
-- created_at / updated_at are the database's (20261121000100_tenancy.sql).
select agentmem.keep_bookkeeping('public.unified_conversations', 'agentmem.stamp_times');
select agentmem.keep_bookkeeping('public.unified_conversation_memory', 'agentmem.stamp_times');

-- Functions -------------------------------------------------------------------------------
-- ISO 8601 UTC with microseconds, as the original's datetime.utcnow().isoformat() plus "Z".
create or replace function agentmem.unified_iso_now()
returns text
language sql
stable
security invoker
set search_path = public
as $$
  select to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
$$;

-- The two ids every write of a lead's state names: 22023 naming the missing or bad one.
create or replace function agentmem.unified_check_ids(p_conversation_id uuid, p_contractor_lead_id text)
returns void
language plpgsql
immutable
security invoker
set search_path = public
as $$
begin
  if p_conversation_id is null then
    raise exception 'conversation_id is required' using errcode = '22023';
  end if;
  if p_contractor_lead_id is null or char_length(p_contractor_lead_id) not between 1 and 255 then
    raise exception 'contractor_lead_id must be 1 to 255 characters' using errcode = '22023';
  end if;
end;
$$;

-- The conversation row of a lead's state, as save_unified_state and
-- create_unified_checkpoint write it: created on the first write (title and metadata:
-- the defaults, then p_metadata; last_message_at when p_messages). With p_refresh an
-- existing row takes p_metadata, the title of a given company_name, updated_at and (when
-- p_messages) last_message_at; without it, it is left as it is. A conversation recorded
-- for another lead is refused (22023).
create or replace function agentmem.unified_conversation_write(p_tenant uuid, p_conversation_id uuid,
                                                               p_contractor_lead_id text, p_metadata jsonb,
                                                               p_refresh boolean, p_messages boolean)
returns void
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_lead text;
begin
  insert into public.unified_conversations as c
    (tenant_id, id, conversation_type, entity_type, title, status, contractor_lead_id, metadata, last_message_at)
  values (
    p_tenant, p_conversation_id, 'COIA_LANDING', 'contractor_lead',
    'COIA Landing: ' || coalesce(nullif(p_metadata ->> 'company_name', ''), 'Anonymous'),
    'active', p_contractor_lead_id,
    jsonb_build_object('contractor_lead_id', p_contractor_lead_id, 'journey_stage', 'landing_page',
                       'interface', 'landing_page', 'company_name', null, 'research_completed', false) || p_metadata,
    case when p_messages then now() end)
  on conflict (tenant_id, id) do update set
    metadata = c.metadata || p_metadata,
    title = case when nullif(p_metadata ->> 'company_name', '') is not null
                 then 'COIA Landing: ' || (p_metadata ->> 'company_name') else c.title end,
    updated_at = now(),
    last_message_at = case when p_messages then now() else c.last_message_at end
  where p_refresh
  returning c.contractor_lead_id into v_lead;
  if not found then
    select c.contractor_lead_id into v_lead from public.unified_conversations c
     where c.tenant_id = p_tenant and c.id = p_conversation_id;
    if not found then
      return;
    end if;
  end if;

  if v_lead is distinct from p_contractor_lead_id then
    raise exception 'conversation % belongs to contractor lead %, not %', p_conversation_id,
      quote_literal(v_lead), quote_literal(p_contractor_lead_id)
      using errcode = '22023';
  end if;
end;
$$;

-- save_unified_state: one atomic save of a contractor lead's state.
--   p_conversation_id         uuid5(contractor_lead_id) (agentmem derives it)
--   p_contractor_lead_id      the lead id, recorded on the conversation row
--   p_fields                  {field: JSON value}: one coia_state row each (importance 100)
--   p_metadata                conversation metadata taken from the state (present keys
--                             only): journey_stage, interface, company_name, research_completed
--   p_linked_conversation_id  another conversation to link to this lead: a
--                             contractor_mapping row (key contractor_lead_id) under it
--   p_lead                    the lead columns taken from the state (agentmem sends them
--                             when the state has a company_name): upserted into
--                             contractor_leads (20261122000600_contractors.sql)
-- Also upserts last_state_update (importance 50). Returns
-- {conversation_id, last_state_update, rows, lead_id}: rows = memory rows written,
-- lead_id null when no lead was written.
create or replace function public.save_unified_state(
  p_conversation_id        uuid,
  p_contractor_lead_id     text,
  p_fields                 jsonb,
  p_metadata               jsonb default '{}'::jsonb,
  p_linked_conversation_id uuid default null,
  p_lead                   jsonb default null
)
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_tenant uuid := agentmem.tenant();
  v_stamp text := agentmem.unified_iso_now();
  v_meta  jsonb := coalesce(p_metadata, '{}'::jsonb);
  v_rows  integer;
begin
  perform agentmem.unified_check_ids(p_conversation_id, p_contractor_lead_id);
  if p_fields is null or jsonb_typeof(p_fields) <> 'object' then
    raise exception 'fields must be a JSON object {field: value}' using errcode = '22023';
  end if;
  if p_fields ? 'last_state_update' then
    raise exception 'fields must not contain last_state_update (the save records it)' using errcode = '22023';
  end if;
  if exists (select from jsonb_object_keys(p_fields) k where char_length(k) not between 1 and 255) then
    raise exception 'field names must be 1 to 255 characters' using errcode = '22023';
  end if;
  if jsonb_typeof(v_meta) <> 'object' then
    raise exception 'metadata must be a JSON object' using errcode = '22023';
  end if;

  -- The conversation row: created on the first save, its metadata refreshed after.
  perform agentmem.unified_conversation_write(v_tenant, p_conversation_id, p_contractor_lead_id, v_meta,
                                              true, p_fields ? 'messages');

  insert into public.unified_conversation_memory as m
    (tenant_id, conversation_id, memory_type, memory_key, memory_value, importance_score)
  select v_tenant, p_conversation_id, 'coia_state', f.key, f.value, 100 from jsonb_each(p_fields) f
  union all
  select v_tenant, p_conversation_id, 'coia_state', 'last_state_update', to_jsonb(v_stamp), 50
  union all
  select v_tenant, p_linked_conversation_id, 'contractor_mapping', 'contractor_lead_id', to_jsonb(p_contractor_lead_id), 100
  where p_linked_conversation_id is not null and p_linked_conversation_id <> p_conversation_id
  on conflict (tenant_id, conversation_id, memory_type, memory_key) do update set
    memory_value = excluded.memory_value,
    importance_score = excluded.importance_score,
    updated_at = now();
  get diagnostics v_rows = row_count;

  if p_lead is not null then
    perform agentmem.contractor_lead_merge(v_tenant, p_contractor_lead_id, p_lead, false, 'lead');
  end if;

  return jsonb_build_object('conversation_id', p_conversation_id, 'last_state_update', v_stamp, 'rows', v_rows,
                            'lead_id', case when p_lead is not null then p_contractor_lead_id end);
end;
$$;

comment on function public.save_unified_state(uuid, text, jsonb, jsonb, uuid, jsonb) is
  'Saves state fields (coia_state rows), last_state_update, an optional contractor_mapping link, the unified_conversations row and (p_lead) the contractor lead in one transaction.';

-- restore_unified_state: the saved fields as one object, or null when nothing is saved.
create or replace function public.restore_unified_state(p_conversation_id uuid)
returns jsonb
language sql
stable
security invoker
set search_path = public
as $$
  -- Refuse callers without an identity first: in the query below the planner may skip
  -- the tenant check when row-level security already filters everything out.
  select agentmem.tenant();
  select jsonb_object_agg(memory_key, memory_value)
  from public.unified_conversation_memory
  where tenant_id = agentmem.tenant() and conversation_id = p_conversation_id and memory_type = 'coia_state'
$$;

comment on function public.restore_unified_state(uuid) is
  'The coia_state fields of a conversation as {memory_key: memory_value}, or null.';

-- create_unified_checkpoint: the lightweight checkpoint (what the caller sends: current
-- mode, flags, timestamps). Creates the conversation row if this lead has none yet, adds
-- checkpoint_timestamp, and returns the stored snapshot.
create or replace function public.create_unified_checkpoint(
  p_conversation_id    uuid,
  p_contractor_lead_id text,
  p_checkpoint         jsonb
)
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_tenant uuid := agentmem.tenant();
  v_value jsonb;
begin
  perform agentmem.unified_check_ids(p_conversation_id, p_contractor_lead_id);
  if p_checkpoint is null or jsonb_typeof(p_checkpoint) <> 'object' then
    raise exception 'checkpoint must be a JSON object' using errcode = '22023';
  end if;
  -- The conversation row, if this lead has none yet.
  perform agentmem.unified_conversation_write(v_tenant, p_conversation_id, p_contractor_lead_id, '{}'::jsonb,
                                              false, false);
  v_value := p_checkpoint || jsonb_build_object('checkpoint_timestamp', agentmem.unified_iso_now());
  insert into public.unified_conversation_memory as m
    (tenant_id, conversation_id, memory_type, memory_key, memory_value, importance_score)
  values (v_tenant, p_conversation_id, 'checkpoint', 'state_checkpoint', v_value, 100)
  on conflict (tenant_id, conversation_id, memory_type, memory_key) do update set
    memory_value = excluded.memory_value, updated_at = now();
  return v_value;
end;
$$;

comment on function public.create_unified_checkpoint(uuid, text, jsonb) is
  'Upserts the state_checkpoint record of a conversation (adds checkpoint_timestamp) and returns it.';

create or replace function public.restore_unified_checkpoint(p_conversation_id uuid)
returns jsonb
language sql
stable
security invoker
set search_path = public
as $$
  -- Refuse callers without an identity first: in the query below the planner may skip
  -- the tenant check when row-level security already filters everything out.
  select agentmem.tenant();
  select memory_value
  from public.unified_conversation_memory
  where tenant_id = agentmem.tenant() and conversation_id = p_conversation_id
    and memory_type = 'checkpoint' and memory_key = 'state_checkpoint'
$$;

comment on function public.restore_unified_checkpoint(uuid) is
  'The state_checkpoint record of a conversation, or null.';

-- delete_unified_state: the conversation row, all its memory rows, and the
-- contractor_mapping rows that point at the lead. Returns the number of rows deleted.
create or replace function public.delete_unified_state(p_conversation_id uuid, p_contractor_lead_id text)
returns integer
language plpgsql
volatile
security definer
set search_path = ''
-- Planned for each call's tenant: a generic plan (from a connection's sixth delete on)
-- takes the caller for a tenant of a few rows, as the column's average says, and may find
-- the lead's links by reading all of the caller's links through the unique key's index
-- (40,005 rows per delete for a caller with 40,000 links) instead of the partial index.
set plan_cache_mode = force_custom_plan
as $$
declare
  v_tenant uuid := agentmem.tenant();
  v_memory integer;
  v_links integer;
  v_conversations integer;
begin
  if p_conversation_id is null or p_contractor_lead_id is null then
    raise exception 'conversation_id and contractor_lead_id are required' using errcode = '22023';
  end if;
  -- Two statements, one per index (one with an OR of both read the caller's every row).
  delete from public.unified_conversation_memory
  where tenant_id = v_tenant and conversation_id = p_conversation_id;
  get diagnostics v_memory = row_count;
  delete from public.unified_conversation_memory
  where tenant_id = v_tenant
    and memory_type = 'contractor_mapping' and memory_key = 'contractor_lead_id'
    and hashtext(memory_value::text) = hashtext(to_jsonb(p_contractor_lead_id)::text)
    and memory_value = to_jsonb(p_contractor_lead_id);
  get diagnostics v_links = row_count;
  delete from public.unified_conversations where tenant_id = v_tenant and id = p_conversation_id;
  get diagnostics v_conversations = row_count;
  return v_memory + v_links + v_conversations;
end;
$$;

comment on function public.delete_unified_state(uuid, text) is
  'Deletes a conversation of the caller''s tenant, its memory rows and the contractor_mapping rows of its lead; returns the row count.';

-- Grants ----------------------------------------------------------------------------------
select agentmem.expose(
  'agentmem.unified_iso_now()',
  'agentmem.unified_check_ids(uuid, text)',
  'public.save_unified_state(uuid, text, jsonb, jsonb, uuid, jsonb)',
  'public.restore_unified_state(uuid)',
  'public.create_unified_checkpoint(uuid, text, jsonb)',
  'public.restore_unified_checkpoint(uuid)',
  'public.delete_unified_state(uuid, text)');
-- Called only by the writers above, as the owner.
select agentmem.keep_private('agentmem.unified_conversation_write(uuid, uuid, text, jsonb, boolean, boolean)');

notify pgrst, 'reload schema';
