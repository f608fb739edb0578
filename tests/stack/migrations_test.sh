#!/usr/bin/env bash
# Every SQL file is re-runnable: supabase/local/bootstrap.sql, supabase/migrations/*.sql
# and supabase/optional/*.sql, applied in the order scripts/migrate.sh --with-optional
# uses, twice, to a scratch database. The second pass must end without error and leave
# the database exactly as the first did: same schema fingerprint (pg_dump of the scratch
# database, schema and rows, plus the roles and database settings, which pg_dump does not
# cover).
#
# Runs on the stack named by AGENTMEM_PG_PORT / AGENTMEM_STACK_DIR (starting Postgres if
# needed, and stopping it again at the end if this script started it). The scratch
# database is dropped at exit; the stack's own database is not touched (the roles are
# cluster-wide, and bootstrap.sql leaves them as it finds them).
#
#   tests/stack/migrations_test.sh [SQL_ROOT]   SQL_ROOT: a folder holding supabase/
#                                               (default: this checkout), e.g. to compare
#                                               another version's files
# AGENTMEM_FINGERPRINT_OUT=FILE keeps the first pass's fingerprint (to diff two versions).
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"

PG="$ROOT/scripts/postgres.sh"
SQL_ROOT=${1:-$ROOT}
started=0
"$PG" status >/dev/null 2>&1 || started=1
"$PG" start >/dev/null

DB="agentmem_rerun_$$"
WORK=$(mktemp -d)
cleanup() {
  local rc=$?
  "$PG" psql -X -q -c "drop database if exists $DB with (force)" >/dev/null 2>&1 || true
  rm -rf "$WORK"
  if [ "$started" = 1 ]; then "$PG" stop >/dev/null 2>&1 || true; fi
  exit "$rc"
}
trap cleanup EXIT

source "$(dirname "${BASH_SOURCE[0]}")/sql_lib.sh"

log "migrations re-run test (port ${AGENTMEM_PG_PORT:-54329}, scratch database $DB)"
"$PG" psql -X -q -c "create database $DB" >/dev/null

# The files, in the order migrate.sh --with-optional applies them.
files=("$SQL_ROOT/supabase/local/bootstrap.sql")
mapfile -t -O 1 files < <(printf '%s\n' "$SQL_ROOT"/supabase/migrations/*.sql | LC_ALL=C sort)
mapfile -t -O ${#files[@]} files < <(printf '%s\n' "$SQL_ROOT"/supabase/optional/*.sql | LC_ALL=C sort)

apply_all() { # pass number; prints "file: error" per failing file
  local f out errors=""
  for f in "${files[@]}"; do
    if ! out=$(PGOPTIONS="-c client_min_messages=warning" "$PG" psql -X -q -v ON_ERROR_STOP=1 \
      -d "$DB" --single-transaction -o /dev/null -f "$f" 2>&1); then
      errors+="${f#"$SQL_ROOT"/}: $(grep -m1 ERROR <<<"$out") "
    elif grep -q . <<<"$out"; then # a warning is a change of outcome too
      errors+="${f#"$SQL_ROOT"/}: $(head -n 1 <<<"$out") "
    fi
  done
  printf '%s' "${errors:-none}"
}

BINDIR=$("$PG" psql -X -At -c "select setting from pg_config where name = 'BINDIR'")
fingerprint() { # file
  {
    # Schema and rows of the scratch database (its tables hold only what the SQL itself
    # inserts: the tenancy registry, PostgresSaver's migration marks).
    "$BINDIR/pg_dump" -h 127.0.0.1 -p "${AGENTMEM_PG_PORT:-54329}" -U postgres -d "$DB" \
      --restrict-key=agentmem --no-tablespaces
    # What pg_dump leaves out: the roles bootstrap.sql creates, their settings and
    # memberships, and the database's settings.
    "$PG" psql -X -At -d "$DB" <<'EOF'
select r.rolname, r.rolsuper, r.rolinherit, r.rolcanlogin, r.rolbypassrls, r.rolconfig
  from pg_roles r where r.rolname in ('anon', 'authenticated', 'service_role', 'authenticator', 'postgres')
 order by 1;
select m.roleid::regrole, m.member::regrole, m.admin_option from pg_auth_members m
 where m.member::regrole::text in ('anon', 'authenticated', 'service_role', 'authenticator')
 order by 1, 2;
select s.setrole::regrole, s.setconfig from pg_db_role_setting s
 where s.setdatabase in (0, (select oid from pg_database where datname = current_database()))
 order by 1;
EOF
  } >"$1"
}

expect "pass 1: every file applies without error or warning" none "$(apply_all)"
fingerprint "$WORK/pass1.sql"
[ -z "${AGENTMEM_FINGERPRINT_OUT:-}" ] || cp "$WORK/pass1.sql" "$AGENTMEM_FINGERPRINT_OUT"
expect_match "pass 1: the fingerprint covers the schema (tables, policies, grants, functions)" \
  "CREATE TABLE public.agent_memories.*CREATE POLICY tenant_select.*GRANT SELECT ON TABLE public.agent_memories TO authenticated" \
  "$(tr '\n' ' ' <"$WORK/pass1.sql")"
expect "pass 2: every file applies again without error or warning" none "$(apply_all)"
fingerprint "$WORK/pass2.sql"
if diff -u "$WORK/pass1.sql" "$WORK/pass2.sql" >"$WORK/diff"; then
  ok "pass 2 leaves the database exactly as pass 1 did ($(wc -l <"$WORK/pass1.sql") lines of fingerprint)"
else
  bad "pass 2 changed the database:"
  head -n 60 "$WORK/diff" >&2
fi

# The privileges rule of 20261121000100_tenancy.sql, over everything the files create (the
# scratch database holds nothing else): anon nothing; no API role TRUNCATE, REFERENCES or
# TRIGGER; service_role exactly select/insert/update/delete on every table and view it may
# use; no function executable by anon or PUBLIC.
RELS="from pg_class c where c.relnamespace in ('public'::regnamespace, 'agentmem'::regnamespace, 'agentmem_langgraph'::regnamespace) and c.relkind in ('r', 'v', 'p')"
expect "anon: no privilege on any table or view" 0 \
  "$(q -d "$DB" -c "select count(*) $RELS and has_table_privilege('anon', c.oid, 'select,insert,update,delete,truncate,references,trigger')")"
expect "no API role has TRUNCATE, REFERENCES or TRIGGER anywhere" 0 \
  "$(q -d "$DB" -c "select count(*) $RELS and exists (select from unnest(array['anon', 'authenticated', 'service_role']) r
                      where has_table_privilege(r, c.oid, 'truncate,references,trigger'))")"
# The two exceptions hold no rows a client may touch: the tenancy registry and the column
# template contractor_leads and contractors copy.
expect "service_role: select, insert, update and delete on every table and view but the tenancy registry and the profile template" \
  "$(q -d "$DB" -c "select count(*) - 2 $RELS")|0" \
  "$(q -d "$DB" -c "select count(*) filter (where has_table_privilege('service_role', c.oid, 'select') and has_table_privilege('service_role', c.oid, 'insert')
                                          and has_table_privilege('service_role', c.oid, 'update') and has_table_privilege('service_role', c.oid, 'delete')),
                           count(*) filter (where c.oid in ('agentmem.tenant_tables'::regclass, 'agentmem.contractor_profile'::regclass)
                                                    and has_table_privilege('service_role', c.oid, 'select,insert,update,delete'))
                    $RELS")"
expect "no function of public or agentmem is executable by anon or PUBLIC" 0 \
  "$(q -d "$DB" -c "select count(*) from pg_proc p where p.pronamespace in ('public'::regnamespace, 'agentmem'::regnamespace)
                      and (has_function_privilege('anon', p.oid, 'execute') or has_function_privilege('public', p.oid, 'execute'))")"

if [ "$failed" != 0 ]; then
  log "migrations re-run test: $failed of $checks checks FAILED"
  exit 1
fi
log "migrations re-run test passed: $checks checks"
