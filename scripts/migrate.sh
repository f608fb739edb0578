#!/usr/bin/env bash
# Applies supabase/migrations/*.sql to the LOCAL test Postgres (scripts/postgres.sh,
# started if needed), the way the Supabase CLI does:
#   1. supabase/local/bootstrap.sql (idempotent; what a real project already has),
#   2. every migration not yet recorded in supabase_migrations.schema_migrations, in
#      file-name order, each in its own transaction together with its record row.
# A second run applies nothing, and refuses to go on when an applied migration's file has
# changed since: until the first published release the files are rewritten in place, and a
# database made from an older text is not patched up but started again
# (scripts/stack.sh up --fresh, plus --test-fixtures for the test stack). Files not
# named <digits>_<name>.sql are skipped, as the CLI skips them. The CLI stores the
# migration split into statements; this stores the whole file as one element of
# `statements`.
#
#   scripts/migrate.sh [--with-optional]
#     --with-optional  also apply supabase/optional/*.sql, as a project that copied them
#                      into its migrations would (versions 20261122000900, …901, … in
#                      file-name order): the test stack runs with every option on.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PG="$ROOT/scripts/postgres.sh"
"$PG" start >/dev/null

export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning"
sql() { "$PG" psql -X -q -v ON_ERROR_STOP=1 "$@"; }

sql --single-transaction -f "$ROOT/supabase/local/bootstrap.sql"
sql --single-transaction <<'EOF'
create schema if not exists supabase_migrations;
create table if not exists supabase_migrations.schema_migrations (version text primary key);
alter table supabase_migrations.schema_migrations
  add column if not exists statements text[],
  add column if not exists name text,
  add column if not exists applied_at timestamptz default now();
EOF

# "version md5-of-its-text" per applied migration.
applied=$(sql -At -c "select version || ' ' || coalesce(md5(statements[1]), '') from supabase_migrations.schema_migrations")
with_optional=0
[ "${1:-}" = "--with-optional" ] && with_optional=1
record=$(mktemp)
trap 'rm -f "$record"' EXIT

count=0
shopt -s nullglob
# "version name file" per migration, in order.
entries=()
files=("$ROOT"/supabase/migrations/*.sql)
[ ${#files[@]} = 0 ] || mapfile -t files < <(printf '%s\n' "${files[@]}" | LC_ALL=C sort)
for file in "${files[@]}"; do
  base=$(basename "$file")
  if [[ ! $base =~ ^([0-9]+)_(.*)\.sql$ ]]; then
    log "skipping $base (not <version>_<name>.sql)"
    continue
  fi
  entries+=("${BASH_REMATCH[1]} ${BASH_REMATCH[2]} $file")
done
if [ "$with_optional" = 1 ]; then
  n=900
  while read -r file; do
    entries+=("20261122000$n $(basename "$file" .sql) $file")
    n=$((n + 1))
  done < <(printf '%s\n' "$ROOT"/supabase/optional/*.sql | LC_ALL=C sort)
fi

for entry in "${entries[@]}"; do
  read -r version name file <<<"$entry"
  base=$(basename "$file")
  name=${name//\'/\'\'}
  if stored=$(grep -m1 "^$version " <<<"$applied"); then
    stored=${stored#* }
    if [ -n "$stored" ] && [ "$stored" != "$(md5sum <"$file" | cut -d' ' -f1)" ]; then
      echo "migrate.sh: $base changed after it was applied to this database; start from a fresh one: scripts/stack.sh up --fresh$([ "$with_optional" = 1 ] && echo ' --test-fixtures')" >&2
      exit 1
    fi
    continue
  fi
  # The file's text as a dollar-quoted literal, with a tag the text does not contain.
  tag="m_$version"
  while grep -qF "\$$tag\$" "$file"; do tag="${tag}_"; done
  {
    printf "insert into supabase_migrations.schema_migrations (version, name, statements)\n"
    printf "values ('%s', '%s', array[\$%s\$" "$version" "$name" "$tag"
    cat "$file"
    printf "\$%s\$]);\n" "$tag"
  } >"$record"
  sql --single-transaction -o /dev/null -f "$file" -f "$record" ||
    { echo "migrate.sh: $base failed; nothing of it was applied" >&2; exit 1; }
  echo "applied $base"
  count=$((count + 1))
done

if [ "$count" = 0 ]; then
  echo "migrations: up to date (nothing to apply)"
else
  echo "migrations: applied $count"
fi
