#!/usr/bin/env bash
# The LangGraph saver against the running stack (scripts/stack.sh up --test-fixtures) and
# the built package (scripts/build.sh): in Node the upstream validation suite, then
# agentmem's own cases, including a graph resumed by a second Node process (saver.test.mjs);
# in Deno the package's "deno" entry (deno_saver_test.js, packages from node_modules here).
#
# Installs this folder's npm dependencies exactly as locked (npm ci) when node_modules is
# missing or older than package-lock.json, and links node_modules/agentmem-supabase to pkg/.
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
HERE="$ROOT/tests/langgraph"
cd "$HERE"

stamp="$HERE/node_modules/.installed-lock"
if ! cmp -s package-lock.json "$stamp" 2>/dev/null; then
  log "npm ci (tests/langgraph: vitest, @langchain/*)"
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json "$stamp"
fi
[ -f "$PKG/langgraph.js" ] || { echo "run.sh: no built package in $PKG (run scripts/build.sh)" >&2; exit 1; }
ln -sfn "$PKG" node_modules/agentmem-supabase

# saver.test.mjs and inspector.test.mjs start a second gateway (max-rows 2) on the stack's database.
export AGENTMEM_GATEWAY_BIN="$CARGO_TARGET_DIR/release/agentmem-gateway"
AGENTMEM_AUTHENTICATOR_DB_URL="$("$ROOT/scripts/postgres.sh" url authenticator)"
export AGENTMEM_AUTHENTICATOR_DB_URL
# node_modules/agentmem-supabase is a symlink: its own imports (@langchain/langgraph-checkpoint)
# must resolve from here, as for an installed package, not from pkg/.
NODE_OPTIONS="--preserve-symlinks ${NODE_OPTIONS:-}" node_modules/.bin/vitest run
log "tests/langgraph in Deno (the deno entry of agentmem-supabase/langgraph)"
# --no-check: a runtime check; the .d.ts chain would need @types/node from the network.
deno test --quiet --no-check --allow-read --allow-env --allow-net --allow-sys=homedir,hostname,osRelease deno_saver_test.js deno_timetravel_test.js
