-- Objects the gateway's own tests use. Applied by the tests (as postgres) before they run;
-- recreated each time so the suite starts from a known state.
drop schema if exists gw cascade;
drop table if exists public.gw_items, public.gw_owned, public.gw_parents, public.gw_children, public.gw_pairs,
  public.gw_nopk, public.gw_notes cascade;
drop function if exists public.gw_add, public.gw_echo, public.gw_items_over, public.gw_item, public.gw_void,
  public.gw_raise, public.gw_teapot, public.gw_bump, public.gw_json, public.gw_set_headers, public.gw_whoami cascade;

create table public.gw_items (
  id int primary key,
  name text,
  tags text[] default '{}',
  meta jsonb default '{}',
  score numeric,
  active boolean default true,
  tsv tsvector generated always as (to_tsvector('english', coalesce(name, ''))) stored
);
create table public.gw_owned (
  id bigint generated always as identity primary key,
  owner uuid not null default auth.uid(),
  body text not null check (length(body) < 100),
  slug text unique
);
alter table public.gw_owned enable row level security;
create policy gw_owned_select on public.gw_owned for select to authenticated using (owner = auth.uid());
create policy gw_owned_insert on public.gw_owned for insert to authenticated with check (owner = auth.uid());
create policy gw_owned_update on public.gw_owned for update to authenticated using (owner = auth.uid()) with check (owner = auth.uid());
create policy gw_owned_delete on public.gw_owned for delete to authenticated using (owner = auth.uid());
create table public.gw_parents (id int primary key);
create table public.gw_children (id int primary key, parent_id int not null references public.gw_parents(id));
-- A composite primary key declared in the opposite order to the columns (PUT filters and
-- the Location header's key order), and a table without one.
create table public.gw_pairs (k2 text, k1 int, note text, primary key (k1, k2));
create table public.gw_nopk (a text, b text);
-- Like gw_owned, with a key the client chooses, so PUT can run under RLS.
create table public.gw_notes (id int primary key, owner uuid not null default auth.uid(), body text);
alter table public.gw_notes enable row level security;
create policy gw_notes_select on public.gw_notes for select to authenticated using (owner = auth.uid());
create policy gw_notes_insert on public.gw_notes for insert to authenticated with check (owner = auth.uid());
create policy gw_notes_update on public.gw_notes for update to authenticated using (owner = auth.uid()) with check (owner = auth.uid());

grant select, insert, update, delete on public.gw_items, public.gw_parents, public.gw_children, public.gw_pairs,
  public.gw_nopk to anon, authenticated, service_role;
grant select, insert, update, delete on public.gw_owned, public.gw_notes to authenticated, service_role;
-- Supabase's default privileges grant everything to anon; take it back to exercise 42501.
revoke all on public.gw_owned, public.gw_notes from anon;

create function public.gw_add(a int, b int) returns int language sql immutable as $$ select a + b $$;
create function public.gw_echo(msg text, times int default 1) returns text language sql immutable as $$ select repeat(msg, times) $$;
create function public.gw_items_over(min_score numeric) returns setof public.gw_items language sql stable as
  $$ select * from public.gw_items where score > min_score order by id $$;
create function public.gw_item(item_id int) returns public.gw_items language sql stable as
  $$ select * from public.gw_items where id = item_id $$;
create function public.gw_void() returns void language sql as $$ select $$;
create function public.gw_raise() returns int language plpgsql as
  $$ begin raise exception 'I refuse!' using detail = 'Pretty simple', hint = 'There is nothing you can do.'; end $$;
create function public.gw_teapot() returns int language plpgsql as
  $$ begin raise sqlstate 'PT418' using message = 'I am a teapot'; end $$;
create function public.gw_bump(item_id int) returns int language sql volatile as
  $$ update public.gw_items set score = coalesce(score, 0) + 1 where id = item_id returning score::int $$;
create function public.gw_json(jsonb) returns jsonb language sql immutable as $$ select $1 $$;
create function public.gw_set_headers() returns int language plpgsql as
  $$ begin perform set_config('response.headers', '[{"X-Test":"yes"}]', true); return 7; end $$;
create function public.gw_whoami() returns json language sql stable as
  $$ select json_build_object('role', current_user, 'sub', auth.uid(), 'method', current_setting('request.method', true),
                              'path', current_setting('request.path', true)) $$;
-- New functions are executable by PUBLIC by default, so no grant is needed here. (A blanket
-- `grant execute on all functions in schema public` would also re-grant the project's own
-- functions to anon, which their migrations deliberately revoke.)
notify pgrst, 'reload schema';
