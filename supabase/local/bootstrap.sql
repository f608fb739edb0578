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
--   * auth.users, auth.identities, auth.sessions, auth.refresh_tokens and
--     auth.mfa_amr_claims have Supabase Auth's columns (GoTrue's migrations folded into
--     one definition, read at supabase/auth @bc32168, 2026-08-20), for the gateway's local
--     Auth (/auth/v1, gateway/src/auth.rs), which writes them as `supabase_auth_admin`, the
--     role GoTrue connects as. Left out: MFA factors and challenges, SSO/SAML, OAuth
--     server, flow state, one-time tokens, audit log. auth.users.email stays `text` (GoTrue:
--     varchar(255)) and its metadata columns keep a '{}' default and NOT NULL. As on
--     Supabase, the API roles get no privileges on these tables.
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
-- The rest of Supabase Auth's auth.users (GoTrue migrations 00_init_auth_schema …
-- 20240214120130_add_is_anonymous_column).
alter table auth.users
  add column if not exists instance_id uuid,
  add column if not exists aud varchar(255),
  add column if not exists role varchar(255),
  add column if not exists encrypted_password varchar(255),
  add column if not exists email_confirmed_at timestamptz,
  add column if not exists invited_at timestamptz,
  add column if not exists confirmation_token varchar(255),
  add column if not exists confirmation_sent_at timestamptz,
  add column if not exists recovery_token varchar(255),
  add column if not exists recovery_sent_at timestamptz,
  add column if not exists email_change_token_new varchar(255),
  add column if not exists email_change varchar(255),
  add column if not exists email_change_sent_at timestamptz,
  add column if not exists last_sign_in_at timestamptz,
  add column if not exists is_super_admin boolean,
  add column if not exists phone text unique default null,
  add column if not exists phone_confirmed_at timestamptz,
  add column if not exists phone_change text default '',
  add column if not exists phone_change_token varchar(255) default '',
  add column if not exists phone_change_sent_at timestamptz,
  add column if not exists email_change_token_current varchar(255) default '',
  add column if not exists email_change_confirm_status smallint default 0
    check (email_change_confirm_status >= 0 and email_change_confirm_status <= 2),
  add column if not exists banned_until timestamptz,
  add column if not exists reauthentication_token varchar(255) default '',
  add column if not exists reauthentication_sent_at timestamptz,
  add column if not exists is_sso_user boolean not null default false,
  add column if not exists deleted_at timestamptz,
  add column if not exists is_anonymous boolean not null default false;
alter table auth.users
  add column if not exists confirmed_at timestamptz
    generated always as (least(users.email_confirmed_at, users.phone_confirmed_at)) stored;
comment on column auth.users.is_sso_user is 'Auth: Set this column to true when the account comes from SSO. These accounts can have duplicate emails.';
-- GoTrue 20221215195500: emails are unique among non-SSO users only.
alter table auth.users drop constraint if exists users_email_key;
create unique index if not exists users_email_partial_key on auth.users (email) where (is_sso_user = false);
create index if not exists users_instance_id_idx on auth.users (instance_id);
create index if not exists users_instance_id_email_idx on auth.users (instance_id, lower(email));
create index if not exists users_is_anonymous_idx on auth.users (is_anonymous);
comment on table auth.users is 'Auth: Stores user login data within a secure schema.';

create table if not exists auth.identities (
  provider_id     text not null,
  user_id         uuid not null references auth.users (id) on delete cascade,
  identity_data   jsonb not null,
  provider        text not null,
  last_sign_in_at timestamptz,
  created_at      timestamptz,
  updated_at      timestamptz,
  email           text generated always as (lower(identity_data ->> 'email')) stored,
  id              uuid not null default gen_random_uuid() primary key,
  constraint identities_provider_id_provider_unique unique (provider_id, provider)
);
create index if not exists identities_user_id_idx on auth.identities (user_id);
create index if not exists identities_email_idx on auth.identities (email text_pattern_ops);
comment on table auth.identities is 'Auth: Stores identities associated to a user.';

do $$ begin
  create type auth.aal_level as enum ('aal1', 'aal2', 'aal3');
exception when duplicate_object then null;
end $$;

create table if not exists auth.sessions (
  id                     uuid not null primary key,
  user_id                uuid not null references auth.users (id) on delete cascade,
  created_at             timestamptz,
  updated_at             timestamptz,
  factor_id              uuid,
  aal                    auth.aal_level,
  not_after              timestamptz,
  refreshed_at           timestamp without time zone,
  user_agent             text,
  ip                     inet,
  tag                    text,
  oauth_client_id        uuid,
  refresh_token_hmac_key text,
  refresh_token_counter  bigint,
  scopes                 text check (char_length(scopes) <= 4096)
);
create index if not exists sessions_user_id_idx on auth.sessions (user_id);
create index if not exists user_id_created_at_idx on auth.sessions (user_id, created_at);
create index if not exists sessions_not_after_idx on auth.sessions (not_after desc);
comment on table auth.sessions is 'Auth: Stores session data associated to a user.';
comment on column auth.sessions.not_after is 'Auth: Not after is a nullable column that contains a timestamp after which the session should be regarded as expired.';

create table if not exists auth.refresh_tokens (
  instance_id uuid,
  id          bigserial primary key,
  token       varchar(255) constraint refresh_tokens_token_unique unique,
  user_id     varchar(255),
  revoked     boolean,
  created_at  timestamptz,
  updated_at  timestamptz,
  parent      varchar(255),
  session_id  uuid references auth.sessions (id) on delete cascade
);
create index if not exists refresh_tokens_instance_id_idx on auth.refresh_tokens (instance_id);
create index if not exists refresh_tokens_instance_id_user_id_idx on auth.refresh_tokens (instance_id, user_id);
create index if not exists refresh_tokens_parent_idx on auth.refresh_tokens (parent);
create index if not exists refresh_tokens_session_id_revoked_idx on auth.refresh_tokens (session_id, revoked);
create index if not exists refresh_tokens_updated_at_idx on auth.refresh_tokens (updated_at desc);
comment on table auth.refresh_tokens is 'Auth: Store of tokens used to refresh JWT tokens once they expire.';

create table if not exists auth.mfa_amr_claims (
  session_id            uuid not null references auth.sessions (id) on delete cascade,
  created_at            timestamptz not null,
  updated_at            timestamptz not null,
  authentication_method text not null,
  id                    uuid not null primary key,
  constraint mfa_amr_claims_session_id_authentication_method_pkey unique (session_id, authentication_method)
);
comment on table auth.mfa_amr_claims is 'auth: stores authenticator method reference claims for multi factor authentication';

-- The role Supabase Auth connects as (local: trust auth on loopback, no password). It owns
-- nothing here; it gets what GoTrue does to these tables.
do $$
begin
  if not exists (select from pg_roles where rolname = 'supabase_auth_admin') then
    create role supabase_auth_admin login noinherit;
  end if;
end
$$;
grant usage on schema auth to supabase_auth_admin;
grant select, insert, update, delete on auth.users, auth.identities, auth.sessions, auth.refresh_tokens,
  auth.mfa_amr_claims to supabase_auth_admin;
grant usage, select on sequence auth.refresh_tokens_id_seq to supabase_auth_admin;

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
