#!/usr/bin/env bash
# Every SQL file is re-runnable: supabase/local/bootstrap.sql, supabase/migrations/*.sql
# and supabase/optional/*.sql, applied in the order scripts/migrate.sh --with-optional
# uses, twice, to a scratch database. The second pass must end without error and leave
# the database exactly as the first did: same schema fingerprint (pg_dump of the scratch
# database, schema and rows, plus the roles and database settings, which pg_dump does not
# cover). Then the database is held to what the Rust code declares of it
# (tests/stack/declared.json, written by scripts/generate.sh): each migration's tables and
# functions, read from the catalog after each file of the first pass, and the names the
# CHECK constraints of the columns that store a Rust enum accept.
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

# The tables and functions of public and agentmem, as crate::migration::Migration names
# them (public's bare, agentmem's with the schema), as a JSON array.
OBJECTS="select coalesce(jsonb_agg(name order by name), '[]') from (
  select case n.nspname when 'public' then c.relname else n.nspname || '.' || c.relname end
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
   where n.nspname in ('public', 'agentmem') and c.relkind in ('r', 'p')
  union
  select case n.nspname when 'public' then p.proname else n.nspname || '.' || p.proname end
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace
   where n.nspname in ('public', 'agentmem')) o(name)"

apply_all() { # [folder]; prints "file: error" per failing file. With a folder, writes into it
  # after each file {"file": ..., "objects": OBJECTS}, so that what a file created is the
  # difference from the one before.
  local f out errors="" n=0
  for f in "${files[@]}"; do
    if ! out=$(PGOPTIONS="-c client_min_messages=warning" "$PG" psql -X -q -v ON_ERROR_STOP=1 \
      -d "$DB" --single-transaction -o /dev/null -f "$f" 2>&1); then
      errors+="${f#"$SQL_ROOT"/}: $(grep -m1 ERROR <<<"$out") "
    elif grep -q . <<<"$out"; then # a warning is a change of outcome too
      errors+="${f#"$SQL_ROOT"/}: $(head -n 1 <<<"$out") "
    fi
    if [ -n "${1:-}" ]; then
      n=$((n + 1))
      printf '{"file": "%s", "objects": %s}\n' "${f#"$SQL_ROOT"/}" "$(q -d "$DB" -c "$OBJECTS")" >"$1/$(printf %03d $n)"
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

mkdir "$WORK/after"
expect "pass 1: every file applies without error or warning" none "$(apply_all "$WORK/after")"
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

# What the crate declares of the database (tests/stack/declared.json, written from it by
# scripts/generate.sh) against what the migrations did to this one, so that no test reads
# the SQL text. The rules of crate::schema::migration_for: each file that creates tables or
# functions is declared by one capability; each declared name is created by its file; each
# table and function a file creates is declared with that file, but for agentmem's that no
# capability claims, which the tenancy file's entry `agentmem.` stands for.
DECLARED="$SQL_ROOT/tests/stack/declared.json"
if [ ! -f "$DECLARED" ] && [ "$SQL_ROOT" != "$ROOT" ]; then
  log "no tests/stack/declared.json in $SQL_ROOT: the declarations are not checked"
else
  cat "$WORK"/after/* | paste -sd, - | sed 's/^/[/; s/$/]/' >"$WORK/snapshots.json"
  declared_q() { # sql over decl (file, name), declared_files (file), created (file, name), migrated (objects)
    q -d "$DB" <<EOF
\set declared \`cat "$DECLARED"\`
\set snapshots \`cat "$WORK/snapshots.json"\`
with declared_files as (
  select m.e ->> 'file' as file from jsonb_array_elements(:'declared'::jsonb -> 'migrations') as m(e)),
decl as (
  select m.e ->> 'file' as file, o.name
    from jsonb_array_elements(:'declared'::jsonb -> 'migrations') as m(e),
         jsonb_array_elements_text(m.e -> 'objects') as o(name)),
snap as (
  select s.ord, s.e ->> 'file' as path, array(select jsonb_array_elements_text(s.e -> 'objects')) as objects
    from jsonb_array_elements(:'snapshots'::jsonb) with ordinality as s(e, ord)),
created as (
  select substr(s.path, length('supabase/migrations/') + 1) as file, o.name
    from snap s join snap before on before.ord = s.ord - 1, unnest(s.objects) as o(name)
   where s.path like 'supabase/migrations/%' and not o.name = any (before.objects)),
migrated as (
  select objects from snap where path like 'supabase/migrations/%' order by ord desc limit 1)
$1
EOF
  }
  expect "declared: the migrations create tables and functions ($(declared_q "select count(*) || ' in ' || count(distinct file) || ' files' from created"))" \
    t "$(declared_q "select count(*) > 0 from created")"
  expect "declared: each migration that creates tables or functions is declared by one capability, once" none \
    "$(declared_q "select coalesce(string_agg(problem, '; ' order by problem), 'none') from (
       select file || ' is declared ' || count(*) || ' times' from declared_files group by file having count(*) > 1
       union all
       select file || ' creates tables or functions, but no capability declares it'
         from (select file from created except select file from declared_files) f
       union all
       select file || ' is declared, but creates no table or function'
         from (select file from declared_files except select file from created) f) p(problem)")"
  expect "declared: each declared table and function is created by its declared file and exists after all of them" none \
    "$(declared_q "select coalesce(string_agg(problem, '; ' order by problem), 'none') from (
       select d.name || ' (declared with ' || d.file || ') is '
              || coalesce('created by ' || (select string_agg(c.file, ', ') from created c where c.name = d.name),
                          'created by no migration')
         from decl d
        where d.name <> 'agentmem.' and not exists (select from created c where c.file = d.file and c.name = d.name)
       union all
       select d.name || ' (declared with ' || d.file || ') does not exist once every migration is applied'
         from decl d, migrated m
        where d.name <> 'agentmem.' and not d.name = any (m.objects)) p(problem)")"
  expect "declared: each table and function a migration creates is declared with that file (agentmem's unclaimed ones by the entry agentmem.)" none \
    "$(declared_q "select coalesce(string_agg(problem, '; ' order by problem), 'none') from (
       select c.name || ' (created by ' || c.file || ') is '
              || coalesce('declared with ' || l.claims, 'declared by no capability')
         from created c
         cross join lateral (select string_agg(distinct d.file, ', ' order by d.file) as claims
                               from decl d where d.name = c.name) l
        where not (l.claims is not distinct from c.file
                   or (l.claims is null and c.name like 'agentmem.%'
                       and (select count(*) from decl where name = 'agentmem.') = 1))) p(problem)")"

  # The names of the Rust enums a column stores: each CHECK on the column accepts each of
  # them and refuses every other name tried: each string its CHECK constraints mention (as
  # Postgres prints them back, so that a name added to an IN list is tried) and near misses
  # of the declared ones. They are tried on a copy of the table's constraints with no other
  # column set, so that only the column's own checks decide. A function that lists them
  # returns exactly them, in order. Rolled back.
  stored=$(q -d "$DB" <<EOF
\set declared \`cat "$DECLARED"\`
begin;
create function pg_temp.accepted(p_table regclass, p_column name, p_declared text[]) returns text
language plpgsql as \$\$
declare
  v_tried    text[];
  v_not_null text;
  v_value    text;
  v_accepted text[] := '{}';
begin
  select p_declared || array_agg(distinct x) into v_tried
    from (select replace(m[1], '''''', '''')
            from pg_constraint k, regexp_matches(pg_get_constraintdef(k.oid), '''((?:[^'']|'''')*)''', 'g') m
           where k.conrelid = p_table and k.contype = 'c'
             and (select attnum from pg_attribute where attrelid = p_table and attname = p_column) = any (k.conkey)
          union all
          select unnest(array[upper(v), v || 's', ' ' || v, ''])
            from unnest(p_declared) v) c(x)
   where not x = any (p_declared);
  execute format('create temp table agentmem_probe (like %s including constraints)', p_table);
  select string_agg(format('alter column %I drop not null', a.attname), ', ') into v_not_null
    from pg_attribute a
   where a.attrelid = to_regclass('pg_temp.agentmem_probe') and a.attnum > 0 and not a.attisdropped and a.attnotnull;
  if v_not_null is not null then
    execute 'alter table pg_temp.agentmem_probe ' || v_not_null;
  end if;
  foreach v_value in array v_tried loop
    begin
      execute format('insert into pg_temp.agentmem_probe (%I) values (\$1)', p_column) using v_value;
      v_accepted := v_accepted || v_value;
    exception when check_violation then
      null;
    end;
  end loop;
  drop table pg_temp.agentmem_probe;
  return array_to_string(v_accepted, ' ') || ' (of ' || cardinality(v_tried) || ' tried)';
end
\$\$;
create function pg_temp.listed(p_function text) returns text[] language plpgsql as \$\$
declare
  v text[];
begin
  execute format('select %s()', p_function) into v;
  return v;
end
\$\$;
with stored as (
  select s.e ->> 'declared' as declared, array(select jsonb_array_elements_text(s.e -> 'values')) as vals, s.e
    from jsonb_array_elements(:'declared'::jsonb -> 'stored') as s(e))
select declared || ': ' || (c.col ->> 'table') || '.' || (c.col ->> 'column') || ' accepts exactly these names',
       array_to_string(vals, ' '),
       pg_temp.accepted((c.col ->> 'table')::regclass, c.col ->> 'column', vals)
  from stored, jsonb_array_elements(e -> 'columns') as c(col)
union all
select declared || ': ' || f.fn || '() returns exactly these, in order',
       array_to_string(vals, ' '), array_to_string(pg_temp.listed(f.fn), ' ')
  from stored, jsonb_array_elements_text(e -> 'lists') as f(fn);
rollback;
EOF
  ) || bad "declared: the stored names could not be tried (psql failed)"
  expect "declared: every column and function of the stored names is checked" \
    "$(declared_q "select sum(jsonb_array_length(s -> 'columns') + jsonb_array_length(s -> 'lists'))
                     from jsonb_array_elements(:'declared'::jsonb -> 'stored') s")" "$(grep -c . <<<"$stored")"
  while IFS='|' read -r name want got; do
    if [[ $got =~ ^(.*)\ \((of [0-9]+ tried)\)$ ]]; then
      got=${BASH_REMATCH[1]}
      name+=" (${BASH_REMATCH[2]})"
    fi
    expect "declared: $name" "$want" "$got"
  done <<<"$stored"
fi

# An install from before agentmem.keep_vectors_in_line: its search copies and store vectors
# of 1,536 dimensions were stored out of line (the TOAST table). Re-running the files moves
# them into their rows, once, with the same values. (Last: it changes the embedding
# dimensions of the scratch database.)
upgraded=$("$PG" psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB" 2>&1 <<EOF
select set_embedding_dimensions(1536) \g /dev/null
alter table agent_memory_vectors reset (toast_tuple_target);
alter table langgraph_store_vectors reset (toast_tuple_target);
insert into auth.users (id, email) values ('00000000-0000-4000-8000-00000000aaaa', 'upgrade@example.test');
insert into agent_memories (user_id, agent_id, content, memory_type, embedding)
select '00000000-0000-4000-8000-00000000aaaa', 'a', 'wide', 'fact', array_agg(sin(i))::real[]::extensions.vector
  from generate_series(1, 1536) i;
insert into langgraph_store_items (tenant_id, namespace, key, value)
values ('00000000-0000-4000-8000-00000000aaaa', '{docs}', 'k', '{}');
insert into langgraph_store_vectors (tenant_id, namespace, key, field, embedding)
select '00000000-0000-4000-8000-00000000aaaa', '{docs}', 'k', 'text', array_agg(cos(i))::real[]::extensions.vector
  from generate_series(1, 1536) i;
create temp table before as
  select (select md5(embedding::text) from agent_memory_vectors) as copy,
         (select md5(embedding::text) from langgraph_store_vectors) as stored;
select (select pg_column_toast_chunk_id(embedding) is not null from agent_memory_vectors)
       || '|' || (select pg_column_toast_chunk_id(embedding) is not null from langgraph_store_vectors);
\set QUIET on
\o /dev/null
\i $SQL_ROOT/supabase/migrations/20261122000200_agent_memories.sql
\i $SQL_ROOT/supabase/migrations/20261122000700_langgraph_store.sql
\o
select (select pg_column_toast_chunk_id(embedding) is null from agent_memory_vectors)
       || '|' || (select pg_column_toast_chunk_id(embedding) is null from langgraph_store_vectors)
       || '|' || (select (select md5(embedding::text) from agent_memory_vectors) = copy
                     and (select md5(embedding::text) from langgraph_store_vectors) = stored from before);
EOF
)
expect "re-run over an install with vectors stored out of line (1,536 dimensions): out of line before, in their rows after, the same values" \
  "true|true true|true|true" "$(grep -E '^(true|false)' <<<"$upgraded" | paste -sd' ')"

if [ "$failed" != 0 ]; then
  log "migrations re-run test: $failed of $checks checks FAILED"
  exit 1
fi
log "migrations re-run test passed: $checks checks"
