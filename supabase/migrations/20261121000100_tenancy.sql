-- Tenancy: who a request acts for, and the one way every agentmem table and function is
-- protected and granted.
--
-- Creates: schema agentmem; table agentmem.tenant_tables (the registry of protected
--          tables); agentmem.tenant() and the other identity functions; the LangGraph
--          thread-key functions; the helpers every later file uses: agentmem.protect()
--          (row-level security + table grants), agentmem.grant_table(),
--          agentmem.expose() / expose_to_service() / keep_private() (function grants);
--          agentmem.vector_dimensions() / set_vector_dimensions() /
--          keep_vectors_in_line() (pgvector columns);
--          agentmem.check_id() / check_fields() (arguments); agentmem.delete_session()
--          (the state stores' deletes); the trigger on auth.users that deletes a deleted
--          user's rows.
-- Needs:   what every Supabase project has: the roles anon, authenticated, service_role
--          and the auth schema (locally: supabase/local/bootstrap.sql).
--
-- A tenant is the key space a row lives in. Every agentmem table carries its tenant in a
-- column that is part of every key a client can choose (thread ids, conversation ids,
-- session ids, memory and draft ids), so two tenants that pick the same id get two
-- independent objects, and neither can notice the other: no squatting, no existence
-- oracle.
--
--   a signed-in user (role authenticated)  the JWT's `sub`, a user of auth.users who may
--                                          still sign in; a token without a valid `sub`, or
--                                          whose user no longer exists (deleted), is
--                                          soft-deleted (deleted_at) or banned
--                                          (banned_until in the future), is refused
--                                          (PT401 → HTTP 401, one answer for all of them).
--                                          An anonymous user (is_anonymous) is a user.
--   the service role (or a direct database the service tenant, the nil UUID, unless the
--   connection as a BYPASSRLS/superuser     request carries `x-agentmem-tenant: <user uuid>`
--   role)                                  to act for that user, who must exist in
--                                          auth.users and may sign in (anything else:
--                                          42501, one answer whether or not the id exists)
--   anon, or any other role                refused (42501)
--
-- The service tenant is a key space like a user's: an id the service role names without
-- acting for someone is its own, never another tenant's. A thread id of the form
-- '<uuid>/…' (how a user's thread is keyed) or of a shared scope is refused to it: server
-- code reaches a user's data only by acting for the user, and a deal's threads only by
-- acting for a member of the deal.
--
-- Rows keep their keys and the database keeps their bookkeeping (the helpers below):
--   keys          the tenant column and every column of the primary and unique keys
--                 cannot change by UPDATE (42501): a row never moves to another key space
--   bookkeeping   created_at / updated_at (and similar columns, per table) are set by
--                 triggers; whatever a caller writes into them is ignored
--   lengths       ids a client chooses are at most 255 characters (22023 naming the field)
--
-- Shared key spaces are explicit: LangGraph threads may be shared by a scope (the opt-in
-- supabase/optional/langgraph_deal_scoped.sql shares `cim-{dealId}-…` threads with the
-- members of the deal's organization); see agentmem.thread_scope below.
--
-- The `agentmem` schema is private: PostgREST does not expose it, so nothing here is an
-- HTTP endpoint. The API roles may execute the identity functions because row-level
-- security policies and the public functions call them as the caller.
--
-- One door for writes. The API roles read agentmem's tables under row-level security and
-- write them only through agentmem's functions: the functions that write run as their
-- owner (SECURITY DEFINER, search_path pinned empty) and keep every row they touch in the
-- caller's key space themselves (agentmem.tenant(), agentmem.thread_key()), so the rules
-- they enforce (immutable values, keys in their key space, bounds, bookkeeping) cannot be
-- gone around with a POST, PATCH or DELETE on the table. Each table has one policy, for
-- SELECT: a later migration that grants a write privilege to authenticated anyway opens
-- nothing (row-level security then refuses every write).
--
-- Privileges, the same for every agentmem table and function (granted only through the
-- helpers below, agentmem.protect / grant_table / expose / expose_to_service /
-- keep_private, so no file states them by hand):
--   anon           nothing: no table, no function, no usage of schema agentmem
--   authenticated  select on the tables (what row-level security then narrows to the
--                  caller's tenant); execute on the RPCs and on the helpers they and the
--                  policies call
--   service_role   select, insert, update, delete on the tables (it bypasses row-level
--                  security: a project's own server code may read and repair rows, and
--                  must keep their keys, tenants and values as agentmem's functions would);
--                  execute on the RPCs, the helpers, and the service-only functions
--   nobody         TRUNCATE, REFERENCES, TRIGGER; a later migration that grants TRUNCATE
--                  anyway is stopped by a trigger for every role but the service role
--
-- Re-runnable, like every agentmem SQL file: applying it again changes nothing (tables and
-- indexes `if not exists`, functions `or replace`, policies, grants and triggers dropped
-- and made again the same way).
--
-- The identity and thread-key functions run on every request, several times: in each
-- row-level security policy, in each RPC and in the trigger of every checkpoint row. They
-- carry no `set search_path` (like Supabase's own auth.uid()): a SET clause makes Postgres
-- save and restore the setting around each call and keeps SQL functions from being
-- inlined, which cost a small checkpoint read or write about a third of its database
-- time. Every name in them is
-- schema-qualified, so they resolve the same under any search_path. Functions that run as
-- their owner (SECURITY DEFINER) and the public RPCs keep their pinned search_path.

-- Schema ----------------------------------------------------------------------------------
create schema if not exists agentmem;
revoke all on schema agentmem from public, anon;
grant usage on schema agentmem to authenticated, service_role;

-- Tables ----------------------------------------------------------------------------------
-- Every agentmem table is registered here; agentmem.protect() gives it the same policies
-- and grants, and deleting a user (auth.users) deletes their rows from each of them.
create table if not exists agentmem.tenant_tables (
  table_name  regclass primary key,
  tenant_col  name not null,
  -- The rows the caller may use, as an SQL expression over the row; null: its own tenant.
  visible     text
);
revoke all on agentmem.tenant_tables from public, anon, authenticated, service_role;

-- Who is calling --------------------------------------------------------------------------
-- The role the request runs as. PostgREST switches roles with SET ROLE, which the `role`
-- setting reflects even inside SECURITY DEFINER functions (where current_user is the
-- owner); a direct connection has no SET ROLE and is its session user.
create or replace function agentmem.caller_role()
returns text
language sql
stable
as $$
  select coalesce(nullif(current_setting('role', true), 'none'), session_user::text)
$$;

-- The service role and direct connections of trusted roles (BYPASSRLS or superuser).
create or replace function agentmem.is_service()
returns boolean
language sql
stable
set search_path = ''
as $$
  select exists (select 1 from pg_catalog.pg_roles r
                  where r.rolname = agentmem.caller_role() and (r.rolbypassrls or r.rolsuper))
$$;

-- The service tenant: rows the service role writes without acting for a user.
create or replace function agentmem.service_tenant()
returns uuid
language sql
immutable
as $$
  select '00000000-0000-0000-0000-000000000000'::uuid
$$;

create or replace function agentmem.is_uuid(p_text text)
returns boolean
language sql
immutable
as $$
  select p_text ~ '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'
$$;

-- Whether p_id is a user of Supabase Auth who may still sign in: neither soft-deleted
-- (deleted_at) nor banned (banned_until in the future), as Supabase Auth refuses them at
-- sign-in and refresh; their tokens stay valid JWTs until they expire, and this is what
-- stops them. SECURITY DEFINER: the API roles cannot read auth.users. It answers only the
-- questions agentmem.tenant() asks, so it is no oracle of user ids: the service role about
-- anyone, a signed-in user about their own sub (false otherwise). agentmem.tenant() remembers the last user it found for the rest of the
-- transaction (agentmem.known_user), so a request looks the user up once. The sub is compared
-- first: for a signed-in user (nearly every request) it is true, and the OR then skips
-- agentmem.is_service()'s lookup in pg_roles, the dearest part of the check.
create or replace function agentmem.user_exists(p_id uuid)
returns boolean
language sql
stable
security definer
set search_path = ''
as $$
  select coalesce((p_id::text operator(pg_catalog.=)
                      pg_catalog.lower(nullif(pg_catalog.current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub')
                   or agentmem.is_service())
                  and exists (select 1 from auth.users u
                               where u.id operator(pg_catalog.=) p_id and u.deleted_at is null
                                 and (u.banned_until is null or u.banned_until operator(pg_catalog.<=) pg_catalog.now())),
                  false)
$$;

-- The caller's tenant, or an error that says why there is none.
create or replace function agentmem.tenant()
returns uuid
language plpgsql
stable
as $$
declare
  v_role   text := agentmem.caller_role();
  v_acting text := nullif(current_setting('request.headers', true), '')::jsonb ->> 'x-agentmem-tenant';
  v_sub    text;
begin
  if v_role = 'authenticated' then
    v_sub := nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub';
    if v_sub is null or not agentmem.is_uuid(v_sub) or v_sub::uuid = agentmem.service_tenant() then
      raise exception 'agentmem: this token names no user: its sub claim is missing or not a user id'
        using errcode = 'PT401', hint = 'sign in again; server code acting for no user uses the service role';
    end if;
    if v_acting is not null and lower(v_acting) <> lower(v_sub) then
      raise exception 'agentmem: only the service role may act for another user (x-agentmem-tenant)'
        using errcode = '42501';
    end if;
    if current_setting('agentmem.known_user', true) is distinct from v_sub then
      if not agentmem.user_exists(v_sub::uuid) then
        raise exception 'agentmem: this token''s user does not exist or may not sign in (deleted or banned)'
          using errcode = 'PT401', hint = 'sign in again';
      end if;
      perform set_config('agentmem.known_user', v_sub, true);
    end if;
    return v_sub::uuid;
  end if;
  if v_role <> 'anon' and agentmem.is_service() then
    if v_acting is null then
      return agentmem.service_tenant();
    end if;
    -- One answer for every id that is not a user's: malformed, unknown, deleted, a deal's.
    if not agentmem.is_uuid(v_acting) or v_acting::uuid = agentmem.service_tenant()
       or (current_setting('agentmem.known_user', true) is distinct from v_acting
           and not agentmem.user_exists(v_acting::uuid)) then
      raise exception 'agentmem: x-agentmem-tenant must be the id of an existing user'
        using errcode = '42501', hint = 'the service role acts only for users of auth.users who may sign in';
    end if;
    perform set_config('agentmem.known_user', v_acting, true);
    return v_acting::uuid;
  end if;
  raise exception 'agentmem: sign in first: role % has no access', v_role using errcode = '42501';
end;
$$;

comment on function agentmem.tenant() is
  'The key space of the caller: the JWT sub of a signed-in user (who must exist in auth.users); the nil UUID for the service role unless it sends x-agentmem-tenant: <id of an existing user>. Refuses anon and tokens without a user.';

-- Whether the caller works across tenants: the service role not acting for a user.
-- (Administrative functions such as checkpoint retention then cover every tenant.)
create or replace function agentmem.sees_all_tenants()
returns boolean
language sql
stable
as $$
  select agentmem.tenant() = agentmem.service_tenant()
     and nullif(current_setting('request.headers', true), '')::jsonb ->> 'x-agentmem-tenant' is null
$$;

-- Ids a client chooses: present and at most 255 characters, or 22023 naming the field.
-- (Keys are indexed; a few kilobytes of id would fail in the index with its internals.)
create or replace function agentmem.check_id(p_field text, p_id text, p_max integer default 255)
returns void
language plpgsql
immutable
as $$
begin
  if p_id is null then
    raise exception '% is required', p_field using errcode = '22023';
  end if;
  if char_length(p_id) > p_max then
    raise exception '% is % characters; the limit is %', p_field, char_length(p_id), p_max using errcode = '22023';
  end if;
end;
$$;

-- A JSON object of a state type's fields, as a store takes it (p_what: how the messages name
-- the object, p_type: the type): 22023 for anything else, naming the first key (in the
-- object's own order) that is one of p_removed ('<p_what>.<key> was removed from <p_type>')
-- or not one of p_fields ('<p_what>.<key> is not a <p_type> field').
create or replace function agentmem.check_fields(p_value jsonb, p_what text, p_type text, p_fields text[],
                                                 p_removed text[] default '{}')
returns void
language plpgsql
immutable
set search_path = ''
as $$
declare
  v_key text;
begin
  if p_value is null or pg_catalog.jsonb_typeof(p_value) <> 'object' then
    raise exception '% must be a JSON object', p_what using errcode = '22023';
  end if;
  for v_key in select pg_catalog.jsonb_object_keys(p_value) loop
    if v_key = any (p_removed) then
      raise exception '%.% was removed from %', p_what, v_key, p_type using errcode = '22023';
    end if;
    if v_key <> all (p_fields) then
      raise exception '%.% is not a % field', p_what, v_key, p_type using errcode = '22023';
    end if;
  end loop;
end;
$$;

-- LangGraph threads -----------------------------------------------------------------------
-- A thread's rows are keyed by `thread_key`, the thread id made global:
--   a user's thread T                  '<user uuid>/T'
--   a thread of the service tenant     'T'
--   a thread in a shared scope         'T' (the scope follows from T itself)
-- so the service role (and LangGraph's PostgresSaver connected directly to the database)
-- reaches a user's thread T as '<user uuid>/T'. thread_id and tenant_id are derived from
-- thread_key by a trigger, so no writer can make them disagree.

-- The shared scope of a thread id, or null for a private thread. None by default; the
-- deal-scope option replaces this function.
create or replace function agentmem.thread_scope(p_thread_id text)
returns uuid
language sql
stable
as $$
  select null::uuid
$$;

-- The tenants whose threads the caller may read and write: their own, plus the shared
-- scopes they belong to (replaced by the deal-scope option).
create or replace function agentmem.thread_tenants()
returns uuid[]
language sql
stable
as $$
  select array[agentmem.tenant()]
$$;

-- The tenants whose shared threads the caller may also write (not only read): all of them
-- by default (replaced by the deal-scope option, whose read-only roles only read).
create or replace function agentmem.thread_write_tenants()
returns uuid[]
language sql
stable
as $$
  select agentmem.thread_tenants()
$$;

-- The key of the caller's thread p_thread_id. A shared thread outside the caller's scopes
-- is refused whether or not it exists; so is, to the service tenant, an id in the form of
-- another tenant's key ('<uuid>/…'): the service role reaches other key spaces only by
-- acting for a user (x-agentmem-tenant), never through an id a client chose.
create or replace function agentmem.thread_key(p_thread_id text)
returns text
language plpgsql
stable
as $$
declare
  v_scope  uuid;
  v_tenant uuid := agentmem.tenant();
begin
  perform agentmem.check_id('thread_id', p_thread_id);
  v_scope := agentmem.thread_scope(p_thread_id);
  if v_scope is not null then
    -- The service role acting for a user is that user here too: a member or nothing.
    if v_scope = any (agentmem.thread_tenants()) then
      return p_thread_id;
    end if;
    raise exception 'agentmem: thread % is shared with the members of its scope only', quote_literal(p_thread_id)
      using errcode = '42501',
            hint = 'server code (the service role) reaches it acting for a member (x-agentmem-tenant)';
  end if;
  if v_tenant = agentmem.service_tenant() then
    if p_thread_id ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/' then
      raise exception 'agentmem: thread ids of the form ''<uuid>/…'' are refused to the service role: they name another tenant''s thread'
        using errcode = '42501',
              hint = 'act for the user (x-agentmem-tenant; client.actingFor(userId)) and name the thread by its own id';
    end if;
    return p_thread_id;
  end if;
  return v_tenant::text || '/' || p_thread_id;
end;
$$;

-- The key of the caller's thread p_thread_id for a write: agentmem.thread_key, and for a
-- shared thread a scope the caller may write in (42501 for a member who may only read).
create or replace function agentmem.thread_write_key(p_thread_id text)
returns text
language plpgsql
stable
as $$
declare
  v_key   text := agentmem.thread_key(p_thread_id);
  v_scope uuid := agentmem.thread_scope(p_thread_id);
begin
  if v_scope is not null and not (v_scope = any (agentmem.thread_write_tenants())) then
    raise exception 'agentmem: thread % is read-only for you: your role in its scope may read it, not write it',
      quote_literal(p_thread_id)
      using errcode = '42501', hint = 'a member whose role may write it (agentmem.deal_read_only_roles()) can';
  end if;
  return v_key;
end;
$$;

create or replace function agentmem.thread_key_tenant(p_key text)
returns uuid
language sql
stable
as $$
  select case
    when p_key ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/'
     and substr(p_key, 1, 36)::uuid <> agentmem.service_tenant()
    then substr(p_key, 1, 36)::uuid
    else coalesce(agentmem.thread_scope(p_key), agentmem.service_tenant())
  end
$$;

-- Keeps tenant_id and thread_id of a checkpoint row in step with its thread_key, and its
-- created_at the database's (retention trusts it).
create or replace function agentmem.thread_row_derive()
returns trigger
language plpgsql
as $$
begin
  if tg_op = 'INSERT' then
    new.created_at := pg_catalog.now();
  else
    new.created_at := old.created_at;
  end if;
  new.tenant_id := agentmem.thread_key_tenant(new.thread_key);
  new.thread_id := case when new.tenant_id = agentmem.service_tenant()
                          or new.thread_key !~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/'
                        then new.thread_key
                        else substr(new.thread_key, 38) end;
  -- A shared thread lives under its own id only: '<uuid>/cim-…' would list under the
  -- shared thread's id in that tenant's threads without being it.
  if tg_op = 'INSERT' and new.thread_id <> new.thread_key and agentmem.thread_scope(new.thread_id) is not null then
    raise exception 'agentmem: thread key % names a shared thread under a tenant; shared threads are keyed by their own id',
      quote_literal(new.thread_key) using errcode = '22023';
  end if;
  return new;
end;
$$;

-- Grants of tables and functions ----------------------------------------------------------
-- The privileges rule of the header, for one table or view: Supabase's default privileges
-- grant ALL (TRUNCATE included) to anon, authenticated and service_role on every new table,
-- so everything is revoked first and then stated. p_user_privileges: what authenticated
-- gets (null: nothing, for tables only the service role uses).
create or replace function agentmem.grant_table(p_table regclass, p_user_privileges text default 'select')
returns void
language plpgsql
set search_path = ''
as $$
begin
  execute format('revoke all on %s from public, anon, authenticated, service_role', p_table);
  execute format('grant select, insert, update, delete on %s to service_role', p_table);
  if p_user_privileges is not null then
    execute format('grant %s on %s to authenticated', p_user_privileges, p_table);
  end if;
end;
$$;

-- Who may execute p_functions: every API role's EXECUTE is revoked, then granted to
-- p_roles (a role list; null: no API role). The three below say it by intent.
create or replace function agentmem.set_execute(p_functions regprocedure[], p_roles text)
returns void
language plpgsql
set search_path = ''
as $$
declare
  v_fn regprocedure;
begin
  foreach v_fn in array p_functions loop
    execute format('revoke all on function %s from public, anon, authenticated, service_role', v_fn);
    if p_roles is not null then
      execute format('grant execute on function %s to %s', v_fn, p_roles);
    end if;
  end loop;
end;
$$;

-- An RPC of the API, or a helper that RPCs and policies call as the caller: executable by
-- signed-in users and the service role only (Postgres grants EXECUTE to PUBLIC, and
-- Supabase's default privileges to anon).
create or replace function agentmem.expose(variadic p_functions regprocedure[]) returns void
  language sql set search_path = '' as $$ select agentmem.set_execute(p_functions, 'authenticated, service_role') $$;

-- A function for the service role (and direct connections) only.
create or replace function agentmem.expose_to_service(variadic p_functions regprocedure[]) returns void
  language sql set search_path = '' as $$ select agentmem.set_execute(p_functions, 'service_role') $$;

-- A function no API role executes: trigger functions (a trigger runs its function without
-- an EXECUTE check) and the helpers of the migrations themselves.
create or replace function agentmem.keep_private(variadic p_functions regprocedure[]) returns void
  language sql set search_path = '' as $$ select agentmem.set_execute(p_functions, null) $$;

-- Row-level security ----------------------------------------------------------------------
create or replace function agentmem.refuse_truncate()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if not agentmem.is_service() then
    raise exception 'agentmem: % cannot be truncated by role %', tg_table_name, agentmem.caller_role()
      using errcode = '42501';
  end if;
  return null;
end;
$$;

-- An UPDATE that would change a key column (the trigger of agentmem.protect fires only then).
create or replace function agentmem.refuse_key_change()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  raise exception 'agentmem: the keys of % (%) cannot change; write a new row instead', tg_table_name, tg_argv[0]
    using errcode = '42501';
end;
$$;

-- Row-level security for one table: authenticated reads the rows of the caller's tenant
-- (or `p_visible`) and writes none (the one door: agentmem's functions write, as the
-- table's owner); anon nothing; the grants of agentmem.grant_table; TRUNCATE (which RLS
-- does not govern) refused to non-service roles even if a later migration grants it; the
-- tenant column, every NOT NULL column of the primary and unique keys and `p_immutable`
-- refused to UPDATE (a trigger whose WHEN clause compares them, so an update that leaves
-- them alone costs no function call). Re-running replaces the policies and triggers.
create or replace function agentmem.protect(p_table regclass, p_tenant_col name, p_visible text default null,
                                            p_immutable name[] default '{}')
returns void
language plpgsql
set search_path = ''
as $$
declare
  v_rule text := coalesce(p_visible, format('%I = (select agentmem.tenant())', p_tenant_col));
  v_policy record;
  v_keys name[];
begin
  insert into agentmem.tenant_tables as t (table_name, tenant_col, visible)
  values (p_table, p_tenant_col, p_visible)
  on conflict (table_name) do update set tenant_col = excluded.tenant_col, visible = excluded.visible
  where (t.tenant_col, t.visible) is distinct from (excluded.tenant_col, excluded.visible);

  execute format('alter table %s enable row level security', p_table);
  for v_policy in select policyname from pg_catalog.pg_policies
                   where format('%I.%I', schemaname, tablename)::regclass = p_table loop
    execute format('drop policy %I on %s', v_policy.policyname, p_table);
  end loop;
  execute format('create policy tenant_select on %s for select to authenticated using (%s)', p_table, v_rule);

  perform agentmem.grant_table(p_table);

  execute format('drop trigger if exists refuse_truncate on %s', p_table);
  execute format('create trigger refuse_truncate before truncate on %s for each statement execute function agentmem.refuse_truncate()', p_table);

  select array_agg(k order by k) into v_keys
    from (select a.attname as k
            from pg_catalog.pg_index i
            join pg_catalog.pg_attribute a on a.attrelid = i.indrelid and a.attnum = any (i.indkey)
           where i.indrelid = p_table and (i.indisprimary or i.indisunique)
             -- A nullable column of a unique key is a reference that may be cleared
             -- (contractors.contractor_lead_id: ON DELETE SET NULL), not an identity.
             and a.attnotnull
          union select p_tenant_col
          union select unnest(p_immutable)) keys;
  -- Named to fire before the table's other BEFORE UPDATE triggers (alphabetical order), so
  -- it sees the caller's values, not ones a later trigger derives.
  execute format('drop trigger if exists agentmem_keys_immutable on %s', p_table);
  execute format('create trigger agentmem_keys_immutable before update on %s for each row when (%s) '
                 'execute function agentmem.refuse_key_change(%L)',
                 p_table,
                 (select string_agg(format('old.%1$I is distinct from new.%1$I', k), ' or ') from unnest(v_keys) k),
                 array_to_string(v_keys, ', '));
end;
$$;
-- Earlier signatures (re-running this file over an older one).
drop function if exists agentmem.protect(regclass, name, text, text);
drop function if exists agentmem.protect(regclass, name, text, text, name[]);

-- A CHECK constraint of a table that may predate it: added when missing, replaced when its
-- expression changed (re-running a file over an older install). `create table if not
-- exists` cannot add a constraint to a table that is already there.
create or replace function agentmem.ensure_check(p_table regclass, p_name name, p_expr text)
returns void
language plpgsql
set search_path = ''
as $$
declare
  v_def text;
  v_want text;
begin
  select pg_catalog.pg_get_constraintdef(c.oid) into v_def
    from pg_catalog.pg_constraint c where c.conrelid = p_table and c.conname = p_name;
  if v_def is not null then
    -- Compare the stored form of both: add the wanted one under a scratch name, read it back.
    execute pg_catalog.format('alter table %s add constraint agentmem_check_probe check (%s) not valid', p_table, p_expr);
    select pg_catalog.pg_get_constraintdef(c.oid) into v_want
      from pg_catalog.pg_constraint c where c.conrelid = p_table and c.conname = 'agentmem_check_probe';
    execute pg_catalog.format('alter table %s drop constraint agentmem_check_probe', p_table);
    if pg_catalog.replace(v_want, ' NOT VALID', '') = v_def then
      return;
    end if;
    execute pg_catalog.format('alter table %s drop constraint %I', p_table, p_name);
  end if;
  execute pg_catalog.format('alter table %s add constraint %I check (%s)', p_table, p_name, p_expr);
end;
$$;

-- Deletes the caller's row of p_table (a state store's table keyed by tenant_id and
-- session_id) with this session id; whether there was one. For the stores' delete RPCs,
-- which run as the owner: the tenant is the caller's (an identity is required first,
-- whatever the id), the id a client's (22023 past 255 characters).
create or replace function agentmem.delete_session(p_table regclass, p_session_id text)
returns boolean
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_tenant uuid := agentmem.tenant();
  v_found  boolean;
begin
  perform agentmem.check_id('session_id', p_session_id);
  execute pg_catalog.format('with gone as (delete from %s where tenant_id = $1 and session_id = $2 returning 1)
                             select exists (select 1 from gone)', p_table)
     into v_found using v_tenant, p_session_id;
  return v_found;
end;
$$;

-- Bookkeeping the database keeps: what a caller writes into these columns is ignored.
-- created_at / updated_at (timestamptz): the insert's time; updated_at moves on every update.
create or replace function agentmem.stamp_times()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if tg_op = 'INSERT' then
    new.created_at := pg_catalog.now();
  else
    new.created_at := old.created_at;
  end if;
  new.updated_at := pg_catalog.now();
  return new;
end;
$$;

-- created_at alone (rows that never change their content).
create or replace function agentmem.stamp_created()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if tg_op = 'INSERT' then
    new.created_at := pg_catalog.now();
  else
    new.created_at := old.created_at;
  end if;
  return new;
end;
$$;

-- Installs a bookkeeping trigger (one of the functions above, or a table's own) on a table,
-- for inserts and updates. Re-running replaces it.
create or replace function agentmem.keep_bookkeeping(p_table regclass, p_function regproc)
returns void
language plpgsql
set search_path = ''
as $$
begin
  execute format('drop trigger if exists agentmem_bookkeeping on %s', p_table);
  execute format('create trigger agentmem_bookkeeping before insert or update on %s for each row execute function %s()',
                 p_table, p_function);
end;
$$;

-- The current time in milliseconds since the epoch (the state tables' timestamps).
create or replace function agentmem.now_ms()
returns bigint
language sql
stable
as $$
  select (extract(epoch from pg_catalog.clock_timestamp()) * 1000)::bigint
$$;

-- Deleting a user -------------------------------------------------------------------------
-- A deleted user takes their rows along (the tenant columns cannot reference auth.users:
-- the service tenant is not a user).
create or replace function agentmem.forget_user()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_table record;
begin
  for v_table in select table_name, tenant_col from agentmem.tenant_tables loop
    execute format('delete from %s where %I = $1', v_table.table_name, v_table.tenant_col) using old.id;
  end loop;
  return old;
end;
$$;

drop trigger if exists agentmem_forget_user on auth.users;
create trigger agentmem_forget_user
  after delete on auth.users
  for each row execute function agentmem.forget_user();

-- Vector columns (pgvector) ----------------------------------------------------------------
-- A vector column's dimension: its vector(N) type modifier (null: no dimension).
create or replace function agentmem.vector_dimensions(p_table regclass, p_column name)
returns integer
language sql
stable
set search_path = ''
as $$
  select nullif(a.atttypmod, -1)
    from pg_catalog.pg_attribute a
   where a.attrelid = p_table and a.attname = p_column and not a.attisdropped
$$;

-- Changes a vector column's dimension while it holds no vector (what the public
-- set_*_dimensions functions do, as the table's owner): the table is locked, so none
-- arrives in between; p_drop and p_create are the statements that drop the column's index
-- before the change and make it again after (null: none). For the service role only, checked
-- here so that it holds even if a later migration grants a public wrapper more widely.
create or replace function agentmem.set_vector_dimensions(p_table regclass, p_column name, p_dimensions integer,
                                                          p_max integer, p_clear text,
                                                          p_drop text default null, p_create text default null)
returns jsonb
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_previous integer;
  v_stored   boolean;
begin
  if not agentmem.is_service() then
    raise exception 'changing the dimension of %.% is for the service role only', p_table, p_column
      using errcode = '42501';
  end if;
  if p_dimensions is null or p_dimensions < 1 or p_dimensions > p_max then
    raise exception 'dimensions must be between 1 and %, got %', p_max, coalesce(p_dimensions::text, 'null')
      using errcode = '22023';
  end if;
  execute pg_catalog.format('lock table %s in access exclusive mode', p_table);
  v_previous := agentmem.vector_dimensions(p_table, p_column);
  if v_previous is not distinct from p_dimensions then
    return pg_catalog.jsonb_build_object('previous_dimensions', v_previous, 'dimensions', p_dimensions, 'changed', false);
  end if;
  execute pg_catalog.format('select exists (select 1 from %s where %I is not null)', p_table, p_column) into v_stored;
  if v_stored then
    raise exception '% already stores embeddings of % dimensions; % before changing the dimension',
      (select c.relname from pg_catalog.pg_class c where c.oid = p_table), v_previous, p_clear
      using errcode = '55000';
  end if;
  if p_drop is not null then
    execute p_drop;
  end if;
  execute pg_catalog.format('alter table %s alter column %I type extensions.vector(%s)', p_table, p_column, p_dimensions);
  if p_create is not null then
    execute p_create;
  end if;
  perform pg_catalog.pg_notify('pgrst', 'reload schema');
  return pg_catalog.jsonb_build_object('previous_dimensions', v_previous, 'dimensions', p_dimensions, 'changed', true);
end;
$$;

-- A vector column that searches read row after row, kept in its rows. pgvector stores its
-- types EXTERNAL: a row over ~2 KB (a halfvec of more than ~1,000 dimensions, a vector of
-- more than ~500; embeddings of 1,024, 1,536 and 3,072 are common) gets its value moved to
-- the TOAST table, and a scan that measures every row of a tenant then looks each value up
-- through that table's index: a search of 20,000 memories of 1,536 dimensions took 81-104 ms
-- so, 31-39 ms with the copies in their rows. toast_tuple_target = 8160 (the most Postgres
-- allows) leaves any row that fits a page as it is, uncompressed. Values stored out of line
-- before (an install that predates this) are written again, once, in their rows.
create or replace function agentmem.keep_vectors_in_line(p_table regclass, p_column name)
returns void
language plpgsql
set search_path = ''
as $$
begin
  if exists (select 1 from pg_catalog.pg_class c
              where c.oid = p_table and 'toast_tuple_target=8160' = any (coalesce(c.reloptions, '{}'))) then
    return;
  end if;
  execute pg_catalog.format('alter table %s set (toast_tuple_target = 8160)', p_table);
  if (select pg_catalog.pg_relation_size(c.reltoastrelid) from pg_catalog.pg_class c where c.oid = p_table) > 0 then
    -- (A new value: an unchanged one would keep its place in the TOAST table.)
    execute pg_catalog.format('update %s set %I = extensions.subvector(%I, 1, extensions.vector_dims(%I))',
                              p_table, p_column, p_column, p_column);
  end if;
end;
$$;

-- Grants ----------------------------------------------------------------------------------
-- The policies and the public functions run these as the caller.
select agentmem.expose(
  'agentmem.caller_role()', 'agentmem.is_service()', 'agentmem.service_tenant()', 'agentmem.is_uuid(text)',
  'agentmem.tenant()', 'agentmem.sees_all_tenants()', 'agentmem.thread_scope(text)', 'agentmem.thread_tenants()',
  'agentmem.thread_write_tenants()', 'agentmem.thread_key(text)', 'agentmem.thread_write_key(text)', 'agentmem.thread_key_tenant(text)', 'agentmem.check_id(text, text, integer)',
  'agentmem.check_fields(jsonb, text, text, text[], text[])',
  'agentmem.now_ms()', 'agentmem.user_exists(uuid)', 'agentmem.vector_dimensions(regclass, name)');
select agentmem.keep_private(
  'agentmem.thread_row_derive()', 'agentmem.grant_table(regclass, text)', 'agentmem.set_execute(regprocedure[], text)',
  'agentmem.expose(regprocedure[])', 'agentmem.expose_to_service(regprocedure[])', 'agentmem.keep_private(regprocedure[])',
  'agentmem.refuse_truncate()', 'agentmem.protect(regclass, name, text, name[])', 'agentmem.forget_user()',
  'agentmem.refuse_key_change()', 'agentmem.stamp_times()', 'agentmem.stamp_created()',
  'agentmem.keep_bookkeeping(regclass, regproc)', 'agentmem.ensure_check(regclass, name, text)',
  'agentmem.delete_session(regclass, text)',
  'agentmem.set_vector_dimensions(regclass, name, integer, integer, text, text, text)',
  'agentmem.keep_vectors_in_line(regclass, name)');
