# Shared by the SQL test scripts in this folder (sourced after scripts/lib.sh, with $PG set
# to scripts/postgres.sh): check counting, assertions, and PostgREST-shaped transactions.
# shellcheck shell=bash
checks=0
failed=0
ok() { checks=$((checks + 1)); printf '  ok  %s\n' "$1"; }
bad() { checks=$((checks + 1)); failed=$((failed + 1)); printf '  FAIL %s\n' "$1" >&2; }
expect() { # name, expected, actual
  if [ "$2" == "$3" ]; then ok "$1"; else bad "$1: expected [$2], got [$3]"; fi
}
expect_match() { # name, regex, actual
  if [[ $3 =~ $2 ]]; then ok "$1"; else bad "$1: expected to match /$2/, got [$3]"; fi
}
q() { "$PG" psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }

# One PostgREST-style request: as the login role authenticator, inside one transaction,
# as `role` with the JWT claims of `sub`. A failing statement is rolled back alone
# (ON_ERROR_ROLLBACK) so later statements still run; :SQLSTATE is available.
api() { # end (commit|rollback), role, sub ('' for none), sql
  local claims
  if [ -n "$3" ]; then claims="{\"sub\":\"$3\",\"role\":\"$2\"}"; else claims="{\"role\":\"$2\"}"; fi
  printf '%s\n' '\set ON_ERROR_ROLLBACK on' 'begin;' "set local role $2;" \
    "select set_config('request.jwt.claims', '$claims', true) \\g /dev/null" "$4" "$1;" |
    "$PG" psql -X -q -At -U authenticator 2>/dev/null
}
as_api() { api rollback "$@"; }   # role, sub, sql
as_commit() { api commit "$@"; }  # role, sub, sql
