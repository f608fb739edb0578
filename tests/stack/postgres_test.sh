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
ok() { printf '  ok  %s\n' "$1"; }
fail() { printf '  FAIL %s\n' "$1" >&2; exit 1; }
expect() { # name, expected, actual
  if [ "$2" == "$3" ]; then ok "$1"; else fail "$1: expected [$2], got [$3]"; fi
}
q() { "$PG" psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
# As the PostgREST login role, inside one transaction, as `role` with the JWT claims of
# `sub`, exactly as PostgREST does it: set local role + set_config(..., true).
as_api() { # role, sub ('' for none), sql (errors do not stop; :SQLSTATE is available)
  local claims
  if [ -n "$2" ]; then claims="{\"sub\":\"$2\",\"role\":\"$1\"}"; else claims="{\"role\":\"$1\"}"; fi
  "$PG" psql -X -q -At -U authenticator 2>/dev/null <<EOF
begin;
set local role $1;
select set_config('request.jwt.claims', '$claims', true) \g /dev/null
$3
rollback;
EOF
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
out=$("$ROOT/scripts/migrate.sh" 2>&1)
grep -q '^applied 20261121000000_extensions.sql$' <<<"$out" || fail "first migrate: $out"
ok "first migrate applies 20261121000000_extensions.sql"
out=$("$ROOT/scripts/migrate.sh" 2>&1)
grep -q '^applied' <<<"$out" && fail "second migrate applied something: $out"
ok "second migrate applies nothing"
expect "recorded like the Supabase CLI" "extensions|t" \
  "$(q -c "select name, statements[1] like '%create extension if not exists vector%' from supabase_migrations.schema_migrations where version = '20261121000000'")"
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

log "postgres stack test passed: cold start ${t_cold} ms, start when running ${t_again} ms, stop ${t_stop} ms, warm start ${t_warm} ms"
