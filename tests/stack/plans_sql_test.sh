#!/usr/bin/env bash
# The RPCs keep to their keys with the plans Postgres caches for them. A plpgsql function's
# statement is planned with each call's values for its first five calls in a connection;
# after that Postgres may keep one generic plan, chosen without the values. A generic plan
# that reads a table sequentially reads every tenant's rows: a call then costs as much as
# the table is large (the store's put did, until 2026-11-28: 2.6 ms instead of 0.7 at 26,000
# items). So: another tenant's rows are seeded (enough for the planner to weigh a sequential
# scan against an index), then, in one connection, each RPC is called more than five times
# and no statement of the transaction may have scanned one of the tables sequentially
# (pg_stat_xact_user_tables). Counts, not timings: the check holds on any machine.
#
# Runs on the stack named by AGENTMEM_PG_PORT / AGENTMEM_STACK_DIR, like the other SQL tests;
# its two users are deleted at the end (with their rows: the agentmem_forget_user trigger).
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"

PG="$ROOT/scripts/postgres.sh"
started=0
"$PG" status >/dev/null 2>&1 || started=1

A=$(cat /proc/sys/kernel/random/uuid)   # the caller
O=$(cat /proc/sys/kernel/random/uuid)   # another tenant, whose rows fill the tables

cleanup() {
  local rc=$?
  "$PG" psql -X -q -At -c "$(stats reset)" >/dev/null 2>&1 || true
  "$PG" psql -X -q -At -c "delete from auth.users where id in ('$A', '$O')" >/dev/null 2>&1 || true
  if [ "$started" = 1 ]; then "$PG" stop >/dev/null 2>&1 || true; fi
  exit "$rc"
}
trap cleanup EXIT

source "$(dirname "${BASH_SOURCE[0]}")/sql_lib.sh"

TABLE_NAMES=(langgraph_checkpoints langgraph_checkpoint_blobs langgraph_checkpoint_writes langgraph_threads
             langgraph_store_items langgraph_store_vectors agent_memories)
TABLES=$(printf "'%s'," "${TABLE_NAMES[@]}")
TABLES=${TABLES%,}
# The statistics of a project whose rows are mostly one tenant's in a few namespaces (a
# server writing as the service role): `stats set` makes ANALYZE record them whatever rows
# the stack holds, `stats reset` gives the columns back their own.
stats() { # set|reset
  local t sql="" how
  if [ "$1" = set ]; then how="set (n_distinct = 1)"; else how="reset (n_distinct)"; fi
  for t in "${TABLE_NAMES[@]}"; do
    sql+="alter table public.$t alter column $([ "$t" = agent_memories ] && echo user_id || echo tenant_id) $how; "
  done
  sql+="alter table public.langgraph_store_items alter column namespace ${how/= 1/= 2}; "
  echo "$sql analyze $(printf 'public.%s, ' "${TABLE_NAMES[@]}" | sed 's/, $//');"
}

log "plans SQL test (port ${AGENTMEM_PG_PORT:-54329}, users A=$A O=$O)"
"$ROOT/scripts/migrate.sh" --with-optional >&2
q -c "insert into auth.users (id, email) values ('$A', 'plans-a-$A@example.test'), ('$O', 'plans-o-$O@example.test')"

DIMS=$(q -c "select public.langgraph_store_dimensions()")
# A vector of the store's dimension: 1 at position $1, 0 elsewhere (as JSON and as text).
vec() { q -c "select '[' || string_agg(case when i = $1 then '1' else '0' end, ',' order by i) || ']' from generate_series(1, $DIMS) i"; }
V1=$(vec 1)

# The other tenant's rows, enough of each that reading a table sequentially is the wrong
# plan (straight into the tables, as their owner: much faster than through the RPCs; the
# planner weighs only how many rows there are and how they are spread): 20,000 checkpoints
# in 2,000 threads (so 2,000 thread rows), as many blobs and pending writes, 20,000 store
# items with a vector each, and 1,000 memories (their vector index is slow to fill); then
# statistics (see `stats`).
q -c "insert into public.langgraph_checkpoints (thread_key, checkpoint_ns, checkpoint_id, checkpoint, metadata)
        select '$O/seed-' || (i % 2000), '', 'cp-' || lpad(i::text, 6, '0'), '{}', '{}' from generate_series(1, 20000) i;
      insert into public.langgraph_checkpoint_blobs (thread_key, checkpoint_ns, channel, version, type, blob)
        select '$O/seed-' || (i % 2000), '', 'n', i::text, 'json', '\\x31' from generate_series(1, 20000) i;
      insert into public.langgraph_checkpoint_writes (thread_key, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob)
        select '$O/seed-' || (i % 2000), '', 'cp-' || lpad(i::text, 6, '0'), 'task', 0, 'n', 'json', '\\x31'
          from generate_series(1, 20000) i;
      insert into public.langgraph_store_items (tenant_id, namespace, key, value)
        select '$O', array['seed', 'n' || (i % 2)], 'k' || i, jsonb_build_object('text', 'note ' || i) from generate_series(1, 20000) i;
      insert into public.langgraph_store_vectors (tenant_id, namespace, key, field, embedding)
        select '$O', array['seed', 'n' || (i % 2)], 'k' || i, 'text', '$V1' from generate_series(1, 20000) i;
      insert into public.agent_memories (user_id, agent_id, content, memory_type, embedding)
        select '$O', 'seed-agent', 'seed memory ' || i, 'fact', '$V1' from generate_series(1, 1000) i;"
q -c "$(stats set)"

# One connection, one transaction: each RPC eight times (plans cached from the sixth), then
# the sequential scans this transaction made on the tables.
calls=$(cat <<SQL
select public.langgraph_put('mine', '', 'cp-' || lpad(i::text, 4, '0'), case when i > 1 then 'cp-' || lpad((i - 1)::text, 4, '0') end, null,
         jsonb_build_object('v', 4, 'id', 'cp-' || i, 'channel_versions', jsonb_build_object('n', i)), '{"step": 1}',
         jsonb_build_array(jsonb_build_object('channel', 'n', 'version', i::text, 'type', 'json', 'text', i::text)),
         '{"human": "hi", "ai": "hello"}')
  from generate_series(1, 8) i \\g /dev/null
SQL
)
for i in 1 2 3 4 5 6 7 8; do
  calls+="
select public.langgraph_put('mine', '', 'cp-000$i-b', null, null, jsonb_build_object('v', 4, 'id', 'b', 'channel_versions', jsonb_build_object('m', $i)), '{}',
         jsonb_build_array(jsonb_build_object('channel', 'm', 'version', '$i', 'type', 'json', 'text', '$i'))) \\g /dev/null
select public.langgraph_put_writes('mine', '', 'cp-000$i', 'task-$i', '', '[{\"channel\": \"n\", \"type\": \"json\", \"text\": \"1\"}]') \\g /dev/null
select public.langgraph_get_tuple('mine') \\g /dev/null
select public.langgraph_get_tuple('mine', '', 'cp-000$i') \\g /dev/null
select public.langgraph_list('mine', '', null, null, null, 10) \\g /dev/null
select public.langgraph_list_threads() \\g /dev/null
select public.langgraph_store_batch('[{\"op\": \"put\", \"namespace\": [\"mine\", \"a\"], \"key\": \"k$i\", \"value\": {\"text\": \"note $i\"},
         \"text\": \"note $i\", \"config\": \"english\", \"vectors\": [{\"field\": \"text\", \"embedding\": $V1}]}]') \\g /dev/null
select public.langgraph_store_batch('[{\"op\": \"get\", \"namespace\": [\"mine\", \"a\"], \"key\": \"k$i\", \"refresh\": true},
         {\"op\": \"search\", \"prefix\": [\"mine\"], \"limit\": 10, \"offset\": 0, \"filter\": null},
         {\"op\": \"search\", \"prefix\": [\"mine\"], \"vector\": $V1, \"limit\": 10, \"offset\": 0, \"filter\": null},
         {\"op\": \"list\", \"conditions\": [{\"type\": \"prefix\", \"path\": [\"mine\"]}], \"maxDepth\": null}]') \\g /dev/null
select public.create_agent_memory('agent', 'memory $i', 'fact', 0.5, '$V1') \\g /dev/null
select count(*) from public.search_agent_memories('$V1', 'agent', 0.0, 5) \\g /dev/null"
done
scans=$(as_api authenticated "$A" "$calls
select coalesce(string_agg(relname || ' ' || seq_scan, ', ' order by relname), 'none')
  from pg_stat_xact_user_tables where schemaname = 'public' and relname in ($TABLES) and seq_scan > 0;")
expect "eight calls of each RPC in one connection (the later ones on cached plans) scan no table sequentially" "none" "$scans"
expect "the calls did their work (8 + 8 checkpoints, 8 writes, 8 items, 8 memories: seen before the rollback)" "ok" \
  "$(as_api authenticated "$A" "$calls
select case when (select count(*) from public.langgraph_checkpoints where thread_id = 'mine') = 16
             and (select count(*) from public.langgraph_checkpoint_writes where thread_id = 'mine') = 8
             and (select count(*) from public.langgraph_store_items where namespace = '{mine,a}') = 8
             and (select count(*) from public.agent_memories where agent_id = 'agent') = 8 then 'ok' else 'missing' end;")"

log "plans SQL test: $checks checks, $failed failed"
[ "$failed" = 0 ]
