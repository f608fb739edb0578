-- OPT-IN: deal-scoped LangGraph threads, shared by the members of a deal's organization.
--
-- Creates: tables organizations, organization_members, deals (only those missing);
--          function extract_deal_id_from_thread; agentmem.deal_tenant,
--          agentmem.deal_read_only_roles, agentmem.member_deal_tenants; replaces the
--          tenancy hooks agentmem.thread_scope, agentmem.thread_tenants and
--          agentmem.thread_write_tenants.
-- Needs:   20261121000100_tenancy.sql, 20261122000100_langgraph_checkpoints.sql.
--
-- Not a migration by itself. To use it, copy it into supabase/migrations/ with a version
-- after 20261122000100_langgraph_checkpoints.sql, e.g.
--   cp supabase/optional/langgraph_deal_scoped.sql \
--      supabase/migrations/20261122000900_langgraph_deal_scoped.sql
-- Apply it before users create deal threads: a `cim-…` thread written before it is a
-- private thread of its writer and stays so.
--
-- What it changes: a thread whose id is `cim-{dealId}-{cimId}` or
-- `supervisor-{dealId}-{timestamp}` (deal id: a lowercase UUID) no longer belongs to the
-- user who writes it but to the deal: its key space is the deal's (tenant
-- agentmem.deal_tenant(dealId)), which every member of the deal's organization
-- (organization_members of deals.organization_id) may read, and write unless their role
-- is one of agentmem.deal_read_only_roles() (default: 'viewer'), and nobody else may.
-- A non-member can neither read, create nor append to such a thread, and is answered the
-- same (42501) whether the thread or the deal exists or not. Server code reaches a deal's
-- threads as a member would: AgentmemSaver on the service role acting for a member
-- (x-agentmem-tenant; not acting for anyone, or for a non-member, it is refused like an
-- outsider), or LangGraph's PostgresSaver on a direct connection
-- (langgraph_postgres_saver.sql), whose rows land in the deal's key space too, so the
-- server and the members' browsers see one thread. Other threads stay private.
--
-- Roles that only read. A member whose organization_members.role is one of
-- agentmem.deal_read_only_roles() reads the deal's threads and cannot put, put writes,
-- delete a thread or clean up old checkpoints of the deal (42501). Change the list by
-- replacing the function in a later migration, e.g.
--   create or replace function agentmem.deal_read_only_roles() returns text[]
--     language sql immutable as $$ select array['viewer', 'auditor'] $$;
-- An existing organization_members table without a `role` column: every member writes.
--
-- Tables `organizations`, `organization_members` and `deals` are created only if they do
-- not exist (a minimal shape: deals.organization_id -> organizations.id,
-- organization_members(organization_id, user_id)); existing ones are used as they are,
-- with these columns, and are not altered. The tables it creates get agentmem's grants
-- (agentmem.grant_table): authenticated may only read them (their policies: the caller's
-- own memberships and what they open), service_role reads and writes them, anon nothing.
--
-- Re-runnable, like every agentmem SQL file (see 20261121000100_tenancy.sql).

-- Tables (only where missing), row-level security and grants ------------------------------
do $$
declare
  v_new_orgs boolean := to_regclass('public.organizations') is null;
begin
  if v_new_orgs then
    create table public.organizations (
      id         uuid primary key default gen_random_uuid(),
      name       text not null default '',
      created_at timestamptz not null default now()
    );
    alter table public.organizations enable row level security;
    perform agentmem.grant_table('public.organizations', 'select');
  end if;

  if to_regclass('public.organization_members') is null then
    create table public.organization_members (
      organization_id uuid not null references public.organizations (id) on delete cascade,
      user_id         uuid not null references auth.users (id) on delete cascade,
      role            text not null default 'member',
      created_at      timestamptz not null default now(),
      primary key (organization_id, user_id)
    );
    create index organization_members_user_idx on public.organization_members (user_id);
    alter table public.organization_members enable row level security;
    create policy organization_members_select_own on public.organization_members
      for select to authenticated using (user_id = (select auth.uid()));
    perform agentmem.grant_table('public.organization_members', 'select');
  end if;

  if v_new_orgs then -- never touch the policies of an existing organizations table
    create policy organizations_select_member on public.organizations
      for select to authenticated
      using (exists (select 1 from public.organization_members om
                      where om.organization_id = organizations.id
                        and om.user_id = (select auth.uid())));
  end if;

  if to_regclass('public.deals') is null then
    create table public.deals (
      id              uuid primary key default gen_random_uuid(),
      organization_id uuid not null references public.organizations (id) on delete cascade,
      name            text not null default '',
      created_at      timestamptz not null default now()
    );
    create index deals_organization_idx on public.deals (organization_id);
    alter table public.deals enable row level security;
    create policy deals_select_member on public.deals
      for select to authenticated
      using (exists (select 1 from public.organization_members om
                      where om.organization_id = deals.organization_id
                        and om.user_id = (select auth.uid())));
    perform agentmem.grant_table('public.deals', 'select');
  end if;
end
$$;

-- Functions -------------------------------------------------------------------------------
-- Deal id from a thread id: exactly the CIM schema's function.
-- (src/ids/thread.rs `extract_deal_id` reproduces it byte for byte: uppercase hex never
-- matches, 36 characters of [0-9a-f-] that are not a valid uuid give null.)
-- Helper function to extract deal_id from thread_id
-- Thread format: cim-{dealId}-{cimId} or supervisor-{dealId}-{timestamp}
CREATE OR REPLACE FUNCTION public.extract_deal_id_from_thread(thread_id TEXT)
RETURNS UUID AS $$
BEGIN
  -- Extract UUID from thread_id patterns like "cim-{uuid}-..." or "supervisor-{uuid}-..."
  RETURN (regexp_match(thread_id, '^(?:cim|supervisor)-([0-9a-f-]{36})'))[1]::UUID;
EXCEPTION
  WHEN OTHERS THEN
    RETURN NULL;
END;
$$ LANGUAGE plpgsql IMMUTABLE;

-- The deal's key space: derived from the deal id rather than equal to it, so no deal id
-- can ever coincide with a user's id (both are just UUIDs).
create or replace function agentmem.deal_tenant(p_deal_id uuid)
returns uuid
language sql
immutable
strict
as $$
  select md5('agentmem deal ' || p_deal_id::text)::uuid
$$;

-- The member roles that only read a deal's threads.
create or replace function agentmem.deal_read_only_roles()
returns text[]
language sql
immutable
as $$
  select array['viewer']
$$;

-- The key spaces of the deals the caller is a member of (none for the service tenant);
-- p_writers: only those where the caller's role may write. SECURITY DEFINER so the
-- answer does not depend on the RLS of deals and organization_members; it only ever
-- reveals the caller's own memberships, since agentmem.tenant() identifies the caller
-- from the request, not from the function owner.
drop function if exists agentmem.member_deal_tenants();
do $do$
begin
  execute format($f$
    create or replace function agentmem.member_deal_tenants(p_writers boolean default false)
    returns uuid[]
    language sql
    stable
    security definer
    set search_path = ''
    as $b$
      select coalesce(array_agg(agentmem.deal_tenant(d.id)), '{}')
        from public.deals d
        join public.organization_members om on om.organization_id = d.organization_id
       where om.user_id = agentmem.tenant()
         and (not p_writers %s)
    $b$$f$,
    case when exists (select 1 from pg_catalog.pg_attribute
                       where attrelid = 'public.organization_members'::regclass and attname = 'role' and not attisdropped)
         then 'or not (om.role::text = any (agentmem.deal_read_only_roles()))'
         else 'or true' end);
end
$do$;

-- The tenancy hooks of 20261121000100_tenancy.sql, now aware of deals.
-- (Both run on every request: no SET clause, as in 20261121000100_tenancy.sql. Only ids that
-- start like a deal thread reach extract_deal_id_from_thread, whose exception block costs a
-- subtransaction per call; its pattern is case-sensitive, and so is LIKE.)
create or replace function agentmem.thread_scope(p_thread_id text)
returns uuid
language sql
stable
as $$
  select case when p_thread_id like 'cim-%' or p_thread_id like 'supervisor-%'
              then agentmem.deal_tenant(public.extract_deal_id_from_thread(p_thread_id)) end
$$;

create or replace function agentmem.thread_tenants()
returns uuid[]
language sql
stable
as $$
  select array[agentmem.tenant()] || agentmem.member_deal_tenants()
$$;

create or replace function agentmem.thread_write_tenants()
returns uuid[]
language sql
stable
as $$
  select array[agentmem.tenant()] || agentmem.member_deal_tenants(true)
$$;

-- Grants ----------------------------------------------------------------------------------
select agentmem.expose(
  'public.extract_deal_id_from_thread(text)',
  'agentmem.deal_tenant(uuid)',
  'agentmem.deal_read_only_roles()',
  'agentmem.member_deal_tenants(boolean)');

notify pgrst, 'reload schema';
