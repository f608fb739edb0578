#!/usr/bin/env bash
# The RPCs keep to their keys with the plans Postgres caches for them. A plpgsql function's
# statement is planned with each call's values for its first five calls in a connection;
# after that Postgres may keep one generic plan, chosen without the values. A generic plan
# that reads a table sequentially reads every tenant's rows: a call then costs as much as
# the table is large (the store's put did, until 2026-11-28: 2.6 ms instead of 0.7 at 26,000
# items). So: another tenant's rows are seeded (enough for the planner to weigh a sequential
# scan against an index), then, in one connection, each RPC is called more than five times
# and no statement of the transaction may have scanned one of the tables sequentially
# (pg_stat_xact_user_tables). The caller has 20,000 rows of their own in each table besides
# those the calls touch, and a call about one object may read only a few of them: a plan
# cached for a tenant of a few rows (the column's average) that reads the caller's every
# row is caught as well. Counts, not timings: the checks hold on any machine.
# Every tenant table is seeded and checked, and every RPC a request calls is called: the
# checkpoint saver's, the store's, the memories', the state stores' (unified conversations,
# workflow states, research sessions) and the contractors'.
#
# Runs on the stack named by AGENTMEM_PG_PORT / AGENTMEM_STACK_DIR, like the other SQL tests;
# its two users are deleted at the end (with their rows: the agentmem_forget_user trigger),
# and the cleanup checks that nothing of theirs is left and the statistics are the columns' own.
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"

PG="$ROOT/scripts/postgres.sh"
started=0
"$PG" status >/dev/null 2>&1 || started=1

A=$(cat /proc/sys/kernel/random/uuid)   # the caller
O=$(cat /proc/sys/kernel/random/uuid)   # another tenant, whose rows fill the tables
ERRORS=$(mktemp)                        # the calls' errors

cleanup() {
  local rc=$? left
  # (The rows that reference others first: a cascade from 20,000 rows is a query per row.)
  "$PG" psql -X -q -At -c "$(for t in memory_access_log memory_references agent_memory_counters agent_memory_vectors \
                                    research_drafts contractors; do
                               echo "delete from public.$t where $(tenant_col "$t") in ('$A', '$O');"
                             done)
    delete from auth.users where id in ('$A', '$O')" >/dev/null 2>&1 || true
  "$PG" psql -X -q -At -c "$(stats reset)" >/dev/null 2>&1 || true
  # Nothing of either user is left in any tenant table, and the columns have their own
  # statistics again.
  left=$("$PG" psql -X -q -At -c "do \$\$ declare t record; n bigint; total bigint := 0; begin
      for t in select table_name, tenant_col from agentmem.tenant_tables loop
        execute format('select count(*) from %s where %I in (''$A'', ''$O'')', t.table_name, t.tenant_col) into n;
        total := total + n;
      end loop;
      raise notice '%', total; end \$\$;
    select count(*) from pg_attribute where attrelid in (select table_name from agentmem.tenant_tables) and attoptions is not null" 2>&1 |
    sed 's/^NOTICE:  //' | paste -sd'|') || true
  if [ "$left" != "0|0" ]; then
    printf '  FAIL cleanup: rows of the two users left|columns with set statistics: expected [0|0], got [%s]\n' "$left" >&2
    rc=1
  fi
  rm -f "$ERRORS"
  if [ "$started" = 1 ]; then "$PG" stop >/dev/null 2>&1 || true; fi
  exit "$rc"
}
trap cleanup EXIT

source "$(dirname "${BASH_SOURCE[0]}")/sql_lib.sh"

# Every tenant table (agentmem.tenant_tables, checked below), with its tenant column.
TABLE_NAMES=(langgraph_checkpoints langgraph_checkpoint_blobs langgraph_checkpoint_writes langgraph_threads
             langgraph_store_items langgraph_store_vectors
             agent_memories memory_references memory_access_log agent_memory_counters agent_memory_vectors
             unified_conversations unified_conversation_memory workflow_agent_states research_sessions research_drafts
             contractor_leads contractors)
tenant_col() { case $1 in agent_memor* | memory_*) echo user_id ;; *) echo tenant_id ;; esac; }
TABLES=$(printf "'%s'," "${TABLE_NAMES[@]}")
TABLES=${TABLES%,}
# Statistics that ANALYZE records whatever rows the stack holds: `stats set`, those of a
# project whose rows are mostly one tenant's in a few namespaces (a server writing as the
# service role: a key's rows look many, and reading a whole table cheap); `stats many`, of
# one where every tenant and namespace looks tiny (a key's rows look like one, and reading
# and sorting a range of them cheap); `stats reset` gives the columns back their own.
stats() { # set|many|reset
  # (Autovacuum, busy with the rows just written or deleted, holds the lock that ALTER
  # TABLE and ANALYZE take; a waiter has it cancelled after deadlock_timeout, 1 s by default.)
  local t sql="set deadlock_timeout = '10ms'; " how ns
  case $1 in
    set) how="set (n_distinct = 1)" ns="set (n_distinct = 2)" ;;
    many) how="set (n_distinct = -0.5)" ns="set (n_distinct = -1)" ;;
    *) how="reset (n_distinct)" ns=$how ;;
  esac
  for t in "${TABLE_NAMES[@]}"; do
    sql+="alter table public.$t alter column $(tenant_col "$t") $how; "
  done
  sql+="alter table public.langgraph_store_items alter column namespace $ns; "
  echo "$sql analyze $(printf 'public.%s, ' "${TABLE_NAMES[@]}" | sed 's/, $//');"
}

log "plans SQL test (port ${AGENTMEM_PG_PORT:-54329}, users A=$A O=$O)"
"$ROOT/scripts/migrate.sh" --with-optional >&2
expect "the tables are the tenant tables, each with its tenant column" \
  "$(for t in "${TABLE_NAMES[@]}"; do echo "$t:$(tenant_col "$t")"; done | sort | paste -sd,)" \
  "$(q -c "select string_agg(table_name::text || ':' || tenant_col, ',' order by table_name::text collate \"C\") from agentmem.tenant_tables")"
q -c "insert into auth.users (id, email) values ('$A', 'plans-a-$A@example.test'), ('$O', 'plans-o-$O@example.test')"

# 20,000 checkpoints of 10,000 threads keyed $1<n> ('<tenant>/<name>-'), a value and a
# pending write each.
thread_rows() {
  printf "%s " \
    "insert into public.langgraph_checkpoints (thread_key, checkpoint_ns, checkpoint_id, checkpoint, metadata)
       select '$1' || (i % 10000), '', 'cp-' || lpad(i::text, 6, '0'), '{}', '{}' from generate_series(1, 20000) i;" \
    "insert into public.langgraph_checkpoint_blobs (thread_key, checkpoint_ns, channel, version, type, blob)
       select '$1' || (i % 10000), '', 'n', i::text, 'json', '\\x31' from generate_series(1, 20000) i;" \
    "insert into public.langgraph_checkpoint_writes (thread_key, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob)
       select '$1' || (i % 10000), '', 'cp-' || lpad(i::text, 6, '0'), 'task', 0, 'n', 'json', '\\x31' from generate_series(1, 20000) i;"
}

# A reference, an access-log row and a counter for each memory of user $1 (a seed's
# memories, as their RPCs leave them).
memory_side_rows() {
  local t
  for t in "memory_references (user_id, memory_id, reference_type, reference_id) select user_id, id, 'rfp', gen_random_uuid()" \
           "memory_access_log (user_id, memory_id, agent_id, access_type) select user_id, id, agent_id, 'read'" \
           "agent_memory_counters (user_id, memory_id, access_count, last_accessed_at) select user_id, id, 1, now()"; do
    printf "insert into public.%s from public.agent_memories where user_id = '%s'; " "$t" "$1"
  done
}

# 20,000 workflow states, research drafts (2,000 sessions) and contractors of tenant $1, named
# $2<n> ('seed-', 'own-'; a contractor's lead $2lead-<n>, company $3 <n>).
state_rows() {
  printf "%s " \
    "insert into public.workflow_agent_states (tenant_id, session_id, created_at, updated_at, stage)
       select '$1', '$2' || i, 0, 0, 'clarification' from generate_series(1, 20000) i;" \
    "insert into public.research_drafts (tenant_id, session_id, phase, version, content, created_at)
       select '$1', '$2' || (i % 2000 + 1), '1_browsing', i, 'draft', 0 from generate_series(1, 20000) i;" \
    "insert into public.contractors (tenant_id, contractor_lead_id, company_name)
       select '$1', '$2lead-' || i, '$3 ' || i from generate_series(1, 20000) i;"
}

DIMS=$(q -c "select public.langgraph_store_dimensions()")
# A vector of the store's dimension: 1 at position $1, 0 elsewhere (as JSON and as text).
vec() { q -c "select '[' || string_agg(case when i = $1 then '1' else '0' end, ',' order by i) || ']' from generate_series(1, $DIMS) i"; }
V1=$(vec 1)
V2=$(vec 2)

# The other tenant's rows, enough of each that reading a table sequentially is the wrong
# plan (straight into the tables, as their owner: much faster than through the RPCs; the
# planner weighs only how many rows there are and how they are spread), at least 100
# pages of each table (checked): 20,000 rows in each, but for the threads (10,000, of two
# checkpoints each) and the memories' search copies (1,000: only a memory with an
# embedding has one, and their vector index is slow to fill, so 1,000 of the 20,000
# memories have one); few distinct values in the other columns (one agent, one stage, one
# phase, ...), as one tenant's rows often have; then statistics (see `stats`).
q -c "$(thread_rows $O/seed-)
      insert into public.langgraph_store_items (tenant_id, namespace, key, value)
        select '$O', array['seed', 'n' || (i % 2)], 'k' || i, jsonb_build_object('text', 'note ' || i) from generate_series(1, 20000) i;
      insert into public.langgraph_store_vectors (tenant_id, namespace, key, field, embedding)
        select '$O', array['seed', 'n' || (i % 2)], 'k' || i, 'text', '$V1' from generate_series(1, 20000) i;
      insert into public.agent_memories (user_id, agent_id, content, memory_type)
        select '$O', 'seed-agent', 'seed memory ' || i, 'fact' from generate_series(1, 20000) i;
      insert into public.research_sessions (tenant_id, session_id, query, current_phase, start_time, last_update)
        select '$O', 'seed-' || i, 'q', '1_browsing', 0, 0 from generate_series(1, 20000) i;
      insert into public.contractor_leads (tenant_id, id, company_name)
        select '$O', 'seed-lead-' || i, 'Seed ' || i from generate_series(1, 20000) i;
      -- (Each row that references another is checked by a query the statistics plan: of
      -- an empty table until the parents are analyzed, a sequential scan per row.)
      analyze public.agent_memories, public.research_sessions, public.contractor_leads;
      update public.agent_memories set embedding = '$V1' where user_id = '$O' and substr(content, 13)::integer <= 1000;
      $(memory_side_rows $O)
      insert into public.unified_conversations (tenant_id, id, contractor_lead_id)
        select '$O', md5('seed-conv-' || i)::uuid, 'seed-lead-' || i from generate_series(1, 20000) i;
      insert into public.unified_conversation_memory (tenant_id, conversation_id, memory_type, memory_key, memory_value)
        select '$O', md5('seed-conv-' || (i / 10))::uuid, case when i % 10 = 0 then 'checkpoint' else 'coia_state' end,
               case when i % 10 = 0 then 'state_checkpoint' else 'field-' || (i % 10) end, '1'
          from generate_series(1, 20000) i;
      $(state_rows $O seed- Seed)
      -- and one large namespace of the caller's own, which their puts add to, and many
      -- conversations of their own, beside the ones their calls delete
      insert into public.langgraph_store_items (tenant_id, namespace, key, value)
        select '$A', array['big', 'n'], 'k' || i, jsonb_build_object('i', i) from generate_series(1, 20000) i;
      insert into public.unified_conversation_memory (tenant_id, conversation_id, memory_type, memory_key, memory_value)
        select '$A', md5('own-conv-' || (i / 10))::uuid, 'coia_state', 'field-' || (i % 10), '1' from generate_series(1, 20000) i;"
# The caller's own rows beside those their calls touch, 20,000 in each table (threads: 10,000),
# under names the calls and the checks of their work do not use (own-…): a call about one
# thread, item, memory, conversation, session or lead reads a few of them at most, whatever
# the caller has besides. Their items expire in part (a refresh then has some to skip), their
# memories spread over the importance tiers, their leads are converted, and their
# conversations' leads have links.
q -c "$(thread_rows $A/own-)
      insert into public.langgraph_store_items (tenant_id, namespace, key, value, ttl_minutes, expires_at)
        select '$A', array['own', 'n' || (i % 2)], 'k' || i, jsonb_build_object('text', 'note ' || i),
               case when i % 2 = 0 then 60 end, case when i % 2 = 0 then now() + interval '1 hour' end
          from generate_series(1, 20000) i;
      insert into public.langgraph_store_vectors (tenant_id, namespace, key, field, embedding)
        select '$A', array['own', 'n' || (i % 2)], 'k' || i, 'text', '$V1' from generate_series(1, 20000) i;
      insert into public.agent_memories (user_id, agent_id, content, memory_type, importance_score, embedding)
        select '$A', 'own-agent', 'own memory ' || i, 'fact', (i % 10) / 10.0,
               case when i % 20 = 0 then '$V1'::extensions.vector end
          from generate_series(1, 20000) i;
      insert into public.research_sessions (tenant_id, session_id, query, current_phase, start_time, last_update)
        select '$A', 'own-' || i, 'q', '1_browsing', 0, 0 from generate_series(1, 20000) i;
      insert into public.contractor_leads (tenant_id, id, company_name, converted_to_contractor, converted_at)
        select '$A', 'own-lead-' || i, 'Own ' || i, true, now() from generate_series(1, 20000) i;
      analyze public.agent_memories, public.research_sessions, public.contractor_leads;
      $(memory_side_rows $A)
      insert into public.unified_conversations (tenant_id, id, contractor_lead_id)
        select '$A', md5('own-conv-' || i)::uuid, 'own-lead-' || i from generate_series(1, 20000) i;
      insert into public.unified_conversation_memory (tenant_id, conversation_id, memory_type, memory_key, memory_value)
        select '$A', md5('own-link-' || i)::uuid, 'contractor_mapping', 'contractor_lead_id', to_jsonb('own-lead-' || i)
          from generate_series(1, 20000) i;
      $(state_rows $A own- Own)"
q -c "$(stats set)"
pages=""
for t in "${TABLE_NAMES[@]}"; do
  pages+="${pages:+ union all }select '$t' as t, count(distinct (ctid::text::point)[0]) as n from public.$t where $(tenant_col "$t") = '$O'"
done
expect "the other tenant's rows fill at least 100 pages of each table" "none" \
  "$(q -c "select coalesce(string_agg(t || ' ' || n, ', ' order by t), 'none') from ($pages) p where n < 100")"

# One connection, one transaction: each RPC eight times (plans cached from the sixth), then
# the sequential scans this transaction made on the tables. The RPCs' own fixtures come
# from RPCs too (a memory to update, a thread to delete, ...), so that each write path runs
# eight times: an update as well as the insert before it, a resend as well as the first call.
calls=$(cat <<SQL
select public.langgraph_put('mine', '', 'cp-' || lpad(i::text, 4, '0'), case when i > 1 then 'cp-' || lpad((i - 1)::text, 4, '0') end, null,
         jsonb_build_object('v', 4, 'id', 'cp-' || i, 'channel_versions', jsonb_build_object('n', i)), '{"step": 1}',
         jsonb_build_array(jsonb_build_object('channel', 'n', 'version', i::text, 'type', 'json', 'text', i::text)),
         '{"human": "hi", "ai": "hello"}')
  from generate_series(1, 8) i \\g /dev/null
SQL
)
for i in 1 2 3 4 5 6 7 8; do
  # checkpoints and the store
  calls+="
select public.langgraph_put('mine', '', 'cp-000$i-b', null, null, jsonb_build_object('v', 4, 'id', 'b', 'channel_versions', jsonb_build_object('m', $i)), '{}',
         jsonb_build_array(jsonb_build_object('channel', 'm', 'version', '$i', 'type', 'json', 'text', '$i'))) \\g /dev/null
select public.langgraph_put_writes('mine', '', 'cp-000$i', 'task-$i', '', '[{\"channel\": \"n\", \"type\": \"json\", \"text\": \"1\"}]') \\g /dev/null
select public.langgraph_get_tuple('mine') \\g /dev/null
select public.langgraph_get_tuple('mine', '', 'cp-000$i') \\g /dev/null
select public.langgraph_list('mine', '', null, null, null, 10) \\g /dev/null
select public.langgraph_list(null, null, null, null, null, 10) \\g /dev/null
select public.langgraph_list_threads() \\g /dev/null
select public.langgraph_list_threads('mine') \\g /dev/null
select public.langgraph_put('gone-$i', '', 'cp-1', null, null, '{\"v\": 4, \"id\": \"cp-1\", \"channel_versions\": {\"n\": 1}}', '{}',
         '[{\"channel\": \"n\", \"version\": \"1\", \"type\": \"json\", \"text\": \"1\"}]') \\g /dev/null
select public.langgraph_put_writes('gone-$i', '', 'cp-1', 'task', '', '[{\"channel\": \"n\", \"type\": \"json\", \"text\": \"1\"}]') \\g /dev/null
select public.langgraph_delete_thread('gone-$i') \\g /dev/null
select public.langgraph_checkpoint_metrics('mine') \\g /dev/null
select public.langgraph_store_batch('[{\"op\": \"put\", \"namespace\": [\"mine\", \"a\"], \"key\": \"k$i\", \"value\": {\"text\": \"note $i\"}, \"ttl\": 60,
         \"text\": \"note $i\", \"config\": \"english\", \"vectors\": [{\"field\": \"text\", \"embedding\": $V1}]}]') \\g /dev/null
select public.langgraph_store_batch('[{\"op\": \"put\", \"namespace\": [\"big\", \"n\"], \"key\": \"new-$i\", \"value\": {\"i\": $i}}]') \\g /dev/null
select public.langgraph_store_batch('[{\"op\": \"get\", \"namespace\": [\"mine\", \"a\"], \"key\": \"k$i\", \"refresh\": true},
         {\"op\": \"search\", \"prefix\": [\"mine\"], \"limit\": 10, \"offset\": 0, \"filter\": null, \"refresh\": true},
         {\"op\": \"search\", \"prefix\": [\"mine\"], \"vector\": $V1, \"limit\": 10, \"offset\": 0, \"filter\": null},
         {\"op\": \"list\", \"conditions\": [{\"type\": \"prefix\", \"path\": [\"mine\"]}], \"maxDepth\": null}]') \\g /dev/null"
  # memories
  calls+="
select id as m$i from public.create_agent_memory('agent', 'memory $i', 'fact', 0.5, '$V1') \\gset
select id as d$i from public.create_agent_memory('agent', 'doomed $i', 'fact', 0.5, '$V1',
         p_reference => jsonb_build_object('reference_type', 'rfp', 'reference_id', gen_random_uuid())) \\gset
select count(*) from public.search_agent_memories('$V1', 'agent', 0.0, 5) \\g /dev/null
select public.update_agent_memory(:'m$i', p_importance_score => 0.$i) \\g /dev/null
select public.update_agent_memory(:'m$i', 'memory $i changed', '$V2') \\g /dev/null
select public.update_memory_access(array[:'m$i', :'d$i']::uuid[]) \\g /dev/null
select count(*) from public.get_memory_context('agent') \\g /dev/null
select count(*) from public.get_memory_context() \\g /dev/null
select public.get_memory_statistics('agent') \\g /dev/null
select public.delete_agent_memory(:'d$i') \\g /dev/null"
  # state stores: a conversation saved again and again, and one per call created, saved and deleted
  calls+="
select public.create_unified_checkpoint(md5('new-$i')::uuid, 'lead-$i', '{\"current_mode\": \"landing\"}') \\g /dev/null
select public.save_unified_state(md5('new-$i')::uuid, 'lead-$i', '{\"step\": $i}', '{}', md5('link-$i')::uuid) \\g /dev/null
select public.save_unified_state(md5('conv')::uuid, 'lead', '{\"step\": $i, \"company_name\": \"Acme\"}', '{\"company_name\": \"Acme\"}',
         md5('link')::uuid, '{\"company_name\": \"Acme\", \"scores\": {\"fit\": $i}}') \\g /dev/null
select public.create_unified_checkpoint(md5('conv')::uuid, 'lead', '{\"current_mode\": \"chat\"}') \\g /dev/null
select public.restore_unified_state(md5('conv')::uuid) \\g /dev/null
select public.restore_unified_checkpoint(md5('conv')::uuid) \\g /dev/null
select public.delete_unified_state(md5('new-$i')::uuid, 'lead-$i') \\g /dev/null
select public.create_workflow_state('{\"session_id\": \"wf-$i\", \"stage\": \"clarification\"}') \\g /dev/null
select public.create_workflow_state('{\"session_id\": \"wf-$i\", \"stage\": \"clarification\"}') \\g /dev/null
select public.update_workflow_state('wf-$i', '{\"stage\": \"gap_analysis\"}') \\g /dev/null
select public.create_workflow_state('{\"session_id\": \"wf-gone-$i\", \"stage\": \"clarification\"}') \\g /dev/null
select public.delete_workflow_state('wf-gone-$i') \\g /dev/null
select public.save_research_session('{\"session_id\": \"rs\", \"query\": \"q\", \"current_phase\": \"1_browsing\"}') \\g /dev/null
select public.save_research_draft(md5('draft-$i')::uuid, 'rs', '1_browsing', 'draft $i') \\g /dev/null
select public.save_research_draft(md5('draft-$i')::uuid, 'rs', '1_browsing', 'draft $i') \\g /dev/null
select public.research_workflow_summary('rs') \\g /dev/null
select public.save_research_session('{\"session_id\": \"rs-gone-$i\", \"query\": \"q\", \"current_phase\": \"1_browsing\"}') \\g /dev/null
select public.save_research_draft(md5('gone-$i')::uuid, 'rs-gone-$i', '2_planning', 'draft') \\g /dev/null
select public.delete_research_session('rs-gone-$i') \\g /dev/null"
  # contractors: a lead built, enriched, converted, and converted again (the same contractor)
  calls+="
select public.build_contractor_profile('c-$i', '{\"company_name\": \"C $i\", \"scores\": {\"fit\": 1}}') \\g /dev/null
select public.build_contractor_profile('c-$i', '{\"data_sources\": [\"web\"]}') \\g /dev/null
select public.convert_contractor_lead('c-$i') \\g /dev/null
select public.convert_contractor_lead('c-$i') \\g /dev/null"
done
# The calls that read all of the caller's rows by contract (figures over all of them; the
# context's best tier, ranked by similarity in full), eight times each after the others.
whole=""
for i in 1 2 3 4 5 6 7 8; do
  whole+="
select public.langgraph_checkpoint_metrics() \\g /dev/null
select count(*) from public.get_memory_context(null, '$V1') \\g /dev/null
select public.get_memory_statistics() \\g /dev/null"
done
# The rows the calls above read through indexes, per table: heap rows fetched and index
# entries returned (an index-only scan fetches none). The caller has 20,000 rows of their
# own in each table beside those the calls touch: eight calls of each RPC about one thread,
# item, memory, conversation, session or lead read a few hundred of a table at most, and a
# plan that reads the caller's every row, in any one call, 20,000. Until 2026-11-29 some
# did from a connection's sixth call on (a generic plan takes the caller for a tenant of a
# few rows): an access of two memories, a search's answer and one agent's statistics read
# all of the caller's memories (or counters, per memory); a get's TTL refresh every
# expiring item of the caller; a delete of a conversation all of the caller's links; a
# list of the caller's newest checkpoints all of them. The calls that answer a page of the
# caller's rows read about the page, on any plan: the threads whose ids start with a
# prefix (one of the caller's 10,000 threads has it), and the context without a query
# vector (the newest of the best tier, 2,000 of the caller's memories). Until 2026-11-29
# a prefix read all of the caller's threads (newest first, or the whole table) to keep
# those that match, and a context each tier it answered from whole, to order it by age.
READS="select coalesce(string_agg(t || ' ' || n, ', ' order by t), 'none')
  from (select c.relname as t, pg_stat_get_xact_tuples_fetched(c.oid)
                 + (select coalesce(sum(pg_stat_get_xact_tuples_returned(i.indexrelid)), 0) from pg_index i where i.indrelid = c.oid) as n
          from pg_class c where c.relnamespace = 'public'::regnamespace and c.relname in ($TABLES)) r
 where n >= 10000;"
# The sequential scans the transaction made on the tables (first, before any query of the test's own).
SCANS="select coalesce(string_agg(relname || ' ' || seq_scan, ', ' order by relname), 'none')
  from pg_stat_xact_user_tables where schemaname = 'public' and relname in ($TABLES) and seq_scan > 0;
  select 'store ' || case when s.idx_tup_fetch < 2000 then 'few' else s.idx_tup_fetch::text end
         || ', conversations ' || case when m.idx_tup_fetch < 2000 then 'few' else m.idx_tup_fetch::text end
    from pg_stat_xact_user_tables s, pg_stat_xact_user_tables m
   where s.relid = 'public.langgraph_store_items'::regclass and m.relid = 'public.unified_conversation_memory'::regclass;"
# (The second line: the rows the calls fetched through an index from the store's items and from
# the conversations' memory. Eight puts into a namespace of 20,000 items read a few each; a
# plan that reads the namespace's range, through a bitmap or in an index scan that does not
# stop, reads it all per put. Eight deletes of a conversation read its rows and its lead's
# links; until 2026-11-29 each read all 20,000 rows of the caller's other conversations.)
# What the calls left, seen before the rollback (as the user: row-level security shows their rows only).
# (The caller's own rows, own-…, are not counted.)
WORK="select concat_ws('|',
  (select count(*) from public.langgraph_checkpoints where thread_id = 'mine'),
  (select count(*) from public.langgraph_checkpoint_writes where thread_id = 'mine'),
  (select count(*) from public.langgraph_threads where thread_id not like 'own-%'),
  (select count(*) from public.langgraph_store_items where namespace = '{mine,a}'),
  (select count(*) from public.agent_memories where agent_id = 'agent' and content like 'memory % changed'),
  (select count(*) from public.agent_memories where content like 'doomed%'),
  (select count(*) from public.agent_memory_counters c join public.agent_memories m on m.user_id = c.user_id and m.id = c.memory_id
    where m.agent_id <> 'own-agent'),
  (select count(*) from public.agent_memory_vectors where agent_id <> 'own-agent'),
  (select count(*) from public.memory_access_log where access_type = 'read' and agent_id <> 'own-agent'),
  (select count(*) from public.unified_conversations where id <> md5('conv')::uuid and contractor_lead_id not like 'own-%'),
  (select count(*) from public.unified_conversation_memory where memory_type = 'contractor_mapping' and memory_value #>> '{}' not like 'own-%'),
  (select count(*) from public.workflow_agent_states where previous_stage = 'clarification'),
  (select count(*) from public.workflow_agent_states where session_id not like 'own-%'),
  (select count(*) from public.research_sessions where session_id not like 'own-%')
    + (select count(*) from public.research_drafts where session_id <> 'rs' and session_id not like 'own-%'),
  (select max(version) from public.research_drafts where session_id not like 'own-%'),
  (select count(*) from public.contractor_leads where not converted_to_contractor),
  (select count(*) from public.contractors where contractor_lead_id not like 'own-%'),
  (select count(*) from public.contractor_leads where data_sources = '[\"web\"]' and discovered_at is not null),
  (select (public.restore_unified_state(md5('conv')::uuid) ->> 'step') = '8'
      and (public.restore_unified_checkpoint(md5('conv')::uuid) ->> 'current_mode') = 'chat'));"
out=$(API_ERR=$ERRORS as_api authenticated "$A" "$calls
$READS
$whole
$SCANS
$WORK")
expect "as a user: no call failed" "" "$(head -c 2000 "$ERRORS")"
expect "as a user: the calls about one object read a few of the caller's 20,000 other rows of each table, not all of them" \
  "none" "$(sed -n 1p <<<"$out")"
expect "as a user: eight calls of each RPC in one connection (the later ones on cached plans) scan no table sequentially" \
  "none" "$(sed -n 2p <<<"$out")"
# checkpoints|writes|threads (the deleted ones gone)|items|memories updated|deleted ones|counters|search
# copies|access log|conversations deleted|mapping rows left|workflow states updated|and left|sessions
# and drafts deleted|draft versions|leads not converted (the state's)|contractors|leads enriched|restored
expect "as a user: the calls fetch a few rows, not a large namespace's range per put nor the caller's every conversation per delete" \
  "store few, conversations few" "$(sed -n 3p <<<"$out")"
expect "as a user: the calls did their work" "16|8|1|8|8|0|8|8|8|0|1|8|8|1|8|1|8|8|t" "$(sed -n 4p <<<"$out")"
# A server acting for the user: the same calls as the service role, which row-level security
# does not filter (the RPCs' own keys are all there is), in a connection of its own.
: >"$ERRORS"
out=$(API_ERR=$ERRORS acting_for "$A" as_api service_role "" "$calls
$READS
$whole
$SCANS")
expect "as the service role acting for the user: no call failed" "" "$(head -c 2000 "$ERRORS")"
expect "as the service role acting for the user: few of the caller's other rows read, no sequential scan either, and few rows fetched" \
  "none|none|store few, conversations few" "$(paste -sd'|' <<<"$out")"

# The other way round: statistics in which every key looks like one row.
q -c "$(stats many)"
: >"$ERRORS"
out=$(API_ERR=$ERRORS as_api authenticated "$A" "$calls
$READS
$whole
$SCANS")
expect "with statistics of tiny tenants: no call failed" "" "$(head -c 2000 "$ERRORS")"
expect "with statistics of tiny tenants: few of the caller's other rows read, no sequential scan, and few rows fetched" \
  "none|none|store few, conversations few" "$(paste -sd'|' <<<"$out")"

log "plans SQL test: $checks checks, $failed failed"
[ "$failed" = 0 ]
