#!/usr/bin/env bash
# The gateway conformance suite: supabase-js (from npm) against the running stack
# (scripts/stack.sh up --test-fixtures), each case asserting what PostgREST answers.
#
# Installs this folder's npm dependencies exactly as locked (npm ci) when node_modules is
# missing or older than package-lock.json.
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
HERE="$ROOT/tests/gateway"
cd "$HERE"

stamp="$HERE/node_modules/.installed-lock"
if ! cmp -s package-lock.json "$stamp" 2>/dev/null; then
  log "npm ci (tests/gateway: @supabase/supabase-js)"
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json "$stamp"
fi
node --test conformance.test.mjs
