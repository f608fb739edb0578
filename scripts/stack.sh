#!/usr/bin/env bash
# The local Supabase-like stack: Postgres (+pgvector, Supabase roles and auth schema) →
# migrations → agentmem-gateway (PostgREST-compatible /rest/v1 and a local Supabase Auth
# under /auth/v1, behind Supabase's API-key gate).
#
#   scripts/stack.sh up [--fresh] [--test-fixtures]
#                               start everything (idempotent); prints URL and keys;
#                               --fresh starts from an empty database; --test-fixtures also
#                               applies supabase/optional/*.sql (as migrations) and
#                               tests/fixtures/*.sql (test-only tables and functions), and
#                               turns on the gateway's /__gateway/* admin routes (fault
#                               injection, request log) that the tests use; without it (or
#                               AGENTMEM_GATEWAY_ADMIN=1) they answer 404
#   scripts/stack.sh down       stop the gateway and Postgres
#   scripts/stack.sh env        the stack's settings as shell assignments (source-able); Auth is
#                               $SUPABASE_URL/auth/v1; AGENTMEM_GATEWAY_BIN and the two DB URLs
#                               let a test start a second gateway (e.g. with --auth-jwt-exp 2)
#   scripts/stack.sh jwt SUB [ROLE] [SECONDS]   mint a user JWT (default role authenticated, 1 h)
#   scripts/stack.sh status
#
# Environment: AGENTMEM_GATEWAY_PORT (54321), AGENTMEM_PG_PORT (54329),
# AGENTMEM_STACK_DIR (/tmp/agentmem-stack), AGENTMEM_GATEWAY_ARGS (extra flags).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

STACK_DIR="${AGENTMEM_STACK_DIR:-/tmp/agentmem-stack}"
GW_PORT="${AGENTMEM_GATEWAY_PORT:-54321}"
GW_DIR="$STACK_DIR/gateway"
# Supabase's local-development JWT secret (supabase/cli); test-only.
JWT_SECRET="${AGENTMEM_JWT_SECRET:-super-secret-jwt-token-with-at-least-32-characters-long}"
PUBLISHABLE_KEY="sb_publishable_agentmem_local_0000000000"
SECRET_KEY="sb_secret_agentmem_local_00000000000000"
# The release build: a debug gateway costs several times the CPU per request.
GATEWAY_BIN="$CARGO_TARGET_DIR/release/agentmem-gateway"

# A killed gateway stays a zombie until its parent (often PID 1, which may reap late) reaps
# it, and `kill -0` still succeeds on a zombie: check its state too.
gateway_running() {
  local pid
  [ -f "$GW_DIR/pid" ] && pid=$(cat "$GW_DIR/pid") && kill -0 "$pid" 2>/dev/null &&
    ! grep -qE '^[0-9]+ \(.*\) Z' "/proc/$pid/stat" 2>/dev/null
}

build_gateway() {
  (cd "$ROOT" && cargo build --quiet --release -p gateway)
}

up() {
  local t0=$SECONDS fresh=0 fixtures=0 arg
  for arg in "$@"; do
    case "$arg" in
      --fresh) fresh=1 ;;
      --test-fixtures) fixtures=1 ;;
      *) echo "stack.sh up: unknown flag $arg" >&2; exit 2 ;;
    esac
  done
  build_gateway
  if [ "$fresh" = 1 ]; then
    down >/dev/null 2>&1 || true
    "$ROOT/scripts/postgres.sh" reset >/dev/null
  fi
  "$ROOT/scripts/postgres.sh" start >/dev/null
  if [ "$fixtures" = 1 ]; then
    "$ROOT/scripts/migrate.sh" --with-optional >&2
  else
    "$ROOT/scripts/migrate.sh" >&2
  fi
  if [ "$fixtures" = 1 ]; then
    for f in "$ROOT"/tests/fixtures/*.sql; do
      PGOPTIONS="-c client_min_messages=warning" "$ROOT/scripts/postgres.sh" psql -X -q -v ON_ERROR_STOP=1 --single-transaction -f "$f" >&2
    done
  fi
  mkdir -p "$GW_DIR"
  local admin=()
  [ "$fixtures" = 1 ] || [ "${AGENTMEM_GATEWAY_ADMIN:-}" = 1 ] && admin=(--admin)
  if gateway_running; then
    # Pick up new migrations without a restart, as PostgREST does.
    "$ROOT/scripts/postgres.sh" psql -X -q -c "notify pgrst, 'reload schema'"
  else
    # shellcheck disable=SC2086
    nohup "$GATEWAY_BIN" serve \
      --db-url "$("$ROOT/scripts/postgres.sh" url authenticator)" \
      --jwt-secret "$JWT_SECRET" --listen "127.0.0.1:$GW_PORT" \
      --publishable-key "$PUBLISHABLE_KEY" --secret-key "$SECRET_KEY" "${admin[@]}" \
      --auth-db-url "$("$ROOT/scripts/postgres.sh" url supabase_auth_admin)" \
      ${AGENTMEM_GATEWAY_ARGS:-} >"$GW_DIR/stdout" 2>"$GW_DIR/log" &
    echo $! >"$GW_DIR/pid"
    for _ in $(seq 1 100); do
      # The gateway writes its settings as one JSON line: read only once it is whole.
      [ -s "$GW_DIR/stdout" ] && json url >/dev/null 2>&1 && break
      gateway_running || { cat "$GW_DIR/log" >&2; echo "stack.sh: the gateway did not start" >&2; exit 1; }
      sleep 0.05
    done
  fi
  write_env
  log "stack up in $((SECONDS - t0))s: $(json url) (anon key, service key, publishable and secret keys in: scripts/stack.sh env)"
}

json() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]] or '')" "$GW_DIR/stdout" "$1"; }

write_env() {
  cat >"$STACK_DIR/env" <<ENV
SUPABASE_URL=$(json url)
SUPABASE_ANON_KEY=$(json anon_key)
SUPABASE_SERVICE_ROLE_KEY=$(json service_key)
SUPABASE_PUBLISHABLE_KEY=$PUBLISHABLE_KEY
SUPABASE_SECRET_KEY=$SECRET_KEY
SUPABASE_JWT_SECRET=$JWT_SECRET
AGENTMEM_DB_URL=$("$ROOT/scripts/postgres.sh" url)
AGENTMEM_AUTHENTICATOR_DB_URL=$("$ROOT/scripts/postgres.sh" url authenticator)
AGENTMEM_AUTH_DB_URL=$("$ROOT/scripts/postgres.sh" url supabase_auth_admin)
AGENTMEM_GATEWAY_BIN=$GATEWAY_BIN
ENV
}

down() {
  if gateway_running; then kill "$(cat "$GW_DIR/pid")" 2>/dev/null || true; fi
  rm -f "$GW_DIR/pid"
  "$ROOT/scripts/postgres.sh" stop >/dev/null
  log "stack down"
}

case "${1:-}" in
  up) shift; up "$@" ;;
  down) down ;;
  env) cat "$STACK_DIR/env" ;;
  status) gateway_running && echo "gateway running (pid $(cat "$GW_DIR/pid"))" || echo "gateway stopped"; "$ROOT/scripts/postgres.sh" status || true ;;
  jwt)
    [ -n "${2:-}" ] || { echo "usage: stack.sh jwt SUB [ROLE] [SECONDS]" >&2; exit 2; }
    [ -x "$GATEWAY_BIN" ] || build_gateway
    "$GATEWAY_BIN" mint --jwt-secret "$JWT_SECRET" --sub "$2" --role "${3:-authenticated}" --expires-in "${4:-3600}" ;;
  *) sed -n '2,22p' "$0" >&2; exit 2 ;;
esac
