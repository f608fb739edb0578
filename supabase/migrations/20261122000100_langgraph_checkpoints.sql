-- LangGraph checkpoints over PostgREST RPC, with row-level security per tenant.
--
-- Creates: tables langgraph_checkpoints, langgraph_checkpoint_blobs,
--          langgraph_checkpoint_writes, langgraph_threads; the RPCs below; helpers
--          agentmem.langgraph_value, agentmem.langgraph_write, agentmem.langgraph_tuples,
--          agentmem.langgraph_tuple, and
--          the triggers that keep langgraph_threads.
-- Needs:   20261121000100_tenancy.sql.
--
-- Three tables in the shape of @langchain/langgraph-checkpoint-postgres (checkpoints
-- without channel values; one blob row per channel version, so unchanged channels are
-- not rewritten; pending writes with task_path). Each saver operation is ONE RPC (= one
-- HTTP request, one transaction). The reads are SECURITY INVOKER, so row-level security
-- decides as the caller; the writes are the tables' only door for the API roles (see
-- 20261121000100_tenancy.sql) and run as the owner, keyed by agentmem.thread_write_key:
--
--   langgraph_put(...)                  blobs (new versions only) + the checkpoint, each
--                                       insert-once (the same content again: a no-op;
--                                       other content under a stored key: 23505 → 409)
--   langgraph_put_writes(...)           pending writes (special channels upserted)
--   langgraph_get_tuple(...)            checkpoint + its blobs + its writes (+ v<4 sends)
--   langgraph_list(...)                 the same shape, newest first, filtered
--   langgraph_list_threads(...)         the caller's threads, newest first, with their
--                                       latest checkpoint, count and last messages
--   langgraph_delete_thread(...)        every row of a thread, all namespaces
--   cleanup_old_checkpoints(days_old)   retention, keeps each thread's latest checkpoint
--   langgraph_checkpoint_metrics(...)   counts, bytes and the newest checkpoint's time
--
-- Blobs cross the API as standard base64 text (padded, no line breaks), never as bytea.
--
-- Tenancy (20261121000100_tenancy.sql): thread ids are private to their tenant. Rows are
-- keyed by `thread_key` ('<user uuid>/<thread id>' for a user's thread, the bare thread id
-- for the service tenant and for shared scopes); `tenant_id` and `thread_id` are derived
-- from it by a trigger. Two users who pick the same thread id have two threads. The
-- service role reaches a user's thread T only as T while acting for the user
-- (x-agentmem-tenant); an id '<uuid>/…' is refused to it. Shared threads are opt-in:
-- supabase/optional/langgraph_deal_scoped.sql.
-- LangGraph's own PostgresSaver can read and write the same threads through
-- supabase/optional/langgraph_postgres_saver.sql.
--
-- Key columns use the "C" collation, so ordering (checkpoint_id DESC, pending writes by
-- task_path, task_id, idx) and `before` comparisons are by code point, as LangGraph
-- requires, whatever the database's default collation is.
--
-- Bounds, as CHECK constraints too (so a row written around the functions, by a project's
-- own service-role code, is refused with 23514 rather than failing in an index): every
-- id at most 255 characters (thread_id, checkpoint_ns, checkpoint_id,
-- parent_checkpoint_id, channel, version, task_id), task_path at most 2,000, and each
-- primary key's text columns at most 2,400 bytes of UTF-8 together (the index's entry
-- limit is 2,704 bytes). A value stored as text (utf8) is valid UTF-8, so no stored row
-- can make a read fail.
--
-- Re-runnable, like every agentmem SQL file (see 20261121000100_tenancy.sql).

-- Tables ----------------------------------------------------------------------------------
create table if not exists public.langgraph_checkpoints (
  thread_key           text collate "C" not null,
  checkpoint_ns        text collate "C" not null default '',
  checkpoint_id        text collate "C" not null,
  parent_checkpoint_id text collate "C",
  type                 text,
  checkpoint           jsonb not null,
  metadata             jsonb not null default '{}'::jsonb,
  created_at           timestamptz not null default now(),
  thread_id            text collate "C" not null,
  tenant_id            uuid not null,
  primary key (thread_key, checkpoint_ns, checkpoint_id)
);

create table if not exists public.langgraph_checkpoint_blobs (
  thread_key    text collate "C" not null,
  checkpoint_ns text collate "C" not null default '',
  channel       text collate "C" not null,
  version       text collate "C" not null,
  type          text not null,
  blob          bytea,
  -- The value arrived as text (valid UTF-8 by construction) and is sent back as text, not
  -- base64. Rows written by other writers (PostgresSaver's views) default to bytes.
  utf8          boolean not null default false,
  created_at    timestamptz not null default now(),
  thread_id     text collate "C" not null,
  tenant_id     uuid not null,
  primary key (thread_key, checkpoint_ns, channel, version)
);

create table if not exists public.langgraph_checkpoint_writes (
  thread_key    text collate "C" not null,
  checkpoint_ns text collate "C" not null default '',
  checkpoint_id text collate "C" not null,
  task_id       text collate "C" not null,
  task_path     text collate "C" not null default '',
  idx           integer not null,
  channel       text collate "C" not null,
  type          text,
  blob          bytea not null,
  utf8          boolean not null default false,
  created_at    timestamptz not null default now(),
  thread_id     text collate "C" not null,
  tenant_id     uuid not null,
  primary key (thread_key, checkpoint_ns, checkpoint_id, task_id, idx)
);

comment on table public.langgraph_checkpoints is
  'LangGraph checkpoints (without channel_values; those live in langgraph_checkpoint_blobs). Written through rpc/langgraph_put. Thread ids: any text; deal workflows use cim-{dealId}-{cimId} and supervisor-{dealId}-{timestamp}.';
comment on table public.langgraph_checkpoint_blobs is
  'One serialized channel value per (thread, namespace, channel, version); type "empty" with a null blob marks a channel without a value.';
comment on table public.langgraph_checkpoint_writes is
  'Pending writes of a checkpoint, per task; idx is WRITES_IDX_MAP[channel] (-1..-4) for special channels, else the write''s position.';
comment on column public.langgraph_checkpoints.thread_key is
  'The thread id made global: ''<tenant uuid>/<thread_id>'' for a user''s thread, thread_id itself for the service tenant and shared scopes. thread_id and tenant_id follow from it.';
comment on column public.langgraph_checkpoints.metadata is
  'CheckpointMetadata (source, step, parents, ...). Filtered with @> by rpc/langgraph_list.';

-- Indexes ---------------------------------------------------------------------------------
-- get_tuple/list/delete of one thread use the primary keys; these serve the rest (a
-- thread's newest checkpoints across its namespaces; a tenant's across its threads).
create index if not exists langgraph_checkpoints_thread_idx
  on public.langgraph_checkpoints (thread_key, checkpoint_id desc);
create index if not exists langgraph_checkpoints_tenant_idx
  on public.langgraph_checkpoints (tenant_id, checkpoint_id desc);
create index if not exists langgraph_checkpoints_created_at_idx
  on public.langgraph_checkpoints (created_at);
create index if not exists langgraph_checkpoints_metadata_idx
  on public.langgraph_checkpoints using gin (metadata jsonb_path_ops);
create index if not exists langgraph_checkpoint_blobs_tenant_idx
  on public.langgraph_checkpoint_blobs (tenant_id);
create index if not exists langgraph_checkpoint_writes_tenant_idx
  on public.langgraph_checkpoint_writes (tenant_id);

-- Triggers, row-level security and grants -------------------------------------------------
do $$
declare
  t text;
begin
  foreach t in array array['langgraph_checkpoints', 'langgraph_checkpoint_blobs', 'langgraph_checkpoint_writes'] loop
    execute format('drop trigger if exists derive_thread on public.%I', t);
    -- Every update, not only of thread_key: a direct UPDATE of tenant_id or thread_id
    -- must not make them disagree with thread_key.
    execute format('create trigger derive_thread before insert or update on public.%I
                      for each row execute function agentmem.thread_row_derive()', t);
    -- The caller's own tenant first: InitPlans run when first needed, so the shared scopes
    -- (a membership query with the deal-scope option) are looked up only for rows that
    -- are not the caller's own.
    perform agentmem.protect(format('public.%I', t)::regclass, 'tenant_id',
                             'tenant_id = (select agentmem.tenant()) or tenant_id = any ((select agentmem.thread_tenants())::uuid[])',
                             p_immutable => '{thread_id}');
  end loop;
end
$$;

select agentmem.ensure_check('public.langgraph_checkpoints', 'langgraph_checkpoints_ids_check',
  'char_length(thread_id) <= 255 and char_length(checkpoint_ns) <= 255 and char_length(checkpoint_id) <= 255
   and char_length(parent_checkpoint_id) <= 255
   and octet_length(thread_key) + octet_length(checkpoint_ns) + octet_length(checkpoint_id) <= 2400');
select agentmem.ensure_check('public.langgraph_checkpoint_blobs', 'langgraph_checkpoint_blobs_ids_check',
  'char_length(thread_id) <= 255 and char_length(checkpoint_ns) <= 255 and char_length(channel) <= 255
   and char_length(version) <= 255
   and octet_length(thread_key) + octet_length(checkpoint_ns) + octet_length(channel) + octet_length(version) <= 2400');
select agentmem.ensure_check('public.langgraph_checkpoint_writes', 'langgraph_checkpoint_writes_ids_check',
  'char_length(thread_id) <= 255 and char_length(checkpoint_ns) <= 255 and char_length(checkpoint_id) <= 255
   and char_length(task_id) <= 255 and char_length(channel) <= 255 and char_length(task_path) <= 2000
   and octet_length(thread_key) + octet_length(checkpoint_ns) + octet_length(checkpoint_id) + octet_length(task_id) <= 2400');
-- convert_from raises 22021 for bytes that are not UTF-8: the write fails, not a later read.
select agentmem.ensure_check('public.langgraph_checkpoint_blobs', 'langgraph_checkpoint_blobs_utf8_check',
  'not utf8 or blob is null or convert_from(blob, ''UTF8'') is not null');
select agentmem.ensure_check('public.langgraph_checkpoint_writes', 'langgraph_checkpoint_writes_utf8_check',
  'not utf8 or convert_from(blob, ''UTF8'') is not null');

-- Threads ---------------------------------------------------------------------------------
-- One row per thread (its root namespace, ''): the latest checkpoint (greatest
-- checkpoint_id) and its metadata, how many checkpoints the thread has, when it last got a
-- new one, and the text of its last human and AI messages when the writer sent them
-- (AgentmemSaver does, from the state's `messages`). Kept by triggers on
-- langgraph_checkpoints, so every writer (the RPCs, PostgresSaver through
-- langgraph_postgres_saver.sql, retention, deletes) keeps it right, and listing a user's
-- threads reads one index range, however long the threads are.
do $$
declare
  v_new boolean := to_regclass('public.langgraph_threads') is null;
begin
  create table if not exists public.langgraph_threads (
    thread_key       text collate "C" primary key,
    tenant_id        uuid not null,
    thread_id        text collate "C" not null,
    checkpoint_id    text collate "C" not null,
    metadata         jsonb not null default '{}'::jsonb,
    checkpoint_count integer not null default 0,
    last_human       text constraint langgraph_threads_last_human_check check (char_length(last_human) <= 2000),
    last_ai          text constraint langgraph_threads_last_ai_check check (char_length(last_ai) <= 2000),
    created_at       timestamptz not null default now(),
    updated_at       timestamptz not null default now()
  );
  if v_new then
    -- An install that predates the table: its threads, once.
    insert into public.langgraph_threads (thread_key, tenant_id, thread_id, checkpoint_id, metadata, checkpoint_count,
                                          created_at, updated_at)
    select distinct on (c.thread_key) c.thread_key, c.tenant_id, c.thread_id, c.checkpoint_id, c.metadata,
           count(*) over (partition by c.thread_key), min(c.created_at) over (partition by c.thread_key),
           max(c.created_at) over (partition by c.thread_key)
      from public.langgraph_checkpoints c
     where c.checkpoint_ns = ''
     order by c.thread_key, c.checkpoint_id desc;
  end if;
end
$$;
comment on table public.langgraph_threads is
  'One row per LangGraph thread (root namespace): latest checkpoint, its metadata, checkpoint count, last human/AI message text. Kept by triggers on langgraph_checkpoints; read through rpc/langgraph_list_threads.';
create index if not exists langgraph_threads_recent_idx on public.langgraph_threads (tenant_id, updated_at desc, thread_key);
select agentmem.protect('public.langgraph_threads', 'tenant_id',
                        'tenant_id = (select agentmem.tenant()) or tenant_id = any ((select agentmem.thread_tenants())::uuid[])',
                        p_immutable => '{thread_id}');

-- A new root checkpoint: the thread's row counts it, and takes it as the latest when its id
-- is the greatest (a put of an older fork does not move the head).
create or replace function agentmem.langgraph_thread_added()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  insert into public.langgraph_threads as t (thread_key, tenant_id, thread_id, checkpoint_id, metadata, checkpoint_count)
  values (new.thread_key, new.tenant_id, new.thread_id, new.checkpoint_id, new.metadata, 1)
  on conflict (thread_key) do update set
    checkpoint_count = t.checkpoint_count + 1,
    checkpoint_id = greatest(t.checkpoint_id, excluded.checkpoint_id),
    metadata = case when excluded.checkpoint_id > t.checkpoint_id then excluded.metadata else t.metadata end,
    last_human = case when excluded.checkpoint_id > t.checkpoint_id then null else t.last_human end,
    last_ai = case when excluded.checkpoint_id > t.checkpoint_id then null else t.last_ai end,
    updated_at = pg_catalog.now();
  return null;
end;
$$;

-- Deleted root checkpoints (a thread deleted, retention): each affected thread's row
-- recounted, its head recomputed when it went, gone with its last checkpoint.
create or replace function agentmem.langgraph_threads_removed()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  with touched as (
    select distinct g.thread_key from gone g where g.checkpoint_ns = ''
  ), now_there as (
    select t.thread_key, h.checkpoint_id, h.metadata, n.count
      from touched t
      cross join lateral (select count(*)::integer as count from public.langgraph_checkpoints c
                           where c.thread_key = t.thread_key and c.checkpoint_ns = '') n
      left join lateral (select c.checkpoint_id, c.metadata from public.langgraph_checkpoints c
                          where c.thread_key = t.thread_key and c.checkpoint_ns = ''
                          order by c.checkpoint_id desc limit 1) h on true
  ), emptied as (
    delete from public.langgraph_threads r using now_there x
     where r.thread_key = x.thread_key and x.count = 0
  )
  update public.langgraph_threads r set
    checkpoint_count = x.count,
    checkpoint_id = x.checkpoint_id,
    metadata = x.metadata,
    last_human = case when r.checkpoint_id = x.checkpoint_id then r.last_human end,
    last_ai = case when r.checkpoint_id = x.checkpoint_id then r.last_ai end
    from now_there x
   where r.thread_key = x.thread_key and x.count > 0;
  return null;
end;
$$;

drop trigger if exists langgraph_thread_added on public.langgraph_checkpoints;
create trigger langgraph_thread_added after insert on public.langgraph_checkpoints
  for each row when (new.checkpoint_ns = '') execute function agentmem.langgraph_thread_added();
drop trigger if exists langgraph_threads_removed on public.langgraph_checkpoints;
create trigger langgraph_threads_removed after delete on public.langgraph_checkpoints
  referencing old table as gone for each statement execute function agentmem.langgraph_threads_removed();

-- Helpers ---------------------------------------------------------------------------------
-- A stored value as the RPCs answer it: `text` for a value that arrived as text, else
-- standard base64 `blob` (null for an "empty" channel). Stable, as convert_from and
-- jsonb_build_object are: the planner inlines it into the reads then (an immutable function
-- calling stable ones is run as a function call per value, the most of a read of many
-- pending writes).
create or replace function agentmem.langgraph_value(p_blob bytea, p_utf8 boolean)
returns jsonb
language sql
stable
as $$
  select case when p_utf8 then jsonb_build_object('text', convert_from(p_blob, 'UTF8'))
              else jsonb_build_object('blob', translate(encode(p_blob, 'base64'), E'\n', '')) end
$$;

-- A pending write as a read answers it: [task_id, channel, type, text, blob, task_path],
-- the value as text (a value stored as text) or base64 (else), the other null. An array
-- rather than an object: a checkpoint may carry hundreds of writes, and an object's keys
-- cost both sides (jsonb sorts them here, the client builds a map of them) for no
-- information; idx only orders them, which the aggregate does. Stable, as
-- langgraph_value and for its reason: declared immutable, it ran as a function call per
-- write (pg_stat_statements: 400 calls per read of 400 writes), a quarter of that read.
create or replace function agentmem.langgraph_write(p_task_id text, p_channel text, p_type text, p_blob bytea, p_utf8 boolean,
                                                    p_task_path text)
returns jsonb
language sql
stable
as $$
  select jsonb_build_array(p_task_id, p_channel, p_type,
                           case when p_utf8 then convert_from(p_blob, 'UTF8') end,
                           case when not p_utf8 then translate(encode(p_blob, 'base64'), E'\n', '') end,
                           p_task_path)
$$;

-- The pending sends of checkpoints older than format v4: the '__pregel_tasks' writes of
-- their parent, in task order.
create or replace function agentmem.langgraph_pending_sends(p_thread_key text, p_checkpoint_ns text, p_parent_id text)
returns jsonb
language sql
stable
as $$
  select coalesce(jsonb_agg(jsonb_build_object('type', w.type) || agentmem.langgraph_value(w.blob, w.utf8)
                            order by w.task_path, w.task_id, w.idx), '[]'::jsonb)
    from public.langgraph_checkpoint_writes w
   where w.thread_key = p_thread_key
     and w.checkpoint_ns = p_checkpoint_ns
     and w.checkpoint_id = p_parent_id
     and w.channel = '__pregel_tasks'
$$;

-- Checkpoint rows, in answer order, as the JSON that get_tuple/list return, under the
-- thread id the caller used (p_thread_id), or each row's own when the caller named none.
-- Each (thread, namespace, channel, version) value is sent once per answer, with the
-- first row that needs it; later rows list it under 'refs' (a list of ten large
-- checkpoints repeats mostly unchanged channels). One statement for the whole answer: the
-- row-level security checks of the blob and write lookups run once, not once per row.
create or replace function agentmem.langgraph_tuples(p_rows public.langgraph_checkpoints[], p_thread_id text)
returns setof jsonb
language sql
stable
as $$
  with page as (
    select p_rows[n] as c, n from generate_subscripts(p_rows, 1) n
  ), versions as (
    select p.n, v.key as channel, v.value as version,
           row_number() over (partition by (p.c).thread_key, (p.c).checkpoint_ns, v.key, v.value order by p.n) as nth
      from page p,
           jsonb_each_text(case when jsonb_typeof((p.c).checkpoint -> 'channel_versions') = 'object'
                                then (p.c).checkpoint -> 'channel_versions' end) v
  )
  select jsonb_build_object(
    'thread_id', coalesce(p_thread_id, (p.c).thread_id),
    'checkpoint_ns', (p.c).checkpoint_ns,
    'checkpoint_id', (p.c).checkpoint_id,
    'parent_checkpoint_id', (p.c).parent_checkpoint_id,
    'type', (p.c).type,
    'checkpoint', (p.c).checkpoint,
    'metadata', (p.c).metadata,
    -- One primary-key lookup per channel: the thread may hold thousands of blobs. (LIMIT
    -- keeps the planner from turning the lookups into a hash join over all of them.)
    'blobs', coalesce((
      select jsonb_agg(jsonb_build_object('channel', b.channel, 'version', b.version, 'type', b.type)
                       || agentmem.langgraph_value(b.blob, b.utf8))
        from versions v
        cross join lateral (
          select * from public.langgraph_checkpoint_blobs b
           where b.thread_key = (p.c).thread_key
             and b.checkpoint_ns = (p.c).checkpoint_ns
             and b.channel = v.channel collate "C"
             and b.version = v.version collate "C"
           limit 1) b
       where v.n = p.n and v.nth = 1), '[]'::jsonb),
    'refs', coalesce((
      select jsonb_agg(jsonb_build_object('channel', v.channel, 'version', v.version) order by v.channel)
        from versions v
       where v.n = p.n and v.nth > 1), '[]'::jsonb),
    'writes', coalesce((
      select jsonb_agg(agentmem.langgraph_write(w.task_id, w.channel, w.type, w.blob, w.utf8, w.task_path)
             order by w.task_path, w.task_id, w.idx)
        from public.langgraph_checkpoint_writes w
       where w.thread_key = (p.c).thread_key
         and w.checkpoint_ns = (p.c).checkpoint_ns
         and w.checkpoint_id = (p.c).checkpoint_id), '[]'::jsonb),
    -- Only for checkpoints older than format v4 that have a parent (LangGraph then moves
    -- the parent's '__pregel_tasks' writes into channel_values); '[]' otherwise. A
    -- function call rather than a subquery: a subquery's plan is set up on every call,
    -- even when the CASE never reaches it.
    'pending_sends', case
      when (p.c).parent_checkpoint_id is not null
       and jsonb_typeof((p.c).checkpoint -> 'v') = 'number'
       and ((p.c).checkpoint ->> 'v')::numeric < 4
      then agentmem.langgraph_pending_sends((p.c).thread_key, (p.c).checkpoint_ns, (p.c).parent_checkpoint_id)
      else '[]'::jsonb
    end
  )
  from page p
  order by p.n
$$;

-- One checkpoint row as langgraph_tuples answers it alone (every value under 'blobs', no
-- 'refs'), for getTuple: a plain statement per lookup, without the page, the window over
-- the versions and the array of rows a list needs (a third of the time of a small read).
-- The lookups run as the caller, under row-level security, like langgraph_tuples'.
create or replace function agentmem.langgraph_tuple(p_row public.langgraph_checkpoints, p_thread_id text)
returns jsonb
language sql
stable
as $$
  select jsonb_build_object(
    'thread_id', coalesce(p_thread_id, p_row.thread_id),
    'checkpoint_ns', p_row.checkpoint_ns,
    'checkpoint_id', p_row.checkpoint_id,
    'parent_checkpoint_id', p_row.parent_checkpoint_id,
    'type', p_row.type,
    'checkpoint', p_row.checkpoint,
    'metadata', p_row.metadata,
    'blobs', coalesce((
      select jsonb_agg(jsonb_build_object('channel', b.channel, 'version', b.version, 'type', b.type)
                       || agentmem.langgraph_value(b.blob, b.utf8) order by v.key collate "C")
        from jsonb_each_text(case when jsonb_typeof(p_row.checkpoint -> 'channel_versions') = 'object'
                                  then p_row.checkpoint -> 'channel_versions' end) v
        cross join lateral (
          select * from public.langgraph_checkpoint_blobs b
           where b.thread_key = p_row.thread_key
             and b.checkpoint_ns = p_row.checkpoint_ns
             and b.channel = v.key collate "C"
             and b.version = v.value collate "C"
           limit 1) b), '[]'::jsonb),
    'refs', '[]'::jsonb,
    'writes', coalesce((
      select jsonb_agg(agentmem.langgraph_write(w.task_id, w.channel, w.type, w.blob, w.utf8, w.task_path)
             order by w.task_path, w.task_id, w.idx)
        from public.langgraph_checkpoint_writes w
       where w.thread_key = p_row.thread_key
         and w.checkpoint_ns = p_row.checkpoint_ns
         and w.checkpoint_id = p_row.checkpoint_id), '[]'::jsonb),
    'pending_sends', case
      when p_row.parent_checkpoint_id is not null
       and jsonb_typeof(p_row.checkpoint -> 'v') = 'number'
       and (p_row.checkpoint ->> 'v')::numeric < 4
      then agentmem.langgraph_pending_sends(p_row.thread_key, p_row.checkpoint_ns, p_row.parent_checkpoint_id)
      else '[]'::jsonb
    end)
$$;

-- Insert-once rows (blobs, pending writes): a second write of the same key with the same
-- content is a no-op (a retried request), with other content a conflict (23505 → HTTP
-- 409), never a silent keep-the-first: an acknowledged write always reads back as written.
-- Called from an ON CONFLICT ... DO UPDATE ... WHERE clause, which it ends.
create or replace function agentmem.langgraph_conflict(p_what text)
returns boolean
language plpgsql
as $$
begin
  raise exception 'agentmem: % is already stored with other content', p_what
    using errcode = '23505',
          hint = 'a value, once written at a version, never changes: write it at a new version (another writer may have used this one)';
end;
$$;

-- The ids of one checkpoint value or pending write: each at most 255 characters, and all
-- together small enough for their primary key's index entry (whose limit, 2,704 bytes,
-- would otherwise surface as an internal error).
create or replace function agentmem.langgraph_check_key(p_fn text, p_key text, variadic p_parts text[])
returns void
language plpgsql
immutable
as $$
declare
  v_bytes integer := octet_length(p_key);
  v_names text[] := '{}';
  n integer;
begin
  -- p_parts: name, value, name, value, ...
  for n in 1 .. coalesce(array_length(p_parts, 1), 0) by 2 loop
    perform agentmem.check_id(p_fn || ': ' || p_parts[n], p_parts[n + 1]);
    v_bytes := v_bytes + octet_length(p_parts[n + 1]);
    v_names := v_names || p_parts[n];
  end loop;
  if v_bytes > 2400 then
    raise exception '%: the thread id and % are more than 2,400 bytes of UTF-8 together', p_fn, array_to_string(v_names, ', ')
      using errcode = '22023';
  end if;
end;
$$;

-- RPC: put --------------------------------------------------------------------------------
-- p_blobs: [{channel, version, type, blob | text}] for the channels in newVersions; blob is
-- base64 or null (type "empty"), text a value that is text (stored as its UTF-8 bytes).
-- A (channel, version) already stored with the same value is kept; with another value the
-- put fails (23505, agentmem.langgraph_conflict) and writes nothing. p_preview: {"human":
-- text, "ai": text}, the last human and AI messages of the state (each at most 2,000
-- characters), kept on the thread's langgraph_threads row while this checkpoint is its head.
-- (The signature before p_preview, when re-running this file over an older one.)
drop function if exists public.langgraph_put(text, text, text, text, text, jsonb, jsonb, jsonb);
create or replace function public.langgraph_put(
  p_thread_id text,
  p_checkpoint_ns text,
  p_checkpoint_id text,
  p_parent_checkpoint_id text,
  p_type text,
  p_checkpoint jsonb,
  p_metadata jsonb,
  p_blobs jsonb,
  p_preview jsonb default null
)
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
-- Its statements planned once per connection, whatever the plan cache would guess (see
-- langgraph_list).
set plan_cache_mode = force_generic_plan
as $$
declare
  v_ns text := coalesce(p_checkpoint_ns, '');
  v_key text;
  v_malformed boolean;
  v_off_version boolean;
  v_twice boolean;
  v_chars integer;
  v_bytes integer;
begin
  if p_thread_id is null or p_thread_id = '' then
    raise exception 'langgraph_put: p_thread_id is required' using errcode = '22023';
  end if;
  if p_checkpoint_id is null or p_checkpoint_id = '' then
    raise exception 'langgraph_put: p_checkpoint_id is required' using errcode = '22023';
  end if;
  if p_checkpoint is null or jsonb_typeof(p_checkpoint) <> 'object' then
    raise exception 'langgraph_put: p_checkpoint must be a JSON object' using errcode = '22023';
  end if;
  if jsonb_typeof(p_checkpoint -> 'channel_versions') not in ('object', 'null') then
    raise exception 'langgraph_put: p_checkpoint.channel_versions must be an object'
      using errcode = '22023';
  end if;
  if p_metadata is not null and jsonb_typeof(p_metadata) <> 'object' then
    raise exception 'langgraph_put: p_metadata must be a JSON object' using errcode = '22023';
  end if;
  if p_blobs is not null and jsonb_typeof(p_blobs) <> 'array' then
    raise exception 'langgraph_put: p_blobs must be a JSON array' using errcode = '22023';
  end if;
  -- Every check of the p_blobs elements in one pass over them (each is a statement of its
  -- own otherwise, the most of a small put's validation); the errors are raised below in
  -- the order the checks are listed. (->> of a key is null, never an error, on an
  -- element that is no object.)
  select coalesce(bool_or(jsonb_typeof(b) <> 'object'
                          or jsonb_typeof(b -> 'channel') is distinct from 'string'
                          or coalesce(jsonb_typeof(b -> 'version'), '') not in ('string', 'number')
                          or jsonb_typeof(b -> 'type') is distinct from 'string'
                          or coalesce(jsonb_typeof(b -> 'blob'), 'null') not in ('string', 'null')
                          or coalesce(jsonb_typeof(b -> 'text'), 'null') not in ('string', 'null')
                          or (b ->> 'blob' is not null and b ->> 'text' is not null)), false),
         -- A value is stored for the version the checkpoint gives its channel, and only
         -- with that checkpoint: no blob waits at a version no checkpoint refers to (it
         -- would make a later put of that version a conflict).
         coalesce(bool_or((p_checkpoint -> 'channel_versions' ->> (b ->> 'channel')) is distinct from (b ->> 'version')), false),
         count(*) <> count(distinct (b ->> 'channel', b ->> 'version')),
         coalesce(max(greatest(char_length(b ->> 'channel'), char_length(b ->> 'version'))), 0),
         coalesce(max(octet_length(b ->> 'channel') + octet_length(b ->> 'version')), 0)
    into v_malformed, v_off_version, v_twice, v_chars, v_bytes
    from jsonb_array_elements(coalesce(p_blobs, '[]'::jsonb)) b;
  if v_malformed then
    raise exception 'langgraph_put: every p_blobs element needs channel, version, type (and blob: base64 or null, or text)'
      using errcode = '22023';
  end if;
  if v_off_version then
    raise exception 'langgraph_put: every p_blobs element must be at the version p_checkpoint.channel_versions gives its channel'
      using errcode = '22023';
  end if;
  if p_preview is not null
     and (jsonb_typeof(p_preview) <> 'object'
          or coalesce(jsonb_typeof(p_preview -> 'human'), 'null') not in ('string', 'null')
          or coalesce(jsonb_typeof(p_preview -> 'ai'), 'null') not in ('string', 'null')
          or char_length(p_preview ->> 'human') > 2000 or char_length(p_preview ->> 'ai') > 2000) then
    raise exception 'langgraph_put: p_preview must be {"human": text, "ai": text} of at most 2000 characters each'
      using errcode = '22023';
  end if;
  v_key := agentmem.thread_write_key(p_thread_id);
  -- The bounds of the ids, from the lengths gathered above; only when one is over do the
  -- checks of each id run, in order, to name it.
  if char_length(v_ns) > 255 or char_length(p_checkpoint_id) > 255 or char_length(p_parent_checkpoint_id) > 255
     or v_chars > 255
     or octet_length(v_key) + octet_length(v_ns) + greatest(octet_length(p_checkpoint_id), v_bytes) > 2400 then
    perform agentmem.langgraph_check_key('langgraph_put', v_key, 'p_checkpoint_ns', v_ns, 'p_checkpoint_id', p_checkpoint_id);
    perform agentmem.check_id('langgraph_put: p_parent_checkpoint_id', coalesce(p_parent_checkpoint_id, ''));
    perform agentmem.langgraph_check_key('langgraph_put', v_key, 'p_checkpoint_ns', v_ns,
                                         'channel', b ->> 'channel', 'version', b ->> 'version')
       from jsonb_array_elements(coalesce(p_blobs, '[]'::jsonb)) b;
  end if;
  if v_twice then
    raise exception 'langgraph_put: p_blobs names one channel at one version twice' using errcode = '22023';
  end if;

  insert into public.langgraph_checkpoint_blobs as x (thread_key, checkpoint_ns, channel, version, type, blob, utf8)
  select v_key, v_ns, b ->> 'channel', b ->> 'version', b ->> 'type',
         coalesce(convert_to(b ->> 'text', 'UTF8'), decode(b ->> 'blob', 'base64')), b ? 'text'
    from jsonb_array_elements(coalesce(p_blobs, '[]'::jsonb)) b
  on conflict (thread_key, checkpoint_ns, channel, version) do update set type = excluded.type
   where case when (x.type, x.blob) is distinct from (excluded.type, excluded.blob)
              then agentmem.langgraph_conflict(format('channel %s at version %s', quote_literal(excluded.channel),
                                                      quote_literal(excluded.version)))
              else false end;

  insert into public.langgraph_checkpoints as x
    (thread_key, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata)
  values
    (v_key, v_ns, p_checkpoint_id, p_parent_checkpoint_id, p_type,
     p_checkpoint - 'channel_values', coalesce(p_metadata, '{}'::jsonb))
  on conflict (thread_key, checkpoint_ns, checkpoint_id) do update set type = excluded.type
   where case when (x.parent_checkpoint_id, x.type, x.checkpoint, x.metadata)
                   is distinct from (excluded.parent_checkpoint_id, excluded.type, excluded.checkpoint, excluded.metadata)
              then agentmem.langgraph_conflict(format('checkpoint %s', quote_literal(excluded.checkpoint_id)))
              else false end;
  if p_preview is not null and v_ns = '' then
    update public.langgraph_threads t
       set last_human = p_preview ->> 'human', last_ai = p_preview ->> 'ai'
     where t.thread_key = v_key and t.checkpoint_id = p_checkpoint_id;
  end if;

  return jsonb_build_object('thread_id', p_thread_id, 'checkpoint_ns', v_ns,
                            'checkpoint_id', p_checkpoint_id);
end
$$;

-- RPC: put_writes -------------------------------------------------------------------------
-- p_writes: [{idx, channel, type, blob | text}] in the task's order; blob is base64, text a
-- value that is text. idx may be
-- omitted: it then defaults to WRITES_IDX_MAP[channel] or the element's position (0-based).
-- All channels special (__error__, __scheduled__, __interrupt__, __resume__): upsert (the
-- last element wins for a repeated idx); otherwise insert-once: a write already stored
-- with the same content is kept, with other content the call fails (23505) and writes nothing.
create or replace function public.langgraph_put_writes(
  p_thread_id text,
  p_checkpoint_ns text,
  p_checkpoint_id text,
  p_task_id text,
  p_task_path text,
  p_writes jsonb
)
returns integer
language plpgsql
volatile
security definer
set search_path = ''
-- Its statements planned once per connection, whatever the plan cache would guess (see
-- langgraph_list).
set plan_cache_mode = force_generic_plan
as $$
declare
  v_ns text := coalesce(p_checkpoint_ns, '');
  v_path text := coalesce(p_task_path, '');
  v_special constant text[] := array['__error__', '__scheduled__', '__interrupt__', '__resume__'];
  v_all_special boolean;
  v_malformed boolean;
  v_twice boolean;
  v_chars integer;
  v_key text;
  v_count integer;
begin
  if p_thread_id is null or p_thread_id = '' then
    raise exception 'langgraph_put_writes: p_thread_id is required' using errcode = '22023';
  end if;
  if p_checkpoint_id is null or p_checkpoint_id = '' then
    raise exception 'langgraph_put_writes: p_checkpoint_id is required' using errcode = '22023';
  end if;
  if p_task_id is null then
    raise exception 'langgraph_put_writes: p_task_id is required' using errcode = '22023';
  end if;
  if p_writes is null or jsonb_typeof(p_writes) <> 'array' then
    raise exception 'langgraph_put_writes: p_writes must be a JSON array' using errcode = '22023';
  end if;
  -- Every check of the p_writes elements in one pass over them, as in langgraph_put. Two
  -- writes at one idx are found with the idx as numeric, which no JSON number fails to be;
  -- the idx as integer (what the rows store) is checked again below only when there are.
  select coalesce(bool_or(jsonb_typeof(w) <> 'object'
                          or jsonb_typeof(w -> 'channel') is distinct from 'string'
                          or coalesce(jsonb_typeof(w -> 'type'), 'null') not in ('string', 'null')
                          or (jsonb_typeof(w -> 'blob') is distinct from 'string') = (jsonb_typeof(w -> 'text') is distinct from 'string')
                          or coalesce(jsonb_typeof(w -> 'idx'), 'null') not in ('number', 'null')), false),
         bool_and((w ->> 'channel') = any (v_special)),
         count(*) <> count(distinct coalesce(case when jsonb_typeof(w -> 'idx') = 'number' then (w ->> 'idx')::numeric end,
                                             -array_position(v_special, w ->> 'channel'), o - 1)),
         coalesce(max(char_length(w ->> 'channel')), 0)
    into v_malformed, v_all_special, v_twice, v_chars
    from jsonb_array_elements(p_writes) with ordinality as e(w, o);
  if v_malformed then
    raise exception 'langgraph_put_writes: every p_writes element needs channel, type, blob (base64) or text, and optionally idx'
      using errcode = '22023';
  end if;
  v_key := agentmem.thread_write_key(p_thread_id);
  -- The bounds, from the lengths gathered above; only when one is over do the checks of
  -- each id run, in order, to name it.
  if char_length(v_ns) > 255 or char_length(p_checkpoint_id) > 255 or char_length(p_task_id) > 255
     or octet_length(v_key) + octet_length(v_ns) + octet_length(p_checkpoint_id) + octet_length(p_task_id) > 2400
     or char_length(v_path) > 2000 or v_chars > 255 then
    perform agentmem.langgraph_check_key('langgraph_put_writes', v_key, 'p_checkpoint_ns', v_ns,
                                         'p_checkpoint_id', p_checkpoint_id, 'p_task_id', p_task_id);
    perform agentmem.check_id('langgraph_put_writes: p_task_path', v_path, 2000);
    perform agentmem.check_id('langgraph_put_writes: channel', w ->> 'channel')
       from jsonb_array_elements(p_writes) w;
  end if;
  if jsonb_array_length(p_writes) = 0 then
    return 0;
  end if;

  if v_all_special then
    insert into public.langgraph_checkpoint_writes
      (thread_key, checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel, type, blob, utf8)
    select distinct on (x.idx)
           v_key, v_ns, p_checkpoint_id, p_task_id, v_path, x.idx, x.channel, x.type,
           coalesce(convert_to(x.text, 'UTF8'), decode(x.blob, 'base64')), x.text is not null
      from (select coalesce((w ->> 'idx')::integer,
                            -array_position(v_special, w ->> 'channel')) as idx,
                   w ->> 'channel' as channel, w ->> 'type' as type, w ->> 'blob' as blob,
                   w ->> 'text' as text, o
              from jsonb_array_elements(p_writes) with ordinality as e(w, o)) x
     order by x.idx, x.o desc
    on conflict (thread_key, checkpoint_ns, checkpoint_id, task_id, idx) do update set
      channel = excluded.channel,
      type = excluded.type,
      blob = excluded.blob,
      utf8 = excluded.utf8,
      task_path = excluded.task_path;
  else
    if v_twice and exists (select 1 from jsonb_array_elements(p_writes) with ordinality as e(w, o)
                            group by coalesce((w ->> 'idx')::integer, -array_position(v_special, w ->> 'channel'), (o - 1)::integer)
                           having count(*) > 1) then
      raise exception 'langgraph_put_writes: p_writes has two writes at one idx' using errcode = '22023';
    end if;
    insert into public.langgraph_checkpoint_writes as x
      (thread_key, checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel, type, blob, utf8)
    select v_key, v_ns, p_checkpoint_id, p_task_id, v_path,
           coalesce((w ->> 'idx')::integer,
                    -array_position(v_special, w ->> 'channel'),
                    (o - 1)::integer),
           w ->> 'channel', w ->> 'type',
           coalesce(convert_to(w ->> 'text', 'UTF8'), decode(w ->> 'blob', 'base64')), w ? 'text'
      from jsonb_array_elements(p_writes) with ordinality as e(w, o)
     order by o
    on conflict (thread_key, checkpoint_ns, checkpoint_id, task_id, idx) do update set type = excluded.type
     where case when (x.channel, x.type, x.blob) is distinct from (excluded.channel, excluded.type, excluded.blob)
                then agentmem.langgraph_conflict(format('the pending write %s of task %s', excluded.idx,
                                                        quote_literal(excluded.task_id)))
                else false end;
  end if;
  get diagnostics v_count = row_count;
  return v_count;
end
$$;

-- RPC: get_tuple --------------------------------------------------------------------------
-- The checkpoint p_checkpoint_id of (thread, namespace), or the latest one (greatest
-- checkpoint_id) when p_checkpoint_id is null; null when there is none.
create or replace function public.langgraph_get_tuple(
  p_thread_id text,
  p_checkpoint_ns text default '',
  p_checkpoint_id text default null
)
returns jsonb
language plpgsql
stable
security invoker
set search_path = ''
-- A thread's newest rows come from an ordered index scan that stops after the first. The
-- planner's row estimate for one thread is the table's average; for a long thread in a
-- table whose statistics predate its growth it is far too low, and a bitmap scan then
-- reads and sorts the whole thread (9 ms instead of 0.5 ms at 3,000 checkpoints). The
-- pending writes of each checkpoint read come from the primary key too: while the writes
-- table is small, the planner takes the per-checkpoint lookup for a sequential scan of
-- every tenant's writes (0.35 ms per checkpoint at 1,200 writes, growing with the table).
set enable_bitmapscan = off
set enable_seqscan = off
-- Planned once per connection (see langgraph_list): left to choose, the plan cache at times
-- planned the read again on every call, 320 µs of planning for a 200 µs read.
set plan_cache_mode = force_generic_plan
as $$
declare
  v_ns text := coalesce(p_checkpoint_ns, '');
  v_key text := agentmem.thread_key(p_thread_id);
  v_result jsonb;
begin
  if p_checkpoint_id is not null then
    select agentmem.langgraph_tuple(c, p_thread_id) into v_result
      from public.langgraph_checkpoints c
     where c.thread_key = v_key and c.checkpoint_ns = v_ns and c.checkpoint_id = p_checkpoint_id;
  else
    select agentmem.langgraph_tuple(c, p_thread_id) into v_result
      from public.langgraph_checkpoints c
     where c.thread_key = v_key and c.checkpoint_ns = v_ns
     order by c.checkpoint_id desc
     limit 1;
  end if;
  return v_result;
end
$$;

-- RPC: list -------------------------------------------------------------------------------
-- Null arguments do not filter: p_thread_id null = every thread of the caller's tenant
-- (and of the scopes shared with them), p_checkpoint_ns null = every namespace. p_filter:
-- metadata @> p_filter. p_before: checkpoint_id < p_before. p_limit null = no limit (but
-- PostgREST's max-rows still caps the response). Newest first: checkpoint_id desc, then
-- thread, namespace.
create or replace function public.langgraph_list(
  p_thread_id text default null,
  p_checkpoint_ns text default null,
  p_checkpoint_id text default null,
  p_filter jsonb default null,
  p_before text default null,
  p_limit integer default null
)
returns setof jsonb
language plpgsql
stable
security invoker
set search_path = ''
-- as in langgraph_get_tuple: reads stay flat in thread length and in the writes table
set enable_bitmapscan = off
set enable_seqscan = off
-- The usual call's statement (below) planned once per connection. Left to choose, the plan
-- cache keeps planning it for each call's values (its estimate of the generic plan is
-- higher than a custom one's, though the plan is the same index scan): measured with
-- pg_stat_statements, 145-200 µs of planning per list(10), a third of its SQL time.
set plan_cache_mode = force_generic_plan
as $$
declare
  v_where text[] := array['true'];
  v_key text;
  v_tenants uuid[];
begin
  if p_limit < 0 then
    raise exception 'langgraph_list: p_limit must not be negative' using errcode = '22023';
  end if;
  if p_filter is not null and jsonb_typeof(p_filter) <> 'object' then
    raise exception 'langgraph_list: p_filter must be a JSON object' using errcode = '22023';
  end if;
  -- The usual call (a thread's newest checkpoints in one namespace, as LangGraph's list
  -- and getStateHistory ask): one static statement. Every other shape builds only the
  -- predicates it uses, planned for that call (a `before` among them: as an index
  -- condition it keeps a deep page flat in the thread's length).
  if p_thread_id is not null and p_checkpoint_ns is not null and p_checkpoint_id is null
     and (p_filter is null or p_filter = '{}'::jsonb) and p_before is null then
    v_key := agentmem.thread_key(p_thread_id);
    return query
      select t from agentmem.langgraph_tuples(array(
        select c from public.langgraph_checkpoints c
         where c.thread_key = v_key and c.checkpoint_ns = p_checkpoint_ns
         order by c.checkpoint_id desc, c.thread_id, c.checkpoint_ns limit p_limit), p_thread_id) t;
    return;
  end if;
  -- Only the predicates in use, so every call gets a plan for its own shape.
  if p_thread_id is not null then
    v_key := agentmem.thread_key(p_thread_id);
    v_where := array_append(v_where, 'c.thread_key = $1');
  else
    -- The caller's own tenant as an equality when it is the only one: the newest
    -- checkpoints are then the first of one range of langgraph_checkpoints_tenant_idx.
    -- (`= any` of a one-element array read all of the caller's checkpoints and sorted
    -- them: 40,000 rows for a page of 10.)
    v_tenants := agentmem.thread_tenants();
    v_where := array_append(v_where, case when cardinality(v_tenants) = 1 then 'c.tenant_id = $7[1]'
                                          else 'c.tenant_id = any ($7)' end);
  end if;
  if p_checkpoint_ns is not null then v_where := array_append(v_where, 'c.checkpoint_ns = $2'); end if;
  if p_checkpoint_id is not null then v_where := array_append(v_where, 'c.checkpoint_id = $3'); end if;
  if p_filter is not null and p_filter <> '{}'::jsonb then
    v_where := array_append(v_where, 'c.metadata @> $4');
  end if;
  if p_before is not null then v_where := array_append(v_where, 'c.checkpoint_id < $5'); end if;
  -- PostgREST may slice this answer into pages (max-rows): each page request computes the
  -- same order, so a value a row refers to is always on that page or an earlier one.
  return query execute
    'select t from agentmem.langgraph_tuples(array(
       select c from public.langgraph_checkpoints c where '
    || array_to_string(v_where, ' and ')
    || ' order by c.checkpoint_id desc, c.thread_id, c.checkpoint_ns limit $6), $8) t'
    using v_key, p_checkpoint_ns, p_checkpoint_id, p_filter, p_before, p_limit, v_tenants, p_thread_id;
end
$$;

-- A thread's row as langgraph_list_threads answers it. (Inlined where it is called: one
-- definition for the two statements that page the threads.)
create or replace function agentmem.langgraph_thread_summary(p public.langgraph_threads)
returns jsonb
language sql
stable
as $$
  select jsonb_build_object(
    'threadId', p.thread_id,
    'checkpointId', p.checkpoint_id,
    'metadata', p.metadata,
    'checkpointCount', p.checkpoint_count,
    'lastHumanMessage', p.last_human,
    'lastAiMessage', p.last_ai,
    'createdAt', p.created_at,
    'updatedAt', p.updated_at)
$$;

-- The least text above every text that starts with p_prefix in "C" order, or null when
-- there is none (p_prefix empty or all U+10FFFF): p_prefix up to its last character below
-- U+10FFFF, that character made the next one. So `k >= p and k < agentmem.prefix_end(p)`,
-- on a "C" key, is one range of its index that holds the keys starting with p and no
-- other. "C" compares bytes, which in UTF-8 is code point order (and no character's
-- encoding is the start of another's); the surrogates, which text cannot hold, are
-- skipped. In another server encoding: null, a range without an end.
create or replace function agentmem.prefix_end(p_prefix text)
returns text
language plpgsql
immutable
strict
as $$
declare
  v_at   integer := char_length(p_prefix);
  v_code integer;
begin
  if getdatabaseencoding() <> 'UTF8' then
    return null;
  end if;
  while v_at > 0 loop
    v_code := ascii(substr(p_prefix, v_at, 1));
    if v_code < 1114111 then
      return left(p_prefix, v_at - 1) || chr(case when v_code = 55295 then 57344 else v_code + 1 end);
    end if;
    v_at := v_at - 1;
  end loop;
  return null;
end;
$$;

-- RPC: list_threads ----------------------------------------------------------------------
-- The caller's threads (and those of the scopes shared with them), most recently written
-- first (then by id): each with its latest checkpoint and that checkpoint's metadata, how
-- many checkpoints the thread has, the last human and AI message text (null when the writer
-- sent none), and when it was created and last written. (The package adds the config
-- getTuple takes, the step and the source: not sent twice.) p_prefix: thread ids that start with it; p_filter: the latest checkpoint's
-- metadata @> p_filter; p_limit (1 to 1000, default 50) and p_offset page.
create or replace function public.langgraph_list_threads(
  p_prefix text default null,
  p_filter jsonb default null,
  p_limit integer default 50,
  p_offset integer default 0
)
returns setof jsonb
language plpgsql
stable
security invoker
set search_path = ''
-- A prefix's ranges are read through the primary key, whatever the statistics: neither a
-- bitmap of langgraph_threads_recent_idx (row-level security's OR) nor a sequential scan
-- reads all of the caller's threads instead.
set enable_bitmapscan = off
set enable_seqscan = off
-- The usual page's statement planned once per connection (see langgraph_list).
set plan_cache_mode = force_generic_plan
as $$
declare
  v_tenants  uuid[] := agentmem.thread_tenants();
  v_prefix   text := nullif(p_prefix, ''); -- every id starts with ''
  v_own      uuid;
  v_others   uuid[];
  v_tenant   uuid;
  v_scoped   boolean;
  v_starts   text[] := '{}';
  v_keyed    uuid[] := '{}';
  v_ends     text[] := '{}';
  v_filtered boolean[] := '{}';
  v_branches text[] := '{}';
  v_at       integer;
  v_lo       text;
  v_hi       text;
  v_filter   boolean;
  v_keys     text[];
begin
  if p_limit is not null and (p_limit < 1 or p_limit > 1000) then
    raise exception 'langgraph_list_threads: p_limit must be between 1 and 1000' using errcode = '22023';
  end if;
  if p_offset < 0 then
    raise exception 'langgraph_list_threads: p_offset must not be negative' using errcode = '22023';
  end if;
  if p_filter is not null and jsonb_typeof(p_filter) <> 'object' then
    raise exception 'langgraph_list_threads: p_filter must be a JSON object' using errcode = '22023';
  end if;
  perform agentmem.check_id('langgraph_list_threads: p_prefix', coalesce(p_prefix, ''));
  -- The usual page (the caller's own threads, no prefix, no filter): one static statement.
  if cardinality(v_tenants) = 1 and v_prefix is null and p_filter is null then
    return query
      select agentmem.langgraph_thread_summary(x.t)
        from (select t from public.langgraph_threads t where t.tenant_id = v_tenants[1]
               order by t.updated_at desc, t.thread_key limit coalesce(p_limit, 50) offset coalesce(p_offset, 0)) x
       order by (x.t).updated_at desc, (x.t).thread_key;
    return;
  end if;
  if v_prefix is null then
    -- Only the predicates in use (as langgraph_list), the caller's own tenant as an equality
    -- when it is the only one, so the page is one range of langgraph_threads_recent_idx; the
    -- answer's JSON is built for the page's rows only.
    return query execute
      'select agentmem.langgraph_thread_summary(x.t)
         from (select t from public.langgraph_threads t where '
      || case when cardinality(v_tenants) = 1 then 't.tenant_id = $1[1]' else 't.tenant_id = any ($1)' end
      || case when p_filter is not null then ' and t.metadata @> $3' else '' end
      || ' order by t.updated_at desc, t.thread_key limit $4 offset $5) x
        order by (x.t).updated_at desc, (x.t).thread_key'
      using v_tenants, v_prefix, p_filter, coalesce(p_limit, 50), coalesce(p_offset, 0);
    return;
  end if;
  -- A prefix: the threads whose keys start with it, read as ranges of the primary key
  -- (agentmem.prefix_end) and ordered then, so that a page reads the threads that match,
  -- however many others the caller has. (Read newest first through
  -- langgraph_threads_recent_idx, or sequentially, keeping those that match, a prefix few
  -- threads have read all of the caller's threads: 12 ms for 5 of 40,000.) A tenant's
  -- keys take three forms (agentmem.thread_row_derive): '<tenant>/<id>', the only one of
  -- a user's own threads; the bare id, the service tenant's and a shared scope's; and
  -- '00000000-0000-0000-0000-000000000000/<id>', a scope's should its hook claim such
  -- ids. A '<tenant>/' range holds that tenant's rows only; the two others any tenant's
  -- (a user's keys too, for a prefix of hex digits), so they are read only for the
  -- service tenant and the scopes, filtered by tenant. No other predicate names the
  -- tenant: one would let a plan read the caller's threads through
  -- langgraph_threads_recent_idx again.
  v_own := agentmem.tenant();
  for v_tenant in select distinct x from unnest(v_tenants) x where x <> agentmem.service_tenant() loop
    v_starts := v_starts || (v_tenant::text || '/' || v_prefix);
    v_keyed := v_keyed || v_tenant;
  end loop;
  v_filtered := array_fill(false, array[cardinality(v_starts)]);
  v_others := array(select distinct x from unnest(v_tenants) x where x <> v_own or x = agentmem.service_tenant());
  if cardinality(v_others) > 0 then
    v_scoped := exists (select from unnest(v_others) x where x <> agentmem.service_tenant());
    -- Two prefixes' ranges are disjoint unless one holds the other: a '<tenant>/' range
    -- within the bare one (a prefix such as '<tenant>/') is read as part of it, its tenant
    -- added to the filter, so that no row is read twice.
    for v_at in reverse cardinality(v_starts) .. 1 loop
      if starts_with(v_starts[v_at], v_prefix) then
        v_others := v_others || v_keyed[v_at];
        v_starts := v_starts[:v_at - 1] || v_starts[v_at + 1:];
        v_keyed := v_keyed[:v_at - 1] || v_keyed[v_at + 1:];
        v_filtered := v_filtered[:v_at - 1] || v_filtered[v_at + 1:];
      end if;
    end loop;
    v_starts := v_starts || v_prefix;
    v_filtered := v_filtered || true;
    if v_scoped and not starts_with(agentmem.service_tenant()::text || '/' || v_prefix, v_prefix) then
      v_starts := v_starts || (agentmem.service_tenant()::text || '/' || v_prefix);
      v_filtered := v_filtered || true;
    end if;
  end if;
  for v_at in 1 .. cardinality(v_starts) loop
    v_ends := v_ends || agentmem.prefix_end(v_starts[v_at]);
  end loop;
  -- One range (a user's own threads, or the service tenant's): one static statement,
  -- planned once per connection, without the planner's look at the index's ends that a
  -- range of known values costs when it lies beyond the statistics' (after a tenant's
  -- threads are deleted, through every dead entry there).
  if cardinality(v_starts) = 1 and v_ends[1] is not null then
    v_lo := v_starts[1];
    v_hi := v_ends[1];
    v_filter := v_filtered[1];
    -- A prefix most of the caller's threads have: the page is among their newest, which a
    -- walk of twice the page's length (offset included) finds first. (Read as a range, a
    -- prefix all of a caller's 40,000 threads have cost 31 ms a page; newest first, 0.5.)
    -- Found or not, the walk reads at most twice the page, beside a range that reads the
    -- threads that match. (The caller's keys start with v_lo exactly where their ids start
    -- with the prefix: '<tenant>/' and the prefix for a user, the prefix for the service
    -- tenant.)
    if v_tenants = array[v_own] then
      v_keys := array(
        select w.thread_key
          from (select t.thread_key, t.updated_at, t.metadata from public.langgraph_threads t
                 where t.tenant_id = v_own
                 order by t.updated_at desc, t.thread_key limit 2 * (coalesce(p_offset, 0) + coalesce(p_limit, 50))) w
         where starts_with(w.thread_key, v_lo) and (p_filter is null or w.metadata @> p_filter)
         order by w.updated_at desc, w.thread_key limit coalesce(p_offset, 0) + coalesce(p_limit, 50));
      if cardinality(v_keys) = coalesce(p_offset, 0) + coalesce(p_limit, 50) then
        -- (The page's keys in a variable: coalesce in the predicate is not leakproof, which
        -- keeps it out of the index under row-level security.)
        v_keys := v_keys[coalesce(p_offset, 0) + 1:];
        return query
          select agentmem.langgraph_thread_summary(t) from public.langgraph_threads t
           where t.thread_key = any (v_keys)
           order by t.updated_at desc, t.thread_key;
        return;
      end if;
    end if;
    return query
      select agentmem.langgraph_thread_summary(x.t)
        from (select t from public.langgraph_threads t
               where t.thread_key >= v_lo and t.thread_key < v_hi and starts_with(t.thread_id, v_prefix)
                 and (not v_filter or t.tenant_id = any (v_others)) and (p_filter is null or t.metadata @> p_filter)
               order by t.updated_at desc, t.thread_key limit coalesce(p_limit, 50) offset coalesce(p_offset, 0)) x
       order by (x.t).updated_at desc, (x.t).thread_key;
    return;
  end if;
  -- Several ranges (the caller's and the scopes'), or one without an end: each read alone.
  for v_at in 1 .. cardinality(v_starts) loop
    v_branches := v_branches || format(
      'select t from public.langgraph_threads t where t.thread_key >= $6[%1$s]%2$s and starts_with(t.thread_id, $2)%3$s%4$s',
      v_at,
      case when v_ends[v_at] is not null then format(' and t.thread_key < $7[%s]', v_at) else '' end,
      case when v_filtered[v_at] then ' and t.tenant_id = any ($8)' else '' end,
      case when p_filter is not null then ' and t.metadata @> $3' else '' end);
  end loop;
  return query execute
    'select agentmem.langgraph_thread_summary(x.t)
       from (select u.t from (' || array_to_string(v_branches, ' union all ') || ') u
              order by (u.t).updated_at desc, (u.t).thread_key limit $4 offset $5) x
      order by (x.t).updated_at desc, (x.t).thread_key'
    using v_tenants, v_prefix, p_filter, coalesce(p_limit, 50), coalesce(p_offset, 0), v_starts, v_ends, v_others;
end
$$;

comment on function public.langgraph_list_threads(text, jsonb, integer, integer) is
  'The caller''s LangGraph threads, most recently written first: latest checkpoint (and its config), step, source, metadata, checkpoint count, last human and AI message text. Filters: thread id prefix, metadata of the latest checkpoint; paged (p_limit 1..1000, p_offset).';

-- RPC: delete_thread ----------------------------------------------------------------------
-- Deletes the caller's thread in every namespace; returns how many rows were deleted
-- across the three tables (0 for a thread the caller does not have).
create or replace function public.langgraph_delete_thread(p_thread_id text)
returns integer
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_key text;
  v_count integer;
begin
  if p_thread_id is null then
    raise exception 'langgraph_delete_thread: p_thread_id is required' using errcode = '22023';
  end if;
  v_key := agentmem.thread_write_key(p_thread_id);
  with w as (delete from public.langgraph_checkpoint_writes where thread_key = v_key returning 1),
       b as (delete from public.langgraph_checkpoint_blobs where thread_key = v_key returning 1),
       c as (delete from public.langgraph_checkpoints where thread_key = v_key returning 1)
  select (select count(*) from w) + (select count(*) from b) + (select count(*) from c)
    into v_count;
  return v_count;
end
$$;

-- RPC: retention --------------------------------------------------------------------------
-- Deletes checkpoints created more than days_old days ago, except the latest checkpoint
-- (greatest checkpoint_id) of every thread/namespace; with them their pending writes,
-- pending writes older than the cutoff whose checkpoint no longer exists, and the blobs
-- of the affected thread/namespaces that no remaining checkpoint references. Returns the
-- number of checkpoints deleted. The service role cleans every tenant's threads (or, acting
-- for a user, that user's), a user the threads they may write. Never scheduled: checkpoints are kept
-- forever unless someone calls it.
create or replace function public.cleanup_old_checkpoints(days_old integer)
returns integer
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_cutoff timestamptz;
  v_all boolean := agentmem.sees_all_tenants();
  v_tenants uuid[] := agentmem.thread_write_tenants();
  v_count integer;
begin
  if days_old is null or days_old < 1 then
    raise exception 'cleanup_old_checkpoints: days_old must be at least 1 (got %)', days_old
      using errcode = '22023';
  end if;
  v_cutoff := now() - make_interval(days => days_old);

  -- One statement, so every part sees the same snapshot: "remaining" = not in doomed.
  with doomed as (
    delete from public.langgraph_checkpoints c
     where c.created_at < v_cutoff
       and (v_all or c.tenant_id = any (v_tenants))
       and exists (select 1 from public.langgraph_checkpoints n
                    where n.thread_key = c.thread_key and n.checkpoint_ns = c.checkpoint_ns
                      and n.checkpoint_id > c.checkpoint_id)
    returning c.thread_key, c.checkpoint_ns, c.checkpoint_id
  ), doomed_writes as (
    delete from public.langgraph_checkpoint_writes w
     using doomed d
     where w.thread_key = d.thread_key and w.checkpoint_ns = d.checkpoint_ns
       and w.checkpoint_id = d.checkpoint_id
    returning 1
  ), doomed_blobs as (
    delete from public.langgraph_checkpoint_blobs b
     where exists (select 1 from doomed d
                    where d.thread_key = b.thread_key and d.checkpoint_ns = b.checkpoint_ns)
       and not exists (
         select 1 from public.langgraph_checkpoints c
          where c.thread_key = b.thread_key and c.checkpoint_ns = b.checkpoint_ns
            and c.checkpoint -> 'channel_versions' ->> b.channel = b.version
            and not exists (select 1 from doomed d
                             where d.thread_key = c.thread_key and d.checkpoint_ns = c.checkpoint_ns
                               and d.checkpoint_id = c.checkpoint_id))
    returning 1
  )
  select count(*) into v_count from doomed;

  -- Pending writes left without their checkpoint, once they are as old as the cutoff.
  delete from public.langgraph_checkpoint_writes w
   where w.created_at < v_cutoff
     and (v_all or w.tenant_id = any (v_tenants))
     and not exists (select 1 from public.langgraph_checkpoints c
                      where c.thread_key = w.thread_key and c.checkpoint_ns = w.checkpoint_ns
                        and c.checkpoint_id = w.checkpoint_id);

  return v_count;
end
$$;

comment on function public.cleanup_old_checkpoints(integer) is
  'Delete LangGraph checkpoints older than N days (keeping the latest per thread/namespace), their writes and unreferenced blobs. Off by default: nothing calls it.';

-- RPC: metrics ----------------------------------------------------------------------------
-- Over the caller's threads (every tenant's for the service role not acting for a user),
-- for one thread or
-- (null) all of them. total_bytes = stored size of checkpoint + metadata jsonb
-- (pg_column_size) + blob bytes (octet_length).
create or replace function public.langgraph_checkpoint_metrics(p_thread_id text default null)
returns jsonb
language plpgsql
stable
security invoker
set search_path = ''
-- One statement for a thread and for all of the caller's: planned with each call's values,
-- so that a thread's is its key range and all of them the tenant's (a generic plan for
-- both would be a scan of every tenant's rows).
set plan_cache_mode = force_custom_plan
-- A caller's figures read the caller's rows, through the tenant's indexes, however large a
-- part of the tables they are: for a caller with half of the rows the planner took a
-- sequential scan, which reads every tenant's rows besides. (Every tenant's figures, the
-- service role's, are read sequentially: turned on again below, for this call only.)
set enable_seqscan = off
as $$
declare
  v_key text;
  v_all boolean := agentmem.sees_all_tenants();
  v_tenants uuid[] := agentmem.thread_tenants();
  v_result jsonb;
begin
  if p_thread_id is not null then
    v_key := agentmem.thread_key(p_thread_id);
  end if;
  if v_all and v_key is null then
    perform set_config('enable_seqscan', 'on', true);
  end if;
  with c as (
    select count(*) as n,
           count(distinct thread_key) as threads,
           coalesce(sum(pg_column_size(checkpoint) + pg_column_size(metadata)), 0) as bytes,
           max(created_at) as last_at
      from public.langgraph_checkpoints
     where (v_key is null and (v_all or tenant_id = any (v_tenants))) or thread_key = v_key
  ), b as (
    select count(*) as n, coalesce(sum(octet_length(blob)), 0) as bytes
      from public.langgraph_checkpoint_blobs
     where (v_key is null and (v_all or tenant_id = any (v_tenants))) or thread_key = v_key
  ), w as (
    select count(*) as n, coalesce(sum(octet_length(blob)), 0) as bytes
      from public.langgraph_checkpoint_writes
     where (v_key is null and (v_all or tenant_id = any (v_tenants))) or thread_key = v_key
  )
  select jsonb_build_object(
    'checkpoint_count', c.n,
    'write_count', w.n,
    'blob_count', b.n,
    'total_bytes', c.bytes + b.bytes + w.bytes,
    'checkpoint_bytes', c.bytes,
    'blob_bytes', b.bytes,
    'write_bytes', w.bytes,
    'last_checkpoint_at', c.last_at,
    'thread_count', c.threads)
  into v_result
  from c, b, w;
  return v_result;
end
$$;

-- Grants ----------------------------------------------------------------------------------
select agentmem.expose(
  'agentmem.langgraph_conflict(text)',
  'agentmem.langgraph_check_key(text, text, text[])',
  'agentmem.langgraph_value(bytea, boolean)',
  'agentmem.langgraph_write(text, text, text, bytea, boolean, text)',
  'agentmem.langgraph_pending_sends(text, text, text)',
  'agentmem.langgraph_tuples(public.langgraph_checkpoints[], text)',
  'agentmem.langgraph_tuple(public.langgraph_checkpoints, text)',
  'agentmem.langgraph_thread_summary(public.langgraph_threads)',
  'agentmem.prefix_end(text)',
  'public.langgraph_put(text, text, text, text, text, jsonb, jsonb, jsonb, jsonb)',
  'public.langgraph_list_threads(text, jsonb, integer, integer)',
  'public.langgraph_put_writes(text, text, text, text, text, jsonb)',
  'public.langgraph_get_tuple(text, text, text)',
  'public.langgraph_list(text, text, text, jsonb, text, integer)',
  'public.langgraph_delete_thread(text)',
  'public.cleanup_old_checkpoints(integer)',
  'public.langgraph_checkpoint_metrics(text)');
select agentmem.keep_private('agentmem.langgraph_thread_added()', 'agentmem.langgraph_threads_removed()');

notify pgrst, 'reload schema';
