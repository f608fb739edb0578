-- OPT-IN: deal-scoped access to LangGraph checkpoints (spec 002, story E13.9).
--
-- Not a migration by itself. To use it, copy it into supabase/migrations/ with a version
-- after 20261122000100_langgraph_checkpoints.sql (which it requires), e.g.
--   cp supabase/optional/langgraph_deal_scoped.sql \
--      supabase/migrations/20261122000900_langgraph_deal_scoped.sql
-- It is idempotent (safe to apply twice).
--
-- What it adds: threads whose id is `cim-{dealId}-{cimId}` or
-- `supervisor-{dealId}-{timestamp}` (deal id: a lowercase UUID) are shared by every member
-- of the deal's organization (organization_members of deals.organization_id). These are
-- extra PERMISSIVE policies, OR-ed with the owner policies of the base migration: owners
-- keep their access, and members may read, write and delete rows of such threads even
-- when another member started them. Other threads are unaffected.
--
-- Tables `organizations`, `organization_members` and `deals` are created only if they do
-- not exist (a minimal shape: deals.organization_id -> organizations.id,
-- organization_members(organization_id, user_id)); existing ones are used as they are,
-- with these columns, and are not altered.

-- Minimal deal/organization tables, only where missing ---------------------------------------
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
    revoke all on public.organizations from public, anon, authenticated;
    grant select on public.organizations to authenticated;
    grant all on public.organizations to service_role;
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
    revoke all on public.organization_members from public, anon, authenticated;
    grant select on public.organization_members to authenticated;
    grant all on public.organization_members to service_role;
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
    revoke all on public.deals from public, anon, authenticated;
    grant select on public.deals to authenticated;
    grant all on public.deals to service_role;
  end if;
end
$$;

-- Deal id from a thread id: exactly spec 002's function --------------------------------------
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

-- Membership check -----------------------------------------------------------------------------
-- Is the caller a member of the organization owning the thread's deal? SECURITY DEFINER so
-- the answer does not depend on the RLS of deals / organization_members (spec 002 inlines
-- this EXISTS in the policies, which needs SELECT on both tables and can recurse into
-- their policies); it reveals nothing but the caller's own membership.
create or replace function public.langgraph_deal_member(p_thread_id text)
returns boolean
language sql
stable
security definer
set search_path = ''
as $$
  select exists (
    select 1
      from public.deals d
      join public.organization_members om on om.organization_id = d.organization_id
     where d.id = public.extract_deal_id_from_thread(p_thread_id)
       and om.user_id = (select auth.uid())
  )
$$;

-- May a member write a row of a deal thread with this owner_id? Yes for their own id, and
-- for the id of anyone who already owns rows of the thread (an upsert keeps the owner of
-- the row a colleague wrote); never for third parties. Answers only members of the deal.
create or replace function public.langgraph_deal_owner_ok(p_thread_id text, p_owner_id uuid)
returns boolean
language sql
stable
security definer
set search_path = ''
as $$
  select public.langgraph_deal_member(p_thread_id)
     and (p_owner_id = (select auth.uid())
          or exists (select 1 from public.langgraph_checkpoints c
                      where c.thread_id = p_thread_id and c.owner_id = p_owner_id)
          or exists (select 1 from public.langgraph_checkpoint_blobs b
                      where b.thread_id = p_thread_id and b.owner_id = p_owner_id)
          or exists (select 1 from public.langgraph_checkpoint_writes w
                      where w.thread_id = p_thread_id and w.owner_id = p_owner_id))
$$;

revoke all on function public.langgraph_deal_member(text) from public, anon;
revoke all on function public.langgraph_deal_owner_ok(text, uuid) from public, anon;
grant execute on function public.langgraph_deal_member(text) to authenticated, service_role;
grant execute on function public.langgraph_deal_owner_ok(text, uuid) to authenticated, service_role;

-- Policies on the three checkpoint tables ------------------------------------------------------
-- USING: members see and may change/delete any row of a deal thread. WITH CHECK: a row
-- written by a member names the writer as owner, or keeps an owner the thread already has
-- (an upsert of a row a colleague wrote), so members cannot plant rows under third parties'
-- ids.
do $$
declare
  t text;
begin
  foreach t in array array['langgraph_checkpoints', 'langgraph_checkpoint_blobs',
                           'langgraph_checkpoint_writes']
  loop
    execute format('drop policy if exists %I on public.%I', t || '_deal_members', t);
    execute format($p$
      create policy %I on public.%I for all to authenticated
        using (public.langgraph_deal_member(thread_id))
        with check (public.langgraph_deal_owner_ok(thread_id, owner_id))
    $p$, t || '_deal_members', t);
  end loop;
end
$$;

notify pgrst, 'reload schema';
