#!/usr/bin/env bash
# The agent memory schema (supabase/migrations/20261122000200_agent_memories.sql) against
# the real local Postgres, exactly as PostgREST drives it: connected as authenticator,
# `set local role` + request.jwt.claims inside one transaction per request.
#
# Runs on the stack named by AGENTMEM_PG_PORT / AGENTMEM_STACK_DIR (default: the main
# stack, 54329 / /tmp/agentmem-stack); applies pending migrations (starting Postgres if
# needed, and stopping it again at the end if this script started it). Its data lives
# under fresh users that are deleted at the end (deleting a user deletes their rows: the
# agentmem_forget_user trigger), plus the service tenant's rows it tags with this run's
# agent ids (deleted at the end); checks that need other writes run in transactions that
# roll back.
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"

PG="$ROOT/scripts/postgres.sh"
started=0
"$PG" status >/dev/null 2>&1 || started=1

A=$(cat /proc/sys/kernel/random/uuid)
B=$(cat /proc/sys/kernel/random/uuid)
D=$(cat /proc/sys/kernel/random/uuid)  # the concurrency checks' user
RUN=mem-${A:0:8}                       # agent ids of the service tenant's rows
DLDIR=$(mktemp -d)

cleanup() {
  local rc=$?
  "$PG" psql -X -q -At -c "delete from auth.users where id in ('$A', '$B', '$D')" \
    -c "delete from agent_memories where user_id = '00000000-0000-0000-0000-000000000000' and agent_id like '$RUN%'" >/dev/null 2>&1 || true
  rm -rf "$DLDIR"
  if [ "$started" = 1 ]; then "$PG" stop >/dev/null 2>&1 || true; fi
  exit "$rc"
}
trap cleanup EXIT

source "$(dirname "${BASH_SOURCE[0]}")/sql_lib.sh"
q_continue() { "$PG" psql -X -q -At "$@" 2>/dev/null; } # as postgres; errors do not stop
# The SQLSTATE (00000 on success) of one statement, as role/sub; output discarded.
state() { # role, sub, statement
  as_api "$1" "$2" "\\o /dev/null
$3
\\o
\\echo :SQLSTATE"
}
# SQLSTATE and error message of one statement, "STATE|message".
state_msg() { # role, sub, statement
  as_api "$1" "$2" "\\o /dev/null
$3
\\o
\\echo :SQLSTATE|:LAST_ERROR_MESSAGE"
}

# A vector literal of $DIMS dimensions (default 384): the given leading values, then zeros.
vec() {
  local n=${DIMS:-384} out="" i
  local -a v=("$@")
  for ((i = 0; i < n; i++)); do out+="${v[i]:-0},"; done
  printf '[%s]' "${out%,}"
}
E1=$(vec 1)
E2=$(vec 0 1)

log "agent memory SQL test (port ${AGENTMEM_PG_PORT:-54329}, users A=$A B=$B)"
"$ROOT/scripts/migrate.sh" --with-optional >&2
q -c "insert into auth.users (id, email) values ('$A', 'mem-a-$A@example.test'), ('$B', 'mem-b-$B@example.test'), ('$D', 'mem-d-$D@example.test')"

FNS="'agent_memory_dimensions','create_agent_memory','search_agent_memories','update_memory_access',
     'get_memory_context','cleanup_expired_memories','get_memory_statistics','set_agent_memory_dimensions',
     'update_agent_memory','delete_agent_memory'"

# --- shape -------------------------------------------------------------------------------
expect "the ten functions exist once each" 10 \
  "$(q -c "select count(*) from pg_proc where pronamespace = 'public'::regnamespace and proname in ($FNS)")"
expect "RLS on the three tables" "agent_memories|true,memory_access_log|true,memory_references|true" \
  "$(q -c "select string_agg(relname || '|' || relrowsecurity, ',' order by relname) from pg_class
           where oid in ('public.agent_memories'::regclass, 'public.memory_references'::regclass, 'public.memory_access_log'::regclass)")"
expect "embedding is vector(384)" "vector(384)|384" \
  "$(q -c "select format_type(atttypid, atttypmod), agent_memory_dimensions() from pg_attribute
           where attrelid = 'public.agent_memories'::regclass and attname = 'embedding'")"
expect "content_tsv is a stored generated tsvector" "tsvector|s" \
  "$(q -c "select format_type(atttypid, atttypmod), attgenerated from pg_attribute
           where attrelid = 'public.agent_memories'::regclass and attname = 'content_tsv'")"
expect "indexes: HNSW cosine, GIN tsvector, (user_id, agent_id), expires_at" "hnsw:vector_cosine_ops,gin,btree:user_id,btree:expires_at" \
  "$(q -c "select concat_ws(',',
     (select am.amname || ':' || oc.opcname from pg_index i join pg_class c on c.oid = i.indexrelid join pg_am am on am.oid = c.relam
        join pg_opclass oc on oc.oid = i.indclass[0] where c.relname = 'agent_memories_embedding_hnsw_idx'),
     (select am.amname from pg_class c join pg_am am on am.oid = c.relam where c.relname = 'agent_memories_content_tsv_idx'),
     (select am.amname || ':' || pg_get_indexdef(c.oid, 1, true) from pg_class c join pg_am am on am.oid = c.relam
        where c.relname = 'agent_memories_user_agent_idx' and pg_get_indexdef(c.oid, 2, true) = 'agent_id'),
     (select am.amname || ':' || pg_get_indexdef(c.oid, 1, true) from pg_class c join pg_am am on am.oid = c.relam
        where c.relname = 'agent_memories_expires_at_idx'))")"
expect "security definer: the writers (the tables' one door) and set_agent_memory_dimensions" "cleanup_expired_memories,create_agent_memory,delete_agent_memory,set_agent_memory_dimensions,update_agent_memory" \
  "$(q -c "select string_agg(proname, ',' order by proname) from pg_proc where pronamespace = 'public'::regnamespace and proname in ($FNS) and prosecdef")"
expect "every function pins its search_path: the readers and set_agent_memory_dimensions public, extensions; the writers an empty one" \
  "6|cleanup_expired_memories,create_agent_memory,delete_agent_memory,update_agent_memory" \
  "$(q -c "select count(*) filter (where proconfig @> array['search_path=public, extensions']),
                  string_agg(proname, ',' order by proname) filter (where proconfig @> array['search_path=\"\"'])
           from pg_proc where pronamespace = 'public'::regnamespace and proname in ($FNS)")"
expect "volatility (create/search/update/delete/context/cleanup volatile; stats, dimensions stable)" \
  "agent_memory_dimensions:s,cleanup_expired_memories:v,create_agent_memory:v,delete_agent_memory:v,get_memory_context:v,get_memory_statistics:s,search_agent_memories:v,set_agent_memory_dimensions:v,update_agent_memory:v,update_memory_access:v" \
  "$(q -c "select string_agg(proname || ':' || provolatile::text, ',' order by proname) from pg_proc
           where pronamespace = 'public'::regnamespace and proname in ($FNS)")"
expect "anon has no privilege on the tables" "f" \
  "$(q -c "select bool_or(has_table_privilege('anon', t, p)) from unnest(array['public.agent_memories', 'public.memory_references', 'public.memory_access_log']) t,
           unnest(array['select', 'insert', 'update', 'delete', 'truncate', 'references', 'trigger']) p")"
expect "authenticated: SELECT only (the functions write), no truncate" \
  "agent_memories:SELECT;memory_access_log:SELECT;memory_references:SELECT" \
  "$(q -c "select string_agg(t || ':' || privs, ';' order by t) from (
             select t, string_agg(upper(p), ',' order by o) filter (where has_table_privilege('authenticated', 'public.' || t, p)) privs
             from unnest(array['agent_memories', 'memory_references', 'memory_access_log']) t,
                  unnest(array['select', 'insert', 'update', 'delete', 'truncate']) with ordinality x(p, o) group by t) s")"
expect "anon and PUBLIC cannot execute any memory function" "f" \
  "$(q -c "select bool_or(has_function_privilege('anon', p.oid, 'execute')) or bool_or(has_function_privilege('public', p.oid, 'execute'))
           from pg_proc p where pronamespace = 'public'::regnamespace and proname in ($FNS)")"
expect "authenticated executes all but set_agent_memory_dimensions; service_role all" "9|10" \
  "$(q -c "select count(*) filter (where has_function_privilege('authenticated', p.oid, 'execute')),
                  count(*) filter (where has_function_privilege('service_role', p.oid, 'execute'))
           from pg_proc p where pronamespace = 'public'::regnamespace and proname in ($FNS)")"

expect "every key includes the tenant: primary keys (user_id, id), foreign keys (user_id, memory_id)" \
  "agent_memories:p:user_id,id;memory_access_log:f:user_id,memory_id;memory_access_log:p:user_id,id;memory_references:f:user_id,memory_id;memory_references:p:user_id,id;memory_references:u:user_id,memory_id,reference_type,reference_id" \
  "$(q -c "select string_agg(c.conrelid::regclass || ':' || c.contype::text || ':' || (select string_agg(a.attname, ',' order by k.o) from unnest(c.conkey) with ordinality k(n, o)
             join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.n), ';' order by c.conrelid::regclass::text, c.contype, c.conname)
           from pg_constraint c where c.conrelid in ('public.agent_memories'::regclass, 'public.memory_references'::regclass, 'public.memory_access_log'::regclass)
             and c.contype in ('p', 'f', 'u')")"
expect "the tenant columns default to agentmem.tenant()" "agentmem.tenant()|agentmem.tenant()|agentmem.tenant()" \
  "$(q -c "select string_agg(pg_get_expr(d.adbin, d.adrelid), '|') from pg_attrdef d join pg_attribute a on a.attrelid = d.adrelid and a.attnum = d.adnum
           where a.attname = 'user_id' and d.adrelid in ('public.agent_memories'::regclass, 'public.memory_references'::regclass, 'public.memory_access_log'::regclass)")"

# --- seed (committed): user A's memories in agent-test, one in agent-other; B's -------------
create() { # sub, args...  → id
  as_commit authenticated "$1" "select id from create_agent_memory($2);"
}
NEAR=$(create "$A" "'agent-test', 'User prefers energy-efficient LED fixtures with 90% efficiency', 'preference', p_embedding => '$E1', p_metadata => '{\"label\":\"near\"}'")
MID=$(create "$A" "'agent-test', 'User decided on US-based vendors', 'decision', p_embedding => '$(vec 1 1)', p_metadata => '{\"label\":\"mid\"}'")
FAR=$(create "$A" "'agent-test', 'The company is a hospital', 'fact', p_embedding => '$E2', p_metadata => '{\"label\":\"far\"}'")
EXPIRED=$(create "$A" "'agent-test', 'Temporary note about an old quote', 'context', p_embedding => '$(vec 1 0.1)', p_expires_at => now() - interval '1 hour', p_metadata => '{\"label\":\"expired\"}'")
FUTURE=$(create "$A" "'agent-test', 'Quote valid until tomorrow', 'context', p_embedding => '$(vec 0.9 0 0.1)', p_expires_at => now() + interval '1 day', p_metadata => '{\"label\":\"future\"}'")
NOEMB=$(create "$A" "'agent-test', 'Small talk about the weather', 'conversation', p_metadata => '{\"label\":\"noemb\"}'")
OTHER=$(create "$A" "'agent-other', 'Another agent''s fact', 'fact', p_embedding => '$(vec 0.1 0 1)', p_metadata => '{\"label\":\"other\"}'")
BNEAR=$(create "$B" "'agent-test', 'B prefers blue', 'preference', p_embedding => '$E1', p_metadata => '{\"label\":\"b-near\"}'")
BEXP=$(create "$B" "'agent-test', 'B old note', 'context', p_embedding => '$E2', p_expires_at => now() - interval '1 day', p_metadata => '{\"label\":\"b-expired\"}'")
uuid_re='^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
all_ids="$NEAR $MID $FAR $EXPIRED $FUTURE $NOEMB $OTHER $BNEAR $BEXP"
bad_ids=0
for id in $all_ids; do [[ $id =~ $uuid_re ]] || bad_ids=$((bad_ids + 1)); done
expect "seed: create_agent_memory returned 9 ids" 0 "$bad_ids"
# One committed reference and one access log row of A's, for the isolation checks (written
# as the owner: no signed-in user writes these tables directly).
q -c "insert into memory_references (user_id, memory_id, reference_type, reference_id) values ('$A', '$NEAR', 'rfp', '$NEAR');
insert into memory_access_log (user_id, memory_id, access_type) values ('$A', '$NEAR', 'update');" >/dev/null
expect "seed: rows belong to the caller (user_id defaults to agentmem.tenant())" "7|2" \
  "$(q -c "select count(*) filter (where user_id = '$A'), count(*) filter (where user_id = '$B') from agent_memories where user_id in ('$A', '$B')")"

# --- create --------------------------------------------------------------------------------
expect "create returns the full row (user, agent, type, importance, embedding dims, metadata)" \
  "$A|agent-x|fact|0.25|384|{\"k\": 1}|sess-1|0" \
  "$(as_api authenticated "$A" "select user_id, agent_id, memory_type, importance_score, vector_dims(embedding), metadata, session_id,
            (select count(*) from agent_memory_counters c where c.memory_id = m.id)
     from create_agent_memory('agent-x', 'Budget is 10k', 'fact', 0.25, '$E1', 'sess-1', '{\"k\":1}') m;")"
expect "default importance by type" "context=0.5,conversation=0.3,decision=0.7,fact=0.6,preference=0.9" \
  "$(as_api authenticated "$A" "select string_agg(t || '=' || (select importance_score from create_agent_memory('agent-defaults', 'x', t)), ',' order by t)
     from unnest(array['conversation', 'preference', 'fact', 'decision', 'context']) t;")"
REF=$(cat /proc/sys/kernel/random/uuid)
expect "create with a reference writes both rows" "rfp|$REF|t" \
  "$(as_api authenticated "$A" "select id from create_agent_memory('agent-test', 'Linked to an RFP', 'context', p_reference => '{\"reference_type\":\"rfp\",\"reference_id\":\"$REF\"}') \\g /dev/null
select r.reference_type, r.reference_id, r.user_id = '$A' from memory_references r join agent_memories m on m.id = r.memory_id where m.content = 'Linked to an RFP';")"
expect "create with an array of two references" 2 \
  "$(as_api authenticated "$A" "select create_agent_memory('agent-test', 'Two links', 'context',
       p_reference => '[{\"reference_type\":\"bid\",\"reference_id\":\"$REF\"},{\"reference_type\":\"artifact\",\"reference_id\":\"$REF\"}]') \\g /dev/null
select count(*) from memory_references r join agent_memories m on m.id = r.memory_id where m.content = 'Two links';")"
expect "a failing reference insert (duplicate) rolls the memory back" "23505|7|1" \
  "$(as_api authenticated "$A" "\\o /dev/null
select create_agent_memory('agent-test', 'Dup links', 'context',
  p_reference => '[{\"reference_type\":\"bid\",\"reference_id\":\"$REF\"},{\"reference_type\":\"bid\",\"reference_id\":\"$REF\"}]');
\\o
\\echo :SQLSTATE
select count(*) from agent_memories;
select count(*) from memory_references;" | paste -sd'|')"
expect "a bad reference_id is refused (22023) and nothing is stored" "22023|reference_id must be a UUID (got 'nope')|7" \
  "$(as_api authenticated "$A" "\\o /dev/null
select create_agent_memory('agent-test', 'Bad link', 'fact', p_reference => '{\"reference_type\":\"rfp\",\"reference_id\":\"nope\"}');
\\o
\\echo :SQLSTATE|:LAST_ERROR_MESSAGE
select count(*) from agent_memories;" | paste -sd'|')"
expect "a bad reference_type is refused (22023)" 22023 \
  "$(state authenticated "$A" "select create_agent_memory('agent-test', 'x', 'fact', p_reference => '{\"reference_type\":\"Bad Type\",\"reference_id\":\"$REF\"}');")"
expect "a reference without reference_id is refused (22023)" 22023 \
  "$(state authenticated "$A" "select create_agent_memory('agent-test', 'x', 'fact', p_reference => '{\"reference_type\":\"rfp\"}');")"
expect "p_reference = JSON null means no reference" "00000" \
  "$(state authenticated "$A" "select create_agent_memory('agent-test', 'x', 'fact', p_reference => 'null');")"

for c in "bad memory_type|'agent-test', 'x', 'opinion'|memory_type must be one of" \
  "importance 1.5|'agent-test', 'x', 'fact', 1.5|importance_score must be between 0 and 1" \
  "importance -0.1|'agent-test', 'x', 'fact', -0.1|importance_score must be between 0 and 1" \
  "importance NaN|'agent-test', 'x', 'fact', 'NaN'|importance_score must be between 0 and 1" \
  "empty content|'agent-test', '', 'fact'|content must not be empty" \
  "blank content|'agent-test', '  ', 'fact'|content must not be empty" \
  "10001-char content|'agent-test', repeat('x', 10001), 'fact'|content must be at most 10000 characters" \
  "empty agent_id|'', 'x', 'fact'|agent_id must be" \
  "metadata not an object|'agent-test', 'x', 'fact', p_metadata => '[1]'|metadata must be a JSON object" \
  "zero embedding|'agent-test', 'x', 'fact', p_embedding => '$(vec 0)'|embedding must not be the zero vector"; do
  IFS='|' read -r name args msg <<<"$c"
  out=$(state_msg authenticated "$A" "select create_agent_memory($args);")
  expect_match "create refuses $name (22023: $msg)" "^22023\|$msg" "$out"
done
# update checks a new content's embedding as create does (a zero vector has no cosine
# similarity: stored, it would sort as NaN in every search).
UZ="(create_agent_memory('agent-test', 'zero check', 'fact', p_embedding => '$(vec 1)')).id"
expect_match "update refuses a zero embedding (22023)" '^22023\|embedding must not be the zero vector' \
  "$(state_msg authenticated "$A" "select update_agent_memory($UZ, 'new text', '$(vec 0)');")"
expect_match "update refuses a 3-dim embedding (22000, 'dimension')" '^22000\|.*dimension' \
  "$(state_msg authenticated "$A" "select update_agent_memory($UZ, 'new text', '[1,2,3]');")"
expect "create accepts exactly 10000 characters" "00000" \
  "$(state authenticated "$A" "select create_agent_memory('agent-test', repeat('x', 10000), 'fact');")"
expect_match "create refuses a 3-dim embedding (22000, 'dimension')" '^22000\|.*dimension' \
  "$(state_msg authenticated "$A" "select create_agent_memory('agent-test', 'x', 'fact', p_embedding => '[1,2,3]');")"
expect "create as service_role acting for nobody: a memory of the service tenant (nil UUID)" "00000000-0000-0000-0000-000000000000" \
  "$(as_api service_role "" "select user_id from create_agent_memory('$RUN', 'x', 'fact');")"

# The same constraints hold for the service role's direct table writes (the API roles write
# no table: 42501).
expect "a signed-in user's direct insert, update, delete: 42501 (the functions are the one door)" "42501|42501|42501" \
  "$(state authenticated "$A" "insert into agent_memories (agent_id, content, memory_type) values ('agent-test', 'x', 'fact');")|$(state authenticated "$A" "update agent_memories set content = 'x' where id = '$NEAR';")|$(state authenticated "$A" "delete from agent_memories where id = '$NEAR';")"
for c in "bad memory_type|'x', 'opinion', 0.5" "importance 1.5|'x', 'fact', 1.5" "importance NaN|'x', 'fact', 'NaN'" \
  "blank content|'   ', 'fact', 0.5" "10001-char content|repeat('x', 10001), 'fact', 0.5"; do
  IFS='|' read -r name vals <<<"$c"
  expect "table check refuses $name (23514)" 23514 \
    "$(state service_role "" "insert into agent_memories (agent_id, content, memory_type, importance_score) values ('agent-test', $vals);")"
done
expect "table refuses a 3-dim embedding (pgvector 22000)" 22000 \
  "$(state service_role "" "insert into agent_memories (agent_id, content, memory_type, embedding) values ('agent-test', 'x', 'fact', '[1,2,3]');")"
expect "the access log's ids are bounded on the table too (23514)" "23514|23514" \
  "$(state service_role "" "insert into memory_access_log (user_id, memory_id, session_id) values ('$A', '$NEAR', repeat('s', 3000));")|$(state service_role "" "insert into memory_access_log (user_id, memory_id, agent_id) values ('$A', '$NEAR', repeat('a', 256));")"
expect "full-text column finds a stemmed word" "$NEAR" \
  "$(as_api authenticated "$A" "select id from agent_memories where agent_id = 'agent-test' and content_tsv @@ websearch_to_tsquery('english', 'efficient');")"
expect "updated_at moves when content changes, created_at is kept (a caller's value ignored)" "t|t" \
  "$(as_api service_role "" "update agent_memories set content = 'changed', created_at = now() - interval '1 year' where id = '$MID'
     returning updated_at > created_at, created_at > now() - interval '1 day';")"

# --- search --------------------------------------------------------------------------------
search_labels() { # sub, args (after the query vector)
  as_api authenticated "$1" "select coalesce(string_agg(s.metadata->>'label', ',' order by s.ordinality), '')
     from search_agent_memories('$E1', p_record_access => false$2) with ordinality s;"
}
expect "search ranks by similarity, threshold 0.5 (near, future, mid)" "near,future,mid" \
  "$(search_labels "$A" ", p_agent_id => 'agent-test'")"
expect "search similarity = 1 - cosine distance" "1.000|0.994|0.707" \
  "$(as_api authenticated "$A" "select string_agg(round(similarity::numeric, 3)::text, '|' order by similarity desc)
     from search_agent_memories('$E1', 'agent-test', p_record_access => false);")"
expect "search returns no embedding/tsvector, plus similarity" \
  "id,user_id,agent_id,session_id,content,memory_type,importance_score,metadata,expires_at,access_count,last_accessed_at,created_at,updated_at,similarity" \
  "$(as_api authenticated "$A" "select string_agg(k, ',' order by o) from search_agent_memories('$E1', p_record_access => false, p_match_count => 1) s,
     json_each(to_json(s)) with ordinality x(k, v, o);" | tr -d '\n')"
expect "threshold -1: every unexpired memory with an embedding; expired and B's never" "near,future,mid,far" \
  "$(search_labels "$A" ", p_agent_id => 'agent-test', p_match_threshold => -1")"
expect "threshold 0.99" "near,future" "$(search_labels "$A" ", p_agent_id => 'agent-test', p_match_threshold => 0.99")"
expect "match_count limits" "near,future" "$(search_labels "$A" ", p_agent_id => 'agent-test', p_match_threshold => -1, p_match_count => 2")"
expect "match_count above 100 is capped, not refused" "near,future,mid,far" \
  "$(search_labels "$A" ", p_agent_id => 'agent-test', p_match_threshold => -1, p_match_count => 100000")"
expect "type filter {fact}" "far" "$(search_labels "$A" ", p_agent_id => 'agent-test', p_match_threshold => -1, p_memory_types => '{fact}'")"
expect "type filter {preference,decision}" "near,mid" \
  "$(search_labels "$A" ", p_agent_id => 'agent-test', p_match_threshold => -1, p_memory_types => array['preference', 'decision']")"
expect "empty type filter = no filter" "near,future,mid" "$(search_labels "$A" ", p_agent_id => 'agent-test', p_memory_types => '{}'")"
expect "no agent filter: all of A's agents" "near,future,mid,other,far" "$(search_labels "$A" ", p_match_threshold => -1")"
expect "nulls mean defaults (threshold 0.5, count 10)" "near,future,mid" \
  "$(search_labels "$A" ", p_agent_id => 'agent-test', p_match_threshold => null, p_match_count => null, p_memory_types => null")"
expect "search as B: only B's memory" "b-near" "$(search_labels "$B" ", p_match_threshold => -1")"

for c in "match_count 0|p_match_count => 0|match_count must be at least 1" \
  "match_count -5|p_match_count => -5|match_count must be at least 1" \
  "threshold 2|p_match_threshold => 2|match_threshold must be between -1 and 1" \
  "threshold NaN|p_match_threshold => 'NaN'|match_threshold must be between -1 and 1" \
  "unknown memory type|p_memory_types => '{fact,opinion}'|memory_types must contain only"; do
  IFS='|' read -r name args msg <<<"$c"
  expect_match "search refuses $name (22023)" "^22023\|$msg" \
    "$(state_msg authenticated "$A" "select * from search_agent_memories('$E1', $args);")"
done
expect_match "search refuses a 3-dim query (22000, 'dimension')" '^22000\|query embedding has 3 dimensions, expected 384 \(dimension mismatch\)$' \
  "$(state_msg authenticated "$A" "select * from search_agent_memories('[1,2,3]');")"
expect_match "search refuses a 385-dim query (22000)" '^22000\|.*dimension' \
  "$(state_msg authenticated "$A" "select * from search_agent_memories('$(DIMS=385 vec 1)');")"
expect_match "search refuses a null query (22023)" '^22023\|query_embedding is required' \
  "$(state_msg authenticated "$A" "select * from search_agent_memories(null);")"
expect_match "search refuses a zero query (22023)" '^22023\|query_embedding must not be the zero vector' \
  "$(state_msg authenticated "$A" "select * from search_agent_memories('$(vec 0)');")"

# PostgREST: POST /rpc/search_agent_memories {"p_query_embedding":[...], ...} becomes
# json_to_record(body) AS x(p_query_embedding vector, ...) and a call with named args.
expect "RPC body with a JSON-array vector (json_to_record), as PostgREST sends it" "near,future,mid" \
  "$(as_api authenticated "$A" "select string_agg(s.metadata->>'label', ',' order by s.ordinality)
     from json_to_record('{\"p_query_embedding\": $E1, \"p_agent_id\": \"agent-test\", \"p_memory_types\": null, \"p_record_access\": false}'::json)
          as x(p_query_embedding extensions.vector, p_agent_id text, p_memory_types text[], p_record_access boolean),
     lateral search_agent_memories(p_query_embedding => x.p_query_embedding, p_agent_id => x.p_agent_id,
                                   p_memory_types => x.p_memory_types, p_record_access => x.p_record_access) with ordinality s;")"
expect "RPC body for create: JSON-array embedding and JSON reference" "384|1" \
  "$(as_api authenticated "$A" "select vector_dims(c.embedding)
     from json_to_record('{\"p_agent_id\":\"agent-test\",\"p_content\":\"via rpc\",\"p_memory_type\":\"fact\",\"p_embedding\":$E2,
                          \"p_reference\":{\"reference_type\":\"message\",\"reference_id\":\"$REF\"}}'::json)
          as x(p_agent_id text, p_content text, p_memory_type text, p_embedding extensions.vector, p_reference jsonb),
     lateral create_agent_memory(p_agent_id => x.p_agent_id, p_content => x.p_content, p_memory_type => x.p_memory_type,
                                 p_embedding => x.p_embedding, p_reference => x.p_reference) c;
select count(*) from memory_references where reference_type = 'message';" | paste -sd'|')"

# Access recording, in the same call.
expect "search records access: returned counts, rows bumped, one log row each, updated_at untouched" \
  "1,1,1|near:1:true:true,future:1:true:true,mid:1:true:true,far:0:false:true|3|search:sess-9:1.000" \
  "$(as_api authenticated "$A" "select string_agg(access_count::text, ',' order by similarity desc) from search_agent_memories('$E1', 'agent-test', p_session_id => 'sess-9');
select string_agg(metadata->>'label' || ':' || coalesce(c.access_count, 0) || ':' || (c.last_accessed_at is not null) || ':' || (updated_at = created_at), ','
                  order by array_position(array['near', 'future', 'mid', 'far'], metadata->>'label'))
  from agent_memories m left join agent_memory_counters c on c.user_id = m.user_id and c.memory_id = m.id
 where m.id in ('$NEAR', '$FUTURE', '$MID', '$FAR');
select count(*) from memory_access_log where access_type = 'search' and session_id = 'sess-9';
select access_type || ':' || session_id || ':' || round(relevance_score::numeric, 3) from memory_access_log where memory_id = '$NEAR' and access_type = 'search';" |
    paste -sd'|')"
expect "search with p_record_access => false records nothing" "0|0" \
  "$(as_api authenticated "$A" "select count(*) from search_agent_memories('$E1', 'agent-test', p_record_access => false) \\g /dev/null
select coalesce(sum(c.access_count), 0) from agent_memories m join agent_memory_counters c on c.user_id = m.user_id and c.memory_id = m.id
 where m.agent_id = 'agent-test';
select count(*) from memory_access_log where access_type = 'search';" | paste -sd'|')"
expect "HNSW index serves cosine nearest-neighbour order" "t" \
  "$(q -c "set enable_seqscan = off" -c "explain (costs off) select id from agent_memories order by embedding <=> '$E1' limit 5" |
     grep -q agent_memories_embedding_hnsw_idx && echo t || echo f)"

# --- the search copies (agent_memory_vectors) ----------------------------------------------------
# Each memory with a vector has one copy (unit length, half precision) with its filter
# columns; the copy follows every change and goes with the vector or the memory.
copies() { # sub → "label:agent:type:expiry-set" of the caller's copies, by label
  as_api authenticated "$1" "select coalesce(string_agg(m.metadata->>'label' || ':' || v.agent_id || ':' || v.memory_type || ':' || (v.expires_at is not null), ',' order by m.metadata->>'label'), '')
     from agent_memory_vectors v join agent_memories m on m.user_id = v.user_id and m.id = v.memory_id;"
}
expect "search copies: one per memory with a vector (B sees only B's), at unit length" \
  "expired:agent-test:context:true,far:agent-test:fact:false,future:agent-test:context:true,mid:agent-test:decision:false,near:agent-test:preference:false,other:agent-other:fact:false|b-expired:agent-test:context:true,b-near:agent-test:preference:false|1.000" \
  "$(copies "$A")|$(copies "$B")|$(q -c "select round(l2_norm(embedding)::numeric, 3) from agent_memory_vectors where memory_id = '$MID'")"
expect "search copies follow an update (agent, type, expiry, vector), a cleared vector and a delete, also for the service role's direct writes" \
  "other:agent-x:decision:true:1.000|:0|0" \
  "$(printf '%s\n' 'begin;' 'set local role service_role;' \
       "update agent_memories set agent_id = 'agent-x', memory_type = 'decision', expires_at = now() + interval '1 day', embedding = '$(vec 0 0 1)' where id = '$OTHER';" \
       "select 'other:' || agent_id || ':' || memory_type || ':' || (expires_at is not null) || ':' || round((embedding <=> '$(vec 0 0 1)'::halfvec)::numeric + 1, 3) from agent_memory_vectors where memory_id = '$OTHER';" \
       "update agent_memories set embedding = null where id = '$MID';" \
       "select ':' || count(*) from agent_memory_vectors where memory_id = '$MID';" \
       "delete from agent_memories where id = '$FAR';" \
       "select count(*) from agent_memory_vectors where memory_id = '$FAR';" 'rollback;' |
     q -X -q -At | paste -sd'|')"
expect "search copies: kept in their rows, and autovacuum visits them after 1% new rows (the index-only scan needs the visibility map)" \
  "{toast_tuple_target=8160,autovacuum_vacuum_insert_scale_factor=0.01}" "$(q -c "select reloptions from pg_class where oid = 'public.agent_memory_vectors'::regclass")"
expect "search copies: no API role writes them (42501 / RLS)" "42501|42501|42501" \
  "$(sqlstate authenticated "$A" "insert into agent_memory_vectors (user_id, memory_id, agent_id, memory_type, embedding) values ('$A', '$NEAR', 'a', 'fact', '[1]')")|$(sqlstate authenticated "$A" "update agent_memory_vectors set agent_id = 'x'")|$(sqlstate anon "" "select * from agent_memory_vectors")"
# Exact answers where half precision cannot rank the rows: 30 memories of one agent
# 1.5e-6 apart in distance from the query, each turned its own way (rounding to half
# precision moves a distance by up to ~2e-4, so the copies' order of these is not the
# true one: the band of rows re-ranked at full precision decides), 120 farther away; 150
# where 120 duplicates tie; and 1,200 where 1,170 do (more rows in the band than the first
# pass keeps, 1,010: a second pass over the copies takes them all). Compared with a scan
# that uses no index, as the owner runs it, ids included (ties by id).
ties() { # agent, embedding expression of i, query[, how many memories (150)]
  printf '%s\n' '\set ON_ERROR_ROLLBACK on' 'begin;' \
    "insert into agent_memories (user_id, agent_id, content, memory_type, embedding)
     select '$A', '$1', 'tie ' || i, 'fact', $2 from generate_series(0, ${4:-150} - 1) i;" \
    "create temp table exact on commit drop as
       select array_agg(id order by d, id) as ids from (select id, embedding <=> $3 as d from agent_memories
        where user_id = '$A' and agent_id = '$1' order by (embedding <=> $3) + 0, id limit 10) x;" \
    "grant select on exact to authenticated;" \
    'set local role authenticated;' \
    "select set_config('request.jwt.claims', '{\"sub\":\"$A\",\"role\":\"authenticated\"}', true) \\g /dev/null" \
    "select (select array_agg(s.id order by s.ordinality) from search_agent_memories($3, '$1', -1, 10, p_record_access => false) with ordinality s)
            = (select ids from exact);" 'rollback;' | q -X -q -At
}
SCATTERED="(case when i < 30 then ('[' || (0.7 - i * 3e-6) || ',' || 0.714 * cos(i * 2.3999) || ',' || 0.714 * sin(i * 2.3999)
                                    || repeat(',0', 381) || ']')::vector
                 else '$(vec 0.6 0.8)'::vector end)"
DUPS="('$(vec 1 1)'::vector + (case when i < 30 then '$(vec 0 0 1)' else '$(vec 0)' end)::vector)"
expect "exact where half precision cannot rank: near-equal distances turned every way, duplicates, and more duplicates than the first pass keeps" "t|t|t" \
  "$(ties agent-scattered "$SCATTERED" "'$E1'::vector")|$(ties agent-dups "$DUPS" "'$(vec 1 1 0.001)'::vector")|$(ties agent-many-dups "$DUPS" "'$(vec 1 1 0.001)'::vector" 1200)"
# The rolled-back inserts above left ~1,500 dead memories and copies: vacuumed now, not by
# an autovacuum that a later TRUNCATE check could deadlock with (a VACUUM of agent_memories
# waited on that check's transaction while it waited for the table's lock: 40P01, seen once).
q -c "vacuum agent_memories, agent_memory_vectors" >/dev/null

# --- update_memory_access ---------------------------------------------------------------------
expect "update_memory_access: distinct visible ids, logs each (B's id ignored)" "2|2|2" \
  "$(as_api authenticated "$A" "select update_memory_access(array['$NEAR', '$MID', '$NEAR', '$BNEAR', null]::uuid[]);
select sum(access_count) from agent_memory_counters;
select count(*) from memory_access_log where access_type = 'read';" | paste -sd'|')"
expect "update_memory_access with access_type update" "1|update" \
  "$(as_api authenticated "$A" "select update_memory_access(array['$FAR']::uuid[], 'update');
select access_type from memory_access_log where memory_id = '$FAR';" | paste -sd'|')"
expect "update_memory_access: empty/null array touches nothing" "0|0" \
  "$(as_api authenticated "$A" "select update_memory_access('{}');
select update_memory_access(null);" | paste -sd'|')"
expect_match "update_memory_access refuses an unknown access_type (22023)" '^22023\|access_type must be one of' \
  "$(state_msg authenticated "$A" "select update_memory_access(array['$NEAR']::uuid[], 'peek');")"

# --- isolation: B never sees or changes A's memories ------------------------------------------
expect "B selects none of A's memories" 0 \
  "$(as_api authenticated "$B" "select count(*) from agent_memories where user_id = '$A' or id in ('$NEAR', '$MID', '$FAR');")"
expect "B sees only own rows" 2 "$(as_api authenticated "$B" "select count(*) from agent_memories;")"
expect "B cannot update or delete A's memory (42501: no direct writes)" "42501|42501" \
  "$(state authenticated "$B" "update agent_memories set content = 'pwned' where id = '$NEAR';")|$(state authenticated "$B" "delete from agent_memories where id = '$NEAR';")"
expect "B's update_memory_access on A's ids touches nothing" 0 \
  "$(as_api authenticated "$B" "select update_memory_access(array['$NEAR', '$MID']::uuid[]);")"
expect "B cannot insert a memory as A (RLS, 42501)" 42501 \
  "$(state authenticated "$B" "insert into agent_memories (user_id, agent_id, content, memory_type) values ('$A', 'agent-test', 'x', 'fact');")"
expect "B cannot move own memory to A (42501)" 42501 \
  "$(state authenticated "$B" "update agent_memories set user_id = '$A' where id = '$BNEAR';")"
expect "B cannot attach a reference to A's memory nor log an access to it (42501)" "42501|42501" \
  "$(state authenticated "$B" "insert into memory_references (memory_id, reference_type, reference_id) values ('$NEAR', 'rfp', '$REF');")|$(state authenticated "$B" "insert into memory_access_log (memory_id, access_type) values ('$NEAR', 'read');")"
expect "search with a 3,000-character session id: 22023, nothing logged" "22023" \
  "$(state authenticated "$A" "select count(*) from search_agent_memories('$E1', p_session_id => repeat('s', 3000));")"
expect "A sees own reference and access log" "1|1" \
  "$(as_api authenticated "$A" "select count(*) from memory_references;
select count(*) from memory_access_log;" | paste -sd'|')"
expect "B sees none of A's references or access logs" "0|0" \
  "$(as_api authenticated "$B" "select count(*) from memory_references;
select count(*) from memory_access_log;" | paste -sd'|')"
expect "B's context has only B's memories" "b-near" \
  "$(as_api authenticated "$B" "select string_agg(metadata->>'label', ',') from get_memory_context();")"
expect "service_role sees both users (bypasses RLS)" 9 \
  "$(as_api service_role "" "select count(*) from agent_memories where user_id in ('$A', '$B');")"

# --- ids are private to their tenant: no squatting, no oracle ---------------------------------
UNUSED=$(cat /proc/sys/kernel/random/uuid)
probe() { # sub, memory id: one line per call, "result|SQLSTATE|message" (the id normalized)
  local stmt
  for stmt in "select update_agent_memory('$2', p_importance_score => 0.1)" "select update_agent_memory('$2', 'new text', '$E2')" \
    "select delete_agent_memory('$2')" "select update_memory_access(array['$2']::uuid[])" \
    "select update_memory_access(array['$2']::uuid[], 'update')" \
    "select count(*) from agent_memories where id = '$2'" "select count(*) from memory_references where memory_id = '$2'" \
    "select count(*) from memory_access_log where memory_id = '$2'"; do
    as_api authenticated "$1" "$stmt;
\\echo :SQLSTATE|:LAST_ERROR_MESSAGE" | paste -sd'|'
  done | sed "s/$2/<id>/g"
}
probe_a=$(probe "$B" "$NEAR")
expect "no oracle: B's 8 calls on A's memory id are answered exactly like an unused id" "$(probe "$B" "$UNUSED")" "$probe_a"
expect "... and those answers are: not found (null, false, 0)" \
  "|00000|;|00000|;f|00000|;0|00000|;0|00000|;0|00000|;0|00000|;0|00000|" \
  "$(paste -sd';' <<<"$probe_a")"
# Memory ids are chosen by create_agent_memory (gen_random_uuid), never by a caller: no
# squatting. Two tenants holding one id (written by the owner) stay independent.
SQ=$(cat /proc/sys/kernel/random/uuid)
q -c "insert into agent_memories (user_id, id, agent_id, content, memory_type) values ('$B', '$SQ', 'agent-squat', 'B was first', 'fact'), ('$A', '$SQ', 'agent-squat', 'A second', 'fact')" >/dev/null
as_commit authenticated "$A" "select update_agent_memory('$SQ', 'A changed', '$E2') \\g /dev/null" >/dev/null
b_view=$(as_commit authenticated "$B" "select content from agent_memories where id = '$SQ';
select delete_agent_memory('$SQ');
select count(*) from agent_memories where id = '$SQ';" | paste -sd'|')
a_view=$(as_commit authenticated "$A" "select content from agent_memories where id = '$SQ';
select delete_agent_memory('$SQ');" | paste -sd'|')
expect "... one id in two tenants: A's update changes A's, B's delete deletes B's" \
  "B was first|t|0;A changed|t" "$b_view;$a_view"

# --- the service tenant and x-agentmem-tenant ----------------------------------------------------
NILU=00000000-0000-0000-0000-000000000000
SVC=$(as_commit service_role "" "select id from create_agent_memory('$RUN-svc', 'Service knowledge', 'fact', p_embedding => '$E1', p_metadata => '{\"label\":\"svc\"}');")
expect "service_role acting for nobody creates in the service tenant" "$NILU" "$(q -c "select user_id from agent_memories where id = '$SVC'")"
expect "... users never see the service tenant's memory (table, search, update_memory_access)" "0|near,future,mid,other,far|0" \
  "$(as_api authenticated "$A" "select count(*) from agent_memories where id = '$SVC';")|$(search_labels "$A" ", p_match_threshold => -1")|$(as_api authenticated "$A" "select update_memory_access(array['$SVC']::uuid[]);")"
expect "service_role's RPCs (acting for nobody) reach none of the users' memories" "0|0|0|||f" \
  "$(as_api service_role "" "select count(*) filter (where user_id <> '$NILU') from search_agent_memories('$E1', p_match_threshold => -1, p_match_count => 100);")|$(as_api service_role "" "select count(*) filter (where user_id <> '$NILU') from get_memory_context(p_max_memories => 100, p_max_chars => 1000000);")|$(as_api service_role "" "select update_memory_access(array['$NEAR', '$BNEAR']::uuid[]);")|$(as_api service_role "" "select update_agent_memory('$NEAR', p_importance_score => 0.1);")|$(as_api service_role "" "select update_agent_memory('$NEAR', 'x', '$E2');")|$(as_api service_role "" "select delete_agent_memory('$NEAR');")"
expect "service_role's statistics cover the service tenant only" "t" \
  "$(as_api service_role "" "select (get_memory_statistics() ->> 'total')::bigint = (select count(*) from agent_memories where user_id = '$NILU');")"
expect "service_role's search finds its own memory" "svc" \
  "$(as_api service_role "" "select string_agg(metadata->>'label', ',') from search_agent_memories('$E1', '$RUN-svc', p_record_access => false);")"
expect "service_role acting for A (x-agentmem-tenant): A's search, A's statistics" \
  "$(search_labels "$A" ", p_match_threshold => -1")|$(as_api authenticated "$A" "select get_memory_statistics();")" \
  "$(acting_for "$A" as_api service_role "" "select coalesce(string_agg(s.metadata->>'label', ',' order by s.ordinality), '')
     from search_agent_memories('$E1', p_record_access => false, p_match_threshold => -1) with ordinality s;")|$(acting_for "$A" as_api service_role "" "select get_memory_statistics();")"
expect "service_role acting for A: creates A's memory, bumps only A's, deletes only A's expired" "$A|1|1|1" \
  "$(acting_for "$A" as_api service_role "" "select user_id from create_agent_memory('agent-test', 'x', 'fact');")|$(acting_for "$A" as_api service_role "" "select update_memory_access(array['$NEAR', '$BNEAR']::uuid[]);")|$(acting_for "$A" as_api service_role "" "select cleanup_expired_memories();
select count(*) from agent_memories where user_id = '$B' and expires_at <= now();" | paste -sd'|')"
expect "a user sending another user's id as x-agentmem-tenant: 42501 (search, create, table read)" "42501|42501|42501" \
  "$(acting_for "$A" state authenticated "$B" "select * from search_agent_memories('$E1');")|$(acting_for "$A" state authenticated "$B" "select create_agent_memory('agent-test', 'x', 'fact');")|$(acting_for "$A" state authenticated "$B" "select count(*) from agent_memories;")"
expect "service_role with an x-agentmem-tenant that is no user's id: 42501" "42501|42501" \
  "$(acting_for "$A-0" state service_role "" "select * from search_agent_memories('$E1');")|$(acting_for "me" state service_role "" "select create_agent_memory('agent-test', 'x', 'fact');")"

# --- no identity, no access: anon, tokens without a user, a project that re-grants everything -----
RPC_CALLS=("select * from search_agent_memories('$E1')" "select create_agent_memory('a', 'x', 'fact')"
  "select get_memory_statistics()" "select * from get_memory_context()" "select cleanup_expired_memories()"
  "select update_memory_access(array['$NEAR']::uuid[])" "select agent_memory_dimensions()"
  "select update_agent_memory('$NEAR', p_importance_score => 0.1)" "select delete_agent_memory('$NEAR')")
TABLE_READS=("select count(*) from agent_memories" "select count(*) from memory_references" "select count(*) from memory_access_log")
for stmt in "${RPC_CALLS[@]}" "${TABLE_READS[@]}"; do
  expect "a token without a user (no sub, non-UUID, nil, empty): PT401: ${stmt:0:50}" "$SUBLESS_EXPECTED" "$(subless_states "$stmt")"
done

# --- anon --------------------------------------------------------------------------------------
for stmt in "select 1 from agent_memories limit 1" "select 1 from memory_references limit 1" "select 1 from memory_access_log limit 1" \
  "insert into agent_memories (agent_id, content, memory_type) values ('a', 'x', 'fact')" \
  "select * from search_agent_memories('$E1')" "select create_agent_memory('a', 'x', 'fact')" \
  "select get_memory_statistics()" "select * from get_memory_context()" "select cleanup_expired_memories()" \
  "select update_memory_access(array['$NEAR']::uuid[])" "select agent_memory_dimensions()" "select set_agent_memory_dimensions(8)" \
  "select update_agent_memory('$NEAR', p_importance_score => 0.1)" "select delete_agent_memory('$NEAR')"; do
  expect "anon: permission denied: ${stmt:0:60}" 42501 "$(state anon "" "$stmt;")"
  if [[ $stmt == "select 1 from"* ]]; then
    expect "anon after a re-grant of everything reads nothing: ${stmt:0:50}" "|00000" "$(regranted as_api anon "" "$stmt;
\\echo :SQLSTATE" | paste -sd'|' | sed 's/^00000$/|00000/')"
  else
    # Every function asks agentmem.tenant() first, so anon is refused even where row-level
    # security alone would have filtered everything out.
    expect "anon after a re-grant of everything: refused: ${stmt:0:50}" 42501 "$(regranted as_api anon "" "$stmt;
\\echo :SQLSTATE" | paste -sd'|')"
  fi
done
expect "anon's UPDATE/DELETE after a re-grant touch nothing; a memory's owner sees it intact" "0|0|0|t" \
  "$(regranted as_api anon "" "with u as (update agent_memories set content = 'pwned' returning 1) select count(*) from u;")|$(regranted as_api anon "" "with d as (delete from memory_access_log returning 1) select count(*) from d;")|$(regranted as_api anon "" "with d as (delete from agent_memories returning 1) select count(*) from d;")|$(as_api authenticated "$A" "select content like 'User prefers%' from agent_memories where id = '$NEAR';")"
expect "TRUNCATE as a user: 42501 (no grant), and 42501 after a re-grant (trigger), each table" "42501|42501|42501|42501|42501" \
  "$(state authenticated "$A" "truncate memory_access_log;")|$(regranted state authenticated "$A" "truncate agent_memories cascade;")|$(regranted state authenticated "$A" "truncate memory_references;")|$(regranted state authenticated "$A" "truncate memory_access_log;")|$(regranted state anon "" "truncate memory_access_log;")"
expect "after a re-grant B still reaches none of A's memories (select, update, delete, insert as A, update_memory_access, search)" "0|0|0|42501|0|b-near" \
  "$(regranted as_api authenticated "$B" "select count(*) from agent_memories where user_id = '$A';")|$(regranted as_api authenticated "$B" "with u as (update memory_access_log set access_type = 'search' where user_id = '$A' returning 1) select count(*) from u;")|$(regranted as_api authenticated "$B" "with d as (delete from agent_memories where id = '$NEAR' returning 1) select count(*) from d;")|$(regranted state authenticated "$B" "insert into agent_memories (user_id, agent_id, content, memory_type) values ('$A', 'agent-test', 'x', 'fact');")|$(regranted as_api authenticated "$B" "select update_memory_access(array['$NEAR', '$MID']::uuid[]);")|$(regranted search_labels "$B" ", p_match_threshold => -1")"
expect "after a re-grant a user still cannot call set_agent_memory_dimensions (42501, checked inside)" "42501|42501|t" \
  "$(regranted state authenticated "$A" "select set_agent_memory_dimensions(8);")|$(regranted state anon "" "select set_agent_memory_dimensions(8);")|$(regranted as_api authenticated "$A" "select has_function_privilege('authenticated', 'public.set_agent_memory_dimensions(integer)', 'execute');")"

# --- get_memory_context --------------------------------------------------------------------------
C100=$(printf 'c%.0s' {1..99}) # 99 chars + a 1-char label prefix = 100
ctx_seed="insert into agent_memories (user_id, agent_id, content, memory_type, importance_score, embedding, expires_at, created_at, metadata) values
  ('$A', 'agent-ctx', '1$C100', 'preference', 0.9, '$E1', null, now() - interval '5 minutes', '{\"label\":\"c1\"}'),
  ('$A', 'agent-ctx', '2$C100', 'decision', 0.7, '$E2', null, now() - interval '2 minutes', '{\"label\":\"c2\"}'),
  ('$A', 'agent-ctx', '3$C100', 'decision', 0.7, '$E1', null, now() - interval '3 minutes', '{\"label\":\"c3\"}'),
  ('$A', 'agent-ctx', '4$C100', 'context', 0.5, null, null, now() - interval '1 minute', '{\"label\":\"c4\"}'),
  ('$A', 'agent-ctx', '5$C100', 'preference', 0.95, '$E1', now() - interval '1 second', now(), '{\"label\":\"c5\"}'),
  ('$A', 'agent-ctx', repeat('6', 2000), 'conversation', 0.3, '$E1', null, now(), '{\"label\":\"c6\"}');"
# Ages set by hand: created_at is the database's (its trigger ignores a caller's value), so
# the rows are written by the owner with triggers off.
q -c "set session_replication_role = replica; $ctx_seed" >/dev/null
ctx() { # args → labels in returned order
  as_api authenticated "$A" "select coalesce(string_agg(s.metadata->>'label', ',' order by s.ordinality), '')
     from get_memory_context($1) with ordinality s;"
}
expect "context: importance desc, then newest; expired excluded" "c1,c2,c3,c4,c6" "$(ctx "'agent-ctx'")"
expect "context with a query: importance desc, then similarity" "c1,c3,c2,c4,c6" "$(ctx "'agent-ctx', '$E1'")"
expect "context: char budget 250 keeps the prefix that fits" "c1,c2" "$(ctx "'agent-ctx', p_max_chars => 250")"
expect "context: char budget 2399 stops before the 2000-char memory" "c1,c2,c3,c4" "$(ctx "'agent-ctx', p_max_chars => 2399")"
expect "context: char budget 2400 fits all five" "c1,c2,c3,c4,c6" "$(ctx "'agent-ctx', p_max_chars => 2400")"
expect "context: budget smaller than the first memory returns nothing" "" "$(ctx "'agent-ctx', p_max_chars => 99")"
expect "context: max_memories" "c1,c2,c3" "$(ctx "'agent-ctx', p_max_memories => 3")"
expect "context: min_importance" "c1,c2,c3" "$(ctx "'agent-ctx', p_min_importance => 0.6")"
# Ties of importance and age go by id, within a tier read from its start (its newest first,
# through the index, without a query vector); an expired memory among them is skipped.
q -c "set session_replication_role = replica;
insert into agent_memories (user_id, agent_id, content, memory_type, importance_score, expires_at, created_at, metadata)
select '$A', 'agent-tie', 'tie ' || i, 'fact', case when i = 7 then 0.2 else 0.4 end,
       case when i = 3 then now() - interval '1 second' end,
       case when i = 6 then now() - interval '30 minutes' else now() - interval '1 hour' end, jsonb_build_object('label', 't' || i)
  from generate_series(1, 7) i" >/dev/null
tie_order="select string_agg(metadata->>'label', ',' order by importance_score desc, created_at desc, id) from (
  select * from agent_memories where agent_id = 'agent-tie' and (expires_at is null or expires_at > now())
   order by importance_score desc, created_at desc, id limit"
expect "context: a tier newest first, then by id; expired skipped; a page of it" \
  "$(q -c "$tie_order 6) m")|$(q -c "$tie_order 2) m")|t6|t7|6" \
  "$(ctx "'agent-tie'")|$(ctx "'agent-tie', p_max_memories => 2")|$(ctx "'agent-tie'" | awk -F, '{print $1 "|" $NF "|" NF}')"
q -c "delete from agent_memories where agent_id = 'agent-tie'" >/dev/null
expect "context: similarity null without a query; set with one (null where no embedding)" "||||;1.000|1.000|0.000||1.000" \
  "$(as_api authenticated "$A" "select string_agg(coalesce(round(similarity::numeric, 3)::text, ''), '|' order by o) from get_memory_context('agent-ctx') with ordinality x(id,u,a,s,c,t,i,m,e,ac,la,ca,ua,similarity,o);
select string_agg(coalesce(round(similarity::numeric, 3)::text, ''), '|' order by o) from get_memory_context('agent-ctx', '$E1') with ordinality x(id,u,a,s,c,t,i,m,e,ac,la,ca,ua,similarity,o);" | paste -sd';')"
expect "context records access (count, time, 'context' log rows)" "1,1,1,1,1|5|5" \
  "$(as_api authenticated "$A" "select string_agg(access_count::text, ',') from get_memory_context('agent-ctx');
select count(*) from agent_memories m join agent_memory_counters c on c.user_id = m.user_id and c.memory_id = m.id
 where m.agent_id = 'agent-ctx' and c.access_count = 1 and c.last_accessed_at is not null;
select count(*) from memory_access_log where access_type = 'context' and relevance_score is null;" | paste -sd'|')"
expect "context all agents (A): importance order across agents" "near,c1" "$(ctx "p_max_memories => 2")"
expect_match "context refuses a 3-dim query (22000)" '^22000\|.*dimension' \
  "$(state_msg authenticated "$A" "select * from get_memory_context(null, '[1,2,3]');")"
expect_match "context refuses max_chars 0 (22023)" '^22023\|max_chars must be at least 1' \
  "$(state_msg authenticated "$A" "select * from get_memory_context(p_max_chars => 0);")"
expect_match "context refuses max_memories 0 (22023)" '^22023\|max_memories must be at least 1' \
  "$(state_msg authenticated "$A" "select * from get_memory_context(p_max_memories => 0);")"
expect_match "context refuses min_importance 2 (22023)" '^22023\|min_importance must be between 0 and 1' \
  "$(state_msg authenticated "$A" "select * from get_memory_context(p_min_importance => 2);")"

# --- statistics ----------------------------------------------------------------------------------
expect "statistics: keys" "active,avg_importance,by_type,expired,last_accessed_at,newest_created_at,oldest_created_at,total,total_accesses,with_embedding" \
  "$(as_api authenticated "$A" "select string_agg(k, ',' order by k) from jsonb_object_keys(get_memory_statistics()) k;")"
expect "statistics (A, all agents): total, active, expired, with_embedding, by_type, accesses" \
  "13|11|2|11|{\"fact\": 2, \"context\": 3, \"decision\": 3, \"preference\": 3, \"conversation\": 2}|0|number|string|string|null" \
  "$(as_api authenticated "$A" "select s->>'total', s->>'active', s->>'expired', s->>'with_embedding', s->'by_type', s->>'total_accesses',
       jsonb_typeof(s->'avg_importance'), jsonb_typeof(s->'oldest_created_at'), jsonb_typeof(s->'newest_created_at'), jsonb_typeof(s->'last_accessed_at')
     from get_memory_statistics() s;")"
expect "statistics for one agent; accesses counted" "6|1|0.6750|2" \
  "$(as_api authenticated "$A" "select update_memory_access(array(select id from agent_memories where agent_id = 'agent-ctx' and importance_score >= 0.9)) \\g /dev/null
select s->>'total', s->>'expired', round((s->>'avg_importance')::numeric, 4), s->>'total_accesses' from get_memory_statistics('agent-ctx') s;")"
expect "statistics of B" "2|1" "$(as_api authenticated "$B" "select s->>'total', s->>'expired' from get_memory_statistics() s;")"
expect "statistics of an agent with no memories" "0|null|0" \
  "$(as_api authenticated "$A" "select s->>'total', jsonb_typeof(s->'avg_importance'), s->'by_type'->>'fact' from get_memory_statistics('nobody') s;")"

# --- cleanup -------------------------------------------------------------------------------------
expect "cleanup (A) deletes only A's expired memories; B's expired one stays" "2|0|11|1" \
  "$(printf '%s\n' 'begin;' 'set local role authenticated;' \
       "select set_config('request.jwt.claims', '{\"sub\":\"$A\",\"role\":\"authenticated\"}', true) \\g /dev/null" \
       'select cleanup_expired_memories();' 'reset role;' \
       "select count(*) from agent_memories where user_id = '$A' and expires_at <= now();" \
       "select count(*) from agent_memories where user_id = '$A';" \
       "select count(*) from agent_memories where user_id = '$B' and expires_at <= now();" 'rollback;' |
     q | paste -sd'|')"
expect "cleanup as service_role deletes every user's expired memories" "t|0" \
  "$(as_api service_role "" "select cleanup_expired_memories() >= 3;
select count(*) from agent_memories where expires_at <= now();" | paste -sd'|')"

# --- set_agent_memory_dimensions --------------------------------------------------------------------
expect "set_agent_memory_dimensions refused for authenticated (42501)" 42501 \
  "$(state authenticated "$A" "select set_agent_memory_dimensions(8);")"
expect_match "set_agent_memory_dimensions refused while embeddings exist (55000)" '^55000\|agent_memories already stores embeddings of 384 dimensions' \
  "$(state_msg service_role "" "select set_agent_memory_dimensions(8);")"
expect_match "set_agent_memory_dimensions refuses 2001 (22023)" '^22023\|dimensions must be between 1 and 2000' \
  "$(state_msg service_role "" "select set_agent_memory_dimensions(2001);")"
expect "set_agent_memory_dimensions to the current value is a no-op" "false" \
  "$(as_api service_role "" "select set_agent_memory_dimensions(384)->>'changed';")"
E8=$(DIMS=8 vec 1)
expect "set_agent_memory_dimensions(8) on an empty column: type, index, then 8-dim create/search work and 384 fails" \
  "{\"changed\": true, \"dimensions\": 8, \"previous_dimensions\": 384}|vector(8)|8|t|fresh|1.000|22000" \
  "$(printf '%s\n' '\set ON_ERROR_ROLLBACK on' 'begin;' "set local lock_timeout = '10s';" 'set local role service_role;' \
       'update agent_memories set embedding = null where embedding is not null \g /dev/null' \
       'select set_agent_memory_dimensions(8);' \
       "select format_type(atttypid, atttypmod) from pg_attribute where attrelid = 'public.agent_memories'::regclass and attname = 'embedding';" \
       'select agent_memory_dimensions();' \
       "select exists (select from pg_indexes where indexname = 'agent_memories_embedding_hnsw_idx' and indexdef like '%hnsw%vector_cosine_ops%')
               and pg_get_indexdef('agent_memory_vectors_search_idx'::regclass) like '%INCLUDE (memory_id, embedding)';" \
       'set local role authenticated;' \
       "select set_config('request.jwt.claims', '{\"sub\":\"$A\",\"role\":\"authenticated\"}', true) \\g /dev/null" \
       "select create_agent_memory('agent-8', 'eight dims', 'fact', p_embedding => '$E8', p_metadata => '{\"label\":\"fresh\"}') \\g /dev/null" \
       "select metadata->>'label', round(similarity::numeric, 3) from search_agent_memories('$E8', 'agent-8');" \
       '\o /dev/null' "select * from search_agent_memories('$E1');" '\o' '\echo :SQLSTATE' 'rollback;' |
     q_continue | tr '\n' '|' | sed 's/|$//')"
expect "after the rolled-back change the column is vector(384) again" 384 "$(q -c 'select agent_memory_dimensions()')"
# Above 768 dimensions the search copies' index leaves the vector out (a btree entry holds
# ~2,700 bytes): a 1,536-dimension memory with a 255-character agent id of 4-byte
# characters is stored and found, exactly. Its copy (3 KB) stays in its row, not in the
# TOAST table, where the exact scan would look each copy up (pgvector's types are stored
# EXTERNAL: out of line from a 2 KB row on).
E1536=$(DIMS=1536 vec 1)
LONG_AGENT=$(python3 -c "print('\U0001F600' * 255)")
expect "set_agent_memory_dimensions(1536): the copies' index without the vector, create and search still work, the copy in its row" \
  "INCLUDE (memory_id)|t|1.000|3080|t" \
  "$(printf '%s\n' '\set ON_ERROR_ROLLBACK on' 'begin;' "set local lock_timeout = '10s';" 'set local role service_role;' \
       'update agent_memories set embedding = null where embedding is not null \g /dev/null' \
       'select set_agent_memory_dimensions(1536) \g /dev/null' \
       "select substring(pg_get_indexdef('agent_memory_vectors_search_idx'::regclass) from 'INCLUDE .*');" \
       'set local role authenticated;' \
       "select set_config('request.jwt.claims', '{\"sub\":\"$A\",\"role\":\"authenticated\"}', true) \\g /dev/null" \
       "select (create_agent_memory('$LONG_AGENT', 'wide', 'fact', p_embedding => '$E1536')).id is not null;" \
       "select round(similarity::numeric, 3) from search_agent_memories('$E1536', '$LONG_AGENT');" \
       'reset role;' \
       "select pg_column_size(v.embedding), pg_column_toast_chunk_id(v.embedding) is null from agent_memory_vectors v where v.user_id = '$A' and v.agent_id = '$LONG_AGENT';" \
       'rollback;' |
     q_continue | tr '\n' '|' | sed 's/|$//')"

# Back to fewer dimensions while the wider copies are deleted but not yet vacuumed (the
# same transaction): those would not fit the index with the vector, so it is built without
# it, and memories are stored and found all the same.
expect "set_agent_memory_dimensions(1536) then (384) in one transaction: the copies' index falls back to the id, search still exact" \
  "INCLUDE (memory_id)|t|1.000" \
  "$(printf '%s\n' '\set ON_ERROR_ROLLBACK on' 'begin;' "set local lock_timeout = '10s';" 'set local role service_role;' \
       'update agent_memories set embedding = null where embedding is not null \g /dev/null' \
       'select set_agent_memory_dimensions(1536) \g /dev/null' \
       "insert into agent_memories (user_id, agent_id, content, memory_type, embedding) values ('$A', 'wide', 'wide', 'fact', '$E1536');" \
       'update agent_memories set embedding = null where embedding is not null \g /dev/null' \
       'select set_agent_memory_dimensions(384) \g /dev/null' \
       "select substring(pg_get_indexdef('agent_memory_vectors_search_idx'::regclass) from 'INCLUDE .*');" \
       'set local role authenticated;' \
       "select set_config('request.jwt.claims', '{\"sub\":\"$A\",\"role\":\"authenticated\"}', true) \\g /dev/null" \
       "select (create_agent_memory('agent-back', 'back to 384', 'fact', p_embedding => '$E1')).id is not null;" \
       "select round(similarity::numeric, 3) from search_agent_memories('$E1', 'agent-back');" 'rollback;' |
     q_continue | tr '\n' '|' | sed 's/|$//')"
# One size for both embedding columns, set in one place (the store's migration).
expect "set_embedding_dimensions: the service role's only (42501), refused for both while either stores embeddings (55000), nothing changed" \
  "42501|55000|384|384" \
  "$(state authenticated "$A" "select set_embedding_dimensions(8);")|$(state service_role "" "select set_embedding_dimensions(8);")|$(q -c 'select agent_memory_dimensions()')|$(q -c 'select langgraph_store_dimensions()')"
expect "set_embedding_dimensions(8) with both columns empty: both vector(8), in one transaction" \
  "true|true|8|8" \
  "$(printf '%s\n' 'begin;' "set local lock_timeout = '10s';" 'set local role service_role;' \
       'update agent_memories set embedding = null where embedding is not null \g /dev/null' \
       'delete from langgraph_store_vectors \g /dev/null' \
       "select (r -> 'agent_memories' ->> 'changed') || '|' || (r -> 'langgraph_store_vectors' ->> 'changed') from set_embedding_dimensions(8) r;" \
       'select agent_memory_dimensions();' 'select langgraph_store_dimensions();' 'rollback;' |
     q_continue | tr '\n' '|' | sed 's/|$//')"

# --- concurrency: access bumps in opposite orders never deadlock, and count exactly ----------
# search_agent_memories, get_memory_context and update_memory_access lock the rows they
# bump in id order. Four sessions of user D bump the same 30 memories over and over: two
# searches whose rankings are each other's reverse, the context (importance order), and
# update_memory_access; each call its own transaction. Ids are random, so id order is
# neither ranking.
NDL=${AGENTMEM_DEADLOCK_ROUNDS:-120}
q -c "insert into agent_memories (user_id, agent_id, content, memory_type, importance_score, embedding)
  select '$D', 'agent-dl', 'memory ' || i, 'fact', i / 31.0,
         ('[' || cos(radians(i * 3)) || ',' || sin(radians(i * 3)) || repeat(',0', agent_memory_dimensions() - 2) || ']')::extensions.vector
  from generate_series(1, 30) i;" >/dev/null
dl_session() { # name, statement printing the bumped ids (comma-separated)
  {
    printf '%s\n' 'set role authenticated;' \
      "select set_config('request.jwt.claims', '{\"sub\":\"$D\",\"role\":\"authenticated\"}', false) \\g /dev/null"
    for ((i = 0; i < NDL; i++)); do printf '%s\n' "$2" '\echo state :SQLSTATE'; done
  } | "$PG" psql -X -q -At -U authenticator >"$DLDIR/$1.out" 2>"$DLDIR/$1.err"
}
dl_session search-asc "select string_agg(id::text, ',') from search_agent_memories('$E1', 'agent-dl', -1, 30, p_session_id => 'dl');" &
dl_session search-desc "select string_agg(id::text, ',') from search_agent_memories('$E2', 'agent-dl', -1, 30, p_session_id => 'dl');" &
dl_session context "select string_agg(id::text, ',') from get_memory_context('agent-dl', null, 1000000, 30);" &
dl_session access "select case when update_memory_access(array(select id from agent_memories where agent_id = 'agent-dl' order by id desc)) = 30
  then (select string_agg(id::text, ',') from agent_memories where agent_id = 'agent-dl') end;" &
wait
expect "4 concurrent sessions x $NDL bumps of the same 30 memories in opposite orders: no deadlock (40P01), no error" \
  "$((4 * NDL)) ok" \
  "$(cat "$DLDIR"/*.out | grep '^state ' | sort | uniq -c | awk '{print $1, ($3 == "00000" ? "ok" : $3)}' | paste -sd,)"
expect "... every call bumped all 30 memories" "$((4 * NDL))" \
  "$(cat "$DLDIR"/*.out | grep -v '^state ' | awk -F, 'NF == 30' | wc -l)"
expect "... access_count = recorded accesses (log rows) = times returned, for each memory" "30 exact" \
  "$(cat "$DLDIR"/*.out | grep -v '^state ' | tr ',' '\n' | sort | uniq -c | awk '{print $2 "|" $1}' | sort >"$DLDIR/returned"
     q -c "select m.id || '|' || c.access_count || '|' || (select count(*) from memory_access_log l where l.user_id = m.user_id and l.memory_id = m.id)
           from agent_memories m join agent_memory_counters c on c.user_id = m.user_id and c.memory_id = m.id where m.user_id = '$D' order by 1" >"$DLDIR/stored"
     join -t'|' "$DLDIR/returned" "$DLDIR/stored" | awk -F'|' '$2 == $3 && $3 == $4 && $2 == '"$((4 * NDL))"' {n++} END {print n + 0, "exact"}')"
expect "... and the log has the right kinds: searches with their session, context, read" "search:dl:$((60 * NDL)),read::$((30 * NDL)),context::$((30 * NDL))" \
  "$(q -c "select string_agg(access_type || ':' || coalesce(session_id, '') || ':' || n, ',' order by access_type desc) from (
             select access_type, session_id, count(*) n from memory_access_log where user_id = '$D' group by 1, 2) x")"

# --- deleting a user ---------------------------------------------------------------------------
a_rows() { q -c "select (select count(*) from agent_memories where user_id = '$A') || '|' || (select count(*) from memory_references where user_id = '$A') || '|' || (select count(*) from memory_access_log where user_id = '$A')"; }
expect "A has memories, references and access log rows" "t" "$(a_rows | awk -F'|' '{print ($1 > 0 && $2 > 0 && $3 > 0) ? "t" : "f"}')"
b_before=$(q -c "select count(*) from agent_memories where user_id = '$B'")
q -c "delete from auth.users where id = '$A'" >/dev/null
expect "deleting A from auth.users deletes A's memories, references and access log; B's stay" "0|0|0|$b_before" "$(a_rows)|$(q -c "select count(*) from agent_memories where user_id = '$B'")"

# --- done ------------------------------------------------------------------------------------------
if [ "$failed" != 0 ]; then
  log "agent memory SQL test FAILED: $failed of $checks checks"
  exit 1
fi
log "agent memory SQL test passed: $checks checks"
