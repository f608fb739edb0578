#!/usr/bin/env bash
# The local Supabase Auth conformance suite: @supabase/auth-js and supabase-js's `auth`
# (from npm) against the gateway's /auth/v1 on the running stack
# (scripts/stack.sh up --test-fixtures), each case asserting what Supabase Auth answers.
# Cases needing short token lives start a second gateway (AGENTMEM_GATEWAY_BIN from the
# stack's env) on the same database. browser.test.mjs runs supabase-js's browser build in
# headless Chromium (playwright-core from tools/, installed by scripts/bootstrap.sh).
#
# Installs this folder's npm dependencies exactly as locked (npm ci) when node_modules is
# missing or older than package-lock.json.
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
HERE="$ROOT/tests/auth"
cd "$HERE"

stamp="$HERE/node_modules/.installed-lock"
if ! cmp -s package-lock.json "$stamp" 2>/dev/null; then
  log "npm ci (tests/auth: @supabase/auth-js, @supabase/supabase-js)"
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json "$stamp"
fi
node --test auth.test.mjs browser.test.mjs
