-- Research sessions and drafts: the TK9 research agent's resumable research sessions
-- (SessionState, which the original wrote to .sessions/<id>.json) and its per-phase draft
-- history (outputs/.../drafts/<phase>/<timestamp>_*.md), in tables, because an edge
-- function has no disk.
--
-- Creates: tables research_sessions, research_drafts; the functions listed below; helper
--          agentmem.research_now_ms.
-- Needs:   20261121000100_tenancy.sql.
--
-- Tables
--   research_sessions  one SessionState per session_id: query, current_phase,
--                      completed_phases (JSON array), research_state (the ResearchState
--                      object), start_time / last_update in ms since the epoch
--   research_drafts    every saved draft: phase (1_browsing … 7_publishing), version
--                      (1, 2, … per session and phase), content, metadata, created_at (ms)
--
-- Functions (SECURITY INVOKER, one request each)
--   save_research_session(p_session)        upsert; start_time kept from the first save,
--                                           last_update bumped (ms, strictly increasing)
--   save_research_draft(p_id, ...)          next version of a phase; p_id makes a retry
--                                           return the draft already written
--   research_workflow_summary(p_session_id) the session and per-phase draft statistics
--                                           (WORKFLOW_SUMMARY.md's data), or null
-- Loading a session or a draft and listing drafts read the tables directly.
--
-- Tenancy (20261121000100_tenancy.sql): tenant_id is part of every key, so a session_id
-- or draft id names a different object in each tenant; drafts belong to a session of
-- their own tenant (the foreign key includes it).
--
-- Re-runnable, like every agentmem SQL file (see 20261121000100_tenancy.sql).

-- Tables ----------------------------------------------------------------------------------
create table if not exists public.research_sessions (
  session_id       text not null
                     constraint research_sessions_session_id_check check (char_length(session_id) between 1 and 255),
  tenant_id        uuid not null default agentmem.tenant(),
  query            text not null
                     constraint research_sessions_query_check check (char_length(btrim(query)) >= 1),
  current_phase    text not null
                     constraint research_sessions_current_phase_check check (char_length(current_phase) between 1 and 100),
  completed_phases jsonb not null default '[]'::jsonb
                     constraint research_sessions_completed_phases_check check (jsonb_typeof(completed_phases) = 'array'),
  research_state   jsonb not null default '{}'::jsonb
                     constraint research_sessions_research_state_check check (jsonb_typeof(research_state) = 'object'),
  start_time       bigint not null
                     constraint research_sessions_start_time_check check (start_time >= 0),
  last_update      bigint not null
                     constraint research_sessions_last_update_check check (last_update >= 0),
  primary key (tenant_id, session_id)
);

comment on table public.research_sessions is
  'Resumable research sessions (SessionState); research_state is the ResearchState object. Times in ms.';

create table if not exists public.research_drafts (
  id            uuid not null default gen_random_uuid(),
  session_id    text not null,
  tenant_id     uuid not null default agentmem.tenant(),
  phase         text not null
                  constraint research_drafts_phase_check
                  check (phase in ('1_browsing', '2_planning', '3_research', '4_writing', '5_reviewing',
                                   '6_revision', '7_publishing')),
  version       integer not null constraint research_drafts_version_check check (version >= 1),
  content       text not null,
  -- For listings, which leave the (megabytes of) content out.
  content_chars integer generated always as (char_length(content)) stored,
  metadata      jsonb not null default '{}'::jsonb
                  constraint research_drafts_metadata_check check (jsonb_typeof(metadata) = 'object'),
  created_at    bigint not null,
  primary key (tenant_id, id),
  constraint research_drafts_session_fkey foreign key (tenant_id, session_id)
    references public.research_sessions (tenant_id, session_id) on update cascade on delete cascade,
  constraint research_drafts_session_id_phase_version_key unique (tenant_id, session_id, phase, version)
);

comment on table public.research_drafts is
  'Draft history per research session and phase: version n of a phase, newest = highest version.';

-- Indexes ---------------------------------------------------------------------------------
create index if not exists research_sessions_tenant_idx on public.research_sessions (tenant_id, last_update desc);

-- Row-level security and grants -----------------------------------------------------------
select agentmem.protect('public.research_sessions', 'tenant_id');
select agentmem.protect('public.research_drafts', 'tenant_id');

-- A draft's created_at (ms) is the database's clock, whatever a caller writes
-- (20261121000100_tenancy.sql). A session's start_time and last_update are SessionState
-- fields, the caller's.
create or replace function agentmem.research_draft_bookkeeping()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  new.created_at := case when tg_op = 'INSERT' then agentmem.research_now_ms() else old.created_at end;
  return new;
end;
$$;
select agentmem.keep_bookkeeping('public.research_drafts', 'agentmem.research_draft_bookkeeping');

-- Functions -------------------------------------------------------------------------------
create or replace function agentmem.research_now_ms()
returns bigint
language sql
stable
security invoker
set search_path = public
as $$
  select (extract(epoch from now()) * 1000)::bigint
$$;

-- save_research_session: upserts a SessionState
-- {session_id, query, current_phase, completed_phases?, research_state?, start_time?}.
-- Returns the stored session (without tenant_id).
create or replace function public.save_research_session(p_session jsonb)
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_in  public.research_sessions;
  v_row public.research_sessions;
  v_tenant uuid := agentmem.tenant();
  v_now bigint := agentmem.research_now_ms();
begin
  perform agentmem.check_fields(p_session, 'session', 'SessionState',
    array['session_id', 'query', 'current_phase', 'completed_phases', 'research_state', 'start_time', 'last_update']);
  v_in := jsonb_populate_record(null::public.research_sessions, p_session);
  if v_in.session_id is null or char_length(v_in.session_id) not between 1 and 255 then
    raise exception 'session.session_id must be 1 to 255 characters' using errcode = '22023';
  end if;
  if v_in.query is null or char_length(btrim(v_in.query)) = 0 then
    raise exception 'session.query must not be empty' using errcode = '22023';
  end if;
  if v_in.current_phase is null or char_length(v_in.current_phase) not between 1 and 100 then
    raise exception 'session.current_phase must be 1 to 100 characters' using errcode = '22023';
  end if;

  insert into public.research_sessions as s
    (tenant_id, session_id, query, current_phase, completed_phases, research_state, start_time, last_update)
  values
    (v_tenant, v_in.session_id, v_in.query, v_in.current_phase, coalesce(v_in.completed_phases, '[]'::jsonb),
     coalesce(v_in.research_state, '{}'::jsonb), coalesce(v_in.start_time, v_now), v_now)
  on conflict (tenant_id, session_id) do update set
    query = excluded.query,
    current_phase = excluded.current_phase,
    completed_phases = excluded.completed_phases,
    research_state = excluded.research_state,
    last_update = greatest(excluded.last_update, s.last_update + 1)
  returning * into v_row;
  return to_jsonb(v_row) - 'tenant_id';
end;
$$;

comment on function public.save_research_session(jsonb) is
  'Saves (upserts) a research SessionState; start_time is kept from the first save, last_update set to now (ms).';

-- save_research_draft: appends the next version of a phase's draft. p_id is chosen by the
-- caller, so resending the same draft (a retry after a lost response) returns the draft
-- already written instead of adding a version. A missing or invisible session: PT404.
-- Returns the draft without its content.
create or replace function public.save_research_draft(
  p_id         uuid,
  p_session_id text,
  p_phase      text,
  p_content    text,
  p_metadata   jsonb default '{}'::jsonb
)
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_tenant  uuid := agentmem.tenant();
  v_row     public.research_drafts;
  v_version integer;
begin
  if p_id is null then
    raise exception 'id is required' using errcode = '22023';
  end if;
  if p_phase is null or p_phase not in ('1_browsing', '2_planning', '3_research', '4_writing', '5_reviewing',
                                        '6_revision', '7_publishing') then
    raise exception 'phase must be one of 1_browsing, 2_planning, 3_research, 4_writing, 5_reviewing, 6_revision, 7_publishing (got %)',
      coalesce(quote_literal(p_phase), 'null') using errcode = '22023';
  end if;
  if p_content is null then
    raise exception 'content is required' using errcode = '22023';
  end if;
  -- The bounds of ResearchStore.saveDraft (src/state/research/mod.rs).
  if char_length(p_content) > 10000000 then
    raise exception 'content is % characters; the limit is 10000000', char_length(p_content) using errcode = '22023';
  end if;
  if octet_length(p_metadata::text) > 65536 then
    raise exception 'metadata is larger than 65536 bytes of JSON' using errcode = '22023';
  end if;
  if p_metadata is not null and jsonb_typeof(p_metadata) <> 'object' then
    raise exception 'metadata must be a JSON object' using errcode = '22023';
  end if;
  -- Locks the session: concurrent drafts of one session take versions one after another.
  perform from public.research_sessions where tenant_id = v_tenant and session_id = p_session_id for update;
  if not found then
    raise exception 'no research session %', coalesce(quote_literal(p_session_id), 'null')
      using errcode = 'PT404', hint = 'save the session before its drafts';
  end if;

  select * into v_row from public.research_drafts where tenant_id = v_tenant and id = p_id;
  if v_row.id is not null then
    if v_row.session_id is distinct from p_session_id or v_row.phase is distinct from p_phase
       or v_row.content is distinct from p_content then
      raise exception 'draft % already exists with other content', p_id using errcode = '23505';
    end if;
  else
    select coalesce(max(version), 0) + 1 into v_version
    from public.research_drafts where tenant_id = v_tenant and session_id = p_session_id and phase = p_phase;
    insert into public.research_drafts (tenant_id, id, session_id, phase, version, content, metadata, created_at)
    values (v_tenant, p_id, p_session_id, p_phase, v_version, p_content, coalesce(p_metadata, '{}'::jsonb),
            agentmem.research_now_ms())
    returning * into v_row;
  end if;
  return to_jsonb(v_row) - 'content' - 'tenant_id';
end;
$$;

comment on function public.save_research_draft(uuid, text, text, text, jsonb) is
  'Saves the next version of a research draft for a session phase; idempotent per draft id. Returns it without content.';

-- delete_research_session: deletes the caller's session and its drafts; true when there
-- was one.
create or replace function public.delete_research_session(p_session_id text)
returns boolean
language sql
volatile
security definer
set search_path = ''
as $$
  select agentmem.delete_session('public.research_sessions', p_session_id)
$$;

comment on function public.delete_research_session(text) is
  'Deletes a research session of the caller (its drafts with it); true when it existed.';

-- research_workflow_summary: what WORKFLOW_SUMMARY.md reported, as data: the session
-- (without research_state, plus its field names) and, per phase with drafts, the count,
-- the latest version, first and last save time (ms) and the latest draft's size.
create or replace function public.research_workflow_summary(p_session_id text)
returns jsonb
language sql
stable
security invoker
set search_path = public
as $$
  -- Refuse callers without an identity first: in the query below the planner may skip
  -- the tenant check when row-level security already filters everything out.
  select agentmem.tenant();
  select jsonb_build_object(
    'session', to_jsonb(s) - 'tenant_id' - 'research_state',
    'research_state_fields', coalesce((select jsonb_agg(k order by k) from jsonb_object_keys(s.research_state) k), '[]'::jsonb),
    'phases', coalesce((
      select jsonb_agg(p order by p ->> 'phase')
      from (
        select jsonb_build_object(
          'phase', d.phase,
          'drafts', count(*),
          'latest_version', max(d.version),
          'first_saved_at', min(d.created_at),
          'last_saved_at', max(d.created_at),
          'latest_chars', (array_agg(d.content_chars order by d.version desc))[1]) as p
        from public.research_drafts d
        where d.tenant_id = s.tenant_id and d.session_id = s.session_id
        group by d.phase
      ) phases), '[]'::jsonb))
  from public.research_sessions s
  where s.tenant_id = agentmem.tenant() and s.session_id = p_session_id
$$;

comment on function public.research_workflow_summary(text) is
  'The session and its per-phase draft statistics (count, latest version, first/last save in ms, latest size), or null.';

-- Grants ----------------------------------------------------------------------------------
select agentmem.expose(
  'agentmem.research_now_ms()',
  'public.save_research_session(jsonb)',
  'public.save_research_draft(uuid, text, text, text, jsonb)',
  'public.delete_research_session(text)',
  'public.research_workflow_summary(text)');
select agentmem.keep_private('agentmem.research_draft_bookkeeping()');

notify pgrst, 'reload schema';
