-- Workflow agent states: the state of the workflow agent per session.
--
-- Creates: table workflow_agent_states; functions create_workflow_state,
--          update_workflow_state; helper agentmem.workflow_state_check_keys.
-- Needs:   20261121000100_tenancy.sql.
--
-- The table has exactly the columns, types, JSONB defaults and indexes of the workflow
-- agent's own schema, plus what that schema leaves implicit, stated as constraints: the
-- enum values of stage / previous_stage / gap_status ('completed', never 'end'), the JSON
-- type of each JSONB column, and row-level security per tenant.
--
-- Tenancy (20261121000100_tenancy.sql): tenant_id, part of every key, so a session_id
-- names a different state in each tenant. user_id is the schema's VARCHAR(255) field; the
-- database sets it to the tenant's user id as text (null for the service tenant).
--
-- Timestamps are milliseconds since the epoch (BIGINT), as the workflow agent keeps them,
-- and the database's: created_at when the row is inserted, updated_at on every update.
-- What a caller sends for user_id, created_at or updated_at is ignored.
--
-- Functions (SECURITY INVOKER, one request each):
--   create_workflow_state(p_state)              insert; a retry of the same create
--                                               returns the row it wrote, a different
--                                               state under a taken session_id is 23505
--   update_workflow_state(p_session_id, p_patch) partial update: bumps updated_at, sets
--                                               previous_stage when stage changes;
--                                               null when the session is not visible
-- Reads, lists and deletes go to the table itself (GET/DELETE /workflow_agent_states).
--
-- Fields the workflow agent no longer has: user_message, clarification_questions,
-- alternative_solutions, selected_alternative_index, previous_errors and the TEXT
-- current_workflow_json do not exist; the functions refuse them (22023) rather than drop
-- them silently.
--
-- Re-runnable, like every agentmem SQL file (see 20261121000100_tenancy.sql).

-- Tables ----------------------------------------------------------------------------------
create table if not exists public.workflow_agent_states (
    -- Primary Key (with the tenant)
    id UUID NOT NULL DEFAULT gen_random_uuid(),
    tenant_id uuid not null default agentmem.tenant(),

    -- Identity
    session_id VARCHAR(255) NOT NULL
      constraint workflow_agent_states_session_id_check check (char_length(session_id) >= 1),
    user_id VARCHAR(255) DEFAULT (nullif(agentmem.tenant(), agentmem.service_tenant()))::text,

    -- Timestamps (milliseconds)
    created_at BIGINT NOT NULL
      constraint workflow_agent_states_created_at_check check (created_at >= 0),
    updated_at BIGINT NOT NULL
      constraint workflow_agent_states_updated_at_check check (updated_at >= 0),

    -- Workflow Stage
    stage VARCHAR(50) NOT NULL
      constraint workflow_agent_states_stage_check
      check (stage in ('clarification', 'gap_analysis', 'workflow_generation', 'debug', 'completed')),
    previous_stage VARCHAR(50)
      constraint workflow_agent_states_previous_stage_check
      check (previous_stage in ('clarification', 'gap_analysis', 'workflow_generation', 'debug', 'completed')),

    -- Core Data
    intent_summary TEXT DEFAULT '',
    conversations JSONB NOT NULL DEFAULT '[]'
      constraint workflow_agent_states_conversations_check check (jsonb_typeof(conversations) = 'array'),
    execution_history JSONB DEFAULT '[]'
      constraint workflow_agent_states_execution_history_check check (jsonb_typeof(execution_history) = 'array'),

    -- Clarification
    clarification_context JSONB
      constraint workflow_agent_states_clarification_context_check
      check (jsonb_typeof(clarification_context) in ('object', 'null')),

    -- Gap Analysis
    gap_status VARCHAR(20) DEFAULT 'no_gap'
      constraint workflow_agent_states_gap_status_check
      check (gap_status in ('no_gap', 'has_gap', 'gap_resolved', 'blocking')),
    identified_gaps JSONB DEFAULT '[]'
      constraint workflow_agent_states_identified_gaps_check check (jsonb_typeof(identified_gaps) = 'array'),

    -- Workflow
    current_workflow JSONB,
    template_workflow JSONB,
    workflow_context JSONB
      constraint workflow_agent_states_workflow_context_check
      check (jsonb_typeof(workflow_context) in ('object', 'null')),

    -- Debug
    debug_result JSONB
      constraint workflow_agent_states_debug_result_check check (jsonb_typeof(debug_result) in ('object', 'null')),
    debug_loop_count INTEGER DEFAULT 0
      constraint workflow_agent_states_debug_loop_count_check check (debug_loop_count >= 0),

    -- Template
    template_id VARCHAR(255),

    primary key (tenant_id, id),
    constraint workflow_agent_states_session_id_key unique (tenant_id, session_id)
);

comment on table public.workflow_agent_states is
  'Workflow agent state per session, aligned with WorkflowState. Timestamps in ms. RLS: per tenant (tenant_id).';

-- Indexes ---------------------------------------------------------------------------------
-- As the workflow agent's schema names them (the session_id one also serves the service role's
-- lookups across tenants).
create index if not exists idx_workflow_agent_states_session_id on public.workflow_agent_states (session_id);
create index if not exists idx_workflow_agent_states_user_id on public.workflow_agent_states (user_id);
create index if not exists idx_workflow_agent_states_stage on public.workflow_agent_states (stage);
create index if not exists idx_workflow_agent_states_gap_status on public.workflow_agent_states (gap_status);
create index if not exists idx_workflow_agent_states_updated_at on public.workflow_agent_states (updated_at);
create index if not exists idx_workflow_agent_states_template_id on public.workflow_agent_states (template_id);
-- "GIN indexes on JSONB fields for complex queries"
create index if not exists idx_workflow_agent_states_conversations_gin on public.workflow_agent_states using gin (conversations);
create index if not exists idx_workflow_agent_states_clarification_context_gin on public.workflow_agent_states using gin (clarification_context);
create index if not exists idx_workflow_agent_states_identified_gaps_gin on public.workflow_agent_states using gin (identified_gaps);
create index if not exists idx_workflow_agent_states_current_workflow_gin on public.workflow_agent_states using gin (current_workflow);
create index if not exists idx_workflow_agent_states_workflow_context_gin on public.workflow_agent_states using gin (workflow_context);
create index if not exists idx_workflow_agent_states_debug_result_gin on public.workflow_agent_states using gin (debug_result);

-- Row-level security and grants -----------------------------------------------------------
select agentmem.protect('public.workflow_agent_states', 'tenant_id');

-- Bookkeeping the database keeps (20261121000100_tenancy.sql), whatever a caller writes:
-- user_id is the row's tenant when that is a user (null for the service tenant);
-- created_at is the insert's time and updated_at moves forward on every update, strictly
-- increasing (both in ms).
create or replace function agentmem.workflow_state_bookkeeping()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  new.user_id := (nullif(new.tenant_id, agentmem.service_tenant()))::text;
  if tg_op = 'INSERT' then
    new.created_at := agentmem.now_ms();
    new.updated_at := new.created_at;
  else
    new.created_at := old.created_at;
    new.updated_at := greatest(agentmem.now_ms(), old.updated_at + 1);
  end if;
  return new;
end;
$$;
select agentmem.keep_bookkeeping('public.workflow_agent_states', 'agentmem.workflow_state_bookkeeping');

-- Functions -------------------------------------------------------------------------------

-- The keys a WorkflowState may carry (the columns but id), and the removed ones
-- (agentmem.check_fields).
create or replace function agentmem.workflow_state_check_keys(p_state jsonb, p_what text)
returns void
language sql
immutable
security invoker
set search_path = public
as $$
  select agentmem.check_fields(p_state, p_what, 'WorkflowState',
    array['session_id', 'user_id', 'created_at', 'updated_at', 'stage', 'previous_stage',
          'intent_summary', 'conversations', 'execution_history', 'clarification_context',
          'gap_status', 'identified_gaps', 'current_workflow', 'template_workflow',
          'workflow_context', 'debug_result', 'debug_loop_count', 'template_id'],
    array['user_message', 'clarification_questions', 'alternative_solutions',
          'selected_alternative_index', 'previous_errors', 'current_workflow_json'])
$$;

-- create_workflow_state: inserts a full state (agentmem sends every column, defaults
-- applied, timestamps set). Sending the same state again (a retry after a lost response)
-- returns the row already written; another state under a taken session_id is 23505.
create or replace function public.create_workflow_state(p_state jsonb)
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_tenant uuid := agentmem.tenant();
  v_new public.workflow_agent_states;
  v_row public.workflow_agent_states;
begin
  perform agentmem.workflow_state_check_keys(p_state, 'state');
  v_new := jsonb_populate_record(null::public.workflow_agent_states, p_state);
  if v_new.session_id is null or char_length(v_new.session_id) = 0 then
    raise exception 'state.session_id is required' using errcode = '22023';
  end if;
  v_new.tenant_id := v_tenant;
  -- user_id, created_at and updated_at are the database's (workflow_state_bookkeeping).
  v_new.user_id := null;
  v_new.created_at := 0;
  v_new.updated_at := 0;
  v_new.stage := coalesce(v_new.stage, 'clarification');
  v_new.intent_summary := coalesce(v_new.intent_summary, '');
  v_new.conversations := coalesce(v_new.conversations, '[]'::jsonb);
  v_new.execution_history := coalesce(v_new.execution_history, '[]'::jsonb);
  v_new.gap_status := coalesce(v_new.gap_status, 'no_gap');
  v_new.identified_gaps := coalesce(v_new.identified_gaps, '[]'::jsonb);
  v_new.debug_loop_count := coalesce(v_new.debug_loop_count, 0);

  insert into public.workflow_agent_states
    (tenant_id, session_id, user_id, created_at, updated_at, stage, previous_stage, intent_summary, conversations,
     execution_history, clarification_context, gap_status, identified_gaps, current_workflow,
     template_workflow, workflow_context, debug_result, debug_loop_count, template_id)
  values
    (v_tenant, v_new.session_id, v_new.user_id, v_new.created_at, v_new.updated_at, v_new.stage, v_new.previous_stage,
     v_new.intent_summary, v_new.conversations, v_new.execution_history, v_new.clarification_context,
     v_new.gap_status, v_new.identified_gaps, v_new.current_workflow, v_new.template_workflow,
     v_new.workflow_context, v_new.debug_result, v_new.debug_loop_count, v_new.template_id)
  on conflict (tenant_id, session_id) do nothing
  returning * into v_row;

  if v_row.id is null then
    select * into v_row from public.workflow_agent_states
     where tenant_id = v_tenant and session_id = v_new.session_id;
    if v_row.id is null or (to_jsonb(v_row) - 'id' - 'user_id' - 'created_at' - 'updated_at')
                           is distinct from (to_jsonb(v_new) - 'id' - 'user_id' - 'created_at' - 'updated_at') then
      raise exception 'workflow state % already exists', quote_literal(v_new.session_id)
        using errcode = '23505', detail = 'session_id is unique; update the existing state instead';
    end if;
  end if;
  return to_jsonb(v_row) - 'id' - 'tenant_id';
end;
$$;

comment on function public.create_workflow_state(jsonb) is
  'Creates the workflow state of a session (its columns but id and tenant_id, as JSON); idempotent for the same state, 23505 for another one under a taken session_id.';

-- update_workflow_state: overlays p_patch on the row (absent keys keep their values, JSON
-- null clears a nullable column), moves previous_stage to the old stage when stage
-- changes, and bumps updated_at to now in ms (strictly increasing). Returns the new
-- state, or null when no visible row has that session_id.
create or replace function public.update_workflow_state(p_session_id text, p_patch jsonb)
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_tenant uuid := agentmem.tenant();
  v_old public.workflow_agent_states;
  v_new public.workflow_agent_states;
  v_key text;
begin
  perform agentmem.workflow_state_check_keys(p_patch, 'patch');
  for v_key in select jsonb_object_keys(p_patch) loop
    if v_key in ('session_id', 'user_id', 'created_at', 'updated_at', 'previous_stage') then
      raise exception 'patch.% cannot be changed by an update (the store manages it)', v_key
        using errcode = '22023';
    end if;
  end loop;
  select * into v_old from public.workflow_agent_states
   where tenant_id = v_tenant and session_id = p_session_id for update;
  if v_old.id is null then
    return null;
  end if;
  v_new := jsonb_populate_record(v_old, p_patch);
  if v_new.stage is null then
    raise exception 'patch.stage must not be null' using errcode = '22023';
  end if;
  if v_new.stage is distinct from v_old.stage then
    v_new.previous_stage := v_old.stage;
  end if;
  update public.workflow_agent_states set
    stage = v_new.stage, previous_stage = v_new.previous_stage,
    intent_summary = v_new.intent_summary, conversations = v_new.conversations,
    execution_history = v_new.execution_history, clarification_context = v_new.clarification_context,
    gap_status = v_new.gap_status, identified_gaps = v_new.identified_gaps,
    current_workflow = v_new.current_workflow, template_workflow = v_new.template_workflow,
    workflow_context = v_new.workflow_context, debug_result = v_new.debug_result,
    debug_loop_count = v_new.debug_loop_count, template_id = v_new.template_id
  where tenant_id = v_old.tenant_id and id = v_old.id
  returning * into v_new;
  return to_jsonb(v_new) - 'id' - 'tenant_id';
end;
$$;

comment on function public.update_workflow_state(text, jsonb) is
  'Partial update of a session''s workflow state: bumps updated_at (ms), sets previous_stage on a stage change; null when not found.';

-- delete_workflow_state: deletes the caller's workflow state of a session; true when there
-- was one.
create or replace function public.delete_workflow_state(p_session_id text)
returns boolean
language sql
volatile
security definer
set search_path = ''
as $$
  select agentmem.delete_session('public.workflow_agent_states', p_session_id)
$$;

comment on function public.delete_workflow_state(text) is
  'Deletes the workflow state of a session of the caller; true when it existed.';

-- Grants ----------------------------------------------------------------------------------
select agentmem.expose(
  'agentmem.workflow_state_check_keys(jsonb, text)',
  'public.create_workflow_state(jsonb)',
  'public.update_workflow_state(text, jsonb)',
  'public.delete_workflow_state(text)');
select agentmem.keep_private('agentmem.workflow_state_bookkeeping()');

notify pgrst, 'reload schema';
