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
uuid() { cat /proc/sys/kernel/random/uuid; }
NIL=00000000-0000-0000-0000-000000000000

# One PostgREST-style request: as the login role authenticator, inside one transaction,
# as `role` with the JWT claims of `sub`. A failing statement is rolled back alone
# (ON_ERROR_ROLLBACK) so later statements still run; :SQLSTATE is available.
# Optional, from the environment (e.g. `API_HEADERS='{...}' as_api ...`):
#   API_HEADERS  request.headers as PostgREST sets it: a JSON object, lower-case names,
#                e.g. {"x-agentmem-tenant": "<uuid>"}
#   API_CLAIMS   the JWT claims JSON itself, instead of {"sub": sub, "role": role}
#   API_PRELUDE  SQL run in the transaction before `set local role` (as API_USER)
#   API_USER     the login role (default authenticator; `regranted` uses postgres)
#   API_ERR      where psql's stderr goes (default /dev/null)
api() { # end (commit|rollback), role, sub ('' for none), sql
  local claims
  if [ -n "${API_CLAIMS:-}" ]; then claims=$API_CLAIMS
  elif [ -n "$3" ]; then claims="{\"sub\":\"$3\",\"role\":\"$2\"}"; else claims="{\"role\":\"$2\"}"; fi
  printf '%s\n' '\set ON_ERROR_ROLLBACK on' 'begin;' "${API_PRELUDE:-}" "set local role $2;" \
    "select set_config('request.jwt.claims', '$claims', true) \\g /dev/null" \
    ${API_HEADERS:+"select set_config('request.headers', '$API_HEADERS', true) \\g /dev/null"} \
    "$4" "$1;" |
    "$PG" psql -X -q -At -U "${API_USER:-authenticator}" 2>>"${API_ERR:-/dev/null}"
}
as_api() { api rollback "$@"; }   # role, sub, sql
as_commit() { api commit "$@"; }  # role, sub, sql
# The SQLSTATE (00000 on success) of one statement, as role/sub, rolled back.
sqlstate() { # role, sub, statement
  as_api "$1" "$2" "\\o /dev/null
${3%;};
\\o
\\echo :SQLSTATE"
}
# As the service role acting for a user (x-agentmem-tenant), e.g. `acting_for "$A" as_api ...`.
acting_for() { # user id (any text), command...
  local who=$1
  shift
  API_HEADERS="{\"x-agentmem-tenant\": \"$who\"}" "$@"
}
# What a Supabase project's later migration commonly does: every privilege to the API
# roles. `regranted CMD...` runs CMD (as_api, sqlstate, ...) with these grants made first
# in the same (rolled-back) transaction, connected as postgres (then `set local role`).
REGRANT="grant all on all tables in schema public to anon, authenticated;
grant execute on all functions in schema public to anon, authenticated;
grant usage on schema agentmem to anon;
grant execute on all functions in schema agentmem to anon, authenticated;"
regranted() { API_USER=postgres API_PRELUDE="$REGRANT" "$@"; }
# A token of role authenticated without a usable user: no sub, a sub that is no UUID, the nil UUID.
SUBLESS_CLAIMS=('{"role":"authenticated"}' '{"role":"authenticated","sub":"not-a-uuid"}'
  "{\"role\":\"authenticated\",\"sub\":\"$NIL\"}" '{"role":"authenticated","sub":""}')
# The SQLSTATEs of one statement under each sub-less token, "|"-joined (expect PT401|PT401|...).
subless_states() { # statement
  local c out=()
  for c in "${SUBLESS_CLAIMS[@]}"; do out+=("$(API_CLAIMS=$c sqlstate authenticated "" "$1")"); done
  local IFS='|'
  printf '%s' "${out[*]}"
}
SUBLESS_EXPECTED="PT401|PT401|PT401|PT401"
