-- OPT-IN: LangGraph's own PostgresSaver (@langchain/langgraph-checkpoint-postgres) on the
-- same threads as AgentmemSaver.
--
-- Creates: schema agentmem_langgraph: views checkpoints, checkpoint_blobs,
--          checkpoint_writes, table checkpoint_migrations.
-- Needs:   20261121000100_tenancy.sql, 20261122000100_langgraph_checkpoints.sql.
--
-- Not a migration by itself. To use it, copy it into supabase/migrations/ with a version
-- after 20261122000100_langgraph_checkpoints.sql, e.g.
--   cp supabase/optional/langgraph_postgres_saver.sql \
--      supabase/migrations/20261122000910_langgraph_postgres_saver.sql
--
-- Server code that connects to Postgres directly (RLS bypassed: the `postgres` role or
-- another BYPASSRLS role) then runs
--   const saver = PostgresSaver.fromConnString(url, { schema: "agentmem_langgraph" });
--   await saver.setup();   // a no-op here: the schema below is already in place
-- and reads and writes exactly the rows that AgentmemSaver reads and writes through
-- PostgREST. The schema holds views with PostgresSaver's table names and columns over
-- agentmem's tables; their `thread_id` is agentmem's `thread_key`:
--   a user's thread T           '<user uuid>/T'   (what AgentmemSaver of that user calls T)
--   a deal-scoped thread T      'T'               (with langgraph_deal_scoped.sql)
--   the service tenant's T      'T'               (AgentmemSaver with the service role)
-- Rows PostgresSaver writes get their tenant from that key (a trigger derives tenant_id
-- and thread_id), so nothing is lost: a row written as '<user uuid>/T' is that user's,
-- readable by their AgentmemSaver under row-level security.
--
-- Limits: PostgresSaver mints channel versions as `previous + 1`, so two forks that it
-- makes from the same checkpoint still share versions (AgentmemSaver's own versions are
-- unique per write; see the README). Pending writes written by PostgresSaver have no
-- task_path (''), as in its own schema. Checked with @langchain/langgraph-checkpoint-postgres
-- 1.0.5, whose setup() knows migrations 0-4; a later version that adds a migration will
-- try to alter these views and fail loudly rather than run half-migrated.
--
-- Only the service role (and direct connections) may use the schema: service_role reads
-- and writes the views, anon and authenticated nothing.
--
-- Re-runnable, like every agentmem SQL file (see 20261121000100_tenancy.sql).

-- Schema ----------------------------------------------------------------------------------
create schema if not exists agentmem_langgraph;
revoke all on schema agentmem_langgraph from public, anon, authenticated;
grant usage on schema agentmem_langgraph to service_role;

-- Tables ----------------------------------------------------------------------------------

create or replace view agentmem_langgraph.checkpoints as
  select thread_key as thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata
    from public.langgraph_checkpoints;

create or replace view agentmem_langgraph.checkpoint_blobs as
  select thread_key as thread_id, checkpoint_ns, channel, version, type, blob
    from public.langgraph_checkpoint_blobs;

create or replace view agentmem_langgraph.checkpoint_writes as
  select thread_key as thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob
    from public.langgraph_checkpoint_writes;

-- PostgresSaver.setup() runs the migrations it has not recorded here: all of them are
-- already satisfied by the views.
create table if not exists agentmem_langgraph.checkpoint_migrations (v integer primary key);
insert into agentmem_langgraph.checkpoint_migrations (v)
select v from generate_series(0, 4) v
on conflict (v) do nothing;

-- Grants ----------------------------------------------------------------------------------
select agentmem.grant_table(v, null)
  from unnest(array['agentmem_langgraph.checkpoints', 'agentmem_langgraph.checkpoint_blobs',
                    'agentmem_langgraph.checkpoint_writes', 'agentmem_langgraph.checkpoint_migrations']::regclass[]) v;
