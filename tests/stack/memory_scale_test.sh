#!/usr/bin/env bash
# Memory search at scale: search_agent_memories held to its contract (the best k of the
# caller's memories that pass the filters, ties by id: exactly while at most 20,000
# qualify, recall@k >= 0.99 above, never fewer than k while k qualify), in a scratch
# database of the stack's Postgres with clustered vectors made in SQL
# (tests/stack/memory_scale.sql), for each filter kind (none, a common agent, a rare agent,
# a rare type, agent and type), with statistics stale (ANALYZE ran when the table was
# small, autovacuum off; nothing vacuumed since the load) and fresh (VACUUM ANALYZE, as
# autovacuum leaves the tables), in one long-lived session and in a fresh session per
# query, with access recording off and on. Prints recall, result counts and p50/p95 per
# case; fails when the contract does not hold (latency is reported, not asserted).
#
#   tests/stack/memory_scale_test.sh     CI size: one tenant of 24,000 memories (10 agents,
#                                        "rare" has 150) among 40 tenants of 300
#   AGENTMEM_SCALE=bench ...             the bench size (bench/memory_scale.sh): 60,000
#                                        among 200 tenants of 200, 20 queries per case,
#                                        plus insert cost and a bulk neighbour
# AGENTMEM_SCALE_REPORT=FILE writes the report (markdown) there too; AGENTMEM_SCALE_KEEP=1
# keeps the scratch database (and Postgres running) for a look afterwards.
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"

PG="$ROOT/scripts/postgres.sh"
started=0
"$PG" status >/dev/null 2>&1 || started=1
"$PG" start >/dev/null
DB="agentmem_scale_$$"
cleanup() {
  local rc=$?
  [ "${AGENTMEM_SCALE_KEEP:-}" = 1 ] ||
    "$PG" psql -X -q -c "drop database if exists $DB with (force)" -c "drop database if exists ${DB}_wide with (force)" >/dev/null 2>&1 || true
  if [ "$started" = 1 ] && [ "${AGENTMEM_SCALE_KEEP:-}" != 1 ]; then "$PG" stop >/dev/null 2>&1 || true; fi
  exit "$rc"
}
trap cleanup EXIT

case "${AGENTMEM_SCALE:-ci}" in
  ci) BIG=24000 OTHERS=40 EACH=300 QUERIES=10 ;;
  bench) BIG=60000 OTHERS=200 EACH=200 QUERIES=20 ;;
  *) echo "memory_scale_test: AGENTMEM_SCALE must be ci or bench" >&2; exit 2 ;;
esac
K=10
log "memory search at scale (${AGENTMEM_SCALE:-ci}: $BIG memories of one tenant among $OTHERS tenants of $EACH; scratch database $DB)"

sql_in() { local db=$1; shift; PGOPTIONS="-c client_min_messages=warning" "$PG" psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" "$@"; }
sql() { sql_in "$DB" "$@"; }
migrated_db() { # name: a new database with the migrations and tests/stack/memory_scale.sql
  "$PG" psql -X -q -c "create database $1" >/dev/null
  local f
  for f in "$ROOT/supabase/local/bootstrap.sql" $(printf '%s\n' "$ROOT"/supabase/migrations/*.sql | LC_ALL=C sort) \
           "$ROOT/tests/stack/memory_scale.sql"; do
    sql_in "$1" --single-transaction -o /dev/null -f "$f"
  done
}
migrated_db "$DB"

U1=$(cat /proc/sys/kernel/random/uuid)
topics=$((8 * (OTHERS + 2) + 64)) # every tenant's topics, and the weak queries' beyond the last
t0=$SECONDS
sql -c "select scale.prepare($topics)" >/dev/null
sql -c "insert into auth.users (id, email) values ('$U1', 'u1@scale.test')" \
    -c "insert into auth.users (id, email) select ('00000000-0000-4000-8000-' || lpad(t::text, 12, '0'))::uuid, t || '@scale.test' from generate_series(1, $OTHERS) t" >/dev/null
# Statistics from when the table was small: 100 rows analysed, then autovacuum off.
sql -c "alter table agent_memories set (autovacuum_enabled = false, toast.autovacuum_enabled = false)" \
    -c "alter table agent_memory_vectors set (autovacuum_enabled = false)" \
    -c "select scale.load('$U1', 0, 100, 10, 0)" -c "analyze agent_memories" >/dev/null
sql -c "delete from agent_memories" >/dev/null
sql -c "select scale.load('$U1', 0, $BIG, 10, 150)" \
    -c "select scale.load(('00000000-0000-4000-8000-' || lpad(t::text, 12, '0'))::uuid, 8 * t, $EACH, 3, 0) from generate_series(1, $OTHERS) t" >/dev/null
log "loaded $((BIG + OTHERS * EACH)) memories in $((SECONDS - t0)) s (HNSW index maintained on insert)"

sql -c "insert into scale.cases values ('none', null, null), ('agent', 'agent-3', null), ('rare agent', 'rare', null),
                                       ('rare type', null, '{decision}'), ('agent+type', 'agent-3', '{preference}')" >/dev/null
as_user_in() { # database, then the statements: a session as U1
  local db=$1; shift
  sql_in "$db" -c "set role authenticated" -c "select set_config('request.jwt.claims', '{\"sub\":\"$U1\",\"role\":\"authenticated\"}', false)" -o /dev/null "$@"
}
as_user() { as_user_in "$DB" "$@"; }
run_all() { # label (stats), record
  local label=$1 record=$2 name q
  # one long-lived session: every query of every case
  as_user -c "select scale.run('$label, long-lived, record $record', '$U1', 0, $QUERIES, $K, $record)" >/dev/null
  # a fresh session per query
  for name in none agent 'rare agent' 'rare type' agent+type; do
    for q in $(seq 0 $((QUERIES - 1))); do
      as_user -c "select scale.run('$label, fresh session, record $record', '$U1', 0, 1, $K, $record, '$name', $q)" >/dev/null
    done
  done
}
run_all stale false
run_all stale true
# What autovacuum does once the load is done: statistics, and the visibility map that lets
# the search read the copies' index alone.
sql -c "vacuum analyze agent_memories" -c "vacuum analyze agent_memory_vectors" >/dev/null
run_all fresh false
run_all fresh true

# Recording access never rewrites a memory's row (which would add HNSW entries per access).
# (The sessions that searched have ended, which flushed their statistics.)
upd=$(sql -c "select n_tup_upd + n_tup_hot_upd from pg_stat_user_tables where relname = 'agent_memories'")
recorded=$(sql -c "select count(*) from agent_memory_counters")
[ "$upd" = 0 ] && [ "$recorded" -gt 0 ] || { echo "memory_scale_test: recording access updated agent_memories $upd times (counters: $recorded)" >&2; exit 1; }

if [ "${AGENTMEM_SCALE:-ci}" = bench ]; then
  # Insert cost with the HNSW index maintained (pgvector's defaults m = 16, ef_construction =
  # 64), per 10,000 memories, on top of what is loaded.
  NEW=00000000-0000-4000-9000-000000000001
  sql -c "insert into auth.users (id, email) values ('$NEW', 'new@scale.test')" >/dev/null
  ins=$(sql -c "select round(scale.timed(\$\$select scale.load('$NEW', 8 * ($OTHERS + 1), 10000, 5, 0)\$\$)::numeric, 1)")
  noemb=$(sql -c "select round(scale.timed(\$\$insert into agent_memories (user_id, agent_id, content, memory_type)
                    select '$NEW', 'x', 'm' || i, 'fact' from generate_series(1, 10000) i\$\$)::numeric, 2)")
  # A bulk neighbour: user B's search (20 memories) before and after another user loads
  # 26,000 memories on B's topics and searches them 300 times with recording on.
  B=00000000-0000-4000-9000-000000000002 N=00000000-0000-4000-9000-000000000003
  sql -c "insert into auth.users (id, email) values ('$B', 'b@scale.test'), ('$N', 'n@scale.test')" \
      -c "select scale.load('$B', 8 * $OTHERS, 20, 2, 0)" >/dev/null
  b_p50() {
    sql -c "set role authenticated" -c "select set_config('request.jwt.claims', '{\"sub\":\"$B\",\"role\":\"authenticated\"}', false)" \
        -c "delete from scale.results where label = 'b'" \
        -c "select scale.run('b', '$B', 8 * $OTHERS, 40, $K, true, 'none')" \
        -c "select round(percentile_cont(0.5) within group (order by ms)::numeric, 2) from scale.results where label = 'b'" | tail -n 1
  }
  before=$(b_p50)
  sql -c "select scale.load('$N', 8 * $OTHERS, 26000, 2, 0)" >/dev/null
  sql -c "set role authenticated" -c "select set_config('request.jwt.claims', '{\"sub\":\"$N\",\"role\":\"authenticated\"}', false)" \
      -c "select scale.run('n', '$N', 8 * $OTHERS, 60, $K, true)" >/dev/null
  after=$(b_p50)
  sql -c "delete from scale.results where label in ('b', 'n')" >/dev/null
  extra=$(printf '\ninsert: %s s per 10,000 memories with an embedding (HNSW m=16, ef_construction=64), %s s without one\nbulk neighbour: user B (20 memories) search p50 %s ms before, %s ms after a neighbour loaded 26,000 memories on B'"'"'s topics and ran 300 searches recording access (%sx)\n' \
    "$ins" "$noemb" "$before" "$after" "$(python3 -c "print(round($after / $before, 2))")")
fi

# Wide embeddings (bench size only): 1,536 dimensions, as OpenAI's text-embedding-3-small
# gives, in a second scratch database: one tenant of 20,000 memories (10 agents), answered
# exactly (the contract's case up to 20,000: the HNSW index is dropped, as that path does not
# read it and building it is not what is measured), one long-lived session, recording off.
# A copy of 1,536 dimensions is 3 KB: what stays in the copies' rows (agentmem.keep_vectors_in_line)
# is what this measures.
if [ "${AGENTMEM_SCALE:-ci}" = bench ]; then
  WIDE="${DB}_wide"
  migrated_db "$WIDE"
  t0=$SECONDS
  sql_in "$WIDE" -c "select set_agent_memory_dimensions(1536)" -c "drop index agent_memories_embedding_hnsw_idx" \
                 -c "select scale.prepare(8 + 64)" -c "insert into auth.users (id, email) values ('$U1', 'u1@scale.test')" \
                 -c "select scale.load('$U1', 0, 20000, 10, 150)" \
                 -c "vacuum analyze agent_memories" -c "vacuum analyze agent_memory_vectors" \
                 -c "insert into scale.cases values ('none, 1536 dims', null, null), ('agent, 1536 dims', 'agent-3', null)" >/dev/null
  log "loaded 20000 memories of 1536 dimensions in $((SECONDS - t0)) s (no HNSW index)"
  as_user_in "$WIDE" -c "select scale.run('fresh, long-lived, record false', '$U1', 0, $QUERIES, $K, false)" >/dev/null
fi

# How many memories pass each case's filters (the contract's threshold), and the report
# and the contract's breaches of one database's runs.
qualify() {
  sql_in "$1" -c "create table scale.qualifying as
    select c.name, (select count(*) from agent_memories m where m.user_id = '$U1' and m.embedding is not null
                      and (c.agent is null or m.agent_id = c.agent) and (c.types is null or m.memory_type = any (c.types))
                      and (m.expires_at is null or m.expires_at > now())) as n
      from scale.cases c" >/dev/null
}
report_of() {
  sql_in "$1" -c "\pset tuples_only off" -c "\pset format aligned" -c "\pset border 2" -c "
    select r.label as run, r.name as filter, q.n as qualifying, count(*) as queries,
           round(min(r.recall)::numeric, 3) as min_recall, round(avg(r.recall)::numeric, 4) as recall,
           sum(r.returned) || '/' || sum(r.expected) as results,
           round(percentile_cont(0.5) within group (order by r.ms)::numeric, 1) as p50_ms,
           round(percentile_cont(0.95) within group (order by r.ms)::numeric, 1) as p95_ms
      from scale.results r join scale.qualifying q using (name)
     group by r.label, r.name, q.n order by r.label, r.name"
}
breaches_of() {
  sql_in "$1" -c "
    select r.label || ' / ' || r.name || ': ' ||
           case when sum(r.returned) <> sum(r.expected) then sum(r.returned) || ' results of ' || sum(r.expected)
                else 'recall ' || round(avg(r.recall)::numeric, 4) || ' (min ' || round(min(r.recall)::numeric, 3) || ')' end
      from scale.results r join scale.qualifying q using (name)
     group by r.label, r.name, q.n
    having sum(r.returned) <> sum(r.expected)
        or (q.n <= 20000 and min(r.recall) < 1)
        or (q.n > 20000 and avg(r.recall) < 0.99)"
}
qualify "$DB"
report=$(report_of "$DB")
bad=$(breaches_of "$DB")
if [ -n "${WIDE:-}" ]; then
  qualify "$WIDE"
  report+=$'\n\n'"$(report_of "$WIDE")"
  bad=$(printf '%s\n%s\n' "$bad" "$(breaches_of "$WIDE")" | sed '/^$/d')
fi
printf '%s\n%s\n' "$report" "${extra:-}"
[ -z "${AGENTMEM_SCALE_REPORT:-}" ] || printf '%s\n%s\n' "$report" "${extra:-}" >"$AGENTMEM_SCALE_REPORT"

# The contract.
if [ -n "$bad" ]; then
  printf 'memory_scale_test: the search contract does not hold:\n%s\n' "$bad" >&2
  exit 1
fi
log "memory search at scale: the contract holds for every case ($(sql -c "select count(*) from scale.results")${WIDE:+ + $(sql_in "$WIDE" -c "select count(*) from scale.results")} searches)"
