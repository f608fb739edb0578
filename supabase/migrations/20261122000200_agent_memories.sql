-- Agent memory: long-term memories of an AI agent per tenant (a signed-in user, or the
-- service tenant; see 20261121000100_tenancy.sql).
--
-- Creates: tables agent_memories, memory_references, memory_access_log; type
--          agent_memory_match; the functions listed below.
-- Needs:   20261121000000_extensions.sql (pgvector), 20261121000100_tenancy.sql.
--
-- Memories with pgvector semantic search,
-- full-text search, importance, expiry and access tracking. Three tables, RLS per tenant
-- (column user_id, as the RFP agent's schema names it), and the RPC functions the
-- agentmem memory tools call through PostgREST (POST /rest/v1/rpc/<name>, JSON object of
-- named arguments). Ids are private to their tenant: every key includes user_id.
--
-- Tables
--   agent_memories      one memory: content, memory_type, importance_score 0..1,
--                       embedding vector(384), expiry, access counters, full-text column
--   memory_references   links a memory to an RFP, bid, artifact, message, user profile...
--   memory_access_log   one row each time a memory is retrieved (search/read/context)
--
-- Functions. The readers are SECURITY INVOKER, so row-level security applies as the
-- caller; the writers (create, update, delete, cleanup, and the access recording of the
-- searches) are the tables' only door for the API roles (see 20261121000100_tenancy.sql)
-- and run as the owner; set_agent_memory_dimensions alters the table, as its owner,
-- after checking that the caller is the service role. Every function filters by the
-- caller's tenant itself, so the service role (which bypasses RLS) stays in its own key
-- space, or in a user's when it acts for one.
--   create_agent_memory, update_agent_memory, delete_agent_memory,
--   search_agent_memories, update_memory_access,
--   get_memory_context, cleanup_expired_memories, get_memory_statistics,
--   agent_memory_dimensions, set_agent_memory_dimensions
--
-- Errors raised by the functions (PostgREST returns them as {code, message, details, hint}):
--   22023 invalid_parameter_value  bad argument; the message starts with the argument's
--                                  tool-facing name (content, memory_type, ...)
--   22000 data_exception           embedding of the wrong size; the message contains
--                                  "dimension" (pgvector raises 22000 "expected N
--                                  dimensions, not M" itself on direct table writes)
--   42501 insufficient_privilege   anon, or a missing grant; PT401 a token without a user
--   55000 object_not_in_prerequisite_state  set_agent_memory_dimensions with embeddings stored
-- Table constraints raise 23514 (check), 23502 (not null), 23503 (foreign key) and 23505
-- (unique) for the service role's direct table writes; the API roles write no table.
--
-- Embedding dimension. The column is vector(384) (all-MiniLM-L6-v2 and friends). A
-- project that uses another embedding model changes it once, before storing embeddings:
--   select public.set_agent_memory_dimensions(1536);   -- as postgres or service_role
-- or with a follow-up migration that alters the column type and recreates the HNSW index
-- exactly as that function does. agent_memory_dimensions() reports the current value,
-- and the functions check query/insert vectors against the column, not against 384.
--
-- search_path: functions pin `public, extensions` (pgvector lives in `extensions` on
-- Supabase); objects are schema-qualified in DDL so the file applies under any path.
--
-- Re-runnable, like every agentmem SQL file (see 20261121000100_tenancy.sql). A changed
-- embedding dimension (set_agent_memory_dimensions) survives a re-run: the table is only
-- created where missing.

-- Tables ----------------------------------------------------------------------------------

create table if not exists public.agent_memories (
  id               uuid not null default gen_random_uuid(),
  user_id          uuid not null default agentmem.tenant(),
  agent_id         text not null
                     constraint agent_memories_agent_id_check
                     check (char_length(btrim(agent_id)) between 1 and 255),
  session_id       text
                     constraint agent_memories_session_id_check
                     check (session_id is null or char_length(session_id) <= 255),
  content          text not null
                     constraint agent_memories_content_check
                     check (char_length(btrim(content)) >= 1 and char_length(content) <= 10000),
  memory_type      text not null
                     constraint agent_memories_memory_type_check
                     check (memory_type in ('conversation', 'preference', 'fact', 'decision', 'context')),
  -- NaN fails `between` (Postgres orders NaN above every number), so NaN is rejected too.
  importance_score double precision not null default 0.5
                     constraint agent_memories_importance_score_check
                     check (importance_score between 0 and 1),
  embedding        extensions.vector(384),
  metadata         jsonb not null default '{}'::jsonb
                     constraint agent_memories_metadata_check
                     check (jsonb_typeof(metadata) = 'object'),
  expires_at       timestamptz,
  created_at       timestamptz not null default now(),
  updated_at       timestamptz not null default now(),
  content_tsv      tsvector generated always as (to_tsvector('english'::regconfig, content)) stored,
  -- Also the target of the (user_id, memory_id) foreign keys below: a reference or log
  -- row always belongs to the memory's tenant.
  primary key (user_id, id)
);

comment on table public.agent_memories is
  'Long-term memories of AI agents, per tenant (user_id). RLS: a user sees only own rows.';
comment on column public.agent_memories.importance_score is
  '0..1. Defaults by type in create_agent_memory: preference 0.9, decision 0.7, fact 0.6, context 0.5, conversation 0.3.';
comment on column public.agent_memories.embedding is
  'Cosine-searched embedding; dimension: agent_memory_dimensions() (384 unless set_agent_memory_dimensions changed it).';
comment on column public.agent_memories.content_tsv is
  'Full-text search column (english), generated from content.';

create table if not exists public.memory_references (
  id             uuid not null default gen_random_uuid(),
  memory_id      uuid not null,
  user_id        uuid not null default agentmem.tenant(),
  -- The RFP agent names rfp, bid, artifact, message and user_profile; the system is meant
  -- to be flexible, so any lowercase identifier is accepted.
  reference_type text not null
                   constraint memory_references_reference_type_check
                   check (reference_type ~ '^[a-z][a-z0-9_]{0,62}$'),
  reference_id   uuid not null,
  created_at     timestamptz not null default now(),
  primary key (user_id, id),
  constraint memory_references_memory_fkey foreign key (user_id, memory_id)
    references public.agent_memories (user_id, id) on update cascade on delete cascade,
  constraint memory_references_unique unique (user_id, memory_id, reference_type, reference_id)
);

comment on table public.memory_references is
  'Links a memory to another entity (rfp, bid, artifact, message, user_profile, ...).';

create table if not exists public.memory_access_log (
  id              uuid not null default gen_random_uuid(),
  memory_id       uuid not null,
  user_id         uuid not null default agentmem.tenant(),
  agent_id        text
                    constraint memory_access_log_agent_id_check check (char_length(agent_id) <= 255),
  session_id      text
                    constraint memory_access_log_session_id_check check (char_length(session_id) <= 255),
  access_type     text not null default 'read'
                    constraint memory_access_log_access_type_check
                    check (access_type in ('search', 'read', 'context', 'update')),
  -- Cosine similarity of the retrieval (search, context with a query), else null.
  relevance_score double precision
                    constraint memory_access_log_relevance_score_check
                    check (relevance_score between -1 and 1),
  accessed_at     timestamptz not null default now(),
  primary key (user_id, id),
  constraint memory_access_log_memory_fkey foreign key (user_id, memory_id)
    references public.agent_memories (user_id, id) on update cascade on delete cascade
);

-- How often, and when last, each memory was retrieved. A table of its own, so that
-- recording an access rewrites a small row (a HOT update: no indexed column changes, and
-- the fillfactor leaves room on the page) instead of the memory's row with its embedding,
-- which added an entry to the HNSW index per access and slowed every tenant's searches.
-- Written only by agentmem.record_memory_access (users may read it).
create table if not exists public.agent_memory_counters (
  user_id          uuid not null,
  memory_id        uuid not null,
  access_count     integer not null default 0
                     constraint agent_memory_counters_access_count_check check (access_count >= 0),
  last_accessed_at timestamptz,
  primary key (user_id, memory_id),
  constraint agent_memory_counters_memory_fkey foreign key (user_id, memory_id)
    references public.agent_memories (user_id, id) on delete cascade
) with (fillfactor = 70);

comment on table public.agent_memory_counters is
  'access_count and last_accessed_at of each retrieved memory (absent: never retrieved). Written by agentmem''s functions only.';

-- The search copy of each memory's embedding (agentmem.memory_nearest's exact path): the
-- vector scaled to unit length and kept in half precision, with the columns the filters
-- read. A tenant's exact scan reads these through an index that keeps the tenant's rows
-- together, a third of the bytes of the memories' rows, so it stays in shared buffers where
-- the table would not; its best rows are then re-ranked by the full-precision distance
-- (the rounding's bound is stated there). Written only by the trigger on agent_memories
-- (agentmem.copy_memory_vector), in the same transaction as the memory.
create table if not exists public.agent_memory_vectors (
  user_id     uuid not null,
  memory_id   uuid not null,
  agent_id    text not null,
  memory_type text not null,
  expires_at  timestamptz,
  embedding   extensions.halfvec not null,
  -- No primary key: one copy per memory is the trigger's (it writes a memory's copy under
  -- the memory's row lock). A btree on (user_id, …) would give the planner a second way to
  -- scan a tenant's copies, reading the table's pages; the search must take the covering
  -- index (agent_memory_vectors_search_idx), and lookups by memory use a hash index.
  constraint agent_memory_vectors_memory_fkey foreign key (user_id, memory_id)
    references public.agent_memories (user_id, id) on delete cascade
);

-- Each copy in its row, whatever the dimension: the exact scan reads them all. (First: the
-- options' order then stays as it is when the file runs again.)
select agentmem.keep_vectors_in_line('public.agent_memory_vectors', 'embedding');

-- The search reads the copies from the index alone only where the visibility map says a
-- page is all-visible, which vacuum sets: after 1% new rows rather than autovacuum's 20%,
-- so a bulk import is vacuumed in autovacuum's next round, not once the table grows by a
-- fifth more.
alter table public.agent_memory_vectors set (autovacuum_vacuum_insert_scale_factor = 0.01);

comment on table public.agent_memory_vectors is
  'Each memory''s embedding at unit length in half precision, with its filter columns: what the exact search scans before re-ranking at full precision. Written by agentmem''s trigger only.';

-- Installs before the counters table kept access_count and last_accessed_at in
-- agent_memories: they move here once.
do $$
begin
  if exists (select 1 from pg_catalog.pg_attribute
              where attrelid = 'public.agent_memories'::regclass and attname = 'access_count' and not attisdropped) then
    execute 'insert into public.agent_memory_counters (user_id, memory_id, access_count, last_accessed_at)
             select user_id, id, access_count, last_accessed_at from public.agent_memories
              where access_count > 0 or last_accessed_at is not null
             on conflict do nothing';
    alter table public.agent_memories drop column access_count, drop column last_accessed_at;
  end if;
end
$$;

-- The id bounds on an install that predates them.
select agentmem.ensure_check('public.memory_access_log', 'memory_access_log_agent_id_check', 'char_length(agent_id) <= 255');
select agentmem.ensure_check('public.memory_access_log', 'memory_access_log_session_id_check', 'char_length(session_id) <= 255');

comment on table public.memory_access_log is
  'One row per retrieval of a memory, with the relevance score of that retrieval. Append-only for users.';

-- Indexes ---------------------------------------------------------------------------------

create index if not exists agent_memories_embedding_hnsw_idx on public.agent_memories
  using hnsw (embedding extensions.vector_cosine_ops);
create index if not exists agent_memories_content_tsv_idx on public.agent_memories using gin (content_tsv);
create index if not exists agent_memories_user_agent_idx on public.agent_memories (user_id, agent_id, created_at desc);
-- Search (agentmem.memory_nearest): how many of a tenant's memories pass the filters is
-- counted from this index alone, and its exact scan starts here.
create index if not exists agent_memories_search_idx on public.agent_memories (user_id, agent_id, memory_type, expires_at)
  where embedding is not null;
-- The exact search's scan (agentmem.memory_nearest): a tenant's search copies in filter
-- order, covering the id and the vector so the scan reads no table page. A btree entry
-- holds at most ~2,700 bytes: above 768 dimensions (half precision: 2 bytes each, and an
-- agent id may take 1,020) the vector stays out of the index and the scan reads the rows.
create or replace function agentmem.index_memory_vectors()
returns void
language plpgsql
set search_path = ''
as $$
declare
  v_dims integer := agentmem.vector_dimensions('public.agent_memories', 'embedding');
  v_include text := case when v_dims is not null and v_dims <= 768 then 'memory_id, embedding' else 'memory_id' end;
  v_current text := (select pg_catalog.pg_get_indexdef(i.indexrelid) from pg_catalog.pg_index i
                      where i.indexrelid = pg_catalog.to_regclass('public.agent_memory_vectors_search_idx'));
begin
  if v_current is not null and v_current like pg_catalog.format('%%INCLUDE (%s)', v_include) then
    return;
  end if;
  drop index if exists public.agent_memory_vectors_search_idx;
  begin
    execute pg_catalog.format('create index agent_memory_vectors_search_idx on public.agent_memory_vectors '
                              '(user_id, agent_id, memory_type, expires_at) include (%s)', v_include);
  exception when program_limit_exceeded then
    -- Copies of a wider dimension that are deleted but not yet vacuumed still go into a
    -- new index; without the vector it is built, and the next call (a migration's re-run)
    -- adds it.
    create index agent_memory_vectors_search_idx on public.agent_memory_vectors
      (user_id, agent_id, memory_type, expires_at) include (memory_id);
  end;
end;
$$;
select agentmem.index_memory_vectors();
create index if not exists agent_memory_vectors_memory_idx on public.agent_memory_vectors using hash (memory_id);
-- get_memory_context: a tenant's memories by importance, tier by tier, each tier newest
-- first: without a query vector, a tier's page is the start of one range of it. (It
-- replaces agent_memories_importance_idx, (user_id, importance_score desc), whose tier was
-- read whole to be ordered by age: 40,000 memories, 22 ms, for a context of 20 when all of
-- a user's memories are of one importance.)
drop index if exists public.agent_memories_importance_idx;
create index if not exists agent_memories_tier_idx on public.agent_memories
  (user_id, importance_score desc, created_at desc, id) include (agent_id, expires_at);
create index if not exists agent_memories_expires_at_idx on public.agent_memories (expires_at)
  where expires_at is not null;

-- memory_references_unique serves the foreign key's lookups by (user_id, memory_id).
create index if not exists memory_references_target_idx on public.memory_references (user_id, reference_type, reference_id);

create index if not exists memory_access_log_memory_idx on public.memory_access_log (user_id, memory_id, accessed_at desc);
create index if not exists memory_access_log_user_idx on public.memory_access_log (user_id, accessed_at desc);
create index if not exists memory_access_log_session_idx on public.memory_access_log (session_id)
  where session_id is not null;

-- Triggers --------------------------------------------------------------------------------
-- Bookkeeping the database keeps (20261121000100_tenancy.sql): created_at is the insert's
-- time; updated_at moves when the memory itself changes. Whatever a caller writes into
-- them is ignored. (Access counts live in agent_memory_counters, which only agentmem's
-- functions write.)
create or replace function public.agent_memories_set_updated_at()
returns trigger
language plpgsql
security invoker
set search_path = public, extensions
as $$
begin
  if tg_op = 'INSERT' then
    new.created_at := now();
    new.updated_at := now();
    return new;
  end if;
  new.created_at := old.created_at;
  if new.agent_id         is distinct from old.agent_id
  or new.session_id       is distinct from old.session_id
  or new.content          is distinct from old.content
  or new.memory_type      is distinct from old.memory_type
  or new.importance_score is distinct from old.importance_score
  or new.embedding        is distinct from old.embedding
  or new.metadata         is distinct from old.metadata
  or new.expires_at       is distinct from old.expires_at then
    new.updated_at := now();
  else
    new.updated_at := old.updated_at;
  end if;
  return new;
end;
$$;


-- A vector's search copy: unit length, half precision. The stored copies and the query's
-- copy are made by this one function, so both are rounded the same way (the bound in
-- agentmem.memory_exact assumes it).
create or replace function agentmem.memory_vector_copy(p_embedding extensions.vector)
returns extensions.halfvec
language sql
immutable
set search_path = ''
as $$
  select extensions.l2_normalize(p_embedding)::extensions.halfvec
$$;

-- The search copy (agent_memory_vectors) follows the memory: written with it, rewritten
-- when its vector or a filter column changes, dropped with its vector (and by the foreign
-- key with the memory). SECURITY DEFINER: the service role's direct writes to
-- agent_memories keep it too, and no API role writes it otherwise.
create or replace function agentmem.copy_memory_vector()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  if tg_op = 'UPDATE' and new.agent_id is not distinct from old.agent_id and new.memory_type is not distinct from old.memory_type
     and new.expires_at is not distinct from old.expires_at
     and (new.embedding operator(extensions.=) old.embedding or (new.embedding is null and old.embedding is null)) then
    return null;
  end if;
  if new.embedding is null then
    delete from public.agent_memory_vectors v
     where v.memory_id operator(pg_catalog.=) new.id and v.user_id operator(pg_catalog.=) new.user_id;
    return null;
  end if;
  update public.agent_memory_vectors v
     set agent_id = new.agent_id, memory_type = new.memory_type, expires_at = new.expires_at,
         embedding = agentmem.memory_vector_copy(new.embedding)
   where v.memory_id operator(pg_catalog.=) new.id and v.user_id operator(pg_catalog.=) new.user_id;
  if not found then
    insert into public.agent_memory_vectors (user_id, memory_id, agent_id, memory_type, expires_at, embedding)
    values (new.user_id, new.id, new.agent_id, new.memory_type, new.expires_at,
            agentmem.memory_vector_copy(new.embedding));
  end if;
  return null;
end;
$$;

drop trigger if exists agent_memories_copy_vector on public.agent_memories;
-- (On every update, not `update of embedding, …`: a trigger naming a column would stop
-- set_agent_memory_dimensions from changing that column's type.)
create trigger agent_memories_copy_vector
  after insert or update on public.agent_memories
  for each row execute function agentmem.copy_memory_vector();

-- An install from before the search copy: every stored vector, once.
do $$
begin
  if not exists (select 1 from public.agent_memory_vectors) then
    insert into public.agent_memory_vectors (user_id, memory_id, agent_id, memory_type, expires_at, embedding)
    select m.user_id, m.id, m.agent_id, m.memory_type, m.expires_at, agentmem.memory_vector_copy(m.embedding)
      from public.agent_memories m where m.embedding is not null;
  end if;
end
$$;

-- A log row's accessed_at is the time it is written.
create or replace function agentmem.memory_access_log_bookkeeping()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  new.accessed_at := case when tg_op = 'INSERT' then pg_catalog.now() else old.accessed_at end;
  return new;
end;
$$;

-- Row-level security and grants -----------------------------------------------------------
-- The tenancy template: users read their rows; the functions below write them.
select agentmem.protect('public.agent_memories', 'user_id');
select agentmem.protect('public.memory_references', 'user_id');
select agentmem.protect('public.memory_access_log', 'user_id');
select agentmem.protect('public.agent_memory_counters', 'user_id');
select agentmem.protect('public.agent_memory_vectors', 'user_id');
select agentmem.keep_bookkeeping('public.agent_memories', 'public.agent_memories_set_updated_at');
-- The trigger's name before agentmem.keep_bookkeeping installed it (re-running this file over an older one).
drop trigger if exists agent_memories_set_updated_at on public.agent_memories;
select agentmem.keep_bookkeeping('public.memory_references', 'agentmem.stamp_created');
select agentmem.keep_bookkeeping('public.memory_access_log', 'agentmem.memory_access_log_bookkeeping');

-- Types -----------------------------------------------------------------------------------
-- The RPCs' result: a memory without its embedding and tsvector, plus the similarity.
do $$
begin
  if to_regtype('public.agent_memory_match') is null then
    create type public.agent_memory_match as (
      id               uuid,
      user_id          uuid,
      agent_id         text,
      session_id       text,
      content          text,
      memory_type      text,
      importance_score double precision,
      metadata         jsonb,
      expires_at       timestamptz,
      access_count     integer,
      last_accessed_at timestamptz,
      created_at       timestamptz,
      updated_at       timestamptz,
      similarity       double precision
    );
  end if;
end
$$;

comment on type public.agent_memory_match is
  'A memory as returned by search_agent_memories / get_memory_context: no embedding, plus similarity (cosine, 1 - distance; null when not computed).';

-- Functions -------------------------------------------------------------------------------

-- The embedding column's dimension (its vector(N) type modifier).
create or replace function public.agent_memory_dimensions()
returns integer
language sql
stable
security invoker
set search_path = public, extensions
as $$
  select agentmem.vector_dimensions('public.agent_memories', 'embedding')
   where agentmem.tenant() is not null -- refuses callers without an identity
$$;

comment on function public.agent_memory_dimensions() is
  'The dimension of agent_memories.embedding (384 unless set_agent_memory_dimensions changed it).';

-- An embedding a memory is stored or searched with: the column's dimensions, and not the
-- zero vector. p_query: it is a search's query (the messages name it so).
create or replace function agentmem.check_embedding(p_embedding extensions.vector, p_query boolean)
returns void
language plpgsql
stable
set search_path = ''
as $$
declare
  v_dims integer := public.agent_memory_dimensions();
begin
  if v_dims is not null and extensions.vector_dims(p_embedding) <> v_dims then
    raise exception '% has % dimensions, expected % (dimension mismatch)',
      case when p_query then 'query embedding' else 'embedding' end, extensions.vector_dims(p_embedding), v_dims
      using errcode = '22000';
  end if;
  if extensions.vector_norm(p_embedding) = 0 then
    raise exception '% must not be the zero vector (cosine similarity is undefined for it)',
      case when p_query then 'query_embedding' else 'embedding' end
      using errcode = '22023';
  end if;
end;
$$;

-- The memory types, in the order the tool definitions list them (the table's CHECK states
-- the same list; src/memory/names.rs checks both against MemoryType).
create or replace function agentmem.memory_types()
returns text[]
language sql
immutable
set search_path = ''
as $$
  select array['conversation', 'preference', 'fact', 'decision', 'context']
$$;

-- A memory type a caller gives: one of agentmem.memory_types() (22023 naming them).
create or replace function agentmem.check_memory_type(p_memory_type text)
returns void
language plpgsql
immutable
set search_path = ''
as $$
begin
  if p_memory_type is null or not (p_memory_type = any (agentmem.memory_types())) then
    raise exception 'memory_type must be one of % (got %)', pg_catalog.array_to_string(agentmem.memory_types(), ', '),
      coalesce(pg_catalog.quote_literal(p_memory_type), 'null')
      using errcode = '22023';
  end if;
end;
$$;

-- create_agent_memory: one memory and, optionally, its reference(s), atomically.
create or replace function public.create_agent_memory(
  p_agent_id         text,
  p_content          text,
  p_memory_type      text,
  p_importance_score double precision default null,
  p_embedding        extensions.vector default null,
  p_session_id       text default null,
  p_metadata         jsonb default '{}'::jsonb,
  p_expires_at       timestamptz default null,
  p_reference        jsonb default null
)
returns public.agent_memories
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_tenant     uuid := agentmem.tenant();
  v_memory     public.agent_memories;
  v_importance double precision;
  v_refs       jsonb;
  v_ref        jsonb;
begin
  if p_agent_id is null or char_length(btrim(p_agent_id)) = 0 or char_length(p_agent_id) > 255 then
    raise exception 'agent_id must be a non-empty string of at most 255 characters'
      using errcode = '22023';
  end if;
  if p_session_id is not null and char_length(p_session_id) > 255 then
    raise exception 'session_id must be at most 255 characters' using errcode = '22023';
  end if;
  if p_content is null or char_length(btrim(p_content)) = 0 then
    raise exception 'content must not be empty' using errcode = '22023';
  end if;
  if char_length(p_content) > 10000 then
    raise exception 'content must be at most 10000 characters (got %)', char_length(p_content)
      using errcode = '22023';
  end if;
  perform agentmem.check_memory_type(p_memory_type);
  v_importance := coalesce(p_importance_score, case p_memory_type
    when 'preference' then 0.9
    when 'decision' then 0.7
    when 'fact' then 0.6
    when 'context' then 0.5
    else 0.3 end);
  if not (v_importance between 0 and 1) then -- NaN included
    raise exception 'importance_score must be between 0 and 1 (got %)', v_importance
      using errcode = '22023';
  end if;
  if p_embedding is not null then
    perform agentmem.check_embedding(p_embedding, false);
  end if;
  if p_metadata is not null and jsonb_typeof(p_metadata) <> 'object' then
    raise exception 'metadata must be a JSON object' using errcode = '22023';
  end if;

  -- References: one object {reference_type, reference_id} or an array of them.
  if p_reference is not null and jsonb_typeof(p_reference) <> 'null' then
    v_refs := case jsonb_typeof(p_reference)
                when 'object' then jsonb_build_array(p_reference)
                when 'array' then p_reference
              end;
    if v_refs is null then
      raise exception 'reference must be an object {"reference_type": ..., "reference_id": ...} or an array of them'
        using errcode = '22023';
    end if;
    for v_ref in select value from jsonb_array_elements(v_refs) loop
      if jsonb_typeof(v_ref) <> 'object'
         or jsonb_typeof(v_ref -> 'reference_type') is distinct from 'string'
         or jsonb_typeof(v_ref -> 'reference_id') is distinct from 'string' then
        raise exception 'reference must be an object with string fields reference_type and reference_id'
          using errcode = '22023';
      end if;
      if (v_ref ->> 'reference_type') !~ '^[a-z][a-z0-9_]{0,62}$' then
        raise exception 'reference_type must be a lowercase identifier such as rfp, bid, artifact, message, user_profile (got %)',
          quote_literal(v_ref ->> 'reference_type')
          using errcode = '22023';
      end if;
      if (v_ref ->> 'reference_id') !~* '^\{?[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}\}?$' then
        raise exception 'reference_id must be a UUID (got %)', quote_literal(v_ref ->> 'reference_id')
          using errcode = '22023';
      end if;
    end loop;
  end if;

  insert into public.agent_memories
    (user_id, agent_id, session_id, content, memory_type, importance_score, embedding, metadata, expires_at)
  values
    (v_tenant, p_agent_id, p_session_id, p_content, p_memory_type, v_importance, p_embedding,
     coalesce(p_metadata, '{}'::jsonb), p_expires_at)
  returning * into v_memory;

  if v_refs is not null then
    insert into public.memory_references (memory_id, user_id, reference_type, reference_id)
    select v_memory.id, v_memory.user_id, r ->> 'reference_type', (r ->> 'reference_id')::uuid
    from jsonb_array_elements(v_refs) as r;
  end if;

  return v_memory;
end;
$$;

comment on function public.create_agent_memory(text, text, text, double precision, extensions.vector, text, jsonb, timestamptz, jsonb) is
  'Creates a memory of the caller''s tenant (and its reference(s) from p_reference: {"reference_type","reference_id"} or an array of them) in one transaction; returns the agent_memories row.';

-- The tenant's memories that a search may return: with an embedding, unexpired, of the
-- agent and types asked for (null: any). A plain SQL function, so the planner inlines it
-- into each query of agentmem.memory_nearest and plans it with that query's order and limit.
create or replace function agentmem.memory_candidates(p_tenant uuid, p_agent text, p_types text[])
returns setof public.agent_memories
language sql
stable
as $$
  select m.* from public.agent_memories m
   where m.user_id = p_tenant and m.embedding is not null
     and (p_agent is null or m.agent_id = p_agent)
     and (p_types is null or m.memory_type = any (p_types))
     and (m.expires_at is null or m.expires_at > now())
$$;

-- Their search copies (agent_memory_vectors), with the same filters: what memory_exact's
-- passes scan, inlined into each as memory_candidates is.
create or replace function agentmem.memory_copies(p_tenant uuid, p_agent text, p_types text[])
returns setof public.agent_memory_vectors
language sql
stable
as $$
  select v.* from public.agent_memory_vectors v
   where v.user_id = p_tenant
     and (p_agent is null or v.agent_id = p_agent)
     and (p_types is null or v.memory_type = any (p_types))
     and (v.expires_at is null or v.expires_at > now())
$$;

-- Search: the contract ------------------------------------------------------------------
-- search_agent_memories (and get_memory_context with a query) answer the best p_k of the
-- tenant's memories that pass the filters, by cosine distance, ties by id:
--   * exactly, whenever at most 20,000 memories pass the filters (one user's or one agent's
--     memories, the common case): every qualifying row's distance counts, whatever plan
--     statistics would suggest (agentmem.memory_exact);
--   * through the HNSW index above that, with a wide candidate list (hnsw.ef_search) and
--     an iterative scan in strict order, checked against an exact sample of the rows: a
--     short answer, one that a sampled row proves wrong, or one for a query that no row
--     stands out for, is computed exactly instead (never fewer than p_k answers while p_k
--     pass the filters).
-- The strategy is chosen here, from a count of the qualifying rows (an index-only count
-- that stops at 20,001), not by the planner: with statistics from when the table was small
-- the planner sorted a whole tenant (slow), with fresh ones it took the shared HNSW index
-- for small filtered sets (wrong: an HNSW scan under a filter that few rows pass stops
-- early), and which of the two ran depended on a connection's plan cache.

-- The exact best p_k (ties by id) in two steps. First the search copies
-- (agent_memory_vectors: unit length, half precision) rank the tenant's qualifying rows;
-- then the full-precision distance ranks every row the copies place within 2 * margin of
-- their p_k-th. That is exact. pgvector rounds to the nearest half, so a copy is within
-- 2^-11 of its unit vector's length (+ 2^-25 per subnormal component) and the angle
-- between copies within ~0.00099 of the true one; each distance is summed in single
-- precision (at most 2 * dims * 2^-24 off); so a copy's distance is within
-- margin = 0.0011 + dims * 2^-22 of the full one. A row of the true best p_k has full
-- distance <= the p_k-th full distance <= the copies' p_k-th + margin, hence copy distance
-- <= the copies' p_k-th + 2 * margin. The first pass keeps the best p_k + 1,000 copies:
-- wide embeddings' distances crowd (105 of 19,000 memories of 1,536 dimensions fall within
-- the band for a query near one of their topics; the 64 kept before sent that search to
-- the full vectors of all 19,000: 300-320 ms, now 42-48), and keeping 1,000 more costs a
-- 60,000-memory scan nothing measurable. When the band holds more than that
-- (near-duplicates), a second pass over the copies takes every row within it.
-- p_known_kth, when given, is a full
-- distance that p_k qualifying rows are known to reach (the p_k-th of a sample): no row
-- whose copy is farther than that + 3 * margin can be in the band, so those are dropped
-- before the sort.
create or replace function agentmem.memory_exact(
  p_tenant    uuid,
  p_query     extensions.vector,
  p_agent     text,
  p_types     text[],
  p_k         integer,
  p_known_kth double precision default null
)
returns table (id uuid, distance double precision)
language plpgsql
stable
-- The copies' index alone, in key order: a bitmap scan reads the copies' table, where
-- tenants' rows interleave.
set enable_seqscan = off
set enable_bitmapscan = off
set plan_cache_mode = force_custom_plan
as $$
#variable_conflict use_column
declare
  v_window   constant integer := p_k + 1000;
  v_margin   constant double precision := 0.0011 + extensions.vector_dims(p_query) * 2.0 ^ -22;
  v_copy     extensions.halfvec := agentmem.memory_vector_copy(p_query);
  v_ids      uuid[];
  v_copies   double precision[];
  v_band     uuid[];
begin
  -- (Ties among the copies need no order: the band below takes all of a tie, and a window
  -- whose last row is inside the band is completed by a second pass.)
  select array_agg(c.memory_id order by c.d), array_agg(c.d order by c.d)
    into v_ids, v_copies
    from (select v.memory_id, v.embedding operator(extensions.<=>) v_copy as d
            from agentmem.memory_copies(p_tenant, p_agent, p_types) v
           where p_known_kth is null or v.embedding operator(extensions.<=>) v_copy <= p_known_kth + 3 * v_margin
           order by 2
           limit v_window) c;
  -- (Fewer than p_k rows: all of them. A NaN distance, of a zero vector a direct write
  -- stored, sorts last and widens the band to every row.)
  v_band := array(select x.id from unnest(v_ids, v_copies) x(id, d)
                   where cardinality(v_ids) <= p_k or x.d <= v_copies[p_k] + 2 * v_margin);
  if cardinality(v_band) >= v_window then
    v_band := array(select v.memory_id from agentmem.memory_copies(p_tenant, p_agent, p_types) v
                     where v.embedding operator(extensions.<=>) v_copy <= v_copies[p_k] + 2 * v_margin);
  end if;
  -- (`+ 0` keeps the HNSW index out: the order is not the operator's own.)
  return query
    select m.id, m.embedding operator(extensions.<=>) p_query
      from agentmem.memory_candidates(p_tenant, p_agent, p_types) m
     where m.id = any (v_band)
     order by (m.embedding operator(extensions.<=>) p_query) + 0, m.id
     limit p_k;
end;
$$;

create or replace function agentmem.memory_nearest(
  p_tenant uuid,
  p_query  extensions.vector,
  p_agent  text,
  p_types  text[],
  p_k      integer
)
returns table (id uuid, distance double precision)
language plpgsql
volatile
-- Plans independent of statistics and of the session's history: never a sequential scan
-- of every tenant's memories, and every statement planned for its arguments (a generic
-- plan, which PL/pgSQL switches to after five calls, cannot use the agent filter in the
-- index and counted a whole tenant: 100 ms instead of 8 for an agent of 143 memories).
set enable_seqscan = off
set plan_cache_mode = force_custom_plan
as $$
#variable_conflict use_column
declare
  v_exact_limit constant integer := 20000;
  v_qualifying  integer;
  v_ids         uuid[];
  v_distances   double precision[];
  v_settings    text[];
  v_iterative   boolean;
  v_sample_ids       uuid[];
  v_sample_distances double precision[];
  v_sample_kth       double precision;
begin
  select count(*) into v_qualifying
    from (select 1 from agentmem.memory_candidates(p_tenant, p_agent, p_types) m
           limit v_exact_limit + 1) q;
  if v_qualifying <= v_exact_limit then
    return query select * from agentmem.memory_exact(p_tenant, p_query, p_agent, p_types, p_k);
    return;
  end if;

  -- The check comes first. A graph search can miss rows, the more so the less the best rows
  -- stand out: for a query far from all of the tenant's memories their distances are
  -- nearly alike, and the index returns some of the near ones, not the nearest. 512 of the
  -- qualifying rows (the first by id: random UUIDs, so a sample) are measured exactly.
  -- When no sampled row stands out (the nearest is at least 0.8 of the median distance:
  -- the graph cannot rank such rows), the exact answer is computed without asking the graph.
  select array_agg(x.id), array_agg(x.distance) into v_sample_ids, v_sample_distances
    from (select m.id, m.embedding operator(extensions.<=>) p_query as distance
            from agentmem.memory_candidates(p_tenant, p_agent, p_types) m
           order by m.id
           limit 512) x;
  v_sample_kth := (select d from unnest(v_sample_distances) d order by d offset p_k - 1 limit 1);
  if (select min(d) >= 0.8 * percentile_cont(0.5) within group (order by d) from unnest(v_sample_distances) d) is not false then
    return query select * from agentmem.memory_exact(p_tenant, p_query, p_agent, p_types, p_k, v_sample_kth);
    return;
  end if;

  -- The HNSW index, asked for p_k rows in strict distance order, scanning past rows the
  -- filters drop (pgvector >= 0.8) with a candidate list of at least 200. The settings are
  -- the transaction's: saved and restored around the one statement.
  v_iterative := (select string_to_array(e.extversion, '.')::integer[] >= array[0, 8, 0]
                    from pg_catalog.pg_extension e where e.extname = 'vector');
  v_settings := array[current_setting('hnsw.ef_search', true), current_setting('enable_sort'),
                      current_setting('hnsw.iterative_scan', true), current_setting('hnsw.max_scan_tuples', true)];
  perform set_config('hnsw.ef_search', greatest(200, p_k * 4)::text, true),
          -- an index scan in distance order, not a sort of the tenant's rows
          set_config('enable_sort', 'off', true);
  if v_iterative then
    perform set_config('hnsw.iterative_scan', 'strict_order', true),
            set_config('hnsw.max_scan_tuples', '100000', true);
  end if;
  select array_agg(c.id order by c.distance, c.id), array_agg(c.distance order by c.distance, c.id)
    into v_ids, v_distances
    from (select m.id, m.embedding operator(extensions.<=>) p_query as distance
            from agentmem.memory_candidates(p_tenant, p_agent, p_types) m
           order by m.embedding operator(extensions.<=>) p_query
           limit p_k) c;
  perform set_config('hnsw.ef_search', coalesce(v_settings[1], '40'), true),
          set_config('enable_sort', v_settings[2], true);
  if v_iterative then
    perform set_config('hnsw.iterative_scan', coalesce(v_settings[3], 'off'), true),
            set_config('hnsw.max_scan_tuples', coalesce(v_settings[4], '20000'), true);
  end if;
  -- The graph's answer stands unless it is short or a sampled row proves it wrong (closer
  -- than the answer's last, but not in it).
  if coalesce(cardinality(v_ids), 0) >= p_k
     and not exists (select 1 from unnest(v_sample_ids, v_sample_distances) x(id, d)
                      where x.d < v_distances[p_k] and x.id <> all (v_ids)) then
    return query select * from unnest(v_ids, v_distances);
    return;
  end if;
  return query select * from agentmem.memory_exact(p_tenant, p_query, p_agent, p_types, p_k, v_sample_kth);
end;
$$;

-- Records that the caller retrieved these memories: their counters (agent_memory_counters)
-- and one memory_access_log row each, with the retrieval's relevance (p_scores, by
-- position; null where there is none). Only the caller's existing memories count; each id
-- once. SECURITY DEFINER: the counters are written by agentmem only, never by a caller
-- directly; the tenant is the caller's own (agentmem.tenant() reads the request, not the
-- function's owner). Rows are locked in id order, so concurrent recordings never deadlock.
create or replace function agentmem.record_memory_access(
  p_ids        uuid[],
  p_type       text,
  p_session_id text default null,
  p_scores     double precision[] default null
)
returns table (memory_id uuid, access_count integer, last_accessed_at timestamptz)
language plpgsql
volatile
security definer
set search_path = ''
as $$
#variable_conflict use_column
declare
  v_tenant uuid := agentmem.tenant();
begin
  if pg_catalog.char_length(p_session_id) > 255 then
    raise exception 'session_id must be at most 255 characters' using errcode = '22023';
  end if;
  return query
  -- Each id by its primary key: a subquery per id (LIMIT keeps it one, not a join the
  -- planner may reorder). As `m.id = any (p_ids)`, a generic plan (from a connection's sixth
  -- call on; a search and a context read each record) took the caller for a tenant of a
  -- few memories, as the column's average says, and found the ids by reading all of their
  -- memories: 80,000 rows per access of two memories for a caller with 40,000.
  with hit as materialized (
    select m.id, m.agent_id,
           -- (greatest/least skip nulls: a null score stays null only outside them)
           (select case when s.score is null or s.score = 'NaN'::float8 then null
                        else greatest(-1, least(1, s.score)) end
              from unnest(p_ids, p_scores) as s(id, score) where s.id operator(pg_catalog.=) m.id limit 1) as score
      from (select distinct i.id from unnest(p_ids) as i(id) order by i.id) i
      cross join lateral (select m.id, m.agent_id from public.agent_memories m
                           where m.user_id operator(pg_catalog.=) v_tenant and m.id operator(pg_catalog.=) i.id
                           limit 1 for key share) m
     order by m.id
  ),
  counted as (
    insert into public.agent_memory_counters as c (user_id, memory_id, access_count, last_accessed_at)
    select v_tenant, h.id, 1, pg_catalog.now() from hit h order by h.id
    on conflict (user_id, memory_id) do update
      set access_count = c.access_count + 1, last_accessed_at = excluded.last_accessed_at
    returning c.memory_id, c.access_count, c.last_accessed_at
  ),
  logged as (
    insert into public.memory_access_log (memory_id, user_id, agent_id, session_id, access_type, relevance_score)
    select h.id, v_tenant, h.agent_id, p_session_id, p_type, h.score from hit h
  )
  select * from counted;
end;
$$;

-- A memory as the RPCs answer it (agent_memory_match), with its counters.
create or replace function agentmem.memory_match(
  p_memory public.agent_memories,
  p_access_count integer,
  p_last_accessed_at timestamptz,
  p_similarity double precision
)
returns public.agent_memory_match
language sql
immutable
as $$
  select ((p_memory).id, (p_memory).user_id, (p_memory).agent_id, (p_memory).session_id, (p_memory).content,
          (p_memory).memory_type, (p_memory).importance_score, (p_memory).metadata, (p_memory).expires_at,
          coalesce(p_access_count, 0), p_last_accessed_at, (p_memory).created_at, (p_memory).updated_at,
          p_similarity)::public.agent_memory_match
$$;

-- search_agent_memories: the best p_match_count of the caller's unexpired memories that
-- pass the filters and the threshold (agentmem.memory_nearest: exact up to 20,000
-- qualifying rows), most similar first; with p_record_access (default) records their
-- access (counters and log, access_type search, session p_session_id), touching only the
-- returned rows, and none when it is off. With p_include_below, the best p_match_count
-- whatever their similarity, those under the threshold after the others (their access is
-- not recorded): a caller can then tell "nothing stored" from "nothing close enough".
-- (The signature before p_include_below, when re-running this file over an older one.)
drop function if exists public.search_agent_memories(extensions.vector, text, double precision, integer, text[], boolean, text);
create or replace function public.search_agent_memories(
  p_query_embedding extensions.vector,
  p_agent_id        text default null,
  p_match_threshold double precision default 0.5,
  p_match_count     integer default 10,
  p_memory_types    text[] default null,
  p_record_access   boolean default true,
  p_session_id      text default null,
  p_include_below   boolean default false
)
returns setof public.agent_memory_match
language plpgsql
volatile
security invoker
set search_path = public, extensions
as $$
declare
  v_tenant    uuid := agentmem.tenant();
  v_threshold double precision := coalesce(p_match_threshold, 0.5);
  v_count     integer := coalesce(p_match_count, 10);
  v_types     text[] := case when cardinality(p_memory_types) > 0 then p_memory_types end;
  v_record    boolean := coalesce(p_record_access, true);
  v_ids       uuid[];
  v_distances double precision[];
begin
  if p_query_embedding is null then
    raise exception 'query_embedding is required' using errcode = '22023';
  end if;
  perform agentmem.check_embedding(p_query_embedding, true);
  if char_length(p_session_id) > 255 then
    raise exception 'session_id must be at most 255 characters' using errcode = '22023';
  end if;
  if v_count < 1 then
    raise exception 'match_count must be at least 1 (got %)', v_count using errcode = '22023';
  end if;
  v_count := least(v_count, 100);
  if not (v_threshold between -1 and 1) then -- NaN included
    raise exception 'match_threshold must be between -1 and 1 (got %)', v_threshold
      using errcode = '22023';
  end if;
  if exists (select 1 from unnest(v_types) t
             where t is null or not (t = any (agentmem.memory_types()))) then
    raise exception 'memory_types must contain only % (got %)', array_to_string(agentmem.memory_types(), ', '),
      array_to_string(v_types, ', ', 'null')
      using errcode = '22023';
  end if;

  -- The best v_count by distance first, the threshold after: both orders give the same rows.
  select array_agg(n.id order by n.distance, n.id), array_agg(n.distance order by n.distance, n.id)
    into v_ids, v_distances
    from agentmem.memory_nearest(v_tenant, p_query_embedding, p_agent_id, v_types, v_count) n
   where coalesce(p_include_below, false) or n.distance <= 1 - v_threshold; -- NaN never passes

  if v_record and v_ids is not null then
    perform agentmem.record_memory_access(array(select x.id from unnest(v_ids, v_distances) x(id, d) where x.d <= 1 - v_threshold),
                                          'search', p_session_id,
                                          array(select 1 - x.d from unnest(v_ids, v_distances) x(id, d) where x.d <= 1 - v_threshold));
  end if;
  -- The answer's rows, each by its primary key: a subquery per id (LIMIT keeps it one, not
  -- a join the planner may reorder). Joined, a generic plan (from a connection's sixth
  -- search on) took the caller for a tenant of a few memories, as the column's average
  -- says, and read all of them (for the service role all their counters too) to join the
  -- few ids: 80,000-230,000 rows per search for a caller with 40,000 memories. (Planned per
  -- call instead, the search cost about 1 ms more.)
  return query
  select (agentmem.memory_match(m, c.access_count, c.last_accessed_at, (1 - x.distance)::double precision)).*
    from unnest(v_ids, v_distances) with ordinality as x(id, distance, n)
    cross join lateral (select * from public.agent_memories m where m.user_id = v_tenant and m.id = x.id limit 1) m
    left join lateral (select c.access_count, c.last_accessed_at from public.agent_memory_counters c
                        where c.user_id = v_tenant and c.memory_id = x.id limit 1) c on true
   order by x.n;
end;
$$;

comment on function public.search_agent_memories(extensions.vector, text, double precision, integer, text[], boolean, text, boolean) is
  'Cosine-similarity search over the caller''s unexpired memories: the best min(p_match_count, 100) that pass the agent and type filters and similarity >= p_match_threshold, most similar first, ties by id; exact whenever at most 20,000 memories pass the filters. With p_record_access (default) counts the access of each result (agent_memory_counters) and logs it (memory_access_log, access_type search, session p_session_id).';

-- update_memory_access: record that memories were used (read, update, ...).
create or replace function public.update_memory_access(
  p_memory_ids  uuid[],
  p_access_type text default 'read'
)
returns integer
language plpgsql
volatile
security invoker
set search_path = public, extensions
as $$
declare
  v_type  text := coalesce(p_access_type, 'read');
  v_count integer;
begin
  perform agentmem.tenant(); -- refuses callers without an identity, whatever the ids
  if v_type not in ('search', 'read', 'context', 'update') then
    raise exception 'access_type must be one of search, read, context, update (got %)', quote_literal(v_type)
      using errcode = '22023';
  end if;
  if cardinality(p_memory_ids) > 1000 then
    raise exception 'memory_ids must hold at most 1000 ids (got %)', cardinality(p_memory_ids)
      using errcode = '22023';
  end if;
  select count(*) into v_count from agentmem.record_memory_access(p_memory_ids, v_type);
  return v_count;
end;
$$;

comment on function public.update_memory_access(uuid[], text) is
  'Counts an access of each given memory the caller has (agent_memory_counters) and logs one access row each; returns how many memories it touched.';

-- get_memory_context: the session-start context: the caller's unexpired memories ordered by
-- importance (desc), then similarity to p_query_embedding (when given; memories without an
-- embedding after), then newest, then id; the longest prefix of that order within both
-- budgets. Read tier by tier of importance (agent_memories_tier_idx), so a call touches
-- only the tiers it returns from, not the tenant's every memory; and without a query
-- vector, only the start of each: planned for the call's values (force_custom_plan), the
-- similarity is the constant null, which orders nothing, and the index's order within a
-- tier (newest first, then id) is the statement's, so the read stops at the page. With a
-- vector, a tier is ranked by similarity, read whole.
create or replace function public.get_memory_context(
  p_agent_id        text default null,
  p_query_embedding extensions.vector default null,
  p_max_chars       integer default 4000,
  p_max_memories    integer default 20,
  p_min_importance  double precision default 0
)
returns setof public.agent_memory_match
language plpgsql
volatile
security invoker
set search_path = public, extensions
set enable_seqscan = off
set plan_cache_mode = force_custom_plan
as $$
declare
  v_tenant    uuid := agentmem.tenant();
  v_max_chars integer := coalesce(p_max_chars, 4000);
  v_max       integer := coalesce(p_max_memories, 20);
  v_min       double precision := coalesce(p_min_importance, 0);
  v_tier      double precision;
  v_below     double precision := 'Infinity';
  v_ids       uuid[] := '{}';
  v_sims      double precision[] := '{}';
  v_chars     integer := 0;
  v_row       record;
  v_full      boolean := false;
begin
  if p_query_embedding is not null then
    perform agentmem.check_embedding(p_query_embedding, true);
  end if;
  if v_max_chars < 1 then
    raise exception 'max_chars must be at least 1 (got %)', v_max_chars using errcode = '22023';
  end if;
  if v_max < 1 then
    raise exception 'max_memories must be at least 1 (got %)', v_max using errcode = '22023';
  end if;
  v_max := least(v_max, 100);
  if not (v_min between 0 and 1) then -- NaN included
    raise exception 'min_importance must be between 0 and 1 (got %)', v_min using errcode = '22023';
  end if;

  <<tiers>>
  loop
    select max(m.importance_score) into v_tier
      from public.agent_memories m
     where m.user_id = v_tenant and m.importance_score < v_below and m.importance_score >= v_min
       and (p_agent_id is null or m.agent_id = p_agent_id)
       and (m.expires_at is null or m.expires_at > now());
    exit when v_tier is null;
    for v_row in
      select m.id, char_length(m.content) as chars,
             case when p_query_embedding is not null and m.embedding is not null
                  then nullif(1 - (m.embedding <=> p_query_embedding), 'NaN'::float8) end as similarity
        from public.agent_memories m
       where m.user_id = v_tenant and m.importance_score = v_tier
         and (p_agent_id is null or m.agent_id = p_agent_id)
         and (m.expires_at is null or m.expires_at > now())
       order by 3 desc nulls last, m.created_at desc, m.id
       limit v_max - cardinality(v_ids)
    loop
      v_full := v_chars + v_row.chars > v_max_chars;
      exit tiers when v_full;
      v_chars := v_chars + v_row.chars;
      v_ids := v_ids || v_row.id;
      v_sims := v_sims || v_row.similarity;
    end loop;
    exit when cardinality(v_ids) >= v_max;
    v_below := v_tier;
  end loop;

  if cardinality(v_ids) > 0 then
    perform agentmem.record_memory_access(v_ids, 'context', null, v_sims);
  end if;
  return query
  select (agentmem.memory_match(m, c.access_count, c.last_accessed_at, x.similarity)).*
    from unnest(v_ids, v_sims) with ordinality as x(id, similarity, n)
    join public.agent_memories m on m.user_id = v_tenant and m.id = x.id
    left join public.agent_memory_counters c on c.user_id = v_tenant and c.memory_id = x.id
   order by x.n;
end;
$$;

comment on function public.get_memory_context(text, extensions.vector, integer, integer, double precision) is
  'The caller''s unexpired memories for the start of a session: importance desc, then similarity to p_query_embedding (if given), then newest, then id; the longest prefix of that order whose total content length is <= p_max_chars, at most min(p_max_memories, 100). Records access (access_type context).';

-- cleanup_expired_memories: deletes expired memories: the caller's; every tenant's for the
-- service role not acting for a user.
create or replace function public.cleanup_expired_memories()
returns integer
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_all    boolean := agentmem.sees_all_tenants();
  v_tenant uuid := agentmem.tenant();
  v_count  integer;
begin
  with deleted as (
    delete from public.agent_memories m
    where (v_all or m.user_id = v_tenant)
      and m.expires_at is not null and m.expires_at <= now()
    returning 1
  )
  select count(*) into v_count from deleted;
  return v_count;
end;
$$;

comment on function public.cleanup_expired_memories() is
  'Deletes the caller''s expired memories (every tenant''s for the service role not acting for a user); returns the count.';

-- get_memory_statistics: one JSON object about the caller's memories.
create or replace function public.get_memory_statistics(p_agent_id text default null)
returns jsonb
language sql
stable
security invoker
set search_path = public, extensions
-- Planned for each call's tenant and agent: a generic plan takes the caller for a tenant of
-- a few memories and may read all of their counters per memory of the agent.
set plan_cache_mode = force_custom_plan
as $$
  -- Refuse callers without an identity first: in the query below the planner may skip
  -- the tenant check when row-level security already filters everything out.
  select agentmem.tenant();
  -- The counters joined once, memory by memory, with the columns the figures need (not the
  -- embedding). Joined to the CTE's rows instead, a user's plan read every counter of the
  -- caller for each memory: one agent's statistics cost its memories times the caller's
  -- counters, 848,614 rows for 10 memories of a caller with 40,000.
  with m as (
    select m.memory_type, m.expires_at, m.embedding is not null as embedded, m.importance_score, m.created_at,
           c.access_count, c.last_accessed_at
      from public.agent_memories m
      left join public.agent_memory_counters c on c.user_id = m.user_id and c.memory_id = m.id
    where m.user_id = agentmem.tenant()
      and (p_agent_id is null or m.agent_id = p_agent_id)
  )
  select jsonb_build_object(
    'total',              (select count(*) from m),
    'active',             (select count(*) from m where m.expires_at is null or m.expires_at > now()),
    'expired',            (select count(*) from m where m.expires_at <= now()),
    'with_embedding',     (select count(*) from m where m.embedded),
    'by_type',            (select jsonb_object_agg(t.memory_type,
                                    (select count(*) from m where m.memory_type = t.memory_type))
                           from unnest(agentmem.memory_types()) as t(memory_type)),
    'avg_importance',     (select avg(m.importance_score) from m),
    'total_accesses',     (select coalesce(sum(m.access_count), 0) from m),
    'oldest_created_at',  (select min(m.created_at) from m),
    'newest_created_at',  (select max(m.created_at) from m),
    'last_accessed_at',   (select max(m.last_accessed_at) from m)
  )
$$;

comment on function public.get_memory_statistics(text) is
  'Statistics of the caller''s memories (optionally of one agent): total, active, expired, with_embedding, by_type{conversation,preference,fact,decision,context}, avg_importance, total_accesses, oldest_created_at, newest_created_at, last_accessed_at.';

-- set_agent_memory_dimensions: changes the embedding dimension while no embeddings exist.
-- SECURITY DEFINER on purpose: altering the table needs its owner, and the emptiness check
-- must see every user's rows; execute is granted to service_role only.
create or replace function public.set_agent_memory_dimensions(p_dimensions integer)
returns jsonb
language plpgsql
volatile
security definer
set search_path = public, extensions
as $$
declare
  v_changed jsonb;
begin
  -- At most 2000: the HNSW limit for vector.
  v_changed := agentmem.set_vector_dimensions('public.agent_memories', 'embedding', p_dimensions, 2000,
    'clear them (update agent_memories set embedding = null)',
    'drop index if exists public.agent_memories_embedding_hnsw_idx',
    'create index agent_memories_embedding_hnsw_idx on public.agent_memories using hnsw (embedding extensions.vector_cosine_ops)');
  -- Whether the search copies' index can hold the vectors depends on the dimension.
  perform agentmem.index_memory_vectors();
  return v_changed;
end;
$$;

comment on function public.set_agent_memory_dimensions(integer) is
  'Changes agent_memories.embedding to vector(p_dimensions) and rebuilds the HNSW index; refused (55000) while any embedding is stored. postgres / service_role only.';

-- update_agent_memory: changes one memory of the caller. The embedding follows the
-- content: when p_content differs from the stored content, p_embedding (of the new
-- content) is required, so a memory is never left with the vector of an older text;
-- when the content is unchanged the stored embedding is kept and p_embedding ignored.
-- That lets a client skip the embedding callback for content it knows is unchanged,
-- and learn (SQLSTATE AM001, nothing written) when its knowledge was stale.
-- Returns the memory (agent_memory_match, similarity null), or null when the caller has
-- no such unexpired memory.
create or replace function public.update_agent_memory(
  p_memory_id        uuid,
  p_content          text default null,
  p_embedding        extensions.vector default null,
  p_memory_type      text default null,
  p_importance_score double precision default null,
  p_expires_at       timestamptz default null,
  p_clear_expiry     boolean default false,
  p_metadata         jsonb default null
)
returns public.agent_memory_match
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_tenant uuid := agentmem.tenant();
  v_old    public.agent_memories;
  v_new    public.agent_memories;
  v_change boolean;
begin
  if p_memory_id is null then
    raise exception 'memory_id is required' using errcode = '22023';
  end if;
  if p_content is not null and (char_length(btrim(p_content)) = 0 or char_length(p_content) > 10000) then
    raise exception 'content must be 1 to 10000 characters' using errcode = '22023';
  end if;
  if p_memory_type is not null then
    perform agentmem.check_memory_type(p_memory_type);
  end if;
  if p_importance_score is not null and not (p_importance_score between 0 and 1) then
    raise exception 'importance_score must be between 0 and 1 (got %)', p_importance_score using errcode = '22023';
  end if;
  if p_metadata is not null and jsonb_typeof(p_metadata) <> 'object' then
    raise exception 'metadata must be a JSON object' using errcode = '22023';
  end if;

  select * into v_old from public.agent_memories m
  where m.user_id = v_tenant and m.id = p_memory_id and (m.expires_at is null or m.expires_at > now())
  for update;
  if not found then
    return null;
  end if;

  v_change := p_content is not null and p_content is distinct from v_old.content;
  if v_change then
    if p_embedding is null then
      raise exception 'content changed: the embedding of the new content is required'
        using errcode = 'AM001', hint = 'call again with p_embedding';
    end if;
    perform agentmem.check_embedding(p_embedding, false);
  end if;

  update public.agent_memories m set
    content          = case when v_change then p_content else m.content end,
    embedding        = case when v_change then p_embedding else m.embedding end,
    memory_type      = coalesce(p_memory_type, m.memory_type),
    importance_score = coalesce(p_importance_score, m.importance_score),
    expires_at       = case when p_clear_expiry then null else coalesce(p_expires_at, m.expires_at) end,
    metadata         = coalesce(p_metadata, m.metadata)
  where m.user_id = v_tenant and m.id = p_memory_id
  returning * into v_new;

  return (select agentmem.memory_match(v_new, c.access_count, c.last_accessed_at, null)
            from (select 1) one
            left join public.agent_memory_counters c on c.user_id = v_tenant and c.memory_id = p_memory_id);
end;
$$;

comment on function public.update_agent_memory(uuid, text, extensions.vector, text, double precision, timestamptz, boolean, jsonb) is
  'Updates one memory of the caller; a content change requires the new embedding (AM001 otherwise). Returns the memory or null.';

-- delete_agent_memory: true when the caller had that memory (its references and access
-- log go with it by cascade), false otherwise.
create or replace function public.delete_agent_memory(p_memory_id uuid)
returns boolean
language sql
volatile
security definer
set search_path = ''
as $$
  -- Refuse callers without an identity first, whatever the id.
  select agentmem.tenant();
  with gone as (delete from public.agent_memories where user_id = agentmem.tenant() and id = p_memory_id returning 1)
  select exists (select 1 from gone)
$$;

comment on function public.delete_agent_memory(uuid) is
  'Deletes one memory of the caller; true when it existed and was visible.';

-- Grants ----------------------------------------------------------------------------------
select agentmem.expose(
  'public.agent_memory_dimensions()',
  'public.create_agent_memory(text, text, text, double precision, extensions.vector, text, jsonb, timestamptz, jsonb)',
  'public.search_agent_memories(extensions.vector, text, double precision, integer, text[], boolean, text, boolean)',
  'public.update_memory_access(uuid[], text)',
  'public.get_memory_context(text, extensions.vector, integer, integer, double precision)',
  'public.cleanup_expired_memories()',
  'public.get_memory_statistics(text)',
  'public.update_agent_memory(uuid, text, extensions.vector, text, double precision, timestamptz, boolean, jsonb)',
  'public.delete_agent_memory(uuid)');
select agentmem.expose(
  'agentmem.memory_types()', 'agentmem.check_memory_type(text)',
  'agentmem.check_embedding(extensions.vector, boolean)',
  'agentmem.memory_candidates(uuid, text, text[])', 'agentmem.memory_copies(uuid, text, text[])',
  'agentmem.memory_exact(uuid, extensions.vector, text, text[], integer, double precision)',
  'agentmem.memory_vector_copy(extensions.vector)',
  'agentmem.memory_nearest(uuid, extensions.vector, text, text[], integer)',
  'agentmem.record_memory_access(uuid[], text, text, double precision[])',
  'agentmem.memory_match(public.agent_memories, integer, timestamptz, double precision)');
select agentmem.expose_to_service('public.set_agent_memory_dimensions(integer)');
select agentmem.keep_private('public.agent_memories_set_updated_at()', 'agentmem.memory_access_log_bookkeeping()',
                              'agentmem.copy_memory_vector()', 'agentmem.index_memory_vectors()');

notify pgrst, 'reload schema';
