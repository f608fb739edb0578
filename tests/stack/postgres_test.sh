#!/usr/bin/env bash
# The local Supabase-shaped Postgres (scripts/postgres.sh, scripts/migrate.sh,
# supabase/local/bootstrap.sql): idempotent start, loopback only, pgvector + HNSW,
# Supabase-style RLS through authenticator, idempotent migrations, clean stop.
# Runs on its own throwaway stack dir and port, so a developer's stack is untouched.
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"

PG="$ROOT/scripts/postgres.sh"
export AGENTMEM_STACK_DIR
AGENTMEM_STACK_DIR=$(mktemp -d "${TMPDIR:-/tmp}/agentmem-pgtest.XXXXXX")
chmod 755 "$AGENTMEM_STACK_DIR" # the server's user (nobody, under root) must enter it
port=${AGENTMEM_TEST_PG_PORT:-54339}
while ss -Hltn "sport = :$port" | grep -q .; do port=$((port + 1)); done
export AGENTMEM_PG_PORT=$port

cleanup() {
  local rc=$?
  "$PG" stop >/dev/null 2>&1 || true
  if [ "$rc" != 0 ] && [ -f "$AGENTMEM_STACK_DIR/postgres/postgres.log" ]; then
    echo "--- postgres.log (tail)" >&2
    tail -n 30 "$AGENTMEM_STACK_DIR/postgres/postgres.log" >&2
  fi
  rm -rf "$AGENTMEM_STACK_DIR"
}
trap cleanup EXIT

ms() { echo $(($(date +%s%N) / 1000000)); }
# sql_lib.sh: api/as_api (PostgREST-shaped requests), sqlstate, acting_for, regranted, uuid;
# this script stops at its first failure, so ok/expect are redefined as fatal.
source "$(dirname "${BASH_SOURCE[0]}")/sql_lib.sh"
ok() { checks=$((checks + 1)); printf '  ok  %s\n' "$1"; }
fail() { printf '  FAIL %s\n' "$1" >&2; exit 1; }
expect() { # name, expected, actual
  if [ "$2" == "$3" ]; then ok "$1"; else fail "$1: expected [$2], got [$3]"; fi
}

log "postgres stack test (stack $AGENTMEM_STACK_DIR, port $port)"

# --- start, twice ----------------------------------------------------------------------
t0=$(ms)
url=$("$PG" start 2>/dev/null)
t_cold=$(($(ms) - t0))
expect "start prints the URL" "postgresql://postgres@127.0.0.1:$port/postgres" "$url"
pid1=$(q -c 'select pg_postmaster_start_time()')
t0=$(ms)
url2=$("$PG" start 2>/dev/null)
t_again=$(($(ms) - t0))
expect "second start is a no-op (same URL)" "$url" "$url2"
expect "second start is a no-op (same server)" "$pid1" "$(q -c 'select pg_postmaster_start_time()')"
"$PG" status >/dev/null || fail "status says not running"
ok "status: running"
expect "server version" 18 "$(q -c 'show server_version_num' | cut -c1-2)"

# --- loopback only ---------------------------------------------------------------------
expect "listen_addresses" "127.0.0.1" "$(q -c 'show listen_addresses')"
expect "no unix socket" "" "$(q -c 'show unix_socket_directories')"
listening=$(ss -Hltn "sport = :$port" | awk '{print $4}' | sort -u | tr '\n' ' ')
expect "ss: only 127.0.0.1:$port listens" "127.0.0.1:$port " "$listening"
for ip in $(hostname -I 2>/dev/null || true); do
  case "$ip" in 127.*) continue ;; esac
  if PGCONNECT_TIMEOUT=2 "$PG" psql -h "$ip" -c 'select 1' >/dev/null 2>&1; then
    fail "reachable on $ip"
  fi
  ok "not reachable on $ip"
done

# --- migrations --------------------------------------------------------------------------
# As the test stack runs them (scripts/stack.sh up --test-fixtures): with the opt-in files
# of supabase/optional applied as migrations after the regular ones.
out=$("$ROOT/scripts/migrate.sh" --with-optional 2>&1)
grep -q '^applied 20261121000000_extensions.sql$' <<<"$out" || fail "first migrate: $out"
ok "first migrate applies 20261121000000_extensions.sql"
expect "--with-optional applies supabase/optional/*.sql last, in file-name order" \
  "applied langgraph_deal_scoped.sql
applied langgraph_postgres_saver.sql" "$(grep '^applied' <<<"$out" | tail -n 2)"
expect "... recorded as migrations 20261122000900, 20261122000901" \
  "20261122000900|langgraph_deal_scoped,20261122000901|langgraph_postgres_saver" \
  "$(q -c "select string_agg(version || '|' || name, ',' order by version) from supabase_migrations.schema_migrations where version >= '20261122000900'")"
out=$("$ROOT/scripts/migrate.sh" --with-optional 2>&1)
grep -q '^applied' <<<"$out" && fail "second migrate applied something: $out"
ok "second migrate applies nothing"
out=$("$ROOT/scripts/migrate.sh" 2>&1)
grep -q '^applied' <<<"$out" && fail "migrate without --with-optional applied something: $out"
ok "migrate without --with-optional afterwards applies nothing either"
expect "recorded like the Supabase CLI" "extensions|t" \
  "$(q -c "select name, statements[1] like '%create extension if not exists vector%' from supabase_migrations.schema_migrations where version = '20261121000000'")"
# A database whose applied migration no longer matches its file is refused, not patched.
q -c "update supabase_migrations.schema_migrations set statements[1] = statements[1] || '-- edited' where version = '20261122000500'" >/dev/null
st=0; out=$("$ROOT/scripts/migrate.sh" --with-optional 2>&1) || st=$?
q -c "update supabase_migrations.schema_migrations set statements[1] = left(statements[1], -9) where version = '20261122000500'" >/dev/null
expect "migrate refuses a database whose applied migration's file changed (exit 1)" 1 "$st"
grep -q '20261122000500_research_sessions.sql changed after it was applied' <<<"$out" || fail "the refusal does not name the file: $out"
ok "... and names the file"
out=$("$ROOT/scripts/migrate.sh" --with-optional 2>&1) || fail "migrate after restoring the record: $out"
ok "migrate accepts the database again once the record matches"
out=$(q -f "$ROOT/supabase/local/bootstrap.sql" 2>&1) || fail "bootstrap.sql is not re-runnable: $out"
ok "bootstrap.sql runs again cleanly"

# --- pgvector ----------------------------------------------------------------------------
expect "vector lives in schema extensions" "extensions|0.8.6" \
  "$(q -c "select n.nspname, e.extversion from pg_extension e join pg_namespace n on n.oid = e.extnamespace where extname = 'vector'")"
q <<'EOF' >/dev/null
create table public.t_vec (id bigint primary key, embedding vector(3));
insert into public.t_vec values (1, '[1,0,0]'), (2, '[0,1,0]'), (3, '[0,0,1]');
create index t_vec_hnsw on public.t_vec using hnsw (embedding vector_cosine_ops);
EOF
ok "HNSW index on a vector(3) column"
plan=$(q -c "set enable_seqscan = off" -c "explain (costs off) select id from public.t_vec order by embedding <=> '[0.9,0.1,0]' limit 1")
grep -q t_vec_hnsw <<<"$plan" || fail "the nearest-neighbour query does not use the HNSW index: $plan"
ok "nearest-neighbour query uses the HNSW index"
expect "nearest neighbour" 1 \
  "$(q -c "set enable_seqscan = off" -c "select id from public.t_vec order by embedding <=> '[0.9,0.1,0]' limit 1")"
expect "API roles resolve vector through the search_path" 1 \
  "$(as_api authenticated "" "select '[1,2,3]'::vector <-> '[1,2,4]'::vector;")"

# --- RLS, the Supabase way ---------------------------------------------------------------
A=11111111-1111-4111-8111-111111111111
B=22222222-2222-4222-8222-222222222222
# No explicit grants: the default privileges of bootstrap.sql must give the API roles
# access to a table postgres creates in public, as on Supabase.
q <<EOF >/dev/null
insert into auth.users (id, email) values ('$A', 'a@example.test'), ('$B', 'b@example.test');
create table public.t_notes (
  id      bigint generated always as identity primary key,
  user_id uuid not null default auth.uid() references auth.users (id),
  body    text not null
);
alter table public.t_notes enable row level security;
create policy own_rows on public.t_notes for all to authenticated
  using (user_id = auth.uid()) with check (user_id = auth.uid());
insert into public.t_notes (user_id, body) values ('$A', 'a1'), ('$B', 'b1');
EOF
expect "auth.uid() reads request.jwt.claims" "$A" "$(as_api authenticated "$A" "select auth.uid();")"
expect "auth.role() reads request.jwt.claims" authenticated "$(as_api authenticated "$A" "select auth.role();")"
expect "auth.jwt() ->> 'sub'" "$A" "$(as_api authenticated "$A" "select auth.jwt() ->> 'sub';")"
expect "current_user after set local role" authenticated "$(as_api authenticated "$A" "select current_user;")"
expect "user A sees only own rows" "a1" "$(as_api authenticated "$A" "select body from public.t_notes order by id;")"
expect "user B sees only own rows" "b1" "$(as_api authenticated "$B" "select body from public.t_notes order by id;")"
expect "user A inserts an own row (user_id defaults to auth.uid())" "$A" \
  "$(as_api authenticated "$A" "insert into public.t_notes (body) values ('a2') returning user_id;")"
expect "cross-user insert fails with 42501" 42501 \
  "$(as_api authenticated "$A" "insert into public.t_notes (user_id, body) values ('$B', 'x');
\\echo :SQLSTATE")"
expect "cross-user update touches nothing" 0 \
  "$(as_api authenticated "$A" "with u as (update public.t_notes set body = 'x' where user_id = '$B' returning 1) select count(*) from u;")"
expect "anon sees nothing" 0 "$(as_api anon "" "select count(*) from public.t_notes;")"
expect "service_role bypasses RLS" 2 "$(as_api service_role "" "select count(*) from public.t_notes;")"
expect "authenticator alone (NOINHERIT) has no table access" 42501 \
  "$("$PG" psql -X -q -At -U authenticator -c 'select 1 from public.t_notes' -c '\echo :SQLSTATE' 2>/dev/null)"
expect "API roles cannot read auth.users" 42501 \
  "$(as_api authenticated "$A" "select 1 from auth.users;
\\echo :SQLSTATE")"
for t in identities sessions refresh_tokens mfa_amr_claims; do
  expect "API roles cannot read auth.$t (Supabase Auth's tables)" 42501 \
    "$(as_api service_role "" "select 1 from auth.$t;
\\echo :SQLSTATE")"
done
expect "supabase_auth_admin (the local Auth's role) may write auth.users but nothing in public" "t|42501" \
  "$("$PG" psql -X -q -At -U supabase_auth_admin -c "select has_table_privilege('auth.users', 'insert')" \
     -c 'select 1 from public.t_notes' -c '\echo :SQLSTATE' 2>/dev/null | paste -sd'|')"

# --- tenancy (20261121000100_tenancy.sql) ----------------------------------------------------
# Who a request acts for: agentmem.tenant() under every kind of caller.
U1=$(uuid)
U2=$(uuid)
q -c "insert into auth.users (id, email) values ('$U1', 'u1@example.test'), ('$U2', 'u2@example.test')" >/dev/null
tenant() { "$@" "select agentmem.tenant();
\\echo :SQLSTATE" | paste -sd'|'; }
expect "tenant of a signed-in user: the JWT's sub" "$U1|00000" "$(tenant as_api authenticated "$U1")"
expect "a token of role authenticated without sub: PT401" "PT401" "$(tenant as_api authenticated "")"
expect "... with a sub that is not a UUID: PT401" "PT401" "$(API_CLAIMS='{"role":"authenticated","sub":"admin"}' tenant as_api authenticated "")"
expect "... with the nil UUID as sub (the service tenant): PT401" "PT401" "$(tenant as_api authenticated "$NIL")"
expect "PT401 says why" "agentmem: this token names no user: its sub claim is missing or not a user id" \
  "$(as_api authenticated "" "select agentmem.tenant() \\g /dev/null
\\echo :LAST_ERROR_MESSAGE")"
expect "anon: 42501" "42501" "$(tenant as_api anon "")"
expect "anon acting for a user: still 42501" "42501" "$(acting_for "$U1" tenant as_api anon "")"
expect "service_role: the service tenant (nil UUID)" "$NIL|00000" "$(tenant as_api service_role "")"
expect "service_role with a user's sub in its claims: still the service tenant" "$NIL|00000" "$(tenant as_api service_role "$U1")"
expect "service_role with x-agentmem-tenant: that user" "$U1|00000" "$(acting_for "$U1" tenant as_api service_role "")"
expect "... an upper-case UUID names the same user" "$U1|00000" "$(acting_for "${U1^^}" tenant as_api service_role "")"
expect "... a malformed value: 42501, the answer for any id that is not a user's" "42501" "$(acting_for "$U1-x" tenant as_api service_role "")"
expect "... an empty value: 42501" "42501" "$(acting_for "" tenant as_api service_role "")"
expect "... a well-formed id that is no user (unknown, deleted, a deal's key space): 42501" "42501|42501" \
  "$(acting_for "$(uuid)" tenant as_api service_role "")|$(acting_for "$NIL" tenant as_api service_role "")"
expect "a user sending another user's id as x-agentmem-tenant: 42501" "42501" "$(acting_for "$U2" tenant as_api authenticated "$U1")"
expect "a user sending a malformed x-agentmem-tenant: 42501" "42501" "$(acting_for "nope" tenant as_api authenticated "$U1")"
expect "a user sending their own id (any case): themselves" "$U1|00000" "$(acting_for "${U1^^}" tenant as_api authenticated "$U1")"
# Users Supabase Auth no longer lets sign in: their still-valid tokens are refused too.
U3=$(uuid); U4=$(uuid); U5=$(uuid); U6=$(uuid)
q -c "insert into auth.users (id, email, banned_until, deleted_at, is_anonymous) values
  ('$U3', 'u3@example.test', now() + interval '1 day', null, false),
  ('$U4', 'u4@example.test', null, now(), false),
  ('$U5', 'u5@example.test', now() - interval '1 second', null, false),
  ('$U6', null, null, null, true)" >/dev/null
expect "a banned user (banned_until in the future): PT401, as a deleted one" "PT401|PT401" "$(tenant as_api authenticated "$U3")|$(tenant as_api authenticated "$(uuid)")"
expect "... with the same message as a deleted one" "agentmem: this token's user does not exist or may not sign in (deleted or banned)" \
  "$(as_api authenticated "$U3" "select agentmem.tenant() \\g /dev/null
\\echo :LAST_ERROR_MESSAGE")"
expect "a soft-deleted user (deleted_at set): PT401" "PT401" "$(tenant as_api authenticated "$U4")"
expect "a ban that has ended: the user again" "$U5|00000" "$(tenant as_api authenticated "$U5")"
expect "an anonymous user (is_anonymous) is a user" "$U6|00000" "$(tenant as_api authenticated "$U6")"
expect "the service role acting for a banned or soft-deleted user: 42501, as for an unknown id" "42501|42501" \
  "$(acting_for "$U3" tenant as_api service_role "")|$(acting_for "$U4" tenant as_api service_role "")"
q -c "delete from auth.users where id in ('$U3', '$U4', '$U5', '$U6')" >/dev/null
expect "a direct connection as postgres (superuser): the service tenant" "$NIL" "$(q -c "select agentmem.tenant()")"
expect "authenticator without an API role: 42501" "42501" \
  "$("$PG" psql -X -q -At -U authenticator -c 'select agentmem.tenant()' -c '\echo :SQLSTATE' 2>/dev/null)"
expect "sees_all_tenants: service role only, and only when acting for nobody" "t|f|f" \
  "$(as_api service_role "" "select agentmem.sees_all_tenants();")|$(acting_for "$U1" as_api service_role "" "select agentmem.sees_all_tenants();")|$(as_api authenticated "$U1" "select agentmem.sees_all_tenants();")"

# Every agentmem table is registered and protected the same way.
TABLES=$(q -c "select count(*) from agentmem.tenant_tables")
REGISTERED=$(q -c "select string_agg(table_name::text, ',' order by table_name::text) from agentmem.tenant_tables")
expect "agentmem.tenant_tables lists the eighteen tables" \
  "agent_memories,agent_memory_counters,agent_memory_vectors,contractor_leads,contractors,langgraph_checkpoint_blobs,langgraph_checkpoint_writes,langgraph_checkpoints,langgraph_store_items,langgraph_store_vectors,langgraph_threads,memory_access_log,memory_references,research_drafts,research_sessions,unified_conversation_memory,unified_conversations,workflow_agent_states" \
  "$REGISTERED"
expect "each: RLS on; policies only for authenticated, one: SELECT (the functions are the one door for writes)" "18|0|18|0" \
  "$(q -c "select count(*) filter (where c.relrowsecurity),
                  (select count(*) from pg_policies p join agentmem.tenant_tables t on format('%I.%I', p.schemaname, p.tablename)::regclass = t.table_name where p.roles <> '{authenticated}'),
                  (select count(*) from pg_policies p join agentmem.tenant_tables t on format('%I.%I', p.schemaname, p.tablename)::regclass = t.table_name),
                  (select count(*) from pg_policies p join agentmem.tenant_tables t on format('%I.%I', p.schemaname, p.tablename)::regclass = t.table_name where p.cmd <> 'SELECT')
           from agentmem.tenant_tables t join pg_class c on c.oid = t.table_name")"
expect "each: authenticated may SELECT and nothing else" "18|f" \
  "$(q -c "select count(*) filter (where has_table_privilege('authenticated', t.table_name, 'select')),
                  bool_or(has_table_privilege('authenticated', t.table_name, 'insert') or has_table_privilege('authenticated', t.table_name, 'update')
                          or has_table_privilege('authenticated', t.table_name, 'delete'))
           from agentmem.tenant_tables t")"
expect "each: no privilege for anon/PUBLIC, no TRUNCATE for anyone, a refuse_truncate trigger" "f|f|18" \
  "$(q -c "select bool_or(has_table_privilege(r, t.table_name, p)) filter (where r in ('anon', 'public')),
                  bool_or(has_table_privilege(r, t.table_name, 'truncate')) filter (where r in ('authenticated', 'service_role')),
                  count(distinct t.table_name) filter (where exists (select from pg_trigger g where g.tgrelid = t.table_name and g.tgname = 'refuse_truncate'))
           from agentmem.tenant_tables t, unnest(array['anon', 'public', 'authenticated', 'service_role']) r,
                unnest(array['select', 'insert', 'update', 'delete', 'truncate', 'references', 'trigger']) p")"
expect "the agentmem schema: no usage for anon or PUBLIC" "f|f|t" \
  "$(q -c "select has_schema_privilege('anon', 'agentmem', 'usage'), has_schema_privilege('public', 'agentmem', 'usage'), has_schema_privilege('authenticated', 'agentmem', 'usage')")"
expect "no function of public or agentmem is executable by anon or PUBLIC" 0 \
  "$(q -c "select count(*) from pg_proc p where p.pronamespace in ('public'::regnamespace, 'agentmem'::regnamespace)
           and (has_function_privilege('anon', p.oid, 'execute') or has_function_privilege('public', p.oid, 'execute'))")"
# Helpers that take a tenant or run only inside another function as its owner: no API role
# executes them (agentmem.keep_private), not even the service role.
expect "the store's private helpers (its writes take a tenant) are executable by no API role" "f" \
  "$(q -c "select bool_or(has_function_privilege(r, f, 'execute'))
           from unnest(array['authenticated', 'service_role', 'anon', 'public']) r,
                unnest(array['agentmem.langgraph_store_write(uuid, jsonb)', 'agentmem.langgraph_store_vector_length(jsonb)']::regprocedure[]) f")"
# SECURITY DEFINER: the writers (the tables' one door for the API roles) and a few helpers;
# each checks its caller itself (not only through grants).
expect "the SECURITY DEFINER functions are exactly these" \
  "agentmem.copy_memory_vector,agentmem.forget_user,agentmem.langgraph_store_list,agentmem.langgraph_store_search,agentmem.member_deal_tenants,agentmem.record_memory_access,agentmem.user_exists,public.build_contractor_profile,public.cleanup_expired_memories,public.cleanup_old_checkpoints,public.convert_contractor_lead,public.create_agent_memory,public.create_unified_checkpoint,public.create_workflow_state,public.delete_agent_memory,public.delete_research_session,public.delete_unified_state,public.delete_workflow_state,public.langgraph_delete_thread,public.langgraph_put,public.langgraph_put_writes,public.langgraph_store_batch,public.langgraph_store_sweep,public.save_research_draft,public.save_research_session,public.save_unified_state,public.set_agent_memory_dimensions,public.set_embedding_dimensions,public.set_langgraph_store_dimensions,public.update_agent_memory,public.update_workflow_state" \
  "$(q -c "select string_agg(p.pronamespace::regnamespace || '.' || p.proname, ',' order by p.pronamespace::regnamespace || '.' || p.proname) from pg_proc p
           where p.prosecdef and p.pronamespace in ('public'::regnamespace, 'agentmem'::regnamespace)")"
# The two set_*_dimensions check through agentmem.set_vector_dimensions, which they call
# first and which consults agentmem.is_service() itself; the checkpoint writers through
# agentmem.thread_write_key / thread_write_tenants, the state stores' deletes through
# agentmem.delete_session: each consults agentmem.tenant().
expect "... each pins its search_path (the public writers an empty one); the callable ones consult agentmem.tenant() or agentmem.is_service() (directly or through a helper that does)" "31|22|29|t|t" \
  "$(q -c "select count(*) filter (where exists (select from unnest(p.proconfig) c where c like 'search_path=%')),
                  count(*) filter (where p.proconfig @> array['search_path=\"\"'] and p.pronamespace = 'public'::regnamespace),
                  count(*) filter (where p.prosrc ~ 'agentmem\\.(tenant\\(\\)|is_service\\(\\)|set_vector_dimensions\\(|thread_write_key\\(|thread_write_tenants\\(\\)|delete_session\\()'),
                  (select prosrc ~ 'if not agentmem\\.is_service\\(\\) then' from pg_proc
                    where oid = 'agentmem.set_vector_dimensions(regclass, name, integer, integer, text, text, text)'::regprocedure),
                  (select bool_and(prosrc ~ case when oid = 'agentmem.thread_key(text)'::regprocedure then 'agentmem\\.tenant\\(\\)'
                                                 else 'agentmem\\.thread_key\\(p_thread_id\\)' end) from pg_proc
                    where oid in ('agentmem.thread_write_key(text)'::regprocedure, 'agentmem.thread_key(text)'::regprocedure))
                  and (select prosrc ~ 'agentmem\\.tenant\\(\\)' from pg_proc where oid = 'agentmem.delete_session(regclass, text)'::regprocedure)
           from pg_proc p where p.prosecdef and p.pronamespace in ('public'::regnamespace, 'agentmem'::regnamespace)")"
expect "forget_user runs only as the trigger (it cannot be called)" "0A000" \
  "$("$PG" psql -X -q -At -c "select agentmem.forget_user()" -c '\echo :SQLSTATE' 2>/dev/null | tail -n 1)"

# A store namespace from JSON (agentmem.langgraph_store_labels): its labels in order; an
# empty array none; anything but an array of strings 22023, naming the operation.
expect "store labels: an array of strings, in order" '{n,"a b",ü,""}|{}' \
  "$(q -c "select agentmem.langgraph_store_labels('[\"n\", \"a b\", \"ü\", \"\"]', 'get')::text || '|' || agentmem.langgraph_store_labels('[]', 'get')::text")"
for bad_ns in '["n", 1]' '["n", null]' '[["n"]]' '{"a": "n"}' '"n"' 'null'; do
  expect "store labels: $bad_ns is refused" "put: a namespace must be an array of strings|22023" \
    "$("$PG" psql -X -q -At -c "\\set VERBOSITY terse" -c "select agentmem.langgraph_store_labels('$bad_ns', 'put')" -c '\echo :LAST_ERROR_MESSAGE|:SQLSTATE' 2>/dev/null | tail -n 1)"
done

# One row of U1's in every table, through the RPCs, the way a client writes them.
SEED="select langgraph_put('t', '', 'c1', null, 'json', '{\"v\":4,\"id\":\"c1\",\"channel_versions\":{\"a\":\"1\"}}', '{}', '[{\"channel\":\"a\",\"version\":\"1\",\"type\":\"json\",\"blob\":\"eA==\"}]') \\g /dev/null
select langgraph_put_writes('t', '', 'c1', 'task', '', '[{\"idx\":0,\"channel\":\"x\",\"type\":\"json\",\"blob\":\"eA==\"}]') \\g /dev/null
select id as mem from create_agent_memory('agent', 'hello', 'fact', p_embedding => '[$(seq -s, 1 384)]', p_reference => '{\"reference_type\":\"rfp\",\"reference_id\":\"$U2\"}') \\gset
select update_memory_access(array[:'mem']::uuid[]) \\g /dev/null
select save_unified_state('$U2', 'lead', '{\"a\":1}', '{}', '$U1') \\g /dev/null
select create_workflow_state('{\"session_id\":\"wf\"}') \\g /dev/null
select save_research_session('{\"session_id\":\"rs\",\"query\":\"q\",\"current_phase\":\"p\"}') \\g /dev/null
select save_research_draft('$U2', 'rs', '1_browsing', 'text') \\g /dev/null
select build_contractor_profile('lead', '{\"company_name\":\"Acme\"}') \\g /dev/null
select convert_contractor_lead('lead') \\g /dev/null
select langgraph_store_batch('[{\"op\":\"put\",\"namespace\":[\"n\"],\"key\":\"k\",\"value\":{\"a\":1},\"vectors\":[{\"field\":\"$\",\"embedding\":[$(seq -s, 1 384)]}]}]') \\g /dev/null
\\echo :SQLSTATE"
expect "U1 writes a row into every table (RPCs)" "00000" "$(as_commit authenticated "$U1" "$SEED")"
# "table:count" of each registered table, as the statement's caller (counts under RLS).
counts_sql() { # where clause over the table (%1\$I = its tenant column)
  local t col sql=""
  while read -r t col; do
    sql+="select '$t:' || count(*) from public.$t where $(printf "${1//\%1\$I/%s}" "$col");
"
  done < <(q -c "select table_name::text || ' ' || tenant_col from agentmem.tenant_tables order by 1" | tr '|' ' ')
  printf '%s' "$sql"
}
ALL_ONE="agent_memories:1,agent_memory_counters:1,agent_memory_vectors:1,contractor_leads:1,contractors:1,langgraph_checkpoint_blobs:1,langgraph_checkpoint_writes:1,langgraph_checkpoints:1,langgraph_store_items:1,langgraph_store_vectors:1,langgraph_threads:1,memory_access_log:1,memory_references:1,research_drafts:1,research_sessions:1,unified_conversation_memory:3,unified_conversations:1,workflow_agent_states:1"
ALL_ZERO=$(sed 's/:[0-9]*/:0/g' <<<"$ALL_ONE")
expect "U1 sees each own row (unified memory: a field, last_state_update, a link)" "$ALL_ONE" "$(as_api authenticated "$U1" "$(counts_sql true)" | paste -sd,)"
expect "the rows are U1's by their tenant column" "$ALL_ONE" "$(q -c "$(counts_sql "%1\$I = '$U1'")" | paste -sd,)"
expect "U2 sees none of them" "$ALL_ZERO" "$(as_api authenticated "$U2" "$(counts_sql true)" | paste -sd,)"
expect "the service role acting for nobody: none of them through a tenant filter" "$ALL_ZERO" \
  "$(as_api service_role "" "$(counts_sql "%1\$I = agentmem.tenant()")" | paste -sd,)"
expect "the service role acting for U1: all of them" "$ALL_ONE" \
  "$(acting_for "$U1" as_api service_role "" "$(counts_sql "%1\$I = agentmem.tenant()")" | paste -sd,)"
# Per table: a read, an insert of a row for U1, an update, a delete and a TRUNCATE, each
# as its own statement; prints "table:SQLSTATE/rows,...".
each_table_sql() {
  local t col sql=""
  while read -r t col; do
    sql+="select count(*) as n from public.$t \\gset
\\echo $t:select::SQLSTATE/:n
insert into public.$t ($col) values ('$U1');
\\echo $t:insert::SQLSTATE
with x as (update public.$t set $col = $col returning 1) select count(*) as n from x \\gset
\\echo $t:update::SQLSTATE/:n
with x as (delete from public.$t returning 1) select count(*) as n from x \\gset
\\echo $t:delete::SQLSTATE/:n
truncate public.$t cascade;
\\echo $t:truncate::SQLSTATE
"
  done < <(q -c "select table_name::text || ' ' || tenant_col from agentmem.tenant_tables order by 1" | tr '|' ' ')
  printf '%s' "$sql"
}
# The answers allowed: a read is refused or empty, a write refused or touching nothing.
judge() { # every line (5 per table) must be one of the safe outcomes
  local line unsafe="" n=0
  while read -r line; do
    n=$((n + 1))
    case "$line" in
      *:select:42501/* | *:select:00000/0 | *:insert:42501 | *:update:42501/* | *:update:00000/0 | \
        *:delete:42501/* | *:delete:00000/0 | *:truncate:42501) ;;
      *) unsafe+="$line " ;;
    esac
  done
  [ "$n" = $((5 * TABLES)) ] || unsafe+="($n answers, not $((5 * TABLES)))"
  printf '%s' "${unsafe:-none}"
}
expect "anon: every table refused or empty (select, insert, update, delete, truncate)" none \
  "$(as_api anon "" "$(each_table_sql)" | judge)"
expect "anon after a project re-grants everything to anon/authenticated: still nothing" none \
  "$(regranted as_api anon "" "$(each_table_sql)" | judge)"
expect "U2 after the re-grant: nothing of U1's, no TRUNCATE" none \
  "$(regranted as_api authenticated "$U2" "$(each_table_sql)" | judge)"
expect "... TRUNCATE refused by the trigger (the grant is there)" "$TABLES" \
  "$(regranted as_api authenticated "$U2" "$(each_table_sql)" | grep -c ':truncate:42501')"
expect "... with the message of agentmem.refuse_truncate" "agentmem: agent_memories cannot be truncated by role authenticated" \
  "$(regranted as_api authenticated "$U2" "truncate public.agent_memories cascade;
\\echo :LAST_ERROR_MESSAGE")"
expect "a sub-less token after the re-grant: every table read PT401" "$TABLES" \
  "$(API_CLAIMS='{"role":"authenticated"}' regranted as_api authenticated "" "$(each_table_sql)" | grep -c ':select:PT401/')"
expect "U1's rows intact after all that" "$ALL_ONE" "$(q -c "$(counts_sql "%1\$I = '$U1'")" | paste -sd,)"
expect "service_role has no TRUNCATE privilege either (42501)" "42501" \
  "$(sqlstate service_role "" "truncate public.research_drafts")"

# Deleting a user (Supabase Auth deletes from auth.users) deletes their rows everywhere.
q -c "delete from auth.users where id = '$U1'" >/dev/null
expect "deleting U1 from auth.users deletes U1's rows from every table" "$ALL_ZERO" \
  "$(q -c "$(counts_sql "%1\$I = '$U1'")" | paste -sd,)"
q -c "delete from auth.users where id = '$U2'" >/dev/null

# --- stop, warm restart, stop ------------------------------------------------------------
t0=$(ms)
"$PG" stop 2>/dev/null
t_stop=$(($(ms) - t0))
st=0; "$PG" status >/dev/null || st=$?
expect "status after stop (exit 3)" 3 "$st"
expect "nothing listens after stop" "" "$(ss -Hltn "sport = :$port")"
"$PG" stop 2>/dev/null || fail "stop when stopped is not a no-op"
ok "stop when stopped is a no-op"
t0=$(ms)
"$PG" start >/dev/null 2>&1
t_warm=$(($(ms) - t0))
expect "data survives a restart" 2 "$(q -c 'select count(*) from public.t_notes')"
out=$("$ROOT/scripts/migrate.sh" 2>&1)
grep -q '^applied' <<<"$out" && fail "migrate after restart applied something: $out"
ok "migrate after restart applies nothing"
"$PG" stop 2>/dev/null

log "postgres stack test passed: $checks checks; cold start ${t_cold} ms, start when running ${t_again} ms, stop ${t_stop} ms, warm start ${t_warm} ms"
