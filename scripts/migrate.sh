#!/usr/bin/env bash
# Applies supabase/migrations/*.sql to the LOCAL test Postgres (scripts/postgres.sh,
# started if needed), the way the Supabase CLI does:
#   1. supabase/local/bootstrap.sql (idempotent; what a real project already has),
#   2. every migration not yet recorded in supabase_migrations.schema_migrations, in
#      file-name order, each in its own transaction together with its record row.
# A second run applies nothing. Files not named <digits>_<name>.sql are skipped, as the
# CLI skips them. The CLI stores the migration split into statements; this stores the
# whole file as one element of `statements`.
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

applied=$(sql -At -c "select version from supabase_migrations.schema_migrations")
record=$(mktemp)
trap 'rm -f "$record"' EXIT

count=0
shopt -s nullglob
files=("$ROOT"/supabase/migrations/*.sql)
[ ${#files[@]} = 0 ] || mapfile -t files < <(printf '%s\n' "${files[@]}" | LC_ALL=C sort)
for file in "${files[@]}"; do
  base=$(basename "$file")
  if [[ ! $base =~ ^([0-9]+)_(.*)\.sql$ ]]; then
    log "skipping $base (not <version>_<name>.sql)"
    continue
  fi
  version=${BASH_REMATCH[1]}
  name=${BASH_REMATCH[2]//\'/\'\'}
  grep -qxF "$version" <<<"$applied" && continue
  # The file's text as a dollar-quoted literal, with a tag the text does not contain.
  tag="m_$version"
  while grep -qF "\$$tag\$" "$file"; do tag="${tag}_"; done
  {
    printf "insert into supabase_migrations.schema_migrations (version, name, statements)\n"
    printf "values ('%s', '%s', array[\$%s\$" "$version" "$name" "$tag"
    cat "$file"
    printf "\$%s\$]);\n" "$tag"
  } >"$record"
  sql --single-transaction -f "$file" -f "$record" ||
    { echo "migrate.sh: $base failed; nothing of it was applied" >&2; exit 1; }
  echo "applied $base"
  count=$((count + 1))
done

if [ "$count" = 0 ]; then
  echo "migrations: up to date (nothing to apply)"
else
  echo "migrations: applied $count"
fi
