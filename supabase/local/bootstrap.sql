-- LOCAL ONLY. What every real Supabase project already has before its first migration:
-- the API roles, the `extensions` and `auth` schemas, auth.uid()/role()/jwt(), and the
-- default privileges on schema public. scripts/migrate.sh runs this before the
-- migrations on the local test Postgres (scripts/postgres.sh). It must never move into
-- supabase/migrations: a real project already has all of it (owned by
-- supabase_admin / supabase_auth_admin) and would reject most of these statements.
--
-- Idempotent: safe to run any number of times. Run as the superuser `postgres`.
--
-- Mirrored from (read 2026-11-21):
--   supabase/postgres migrations/db/init-scripts/00000000000000-initial-schema.sql
--     roles anon / authenticated (nologin noinherit), service_role (nologin noinherit
--     bypassrls), authenticator (noinherit, granted the three); schema extensions and
--     its usage grant; usage on public and the default privileges on public; the
--     statement timeouts of anon and authenticated.
--   supabase/postgres migrations/db/init-scripts/00000000000003-post-setup.sql
--     search_path "$user", public, extensions (Supabase sets it on the role postgres;
--     here it is also set on the database, standing in for PostgREST's
--     db-extra-search-path = public, extensions that the API roles get on Supabase).
--   supabase/auth (GoTrue) migrations 20220224000811_update_auth_functions.up.sql and
--     20220531120530_add_auth_jwt_function.up.sql: auth.uid(), auth.role(),
--     auth.email(), auth.jwt(), verbatim bodies, with their "Deprecated" comments.
--   supabase/postgres migrations/db/init-scripts/00000000000001-auth-schema.sql:
--     grant usage on schema auth to anon, authenticated, service_role.
-- Differences from a real project, on purpose:
--   * `postgres` is a real superuser here (on Supabase it is not; supabase_admin is).
--     Objects are owned by postgres instead of supabase_admin / supabase_auth_admin, so
--     the "for user supabase_admin" default privileges are not needed.
--   * authenticator gets the password `authenticator` (local gateway only) and is not
--     granted supabase_admin (which does not exist here).
--   * auth.users is a small subset of GoTrue's table (id, email, metadata, timestamps):
--     enough for `references auth.users(id)` and for seeding test users. As on Supabase,
--     the API roles get no privileges on it.
--   * No uuid-ossp / pgcrypto in `extensions` (Supabase pre-installs them); migrations
--     that need an extension create it themselves, as they must for a real project.
--     gen_random_uuid() is core Postgres anyway.

-- Roles -------------------------------------------------------------------------------
do $$
begin
  if not exists (select from pg_roles where rolname = 'anon') then
    create role anon nologin noinherit;
  end if;
  if not exists (select from pg_roles where rolname = 'authenticated') then
    create role authenticated nologin noinherit;
  end if;
  if not exists (select from pg_roles where rolname = 'service_role') then
    create role service_role nologin noinherit bypassrls;
  end if;
  if not exists (select from pg_roles where rolname = 'authenticator') then
    create role authenticator login noinherit;
  end if;
end
$$;
-- Re-assert the attributes in case an earlier run (or a hand-made role) differs.
alter role anon nologin noinherit;
alter role authenticated nologin noinherit;
alter role service_role nologin noinherit bypassrls;
alter role authenticator login noinherit password 'authenticator';

grant anon, authenticated, service_role to authenticator;

-- Supabase: short statement timeouts for the API roles (PostgREST applies a role's
-- settings when it switches to it; `set local role` in psql does not).
alter role anon set statement_timeout = '3s';
alter role authenticated set statement_timeout = '8s';

-- Schemas and search_path -------------------------------------------------------------
create schema if not exists extensions;
grant usage on schema extensions to postgres, anon, authenticated, service_role;

do $$
begin
  execute format('alter database %I set search_path to "$user", public, extensions',
                 current_database());
end
$$;
alter role postgres set search_path to "$user", public, extensions;

grant usage on schema public to postgres, anon, authenticated, service_role;
alter default privileges in schema public grant all on tables to postgres, anon, authenticated, service_role;
alter default privileges in schema public grant all on functions to postgres, anon, authenticated, service_role;
alter default privileges in schema public grant all on sequences to postgres, anon, authenticated, service_role;

-- auth ------------------------------------------------------------------------------------
create schema if not exists auth;
grant usage on schema auth to anon, authenticated, service_role;

create table if not exists auth.users (
  id                 uuid primary key default gen_random_uuid(),
  email              text unique,
  raw_app_meta_data  jsonb not null default '{}'::jsonb,
  raw_user_meta_data jsonb not null default '{}'::jsonb,
  created_at         timestamptz not null default now(),
  updated_at         timestamptz not null default now()
);
-- Columns of Supabase Auth's auth.users that agentmem's SQL reads (who may still sign in).
alter table auth.users add column if not exists is_anonymous boolean not null default false;
alter table auth.users add column if not exists banned_until timestamptz;
alter table auth.users add column if not exists deleted_at timestamptz;
comment on table auth.users is 'Auth: Stores user login data within a secure schema. (local subset)';

-- The request's claims, as PostgREST sets them per transaction: `request.jwt.claims`
-- (json, PostgREST >= 9) or the legacy per-claim `request.jwt.claim.<name>` settings.
create or replace function auth.uid()
returns uuid
language sql stable
as $$
  select
  	coalesce(
		nullif(current_setting('request.jwt.claim.sub', true), ''),
		(nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub')
	)::uuid
$$;

create or replace function auth.role()
returns text
language sql stable
as $$
  select
  	coalesce(
		nullif(current_setting('request.jwt.claim.role', true), ''),
		(nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'role')
	)::text
$$;

create or replace function auth.email()
returns text
language sql stable
as $$
  select
  	coalesce(
		nullif(current_setting('request.jwt.claim.email', true), ''),
		(nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'email')
	)::text
$$;

create or replace function auth.jwt()
returns jsonb
language sql stable
as $$
  select
    coalesce(
        nullif(current_setting('request.jwt.claim', true), ''),
        nullif(current_setting('request.jwt.claims', true), '')
    )::jsonb
$$;

comment on function auth.uid() is 'Deprecated. Use auth.jwt() -> ''sub'' instead.';
comment on function auth.role() is 'Deprecated. Use auth.jwt() -> ''role'' instead.';
comment on function auth.email() is 'Deprecated. Use auth.jwt() -> ''email'' instead.';

grant execute on function auth.uid(), auth.role(), auth.email(), auth.jwt()
  to anon, authenticated, service_role;
