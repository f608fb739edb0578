#!/usr/bin/env bash
# The state-store schema (supabase/migrations/20261122000300_unified_conversations.sql,
# …400_workflow_agent_states.sql, …500_research_sessions.sql) against the real local
# Postgres, exactly as PostgREST drives it: connected as authenticator, `set local role` +
# request.jwt.claims inside one transaction per request.
#
# Runs on the stack named by AGENTMEM_PG_PORT / AGENTMEM_STACK_DIR (default: the main
# stack, 54329 / /tmp/agentmem-stack); applies pending migrations (starting Postgres if
# needed, and stopping it again at the end if this script started it). Its data belongs to
# fresh users deleted at the end (deleting a user deletes their rows: the
# agentmem_forget_user trigger), plus the service tenant's rows keyed by this run's ids,
# which the cleanup deletes too.
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"

PG="$ROOT/scripts/postgres.sh"
started=0
"$PG" status >/dev/null 2>&1 || started=1

A=$(cat /proc/sys/kernel/random/uuid)
B=$(cat /proc/sys/kernel/random/uuid)
F=$(cat /proc/sys/kernel/random/uuid)     # a user who is deleted
RUN=${A:0:8}
CONV=$(cat /proc/sys/kernel/random/uuid)    # A's conversation (stands in for uuid5(lead))
LINK=$(cat /proc/sys/kernel/random/uuid)    # a chat conversation linked to A's lead
SVC=$(cat /proc/sys/kernel/random/uuid)     # a conversation the service role writes
C2=$(cat /proc/sys/kernel/random/uuid)      # a conversation id of A's, the service's and F's

cleanup() {
  local rc=$?
  "$PG" psql -X -q -At -c "delete from unified_conversation_memory where conversation_id in ('$CONV', '$LINK', '$SVC', '$C2');
    delete from unified_conversations where id in ('$CONV', '$SVC', '$C2');
    delete from workflow_agent_states where session_id like 'wf-$RUN-%';
    delete from research_sessions where session_id like 'rs-$RUN-%';
    delete from auth.users where id in ('$A', '$B', '$F')" >/dev/null 2>&1 || true
  if [ "$started" = 1 ]; then "$PG" stop >/dev/null 2>&1 || true; fi
  exit "$rc"
}
trap cleanup EXIT

source "$(dirname "${BASH_SOURCE[0]}")/sql_lib.sh"
# SQLSTATE and error message of one statement, "STATE|message" (committed if it succeeds).
state_msg() { # role, sub, statement
  api commit "$1" "$2" "\\o /dev/null
$3
\\o
\\echo :SQLSTATE|:LAST_ERROR_MESSAGE"
}
state() { state_msg "$@" | cut -d'|' -f1; }

log "state stores SQL test (port ${AGENTMEM_PG_PORT:-54329}, users A=$A B=$B)"
"$ROOT/scripts/migrate.sh" --with-optional >&2
q -c "insert into auth.users (id, email) values ('$A', 'state-a-$A@example.test'), ('$B', 'state-b-$B@example.test'), ('$F', 'state-f-$F@example.test')"

TABLES="'unified_conversations','unified_conversation_memory','workflow_agent_states','research_sessions','research_drafts'"
FNS="'unified_iso_now','unified_check_ids','unified_conversation_write','save_unified_state','restore_unified_state','create_unified_checkpoint','restore_unified_checkpoint',
     'delete_unified_state','workflow_state_check_keys','create_workflow_state','update_workflow_state','delete_workflow_state',
     'research_now_ms','save_research_session','save_research_draft','delete_research_session','research_workflow_summary'"

# --- shape -----------------------------------------------------------------------------------
expect "RLS on the five tables" "5" \
  "$(q -c "select count(*) from pg_class where relnamespace = 'public'::regnamespace and relname in ($TABLES) and relrowsecurity")"
NSP="pronamespace in ('public'::regnamespace, 'agentmem'::regnamespace)"
expect "the seventeen functions exist once each (the RPCs in public, their helpers in agentmem)" "17|unified_iso_now,research_now_ms,unified_check_ids,unified_conversation_write,workflow_state_check_keys" \
  "$(q -c "select count(*), string_agg(proname, ',' order by proname <> 'unified_iso_now', proname) filter (where pronamespace = 'agentmem'::regnamespace) from pg_proc where $NSP and proname in ($FNS)")"
expect "every function pins its search_path: the writers (SECURITY DEFINER, the tables' one door) and their helper an empty one, the readers public" \
  "7|10|create_unified_checkpoint,create_workflow_state,delete_research_session,delete_unified_state,delete_workflow_state,save_research_draft,save_research_session,save_unified_state,update_workflow_state" \
  "$(q -c "select count(*) filter (where proconfig @> array['search_path=public']), count(*) filter (where proconfig @> array['search_path=\"\"']),
                  string_agg(proname, ',' order by proname) filter (where prosecdef)
           from pg_proc where $NSP and proname in ($FNS)")"
expect "anon has no privilege on the tables" "f" \
  "$(q -c "select bool_or(has_table_privilege('anon', 'public.' || t, p)) from unnest(array[$TABLES]) t,
           unnest(array['select', 'insert', 'update', 'delete', 'truncate', 'references', 'trigger']) p")"
expect "authenticated: select only (the functions write), never truncate" "5|0" \
  "$(q -c "select count(*) filter (where has_table_privilege('authenticated', 'public.' || t, 'select')),
                  count(*) filter (where has_table_privilege('authenticated', 'public.' || t, 'insert,update,delete,truncate'))
           from unnest(array[$TABLES]) t")"
expect "anon and PUBLIC execute no state function; authenticated and service_role all but the writers' private helper" "f|16|16" \
  "$(q -c "select bool_or(has_function_privilege('anon', p.oid, 'execute') or has_function_privilege('public', p.oid, 'execute')),
                  count(*) filter (where has_function_privilege('authenticated', p.oid, 'execute')),
                  count(*) filter (where has_function_privilege('service_role', p.oid, 'execute'))
           from pg_proc p where $NSP and proname in ($FNS)")"
# The workflow agent's own table, column by column: name, type, nullability, default.
expect "workflow_agent_states has the workflow agent's columns, types, nullability and defaults" \
  "id:uuid:NO:gen_random_uuid()
tenant_id:uuid:NO:agentmem.tenant()
session_id:character varying(255):NO:
user_id:character varying(255):YES:(NULLIF(agentmem.tenant(), agentmem.service_tenant()))::text
created_at:bigint:NO:
updated_at:bigint:NO:
stage:character varying(50):NO:
previous_stage:character varying(50):YES:
intent_summary:text:YES:''::text
conversations:jsonb:NO:'[]'::jsonb
execution_history:jsonb:YES:'[]'::jsonb
clarification_context:jsonb:YES:
gap_status:character varying(20):YES:'no_gap'::character varying
identified_gaps:jsonb:YES:'[]'::jsonb
current_workflow:jsonb:YES:
template_workflow:jsonb:YES:
workflow_context:jsonb:YES:
debug_result:jsonb:YES:
debug_loop_count:integer:YES:0
template_id:character varying(255):YES:" \
  "$(q -c "select a.attname || ':' || format_type(a.atttypid, a.atttypmod) || ':' || case when a.attnotnull then 'NO' else 'YES' end
                  || ':' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
           from pg_attribute a left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
           where a.attrelid = 'public.workflow_agent_states'::regclass and a.attnum > 0 and not a.attisdropped order by a.attnum")"
expect "session_id is UNIQUE per tenant; every key includes the tenant" \
  "research_drafts:f:tenant_id,session_id;research_drafts:p:tenant_id,id;research_drafts:u:tenant_id,session_id,phase,version;research_sessions:p:tenant_id,session_id;unified_conversation_memory:p:tenant_id,id;unified_conversation_memory:u:tenant_id,conversation_id,memory_type,memory_key;unified_conversations:p:tenant_id,id;workflow_agent_states:p:tenant_id,id;workflow_agent_states:u:tenant_id,session_id" \
  "$(q -c "select string_agg(c.conrelid::regclass || ':' || c.contype::text || ':' || (select string_agg(a.attname, ',' order by k.o) from unnest(c.conkey) with ordinality k(n, o)
             join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.n), ';' order by c.conrelid::regclass::text, c.contype, c.conname)
           from pg_constraint c where c.conrelid = any (array[$TABLES]::regclass[]) and c.contype in ('p', 'f', 'u')")"
expect "the tenant columns default to agentmem.tenant()" "5" \
  "$(q -c "select count(*) from pg_attrdef d join pg_attribute a on a.attrelid = d.adrelid and a.attnum = d.adnum
           where a.attname = 'tenant_id' and pg_get_expr(d.adbin, d.adrelid) = 'agentmem.tenant()' and d.adrelid = any (array[$TABLES]::regclass[])")"
expect "the workflow agent's six btree indexes and GIN indexes on the JSONB columns" \
  "btree:gap_status,btree:session_id,btree:stage,btree:template_id,btree:updated_at,btree:user_id|gin:clarification_context,gin:conversations,gin:current_workflow,gin:debug_result,gin:identified_gaps,gin:workflow_context" \
  "$(q -c "select string_agg(am.amname || ':' || pg_get_indexdef(c.oid, 1, true), ',' order by pg_get_indexdef(c.oid, 1, true)) filter (where am.amname = 'btree')
                  || '|' || string_agg(am.amname || ':' || pg_get_indexdef(c.oid, 1, true), ',' order by pg_get_indexdef(c.oid, 1, true)) filter (where am.amname = 'gin')
           from pg_index i join pg_class c on c.oid = i.indexrelid join pg_am am on am.oid = c.relam
           where i.indrelid = 'public.workflow_agent_states'::regclass and c.relname like 'idx_workflow_agent_states_%'")"
expect "unified_conversation_memory is unique on (tenant_id, conversation_id, memory_type, memory_key)" "tenant_id,conversation_id,memory_type,memory_key" \
  "$(q -c "select string_agg(a.attname, ',' order by k.o) from pg_constraint c, unnest(c.conkey) with ordinality k(n, o)
           join pg_attribute a on a.attrelid = 'public.unified_conversation_memory'::regclass and a.attnum = k.n
           where c.conrelid = 'public.unified_conversation_memory'::regclass and c.contype = 'u'")"

# --- unified conversation memory ---------------------------------------------------------------
FIELDS='{"messages": [{"content": "hi", "type": "human"}, {"content": "hello", "type": "ai"}], "company_name": "Acme", "specialties": ["roofing"], "years_in_business": 12}'
expect "save: 4 fields + last_state_update + the mapping = 6 rows, one call" "6|true" \
  "$(as_commit authenticated "$A" "select (r->>'rows') || '|' || (r->>'last_state_update' ~ '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$')
     from save_unified_state('$CONV', 'landing-$RUN', '$FIELDS', '{\"company_name\": \"Acme\", \"interface\": \"landing_page\"}', '$LINK') r;")"
expect "the conversation row: COIA_LANDING, contractor_lead, title, metadata, last_message_at, tenant" \
  "COIA_LANDING|contractor_lead|COIA Landing: Acme|active|landing-$RUN|{\"interface\": \"landing_page\", \"company_name\": \"Acme\", \"journey_stage\": \"landing_page\", \"contractor_lead_id\": \"landing-$RUN\", \"research_completed\": false}|t|t" \
  "$(q -c "select conversation_type, entity_type, title, status, contractor_lead_id, metadata, last_message_at is not null, tenant_id = '$A' from unified_conversations where id = '$CONV'")"
expect "memory rows: fields at importance 100, last_state_update at 50, mapping under the linked id" \
  "$CONV|coia_state|company_name|\"Acme\"|100
$CONV|coia_state|last_state_update|50
$CONV|coia_state|messages|[{\"type\": \"human\", \"content\": \"hi\"}, {\"type\": \"ai\", \"content\": \"hello\"}]|100
$CONV|coia_state|specialties|[\"roofing\"]|100
$CONV|coia_state|years_in_business|12|100
$LINK|contractor_mapping|contractor_lead_id|\"landing-$RUN\"|100" \
  "$(q -c "select concat_ws('|', conversation_id, memory_type, memory_key, case when memory_key <> 'last_state_update' then memory_value::text end, importance_score)
           from unified_conversation_memory where conversation_id in ('$CONV', '$LINK') order by conversation_id = '$LINK', memory_key")"
expect "saving again (a resent save) updates in place: still 6 rows; null is stored; metadata merged" \
  "7|\"Acme Roofing\"|null|COIA Landing: Acme Roofing|{\"interface\": \"landing_page\", \"company_name\": \"Acme Roofing\", \"journey_stage\": \"research\", \"contractor_lead_id\": \"landing-$RUN\", \"research_completed\": true}" \
  "$(as_commit authenticated "$A" "select save_unified_state('$CONV', 'landing-$RUN', '{\"company_name\": \"Acme Roofing\", \"website_summary\": null}',
       '{\"company_name\": \"Acme Roofing\", \"journey_stage\": \"research\", \"research_completed\": true}', '$LINK') \\g /dev/null
select count(*) from unified_conversation_memory where conversation_id in ('$CONV', '$LINK');
select memory_value from unified_conversation_memory where conversation_id = '$CONV' and memory_key = 'company_name';
select memory_value from unified_conversation_memory where conversation_id = '$CONV' and memory_key = 'website_summary';
select title from unified_conversations where id = '$CONV';
select metadata from unified_conversations where id = '$CONV';" | paste -sd'|')"
expect "restore: every coia_state key with its JSON value (checkpoint and mapping excluded)" \
  "company_name,last_state_update,messages,specialties,website_summary,years_in_business|12|array" \
  "$(as_api authenticated "$A" "select (select string_agg(k, ',' order by k) from jsonb_object_keys(r) k) || '|' || (r->'years_in_business') || '|' || jsonb_typeof(r->'messages')
     from restore_unified_state('$CONV') r;")"
expect "restore of an unknown conversation is null" "t" \
  "$(as_api authenticated "$A" "select restore_unified_state(gen_random_uuid()) is null;")"
# Tenancy: a conversation id (predictable: uuid5 of the lead) names a different conversation
# in each tenant. No oracle: B's calls on A's id are answered exactly like an unused id.
UNUSED=$(cat /proc/sys/kernel/random/uuid)
uprobe() { # sub, conversation id: one line per call, "result|SQLSTATE|message" (id normalized)
  local stmt
  for stmt in "select restore_unified_state('$2')" "select restore_unified_checkpoint('$2')" \
    "select delete_unified_state('$2', 'landing-$RUN')" \
    "select save_unified_state('$2', 'landing-$RUN', '{\"company_name\": \"Evil\"}', '{}', '$LINK') - 'last_state_update'" \
    "select save_unified_state('$2', 'landing-other', '{}') - 'last_state_update'" \
    "select create_unified_checkpoint('$2', 'landing-other', '{\"current_mode\": \"evil\"}') - 'checkpoint_timestamp'" \
    "select count(*) from unified_conversations where id = '$2'" "select count(*) from unified_conversation_memory where conversation_id = '$2'" \
    "insert into unified_conversation_memory (conversation_id, memory_type, memory_key, memory_value) values ('$2', 'checkpoint', 'state_checkpoint', '1') returning memory_key" \
    "insert into unified_conversations (id, contractor_lead_id) values ('$2', 'landing-other') returning contractor_lead_id" \
    "with u as (update unified_conversation_memory set memory_value = '1' where conversation_id = '$2' returning 1) select count(*) from u" \
    "with d as (delete from unified_conversations where id = '$2' returning 1) select count(*) from d"; do
    as_api authenticated "$1" "$stmt;
\\echo :SQLSTATE|:LAST_ERROR_MESSAGE" | paste -sd'|'
  done | sed -E "s/$2/<id>/g; s/\"(created_at|updated_at)\": [0-9]+/\"\1\": <ms>/g"
}
uprobe_a=$(uprobe "$B" "$CONV")
expect "no oracle: B's 12 calls on A's conversation id are answered exactly like an unused id" "$(uprobe "$B" "$UNUSED")" "$uprobe_a"
expect "... and those answers are: nothing there (null, 0 rows), the RPCs' writes succeed as B's own, the tables' are refused" \
  "|00000|;|00000|;0|00000|;{\"rows\": 3, \"lead_id\": null, \"conversation_id\": \"<id>\"}|00000|;{\"rows\": 1, \"lead_id\": null, \"conversation_id\": \"<id>\"}|00000|;{\"current_mode\": \"evil\"}|00000|;0|00000|;0|00000|;42501|permission denied for table unified_conversation_memory;42501|permission denied for table unified_conversations;42501|permission denied for table unified_conversation_memory;42501|permission denied for table unified_conversations" \
  "$(paste -sd';' <<<"$uprobe_a")"
expect "B saving into A's conversation id (committed) saves B's own; A's value unchanged" "00000|\"Evil\"|\"Acme Roofing\"" \
  "$(state authenticated "$B" "select save_unified_state('$CONV', 'landing-$RUN', '{\"company_name\": \"Evil\"}');")|$(as_api authenticated "$B" "select restore_unified_state('$CONV') -> 'company_name';")|$(as_api authenticated "$A" "select restore_unified_state('$CONV') -> 'company_name';")"
expect "... B's rows are B's (tenant B); B's delete removes only them" "2|$B|2|0|7" \
  "$(q -c "select count(*) || '|' || string_agg(distinct tenant_id::text, ',') from unified_conversation_memory where conversation_id = '$CONV' and tenant_id <> '$A'")|$(as_commit authenticated "$B" "select delete_unified_state('$CONV', 'landing-$RUN') - 1;")|$(q -c "select count(*) from unified_conversation_memory where conversation_id = '$CONV' and tenant_id = '$B'")|$(q -c "select count(*) from unified_conversation_memory where conversation_id in ('$CONV', '$LINK') and tenant_id = '$A'")"
SQC=$(cat /proc/sys/kernel/random/uuid)
as_commit authenticated "$B" "select save_unified_state('$SQC', 'lead-b-$RUN', '{\"who\": \"B\"}') \\g /dev/null
select create_unified_checkpoint('$SQC', 'lead-b-$RUN', '{\"by\": \"B\"}') \\g /dev/null" >/dev/null
expect "squatting: B uses conversation id X first (state, checkpoint); then A uses X for another lead: A succeeds" "00000|00000" \
  "$(state authenticated "$A" "select save_unified_state('$SQC', 'lead-a-$RUN', '{\"who\": \"A\"}');")|$(state authenticated "$A" "select create_unified_checkpoint('$SQC', 'lead-a-$RUN', '{\"by\": \"A\"}');")"
expect "... two independent conversations: each restores its own state, checkpoint and lead" "A|A|lead-a-$RUN;B|B|lead-b-$RUN" \
  "$(for u in "$A" "$B"; do as_api authenticated "$u" "select (restore_unified_state('$SQC') ->> 'who') || '|' || (restore_unified_checkpoint('$SQC') ->> 'by') || '|' || (select contractor_lead_id from unified_conversations where id = '$SQC');"; done | paste -sd';')"
expect "... A's delete leaves B's conversation" "t|B" \
  "$(as_commit authenticated "$A" "select delete_unified_state('$SQC', 'lead-a-$RUN') > 0;")|$(as_api authenticated "$B" "select restore_unified_state('$SQC') ->> 'who';")"
as_commit authenticated "$B" "select delete_unified_state('$SQC', 'lead-b-$RUN') \\g /dev/null" >/dev/null
expect "B cannot insert straight into A's tenant (42501), nor move a row there" "42501|42501" \
  "$(state authenticated "$B" "insert into unified_conversation_memory (tenant_id, conversation_id, memory_type, memory_key, memory_value) values ('$A', '$CONV', 'checkpoint', 'x', '1');")|$(as_api authenticated "$B" "insert into unified_conversations (id, contractor_lead_id) values ('$UNUSED', 'x');
update unified_conversations set tenant_id = '$A' where id = '$UNUSED';
\\echo :SQLSTATE")"
expect_match "a conversation id saved for another lead is refused (22023)" '^22023\|conversation .* belongs to contractor lead' \
  "$(state_msg authenticated "$A" "select save_unified_state('$CONV', 'landing-other', '{}');")"
for c in "fields not an object|'[1]'|fields must be a JSON object" \
  "last_state_update as a field|'{\"last_state_update\": 1}'|fields must not contain last_state_update" \
  "an empty field name|'{\"\": 1}'|field names must be 1 to 255 characters"; do
  IFS='|' read -r name fields msg <<<"$c"
  expect_match "save refuses $name (22023)" "^22023\|$msg" \
    "$(state_msg authenticated "$A" "select save_unified_state('$CONV', 'landing-$RUN', $fields);")"
done
expect "save refuses an empty lead id (22023)" 22023 "$(state authenticated "$A" "select save_unified_state('$CONV', '', '{}');")"
expect "anon cannot save (42501)" 42501 "$(state anon "" "select save_unified_state('$CONV', 'landing-$RUN', '{}');")"
expect "checkpoint: the snapshot plus checkpoint_timestamp; restore returns it; one row however often" \
  "research|true|1" \
  "$(as_commit authenticated "$A" "select create_unified_checkpoint('$CONV', 'landing-$RUN', '{\"current_mode\": \"chat\"}') \\g /dev/null
select create_unified_checkpoint('$CONV', 'landing-$RUN', '{\"current_mode\": \"research\"}') \\g /dev/null
select (r->>'current_mode') || '|' || (r ? 'checkpoint_timestamp') from restore_unified_checkpoint('$CONV') r;
select count(*) from unified_conversation_memory where conversation_id = '$CONV' and memory_type = 'checkpoint' and tenant_id = '$A';" | paste -sd'|')"
expect "the service role's save is the service tenant's (nil UUID), and users do not see it" "t|0" \
  "$(as_commit service_role "" "select save_unified_state('$SVC', 'svc-$RUN', '{\"company_name\": \"Svc\"}') \\g /dev/null" >/dev/null
     q -c "select bool_and(tenant_id = '00000000-0000-0000-0000-000000000000') from unified_conversation_memory where conversation_id = '$SVC'"
     )|$(as_api authenticated "$A" "select count(*) from unified_conversations where id = '$SVC';")"
expect "delete: the conversation, its rows and the lead's mapping (9 rows); then nothing is left" "9|0|0" \
  "$(as_commit authenticated "$A" "select delete_unified_state('$CONV', 'landing-$RUN');
select count(*) from unified_conversation_memory where conversation_id in ('$CONV', '$LINK');
select count(*) from unified_conversations where id = '$CONV';" | paste -sd'|')"
expect "... in the table too (any tenant's rows of this conversation: none)" "0" \
  "$(q -c "select count(*) from unified_conversation_memory where conversation_id in ('$CONV', '$LINK')")"

# --- workflow agent states ---------------------------------------------------------------------
WF="wf-$RUN-1"
STATE="{\"session_id\": \"$WF\", \"created_at\": 1700000000000, \"updated_at\": 1700000000000, \"stage\": \"clarification\",
        \"conversations\": [{\"role\": \"user\", \"text\": \"build me a workflow\", \"timestamp\": 1700000000000, \"metadata\": {}}],
        \"clarification_context\": {\"purpose\": \"initial_intent\", \"collected_info\": {}, \"pending_questions\": [\"which trigger?\"], \"origin\": \"create\"}}"
expect "create returns the whole state: given fields, column defaults, user_id = the caller, timestamps the database's (now, not the state's)" \
  "clarification|no_gap|0||[]|$A|t|f" \
  "$(as_commit authenticated "$A" "select concat_ws('|', s->>'stage', s->>'gap_status', s->>'debug_loop_count', s->>'intent_summary', s->>'identified_gaps',
       s->>'user_id', (s->>'updated_at')::bigint > agentmem.now_ms() - 60000, s ? 'id') from create_workflow_state('$STATE') s;")"
expect "the same create again (a resend) returns the stored state and adds no row" "t|1" \
  "$(as_commit authenticated "$A" "select (s->>'session_id') = '$WF' from create_workflow_state('$STATE') s;
select count(*) from workflow_agent_states where session_id = '$WF';" | paste -sd'|')"
expect "a different state under the same session_id is a conflict (23505)" 23505 \
  "$(state authenticated "$A" "select create_workflow_state('{\"session_id\": \"$WF\", \"created_at\": 1, \"updated_at\": 1, \"stage\": \"debug\"}');")"
# A session_id names a different state in each tenant; no oracle (no 23505 that reveals it).
wprobe() { # sub, session id: one line per call, "result|SQLSTATE" (the id normalized)
  local stmt
  for stmt in "select create_workflow_state('{\"session_id\": \"$2\", \"created_at\": 1, \"updated_at\": 1, \"stage\": \"debug\"}')" \
    "select create_workflow_state('$(sed "s/$WF/$2/" <<<"$STATE")')" \
    "select update_workflow_state('$2', '{\"stage\": \"debug\"}')" "select count(*) from workflow_agent_states where session_id = '$2'" \
    "with u as (update workflow_agent_states set stage = 'debug' where session_id = '$2' returning 1) select count(*) from u" \
    "with d as (delete from workflow_agent_states where session_id = '$2' returning 1) select count(*) from d" \
    "insert into workflow_agent_states (session_id, created_at, updated_at, stage) values ('$2', 1, 1, 'debug') returning session_id"; do
    as_api authenticated "$1" "$stmt;
\\echo :SQLSTATE" | paste -sd'|'
  done | sed -E "s/$2/<id>/g; s/\"(created_at|updated_at)\": [0-9]+/\"\1\": <ms>/g"
}
wprobe_a=$(wprobe "$B" "$WF")
expect "no oracle: B's 7 calls on A's session_id are answered exactly like an unused one" "$(wprobe "$B" "wf-$RUN-unused")" "$wprobe_a"
expect "... and those answers are: creates succeed (B's own), nothing found, the table refuses writes" "00000,00000,|00000,0|00000,42501,42501,42501" \
  "$(sed -n '1,2s/.*|\(00000\)$/\1/p;3,$p' <<<"$wprobe_a" | paste -sd,)"
expect "B creating a state under A's session_id (committed): B's own, A's row untouched" "00000|$B|clarification|1" \
  "$(state authenticated "$B" "select create_workflow_state('{\"session_id\": \"$WF\", \"created_at\": 1, \"updated_at\": 1, \"stage\": \"debug\"}');")|$(as_api authenticated "$B" "select user_id from workflow_agent_states where session_id = '$WF';")|$(q -c "select stage from workflow_agent_states where session_id = '$WF' and tenant_id = '$A'")|$(as_api authenticated "$A" "select count(*) from workflow_agent_states where session_id = '$WF';")"
as_commit authenticated "$B" "select delete_workflow_state('$WF');" >/dev/null
WFQ="wf-$RUN-squat"
as_commit authenticated "$B" "select create_workflow_state('{\"session_id\": \"$WFQ\", \"created_at\": 1, \"updated_at\": 1, \"stage\": \"debug\"}') \\g /dev/null" >/dev/null
expect "squatting: B creates session S first, then A creates S: A succeeds; each has its own state" "00000|clarification|debug" \
  "$(state authenticated "$A" "select create_workflow_state('{\"session_id\": \"$WFQ\", \"created_at\": 1, \"updated_at\": 1, \"stage\": \"clarification\"}');")|$(as_api authenticated "$A" "select stage from workflow_agent_states where session_id = '$WFQ';")|$(as_api authenticated "$B" "select stage from workflow_agent_states where session_id = '$WFQ';")"
expect "... A's update and delete touch only A's" "gap_analysis|debug|t|debug" \
  "$(as_commit authenticated "$A" "select update_workflow_state('$WFQ', '{\"stage\": \"gap_analysis\"}') ->> 'stage';")|$(as_api authenticated "$B" "select stage from workflow_agent_states where session_id = '$WFQ';")|$(as_commit authenticated "$A" "select delete_workflow_state('$WFQ');")|$(as_api authenticated "$B" "select stage from workflow_agent_states where session_id = '$WFQ';")"
expect "update: stage change sets previous_stage; updated_at increases; other fields kept" \
  "gap_analysis|clarification|t|which trigger?" \
  "$(as_commit authenticated "$A" "select concat_ws('|', s->>'stage', s->>'previous_stage', (s->>'updated_at')::bigint > 1700000000000,
       s->'clarification_context'->'pending_questions'->>0) from update_workflow_state('$WF', '{\"stage\": \"gap_analysis\"}') s;")"
expect "update again with the same stage (a resend): previous_stage stays, updated_at still increases" "clarification|true" \
  "$(before=$(q -c "select updated_at from workflow_agent_states where session_id = '$WF' and tenant_id = '$A'")
     as_commit authenticated "$A" "select (s->>'previous_stage') || '|' || ((s->>'updated_at')::bigint > $before)
       from update_workflow_state('$WF', '{\"stage\": \"gap_analysis\"}') s;")"
expect "update with JSON null clears a nullable field and sets others" "null|has_gap|1" \
  "$(as_commit authenticated "$A" "select concat_ws('|', coalesce(s->>'clarification_context', 'null'), s->>'gap_status', jsonb_array_length(s->'identified_gaps'))
     from update_workflow_state('$WF', '{\"clarification_context\": null, \"gap_status\": \"has_gap\",
       \"identified_gaps\": [{\"required_capability\": \"email\", \"missing_component\": \"smtp\", \"alternatives\": []}]}') s;")"
expect "update of an unknown or foreign session returns null and changes nothing" "t|t|gap_analysis" \
  "$(as_api authenticated "$A" "select update_workflow_state('wf-$RUN-none', '{\"stage\": \"debug\"}') is null;")|$(as_commit authenticated "$B" "select update_workflow_state('$WF', '{\"stage\": \"debug\"}') is null;")|$(q -c "select stage from workflow_agent_states where session_id = '$WF' and tenant_id = '$A'")"
for c in "a removed field|{\"previous_errors\": []}|patch.previous_errors was removed" \
  "an unknown field|{\"mood\": 1}|patch.mood is not a WorkflowState field" \
  "a managed field|{\"updated_at\": 5}|patch.updated_at cannot be changed" \
  "a managed field|{\"previous_stage\": \"debug\"}|patch.previous_stage cannot be changed" \
  "a null stage|{\"stage\": null}|patch.stage must not be null"; do
  IFS='|' read -r name patch msg <<<"$c"
  expect_match "update refuses $name (22023)" "^22023\|$msg" \
    "$(state_msg authenticated "$A" "select update_workflow_state('$WF', '$patch');")"
done
expect "stage 'end' is refused by the table (23514), through the function and in the service role's direct write" "23514|23514" \
  "$(state authenticated "$A" "select update_workflow_state('$WF', '{\"stage\": \"end\"}');")|$(state service_role "" "update workflow_agent_states set stage = 'end' where session_id = '$WF' and tenant_id = '$A';")"
expect "gap_status outside the enum is refused (23514)" 23514 \
  "$(state service_role "" "update workflow_agent_states set gap_status = 'gap' where session_id = '$WF' and tenant_id = '$A';")"
expect "conversations must be a JSON array (23514)" 23514 \
  "$(state service_role "" "update workflow_agent_states set conversations = '{}' where session_id = '$WF' and tenant_id = '$A';")"
expect "a direct insert (service role) gets the JSONB and text defaults" "[]|[]|[]|no_gap|0||$A" \
  "$(as_api service_role "" "insert into workflow_agent_states (tenant_id, session_id, created_at, updated_at, stage) values ('$A', 'wf-$RUN-2', 1, 1, 'debug')
     returning concat_ws('|', conversations, execution_history, identified_gaps, gap_status, debug_loop_count, intent_summary, user_id);")"
expect "a signed-in user writes the table only through the functions (42501 for insert, update, delete)" "42501|42501|42501" \
  "$(state authenticated "$A" "insert into workflow_agent_states (session_id, created_at, updated_at, stage) values ('wf-$RUN-2', 1, 1, 'debug');")|$(state authenticated "$A" "update workflow_agent_states set stage = 'debug' where session_id = '$WF';")|$(state authenticated "$A" "delete from workflow_agent_states where session_id = '$WF';")"
expect "B sees none of A's states; A cannot write a row into B's tenant (42501) nor move one there" "0|42501|42501" \
  "$(as_api authenticated "$B" "select count(*) from workflow_agent_states where tenant_id = '$A' or session_id = '$WF';")|$(state authenticated "$A" "insert into workflow_agent_states (tenant_id, session_id, created_at, updated_at, stage) values ('$B', 'wf-$RUN-3', 1, 1, 'debug');")|$(state authenticated "$A" "update workflow_agent_states set tenant_id = '$B' where session_id = '$WF';")"
expect "user_id is a data field of the workflow agent, not the key: a row of A's may name another user" "00000|$A" \
  "$(state service_role "" "insert into workflow_agent_states (tenant_id, session_id, user_id, created_at, updated_at, stage) values ('$A', 'wf-$RUN-3', '$B', 1, 1, 'debug');")|$(q -c "select tenant_id from workflow_agent_states where session_id = 'wf-$RUN-3'")"
expect "create refuses removed and unknown fields (22023)" "22023|22023" \
  "$(state authenticated "$A" "select create_workflow_state('{\"session_id\": \"wf-$RUN-4\", \"user_message\": \"hi\"}');")|$(state authenticated "$A" "select create_workflow_state('{\"session_id\": \"wf-$RUN-4\", \"extra\": 1}');")"

# --- research sessions and drafts --------------------------------------------------------------
RS="rs-$RUN-1"
expect "save session: defaults, start_time from the caller, last_update = now (ms)" "[]|{}|1000|t|f" \
  "$(as_commit authenticated "$A" "select concat_ws('|', s->>'completed_phases', s->>'research_state', s->>'start_time',
       abs((s->>'last_update')::bigint - (extract(epoch from now()) * 1000)::bigint) < 60000, s ? 'user_id')
     from save_research_session('{\"session_id\": \"$RS\", \"query\": \"AI trends\", \"current_phase\": \"browsing\", \"start_time\": 1000}') s;")"
expect "save again: start_time kept from the first save, last_update increases, state replaced" "1000|t|planning|[\"browsing\"]|objective" \
  "$(before=$(q -c "select last_update from research_sessions where session_id = '$RS' and tenant_id = '$A'")
     as_commit authenticated "$A" "select concat_ws('|', s->>'start_time', (s->>'last_update')::bigint > $before, s->>'current_phase', s->>'completed_phases', s->'research_state'->>'tone')
     from save_research_session('{\"session_id\": \"$RS\", \"query\": \"AI trends\", \"current_phase\": \"planning\", \"start_time\": 5,
       \"completed_phases\": [\"browsing\"], \"research_state\": {\"query\": \"AI trends\", \"tone\": \"objective\"}}') s;")"
for c in "no query|{\"session_id\": \"$RS\", \"current_phase\": \"x\"}|session.query must not be empty" \
  "an unknown field|{\"session_id\": \"$RS\", \"query\": \"q\", \"current_phase\": \"x\", \"phase\": 1}|session.phase is not a SessionState field" \
  "no current_phase|{\"session_id\": \"$RS\", \"query\": \"q\"}|session.current_phase must be"; do
  IFS='|' read -r name session msg <<<"$c"
  expect_match "save session refuses $name (22023)" "^22023\|$msg" \
    "$(state_msg authenticated "$A" "select save_research_session('$session');")"
done
D1=$(cat /proc/sys/kernel/random/uuid)
expect "drafts: versions 1, 2 per phase, 1 in another phase; without content in the answer" "1|2|1|false|7" \
  "$(as_commit authenticated "$A" "select d->>'version' from save_research_draft('$D1', '$RS', '1_browsing', 'sources v1', '{\"agent\": \"browser\"}') d;
select d->>'version' from save_research_draft(gen_random_uuid(), '$RS', '1_browsing', 'sources v2') d;
select d->>'version' from save_research_draft(gen_random_uuid(), '$RS', '2_planning', 'plan') d;
select (d ? 'content')::text || '|' || (d->>'content_chars') from save_research_draft(gen_random_uuid(), '$RS', '4_writing', 'draft 1') d;" | paste -sd'|')"
expect "resending a draft (same id) returns it and adds no version; other content under it is 23505" "1|3|23505" \
  "$(as_commit authenticated "$A" "select d->>'version' from save_research_draft('$D1', '$RS', '1_browsing', 'sources v1', '{\"agent\": \"browser\"}') d;")|$(q -c "select count(*) from research_drafts where session_id = '$RS' and phase in ('1_browsing', '2_planning') and tenant_id = '$A'")|$(state authenticated "$A" "select save_research_draft('$D1', '$RS', '1_browsing', 'changed');")"
expect_match "a draft for a missing session is PT404 (HTTP 404)" '^PT404\|no research session' \
  "$(state_msg authenticated "$A" "select save_research_draft(gen_random_uuid(), 'rs-$RUN-none', '1_browsing', 'x');")"
expect "B cannot add drafts to A's session: PT404 through the function; directly 42501 (no write privilege), 42501 into A's tenant" "PT404|42501|42501" \
  "$(state authenticated "$B" "select save_research_draft(gen_random_uuid(), '$RS', '1_browsing', 'x');")|$(state authenticated "$B" "insert into research_drafts (session_id, phase, version, content, created_at) values ('$RS', '3_research', 1, 'x', 1);")|$(state authenticated "$B" "insert into research_drafts (tenant_id, session_id, phase, version, content, created_at) values ('$A', '$RS', '3_research', 1, 'x', 1);")"
expect "a phase outside 1_browsing … 7_publishing is refused (22023, and 23514 on the table)" "22023|23514" \
  "$(state authenticated "$A" "select save_research_draft(gen_random_uuid(), '$RS', 'writing', 'x');")|$(state service_role "" "insert into research_drafts (tenant_id, session_id, phase, version, content, created_at) values ('$A', '$RS', '8_extra', 1, 'x', 1);")"
expect "workflow summary: session without research_state, its field names, per-phase statistics" \
  "AI trends|f|[\"query\", \"tone\"]|1_browsing:2:2:10,2_planning:1:1:4,4_writing:1:1:7" \
  "$(as_api authenticated "$A" "select concat_ws('|', r->'session'->>'query', r->'session' ? 'research_state', r->>'research_state_fields',
       (select string_agg(concat_ws(':', p->>'phase', p->>'drafts', p->>'latest_version', p->>'latest_chars'), ',') from jsonb_array_elements(r->'phases') p))
     from research_workflow_summary('$RS') r;")"
expect "B's summary of A's session is null; B sees none of A's drafts" "t|0" \
  "$(as_api authenticated "$B" "select research_workflow_summary('$RS') is null;")|$(as_api authenticated "$B" "select count(*) from research_drafts where session_id = '$RS';")"
# A session_id (and a draft id) names a different object in each tenant; no oracle.
rprobe() { # sub, session id, draft id: one line per call, "result|SQLSTATE" (ids normalized)
  local stmt
  for stmt in "select research_workflow_summary('$2')" "select save_research_draft('$3', '$2', '1_browsing', 'x') - 'created_at' - 'id'" \
    "select save_research_session('{\"session_id\": \"$2\", \"query\": \"mine\", \"current_phase\": \"x\"}') - 'start_time' - 'last_update'" \
    "select count(*) from research_sessions where session_id = '$2'" "select count(*) from research_drafts where session_id = '$2' or id = '$3'" \
    "insert into research_drafts (session_id, phase, version, content, created_at) values ('$2', '3_research', 1, 'x', 1)" \
    "with u as (update research_sessions set query = 'x' where session_id = '$2' returning 1) select count(*) from u" \
    "with d as (delete from research_drafts where id = '$3' returning 1) select count(*) from d"; do
    as_api authenticated "$1" "$stmt;
\\echo :SQLSTATE" | paste -sd'|'
  done | sed "s/$2/<session>/g; s/$3/<draft>/g"
}
rprobe_a=$(rprobe "$B" "$RS" "$D1")
expect "no oracle: B's 8 calls on A's session_id and draft id are answered exactly like unused ones" "$(rprobe "$B" "rs-$RUN-unused" "$(cat /proc/sys/kernel/random/uuid)")" "$rprobe_a"
expect "... and those answers are: not found (null, PT404, 0), a save succeeds as B's own, direct writes are refused" \
  "|00000;PT404;{\"query\": \"mine\", \"session_id\": \"<session>\", \"current_phase\": \"x\", \"research_state\": {}, \"completed_phases\": []}|00000;0|00000;0|00000;42501;42501;42501" \
  "$(paste -sd';' <<<"$rprobe_a")"
RSQ="rs-$RUN-squat"
as_commit authenticated "$B" "select save_research_session('{\"session_id\": \"$RSQ\", \"query\": \"B first\", \"current_phase\": \"x\"}') \\g /dev/null
select save_research_draft('$D1', '$RSQ', '1_browsing', 'B draft') \\g /dev/null" >/dev/null
expect "squatting: B saves session S (and a draft with A's draft id) first; then A saves S and a draft: A succeeds" "00000|00000" \
  "$(state authenticated "$A" "select save_research_session('{\"session_id\": \"$RSQ\", \"query\": \"A second\", \"current_phase\": \"y\"}');")|$(state authenticated "$A" "select save_research_draft(gen_random_uuid(), '$RSQ', '1_browsing', 'A draft');")"
expect "... independent sessions and draft histories (each at version 1); A's draft id reused by B is B's" "A second:1:A draft;B first:1:B draft|1|$B" \
  "$(for u in "$A" "$B"; do as_api authenticated "$u" "select s.query || ':' || d.version || ':' || d.content from research_sessions s join research_drafts d using (tenant_id, session_id) where s.session_id = '$RSQ';"; done | paste -sd';')|$(as_api authenticated "$A" "select count(*) from research_drafts where id = '$D1';")|$(q -c "select tenant_id from research_drafts where id = '$D1' and session_id = '$RSQ'")"
expect "delete_research_session deletes the session and its drafts; again: false" "t|0|f" \
  "$(as_commit authenticated "$A" "select delete_research_session('$RS');")|$(q -c "select count(*) from research_drafts where session_id = '$RS' and tenant_id = '$A'")|$(as_commit authenticated "$A" "select delete_research_session('$RS');")"

# --- the service tenant and x-agentmem-tenant ------------------------------------------------------
NILU=00000000-0000-0000-0000-000000000000
as_commit authenticated "$A" "select save_unified_state('$C2', 'lead-$RUN', '{\"who\": \"A\"}') \\g /dev/null
select create_workflow_state('{\"session_id\": \"wf-$RUN-svc\", \"created_at\": 1, \"updated_at\": 1, \"stage\": \"debug\"}') \\g /dev/null
select save_research_session('{\"session_id\": \"rs-$RUN-svc\", \"query\": \"q\", \"current_phase\": \"x\"}') \\g /dev/null" >/dev/null
expect "service_role acting for nobody: A's ids are unknown in the service tenant (restore, summary, update)" "t|t|t|t" \
  "$(as_api service_role "" "select restore_unified_state('$C2') is null, restore_unified_checkpoint('$C2') is null, research_workflow_summary('rs-$RUN-svc') is null, update_workflow_state('wf-$RUN-svc', '{\"stage\": \"completed\"}') is null;")"
expect "... its writes under those ids are the service tenant's; A's untouched" "$NILU|$NILU|$NILU|A|debug" \
  "$(as_commit service_role "" "select save_unified_state('$C2', 'lead-svc-$RUN', '{\"who\": \"svc\"}') \\g /dev/null
select create_workflow_state('{\"session_id\": \"wf-$RUN-svc\", \"created_at\": 1, \"updated_at\": 1, \"stage\": \"clarification\"}') \\g /dev/null
select save_research_session('{\"session_id\": \"rs-$RUN-svc\", \"query\": \"svc\", \"current_phase\": \"x\"}') \\g /dev/null" >/dev/null
     q -c "select (select tenant_id from unified_conversations where id = '$C2' and contractor_lead_id = 'lead-svc-$RUN') || '|' || (select tenant_id from workflow_agent_states where session_id = 'wf-$RUN-svc' and stage = 'clarification') || '|' || (select tenant_id from research_sessions where session_id = 'rs-$RUN-svc' and query = 'svc')")|$(as_api authenticated "$A" "select (restore_unified_state('$C2') ->> 'who') || '|' || (select stage from workflow_agent_states where session_id = 'wf-$RUN-svc');")"
expect "service_role acting for A (x-agentmem-tenant) reaches A's: restore, update, summary" "A|completed|q" \
  "$(acting_for "$A" as_api service_role "" "select restore_unified_state('$C2') ->> 'who';
select update_workflow_state('wf-$RUN-svc', '{\"stage\": \"completed\"}') ->> 'stage';
select research_workflow_summary('rs-$RUN-svc') -> 'session' ->> 'query';" | paste -sd'|')"
expect "... and writes into A's tenant" "$A" \
  "$(acting_for "$A" as_commit service_role "" "select save_unified_state('$C2', 'lead-$RUN', '{\"by\": \"server\"}') \\g /dev/null" >/dev/null
     q -c "select tenant_id from unified_conversation_memory where conversation_id = '$C2' and memory_key = 'by'")"
expect "a user sending another user's id as x-agentmem-tenant: 42501; a malformed one for the service role: 42501" "42501|42501|42501|42501" \
  "$(acting_for "$A" state authenticated "$B" "select restore_unified_state('$C2');")|$(acting_for "$A" state authenticated "$B" "select count(*) from research_sessions;")|$(acting_for "x$A" state service_role "" "select restore_unified_state('$C2');")|$(acting_for "" state service_role "" "select save_research_session('{\"session_id\": \"rs-$RUN-x\", \"query\": \"q\", \"current_phase\": \"x\"}');")"

# --- no identity, no access ----------------------------------------------------------------------
RPC_CALLS=("select save_unified_state('$C2', 'lead-$RUN', '{}')" "select restore_unified_state('$C2')"
  "select create_unified_checkpoint('$C2', 'lead-$RUN', '{}')" "select restore_unified_checkpoint('$C2')"
  "select delete_unified_state('$C2', 'lead-$RUN')"
  "select create_workflow_state('{\"session_id\": \"wf-$RUN-anon\"}')" "select update_workflow_state('wf-$RUN-svc', '{\"stage\": \"debug\"}')"
  "select save_research_session('{\"session_id\": \"rs-$RUN-anon\", \"query\": \"q\", \"current_phase\": \"x\"}')"
  "select save_research_draft(gen_random_uuid(), 'rs-$RUN-svc', '1_browsing', 'x')" "select research_workflow_summary('rs-$RUN-svc')")
TABLE_READS=("select count(*) from unified_conversations" "select count(*) from unified_conversation_memory"
  "select count(*) from workflow_agent_states" "select count(*) from research_sessions" "select count(*) from research_drafts")
# After a re-grant: every function is refused (each asks agentmem.tenant() first); a table
# read by anon, which has no policy, sees nothing.
for stmt in "${RPC_CALLS[@]}" "${TABLE_READS[@]}"; do
  expect "anon: 42501: ${stmt:0:60}" 42501 "$(state anon "" "$stmt;")"
  want=42501
  [[ $stmt == "select count(*) from"* ]] && want="0|00000"
  expect "anon after a re-grant of everything: ${stmt:0:50}" "$want" \
    "$(regranted as_api anon "" "$stmt;
\\echo :SQLSTATE" | paste -sd'|')"
  expect "a token without a user (no sub, non-UUID, nil, empty): PT401: ${stmt:0:50}" "$SUBLESS_EXPECTED" "$(subless_states "$stmt")"
done
expect "anon's writes after a re-grant: inserts refused, updates and deletes touch nothing" "42501|42501|0|0|0" \
  "$(regranted as_api anon "" "insert into unified_conversations (id, contractor_lead_id) values (gen_random_uuid(), 'x');
\\echo :SQLSTATE")|$(regranted as_api anon "" "insert into research_sessions (tenant_id, session_id, query, current_phase, start_time, last_update) values ('$A', 'rs-$RUN-anon', 'q', 'x', 1, 1);
\\echo :SQLSTATE")|$(regranted as_api anon "" "with u as (update workflow_agent_states set stage = 'debug' returning 1) select count(*) from u;")|$(regranted as_api anon "" "with d as (delete from unified_conversation_memory returning 1) select count(*) from d;")|$(regranted as_api anon "" "with d as (delete from research_drafts returning 1) select count(*) from d;")"
expect "TRUNCATE as a user: 42501 (no grant), and 42501 after a re-grant (trigger), every table" "42501|42501|42501|42501|42501|42501|42501|42501|42501|42501" \
  "$(for t in unified_conversations unified_conversation_memory workflow_agent_states research_sessions research_drafts; do
       state authenticated "$A" "truncate $t cascade;"; regranted as_api authenticated "$A" "truncate $t cascade;
\\echo :SQLSTATE"; done | paste -sd'|')"
expect "after a re-grant B still reaches none of A's rows (reads, updates, deletes, inserts into A's tenant)" "0,0,0,0,0|0|0|0|0|42501|42501" \
  "$(for t in unified_conversations unified_conversation_memory workflow_agent_states research_sessions research_drafts; do regranted as_api authenticated "$B" "select count(*) from $t where tenant_id = '$A';"; done | paste -sd,)|$(regranted as_api authenticated "$B" "with u as (update unified_conversation_memory set memory_value = '1' where tenant_id = '$A' returning 1) select count(*) from u;")|$(regranted as_api authenticated "$B" "with u as (update workflow_agent_states set stage = 'debug' where session_id = 'wf-$RUN-svc' returning 1) select count(*) from u;")|$(regranted as_api authenticated "$B" "with d as (delete from research_sessions where session_id = 'rs-$RUN-svc' returning 1) select count(*) from d;")|$(regranted as_api authenticated "$B" "with d as (delete from unified_conversations where id = '$C2' returning 1) select count(*) from d;")|$(regranted as_api authenticated "$B" "insert into workflow_agent_states (tenant_id, session_id, created_at, updated_at, stage) values ('$A', 'wf-$RUN-b', 1, 1, 'debug');
\\echo :SQLSTATE")|$(regranted as_api authenticated "$B" "insert into unified_conversation_memory (tenant_id, conversation_id, memory_type, memory_key) values ('$A', '$C2', 'coia_state', 'x');
\\echo :SQLSTATE")"

# --- deleting a user -------------------------------------------------------------------------
as_commit authenticated "$F" "select save_unified_state('$C2', 'lead-$RUN', '{\"who\": \"F\"}', '{}', '$LINK') \\g /dev/null
select create_workflow_state('{\"session_id\": \"wf-$RUN-f\"}') \\g /dev/null
select save_research_session('{\"session_id\": \"rs-$RUN-f\", \"query\": \"q\", \"current_phase\": \"x\"}') \\g /dev/null
select save_research_draft(gen_random_uuid(), 'rs-$RUN-f', '1_browsing', 'x') \\g /dev/null" >/dev/null
f_rows() { for t in unified_conversations unified_conversation_memory workflow_agent_states research_sessions research_drafts; do q -c "select count(*) from $t where tenant_id = '$F'"; done | paste -sd,; }
expect "F has rows in the five tables" "1,3,1,1,1" "$(f_rows)"
q -c "delete from auth.users where id = '$F'" >/dev/null
expect "deleting F from auth.users deletes F's rows from the five tables; A's under the same ids stay" "0,0,0,0,0|A" \
  "$(f_rows)|$(as_api authenticated "$A" "select restore_unified_state('$C2') ->> 'who';")"

# --- done --------------------------------------------------------------------------------------
if [ "$failed" != 0 ]; then
  log "state stores SQL test FAILED: $failed of $checks checks"
  exit 1
fi
log "state stores SQL test passed: $checks checks"
