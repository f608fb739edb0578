#!/usr/bin/env bash
# The contractor schema (supabase/migrations/20261122000600_contractors.sql) against the
# real local Postgres, as PostgREST drives it: connected as authenticator, `set local role`
# + request.jwt.claims inside one transaction per request. What the Deno tests cannot see
# through the API: the catalog (RLS, grants, SECURITY INVOKER), the functions called
# directly with input agentmem's client would never send, a lead's deletion, a user's.
#
# Runs on the stack named by AGENTMEM_PG_PORT / AGENTMEM_STACK_DIR; applies pending
# migrations (starting Postgres if needed, and stopping it again at the end if this script
# started it). Its rows belong to two fresh users deleted at the end, plus the service
# tenant's rows keyed by this run's ids, which the cleanup deletes.
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"

PG="$ROOT/scripts/postgres.sh"
started=0
"$PG" status >/dev/null 2>&1 || started=1

A=$(cat /proc/sys/kernel/random/uuid)
B=$(cat /proc/sys/kernel/random/uuid)
RUN=${A:0:8}
L="landing-$RUN"

cleanup() {
  local rc=$?
  "$PG" psql -X -q -At -c "delete from contractors where contractor_lead_id like '%-$RUN%';
    delete from contractor_leads where id like '%-$RUN%';
    delete from auth.users where id in ('$A', '$B')" >/dev/null 2>&1 || true
  if [ "$started" = 1 ]; then "$PG" stop >/dev/null 2>&1 || true; fi
  exit "$rc"
}
trap cleanup EXIT

source "$(dirname "${BASH_SOURCE[0]}")/sql_lib.sh"
# "SQLSTATE|message" of one statement (committed if it succeeds).
state_msg() { # role, sub, statement
  api commit "$1" "$2" "\\o /dev/null
$3
\\o
\\echo :SQLSTATE|:LAST_ERROR_MESSAGE"
}
state() { state_msg "$@" | cut -d'|' -f1; }
# "SQLSTATE|detail" of a failing statement (rolled back).
error_detail() { # role, sub, statement
  printf '%s\n' '\set VERBOSITY verbose' 'begin;' "set local role $1;" \
    "select set_config('request.jwt.claims', '{\"sub\":\"$2\",\"role\":\"$1\"}', true) \\g /dev/null" "$3" 'rollback;' |
    "$PG" psql -X -q -At -U authenticator 2>&1 | sed -n 's/^ERROR:  \([0-9A-Z]\{5\}\):.*/\1/p; s/^DETAIL:  //p' | paste -sd'|'
}

log "contractors SQL test (port ${AGENTMEM_PG_PORT:-54329}, users A=$A B=$B)"
"$ROOT/scripts/migrate.sh" >&2
q -c "insert into auth.users (id, email) values ('$A', 'coia-a-$A@example.test'), ('$B', 'coia-b-$B@example.test')"

TABLES="'contractor_leads','contractors'"
RPCS="'build_contractor_profile','convert_contractor_lead','save_unified_state'"

# --- shape -----------------------------------------------------------------------------------
expect "RLS on both tables, registered for tenancy" "2|2" \
  "$(q -c "select count(*) filter (where relrowsecurity), (select count(*) from agentmem.tenant_tables where table_name::text in ($TABLES))
           from pg_class where relnamespace = 'public'::regnamespace and relname in ($TABLES)")"
# The profile columns come from one declaration (agentmem.contractor_profile): the same
# types, defaults, NOT NULLs and checks in both tables, so a conversion cannot fail on one.
PROFILE="select a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
           from pg_attribute a left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
          where a.attrelid = %s and a.attnum > 0 and not a.attisdropped
         union all
         select conname || ' ' || pg_get_constraintdef(oid) from pg_constraint where conrelid = %s and contype = 'c'"
profile_of() { q -c "select count(*) from ($(printf "$PROFILE" "'agentmem.contractor_profile'::regclass" "'agentmem.contractor_profile'::regclass")
                                         except ($(printf "$PROFILE" "'$1'::regclass" "'$1'::regclass"))) missing"; }
expect "both tables carry every profile column and check of agentmem.contractor_profile (13 columns, 13 checks)" "26|0|0" \
  "$(q -c "select count(*) from ($(printf "$PROFILE" "'agentmem.contractor_profile'::regclass" "'agentmem.contractor_profile'::regclass")) p")|$(profile_of public.contractor_leads)|$(profile_of public.contractors)"
expect "tenant_id leads every key: both primary keys, the one-conversion key, the lead link" \
  "contractor_leads_pkey:tenant_id,id
contractors_contractor_lead_fkey:tenant_id,contractor_lead_id
contractors_contractor_lead_id_key:tenant_id,contractor_lead_id
contractors_pkey:tenant_id,id" \
  "$(q -c "select c.conname || ':' || string_agg(a.attname, ',' order by k.o)
           from pg_constraint c, unnest(c.conkey) with ordinality k(n, o)
           join pg_attribute a on a.attnum = k.n
           where c.conrelid in ('public.contractor_leads'::regclass, 'public.contractors'::regclass) and c.contype in ('p', 'u', 'f')
             and a.attrelid = c.conrelid
           group by c.conname order by c.conname")"
expect "anon has no privilege on the tables; authenticated never truncates" "f|f" \
  "$(q -c "select bool_or(has_table_privilege('anon', 'public.' || t, p)), bool_or(has_table_privilege('authenticated', 'public.' || t, 'truncate'))
           from unnest(array[$TABLES]) t, unnest(array['select', 'insert', 'update', 'delete', 'truncate']) p")"
expect "the three RPCs: one each, the writers SECURITY DEFINER (the tables' one door) with an empty search_path, not for anon or PUBLIC" "3|3|3|f|3" \
  "$(q -c "select count(*), count(*) filter (where proconfig @> array['search_path=public'] or proconfig @> array['search_path=\"\"']), count(*) filter (where prosecdef),
                  bool_or(has_function_privilege('anon', p.oid, 'execute') or has_function_privilege('public', p.oid, 'execute')),
                  count(*) filter (where has_function_privilege('authenticated', p.oid, 'execute') and has_function_privilege('service_role', p.oid, 'execute'))
           from pg_proc p where pronamespace = 'public'::regnamespace and proname in ($RPCS)")"
expect "save_unified_state has one signature, p_lead last and optional" "1|p_lead jsonb DEFAULT NULL::jsonb" \
  "$(q -c "select count(*), max(regexp_replace(pg_get_function_arguments(oid), '.*, ', '')) from pg_proc
           where pronamespace = 'public'::regnamespace and proname = 'save_unified_state'")"
expect "the helpers are not callable by anon" "f" \
  "$(q -c "select bool_or(has_function_privilege('anon', p.oid, 'execute')) from pg_proc p
           where pronamespace = 'agentmem'::regnamespace and proname in ('jsonb_array_union', 'contractor_only_keys', 'contractor_check_lead_id', 'contractor_check_types', 'contractor_lead_fields', 'contractor_lead_merge')")"
expect "data_sources as a set: first-seen order, duplicates once" '["b", "a", "c", {"x": 1}]' \
  "$(q -c "select agentmem.jsonb_array_union('[\"b\", \"a\", \"b\"]', '[\"c\", \"a\", {\"x\": 1}, {\"x\": 1}]')")"

# --- the functions, called directly ------------------------------------------------------------
expect "the 5-argument call of save_unified_state (no lead) still works and writes no lead" "|0" \
  "$(as_api authenticated "$A" "select r->>'lead_id' from save_unified_state(gen_random_uuid(), '$L', '{\"company_name\": \"x\"}', '{}', null) r;
select count(*) from contractor_leads;" | paste -sd'|')"
expect "save_unified_state with p_lead: state and lead in one transaction" "$L|Acme|12|" \
  "$(as_commit authenticated "$A" "select r->>'lead_id' from save_unified_state(gen_random_uuid(), '$L', '{\"company_name\": \"Acme\"}', '{}', null,
       '{\"company_name\": \"Acme\", \"years_in_business\": 12}') r;
select company_name, years_in_business, discovered_at from contractor_leads where id = '$L';" | paste -sd'|')"
expect "a lead that fails makes the whole save fail: no memory row either" "22023|0" \
  "$(state authenticated "$A" "select save_unified_state('$(cat /proc/sys/kernel/random/uuid)', 'other-$RUN', '{\"x\": 1}', '{}', null, '{\"contact_name\": \"no company\"}');")|$(
     q -c "select count(*) from unified_conversations where contractor_lead_id = 'other-$RUN'")"
for c in "profile.tenant_id|{\"tenant_id\": \"$B\"}" \
  "profile.converted_to_contractor|{\"converted_to_contractor\": true}" \
  "profile.scores|{\"scores\": [1]}" \
  "profile.scores.q|{\"scores\": {\"q\": 1.5}}" \
  "profile.data_sources|{\"data_sources\": \"google\"}" \
  "profile|[1]"; do
  IFS='|' read -r field profile <<<"$c"
  expect "build_contractor_profile refuses ${field} (22023, its detail names the field)" "22023|field: $field" \
    "$(error_detail authenticated "$A" "select build_contractor_profile('$L', '$profile');")"
done
expect "an account with a verified flag is refused (22023)" 22023 \
  "$(state authenticated "$A" "select convert_contractor_lead('$L', '{\"verified\": true}');")"
expect "convert as B: PT404, the same message as for a lead nobody has" \
  "PT404|no contractor lead '<id>'|PT404|no contractor lead '<id>'" \
  "$(state_msg authenticated "$B" "select convert_contractor_lead('$L');" | sed "s/$L/<id>/")|$(
     state_msg authenticated "$B" "select convert_contractor_lead('nobody-$RUN');" | sed "s/nobody-$RUN/<id>/")"
expect "B cannot link a contractor of its own to A's lead (42501: no direct writes); A's lead stays unconverted" "42501|f" \
  "$(state authenticated "$B" "insert into contractors (contractor_lead_id, company_name) values ('$L', 'B');")|$(
     q -c "select converted_to_contractor from contractor_leads where id = '$L'")"
expect "A converts: the defaults; the lead marked; a second conversion returns the same row" "available|3|f|f|f|t|t|1" \
  "$(as_commit authenticated "$A" "select convert_contractor_lead('$L') \\g /dev/null
select availability_status, tier, verified, license_verified, insurance_verified from contractors where contractor_lead_id = '$L';
select converted_to_contractor and converted_at is not null from contractor_leads where id = '$L';
select (select convert_contractor_lead('$L') ->> 'id') = (select id::text from contractors where contractor_lead_id = '$L');
select count(*) from contractors;" | paste -sd'|')"
expect "a second contractor for the lead is refused by the key (23505), even written directly by the service role" 23505 \
  "$(state service_role "" "insert into contractors (tenant_id, contractor_lead_id, company_name) values ('$A', '$L', 'dup');")"
expect "the contractor cannot verify itself, change its tier or undo the lead's conversion (42501: no direct writes)" "42501|42501|42501" \
  "$(state authenticated "$A" "update contractors set verified = true, license_verified = true, insurance_verified = true where contractor_lead_id = '$L';")|$(state authenticated "$A" "update contractors set tier = 0 where contractor_lead_id = '$L';")|$(state authenticated "$A" "update contractor_leads set converted_to_contractor = false where id = '$L';")"
expect "a conversion's account sets tier for the service role only (42501 for a user)" "42501" \
  "$(state authenticated "$A" "select convert_contractor_lead('$L', '{\"tier\": 0}');")"
expect "a lead converts once, ever: unlinked by the service role and un-flagged, a second conversion is 23505; the flag stays" "t|23505|t|1" \
  "$(as_commit service_role "" "update contractors set contractor_lead_id = null where tenant_id = '$A' and contractor_lead_id = '$L';
update contractor_leads set converted_to_contractor = false, converted_at = null where tenant_id = '$A' and id = '$L' returning converted_to_contractor;")|$(state authenticated "$A" "select convert_contractor_lead('$L');")|$(q -c "select converted_to_contractor from contractor_leads where tenant_id = '$A' and id = '$L'")|$(q -c "select count(*) from contractors where tenant_id = '$A' and company_name = (select company_name from contractor_leads where tenant_id = '$A' and id = '$L')")"
expect "the service role works in its own tenant: A's lead id is new there" "false|1" \
  "$(as_commit service_role "" "select build_contractor_profile('$L', '{\"company_name\": \"Svc\"}') ->> 'converted_to_contractor';")|$(
     q -c "select count(*) from contractor_leads where id = '$L' and tenant_id = agentmem.service_tenant()")"

# --- deletions ---------------------------------------------------------------------------------
expect "deleting a converted lead keeps its contractor, unlinked" "1|" \
  "$(as_commit authenticated "$A" "select build_contractor_profile('gone-$RUN', '{\"company_name\": \"Gone\"}') \\g /dev/null
select convert_contractor_lead('gone-$RUN') \\g /dev/null" >/dev/null
     as_commit service_role "" "delete from contractor_leads where tenant_id = '$A' and id = 'gone-$RUN';" >/dev/null
     as_api authenticated "$A" "
select count(*) from contractors where company_name = 'Gone';
select contractor_lead_id from contractors where company_name = 'Gone';" | paste -sd'|')"
q -c "delete from auth.users where id = '$A'"
expect "deleting user A deletes A's leads and contractors; the service tenant's copy stays" "0|0|1" \
  "$(q -c "select (select count(*) from contractor_leads where tenant_id = '$A'), (select count(*) from contractors where tenant_id = '$A'),
                  (select count(*) from contractor_leads where id = '$L')")"

if [ "$failed" -gt 0 ]; then
  log "contractors SQL test FAILED: $failed of $checks checks"
  exit 1
fi
log "contractors SQL test passed: $checks checks"
