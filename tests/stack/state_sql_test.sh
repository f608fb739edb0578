#!/usr/bin/env bash
# The state-store schema (supabase/migrations/20261122000300_unified_conversations.sql,
# …400_workflow_agent_states.sql, …500_research_sessions.sql) against the real local
# Postgres, exactly as PostgREST drives it: connected as authenticator, `set local role` +
# request.jwt.claims inside one transaction per request.
#
# Runs on the stack named by AGENTMEM_PG_PORT / AGENTMEM_STACK_DIR (default: the main
# stack, 54329 / /tmp/agentmem-stack); applies pending migrations (starting Postgres if
# needed, and stopping it again at the end if this script started it). Its data belongs to
# two fresh users deleted at the end (ON DELETE CASCADE removes their rows), plus rows
# keyed by this run's ids, which the cleanup deletes too.
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"

PG="$ROOT/scripts/postgres.sh"
started=0
"$PG" status >/dev/null 2>&1 || started=1

A=$(cat /proc/sys/kernel/random/uuid)
B=$(cat /proc/sys/kernel/random/uuid)
RUN=${A:0:8}
CONV=$(cat /proc/sys/kernel/random/uuid)    # A's conversation (stands in for uuid5(lead))
LINK=$(cat /proc/sys/kernel/random/uuid)    # a chat conversation linked to A's lead
SVC=$(cat /proc/sys/kernel/random/uuid)     # a conversation the service role writes

cleanup() {
  local rc=$?
  "$PG" psql -X -q -At -c "delete from unified_conversation_memory where conversation_id in ('$CONV', '$LINK', '$SVC');
    delete from unified_conversations where id in ('$CONV', '$SVC');
    delete from workflow_agent_states where session_id like 'wf-$RUN-%';
    delete from research_sessions where session_id like 'rs-$RUN-%';
    delete from auth.users where id in ('$A', '$B')" >/dev/null 2>&1 || true
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
"$ROOT/scripts/migrate.sh" >&2
q -c "insert into auth.users (id, email) values ('$A', 'state-a-$A@example.test'), ('$B', 'state-b-$B@example.test')"

TABLES="'unified_conversations','unified_conversation_memory','workflow_agent_states','research_sessions','research_drafts'"
FNS="'unified_iso_now','save_unified_state','restore_unified_state','create_unified_checkpoint','restore_unified_checkpoint',
     'delete_unified_state','workflow_state_check_keys','create_workflow_state','update_workflow_state','research_now_ms',
     'save_research_session','save_research_draft','research_workflow_summary'"

# --- shape -----------------------------------------------------------------------------------
expect "RLS on the five tables" "5" \
  "$(q -c "select count(*) from pg_class where relnamespace = 'public'::regnamespace and relname in ($TABLES) and relrowsecurity")"
expect "the thirteen functions exist once each" 13 \
  "$(q -c "select count(*) from pg_proc where pronamespace = 'public'::regnamespace and proname in ($FNS)")"
expect "every function is SECURITY INVOKER with a pinned search_path" "13|0" \
  "$(q -c "select count(*) filter (where proconfig @> array['search_path=public']), count(*) filter (where prosecdef)
           from pg_proc where pronamespace = 'public'::regnamespace and proname in ($FNS)")"
expect "anon has no privilege on the tables" "f" \
  "$(q -c "select bool_or(has_table_privilege('anon', 'public.' || t, p)) from unnest(array[$TABLES]) t,
           unnest(array['select', 'insert', 'update', 'delete', 'truncate', 'references', 'trigger']) p")"
expect "authenticated: select/insert/update/delete, never truncate" "5|0" \
  "$(q -c "select count(*) filter (where has_table_privilege('authenticated', 'public.' || t, 'select,insert,update,delete')),
                  count(*) filter (where has_table_privilege('authenticated', 'public.' || t, 'truncate'))
           from unnest(array[$TABLES]) t")"
expect "anon and PUBLIC execute no state function; authenticated and service_role all" "f|13|13" \
  "$(q -c "select bool_or(has_function_privilege('anon', p.oid, 'execute') or has_function_privilege('public', p.oid, 'execute')),
                  count(*) filter (where has_function_privilege('authenticated', p.oid, 'execute')),
                  count(*) filter (where has_function_privilege('service_role', p.oid, 'execute'))
           from pg_proc p where pronamespace = 'public'::regnamespace and proname in ($FNS)")"
# spec 004's table, column by column: name, type, nullability, default.
expect "workflow_agent_states has spec 004's columns, types, nullability and defaults" \
  "id:uuid:NO:gen_random_uuid()
session_id:character varying(255):NO:
user_id:character varying(255):YES:(auth.uid())::text
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
expect "session_id is UNIQUE" "t" \
  "$(q -c "select exists (select from pg_constraint where conrelid = 'public.workflow_agent_states'::regclass and contype = 'u'
           and conkey = array[(select attnum from pg_attribute where attrelid = 'public.workflow_agent_states'::regclass and attname = 'session_id')])")"
expect "spec 004's six btree indexes and GIN indexes on the JSONB columns" \
  "btree:gap_status,btree:session_id,btree:stage,btree:template_id,btree:updated_at,btree:user_id|gin:clarification_context,gin:conversations,gin:current_workflow,gin:debug_result,gin:identified_gaps,gin:workflow_context" \
  "$(q -c "select string_agg(am.amname || ':' || pg_get_indexdef(c.oid, 1, true), ',' order by pg_get_indexdef(c.oid, 1, true)) filter (where am.amname = 'btree')
                  || '|' || string_agg(am.amname || ':' || pg_get_indexdef(c.oid, 1, true), ',' order by pg_get_indexdef(c.oid, 1, true)) filter (where am.amname = 'gin')
           from pg_index i join pg_class c on c.oid = i.indexrelid join pg_am am on am.oid = c.relam
           where i.indrelid = 'public.workflow_agent_states'::regclass and c.relname like 'idx_workflow_agent_states_%'")"
expect "unified_conversation_memory is unique on (conversation_id, memory_type, memory_key)" "conversation_id,memory_type,memory_key" \
  "$(q -c "select string_agg(a.attname, ',' order by k.o) from pg_constraint c, unnest(c.conkey) with ordinality k(n, o)
           join pg_attribute a on a.attrelid = 'public.unified_conversation_memory'::regclass and a.attnum = k.n
           where c.conrelid = 'public.unified_conversation_memory'::regclass and c.contype = 'u'")"

# --- unified conversation memory ---------------------------------------------------------------
FIELDS='{"messages": [{"content": "hi", "type": "human"}, {"content": "hello", "type": "ai"}], "company_name": "Acme", "specialties": ["roofing"], "years_in_business": 12}'
expect "save: 4 fields + last_state_update + the mapping = 6 rows, one call" "6|true" \
  "$(as_commit authenticated "$A" "select (r->>'rows') || '|' || (r->>'last_state_update' ~ '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$')
     from save_unified_state('$CONV', 'landing-$RUN', '$FIELDS', '{\"company_name\": \"Acme\", \"interface\": \"landing_page\"}', '$LINK') r;")"
expect "the conversation row: COIA_LANDING, contractor_lead, title, metadata, last_message_at, owner" \
  "COIA_LANDING|contractor_lead|COIA Landing: Acme|active|landing-$RUN|{\"interface\": \"landing_page\", \"company_name\": \"Acme\", \"journey_stage\": \"landing_page\", \"contractor_lead_id\": \"landing-$RUN\", \"research_completed\": false}|t|t" \
  "$(q -c "select conversation_type, entity_type, title, status, contractor_lead_id, metadata, last_message_at is not null, user_id = '$A' from unified_conversations where id = '$CONV'")"
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
expect "restore as B: nothing (RLS)" "t" "$(as_api authenticated "$B" "select restore_unified_state('$CONV') is null;")"
expect_match "B saving into A's conversation is refused (42501) and writes nothing" '^42501\|new row violates row-level security' \
  "$(state_msg authenticated "$B" "select save_unified_state('$CONV', 'landing-$RUN', '{\"company_name\": \"Evil\"}');")"
expect "after B's attempt: A's value unchanged, no row of B's" "\"Acme Roofing\"|0" \
  "$(q -c "select (select memory_value::text from unified_conversation_memory where conversation_id = '$CONV' and memory_key = 'company_name')
                  || '|' || (select count(*) from unified_conversation_memory where user_id = '$B')")"
expect "B cannot take A's checkpoint key first (42501)" 42501 \
  "$(state authenticated "$B" "select create_unified_checkpoint('$CONV', 'landing-$RUN', '{}');")"
expect "B cannot insert straight into A's conversation either (42501)" 42501 \
  "$(state authenticated "$B" "insert into unified_conversation_memory (conversation_id, memory_type, memory_key, memory_value) values ('$CONV', 'checkpoint', 'x', '1');")"
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
select count(*) from unified_conversation_memory where conversation_id = '$CONV' and memory_type = 'checkpoint';" | paste -sd'|')"
expect "the service role's save has no owner, and users do not see it" "t|0" \
  "$(as_commit service_role "" "select save_unified_state('$SVC', 'svc-$RUN', '{\"company_name\": \"Svc\"}') \\g /dev/null" >/dev/null
     q -c "select bool_and(user_id is null) from unified_conversation_memory where conversation_id = '$SVC'"
     )|$(as_api authenticated "$A" "select count(*) from unified_conversations where id = '$SVC';")"
expect "delete: the conversation, its rows and the lead's mapping (9 rows); then nothing is left" "9|0|0" \
  "$(as_commit authenticated "$A" "select delete_unified_state('$CONV', 'landing-$RUN');
select count(*) from unified_conversation_memory where conversation_id in ('$CONV', '$LINK');
select count(*) from unified_conversations where id = '$CONV';" | paste -sd'|')"

# --- workflow agent states ---------------------------------------------------------------------
WF="wf-$RUN-1"
STATE="{\"session_id\": \"$WF\", \"created_at\": 1700000000000, \"updated_at\": 1700000000000, \"stage\": \"clarification\",
        \"conversations\": [{\"role\": \"user\", \"text\": \"build me a workflow\", \"timestamp\": 1700000000000, \"metadata\": {}}],
        \"clarification_context\": {\"purpose\": \"initial_intent\", \"collected_info\": {}, \"pending_questions\": [\"which trigger?\"], \"origin\": \"create\"}}"
expect "create returns the whole state: given fields, column defaults, user_id = the caller" \
  "clarification|no_gap|0||[]|$A|1700000000000|f" \
  "$(as_commit authenticated "$A" "select concat_ws('|', s->>'stage', s->>'gap_status', s->>'debug_loop_count', s->>'intent_summary', s->>'identified_gaps',
       s->>'user_id', s->>'updated_at', s ? 'id') from create_workflow_state('$STATE') s;")"
expect "the same create again (a resend) returns the stored state and adds no row" "t|1" \
  "$(as_commit authenticated "$A" "select (s->>'session_id') = '$WF' from create_workflow_state('$STATE') s;
select count(*) from workflow_agent_states where session_id = '$WF';" | paste -sd'|')"
expect "a different state under the same session_id is a conflict (23505)" 23505 \
  "$(state authenticated "$A" "select create_workflow_state('{\"session_id\": \"$WF\", \"created_at\": 1, \"updated_at\": 1, \"stage\": \"debug\"}');")"
expect "B creating A's session_id: conflict too, A's row untouched" "23505|clarification" \
  "$(state authenticated "$B" "select create_workflow_state('$STATE');")|$(q -c "select stage from workflow_agent_states where session_id = '$WF'")"
expect "update: stage change sets previous_stage; updated_at increases; other fields kept" \
  "gap_analysis|clarification|t|which trigger?" \
  "$(as_commit authenticated "$A" "select concat_ws('|', s->>'stage', s->>'previous_stage', (s->>'updated_at')::bigint > 1700000000000,
       s->'clarification_context'->'pending_questions'->>0) from update_workflow_state('$WF', '{\"stage\": \"gap_analysis\"}') s;")"
expect "update again with the same stage (a resend): previous_stage stays, updated_at still increases" "clarification|true" \
  "$(before=$(q -c "select updated_at from workflow_agent_states where session_id = '$WF'")
     as_commit authenticated "$A" "select (s->>'previous_stage') || '|' || ((s->>'updated_at')::bigint > $before)
       from update_workflow_state('$WF', '{\"stage\": \"gap_analysis\"}') s;")"
expect "update with JSON null clears a nullable field and sets others" "null|has_gap|1" \
  "$(as_commit authenticated "$A" "select concat_ws('|', coalesce(s->>'clarification_context', 'null'), s->>'gap_status', jsonb_array_length(s->'identified_gaps'))
     from update_workflow_state('$WF', '{\"clarification_context\": null, \"gap_status\": \"has_gap\",
       \"identified_gaps\": [{\"required_capability\": \"email\", \"missing_component\": \"smtp\", \"alternatives\": []}]}') s;")"
expect "update of an unknown or foreign session returns null and changes nothing" "t|t|gap_analysis" \
  "$(as_api authenticated "$A" "select update_workflow_state('wf-$RUN-none', '{\"stage\": \"debug\"}') is null;")|$(as_commit authenticated "$B" "select update_workflow_state('$WF', '{\"stage\": \"debug\"}') is null;")|$(q -c "select stage from workflow_agent_states where session_id = '$WF'")"
for c in "a removed field|{\"previous_errors\": []}|patch.previous_errors was removed" \
  "an unknown field|{\"mood\": 1}|patch.mood is not a WorkflowState field" \
  "a managed field|{\"updated_at\": 5}|patch.updated_at cannot be changed" \
  "a managed field|{\"previous_stage\": \"debug\"}|patch.previous_stage cannot be changed" \
  "a null stage|{\"stage\": null}|patch.stage must not be null"; do
  IFS='|' read -r name patch msg <<<"$c"
  expect_match "update refuses $name (22023)" "^22023\|$msg" \
    "$(state_msg authenticated "$A" "select update_workflow_state('$WF', '$patch');")"
done
expect "stage 'end' is refused by the table (23514), through the function and directly" "23514|23514" \
  "$(state authenticated "$A" "select update_workflow_state('$WF', '{\"stage\": \"end\"}');")|$(state authenticated "$A" "update workflow_agent_states set stage = 'end' where session_id = '$WF';")"
expect "gap_status outside the enum is refused (23514)" 23514 \
  "$(state authenticated "$A" "update workflow_agent_states set gap_status = 'gap' where session_id = '$WF';")"
expect "conversations must be a JSON array (23514)" 23514 \
  "$(state authenticated "$A" "update workflow_agent_states set conversations = '{}' where session_id = '$WF';")"
expect "a direct insert gets the JSONB and text defaults" "[]|[]|[]|no_gap|0||$A" \
  "$(as_api authenticated "$A" "insert into workflow_agent_states (session_id, created_at, updated_at, stage) values ('wf-$RUN-2', 1, 1, 'debug')
     returning concat_ws('|', conversations, execution_history, identified_gaps, gap_status, debug_loop_count, intent_summary, user_id);")"
expect "B sees none of A's states; A cannot write a row for B (42501)" "0|42501" \
  "$(as_api authenticated "$B" "select count(*) from workflow_agent_states where session_id like 'wf-$RUN-%';")|$(state authenticated "$A" "insert into workflow_agent_states (session_id, user_id, created_at, updated_at, stage) values ('wf-$RUN-3', '$B', 1, 1, 'debug');")"
expect "create refuses removed and unknown fields (22023)" "22023|22023" \
  "$(state authenticated "$A" "select create_workflow_state('{\"session_id\": \"wf-$RUN-4\", \"user_message\": \"hi\"}');")|$(state authenticated "$A" "select create_workflow_state('{\"session_id\": \"wf-$RUN-4\", \"extra\": 1}');")"

# --- research sessions and drafts --------------------------------------------------------------
RS="rs-$RUN-1"
expect "save session: defaults, start_time from the caller, last_update = now (ms)" "[]|{}|1000|t|f" \
  "$(as_commit authenticated "$A" "select concat_ws('|', s->>'completed_phases', s->>'research_state', s->>'start_time',
       abs((s->>'last_update')::bigint - (extract(epoch from now()) * 1000)::bigint) < 60000, s ? 'user_id')
     from save_research_session('{\"session_id\": \"$RS\", \"query\": \"AI trends\", \"current_phase\": \"browsing\", \"start_time\": 1000}') s;")"
expect "save again: start_time kept from the first save, last_update increases, state replaced" "1000|t|planning|[\"browsing\"]|objective" \
  "$(before=$(q -c "select last_update from research_sessions where session_id = '$RS'")
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
expect "B saving under A's session_id is refused (42501)" 42501 \
  "$(state authenticated "$B" "select save_research_session('{\"session_id\": \"$RS\", \"query\": \"mine\", \"current_phase\": \"x\"}');")"
D1=$(cat /proc/sys/kernel/random/uuid)
expect "drafts: versions 1, 2 per phase, 1 in another phase; without content in the answer" "1|2|1|false|7" \
  "$(as_commit authenticated "$A" "select d->>'version' from save_research_draft('$D1', '$RS', '1_browsing', 'sources v1', '{\"agent\": \"browser\"}') d;
select d->>'version' from save_research_draft(gen_random_uuid(), '$RS', '1_browsing', 'sources v2') d;
select d->>'version' from save_research_draft(gen_random_uuid(), '$RS', '2_planning', 'plan') d;
select (d ? 'content')::text || '|' || (d->>'content_chars') from save_research_draft(gen_random_uuid(), '$RS', '4_writing', 'draft 1') d;" | paste -sd'|')"
expect "resending a draft (same id) returns it and adds no version; other content under it is 23505" "1|3|23505" \
  "$(as_commit authenticated "$A" "select d->>'version' from save_research_draft('$D1', '$RS', '1_browsing', 'sources v1', '{\"agent\": \"browser\"}') d;")|$(q -c "select count(*) from research_drafts where session_id = '$RS' and phase in ('1_browsing', '2_planning')")|$(state authenticated "$A" "select save_research_draft('$D1', '$RS', '1_browsing', 'changed');")"
expect_match "a draft for a missing session is PT404 (HTTP 404)" '^PT404\|no research session' \
  "$(state_msg authenticated "$A" "select save_research_draft(gen_random_uuid(), 'rs-$RUN-none', '1_browsing', 'x');")"
expect "B cannot add drafts to A's session: PT404 through the function, 42501 directly" "PT404|42501" \
  "$(state authenticated "$B" "select save_research_draft(gen_random_uuid(), '$RS', '1_browsing', 'x');")|$(state authenticated "$B" "insert into research_drafts (session_id, phase, version, content, created_at) values ('$RS', '3_research', 1, 'x', 1);")"
expect "a phase outside 1_browsing … 7_publishing is refused (22023, and 23514 on the table)" "22023|23514" \
  "$(state authenticated "$A" "select save_research_draft(gen_random_uuid(), '$RS', 'writing', 'x');")|$(state authenticated "$A" "insert into research_drafts (session_id, phase, version, content, created_at) values ('$RS', '8_extra', 1, 'x', 1);")"
expect "workflow summary: session without research_state, its field names, per-phase statistics" \
  "AI trends|f|[\"query\", \"tone\"]|1_browsing:2:2:10,2_planning:1:1:4,4_writing:1:1:7" \
  "$(as_api authenticated "$A" "select concat_ws('|', r->'session'->>'query', r->'session' ? 'research_state', r->>'research_state_fields',
       (select string_agg(concat_ws(':', p->>'phase', p->>'drafts', p->>'latest_version', p->>'latest_chars'), ',') from jsonb_array_elements(r->'phases') p))
     from research_workflow_summary('$RS') r;")"
expect "B's summary of A's session is null; B sees none of A's drafts" "t|0" \
  "$(as_api authenticated "$B" "select research_workflow_summary('$RS') is null;")|$(as_api authenticated "$B" "select count(*) from research_drafts where session_id = '$RS';")"
expect "deleting the session deletes its drafts" "0" \
  "$(as_commit authenticated "$A" "delete from research_sessions where session_id = '$RS';" >/dev/null; q -c "select count(*) from research_drafts where session_id = '$RS'")"

# --- done --------------------------------------------------------------------------------------
if [ "$failed" != 0 ]; then
  log "state stores SQL test FAILED: $failed of $checks checks"
  exit 1
fi
log "state stores SQL test passed: $checks checks"
